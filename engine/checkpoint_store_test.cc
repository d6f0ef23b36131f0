// Goal: the host's fallback rule (FallBackToNewestIntact) resumes the newest checkpoint that
// resumes: a damaged one (kCorruption) is passed over for the next older, any other error stops the
// search, and with none left the last error (kNotFound for no checkpoint) is the answer.
// Method: an index of three entries and an attempt that fails as each case says, recording the
// order it was asked in.
#include "engine/checkpoint_store.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace stepfault {
namespace {

std::vector<StoreEntry> Index() {
  std::vector<StoreEntry> index(3);
  for (int i = 0; i < 3; ++i) index[i].info = CheckpointInfo{"s", "c" + std::to_string(i)};
  return index;
}

// Tries FallBackToNewestIntact with `outcome` per checkpoint id (absent: it resumes).
Result<size_t> FallBack(const std::map<std::string, Status>& outcome,
                        std::vector<std::string>* asked) {
  return FallBackToNewestIntact(Index(), [&](const StoreEntry& e) {
    asked->push_back(e.info.checkpoint_id);
    auto it = outcome.find(e.info.checkpoint_id);
    return it == outcome.end() ? Status::Ok() : it->second;
  });
}

TEST(FallBackToNewestIntactTest, ADamagedNewestFallsBackToTheNextOlderThatResumes) {
  std::vector<std::string> asked;
  Result<size_t> landed = FallBack({{"c2", Status::Corruption("bad seal")}}, &asked);
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  EXPECT_EQ(*landed, 1u);
  EXPECT_EQ(asked, (std::vector<std::string>{"c2", "c1"}));
}

TEST(FallBackToNewestIntactTest, AnErrorThatIsNotDamageStopsTheSearch) {
  std::vector<std::string> asked;
  Result<size_t> landed = FallBack({{"c2", Status::InvalidArgument("incompatible")}}, &asked);
  EXPECT_EQ(landed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(asked, (std::vector<std::string>{"c2"}));
}

TEST(FallBackToNewestIntactTest, EveryCheckpointDamagedGivesTheOldestsErrorAndNoneGivesNotFound) {
  std::vector<std::string> asked;
  Result<size_t> landed = FallBack({{"c2", Status::Corruption("a")},
                                    {"c1", Status::Corruption("b")},
                                    {"c0", Status::Corruption("c")}},
                                   &asked);
  EXPECT_EQ(landed.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(landed.status().message(), "c");
  EXPECT_EQ(asked.size(), 3u);
  Result<size_t> none = FallBackToNewestIntact({}, [](const StoreEntry&) { return Status::Ok(); });
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace stepfault
