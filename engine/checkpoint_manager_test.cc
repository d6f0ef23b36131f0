// Goal: InMemoryCheckpointManager keeps each session's checkpoints apart, finds each one by its
// identity (the commit map is hashed by checkpoint id per session now, not ordered by the whole
// CheckpointInfo), lists a session's checkpoints in commit order, derives the same ids as before
// (id = DeriveId(seed, "<session>|<commit sequence>")), and hands back the very object it was given
// by CommitOwned. The id index is built by Lookup (a commit adds none), so a lookup must also find
// what was committed after an earlier lookup. Method: commits into two interleaved sessions, then
// lookups of every id, of an id under the wrong session, and of an unknown id; commits and
// lookups interleaved.
#include "engine/checkpoint_manager.h"

#include <gtest/gtest.h>

#include "engine/random.h"

namespace stepfault {
namespace {

Checkpoint At(const std::string& session, int64_t step) {
  Checkpoint c;
  c.session_id = session;
  c.step_number = step;
  return c;
}

TEST(InMemoryCheckpointManagerTest, FindsEveryCommitOfInterleavedSessionsAndListsThemInOrder) {
  InMemoryCheckpointManager m(11);
  std::vector<CheckpointInfo> a, b;
  for (int64_t step = 0; step < 3; ++step) {
    auto ia = m.CommitOwned(At("a", step));
    auto ib = m.Commit(At("b", step));
    ASSERT_TRUE(ia.ok() && ib.ok());
    a.push_back(*ia);
    b.push_back(*ib);
  }
  // Ids follow the commit sequence across sessions: a=1, b=2, a=3, ...
  EXPECT_EQ(a[0].checkpoint_id, DeriveId(11, "a|1"));
  EXPECT_EQ(b[0].checkpoint_id, DeriveId(11, "b|2"));
  EXPECT_EQ(a[2].checkpoint_id, DeriveId(11, "a|5"));
  EXPECT_EQ(*m.Index("a"), a);
  EXPECT_EQ(*m.Index("b"), b);
  EXPECT_TRUE(m.Index("c")->empty());
  for (int64_t step = 0; step < 3; ++step) {
    auto ca = m.Lookup(a[static_cast<size_t>(step)]);
    ASSERT_TRUE(ca.ok());
    EXPECT_EQ((*ca)->session_id, "a");
    EXPECT_EQ((*ca)->step_number, step);
  }
  // An id of session a asked for under session b is not found, nor is an unknown id.
  EXPECT_EQ(m.Lookup(CheckpointInfo{"b", a[0].checkpoint_id}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(m.Lookup(CheckpointInfo{"a", "no-such-id"}).status().code(), StatusCode::kNotFound);
}

TEST(InMemoryCheckpointManagerTest, LookupFindsWhatWasCommittedAfterAnEarlierLookup) {
  InMemoryCheckpointManager m(3);
  std::vector<CheckpointInfo> infos;
  for (int64_t step = 0; step < 7; ++step) {
    auto info = m.CommitOwned(At("s", step));
    ASSERT_TRUE(info.ok());
    infos.push_back(*info);
    // After every commit, every checkpoint so far (the newest one included) is found.
    for (size_t i = 0; i < infos.size(); ++i) {
      auto c = m.Lookup(infos[i]);
      ASSERT_TRUE(c.ok()) << "commit " << step << ", lookup " << i << ": " << c.status().ToString();
      EXPECT_EQ((*c)->step_number, static_cast<int64_t>(i));
    }
  }
  EXPECT_EQ(m.Lookup(CheckpointInfo{"s", "no-such-id"}).status().code(), StatusCode::kNotFound);
}

TEST(InMemoryCheckpointManagerTest, LookupReturnsTheSameObjectEveryTime) {
  InMemoryCheckpointManager m;
  auto info = m.CommitOwned(At("s", 4));
  ASSERT_TRUE(info.ok());
  auto first = m.Lookup(*info);
  auto second = m.Lookup(*info);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->get(), second->get());  // kept once, shared, never copied on lookup
}

}  // namespace
}  // namespace stepfault
