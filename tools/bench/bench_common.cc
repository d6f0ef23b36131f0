// Benchmark names, the byte pool, scratch directories and the registry.
#include "tools/bench/bench_common.h"

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>

#include "engine/random.h"
#include "engine/status.h"

namespace stepfault::bench {

std::string BenchName(std::string_view family, const Labels& labels) {
  std::string name(family);
  for (const auto& [key, value] : labels) name += "/" + key + ":" + value;
  return name;
}

namespace {

// Offsets stay below this, so a slice of kMaxSliceBytes always fits.
constexpr size_t kOffsetRange = 64u << 10;

const std::string& Pool() {
  static const std::string* pool = [] {
    auto* p = new std::string();
    p->reserve(kMaxSliceBytes + kOffsetRange);
    Rng rng(DeriveSeed(20261129, "bench-pool"));
    static constexpr char kHex[] = "0123456789abcdef";
    while (p->size() < kMaxSliceBytes + kOffsetRange) {
      uint64_t v = rng.Next();
      for (int i = 0; i < 16; ++i, v >>= 4) p->push_back(kHex[v & 0xf]);
    }
    return p;
  }();
  return *pool;
}

}  // namespace

std::string_view PoolSlice(size_t size, uint64_t salt) {
  SF_CHECK(size <= kMaxSliceBytes);
  const size_t offset = Mix64(salt) % kOffsetRange;
  return std::string_view(Pool()).substr(offset, size);
}

std::string MakeScratchDir(std::string_view label) {
  const char* root = std::getenv("STEPFAULT_BENCH_DIR");
  std::string base = (root != nullptr && *root != '\0') ? root : "/tmp";
  std::error_code ec;
  std::filesystem::create_directories(base, ec);
  std::string templ = base + "/stepfault-bench-" + std::string(label) + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    std::fprintf(stderr,
                 "stepfault-bench: cannot create a scratch directory under %s; set "
                 "STEPFAULT_BENCH_DIR to a writable directory\n",
                 base.c_str());
    SF_CHECK(false);
  }
  return std::string(buf.data());
}

void RemoveScratchDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (ec)
    std::fprintf(stderr, "stepfault-bench: could not remove %s: %s\n", dir.c_str(),
                 ec.message().c_str());
}

double Median(std::vector<double> values) {
  SF_CHECK(!values.empty());
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Registry& Registry::Global() {
  static Registry* registry = new Registry();
  return *registry;
}

benchmark::internal::Benchmark* Registry::Add(const std::string& name, BenchFn fn,
                                              std::function<void()> prepare, bool real_time) {
  if (prepare) prepares_.emplace_back(name, std::move(prepare));
  benchmark::internal::Benchmark* b =
      benchmark::RegisterBenchmark(name.c_str(), [fn](benchmark::State& s) { fn(s); });
  if (real_time) b->UseRealTime();
  return b;
}

void Registry::PrepareSelected(const std::string& filter) {
  std::string spec = filter.empty() || filter == "all" ? "." : filter;
  bool negate = false;
  if (!spec.empty() && spec[0] == '-') {
    negate = true;
    spec = spec.substr(1);
  }
  std::regex re;
  bool match_all = false;
  try {
    re = std::regex(spec, std::regex::extended);
  } catch (const std::regex_error&) {
    match_all = true;
  }
  for (const auto& [name, prepare] : prepares_) {
    const bool selected = match_all || (std::regex_search(name, re) != negate);
    if (selected) prepare();
  }
}

}  // namespace stepfault::bench
