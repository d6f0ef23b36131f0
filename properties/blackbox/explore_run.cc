// Running black-box exploration's tasks (see explore_internal.h).
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

#include "faults/blackbox/plan.h"
#include "properties/blackbox/explore_internal.h"
#include "properties/worker_pool.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::blackbox {

namespace fs = std::filesystem;
using faults::blackbox::CrashKind;
using faults::blackbox::CrashState;
using faults::blackbox::IsCrashLike;
using faults::blackbox::TraceWindow;
using Json = nlohmann::json;

CrashKind KindOf(const std::string& action) {
  if (action == "crash") return CrashKind::kCrash;
  if (action == "reorder") return CrashKind::kReorder;
  return CrashKind::kPowerLoss;
}

std::vector<CrashState> StatesOf(const CrashState& initial, const faults::blackbox::Trace& trace,
                                 size_t record, const std::string& action, uint64_t seed,
                                 faults::blackbox::PersistenceModel model) {
  faults::blackbox::CrashModelOptions options;
  options.fs_model = model;
  std::vector<CrashState> out = {
      faults::blackbox::BuildCrashState(initial, trace, record, KindOf(action), seed, -1, options)};
  if (action == "powerloss") {
    CrashState lost =
        faults::blackbox::BuildCrashState(initial, trace, record, KindOf(action), seed, 0, options);
    if (lost.Digest() != out[0].Digest()) out.push_back(std::move(lost));
  }
  return out;
}

uint64_t StateKey(const CrashState& state, const std::string& acked) {
  return state.Digest() ^ (std::hash<std::string>()(acked) * 31);
}

namespace {

Json FailuresJson(const std::vector<scenarios::blackbox::CheckFailure>& f) {
  Json out = Json::array();
  for (const scenarios::blackbox::CheckFailure& c : f) out.push_back({c.invariant, c.message});
  return out;
}
std::vector<scenarios::blackbox::CheckFailure> FailuresFrom(const Json& j) {
  std::vector<scenarios::blackbox::CheckFailure> out;
  for (const Json& c : j) out.push_back({c[0].get<std::string>(), c[1].get<std::string>()});
  return out;
}
Json ToJson(const Outcome& o) {
  Json d2 = Json::array();
  for (const Depth2Violation& v : o.depth2)
    d2.push_back({{"plan", v.plan},
                  {"failures", FailuresJson(v.failures)},
                  {"second", v.second},
                  {"acked", v.acked}});
  Json pairs = Json::array();
  for (const PairRun& p : o.pairs)
    pairs.push_back({p.action, p.window, p.point, p.occurrence, p.ran, p.lives, p.invariants});
  return {{"failures", FailuresJson(o.failures)},
          {"pairs", pairs},
          {"lives", o.lives},
          {"pairs_total", o.pairs_total},
          {"pairs_run", o.pairs_run},
          {"depth2", d2},
          {"notes", o.notes},
          {"not_run", o.not_run}};
}
Outcome FromJson(const Json& j) {
  Outcome o;
  o.failures = FailuresFrom(j["failures"]);
  o.lives = j["lives"].get<int>();
  o.pairs_total = j["pairs_total"].get<int64_t>();
  o.pairs_run = j["pairs_run"].get<int64_t>();
  for (const Json& v : j["depth2"])
    o.depth2.push_back({v["plan"].get<std::string>(), FailuresFrom(v["failures"]),
                        v["second"].get<int64_t>(), v["acked"].get<std::string>()});
  o.notes = j["notes"].get<std::vector<std::string>>();
  o.not_run = j["not_run"].get<bool>();
  for (const Json& p : j["pairs"]) {
    o.pairs.push_back({p[0].get<std::string>(), p[1].get<std::string>(), p[2].get<std::string>(),
                       p[3].get<int>(), p[4].get<bool>(), p[5].get<int>(),
                       p[6].get<std::vector<std::string>>()});
  }
  return o;
}

// Depth 2: crash and power loss at every window of the first recovery life (an evenly spaced
// sample of at most `cap` pairs), each recovered again and checked. Every pair is listed in
// out->pairs (run or not), so the report has a cell for it; an identical second state (by digest
// and acknowledgements) takes the outcome of the first instead of running again.
void RunDepth2(const scenarios::blackbox::Spec& spec, const SessionConfig& config, const Task& task,
               const LifeResult& first, const std::string& cell, int64_t cap, Outcome* out) {
  std::vector<TraceWindow> windows =
      faults::blackbox::WindowsOf(first.recovery_trace, spec.temp_names);
  std::vector<std::pair<std::string, const TraceWindow*>> pairs;
  for (const TraceWindow& w : windows) {
    for (const char* a : {"crash", "powerloss"}) pairs.push_back({a, &w});
  }
  out->pairs_total = static_cast<int64_t>(pairs.size());
  for (const auto& [action, w] : pairs)
    out->pairs.push_back({action, "recover:" + w->id, w->point, w->occurrence, false, 0, {}});
  std::map<uint64_t, size_t> seen;  // state key -> the pair that ran it
  int64_t n = static_cast<int64_t>(pairs.size());
  int64_t take = std::min<int64_t>(n, cap);
  for (int64_t k = 0; k < take; ++k) {
    const size_t index = static_cast<size_t>(k * n / take);
    const auto& [action, w] = pairs[index];
    PairRun& pr = out->pairs[index];
    faults::blackbox::CrashModelOptions options;
    options.fs_model = config.fs_model;
    CrashState state = faults::blackbox::BuildCrashState(
        task.state, first.recovery_trace, w->record, KindOf(action), config.seed, -1, options);
    std::string acked = task.acked + AckedBefore(first.recovery_trace, w->record, config.ack);
    ++out->pairs_run;
    pr.ran = true;
    auto [it, fresh] = seen.emplace(state.Digest() ^ std::hash<std::string>()(acked), index);
    if (!fresh) {
      pr.lives = out->pairs[it->second].lives;
      pr.invariants = out->pairs[it->second].invariants;
      continue;
    }
    LifeResult second = RecoverAndCheck(spec, config, cell + "-d2", &state, acked, nullptr, false);
    pr.lives = second.lives;
    std::set<std::string> inv;
    for (const scenarios::blackbox::CheckFailure& f : second.failures) inv.insert(f.invariant);
    pr.invariants.assign(inv.begin(), inv.end());
    if (!second.failures.empty())
      out->depth2.push_back({task.action + "@" + task.window.id + ";" + action + "@" + w->id,
                             second.failures, static_cast<int64_t>(index), acked});
  }
}

Outcome RunTask(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                const Task& task, const scenarios::blackbox::Reference& ref,
                const std::string& cell, int depth, int64_t pair_cap) {
  Outcome out;
  LifeResult life;
  if (IsCrashLike(task.action)) {
    life = RecoverAndCheck(spec, config, cell, &task.state, task.acked, &ref, depth == 2);
  } else {
    // The live run already happened (LiveIOError) and left its directory in the cell.
    life = RecoverAndCheck(spec, config, cell, nullptr, task.acked, &ref, false);
  }
  out.failures = life.failures;
  out.lives = life.lives;
  out.notes = life.notes;
  if (depth == 2 && IsCrashLike(task.action) && out.failures.empty())
    RunDepth2(spec, config, task, life, cell, pair_cap, &out);
  return out;
}

// Runs job(i) for every i in `indices` on the worker pool (properties/worker_pool.h): here when
// jobs <= 1, else in `jobs` forked guarded workers. Results in the order of `indices`; `one_done`
// is called in this process once per finished job, for the progress display only. A worker that
// dies (the program or a check killed it, an abort) answers the job it was on with
// {"harness": why}, naming the job by `name(i)`; RunAll makes that an INV-HARNESS failure of the
// job's cells.
std::vector<Json> Parallel(const std::vector<size_t>& indices, int jobs,
                           const std::function<Json(size_t)>& job,
                           const std::function<std::string(size_t)>& name,
                           const std::function<void()>& one_done) {
  PoolOptions options;
  options.jobs = jobs;
  options.progress = [&](int64_t) { one_done(); };
  options.on_death = [&](size_t i, const std::string& how) {
    return Json{{"harness", "the worker running " + name(i) + " " + how +
                                " (the program, a check or an abort killed it)"}};
  };
  std::vector<Json> out;
  for (std::optional<Json>& answer : RunPool(indices, job, options)) {
    // Black-box commands install the process guard, not the graceful interrupt: nothing asks the
    // pool to stop, a signal kills the run.
    SF_CHECK(answer.has_value() && "black-box exploration was interrupted");
    out.push_back(std::move(*answer));
  }
  return out;
}

// The live ioerror run of `task` in `cell`: {"key", "acked"} of the directory it left, plus
// "missed" (the call that failed instead, or "") when the run never failed the window's call; or
// {"error"} when it could not be set up.
Json LiveIOError(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                 const Recording& rec, const Task& task, const std::string& cell) {
  int err = task.action == "ioerror:ENOSPC" ? ENOSPC : EIO;
  Result<IOErrorRun> run = RunWithIOError(spec, config, cell, rec, task.window, err, false);
  if (!run.ok()) return {{"error", run.status().message()}};
  Result<CrashState> left =
      faults::blackbox::LoadDirectory((fs::path(cell) / "work" / spec.dir).string());
  // A directory that cannot be read is its own state (never shared): key by the cell.
  const uint64_t digest = left.ok() ? left->Digest() : std::hash<std::string>()(cell);
  Json out = {{"key", std::to_string(digest ^ (std::hash<std::string>()(run->acked) * 31))},
              {"acked", run->acked}};
  if (!run->struck) out["missed"] = run->struck_point;
  return out;
}

// A live ioerror run that leaves nothing to recover: its worker died (INV-HARNESS), it could not
// be set up (INV-LIVENESS), or the program did not make the window's call again (nothing at this
// window was tested: not run). True when `left` is one of those, with `out` filled.
bool SettledWithoutRecovery(const Json& left, const Task& task, Outcome* out) {
  if (left.contains("harness")) {
    out->failures.push_back({scenarios::kInvHarness, left["harness"].get<std::string>()});
    return true;
  }
  if (left.contains("error")) {
    out->failures.push_back({scenarios::kInvLiveness, "the ioerror run could not be set up: " +
                                                          left["error"].get<std::string>()});
    return true;
  }
  if (!left.contains("missed")) return false;
  const std::string other = left["missed"].get<std::string>();
  out->not_run = true;
  out->notes.push_back("NONDETERMINISTIC: the live run of " + task.action + "@" + task.window.id +
                       (other.empty() ? " never reached the window's call"
                                      : " failed a different call (" + other + ")") +
                       "; the cell is left not run");
  return true;
}

}  // namespace

std::vector<Outcome> RunAll(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                            const std::vector<Task>& tasks, const Recording& rec, int depth,
                            int64_t pair_cap, int jobs, IOErrorDedup* dedup,
                            const std::function<void(int64_t done, int64_t total)>& progress) {
  auto cell = [&](size_t i) {
    return (fs::path(config.scratch) / ("state-" + std::to_string(i))).string();
  };
  // Phase 1: every ioerror cell runs live (the directory it leaves is known only then).
  std::vector<size_t> live;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (!IsCrashLike(tasks[i].action)) live.push_back(i);
  const int64_t total = static_cast<int64_t>(tasks.size() + live.size());
  int64_t done = 0;
  auto one_done = [&] {
    if (progress) progress(++done, total);
  };
  auto name = [&](size_t i) { return tasks[i].action + "@" + tasks[i].window.id; };
  std::vector<Json> left = Parallel(
      live, jobs, [&](size_t i) { return LiveIOError(spec, config, rec, tasks[i], cell(i)); },
      [&](size_t i) { return "the live run of " + name(i); }, one_done);
  // In task order, the first ioerror task that left a directory represents every later one that
  // left the same (digest and acknowledgements): only it is recovered and checked.
  std::vector<Outcome> out(tasks.size());
  std::vector<Task> run = tasks;
  std::map<size_t, size_t> same_as;  // task -> its representative
  std::map<std::string, size_t> by_key;
  std::vector<size_t> work;
  for (size_t i = 0; i < tasks.size(); ++i)
    if (IsCrashLike(tasks[i].action)) work.push_back(i);
  for (size_t k = 0; k < live.size(); ++k) {
    const size_t i = live[k];
    ++dedup->cells;
    if (SettledWithoutRecovery(left[k], tasks[i], &out[i])) {
      ++dedup->distinct;
      continue;
    }
    run[i].acked = left[k]["acked"].get<std::string>();
    auto [it, fresh] = by_key.emplace(left[k]["key"].get<std::string>(), i);
    if (fresh) {
      ++dedup->distinct;
      work.push_back(i);
    } else {
      same_as[i] = it->second;
    }
  }
  std::sort(work.begin(), work.end());
  // The ioerror tasks that need no recovery of their own (a shared directory, a failed set-up).
  const int64_t settled = total - done - static_cast<int64_t>(work.size());
  for (int64_t k = 0; k < settled; ++k) one_done();
  // Phase 2: every crash state and every distinct ioerror directory is recovered and checked.
  std::vector<Json> checked = Parallel(
      work, jobs,
      [&](size_t i) {
        return ToJson(RunTask(spec, config, run[i], rec.reference, cell(i), depth, pair_cap));
      },
      [&](size_t i) { return "the recovery and checks of " + name(i); }, one_done);
  for (size_t k = 0; k < work.size(); ++k) {
    if (checked[k].contains("harness")) {
      out[work[k]].failures.push_back(
          {scenarios::kInvHarness, checked[k]["harness"].get<std::string>()});
    } else {
      out[work[k]] = FromJson(checked[k]);
    }
  }
  for (const auto& [i, rep] : same_as) out[i] = out[rep];
  for (size_t i : live) out[i].acked = run[i].acked;
  return out;
}

}  // namespace stepfault::properties::blackbox
