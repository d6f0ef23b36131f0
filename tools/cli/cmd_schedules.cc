// `stepfault schedules explore|hunt` and the interactive-flow branch of `stepfault replay`: the
// command line of the multi-actor schedule explorer (properties/explore_schedules.h).
// Output is deterministic (no timings: measure with `time`).
#include <climits>
#include <cstdio>

#include "engine/message.h"
#include "faults/schedule_strategies.h"
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
  int max_preemptions = INT_MAX;
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
  o.max_preemptions = a.max_preemptions;
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

int RunSchedulesHunt(const SchedulesArgs& a) {
  properties::ScheduleExploreOptions o;
  o.pct_depth = a.depth;
  o.schedules = a.schedules;
  o.with_faults = !a.no_faults;
  std::printf("%-42s %-26s %10s %10s  (schedules to kill, median of %d seeds, cap %d)\n", "hazard",
              "expected invariant", "PCT", "random", a.seeds, a.schedules);
  int survived = 0;
  for (const auto& row : properties::HuntFlowMutants(o, a.seeds)) {
    std::printf("%-42s %-26s %10.1f %10.1f\n", row.hazard.c_str(), row.invariant.c_str(),
                row.pct_median, row.random_median);
    survived += row.pct_median > a.schedules;
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
  std::string error;
  auto fault = scenarios::flow::ParseFlowPlan(a.plan, &error);
  if (!fault.has_value()) return UsageError("bad --plan: " + error);
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
  auto* hunt = group->add_subcommand("hunt", "schedules PCT and random walks need per mutant");
  for (auto* cmd : {explore, hunt}) {
    AddUnsignedOption(cmd, "--schedules", &args.schedules, "runs (per seed)", 1, 1000000);
    AddUnsignedOption(cmd, "--depth", &args.depth, "PCT depth d", 1, 20);
    cmd->add_flag("--no-faults", args.no_faults, "no crash or power loss in any run");
  }
  explore
      ->add_option("--strategy", args.strategy,
                   "pct (default), random, dfs (iterative preemption bounding) or dfs-plain")
      ->check(CLI::IsMember({"pct", "random", "dfs", "dfs-plain"}));
  AddUnsignedOption(explore, "--max-preemptions", &args.max_preemptions,
                    "dfs: run no schedule with more preemptions", 0, INT_MAX);
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
