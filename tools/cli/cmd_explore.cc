// explore, mutants and replay: the commands that run the harness.
#include <algorithm>
#include <cstdlib>
#include <tuple>

#include "faults/plan.h"
#include "properties/explore_flow.h"
#include "properties/explorer.h"
#include "properties/interrupt.h"
#include "properties/mutants.h"
#include "reports/shell_quote.h"
#include "scenarios/exit_codes.h"
#include "scenarios/registry.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"
#include "tools/cli/plan_check.h"
#include "tools/cli/progress.h"
#include "tools/cli/shard_env.h"

namespace stepfault::cli {
namespace {

// "file, sqlite, ..." for the help texts.
std::string StoreNamesText() {
  std::string list;
  for (const std::string& n : properties::CheckpointStoreNames())
    list += (list.empty() ? "" : ", ") + n;
  return list;
}

}  // namespace

void AddExploreCommand(CLI::App& app, CommandState& state) {
  auto* cmd =
      app.add_subcommand("explore", "every applicable fault at every window of each scenario");
  auto* o = &state.explore;
  cmd->add_option("--scenario", o->scenario, "scenario name");
  cmd->add_flag("--all", o->all, "every built-in scenario");
  cmd->add_option("--actions", o->actions, "action kinds to try (comma separated)")->delimiter(',');
  AddUnsignedOption(cmd, "--depth", &o->depth,
                    "faults per plan: 1, 2 (default: every recovery window of every distinct crash "
                    "state crashed and powered off) or 3",
                    1, 3);
  cmd->add_option("--profile", o->profile, "strict or maf-compat");
  cmd->add_option("--hazard", o->hazards,
                  "turn on a hazard (repeatable; see `stepfault list hazards`)");
  AddUnsignedOption(cmd, "--seed", &o->seed, "root seed", 0, UINT64_MAX);
  AddUnsignedOption(cmd, "--jobs", &o->jobs, "worker processes", 1, 64);
  cmd->add_option("--shard", o->shard,
                  "run shard I of N (I/N); without it, GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS or "
                  "JOB_COMPLETION_INDEX/STEPFAULT_TOTAL_SHARDS");
  AddPercentOption(cmd, "--min-coverage", &o->min_coverage,
                   "exit 3 when the cells run are below PCT of discovered windows x applicable "
                   "actions (filtered actions count as not run)");
  AddUnsignedOption(cmd, "--schedules", &o->schedules,
                    "schedules explored per scenario with several actors (interactive-flow; "
                    "default " +
                        std::to_string(properties::kDefaultFlowSchedules) + ")",
                    1, 1000000);
  cmd->add_option("--store", o->stores,
                  "explore only these checkpoint stores' variants (comma separated or "
                  "repeatable: " +
                      StoreNamesText() + "; default: every store)")
      ->delimiter(',')
      ->check(CLI::IsMember(properties::CheckpointStoreNames()));
  cmd->add_flag("--mutants", o->with_mutants, "also run the mutant hunt and put it in the report");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--out", o->out, "directory for the reports")->required();
  cmd->callback([&state] { state.run = [&state] { return RunExplore(state.explore); }; });
}

namespace {
// The exploration's identity: what selects the cells and decides their outcomes, without --shard,
// --out, --jobs or --quiet, so every shard of one exploration records the same command and merges.
std::string CanonicalCommand(const ExploreArgs& a) {
  using reports::ShellQuote;
  std::string c = "stepfault explore " +
                  (a.all ? std::string("--all") : "--scenario " + ShellQuote(a.scenario));
  if (!a.actions.empty()) {
    std::string actions;
    for (size_t i = 0; i < a.actions.size(); ++i) actions += (i > 0 ? "," : "") + a.actions[i];
    c += " --actions " + ShellQuote(actions);
  }
  c += " --depth " + std::to_string(a.depth) + " --profile " + ShellQuote(a.profile);
  for (const std::string& h : a.hazards) c += " --hazard " + ShellQuote(h);
  c += " --seed " + std::to_string(a.seed);
  if (a.schedules > 0) c += " --schedules " + std::to_string(a.schedules);
  if (a.with_mutants) c += " --mutants";
  // Only when given: an exploration of every store records the command it always did.
  for (const std::string& store : properties::CheckpointStoreNames()) {
    if (std::find(a.stores.begin(), a.stores.end(), store) != a.stores.end())
      c += " --store " + ShellQuote(store);
  }
  return c;
}
}  // namespace

namespace {

// The fault-free run of `variant` broke an invariant: that is said first and alone, since every
// fault would otherwise be blamed for it. A JSON scenario run as written (strict, no hazard)
// whose fault-free run fails has a wrong `expect`: bad input, exit 2, nothing written. Otherwise
// exit 1 with the one counterexample, the report holding only it.
int FaultFreeFailure(const ExploreArgs& a, const std::string& variant,
                     const reports::Report& report) {
  std::string broken, replay;
  for (const reports::Violation& v : report.violations) {
    broken += "\n  " + v.invariant + ": " + v.message;
    replay = v.replay;
  }
  const bool json = !a.all && a.scenario.ends_with(".json");
  if (json && a.profile == "strict" && a.hazards.empty()) {
    return UsageError("the fault-free run of '" + variant + "' (" + a.scenario +
                      ") does not do what its `expect` says:" + broken +
                      "\nno fault was injected, so `expect` (its effects and outputs) is wrong; "
                      "fix it in " +
                      a.scenario + " (replay: " + replay + "; `stepfault expect " + a.scenario +
                      "` prints what the run did, in `expect` form)");
  }
  std::fprintf(stdout,
               "stepfault: the fault-free run of '%s' already breaks an invariant, with no fault "
               "injected:%s\n  plan: none (fault-free)\n  replay: %s\nnothing was explored under "
               "faults (each fault would be blamed for this); fix the fault-free run first\n",
               variant.c_str(), broken.c_str(), replay.c_str());
  Status written = WriteReports(a.out, report);
  if (!written.ok()) return UsageError(written.ToString());
  std::printf("report: %s/report.html\n", a.out.c_str());
  return kExitViolation;
}

}  // namespace

int RunExplore(const ExploreArgs& a) {
  if (a.all == !a.scenario.empty())
    return UsageError("explore needs exactly one of --scenario NAME or --all");
  // Every argument is checked before any work, so a bad --out never costs a whole run.
  if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
  for (const std::string& k : a.actions) {
    const auto& names = properties::ActionKindNames();
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      return UsageError("unknown action '" + k + "'; the actions are: " + list);
    }
  }
  auto config = MakeRunConfig(a.profile, a.hazards, a.seed);
  if (!config.ok()) return UsageError(config.status().message());
  std::vector<std::shared_ptr<const scenarios::ScenarioInfo>> chosen;
  if (a.all) {
    chosen = scenarios::AllScenarios();
  } else if (auto several = scenarios::FindScheduleScenario(a.scenario)) {
    // A scenario explored by schedules has no cells (its windows have no denominator the
    // explorer does not choose), so a cell-coverage gate on it alone could only fail.
    if (a.min_coverage > 0)
      return UsageError("--min-coverage gates on cells, and '" + a.scenario +
                        "' is explored by schedules and has none; drop --min-coverage, or "
                        "use --all to gate the scenarios that have cells");
    chosen.push_back(several);
  } else {
    auto s = ResolveScenario(a.scenario);
    if (!s.ok()) return UsageError(s.status().message());
    chosen.push_back(*s);
  }
  if (Status h = CheckHazardsApply(a.hazards, chosen); !h.ok()) return UsageError(h.message());
  properties::ExploreOptions options;
  options.config = *config;
  options.depth = a.depth;
  options.action_kinds = a.actions;
  options.jobs = a.jobs;
  options.flow_schedules = a.schedules;
  options.stores = a.stores;
  // --shard, else the CI system's sharding convention, if it sets one (tools/cli/shard_env.h).
  auto shard = ResolveShard(a.shard);
  if (!shard.ok()) return UsageError(shard.status().message());
  options.shard_index = shard->index;
  options.shard_count = shard->count;
  const std::string shard_note = shard->EnvironmentNote();
  if (!shard_note.empty()) std::fprintf(stderr, "explore: %s\n", shard_note.c_str());
  reports::Report report;
  std::string fault_free_failure;  // the variant whose fault-free run broke an invariant
  {
    // One count over the whole run: the variants, the current one named with its level's cells.
    std::unique_ptr<Progress> progress;
    std::string current;
    options.variant = [&](int64_t index, int64_t count, const std::string& name) {
      if (!progress) {
        progress =
            std::make_unique<Progress>(stderr, StderrIsTerminal(), a.quiet, "explore", count);
        progress->set_unit("variants");
      }
      progress->Advance(index - progress->done());
      current = name;
      progress->SetCurrent(current, 0);
    };
    const int depth = std::max(1, static_cast<int>(a.depth));
    options.progress = [&](int level, int64_t done, int64_t total) {
      if (!progress) return;
      // Within the variant: each level an equal share (a deeper level costs more, so early in a
      // variant the ETA is optimistic; it corrects itself as variants finish).
      const double within =
          (static_cast<double>(level - 1) +
           (total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0)) /
          static_cast<double>(depth);
      progress->SetCurrent(current + ": level " + std::to_string(level) + ", " +
                               std::to_string(done) + "/" + std::to_string(total) + " cells",
                           within);
    };
    // The first Ctrl-C (or SIGTERM) stops the run and the report of what ran is written, marked
    // partial (properties/interrupt.h); the second kills.
    properties::InstallInterruptHandlers();
    report = properties::Explore(chosen, options, CanonicalCommand(a), &fault_free_failure);
    properties::RestoreDefaultInterruptHandlers();
    if (progress) {
      progress->Advance(progress->total() - progress->done());
      progress->Finish();
    }
  }
  if (!fault_free_failure.empty()) return FaultFreeFailure(a, fault_free_failure, report);
  if (a.with_mutants && !report.interrupted.empty()) {
    std::fprintf(stderr, "explore: interrupted, so the mutant hunt did not run\n");
  } else if (a.with_mutants) {
    std::unique_ptr<Progress> progress;
    properties::ExploreOptions hunt;
    hunt.config = options.config;
    hunt.jobs = a.jobs;
    report.mutants = properties::RunMutants(hunt, {}, [&](int64_t done, int64_t total) {
      if (!progress) {
        progress =
            std::make_unique<Progress>(stderr, StderrIsTerminal(), a.quiet, "mutants", total);
        progress->set_unit("mutants");
      }
      progress->Advance(done - progress->done());
      if (done == total) progress->Finish();
    });
  }
  report.min_coverage_pct = a.min_coverage;
  Status written = WriteReports(a.out, report);
  if (!written.ok()) return UsageError(written.ToString());
  PrintSummary(stdout, report, a.out);
  if (!shard_note.empty()) {
    std::printf("%s\n", shard->SummaryNote().c_str());
  }
  return reports::VerdictExitCode(reports::ComputeVerdict(report));
}

void AddMutantsCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("mutants",
                                 "run exploration on every known bug and report which are killed");
  auto* o = &state.mutants;
  AddUnsignedOption(cmd, "--jobs", &o->jobs, "worker processes", 1, 64);
  AddUnsignedOption(cmd, "--seed", &o->seed, "root seed", 0, UINT64_MAX);
  cmd->add_option("--only", o->only, "only these mutants (repeatable)");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--out", o->out, "directory for the reports")->required();
  cmd->callback([&state] {
    state.run = [&state] {
      const MutantsArgs& a = state.mutants;
      if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
      for (const std::string& name : a.only) {
        bool known = false;
        for (const auto& m : properties::AllMutants()) known = known || m.name == name;
        if (!known)
          return UsageError("unknown mutant '" + name + "'; run `stepfault list hazards`");
      }
      properties::ExploreOptions options;
      options.config.seed = a.seed;
      options.jobs = a.jobs;
      reports::Report report;
      report.command = state.argv_line;
      report.seed = a.seed;
      report.profile = "strict";
      std::unique_ptr<Progress> progress;
      report.mutants = properties::RunMutants(options, a.only, [&](int64_t done, int64_t total) {
        if (!progress) {
          progress =
              std::make_unique<Progress>(stderr, StderrIsTerminal(), a.quiet, "mutants", total);
          progress->set_unit("mutants");
        }
        progress->Advance(done - progress->done());
        if (done == total) progress->Finish();
      });
      Status written = WriteReports(a.out, report);
      if (!written.ok()) return UsageError(written.ToString());
      std::printf("%-45s %-18s %-26s %-26s %s\n", "mutant", "verdict", "invariant", "expected",
                  "plan");
      for (const auto& m : report.mutants) {
        std::string expected;
        for (const std::string& e : m.expected) expected += (expected.empty() ? "" : ",") + e;
        std::printf("%-45s %-18s %-26s %-26s %s\n", m.name.c_str(),
                    m.verdict.empty() ? (m.killed ? "killed" : "SURVIVED") : m.verdict.c_str(),
                    m.invariant.c_str(), expected.c_str(),
                    m.plan.empty() ? "(fault-free)" : m.plan.c_str());
      }
      PrintSummary(stdout, report, a.out);
      return reports::VerdictExitCode(reports::ComputeVerdict(report));
    };
  });
}

namespace {

// `replay` of a scenario with several actors: its own plan grammar and schedule, replayed exactly
// by the scenario (ScheduleScenario::ReplaySchedule); prints what the run did. Exit: violation(s)
// found, else ok; a schedule that diverged (printed for another plan, hazards or build) is a
// usage error.
int RunScheduleReplay(const scenarios::ScheduleScenario& s, const ReplayArgs& a) {
  auto r = s.ReplaySchedule({a.plan, a.schedule, a.hazards, a.params, a.trace});
  if (!r.ok()) return UsageError(r.status().message());
  for (const std::string& line : r->trace) std::printf("%s\n", line.c_str());
  for (const std::string& d : r->deaths) std::printf("death %s\n", d.c_str());
  for (const auto& v : r->violations)
    std::printf("VIOLATION %s: %s\n", v.invariant.c_str(), v.message.c_str());
  std::printf("world %s\n", r->digest.c_str());
  std::printf(
      "schedule %s\nfault %s, run %s, %llu scheduling points, %llu context switches, "
      "%zu violation(s)\n",
      r->schedule.c_str(), r->plan.c_str(), r->final_status.c_str(),
      static_cast<unsigned long long>(r->steps),
      static_cast<unsigned long long>(r->context_switches), r->violations.size());
  if (r->divergences > 0) {
    std::fprintf(stderr,
                 "stepfault: the schedule diverged at %llu choice(s): it was printed for another "
                 "fault, hazards or build\n",
                 static_cast<unsigned long long>(r->divergences));
    return kExitUsage;
  }
  return r->violations.empty() ? kExitOk : kExitViolation;
}

}  // namespace

namespace {

// What a replay of one plan prints of its lives: the full trace, or a line per life.
void PrintReplayedLives(const properties::Execution& ex, bool trace) {
  if (trace) {
    std::fputs(ex.trace.c_str(), stdout);
    return;
  }
  for (size_t i = 0; i < ex.lives.size(); ++i) {
    const auto& l = ex.lives[i];
    std::printf("life %zu %-8s fault=%-40s %s%s\n", i + 1, l.report.command.c_str(),
                l.fault ? l.fault->Print().c_str() : "none",
                l.death.empty() ? l.report.status.ToString().c_str() : ("died: " + l.death).c_str(),
                l.report.completed ? " (completed)" : "");
  }
}

}  // namespace

void AddReplayCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("replay", "replay one scenario under one fault plan, exactly");
  auto* o = &state.replay;
  cmd->add_option("--scenario", o->scenario, "scenario name or JSON scenario file");
  cmd->add_option("scenario", o->scenario_positional,
                  "the same as --scenario (the older spelling)");
  cmd->add_option("--plan", o->plan, "the fault plan, e.g. 'none;crash@effect.commit.after#1'")
      ->required();
  AddUnsignedOption(cmd, "--seed", &o->seed, "root seed", 0, UINT64_MAX);
  cmd->add_option("--profile", o->profile, "strict or maf-compat");
  cmd->add_option("--hazard", o->hazards, "turn on a hazard (repeatable)");
  cmd->add_option("--params", o->params,
                  "scenario parameters as a JSON object merged over the defaults (`stepfault list "
                  "params` lists each scenario's)");
  cmd->add_option("--store", o->store, "checkpoint store the hosts open: " + StoreNamesText())
      ->check(CLI::IsMember(properties::CheckpointStoreNames()));
  cmd->add_flag("--trace", o->trace, "print the full trace of every life");
  cmd->add_option("--schedule", o->schedule,
                  "a scenario with several actors: the actor schedule (a3b1...)");
  std::string footer = "Scenario parameters (--params):\n";
  for (const auto& s : scenarios::BuiltinScenarios())
    footer += "  " + s->name() + "\n" + scenarios::DescribeParams(s->params(), "    ");
  cmd->footer(footer);
  cmd->callback([&state] {
    state.run = [&state] {
      ReplayArgs& a = state.replay;
      // One grammar with explore and check: --scenario X; `replay X` stays accepted.
      if (!a.scenario.empty() && !a.scenario_positional.empty() &&
          a.scenario != a.scenario_positional) {
        return UsageError("two scenarios given ('" + a.scenario + "' by --scenario and '" +
                          a.scenario_positional + "' as an argument): give one, with --scenario");
      }
      if (a.scenario.empty()) a.scenario = a.scenario_positional;
      if (a.scenario.empty())
        return UsageError("replay needs a scenario: --scenario NAME (`stepfault list` names them)");
      if (auto several = scenarios::FindScheduleScenario(a.scenario))
        return RunScheduleReplay(*several, a);
      if (!a.schedule.empty()) {
        std::string names;
        for (const auto& s : scenarios::ScheduleScenarios())
          names += (names.empty() ? "" : ", ") + s->name();
        return UsageError("--schedule applies only to " + names +
                          " (the scenarios with several actors); '" + a.scenario +
                          "' runs one host per life: drop "
                          "--schedule");
      }
      auto scenario = ResolveScenario(a.scenario);
      if (!scenario.ok()) return UsageError(scenario.status().message());
      auto plan = faults::ParsePlan(a.plan);
      if (!plan.ok()) return UsageError("bad --plan: " + plan.status().message());
      auto config = MakeRunConfig(a.profile, a.hazards, a.seed);
      if (!config.ok()) return UsageError(config.status().message());
      if (Status h = CheckHazardsApply(a.hazards, {*scenario}); !h.ok())
        return UsageError(h.message());
      auto params = ResolveParamsText(**scenario, a.params);
      if (!params.ok()) return UsageError(params.status().message());
      config->params = *params;
      Status points = CheckPlanForScenario(*plan, **scenario, *config);
      if (!points.ok()) return UsageError("bad --plan: " + points.message());
      config->checkpoint_store = a.store;
      properties::Execution ex = properties::RunPlan(**scenario, *plan, *config);
      PrintReplayedLives(ex, a.trace);
      for (const auto& v : ex.violations)
        std::printf("VIOLATION %s: %s\n", v.invariant.c_str(), v.message.c_str());
      const std::vector<std::string> unfired = FaultsNeverFired(*plan, ex);
      for (const std::string& line : unfired) std::fprintf(stderr, "stepfault: %s\n", line.c_str());
      std::printf("%s after %zu lives, %zu violation(s); seed %llu\n",
                  ex.completed ? "completed" : "not completed", ex.lives.size(),
                  ex.violations.size(), static_cast<unsigned long long>(a.seed));
      if (!ex.violations.empty()) return kExitViolation;
      // The plan asked for a fault this run never reached: nothing was tested.
      return unfired.empty() ? kExitOk : kExitUsage;
    };
  });
}

}  // namespace stepfault::cli
