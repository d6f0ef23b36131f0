// Google Benchmark JSON -> BenchResult (see bench_json.h).
#include "reports/bench_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

namespace stepfault::reports {
namespace {

using Json = nlohmann::json;

Status Bad(size_t index, std::string_view reason) {
  return Status::InvalidArgument(fmt::format("/benchmarks/{}: {}", index, reason));
}

std::optional<double> NanosPerUnit(std::string_view unit) {
  if (unit == "ns") return 1.0;
  if (unit == "us") return 1e3;
  if (unit == "ms") return 1e6;
  if (unit == "s") return 1e9;
  return std::nullopt;
}

void SplitName(std::string_view name, BenchResult* b) {
  size_t slash = name.find('/');
  b->family = std::string(name.substr(0, slash));
  int bare = 0;
  while (slash != std::string_view::npos) {
    size_t next = name.find('/', slash + 1);
    std::string_view seg =
        name.substr(slash + 1, next == std::string_view::npos ? next : next - slash - 1);
    slash = next;
    if (seg.empty() || seg == "real_time" || seg == "process_time" || seg == "manual_time")
      continue;
    size_t sep = seg.find_first_of("=:");
    if (sep != std::string_view::npos && sep > 0) {
      b->labels[std::string(seg.substr(0, sep))] = std::string(seg.substr(sep + 1));
    } else {
      b->labels[fmt::format("arg{}", bare++)] = std::string(seg);
    }
  }
}

struct Row {
  std::string run_name;
  double real_ns;
  double ratio;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Google Benchmark writes non-finite numbers as bare NaN / Infinity (e.g. the spread of a constant
// counter), which is not JSON. Outside strings they become null, which the readers treat as absent.
std::string NonFiniteToNull(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (std::string_view token :
         {"-Infinity", "Infinity", "-NaN", "NaN", "-nan", "nan", "-inf", "inf"}) {
      if (text.substr(i, token.size()) == token) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

Result<std::vector<BenchResult>> ParseBenchmarkJson(std::string_view text) {
  Json doc = Json::parse(NonFiniteToNull(text), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::InvalidArgument(
        "benchmark output is not JSON; run with --benchmark_format=json");
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    return Status::InvalidArgument(
        "/benchmarks: missing array; is this Google Benchmark JSON output?");
  }
  const Json& rows = doc["benchmarks"];
  std::vector<Row> medians, plain;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Json& j = rows[i];
    if (!j.is_object()) return Bad(i, "expected an object");
    if (!j.contains("name") || !j["name"].is_string()) return Bad(i, "missing string member name");
    std::string name = j["name"].get<std::string>();
    if (j.value("error_occurred", false)) {
      return Bad(
          i, fmt::format("benchmark {} reported an error: {}", name, j.value("error_message", "")));
    }
    std::string run_type = j.value("run_type", "iteration");
    std::string aggregate = j.value("aggregate_name", "");
    bool is_median = run_type == "aggregate" && aggregate == "median";
    if (run_type == "aggregate" && !is_median) continue;  // mean, stddev, cv, ...
    if (!j.contains("real_time") || !j["real_time"].is_number())
      return Bad(i, "missing number real_time");
    std::string unit = j.value("time_unit", "ns");
    std::optional<double> scale = NanosPerUnit(unit);
    if (!scale)
      return Bad(i, fmt::format("unknown time_unit \"{}\" (expected ns, us, ms or s)", unit));
    Row row{.run_name = name,
            .real_ns = j["real_time"].get<double>() * *scale,
            .ratio = std::numeric_limits<double>::quiet_NaN()};
    if (j.contains("run_name") && j["run_name"].is_string())
      row.run_name = j["run_name"].get<std::string>();
    if (j.contains("ratio") && !j["ratio"].is_null()) {  // null: a non-finite value
      if (!j["ratio"].is_number()) return Bad(i, "user counter ratio is not a number");
      row.ratio = j["ratio"].get<double>();
    }
    (is_median ? medians : plain).push_back(std::move(row));
  }
  const std::vector<Row>& chosen = medians.empty() ? plain : medians;
  // Group by run name in order of first appearance; repeated plain rows give their median.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Row*>> groups;
  for (const Row& row : chosen) {
    auto& g = groups[row.run_name];
    if (g.empty()) order.push_back(row.run_name);
    g.push_back(&row);
  }
  std::vector<BenchResult> out;
  for (const std::string& run_name : order) {
    const auto& g = groups[run_name];
    std::vector<double> times, ratios;
    for (const Row* row : g) {
      times.push_back(row->real_ns);
      if (!std::isnan(row->ratio)) ratios.push_back(row->ratio);
    }
    BenchResult b{
        .name = run_name,
        .median_ns = Median(times),
        .ratio = ratios.empty() ? std::numeric_limits<double>::quiet_NaN() : Median(ratios)};
    SplitName(run_name, &b);
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace stepfault::reports
