// FailingEnv, and the file checkpoint store under injected I/O errors.
// Goal: the injector fires exactly where armed; a commit failing at any write, fsync, rename,
// directory fsync or create returns the injected error and leaves the store (and a reopened store)
// with every earlier checkpoint intact and nothing half-written listed; an interrupted prune leaves
// a consistent store that a second prune finishes.
// Method: walk N = 1, 2, ... for each operation kind until the rule no longer fires (SQLite's
// fault-simulation loop), on real directories.
#include "faults/failing_env.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "engine/stores/file_store.h"
#include "tools/testing/test_env.h"

namespace stepfault::faults {
namespace {

namespace fs = std::filesystem;

std::string Doc(int n) { return nlohmann::json{{"n", n}}.dump(); }

class FailingEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { root_ = test_env::ScratchDir("failing-env"); }
  void TearDown() override { fs::remove_all(root_); }
  std::string Path(const std::string& name) const { return (root_ / name).string(); }

  fs::path root_;
};

TEST_F(FailingEnvTest, TransientRuleFailsOnlyTheNthCall) {
  FailingEnv env(PosixEnv());
  env.Arm({.op = IoOp::kRename, .nth = 2});
  auto file = env.NewWritableFile(Path("a"));
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_TRUE(env.RenameFile(Path("a"), Path("b")).ok());
  Status second = env.RenameFile(Path("b"), Path("c"));
  EXPECT_EQ(second.code(), StatusCode::kIOError);
  EXPECT_TRUE(second.injected());
  EXPECT_NE(second.message().find("rename#2:EIO"), std::string::npos) << second.message();
  EXPECT_TRUE(fs::exists(Path("b"))) << "a failed rename does nothing";
  EXPECT_TRUE(env.RenameFile(Path("b"), Path("c")).ok());
  EXPECT_EQ(env.Calls(IoOp::kRename), 3u);
  EXPECT_EQ(env.InjectedCount(), 1u);
}

TEST_F(FailingEnvTest, PersistentRuleFailsEveryLaterCallWithEnospc) {
  FailingEnv env(PosixEnv());
  auto file = env.NewWritableFile(Path("f"));
  ASSERT_TRUE(file.ok());
  env.Arm({.op = IoOp::kWrite, .nth = 2, .error = IoError::kEnospc, .persistent = true});
  EXPECT_TRUE((*file)->Append("one").ok());
  for (int i = 0; i < 3; ++i) {
    Status s = (*file)->Append("more");
    EXPECT_EQ(s.code(), StatusCode::kNoSpace);
    EXPECT_TRUE(s.injected());
  }
  EXPECT_TRUE((*file)->Sync().ok()) << "other kinds are not affected";
  ASSERT_TRUE((*file)->Close().ok());
  EXPECT_EQ(fs::file_size(Path("f")), 3u);
  env.DisarmAll();
  EXPECT_TRUE(env.SyncDir(root_.string()).ok());
  EXPECT_EQ(env.InjectedCount(), 3u);
}

TEST_F(FailingEnvTest, EachKindIsCountedSeparately) {
  FailingEnv env(PosixEnv());
  for (IoOp op : {IoOp::kCreate, IoOp::kUnlink, IoOp::kDirSync, IoOp::kSync}) {
    env.Arm({.op = op, .nth = 1});
  }
  EXPECT_TRUE(env.NewAppendableFile(Path("x")).status().injected());
  EXPECT_TRUE(env.RemoveFile(Path("x")).injected());
  EXPECT_TRUE(env.SyncDir(root_.string()).injected());
  EXPECT_EQ(env.Calls(IoOp::kSync), 0u);
  EXPECT_EQ(env.Calls(IoOp::kRename), 0u);
  EXPECT_EQ(
      (IoFailureRule{.op = IoOp::kDirSync, .nth = 3, .error = IoError::kEnospc, .persistent = true})
          .ToString(),
      "dirsync#3:ENOSPC+persistent");
}

// The heart of the store's durability claim under I/O errors.
TEST_F(FailingEnvTest,
       FileStoreCommitFailingAtAnyIoCallKeepsEarlierCheckpointsAndListsNoHalfWrite) {
  constexpr uint64_t kCallsPerCommitMax = 8;
  int fired = 0;
  for (IoOp op : {IoOp::kCreate, IoOp::kWrite, IoOp::kSync, IoOp::kRename, IoOp::kDirSync}) {
    for (bool persistent : {false, true}) {
      for (uint64_t nth = 1;; ++nth) {
        ASSERT_LE(nth, kCallsPerCommitMax) << "a commit makes more calls than expected";
        const IoFailureRule rule{.op = op,
                                 .nth = nth,
                                 .error = nth % 2 ? IoError::kEio : IoError::kEnospc,
                                 .persistent = persistent};
        SCOPED_TRACE(rule.ToString());
        const std::string dir = Path("store-" + rule.ToString());
        FailingEnv env(PosixEnv());
        std::vector<CheckpointInfo> good;
        bool commit_failed = false;
        {
          auto store = FileCheckpointStore::Open(&env, dir, {});
          ASSERT_TRUE(store.ok()) << store.status().ToString();
          for (int i = 0; i < 3; ++i) {
            auto info = (*store)->Commit("s", Doc(i),
                                         good.empty() ? std::nullopt : std::optional(good.back()));
            ASSERT_TRUE(info.ok());
            good.push_back(*info);
          }
          env.Arm(rule);
          auto doomed = (*store)->Commit("s", Doc(99), good.back());
          commit_failed = !doomed.ok();
          if (commit_failed) {
            EXPECT_TRUE(doomed.status().injected()) << doomed.status().ToString();
            auto index = (*store)->Index("s");
            ASSERT_TRUE(index.ok());
            EXPECT_EQ(index->size(), good.size()) << "a failed commit is not listed";
          } else {
            EXPECT_EQ(env.InjectedCount(), 0u) << "a fired rule must fail the commit";
          }
          env.DisarmAll();
        }
        if (!commit_failed) break;  // nth is past the last call of this kind
        ++fired;
        auto reopened = FileCheckpointStore::Open(PosixEnv(), dir, {});
        ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
        auto index = (*reopened)->Index("s");
        ASSERT_TRUE(index.ok());
        ASSERT_EQ(index->size(), good.size()) << "the reopened store lists a half-written commit";
        for (size_t i = 0; i < good.size(); ++i) {
          EXPECT_EQ((*index)[i].info, good[i]);
          auto bytes = (*reopened)->Retrieve(good[i]);
          ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
          EXPECT_EQ(*bytes, Doc(static_cast<int>(i)));
        }
        EXPECT_TRUE((*reopened)->damaged_files().empty());
        for (const auto& e : fs::directory_iterator(dir)) {
          EXPECT_NE(e.path().extension(), ".tmp") << "temp left after reopen";
        }
        EXPECT_TRUE((*reopened)->Commit("s", Doc(5), good.back()).ok());
      }
    }
  }
  EXPECT_GE(fired, 10) << "the walk must actually hit every kind of call";
}

// The upstream hazard, reproduced on purpose: the index line lands before the checkpoint file, so
// a failure creating that file leaves a listed checkpoint that cannot be read.
TEST_F(FailingEnvTest, InPlaceHazardFailedCommitLeavesAListedButMissingCheckpoint) {
  const std::string dir = Path("hazard");
  FailingEnv env(PosixEnv());
  CheckpointInfo good;
  {
    auto store = FileCheckpointStore::Open(&env, dir, {.hazard_in_place_write = true});
    ASSERT_TRUE(store.ok());
    good = (*store)->Commit("s", Doc(0), std::nullopt).value();
    env.Arm({.op = IoOp::kCreate, .nth = 1});
    EXPECT_TRUE((*store)->Commit("s", Doc(1), good).status().injected());
  }
  auto reopened = FileCheckpointStore::Open(PosixEnv(), dir, {.hazard_in_place_write = true});
  ASSERT_TRUE(reopened.ok());
  auto index = (*reopened)->Index("s");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->size(), 2u) << "upstream lists the failed commit after reopen";
  EXPECT_EQ((*reopened)->Retrieve((*index)[1].info).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*reopened)->Retrieve(good).value(), Doc(0));
}

TEST_F(FailingEnvTest, PruneInterruptedByUnlinkFailureLeavesAConsistentStoreAndRetryFinishes) {
  const std::string dir = Path("prune");
  FailingEnv env(PosixEnv());
  std::vector<CheckpointInfo> chain;
  auto store = FileCheckpointStore::Open(&env, dir, {});
  ASSERT_TRUE(store.ok());
  for (int i = 0; i < 5; ++i) {
    chain.push_back(
        (*store)
            ->Commit("s", Doc(i), chain.empty() ? std::nullopt : std::optional(chain.back()))
            .value());
  }
  env.Arm({.op = IoOp::kUnlink, .nth = 2, .persistent = true});
  Status pruned = (*store)->OnRestorationCompleted(chain[4]);
  EXPECT_TRUE(pruned.injected()) << pruned.ToString();
  auto check_consistent = [&](FileCheckpointStore& s, size_t expected_size) {
    auto index = s.Index("s");
    ASSERT_TRUE(index.ok());
    EXPECT_EQ(index->size(), expected_size);
    for (const StoreEntry& e : *index) EXPECT_TRUE(s.Retrieve(e.info).ok()) << e.info.ToString();
    EXPECT_EQ(index->back().info, chain[4]);
  };
  check_consistent(**store, 4);  // the oldest went first; the rest wait for the retry
  env.DisarmAll();
  store = Status::Cancelled("closed");
  auto reopened = FileCheckpointStore::Open(&env, dir, {});
  ASSERT_TRUE(reopened.ok());
  check_consistent(**reopened, 4);
  ASSERT_TRUE((*reopened)->OnRestorationCompleted(chain[4]).ok());
  check_consistent(**reopened, 1);
}

TEST_F(FailingEnvTest, InPlaceHazardPruneFailingToRewriteTheIndexKeepsEverythingAndCommitsGoOn) {
  const std::string dir = Path("hazard-prune");
  const FileStoreOptions hazard{.hazard_in_place_write = true};
  FailingEnv env(PosixEnv());
  std::vector<CheckpointInfo> chain;
  {
    auto store = FileCheckpointStore::Open(&env, dir, hazard);
    ASSERT_TRUE(store.ok());
    for (int i = 0; i < 3; ++i) {
      chain.push_back(
          (*store)
              ->Commit("s", Doc(i), chain.empty() ? std::nullopt : std::optional(chain.back()))
              .value());
    }
    env.Arm({.op = IoOp::kRename, .nth = 1});
    EXPECT_TRUE((*store)->OnRestorationCompleted(chain[2]).injected());
    EXPECT_EQ((*store)->Index("s")->size(), 3u)
        << "nothing is deleted before the index is rewritten";
    chain.push_back((*store)->Commit("s", Doc(3), chain.back()).value());
  }
  auto reopened = FileCheckpointStore::Open(PosixEnv(), dir, hazard);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  auto index = (*reopened)->Index("s");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->size(), 4u);
  for (size_t i = 0; i < chain.size(); ++i) {
    EXPECT_EQ((*reopened)->Retrieve(chain[i]).value(), Doc(static_cast<int>(i)));
  }
}

}  // namespace
}  // namespace stepfault::faults
