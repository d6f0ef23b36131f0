// MemoryCheckpointStore beyond the conformance suite: what it keeps is a copy in canonical form.
// Method: commit from a buffer, overwrite the buffer, retrieve; commit non-canonical and non-JSON
// bytes; compare ids across stores with equal and different seeds. And ForwardingCheckpointStore
// (checkpoint_store.h) over this store: every call and the restoration notice reach the inner one.
#include "engine/stores/memory_store.h"

#include <gtest/gtest.h>

namespace stepfault {
namespace {

TEST(MemoryStoreTest, StoresACopyThatTheCallersBufferCannotAlias) {
  MemoryCheckpointStore store;
  std::string buffer = R"({"state":[1,2,3]})";
  auto info = store.Commit("s", buffer, std::nullopt);
  ASSERT_TRUE(info.ok());
  buffer.replace(10, 1, "9");
  EXPECT_EQ(store.Retrieve(*info).value(), R"({"state":[1,2,3]})");
}

TEST(MemoryStoreTest, RetrieveReturnsTheCanonicalDump) {
  MemoryCheckpointStore store;
  auto info = store.Commit("s", "{ \"b\" : 1,\n \"a\" : [ true , null ] }", std::nullopt);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(store.Retrieve(*info).value(), R"({"a":[true,null],"b":1})");
}

TEST(MemoryStoreTest, NonJsonBytesAreInvalidArgument) {
  MemoryCheckpointStore store;
  EXPECT_EQ(store.Commit("s", "{\"a\":", std::nullopt).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(store.Index("s")->empty());
}

TEST(MemoryStoreTest, IdsFollowTheSeedSessionAndSequence) {
  MemoryCheckpointStore a({.seed = 1}), b({.seed = 1}), c({.seed = 2});
  for (int i = 0; i < 3; ++i) {
    const std::string session = i == 1 ? "t" : "s";
    auto ia = a.Commit(session, "{}", std::nullopt);
    auto ib = b.Commit(session, "{}", std::nullopt);
    auto ic = c.Commit(session, "{}", std::nullopt);
    ASSERT_TRUE(ia.ok() && ib.ok() && ic.ok());
    EXPECT_EQ(ia->checkpoint_id, ib->checkpoint_id);
    EXPECT_NE(ia->checkpoint_id, ic->checkpoint_id);
    EXPECT_EQ(ia->checkpoint_id.size(), 32u);
  }
}

// The wrapper forwards commits, reads and the index, and a restoration notice reaches the inner
// store's pruning (a wrapper that dropped it would keep c0 and c1).
TEST(ForwardingCheckpointStoreTest, ForwardsEveryCallAndTheRestorationNoticeToTheInnerStore) {
  auto owned = std::make_unique<MemoryCheckpointStore>();
  MemoryCheckpointStore* inner = owned.get();
  ForwardingCheckpointStore store(std::move(owned));
  std::vector<CheckpointInfo> chain;
  std::optional<CheckpointInfo> parent;
  for (int i = 0; i < 3; ++i) {
    auto info = store.Commit("s", "{\"n\":" + std::to_string(i) + "}", parent);
    ASSERT_TRUE(info.ok());
    chain.push_back(*info);
    parent = *info;
  }
  EXPECT_EQ(store.Retrieve(chain[1]).value(), R"({"n":1})");
  EXPECT_EQ(store.Index("s").value(), inner->Index("s").value());
  EXPECT_EQ(store.Index("s", chain[0]).value().size(), 1u);
  ASSERT_TRUE(store.OnRestorationCompleted(chain[2]).ok());
  auto left = inner->Index("s");
  ASSERT_TRUE(left.ok());
  ASSERT_EQ(left->size(), 1u);
  EXPECT_EQ(left->front().info, chain[2]);
}

}  // namespace
}  // namespace stepfault
