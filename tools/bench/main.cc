// stepfault-bench: what checkpointing costs, against physical limits measured in the same run.
//
// main is Google Benchmark's BENCHMARK_MAIN plus two steps it has no hook for: before the run, the
// fixtures and limits the selected benchmarks need are built and calibrated (so every ratio of a
// run divides by the same limit); after it, a summary of the targets and cost-vs-size fits goes to
// stderr. Output format, filters and repetitions are Google Benchmark's own flags; the display
// reporter is the one --benchmark_format selects, wrapped to keep the results.
//
// The allocator is pinned first: glibc serves a block of 1 MB from fresh mmapped pages until the
// process frees an mmapped block, which raises its dynamic mmap threshold; from then on such
// blocks come from the heap (and the trim threshold becomes twice the mmap threshold, so the heap
// keeps freed memory instead of returning it). So a size-dependent row (the 1 MB ring) measured 2x
// or 24x depending on what ran before it in the same process. main fixes both thresholds where the
// dynamic rule takes them in a long-running process that frees large blocks (mmap 32 MB, glibc's
// maximum on 64-bit; trim twice that), so every row measures that steady state whatever the filter
// selects. Setting only the mmap threshold is not that state: it switches the dynamic rule off and
// leaves the trim threshold at 128 KB, so the heap returns and re-faults its top on every step.
#include <benchmark/benchmark.h>

#include <cstdio>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "tools/bench/bench_common.h"
#include "tools/bench/summary.h"

int main(int argc, char** argv) {
  char arg0_default[] = "stepfault-bench";
  char* args_default = arg0_default;
  if (argv == nullptr) {
    argc = 1;
    argv = &args_default;
  }
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  using namespace stepfault::bench;
  RegisterStepFamily();
  RegisterCodecFamily();
  RegisterRestoreFamily();
  RegisterLimitFamily();
  RegisterChainFamily();
  RegisterExploreAllFamily(benchmark::GetBenchmarkFilter());
  Registry::Global().PrepareSelected(benchmark::GetBenchmarkFilter());
  TeeReporter tee(benchmark::CreateDefaultDisplayReporter());
  benchmark::RunSpecifiedBenchmarks(&tee);
  PrintSummary(tee.Results(), stderr);
  benchmark::Shutdown();
  return 0;
}
