// Goal: the store-name table holds exactly the five names every replay command and report uses,
// refuses any other with one message, and each name opens the store it says where it says.
// Method: the table read directly; each kind opened with OpenCheckpointStoreOfKind in a scratch
// directory on the real file system, one checkpoint committed and read back, and the SQLite
// database looked for at dir/checkpoints.db (present for every sqlite kind, absent for "file").
#include "engine/stores/store_kinds.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

TEST(StoreKindsTest, TheNamesAreTheFileStoreWalAndTheThreeRollbackJournals) {
  std::vector<std::string> names;
  for (const CheckpointStoreKind& k : CheckpointStoreKinds()) names.push_back(k.name);
  EXPECT_EQ(names, (std::vector<std::string>{"file", "sqlite", "sqlite-persist", "sqlite-truncate",
                                             "sqlite-delete"}));
  EXPECT_EQ(FindCheckpointStoreKind("sqlite-wal"), nullptr);
  EXPECT_EQ(UnknownCheckpointStoreMessage("x"),
            "unknown checkpoint store 'x'; use one of: file, sqlite, sqlite-persist, "
            "sqlite-truncate, sqlite-delete");
}

TEST(StoreKindsTest, EachKindOpensItsStoreInTheDirectoryItIsGiven) {
  const std::filesystem::path root = test_env::ScratchDir("store-kinds");
  for (const CheckpointStoreKind& kind : CheckpointStoreKinds()) {
    SCOPED_TRACE(kind.name);
    const std::filesystem::path dir = root / kind.name;
    auto store = OpenCheckpointStoreOfKind(PosixEnv(), kind, dir.string(), {.seed = 3});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto info = (*store)->Commit("s", R"({"a":1})", std::nullopt);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    auto bytes = (*store)->Retrieve(*info);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    EXPECT_EQ(*bytes, R"({"a":1})");
    EXPECT_EQ(std::filesystem::exists(dir / kSqliteCheckpointDb),
              kind.sqlite_journal_mode != nullptr);
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace stepfault
