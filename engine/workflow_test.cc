// Goal: the builder assigns EdgeIds exactly as MAF does and rejects bad topologies with a message
// naming the problem. Method: build small workflows and inspect ids, signatures and errors.
#include "engine/workflow.h"

#include <gtest/gtest.h>

#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Forward;

TEST(WorkflowBuilderTest, EdgeIdsCountFromOneInCallOrderAndIdempotentDuplicatesTakeNone) {
  auto wf = WorkflowBuilder(Forward("a"))
                .AddExecutor(Forward("b"))
                .AddExecutor(Forward("c"))
                .AddEdge("a", "b")
                .AddEdge("a", "b")  // idempotent: no id
                .AddFanOutEdge("a", {"b", "c"})
                .AddFanInBarrierEdge({"b", "c"}, "a")
                .AddEdge("b", "c", [](const Message&) { return true; })
                .Build();
  ASSERT_TRUE(wf.ok()) << wf.status().ToString();
  const auto& edges = (*wf)->edges();
  ASSERT_EQ(edges.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(edges[i].id, i + 1);
  EXPECT_EQ(edges[2].kind, EdgeKind::kFanIn);
  EXPECT_EQ((*wf)->signature()["edges"][3]["has_condition"], true);
  EXPECT_EQ((*wf)->signature()["edges"][0]["has_condition"], false);
}

TEST(WorkflowBuilderTest, ConditionalDuplicatesAreDistinctEdges) {
  auto always = [](const Message&) { return true; };
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(Forward("x"))
                .AddEdge("s", "x", always)
                .AddEdge("s", "x", always)
                .Build();
  ASSERT_TRUE(wf.ok());
  EXPECT_EQ((*wf)->edges().size(), 2u);
}

TEST(WorkflowBuilderTest, UnknownExecutorIdIsNamed) {
  auto wf = WorkflowBuilder(Forward("a")).AddEdge("a", "ghost").Build();
  ASSERT_FALSE(wf.ok());
  EXPECT_EQ(wf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(wf.status().message().find("unknown sink executor 'ghost'"), std::string::npos);
}

TEST(WorkflowBuilderTest, DuplicateExecutorIdIsRejected) {
  auto wf = WorkflowBuilder(Forward("a")).AddExecutor(Forward("a")).Build();
  ASSERT_FALSE(wf.ok());
  EXPECT_NE(wf.status().message().find("executor id 'a' is used twice"), std::string::npos);
}

TEST(WorkflowBuilderTest, EmptyFanInIsRejected) {
  auto wf = WorkflowBuilder(Forward("a")).AddFanInBarrierEdge({}, "a").Build();
  ASSERT_FALSE(wf.ok());
  EXPECT_NE(wf.status().message().find("has no sources"), std::string::npos);
}

TEST(WorkflowBuilderTest, PortTypeClashesAreRejected) {
  auto same = WorkflowBuilder(Forward("a")).AddRequestPort("p", "T", "T").Build();
  ASSERT_FALSE(same.ok());
  EXPECT_NE(same.status().message().find("for both request and response"), std::string::npos);
  auto redeclared = WorkflowBuilder(Forward("a"))
                        .AddRequestPort("p", "T", "U")
                        .AddRequestPort("p", "T", "V")
                        .Build();
  ASSERT_FALSE(redeclared.ok());
  EXPECT_NE(redeclared.status().message().find("declared twice with different types"),
            std::string::npos);
  auto clash = WorkflowBuilder(Forward("a")).AddRequestPort("a", "T", "U").Build();
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("clashes with an executor"), std::string::npos);
}

TEST(WorkflowBuilderTest, AllProblemsAreReportedTogether) {
  auto wf =
      WorkflowBuilder(Forward("a")).AddEdge("a", "x").AddEdge("y", "a").WithOutputFrom("z").Build();
  ASSERT_FALSE(wf.ok());
  const std::string& m = wf.status().message();
  EXPECT_NE(m.find("'x'"), std::string::npos);
  EXPECT_NE(m.find("'y'"), std::string::npos);
  EXPECT_NE(m.find("'z'"), std::string::npos);
}

TEST(WorkflowTest, OnlyOneRunOwnsAWorkflowAtATime) {
  auto wf = WorkflowBuilder(Forward("a")).Build();
  ASSERT_TRUE(wf.ok());
  auto first = StreamingRun::Start(*wf, testing::Msg("X"), {});
  ASSERT_TRUE(first.ok());
  auto second = StreamingRun::Start(*wf, testing::Msg("X"), {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kFailedPrecondition);
  first->reset();
  EXPECT_TRUE(StreamingRun::Start(*wf, testing::Msg("X"), {}).ok());
}

}  // namespace
}  // namespace stepfault
