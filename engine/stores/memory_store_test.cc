// MemoryCheckpointStore beyond the conformance suite: what it keeps is a copy in canonical form.
// Method: commit from a buffer, overwrite the buffer, retrieve; commit non-canonical and non-JSON
// bytes; compare ids across stores with equal and different seeds.
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

}  // namespace
}  // namespace stepfault
