// Schedule exploration of the interactive-flow world (see explore_schedules.h).
#include "properties/explore_schedules.h"

#include <algorithm>
#include <set>

#include "engine/random.h"
#include "faults/schedule_strategies.h"
#include "scenarios/interactive_flow/flow_hazards.h"

namespace stepfault::properties {
namespace {

using scenarios::flow::FlowFault;
using scenarios::flow::FlowRunResult;

// Delegates to a strategy and records the state key at every choice.
class CountingStrategy final : public faults::ScheduleStrategy {
 public:
  CountingStrategy(faults::ScheduleStrategy* inner, std::set<std::string>* states)
      : inner_(inner), states_(states) {}
  void set_key(std::function<std::string()> key) { key_ = std::move(key); }
  int Pick(const faults::ScheduleChoice& choice) override {
    if (states_ != nullptr) states_->insert(key_());
    return inner_->Pick(choice);
  }

 private:
  faults::ScheduleStrategy* inner_;
  std::set<std::string>* states_;
  std::function<std::string()> key_;
};

// The fault of run i: none for one run in three, else a crash (or one time in four a power loss)
// of a seeded actor at a seeded step among its first ten.
FlowFault FaultOfRun(uint64_t run_seed, int i, bool with_faults) {
  if (!with_faults || i % 3 == 0) return FlowFault{};
  Rng rng(DeriveSeed(run_seed, "flow.fault"));
  FlowFault f;
  f.kind = rng.Uniform(4) == 0 ? FlowFault::Kind::kPowerLoss : FlowFault::Kind::kCrashActor;
  f.actor = static_cast<int>(rng.Uniform(scenarios::flow::FlowActorNames().size()));
  f.at_step = 1 + static_cast<int>(rng.Uniform(10));
  return f;
}

bool Breaks(const FlowRunResult& r, const std::string& invariant) {
  return std::any_of(r.violations.begin(), r.violations.end(),
                     [&](const scenarios::Violation& v) { return v.invariant == invariant; });
}

std::string ReplayCommand(const ScheduleExploreOptions& o, const ScheduleCounterexample& c) {
  std::string hazards;
  for (const std::string& h : o.flow.hazards) hazards += " --hazard host:" + h;
  return "stepfault replay interactive-flow --plan " + c.fault + " --schedule '" + c.schedule +
         "'" + hazards + (o.flow.force_purge ? " --params '{\"force_purge\":true}'" : "");
}

// Shrinks a counterexample: drop the fault if the invariant still breaks without it, then the
// shortest prefix (0, 1, 2, 4, ...) of the choices that still breaks it.
ScheduleCounterexample Shrink(const ScheduleExploreOptions& o, const FlowRunResult& found,
                              FlowFault fault, ScheduleCounterexample c) {
  std::string error;
  std::vector<int> choices = *faults::DecodeSchedule(found.run.schedule, &error);
  if (fault.kind != FlowFault::Kind::kNone &&
      Breaks(ReplayFlowSchedule(o.flow, choices, FlowFault{}).result, c.invariant)) {
    fault = FlowFault{};
  }
  for (size_t n = 0;; n = n == 0 ? 1 : n * 2) {
    const size_t take = std::min(n, choices.size());
    std::vector<int> prefix(choices.begin(), choices.begin() + static_cast<long>(take));
    FlowRunResult r = ReplayFlowSchedule(o.flow, prefix, fault).result;
    if (Breaks(r, c.invariant)) {
      for (const scenarios::Violation& v : r.violations) {
        if (v.invariant == c.invariant) c.message = v.message;  // the shrunk run's own words
      }
      c.schedule = r.run.schedule;
      c.context_switches = r.run.context_switches;
      c.fault = scenarios::flow::FlowFaultText(fault);
      return c;
    }
    if (take == choices.size()) return c;
  }
}

}  // namespace

ScheduleReplay ReplayFlowSchedule(const scenarios::flow::FlowOptions& flow,
                                  const std::vector<int>& choices, const FlowFault& fault) {
  faults::ReplayStrategy replay(choices);
  ScheduleReplay out;
  out.result = scenarios::flow::RunFlowWorld(&replay, flow, fault);
  out.divergences = replay.divergences();
  return out;
}

ScheduleExploration ExploreFlowSchedules(const ScheduleExploreOptions& o) {
  ScheduleExploration out;
  std::set<std::string> states, worlds, seen_invariants, windows;
  faults::DfsExplorer dfs(static_cast<uint64_t>(o.schedules));
  uint64_t expected_steps = 120;  // PCT's k: refined from the runs seen
  const bool is_dfs = o.strategy == "dfs";
  for (int i = 0; i < o.schedules; ++i) {
    const uint64_t run_seed = DeriveSeed(o.seed, "schedule." + std::to_string(i));
    faults::PctStrategy pct(run_seed, o.pct_depth, expected_steps);
    faults::RandomWalkStrategy random(run_seed);
    const FlowFault fault = is_dfs ? FlowFault{} : FaultOfRun(run_seed, i, o.with_faults);
    CountingStrategy counting(
        o.strategy == "random" ? static_cast<faults::ScheduleStrategy*>(&random) : &pct,
        o.count_states ? &states : nullptr);
    FlowRunResult r = scenarios::flow::RunFlowWorld(
        [&](std::function<std::string()> key) -> faults::ScheduleStrategy* {
          if (is_dfs) return dfs.BeginRun(std::move(key));
          counting.set_key(std::move(key));
          return &counting;
        },
        o.flow, fault);
    if (is_dfs) dfs.EndRun();
    ++out.schedules;
    out.steps += r.run.steps;
    out.context_switches += r.run.context_switches;
    out.faults_fired += r.fault_fired;
    expected_steps = std::max<uint64_t>(expected_steps, r.run.steps);
    worlds.insert(r.digest);
    windows.insert(r.run.windows.begin(), r.run.windows.end());
    std::set<std::string> broken;
    for (const scenarios::Violation& v : r.violations) broken.insert(v.invariant);
    for (const std::string& inv : broken) ++out.violated_schedules[inv];
    for (const scenarios::Violation& v : r.violations) {
      if (!seen_invariants.insert(v.invariant).second) continue;
      ScheduleCounterexample c{v.invariant,
                               v.message,
                               r.run.schedule,
                               scenarios::flow::FlowFaultText(fault),
                               r.run.context_switches,
                               i + 1,
                               ""};
      if (o.shrink) c = Shrink(o, r, fault, c);
      c.replay = ReplayCommand(o, c);
      out.violations.push_back(c);
    }
    if (o.stop_at_first && !out.violations.empty()) break;
    if (!o.stop_at_invariant.empty() && seen_invariants.count(o.stop_at_invariant) > 0) break;
    if (is_dfs && dfs.complete()) break;
  }
  out.distinct_states = is_dfs ? dfs.distinct_states() : states.size();
  out.distinct_final_worlds = worlds.size();
  out.windows = windows.size();
  out.window_names.assign(windows.begin(), windows.end());
  out.dfs_complete = dfs.complete();
  return out;
}

bool FlowOptionsForMutant(const std::string& name, scenarios::flow::FlowOptions* out) {
  const std::string bare = name.starts_with("host:") ? name.substr(5) : name;
  for (const auto& h : scenarios::flow::FlowHazards()) {
    if (bare == h.name) {
      out->hazards.insert(h.name);
      return true;
    }
  }
  return false;
}

int SchedulesToKill(const ScheduleExploreOptions& options, const std::string& invariant) {
  ScheduleExploreOptions o = options;
  o.shrink = false;
  o.stop_at_invariant = invariant;
  for (const ScheduleCounterexample& c : ExploreFlowSchedules(o).violations) {
    if (c.invariant == invariant) return c.found_at;
  }
  return options.schedules + 1;
}

namespace {

double Median(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

}  // namespace

std::vector<FlowHuntRow> HuntFlowMutants(const ScheduleExploreOptions& options, int seeds) {
  std::vector<FlowHuntRow> rows;
  for (const auto& hazard : scenarios::flow::FlowHazards()) {
    FlowHuntRow row{hazard.name, hazard.expected_invariant, {}, {}, 0, 0};
    for (int seed = 1; seed <= seeds; ++seed) {
      ScheduleExploreOptions o = options;
      o.seed = static_cast<uint64_t>(seed);
      o.count_states = false;
      o.flow.hazards = {hazard.name};
      o.strategy = "pct";
      row.pct.push_back(SchedulesToKill(o, hazard.expected_invariant));
      o.strategy = "random";
      row.random.push_back(SchedulesToKill(o, hazard.expected_invariant));
    }
    row.pct_median = Median(row.pct);
    row.random_median = Median(row.random);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace stepfault::properties
