// The mode table.
#include "tools/bench/modes.h"

#include "engine/stores/file_store.h"
#include "engine/stores/sqlite_store.h"
#include "faults/sim_fs.h"
#include "tools/bench/bytes_store.h"

namespace stepfault::bench {

const std::vector<Mode>& Modes() {
  static const std::vector<Mode>* modes = [] {
    auto* m = new std::vector<Mode>();
    m->push_back(Mode{"none", ManagerKind::kNone, nullptr, LimitKind::kMemcpy, false});
    m->push_back(Mode{"memory", ManagerKind::kInMemory, nullptr, LimitKind::kMemcpy, false});
    m->push_back(
        Mode{"memory_copy", ManagerKind::kInMemoryCopying, nullptr, LimitKind::kMemcpy, false});
    // Incremental checkpoints with the default interval (kDefaultFullSnapshotEvery), as every
    // host writes them.
    m->push_back(Mode{"bytes", ManagerKind::kStore,
                      [](const std::string&) { return std::make_unique<BytesStore>(); },
                      LimitKind::kMemcpy, false, kDefaultFullSnapshotEvery});
    // The same with every checkpoint full (full_every = 1): the bytes written before incremental
    // checkpoints, measured beside them.
    m->push_back(Mode{"bytes_full", ManagerKind::kStore,
                      [](const std::string&) { return std::make_unique<BytesStore>(); },
                      LimitKind::kMemcpy, false, 1});
    AddDurableStoreModes(m);
    return m;
  }();
  return *modes;
}

void AddDurableStoreModes(std::vector<Mode>* modes) {
  // File store on the real disk: every checkpoint is temp write, fsync, rename, directory fsync.
  modes->push_back(Mode{"file", ManagerKind::kStore,
                        [](const std::string& dir) -> std::unique_ptr<CheckpointStore> {
                          auto store = FileCheckpointStore::Open(PosixEnv(), dir);
                          SF_CHECK(store.ok());
                          return std::move(store).value();
                        },
                        LimitKind::kAtomicFile, /*on_disk=*/true});
  // SQLite store on the real disk, synchronous=FULL: WAL with 64 KB pages (the store's default),
  // the same with SQLite's default 4 KB pages (the measurement behind
  // SqliteStoreOptions::page_size), and the rollback-journal modes (the measurement behind
  // SqliteStoreOptions::journal_mode).
  const std::vector<std::pair<std::string, SqliteStoreOptions>> sqlite_modes = {
      {"sqlite", {}},
      {"sqlite_page4k", {.page_size = 4096}},
      {"sqlite_delete", {.journal_mode = "DELETE"}},
      {"sqlite_persist", {.journal_mode = "PERSIST"}},
      {"sqlite_truncate", {.journal_mode = "TRUNCATE"}},
      // WAL with the automatic checkpoint every 16 MB or 256 MB instead of 64 MB.
      {"sqlite_ckpt256", {.wal_autocheckpoint_pages = 256}},
      {"sqlite_ckpt4096", {.wal_autocheckpoint_pages = 4096}},
  };
  for (const auto& [name, options] : sqlite_modes) {
    modes->push_back(Mode{
        name, ManagerKind::kStore,
        [options = options](const std::string& dir) -> std::unique_ptr<CheckpointStore> {
          auto store =
              SqliteCheckpointStore::Open(PosixEnv(), JoinPath(dir, "checkpoints.db"), options);
          SF_CHECK(store.ok());
          return std::move(store).value();
        },
        LimitKind::kAppendSync, /*on_disk=*/true});
  }
  // File store on the simulated file system: the store's own work without a disk.
  modes->push_back(Mode{"simfs", ManagerKind::kStore,
                        [](const std::string& dir) -> std::unique_ptr<CheckpointStore> {
                          auto fs = std::make_shared<faults::SimFs>();
                          // The store directory must exist with its parent, as on a disk.
                          (void)fs->CreateDirIfMissing(DirName(dir));
                          SF_CHECK(fs->CreateDirIfMissing(dir).ok());
                          auto store = FileCheckpointStore::Open(fs.get(), dir);
                          SF_CHECK(store.ok());
                          return std::make_unique<OwningStore>(fs, std::move(store).value());
                        },
                        LimitKind::kMemcpy, /*on_disk=*/false});
}

}  // namespace stepfault::bench
