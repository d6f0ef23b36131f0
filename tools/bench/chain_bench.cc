// Incremental checkpoints against the interval K (StoreCheckpointOptions::full_every), over
// BytesStore (no disk), on the fan-in of width 1 whose state never changes after the warm-up
// (changes:none, as the bytes-written target row), 1 MB or 100 B per executor:
//  - BM_RestoreChain/k:K: a live StreamingRun::Restore of the newest checkpoint at the end of one
//    cycle, i.e. a full snapshot and K - 1 deltas on top of it (the longest chain K allows): the
//    manager reads and resolves the whole chain every iteration. Counter chain_deltas = K - 1.
//  - BM_StoredBytes/k:K: one iteration is one whole cycle of K steps (a full snapshot and K - 1
//    deltas) on a fresh run; stored_bytes_per_step is what BytesStore holds after the cycle minus
//    before it, divided by K: measured, not computed from sizes. stored_pct = that / state bytes.
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "tools/bench/bench_common.h"
#include "tools/bench/bytes_store.h"
#include "tools/bench/harness.h"

namespace stepfault::bench {
namespace {

Mode BytesMode(int k) {
  return Mode{"bytes_k" + std::to_string(k),
              ManagerKind::kStore,
              [](const std::string&) { return std::make_unique<BytesStore>(); },
              LimitKind::kNone,
              false,
              k};
}

StepConfig StaticConfig(size_t state_bytes) {
  return StepConfig{Shape::kFanIn, 1, state_bytes, /*static_state=*/true};
}

// Warm-up done (the state is written) and the next commit starts a cycle: a full snapshot.
std::unique_ptr<StepHarness> AtCycleStart(int k, size_t state_bytes) {
  auto harness = std::make_unique<StepHarness>(BytesMode(k), StaticConfig(state_bytes),
                                               static_cast<int>(kStaticStateSteps));
  auto* manager = dynamic_cast<StoreCheckpointManager*>(harness->manager());
  SF_CHECK(manager != nullptr);
  manager->RequestFullSnapshot();
  return harness;
}

size_t StoredBytes(StepHarness& harness) {
  auto* store = dynamic_cast<BytesStore*>(harness.store());
  SF_CHECK(store != nullptr);
  return store->total_bytes();
}

void RestoreChain(benchmark::State& state, int k, size_t state_bytes) {
  std::unique_ptr<StepHarness> harness = AtCycleStart(k, state_bytes);
  for (int i = 0; i < k; ++i) harness->Step();
  const CheckpointInfo newest = *harness->run().last_checkpoint();
  // The chain is what K says: the newest is a delta on K - 1 links (full at K = 1).
  Result<std::string> bytes = harness->store()->Retrieve(newest);
  SF_CHECK(bytes.ok());
  Result<std::optional<std::string>> base = CheckpointDeltaBase(*bytes);
  SF_CHECK(base.ok() && base->has_value() == (k > 1));
  for (auto _ : state) {
    Status s = harness->run().Restore(newest);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  SF_CHECK(harness->LastCheckpointBytes() > 0);  // resolves and checks the state once more
  state.counters["chain_deltas"] = k - 1;
  state.counters["state_bytes"] = static_cast<double>(TotalStateBytes(StaticConfig(state_bytes)));
}

void StoredBytesPerStep(benchmark::State& state, int k, size_t state_bytes) {
  double stored = 0, steps = 0;
  for (auto _ : state) {
    state.PauseTiming();
    std::unique_ptr<StepHarness> harness = AtCycleStart(k, state_bytes);
    const size_t before = StoredBytes(*harness);
    state.ResumeTiming();
    for (int i = 0; i < k; ++i) harness->Step();
    state.PauseTiming();
    stored += static_cast<double>(StoredBytes(*harness) - before);
    steps += k;
    harness.reset();
    state.ResumeTiming();
  }
  const double total_state = static_cast<double>(TotalStateBytes(StaticConfig(state_bytes)));
  state.counters["stored_bytes_per_step"] = stored / steps;
  state.counters["stored_pct"] = 100 * stored / steps / total_state;
  state.counters["state_bytes"] = total_state;
}

}  // namespace

void RegisterChainFamily() {
  for (size_t size : {size_t{100}, size_t{1} << 20}) {
    for (int k : {1, 16, 32, 128}) {
      const Labels labels = {
          {"changes", "none"}, {"k", std::to_string(k)}, {"state", std::to_string(size)}};
      Registry::Global()
          .Add(BenchName("BM_RestoreChain", labels),
               [k, size](benchmark::State& s) { RestoreChain(s, k, size); })
          ->Unit(benchmark::kMicrosecond);
      Registry::Global()
          .Add(BenchName("BM_StoredBytes", labels),
               [k, size](benchmark::State& s) { StoredBytesPerStep(s, k, size); })
          ->Unit(benchmark::kMicrosecond)
          ->Iterations(2);
    }
  }
}

}  // namespace stepfault::bench
