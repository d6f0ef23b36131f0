// Goal: the interactive-flow participant runs on the real engine and its checkpoints live in the
// flow's runtime state store as the engine's own bytes: a start leaves one row per super-step
// keyed by (run, runtime type, state id) with parent links, the bytes decode with the engine's
// codec and hold the pending request the start reported, a resume from a named state answers
// that request and chains new rows to it, a rolled-back transaction leaves no row, and a resume
// from a state that does not exist fails. Method: one FlowDb on a simulated file system, the
// adapter driven directly, the RuntimeState table read back with SQL and ResolveCheckpoint (the
// rows hold the engine's incremental checkpoints: deltas chained to a full snapshot).
#include "scenarios/interactive_flow/flow_runtime.h"

#include <gtest/gtest.h>

#include "engine/checkpoint.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"

namespace stepfault::scenarios::flow {
namespace {

class FlowRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.SetRoleClassifier(faults::SqliteRoleOf);
    ASSERT_TRUE(fs_.CreateDirIfMissing("/flow").ok());
    ASSERT_TRUE(faults::RegisterSimVfs("flow-runtime-test", &fs_, 1).ok());
    db_ = std::make_unique<FlowDb>("/flow/flow.db", "flow-runtime-test");
    CreateFlowDatabase(*db_);
  }
  void TearDown() override {
    db_.reset();
    faults::UnregisterSimVfs("flow-runtime-test");
  }
  // state id -> parent id, in commit order.
  std::vector<Row> Rows() {
    return db_->Query("SELECT state_id, parent_id FROM RuntimeState ORDER BY rowid");
  }
  Checkpoint Decoded(const std::string& state) {
    RuntimeStateStore store(db_.get(), "run-1");
    Result<std::string> bytes = store.Retrieve(CheckpointInfo{"run-1", state});
    EXPECT_TRUE(bytes.ok());
    // The engine stores incremental checkpoints by default (a delta on its parent, a full
    // snapshot every kDefaultFullSnapshotEvery): follow the chain through the same rows.
    Result<Checkpoint> checkpoint =
        ResolveCheckpoint(*bytes, [&store](const std::string& id) -> Result<std::string> {
          return store.Retrieve(CheckpointInfo{"run-1", id});
        });
    EXPECT_TRUE(checkpoint.ok()) << checkpoint.status().ToString();
    return *checkpoint;
  }

  faults::SimFs fs_;
  std::unique_ptr<FlowDb> db_;
};

TEST_F(FlowRuntimeTest, StartStoresTheEngineCheckpointsWithParentLinksAndThePendingRequest) {
  ASSERT_TRUE(db_->Begin());
  const RuntimeOutcome start = StartRuntime(*db_, "run-1", 1);
  ASSERT_TRUE(start.status.ok()) << start.status.ToString();
  db_->Commit();
  EXPECT_FALSE(start.request_id.empty());
  EXPECT_EQ(Rows(), (std::vector<Row>{{"cp-1", ""}, {"cp-2", "cp-1"}}));
  EXPECT_EQ(start.checkpoint, "cp-2");
  const Checkpoint cp = Decoded("cp-2");
  ASSERT_EQ(cp.outstanding.size(), 1u);
  EXPECT_EQ(cp.outstanding[0].request_id, start.request_id);
  EXPECT_EQ(cp.outstanding[0].port_id, "approval");
  EXPECT_EQ(db_->QueryInt("SELECT count(*) FROM RuntimeState WHERE runtime_type = 'stepfault'", 0),
            2);
}

TEST_F(FlowRuntimeTest, ResumeAnswersTheRequestOfTheNamedStateAndChainsNewStatesToIt) {
  ASSERT_TRUE(db_->Begin());
  const RuntimeOutcome start = StartRuntime(*db_, "run-1", 1);
  db_->Commit();
  ASSERT_TRUE(db_->Begin());
  const RuntimeOutcome resume = ResumeRuntime(*db_, "run-1", start.checkpoint, 1, "approve");
  ASSERT_TRUE(resume.status.ok()) << resume.status.ToString();
  db_->Commit();
  EXPECT_EQ(resume.decision, "approve");
  EXPECT_EQ(resume.parent, "cp-2");
  const std::vector<Row> rows = Rows();
  ASSERT_GE(rows.size(), 3u);
  EXPECT_EQ(rows[2], (Row{"cp-3", "cp-2"}));
  EXPECT_EQ(rows.back()[0], resume.checkpoint);
  EXPECT_TRUE(Decoded(resume.checkpoint).outstanding.empty()) << "the request was answered";
  // A rolled-back resume leaves nothing; a resume from a state that does not exist fails.
  ASSERT_TRUE(db_->Begin());
  EXPECT_TRUE(ResumeRuntime(*db_, "run-1", start.checkpoint, 1, "reject").status.ok());
  db_->Rollback();
  EXPECT_EQ(Rows(), rows);
  ASSERT_TRUE(db_->Begin());
  EXPECT_FALSE(ResumeRuntime(*db_, "run-1", "cp-99", 1, "approve").status.ok());
  db_->Rollback();
}

}  // namespace
}  // namespace stepfault::scenarios::flow
