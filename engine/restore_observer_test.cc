// Goal: the pruning PR's promises (docs/sources.md, seed 002, MAF #7796/PR #7939) hold end to end:
// a restore or resume that fails for any reason deletes nothing; only a restore that fully
// succeeded prunes, and exactly the restored checkpoint's ancestors; an observer failure never
// fails the restore, and a list the observer shrank before failing is re-read truthfully. Under the
// prune-on-read hazard the same failures visibly erode the ancestry. Method: a chain of checkpoints
// in a MemoryCheckpointStore behind a StoreCheckpointManager; each failing case is attempted and
// the store's index compared before and after.
#include <gtest/gtest.h>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"
#include "engine/stores/memory_store.h"

namespace stepfault {
namespace {
using testing::Drain;
using testing::Msg;

class Fragile : public Executor {
 public:
  explicit Fragile(const bool* fail) : Executor("fragile", "Fragile", {"*"}), fail_(fail) {}
  Status Handle(const Message& m, WorkflowContext& ctx) override {
    if (m.body.value("n", 0) < 3)
      ctx.SendMessage(Msg("Tick", Json{{"n", m.body.value("n", 0) + 1}}));
    return Status::Ok();
  }
  Status OnCheckpointRestored(WorkflowContext&) override {
    return *fail_ ? Status::HandlerFailed("executor refused the restore") : Status::Ok();
  }

 private:
  const bool* fail_;
};

std::shared_ptr<Workflow> Chain(const bool* fail, bool mutated = false) {
  WorkflowBuilder b(ExecutorBinding{
      "fragile", "Fragile", {"*"}, [fail] { return std::make_unique<Fragile>(fail); }});
  b.AddExecutor(testing::Forward("tail"));
  if (mutated) b.AddEdge("fragile", "tail");
  b.AddEdge("fragile", "fragile");
  if (!mutated) b.AddEdge("fragile", "tail");
  return *b.Build();
}

struct Fixture {
  explicit Fixture(bool prune_on_read)
      : store(MemoryStoreOptions{0, prune_on_read}), manager(&store, StoreCheckpointOptions{1}) {
    RunOptions o = Options();
    auto run = StreamingRun::Start(Chain(&fail), Msg("Tick", Json{{"n", 0}}), o);
    Drain(**run);
    chain = (*run)->checkpoints();
    session = (*run)->session_id();
  }
  RunOptions Options() {
    RunOptions o;
    o.checkpoints = &manager;
    return o;
  }
  std::vector<StoreEntry> Index() { return *store.Index(session); }
  bool fail = false;
  MemoryCheckpointStore store;
  // Full checkpoints (MAF's rule as it is); pruning around deltas is in the conformance suite.
  StoreCheckpointManager manager;
  std::vector<CheckpointInfo> chain;
  std::string session;
};

// The PR's failing cases, as functions that attempt a restore that must fail.
using Case = std::function<Status(Fixture&)>;
std::vector<std::pair<std::string, Case>> FailingCases() {
  return {
      {"incompatible workflow",
       [](Fixture& f) {
         return StreamingRun::Resume(Chain(&f.fail, /*mutated=*/true), f.chain[2], f.Options())
             .status();
       }},
      {"malformed checkpoint data",
       [](Fixture& f) {
         auto info = f.store.Commit(f.session, "{\"not\":\"a checkpoint\"}", f.chain.back());
         return StreamingRun::Resume(Chain(&f.fail), *info, f.Options()).status();
       }},
      {"executor failing during restore",
       [](Fixture& f) {
         f.fail = true;
         Status s = StreamingRun::Resume(Chain(&f.fail), f.chain[2], f.Options()).status();
         f.fail = false;
         return s;
       }},
      {"failure inside state import",
       [](Fixture& f) {
         // A well-formed checkpoint whose edge state names a direct edge: rejected by the import.
         Checkpoint c = **f.manager.Lookup(f.chain[2]);
         c.edge_state[1] = std::make_shared<const FanInState>(FanInState{{"x"}, {"x"}, {}});
         auto info = f.store.Commit(f.session, EncodeCheckpoint(c), f.chain.back());
         return StreamingRun::Resume(Chain(&f.fail), *info, f.Options()).status();
       }},
  };
}

TEST(RestoreObserverTest, FailedRestoresDeleteNothing) {
  for (auto& [name, attempt] : FailingCases()) {
    Fixture f(/*prune_on_read=*/false);
    Status s = attempt(f);
    ASSERT_FALSE(s.ok()) << name;
    const auto after = f.Index();
    for (const CheckpointInfo& cp : f.chain) {
      EXPECT_TRUE(f.store.Retrieve(cp).ok()) << name << ": " << cp.checkpoint_id << " was deleted";
    }
    EXPECT_GE(after.size(), f.chain.size()) << name;
  }
}

TEST(RestoreObserverTest, UnderPruneOnReadTheSameFailuresLoseAncestry) {
  int eroded = 0;
  for (auto& [name, attempt] : FailingCases()) {
    Fixture f(/*prune_on_read=*/true);
    ASSERT_FALSE(attempt(f).ok()) << name;
    for (const CheckpointInfo& cp : f.chain) eroded += f.store.Retrieve(cp).ok() ? 0 : 1;
  }
  EXPECT_GT(eroded, 0);
}

TEST(RestoreObserverTest, ASuccessfulRestorePrunesExactlyTheAncestorsAndKeepsLaterOnes) {
  Fixture f(false);
  ASSERT_GE(f.chain.size(), 4u);
  // Restoring a non-latest checkpoint: its ancestors go, it and everything after it stay.
  auto resumed = StreamingRun::Resume(Chain(&f.fail), f.chain[2], f.Options());
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_FALSE(f.store.Retrieve(f.chain[0]).ok());
  EXPECT_FALSE(f.store.Retrieve(f.chain[1]).ok());
  for (size_t i = 2; i < f.chain.size(); ++i) EXPECT_TRUE(f.store.Retrieve(f.chain[i]).ok()) << i;
  // The run's own list was re-read: it offers nothing that is gone.
  for (const CheckpointInfo& cp : (*resumed)->checkpoints()) EXPECT_TRUE(f.store.Retrieve(cp).ok());
}

// A store whose observer deletes the ancestors and then fails.
class DeletesThenFails : public CheckpointStore, public RestorationObserver {
 public:
  MemoryCheckpointStore inner;
  Result<CheckpointInfo> Commit(const std::string& s, std::string_view b,
                                const std::optional<CheckpointInfo>& p) override {
    return inner.Commit(s, b, p);
  }
  Result<std::string> Retrieve(const CheckpointInfo& i) override { return inner.Retrieve(i); }
  Result<std::vector<StoreEntry>> Index(const std::string& s,
                                        const std::optional<CheckpointInfo>& p) override {
    return inner.Index(s, p);
  }
  Status OnRestorationCompleted(const CheckpointInfo& restored) override {
    SF_RETURN_IF_ERROR(inner.OnRestorationCompleted(restored));
    return Status::IOError("cleanup failed half-way");
  }
};

TEST(RestoreObserverTest, AnObserverFailureNeverFailsTheRestoreAndTheListIsReread) {
  DeletesThenFails store;
  StoreCheckpointManager manager(&store, StoreCheckpointOptions{1});  // full checkpoints
  bool fail = false;
  RunOptions o;
  o.checkpoints = &manager;
  auto run = StreamingRun::Start(Chain(&fail), Msg("Tick", Json{{"n", 0}}), o);
  Drain(**run);
  auto chain = (*run)->checkpoints();
  ASSERT_TRUE(
      (*run)->Restore(chain[2]).ok());  // live restore succeeds although the observer failed
  EXPECT_EQ((*run)->observer_status().code(), StatusCode::kIOError);
  for (const CheckpointInfo& cp : (*run)->checkpoints()) {
    EXPECT_TRUE(store.Retrieve(cp).ok()) << cp.checkpoint_id << " is listed but was deleted";
  }
  EXPECT_EQ((*run)->checkpoints().size(), chain.size() - 2);
}

}  // namespace
}  // namespace stepfault
