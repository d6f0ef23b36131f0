// DurableCheckpoints: what a checkpoint store holds in the world right now, read for the oracles
// without the store's in-memory objects and without changing a byte of the world.
//
// File store: every checkpoint file of the directory, decoded by the store's own exported decoder
// (FileCheckpointStore::DecodeFile), so no oracle parses the on-disk format by hand. SQLite store:
// the rows of a throw-away copy of the simulated world (SimFs::CrashClone as a crash, which keeps
// every byte), opened through a VFS registered on the copy in the store kind's own journal mode
// (CheckpointStoreKind: WAL, PERSIST, TRUNCATE or DELETE) and read with SqliteCheckpointStore::
// Rows(); opening SQLite may roll back a hot journal or recover a WAL, which must never happen to
// the world under test, hence the copy.
// Reads are pure functions of the directory's bytes, so each process keeps the reads it made
// (keyed by every byte: exact) and returns a copy instead of reading and decoding again.
// Thread-safety: as the life that owns the Env; the process-wide cache of reads is locked.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_store.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

struct DurableCheckpoint {
  std::string name;  // file name, or "row <seq>" in the SQLite store
  std::string tag;   // a digest of the stored bytes (a stored checkpoint never changes)
  bool intact = false;
  uint64_t seq = 0;      // commit order
  std::string filed_id;  // the checkpoint id the store filed it under, damaged or not
  StoreEntry entry;      // when intact
  std::string document;  // when intact: the stored checkpoint bytes, unchanged
  // When the stored bytes are an incremental checkpoint (a delta, engine/checkpoint.h): its base.
  std::optional<std::string> delta_base;
  // When intact: the checkpoint the stored bytes stand for, null when it cannot be loaded. A full
  // checkpoint is `document` decoded (DecodeCheckpoint); a delta is resolved through its chain of
  // bases in this read (ApplyCheckpointDelta onto its base's `decoded`, each link decoded once),
  // and is null when a link is missing, damaged or undecodable. Every field is the resolved one
  // except `instantiated`, which for a delta holds only the executors the delta lists (those
  // instantiated since its base, or all when it lists all): no oracle reads it, and resolving it
  // for every checkpoint of an N-step chain would hold O(N^2) ids. `workflow` is null and
  // `workflow_ref` set for a checkpoint that names a topology record (the oracles never read the
  // record). Shared with every read of the same bytes (immutable).
  std::shared_ptr<const Checkpoint> decoded;
  // With `decoded`: what the oracles compute from it alone, computed at its first use and shared
  // with every copy of this read (the process's cache of reads hands out copies), so an oracle
  // looking at the same stored checkpoint after every life computes it once per read, not once
  // per look. Today the fingerprint CheckAgainstExports compares (StoredFingerprint,
  // checkpoint_reference.h): it was a twelfth of a depth-1 exploration's time. Not counted in the
  // cache's bytes (a few hundred bytes per checkpoint).
  struct Derived {
    std::once_flag fingerprint_once;
    Json fingerprint;
  };
  std::shared_ptr<Derived> derived;
};

struct DurableCheckpoints {
  std::vector<DurableCheckpoint> items;  // commit order
  // name -> tag of every stored object, damaged too (the file store: every file of the directory
  // but LOCK and temps, index.jsonl of the in-place hazard included)
  std::map<std::string, std::string> objects;

  std::vector<StoreEntry> Index(const std::string& session_id) const;  // intact, commit order
  const DurableCheckpoint* Find(const std::string& checkpoint_id) const;
};

// Reads the store `env.checkpoint_store` keeps in env.dir/<subdir> (missing: empty).
Result<DurableCheckpoints> ReadDurableCheckpoints(const HostEnv& env, const std::string& subdir);

}  // namespace stepfault::scenarios
