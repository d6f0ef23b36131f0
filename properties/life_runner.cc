// RunPlan: lives, deaths, post-death worlds, corruption and the harness-level invariants.
#include "properties/life_runner.h"

#include <atomic>

#include "engine/random.h"
#include "faults/points.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "properties/mutants.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

using faults::CrashSignal;
using faults::DeathKind;
using faults::SimFs;

constexpr const char* kDir = "/w";

std::string NewVfsName() {
  static std::atomic<uint64_t> counter{0};
  return "stepfault-sim-" + std::to_string(counter.fetch_add(1));
}

// Registers a VFS for a world for as long as it lives.
class VfsRegistration {
 public:
  VfsRegistration(SimFs* fs, uint64_t seed) : name_(NewVfsName()) {
    Status s = faults::RegisterSimVfs(name_, fs, seed);
    SF_CHECK(s.ok());
  }
  ~VfsRegistration() { faults::UnregisterSimVfs(name_); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// Damages the newest published file of the fired point's role in the post-crash world.
std::string ApplyCorruption(SimFs* world, const faults::Fault& fault, const std::string& point,
                            uint64_t seed) {
  const std::string role(faults::RoleOf(point));
  std::string target;
  for (const std::string& path : world->ListAllFiles()) {
    if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".tmp") == 0) continue;
    if (faults::ClassifyRole(path) == role) target = path;  // sorted: the last is the newest
  }
  if (target.empty()) return "corrupt: no published " + role + " file to damage";
  auto size = world->GetFileSize(target);
  if (!size.ok() || *size == 0) return "corrupt: " + target + " is empty";
  Rng rng(seed);
  Status s;
  switch (fault.action.corruption) {
    case faults::CorruptionKind::kBitflip:
      s = world->FlipBit(target, rng.Uniform(*size * 8));
      break;
    case faults::CorruptionKind::kTruncate:
      s = world->TruncateTo(target, rng.Uniform(*size));
      break;
    case faults::CorruptionKind::kZero: {
      uint64_t offset = rng.Uniform(*size);
      s = world->ZeroRange(target, offset, std::min<uint64_t>(64, *size - offset));
      break;
    }
  }
  SF_CHECK(s.ok());
  return "corrupt: damaged " + target;
}

bool IsTypedDataError(const Status& s) {
  return s.code() == StatusCode::kCorruption || s.code() == StatusCode::kNotFound ||
         s.code() == StatusCode::kIncompatible || s.code() == StatusCode::kInvalidArgument;
}

}  // namespace

std::string ReplayCommand(const std::string& scenario, const faults::Plan& plan,
                          const RunConfig& config) {
  std::string cmd = "stepfault replay " + scenario + " --plan '" + faults::PrintPlan(plan) +
                    "' --seed " + std::to_string(config.seed);
  for (const std::string& h : ActiveHazardNames(config)) cmd += " --hazard " + h;
  if (config.checkpoint_store != "file") cmd += " --store " + config.checkpoint_store;
  return cmd;
}

Execution RunPlan(const scenarios::Scenario& scenario, const faults::Plan& plan,
                  const RunConfig& config) {
  Execution ex;
  auto world = std::make_unique<SimFs>();
  world->SetRoleClassifier(faults::DefaultRoleClassifier());
  SF_CHECK(world->CreateDirIfMissing(kDir).ok());
  SF_CHECK(world->SyncDir("/").ok());
  const Json params = config.params.is_null() ? scenario.default_params() : config.params;
  bool damaged = false;
  std::vector<scenarios::LifeReport> reports;
  Json memo = Json::object();

  auto make_env = [&](SimFs* fs, const std::string& vfs, Probe* probe, Clock* clock, int life) {
    scenarios::HostEnv env;
    env.env = fs;
    env.dir = kDir;
    env.vfs_name = vfs;
    env.probe = probe;
    env.clock = clock;
    env.seed = DeriveSeed(config.seed, "life|" + std::to_string(life));
    env.root_seed = config.seed;
    env.profile = config.profile;
    env.hazards = config.hazards;
    env.store = config.store;
    env.params = params;
    env.checkpoint_store = config.checkpoint_store;
    return env;
  };

  int faults_in_plan = 0;
  for (const faults::Fault& f : plan.faults) faults_in_plan += f.is_none() ? 0 : 1;
  const int lives_max = config.lives_max > 0 ? config.lives_max
                                             : scenario.fault_free_lives() + 2 * faults_in_plan + 1;
  for (int life = 1; life <= lives_max; ++life) {
    LifeRecord record;
    record.fault = plan.ForLife(life);
    if (record.fault && record.fault->is_none()) record.fault.reset();
    faults::Injector injector(record.fault, world.get());
    world->SetHook(&injector);
    faults::SeedSqliteRandomness(DeriveSeed(config.seed, "sqlite|" + std::to_string(life)));
    std::optional<CrashSignal> death;
    {
      VfsRegistration vfs(world.get(), DeriveSeed(config.seed, "vfs|" + std::to_string(life)));
      // A new process: time goes on from a later logical start.
      LogicalClock clock(LogicalClock::kDefaultStartMicros + life * 3600LL * 1000000LL);
      scenarios::HostEnv env = make_env(world.get(), vfs.name(), &injector, &clock, life);
      if (record.fault && faults::IsRecoverySide(record.fault->action)) {
        env.variation.kind = record.fault->action.kind;
        env.variation.mutation = record.fault->action.mutation;
      }
      try {
        scenario.RunLife(env, reports, &record.report);
      } catch (const CrashSignal& c) {
        death = c;
      }
      if (!death && world->frozen()) {
        // The death struck inside SQLite, which saw only an I/O error.
        death = faults::SimVfsDeath(vfs.name());
        if (!death) death = CrashSignal{DeathKind::kCrash, "(frozen)"};
      }
    }
    world->SetHook(nullptr);
    record.windows = injector.hits();
    record.fired = injector.fired_window();
    if (death) {
      record.death = std::string(faults::DeathKindName(death->kind));
      record.report.died = true;
      record.report.power_lost = death->kind == DeathKind::kPowerLoss;
      record.report.completed = false;
      record.report.final = false;
      if (death->kind == DeathKind::kExit) record.report.exit_code = 1;
      world =
          world->CrashClone(death->kind, DeriveSeed(config.seed, "clone|" + std::to_string(life)));
      world->SetRoleClassifier(faults::DefaultRoleClassifier());
      if (record.fault && record.fault->action.kind == faults::FaultActionKind::kCorrupt) {
        record.report.trace.push_back(
            ApplyCorruption(world.get(), *record.fault, death->point,
                            DeriveSeed(config.seed, "corrupt|" + std::to_string(life))));
        damaged = true;
      }
    }
    reports.push_back(record.report);
    ex.lives.push_back(record);

    // Invariants over what this life left behind.
    {
      VfsRegistration vfs(world.get(), DeriveSeed(config.seed, "check|" + std::to_string(life)));
      LogicalClock clock;
      scenarios::HostEnv env = make_env(world.get(), vfs.name(), NullProbe(), &clock, life);
      env.oracle_memo = &memo;
      const bool last = record.report.completed || record.report.final || life == lives_max;
      scenario.Check(env, reports, last, &ex.violations);
    }
    if (record.report.final) {
      if (!damaged) {
        ex.violations.push_back({scenarios::kInvLiveness, "life " + std::to_string(life) +
                                                              " gave up with '" +
                                                              record.report.status.ToString() +
                                                              "' although no data was damaged"});
      } else if (!IsTypedDataError(record.report.status)) {
        ex.violations.push_back(
            {scenarios::kInvCorrupt,
             "after damage, life " + std::to_string(life) +
                 " ended with an untyped error: " + record.report.status.ToString()});
      }
      break;
    }
    if (record.report.completed) {
      ex.completed = true;
      break;
    }
  }
  if (!ex.completed && (ex.lives.empty() || !ex.lives.back().report.final)) {
    ex.violations.push_back(
        {scenarios::kInvLiveness, "not completed within " + std::to_string(lives_max) + " lives"});
  }

  for (size_t i = 0; i < ex.lives.size(); ++i) {
    const LifeRecord& l = ex.lives[i];
    ex.trace += "life " + std::to_string(i + 1) + " " + l.report.command +
                " fault=" + (l.fault ? l.fault->Print() : "none");
    if (l.fired) ex.trace += " fired=" + l.fired->point + "#" + std::to_string(l.fired->occurrence);
    if (!l.death.empty()) ex.trace += " death=" + l.death;
    ex.trace += " status=" + l.report.status.ToString() +
                " exit=" + std::to_string(l.report.exit_code) +
                (l.report.completed ? " completed" : "") + "\n";
    for (const std::string& line : l.report.trace) ex.trace += "  " + line + "\n";
    ex.trace += "  facts " + l.report.facts.dump() + "\n";
  }
  for (const auto& v : ex.violations)
    ex.trace += "violation " + v.invariant + ": " + v.message + "\n";
  return ex;
}

}  // namespace stepfault::properties
