// Goal: a workflow that never halts (a self-loop) ends with a typed kStepLimit error after
// max_steps_per_cycle super-steps however it is driven: by a watcher's Next (which pumps one step
// per call) as well as by RunUntilHalt (issue 16, item 2). Before the fix the bound was counted
// per Pump call, so a watcher looped forever.
// Method: a self-loop with a small bound; pull at most a fixed number of events from Next and
// require the step-limit error among them; the same with RunUntilHalt.
#include <gtest/gtest.h>

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

TEST(StepBoundTest, AWatcherDrivenSelfLoopEndsWithAStepLimitError) {
  RunOptions options;
  options.max_steps_per_cycle = 50;
  auto run = StreamingRun::Start(SelfLoop(), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  auto stream = (*run)->Watch();
  ASSERT_TRUE(stream.ok());
  std::optional<WorkflowEvent> error;
  for (int i = 0; i < 10000 && !error; ++i) {
    auto e = stream->Next();
    if (!e) break;
    if (e->kind == EventKind::kWorkflowError) error = e;
  }
  ASSERT_TRUE(error.has_value()) << "the watcher-driven loop ran past the step bound";
  EXPECT_EQ(error->error_kind, ErrorKind::kStepLimit);
  EXPECT_NE(error->error.message().find("more than 50 super-steps"), std::string::npos);
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
}

TEST(StepBoundTest, RunUntilHaltStopsAtTheSameBound) {
  RunOptions options;
  options.max_steps_per_cycle = 50;
  auto run = StreamingRun::Start(SelfLoop(), Msg("Go"), options);
  ASSERT_TRUE(run.ok());
  (*run)->RunUntilHalt();
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
}

}  // namespace
}  // namespace stepfault
