// RunMemo (life_runner.h): the work one RunPlan of an exploration can take from an earlier one
// instead of doing it again. MemoLoop drives the reference loop (LifeLoop,
// life_runner_internal.h) phase by phase and answers a phase from the memo when it can.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "engine/random.h"
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
  std::string Finish() const {
    return std::to_string(Hash64(text_, 21)) + "-" + std::to_string(Hash64(text_, 22));
  }

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
  uint64_t bytes = 0;        // what life.world holds (files' bytes, twice), for the bound
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
  // which underestimates a kept world about 7x under SQLite's WAL (heap profile: 577 MB of file
  // images held while 32 MB were counted; a worker peaked at 769 MB). 4 MB took that worker to
  // 499 MB with the same reports and the same time over the default run.
  static constexpr uint64_t kLivesBytesMax = uint64_t{4} << 20;
  OldestFirst<RunState> prefixes{8};
  OldestFirst<Continuation> continuations{2048};
  // The checks after deaths (MemoLoop::CheckAfterDeath).
  OldestFirst<DeathCheck> death_checks{4096};
  // (life, world digest) -> that life as an earlier run lived it from that world (crash-state
  // reuse), for every life after a plan's last fault, not only the first one.
  std::map<std::string, std::shared_ptr<const ReusedLife>> lives;
  std::deque<std::string> lives_order;  // the keys of `lives`, oldest first (evicted first)
  uint64_t lives_bytes = 0;
  // (life, world digest, history) -> that life recorded fault-free window by window, from which
  // every death-kind fault in it is derived (MemoLoop::Derive). The children of one crash state
  // are neighbouring tasks, so a few suffice; each is bounded by what its worlds hold.
  static constexpr uint64_t kRecordingBytesMax = uint64_t{64} << 20;
  OldestFirst<std::shared_ptr<const LifeRecording>> recordings{2};
  RunMemo::Stats stats;
};

RunMemo::RunMemo() : impl_(std::make_unique<Impl>()) {}
RunMemo::~RunMemo() = default;
RunMemo::Stats RunMemo::stats() const { return impl_->stats; }

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
    memo_->prefixes.Keep(k, CopyState(s_));
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
    memo_->continuations.Keep(k, std::move(c));
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
    memo_->death_checks.Keep(k, std::move(d));
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
      rec = std::make_shared<const LifeRecording>(
          RecordLife(life, RunMemo::Impl::kRecordingBytesMax));
      memo_->recordings.Keep(k, rec);
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
      auto it = memo_->lives.find(k);
      if (it != memo_->lives.end()) {
        ++memo_->stats.lives_hits;
        if (!first) ++memo_->stats.later_lives_hits;
        const std::shared_ptr<const ReusedLife> reused = it->second;
        s_.stopped = LiveAndCheck(s_.next_life, &reused->life, nullptr);
      } else {
        ++memo_->stats.lives_misses;
        ReusedLife kept{input, {}, 0};
        s_.stopped = LiveAndCheck(s_.next_life, nullptr, &kept.life);
        if (kept.life.world != nullptr) {
          kept.bytes = WorldBytes(kept.life.world.get());
          Keep(k, std::move(kept));
        }
      }
      first = false;
    }
  }

  // Keeps a lived life for crash-state reuse, within the memory bound.
  void Keep(const std::string& k, ReusedLife life) {
    if (memo_->lives.count(k) != 0) return;
    // The oldest lives go first. Clearing every kept life at the bound dropped lives still
    // wanted: in a depth-2 worker of approval/sqlite a quarter of the lives lived were of a world
    // an evicted life had started on; oldest-first lives 1-4% fewer per worker (issue 27).
    while (!memo_->lives_order.empty() &&
           memo_->lives_bytes + life.bytes > RunMemo::Impl::kLivesBytesMax) {
      auto oldest = memo_->lives.find(memo_->lives_order.front());
      memo_->lives_bytes -= oldest->second->bytes;
      memo_->lives.erase(oldest);
      memo_->lives_order.pop_front();
    }
    memo_->lives_bytes += life.bytes;
    memo_->lives_order.push_back(k);
    memo_->lives.emplace(k, std::make_shared<const ReusedLife>(std::move(life)));
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
