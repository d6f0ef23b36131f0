// Goal: the harness proves its power: every known bug, switched on as a mutant, is killed by some
// invariant with a plan of at most two faults. Method: run the mutant hunt over the built-in
// scenarios and require every mutant killed.
#include "properties/mutants.h"

#include <gtest/gtest.h>

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
    std::printf("%-45s killed by %-13s in %-17s plan %s\n", r.name.c_str(), r.invariant.c_str(),
                r.scenario.c_str(), r.plan.c_str());
  }
}

}  // namespace
}  // namespace stepfault::properties

namespace stepfault::properties {
namespace {
// The replay command of a mutant's kill must switch the same mutant on again.
TEST(MutantsTest, ActiveHazardNamesNameExactlyTheMutantThatIsOn) {
  for (const Mutant& m : AllMutants()) {
    RunConfig config;
    m.apply(&config);
    EXPECT_EQ(ActiveHazardNames(config), std::vector<std::string>{m.name});
  }
  EXPECT_TRUE(ActiveHazardNames(RunConfig{}).empty());
}
}  // namespace
}  // namespace stepfault::properties
