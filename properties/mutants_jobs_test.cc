// Goal: `mutants --jobs N` hunts in N worker processes and finds exactly what one process finds,
// in the same order (issue 16, item 15: --jobs 2 used one core). Method: hunt two mutants with
// jobs 1 and jobs 2 and compare the results field by field. A worker that dies hunting a mutant
// is that mutant's harness failure, and the hunt goes on: a mutant whose switch aborts, hunted
// beside a real one.
#include <gtest/gtest.h>

#include <cstdlib>

#include "properties/mutants.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

TEST(MutantsJobsTest, TwoWorkerProcessesFindWhatOneProcessFinds) {
  const std::vector<std::string> only = {AllMutants()[0].name, AllMutants().back().name};
  ExploreOptions serial;
  serial.jobs = 1;
  ExploreOptions parallel;
  parallel.jobs = 2;
  std::vector<int64_t> seen;
  const auto one = RunMutants(serial, only, nullptr);
  const auto two = RunMutants(parallel, only, [&](int64_t done, int64_t) { seen.push_back(done); });
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one, two);
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2}));
}

TEST(MutantsJobsTest, AWorkerThatDiesHuntingAMutantIsThatMutantsHarnessFailure) {
  Mutant aborts{"test:aborts",
                "switching it on aborts the process",
                [](RunConfig*) { std::abort(); },
                {scenarios::kInvTopology}};
  const Mutant* real = nullptr;
  for (const Mutant& m : AllMutants())
    if (!m.crash_model_hazard.empty()) real = &m;  // hunted on the catalogue: quick
  ASSERT_NE(real, nullptr);
  ExploreOptions parallel;
  parallel.jobs = 2;
  const auto results = HuntMutants({&aborts, real}, parallel, nullptr);
  ASSERT_EQ(results.size(), 2u);
  const reports::MutantResult& failed = results[0];
  EXPECT_EQ(failed.name, "test:aborts");
  EXPECT_FALSE(failed.killed);
  EXPECT_EQ(failed.verdict, "harness-failed");
  EXPECT_EQ(failed.invariant, scenarios::kInvHarness);
  EXPECT_EQ(failed.message,
            "the worker hunting mutant 'test:aborts' died of signal 6 (Aborted) (an abort, "
            "SF_CHECK or signal)");
  EXPECT_EQ(failed.replay, "stepfault mutants --only test:aborts --out mutant-replay");
  EXPECT_EQ(failed.expected, aborts.expected);
  // The other mutant was hunted as usual.
  EXPECT_EQ(results[1].name, real->name);
  EXPECT_EQ(results[1].verdict, "killed-as-expected");
}

}  // namespace
}  // namespace stepfault::properties
