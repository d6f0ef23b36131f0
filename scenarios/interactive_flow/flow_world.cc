// The interactive-flow world runner (see flow_world.h).
#include "scenarios/interactive_flow/flow_world.h"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <memory>

#include "engine/random.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "scenarios/interactive_flow/flow_oracle.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios::flow {
namespace {

constexpr char kDbPath[] = "/flow/flow.db";

std::string UniqueVfsPrefix() {
  static std::atomic<uint64_t> next{0};
  return "flow-" + std::to_string(next.fetch_add(1)) + "-";
}

// The world every run starts from: flow.db created with its schema, with SQLite's PRNG seeded for
// the run (SeedSqliteRandomness(1)) before. Built once per process and copied for each run (a
// crash clone is exact and, since files share their images copy on write, costs a pointer per
// file), with SQLite's PRNG put back where the creation left it (SQLITE_TESTCTRL_PRNG_SAVE /
// _RESTORE; the creation draws from it for the journal's nonce), so a run sees the very bytes and
// randomness it saw when it created the database itself (building it was a sixth of
// interactive-flow's exploration). No one else in the process saves SQLite's PRNG.
std::unique_ptr<faults::SimFs> NewFlowWorld(const std::string& vfs) {
  static const faults::SimFs* const created = [&vfs] {
    faults::SeedSqliteRandomness(1);
    auto* fs = new faults::SimFs();  // never destroyed: every later run copies it
    fs->SetRoleClassifier(faults::SqliteRoleOf);
    SF_CHECK(fs->CreateDirIfMissing("/flow").ok());
    SF_CHECK(fs->SyncDir("/").ok());
    SF_CHECK(faults::RegisterSimVfs(vfs, fs, 1).ok());
    {
      FlowDb db(kDbPath, vfs);
      CreateFlowDatabase(db);
    }
    faults::UnregisterSimVfs(vfs);
    sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SAVE);
    return fs;
  }();
  sqlite3_test_control(SQLITE_TESTCTRL_PRNG_RESTORE);
  return created->CrashClone(faults::DeathKind::kCrash, 0);
}

// The world part of a state key: the current bytes of flow.db and its journal (their hashes, kept
// on the files until they change: SimFs::ReadFileHash). Cheaper than SimFs::Digest, and coarser:
// it ignores what a power loss would keep (durable images, the pending write), which no fault-free
// choice depends on.
std::string StateKey(faults::SimFs* fs) {
  std::string key;
  for (const std::string& path : {std::string(kDbPath), std::string(kDbPath) + "-journal"}) {
    Result<std::string> hash = fs->ReadFileHash(path);
    key += (hash.ok() ? *hash : std::string("none")) + ",";
  }
  return key;
}

// Runs `body` as one simulated process on fs (its own VFS name); `single` code outside actors.
template <typename Body>
void AsProcess(faults::SimFs* fs, const std::string& vfs, Body&& body) {
  SF_CHECK(faults::RegisterSimVfs(vfs, fs, 1).ok());
  {
    FlowDb db(kDbPath, vfs);
    body(db);
  }
  faults::UnregisterSimVfs(vfs);
}

// Fires the plan's faults due at actor a's n-th step: time jumps first (through the actor's own
// connection), then a crash of the actor or a power loss of the machine, which end the actor.
void FireDueFaults(const FlowPlan& plan, int a, int n, const std::string& vfs, faults::SimFs* fs,
                   const ActorContext& c, const char* what, int* fired) {
  for (const FlowFault& f : plan) {
    if (f.kind != FlowFault::Kind::kTimeAdvance || f.actor != a || f.at_step != n) continue;
    if (fs->frozen()) continue;
    ++*fired;
    JumpClock(*c.db, TimeJumpTicks(*c.options));
  }
  for (const FlowFault& f : plan) {
    if (f.actor != a || f.at_step != n || fs->frozen()) continue;
    if (f.kind == FlowFault::Kind::kCrashActor) {
      ++*fired;
      SF_CHECK(faults::KillSimVfsProcess(vfs).ok());
      throw faults::CrashSignal{faults::DeathKind::kCrash, what};
    }
    if (f.kind == FlowFault::Kind::kPowerLoss) {
      ++*fired;
      fs->Freeze(faults::DeathKind::kPowerLoss, what);
      throw faults::CrashSignal{faults::DeathKind::kPowerLoss, what};
    }
  }
}

// The actor bodies with their faults: the step hook yields, then fires what the plan says.
void AddActors(faults::ActorScheduler& scheduler, faults::SimFs* fs, const std::string& prefix,
               const FlowOptions& options, const FlowPlan& plan, int* fired) {
  const auto& names = FlowActorNames();
  for (int a = 0; a < static_cast<int>(names.size()); ++a) {
    const std::string vfs = prefix + names[a];
    SF_CHECK(faults::RegisterSimVfs(vfs, fs, 1 + a).ok());
    scheduler.AddActor(names[a], [=, &options, &plan] {
      int steps = 0;
      ActorContext c;
      c.name = names[a];
      c.options = &options;
      c.step = [&, a](const char* what) {
        faults::ActorScheduler::Current()->Yield(what);
        FireDueFaults(plan, a, ++steps, vfs, fs, c, what, fired);
      };
      try {
        FlowDb db(kDbPath, vfs);
        c.db = &db;
        if (a <= 1) WorkerActor(c);
        if (a == 2) SweeperActor(c, 3);
        if (a == 3) ResponderActor(c);
        if (a == 4) ClockActor(c);
      } catch (const ActorGone&) {
        throw faults::CrashSignal{faults::DeathKind::kCrash, "gone"};  // killed or frozen world
      }
    });
  }
}

}  // namespace

namespace {

FlowPlan PlanOf(const FlowFault& fault) {
  return fault.kind == FlowFault::Kind::kNone ? FlowPlan{} : FlowPlan{fault};
}

}  // namespace

FlowRunResult RunFlowWorld(faults::ScheduleStrategy* strategy, const FlowOptions& options,
                           const FlowFault& fault, uint64_t max_steps, bool keep_trace) {
  return RunFlowWorld(strategy, options, PlanOf(fault), max_steps, keep_trace);
}

FlowRunResult RunFlowWorld(const StrategySource& source, const FlowOptions& options,
                           const FlowFault& fault, uint64_t max_steps, bool keep_trace) {
  return RunFlowWorld(source, options, PlanOf(fault), max_steps, keep_trace);
}

FlowRunResult RunFlowWorld(faults::ScheduleStrategy* strategy, const FlowOptions& options,
                           const FlowPlan& plan, uint64_t max_steps, bool keep_trace) {
  return RunFlowWorld([strategy](std::function<std::string()>) { return strategy; }, options, plan,
                      max_steps, keep_trace);
}

FlowRunResult RunFlowWorld(const StrategySource& source, const FlowOptions& options,
                           const FlowPlan& plan, uint64_t max_steps, bool keep_trace) {
  const std::string prefix = UniqueVfsPrefix();
  // SQLite's PRNG is process-wide: every run starts alike (NewFlowWorld leaves it as after the
  // database's creation from this seed).
  std::unique_ptr<faults::SimFs> fs = NewFlowWorld(prefix + "setup");
  faults::YieldingHook hook;
  fs->SetHook(&hook);
  FlowRunResult out;
  {
    faults::ActorScheduler* current = nullptr;
    faults::ScheduleStrategy* strategy =
        source([&] { return StateKey(fs.get()) + "|" + current->PositionsKey(); });
    faults::ActorScheduler scheduler(strategy, {max_steps, keep_trace});
    current = &scheduler;
    AddActors(scheduler, fs.get(), prefix, options, plan, &out.faults_fired);
    out.run = scheduler.Run();
  }
  out.fault_fired = out.faults_fired > 0;
  for (const std::string& name : FlowActorNames()) faults::UnregisterSimVfs(prefix + name);
  fs->SetHook(nullptr);
  if (fs->frozen()) fs = fs->CrashClone(faults::DeathKind::kPowerLoss, 1);
  ActorContext recovery;
  recovery.name = "recovery";
  recovery.options = &options;
  AsProcess(fs.get(), prefix + "recovery", [&](FlowDb& db) {
    recovery.db = &db;
    Recover(recovery);
  });
  out.digest = fs->Digest();
  // The oracles read a copy of the durable bytes, through a connection of their own.
  std::unique_ptr<faults::SimFs> copy = fs->CrashClone(faults::DeathKind::kCrash, 1);
  AsProcess(copy.get(), prefix + "oracle", [&](FlowDb& db) {
    CheckFlow(db, &out.violations);
    out.final_status = db.Query("SELECT status FROM FlowRun WHERE id = 'run-1'")[0][0];
  });
  for (const std::string& error : out.run.errors) {
    out.violations.push_back(Violation{kInvHarness, "actor failed: " + error});
  }
  return out;
}

int64_t TimeJumpTicks(const FlowOptions& options) {
  return std::max(options.lease(), options.request_expiry_ticks) + 1;
}

}  // namespace stepfault::scenarios::flow
