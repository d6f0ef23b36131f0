// RunPlan: lives, deaths, post-death worlds, corruption and the harness-level invariants.
#include "properties/life_runner.h"

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>

#include "engine/random.h"
#include "faults/points.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "properties/mutants.h"
#include "reports/shell_quote.h"
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

namespace {

// Everything a run carries from one life to the next: the world, the reports and oracle notes of
// the lives so far, and the execution being built.
struct RunState {
  std::unique_ptr<SimFs> world;
  int next_life = 1;
  bool stopped = false;  // completed, gave up or hit a harness error
  bool damaged = false;
  std::string harness_error;  // an exception escaped a life or a check: the run stops
  std::vector<scenarios::LifeReport> reports;
  Json memo = Json::object();
  Execution ex;

  // An independent copy. Between lives no handle or lock is open and the world is not frozen, so a
  // crash clone is an exact copy of everything that decides the world's future (SimFs::Digest).
  RunState Copy() const {
    RunState s;
    s.world = world->CrashClone(DeathKind::kCrash, 0);
    s.world->SetRoleClassifier(faults::DefaultRoleClassifier());
    s.next_life = next_life;
    s.stopped = stopped;
    s.damaged = damaged;
    s.harness_error = harness_error;
    s.reports = reports;
    s.memo = memo;
    s.ex = ex;
    return s;
  }
};

// 128 bits of hash of a canonical text (length-prefixed fields, so no two inputs share a text).
class KeyWriter {
 public:
  void Field(std::string_view v) {
    text_ += std::to_string(v.size());
    text_ += ':';
    text_ += v;
  }
  std::string Finish() const {
    return std::to_string(Hash64(text_, 21)) + "-" + std::to_string(Hash64(text_, 22));
  }

 private:
  std::string text_;
};

}  // namespace

// What a run after its last fault left to the later lives: those lives, what they found, how the
// run ended.
struct RunMemo::Continuation {
  std::vector<LifeRecord> lives;
  std::vector<scenarios::Violation> violations;
  bool completed = false;
  bool stopped = false;
  std::string harness_error;
  std::string final_digest;
};

// What the check after a death found and left, when it left the world unchanged.
struct RunMemo::DeathCheck {
  std::vector<scenarios::Violation> violations;
  Json memo;
  std::string harness_error;
};

// One life after a plan's last fault as an earlier run lived it from a world of `input_digest`:
// what a life with the same index does on an equal world, whatever the run's history, when the
// scenario's lives do not read `previous` (Scenario::LifeReadsPrevious).
struct ReusedLife {
  std::string input_digest;            // SimFs::Digest of the world the life started on
  LifeRecord record;                   // before the harness's checks
  std::string life_error;              // an exception escaped the life (INV-HARNESS), else ""
  std::shared_ptr<const SimFs> world;  // the world right after the life, before its checks
  uint64_t bytes = 0;                  // what `world` holds (files' bytes, twice), for the bound
};

// A map of at most `max` entries that evicts the oldest kept first; a key kept once stays as it
// was kept until evicted.
template <typename V>
class OldestFirst {
 public:
  explicit OldestFirst(size_t max) : max_(max) {}
  const V* Find(const std::string& key) const {
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : &it->second;
  }
  void Keep(const std::string& key, V value) {
    if (map_.count(key) != 0) return;
    if (order_.size() >= max_) {
      map_.erase(order_.front());
      order_.pop_front();
    }
    map_.emplace(key, std::move(value));
    order_.push_back(key);
  }

 private:
  size_t max_;
  std::map<std::string, V> map_;
  std::deque<std::string> order_;  // oldest first
};

struct RunMemo::Impl {
  // Reused lives keep a world each: bounded by their files' bytes (twice: current and durable),
  // which underestimates a kept world (256 MB counted gave a 1.7 GB peak on fan-in; 32 MB, 520 MB).
  static constexpr uint64_t kLivesBytesMax = uint64_t{32} << 20;
  OldestFirst<RunState> prefixes{8};
  OldestFirst<Continuation> continuations{2048};
  // The checks after deaths (PlanRunner::CheckAfterDeath).
  OldestFirst<DeathCheck> death_checks{4096};
  // (life, world digest) -> that life as an earlier run lived it from that world (crash-state
  // reuse), for every life after a plan's last fault, not only the first one.
  std::map<std::string, std::shared_ptr<const ReusedLife>> lives;
  uint64_t lives_bytes = 0;
  RunMemo::Stats stats;
};

RunMemo::RunMemo() : impl_(std::make_unique<Impl>()) {}
RunMemo::~RunMemo() = default;
RunMemo::Stats RunMemo::stats() const { return impl_->stats; }

namespace {

// One RunPlan: the run's state and one method per phase of a life. With a RunMemo, the lives
// before the last fault's life are restored from an earlier run with the same faults there, and
// the lives after it from an earlier run that reached the same state (see RunMemo).
class PlanRunner {
 public:
  PlanRunner(const scenarios::Scenario& scenario, const faults::Plan& plan, const RunConfig& config,
             RunMemo::Impl* memo)
      : scenario_(scenario),
        plan_(plan),
        config_(config),
        params_(config.params.is_null() ? scenario.default_params() : config.params),
        memo_(memo) {
    s_.world = std::make_unique<SimFs>();
    s_.world->SetRoleClassifier(faults::DefaultRoleClassifier());
    SF_CHECK(s_.world->CreateDirIfMissing(kDir).ok());
    SF_CHECK(s_.world->SyncDir("/").ok());
    int faults_in_plan = 0;
    for (const faults::Fault& f : plan.faults) faults_in_plan += f.is_none() ? 0 : 1;
    lives_max_ = config.lives_max > 0 ? config.lives_max
                                      : scenario.fault_free_lives() + 2 * faults_in_plan + 1;
  }

  Execution Run() {
    const int last = static_cast<int>(plan_.faults.size());
    RunPrefix(last);
    RunLives(last);
    if (memo_ != nullptr && last >= 1 && !s_.stopped && s_.next_life <= lives_max_) {
      RunContinuation();
    } else {
      RunLives(lives_max_);
    }
    if (final_digest_.empty()) final_digest_ = s_.world->Digest();
    return Finish();
  }

 private:
  // The lives before the last fault's life, restored when an earlier run had the same faults there.
  void RunPrefix(int last) {
    if (memo_ == nullptr || last < 2) {
      RunLives(last - 1);
      return;
    }
    KeyWriter key;
    key.Field(std::to_string(lives_max_));
    for (int life = 1; life < last; ++life) {
      auto fault = plan_.ForLife(life);
      key.Field(fault ? fault->Print() : "none");
    }
    const std::string k = key.Finish();
    if (const RunState* kept = memo_->prefixes.Find(k)) {
      ++memo_->stats.prefix_hits;
      s_ = kept->Copy();
      return;
    }
    ++memo_->stats.prefix_misses;
    RunLives(last - 1);
    memo_->prefixes.Keep(k, s_.Copy());
  }

  // The lives after the last fault: a pure function of the key (no fault is armed there, each
  // life's seeds derive from the root seed and its index only), so an earlier run's are reused.
  void RunContinuation() {
    KeyWriter key;
    key.Field(std::to_string(lives_max_));
    key.Field(std::to_string(s_.next_life));
    // The digest the faulted life's check left, when known (CheckAfterDeath).
    const std::string digest = checked_digest_.empty() ? s_.world->Digest() : checked_digest_;
    key.Field(digest);
    key.Field(s_.damaged ? "damaged" : "intact");
    AddHistory(&key);
    const std::string k = key.Finish();
    if (const RunMemo::Continuation* kept = memo_->continuations.Find(k)) {
      ++memo_->stats.continuation_hits;
      const RunMemo::Continuation& c = *kept;
      s_.ex.lives.insert(s_.ex.lives.end(), c.lives.begin(), c.lives.end());
      s_.ex.violations.insert(s_.ex.violations.end(), c.violations.begin(), c.violations.end());
      s_.ex.completed = c.completed;
      s_.stopped = c.stopped;
      s_.harness_error = c.harness_error;
      final_digest_ = c.final_digest;
      return;
    }
    ++memo_->stats.continuation_misses;
    const size_t lives_before = s_.ex.lives.size();
    const size_t violations_before = s_.ex.violations.size();
    if (scenario_.LifeReadsPrevious()) {
      RunLives(lives_max_);
    } else {
      RunCrashStateLives(digest);
    }
    final_digest_ = s_.world->Digest();
    RunMemo::Continuation c;
    c.lives.assign(s_.ex.lives.begin() + static_cast<std::ptrdiff_t>(lives_before),
                   s_.ex.lives.end());
    c.violations.assign(s_.ex.violations.begin() + static_cast<std::ptrdiff_t>(violations_before),
                        s_.ex.violations.end());
    c.completed = s_.ex.completed;
    c.stopped = s_.stopped;
    c.harness_error = s_.harness_error;
    c.final_digest = final_digest_;
    memo_->continuations.Keep(k, std::move(c));
  }

  // What the oracles read besides the world: their notes and every earlier life's report.
  void AddHistory(KeyWriter* key) const {
    key->Field(s_.memo.dump());
    for (const scenarios::LifeReport& r : s_.reports) {
      key->Field(r.command);
      key->Field(std::to_string(static_cast<int>(r.status.code())) + " " + r.status.ToString());
      key->Field(std::to_string(r.completed) + std::to_string(r.final) + std::to_string(r.died) +
                 std::to_string(r.power_lost) + std::to_string(r.damaged) + " " +
                 std::to_string(r.exit_code));
      key->Field(std::to_string(r.trace.size()));
      for (const std::string& line : r.trace) key->Field(line);
      key->Field(r.facts.dump());
    }
  }

  // The check after a life that died (the plan's faulted life): a pure function of the life, the
  // post-death world (its digest), the oracle's notes and the history, like every check (see
  // RunMemo). Sibling plans of one crash state that die into an equal world with an equal history
  // share it: the verdict, the notes after it and the harness error are taken from the first,
  // which is kept only when its check left the world unchanged (digest), so nothing else is owed.
  // Either way the digest of the world after the check is left in checked_digest_.
  void CheckAfterDeath(int life, const LifeRecord& record) {
    if (memo_ == nullptr) {
      CheckWorld(life, record);
      return;
    }
    KeyWriter key;
    key.Field(std::to_string(lives_max_));
    key.Field(std::to_string(life));
    key.Field(record.world_digest);
    AddHistory(&key);
    const std::string k = key.Finish();
    if (const RunMemo::DeathCheck* kept = memo_->death_checks.Find(k)) {
      ++memo_->stats.death_check_hits;
      const RunMemo::DeathCheck& d = *kept;
      s_.ex.violations.insert(s_.ex.violations.end(), d.violations.begin(), d.violations.end());
      s_.memo = d.memo;
      s_.harness_error = d.harness_error;
      checked_digest_ = record.world_digest;
      return;
    }
    ++memo_->stats.death_check_misses;
    const size_t violations_before = s_.ex.violations.size();
    CheckWorld(life, record);
    checked_digest_ = s_.world->Digest();
    if (checked_digest_ != record.world_digest) return;  // the check wrote: not kept
    RunMemo::DeathCheck d;
    d.violations.assign(s_.ex.violations.begin() + static_cast<std::ptrdiff_t>(violations_before),
                        s_.ex.violations.end());
    d.memo = s_.memo;
    d.harness_error = s_.harness_error;
    memo_->death_checks.Keep(k, std::move(d));
  }

  // Runs lives from the next one up to `until` (and lives_max) unless the run has stopped.
  void RunLives(int until) {
    for (; s_.next_life <= std::min(until, lives_max_) && !s_.stopped; ++s_.next_life)
      s_.stopped = LiveAndCheck(s_.next_life);
  }

  // Crash-state reuse: the lives after the last fault, the first from a world of `digest`. The
  // hosts do not read `previous` and every seed of a life derives from its index, so a life on a
  // world equal to one an earlier run's life with the same index started on does exactly what that
  // life did; it is taken from there and only the checks (which read the history) run again. Each
  // life is looked up by (index, digest of the world it starts on, after the last check), so runs
  // whose crash states differ but whose recoveries converge (a crash anywhere in `start` before
  // the receipt, then a full `start`) share the lives after the point where their worlds became
  // equal. A miss lives the life and keeps it.
  void RunCrashStateLives(const std::string& digest) {
    for (bool first = true; s_.next_life <= lives_max_ && !s_.stopped; ++s_.next_life) {
      const std::string input = first ? digest : s_.world->Digest();
      const std::string k = std::to_string(s_.next_life) + "|" + input;
      auto it = memo_->lives.find(k);
      if (it != memo_->lives.end()) {
        ++memo_->stats.lives_hits;
        if (!first) ++memo_->stats.later_lives_hits;
        const std::shared_ptr<const ReusedLife> reused = it->second;
        s_.stopped = LiveAndCheck(s_.next_life, reused.get());
      } else {
        ++memo_->stats.lives_misses;
        ReusedLife kept{input, {}, "", nullptr, 0};
        filling_ = &kept;
        s_.stopped = LiveAndCheck(s_.next_life);
        filling_ = nullptr;
        if (kept.world != nullptr) Keep(k, std::move(kept));
      }
      first = false;
    }
  }

  // Keeps a lived life for crash-state reuse, within the memory bound.
  void Keep(const std::string& k, ReusedLife life) {
    if (memo_->lives.count(k) != 0) return;
    if (memo_->lives_bytes + life.bytes > RunMemo::Impl::kLivesBytesMax) {
      memo_->lives.clear();
      memo_->lives_bytes = 0;
    }
    memo_->lives_bytes += life.bytes;
    memo_->lives.emplace(k, std::make_shared<const ReusedLife>(std::move(life)));
  }

  // Either lives `life` (and keeps it when filling_) or takes it from `reused`.
  LifeRecord LiveOrReuse(int life, const ReusedLife* reused) {
    if (reused != nullptr) {
      s_.world = reused->world->CrashClone(DeathKind::kCrash, 0);
      s_.world->SetRoleClassifier(faults::DefaultRoleClassifier());
      s_.harness_error = reused->life_error;
      return reused->record;
    }
    LifeRecord record = RunLife(life);
    // A death rewrites the world after the life (never so without a fault): not kept.
    if (filling_ != nullptr && record.death.empty()) {
      ReusedLife& kept = *filling_;
      kept.record = record;
      kept.life_error = s_.harness_error;
      std::unique_ptr<SimFs> copy = s_.world->CrashClone(DeathKind::kCrash, 0);
      copy->SetRoleClassifier(faults::DefaultRoleClassifier());
      for (const std::string& path : copy->ListAllFiles()) {
        auto size = copy->GetFileSize(path);
        kept.bytes += 2 * (size.ok() ? *size : 0);
      }
      kept.world = std::move(copy);
    }
    return record;
  }

  // One life (or a reused one) and its checks; true when the run stops after it.
  bool LiveAndCheck(int life, const ReusedLife* reused = nullptr) {
    checked_digest_.clear();
    LifeRecord fresh = LiveOrReuse(life, reused);
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

  Execution Finish() {
    Execution& ex = s_.ex;
    ex.final_digest = final_digest_;
    if (s_.harness_error.empty() && !ex.completed &&
        (ex.lives.empty() || !ex.lives.back().report.final)) {
      ex.violations.push_back({scenarios::kInvLiveness,
                               "not completed within " + std::to_string(lives_max_) + " lives"});
    }
    WriteTrace();
    return std::move(ex);
  }

  scenarios::HostEnv MakeEnv(SimFs* fs, const std::string& vfs, Probe* probe, Clock* clock,
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
  LifeRecord RunLife(int life) {
    SimFs* world = s_.world.get();
    LifeRecord record;
    record.fault = plan_.ForLife(life);
    if (record.fault && record.fault->is_none()) record.fault.reset();
    faults::Injector injector(record.fault, world);
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
        // A counterexample, not the end of the exploration (INV-HARNESS).
        s_.harness_error = "life " + std::to_string(life) + " threw: " + e.what();
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
    }
    return record;
  }

  // The possible world after the death, damaged afterwards for `corrupt`.
  void AfterDeath(int life, LifeRecord* record) {
    const DeathKind kind = record->death == "powerloss" ? DeathKind::kPowerLoss
                           : record->death == "exit"    ? DeathKind::kExit
                                                        : DeathKind::kCrash;
    record->report.died = true;
    record->report.power_lost = kind == DeathKind::kPowerLoss;
    record->report.completed = false;
    record->report.final = false;
    if (kind == DeathKind::kExit) record->report.exit_code = 1;
    s_.world =
        s_.world->CrashClone(kind, DeriveSeed(config_.seed, "clone|" + std::to_string(life)));
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
  void Check(SimFs* world, Json* memo, int life, bool last,
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

  void CheckWorld(int life, const LifeRecord& record) {
    const bool last = record.report.completed || record.report.final || life == lives_max_;
    Check(s_.world.get(), &s_.memo, life, last, s_.reports, "");
  }

  // Per-life observations: whatever a life that ended normally reported to the outside (its exit,
  // its status, a receipt, a completion, the checkpoints it saw committed) must hold in the world a
  // power loss right after it would leave. The scenario's oracle runs on that world, with a copy
  // of its notes so the real run's memo is untouched.
  void CheckObservedSurvivesPowerLoss(int life, const LifeRecord& record) {
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

  void JudgeGiveUp(int life, const LifeRecord& record) {
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

  void WriteTrace() {
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

  const scenarios::Scenario& scenario_;
  const faults::Plan& plan_;
  const RunConfig& config_;
  const Json params_;
  RunMemo::Impl* memo_;
  int lives_max_ = 0;
  RunState s_;
  ReusedLife* filling_ = nullptr;  // the life being kept for crash-state reuse, if any
  std::string final_digest_;       // known early when the lives after the last fault were reused
  std::string checked_digest_;     // the world's digest after the last life's check, if known
};

}  // namespace

Execution RunPlan(const scenarios::Scenario& scenario, const faults::Plan& plan,
                  const RunConfig& config, RunMemo* memo) {
  return PlanRunner(scenario, plan, config, memo == nullptr ? nullptr : memo->impl()).Run();
}

}  // namespace stepfault::properties
