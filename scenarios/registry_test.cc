// Goal: one registry per kind of name. Every built-in scenario is reachable by name, every
// invariant a scenario declares (the built-ins and the shipped JSON examples) is registered in
// scenarios/invariants.h with a statement (that every one is documented in docs/invariants.md is
// tools/testing/docs_test.cc's). Method: walk the registries; the JSON examples are read from the
// source tree (STEPFAULT_SOURCE_DIR).
#include "scenarios/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

std::vector<std::shared_ptr<const Scenario>> EveryShippedScenario() {
  std::vector<std::shared_ptr<const Scenario>> all = AllScenarios();
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
// callers hand scenarios to the life runner), and names are unique across both kinds.
TEST(ScenarioRegistry, ScheduleScenariosAreListedApartAndNamesAreUniqueAcrossKinds) {
  std::set<std::string> names;
  for (const auto& s : AllScenarios()) {
    EXPECT_TRUE(names.insert(s->name()).second) << "two scenarios named " << s->name();
  }
  ASSERT_FALSE(ScheduleScenarios().empty());
  for (const auto& s : ScheduleScenarios()) {
    EXPECT_TRUE(IsScheduleScenario(*s));
    EXPECT_EQ(FindScheduleScenario(s->name()), s);
    EXPECT_EQ(FindScenario(s->name()), nullptr);
  }
  for (const auto& s : BuiltinScenarios()) {
    EXPECT_FALSE(IsScheduleScenario(*s));
    EXPECT_EQ(FindScheduleScenario(s->name()), nullptr);
  }
  EXPECT_EQ(AllScenarios().size(), BuiltinScenarios().size() + ScheduleScenarios().size());
  EXPECT_NE(FindScheduleScenario("interactive-flow"), nullptr);
}

}  // namespace
}  // namespace stepfault::scenarios
