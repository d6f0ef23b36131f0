// Shared pieces of stepfault-bench: benchmark names, a pool of deterministic bytes, scratch
// directories, and the registry that registers benchmarks and prepares what they need at startup.
//
// Names follow one scheme so the summary can group them: the family, then `key:value` labels, all
// joined by '/', e.g. `BM_Step/mode:memory/shape:fanin/width:8/state:10240`.
// The byte pool is a seeded stream of lowercase hex characters (so JSON never escapes it); a slice
// at a salt-derived offset gives "fresh" bytes for every write without paying for a generator.
// Wall-clock timing is allowed in tools/bench only; nothing here reaches the engine's output.
// Thread-safety: the pool is immutable after first use; the registry is used by main only.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepfault::bench {

using Labels = std::vector<std::pair<std::string, std::string>>;

// "family/key:value/key:value".
std::string BenchName(std::string_view family, const Labels& labels);

// Deterministic hex bytes. REQUIRES: size <= kMaxSliceBytes.
inline constexpr size_t kMaxSliceBytes = 12u << 20;
std::string_view PoolSlice(size_t size, uint64_t salt);

// A fresh empty directory under $STEPFAULT_BENCH_DIR (or /tmp), named after `label`.
std::string MakeScratchDir(std::string_view label);
// Removes `dir` and everything in it; a failure is reported on stderr, never fatal.
void RemoveScratchDir(const std::string& dir);

// Median of a small vector (copied, sorted). REQUIRES: !values.empty().
double Median(std::vector<double> values);

// Registration: every benchmark is added with an optional `prepare` step (fixtures, limit
// calibration) that main runs before any benchmark starts, for the names the filter selects.
class Registry {
 public:
  static Registry& Global();
  using BenchFn = std::function<void(benchmark::State&)>;
  // Registers `fn` under `name`; returns the benchmark for tuning. CPU-bound benchmarks measure CPU
  // time (robust on a shared machine); `real_time` ones (disk) measure wall time, and Google
  // Benchmark then appends "/real_time" to the name.
  benchmark::internal::Benchmark* Add(const std::string& name, BenchFn fn,
                                      std::function<void()> prepare = nullptr,
                                      bool real_time = false);
  // Runs the prepare steps of the benchmarks `filter` selects (Google Benchmark's regex rules:
  // search, "all" = everything, a leading '-' negates). An unparsable filter prepares everything.
  void PrepareSelected(const std::string& filter);

 private:
  std::vector<std::pair<std::string, std::function<void()>>> prepares_;
};

// The benchmark families; each registers itself with the Registry (main calls them once).
void RegisterStepFamily();     // step_bench.cc
void RegisterCodecFamily();    // codec_bench.cc
void RegisterRestoreFamily();  // restore_bench.cc
void RegisterLimitFamily();    // limit_bench.cc
void RegisterChainFamily();    // chain_bench.cc
// BM_ExploreAll (explore_bench.cc), registered only when `filter` names it: whole explorations of
// minutes to tens of minutes never run in a default or unrelated run.
void RegisterExploreAllFamily(const std::string& filter);

}  // namespace stepfault::bench
