// The state of one simulated world behind a SimFs (private to faults/sim_fs*.cc). The crash model
// it implements is the prose at the top of faults/sim_fs.h. Thread-safety: one thread drives a
// world.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "engine/status.h"
#include "faults/fault_hook.h"
#include "faults/sim_image.h"

namespace stepfault::faults {

// A file's two images are shared copy on write (SimImage, faults/sim_image.h): a Sync shares the
// current bytes as the durable ones, a clone of a world shares every image, and a write to an
// image that is shared copies only the chunks it touches. So a death's copy of the world, a power
// loss's and a sync cost a pointer per file instead of the file's bytes.
struct SimInode {
  SimImage data;     // current bytes
  SimImage durable;  // bytes as of the last Sync()
  // The most recent write not followed by a Sync (pending_write_seq == 0: none).
  uint64_t pending_write_seq = 0;
  uint64_t pending_write_offset = 0;
  std::string pending_write_bytes;

  // A number no other state of any inode in this process had: a new inode takes a fresh one, every
  // change of the fields above takes a fresh one (Touch, called by each mutation: SimWorld::Write
  // and SyncInode, SimFile::Truncate, the damage helpers), and a copy keeps its original's. So two
  // inodes with the same version hold the same bytes, and what is computed from an inode's bytes
  // is kept with the version it was computed at (`hashed`), and copies share unchanged files by it
  // (SimFs::CopySharing), without comparing bytes.
  uint64_t version = NextVersion();
  void Touch() { version = NextVersion(); }
  static uint64_t NextVersion();

  // What Digest() and ReadFileHash hash of this inode (two 64-bit hashes of its current bytes and
  // of its durable ones), valid while hashed.version == version.
  struct Hashed {
    uint64_t version = 0;  // no inode has version 0
    std::pair<uint64_t, uint64_t> data;
    std::pair<uint64_t, uint64_t> durable;
    bool durable_same = false;  // durable == data
  };
  mutable Hashed hashed;
};
using SimInodePtr = std::shared_ptr<SimInode>;

// A directory entry: a file (inode) or, when inode is null, a subdirectory.
struct SimEntry {
  SimInodePtr inode;
  bool is_dir() const { return inode == nullptr; }
};

struct SimDir {
  std::map<std::string, SimEntry> entries;  // current
  std::map<std::string, SimEntry> durable;  // as of the last SyncDir()
  // The names whose entry changed since the last Sync: every other name is the same in `entries`
  // and `durable`, so a Sync copies only these (a full copy per directory fsync made a store of N
  // files cost O(N^2), issue 27). Written only through Put and Remove.
  std::set<std::string> changed;

  void Put(const std::string& name, SimEntry entry) {
    entries[name] = std::move(entry);
    changed.insert(name);
  }
  void Remove(const std::string& name) {
    entries.erase(name);
    changed.insert(name);
  }
  // durable = entries.
  void Sync() {
    for (const std::string& name : changed) {
      auto it = entries.find(name);
      if (it == entries.end()) {
        durable.erase(name);
      } else {
        durable[name] = it->second;
      }
    }
    changed.clear();
  }
};

struct SimWorld {
  std::map<std::string, SimDir> dirs;  // by normalized path; "/" always present
  std::function<std::string(const std::string&)> classifier;
  FaultHook* hook = nullptr;
  bool frozen = false;
  DeathKind frozen_kind = DeathKind::kCrash;
  std::string frozen_point;
  uint64_t op_count = 0;
  uint64_t write_seq = 0;
  // Unsynced writes by sequence number, so the system-wide last one is pending_writes.rbegin().
  // An entry whose inode is gone stays (expired) so it still counts as the last write.
  std::map<uint64_t, std::weak_ptr<SimInode>> pending_writes;
  std::set<std::string> locked_paths;

  // Refuses (kFailedPrecondition) when frozen; else counts the operation.
  Status Enter();
  // Enter() plus the fault point "<fs_point>[<role>]" (fs_point: a points::kFs* name): kProceed ->
  // Ok, kFail -> injected Status, kDie -> Freeze and throw CrashSignal.
  Status Point(std::string_view fs_point, std::string_view role);
  std::string Role(const std::string& path) const;
  void Freeze(DeathKind kind, std::string_view point);

  // Mutations shared by the Env and the VFS handles (no checks, no points).
  void Write(const SimInodePtr& inode, uint64_t offset, std::string_view bytes);
  void SyncInode(const SimInodePtr& inode);
};

// HashBytes(inode.data), kept on the inode (SimInode::Hashed).
std::string CurrentBytesHash(const SimInode& inode);

// "/a/b" from "a//b/./"; kInvalidArgument for "..".
Result<std::string> NormalizeSimPath(std::string_view path);

}  // namespace stepfault::faults
