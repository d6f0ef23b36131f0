// BM_Encode and BM_Decode: EncodeCheckpoint and DecodeCheckpoint (validation included) of real
// checkpoints of 1 KB .. 8 MB of state (codec_fixture.h), label format:v2 (the framed codec) and
// format:v1 (EncodeCheckpointJson, the previous all-JSON codec, still decoded: the "before" in the
// same run). bytes_per_second is encoded bytes per second; ratio divides the time by a memcpy of
// the encoded bytes.
#include <benchmark/benchmark.h>

#include "engine/checkpoint.h"
#include "tools/bench/bench_common.h"
#include "tools/bench/codec_fixture.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

const std::string& Encoded(const CodecFixture& f, bool v2) {
  return v2 ? f.encoded : f.encoded_json;
}

void SetCodecCounters(benchmark::State& state, const CodecFixture& f, bool v2) {
  const double iterations = static_cast<double>(state.iterations());
  const double bytes = static_cast<double>(Encoded(f, v2).size());
  const double limit_s = Limits::Global().Seconds(LimitKind::kMemcpy, Encoded(f, v2).size());
  state.counters["state_bytes"] = static_cast<double>(f.state_bytes);
  state.counters["checkpoint_bytes"] = bytes;
  state.counters["bytes_per_second"] =
      benchmark::Counter(bytes * iterations, benchmark::Counter::kIsRate);
  state.counters["limit_ns"] = limit_s * 1e9;
  state.counters["ratio"] = benchmark::Counter(
      limit_s * iterations, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void Encode(benchmark::State& state, size_t size, bool v2) {
  const CodecFixture& f = GetCodecFixture(size);
  for (auto _ : state) {
    std::string bytes = v2 ? EncodeCheckpoint(f.checkpoint) : EncodeCheckpointJson(f.checkpoint);
    benchmark::DoNotOptimize(bytes.data());
  }
  SetCodecCounters(state, f, v2);
}

void Decode(benchmark::State& state, size_t size, bool v2) {
  const CodecFixture& f = GetCodecFixture(size);
  for (auto _ : state) {
    Result<Checkpoint> c = DecodeCheckpoint(Encoded(f, v2));
    if (!c.ok()) {
      state.SkipWithError(c.status().ToString().c_str());
      break;
    }
    benchmark::DoNotOptimize(c->step_number);
  }
  SetCodecCounters(state, f, v2);
}

}  // namespace

void RegisterCodecFamily() {
  for (const bool encode : {true, false}) {
    const char* family = encode ? "BM_Encode" : "BM_Decode";
    for (const bool v2 : {true, false}) {
      for (size_t size : CodecSizes()) {
        auto prepare = [size, v2] {
          Limits::Global().Seconds(LimitKind::kMemcpy, Encoded(GetCodecFixture(size), v2).size());
        };
        Registry::Global()
            .Add(
                BenchName(family, {{"format", v2 ? "v2" : "v1"}, {"size", std::to_string(size)}}),
                [encode, size, v2](benchmark::State& s) {
                  encode ? Encode(s, size, v2) : Decode(s, size, v2);
                },
                prepare)
            ->Unit(benchmark::kMicrosecond);
      }
    }
  }
}

}  // namespace stepfault::bench
