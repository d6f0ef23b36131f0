// Runs the checkpoint-store conformance suite (engine/testing/store_conformance.h) against the
// memory, file (strict and in-place-hazard) and SQLite (WAL, DELETE, PERSIST and TRUNCATE: every
// journal mode the store accepts and the harness explores) stores on the real disk. Goal: each of
// our stores meets the whole contract; method: one StoreUnderTest per store.
#include "engine/testing/store_conformance.h"

#include "engine/stores/file_store.h"
#include "engine/stores/memory_store.h"
#include "engine/stores/sqlite_store.h"

namespace stepfault {
namespace {

using testing::StoreUnderTest;

template <typename Store>
Result<std::unique_ptr<CheckpointStore>> Upcast(Result<std::unique_ptr<Store>> store) {
  if (!store.ok()) return store.status();
  return std::unique_ptr<CheckpointStore>(std::move(store).value());
}

StoreUnderTest Memory() {
  return {.name = "Memory",
          .open = [](const std::string&) -> Result<std::unique_ptr<CheckpointStore>> {
            return std::unique_ptr<CheckpointStore>(new MemoryCheckpointStore({.seed = 7}));
          },
          .durable = false,
          .open_prune_on_read = [](const std::string&) -> Result<std::unique_ptr<CheckpointStore>> {
            return std::unique_ptr<CheckpointStore>(
                new MemoryCheckpointStore({.seed = 7, .hazard_prune_on_read = true}));
          }};
}

StoreUnderTest File(bool in_place) {
  return {
      .name = in_place ? "FileInPlaceHazard" : "File",
      .open =
          [in_place](const std::string& dir) {
            return Upcast(FileCheckpointStore::Open(
                PosixEnv(), dir + "/checkpoints", {.seed = 7, .hazard_in_place_write = in_place}));
          },
      .durable = true,
      .open_prune_on_read =
          [in_place](const std::string& dir) {
            return Upcast(FileCheckpointStore::Open(
                PosixEnv(), dir + "/checkpoints",
                {.seed = 7, .hazard_prune_on_read = true, .hazard_in_place_write = in_place}));
          }};
}

StoreUnderTest Sqlite(const std::string& journal_mode) {
  return {
      .name = "Sqlite" + journal_mode,
      .open =
          [journal_mode](const std::string& dir) {
            return Upcast(SqliteCheckpointStore::Open(PosixEnv(), dir + "/checkpoints.db",
                                                      {.journal_mode = journal_mode, .seed = 7}));
          },
      .durable = true,
      .open_prune_on_read =
          [journal_mode](const std::string& dir) {
            return Upcast(SqliteCheckpointStore::Open(
                PosixEnv(), dir + "/checkpoints.db",
                {.journal_mode = journal_mode, .seed = 7, .hazard_prune_on_read = true}));
          }};
}

INSTANTIATE_TEST_SUITE_P(Stepfault, StoreConformanceTest,
                         ::testing::Values(Memory(), File(false), File(true), Sqlite("WAL"),
                                           Sqlite("DELETE"), Sqlite("PERSIST"), Sqlite("TRUNCATE")),
                         testing::StoreName);

}  // namespace
}  // namespace stepfault
