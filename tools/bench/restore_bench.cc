// BM_Restore: latency of a live StreamingRun::Restore of checkpoint k of a chain of d checkpoints
// under the in-memory manager. The chain is the fanin workflow of width 7 (8 stateful executors,
// each holding size/8 bytes) run for d steps; k = d/2, so the restored checkpoint has k ancestors
// and the run restores across d-1-k newer checkpoints. The same checkpoint is restored every
// iteration (a restore of the state the run already holds still does the whole import).
// ratio divides by a memcpy of the state bytes.
#include <benchmark/benchmark.h>

#include "tools/bench/bench_common.h"
#include "tools/bench/harness.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

const Mode& MemoryMode() {
  static const Mode* mode =
      new Mode{"memory", ManagerKind::kInMemory, nullptr, LimitKind::kMemcpy, false};
  return *mode;
}

void Restore(benchmark::State& state, size_t size, int depth) {
  const StepConfig config{Shape::kFanIn, 7, size / 8};
  StepHarness harness(MemoryMode(), config, /*warm_steps=*/0);
  for (int i = 0; i < depth; ++i) harness.Step();
  SF_CHECK(harness.run().checkpoints().size() == static_cast<size_t>(depth));
  const CheckpointInfo target = harness.run().checkpoints()[static_cast<size_t>(depth / 2)];
  for (auto _ : state) {
    Status s = harness.run().Restore(target);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  const double iterations = static_cast<double>(state.iterations());
  const double limit_s = Limits::Global().Seconds(LimitKind::kMemcpy, TotalStateBytes(config));
  state.counters["state_bytes"] = static_cast<double>(TotalStateBytes(config));
  state.counters["limit_ns"] = limit_s * 1e9;
  state.counters["ratio"] = benchmark::Counter(
      limit_s * iterations, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

}  // namespace

void RegisterRestoreFamily() {
  for (size_t size : {size_t{1} << 10, size_t{64} << 10, size_t{1} << 20, size_t{8} << 20}) {
    for (int depth : {2, 16, 128}) {
      if (size == (size_t{8} << 20) && depth == 128) continue;  // 1 GB of retained checkpoints
      const std::string name = BenchName("BM_Restore", {{"size", std::to_string(size)},
                                                        {"depth", std::to_string(depth)},
                                                        {"k", std::to_string(depth / 2)}});
      auto prepare = [size] {
        Limits::Global().Seconds(LimitKind::kMemcpy, TotalStateBytes({Shape::kFanIn, 7, size / 8}));
      };
      Registry::Global()
          .Add(
              name, [size, depth](benchmark::State& s) { Restore(s, size, depth); }, prepare)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace stepfault::bench
