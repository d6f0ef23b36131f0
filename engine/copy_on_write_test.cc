// Goal: checkpoints in memory share every unchanged part with their parent and with the live run
// (docs/engine-semantics.md 10.1, "Copy-on-write state"): values, scopes, the instantiated
// list and the queues; and sharing never lets a later change of the run reach a stored checkpoint.
// Method: a chain whose executors each write their own scope once, a ring passing a token, and the
// fan-in shape with a pending request, inspected through the in-memory manager: object identity
// (SharesWith, pointer equality) counted for sharing, values for isolation.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Drain;
using testing::Msg;

ExecutorBinding Writer(const std::string& id, const char* out_type) {
  return FunctionExecutor(
      id, "Writer", {"*"}, [id, out_type](const Message&, WorkflowContext& ctx) {
        ctx.QueueStateUpdate("v", Json(id + "@" + std::to_string(ctx.step_number())));
        if (out_type != nullptr) ctx.SendMessage(Msg(out_type));
        return Status::Ok();
      });
}

std::shared_ptr<Workflow> Chain() {
  auto wf = WorkflowBuilder(Writer("a", "X"))
                .AddExecutor(Writer("b", "X"))
                .AddExecutor(Writer("c", nullptr))
                .AddEdge("a", "b")
                .AddEdge("b", "c")
                .Build();
  EXPECT_TRUE(wf.ok());
  return *wf;
}

TEST(CopyOnWriteTest, ACheckpointSharesEveryValueItsStepDidNotWriteWithItsParent) {
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(Chain(), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  Drain(**run);
  const std::vector<CheckpointInfo> cps = (*run)->checkpoints();
  ASSERT_EQ(cps.size(), 3u);
  auto c0 = *manager.Lookup(cps[0]);
  auto c1 = *manager.Lookup(cps[1]);
  auto c2 = *manager.Lookup(cps[2]);
  // Step 1 wrote only b's scope: a's value is the very object of step 0's checkpoint.
  EXPECT_TRUE(c1->state.at("executor:a").at("v").SharesWith(c0->state.at("executor:a").at("v")));
  EXPECT_TRUE(c2->state.at("executor:a").at("v").SharesWith(c0->state.at("executor:a").at("v")));
  EXPECT_TRUE(c2->state.at("executor:b").at("v").SharesWith(c1->state.at("executor:b").at("v")));
  EXPECT_EQ(c2->state.at("executor:c").at("v").get(), Json("c@2"));
  // The topology signature is one object for every checkpoint of the workflow.
  EXPECT_TRUE(c0->workflow.SharesWith(c2->workflow));
}

// A ring of `length` writers passing a token for `steps` steps: step i is run by e(i % length),
// which writes its own scope only.
std::shared_ptr<Workflow> Ring(int length, int steps) {
  auto writer = [steps](const std::string& id) {
    return FunctionExecutor(
        id, "RingWriter", {"*"}, [id, steps](const Message&, WorkflowContext& ctx) {
          ctx.QueueStateUpdate("v", Json(id + "@" + std::to_string(ctx.step_number())));
          if (ctx.step_number() + 1 < steps) ctx.SendMessage(Msg("Token"));
          return Status::Ok();
        });
  };
  auto id = [](int i) { return "e" + std::to_string(i); };
  WorkflowBuilder b(writer(id(0)));
  for (int i = 1; i < length; ++i) b.AddExecutor(writer(id(i)));
  for (int i = 0; i < length; ++i) b.AddEdge(id(i), id((i + 1) % length));
  auto wf = b.Build();
  EXPECT_TRUE(wf.ok());
  return *wf;
}

// Runs a ring of `length` writers for `steps` super-steps to the end, checkpointing into `manager`;
// `cps` gets the run's checkpoints, one per step.
void RunRing(int length, int steps, InMemoryCheckpointManager* manager,
             std::vector<CheckpointInfo>* cps) {
  RunOptions options;
  options.checkpoints = manager;
  auto run = StreamingRun::Start(Ring(length, steps), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  Drain(**run);
  *cps = (*run)->checkpoints();
  ASSERT_EQ(cps->size(), static_cast<size_t>(steps));
}

TEST(CopyOnWriteTest, AStepCopiesOnlyTheScopeItWroteEveryOtherScopeIsTheParentsVeryObject) {
  constexpr int kLength = 5, kSteps = 17;
  InMemoryCheckpointManager manager;
  std::vector<CheckpointInfo> cps;
  ASSERT_NO_FATAL_FAILURE(RunRing(kLength, kSteps, &manager, &cps));
  int shared_total = 0, copied_total = 0;
  for (int i = 1; i < kSteps; ++i) {
    auto parent = *manager.Lookup(cps[i - 1]);
    auto child = *manager.Lookup(cps[i]);
    const std::string written = "executor:e" + std::to_string(i % kLength);
    int shared = 0, copied = 0;
    for (const auto& [scope, values] : child->state) {
      if (child->state.SharesScopeWith(parent->state, scope)) {
        ++shared;
      } else {
        ++copied;
        EXPECT_EQ(scope, written) << "step " << i << " copied a scope it did not write";
      }
    }
    // Exactly one scope is new or copied: the one this step wrote; all others are shared.
    EXPECT_EQ(copied, 1) << "step " << i;
    EXPECT_EQ(shared, std::min(i, kLength - 1)) << "step " << i;
    shared_total += shared;
    copied_total += copied;
    // And the parent was not changed by the child's write.
    if (i >= kLength) {
      EXPECT_EQ(parent->state.at(written).at("v").get(),
                Json("e" + std::to_string(i % kLength) + "@" + std::to_string(i - kLength)));
    }
  }
  EXPECT_EQ(copied_total, kSteps - 1);
  EXPECT_EQ(shared_total, (kLength - 1) * (kSteps - kLength) + (kLength - 1) * kLength / 2);
  // A scope nobody wrote for kLength - 1 steps is one object across all those checkpoints.
  auto c5 = *manager.Lookup(cps[5]);
  auto c9 = *manager.Lookup(cps[9]);
  EXPECT_TRUE(c9->state.SharesScopeWith(c5->state, "executor:e0"));
}

TEST(CopyOnWriteTest, AStepThatInstantiatesNothingLeavesItsCheckpointTheParentsVeryList) {
  constexpr int kLength = 5, kSteps = 17;
  InMemoryCheckpointManager manager;
  std::vector<CheckpointInfo> cps;
  ASSERT_NO_FATAL_FAILURE(RunRing(kLength, kSteps, &manager, &cps));
  int shared = 0, fresh = 0;
  for (int i = 1; i < kSteps; ++i) {
    auto parent = *manager.Lookup(cps[i - 1]);
    auto child = *manager.Lookup(cps[i]);
    if (child->instantiated.SharesWith(parent->instantiated)) {
      ++shared;
      continue;
    }
    ++fresh;
    // A new list only when the step instantiated an executor (routing the token to it).
    EXPECT_EQ(child->instantiated.size(), parent->instantiated.size() + 1) << "step " << i;
  }
  // Step 0 instantiates e0 and e1, steps 1-3 one more each; from step 4 on the list is one object.
  EXPECT_EQ(fresh, kLength - 2);
  EXPECT_EQ(shared, kSteps - 1 - (kLength - 2));
  EXPECT_EQ((*manager.Lookup(cps.back()))->instantiated.Sorted(),
            (std::vector<std::string>{"e0", "e1", "e2", "e3", "e4"}));
}

// Runs one super-step through `stream`; returns its completion event.
WorkflowEvent StepOnce(EventStream& stream) {
  for (int i = 0; i < 1000; ++i) {
    std::optional<WorkflowEvent> e = stream.Next();
    if (!e) break;
    if (e->kind == EventKind::kSuperStepCompleted) return *e;
  }
  ADD_FAILURE() << "no super-step completed";
  return WorkflowEvent{EventKind::kWorkflowError};
}

TEST(CopyOnWriteTest, ACheckpointHoldsTheVeryQueuesItsStepBuiltAndInputQueuedLaterCopiesThem) {
  constexpr int kLength = 3, kSteps = 8;
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(Ring(kLength, kSteps), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  auto stream = (*run)->Watch();
  ASSERT_TRUE(stream.ok());
  // Every step's checkpoint holds the run's very queue map (no copy), and the step after it
  // routes into a fresh map, so consecutive checkpoints never share their queues.
  int shared = 0;
  std::shared_ptr<const Checkpoint> previous;
  for (int step = 0; step < 4; ++step) {
    const WorkflowEvent done = StepOnce(*stream);
    ASSERT_TRUE(done.checkpoint.has_value());
    auto cp = *manager.Lookup(*done.checkpoint);
    ASSERT_EQ(cp->queued.size(), 1u) << "step " << step;  // the token, queued for its receiver
    if ((*run)->queued().SharesWith(cp->queued)) ++shared;
    if (previous) {
      EXPECT_FALSE(cp->queued.SharesWith(previous->queued)) << "step " << step;
    }
    previous = cp;
  }
  EXPECT_EQ(shared, 4);
  // Input queued after a checkpoint is written into a copy: the stored queues stay as they were.
  const QueueMap expected = *previous->queued;
  ASSERT_TRUE((*run)->SendMessage(Msg("Extra")).ok());
  StepOnce(*stream);
  EXPECT_EQ(*previous->queued, expected);
  EXPECT_FALSE((*run)->queued().SharesWith(previous->queued));
}

TEST(CopyOnWriteTest, ALaterStepNeverChangesAStoredFanInBufferUnderStrict) {
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(testing::FanInWithPortWorkflow(2), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  auto events = Drain(**run);
  const auto requests = testing::OfKind(events, EventKind::kRequestInfo);
  ASSERT_EQ(requests.size(), 1u);
  const CheckpointInfo waiting = (*run)->checkpoints().back();
  auto before = *manager.Lookup(waiting);
  ASSERT_EQ(before->edge_state.size(), 1u);
  const FanInState buffered = *before->edge_state.begin()->second;
  ASSERT_EQ(buffered.pending.size(), 2u);  // both workers contributed, the answer has not
  // The live run shares that buffer until it changes it: answering releases the barrier.
  ASSERT_TRUE(
      (*run)->SendResponse({requests[0].request_id, "ask", Msg("Reply", Json("yes"))}).ok());
  Drain(**run);
  auto after = *manager.Lookup(waiting);
  EXPECT_EQ(*after->edge_state.begin()->second, buffered);
  auto last = *manager.Lookup((*run)->checkpoints().back());
  EXPECT_TRUE(last->edge_state.begin()->second->pending.empty());
}

TEST(CopyOnWriteTest, TheFanInAliasingHazardStillWritesThroughToTheStoredCheckpoint) {
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  options.profile.fan_in_aliasing = true;
  auto run = StreamingRun::Start(testing::FanInWithPortWorkflow(2), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  auto events = Drain(**run);
  const auto requests = testing::OfKind(events, EventKind::kRequestInfo);
  ASSERT_EQ(requests.size(), 1u);
  const CheckpointInfo waiting = (*run)->checkpoints().back();
  ASSERT_EQ((*manager.Lookup(waiting))->edge_state.begin()->second->pending.size(), 2u);
  ASSERT_TRUE(
      (*run)->SendResponse({requests[0].request_id, "ask", Msg("Reply", Json("yes"))}).ok());
  Drain(**run);
  // MAF before #6574: the release emptied the buffer the stored checkpoint points at.
  EXPECT_TRUE((*manager.Lookup(waiting))->edge_state.begin()->second->pending.empty());
}

}  // namespace
}  // namespace stepfault
