// Conformance: incremental checkpoints (checkpoint.h, format version 3) through the
// StoreCheckpointManager, and pruning that never deletes a base a kept delta needs.
// Method: a chain of checkpoints in which each step changes one small value and keeps a large one,
// committed with a full snapshot every K (K = 1, 2, 3, 5); every checkpoint is looked up (and, for
// a durable store, looked up again after a reopen through a fresh manager) and must equal what was
// committed; the stored bytes must be full exactly at the chain positions K predicts and a delta
// must be a fraction of a full one. Pruning: restore-notify a delta and a checkpoint after a full
// snapshot, and compare the survivors with the hand-computed set (the obsolete ancestors minus the
// chain the restored delta resolves through).
#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/store_prune.h"
#include "engine/testing/delta_chain.h"
#include "engine/testing/store_conformance_internal.h"

namespace stepfault::testing {

Checkpoint DeltaChainStep(int step, const std::optional<CheckpointInfo>& parent) {
  Checkpoint c = StateChainStep(step, parent, StateMap());
  c.instantiated = std::vector<std::string>();  // as this chain always had
  c.state["executor:a"]["big"] = std::string(20000, 'k');
  c.state["executor:a"]["step"] = step;
  if (step % 2 == 0) c.state["shared:even"]["seen"] = step;  // a key that comes and goes
  c.queued.Mutable()["a"] = {Envelope{Message{"Tick", Json{{"n", step}}}, "a", std::nullopt, ""}};
  c.parent = parent;
  return c;
}

Status CommitDeltaChainSteps(CheckpointStore& store, int k, int n,
                             std::vector<CheckpointInfo>* infos,
                             std::vector<Checkpoint>* committed) {
  StoreCheckpointManager manager(&store, StoreCheckpointOptions{k});
  std::optional<CheckpointInfo> parent;
  for (int i = 0; i < n; ++i) {
    Checkpoint c = DeltaChainStep(i, parent);
    SF_ASSIGN_OR_RETURN(CheckpointInfo info, manager.Commit(c));
    committed->push_back(std::move(c));
    infos->push_back(info);
    parent = info;
  }
  return Status::Ok();
}

int IncrementalTestsAnchor() { return 0; }

TEST_P(StoreConformanceTest, IncrementalCheckpointsResolveExactlyForEveryFullSnapshotInterval) {
  for (int k : {1, 2, 3, 5}) {
    const std::string sub = NewSubdir();
    auto store = OpenStore(sub);
    ASSERT_NE(store, nullptr);
    std::vector<CheckpointInfo> infos;
    std::vector<Checkpoint> committed;
    CONF_ASSERT_OK(CommitDeltaChainSteps(*store, k, 8, &infos, &committed));
    for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
      if (life == 1) {
        store.reset();
        store = OpenStore(sub);
        ASSERT_NE(store, nullptr);
      }
      StoreCheckpointManager reader(store.get());
      for (size_t i = 0; i < infos.size(); ++i) {
        CONF_ASSERT_OK_AND_ASSIGN(auto got, reader.Lookup(infos[i]));
        EXPECT_TRUE(CheckpointsEqual(*got, committed[i])) << "K=" << k << " step " << i;
        CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(infos[i]));
        CONF_ASSERT_OK_AND_ASSIGN(std::optional<std::string> base, CheckpointDeltaBase(bytes));
        const bool full = i % static_cast<size_t>(k) == 0;
        EXPECT_EQ(base.has_value(), !full) << "K=" << k << " step " << i;
        if (base) {
          EXPECT_EQ(*base, infos[i - 1].checkpoint_id) << "a delta's base is its parent";
          EXPECT_LT(bytes.size() * 10, EncodeCheckpoint(committed[i]).size());
        }
      }
    }
  }
}

TEST_P(StoreConformanceTest, PruningAfterRestoringADeltaKeepsEveryBaseItResolvesThrough) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  auto* observer = dynamic_cast<RestorationObserver*>(store.get());
  if (observer == nullptr) GTEST_SKIP() << GetParam().name << " does not prune";
  // K = 3: c0 full, c1 delta(c0), c2 delta(c1), c3 full, c4 delta(c3), c5 delta(c4).
  std::vector<CheckpointInfo> c;
  std::vector<Checkpoint> committed;
  CONF_ASSERT_OK(CommitDeltaChainSteps(*store, 3, 6, &c, &committed));
  // Restoring c2 (a delta): its obsolete ancestors c0, c1 are its chain, so nothing goes.
  CONF_ASSERT_OK(observer->OnRestorationCompleted(c[2]));
  CONF_ASSERT_OK_AND_ASSIGN(auto after_c2, store->Index("s"));
  EXPECT_EQ(Infos(after_c2), c);
  // Restoring c5: c0..c2 go (nothing kept resolves through them), c3 and c4 are c5's chain.
  CONF_ASSERT_OK(observer->OnRestorationCompleted(c[5]));
  CONF_ASSERT_OK_AND_ASSIGN(auto after_c5, store->Index("s"));
  EXPECT_EQ(Infos(after_c5), (std::vector<CheckpointInfo>{c[3], c[4], c[5]}));
  StoreCheckpointManager reader(store.get());
  for (int i = 3; i < 6; ++i) {
    CONF_ASSERT_OK_AND_ASSIGN(auto got, reader.Lookup(c[i]));
    EXPECT_TRUE(CheckpointsEqual(*got, committed[i])) << i;
  }
  // The rule itself, over the index before any prune.
  std::vector<StoreEntry> index;
  for (size_t i = 0; i < c.size(); ++i) {
    index.push_back(StoreEntry{
        c[i], i == 0 ? std::nullopt : std::optional<std::string>(c[i - 1].checkpoint_id)});
  }
  auto base_of = [&](const CheckpointInfo& info) -> std::optional<std::string> {
    for (size_t i = 0; i < c.size(); ++i) {
      if (c[i] == info && i % 3 != 0) return c[i - 1].checkpoint_id;
    }
    return std::nullopt;
  };
  EXPECT_EQ(PrunableBeforeRestored(index, c[4], base_of),
            (std::vector<CheckpointInfo>{c[0], c[1], c[2]}));
  EXPECT_EQ(PrunableBeforeRestored(index, c[4], nullptr),
            (std::vector<CheckpointInfo>{c[0], c[1], c[2], c[3]}))
      << "without deltas the rule is MAF's";
}

}  // namespace stepfault::testing
