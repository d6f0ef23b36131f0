// stepfault-bench: what checkpointing costs, against physical limits measured in the same run.
//
// main is Google Benchmark's BENCHMARK_MAIN plus two steps it has no hook for: before the run, the
// fixtures and limits the selected benchmarks need are built and calibrated (so every ratio of a
// run divides by the same limit); after it, a summary of the targets and cost-vs-size fits goes to
// stderr. Output format, filters and repetitions are Google Benchmark's own flags; the display
// reporter is the one --benchmark_format selects, wrapped to keep the results.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "tools/bench/bench_common.h"
#include "tools/bench/summary.h"

int main(int argc, char** argv) {
  char arg0_default[] = "stepfault-bench";
  char* args_default = arg0_default;
  if (argv == nullptr) {
    argc = 1;
    argv = &args_default;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using namespace stepfault::bench;
  RegisterStepFamily();
  RegisterCodecFamily();
  RegisterRestoreFamily();
  RegisterLimitFamily();
  RegisterChainFamily();
  Registry::Global().PrepareSelected(benchmark::GetBenchmarkFilter());
  TeeReporter tee(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&tee);
  PrintSummary(tee.Results(), stderr);
  benchmark::Shutdown();
  return 0;
}
