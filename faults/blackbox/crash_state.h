// The crash-state builder of black-box mode: from the directory as it was before the run (the
// initial snapshot) and the run's trace, the directory a crash or a power loss at window N leaves.
//
// CRASH MODEL (the one faults/sim_fs.h states, applied to a recorded trace)
// The initial snapshot is taken as fully durable. Every recorded operation before window N is
// applied in trace order to a model with, per file, current and durable bytes and, per directory,
// current and durable entries; fsync/fdatasync of a file copies its current bytes to durable, fsync
// of a directory copies its current entries to durable, syncfs/sync does both for everything.
// A write durable at return (synced=data: O_DSYNC or RWF_DSYNC; synced=all: O_SYNC or RWF_SYNC; the
// recorder reads the descriptor's flags from the kernel) is the write followed by fdatasync/fsync
// of its file (file-wide: Linux syncs only the written range, so this is optimistic for an earlier
// ordinary write elsewhere in the same file); under posix it makes no directory entry durable (a
// file created with O_SYNC still needs its directory fsynced: POSIX does not make the name durable;
// the other models treat it as their fdatasync/fsync below).
// sync_file_range with all of WAIT_BEFORE|WRITE|WAIT_AFTER (flags 7) copies every unsynced write
// lying wholly inside [from, from + len) (len 0: to the end) to durable, in order; without all
// three it changes nothing (it is not a barrier). msync with MS_SYNC is the same barrier for the
// file range it covered; without MS_SYNC it is none. The changed pages of a writable shared mapping
// are ordinary unsynced writes (map=1) placed at the flush point the recorder saw them at (msync,
// munmap, fsync, an acknowledgement, exit: trace.h): a store is in the model only from there on, so
// a crash between a store and its flush point shows the file without it. That is the file as it
// was before the store, a state a real crash just before the store leaves, so it is no false alarm
// for a program that flushes (or acknowledges, which the recorder also treats as a flush point)
// before it depends on the data; states the model misses are partial stores inside a page and
// writeback of some pages before the flush (a power loss may persist any subset of dirty pages).
// - crash at N (the process dies): every operation before N survives; the state is the current
// tree.
// - powerloss at N (the machine dies): starting from the root, the tree of durable entries; each
// file
//   holds its durable bytes, except that the last unsynced write (the most recent write,
//   system-wide, whose file was not synced after it) may be torn: of its range cut into 512-byte
//   file sectors, a seed-chosen prefix of k sectors (0 <= k <= all) reaches the durable bytes (a
//   gap past the durable size reads as zeros). No other unsynced byte, truncation, create, rename
//   or unlink survives. Exploration and replay check two tearings of every power loss: the seed's
//   k, and k = 0 (the last unsynced write lost whole, the pessimistic state); BuildCrashState takes
//   k explicitly.
// - reorder at N (behind a flag, ALICE's "omit one"): as powerloss, but every unsynced write of the
//   file of the last unsynced write reaches its durable bytes except its earliest one: a later
//   write kept while an earlier one is lost.
// A rename between two hard links of one file changes nothing (rename(2)); a write of no bytes is
// no write (it neither extends the file nor becomes the last unsynced write), as in SimFs.
//
// PERSISTENCE MODELS (CrashModelOptions::fs_model, `--fs-model`; docs/blackbox.md "Persistence
// models" has each rule's source). Everything above is `posix` (POSIX-strict, the default): only
// what POSIX promises. The other models keep every rule above and add, for a power loss, what the
// file system documents beyond it (where a rule is uncertain, the model keeps the weaker
// guarantee, i.e. the one that leaves more states possible). Data rules do not change: a write's
// bytes are durable only through its own file's sync (or a rule below), and the torn last write
// and reorder act, in every model, on the unsynced data writes exactly as above (a later unsynced
// data write can reach the disk before an earlier one on every one of these file systems).
// - ext4-ordered (ext4, data=ordered, delalloc and auto_da_alloc, the defaults; no fast_commit):
//   metadata goes through one ordered journal. A COMMIT makes every earlier metadata operation,
//   system-wide, durable in order: every directory's entries (create, mkdir, rename, unlink,
//   link, symlink, rmdir) and every file's size changes by truncate (O_TRUNC, ftruncate,
//   truncate) and by fallocate; an unsynced write older than a committed truncate of its file is
//   dropped. A commit does not make unsynced data durable (delayed allocation: appended data is
//   not allocated, so not exposed, until written back; data=ordered never exposes stale blocks).
//   A commit happens at fsync of a file whose inode changed since the last commit (a write, a
//   create, a truncate, a rename or link of it) or whose size differs from its durable size; at
//   fdatasync (and a synced=data write) only when its size differs from its durable size; at
//   fsync of a directory whose entries changed since the last commit; sync/syncfs as before.
//   auto_da_alloc: a rename over an existing file, and the close of a file truncated to zero
//   from non-empty, make the file's bytes at that moment durable at the next commit.
// - xfs: the ext4-ordered rules without auto_da_alloc (xfs only starts an asynchronous flush at
//   the close of a truncated file, which orders nothing): one ordered log, a log force at fsync
//   of a changed inode carries every earlier metadata change; sizes are logged at I/O completion.
// - btrfs: fsync of a file logs that file only (no other file's metadata). A file created since
//   the last sync/syncfs (a full transaction commit) has, at its fsync (or synced write), its
//   current names made durable, and each of its ancestor directories created since then too.
//   A rename, link or unlink of an older file is durable only by a directory fsync, as posix
//   (btrfs sometimes commits more; not relied on).
// testdata/crash_catalogue.txt lists, by hand, the states these rules give for small traces, under
// each model (crash_catalogue.h runs it; `stepfault blackbox conformance`);
// crash_state_simfs_differential_test.cc compares posix with SimFs. CrashModelOptions switches
// deliberately wrong rules on (the crash model's mutants): off by default, they exist only for the
// catalogue to kill. Volatile files (IsVolatilePath: "*-shm", SQLite's shared-memory index rebuilt
// from the WAL on open, and the globs of the trace's `volatile pattern=` records, the spec's
// `volatile`) are left out of every state; the report names them. A state is deterministic in
// (snapshot, trace, N, kind, seed, model). Thread-safety: pure functions over values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "faults/blackbox/trace.h"

namespace stepfault::faults::blackbox {

enum class CrashKind { kCrash, kPowerLoss, kReorder };

// One node of a materialisable tree, keyed by its relative path.
struct StateNode {
  enum Type { kFile, kDir, kSymlink } type = kFile;
  std::string bytes;  // file contents or symlink target
  friend bool operator==(const StateNode&, const StateNode&) = default;
};

struct CrashState {
  std::map<std::string, StateNode> nodes;  // "a", "a/b.txt"; the root itself is implicit
  std::vector<std::string> notes;          // what the model could not place (a note each)
  uint64_t Digest() const;                 // FNV-1a over paths, types and bytes
};

// The crash model's options: the persistence model, and its hazards: each a rule the model could
// get wrong, off unless switched on by name
// (`stepfault blackbox conformance --hazard NAME`, the mutants blackbox:NAME). Every exploration
// and replay builds with the defaults; nothing but the self-check switches one on.
// The persistence models (see PERSISTENCE MODELS above), posix first.
enum class PersistenceModel { kPosix, kExt4Ordered, kXfs, kBtrfs };
// "posix", "ext4-ordered", "xfs", "btrfs": the spelling of --fs-model and of every report.
std::string_view PersistenceModelName(PersistenceModel model);
// Every model, in the order above.
const std::vector<PersistenceModel>& AllPersistenceModels();
// The model of that name; kInvalidArgument naming every valid one otherwise.
Result<PersistenceModel> ParsePersistenceModel(std::string_view name);

struct CrashModelOptions {
  // The persistence model the states are built under (not a hazard: every run may choose one).
  PersistenceModel fs_model = PersistenceModel::kPosix;
  bool rename_durable_without_dir_fsync = false;  // a rename survives a power loss at once
  bool unlink_durable_without_dir_fsync = false;  // an unlink survives a power loss at once
  bool create_durable_without_dir_fsync = false;  // a created file's name survives at once

  // Turns on the hazard named `name` (kebab-case, as CrashModelHazards() lists them);
  // kInvalidArgument naming every hazard when there is none of that name.
  Status Enable(std::string_view name);
  friend bool operator==(const CrashModelOptions&, const CrashModelOptions&) = default;
};

struct CrashModelHazard {
  std::string name;     // "rename-durable-without-dir-fsync"
  std::string meaning;  // one line
};
// Every hazard of CrashModelOptions, in a fixed order.
const std::vector<CrashModelHazard>& CrashModelHazards();

// Reads a real directory (files, directories, symlinks) into a state. kInvalidArgument for other
// file types.
Result<CrashState> LoadDirectory(const std::string& dir);

// The state at window `upto_record` (the index of the window's record: every record before it is
// applied) of `trace` over `initial`. upto_record == trace.records.size() is the end of the run.
// kept_sectors >= 0 fixes k (clamped to the write's sectors) instead of the seed's choice.
// `options` switches hazards on (the self-check only; the defaults are the model above).
CrashState BuildCrashState(const CrashState& initial, const Trace& trace, size_t upto_record,
                           CrashKind kind, uint64_t seed, int64_t kept_sectors = -1,
                           const CrashModelOptions& options = {});

// Writes `state` into `dir`, which must not exist yet (it is created).
Status Materialise(const CrashState& state, const std::string& dir);

}  // namespace stepfault::faults::blackbox
