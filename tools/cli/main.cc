// stepfault: the command line. Everything lives in stepfault_cli; this only dispatches.
#include "tools/cli/cli.h"

int main(int argc, char** argv) { return stepfault::cli::RunCli(argc, argv); }
