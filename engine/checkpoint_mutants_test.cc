// Goal: the three checkpoint-machinery mutants of issue 29 (EngineProfile delta-from-wrong-base,
// delta-chain-newest-first, cow-scope-shared-too-long) are the bugs they are named for, and off
// they change nothing: each test shows the mutant's wrong state beside the control's right one,
// on the smallest chain that tells them apart (a key removed, a key rewritten twice, a scope a
// checkpoint shares). The harness's job is to kill them (properties/mutants.h); this proves there
// is something to kill.
#include <gtest/gtest.h>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/state_map.h"
#include "engine/stores/memory_store.h"
#include "engine/testing/delta_chain.h"

namespace stepfault {
namespace {

// Commits the states as one chain (full_every 3: a full snapshot, then two deltas) and returns what
// a fresh manager resolves the last one to.
StateMap ResolvedLast(const std::vector<StateMap>& states, StoreCheckpointOptions options) {
  MemoryCheckpointStore store;
  options.full_every = 3;
  StoreCheckpointManager writer(&store, options);
  std::optional<CheckpointInfo> parent;
  for (size_t i = 0; i < states.size(); ++i) {
    auto info = writer.Commit(testing::StateChainStep(static_cast<int64_t>(i), parent, states[i]));
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    parent = *info;
  }
  StoreCheckpointManager reader(&store, options);
  auto got = reader.Lookup(*parent);
  EXPECT_TRUE(got.ok()) << got.status().ToString();
  return got.ok() ? (*got)->state : StateMap();
}

StateMap With(std::initializer_list<std::tuple<const char*, const char*, int>> values) {
  StateMap s;
  for (const auto& [scope, key, v] : values) s.Set(scope, key, SharedJson(Json(v)));
  return s;
}

TEST(CheckpointMutantsTest, ADeltaFromTheChainsSnapshotKeepsAKeyItsParentAddedAndTheChildRemoved) {
  // Step 1 adds cart/hold, step 2 removes it: against its parent the delta records the removal;
  // against the chain's full snapshot (which never had the key) it records nothing.
  const std::vector<StateMap> states = {With({{"ledger", "total", 0}}),
                                        With({{"ledger", "total", 1}, {"cart", "hold", 1}}),
                                        With({{"ledger", "total", 2}})};
  EXPECT_EQ(ResolvedLast(states, {}), states[2]) << "control: the right base";
  StoreCheckpointOptions mutant;
  mutant.delta_from_wrong_base = true;
  const StateMap wrong = ResolvedLast(states, mutant);
  EXPECT_NE(wrong, states[2]);
  EXPECT_NE(wrong.Find("cart", "hold"), nullptr) << "the removed key came back";
}

TEST(CheckpointMutantsTest, ResolvingAChainNewestFirstLetsAnOlderValueWin) {
  const std::vector<StateMap> states = {With({{"ledger", "total", 0}}),
                                        With({{"ledger", "total", 1}}),
                                        With({{"ledger", "total", 2}})};
  EXPECT_EQ(ResolvedLast(states, {}), states[2]) << "control: oldest first";
  StoreCheckpointOptions mutant;
  mutant.delta_chain_newest_first = true;
  const StateMap wrong = ResolvedLast(states, mutant);
  ASSERT_NE(wrong.Find("ledger", "total"), nullptr);
  EXPECT_EQ(**wrong.Find("ledger", "total"), Json(1)) << "step 1's value overwrote step 2's";
}

TEST(CheckpointMutantsTest, AWriteInPlaceReachesEveryMapSharingTheScopeAndSetDoesNot) {
  StateMap checkpoint = With({{"ledger", "total", 1}, {"other", "k", 7}});
  StateMap run = checkpoint;  // the run shares every scope with its last checkpoint
  run.Set("ledger", "total", SharedJson(Json(2)));
  EXPECT_EQ(**checkpoint.Find("ledger", "total"), Json(1)) << "control: copy on write";
  StateMap later = run;
  run.SetSharedInPlace("ledger", "total", SharedJson(Json(3)));
  EXPECT_EQ(**later.Find("ledger", "total"), Json(3)) << "the mutant wrote the shared scope";
  EXPECT_TRUE(later.SharesScopeWith(run, "ledger")) << "so a delta encoder skips it as unchanged";
  run.SetSharedInPlace("fresh", "k", SharedJson(Json(1)));  // a new scope is added as by Set
  EXPECT_EQ(later.Find("fresh", "k"), nullptr);
}

}  // namespace
}  // namespace stepfault
