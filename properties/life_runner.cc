// The reference life loop (LifeLoop, life_runner_internal.h): lives, deaths, post-death worlds,
// corruption, checks and the harness-level invariants; and RunPlan.
#include "properties/life_runner.h"

#include <algorithm>
#include <atomic>

#include "engine/random.h"
#include "faults/points.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "properties/life_runner_internal.h"
#include "properties/mutants.h"
#include "reports/shell_quote.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

using faults::CrashSignal;
using faults::DeathKind;
using faults::SimFs;

constexpr const char* kDir = "/w";
// What a recorded hit's copy of the world holds besides its files' images: its directories and
// inodes, roughly.
constexpr uint64_t kHitCopyBytes = 2048;

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

// Damages the newest published file of the fired point's role in the post-crash world. Returns the
// trace line and whether any byte really changed (zeroing bytes that were zero damages nothing).
std::pair<std::string, bool> ApplyCorruption(SimFs* world, const faults::Fault& fault,
                                             const std::string& point, uint64_t seed) {
  const std::string role(faults::RoleOf(point));
  std::string target;
  for (const std::string& path : world->ListAllFiles()) {
    if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".tmp") == 0) continue;
    if (faults::ClassifyRole(path) == role) target = path;  // sorted: the last is the newest
  }
  if (target.empty()) return {"corrupt: no published " + role + " file to damage", false};
  auto size = world->GetFileSize(target);
  if (!size.ok() || *size == 0) return {"corrupt: " + target + " is empty", false};
  auto before = world->ReadFile(target);
  SF_CHECK(before.ok());
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
  auto after = world->ReadFile(target);
  const bool changed = !after.ok() || *after != *before;
  return {"corrupt: " + std::string(changed ? "damaged " : "left unchanged ") + target, changed};
}

bool IsTypedDataError(const Status& s) {
  return s.code() == StatusCode::kCorruption || s.code() == StatusCode::kNotFound ||
         s.code() == StatusCode::kIncompatible || s.code() == StatusCode::kInvalidArgument;
}

}  // namespace

std::string ReplayCommand(const std::string& scenario, const faults::Plan& plan,
                          const RunConfig& config) {
  std::string cmd = "stepfault replay --scenario " + reports::ShellQuote(scenario) + " --plan " +
                    reports::ShellQuote(faults::PrintPlan(plan)) + " --seed " +
                    std::to_string(config.seed);
  for (const std::string& h : ActiveHazardNames(config))
    cmd += " --hazard " + reports::ShellQuote(h);
  if (!config.params.is_null()) cmd += " --params " + reports::ShellQuote(config.params.dump());
  if (config.checkpoint_store != "file")
    cmd += " --store " + reports::ShellQuote(config.checkpoint_store);
  return cmd;
}

LifeLoop::LifeLoop(const scenarios::Scenario& scenario, const faults::Plan& plan,
                   const RunConfig& config)
    : scenario_(scenario),
      plan_(plan),
      config_(config),
      params_(config.params.is_null() ? scenario.default_params() : config.params) {
  s_.world = std::make_unique<SimFs>();
  s_.world->SetRoleClassifier(faults::DefaultRoleClassifier());
  SF_CHECK(s_.world->CreateDirIfMissing(kDir).ok());
  SF_CHECK(s_.world->SyncDir("/").ok());
  int faults_in_plan = 0;
  for (const faults::Fault& f : plan.faults) faults_in_plan += f.is_none() ? 0 : 1;
  lives_max_ = config.lives_max > 0 ? config.lives_max
                                    : scenario.fault_free_lives() + 2 * faults_in_plan + 1;
}

Execution LifeLoop::Run() {
  RunLives(lives_max_);
  return Finish(s_.world->Digest());
}

void LifeLoop::RunLives(int until) {
  for (; s_.next_life <= std::min(until, lives_max_) && !s_.stopped; ++s_.next_life) {
    LivedLife derived;
    const bool take = Derive(s_.next_life, &derived);
    s_.stopped = LiveAndCheck(s_.next_life, take ? &derived : nullptr, nullptr);
  }
}

bool LifeLoop::Derive(int /*life*/, LivedLife* /*out*/) { return false; }

// One life (or a reused one) and its checks; true when the run stops after it.
bool LifeLoop::LiveAndCheck(int life, const LivedLife* reused, LivedLife* lived) {
  LifeRecord fresh = LiveOrReuse(life, reused, lived);
  const bool died = !fresh.death.empty();
  if (died) {
    AfterDeath(life, &fresh);
  } else {
    CheckObservedSurvivesPowerLoss(life, fresh);
  }
  s_.reports.push_back(fresh.report);
  s_.ex.lives.push_back(std::move(fresh));
  const LifeRecord& record = s_.ex.lives.back();
  if (s_.harness_error.empty()) {
    if (died) {
      CheckAfterDeath(life, record);
    } else {
      CheckWorld(life, record);
    }
  }
  if (!s_.harness_error.empty()) {
    s_.ex.violations.push_back({scenarios::kInvHarness, s_.harness_error});
    return true;
  }
  if (record.report.final) {
    JudgeGiveUp(life, record);
    return true;
  }
  if (record.report.completed) {
    s_.ex.completed = true;
    return true;
  }
  return false;
}

void LifeLoop::CheckAfterDeath(int life, const LifeRecord& record) { CheckWorld(life, record); }

// Either lives `life` (and puts it in `lived`, when not null) or takes it from `reused`.
LifeRecord LifeLoop::LiveOrReuse(int life, const LivedLife* reused, LivedLife* lived) {
  if (reused != nullptr) {
    s_.world = reused->world->CrashClone(DeathKind::kCrash, 0);
    s_.world->SetRoleClassifier(faults::DefaultRoleClassifier());
    s_.harness_error = reused->life_error;
    return reused->record;
  }
  LifeRecord record = RunLife(life);
  // A death rewrites the world after the life (never so without a fault): not kept.
  if (lived != nullptr && record.death.empty()) {
    lived->record = record;
    lived->life_error = s_.harness_error;
    lived->world = s_.world->CrashClone(DeathKind::kCrash, 0);
    lived->world->SetRoleClassifier(faults::DefaultRoleClassifier());
  }
  return record;
}

Execution LifeLoop::Finish(const std::string& final_digest) {
  Execution& ex = s_.ex;
  ex.final_digest = final_digest;
  if (s_.harness_error.empty() && !ex.completed &&
      (ex.lives.empty() || !ex.lives.back().report.final)) {
    ex.violations.push_back(
        {scenarios::kInvLiveness, "not completed within " + std::to_string(lives_max_) + " lives"});
  }
  WriteTrace();
  return std::move(ex);
}

scenarios::HostEnv LifeLoop::MakeEnv(SimFs* fs, const std::string& vfs, Probe* probe, Clock* clock,
                                     int life) const {
  scenarios::HostEnv env;
  env.env = fs;
  env.dir = kDir;
  env.vfs_name = vfs;
  env.probe = probe;
  env.clock = clock;
  env.seed = DeriveSeed(config_.seed, "life|" + std::to_string(life));
  env.root_seed = config_.seed;
  env.profile = config_.profile;
  env.hazards = config_.hazards;
  env.store = config_.store;
  env.params = params_;
  env.checkpoint_store = config_.checkpoint_store;
  return env;
}

// One process of the host on the current world, with the plan's fault of this life armed.
LifeRecord LifeLoop::RunLife(int life) {
  std::optional<faults::Fault> fault = plan_.ForLife(life);
  if (fault && fault->is_none()) fault.reset();
  return LiveOn(s_.world.get(), life, fault, nullptr, &s_.harness_error);
}

// A life that dies is cut at its death: its report is the one it held at that instant, and what
// the host did after it is not part of the life, because the process was already dead (a death
// inside SQLite is an I/O error to SQLite, and the host goes on until it returns; destructors run
// on the way out; an exception escaping then is no counterexample). The frozen world already
// refuses every write after the death, so the world is cut there too. This is what makes a death
// derivable from a fault-free recording of the life (RecordLife, the memo's Derive).
LifeRecord LifeLoop::LiveOn(SimFs* world, int life, const std::optional<faults::Fault>& fault,
                            const HitListener& at_hit, std::string* error) const {
  LifeRecord record;
  record.fault = fault;
  faults::Injector injector(record.fault, world);
  std::optional<scenarios::LifeReport> at_death;
  faults::Injector::Observer observer;
  if (at_hit) observer.at_hit = [&](const faults::Window& w) { at_hit(w, record.report); };
  observer.at_death = [&] { at_death = record.report; };
  injector.SetObserver(std::move(observer));
  world->SetHook(&injector);
  faults::SeedSqliteRandomness(DeriveSeed(config_.seed, "sqlite|" + std::to_string(life)));
  std::optional<CrashSignal> death;
  {
    VfsRegistration vfs(world, DeriveSeed(config_.seed, "vfs|" + std::to_string(life)));
    // A new process: time goes on from a later logical start.
    LogicalClock clock(LogicalClock::kDefaultStartMicros + life * 3600LL * 1000000LL);
    scenarios::HostEnv env = MakeEnv(world, vfs.name(), &injector, &clock, life);
    env.earlier_lives = &s_.reports;
    if (record.fault && faults::IsRecoverySide(record.fault->action)) {
      env.variation.kind = record.fault->action.kind;
      env.variation.mutation = record.fault->action.mutation;
      env.variation.conflict = record.fault->action.conflict;
    }
    try {
      scenario_.RunLife(env, s_.reports, &record.report);
    } catch (const CrashSignal& c) {
      death = c;
    } catch (const std::exception& e) {
      // A counterexample, not the end of the exploration (INV-HARNESS), unless the life was
      // already dead.
      if (!injector.died()) *error = "life " + std::to_string(life) + " threw: " + e.what();
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
    record.death_point = death->point;
    if (at_death) record.report = std::move(*at_death);
  }
  return record;
}

// libstdc++ on 64 bits: a std::string is 32 bytes with 15 inline; a std::map node is 32 bytes
// and its value; a std::vector is 24 bytes and its capacity; an nlohmann::json value is 16 bytes.
namespace held {
constexpr uint64_t kString = 32;
constexpr uint64_t kMapNode = 32;
constexpr uint64_t kVector = 24;
constexpr uint64_t kJson = 16;
}  // namespace held

uint64_t HeldBytes(const std::string& s) {
  return held::kString + (s.capacity() > 15 ? s.capacity() + 1 : 0);
}

uint64_t HeldBytes(const Json& value) {
  uint64_t bytes = held::kJson;
  if (value.is_object()) {
    bytes += 48;  // the map
    for (auto it = value.cbegin(); it != value.cend(); ++it) {
      bytes += held::kMapNode + HeldBytes(it.key()) + HeldBytes(it.value());
    }
  } else if (value.is_array()) {
    bytes += held::kVector;
    for (const Json& item : value) bytes += HeldBytes(item);
  } else if (value.is_string()) {
    bytes += HeldBytes(value.get_ref<const std::string&>());
  }
  return bytes;
}

uint64_t HeldBytes(const scenarios::LifeReport& report) {
  uint64_t bytes = sizeof(report) + HeldBytes(report.command) + HeldBytes(report.facts) +
                   (HeldBytes(report.status.message()) - held::kString) +
                   report.trace.capacity() * held::kString;
  for (const std::string& line : report.trace) bytes += HeldBytes(line) - held::kString;
  return bytes;
}

uint64_t HeldBytes(const LifeRecord& record) {
  uint64_t bytes = HeldBytes(record.report) + record.windows.capacity() * sizeof(faults::Window) +
                   HeldBytes(record.death) + HeldBytes(record.death_point) +
                   HeldBytes(record.world_digest);
  for (const faults::Window& w : record.windows) bytes += HeldBytes(w.point) - held::kString;
  if (record.fault) bytes += sizeof(*record.fault) + 64;
  return bytes;
}

uint64_t HeldBytes(const std::vector<scenarios::Violation>& violations) {
  uint64_t bytes = held::kVector;
  for (const scenarios::Violation& v : violations) {
    bytes += HeldBytes(v.invariant) + HeldBytes(v.message);
  }
  return bytes;
}

uint64_t HeldBytes(const RunState& state) {
  uint64_t bytes = sizeof(state) + state.world->HeldBytes() + HeldBytes(state.harness_error) +
                   HeldBytes(state.memo) + HeldBytes(state.ex.violations) +
                   HeldBytes(state.ex.trace) + HeldBytes(state.ex.final_digest);
  for (const scenarios::LifeReport& r : state.reports) bytes += HeldBytes(r);
  for (const LifeRecord& r : state.ex.lives) bytes += HeldBytes(r);
  return bytes;
}

uint64_t HeldBytes(const LivedLife& life) {
  return HeldBytes(life.record) + HeldBytes(life.life_error) +
         (life.world ? life.world->HeldBytes() : 0);
}

// The copies are exact for everything that decides the world's future (SimFs::Digest), and a
// death at that hit would freeze exactly that world; they are only read (crash clones of them).
// Each counts the images of the files it did not share, plus its directories and report.
LifeRecording LifeLoop::RecordLife(int life, uint64_t bytes_max) const {
  LifeRecording rec;
  std::shared_ptr<SimFs> world = s_.world->CrashClone(DeathKind::kCrash, 0);
  world->SetRoleClassifier(faults::DefaultRoleClassifier());
  bool bounded = false;
  SimFs::CopyCache files;  // the copies share every file a hit left unchanged
  auto at_hit = [&](const faults::Window&, const scenarios::LifeReport& report) {
    if (bounded) return;
    std::shared_ptr<SimFs> copy = world->CopySharing(&files);
    // The files the copy did not share: each was written since the last copy, which made the
    // world copy its image (copy on write), so the copy alone holds the old one.
    const uint64_t bytes = files.last_copied_bytes() + HeldBytes(report) + kHitCopyBytes;
    if (rec.bytes + bytes > bytes_max) {
      bounded = true;  // the later windows are lived
      return;
    }
    rec.bytes += bytes;
    rec.at.push_back({std::move(copy), report});
  };
  rec.lived.record = LiveOn(world.get(), life, std::nullopt, at_hit, &rec.lived.life_error);
  world->SetRoleClassifier(faults::DefaultRoleClassifier());
  rec.lived.world = std::move(world);
  return rec;
}

// The possible world after the death, damaged afterwards for `corrupt`.
void LifeLoop::AfterDeath(int life, LifeRecord* record) {
  const DeathKind kind = record->death == "powerloss" ? DeathKind::kPowerLoss
                         : record->death == "exit"    ? DeathKind::kExit
                                                      : DeathKind::kCrash;
  record->report.died = true;
  record->report.power_lost = kind == DeathKind::kPowerLoss;
  record->report.completed = false;
  record->report.final = false;
  if (kind == DeathKind::kExit) record->report.exit_code = 1;
  s_.world = s_.world->CrashClone(kind, DeriveSeed(config_.seed, "clone|" + std::to_string(life)));
  s_.world->SetRoleClassifier(faults::DefaultRoleClassifier());
  if (record->fault && record->fault->action.kind == faults::FaultActionKind::kCorrupt) {
    auto [line, changed] =
        ApplyCorruption(s_.world.get(), *record->fault, record->death_point,
                        DeriveSeed(config_.seed, "corrupt|" + std::to_string(life)));
    record->report.trace.push_back(line);
    s_.damaged = s_.damaged || changed;
    record->report.damaged = changed;
  }
  record->world_digest = s_.world->Digest();
}

// The scenario's invariants over `world` after `life`, with `memo` as the oracle's notes.
void LifeLoop::Check(SimFs* world, Json* memo, int life, bool last,
                     const std::vector<scenarios::LifeReport>& lives, const std::string& prefix) {
  VfsRegistration vfs(world, DeriveSeed(config_.seed, "check|" + std::to_string(life)));
  LogicalClock clock;
  scenarios::HostEnv env = MakeEnv(world, vfs.name(), NullProbe(), &clock, life);
  env.oracle_memo = memo;
  std::vector<scenarios::Violation> found;
  try {
    scenario_.Check(env, lives, last, &found);
  } catch (const std::exception& e) {
    if (s_.harness_error.empty())
      s_.harness_error = "the check after life " + std::to_string(life) + " threw: " + e.what();
  }
  for (auto& v : found) s_.ex.violations.push_back({v.invariant, prefix + v.message});
}

void LifeLoop::CheckWorld(int life, const LifeRecord& record) {
  const bool last = record.report.completed || record.report.final || life == lives_max_;
  Check(s_.world.get(), &s_.memo, life, last, s_.reports, "");
}

// Per-life observations: whatever a life that ended normally reported to the outside (its exit,
// its status, a receipt, a completion, the checkpoints it saw committed) must hold in the world a
// power loss right after it would leave. The scenario's oracle runs on that world, with a copy
// of its notes so the real run's memo is untouched.
void LifeLoop::CheckObservedSurvivesPowerLoss(int life, const LifeRecord& record) {
  std::unique_ptr<SimFs> lost = s_.world->CrashClone(
      DeathKind::kPowerLoss, DeriveSeed(config_.seed, "observed|" + std::to_string(life)));
  lost->SetRoleClassifier(faults::DefaultRoleClassifier());
  // The history seen by this look: the run's, plus this life as if its power was lost right
  // after (appended for the look only, not a copy of every earlier report).
  std::vector<scenarios::LifeReport>& lives = s_.reports;
  lives.push_back(record.report);
  lives.back().power_lost = true;  // the next look is after a power loss
  Json memo = s_.memo;
  const bool last = record.report.completed || record.report.final || life == lives_max_;
  Check(lost.get(), &memo, life, last, lives,
        "after a power loss right after life " + std::to_string(life) + " (" +
            record.report.command + "): ");
  lives.pop_back();
}

void LifeLoop::JudgeGiveUp(int life, const LifeRecord& record) {
  const std::string who = "life " + std::to_string(life);
  if (!s_.damaged) {
    s_.ex.violations.push_back({scenarios::kInvLiveness, who + " gave up with '" +
                                                             record.report.status.ToString() +
                                                             "' although no data was damaged"});
  } else if (!IsTypedDataError(record.report.status)) {
    s_.ex.violations.push_back({scenarios::kInvCorrupt, "after damage, " + who +
                                                            " ended with an untyped error: " +
                                                            record.report.status.ToString()});
  }
}

void LifeLoop::WriteTrace() {
  Execution& ex = s_.ex;
  for (size_t i = 0; i < ex.lives.size(); ++i) {
    const LifeRecord& l = ex.lives[i];
    ex.trace += "life " + std::to_string(i + 1) + " " + l.report.command +
                " fault=" + (l.fault ? l.fault->Print() : "none");
    if (l.fired) {
      ex.trace += " fired=" + l.fired->point + "#" + std::to_string(l.fired->occurrence);
    }
    if (!l.death.empty()) ex.trace += " death=" + l.death;
    ex.trace += " status=" + l.report.status.ToString() +
                " exit=" + std::to_string(l.report.exit_code) +
                (l.report.completed ? " completed" : "") + "\n";
    for (const std::string& line : l.report.trace) ex.trace += "  " + line + "\n";
    ex.trace += "  facts " + l.report.facts.dump() + "\n";
  }
  for (const auto& v : ex.violations) {
    ex.trace += "violation " + v.invariant + ": " + v.message + "\n";
  }
}

Execution RunPlan(const scenarios::Scenario& scenario, const faults::Plan& plan,
                  const RunConfig& config, RunMemo* memo) {
  if (memo == nullptr) return LifeLoop(scenario, plan, config).Run();
  return RunPlanWithMemo(scenario, plan, config, memo->impl());
}

}  // namespace stepfault::properties
