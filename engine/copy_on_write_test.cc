// Goal: checkpoints in memory share every unchanged part with their parent and with the live run
// (copy-on-write state, README "Deliberate deviations from MAF"), and sharing never lets a later
// change of the run reach a stored checkpoint. Method: a chain whose executors each write their own
// scope once, and the fan-in shape with a pending request, inspected through the in-memory manager:
// object identity (SharesWith, pointer equality) for sharing, values for isolation.
#include <gtest/gtest.h>

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
