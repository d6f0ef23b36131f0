// Goal: EffectStore's statements are prepared once per connection: repeated applies and reads (a
// replay of a key included) prepare nothing more and still give the row the first apply wrote.
// Method: the store on a real SQLite file in a scratch directory (SQLite's default VFS).
#include "scenarios/effect_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;

TEST(EffectStoreTest, RepeatedAppliesAndReadsPrepareNoStatementAgain) {
  const fs::path dir = test_env::ScratchDir("effects");
  {
    auto store = EffectStore::Open((dir / "effects.db").string(), {});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto first = (*store)->Apply("op", "v1");
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    ASSERT_TRUE((*store)->All().ok());
    const uint64_t prepared = (*store)->StatementsPreparedForTesting();
    EXPECT_GT(prepared, 0u);
    auto replay = (*store)->Apply("op", "v2");
    ASSERT_TRUE(replay.ok()) << replay.status().ToString();
    EXPECT_EQ(replay->id, first->id);
    EXPECT_EQ(replay->value, "v1") << "a replay returns the row the first apply wrote";
    ASSERT_TRUE((*store)->Apply("other", "w").ok());
    EXPECT_EQ((*store)->All()->size(), 2u);
    EXPECT_EQ((*store)->StatementsPreparedForTesting(), prepared);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace stepfault::scenarios
