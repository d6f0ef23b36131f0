// The task pool: exploration's tasks on the worker pool (worker_pool.h); a worker that dies gives
// its current task an INV-HARNESS result.
#include "properties/task_pool.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "faults/sim_fs.h"
#include "properties/worker_pool.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

// A stable 128-bit key of a life's windows (its command and every window, length-prefixed).
std::string WindowsKey(const LifeWindows& l) {
  std::string text = std::to_string(l.command.size()) + ":" + l.command;
  for (const faults::Window& w : l.windows) {
    text += std::to_string(w.point.size()) + ":" + w.point + "#" + std::to_string(w.occurrence);
  }
  return faults::HashBytes(text);
}

// `sent`: the window lists this process has already sent (their keys); a list sent before travels
// as its key alone. Every process answers its jobs in increasing index order through one pipe, so
// the parent, reading answers as they arrive, meets each list before any key that refers to it.
Json ToJson(const TaskResult& r, std::set<std::string>* sent) {
  Json v = Json::array();
  for (const auto& x : r.violations) v.push_back(Json{{"i", x.invariant}, {"m", x.message}});
  Json lives = Json::array();
  for (const std::shared_ptr<const LifeWindows>& l : r.lives_windows) {
    const std::string key = WindowsKey(*l);
    if (!sent->insert(key).second) {
      lives.push_back(Json{{"k", key}});
      continue;
    }
    Json w = Json::array();
    for (const auto& x : l->windows) w.push_back(Json{x.point, x.occurrence});
    lives.push_back(Json{{"k", key}, {"c", l->command}, {"w", w}});
  }
  return Json{{"v", v},
              {"lives", r.lives},
              {"completed", r.completed},
              {"died", r.died_in_life},
              {"digest", r.crash_digest},
              {"lw", lives},
              {"fp", r.fingerprint}};
}

// `lists`: the window lists met so far, by key (see ToJson).
TaskResult FromJson(const Json& j,
                    std::map<std::string, std::shared_ptr<const LifeWindows>>* lists) {
  TaskResult r;
  for (const Json& x : j["v"]) r.violations.push_back({x["i"], x["m"]});
  r.lives = j["lives"];
  r.completed = j["completed"];
  r.died_in_life = j["died"];
  r.crash_digest = j["digest"];
  r.fingerprint = j["fp"];
  for (const Json& l : j["lw"]) {
    const std::string key = l["k"];
    if (!l.contains("w")) {
      auto it = lists->find(key);
      SF_CHECK(it != lists->end());  // sent before, in an earlier answer of the same process
      r.lives_windows.push_back(it->second);
      continue;
    }
    auto lw = std::make_shared<LifeWindows>();
    lw->command = l["c"];
    for (const Json& x : l["w"]) lw->windows.push_back({x[0], x[1]});
    auto [it, inserted] = lists->emplace(key, std::move(lw));
    r.lives_windows.push_back(it->second);
  }
  return r;
}

// The result of a task whose worker died without answering.
TaskResult HarnessDeath(const faults::Plan& plan, const std::string& how) {
  TaskResult r;
  r.violations.push_back({scenarios::kInvHarness, "the worker running plan '" +
                                                      faults::PrintPlan(plan) + "' " + how +
                                                      " (an abort, SF_CHECK or signal)"});
  r.fingerprint = "harness";
  return r;
}

// With STEPFAULT_REUSE_STATS set, each process prints how often its RunMemo was hit (a diagnostic
// on stderr: the hits depend on how tasks fall to workers, so they are not part of any report).
void PrintReuseStats(const RunMemo& memo) {
  if (std::getenv("STEPFAULT_REUSE_STATS") == nullptr) return;
  const RunMemo::Stats s = memo.stats();
  if (s.prefix_hits + s.prefix_misses + s.continuation_hits + s.continuation_misses == 0) return;
  auto of = [](int64_t hits, int64_t all) {
    return std::to_string(hits) + "/" + std::to_string(all);
  };
  const std::string line =
      "reuse: prefixes " + of(s.prefix_hits, s.prefix_hits + s.prefix_misses) + " continuations " +
      of(s.continuation_hits, s.continuation_hits + s.continuation_misses) + " crash-state lives " +
      of(s.lives_hits, s.lives_hits + s.lives_misses) + " (" + std::to_string(s.later_lives_hits) +
      " after the first) death checks " +
      of(s.death_check_hits, s.death_check_hits + s.death_check_misses) + " derived deaths " +
      of(s.derived_lives, s.derived_lives + s.lived_past_bound) + " from " +
      std::to_string(s.recordings) + " recordings; kept at most " +
      std::to_string(s.kept_bytes_peak >> 20) + " MB (the tables' peaks summed), " +
      std::to_string(s.kept_evicted) + " evicted\n";
  std::fputs(line.c_str(), stderr);
}

}  // namespace

TaskResult Summarize(const faults::Plan& plan, const Execution& ex) {
  TaskResult r;
  r.violations = ex.violations;
  r.lives = static_cast<int>(ex.lives.size());
  r.completed = ex.completed;
  const size_t last_fault = plan.faults.size();  // plans end with their last fault
  for (size_t i = 0; i < ex.lives.size(); ++i) {
    const LifeRecord& life = ex.lives[i];
    auto lw = std::make_shared<LifeWindows>();
    lw->command = life.report.command.empty() ? "life" : life.report.command;
    // The explorer discovers windows only in the lives after the last fault (those before were
    // discovered by the run the plan grew from): the others travel empty.
    if (i >= last_fault) {
      for (const faults::Window& w : life.windows) {
        lw->windows.push_back(w);
        if (life.fired && w == *life.fired) break;  // later hits need a second fault in this life
      }
    }
    r.lives_windows.push_back(std::move(lw));
  }
  if (last_fault > 0 && last_fault <= ex.lives.size() && !ex.lives[last_fault - 1].death.empty()) {
    r.died_in_life = static_cast<int>(last_fault);
    r.crash_digest = ex.lives[last_fault - 1].world_digest;
  }
  r.fingerprint = faults::HashBytes(ex.trace) + "/" + ex.final_digest;
  return r;
}

std::vector<TaskResult> RunTasks(const scenarios::Scenario& scenario, const RunConfig& config,
                                 const std::vector<faults::Plan>& plans, int jobs,
                                 const std::function<void(int64_t done)>& progress, bool reuse) {
  // Forked from this process before any task ran, each worker starts with its own empty memo.
  RunMemo memo;
  PoolOptions options;
  options.jobs = jobs;
  options.progress = progress;
  // Forked with the parent's (empty) set, each worker sends each distinct window list once.
  std::set<std::string> sent;
  options.on_death = [&](size_t i, const std::string& how) {
    std::set<std::string> none;
    return ToJson(HarnessDeath(plans[i], how), &none);
  };
  options.at_exit = [&] { PrintReuseStats(memo); };
  // Each answer becomes a TaskResult as it arrives: a window list a worker sent before travels as
  // its key, and that worker's earlier answer, which held the list, arrived first.
  std::vector<TaskResult> results(plans.size());
  std::map<std::string, std::shared_ptr<const LifeWindows>> lists;
  options.on_answer = [&](size_t i, Json&& answer) { results[i] = FromJson(answer, &lists); };
  const std::vector<std::optional<Json>> answered = RunPool(
      AllIndices(plans.size()),
      [&](size_t i) {
        return ToJson(
            Summarize(plans[i], RunPlan(scenario, plans[i], config, reuse ? &memo : nullptr)),
            &sent);
      },
      options);
  for (size_t i = 0; i < plans.size(); ++i) {
    if (!answered[i].has_value()) results[i].interrupted = true;
  }
  return results;
}

}  // namespace stepfault::properties
