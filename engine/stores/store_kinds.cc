// The store-name table and the opening of the store a name says (see store_kinds.h).
#include "engine/stores/store_kinds.h"

#include "engine/stores/file_store.h"
#include "engine/stores/sqlite_store.h"

namespace stepfault {

const std::vector<CheckpointStoreKind>& CheckpointStoreKinds() {
  // "sqlite" keeps its name for WAL, so every variant, replay command and report made before the
  // rollback modes were explored keeps its meaning.
  static const auto* kinds = new std::vector<CheckpointStoreKind>{{"file", nullptr},
                                                                  {"sqlite", "WAL"},
                                                                  {"sqlite-persist", "PERSIST"},
                                                                  {"sqlite-truncate", "TRUNCATE"},
                                                                  {"sqlite-delete", "DELETE"}};
  return *kinds;
}

const CheckpointStoreKind* FindCheckpointStoreKind(std::string_view name) {
  for (const CheckpointStoreKind& k : CheckpointStoreKinds()) {
    if (name == k.name) return &k;
  }
  return nullptr;
}

std::string UnknownCheckpointStoreMessage(std::string_view name) {
  std::string list;
  for (const CheckpointStoreKind& k : CheckpointStoreKinds()) {
    list += (list.empty() ? "" : ", ") + std::string(k.name);
  }
  return "unknown checkpoint store '" + std::string(name) + "'; use one of: " + list;
}

Result<std::unique_ptr<CheckpointStore>> OpenCheckpointStoreOfKind(
    Env* env, const CheckpointStoreKind& kind, const std::string& dir,
    const CheckpointStoreKindOptions& options) {
  if (kind.sqlite_journal_mode != nullptr) {
    SF_RETURN_IF_ERROR(env->CreateDirIfMissing(dir));
    SqliteStoreOptions sqlite;
    sqlite.vfs_name = options.vfs_name;
    sqlite.journal_mode = kind.sqlite_journal_mode;
    sqlite.seed = options.seed;
    sqlite.hazard_prune_on_read = options.hazard_prune_on_read;
    SF_ASSIGN_OR_RETURN(
        auto store, SqliteCheckpointStore::Open(env, JoinPath(dir, kSqliteCheckpointDb), sqlite));
    return std::unique_ptr<CheckpointStore>(std::move(store));
  }
  FileStoreOptions file;
  file.seed = options.seed;
  file.hazard_prune_on_read = options.hazard_prune_on_read;
  file.hazard_in_place_write = options.hazard_in_place_write;
  file.probe = options.probe;
  SF_ASSIGN_OR_RETURN(auto store, FileCheckpointStore::Open(env, dir, file));
  return std::unique_ptr<CheckpointStore>(std::move(store));
}

}  // namespace stepfault
