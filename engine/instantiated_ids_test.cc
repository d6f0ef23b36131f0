#include "engine/instantiated_ids.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace stepfault {
namespace {

using Ids = std::vector<std::string>;

TEST(InstantiatedIdsTest, ALooseListIsKeptSortedAndUnique) {
  InstantiatedIds ids(Ids{"c", "a", "c", "b"});
  EXPECT_EQ(ids.Sorted(), (Ids{"a", "b", "c"}));
  EXPECT_EQ(ids.size(), 3U);
  EXPECT_TRUE(ids.Contains("b"));
  EXPECT_FALSE(ids.Contains("d"));
  EXPECT_TRUE(InstantiatedIds().empty());
  EXPECT_TRUE(InstantiatedIds(Ids{}).empty());
}

// What a checkpoint took never changes: an id added after it goes in a new layer over the
// shared one, and the older version still lists only what it had.
TEST(InstantiatedIdsTest, AnIdAddedAfterACopyIsNotSeenThroughTheCopy) {
  InstantiatedIds run(Ids{"b"});
  run.Add("a");  // sole owner: in place
  const InstantiatedIds checkpoint = run;
  EXPECT_TRUE(checkpoint.SharesWith(run));
  run.Add("c");
  run.Add("0");  // the new top layer is the run's alone: in place again
  EXPECT_FALSE(checkpoint.SharesWith(run));
  EXPECT_EQ(checkpoint.Sorted(), (Ids{"a", "b"}));
  EXPECT_EQ(run.Sorted(), (Ids{"0", "a", "b", "c"}));
  EXPECT_EQ(run.size(), 4U);
  EXPECT_TRUE(run.Contains("a"));
  EXPECT_FALSE(checkpoint.Contains("c"));
}

TEST(InstantiatedIdsTest, AddedSinceAnOlderVersionIsWhatWasAddedAfterIt) {
  InstantiatedIds run(Ids{"m"});
  const InstantiatedIds first = run;
  run.Add("z");
  const InstantiatedIds second = run;
  run.Add("a");
  run.Add("k");
  EXPECT_EQ(run.AddedSince(first), (Ids{"a", "k", "z"}));
  EXPECT_EQ(run.AddedSince(second), (Ids{"a", "k"}));
  EXPECT_EQ(run.AddedSince(run), Ids{});
  EXPECT_EQ(run.AddedSince(InstantiatedIds()), (Ids{"a", "k", "m", "z"}));
}

// Versions that share no layer (a restored run against a decoded base) are compared as sets: the
// ids added, or nullopt when the base holds one the newer set lacks.
TEST(InstantiatedIdsTest, AddedSinceAnUnrelatedSetComparesTheSets) {
  const InstantiatedIds base(Ids{"a", "c"});
  EXPECT_EQ(InstantiatedIds(Ids{"a", "b", "c", "d"}).AddedSince(base), (Ids{"b", "d"}));
  EXPECT_EQ(InstantiatedIds(Ids{"a", "c"}).AddedSince(base), Ids{});
  EXPECT_EQ(InstantiatedIds(Ids{"a", "b"}).AddedSince(base), std::nullopt);
  EXPECT_EQ(InstantiatedIds().AddedSince(base), std::nullopt);
  // Same size as a layer of the newer set but not that layer: still compared, not trusted.
  InstantiatedIds grown(Ids{"x"});
  grown.Add("y");
  EXPECT_EQ(grown.AddedSince(InstantiatedIds(Ids{"x", "y"})), Ids{});
  EXPECT_EQ(grown.AddedSince(InstantiatedIds(Ids{"x", "z"})), std::nullopt);
}

TEST(InstantiatedIdsTest, ExtendAddsOnlyTheMissingIdsAndSharesTheBase) {
  const InstantiatedIds base(Ids{"a", "c"});
  const InstantiatedIds same = InstantiatedIds::Extend(base, Ids{"c"});
  EXPECT_TRUE(same.SharesWith(base)) << "nothing new: the base itself";
  const InstantiatedIds more = InstantiatedIds::Extend(base, Ids{"d", "a", "b"});
  EXPECT_EQ(more.Sorted(), (Ids{"a", "b", "c", "d"}));
  EXPECT_EQ(more.size(), 4U);
  EXPECT_EQ(more.AddedSince(base), (Ids{"b", "d"})) << "base is an older version of it";
  EXPECT_EQ(base.Sorted(), (Ids{"a", "c"}));
  EXPECT_EQ(InstantiatedIds::Extend(InstantiatedIds(), Ids{"q"}).Sorted(), Ids{"q"});
}

TEST(InstantiatedIdsTest, EqualityIsBySetNotByVersion) {
  InstantiatedIds grown(Ids{"b"});
  const InstantiatedIds old = grown;
  grown.Add("a");
  EXPECT_EQ(grown, InstantiatedIds(Ids{"a", "b"}));
  EXPECT_FALSE(grown == old);
  EXPECT_EQ(InstantiatedIds(), InstantiatedIds(Ids{}));
}

// A run of N steps that each instantiate one executor and checkpoint leaves N layers; dropping
// them must not recurse once per layer (300,000 nested destructors overflow an 8 MiB stack).
TEST(InstantiatedIdsTest, AStackOfManyLayersIsReleasedWithoutDeepRecursion) {
  constexpr int kLayers = 300'000;
  std::vector<InstantiatedIds> kept;
  {
    InstantiatedIds run;
    InstantiatedIds checkpoint;
    for (int i = 0; i < kLayers; ++i) {
      run.Add(std::to_string(i));
      checkpoint = run;  // shares the top: the next Add pushes a new layer
    }
    EXPECT_EQ(run.size(), static_cast<size_t>(kLayers));
    EXPECT_EQ(run.AddedSince(checkpoint), Ids{});
    kept.push_back(run);
  }
  EXPECT_EQ(kept.front().size(), static_cast<size_t>(kLayers));
  kept.clear();  // the last owner of the whole stack
  SUCCEED();
}

}  // namespace
}  // namespace stepfault
