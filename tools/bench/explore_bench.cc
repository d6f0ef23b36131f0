// Exploration throughput: how many lives per second the in-process harness runs for each scenario,
// and what one window costs against the approach a user would otherwise script (one process per
// window: `stepfault approval start --crash-at POINT`, then resume, then status), measured side by
// side in one run and reported as the counter `ratio` (process-per-window time / in-process time).
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "faults/injector.h"
#include "properties/life_runner.h"
#include "scenarios/registry.h"
#include "scenarios/scenario.h"

namespace stepfault::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One crash at every window of the fault-free run: the cells of the `crash` column.
std::vector<faults::Plan> CrashPlans(const scenarios::Scenario& s) {
  properties::RunConfig config;
  properties::Execution ref = properties::RunPlan(s, faults::Plan{}, config);
  std::vector<faults::Plan> plans;
  for (size_t l = 0; l < ref.lives.size(); ++l) {
    for (const faults::Window& w : ref.lives[l].windows) {
      auto f = faults::FaultAtWindow(faults::FaultAction::Of(faults::FaultActionKind::kCrash), w);
      if (!f.ok()) continue;
      faults::Plan p;
      for (size_t i = 0; i < l; ++i) p.faults.push_back(faults::Fault::None());
      p.faults.push_back(*f);
      plans.push_back(std::move(p));
    }
  }
  return plans;
}

void BM_ExploreWindows(benchmark::State& state, std::string name) {
  auto scenario = scenarios::FindScenario(name);
  SF_CHECK(scenario != nullptr);
  const std::vector<faults::Plan> plans = CrashPlans(*scenario);
  properties::RunConfig config;
  int64_t lives = 0;
  size_t i = 0;
  for (auto _ : state) {
    properties::Execution ex = properties::RunPlan(*scenario, plans[i++ % plans.size()], config);
    lives += static_cast<int64_t>(ex.lives.size());
    benchmark::DoNotOptimize(ex.trace.data());
  }
  state.counters["lives_per_second"] =
      benchmark::Counter(static_cast<double>(lives), benchmark::Counter::kIsRate);
  state.counters["windows_per_second"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

std::string StepfaultBinary() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "stepfault").string();
}

// The naive way, per window: three processes over a real directory.
void BM_ProcessPerWindow(benchmark::State& state) {
  const std::string bin = StepfaultBinary();
  const char* base = std::getenv("STEPFAULT_BENCH_DIR");
  const std::filesystem::path dir = std::filesystem::path(base != nullptr ? base : "/tmp") /
                                    ("sf_bench_ppw_" + std::to_string(::getpid()));
  const char* points[] = {"receipt.publish.after", "host.resume", "decision.record.after",
                          "effect.commit.before"};
  // The in-process cost of the same kind of window, measured in this run for the ratio.
  auto approval = scenarios::FindScenario("approval");
  const std::vector<faults::Plan> plans = CrashPlans(*approval);
  const auto t0 = Clock::now();
  const size_t samples = std::min<size_t>(plans.size(), 100);
  for (size_t i = 0; i < samples; ++i)
    benchmark::DoNotOptimize(properties::RunPlan(*approval, plans[i], {}).trace.size());
  const double in_process_ns =
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count()) /
      samples;
  size_t i = 0;
  const auto loop_start = Clock::now();
  for (auto _ : state) {
    std::filesystem::remove_all(dir);
    const std::string d = " --dir " + dir.string();
    const std::string point = points[i++ % 4];
    const bool in_start = point == "receipt.publish.after";
    int rc = std::system((bin + " approval start" + d + (in_start ? " --crash-at " + point : "") +
                          " >/dev/null 2>&1")
                             .c_str());
    if (in_start) rc = std::system((bin + " approval start" + d + " >/dev/null 2>&1").c_str());
    (void)rc;
    rc = std::system((bin + " approval resume" + d + " approve 'ok'" +
                      (in_start ? "" : " --crash-at " + point) + " >/dev/null 2>&1")
                         .c_str());
    rc = std::system((bin + " approval resume" + d + " approve 'ok' >/dev/null 2>&1").c_str());
    rc = std::system((bin + " approval status" + d + " >/dev/null 2>&1").c_str());
    (void)rc;
  }
  const double process_ns =
      static_cast<double>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - loop_start).count()) /
      static_cast<double>(std::max<int64_t>(1, state.iterations()));
  std::filesystem::remove_all(dir);
  state.counters["in_process_ns"] = in_process_ns;
  state.counters["process_ns"] = process_ns;
  // ratio = process-per-window time / in-process window time (wall clock, same run).
  state.counters["ratio"] = process_ns / in_process_ns;
}

const int kRegistered = [] {
  for (const auto& s : scenarios::BuiltinScenarios()) {
    benchmark::RegisterBenchmark(("BM_Explore/scenario:" + s->name()).c_str(), BM_ExploreWindows,
                                 s->name())
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_ProcessPerWindow/scenario:approval", BM_ProcessPerWindow)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(12);
  return 0;
}();

}  // namespace
}  // namespace stepfault::bench
