// Goal: ProbedEnv reports the same fs points, with the same roles, as the simulated file system,
// and obeys the hook's decisions on the real disk.
// Method: run WriteFileAtomically and single operations through ProbedEnv over PosixEnv in a fresh
// temporary directory, with an Injector recording the windows or injecting the fault.
#include "faults/probed_env.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "faults/injector.h"
#include "tools/testing/test_env.h"

namespace stepfault::faults {
namespace {

class ProbedEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_env::ScratchDir("probed-env"); }
  void TearDown() override {
    auto children = PosixEnv()->GetChildren(dir_);
    if (children.ok()) {
      for (const std::string& name : *children) (void)PosixEnv()->RemoveFile(JoinPath(dir_, name));
    }
    ::rmdir(dir_.c_str());
  }
  std::vector<std::string> Points(const Injector& injector) {
    std::vector<std::string> out;
    for (const Window& w : injector.hits()) out.push_back(w.point);
    return out;
  }
  std::string dir_;
};

TEST_F(ProbedEnvTest, AtomicWriteReportsCreateWriteFsyncRenameDirsync) {
  Injector recorder;
  ProbedEnv env(PosixEnv(), &recorder);
  ASSERT_TRUE(WriteFileAtomically(&env, dir_, "waiting.json", "{}").ok());
  EXPECT_THAT(Points(recorder),
              ::testing::ElementsAre("fs.create[receipt]", "fs.write[receipt]", "fs.fsync[receipt]",
                                     "fs.rename[receipt]", "fs.dirsync[file]"));
  EXPECT_EQ(*PosixEnv()->ReadFile(JoinPath(dir_, "waiting.json")), "{}");
}

TEST_F(ProbedEnvTest, RolesComeFromTheClassifier) {
  Injector recorder;
  ProbedEnv env(PosixEnv(), &recorder, [](const std::string& path) {
    return BaseName(path) == BaseName(path.substr(0, path.rfind('/'))) ? "dir" : "mine";
  });
  ASSERT_TRUE(WriteFileAtomically(&env, dir_, "x", "1").ok());
  EXPECT_THAT(Points(recorder),
              ::testing::ElementsAre("fs.create[mine]", "fs.write[mine]", "fs.fsync[mine]",
                                     "fs.rename[mine]", "fs.dirsync[mine]"));
}

TEST_F(ProbedEnvTest, TruncateAppendAndUnlinkPoints) {
  Injector recorder;
  ProbedEnv env(PosixEnv(), &recorder);
  const std::string db = JoinPath(dir_, "business.db");
  {
    auto f = env.NewWritableFile(db);  // new: fs.create
    ASSERT_TRUE(f.ok());
  }
  {
    auto f = env.NewWritableFile(db);  // existing but empty: no point
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Append("abc").ok());
    ASSERT_TRUE((*f)->Close().ok());
  }
  { ASSERT_TRUE(env.NewWritableFile(db).ok()); }    // existing non-empty: fs.truncate
  { ASSERT_TRUE(env.NewAppendableFile(db).ok()); }  // existing: no point
  { ASSERT_TRUE(env.NewAppendableFile(JoinPath(dir_, "index.jsonl")).ok()); }  // new: fs.create
  ASSERT_TRUE(env.RemoveFile(db).ok());
  EXPECT_THAT(Points(recorder),
              ::testing::ElementsAre("fs.create[db]", "fs.write[db]", "fs.truncate[db]",
                                     "fs.create[index]", "fs.unlink[db]"));
}

TEST_F(ProbedEnvTest, FailedRenameLeavesTheOldFileIntact) {
  ASSERT_TRUE(WriteFileAtomically(PosixEnv(), dir_, "waiting.json", "old").ok());
  Injector injector(*Fault::Parse("ioerror:ENOSPC@fs.rename[receipt]#1"));
  ProbedEnv env(PosixEnv(), &injector);
  Status s = WriteFileAtomically(&env, dir_, "waiting.json", "new");
  EXPECT_EQ(s.code(), StatusCode::kNoSpace);
  EXPECT_TRUE(s.injected());
  EXPECT_EQ(s.message(), "injected ENOSPC at fs.rename[receipt]");
  EXPECT_EQ(*PosixEnv()->ReadFile(JoinPath(dir_, "waiting.json")), "old");
  EXPECT_EQ(*PosixEnv()->ReadFile(JoinPath(dir_, "waiting.json.tmp")), "new");
}

TEST_F(ProbedEnvTest, FailedWriteDoesNotWrite) {
  Injector injector(*Fault::Parse("ioerror@fs.write#1"));
  ProbedEnv env(PosixEnv(), &injector);
  auto f = env.NewWritableFile(JoinPath(dir_, "a"));
  ASSERT_TRUE(f.ok());
  Status s = (*f)->Append("data");
  EXPECT_EQ(s.code(), StatusCode::kIOError);
  EXPECT_EQ(s.message(), "injected EIO at fs.write[file]");
  ASSERT_TRUE((*f)->Close().ok());
  EXPECT_EQ(*PosixEnv()->GetFileSize(JoinPath(dir_, "a")), 0u);
}

TEST_F(ProbedEnvTest, DeathThrowsCrashSignalBeforeTheOperation) {
  Injector injector(*Fault::Parse("powerloss@fs.rename#1"));
  ProbedEnv env(PosixEnv(), &injector);
  try {
    (void)WriteFileAtomically(&env, dir_, "index.jsonl", "x");
    FAIL() << "no crash";
  } catch (const CrashSignal& signal) {
    EXPECT_EQ(signal.kind, DeathKind::kPowerLoss);
    EXPECT_EQ(signal.point, "fs.rename[index]");
  }
  EXPECT_FALSE(*PosixEnv()->FileExists(JoinPath(dir_, "index.jsonl")));
}

}  // namespace
}  // namespace stepfault::faults
