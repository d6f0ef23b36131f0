// The generator's promises: deterministic per (seed, index), every document a valid JSON scenario,
// and the shapes the differential needs (ports, fan-in, fan-out, conditions) all occur.
#include "properties/differential/workflow_gen.h"

#include <gtest/gtest.h>

#include "engine/json_text.h"
#include "scenarios/json/json_scenario.h"

namespace stepfault::properties {
namespace {

TEST(WorkflowGen, SameSeedAndIndexGiveTheSameDocument) {
  for (int i = 0; i < 50; ++i) EXPECT_EQ(GenerateWorkflow(7, i), GenerateWorkflow(7, i));
}

TEST(WorkflowGen, SeedsAndIndicesGiveDifferentWorkflows) {
  EXPECT_NE(GenerateWorkflow(7, 0), GenerateWorkflow(8, 0));
  EXPECT_NE(GenerateWorkflow(7, 0), GenerateWorkflow(7, 1));
}

TEST(WorkflowGen, EveryDocumentParsesAsAJsonScenario) {
  for (uint64_t seed : {0u, 1u, 99u}) {
    for (int i = 0; i < 200; ++i) {
      const std::string text = GenerateWorkflow(seed, i);
      auto parsed = scenarios::ParseJsonScenario(text, "gen.json");
      ASSERT_TRUE(parsed.ok()) << parsed.status().ToString() << "\n" << text;
    }
  }
}

TEST(WorkflowGen, CoversPortsFanInFanOutAndConditions) {
  int ports = 0, fan_in = 0, fan_out = 0, conditions = 0;
  for (int i = 0; i < 200; ++i) {
    const Json doc = Json::parse(GenerateWorkflow(0, i));
    for (const Json& e : doc["executors"]) ports += e["kind"] == "request-port";
    for (const Json& e : doc["edges"]) {
      fan_in += e["kind"] == "fan-in";
      fan_out += e["kind"] == "fan-out";
      conditions += e.contains("when");
    }
  }
  EXPECT_GT(ports, 20);
  EXPECT_GT(fan_in, 10);
  EXPECT_GT(fan_out, 10);
  EXPECT_GT(conditions, 20);
}

}  // namespace
}  // namespace stepfault::properties
