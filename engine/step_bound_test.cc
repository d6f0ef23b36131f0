// Goal: a workflow that never halts (a self-loop) ends with a typed kStepLimit error after
// max_steps_per_cycle super-steps however it is driven: by a watcher's Next (which pumps one step
// per call) as well as by RunUntilHalt (issue 16, item 2). Before the fix the bound was counted
// per Pump call, so a watcher looped forever.
// Method: a self-loop with a small bound; pull at most a fixed number of events from Next and
// require the step-limit error among them after exactly bound + 1 super-steps; the same for the
// events RunUntilHalt buffered.
#include <gtest/gtest.h>

#include <optional>

#include "engine/run.h"
#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Forward;
using testing::Msg;

std::shared_ptr<Workflow> SelfLoop() {
  auto wf = WorkflowBuilder(Forward("loop")).AddEdge("loop", "loop").Build();
  SF_CHECK(wf.ok());
  return *wf;
}

// What a run did: its super-steps and the step-limit error, if it raised one.
struct Drained {
  int64_t steps_completed = 0;
  std::optional<WorkflowEvent> error;
  bool ran_past_the_bound = false;  // the event budget ran out before the run ended
};

// Pulls at most a fixed number of events from a watcher, counting completed super-steps.
Drained Drain(StreamingRun& run) {
  Drained out;
  auto stream = run.Watch();
  SF_CHECK(stream.ok());
  out.ran_past_the_bound = true;
  for (int i = 0; i < 10000; ++i) {
    auto e = stream->Next();
    if (!e) {
      out.ran_past_the_bound = false;
      break;
    }
    if (e->kind == EventKind::kSuperStepCompleted) ++out.steps_completed;
    if (e->kind == EventKind::kWorkflowError) out.error = e;
  }
  return out;
}

// The bound is checked after each step: step 51 is the one "more than 50", so a run ends after
// exactly bound + 1 completed super-steps with the step-limit error.
constexpr int64_t kBound = 50;
constexpr int64_t kStepsAtTheBound = kBound + 1;

void ExpectEndedAtTheBound(const Drained& d, const StreamingRun& run) {
  ASSERT_FALSE(d.ran_past_the_bound) << "the loop ran past the step bound";
  ASSERT_TRUE(d.error.has_value()) << "the run ended without a step-limit error";
  EXPECT_EQ(d.error->error_kind, ErrorKind::kStepLimit);
  EXPECT_NE(d.error->error.message().find("more than 50 super-steps"), std::string::npos);
  EXPECT_EQ(d.steps_completed, kStepsAtTheBound);
  EXPECT_EQ(run.status(), RunStatus::kEnded);
}

TEST(StepBoundTest, AWatcherDrivenSelfLoopEndsWithAStepLimitError) {
  RunOptions options;
  options.max_steps_per_cycle = kBound;
  auto run = StreamingRun::Start(SelfLoop(), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  ExpectEndedAtTheBound(Drain(**run), **run);
}

// RunUntilHalt buffers its events for the next watcher: they must show the same error after the
// same number of steps, not merely a run that ended.
TEST(StepBoundTest, RunUntilHaltStopsAtTheSameBound) {
  RunOptions options;
  options.max_steps_per_cycle = kBound;
  auto run = StreamingRun::Start(SelfLoop(), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  (*run)->RunUntilHalt();
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
  ExpectEndedAtTheBound(Drain(**run), **run);
}

}  // namespace
}  // namespace stepfault
