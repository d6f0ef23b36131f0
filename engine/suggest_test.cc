// Goal: the "did you mean" suggestion finds a typo's intended name and stays quiet for a different
// word. Method: distances of known pairs, then suggestions over a real list of names.
#include "engine/suggest.h"

#include <gtest/gtest.h>

namespace stepfault {
namespace {

TEST(SuggestTest, EditDistanceCountsInsertionsDeletionsAndSubstitutions) {
  EXPECT_EQ(EditDistance("width", "widht"), 2u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("same", "same"), 0u);
}

TEST(SuggestTest, SuggestsTheNearTypoAndNothingForAnUnrelatedWord) {
  const std::vector<std::string> names = {"width", "payload_bytes"};
  EXPECT_EQ(ClosestName("widht", names), "width");
  EXPECT_EQ(ClosestName("payload_byte", names), "payload_bytes");
  EXPECT_EQ(ClosestName("colour", names), "");
  EXPECT_EQ(DidYouMean("effect.commit.afterr", {"effect.commit.after", "effect.commit.before"}),
            " (did you mean 'effect.commit.after'?)");
}

}  // namespace
}  // namespace stepfault
