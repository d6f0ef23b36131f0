// stepfault: the command line. Everything lives in stepfault_cli; this only dispatches.
#include "tools/cli/cli.h"

// jemalloc's options, read when it starts (the binary links jemalloc unless sanitized:
// CMakeLists.txt; under another allocator this is an unused string). One arena: jemalloc's default
// of four per CPU made interactive-flow's actor threads, created and ended for every schedule,
// cost a third more wall time in system calls (19.9 s with one arena, 30.9 s with the default,
// 29.5 s on glibc's malloc); a process with one thread uses one arena anyway.
extern "C" {
// NOLINTNEXTLINE(cppcoreguidelines-avoid-non-const-global-variables): the name jemalloc reads
const char* malloc_conf = "narenas:1";
}

int main(int argc, char** argv) { return stepfault::cli::RunCli(argc, argv); }
