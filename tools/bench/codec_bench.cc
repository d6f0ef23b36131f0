// BM_Encode and BM_Decode: EncodeCheckpoint and DecodeCheckpoint (validation included) of real
// checkpoints of 1 KB .. 8 MB of state (codec_fixture.h). bytes_per_second is encoded bytes per
// second; ratio divides the time by a memcpy of the encoded bytes.
#include <benchmark/benchmark.h>

#include "engine/checkpoint.h"
#include "tools/bench/bench_common.h"
#include "tools/bench/codec_fixture.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

void SetCodecCounters(benchmark::State& state, const CodecFixture& f) {
  const double iterations = static_cast<double>(state.iterations());
  const double bytes = static_cast<double>(f.encoded.size());
  const double limit_s = Limits::Global().Seconds(LimitKind::kMemcpy, f.encoded.size());
  state.counters["state_bytes"] = static_cast<double>(f.state_bytes);
  state.counters["checkpoint_bytes"] = bytes;
  state.counters["bytes_per_second"] =
      benchmark::Counter(bytes * iterations, benchmark::Counter::kIsRate);
  state.counters["limit_ns"] = limit_s * 1e9;
  state.counters["ratio"] = benchmark::Counter(
      limit_s * iterations, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Encode(benchmark::State& state, size_t size) {
  const CodecFixture& f = GetCodecFixture(size);
  for (auto _ : state) {
    std::string bytes = EncodeCheckpoint(f.checkpoint);
    benchmark::DoNotOptimize(bytes.data());
  }
  SetCodecCounters(state, f);
}

void Decode(benchmark::State& state, size_t size) {
  const CodecFixture& f = GetCodecFixture(size);
  for (auto _ : state) {
    Result<Checkpoint> c = DecodeCheckpoint(f.encoded);
    if (!c.ok()) {
      state.SkipWithError(c.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(c->step_number);
  }
  SetCodecCounters(state, f);
}

}  // namespace

void RegisterCodecFamily() {
  for (const bool encode : {true, false}) {
    const char* family = encode ? "BM_Encode" : "BM_Decode";
    for (size_t size : CodecSizes()) {
      auto prepare = [size] {
        Limits::Global().Seconds(LimitKind::kMemcpy, GetCodecFixture(size).encoded.size());
      };
      Registry::Global()
          .Add(
              BenchName(family, {{"size", std::to_string(size)}}),
              [encode, size](benchmark::State& s) { encode ? Encode(s, size) : Decode(s, size); },
              prepare)
          ->Unit(benchmark::kMicrosecond);
    }
  }
}

}  // namespace stepfault::bench
