// Goal: an approval life opens its business database once and uses that one connection for the
// whole life (the resume's final status included), and a life that dies mid-transaction leaves no
// connection behind: the next life opens a fresh one, which sees only what was durable.
// Method: the approval scenario's lives (start, then resume) on a simulated world through its
// SQLite VFS, as the life runner drives them; ApprovalStore's process-wide counters of opens and of
// open connections are read around each life. The crash is a probe that throws CrashSignal at
// effect.commit.before (inside the business transaction), then the world is the crash's copy.
// The oracle's check after that death (Scenario::Check) must leave the world as the death left it,
// hot journal included (SimFs::Digest before and after), for the next life to roll back itself;
// checked to fail when the look runs on the world instead of its copy (main's behaviour before the
// seventh session: the journal was gone after the check).
#include "scenarios/approval/approval.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/clock.h"
#include "engine/probe_points.h"
#include "faults/fault_hook.h"
#include "faults/points.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "scenarios/approval/approval_store.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

constexpr char kDir[] = "/approval";

// At the first hit of `point`, freezes the world (a dead process does no more I/O, so nothing it
// unwinds reaches the files) and throws CrashSignal, as the injector does.
class DieAt final : public Probe {
 public:
  DieAt(faults::SimFs* world, std::string point) : world_(world), point_(std::move(point)) {}
  void Hit(std::string_view point) override {
    if (point != point_) return;
    world_->Freeze(faults::DeathKind::kCrash, point_);
    throw faults::CrashSignal{faults::DeathKind::kCrash, point_};
  }

 private:
  faults::SimFs* const world_;
  const std::string point_;
};

// At the first hit of the file-system point `point`, the life dies (the world freezes itself).
class DieAtFsPoint final : public faults::FaultHook {
 public:
  explicit DieAtFsPoint(std::string point) : point_(std::move(point)) {}
  faults::Decision OnPoint(std::string_view point) override {
    if (point != point_ || fired_) return faults::Decision::Proceed();
    fired_ = true;
    return faults::Decision::Die(faults::DeathKind::kCrash);
  }

 private:
  const std::string point_;
  bool fired_ = false;
};

// One world and the lives run on it, each through a VFS of its own (a new process).
class ApprovalLivesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = std::make_unique<faults::SimFs>();
    world_->SetRoleClassifier(faults::DefaultRoleClassifier());
    ASSERT_TRUE(world_->CreateDirIfMissing(kDir).ok());
  }

  // The scenario's check on the world as it is, as the life runner makes it after a life.
  std::vector<Violation> Check() {
    HostEnv env;
    env.env = world_.get();
    env.dir = kDir;
    env.vfs_name = "approval-lives-test-check";
    EXPECT_TRUE(faults::RegisterSimVfs(env.vfs_name, world_.get(), 99).ok());
    env.root_seed = 7;
    env.params = scenario_->default_params();
    Json memo = Json::object();
    env.oracle_memo = &memo;
    std::vector<Violation> out;
    scenario_->Check(env, lives_, /*final=*/false, &out);
    faults::UnregisterSimVfs(env.vfs_name);
    return out;
  }

  // Runs one life of the approval scenario with `probe`; rethrows a CrashSignal.
  LifeReport Live(int life, Probe* probe) {
    const std::string vfs = "approval-lives-test-" + std::to_string(life);
    EXPECT_TRUE(faults::RegisterSimVfs(vfs, world_.get(), static_cast<uint64_t>(life)).ok());
    struct Unregister {
      std::string name;
      ~Unregister() { faults::UnregisterSimVfs(name); }
    } unregister{vfs};
    LogicalClock clock(LogicalClock::kDefaultStartMicros + life * 3600LL * 1000000LL);
    HostEnv env;
    env.env = world_.get();
    env.dir = kDir;
    env.vfs_name = vfs;
    env.probe = probe;
    env.clock = &clock;
    env.seed = static_cast<uint64_t>(life);
    env.root_seed = 7;
    env.params = scenario_->default_params();
    LifeReport report;
    scenario_->RunLife(env, lives_, &report);
    lives_.push_back(report);
    return report;
  }

  const std::shared_ptr<const Scenario> scenario_ = MakeApprovalScenario();
  std::unique_ptr<faults::SimFs> world_;
  std::vector<LifeReport> lives_;
};

TEST_F(ApprovalLivesTest, StartAndResumeLivesEachOpenTheBusinessDatabaseOnce) {
  const uint64_t before_start = ApprovalStore::OpensForTesting();
  LifeReport start = Live(1, NullProbe());
  ASSERT_TRUE(start.status.ok()) << start.status.ToString();
  EXPECT_EQ(start.command, "start");
  EXPECT_EQ(ApprovalStore::OpensForTesting() - before_start, 1u);
  EXPECT_EQ(ApprovalStore::OpenNowForTesting(), 0) << "the life's connection outlived the life";

  const uint64_t before_resume = ApprovalStore::OpensForTesting();
  LifeReport resume = Live(2, NullProbe());
  ASSERT_TRUE(resume.status.ok()) << resume.status.ToString();
  EXPECT_EQ(resume.command, "resume");
  EXPECT_TRUE(resume.completed);
  EXPECT_EQ(resume.facts.value("state", std::string()), "Completed");
  // Registering, deciding, applying and the final status all went through one connection.
  EXPECT_EQ(ApprovalStore::OpensForTesting() - before_resume, 1u);
  EXPECT_EQ(ApprovalStore::OpenNowForTesting(), 0);
}

TEST_F(ApprovalLivesTest, ALifeDyingMidTransactionLeavesTheNextLifeAFreshConnection) {
  ASSERT_TRUE(Live(1, NullProbe()).status.ok());
  DieAt die(world_.get(), std::string(points::kEffectCommitBefore));
  const uint64_t before_crash = ApprovalStore::OpensForTesting();
  EXPECT_THROW(Live(2, &die), faults::CrashSignal);
  EXPECT_EQ(ApprovalStore::OpensForTesting() - before_crash, 1u);
  // The dying life's connection was closed while the crash unwound it: nothing survives in memory.
  EXPECT_EQ(ApprovalStore::OpenNowForTesting(), 0);
  world_ = world_->CrashClone(faults::DeathKind::kCrash, 0);
  world_->SetRoleClassifier(faults::DefaultRoleClassifier());
  lives_.back().died = true;

  const uint64_t before_next = ApprovalStore::OpensForTesting();
  LifeReport next = Live(3, NullProbe());
  ASSERT_TRUE(next.status.ok()) << next.status.ToString();
  EXPECT_EQ(ApprovalStore::OpensForTesting() - before_next, 1u) << "a fresh connection per life";
  EXPECT_TRUE(next.completed);
  EXPECT_EQ(next.facts.value("state", std::string()), "Completed");
  EXPECT_EQ(ApprovalStore::OpenNowForTesting(), 0);
}

TEST_F(ApprovalLivesTest, TheCheckAfterADeathInACommitLeavesItsHotJournalInTheWorld) {
  ASSERT_TRUE(Live(1, NullProbe()).status.ok());
  // Dies as the business transaction's journal is deleted: the commit's pages are in the database
  // and the synced journal is hot (a rollback undoes the commit).
  DieAtFsPoint die("fs.unlink[journal]");
  world_->SetHook(&die);
  try {
    Live(2, NullProbe());
  } catch (const faults::CrashSignal&) {
  }
  ASSERT_TRUE(world_->frozen()) << "the life must have died at fs.unlink[journal]";
  world_ = world_->CrashClone(faults::DeathKind::kCrash, 0);
  world_->SetRoleClassifier(faults::DefaultRoleClassifier());
  lives_.back().died = true;
  const std::string journal = std::string(kDir) + "/business.db-journal";
  ASSERT_TRUE(world_->FileExists(journal).value()) << "the death must leave a journal";

  const std::string digest = world_->Digest();
  std::vector<Violation> violations = Check();
  EXPECT_TRUE(violations.empty()) << violations.front().invariant << ": "
                                  << violations.front().message;
  EXPECT_EQ(world_->Digest(), digest) << "the oracle's look changed the world it checks";
  EXPECT_TRUE(world_->FileExists(journal).value()) << "the look rolled the hot journal back";

  // The next life meets the hot journal itself, rolls it back, and completes.
  LifeReport next = Live(3, NullProbe());
  ASSERT_TRUE(next.status.ok()) << next.status.ToString();
  EXPECT_TRUE(next.completed);
  EXPECT_FALSE(world_->FileExists(journal).value());
}

}  // namespace
}  // namespace stepfault::scenarios
