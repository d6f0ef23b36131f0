// BM_Limit: the physical limits as benchmarks of their own, on the bytes of the codec fixtures
// (codec_fixture.h) so they line up with BM_Encode/BM_Decode sizes:
//  - op:memcpy            memcpy of the fixture's state bytes into a preallocated buffer;
//  - op:atomic_file       write + fsync + close + rename + directory fsync of the encoded
//  checkpoint;
//  - op:append_fdatasync  append + fdatasync of the encoded checkpoint to one file (emptied, with
//                         timing paused, whenever it passes 256 MB).
// Files live in a scratch directory under $STEPFAULT_BENCH_DIR or /tmp (real disk).
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "tools/bench/bench_common.h"
#include "tools/bench/codec_fixture.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

void SetBytes(benchmark::State& state, size_t bytes) {
  state.counters["bytes"] = static_cast<double>(bytes);
  state.counters["bytes_per_second"] =
      benchmark::Counter(static_cast<double>(bytes) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void Memcpy(benchmark::State& state, size_t size) {
  const size_t n = GetCodecFixture(size).state_bytes;
  const std::string_view src = PoolSlice(n, n);
  std::vector<char> dst(n, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), n);
    benchmark::ClobberMemory();
  }
  SetBytes(state, n);
}

void AtomicFile(benchmark::State& state, size_t size) {
  const std::string& bytes = GetCodecFixture(size).encoded;
  const std::string dir = MakeScratchDir("bm-atomic");
  {
    AtomicFileWriter w(dir);
    for (auto _ : state) {
      Status s = w.Publish(bytes);
      if (!s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        break;
      }
    }
  }
  RemoveScratchDir(dir);
  SetBytes(state, bytes.size());
}

void AppendSync(benchmark::State& state, size_t size) {
  const std::string& bytes = GetCodecFixture(size).encoded;
  const std::string dir = MakeScratchDir("bm-append");
  {
    AppendSyncWriter w(dir);
    for (auto _ : state) {
      if (w.file_bytes() > (256u << 20)) {
        state.PauseTiming();
        SF_CHECK(w.Truncate().ok());
        state.ResumeTiming();
      }
      Status s = w.Append(bytes);
      if (!s.ok()) {
        state.SkipWithError(s.ToString().c_str());
        break;
      }
    }
  }
  RemoveScratchDir(dir);
  SetBytes(state, bytes.size());
}

}  // namespace

void RegisterLimitFamily() {
  for (size_t size : CodecSizes()) {
    auto prepare = [size] { GetCodecFixture(size); };
    auto add = [&](const char* op, void (*fn)(benchmark::State&, size_t), bool real_time) {
      Registry::Global()
          .Add(
              BenchName("BM_Limit", {{"op", op}, {"size", std::to_string(size)}}),
              [fn, size](benchmark::State& s) { fn(s, size); }, prepare, real_time)
          ->Unit(benchmark::kMicrosecond);
    };
    add("memcpy", Memcpy, false);
    add("atomic_file", AtomicFile, true);
    add("append_fdatasync", AppendSync, true);
  }
}

}  // namespace stepfault::bench
