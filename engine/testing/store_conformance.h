// The checkpoint-store conformance suite: every test a CheckpointStore must pass, as one
// value-parameterised GoogleTest fixture that anyone can run against their own store.
//
// What it checks (engine/checkpoint_store.h is the contract): Commit returns a fresh id and
// Retrieve the exact committed bytes; Index lists a session in commit order and filters by parent;
// Latest; reopening a durable store keeps everything; bad ids ("", "../x", unknown, very long)
// give kNotFound; concurrent readers only ever see legitimate results; OnRestorationCompleted
// prunes exactly ObsoleteBeforeRestored (#7796) for full checkpoints, and never a base a kept
// incremental checkpoint needs (StoreCheckpointManager with full_every = 1, 2, 3, 5 round-trips
// every checkpoint, also after a reopen); Retrieve never deletes; the prune-on-read
// hazard visibly deletes ancestry; and a RapidCheck model-based test (rc::state) drives random
// Commit / Retrieve / Index / RestoreNotify / Reopen sequences against a std::map model.
//
// How to run it against your own store (link `stepfault_store_conformance`):
//
//   #include "engine/testing/store_conformance.h"
//   #include "mystore/my_store.h"
//
//   namespace {
//   stepfault::testing::StoreUnderTest MyStore() {
//     return {
//         .name = "MyStore",
//         // `dir` is a fresh, empty, existing directory owned by the test; reopening passes the
//         // same dir again after the previous store object was destroyed.
//         .open = [](const std::string& dir)
//             -> stepfault::Result<std::unique_ptr<stepfault::CheckpointStore>> {
//           auto store = MyStore::Open(dir + "/db");
//           if (!store.ok()) return store.status();
//           return std::unique_ptr<stepfault::CheckpointStore>(std::move(store).value());
//         },
//         .durable = true,  // false: skip the reopen-after-close checks
//         // Optional: the same store with Retrieve pruning ancestry (the #7796 hazard).
//         .open_prune_on_read = nullptr,
//     };
//   }
//   }  // namespace
//
//   INSTANTIATE_TEST_SUITE_P(Mine, StoreConformanceTest, ::testing::Values(MyStore()),
//                            stepfault::testing::StoreName);
//
// Pruning tests run only when the store also implements RestorationObserver; they are skipped
// (GTEST_SKIP) otherwise. The property test honours STEPFAULT_LONG=1 (more and longer runs).
// Thread-safety: the suite calls the store from several threads in ConcurrentReaders.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

#include "engine/checkpoint_store.h"

namespace stepfault::testing {

using StoreOpener = std::function<Result<std::unique_ptr<CheckpointStore>>(const std::string& dir)>;

struct StoreUnderTest {
  std::string name;                // a GoogleTest-safe name: letters, digits, underscores
  StoreOpener open;                // opens (or reopens) the store kept in `dir`
  bool durable = true;             // survives destruction and reopen
  StoreOpener open_prune_on_read;  // optional: the store with the prune-on-read hazard switched on
};

// Prints the store's name in GoogleTest messages.
void PrintTo(const StoreUnderTest& store, std::ostream* os);

// For INSTANTIATE_TEST_SUITE_P's name generator.
std::string StoreName(const ::testing::TestParamInfo<StoreUnderTest>& info);

class StoreConformanceTest : public ::testing::TestWithParam<StoreUnderTest> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A fresh empty directory for this test, removed afterwards.
  const std::string& dir() const { return dir_; }
  // A further fresh directory under dir(), for tests that need many stores.
  std::string NewSubdir();
  // Opens GetParam() on dir(); fails the test (ASSERT) through the returned pointer being null.
  std::unique_ptr<CheckpointStore> OpenStore(const std::string& dir);

 private:
  std::string dir_;
  int subdirs_ = 0;
};

// The test bodies live in a static library; a test binary keeps only the objects it references,
// so every file that includes this header references them through this anchor.
int LinkStoreConformanceTests();
namespace {
[[maybe_unused]] const int kStoreConformanceTestsLinked = LinkStoreConformanceTests();
}  // namespace

}  // namespace stepfault::testing

// Test bodies are in store_conformance.cc; bring the fixture name into the global namespace so
// INSTANTIATE_TEST_SUITE_P(Mine, StoreConformanceTest, ...) works without qualification.
using stepfault::testing::StoreConformanceTest;
