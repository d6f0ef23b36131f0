// `stepfault schedules explore|hunt` and the interactive-flow branch of `stepfault replay`: the
// command line of the multi-actor schedule explorer (properties/explore_schedules.h).
// Output is deterministic (no timings: measure with `time`).
#include <algorithm>
#include <climits>
#include <cstdio>
#include <set>

#include "engine/message.h"
#include "faults/schedule_strategies.h"
#include "properties/explore_flow.h"
#include "properties/explore_schedules.h"
#include "scenarios/exit_codes.h"
#include "scenarios/interactive_flow/flow_hazards.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

struct SchedulesArgs {
  std::string strategy = "pct";
  int depth = 3;
  uint64_t seed = 1;
  int schedules = 200;
  int seeds = 9;
  bool no_faults = false;
  bool count_states = true;
  bool force_purge = false;
  std::vector<std::string> hazards;
  int max_preemptions = -1;  // explore: unbounded; hunt: explore's default bound
  int bounded_first = -1;    // explore: none; hunt: explore's default phase
  std::string hunt_strategies = "all";
};

// Flow hazards from --hazard values ("host:flow-..." or "flow-..."); a usage error otherwise.
Status FlowHazardsFrom(const std::vector<std::string>& names, scenarios::flow::FlowOptions* out) {
  for (const std::string& name : names) {
    if (!properties::FlowOptionsForMutant(name, out)) {
      std::string known;
      for (const auto& h : scenarios::flow::FlowHazards()) known += std::string(" host:") + h.name;
      return Status::InvalidArgument("unknown interactive-flow hazard '" + name +
                                     "'; known:" + known);
    }
  }
  return Status::Ok();
}

void PrintViolations(const properties::ScheduleExploration& e) {
  for (const auto& v : e.violations) {
    std::printf(
        "VIOLATION %s: %s\n  found at schedule %d (%llu context switches); shrunk: fault %s, "
        "%llu context switches (%s)\n  replay: %s\n",
        v.invariant.c_str(), v.message.c_str(), v.found_at,
        static_cast<unsigned long long>(v.context_switches_found), v.fault.c_str(),
        static_cast<unsigned long long>(v.context_switches),
        v.switches_minimal ? "none can be removed" : "shrink budget spent", v.replay.c_str());
  }
}

int RunSchedulesExplore(const SchedulesArgs& a) {
  properties::ScheduleExploreOptions o;
  o.strategy = a.strategy;
  o.pct_depth = a.depth;
  o.seed = a.seed;
  o.schedules = a.schedules;
  o.with_faults = !a.no_faults;
  o.count_states = a.count_states;
  o.flow.force_purge = a.force_purge;
  o.max_preemptions = a.max_preemptions < 0 ? INT_MAX : a.max_preemptions;
  o.bounded_first = std::max(a.bounded_first, 0);
  if (o.bounded_first > 0 && a.strategy.starts_with("dfs")) {
    return UsageError("--bounded-first applies to pct and random (dfs is bounded already)");
  }
  Status hazards = FlowHazardsFrom(a.hazards, &o.flow);
  if (!hazards.ok()) return UsageError(hazards.message());
  properties::ScheduleExploration e = properties::ExploreFlowSchedules(o);
  std::printf("scenario interactive-flow: strategy %s%s, seed %llu\n", a.strategy.c_str(),
              a.strategy == "pct" ? (" depth " + std::to_string(a.depth)).c_str() : "",
              static_cast<unsigned long long>(a.seed));
  std::printf("  schedules explored   %llu%s\n", static_cast<unsigned long long>(e.schedules),
              a.strategy.starts_with("dfs")
                  ? (e.dfs_complete ? " (tree exhausted)" : " (bound reached)")
                  : "");
  if (o.bounded_first > 0) {
    std::printf("    bounded phase first %llu (%s), %llu states branched from\n",
                static_cast<unsigned long long>(e.bounded_schedules),
                e.bounded_complete ? "every schedule within the bound" : "phase budget reached",
                static_cast<unsigned long long>(e.bounded_states));
  }
  for (const auto& [bound, runs] : e.runs_per_preemption_bound) {
    std::printf("    with %d preemption(s) %llu\n", bound, static_cast<unsigned long long>(runs));
  }
  std::printf("  distinct states      %s\n", a.count_states || a.strategy.starts_with("dfs")
                                                 ? std::to_string(e.distinct_states).c_str()
                                                 : "(not counted: --no-count-states)");
  std::printf("  distinct end worlds  %llu\n",
              static_cast<unsigned long long>(e.distinct_final_worlds));
  std::printf("  scheduling points    %llu (distinct windows: %llu actor@point)\n",
              static_cast<unsigned long long>(e.steps), static_cast<unsigned long long>(e.windows));
  std::printf("  context switches     %llu\n", static_cast<unsigned long long>(e.context_switches));
  std::printf("  faults fired         %llu\n", static_cast<unsigned long long>(e.faults_fired));
  std::printf("  violations           %zu\n", e.violations.size());
  PrintViolations(e);
  return e.violations.empty() ? kExitOk : kExitViolation;
}

// "median/worst" of a hunted column, "-" when it was not hunted.
std::string Cell(const properties::FlowHuntColumn& c) {
  if (c.per_seed.empty()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f/%d", c.median, c.worst);
  return text;
}

int RunSchedulesHunt(const SchedulesArgs& a) {
  // The bounded column is explore's default exploration unless told otherwise.
  properties::ScheduleExploreOptions o = properties::DefaultFlowExploreOptions(1, a.schedules);
  o.pct_depth = a.depth;
  o.with_faults = !a.no_faults;
  if (a.bounded_first >= 0) o.bounded_first = a.bounded_first;
  if (a.max_preemptions >= 0) o.max_preemptions = a.max_preemptions;
  std::set<std::string> strategies = {"bounded", "pct", "random"};
  if (a.hunt_strategies != "all") strategies = {a.hunt_strategies};
  std::printf(
      "%-42s %-26s %12s %12s %12s  (schedules to kill, median/worst of %d seeds, cap %d; "
      "bounded: %d bounded runs at most %d preemptions, then PCT)\n",
      "hazard", "expected invariant", "bounded+PCT", "PCT", "random", a.seeds, a.schedules,
      o.bounded_first, o.max_preemptions);
  int survived = 0;
  for (const auto& row : properties::HuntFlowMutants(o, a.seeds, strategies)) {
    std::printf("%-42s %-26s %12s %12s %12s\n", row.hazard.c_str(), row.invariant.c_str(),
                Cell(row.bounded).c_str(), Cell(row.pct).c_str(), Cell(row.random).c_str());
    // The verdict is the first strategy hunted: explore's default unless --strategy says.
    const properties::FlowHuntColumn& first = !row.bounded.per_seed.empty() ? row.bounded
                                              : !row.pct.per_seed.empty()   ? row.pct
                                                                            : row.random;
    survived += first.worst > a.schedules;
  }
  return survived == 0 ? kExitOk : kExitViolation;
}

}  // namespace

int RunFlowScheduleReplay(const ReplayArgs& a) {
  scenarios::flow::FlowOptions flow;
  Status hazards = FlowHazardsFrom(a.hazards, &flow);
  if (!hazards.ok()) return UsageError(hazards.message());
  if (!a.params.empty()) {
    Json params = Json::parse(a.params, nullptr, /*allow_exceptions=*/false);
    if (!params.is_object() || params.size() != params.count("force_purge") ||
        (params.contains("force_purge") && !params["force_purge"].is_boolean())) {
      return UsageError("bad --params for interactive-flow: only {\"force_purge\": true|false}");
    }
    flow.force_purge = params.value("force_purge", false);
  }
  Result<scenarios::flow::FlowPlan> fault = scenarios::flow::ParseFlowPlan(a.plan);
  if (!fault.ok()) return UsageError("bad --plan: " + fault.status().message());
  std::string error;
  auto choices = faults::DecodeSchedule(a.schedule, &error);
  if (!choices.has_value()) return UsageError("bad --schedule: " + error);
  faults::ReplayStrategy replay(*choices);
  auto r = scenarios::flow::RunFlowWorld(&replay, flow, *fault, 20000, a.trace);
  if (a.trace) {
    for (const std::string& line : r.run.trace) std::printf("%s\n", line.c_str());
  }
  for (const std::string& d : r.run.deaths) std::printf("death %s\n", d.c_str());
  for (const auto& v : r.violations)
    std::printf("VIOLATION %s: %s\n", v.invariant.c_str(), v.message.c_str());
  std::printf("world %s\n", r.digest.c_str());
  std::printf(
      "schedule %s\nfault %s, run %s, %llu scheduling points, %llu context switches, "
      "%zu violation(s)\n",
      r.run.schedule.c_str(), scenarios::flow::FlowPlanText(*fault).c_str(), r.final_status.c_str(),
      static_cast<unsigned long long>(r.run.steps),
      static_cast<unsigned long long>(r.run.context_switches), r.violations.size());
  if (replay.divergences() > 0) {
    std::fprintf(stderr,
                 "stepfault: the schedule diverged at %llu choice(s): it was printed for another "
                 "fault, hazards or build\n",
                 static_cast<unsigned long long>(replay.divergences()));
    return kExitUsage;
  }
  return r.violations.empty() ? kExitOk : kExitViolation;
}

void AddSchedulesCommand(CLI::App& app, CommandState& state) {
  static SchedulesArgs args;  // the command line is parsed once per process
  auto* group = app.add_subcommand(
      "schedules", "explore interleavings of the interactive-flow actors (PCT, random, dfs)");
  group->require_subcommand(1);
  auto* explore = group->add_subcommand("explore", "explore schedules and faults; report");
  auto* hunt = group->add_subcommand(
      "hunt", "schedules explore's default, PCT and random walks need per mutant");
  for (auto* cmd : {explore, hunt}) {
    AddUnsignedOption(cmd, "--schedules", &args.schedules, "runs (per seed)", 1, 1000000);
    AddUnsignedOption(cmd, "--depth", &args.depth, "PCT depth d", 1, 20);
    cmd->add_flag("--no-faults", args.no_faults, "no crash or power loss in any run");
  }
  explore
      ->add_option("--strategy", args.strategy,
                   "pct (default), random, dfs (iterative preemption bounding) or dfs-plain")
      ->check(CLI::IsMember({"pct", "random", "dfs", "dfs-plain"}));
  for (auto* cmd : {explore, hunt}) {
    AddUnsignedOption(cmd, "--max-preemptions", &args.max_preemptions,
                      "dfs and the bounded phase: run no schedule with more preemptions (hunt: " +
                          std::to_string(properties::kFlowBoundedPreemptions) + ")",
                      0, INT_MAX);
    AddUnsignedOption(cmd, "--bounded-first", &args.bounded_first,
                      "pct/random: runs of a bounded exhaustive phase (iterative preemption "
                      "bounding, no fault) first (explore: 0; hunt: half of --schedules, as "
                      "`explore` does)",
                      0, 1000000);
  }
  hunt->add_option("--strategy", args.hunt_strategies,
                   "all (default), bounded (explore's default: bounded phase, then PCT), pct or "
                   "random")
      ->check(CLI::IsMember({"all", "bounded", "pct", "random"}));
  AddUnsignedOption(explore, "--seed", &args.seed, "root seed", 0, UINT64_MAX);
  explore->add_option("--hazard", args.hazards, "switch on a flow hazard (host:flow-...)");
  explore->add_flag("--force-purge", args.force_purge, "the clock's purge is forced");
  explore->add_flag("!--no-count-states", args.count_states,
                    "do not key every choice (about ten times faster)");
  AddUnsignedOption(hunt, "--seeds", &args.seeds, "seeds 1..N", 1, 1000);
  explore->callback([&state] { state.run = [] { return RunSchedulesExplore(args); }; });
  hunt->callback([&state] { state.run = [] { return RunSchedulesHunt(args); }; });
}

}  // namespace stepfault::cli
