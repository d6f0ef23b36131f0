// stepfault expect FILE.json: runs a JSON scenario fault-free (strict profile, its `expect`
// ignored or absent) and prints what it did as the `expect` member to paste into the file: the
// effect rows and the outputs. Writing a scenario then takes the workflow alone; the outcome is
// read off a run instead of written by hand (issue 30).
#include "engine/env.h"
#include "properties/life_runner.h"
#include "scenarios/json/json_scenario.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

int PrintExpect(const std::string& path, uint64_t seed) {
  if (!path.ends_with(".json"))
    return UsageError("expect takes a JSON scenario file (*.json), got '" + path + "'");
  auto scenario = scenarios::LoadJsonScenarioIgnoringExpect(PosixEnv(), path);
  if (!scenario.ok()) return UsageError(scenario.status().message());
  auto config = MakeRunConfig("strict", {}, seed);
  if (!config.ok()) return UsageError(config.status().message());
  const properties::Execution ex = properties::RunPlan(**scenario, faults::Plan{}, *config);
  if (!ex.completed) {
    std::string why;
    for (const properties::LifeRecord& l : ex.lives) {
      if (!l.report.status.ok()) why = l.report.status.ToString();
    }
    return UsageError("the fault-free run of " + path + " does not finish, so it has no outcome " +
                      "to print" + (why.empty() ? "" : ": " + why) +
                      "; fix the workflow (replay: stepfault replay --scenario " + path +
                      " --plan none --trace)");
  }
  std::vector<scenarios::LifeReport> lives;
  for (const properties::LifeRecord& l : ex.lives) lives.push_back(l.report);
  const Json expect = {{"expect", scenarios::JsonScenarioObservedExpect(lives)}};
  std::printf("%s\n", expect.dump(2).c_str());
  std::fprintf(stderr,
               "stepfault: the fault-free run of %s (strict profile, seed %llu) in `expect` form: "
               "review it, then paste its \"expect\" member into the file\n",
               path.c_str(), static_cast<unsigned long long>(seed));
  return kExitOk;
}

}  // namespace

void AddExpectCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand(
      "expect", "print a JSON scenario's fault-free effects and outputs as its `expect` member");
  cmd->add_option("scenario", state.expect_scenario, "the JSON scenario file")->required();
  AddUnsignedOption(cmd, "--seed", &state.expect_seed, "root seed", 0, UINT64_MAX);
  cmd->callback([&state] {
    state.run = [&state] { return PrintExpect(state.expect_scenario, state.expect_seed); };
  });
}

}  // namespace stepfault::cli
