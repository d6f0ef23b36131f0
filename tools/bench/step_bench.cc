// BM_Step: the per-super-step cost of the benchmark workflows (harness.h) under every mode of the
// mode table (modes.h). One iteration is one super-step. When a run's retained checkpoints reach
// the budget, destroying them (StepHarness::FreeRun: the run, its manager and store objects) is
// timed, amortised over the steps that made them; building and warming the next run (and removing
// a disk mode's scratch directory) happens with timing paused. The last run of a benchmark is
// freed untimed (one of the many runs a row takes). Rows labelled free:untimed (the in-memory ring)
// pause timing for the freeing as well: what the figures were before it was counted.
//
// Matrix: linear ring of length 8 and fanin of width 1, 8 and 64, each with 100 B, 10 KB and 1 MB
// of state per executor; fanin 64 x 1 MB (65 MB of state per step) is left out. Disk modes run
// only fanin widths 1 and 8.
// Counters: state_bytes (what a checkpoint carries), checkpoint_bytes (its encoded size, measured
// on the last checkpoint; 0 without checkpointing), bytes_per_second (checkpoint bytes per second,
// kIsRate), limit_ns (the mode's limit for this size, limits.h) and ratio = step time / limit_ns;
// changed_bytes (the state one step rewrites) and changed_memcpy_ns (a memcpy of those bytes);
// stored_bytes_per_step (what the store holds per checkpoint: deltas between full snapshots).
// changes:none is the fan-in of width 1 whose state never changes after the warm-up (bytes and
// bytes_full modes: incremental vs every checkpoint full).
// The limit is memcpy of state_bytes for memory modes, and the file limits on checkpoint_bytes
// for disk modes, timed interleaved with the steps (durable_bench.h, which also splits the step).
#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "tools/bench/bench_common.h"
#include "tools/bench/durable_bench.h"
#include "tools/bench/harness.h"
#include "tools/bench/limits.h"
#include "tools/bench/modes.h"

namespace stepfault::bench {
namespace {

// The encoded checkpoint size of a config, found once by a short in-memory run (disk limits
// need it before any benchmark starts).
size_t ProbeCheckpointBytes(const StepConfig& config) {
  static std::map<std::tuple<int, int, size_t>, size_t>* cache =
      new std::map<std::tuple<int, int, size_t>, size_t>();
  const auto key =
      std::make_tuple(static_cast<int>(config.shape), config.width, config.state_bytes);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  Mode memory{"memory", ManagerKind::kInMemory, nullptr, LimitKind::kMemcpy, false};
  StepHarness probe(memory, config);
  const size_t bytes = probe.LastCheckpointBytes();
  (*cache)[key] = bytes;
  return bytes;
}

// The state bytes one step rewrites: the token holder's state in the ring; every executor's from
// step 2 of the fan-in.
size_t ChangedBytes(const StepConfig& config) {
  if (config.static_state) return 0;
  return config.shape == Shape::kLinear ? config.state_bytes : TotalStateBytes(config);
}

size_t LimitBytes(const Mode& mode, const StepConfig& config) {
  return mode.limit == LimitKind::kMemcpy ? TotalStateBytes(config) : ProbeCheckpointBytes(config);
}

void RunStep(benchmark::State& state, const Mode& mode, const StepConfig& config,
             bool time_freeing) {
  // Durable stores: their limit and their parts timed interleaved with their steps.
  if (mode.on_disk) return RunDurableStep(state, mode, config);
  StepHarness harness(mode, config);
  for (auto _ : state) {
    if (harness.Exhausted()) {
      if (!time_freeing) state.PauseTiming();
      harness.FreeRun();  // freeing what the steps retained is part of their cost
      if (time_freeing) state.PauseTiming();
      harness.Reset();
      state.ResumeTiming();
    }
    harness.Step();
  }
  const double checkpoint_bytes = static_cast<double>(harness.LastCheckpointBytes());
  state.counters["stored_bytes_per_step"] = harness.StoredBytesPerStep();
  const double iterations = static_cast<double>(state.iterations());
  state.counters["state_bytes"] = static_cast<double>(TotalStateBytes(config));
  state.counters["checkpoint_bytes"] = checkpoint_bytes;
  if (checkpoint_bytes > 0) {
    state.counters["bytes_per_second"] =
        benchmark::Counter(checkpoint_bytes * iterations, benchmark::Counter::kIsRate);
  }
  state.counters["changed_bytes"] = static_cast<double>(ChangedBytes(config));
  if (ChangedBytes(config) > 0) {
    state.counters["changed_memcpy_ns"] =
        Limits::Global().Seconds(LimitKind::kMemcpy, ChangedBytes(config)) * 1e9;
  }
  if (mode.limit != LimitKind::kNone) {
    const double limit_s = Limits::Global().Seconds(mode.limit, LimitBytes(mode, config));
    state.counters["limit_ns"] = limit_s * 1e9;
    state.counters["ratio"] = benchmark::Counter(
        limit_s * iterations, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  }
}

}  // namespace

void RegisterStepFamily() {
  const std::vector<size_t> states = {100, 10240, 1048576};
  for (const Mode& mode : Modes()) {
    std::vector<StepConfig> configs;
    if (!mode.on_disk) {
      for (size_t s : states) configs.push_back({Shape::kLinear, 8, s});
    }
    for (int width : {1, 8, 64}) {
      if (mode.on_disk && width > 8) continue;
      for (size_t s : states) {
        if (width == 64 && s == 1048576) continue;  // 65 MB of state per step: left out
        configs.push_back({Shape::kFanIn, width, s});
      }
    }
    // A step that changes nothing (the bytes-written row): the in-memory store modes.
    if (mode.name == "bytes" || mode.name == "bytes_full") {
      configs.push_back({Shape::kFanIn, 1, 1048576, /*static_state=*/true});
    }
    for (const StepConfig& config : configs) {
      const bool linear = config.shape == Shape::kLinear;
      // The ring in memory also without its freeing timed: the row both ways (docs/performance.md).
      const bool both_ways = linear && (mode.name == "memory" || mode.name == "none");
      for (const bool time_freeing : {true, false}) {
        if (!time_freeing && !both_ways) continue;
        Labels labels = {{"mode", mode.name},
                         {"shape", linear ? "linear" : "fanin"},
                         {linear ? "length" : "width", std::to_string(config.width)},
                         {"state", std::to_string(config.state_bytes)}};
        if (config.static_state) labels.insert(labels.begin(), {"changes", "none"});
        if (!time_freeing) labels.push_back({"free", "untimed"});
        const std::string name = BenchName("BM_Step", labels);
        auto prepare = [mode, config] {
          if (ChangedBytes(config) > 0)
            Limits::Global().Seconds(LimitKind::kMemcpy, ChangedBytes(config));
          // Disk modes time their limit beside every step (durable_bench.h).
          if (mode.limit != LimitKind::kNone && !mode.on_disk)
            Limits::Global().Seconds(mode.limit, LimitBytes(mode, config));
        };
        benchmark::internal::Benchmark* bench = Registry::Global().Add(
            name,
            [mode, config, time_freeing](benchmark::State& s) {
              RunStep(s, mode, config, time_freeing);
            },
            prepare,
            /*real_time=*/mode.on_disk);
        bench->Unit(benchmark::kMicrosecond);
        // A durable 1 MB row runs long enough that its runs end by exhausting their budget
        // (255 steps), not by the repetition's end: closing the store is timed (durable_bench.h),
        // and SQLite's close also unlinks its WAL (16-28 ms), a once-per-store cost that at the
        // default minimum time (about 35-170 iterations per repetition here) added 0.1-0.8 ms to
        // every step. At 3 s of timed steps (200-1000 steps on this machine) most closes end a run
        // of 255 steps, so the unlink adds at most about 1/200 of itself to a step.
        if (mode.on_disk && config.state_bytes >= 1048576) bench->MinTime(3.0);
      }
    }
  }
}

}  // namespace stepfault::bench
