// RunMemo (life_runner.h): the work one RunPlan of an exploration can take from an earlier one
// instead of doing it again. MemoLoop drives the reference loop (LifeLoop,
// life_runner_internal.h) phase by phase and answers a phase from the memo when it can.
#include <algorithm>
#include <list>
#include <map>
#include <memory>
#include <optional>

#include "faults/injector.h"
#include "faults/plan.h"
#include "faults/points.h"
#include "properties/life_runner_internal.h"

namespace stepfault::properties {
namespace {

using faults::DeathKind;
using faults::SimFs;

// 128 bits of hash of a canonical text (length-prefixed fields, so no two inputs share a text).
class KeyWriter {
 public:
  void Field(std::string_view v) {
    text_ += std::to_string(v.size());
    text_ += ':';
    text_ += v;
  }
  // XXH3-128 (faults::HashBytes): two byte-at-a-time Hash64 passes over the key text were 2% of a
  // depth-2 exploration.
  std::string Finish() const { return faults::HashBytes(text_); }

 private:
  std::string text_;
};

// An independent copy. Between lives no handle or lock is open and the world is not frozen, so a
// crash clone is an exact copy of everything that decides the world's future (SimFs::Digest).
RunState CopyState(const RunState& from) {
  RunState s;
  s.world = from.world->CrashClone(DeathKind::kCrash, 0);
  s.world->SetRoleClassifier(faults::DefaultRoleClassifier());
  s.next_life = from.next_life;
  s.stopped = from.stopped;
  s.damaged = from.damaged;
  s.harness_error = from.harness_error;
  s.reports = from.reports;
  s.memo = from.memo;
  s.ex = from.ex;
  return s;
}

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
  std::string input_digest;  // SimFs::Digest of the world the life started on
  LivedLife life;            // the life, the world right after it, before its checks
};

// A map bounded by what its entries hold (HeldBytes, life_runner_internal.h, the key included):
// keeping an entry first evicts the least recently used ones until it fits. The tasks of one crash
// state are neighbours, so what was used last is what the next tasks want (a recording is used by
// every sibling plan in turn). A key kept once stays as it was kept until evicted.
template <typename V>
class KeptTable {
 public:
  explicit KeptTable(uint64_t bytes_max) : max_(bytes_max) {}
  KeptTable(const KeptTable&) = delete;
  KeptTable& operator=(const KeptTable&) = delete;
  // The kept value (valid until the next Keep), or null.
  const V* Find(const std::string& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return nullptr;
    order_.splice(order_.end(), order_, it->second.at);
    return &it->second.value;
  }
  // `bytes`: what the value holds (HeldBytes). A value that alone passes the bound is not kept.
  void Keep(const std::string& key, V value, uint64_t bytes) {
    bytes += 2 * HeldBytes(key) + kNodeBytes;
    if (map_.count(key) != 0 || bytes > max_) return;
    while (bytes_ + bytes > max_) {
      auto oldest = map_.find(order_.front());
      bytes_ -= oldest->second.bytes;
      map_.erase(oldest);
      order_.pop_front();
      ++evicted_;
    }
    const auto at = order_.insert(order_.end(), key);
    map_.emplace(key, Kept{std::move(value), bytes, at});
    bytes_ += bytes;
    peak_ = std::max(peak_, bytes_);
  }
  uint64_t peak_bytes() const { return peak_; }
  int64_t evicted() const { return evicted_; }

 private:
  static constexpr uint64_t kNodeBytes = 96;  // the map's node and the order's
  struct Kept {
    V value;
    uint64_t bytes;
    std::list<std::string>::iterator at;
  };
  uint64_t max_;
  uint64_t bytes_ = 0;
  uint64_t peak_ = 0;
  int64_t evicted_ = 0;
  std::map<std::string, Kept> map_;
  std::list<std::string> order_;  // the keys, least recently used first
};

struct RunMemo::Impl {
  // Each table takes a fixed share of the budget. One least-recently-used order over every table
  // let the kept worlds (a crash-state life or a prefix holds a world of several MB) evict the
  // small continuations and death checks, which save whole lives: over json-state-shapes on SQLite
  // at depth 2 it halved their hits and lived 2.4 times the recovery lives.
  explicit Impl(uint64_t max)
      : prefixes(max / 10),
        continuations(max / 5),
        death_checks(max / 20),
        lives(max / 5),
        recording_bytes_max(max / 5 * 2),
        recordings(max / 20 * 9) {}
  // Worlds dominate what is kept: a kept world of a SQLite WAL store holds its WAL file's image
  // even after the file is unlinked (the unlink is not dir-synced), about 4 MB, ten times its
  // files' sizes; counting files' sizes only, a 32 MB bound on the kept lives held 577 MB of
  // images (jemalloc heap profile) and a worker peaked at 769 MB.
  KeptTable<RunState> prefixes;
  KeptTable<Continuation> continuations;
  // The checks after deaths (MemoLoop::CheckAfterDeath).
  KeptTable<DeathCheck> death_checks;
  // (life, world digest) -> that life as an earlier run lived it from that world (crash-state
  // reuse), for every life after a plan's last fault, not only the first one.
  KeptTable<std::shared_ptr<const ReusedLife>> lives;
  // (life, world digest, history) -> that life recorded fault-free window by window, from which
  // every death-kind fault in it is derived (MemoLoop::Derive). The children of one crash state
  // are neighbouring tasks and use it in turn; each recording's copies hold at most
  // recording_bytes_max (past it the later windows are lived), the rest is what it lived.
  uint64_t recording_bytes_max;
  KeptTable<std::shared_ptr<const LifeRecording>> recordings;
  RunMemo::Stats stats;
};

RunMemo::RunMemo(uint64_t kept_bytes_max) : impl_(std::make_unique<Impl>(kept_bytes_max)) {}
RunMemo::~RunMemo() = default;
RunMemo::Stats RunMemo::stats() const {
  RunMemo::Stats s = impl_->stats;
  const Impl& m = *impl_;
  s.kept_bytes_peak = m.prefixes.peak_bytes() + m.continuations.peak_bytes() +
                      m.death_checks.peak_bytes() + m.lives.peak_bytes() +
                      m.recordings.peak_bytes();
  s.kept_evicted = m.prefixes.evicted() + m.continuations.evicted() + m.death_checks.evicted() +
                   m.lives.evicted() + m.recordings.evicted();
  return s;
}

namespace {

// One RunPlan with a memo: the lives before the last fault's life are restored from an earlier run
// with the same faults there, and the lives after it from an earlier run that reached the same
// state (see RunMemo); what is not found is lived by the reference loop, and kept.
class MemoLoop final : public LifeLoop {
 public:
  MemoLoop(const scenarios::Scenario& scenario, const faults::Plan& plan, const RunConfig& config,
           RunMemo::Impl* memo)
      : LifeLoop(scenario, plan, config), memo_(memo) {}

  Execution Run() {
    const int last = static_cast<int>(plan().faults.size());
    RunPrefix(last);
    RunLives(last);
    if (last >= 1 && !s_.stopped && s_.next_life <= lives_max()) {
      RunContinuation();
    } else {
      RunLives(lives_max());
    }
    if (final_digest_.empty()) final_digest_ = s_.world->Digest();
    return Finish(final_digest_);
  }

 private:
  // The lives before the last fault's life, restored when an earlier run had the same faults there.
  void RunPrefix(int last) {
    if (last < 2) {
      RunLives(last - 1);
      return;
    }
    KeyWriter key;
    key.Field(std::to_string(lives_max()));
    for (int life = 1; life < last; ++life) {
      auto fault = plan().ForLife(life);
      key.Field(fault ? fault->Print() : "none");
    }
    const std::string k = key.Finish();
    if (const RunState* kept = memo_->prefixes.Find(k)) {
      ++memo_->stats.prefix_hits;
      s_ = CopyState(*kept);
      return;
    }
    ++memo_->stats.prefix_misses;
    RunLives(last - 1);
    RunState kept = CopyState(s_);
    const uint64_t bytes = HeldBytes(kept);
    memo_->prefixes.Keep(k, std::move(kept), bytes);
  }

  // The lives after the last fault: a pure function of the key (no fault is armed there, each
  // life's seeds derive from the root seed and its index only), so an earlier run's are reused.
  void RunContinuation() {
    KeyWriter key;
    key.Field(std::to_string(lives_max()));
    key.Field(std::to_string(s_.next_life));
    // The digest the faulted life's check left, when known (CheckAfterDeath).
    const std::string digest =
        checked_life_ == s_.next_life - 1 ? checked_digest_ : s_.world->Digest();
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
    if (scenario().LifeReadsPrevious()) {
      RunLives(lives_max());
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
    uint64_t bytes = sizeof(c) + HeldBytes(c.violations) + HeldBytes(c.harness_error) +
                     HeldBytes(c.final_digest);
    for (const LifeRecord& r : c.lives) bytes += HeldBytes(r);
    memo_->continuations.Keep(k, std::move(c), bytes);
  }

  // What the oracles read besides the world: their notes and every earlier life's report.
  void AddHistory(KeyWriter* key) const {
    key->Field(s_.memo.dump());
    AddReports(key);
  }

  // Every earlier life's report (what a life is handed as `previous` and the harness's
  // instrumentation reads).
  void AddReports(KeyWriter* key) const {
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
  // Either way the digest of the world after the check is left in checked_digest_ (of
  // checked_life_).
  void CheckAfterDeath(int life, const LifeRecord& record) override {
    checked_life_ = life;
    KeyWriter key;
    key.Field(std::to_string(lives_max()));
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
    const uint64_t bytes = HeldBytes(d.violations) + HeldBytes(d.memo) + HeldBytes(d.harness_error);
    memo_->death_checks.Keep(k, std::move(d), bytes);
  }

  // A life whose fault is a death (crash, powerloss, corrupt, fail-after-write) is the fault-free
  // life up to the hit where the fault fires, and a dying life is cut at its death (RunLife), so
  // it is derived from a recording of the fault-free life from an equal world with an equal history
  // (every seed of a life derives from its index): the firing hit is found by an injector driven
  // over the recorded hits, the record (windows up to it, the report then) and the world at that
  // hit are taken from the recording, and the post-death world is drawn from it as after a lived
  // death. A fault that never fires leaves the recorded life itself. Past the recording's memory
  // bound, the life is lived.
  bool Derive(int life, LivedLife* out) override {
    std::optional<faults::Fault> fault = plan().ForLife(life);
    if (!fault || fault->is_none() || !faults::IsDeath(fault->action)) return false;
    KeyWriter key;
    key.Field(std::to_string(life));
    key.Field(s_.world->Digest());
    AddReports(&key);
    const std::string k = key.Finish();
    std::shared_ptr<const LifeRecording> rec;
    if (const auto* kept = memo_->recordings.Find(k)) {
      rec = *kept;
    } else {
      ++memo_->stats.recordings;
      rec = std::make_shared<const LifeRecording>(RecordLife(life, memo_->recording_bytes_max));
      memo_->recordings.Keep(k, rec, rec->bytes + HeldBytes(rec->lived));
    }
    const std::vector<faults::Window>& hits = rec->lived.record.windows;
    faults::Injector firing(fault);
    size_t at = 0;
    while (at < hits.size() && (firing.OnPoint(hits[at].point), !firing.died())) ++at;
    if (at == hits.size()) {
      ++memo_->stats.derived_lives;
      *out = rec->lived;
      out->record.fault = fault;
      return true;
    }
    if (at >= rec->at.size()) {
      ++memo_->stats.lived_past_bound;
      return false;
    }
    ++memo_->stats.derived_lives;
    LifeRecord& r = out->record;
    r.fault = fault;
    r.fired = hits[at];
    r.windows.assign(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    r.report = rec->at[at].report;
    r.death = std::string(faults::DeathKindName(faults::DeathKindOf(fault->action)));
    r.death_point = hits[at].point;
    out->world = rec->at[at].world;
    return true;
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
    for (bool first = true; s_.next_life <= lives_max() && !s_.stopped; ++s_.next_life) {
      const std::string input = first ? digest : s_.world->Digest();
      const std::string k = std::to_string(s_.next_life) + "|" + input;
      if (const auto* found = memo_->lives.Find(k)) {
        ++memo_->stats.lives_hits;
        if (!first) ++memo_->stats.later_lives_hits;
        const std::shared_ptr<const ReusedLife> reused = *found;
        s_.stopped = LiveAndCheck(s_.next_life, &reused->life, nullptr);
      } else {
        ++memo_->stats.lives_misses;
        ReusedLife kept{input, {}};
        s_.stopped = LiveAndCheck(s_.next_life, nullptr, &kept.life);
        if (kept.life.world != nullptr) {
          const uint64_t bytes = HeldBytes(kept.life) + HeldBytes(kept.input_digest);
          memo_->lives.Keep(k, std::make_shared<const ReusedLife>(std::move(kept)), bytes);
        }
      }
      first = false;
    }
  }

  RunMemo::Impl* memo_;
  RunState& s_ = state();     // the loop's
  std::string final_digest_;  // known early when the lives after the last fault were reused
  // The life whose death check last ran here, and the world's digest after that check.
  int checked_life_ = 0;
  std::string checked_digest_;
};

}  // namespace

Execution RunPlanWithMemo(const scenarios::Scenario& scenario, const faults::Plan& plan,
                          const RunConfig& config, RunMemo::Impl* memo) {
  return MemoLoop(scenario, plan, config, memo).Run();
}

}  // namespace stepfault::properties
