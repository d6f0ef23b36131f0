// SimFs: a fully in-memory, deterministic file system (an Env) that can crash and lose power on
// command, and fork the possible world after the death while the original stays frozen.
//
// CRASH MODEL (implemented exactly as written; faults/sim_fs_test.cc checks it against a model)
//
// State. Every file is an inode with two images: its current bytes (what reads see) and its durable
// bytes (the current bytes as of its last Sync()). Every directory has two entry tables: its
// current entries (name -> inode or subdirectory) and its durable entries (the current entries as
// of its last SyncDir()). A file's name is therefore durable only once its directory is synced, and
// its bytes only once the file is synced; the two are independent (fsync of a file never makes its
// name durable). A new directory is itself an entry of its parent: it survives a power loss only
// after SyncDir(parent). The root "/" always exists. Sync/SyncDir copy the current image to the
// durable one.
//
// Writes. Every append or positioned write is one write op. The system remembers, for each inode,
// its most recent unsynced write (offset and bytes); a Sync() of that inode forgets it. The "last
// unsynced write" is the most recent write op, system-wide, whose inode was not synced after it.
//
// Crash (the process dies; DeathKind::kCrash and kExit). Everything written survives: the
// post-crash world equals the current world, durable images included (a later power loss can still
// lose what was never synced).
//
// Power loss (the machine dies; DeathKind::kPowerLoss). Starting from "/", the post-power-loss tree
// is the tree of durable entries: a directory or file whose entry in its parent was not dir-synced
// is gone (with everything below it), and an unlink or rename that was not dir-synced is undone (a
// file durably linked under an old name keeps its durable bytes under that name; a rename synced in
// the target directory but not in the source leaves the file under both names, as hard links). Each
// surviving file holds its durable bytes, except that the last unsynced write may be torn: writing
// its range as 512-byte file sectors (aligned at multiples of 512), a seed-chosen prefix of k of
// those sectors (0 <= k <= all) reaches the durable image, each with that write's bytes; if that
// lengthens the file past its durable size, the gap reads as zero bytes. No other unsynced byte,
// truncation, create, rename or unlink survives.
//
// Freezing. After Freeze(kind, point) (called by the death itself, or by an injector that dies at a
// non-file-system point) every further operation of the SimFs and of every handle it gave out
// returns kFailedPrecondition "simulated world is frozen after <kind> at <point>" and changes
// nothing. The frozen world never throws a second time: a destructor that writes during unwinding
// gets a Status.
//
// Fault points. Before every mutating operation (after its arguments were validated) the SimFs asks
// its FaultHook, if one is set, at "fs.<op>[<role>]": fs.write (every append and positioned write),
// fs.fsync, fs.rename (role of the source path), fs.unlink, fs.truncate (a positioned truncate, or
// NewWritableFile over an existing non-empty file), fs.create (a new file) and fs.dirsync (role of
// the directory path). The role comes from the role classifier (default: "file"); anonymous files
// (the SQLite VFS's temp files) have role "temp". kProceed does it; kFail does nothing and returns
// Status(fail_code, "injected <EIO|ENOSPC> at <point>", injected); kDie freezes the world and
// throws CrashSignal. Reads, existence checks, listing, sizes, locks and CreateDirIfMissing are not
// fault points. LockFile creates the lock file when missing (as PosixEnv does), without a fault
// point.
//
// Paths are absolute ("/data/cp/x.json"); a relative path is taken relative to "/"; "//" and "/./"
// collapse; ".." is refused.
//
// Thread-safety: a SimFs, its handles and its hook are driven by one thread. Handles and locks hold
// a shared reference to the world, so they may safely outlive the SimFs (they are then just refused
// when frozen, or keep working on the orphaned world).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env.h"
#include "engine/status.h"
#include "faults/fault_hook.h"

namespace stepfault::faults {

struct SimWorld;  // faults/sim_fs_internal.h
struct SimInode;

// Sector size of the tearing model, and what the SQLite VFS reports.
inline constexpr uint64_t kSimSectorBytes = 512;
// Role of anonymous (unnamed) files.
inline constexpr std::string_view kSimTempRole = "temp";

// A 128-bit hash (32 hex digits) of `bytes`: the one Digest() takes of file contents
// (SimImage::Hash: chunk hashes combined), so equal to ReadFileHash of a file holding them. Not
// cryptographic; Stepfault keys its reuse on it as on Digest().
std::string HashBytes(std::string_view bytes);

// A random-access handle on one inode (the SQLite VFS's file). It follows the inode, not the name:
// an unlinked file stays readable and writable through its handle, as on POSIX.
class SimFile {
 public:
  SimFile(std::shared_ptr<SimWorld> world, std::shared_ptr<SimInode> inode, std::string role);
  ~SimFile();
  SimFile(const SimFile&) = delete;
  SimFile& operator=(const SimFile&) = delete;

  // Copies up to n bytes at offset into out; returns how many were available (short at end of
  // file).
  Result<size_t> ReadAt(uint64_t offset, size_t n, char* out);
  // Writes data at offset (point fs.write[role]); a gap past the end reads as zero bytes.
  Status WriteAt(uint64_t offset, std::string_view data);
  // Appends at the end of file (point fs.write[role]).
  Status Append(std::string_view data);
  // Cuts or zero-extends the file to size bytes (point fs.truncate[role]).
  Status Truncate(uint64_t size);
  // Makes the bytes durable (point fs.fsync[role]).
  Status Sync();
  Result<uint64_t> Size();

 private:
  std::shared_ptr<SimWorld> world_;
  std::shared_ptr<SimInode> inode_;
  std::string role_;
};

class SimFs final : public Env, public Freezable {
 public:
  SimFs();
  ~SimFs() override;
  SimFs(const SimFs&) = delete;
  SimFs& operator=(const SimFs&) = delete;

  // Env.
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override;
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) override;
  Result<std::string> ReadFile(const std::string& path) override;
  // HashBytes of what ReadFile(path) returns, with ReadFile's checks, errors and operation count,
  // without copying the bytes: the hash is kept on the file until it changes.
  Result<std::string> ReadFileHash(const std::string& path);
  Result<bool> FileExists(const std::string& path) override;
  Result<uint64_t> GetFileSize(const std::string& path) override;
  Result<std::vector<std::string>> GetChildren(const std::string& dir) override;
  Status RemoveFile(const std::string& path) override;
  Status RenameFile(const std::string& from, const std::string& to) override;
  Status CreateDirIfMissing(const std::string& dir) override;
  Status SyncDir(const std::string& dir) override;
  Result<std::unique_ptr<FileLock>> LockFile(const std::string& path) override;

  // Random-access opening for the SQLite VFS. create: make the file when missing (point fs.create);
  // exclusive: refuse (kAlreadyExists) when it exists. kNotFound when missing and !create.
  Result<std::unique_ptr<SimFile>> OpenFile(const std::string& path, bool create, bool exclusive);
  // A new file linked under no name (SQLite temp files); it vanishes with its last handle.
  Result<std::unique_ptr<SimFile>> OpenAnonymousFile();

  // Freezable: after this every operation is refused. Idempotent (the first death wins).
  void Freeze(DeathKind kind, std::string_view point) override;
  bool frozen() const;

  // The possible world after a death of `kind` now (kExit behaves as kCrash): unfrozen, no locks,
  // no hook, the same role classifier. `seed` chooses the tearing. The original is untouched.
  // Deterministic: the same state and seed give a byte-identical clone.
  std::unique_ptr<SimFs> CrashClone(DeathKind kind, uint64_t seed) const;

  // Successive copies of one world that hold each unchanged file once: a copy made through a
  // cache is exact like CrashClone(kCrash, 0), but every file not changed since the cache's last
  // copy (no write, sync, truncation or damage since: the same version, sim_fs_internal.h) shares
  // that copy's file (how a recorded life keeps the world at each of its hits:
  // properties/life_runner_internal.h). REQUIRES: a copy made this way is never written (read it,
  // digest it, CrashClone it); one cache serves one source world; the source and its copies are
  // driven by one thread (they share files, and the hashes kept on them).
  class CopyCache {
   public:
    // What the last copy added to what the copies made through this cache hold together: the
    // chunks of file images (faults/sim_image.h) no earlier copy holds, and the pending writes of
    // the files it did not share.
    uint64_t last_copied_bytes() const { return last_copied_bytes_; }

   private:
    friend class SimFs;
    std::map<const SimInode*, std::shared_ptr<SimInode>> last_;  // the source's file -> its copy
    // The chunk lists and chunks the copies hold (they keep them alive: no address is reused).
    std::set<const void*> counted_;
    uint64_t last_copied_bytes_ = 0;
  };
  std::unique_ptr<SimFs> CopySharing(CopyCache* cache) const;

  // REQUIRES: hook outlives its use by this SimFs (nullptr removes it).
  void SetHook(FaultHook* hook);
  void SetRoleClassifier(std::function<std::string(const std::string& path)> classifier);

  // Damage for the `corrupt` action, applied to both the current and the durable image (durably;
  // the file's pending unsynced write is forgotten, so no later tear undoes it). Refused when
  // frozen: damage a CrashClone. kNotFound for a missing file, kInvalidArgument past its end.
  Status FlipBit(const std::string& path, uint64_t bit_index);
  Status TruncateTo(const std::string& path, uint64_t size);
  Status ZeroRange(const std::string& path, uint64_t offset, uint64_t length);

  // Inspection for tests and oracles; unlike every other call these also work on a frozen world
  // (they are how an oracle looks at it) and are not counted as operations.
  // What a power loss right now would keep at `path` (ignoring tearing); kNotFound if the name
  // would not survive.
  Result<std::string> DurableBytes(const std::string& path) const;
  // Sorted full paths of every file (not directory) currently linked.
  std::vector<std::string> ListAllFiles() const;
  // What this world's files hold in memory, for the bounds on kept worlds: the allocated capacity
  // of every distinct chunk (faults/sim_image.h) reachable from a current or a durable entry (a
  // file unlinked or renamed since its directory's last sync still holds its durable image; a
  // chunk a sync shares between a file's current and durable bytes, or two names share, is counted
  // once) and of every pending write, plus a fixed cost per entry and per file. Chunks this world
  // shares with other worlds are counted in full, so the sum over several worlds bounds what they
  // hold together.
  uint64_t HeldBytes() const;
  // Operations performed on this world so far (refused ones excluded; a clone starts at 0).
  uint64_t op_count() const;
  // A stable 128-bit digest (32 hex digits) of everything that decides this world's future: every
  // directory's current and durable entries, every file's current and durable bytes and pending
  // unsynced write, which names share an inode, and the order of the pending writes (which one a
  // power loss would tear). Counters, locks, the hook and the classifier are not part of it. Two
  // worlds with the same digest behave identically under every later operation and death.
  // Deterministic across runs and platforms; works on a frozen world.
  std::string Digest() const;
  // Digest() computed without the hashes kept on each file between calls (SimInode::Hashed): for
  // the tests that prove the two always agree.
  std::string DigestFromScratch() const;

 private:
  explicit SimFs(std::shared_ptr<SimWorld> world);
  std::shared_ptr<SimWorld> world_;
};

}  // namespace stepfault::faults
