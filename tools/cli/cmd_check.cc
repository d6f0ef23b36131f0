// check: RapidCheck random schedules (generated scenario parameters and multi-life fault plans)
// for one scenario; a failure shrinks to a minimal plan and is reported with the RapidCheck
// reproduce string and the `stepfault replay` command.
#include "properties/random_schedules.h"
#include "reports/merge.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {

void AddCheckCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand(
      "check", "random multi-life fault schedules with RapidCheck, shrunk on failure");
  auto* o = &state.check;
  cmd->add_option("--scenario", o->scenario, "scenario name or JSON scenario file")->required();
  AddUnsignedOption(cmd, "--cases", &o->cases, "number of random schedules", 1, 1'000'000);
  AddUnsignedOption(cmd, "--seed", &o->seed, "RapidCheck and run seed", 0, UINT64_MAX);
  cmd->add_option("--profile", o->profile, "strict or maf-compat");
  cmd->add_option("--hazard", o->hazards, "turn on a hazard (repeatable)");
  cmd->add_option("--out", o->out, "directory for the reports")->required();
  cmd->callback([&state] {
    state.run = [&state] {
      const CheckArgs& a = state.check;
      if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
      auto scenario = ResolveScenario(a.scenario);
      if (!scenario.ok()) return UsageError(scenario.status().message());
      auto config = MakeRunConfig(a.profile, a.hazards, a.seed);
      if (!config.ok()) return UsageError(config.status().message());
      if (Status h = CheckHazardsApply(a.hazards, {*scenario}); !h.ok())
        return UsageError(h.message());
      properties::CheckOptions options;
      options.seed = a.seed;
      options.cases = a.cases;
      options.config = *config;
      properties::CheckResult result = properties::CheckScenario(**scenario, options);
      reports::Report report;
      report.command = state.argv_line;
      report.seed = a.seed;
      report.profile = a.profile;
      report.hazards = options.config.profile.EnabledHazards();
      report.runs = result.cases;
      report.properties.push_back(
          properties::ToPropertyResult("random-schedules", **scenario, result));
      if (!result.passed) {
        reports::Violation v;
        v.scenario = (*scenario)->name();
        v.invariant = result.invariant;
        v.window = "random schedule";
        v.action = "plan";
        v.plan = result.plan;
        v.replay = result.replay;
        v.message = result.message;
        v.rapidcheck_reproduce = result.reproduce;
        v.seed = a.seed;
        report.violations.push_back(std::move(v));
      }
      reports::Canonicalize(&report);
      Status written = WriteReports(a.out, report);
      if (!written.ok()) return UsageError(written.ToString());
      if (result.passed) {
        std::printf("%s: %lld random schedules, every invariant held (seed %llu)\n",
                    (*scenario)->name().c_str(), static_cast<long long>(result.cases),
                    static_cast<unsigned long long>(a.seed));
      } else {
        std::printf(
            "%s: %s violated after %lld schedules\n  minimal plan: %s\n  replay: %s\n  RapidCheck: "
            "RC_PARAMS=\"%s\"\n  %s\n",
            (*scenario)->name().c_str(), result.invariant.c_str(),
            static_cast<long long>(result.cases), result.plan.c_str(), result.replay.c_str(),
            result.reproduce.c_str(), result.message.c_str());
      }
      std::printf("report: %s/report.html\n", a.out.c_str());
      return result.passed ? kExitOk : kExitViolation;
    };
  });
}

}  // namespace stepfault::cli
