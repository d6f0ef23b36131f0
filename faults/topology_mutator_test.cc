// Goal: every topology mutation yields a workflow a careless rebuild could produce — it builds —
// and every one changes the topology signature, so a strict resume must reject it; a mutation the
// topology cannot express is reported as not applicable. Method: mutate a small workflow with two
// fan-in barriers and a request port, and compare signatures.
#include "faults/topology_mutator.h"

#include <gtest/gtest.h>

#include "engine/compat.h"

namespace stepfault::faults {
namespace {

ExecutorBinding Node(const std::string& id) {
  return FunctionExecutor(id, "Node", {"*"}, [](const Message& m, WorkflowContext& ctx) {
    ctx.SendMessage(m);
    return Status::Ok();
  });
}

WorkflowSpec Spec(bool two_barriers) {
  WorkflowSpec spec;
  spec.start_id = "s";
  for (const char* id : {"s", "a", "b", "left", "right"}) spec.executors.push_back(Node(id));
  spec.ports.push_back({"port", "Ask", "Answer"});
  spec.edges.push_back({EdgeKind::kFanOut, {"s"}, {"a", "b"}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {"s"}, {"port"}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kFanIn, {"a", "b"}, {"left"}, nullptr, nullptr});
  if (two_barriers)
    spec.edges.push_back({EdgeKind::kFanIn, {"a", "b"}, {"right"}, nullptr, nullptr});
  spec.outputs = {"left"};
  return spec;
}

TEST(TopologyMutatorTest, EveryMutationBuildsAndChangesTheSignature) {
  const WorkflowSpec spec = Spec(true);
  auto original = spec.Build();
  ASSERT_TRUE(original.ok()) << original.status().ToString();
  for (TopologyMutation m : {TopologyMutation::kPermuteEdges, TopologyMutation::kSwapFanIn,
                             TopologyMutation::kRenameExecutor, TopologyMutation::kRemoveEdge,
                             TopologyMutation::kChangePortType, TopologyMutation::kDuplicateEdge}) {
    SCOPED_TRACE(FaultActionName(FaultAction::Topology(m)));
    ASSERT_TRUE(MutationApplies(spec, m));
    auto mutated = MutateTopology(spec, m);
    ASSERT_TRUE(mutated.ok()) << mutated.status().ToString();
    auto wf = mutated->Build();
    ASSERT_TRUE(wf.ok()) << wf.status().ToString();
    EXPECT_NE((*wf)->signature(), (*original)->signature());
  }
}

// duplicate-edge keeps every executor and the edge count of every source, so only a one-to-one
// edge matcher rejects it: MAF's IsMatch without bijectivity accepts it, with it rejects it.
TEST(TopologyMutatorTest, DuplicateEdgeIsCaughtOnlyByABijectiveMatcher) {
  const WorkflowSpec spec = Spec(true);
  auto original = spec.Build();
  ASSERT_TRUE(original.ok());
  auto mutated = MutateTopology(spec, TopologyMutation::kDuplicateEdge);
  ASSERT_TRUE(mutated.ok()) << mutated.status().ToString();
  ASSERT_EQ(mutated->edges.size(), spec.edges.size());
  // {s -> [a, b] fan-out, s -> port} became the fan-out twice.
  EXPECT_EQ(mutated->edges[1].kind, EdgeKind::kFanOut);
  EXPECT_EQ(mutated->edges[1].sinks, spec.edges[0].sinks);
  auto wf = mutated->Build();
  ASSERT_TRUE(wf.ok()) << wf.status().ToString();
  const Json& checkpoint_signature = (*original)->signature();
  EngineProfile strict;
  EngineProfile blind;
  blind.edge_id_blind_matching = true;
  EngineProfile non_bijective;
  non_bijective.non_bijective_edge_matching = true;  // alone: MAF IsMatch without bijectivity
  EXPECT_FALSE(CheckCompatibility(checkpoint_signature, **wf, strict).ok());
  EXPECT_FALSE(CheckCompatibility(checkpoint_signature, **wf, blind).ok());
  EXPECT_TRUE(CheckCompatibility(checkpoint_signature, **wf, non_bijective).ok());
  // Not applicable without two different edges of the same sources (a chain).
  WorkflowSpec chain;
  chain.start_id = "s";
  for (const char* id : {"s", "a"}) chain.executors.push_back(Node(id));
  chain.edges.push_back({EdgeKind::kDirect, {"s"}, {"a"}, nullptr, nullptr});
  EXPECT_FALSE(MutationApplies(chain, TopologyMutation::kDuplicateEdge));
}

TEST(TopologyMutatorTest, SwapFanInNeedsTwoBarriers) {
  EXPECT_FALSE(MutationApplies(Spec(false), TopologyMutation::kSwapFanIn));
  EXPECT_EQ(MutateTopology(Spec(false), TopologyMutation::kSwapFanIn).status().code(),
            StatusCode::kFailedPrecondition);
}

TEST(TopologyMutatorTest, ARenamedExecutorKeepsItsBehaviourUnderItsNewId) {
  auto mutated = MutateTopology(Spec(true), TopologyMutation::kRenameExecutor);
  ASSERT_TRUE(mutated.ok());
  auto wf = mutated->Build();
  ASSERT_TRUE(wf.ok());
  EXPECT_NE((*wf)->FindBinding("right-renamed"), nullptr);
  EXPECT_EQ((*wf)->FindBinding("right"), nullptr);
  auto executor = (*wf)->FindBinding("right-renamed")->factory();
  EXPECT_EQ(executor->id(), "right-renamed");
}

}  // namespace
}  // namespace stepfault::faults
