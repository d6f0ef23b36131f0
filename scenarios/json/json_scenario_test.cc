// Goal: JSON scenario documents load into scenarios, and every malformed document is rejected with
// the JSON pointer of the offending value and the reason.
// Method: load both shipped examples from the source tree; derive malformed documents from one
// small valid document, one defect each, and compare the whole error message.
#include "scenarios/json/json_scenario.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>

#include "scenarios/json/json_scenario_internal.h"
#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

std::string ExamplesDir() { return test_env::SourcePath("scenarios/json/examples"); }

TEST(JsonScenarioTest, EveryShippedExampleLoadsWithItsNameAndInvariants) {
  for (const char* file : {"review-pipeline.json", "fan-in-effects.json", "state-counters.json"}) {
    auto scenario = LoadJsonScenario(PosixEnv(), JoinPath(ExamplesDir(), file));
    ASSERT_TRUE(scenario.ok()) << file << ": " << scenario.status().ToString();
    EXPECT_EQ((*scenario)->name().rfind("json-", 0), 0u) << file;
    EXPECT_FALSE((*scenario)->description().empty());
    const auto inv = (*scenario)->invariants();
    for (const char* id : {"INV-ALO", "INV-IDEM", "INV-REQID", "INV-ANCESTRY", "INV-CORRUPT"}) {
      EXPECT_NE(std::find(inv.begin(), inv.end(), id), inv.end()) << file << " lacks " << id;
    }
    EXPECT_FALSE(JsonScenarioExpectedOutputs(**scenario).empty()) << file;
  }
}

TEST(JsonScenarioTest, TheReviewExampleOffersObserverCancelAndOnlyApplicableMutations) {
  auto scenario = LoadJsonScenario(PosixEnv(), JoinPath(ExamplesDir(), "review-pipeline.json"));
  ASSERT_TRUE(scenario.ok()) << scenario.status().ToString();
  std::vector<std::string> names;
  for (const auto& a : (*scenario)->RecoveryActions()) names.push_back(faults::FaultActionName(a));
  EXPECT_NE(std::find(names.begin(), names.end(), "observer-cancel"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "topology:change-port-type"), names.end());
  // One fan-in barrier at most: swapping two barriers does not apply.
  EXPECT_EQ(std::find(names.begin(), names.end(), "topology:swap-fan-in"), names.end());
}

TEST(JsonScenarioTest, AMissingFileIsNotFoundNamingThePath) {
  auto scenario = LoadJsonScenario(PosixEnv(), JoinPath(ExamplesDir(), "no-such.json"));
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().code(), StatusCode::kNotFound) << scenario.status().ToString();
  EXPECT_NE(scenario.status().message().find("no-such.json"), std::string::npos);
}

TEST(JsonScenarioTest, KeyTemplatesFillFieldsAndNameAMissingOne) {
  Json body = {{"op", "ship"}, {"id", 7}};
  EXPECT_EQ(*ExpandJsonKeyTemplate("{op}-{id}", body), "ship-7");
  auto missing = ExpandJsonKeyTemplate("{op}-{order}", body);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'order'"), std::string::npos);
}

Json ValidDocument() {
  return Json::parse(R"({
    "name": "t", "description": "d",
    "input": {"type": "In", "body": {"id": "1", "op": "x"}},
    "start": "a",
    "executors": [
      {"id": "a", "kind": "pass-through"},
      {"id": "b", "kind": "effect", "key": "{op}-{id}"},
      {"id": "p", "kind": "request-port", "request_type": "Q", "response_type": "R",
       "responses": [{"body": {"ok": true}}]}
    ],
    "edges": [{"kind": "direct", "from": "a", "to": "b"}],
    "outputs": ["b"],
    "expect": {"effects": [{"key": "x-1", "value": {"id": "1", "op": "x"}}], "outputs": []}
  })");
}

TEST(JsonScenarioTest, TheBaseDocumentOfTheMalformedTableIsValid) {
  auto scenario = ParseJsonScenario(ValidDocument().dump(), "t.json");
  EXPECT_TRUE(scenario.ok()) << scenario.status().ToString();
}

TEST(JsonScenarioTest, ACounterParsesWithItsKeyAndAPrivateOrSharedScope) {
  Json doc = ValidDocument();
  doc["executors"].push_back({{"id", "c1"}, {"kind", "counter"}, {"key", "seen"}});
  doc["executors"].push_back(
      {{"id", "c2"}, {"kind", "counter"}, {"key", "seen"}, {"scope", "tally"}});
  auto def = ParseJsonScenarioDef(doc.dump(), "t.json");
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  const JsonExecutorDef* c1 = def->Find("c1");
  const JsonExecutorDef* c2 = def->Find("c2");
  ASSERT_TRUE(c1 != nullptr && c2 != nullptr);
  EXPECT_EQ(c1->kind, JsonExecutorKind::kCounter);
  EXPECT_EQ(c1->state_key, "seen");
  EXPECT_EQ(c1->scope, "");  // private
  EXPECT_EQ(c2->state_key, "seen");
  EXPECT_EQ(c2->scope, "tally");
}

struct Malformed {
  std::string what;
  std::function<void(Json&)> damage;
  std::string error;  // path and reason
};

TEST(JsonScenarioTest, EveryMalformedDocumentIsRejectedWithItsPathAndReason) {
  const std::vector<Malformed> table = {
      {"unknown executor kind", [](Json& j) { j["executors"][1]["kind"] = "pass-thru"; },
       "/executors/1/kind: unknown kind 'pass-thru'; expected one of pass-through, transform, "
       "effect, "
       "request-port, fail-once, counter, clear"},
      {"edge to an unknown executor", [](Json& j) { j["edges"][0]["to"] = "x"; },
       "/edges/0/to: unknown executor 'x'"},
      {"edge from an unknown executor", [](Json& j) { j["edges"][0]["from"] = "y"; },
       "/edges/0/from: unknown executor 'y'"},
      {"fan-in from an unknown source",
       [](Json& j) {
         j["edges"].push_back({{"kind", "fan-in"}, {"sources", {"a", "q"}}, {"sink", "b"}});
       },
       "/edges/1/sources/1: unknown executor 'q'"},
      {"fan-out to an unknown sink",
       [](Json& j) {
         j["edges"].push_back({{"kind", "fan-out"}, {"from", "a"}, {"to", {"b", "z"}}});
       },
       "/edges/1/to/1: unknown executor 'z'"},
      {"topology error from the builder",
       [](Json& j) {
         j["edges"].push_back({{"kind", "fan-in"}, {"sources", {"a", "a"}}, {"sink", "b"}});
       },
       "/edges: invalid workflow topology:\n  - fan-in edge 2 into 'b' lists a source twice"},
      {"unknown edge kind", [](Json& j) { j["edges"][0]["kind"] = "direkt"; },
       "/edges/0/kind: unknown edge kind 'direkt'; expected one of direct, fan-out, fan-in"},
      {"condition on a fan-out edge",
       [](Json& j) {
         j["edges"].push_back({{"kind", "fan-out"},
                               {"from", "a"},
                               {"to", {"b"}},
                               {"when", {{"field", "op"}, {"equals", "x"}}}});
       },
       "/edges/1/when: unknown field; expected one of kind, from, to"},
      {"condition without a value",
       [](Json& j) {
         j["edges"][0]["when"] = {{"field", "op"}};
       },
       "/edges/0/when/equals: missing; expected the value to compare with"},
      {"missing name", [](Json& j) { j.erase("name"); }, "/name: missing; expected a string"},
      {"empty name", [](Json& j) { j["name"] = ""; }, "/name: must not be empty"},
      {"name unsafe in a replay command", [](Json& j) { j["name"] = "my flow"; },
       "/name: 'my flow' may use only a-z, 0-9, '-', '_' and '.'"},
      {"misspelt top-level field", [](Json& j) { j["ouputs"] = Json::array(); },
       "/ouputs: unknown field; expected one of name, description, input, start, executors, edges, "
       "outputs, expect, max_steps, full_every, live_restore"},
      {"a full-snapshot interval of 0", [](Json& j) { j["full_every"] = 0; },
       "/full_every: must be 1..100000 (1: every checkpoint full)"},
      {"a live restore without its step", [](Json& j) { j["live_restore"] = Json::object(); },
       "/live_restore/to_step: missing; expected a step number (0, 1, ...)"},
      {"a live restore to a step no life reaches",
       [](Json& j) {
         j["max_steps"] = 10;
         j["live_restore"] = {{"to_step", 10}};
       },
       "/live_restore/to_step: step 10 is never reached: a life runs at most max_steps (10) steps"},
      {"input body not an object", [](Json& j) { j["input"]["body"] = Json::array(); },
       "/input/body: expected an object, got array"},
      {"unknown start", [](Json& j) { j["start"] = "zz"; }, "/start: unknown executor 'zz'"},
      {"a request port as start", [](Json& j) { j["start"] = "p"; },
       "/start: request port 'p' cannot start a run; start with an executor that sends to it"},
      {"duplicate executor id",
       [](Json& j) {
         j["executors"].push_back({{"id", "a"}, {"kind", "fail-once"}});
       },
       "/executors/3/id: duplicate executor id 'a'"},
      {"executor is not an object", [](Json& j) { j["executors"][0] = "a"; },
       "/executors/0: expected an object {\"id\", \"kind\", ...}"},
      {"misspelt executor field", [](Json& j) { j["executors"][1]["kee"] = "k"; },
       "/executors/1/kee: unknown field; expected one of id, kind, key, emit"},
      {"constant effect key", [](Json& j) { j["executors"][1]["key"] = "fixed"; },
       "/executors/1/key: a constant key makes every message one effect; name a field, e.g. "
       "\"{op}-{id}\""},
      {"transform without emit",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "transform"}};
       },
       "/executors/0/emit: missing; expected a string"},
      {"port with one type for both", [](Json& j) { j["executors"][2]["response_type"] = "Q"; },
       "/executors/2/response_type: must differ from request_type 'Q'"},
      {"port without responses", [](Json& j) { j["executors"][2]["responses"] = Json::array(); },
       "/executors/2/responses: must script at least one response"},
      {"response without body", [](Json& j) { j["executors"][2]["responses"][0] = Json::object(); },
       "/executors/2/responses/0/body: missing; expected an object"},
      {"unknown output executor", [](Json& j) { j["outputs"][0] = "nope"; },
       "/outputs/0: unknown executor 'nope'"},
      {"expected output of an undeclared output executor",
       [](Json& j) {
         j["expect"]["outputs"].push_back(
             {{"executor", "a"}, {"type", "In"}, {"body", Json::object()}});
       },
       "/expect/outputs/0/executor: 'a' is not listed in /outputs"},
      {"expected effect without value", [](Json& j) { j["expect"]["effects"][0].erase("value"); },
       "/expect/effects/0/value: missing; expected the row's value"},
      {"duplicate expected effect key",
       [](Json& j) { j["expect"]["effects"].push_back(j["expect"]["effects"][0]); },
       "/expect/effects/1/key: duplicate effect key 'x-1'"},
      {"counter without key",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}};
       },
       "/executors/0/key: missing; expected a string"},
      {"counter with an empty scope",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}, {"key", "n"}, {"scope", ""}};
       },
       "/executors/0/scope: must not be empty"},
      {"counter scope not a string",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}, {"key", "n"}, {"scope", 3}};
       },
       "/executors/0/scope: expected a string, got number"},
      {"counter key with the trace's separator",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}, {"key", "a|b"}};
       },
       "/executors/0/key: 'a|b' must not contain '|'"},
      {"counter scope with the trace's separator",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}, {"key", "n"}, {"scope", "x|"}};
       },
       "/executors/0/scope: 'x|' must not contain '|'"},
      {"misspelt counter field",
       [](Json& j) {
         j["executors"][0] = {{"id", "a"}, {"kind", "counter"}, {"key", "n"}, {"scopes", "s"}};
       },
       "/executors/0/scopes: unknown field; expected one of id, kind, key, scope"},
      {"top level not an object", [](Json& j) { j = Json::array(); },
       "/: expected an object at the top level"},
  };
  for (const Malformed& m : table) {
    Json doc = ValidDocument();
    m.damage(doc);
    auto scenario = ParseJsonScenario(doc.dump(), "bad.json");
    ASSERT_FALSE(scenario.ok()) << m.what;
    EXPECT_EQ(scenario.status().code(), StatusCode::kInvalidArgument) << m.what;
    EXPECT_EQ(scenario.status().message(),
              "bad.json: " + m.error + " (see the format in scenarios/json/json_scenario.h)")
        << m.what;
  }
}

// Issue 16, item 8: the error names the line, the column and what the parser found there.
TEST(JsonScenarioTest, TextThatIsNotJsonIsRejectedWithLineAndColumn) {
  auto scenario = ParseJsonScenario("{\"name\": ", "cut.json");
  ASSERT_FALSE(scenario.ok());
  EXPECT_EQ(scenario.status().message().rfind(
                "cut.json: not valid JSON at line 1, column 10 (near end of input)", 0),
            0u)
      << scenario.status().message();
  auto typo = ParseJsonScenario("{\n  \"name\": \"x\",\n  \"start\": tru\n}", "typo.json");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("line 3"), std::string::npos) << typo.status().message();
}

}  // namespace
}  // namespace stepfault::scenarios
