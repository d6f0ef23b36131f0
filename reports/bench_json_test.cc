// Goal: ParseBenchmarkJson reads Google Benchmark's JSON output as documented: median aggregates
// when repetitions ran, plain rows otherwise, times in ns, family and labels from the name, the
// "ratio" user counter. Method: hand-written documents in the exact shape benchmark 1.7 emits.
#include "reports/bench_json.h"

#include <gtest/gtest.h>

#include <cmath>

namespace stepfault::reports {
namespace {

constexpr std::string_view kWithRepetitions = R"({
  "context": {"date": "2026-11-29T21:00:00+00:00", "host_name": "ci", "num_cpus": 2, "library_build_type": "release"},
  "benchmarks": [
    {"name": "BM_Checkpoint/store:file/k=8/real_time", "family_index": 0, "per_family_instance_index": 0,
     "run_name": "BM_Checkpoint/store:file/k=8/real_time", "run_type": "iteration", "repetitions": 3,
     "repetition_index": 0, "threads": 1, "iterations": 100, "real_time": 130.0, "cpu_time": 120.0,
     "time_unit": "us", "ratio": 1.0},
    {"name": "BM_Checkpoint/store:file/k=8/real_time", "run_name": "BM_Checkpoint/store:file/k=8/real_time",
     "run_type": "iteration", "repetitions": 3, "repetition_index": 1, "iterations": 100,
     "real_time": 125.0, "cpu_time": 120.0, "time_unit": "us", "ratio": 1.0},
    {"name": "BM_Checkpoint/store:file/k=8/real_time_mean", "run_name": "BM_Checkpoint/store:file/k=8/real_time",
     "run_type": "aggregate", "aggregate_name": "mean", "aggregate_unit": "time", "repetitions": 3,
     "iterations": 3, "real_time": 127.0, "cpu_time": 120.0, "time_unit": "us", "ratio": 1.0},
    {"name": "BM_Checkpoint/store:file/k=8/real_time_median", "run_name": "BM_Checkpoint/store:file/k=8/real_time",
     "run_type": "aggregate", "aggregate_name": "median", "aggregate_unit": "time", "repetitions": 3,
     "iterations": 3, "real_time": 125.5, "cpu_time": 120.0, "time_unit": "us", "ratio": 1.0},
    {"name": "BM_Checkpoint/store:file/k=8/real_time_stddev", "run_name": "BM_Checkpoint/store:file/k=8/real_time",
     "run_type": "aggregate", "aggregate_name": "stddev", "aggregate_unit": "time", "repetitions": 3,
     "iterations": 3, "real_time": 2.0, "cpu_time": 1.0, "time_unit": "us", "ratio": 0.0},
    {"name": "BM_Checkpoint/store:sqlite/k=8/real_time_median", "run_name": "BM_Checkpoint/store:sqlite/k=8/real_time",
     "run_type": "aggregate", "aggregate_name": "median", "aggregate_unit": "time", "repetitions": 3,
     "iterations": 3, "real_time": 0.4805, "cpu_time": 0.4, "time_unit": "ms", "ratio": 3.844},
    {"name": "BM_Restore/64_median", "run_name": "BM_Restore/64", "run_type": "aggregate",
     "aggregate_name": "median", "repetitions": 3, "iterations": 3, "real_time": 2300, "cpu_time": 2200,
     "time_unit": "ns"}
  ]
})";

TEST(BenchJsonTest, UsesMedianAggregatesAndConvertsToNanoseconds) {
  Result<std::vector<BenchResult>> rows = ParseBenchmarkJson(kWithRepetitions);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  const BenchResult& file = (*rows)[0];
  EXPECT_EQ(file.name, "BM_Checkpoint/store:file/k=8/real_time");
  EXPECT_EQ(file.family, "BM_Checkpoint");
  EXPECT_DOUBLE_EQ(file.median_ns, 125500.0);  // the median row, not the mean or an iteration
  EXPECT_DOUBLE_EQ(file.ratio, 1.0);
  EXPECT_EQ(file.labels, (std::map<std::string, std::string>{{"store", "file"}, {"k", "8"}}));
  EXPECT_DOUBLE_EQ((*rows)[1].median_ns, 480500.0);
  EXPECT_DOUBLE_EQ((*rows)[1].ratio, 3.844);
  EXPECT_EQ((*rows)[2].family, "BM_Restore");
  EXPECT_EQ((*rows)[2].labels, (std::map<std::string, std::string>{{"arg0", "64"}}));
  EXPECT_TRUE(std::isnan((*rows)[2].ratio));
}

TEST(BenchJsonTest, WithoutAggregatesUsesPlainRowsAndTheMedianOfRepeats) {
  constexpr std::string_view kPlain = R"({"benchmarks": [
    {"name": "BM_Step/8/1024", "run_name": "BM_Step/8/1024", "run_type": "iteration", "iterations": 10,
     "real_time": 3.0, "cpu_time": 2.0, "time_unit": "ms"},
    {"name": "BM_Plain", "iterations": 10, "real_time": 1.5, "cpu_time": 1.0, "time_unit": "s"},
    {"name": "BM_Step/8/1024", "run_name": "BM_Step/8/1024", "run_type": "iteration", "iterations": 10,
     "real_time": 1.0, "cpu_time": 2.0, "time_unit": "ms"},
    {"name": "BM_Step/8/1024", "run_name": "BM_Step/8/1024", "run_type": "iteration", "iterations": 10,
     "real_time": 2.0, "cpu_time": 2.0, "time_unit": "ms"}
  ]})";
  Result<std::vector<BenchResult>> rows = ParseBenchmarkJson(kPlain);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].name, "BM_Step/8/1024");
  EXPECT_DOUBLE_EQ((*rows)[0].median_ns, 2e6);
  EXPECT_EQ((*rows)[0].labels,
            (std::map<std::string, std::string>{{"arg0", "8"}, {"arg1", "1024"}}));
  EXPECT_EQ((*rows)[1].family, "BM_Plain");
  EXPECT_TRUE((*rows)[1].labels.empty());
  EXPECT_DOUBLE_EQ((*rows)[1].median_ns, 1.5e9);
}

TEST(BenchJsonTest, RejectsWhatIsNotBenchmarkOutputWithTheReason) {
  auto message = [](std::string_view text) {
    Result<std::vector<BenchResult>> r = ParseBenchmarkJson(text);
    return r.ok() ? std::string("(accepted)") : r.status().message();
  };
  EXPECT_NE(message("BM_Step/8  123 ns  120 ns  1000").find("not JSON"), std::string::npos);
  EXPECT_NE(message(R"({"context": {}})").find("/benchmarks: missing array"), std::string::npos);
  EXPECT_EQ(message(R"({"benchmarks": [{"name": "BM_A", "real_time": 1, "time_unit": "min"}]})"),
            "/benchmarks/0: unknown time_unit \"min\" (expected ns, us, ms or s)");
  EXPECT_EQ(message(R"({"benchmarks": [{"name": "BM_A", "time_unit": "ns"}]})"),
            "/benchmarks/0: missing number real_time");
  EXPECT_EQ(
      message(
          R"({"benchmarks": [{"name": "BM_A", "error_occurred": true, "error_message": "disk full"}]})"),
      "/benchmarks/0: benchmark BM_A reported an error: disk full");
  Result<std::vector<BenchResult>> empty = ParseBenchmarkJson(R"({"benchmarks": []})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace stepfault::reports

namespace stepfault::reports {
namespace {
// Google Benchmark prints the spread of a constant counter as a bare NaN, which is not JSON.
TEST(BenchJsonNonFiniteTest, BareNaNAndInfinityReadAsAbsentNumbers) {
  auto rows = ParseBenchmarkJson(R"({"context":{},"benchmarks":[
    {"name":"BM_A/x:1","run_type":"iteration","real_time":10,"time_unit":"ns","ratio":NaN,"other":Infinity,
     "label":"NaN inside a string stays"}]})");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].median_ns, 10);
  EXPECT_TRUE(std::isnan((*rows)[0].ratio));
}
}  // namespace
}  // namespace stepfault::reports
