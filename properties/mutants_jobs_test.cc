// Goal: `mutants --jobs N` hunts in N worker processes and finds exactly what one process finds,
// in the same order (issue 16, item 15: --jobs 2 used one core). Method: hunt two mutants with
// jobs 1 and jobs 2 and compare the results field by field.
#include <gtest/gtest.h>

#include "properties/mutants.h"

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

}  // namespace
}  // namespace stepfault::properties
