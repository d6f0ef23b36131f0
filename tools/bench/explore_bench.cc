// Exploration throughput: how many lives per second the in-process harness runs for each scenario,
// and what one window costs against the approach a user would otherwise script (one process per
// window: `stepfault approval start [--crash-at POINT]`, `resume [--crash-at POINT]`, resume,
// status), measured interleaved in one run and reported as the counters `ratio` (wall time) and
// `cpu_ratio` (CPU time): process-per-window / the explorer's in-process window (a pass over the
// whole crash column with a RunMemo, per window), and `isolated_ratio` / `isolated_cpu_ratio`:
// process-per-window / one window run alone without a memo (see BM_ProcessPerWindow).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "faults/injector.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "properties/life_runner.h"
#include "scenarios/approval/approval_store.h"
#include "scenarios/registry.h"
#include "scenarios/scenario.h"
#include "tools/bench/bench_common.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

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

// The clocks of limits.h, in nanoseconds (the counters' unit here).
double WallNs() { return WallSeconds() * 1e9; }
double ThreadCpuNs() { return ThreadCpuSeconds() * 1e9; }

// User + system CPU of a resource usage.
double CpuNs(const rusage& ru) {
  auto ns = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_usec) * 1e3;
  };
  return ns(ru.ru_utime) + ns(ru.ru_stime);
}

// User + system CPU of every waited-for child process so far.
double ChildrenCpuNs() {
  rusage ru;
  SF_CHECK(getrusage(RUSAGE_CHILDREN, &ru) == 0);
  return CpuNs(ru);
}

// One run of `bin args...` as a child process (its standard output to /dev/null).
struct ChildRun {
  double wall_ns = 0;
  double cpu_ns = 0;   // user + system of the child and its waited-for descendants
  double peak_kb = 0;  // ru_maxrss: the largest single process among them
  int status = 0;      // the exit status, or 128 + the signal that ended it
};
ChildRun RunChild(const std::string& bin, const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(bin.c_str()));
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ChildRun out;
  const double w0 = WallNs();
  const pid_t pid = ::fork();
  SF_CHECK(pid >= 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) (void)::dup2(null, STDOUT_FILENO);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  int wstatus = 0;
  rusage ru{};
  SF_CHECK(::wait4(pid, &wstatus, 0, &ru) == pid);
  out.wall_ns = WallNs() - w0;
  out.cpu_ns = CpuNs(ru);
  out.peak_kb = static_cast<double>(ru.ru_maxrss);
  out.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
  return out;
}

// A scratch directory for one benchmark of this process, under STEPFAULT_BENCH_DIR or /tmp.
std::filesystem::path BenchDir(const std::string& name) {
  const char* base = std::getenv("STEPFAULT_BENCH_DIR");
  return std::filesystem::path(base != nullptr ? base : "/tmp") /
         ("sf_bench_" + name + "_" + std::to_string(::getpid()));
}

// Runs `stepfault args...` (RunChild) once per benchmark iteration, `before_each` first, and sets
// the counters wall_s and cpu_s (means over the iterations), peak_rss_mb (the largest) and
// exit_status (the last run's). Returns wall_s.
double RunChildEveryIteration(benchmark::State& state, const std::vector<std::string>& args,
                              const std::function<void()>& before_each) {
  double wall = 0, cpu = 0, peak_kb = 0;
  int status = 0;
  for (auto _ : state) {
    before_each();
    const ChildRun run = RunChild(StepfaultBinary(), args);
    wall += run.wall_ns;
    cpu += run.cpu_ns;
    peak_kb = std::max(peak_kb, run.peak_kb);
    status = run.status;
  }
  const double n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  state.counters["wall_s"] = wall / n / 1e9;
  state.counters["cpu_s"] = cpu / n / 1e9;
  state.counters["peak_rss_mb"] = peak_kb / 1024;
  state.counters["exit_status"] = status;
  return wall / n / 1e9;
}

// One process-per-window window, the way a user scripts it over a real directory: the crash, then
// the recovery the in-process life runs (RunLife: a crash after the receipt is published recovers
// by resuming; a crash in the resume by resuming again), then the status an oracle would read.
void ProcessWindow(const std::string& bin, const std::filesystem::path& dir,
                   const std::string& point) {
  std::filesystem::remove_all(dir);
  const std::string d = " --dir " + dir.string();
  const std::string quiet = " >/dev/null 2>&1";
  const bool in_start = point == "receipt.publish.after";
  auto run = [&bin, &quiet](const std::string& args) {
    (void)std::system((bin + args + quiet).c_str());  // exit status is the crash's, not checked
  };
  run(" approval start" + d + (in_start ? " --crash-at " + point : ""));
  if (!in_start) run(" approval resume" + d + " approve 'ok' --crash-at " + point);
  run(" approval resume" + d + " approve 'ok'");
  run(" approval status" + d);
}

// The in-process side, as `stepfault explore` pays it: one pass over ALL of approval's crash plans
// (the crash column), each plan exactly once, with a RunMemo of its own (created inside the timed
// pass, like the explorer's per-process memo; fresh every pass, so no plan hits its own earlier
// result, only what its siblings in the same pass left: shared prefixes, continuations from an
// equal crash state, recoveries of an equal world, death checks). Adds the pass's wall and CPU
// time (this thread) to `wall` and `cpu`; returns the number of windows run.
size_t ExplorerPass(const scenarios::Scenario& approval, const std::vector<faults::Plan>& plans,
                    double* wall, double* cpu) {
  const double w0 = WallNs(), c0 = ThreadCpuNs();
  {
    properties::RunMemo memo;
    for (const faults::Plan& plan : plans) {
      benchmark::DoNotOptimize(properties::RunPlan(approval, plan, {}, &memo).trace.size());
    }
  }  // the memo's destruction is part of the pass, as it is part of an exploration
  *wall += WallNs() - w0;
  *cpu += ThreadCpuNs() - c0;
  return plans.size();
}

// The naive way against the in-process harness, interleaved so both see the same machine load.
// Each iteration runs, untimed by Google Benchmark:
//  - one explorer pass (ExplorerPass): the per-window cost `in_process_ns` / `in_process_cpu_ns`
//    (pass time / plans), what exploration really pays per window of the crash column;
//  - kIsolatedPerIteration isolated windows: one crash plan each, in order, with no RunMemo (every
//    life lived and every invariant checked from scratch): `isolated_ns` / `isolated_cpu_ns`, the
//    cost of one window run alone (a replay);
// then one process-per-window window (the timed part). `ratio` / `cpu_ratio` compare the process
// window with the explorer's window, `isolated_ratio` / `isolated_cpu_ratio` with the isolated one.
// Wall time is what a user waits; CPU time (this thread for in-process, the children for the
// processes) is what both cost without the other jobs on the machine, and is stable under load,
// where the in-process wall time (CPU-bound) inflates and the process side (waiting on fsync)
// hardly does.
void BM_ProcessPerWindow(benchmark::State& state) {
  constexpr size_t kIsolatedPerIteration = 8;
  const std::string bin = StepfaultBinary();
  const std::filesystem::path dir = BenchDir("ppw");
  const char* points[] = {"receipt.publish.after", "host.resume", "decision.record.after",
                          "effect.commit.before"};
  auto approval = scenarios::FindScenario("approval");
  const std::vector<faults::Plan> plans = CrashPlans(*approval);
  double in_wall = 0, in_cpu = 0, iso_wall = 0, iso_cpu = 0, proc_wall = 0, proc_cpu = 0;
  size_t in_windows = 0, iso_windows = 0, i = 0;
  for (auto _ : state) {
    state.PauseTiming();
    in_windows += ExplorerPass(*approval, plans, &in_wall, &in_cpu);
    const double w0 = WallNs(), c0 = ThreadCpuNs();
    for (size_t k = 0; k < kIsolatedPerIteration; ++k) {
      const faults::Plan& plan = plans[iso_windows++ % plans.size()];
      benchmark::DoNotOptimize(properties::RunPlan(*approval, plan, {}).trace.size());
    }
    iso_wall += WallNs() - w0;
    iso_cpu += ThreadCpuNs() - c0;
    state.ResumeTiming();
    const double w1 = WallNs(), c1 = ChildrenCpuNs();
    ProcessWindow(bin, dir, points[i++ % 4]);
    proc_wall += WallNs() - w1;
    proc_cpu += ChildrenCpuNs() - c1;
  }
  std::filesystem::remove_all(dir);
  const double n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  const double m = static_cast<double>(std::max<size_t>(1, in_windows));
  const double k = static_cast<double>(std::max<size_t>(1, iso_windows));
  state.counters["in_process_ns"] = in_wall / m;
  state.counters["in_process_cpu_ns"] = in_cpu / m;
  state.counters["isolated_ns"] = iso_wall / k;
  state.counters["isolated_cpu_ns"] = iso_cpu / k;
  state.counters["process_ns"] = proc_wall / n;
  state.counters["process_cpu_ns"] = proc_cpu / n;
  // ratio = process-per-window wall time / the explorer's in-process window wall time
  // (interleaved, same run); cpu_ratio the same in CPU time; isolated_* against the isolated
  // window.
  state.counters["ratio"] = (proc_wall / n) / (in_wall / m);
  state.counters["cpu_ratio"] = (proc_cpu / n) / (in_cpu / m);
  state.counters["isolated_ratio"] = (proc_wall / n) / (iso_wall / k);
  state.counters["isolated_cpu_ratio"] = (proc_cpu / n) / (iso_cpu / k);
  state.counters["windows_sampled"] = m;
  state.counters["plans_per_pass"] = static_cast<double>(plans.size());
}

// The explorer's side alone (for profiling it): one ExplorerPass over approval's crash column per
// iteration; `window_ns` / `window_cpu_ns` the cost per window, as BM_ProcessPerWindow reports it.
void BM_ExploreColumn(benchmark::State& state) {
  auto approval = scenarios::FindScenario("approval");
  const std::vector<faults::Plan> plans = CrashPlans(*approval);
  double wall = 0, cpu = 0;
  size_t windows = 0;
  for (auto _ : state) windows += ExplorerPass(*approval, plans, &wall, &cpu);
  const double m = static_cast<double>(std::max<size_t>(1, windows));
  state.counters["window_ns"] = wall / m;
  state.counters["window_cpu_ns"] = cpu / m;
  state.counters["plans_per_pass"] = static_cast<double>(plans.size());
}

// What one life pays for the business database it must open as a new process does (the figure the
// fifth session's "a connection per life bounds the window" rests on), on a simulated world through
// the simulated VFS, as a host opens it: make the inherited files durable, open, the journal and
// synchronous pragmas, the schema check in an IMMEDIATE transaction, then `reads` reads of the
// operation's row (0: open and close only; 1: the row a resume reads first, which prepares its
// statement), then close. The database exists with its schema and one operation, as in every
// `resume` life; nothing is written after the setup, so every iteration opens the same bytes.
void BM_BusinessConnection(benchmark::State& state) {
  const int reads = static_cast<int>(state.range(0));
  faults::SimFs fs;
  SF_CHECK(fs.CreateDirIfMissing("/w").ok());
  SF_CHECK(fs.SyncDir("/").ok());
  const std::string vfs = "stepfault-bench-business";
  SF_CHECK(faults::RegisterSimVfs(vfs, &fs, 1).ok());
  scenarios::ApprovalStoreOptions options;
  options.vfs_name = vfs;
  options.durable_env = &fs;
  {
    auto setup = scenarios::ApprovalStore::Open("/w/business.db", options);
    SF_CHECK(setup.ok());
    SF_CHECK((*setup)->RegisterProposal("op-1", "Regional pilot proposal").ok());
  }
  for (auto _ : state) {
    auto store = scenarios::ApprovalStore::Open("/w/business.db", options);
    SF_CHECK(store.ok());
    for (int i = 0; i < reads; ++i) benchmark::DoNotOptimize((*store)->Read("op-1").ok());
  }
  faults::UnregisterSimVfs(vfs);
}

// One whole exploration as a user runs it, `stepfault explore --all --depth D --jobs 2 --quiet
// --out DIR` (strict, seed 0), as one child process per iteration waited for by wait4: `wall_s`
// its wall time, `cpu_s` the CPU time of its whole tree (user + system: the parent and every
// worker), `peak_rss_mb` the peak resident memory of the largest single process in its tree (on
// Linux a child's ru_maxrss covers its waited-for descendants: the parent or its largest worker,
// what issue 27's "peak memory per worker" is judged on) and `exit_status` (0: the run passed; 1:
// violations; anything else: it failed). Minutes per run at depth 1 and 2, tens at depth 3, so it
// is registered only when the filter names it (RegisterExploreAllFamily).
void BM_ExploreAll(benchmark::State& state) {
  const std::filesystem::path dir = BenchDir("explore");
  RunChildEveryIteration(state,
                         {"explore", "--all", "--depth", std::to_string(state.range(0)), "--jobs",
                          "2", "--quiet", "--out", dir.string()},
                         [&dir] { std::filesystem::remove_all(dir); });
  std::filesystem::remove_all(dir);
}

// A JSON scenario of `n` executors in a line: e0 -> ... -> eN-2 pass-through, eN-1 an effect
// (docs/inputs.md, "Size of JSON scenarios").
nlohmann::json LinearChain(int n) {
  const std::string last = "e" + std::to_string(n - 1);
  nlohmann::json executors = nlohmann::json::array();
  nlohmann::json edges = nlohmann::json::array();
  for (int i = 0; i + 1 < n; ++i) {
    executors.push_back({{"id", "e" + std::to_string(i)}, {"kind", "pass-through"}});
    edges.push_back({{"kind", "direct"},
                     {"from", "e" + std::to_string(i)},
                     {"to", "e" + std::to_string(i + 1)}});
  }
  executors.push_back({{"id", last}, {"kind", "effect"}, {"key", "done-{id}"}, {"emit", "Done"}});
  const nlohmann::json body = {{"id", "x"}};
  return {
      {"name", "linear-" + std::to_string(n)},
      {"description", "a linear chain of " + std::to_string(n) + " executors ending in an effect"},
      {"input", {{"type", "Item"}, {"body", body}}},
      {"start", "e0"},
      {"executors", std::move(executors)},
      {"edges", std::move(edges)},
      {"outputs", {last}},
      {"expect",
       {{"effects", {{{"key", "done-x"}, {"value", body}}}},
        {"outputs",
         {{{"executor", last},
           {"type", "Done"},
           {"body", {{"effect_key", "done-x"}, {"id", "x"}}}}}}}},
      {"max_steps", std::max(1000, n + 10)}};
}

// BM_ChainReplay/executors:N: one fault-free `stepfault replay linear-N.json --plan none` of the
// chain above, as a child process (issue 27: cost linear in executors, measured at three sizes).
// Counters: wall_s, cpu_s, peak_rss_mb and exit_status, as BM_ExploreAll's; us_per_executor =
// wall / N.
void BM_ChainReplay(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const std::filesystem::path dir = BenchDir("chain");
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / ("linear-" + std::to_string(n) + ".json");
  {
    std::ofstream out(file);
    out << LinearChain(n).dump() << "\n";
    SF_CHECK(out.good());
  }
  const double wall_s =
      RunChildEveryIteration(state, {"replay", file.string(), "--plan", "none"}, [] {});
  std::filesystem::remove_all(dir);
  state.counters["us_per_executor"] = wall_s * 1e6 / n;
}

const int kRegistered = [] {
  for (const auto& s : scenarios::BuiltinScenarios()) {
    benchmark::RegisterBenchmark(("BM_Explore/scenario:" + s->name()).c_str(), BM_ExploreWindows,
                                 s->name())
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::RegisterBenchmark("BM_ExploreColumn/scenario:approval", BM_ExploreColumn)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("BM_BusinessConnection", BM_BusinessConnection)
      ->ArgName("reads")
      ->Arg(0)
      ->Arg(1)
      ->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("BM_ChainReplay", BM_ChainReplay)
      ->ArgName("executors")
      ->Arg(100)
      ->Arg(1000)
      ->Arg(10000)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(3);
  benchmark::RegisterBenchmark("BM_ProcessPerWindow/scenario:approval", BM_ProcessPerWindow)
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime()
      ->Iterations(12);
  return 0;
}();

}  // namespace

void RegisterExploreAllFamily(const std::string& filter) {
  if (filter.find("BM_ExploreAll") == std::string::npos) return;
  benchmark::RegisterBenchmark("BM_ExploreAll", BM_ExploreAll)
      ->ArgName("depth")
      ->DenseRange(1, 3)
      ->Unit(benchmark::kSecond)
      ->UseRealTime()
      ->Iterations(1);
}

}  // namespace stepfault::bench
