// Goal: one registry per kind of name. Every built-in scenario is reachable by name, every
// invariant a scenario declares (the built-ins and the shipped JSON examples) is registered in
// scenarios/invariants.h with a statement (that every one is documented in docs/invariants.md is
// tools/testing/docs_test.cc's). Method: walk the registries; the JSON examples are read from the
// source tree (STEPFAULT_SOURCE_DIR).
#include "scenarios/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "engine/env.h"
#include "scenarios/invariants.h"
#include "scenarios/json/json_scenario.h"
#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;

fs::path SourceRoot() { return test_env::SourceDir(); }

std::vector<std::shared_ptr<const ScenarioInfo>> EveryShippedScenario() {
  std::vector<std::shared_ptr<const ScenarioInfo>> all = AllScenarios();
  std::vector<std::string> examples;
  for (const auto& e : fs::directory_iterator(SourceRoot() / "scenarios/json/examples")) {
    if (e.path().extension() == ".json") examples.push_back(e.path().string());
  }
  std::sort(examples.begin(), examples.end());
  for (const std::string& path : examples) {
    auto s = LoadJsonScenario(PosixEnv(), path);
    EXPECT_TRUE(s.ok()) << path << ": " << s.status().ToString();
    if (s.ok()) all.push_back(*s);
  }
  return all;
}

TEST(ScenarioRegistry, EveryBuiltinIsFoundByItsNameAndNamesAreUnique) {
  std::set<std::string> names;
  for (const auto& s : BuiltinScenarios()) {
    EXPECT_TRUE(names.insert(s->name()).second) << "two scenarios named " << s->name();
    EXPECT_EQ(FindScenario(s->name()), s);
  }
  EXPECT_EQ(FindScenario("no-such-scenario"), nullptr);
  EXPECT_GE(names.size(), 4u);
}

TEST(InvariantRegistry, EveryInvariantAScenarioDeclaresIsRegistered) {
  const auto all = EveryShippedScenario();
  ASSERT_GE(all.size(), 7u);  // five built-ins and the two shipped JSON examples
  for (const auto& s : all) {
    for (const std::string& id : s->invariants()) {
      EXPECT_TRUE(IsRegisteredInvariant(id)) << s->name() << " declares unregistered " << id;
    }
  }
}

TEST(InvariantRegistry, EveryRegisteredInvariantHasAStatement) {
  ASSERT_FALSE(AllInvariants().empty());
  for (const InvariantInfo& info : AllInvariants()) {
    EXPECT_FALSE(info.statement.empty()) << info.id;
  }
}

// The scenarios with several actors are found by their own lookup, never by FindScenario (whose
// callers hand scenarios to the life runner), and each says its own kind.
TEST(ScenarioRegistry, ScheduleScenariosAreListedApartAndEachSaysItsKind) {
  ASSERT_FALSE(ScheduleScenarios().empty());
  for (const auto& s : ScheduleScenarios()) {
    EXPECT_EQ(s->AsScheduleScenario(), s.get());
    EXPECT_EQ(s->AsLifeScenario(), nullptr);
    EXPECT_EQ(FindScheduleScenario(s->name()), s);
    EXPECT_EQ(FindScenario(s->name()), nullptr);
  }
  for (const auto& s : BuiltinScenarios()) {
    EXPECT_EQ(s->AsLifeScenario(), s.get());
    EXPECT_EQ(s->AsScheduleScenario(), nullptr);
    EXPECT_EQ(FindScheduleScenario(s->name()), nullptr);
  }
  EXPECT_NE(FindScheduleScenario("interactive-flow"), nullptr);
}

// AllScenarios is exactly the two typed lists: every Scenario and every ScheduleScenario appears
// in it once (the same object), names are distinct across both kinds, and nothing else is in it.
TEST(ScenarioRegistry, EveryScenarioOfEitherKindAppearsOnceInAllScenariosWithADistinctName) {
  std::set<std::string> names;
  for (const auto& s : AllScenarios()) {
    EXPECT_TRUE(names.insert(s->name()).second) << "two scenarios named " << s->name();
    EXPECT_NE(s->AsLifeScenario() == nullptr, s->AsScheduleScenario() == nullptr)
        << s->name() << " must be exactly one kind";
  }
  auto count = [](const ScenarioInfo* s) {
    return std::count_if(AllScenarios().begin(), AllScenarios().end(),
                         [&](const auto& x) { return x.get() == s; });
  };
  for (const auto& s : BuiltinScenarios()) EXPECT_EQ(count(s.get()), 1) << s->name();
  for (const auto& s : ScheduleScenarios()) EXPECT_EQ(count(s.get()), 1) << s->name();
  EXPECT_EQ(AllScenarios().size(), BuiltinScenarios().size() + ScheduleScenarios().size());
}

}  // namespace
}  // namespace stepfault::scenarios
