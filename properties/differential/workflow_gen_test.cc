// The generator's promises: deterministic per (seed, index), every document a valid JSON scenario,
// and the shapes the differential needs (ports, fan-in, fan-out, conditions, counters) all occur.
#include "properties/differential/workflow_gen.h"

#include <gtest/gtest.h>

#include <map>

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

// Counters: private ones, two of one shared scope in one fan-out with different keys, and with the
// same key (the state-conflict rule), and about half the workflows have none.
TEST(WorkflowGen, CoversPrivateAndSharedCountersAndTheSameSharedKey) {
  int without = 0, private_counters = 0, shared_distinct = 0, shared_same = 0;
  for (int i = 0; i < 200; ++i) {
    const Json doc = Json::parse(GenerateWorkflow(0, i));
    std::map<std::string, Json> counters;
    for (const Json& e : doc["executors"]) {
      if (e["kind"] == "counter") counters[e["id"]] = e;
    }
    without += counters.empty();
    for (const auto& [id, c] : counters) private_counters += !c.contains("scope");
    for (const Json& e : doc["edges"]) {
      if (e["kind"] != "fan-out" || counters.count(e["to"][0]) == 0) continue;
      const Json& a = counters[e["to"][0]];
      const Json& b = counters[e["to"][1]];
      ASSERT_EQ(a["scope"], b["scope"]);
      (a["key"] == b["key"] ? shared_same : shared_distinct) += 1;
    }
  }
  EXPECT_GT(without, 60);
  EXPECT_GT(private_counters, 20);
  EXPECT_GT(shared_distinct, 10);
  EXPECT_GT(shared_same, 10);
}

// Counters are appended from their own random stream: without them a workflow is the one the same
// (seed, index) gave before counters existed, so the old shapes stay in the mix unchanged.
TEST(WorkflowGen, CountersAreAppendedAfterTheOtherStages) {
  for (int i = 0; i < 100; ++i) {
    const Json doc = Json::parse(GenerateWorkflow(0, i));
    bool counter_seen = false;
    for (const Json& e : doc["executors"]) {
      if (e["kind"] == "counter")
        counter_seen = true;
      else
        EXPECT_FALSE(counter_seen) << "a " << e["kind"] << " after a counter in workflow " << i;
    }
  }
}

}  // namespace
}  // namespace stepfault::properties
