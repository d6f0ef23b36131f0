// Schedule exploration of the interactive-flow world (see flow_schedules.h).
#include "scenarios/interactive_flow/flow_schedules.h"

#include <algorithm>
#include <optional>
#include <set>

#include "engine/random.h"
#include "faults/schedule_strategies.h"
#include "faults/shrink.h"
#include "scenarios/interactive_flow/flow_hazards.h"

namespace stepfault::scenarios::flow {
namespace {

using scenarios::flow::FlowFault;
using scenarios::flow::FlowPlan;
using scenarios::flow::FlowRunResult;

// Delegates to a strategy and records the state key at every choice.
class CountingStrategy final : public faults::ScheduleStrategy {
 public:
  CountingStrategy(faults::ScheduleStrategy* inner, std::set<std::string>* states)
      : inner_(inner), states_(states) {}
  void set_key(std::function<std::string()> key) { key_ = std::move(key); }
  void set_inner(faults::ScheduleStrategy* inner) { inner_ = inner; }
  int Pick(const faults::ScheduleChoice& choice) override {
    if (states_ != nullptr) states_->insert(key_());
    return inner_->Pick(choice);
  }

 private:
  faults::ScheduleStrategy* inner_;
  std::set<std::string>* states_;
  std::function<std::string()> key_;
};

// The plan of run i: none for one run in three, else a crash (or one time in four a power loss)
// of a seeded actor at a seeded step among its first ten; one such plan in three also carries a
// second fault at a seeded actor's step among its first twelve: a later power loss after a crash,
// else a time:advance. The first fault's draws are those of the single-fault plans before.
FlowPlan PlanOfRun(uint64_t run_seed, int i, bool with_faults) {
  if (!with_faults || i % 3 == 0) return {};
  Rng rng(DeriveSeed(run_seed, "flow.fault"));
  const int actors = static_cast<int>(scenarios::flow::FlowActorNames().size());
  FlowFault f;
  f.kind = rng.Uniform(4) == 0 ? FlowFault::Kind::kPowerLoss : FlowFault::Kind::kCrashActor;
  f.actor = static_cast<int>(rng.Uniform(actors));
  f.at_step = 1 + static_cast<int>(rng.Uniform(10));
  FlowPlan plan{f};
  if (rng.Uniform(3) == 0) {
    FlowFault g;
    const bool crash = f.kind == FlowFault::Kind::kCrashActor;
    g.kind =
        crash && rng.Uniform(2) == 0 ? FlowFault::Kind::kPowerLoss : FlowFault::Kind::kTimeAdvance;
    g.actor = static_cast<int>(rng.Uniform(actors));
    g.at_step = 1 + static_cast<int>(rng.Uniform(12));
    plan.push_back(g);
  }
  return plan;
}

bool Breaks(const FlowRunResult& r, const std::string& invariant) {
  return std::any_of(r.violations.begin(), r.violations.end(),
                     [&](const scenarios::Violation& v) { return v.invariant == invariant; });
}

std::string ReplayCommand(const ScheduleExploreOptions& o, const ScheduleCounterexample& c) {
  std::string hazards;
  for (const std::string& h : o.flow.hazards) hazards += " --hazard host:" + h;
  return "stepfault replay --scenario interactive-flow --plan " + c.fault + " --schedule '" +
         c.schedule + "'" + hazards +
         (o.flow.force_purge ? " --params '{\"force_purge\":true}'" : "");
}

FlowRunResult RunSwitches(const ScheduleExploreOptions& o,
                          const std::vector<faults::SwitchPoint>& switches, const FlowPlan& plan) {
  faults::SwitchReplayStrategy strategy(switches);
  return scenarios::flow::RunFlowWorld(&strategy, o.flow, plan);
}

// Drops faults of the plan one at a time (faults::RemoveEach on the one shrinker loop) while the
// invariant still breaks with the same choices.
FlowPlan ShrinkPlan(const ScheduleExploreOptions& o, const std::string& invariant,
                    const std::vector<int>& choices, FlowPlan plan) {
  faults::RemoveEach<FlowPlan> each;
  return faults::Shrink<FlowPlan>(
             std::move(plan), each,
             [&](const FlowPlan& fewer) -> std::optional<FlowPlan> {
               if (!Breaks(ReplayFlowSchedule(o.flow, choices, fewer).result, invariant))
                 return std::nullopt;
               return fewer;
             })
      .value;
}

// The shortest prefix (0, 1, 2, 4, ...) of the choices that still breaks the invariant; the run
// it gives (the whole run when no shorter prefix does).
FlowRunResult ShortestPrefix(const ScheduleExploreOptions& o, const std::string& invariant,
                             const std::vector<int>& choices, const FlowPlan& plan) {
  for (size_t n = 0;; n = n == 0 ? 1 : n * 2) {
    const size_t take = std::min(n, choices.size());
    std::vector<int> prefix(choices.begin(), choices.begin() + static_cast<long>(take));
    FlowRunResult r = ReplayFlowSchedule(o.flow, prefix, plan).result;
    if (Breaks(r, invariant) || take == choices.size()) return r;
  }
}

}  // namespace

ScheduleReplay ReplayFlowSchedule(const scenarios::flow::FlowOptions& flow,
                                  const std::vector<int>& choices, const FlowFault& fault) {
  return ReplayFlowSchedule(flow, choices,
                            fault.kind == FlowFault::Kind::kNone ? FlowPlan{} : FlowPlan{fault});
}

ScheduleReplay ReplayFlowSchedule(const scenarios::flow::FlowOptions& flow,
                                  const std::vector<int>& choices, const FlowPlan& plan) {
  faults::ReplayStrategy replay(choices);
  ScheduleReplay out;
  out.result = scenarios::flow::RunFlowWorld(&replay, flow, plan);
  out.divergences = replay.divergences();
  return out;
}

ScheduleCounterexample ShrinkFlowCounterexample(const ScheduleExploreOptions& o,
                                                const std::string& invariant,
                                                const std::vector<int>& choices,
                                                const FlowPlan& original) {
  ScheduleCounterexample c;
  c.invariant = invariant;
  const FlowRunResult found = ReplayFlowSchedule(o.flow, choices, original).result;
  c.context_switches_found = found.run.context_switches;
  if (!Breaks(found, invariant)) {
    c.schedule = found.run.schedule;
    c.fault = scenarios::flow::FlowPlanText(original);
    c.context_switches = found.run.context_switches;
    return c;
  }
  const FlowPlan plan = ShrinkPlan(o, invariant, choices, original);
  FlowRunResult best = ShortestPrefix(o, invariant, choices, plan);
  const faults::SwitchShrink shrunk = faults::ShrinkSwitches(
      best.run.deviations,
      [&](const std::vector<faults::SwitchPoint>& candidate)
          -> std::optional<std::vector<faults::SwitchPoint>> {
        FlowRunResult r = RunSwitches(o, candidate, plan);
        if (!Breaks(r, invariant)) return std::nullopt;
        best = std::move(r);
        return best.run.deviations;
      },
      o.shrink_runs);
  c.shrink_runs = shrunk.runs;
  c.switches_minimal = shrunk.minimal;
  for (const scenarios::Violation& v : best.violations) {
    if (v.invariant == invariant) c.message = v.message;  // the shrunk run's own words
  }
  c.schedule = best.run.schedule;
  c.context_switches = best.run.context_switches;
  c.fault = scenarios::flow::FlowPlanText(plan);
  c.replay = ReplayCommand(o, c);
  return c;
}

namespace {

// The bounded exhaustive explorers behind "dfs" and "dfs-plain".
// With bounded_first, "bounded" is the phase before the strategy (`phase` says it).
struct Exhaustive {
  explicit Exhaustive(const ScheduleExploreOptions& o)
      : bounded(o.strategy == "dfs" || (o.bounded_first > 0 && !o.strategy.starts_with("dfs"))),
        plain(o.strategy == "dfs-plain"),
        phase(bounded && o.strategy != "dfs"),
        preemption(
            static_cast<uint64_t>(phase ? std::min(o.bounded_first, o.schedules) : o.schedules),
            o.max_preemptions),
        depth_first(static_cast<uint64_t>(o.schedules)) {}
  bool any() const { return bounded || plain; }
  faults::ScheduleStrategy* Begin(std::function<std::string()> key) {
    return bounded ? preemption.BeginRun(std::move(key)) : depth_first.BeginRun(std::move(key));
  }
  void End() { bounded ? preemption.EndRun() : depth_first.EndRun(); }
  bool complete() const { return bounded ? preemption.complete() : depth_first.complete(); }
  uint64_t states() const {
    return bounded ? preemption.distinct_states() : depth_first.distinct_states();
  }
  bool bounded;
  bool plain;
  bool phase;
  faults::BoundedExplorer preemption;
  faults::DfsExplorer depth_first;
};

}  // namespace

ScheduleExploration ExploreFlowSchedules(const ScheduleExploreOptions& o) {
  ScheduleExploration out;
  std::set<std::string> states, worlds, seen_invariants, windows;
  Exhaustive exhaustive(o);
  bool in_phase = exhaustive.phase;  // the bounded phase before the strategy
  int phase_runs = 0;
  uint64_t expected_steps = 120;  // PCT's k: refined from the runs seen
  for (int i = 0; i < o.schedules; ++i) {
    const bool exhaustive_run = exhaustive.any() && (!exhaustive.phase || in_phase);
    const int own = i - phase_runs;  // the strategy's own run index: its seed and plan
    const uint64_t run_seed = DeriveSeed(o.seed, "schedule." + std::to_string(own));
    faults::PctStrategy pct(run_seed, o.pct_depth, expected_steps);
    faults::RandomWalkStrategy random(run_seed);
    const FlowPlan plan = exhaustive_run ? FlowPlan{} : PlanOfRun(run_seed, own, o.with_faults);
    CountingStrategy counting(
        o.strategy == "random" ? static_cast<faults::ScheduleStrategy*>(&random) : &pct,
        o.count_states ? &states : nullptr);
    bool exhausted = false;
    FlowRunResult r = scenarios::flow::RunFlowWorld(
        [&](std::function<std::string()> key) -> faults::ScheduleStrategy* {
          if (exhaustive_run) {
            faults::ScheduleStrategy* next = exhaustive.Begin(key);
            exhausted = next == nullptr;
            if (next == nullptr) return &pct;  // the run is discarded below
            if (!o.count_states) return next;
            counting.set_inner(next);  // keyed at every choice, as pct and random are
          }
          counting.set_key(std::move(key));
          return &counting;
        },
        o.flow, plan);
    if (exhausted && in_phase) {  // the phase has nothing left: this run is the strategy's
      in_phase = false;
      --i;
      continue;
    }
    if (exhausted) break;
    if (exhaustive_run) exhaustive.End();
    if (in_phase) {
      ++phase_runs;
      in_phase = !exhaustive.complete() && phase_runs < o.bounded_first;
    }
    ++out.schedules;
    out.steps += r.run.steps;
    out.context_switches += r.run.context_switches;
    out.faults_fired += static_cast<uint64_t>(r.faults_fired);
    // PCT's estimate learns from its own runs only: after a bounded phase it runs as alone.
    if (!exhaustive_run) expected_steps = std::max<uint64_t>(expected_steps, r.run.steps);
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
                               scenarios::flow::FlowPlanText(plan),
                               r.run.context_switches,
                               i + 1,
                               ""};
      c.context_switches_found = r.run.context_switches;
      if (o.shrink) c = ShrinkFlowCounterexample(o, v.invariant, r.run.choices, plan);
      c.found_at = i + 1;
      c.replay = ReplayCommand(o, c);
      out.violations.push_back(c);
    }
    if (o.stop_at_first && !out.violations.empty()) break;
    if (!o.stop_at_invariant.empty() && seen_invariants.count(o.stop_at_invariant) > 0) break;
    if (exhaustive.any() && !exhaustive.phase && exhaustive.complete()) break;
  }
  // With count_states every strategy counts the same thing: distinct keys at every choice. The
  // exhaustive explorers' own visited sets key only the choices they branch from.
  const bool alone = exhaustive.any() && !exhaustive.phase;
  out.distinct_states = alone && !o.count_states ? exhaustive.states() : states.size();
  out.distinct_final_worlds = worlds.size();
  out.windows = windows.size();
  out.window_names.assign(windows.begin(), windows.end());
  out.dfs_complete = alone && exhaustive.complete();
  if (exhaustive.bounded) out.runs_per_preemption_bound = exhaustive.preemption.runs_per_bound();
  if (exhaustive.phase) {
    out.bounded_schedules = static_cast<uint64_t>(phase_runs);
    out.bounded_complete = exhaustive.complete();
    out.bounded_states = exhaustive.states();
  }
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

Status FlowHazardsFrom(const std::vector<std::string>& names, FlowOptions* out) {
  for (const std::string& name : names) {
    if (!FlowOptionsForMutant(name, out)) {
      std::string known;
      for (const auto& h : FlowHazards()) known += std::string(" host:") + h.name;
      return Status::InvalidArgument("unknown interactive-flow hazard '" + name +
                                     "'; known:" + known);
    }
  }
  return Status::Ok();
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

using scenarios::flow::FlowHazard;

double Median(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  const size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2.0;
}

// One column of the hunt: options as given, the hazard switched on, per seed 1..seeds.
FlowHuntColumn HuntColumn(const ScheduleExploreOptions& options, const FlowHazard& hazard,
                          int seeds) {
  FlowHuntColumn col;
  for (int seed = 1; seed <= seeds; ++seed) {
    ScheduleExploreOptions o = options;
    o.seed = static_cast<uint64_t>(seed);
    o.count_states = false;
    o.flow.hazards = {hazard.name};
    col.per_seed.push_back(SchedulesToKill(o, hazard.expected_invariant));
  }
  col.median = Median(col.per_seed);
  col.worst = *std::max_element(col.per_seed.begin(), col.per_seed.end());
  return col;
}

}  // namespace

std::vector<FlowHuntRow> HuntFlowMutants(const ScheduleExploreOptions& options, int seeds,
                                         const std::set<std::string>& strategies) {
  std::vector<FlowHuntRow> rows;
  for (const auto& hazard : scenarios::flow::FlowHazards()) {
    FlowHuntRow row{hazard.name, hazard.expected_invariant, {}, {}, {}};
    ScheduleExploreOptions o = options;
    o.strategy = "pct";
    if (strategies.count("bounded") > 0) row.bounded = HuntColumn(o, hazard, seeds);
    o.bounded_first = 0;
    if (strategies.count("pct") > 0) row.pct = HuntColumn(o, hazard, seeds);
    o.strategy = "random";
    if (strategies.count("random") > 0) row.random = HuntColumn(o, hazard, seeds);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace stepfault::scenarios::flow
