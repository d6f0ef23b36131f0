// Goal: the harness proves its power: every known bug, switched on as a mutant, is killed by an
// invariant it is expected to break, with a plan of at most two faults. Method: run the mutant hunt
// over the built-in scenarios and require every mutant killed.
#include "properties/mutants.h"

#include <gtest/gtest.h>

#include <map>

#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

TEST(MutantsTest, EveryMutantIsKilledWithAPlanOfAtMostTwoFaults) {
  ExploreOptions o;
  auto results = RunMutants(o, {}, nullptr);
  ASSERT_EQ(results.size(), AllMutants().size());
  for (const auto& r : results) {
    EXPECT_TRUE(r.killed) << r.name << " survived";
    if (!r.killed) continue;
    EXPECT_LE(std::count(r.plan.begin(), r.plan.end(), '@'), 2) << r.name << ": " << r.plan;
    // Killed by an invariant that states what the mutant breaks, not by any violation.
    EXPECT_EQ(r.verdict, "killed-as-expected") << r.name << ": " << r.invariant << " " << r.plan;
    std::printf("%-45s killed by %-13s in %-17s plan %s\n", r.name.c_str(), r.invariant.c_str(),
                r.scenario.c_str(), r.plan.c_str());
  }
}

}  // namespace
}  // namespace stepfault::properties

namespace stepfault::properties {
namespace {
// Every mutant says which registered invariants are expected to kill it (the verdict
// killed-as-expected depends on it), and a host mistake that several scenarios reproduce is
// expected to break the same invariants in each of them.
TEST(MutantsTest, EveryMutantNamesRegisteredInvariantsExpectedToKillIt) {
  for (const Mutant& m : AllMutants()) {
    EXPECT_FALSE(m.expected.empty()) << m.name << " names no expected invariant";
    for (const std::string& id : m.expected)
      EXPECT_TRUE(scenarios::IsRegisteredInvariant(id)) << m.name << ": " << id;
  }
  std::map<std::string, std::vector<std::string>> declared;
  for (const auto& scenario : scenarios::AllScenarios()) {
    for (const scenarios::HostHazard& h : scenario->host_hazards()) {
      auto [it, first] = declared.emplace(h.name, h.expected);
      EXPECT_TRUE(first || it->second == h.expected)
          << "host:" << h.name << " expects other invariants in " << scenario->name();
    }
  }
}

// The replay command of a mutant's kill must switch the same mutant on again.
TEST(MutantsTest, ActiveHazardNamesNameExactlyTheMutantThatIsOn) {
  for (const Mutant& m : AllMutants()) {
    if (!m.crash_model_hazard.empty()) continue;  // no run config carries it (below)
    RunConfig config;
    m.apply(&config);
    EXPECT_EQ(ActiveHazardNames(config), std::vector<std::string>{m.name});
  }
  EXPECT_TRUE(ActiveHazardNames(RunConfig{}).empty());
}

// The black-box crash model's mutants are its builder's hazards, one each, hunted by the
// crash-state catalogue: killed by INV-BB-MODEL, the plan the entry that disagrees first, the
// replay the conformance command with that hazard and entry. No run config carries them.
TEST(MutantsTest, CrashModelMutantsAreKilledByTheCatalogueWithTheirReplayCommand) {
  std::vector<std::string> names;
  for (const Mutant& m : AllMutants()) {
    if (m.crash_model_hazard.empty()) continue;
    EXPECT_EQ(m.name, "blackbox:" + m.crash_model_hazard);
    EXPECT_FALSE(m.apply) << m.name;
    EXPECT_EQ(m.expected, std::vector<std::string>{"INV-BB-MODEL"}) << m.name;
    names.push_back(m.name);
  }
  ASSERT_EQ(names, (std::vector<std::string>{"blackbox:rename-durable-without-dir-fsync",
                                             "blackbox:unlink-durable-without-dir-fsync",
                                             "blackbox:create-durable-without-dir-fsync"}));
  auto results = RunMutants(ExploreOptions{}, names, nullptr);
  ASSERT_EQ(results.size(), names.size());
  for (size_t i = 0; i < results.size(); ++i) {
    const reports::MutantResult& r = results[i];
    EXPECT_EQ(r.verdict, "killed-as-expected") << r.name;
    EXPECT_EQ(r.invariant, "INV-BB-MODEL") << r.name;
    EXPECT_EQ(r.scenario, "crash-catalogue") << r.name;
    EXPECT_FALSE(r.plan.empty()) << r.name;
    EXPECT_EQ(r.replay, "stepfault blackbox conformance --hazard " +
                            names[i].substr(std::string("blackbox:").size()) + " --entry " +
                            r.plan);
    std::printf("%-45s killed by %s at entry %s\n", r.name.c_str(), r.invariant.c_str(),
                r.plan.c_str());
  }
}

// The refinement is killed by its own bug: the mutant switches on non-bijective matching alone
// (not EdgeId-blind matching), and the kill is a plan blind matching alone does not break, the
// duplicate-edge mutation ({s->X, s->Y} rebuilt as {s->X, s->X}).
TEST(MutantsTest, NonBijectiveMatchingIsKilledOnItsOwnByTheDuplicateEdgeMutation) {
  const Mutant* m = nullptr;
  for (const Mutant& x : AllMutants()) m = x.name == "engine:non-bijective-edge-matching" ? &x : m;
  ASSERT_NE(m, nullptr);
  RunConfig config;
  m->apply(&config);
  EXPECT_FALSE(config.profile.edge_id_blind_matching);
  EXPECT_EQ(m->refines, "engine:edge-id-blind-matching");
  ExploreOptions o;
  auto results = RunMutants(o, {m->name}, nullptr);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].verdict, "killed-as-expected") << results[0].plan;
  EXPECT_NE(results[0].plan.find("topology:duplicate-edge"), std::string::npos) << results[0].plan;
}
}  // namespace
}  // namespace stepfault::properties
