// Goal: `--params` cannot crash, exhaust memory, silently ignore a typo or drop defaults (issue 16,
// item 3): ResolveParams merges a partial object over the scenario's declared defaults and rejects
// wrong types, out-of-range sizes and unknown keys (with "did you mean").
// Method: resolve good and bad parameter objects against the built-in scenarios' declarations.
#include "scenarios/params.h"

#include <gtest/gtest.h>

#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

Result<Json> Resolve(const std::string& scenario, const Json& given) {
  auto s = FindScenario(scenario);
  SF_CHECK(s != nullptr);
  return ResolveParams(s->name(), s->params(), given);
}

TEST(ParamsTest, APartialObjectIsMergedOverTheDefaults) {
  auto r = Resolve("fan-in", Json{{"width", 5}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, (Json{{"width", 5},
                      {"payload_bytes", 16},
                      {"checkpoints", "incremental"},
                      {"full_every", kDefaultFullSnapshotEvery}}));
  auto none = Resolve("fan-in", Json());
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, FindScenario("fan-in")->default_params());
}

TEST(ParamsTest, WrongTypesSizesAndTyposAreRejectedWithTheReason) {
  struct Case {
    const char* scenario;
    Json given;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"fan-in", Json{{"width", "wide"}}, "expected integer 1..64"},
      {"fan-in", Json{{"width", 100000000}}, "out of range"},
      {"fan-in", Json{{"width", 0}}, "out of range"},
      {"fan-in", Json{{"width", -3}}, "out of range"},
      {"fan-in", Json{{"width", 2.5}}, "expected integer"},
      {"fan-in", Json{{"payload_bytes", 1 << 30}}, "out of range"},
      {"fan-in", Json{{"widht", 4}}, "did you mean 'width'"},
      {"fan-in", Json::array({1}), "must be a JSON object"},
      {"approval", Json{{"choice", "maybe"}}, "one of approve|reject"},
      {"approval", Json{{"draft", ""}}, "0 bytes"},
      {"approval", Json{{"comment", "   "}}, "blank"},
      {"approval", Json{{"checkpoints", "delta"}}, "one of incremental|full"},
      {"artifact-boundary", Json{{"x", 1}}, "takes no parameters"},
  };
  for (const Case& c : cases) {
    auto r = Resolve(c.scenario, c.given);
    ASSERT_FALSE(r.ok()) << c.scenario << " " << c.given.dump();
    EXPECT_NE(r.status().message().find(c.expected), std::string::npos)
        << c.given.dump() << ": " << r.status().message();
  }
}

// The checkpoint mode: full snapshots every commit only when asked for; the default K otherwise.
TEST(ParamsTest, TheCheckpointModeAsksForFullSnapshotsOnlyWhenFull) {
  EXPECT_EQ(CheckpointOptionsOf(Json{{"checkpoints", "full"}}).full_every, 1);
  EXPECT_EQ(CheckpointOptionsOf(Json{{"checkpoints", "incremental"}}).full_every,
            kDefaultFullSnapshotEvery);
  EXPECT_EQ(CheckpointOptionsOf(Json::object()).full_every, kDefaultFullSnapshotEvery);
  EXPECT_EQ(CheckpointOptionsOf(Json()).full_every, kDefaultFullSnapshotEvery);
}

TEST(ParamsTest, EveryScenarioDeclaresDocumentedDefaultsThatPassItsOwnValidation) {
  for (const auto& s : BuiltinScenarios()) {
    for (const ParamDecl& d : s->params()) EXPECT_FALSE(d.doc.empty()) << s->name() << d.name;
    auto r = ResolveParams(s->name(), s->params(), s->default_params());
    EXPECT_TRUE(r.ok()) << s->name() << ": " << r.status().ToString();
  }
}

}  // namespace
}  // namespace stepfault::scenarios
