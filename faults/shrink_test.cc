// Goal: the one shrinker loop (faults/shrink.h) goes on from what the oracle says a failing run
// really was, ends minimal only when its reducer has nothing left, and stops at its budget saying
// so; RemoveEach leaves a 1-minimal case.
#include "faults/shrink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "faults/schedule_strategies.h"

namespace stepfault::faults {
namespace {

using Ints = std::vector<int>;

bool Has(const Ints& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Fails while both 3 and 7 are in the case.
std::optional<Ints> NeedsThreeAndSeven(const Ints& c) {
  if (Has(c, 3) && Has(c, 7)) return c;
  return std::nullopt;
}

TEST(ShrinkTest, RemoveEachLeavesOnlyTheElementsTheFailureNeeds) {
  RemoveEach<Ints> each;
  Shrunk<Ints> s = Shrink<Ints>({1, 3, 5, 7, 9}, each, NeedsThreeAndSeven);
  EXPECT_EQ(s.value, (Ints{3, 7}));
  EXPECT_TRUE(s.minimal);
  // 1 goes at once, 3 passes then 5 goes, 3 and 7 pass then 9 goes, then 3 and 7 both pass.
  EXPECT_EQ(s.runs, 1 + 2 + 3 + 2);
}

TEST(ShrinkTest, GoesOnFromTheCaseTheFailingRunReallyWas) {
  RemoveEach<Ints> each;
  std::vector<Ints> tried;
  // A run that fails does only its first two elements (a replay that stops early).
  Shrunk<Ints> s = Shrink<Ints>({4, 3, 7, 8, 9}, each, [&](const Ints& c) -> std::optional<Ints> {
    tried.push_back(c);
    if (!NeedsThreeAndSeven(c)) return std::nullopt;
    return Ints(c.begin(), c.begin() + std::min<long>(2, static_cast<long>(c.size())));
  });
  // {3,7,8,9} fails and really was {3,7}; from there nothing can go.
  EXPECT_EQ(s.value, (Ints{3, 7}));
  EXPECT_TRUE(s.minimal);
  ASSERT_EQ(tried.size(), 3u);
  EXPECT_EQ(tried[1], (Ints{7})) << "the next round starts from {3, 7}, not {3, 7, 8, 9}";
}

TEST(ShrinkTest, StopsAtTheBudgetWithTheSmallestFailingCaseSoFarAndNotMinimal) {
  RemoveEach<Ints> each;
  Shrunk<Ints> s = Shrink<Ints>({1, 3, 5, 7, 9}, each, NeedsThreeAndSeven, 2);
  EXPECT_EQ(s.runs, 2);
  EXPECT_FALSE(s.minimal);
  EXPECT_EQ(s.value, (Ints{3, 5, 7, 9})) << "the first removal failed, the second passed";
}

// Records what the loop tells it, and proposes one fixed round twice.
class CountingReducer final : public Reducer<Ints> {
 public:
  std::vector<Ints> Candidates(const Ints& current) override {
    if (rounds_++ >= 2) return {};
    return {Ints(current.begin() + 1, current.end())};
  }
  void Reduced(bool reduced) override { told.push_back(reduced); }
  std::vector<bool> told;

 private:
  int rounds_ = 0;
};

TEST(ShrinkTest, TellsTheReducerWhetherEachRoundReduced) {
  CountingReducer r;
  Shrunk<Ints> s = Shrink<Ints>({1, 3, 7}, r, NeedsThreeAndSeven);
  EXPECT_EQ(r.told, (std::vector<bool>{true, false})) << "{3,7} fails, then {7} does not";
  EXPECT_EQ(s.value, (Ints{3, 7}));
  EXPECT_TRUE(s.minimal);
}

// The switch shrinker on this loop: a budget spent in its merge round is not minimal (before the
// one loop, ShrinkSwitches said minimal when the budget ran out among its merges).
TEST(ShrinkTest, SwitchShrinkSpentInItsMergeRoundIsNotMinimal) {
  const std::vector<SwitchPoint> start = {{1, 1}, {3, 0}};
  int calls = 0;
  // Two complements, then the one merge; the window of both is never tried.
  SwitchShrink s = ShrinkSwitches(
      start,
      [&](const std::vector<SwitchPoint>&) -> std::optional<std::vector<SwitchPoint>> {
        ++calls;
        return std::nullopt;
      },
      3);
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(s.minimal);
  EXPECT_EQ(s.switches, start);
}

}  // namespace
}  // namespace stepfault::faults
