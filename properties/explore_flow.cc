// Schedule scenarios in `explore` and the flow mutant hunt (see explore_flow.h).
#include "properties/explore_flow.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "faults/points.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

constexpr char kStrategy[] = "pct";
constexpr int kPctDepth = 3;

// The host hazards of the configuration that `s` declares.
scenarios::HostHazards OwnHazards(const scenarios::ScheduleScenario& s,
                                  const scenarios::HostHazards& on) {
  scenarios::HostHazards own;
  for (const scenarios::HostHazard& h : s.host_hazards()) {
    if (on.count(h.name) > 0) own.insert(h.name);
  }
  return own;
}

// The kind of window a flow counterexample struck at, for the grouped counterexamples: the kind
// of its (shrunk) fault.
std::string KindOfFault(const std::string& fault) {
  const std::string kind = fault.substr(0, fault.find(':'));
  return kind == "none" ? "schedule without fault" : "schedule with a " + kind;
}

// INV-DETERMINISM: a few schedules explored twice give the same figures, worlds and
// counterexamples. Returns the message of a difference, "" when none.
scenarios::ScheduleSearchOptions DeterminismSearch(const scenarios::ScheduleSearchOptions& base) {
  scenarios::ScheduleSearchOptions o = base;
  o.schedules = kFlowDeterminismSchedules;
  o.bounded_first = std::min(base.bounded_first, 1);  // both phases: one bounded run, then PCT
  return o;
}

std::string DeterminismDifference(const scenarios::ScheduleScenario& s,
                                  const scenarios::ScheduleSearchOptions& base,
                                  const scenarios::HostHazards& hazards) {
  const scenarios::ScheduleSearchOptions o = DeterminismSearch(base);
  const scenarios::ScheduleExploration a = s.ExploreSchedules(o, hazards);
  const scenarios::ScheduleExploration b = s.ExploreSchedules(o, hazards);
  auto figures = [](const scenarios::ScheduleExploration& e) {
    return std::make_tuple(e.schedules, e.distinct_states, e.distinct_final_worlds,
                           e.context_switches, e.steps, e.faults_fired, e.window_names,
                           e.violated_schedules);
  };
  if (figures(a) != figures(b)) {
    return "the same " + std::to_string(o.schedules) +
           " schedules explored twice gave different figures or worlds";
  }
  for (size_t i = 0; i < a.violations.size() && i < b.violations.size(); ++i) {
    if (a.violations[i].schedule != b.violations[i].schedule ||
        a.violations[i].fault != b.violations[i].fault) {
      return "the same schedules explored twice gave different counterexamples";
    }
  }
  return "";
}

reports::ScheduleCoverage CoverageOf(const scenarios::ScheduleExploration& e, int budget,
                                     int states_counted) {
  reports::ScheduleCoverage c;
  c.strategy = kStrategy;
  c.pct_depth = kPctDepth;
  c.budget = budget;
  c.explored = static_cast<int64_t>(e.schedules);
  c.distinct_states = static_cast<int64_t>(e.distinct_states);
  c.states_counted_schedules = states_counted;
  c.distinct_final_worlds = static_cast<int64_t>(e.distinct_final_worlds);
  c.scheduling_points = static_cast<int64_t>(e.steps);
  c.context_switches = static_cast<int64_t>(e.context_switches);
  c.faults_fired = static_cast<int64_t>(e.faults_fired);
  c.windows = static_cast<int64_t>(e.windows);
  c.window_names = e.window_names;
  if (budget > 0 && FlowBoundedSchedules(budget) > 0) {
    reports::BoundedPhase b;
    b.max_preemptions = kFlowBoundedPreemptions;
    b.schedules = static_cast<int64_t>(e.bounded_schedules);
    b.complete = e.bounded_complete;
    b.distinct_states = static_cast<int64_t>(e.bounded_states);
    for (const auto& [bound, runs] : e.runs_per_preemption_bound) {
      b.runs_per_preemption_bound.resize(static_cast<size_t>(bound) + 1, 0);
      b.runs_per_preemption_bound[static_cast<size_t>(bound)] = static_cast<int64_t>(runs);
    }
    c.bounded = b;
  }
  return c;
}

// Registered fault points among the windows ("worker-a@fs.write[db]" reaches fs.write).
std::vector<std::string> PointsReached(const std::vector<std::string>& windows) {
  std::set<std::string> points;
  for (const std::string& w : windows) {
    std::string point = w.substr(w.find('@') + 1);
    if (point.starts_with("busy:")) point = point.substr(5);
    point = point.substr(0, point.find('['));
    if (faults::FindPoint(point) != nullptr) points.insert(point);
  }
  return {points.begin(), points.end()};
}

// One result per invariant of the report: checks are schedules (INV-DETERMINISM: the repeated
// exploration), violations the schedules that broke it.
void AddInvariantResults(const scenarios::ScheduleExploration& e, const std::string& nondeterminism,
                         reports::ScenarioReport* rep) {
  for (const std::string& id : rep->invariants) {
    reports::InvariantResult r{id, scenarios::InvariantStatement(id), 0, 0};
    if (id == scenarios::kInvDeterminism) {
      r.checks = rep->determinism_checks;
      r.violations = nondeterminism.empty() ? 0 : 1;
    } else {
      r.checks = static_cast<int64_t>(e.schedules);
      auto it = e.violated_schedules.find(id);
      r.violations = it == e.violated_schedules.end() ? 0 : static_cast<int64_t>(it->second);
    }
    rep->invariant_results.push_back(std::move(r));
  }
}

// The shrunk counterexamples as report violations: plan is the fault, replay the command with
// --plan and --schedule.
void AddCounterexamples(const scenarios::ScheduleScenario& s,
                        const scenarios::ScheduleExploration& e, const std::string& nondeterminism,
                        const scenarios::ScheduleSearchOptions& o,
                        const scenarios::HostHazards& hazards, uint64_t seed,
                        ScenarioExploration* out) {
  const std::string& name = out->report.name;
  for (const scenarios::ScheduleCounterexample& c : e.violations) {
    out->violations.push_back(
        {name, c.invariant, KindOfFault(c.fault), "schedule", c.fault, c.replay,
         c.message + " (found at schedule " + std::to_string(c.found_at) + "; shrunk to schedule " +
             c.schedule + ", " + std::to_string(c.context_switches) + " context switches)",
         "", seed});
  }
  if (nondeterminism.empty()) return;
  out->violations.push_back({name, scenarios::kInvDeterminism, "schedule without fault", "schedule",
                             "none", s.ExploreCommand(DeterminismSearch(o), hazards),
                             nondeterminism, "", seed});
}

}  // namespace

int StateCountedSchedules(int budget) { return std::min(budget, 40); }

int FlowBoundedSchedules(int budget) { return std::min(budget / 4, 50); }

scenarios::ScheduleSearchOptions DefaultFlowExploreOptions(uint64_t seed, int budget) {
  scenarios::ScheduleSearchOptions o;
  o.strategy = kStrategy;
  o.pct_depth = kPctDepth;
  o.seed = seed;
  o.schedules = budget;
  o.with_faults = true;
  o.count_states = false;  // explore counts them over a prefix, see StateCountedSchedules
  o.bounded_first = FlowBoundedSchedules(budget);
  o.max_preemptions = kFlowBoundedPreemptions;
  return o;
}

namespace {

// The schedules `explore` runs for a schedule scenario (`--schedules`, else the default).
int BudgetOf(const ExploreOptions& options) {
  return options.flow_schedules > 0 ? options.flow_schedules : kDefaultFlowSchedules;
}

// The scenario's report before anything ran: its name, description and invariants.
ScenarioExploration ReportHead(const scenarios::ScheduleScenario& s) {
  ScenarioExploration out;
  out.report.name = s.name();
  out.report.description = s.description();
  out.report.invariants = s.invariants();
  out.report.invariants.push_back(scenarios::kInvDeterminism);
  return out;
}

}  // namespace

ScenarioExploration ExploreScheduleScenario(const scenarios::ScheduleScenario& s,
                                            const ExploreOptions& options) {
  const int budget = BudgetOf(options);
  const scenarios::ScheduleSearchOptions o = DefaultFlowExploreOptions(options.config.seed, budget);
  const scenarios::HostHazards hazards = OwnHazards(s, options.config.hazards);
  ScenarioExploration out = ReportHead(s);
  reports::ScenarioReport& rep = out.report;
  // Shard 1 explores the whole scenario; the others list it with nothing run.
  const bool mine = options.shard_index == 1;
  scenarios::ScheduleExploration e;
  std::string nondeterminism;
  const int counted = StateCountedSchedules(budget);
  if (mine) {
    e = s.ExploreSchedules(o, hazards);
    scenarios::ScheduleSearchOptions keyed = o;
    keyed.schedules = counted;
    keyed.count_states = true;
    keyed.shrink = false;
    e.distinct_states = s.ExploreSchedules(keyed, hazards).distinct_states;
    nondeterminism = DeterminismDifference(s, o, hazards);
    rep.determinism_checks = 1;
  }
  rep.schedules = CoverageOf(e, budget, mine ? counted : 0);
  rep.runs = static_cast<int64_t>(e.schedules);
  rep.points_reached = PointsReached(e.window_names);
  AddInvariantResults(e, nondeterminism, &rep);
  AddCounterexamples(s, e, nondeterminism, o, hazards, options.config.seed, &out);
  return out;
}

void AppendScheduleExploration(const scenarios::ScheduleScenario& s, const ExploreOptions& options,
                               reports::Report* report) {
  AppendScheduleExploration(ExploreScheduleScenario(s, options), report);
}

void AppendScheduleExploration(ScenarioExploration e, reports::Report* report) {
  report->runs += e.report.runs;
  report->scenarios.push_back(std::move(e.report));
  for (reports::Violation& v : e.violations) report->violations.push_back(std::move(v));
}

ScenarioExploration ScheduleExplorationDied(const scenarios::ScheduleScenario& s,
                                            const ExploreOptions& options, const std::string& how) {
  const scenarios::ScheduleSearchOptions o =
      DefaultFlowExploreOptions(options.config.seed, BudgetOf(options));
  ScenarioExploration out = ReportHead(s);
  out.report.invariants.push_back(scenarios::kInvHarness);
  reports::Violation v;
  v.scenario = s.name();
  v.invariant = scenarios::kInvHarness;
  v.action = "none";
  v.replay = s.ExploreCommand(o, OwnHazards(s, options.config.hazards));
  v.message = "the worker exploring the schedules of " + s.name() + " " + how +
              " (an abort, SF_CHECK or signal) before it answered";
  v.seed = options.config.seed;
  out.violations.push_back(std::move(v));
  return out;
}

reports::MutantResult HuntScheduleMutant(const std::string& hazard, const std::string& description,
                                         const std::string& expected, uint64_t seed,
                                         int schedules) {
  scenarios::ScheduleSearchOptions o = DefaultFlowExploreOptions(seed, schedules);
  o.stop_at_invariant = expected;
  const std::string bare = hazard.starts_with("host:") ? hazard.substr(5) : hazard;
  reports::MutantResult r;
  r.name = hazard;
  r.description = description;
  r.expected = {expected};
  for (const auto& s : scenarios::ScheduleScenarios()) {
    if (OwnHazards(*s, {bare}).empty()) continue;
    r.scenario = s->name();
    for (const scenarios::ScheduleCounterexample& c : s->ExploreSchedules(o, {bare}).violations) {
      // The expected invariant's counterexample when there is one, else the first.
      if (r.killed && c.invariant != expected) continue;
      r.killed = true;
      r.invariant = c.invariant;
      r.plan = c.fault;
      r.replay = c.replay;
    }
    break;
  }
  r.verdict = !r.killed                 ? "survived"
              : r.invariant == expected ? "killed-as-expected"
                                        : "killed-by-another";
  return r;
}

}  // namespace stepfault::properties
