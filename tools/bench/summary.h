// The post-run summary: a display reporter that forwards everything to Google Benchmark's own
// reporter (so --benchmark_format=json|csv|console work unchanged) and keeps one result per
// benchmark (the median aggregate when there are repetitions, else the mean of the runs), then
// prints the targets and the cost-vs-size fits to a stream (stderr, so stdout stays pure JSON).
// Thread-safety: used by main's thread only.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace stepfault::bench {

struct BenchResult {
  std::string family;
  std::map<std::string, std::string> labels;  // key:value segments
  double time_ns = 0;                         // per iteration, as the reporter measured it
  std::map<std::string, double> counters;
};

class TeeReporter final : public benchmark::BenchmarkReporter {
 public:
  // REQUIRES: inner outlives this reporter.
  explicit TeeReporter(benchmark::BenchmarkReporter* inner) : inner_(inner) {}
  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& runs) override;
  void Finalize() override;

  // One result per benchmark name, in name order.
  std::map<std::string, BenchResult> Results() const;

 private:
  benchmark::BenchmarkReporter* inner_;
  std::map<std::string, std::vector<BenchResult>> runs_;  // iteration runs by name
  std::map<std::string, BenchResult> medians_;            // median aggregates by name
};

void PrintSummary(const std::map<std::string, BenchResult>& results, std::FILE* out);
// The issue-15 target table (targets.cc); PrintSummary ends with it.
void PrintTargets(const std::map<std::string, BenchResult>& results, std::FILE* out);

}  // namespace stepfault::bench
