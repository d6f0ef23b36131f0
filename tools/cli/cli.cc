// RunCli: CLI11 parsing and dispatch; usage errors exit 2.
#include "tools/cli/cli.h"

#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {

int RunCli(int argc, char** argv) {
  CommandState state;
  for (int i = 0; i < argc; ++i)
    state.argv_line += (i == 0 ? std::string("stepfault") : " " + std::string(argv[i]));
  CLI::App app(
      "stepfault: crash, power-fail, corrupt and mis-resume a checkpointed workflow engine at "
      "every "
      "interruption window, and check that recovery keeps its promises");
  app.require_subcommand(1);
  AddExploreCommand(app, state);
  AddCheckCommand(app, state);
  AddReplayCommand(app, state);
  AddMutantsCommand(app, state);
  AddListCommand(app, state);
  AddReportCommand(app, state);
  AddApprovalCommand(app, state);
  AddDemoCommand(app, state);
  AddBlackboxCommand(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "stepfault: %s\nRun with --help for usage.\n", e.what());
    return kExitUsage;
  }
  if (!state.run) return UsageError("no command given; run with --help");
  return state.run();
}

}  // namespace stepfault::cli
