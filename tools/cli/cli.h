// The stepfault command line (docs/design.md §8): explore, check, replay, mutants, list, report,
// approval and demo. Every command returns its exit status: 0 every invariant held, 1 a violation
// (or, for approval, a failure after write), 2 bad usage or input (nothing durable changed),
// 3 coverage below --min-coverage.
// Thread-safety: a process runs one command.
#pragma once

#include <string>
#include <vector>

namespace stepfault::cli {

int RunCli(int argc, char** argv);

}  // namespace stepfault::cli
