// RunCli: CLI11 parsing and dispatch. Every way out is a documented exit code
// (scenarios/exit_codes.h): usage errors exit 2, and an exception that escapes a command becomes
// exit 2 (bad input that a deeper layer rejected by throwing) or exit 4 (an internal error, with a
// "please report" line naming the command), never an abort with a core dump.
#include "tools/cli/cli.h"

#include <nlohmann/json.hpp>

#include "reports/shell_quote.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

int Dispatch(CLI::App& app, CommandState& state, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "stepfault: %s\nRun with --help for usage.\n", e.what());
    return kExitUsage;
  }
  if (!state.run) return UsageError("no command given; run with --help");
  return state.run();
}

}  // namespace

int GuardCommand(const std::string& argv_line, const std::function<int()>& body) {
  const auto internal = [&argv_line](const std::string& what) {
    std::fprintf(stderr,
                 "stepfault: internal error: %s\n"
                 "This is a bug in stepfault, please report it with this command line:\n  %s\n",
                 what.c_str(), argv_line.c_str());
    return kExitInternal;
  };
  try {
    return body();
  } catch (const nlohmann::json::exception& e) {
    // The JSON library throws on input it cannot represent (invalid UTF-8, a wrong type): bad
    // input that a boundary check missed. A usage error for the user; still worth a fix.
    std::fprintf(stderr, "stepfault: bad input: %s\n", e.what());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    return internal("out of memory");
  } catch (const std::exception& e) {
    return internal(e.what());
  } catch (...) {
    return internal("unknown exception");
  }
}

int RunCli(int argc, char** argv) {
  CommandState state;
  std::vector<std::string> words{"stepfault"};
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i]);
  state.argv_line = reports::ShellJoin(words);
  return GuardCommand(state.argv_line, [&] {
    CLI::App app(
        "stepfault: crash, power-fail, corrupt and mis-resume a checkpointed workflow engine at "
        "every interruption window, and check that recovery keeps its promises.\n"
        "Exit codes: 0 ok, 1 violation, 2 bad usage or input, 3 coverage below --min-coverage, "
        "4 internal error, 5 inconclusive (black-box: the recording is incomplete)");
    app.set_version_flag("--version", std::string("stepfault ") + kStepfaultVersion);
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
    AddSchedulesCommand(app, state);
    AddDifferentialCommand(app, state);
    AddExpectCommand(app, state);
    return Dispatch(app, state, argc, argv);
  });
}

}  // namespace stepfault::cli
