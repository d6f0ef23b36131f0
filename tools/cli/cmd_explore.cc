// explore, mutants and replay: the commands that run the harness.
#include <algorithm>

#include "faults/plan.h"
#include "properties/explorer.h"
#include "properties/mutants.h"
#include "scenarios/registry.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"
#include "tools/cli/progress.h"

namespace stepfault::cli {
namespace {

Result<std::pair<int, int>> ParseShard(const std::string& text) {
  size_t slash = text.find('/');
  int i = 0, n = 0;
  if (slash == std::string::npos || std::sscanf(text.c_str(), "%d/%d", &i, &n) != 2 || n < 1 ||
      i < 1 || i > n) {
    return Status::InvalidArgument("--shard must be I/N with 1 <= I <= N, e.g. 2/4 (got '" + text +
                                   "')");
  }
  return std::make_pair(i, n);
}

}  // namespace

void AddExploreCommand(CLI::App& app, CommandState& state) {
  auto* cmd =
      app.add_subcommand("explore", "every applicable fault at every window of each scenario");
  auto* o = &state.explore;
  cmd->add_option("--scenario", o->scenario, "scenario name");
  cmd->add_flag("--all", o->all, "every built-in scenario");
  cmd->add_option("--actions", o->actions, "action kinds to try (comma separated)")->delimiter(',');
  cmd->add_option("--depth", o->depth, "1, or 2 for a second fault in the first recovery")
      ->check(CLI::Range(1, 2));
  cmd->add_option("--profile", o->profile, "strict or maf-compat");
  cmd->add_option("--hazard", o->hazards,
                  "turn on a hazard (repeatable; see `stepfault list hazards`)");
  cmd->add_option("--seed", o->seed, "root seed");
  cmd->add_option("--jobs", o->jobs, "worker processes")->check(CLI::Range(1, 64));
  cmd->add_option("--shard", o->shard, "run shard I of N (I/N)");
  cmd->add_option("--min-coverage", o->min_coverage, "exit 3 when cell coverage is below PCT")
      ->check(CLI::Range(0.0, 100.0));
  cmd->add_option("--depth2-max-pairs", o->depth2_max_pairs,
                  "sample depth-2 pairs above this count");
  cmd->add_flag("--mutants", o->with_mutants, "also run the mutant hunt and put it in the report");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--out", o->out, "directory for the reports")->required();
  cmd->callback([&state] { state.run = [&state] { return RunExplore(state.explore); }; });
}

namespace {
// The exploration's identity: what selects the cells and decides their outcomes, without --shard,
// --out, --jobs or --quiet, so every shard of one exploration records the same command and merges.
std::string CanonicalCommand(const ExploreArgs& a) {
  std::string c =
      "stepfault explore " + (a.all ? std::string("--all") : "--scenario " + a.scenario);
  if (!a.actions.empty()) {
    c += " --actions ";
    for (size_t i = 0; i < a.actions.size(); ++i) c += (i > 0 ? "," : "") + a.actions[i];
  }
  c += " --depth " + std::to_string(a.depth) + " --profile " + a.profile;
  for (const std::string& h : a.hazards) c += " --hazard " + h;
  c += " --seed " + std::to_string(a.seed);
  if (a.depth == 2) c += " --depth2-max-pairs " + std::to_string(a.depth2_max_pairs);
  if (a.with_mutants) c += " --mutants";
  return c;
}
}  // namespace

int RunExplore(const ExploreArgs& a) {
  if (a.all == !a.scenario.empty())
    return UsageError("explore needs exactly one of --scenario NAME or --all");
  for (const std::string& k : a.actions) {
    const auto& names = properties::ActionKindNames();
    if (std::find(names.begin(), names.end(), k) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      return UsageError("unknown action '" + k + "'; the actions are: " + list);
    }
  }
  auto config = MakeRunConfig(a.profile, a.hazards, a.seed, "");
  if (!config.ok()) return UsageError(config.status().message());
  std::vector<std::shared_ptr<const scenarios::Scenario>> chosen;
  if (a.all) {
    chosen = scenarios::BuiltinScenarios();
  } else {
    auto s = ResolveScenario(a.scenario);
    if (!s.ok()) return UsageError(s.status().message());
    chosen.push_back(*s);
  }
  properties::ExploreOptions options;
  options.config = *config;
  options.depth = a.depth;
  options.action_kinds = a.actions;
  options.jobs = a.jobs;
  options.depth2_max_pairs = a.depth2_max_pairs;
  if (!a.shard.empty()) {
    auto shard = ParseShard(a.shard);
    if (!shard.ok()) return UsageError(shard.status().message());
    options.shard_index = shard->first;
    options.shard_count = shard->second;
  }
  reports::Report report;
  {
    std::unique_ptr<Progress> progress;
    std::string current;
    options.progress = [&](int64_t done, int64_t total) {
      if (!progress)
        progress =
            std::make_unique<Progress>(stderr, StderrIsTerminal(), a.quiet, "explore", total);
      progress->Advance(done - progress->done());
      if (done == total) {
        progress->Finish();
        progress.reset();
      }
    };
    report = properties::Explore(chosen, options, CanonicalCommand(a));
  }
  if (a.with_mutants) {
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
  return reports::VerdictExitCode(reports::ComputeVerdict(report));
}

void AddMutantsCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("mutants",
                                 "run exploration on every known bug and report which are killed");
  auto* o = &state.mutants;
  cmd->add_option("--jobs", o->jobs, "worker processes")->check(CLI::Range(1, 64));
  cmd->add_option("--seed", o->seed, "root seed");
  cmd->add_option("--only", o->only, "only these mutants (repeatable)");
  cmd->add_flag("--quiet", o->quiet, "no progress output");
  cmd->add_option("--out", o->out, "directory for the reports")->required();
  cmd->callback([&state] {
    state.run = [&state] {
      const MutantsArgs& a = state.mutants;
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
      std::printf("%-45s %-8s %-14s %s\n", "mutant", "killed", "invariant", "plan");
      for (const auto& m : report.mutants) {
        std::printf("%-45s %-8s %-14s %s\n", m.name.c_str(), m.killed ? "yes" : "NO",
                    m.invariant.c_str(), m.plan.empty() ? "(fault-free)" : m.plan.c_str());
      }
      PrintSummary(stdout, report, a.out);
      return reports::VerdictExitCode(reports::ComputeVerdict(report));
    };
  });
}

void AddReplayCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("replay", "replay one scenario under one fault plan, exactly");
  auto* o = &state.replay;
  cmd->add_option("scenario", o->scenario, "scenario name")->required();
  cmd->add_option("--plan", o->plan, "the fault plan, e.g. 'none;crash@effect.commit.after#1'")
      ->required();
  cmd->add_option("--seed", o->seed, "root seed");
  cmd->add_option("--profile", o->profile, "strict or maf-compat");
  cmd->add_option("--hazard", o->hazards, "turn on a hazard (repeatable)");
  cmd->add_option("--params", o->params, "scenario parameters as a JSON object");
  cmd->add_option("--store", o->store, "checkpoint store the hosts open: file or sqlite")
      ->check(CLI::IsMember({"file", "sqlite"}));
  cmd->add_flag("--trace", o->trace, "print the full trace of every life");
  cmd->callback([&state] {
    state.run = [&state] {
      const ReplayArgs& a = state.replay;
      auto scenario = ResolveScenario(a.scenario);
      if (!scenario.ok()) return UsageError(scenario.status().message());
      auto plan = faults::ParsePlan(a.plan);
      if (!plan.ok()) return UsageError("bad --plan: " + plan.status().message());
      auto config = MakeRunConfig(a.profile, a.hazards, a.seed, a.params);
      if (!config.ok()) return UsageError(config.status().message());
      config->checkpoint_store = a.store;
      properties::Execution ex = properties::RunPlan(**scenario, *plan, *config);
      if (a.trace) {
        std::fputs(ex.trace.c_str(), stdout);
      } else {
        for (size_t i = 0; i < ex.lives.size(); ++i) {
          const auto& l = ex.lives[i];
          std::printf(
              "life %zu %-8s fault=%-40s %s%s\n", i + 1, l.report.command.c_str(),
              l.fault ? l.fault->Print().c_str() : "none",
              l.death.empty() ? l.report.status.ToString().c_str() : ("died: " + l.death).c_str(),
              l.report.completed ? " (completed)" : "");
        }
      }
      for (const auto& v : ex.violations)
        std::printf("VIOLATION %s: %s\n", v.invariant.c_str(), v.message.c_str());
      std::printf("%s after %zu lives, %zu violation(s); seed %llu\n",
                  ex.completed ? "completed" : "not completed", ex.lives.size(),
                  ex.violations.size(), static_cast<unsigned long long>(a.seed));
      return ex.violations.empty() ? kExitOk : kExitViolation;
    };
  });
}

}  // namespace stepfault::cli
