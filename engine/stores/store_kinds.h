// The checkpoint stores a host can open, by name: the one table that maps a name to a store, and
// the opening of the store a name says. The name is what HostEnv::checkpoint_store carries (and the
// explorer's variants, `replay --store` and every replay command): "file" (FileCheckpointStore),
// "sqlite" (SqliteCheckpointStore in WAL, its default) and "sqlite-persist", "sqlite-truncate",
// "sqlite-delete" (the same store in that rollback-journal mode). Every host
// (scenarios/host_drive.h, OpenCheckpointStore), the durable-checkpoint oracle and the command line
// go through it.
// Thread-safety: the table is immutable; opening a store is as the store's Open.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault {

struct CheckpointStoreKind {
  const char* name;
  const char* sqlite_journal_mode;  // SqliteStoreOptions::journal_mode; null: the file store
};
const std::vector<CheckpointStoreKind>& CheckpointStoreKinds();  // in the order above
// The kind named `name`, or null when no store has that name.
const CheckpointStoreKind* FindCheckpointStoreKind(std::string_view name);
// "unknown checkpoint store 'x'; use one of: file, sqlite, ..." (for every caller's error).
std::string UnknownCheckpointStoreMessage(std::string_view name);

// The SQLite store's database file in the store's directory.
inline constexpr const char* kSqliteCheckpointDb = "checkpoints.db";

// What a store of any kind is opened with; each field goes to the stores it applies to.
struct CheckpointStoreKindOptions {
  uint64_t seed = 0;                   // both stores' id seed
  std::string vfs_name;                // SQLite: the VFS the database is opened through
  Probe* probe = nullptr;              // the file store's pruning probe
  bool hazard_prune_on_read = false;   // both stores' hazard
  bool hazard_in_place_write = false;  // the file store's hazard
};

// Opens the store of `kind` in `dir`: the file store in `dir`, or the SQLite store (creating `dir`
// if missing) at dir/kSqliteCheckpointDb in the kind's journal mode. REQUIRES: env outlives the
// store.
Result<std::unique_ptr<CheckpointStore>> OpenCheckpointStoreOfKind(
    Env* env, const CheckpointStoreKind& kind, const std::string& dir,
    const CheckpointStoreKindOptions& options);

}  // namespace stepfault
