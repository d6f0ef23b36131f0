// The stepfault command line (docs/design.md §8): explore, check, replay, mutants, list, report,
// approval and demo. Every command returns its exit status (scenarios/exit_codes.h): 0 every
// invariant held, 1 a violation (or, for approval, a failure after write), 2 bad usage or input
// (nothing durable changed), 3 coverage below --min-coverage, 4 an internal error.
// Thread-safety: a process runs one command.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace stepfault::cli {

int RunCli(int argc, char** argv);

// Runs `body` and turns any exception that escapes it into a documented exit code: a JSON library
// exception (input a boundary check missed) is 2; anything else is 4 with an "internal error ...
// please report" message naming `argv_line`. Never lets an exception reach std::terminate.
int GuardCommand(const std::string& argv_line, const std::function<int()>& body);

}  // namespace stepfault::cli
