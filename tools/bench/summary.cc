// TeeReporter and the summary.
#include "tools/bench/summary.h"

#include <algorithm>
#include <cmath>

namespace stepfault::bench {

namespace {

// Google Benchmark's own suffixes (min_time:, real_time, repeats:, ...) are not labels.
BenchResult Parse(const std::string& name) {
  BenchResult r;
  size_t start = 0;
  bool first = true;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string seg = name.substr(start, end - start);
    if (first) {
      r.family = seg;
      first = false;
    } else if (size_t colon = seg.find(':'); colon != std::string::npos) {
      const std::string key = seg.substr(0, colon);
      if (key != "min_time" && key != "iterations" && key != "repeats" && key != "threads") {
        r.labels[key] = seg.substr(colon + 1);
      }
    }
    start = end + 1;
  }
  return r;
}

BenchResult FromRun(const benchmark::BenchmarkReporter::Run& run) {
  BenchResult r = Parse(run.run_name.str());
  // The time Google Benchmark decided on: wall for real-time (disk) benchmarks, else CPU.
  const bool real = run.run_name.time_type == "real_time";
  r.time_ns = (real ? run.GetAdjustedRealTime() : run.GetAdjustedCPUTime()) /
              benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e9;
  for (const auto& [k, c] : run.counters) r.counters[k] = c.value;
  return r;
}

}  // namespace

bool TeeReporter::ReportContext(const Context& context) { return inner_->ReportContext(context); }

void TeeReporter::ReportRuns(const std::vector<Run>& runs) {
  // `ratio` is computed as an inverted rate (time / (iterations * limit)); its value is final
  // here, so it is shown as a plain number rather than with the rate's "s" suffix.
  std::vector<Run> shown = runs;
  for (Run& run : shown) {
    auto it = run.counters.find("ratio");
    if (it != run.counters.end()) it->second.flags = benchmark::Counter::kDefaults;
  }
  inner_->ReportRuns(shown);
  for (const Run& run : runs) {
    if (run.error_occurred) continue;
    const std::string name = run.run_name.str();
    if (run.run_type == Run::RT_Aggregate) {
      if (run.aggregate_name == "median") medians_[name] = FromRun(run);
    } else {
      runs_[name].push_back(FromRun(run));
    }
  }
}

void TeeReporter::Finalize() { inner_->Finalize(); }

std::map<std::string, BenchResult> TeeReporter::Results() const {
  std::map<std::string, BenchResult> out = medians_;
  for (const auto& [name, list] : runs_) {
    if (out.count(name) > 0 || list.empty()) continue;
    BenchResult r = list.front();
    r.time_ns = 0;
    for (const BenchResult& x : list) r.time_ns += x.time_ns / static_cast<double>(list.size());
    out[name] = r;
  }
  return out;
}

namespace {

using ResultList = std::vector<const BenchResult*>;

std::string Key(const BenchResult& r, const std::vector<std::string>& skip) {
  std::string k;
  for (const auto& [key, value] : r.labels) {
    bool skipped = false;
    for (const std::string& s : skip) skipped = skipped || s == key;
    if (!skipped) k += (k.empty() ? "" : "/") + key + ":" + value;
  }
  return k;
}

double Counter(const BenchResult& r, const char* name) {
  auto it = r.counters.find(name);
  return it == r.counters.end() ? 0 : it->second;
}

struct Fit {
  double slope = 0, intercept = 0, r2 = 0;
};

// Least squares of y on x. REQUIRES: at least two distinct x.
Fit LeastSquares(const std::vector<double>& x, const std::vector<double>& y) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  Fit f;
  const double den = n * sxx - sx * sx;
  if (den == 0) return f;
  f.slope = (n * sxy - sx * sy) / den;
  f.intercept = (sy - f.slope * sx) / n;
  double ss_res = 0, ss_tot = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double e = y[i] - (f.intercept + f.slope * x[i]);
    ss_res += e * e;
    ss_tot += (y[i] - sy / n) * (y[i] - sy / n);
  }
  f.r2 = ss_tot > 0 ? 1 - ss_res / ss_tot : 1;
  return f;
}

// Prints a fit of time against `x_counter` for every group of `family` (labels but `size_key`).
void PrintFits(const std::map<std::string, BenchResult>& results, const std::string& family,
               const char* size_key, const char* x_counter, std::FILE* out) {
  std::map<std::string, std::vector<std::pair<double, double>>> groups;  // key -> (x, y)
  for (const auto& [name, r] : results) {
    if (r.family != family) continue;
    groups[Key(r, {size_key})].push_back({Counter(r, x_counter), r.time_ns});
  }
  for (auto& [key, points] : groups) {
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end());
    std::vector<double> x, y;
    for (const auto& [px, py] : points) {
      x.push_back(px);
      y.push_back(py);
    }
    const Fit f = LeastSquares(x, y);
    std::fprintf(out,
                 "  %-10s %-40s slope %8.4f ns/B (%7.2f GB/s)  intercept %10.2f us  R^2 %.4f  "
                 "marginal ns/B:",
                 family.c_str(), key.c_str(), f.slope, f.slope > 0 ? 1.0 / f.slope : 0.0,
                 f.intercept / 1e3, f.r2);
    for (size_t i = 1; i < x.size(); ++i) {
      std::fprintf(out, " %.4f", x[i] > x[i - 1] ? (y[i] - y[i - 1]) / (x[i] - x[i - 1]) : 0.0);
    }
    std::fprintf(out, "\n");
  }
}

}  // namespace

void PrintSummary(const std::map<std::string, BenchResult>& results, std::FILE* out) {
  if (results.empty()) return;
  // Unchecked steps by configuration, to compare against.
  std::map<std::string, const BenchResult*> unchecked;
  for (const auto& [name, r] : results) {
    if (r.family == "BM_Step" && r.labels.count("mode") > 0 && r.labels.at("mode") == "none") {
      unchecked[Key(r, {"mode"})] = &r;
    }
  }
  std::fprintf(out,
               "\n== stepfault-bench summary (medians of repetitions when aggregates were "
               "reported, else means; times per iteration) ==\n");
  std::fprintf(
      out,
      "Target: in-memory checkpointing at 1 MB/executor <= 2x memcpy of the state per step "
      "(verdict on (step - unchecked step) / memcpy):\n");
  for (const auto& [name, r] : results) {
    if (r.family != "BM_Step" || r.labels.count("mode") == 0 || r.labels.at("mode") != "memory" ||
        r.labels.count("state") == 0 || r.labels.at("state") != "1048576")
      continue;
    const double limit = Counter(r, "limit_ns");
    auto base = unchecked.find(Key(r, {"mode"}));
    if (limit <= 0 || base == unchecked.end()) continue;
    const double overhead = (r.time_ns - base->second->time_ns) / limit;
    std::fprintf(out,
                 "  %-40s step %10.1f us  unchecked %10.1f us  memcpy(%.0f B) %9.1f us  "
                 "step/memcpy %5.2f  overhead/memcpy %5.2f  [%s]\n",
                 Key(r, {"mode", "state"}).c_str(), r.time_ns / 1e3, base->second->time_ns / 1e3,
                 Counter(r, "state_bytes"), limit / 1e3, r.time_ns / limit, overhead,
                 overhead <= 2 ? "met" : "not met");
  }
  std::fprintf(out, "Target: a checkpointed step at 100 B/executor <= 2x an unchecked step:\n");
  for (const auto& [name, r] : results) {
    if (r.family != "BM_Step" || r.labels.count("state") == 0 || r.labels.at("state") != "100" ||
        r.labels.at("mode") == "none")
      continue;
    auto base = unchecked.find(Key(r, {"mode"}));
    if (base == unchecked.end() || base->second->time_ns <= 0) continue;
    const double ratio = r.time_ns / base->second->time_ns;
    std::fprintf(out, "  %-55s %9.2f us / %9.2f us = %5.2f  [%s]\n", Key(r, {"state"}).c_str(),
                 r.time_ns / 1e3, base->second->time_ns / 1e3, ratio,
                 ratio <= 2 ? "met" : "not met");
  }
  std::fprintf(out,
               "Cost vs size, least squares time = intercept + slope * bytes (x = state_bytes for "
               "steps/restore, checkpoint_bytes for the codec, bytes for limits):\n");
  PrintFits(results, "BM_Step", "state", "state_bytes", out);
  PrintFits(results, "BM_Encode", "size", "checkpoint_bytes", out);
  PrintFits(results, "BM_Decode", "size", "checkpoint_bytes", out);
  PrintFits(results, "BM_Restore", "size", "state_bytes", out);
  PrintFits(results, "BM_Limit", "size", "bytes", out);
  // The checkpointing's own cost: step time minus the unchecked step, against state bytes.
  std::map<std::string, std::vector<std::pair<double, double>>> overhead;
  for (const auto& [name, r] : results) {
    if (r.family != "BM_Step" || r.labels.at("mode") == "none") continue;
    auto base = unchecked.find(Key(r, {"mode"}));
    if (base == unchecked.end()) continue;
    overhead[Key(r, {"state"})].push_back(
        {Counter(r, "state_bytes"), r.time_ns - base->second->time_ns});
  }
  std::fprintf(out, "Checkpoint overhead (step - unchecked step) vs state bytes:\n");
  for (auto& [key, points] : overhead) {
    if (points.size() < 2) continue;
    std::sort(points.begin(), points.end());
    std::vector<double> x, y;
    for (const auto& [px, py] : points) {
      x.push_back(px);
      y.push_back(py);
    }
    const Fit f = LeastSquares(x, y);
    std::fprintf(out, "  %-55s slope %8.4f ns/B  intercept %9.2f us  R^2 %.4f\n", key.c_str(),
                 f.slope, f.intercept / 1e3, f.r2);
  }
  PrintTargets(results, out);
}

}  // namespace stepfault::bench
