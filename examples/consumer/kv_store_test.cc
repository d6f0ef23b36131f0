// Goal: KvStore keeps the checkpoint-store contract (Stepfault's conformance suite) and its
// durability promise at every crash and power-loss window (Stepfault's crash properties).
// Method: instantiate the suite with KvStore on the real file system, and run the crash properties
// with KvStore on Stepfault's simulated file system.
#include "kv_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/testing/store_conformance.h"
#include "faults/testing/store_crash_properties.h"

namespace {

stepfault::Result<std::unique_ptr<stepfault::CheckpointStore>> OpenKv(stepfault::Env* env,
                                                                      const std::string& dir) {
  auto store = kvstore::KvStore::Open(env, dir);
  if (!store.ok()) return store.status();
  return std::unique_ptr<stepfault::CheckpointStore>(std::move(store).value());
}

stepfault::testing::StoreUnderTest KvOnDisk() {
  return {.name = "KvStore",
          .open = [](const std::string& dir) { return OpenKv(stepfault::PosixEnv(), dir); },
          .durable = true,
          .open_prune_on_read = nullptr};
}

using stepfault::testing::StoreConformanceTest;
INSTANTIATE_TEST_SUITE_P(Consumer, StoreConformanceTest, ::testing::Values(KvOnDisk()),
                         stepfault::testing::StoreName);

TEST(KvStoreCrash, EveryCommittedCheckpointSurvivesEveryCrashAndPowerLossWindow) {
  const auto result = stepfault::testing::CheckStoreCrashProperties(OpenKv);
  EXPECT_THAT(result.failures, ::testing::IsEmpty());
  EXPECT_GT(result.windows, 10);
  EXPECT_EQ(result.states_checked, 2 * result.windows);
}

}  // namespace
