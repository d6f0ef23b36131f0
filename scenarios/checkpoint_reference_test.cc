// Goal: the oracle for incremental checkpoints (checkpoint_reference.h) sees a broken delta
// resolver and a delta built against the wrong base without trusting the engine's delta code, and
// holds when the code is right. Method: a file store on a SimFs world, as a life has; a life
// commits a three-checkpoint chain (a full snapshot and two deltas: a key rewritten twice, a key
// added then removed) through HostCheckpointManager; a second life loads the last checkpoint as a
// restore would; CheckAncestry (the INV-ANCESTRY oracle every host runs) judges the store. The
// broken resolver comes through the manager's seam (StoreCheckpointOptions, the
// delta-chain-newest-first mutant) and the wrong base through delta-from-wrong-base; the control
// is the same run with neither.
#include "scenarios/checkpoint_reference.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/testing/delta_chain.h"
#include "faults/sim_fs.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios {
namespace {

Checkpoint Step(int64_t step, const std::optional<CheckpointInfo>& parent,
                std::initializer_list<std::tuple<const char*, const char*, int>> values) {
  StateMap state;
  for (const auto& [scope, key, v] : values) state.Set(scope, key, SharedJson(Json(v)));
  return testing::StateChainStep(step, parent, std::move(state));
}

struct Outcome {
  std::vector<LifeReport> lives;
  std::vector<Violation> violations;
  std::vector<Violation> violations_again;  // the same look once more: the read from the cache
  int stored_fingerprints = 0;              // of resolved checkpoints, over two reads
  int stored_fingerprints_shared = 0;       // the same object in both reads, equal to a fresh one
};

Outcome CommitThenRestore(StoreCheckpointOptions options) {
  faults::SimFs fs;
  SF_CHECK(fs.CreateDirIfMissing("/w").ok());
  Json memo = Json::object();
  HostEnv env;
  env.env = &fs;
  env.dir = "/w";
  env.oracle_memo = &memo;
  options.full_every = 3;
  Outcome out;
  out.lives.resize(2);
  CheckpointInfo last;
  const std::vector<LifeReport> none;  // life 1 of an exploration: no earlier lives
  env.earlier_lives = &none;
  {
    auto store = OpenCheckpointStore(env, "checkpoints");
    SF_CHECK(store.ok());
    HostCheckpointManager manager(store->get(), options, env, &out.lives[0]);
    std::optional<CheckpointInfo> parent;
    auto commit = [&](Checkpoint c) {
      auto info = manager.Commit(c);
      SF_CHECK(info.ok());
      out.lives[0].facts["checkpoints_written"].push_back(info->checkpoint_id);
      parent = last = *info;
    };
    commit(Step(0, parent, {{"ledger", "total", 0}}));
    commit(Step(1, parent, {{"ledger", "total", 1}, {"cart", "hold", 1}}));
    commit(Step(2, parent, {{"ledger", "total", 2}}));
  }
  {
    std::vector<LifeReport> earlier = {out.lives[0]};
    env.earlier_lives = &earlier;
    auto store = OpenCheckpointStore(env, "checkpoints");
    SF_CHECK(store.ok());
    HostCheckpointManager manager(store->get(), options, env, &out.lives[1]);
    SF_CHECK(manager.Lookup(last).ok());
  }
  CheckAncestry(env, "checkpoints", "s", out.lives, /*check_deletions=*/true, &out.violations);
  CheckAncestry(env, "checkpoints", "s", out.lives, /*check_deletions=*/true,
                &out.violations_again);
  auto first = ReadDurableCheckpoints(env, "checkpoints");
  auto again = ReadDurableCheckpoints(env, "checkpoints");
  SF_CHECK(first.ok() && again.ok() && first->items.size() == again->items.size());
  for (size_t i = 0; i < first->items.size(); ++i) {
    const DurableCheckpoint& a = first->items[i];
    if (a.decoded == nullptr) continue;
    ++out.stored_fingerprints;
    const Json& fp = StoredFingerprint(a);
    if (&fp == &StoredFingerprint(again->items[i]) && fp == CheckpointFingerprint(*a.decoded)) {
      ++out.stored_fingerprints_shared;
    }
  }
  return out;
}

std::string Messages(const std::vector<Violation>& v) {
  std::string out;
  for (const Violation& x : v) out += "\n  " + x.invariant + ": " + x.message;
  return out;
}

TEST(CheckpointReferenceTest, TheControlHoldsEveryCheckpointResolvesToItsExport) {
  Outcome o = CommitThenRestore({});
  EXPECT_TRUE(o.violations.empty()) << Messages(o.violations);
  EXPECT_EQ(o.lives[0].facts["exported"].size(), 3u);
  EXPECT_FALSE(o.lives[1].facts.contains("restored_differs"));
}

TEST(CheckpointReferenceTest, ABrokenResolverIsSeenWhenARestoreLoadsTheCheckpoint) {
  StoreCheckpointOptions broken;
  broken.delta_chain_newest_first = true;  // the resolver seam: deltas applied newest first
  Outcome o = CommitThenRestore(broken);
  ASSERT_TRUE(o.lives[1].facts.contains("restored_differs"));
  const std::string line = o.lives[1].facts["restored_differs"][0].get<std::string>();
  EXPECT_NE(line.find("state scope 'ledger'"), std::string::npos) << line;
  ASSERT_FALSE(o.violations.empty());
  for (const Violation& v : o.violations) EXPECT_EQ(v.invariant, kInvAncestry) << v.message;
}

TEST(CheckpointReferenceTest, ADeltaFromTheWrongBaseIsSeenInTheStoreWithoutARestore) {
  StoreCheckpointOptions wrong;
  wrong.delta_from_wrong_base = true;
  Outcome o = CommitThenRestore(wrong);
  bool stored = false;
  for (const Violation& v : o.violations) {
    EXPECT_EQ(v.invariant, kInvAncestry) << v.message;
    stored = stored || (v.message.find("stored checkpoint") != std::string::npos &&
                        v.message.find("a delta on") != std::string::npos &&
                        v.message.find("'cart' (not exported)") != std::string::npos);
  }
  EXPECT_TRUE(stored) << Messages(o.violations);
  // The second look reads the store from the process's cache and its fingerprints from the read.
  EXPECT_EQ(Messages(o.violations_again), Messages(o.violations));
}

TEST(CheckpointReferenceTest, AStoredFingerprintIsComputedOncePerReadAndEqualsAFreshOne) {
  for (bool wrong_base : {false, true}) {
    StoreCheckpointOptions options;
    options.delta_from_wrong_base = wrong_base;
    Outcome o = CommitThenRestore(options);
    EXPECT_EQ(o.stored_fingerprints, 3) << wrong_base;
    EXPECT_EQ(o.stored_fingerprints_shared, o.stored_fingerprints) << wrong_base;
  }
}

TEST(CheckpointReferenceTest, FingerprintDifferencesNameEachFieldThatDiffers) {
  Checkpoint a = Step(3, CheckpointInfo{"s", "p"}, {{"ledger", "total", 1}, {"cart", "k", 1}});
  Checkpoint b = a;
  EXPECT_TRUE(FingerprintDifferences(CheckpointFingerprint(a), CheckpointFingerprint(b)).empty());
  b.state.Set("ledger", "total", SharedJson(Json(2)));
  b.state.Erase("cart", "k");
  b.state.Set("extra", "k", SharedJson(Json(1)));
  b.step_number = 4;
  b.parent = CheckpointInfo{"s", "q"};
  b.queued.Mutable()["x"].push_back(Envelope{Message{"T", Json::object()}, "a", "x", ""});
  const std::vector<std::string> d =
      FingerprintDifferences(CheckpointFingerprint(a), CheckpointFingerprint(b));
  const std::vector<std::string> expected = {
      "the step number (4, exported 3)",    "the parent (\"q\", exported \"p\")",
      "state scope 'cart' (missing)",       "state scope 'ledger'",
      "state scope 'extra' (not exported)", "the queued messages"};
  EXPECT_EQ(d, expected);
}

}  // namespace
}  // namespace stepfault::scenarios
