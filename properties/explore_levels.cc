// The phases of one variant's exploration: discovering windows, growing each level of tasks from
// the last one's results (crash states deduplicated by world digest), recording outcomes, the
// INV-DETERMINISM sample and the final matrix. See properties/explorer.h for the rules.
#include <algorithm>

#include "engine/random.h"
#include "faults/points.h"
#include "properties/explore_state.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::internal {
namespace {

using faults::FaultAction;
using faults::FaultActionKind;

std::string WindowId(const std::string& command, const faults::Window& w) {
  return command + ":" + w.point + "#" + std::to_string(w.occurrence);
}

std::string PointName(const std::string& point) { return point.substr(0, point.find('[')); }

// Plans `action` at window `w` of life `life` (1-based) after the faults of `prefix`.
void AddTask(ExploreState& st, std::vector<Task>* out, const faults::Plan& prefix, int life,
             const faults::Window& w, const std::string& id, const FaultAction& action) {
  auto fault = faults::FaultAtWindow(action, w);
  SF_CHECK(fault.ok());
  Task t;
  t.plan = prefix;
  while (static_cast<int>(t.plan.faults.size()) < life - 1)
    t.plan.faults.push_back(faults::Fault::None());
  t.plan.faults.push_back(*fault);
  if (!st.plans_scheduled.insert(faults::PrintPlan(t.plan)).second) return;
  t.window_id = id;
  t.action = faults::FaultActionName(action);
  st.scheduled.insert({id, t.action});
  t.owned = st.task_counter++ % st.options.shard_count == st.options.shard_index - 1;
  out->push_back(std::move(t));
}

// Every wanted action not yet planned at each window of the lives from `first_life` (0-based) on;
// with `crash_first`, crash and power loss at every window of that first life even when planned
// elsewhere before (the recovery of a new crash state).
void Grow(ExploreState& st, const faults::Plan& prefix, const TaskResult& r, size_t first_life,
          bool crash_first, std::vector<Task>* out) {
  for (size_t l = first_life; l < r.lives_windows.size(); ++l) {
    const LifeWindows& life = *r.lives_windows[l];
    for (const faults::Window& w : life.windows) {
      const std::string id = WindowId(life.command, w);
      for (const FaultAction& a : st.windows[st.window_index.at(id)].actions) {
        if (Filtered(a, st.options)) continue;
        const bool death =
            a.kind == FaultActionKind::kCrash || a.kind == FaultActionKind::kPowerLoss;
        const bool exhaustive = crash_first && death && l == first_life;
        if (exhaustive || !st.scheduled.count({id, faults::FaultActionName(a)}))
          AddTask(st, out, prefix, static_cast<int>(l + 1), w, id, a);
      }
    }
  }
}

}  // namespace

bool Supported(const FaultAction& a, const scenarios::Scenario& s) {
  if (!faults::IsRecoverySide(a)) return true;
  auto actions = s.RecoveryActions();
  return std::find(actions.begin(), actions.end(), a) != actions.end();
}

bool Filtered(const FaultAction& a, const ExploreOptions& o) {
  return !o.action_kinds.empty() &&
         std::find(o.action_kinds.begin(), o.action_kinds.end(),
                   faults::FaultActionKindName(a.kind)) == o.action_kinds.end();
}

void Discover(ExploreState& st, const TaskResult& r, size_t first_life, bool recovery) {
  for (size_t l = first_life; l < r.lives_windows.size(); ++l) {
    const LifeWindows& life = *r.lives_windows[l];
    std::string label;
    for (const faults::Window& w : life.windows) {
      label = st.scenario->BusinessWindowAfter(life.command, w.point, label);
      st.points_reached.insert(PointName(w.point));
      const std::string id = WindowId(life.command, w);
      if (st.window_index.count(id) > 0) continue;
      WindowInfo info;
      info.row = {id, w.point, w.occurrence, label, recovery};
      for (const FaultAction& a : faults::ApplicableFaultActions(w.point)) {
        if (Supported(a, *st.scenario)) info.actions.push_back(a);
      }
      st.window_index[id] = st.windows.size();
      st.windows.push_back(std::move(info));
    }
  }
}

std::vector<Task> FirstLevel(ExploreState& st, const TaskResult& reference) {
  std::vector<Task> out;
  Grow(st, faults::Plan{}, reference, 0, /*crash_first=*/false, &out);
  return out;
}

std::vector<Task> NextLevel(ExploreState& st, const std::vector<Task>& tasks,
                            const std::vector<TaskResult>& results) {
  std::vector<Task> out;
  for (size_t i = 0; i < tasks.size(); ++i) {
    const TaskResult& r = results[i];
    const size_t last = tasks[i].plan.faults.size();
    Discover(st, r, last, /*recovery=*/true);
    bool new_state = false;
    if (r.died_in_life == static_cast<int>(last)) {
      ++st.out.report.crash_states.total;
      new_state = st.crash_states.insert({r.died_in_life, r.crash_digest}).second;
      st.out.report.crash_states.distinct += new_state ? 1 : 0;
      st.out.report.crash_states.explored += new_state ? 1 : 0;
    }
    // A state equal to an earlier one reuses its exploration: only new actions at new windows.
    Grow(st, tasks[i].plan, r, last, new_state, &out);
  }
  return out;
}

void CountBeyondDepth(ExploreState& st, const std::vector<Task>& tasks,
                      const std::vector<TaskResult>& results) {
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (!tasks[i].owned) continue;
    const size_t last = tasks[i].plan.faults.size();
    Discover(st, results[i], last, /*recovery=*/true);
    if (results[i].died_in_life == static_cast<int>(last))
      ++st.out.report.crash_states.beyond_depth;
  }
}

}  // namespace stepfault::properties::internal
