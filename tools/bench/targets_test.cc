// Goal: the target table's verdicts are right: a figure at a target meets it, one on the wrong
// side does not, the ratio printed is the one judged, and a figure the run did not record reads
// "not measured", never "met". Method: Judge on figures at, above and below each kind of target;
// then PrintTargets over made-up results (no benchmark runs), reading each row's printed ratio
// and verdict.
#include "tools/bench/targets.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>

#include "tools/bench/summary.h"

namespace stepfault::bench {
namespace {

using Labels = std::map<std::string, std::string>;
using Results = std::map<std::string, BenchResult>;

TEST(JudgeTest, AtMostTargetsAreMetAtAndBelowAndNotAbove) {
  EXPECT_EQ(Judge(2.0, Goal::kAtMost, 2), "met");
  EXPECT_EQ(Judge(1.99, Goal::kAtMost, 2), "met");
  EXPECT_EQ(Judge(2.01, Goal::kAtMost, 2), "not met");
  EXPECT_EQ(Judge(std::nullopt, Goal::kAtMost, 2), "not measured");
}

TEST(JudgeTest, AtLeastTargetsAreMetAtAndAboveAndNotBelow) {
  EXPECT_EQ(Judge(100.0, Goal::kAtLeast, 100), "met");
  EXPECT_EQ(Judge(150.0, Goal::kAtLeast, 100), "met");
  EXPECT_EQ(Judge(99.9, Goal::kAtLeast, 100), "not met");
  EXPECT_EQ(Judge(std::nullopt, Goal::kAtLeast, 100), "not measured");
}

void Add(Results* r, const std::string& family, const Labels& labels, double time_ns,
         std::map<std::string, double> counters) {
  std::string name = family;
  for (const auto& [k, v] : labels) name += "/" + k + ":" + v;
  (*r)[name] = BenchResult{family, labels, time_ns, std::move(counters)};
}

std::string Table(const Results& results) {
  unsetenv("STEPFAULT_BENCH_PEERS");
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  PrintTargets(results, out);
  std::fclose(out);
  std::string text(buf, size);
  std::free(buf);
  return text;
}

// The first line of `table` that starts (after the indent) with `row`.
std::string Row(const std::string& table, const std::string& row) {
  size_t at = table.find("  " + row);
  if (at == std::string::npos) return "";
  return table.substr(at, table.find('\n', at) - at);
}

std::string VerdictOf(const std::string& line) {
  const size_t open = line.rfind('[');
  return open == std::string::npos ? "" : line.substr(open + 1, line.rfind(']') - open - 1);
}

// The in-memory ring of 100 B: step time over the unchecked step's, target <= 2x.
Results InMemory(double memory_ns, double none_ns) {
  Results r;
  const Labels base = {{"length", "8"}, {"shape", "linear"}, {"state", "100"}};
  Labels memory = base, none = base;
  memory["mode"] = "memory";
  none["mode"] = "none";
  Add(&r, "BM_Step", memory, memory_ns, {});
  Add(&r, "BM_Step", none, none_ns, {});
  return r;
}

TEST(TargetTableTest, TheInMemoryRatioIsStepOverUncheckedStep) {
  const std::string row = "in-memory, ring 8 x 100 B";
  EXPECT_NE(Row(Table(InMemory(3000, 2000)), row).find("1.50x"), std::string::npos)
      << Row(Table(InMemory(3000, 2000)), row);
  EXPECT_EQ(VerdictOf(Row(Table(InMemory(3000, 2000)), row)), "met");
  EXPECT_EQ(VerdictOf(Row(Table(InMemory(4000, 2000)), row)), "met");  // at 2x
  EXPECT_EQ(VerdictOf(Row(Table(InMemory(4200, 2000)), row)), "not met");
  EXPECT_EQ(VerdictOf(Row(Table(InMemory(3000, 0)), row)), "not measured");
}

TEST(TargetTableTest, TheOneMegabyteRatioIsTheOverheadOverTheMemcpyOfTheChangedBytes) {
  const auto table = [](std::map<std::string, double> counters) {
    Results r;
    const Labels base = {{"length", "8"}, {"shape", "linear"}, {"state", "1048576"}};
    Labels memory = base, none = base;
    memory["mode"] = "memory";
    none["mode"] = "none";
    Add(&r, "BM_Step", memory, 5000, std::move(counters));
    Add(&r, "BM_Step", none, 2000, {});
    return Row(Table(r), "in-memory, ring 8 x 1 MB");
  };
  const std::string met = table({{"changed_memcpy_ns", 2000}, {"changed_bytes", 1048576}});
  EXPECT_NE(met.find("1.50x"), std::string::npos) << met;  // (5000 - 2000) / 2000
  EXPECT_EQ(VerdictOf(met), "met");
  EXPECT_EQ(VerdictOf(table({{"changed_memcpy_ns", 1500}})), "met");  // at 2x
  EXPECT_EQ(VerdictOf(table({{"changed_memcpy_ns", 1000}})), "not met");
  EXPECT_EQ(VerdictOf(table({})), "not measured");
}

TEST(TargetTableTest, CodecSpeedIsJudgedInGigabytesPerSecond) {
  const auto table = [](std::map<std::string, double> counters) {
    Results r;
    Add(&r, "BM_Encode", {{"format", "v2"}, {"size", "8"}}, 1, counters);
    Add(&r, "BM_Decode", {{"format", "v2"}, {"size", "8"}}, 1, counters);
    return Table(r);
  };
  const std::string met = Row(table({{"bytes_per_second", 1.5e9}}), "codec encode");
  EXPECT_NE(met.find("v2 1.50 GB/s"), std::string::npos) << met;
  EXPECT_EQ(VerdictOf(met), "met");
  EXPECT_EQ(VerdictOf(Row(table({{"bytes_per_second", 1e9}}), "codec decode")), "met");
  EXPECT_EQ(VerdictOf(Row(table({{"bytes_per_second", 0.9e9}}), "codec decode")), "not met");
  EXPECT_EQ(VerdictOf(Row(table({}), "codec encode")), "not measured");
}

TEST(TargetTableTest, EachDurableStoreIsJudgedOnItsOwnTarget) {
  const auto table = [](const char* mode, std::map<std::string, double> counters) {
    Results r;
    Add(&r, "BM_Step", {{"mode", mode}, {"shape", "fanin"}, {"width", "1"}, {"state", "1048576"}},
        1e6, std::move(counters));
    return Table(r);
  };
  const std::string file = "file store, 2 MB/step";
  EXPECT_EQ(VerdictOf(Row(table("file", {{"ratio", 1.2}}), file)), "met");
  EXPECT_EQ(VerdictOf(Row(table("file", {{"ratio", 1.3}}), file)), "not met");
  EXPECT_NE(Row(table("file", {{"ratio", 1.3}}), file).find("1.30x"), std::string::npos);
  EXPECT_EQ(VerdictOf(Row(table("file", {}), file)), "not measured");
  const std::string sqlite = "SQLite store (WAL), 2 MB/step";
  EXPECT_EQ(VerdictOf(Row(table("sqlite", {{"ratio", 2}}), sqlite)), "met");
  EXPECT_EQ(VerdictOf(Row(table("sqlite", {{"ratio", 1.3}}), sqlite)), "met");
  EXPECT_EQ(VerdictOf(Row(table("sqlite", {{"ratio", 2.1}}), sqlite)), "not met");
}

TEST(TargetTableTest, BytesWrittenIsAPercentageOfTheState) {
  const auto table = [](std::map<std::string, double> counters) {
    Results r;
    Add(&r, "BM_Step",
        {{"changes", "none"},
         {"mode", "bytes"},
         {"shape", "fanin"},
         {"width", "1"},
         {"state", "1048576"}},
        1, std::move(counters));
    return Row(Table(r), "bytes written, unchanged state");
  };
  const std::string met = table({{"state_bytes", 2e6}, {"stored_bytes_per_step", 1e4}});
  EXPECT_NE(met.find("0.50% of the 2000000 B state"), std::string::npos) << met;
  EXPECT_EQ(VerdictOf(met), "met");
  EXPECT_EQ(VerdictOf(table({{"state_bytes", 2e6}, {"stored_bytes_per_step", 2e4}})), "met");
  EXPECT_EQ(VerdictOf(table({{"state_bytes", 2e6}, {"stored_bytes_per_step", 3e4}})), "not met");
  EXPECT_EQ(VerdictOf(table({{"state_bytes", 2e6}})), "not measured");
}

TEST(TargetTableTest, ExplorationNeedsBothWallAndCpuRatios) {
  const auto table = [](std::map<std::string, double> counters) {
    Results r;
    Add(&r, "BM_ProcessPerWindow", {}, 1, std::move(counters));
    return Row(Table(r), "exploration in-process");
  };
  EXPECT_EQ(VerdictOf(table({{"ratio", 200}, {"cpu_ratio", 200}})), "met");
  EXPECT_EQ(VerdictOf(table({{"ratio", 250}, {"cpu_ratio", 199}})), "not met");
  EXPECT_EQ(VerdictOf(table({{"ratio", 199}, {"cpu_ratio", 250}})), "not met");
  EXPECT_EQ(VerdictOf(table({{"ratio", 150}})), "not measured");
  EXPECT_NE(table({{"ratio", 150}, {"cpu_ratio", 120}}).find("150.0x faster"), std::string::npos);
}

TEST(TargetTableTest, WholeExplorationsAreJudgedOnWallTimeAndOnlyWhenTheyPassed) {
  const auto table = [](int depth, std::map<std::string, double> counters) {
    Results r;
    Add(&r, "BM_ExploreAll", {{"depth", std::to_string(depth)}}, 1, std::move(counters));
    return Table(r);
  };
  const auto ran = [](double wall, double peak, double exit) {
    return std::map<std::string, double>{
        {"wall_s", wall}, {"cpu_s", 2 * wall}, {"peak_rss_mb", peak}, {"exit_status", exit}};
  };
  EXPECT_EQ(VerdictOf(Row(table(1, ran(15, 100, 0)), "explore --all --depth 1")), "met");
  EXPECT_EQ(VerdictOf(Row(table(1, ran(15.5, 100, 0)), "explore --all --depth 1")), "not met");
  EXPECT_EQ(VerdictOf(Row(table(1, ran(5, 100, 1)), "explore --all --depth 1")),
            "not met: did not pass");
  EXPECT_EQ(VerdictOf(Row(table(2, ran(299, 256, 0)), "explore --all (depth 2)")), "met");
  EXPECT_EQ(VerdictOf(Row(table(2, ran(299, 256, 0)), "peak memory per process")), "met");
  EXPECT_EQ(VerdictOf(Row(table(2, ran(299, 257, 0)), "peak memory per process")), "not met");
  EXPECT_EQ(VerdictOf(Row(table(3, ran(1801, 100, 0)), "explore --all --depth 3")), "not met");
  // A run that reported no exit status did not show that it passed.
  EXPECT_EQ(VerdictOf(Row(table(1, {{"wall_s", 5}}), "explore --all --depth 1")),
            "not met: did not pass");
  // A depth that did not run is not measured, not met.
  EXPECT_EQ(VerdictOf(Row(table(3, ran(10, 100, 0)), "explore --all --depth 1")), "");
  EXPECT_NE(Row(table(3, ran(10, 100, 0)), "explore --all --depth 1").find("not measured"),
            std::string::npos);
}

TEST(TargetTableTest, TheChainReplayIsJudgedOnTimePerExecutorFromOneThousandToTenThousand) {
  const auto table = [](double us_at_1000, double us_at_10000, double exit_at_10000) {
    Results r;
    const auto run = [](int n, double us, double exit) {
      return std::map<std::string, double>{{"wall_s", us * n / 1e6},
                                           {"peak_rss_mb", n / 50.0},
                                           {"us_per_executor", us},
                                           {"exit_status", exit}};
    };
    Add(&r, "BM_ChainReplay", {{"executors", "100"}}, 1, run(100, 300, 0));
    Add(&r, "BM_ChainReplay", {{"executors", "1000"}}, 1, run(1000, us_at_1000, 0));
    Add(&r, "BM_ChainReplay", {{"executors", "10000"}}, 1, run(10000, us_at_10000, exit_at_10000));
    return Row(Table(r), "replay of a JSON chain");
  };
  EXPECT_EQ(VerdictOf(table(150, 180, 0)), "met");
  EXPECT_EQ(VerdictOf(table(150, 181, 0)), "not met");
  EXPECT_EQ(VerdictOf(table(150, 150, 2)), "not met: did not pass");
  EXPECT_NE(table(150, 188, 0).find("1.25x"), std::string::npos) << table(150, 188, 0);
  // A size that did not run: not measured.
  Results partial;
  Add(&partial, "BM_ChainReplay", {{"executors", "1000"}}, 1,
      {{"us_per_executor", 150}, {"exit_status", 0}});
  EXPECT_NE(Row(Table(partial), "replay of a JSON chain").find("not measured"), std::string::npos);
}

TEST(TargetTableTest, AnEmptyRunMeetsNothing) {
  const std::string table = Table({});
  EXPECT_EQ(table.find("[met]"), std::string::npos) << table;
  EXPECT_EQ(table.find("[not met]"), std::string::npos) << table;
  EXPECT_NE(table.find("not measured in this run"), std::string::npos) << table;
}

}  // namespace
}  // namespace stepfault::bench
