// Shared command-line pieces.
#include "tools/cli/cli_common.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "engine/env.h"
#include "engine/json_text.h"
#include "properties/mutants.h"
#include "reports/report_writer.h"
#include "reports/shell_quote.h"
#include "scenarios/json/json_scenario.h"
#include "scenarios/registry.h"

namespace stepfault::cli {

int UsageError(const std::string& message) {
  std::fprintf(stderr, "stepfault: %s\n", message.c_str());
  return kExitUsage;
}

bool StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

namespace {

// "1e30" where a whole number is expected: a number, only not written in digits, and too large.
bool LooksLikeALargeNumber(const std::string& text, uint64_t max) {
  double d = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  return ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(d) &&
         d > static_cast<double>(max);
}

}  // namespace

Result<double> ParsePercent(const std::string& flag, const std::string& text) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v, std::chars_format::fixed);
  if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || v < 0 || v > 100) {
    return Status::InvalidArgument(
        flag + " must be a decimal number in 0..100, e.g. 80 or 92.5 (got '" + text + "')");
  }
  return v;
}

Result<uint64_t> ParseUnsigned(const std::string& flag, const std::string& text, uint64_t min,
                               uint64_t max) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (ec == std::errc() && ptr != end && LooksLikeALargeNumber(text, max)) {
    return Status::InvalidArgument(flag + " is too large: '" + text + "' is not in " + range +
                                   " (write the number in decimal digits)");
  }
  if (text.empty() || text[0] == '+' || text[0] == '-' || ec == std::errc::invalid_argument ||
      ptr != end) {
    return Status::InvalidArgument(flag + " must be a whole number in " + range + " (got '" + text +
                                   "')");
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    return Status::InvalidArgument(flag + " is out of range (" +
                                   (v < min && ec == std::errc() ? "too small" : "too large") +
                                   "): '" + text + "' is not in " + range);
  }
  return v;
}

Result<properties::RunConfig> MakeRunConfig(const std::string& profile,
                                            const std::vector<std::string>& hazards,
                                            uint64_t seed) {
  properties::RunConfig config;
  config.seed = seed;
  if (profile == "maf-compat") {
    config.profile = EngineProfile::MafCompat();
  } else if (profile != "strict") {
    return Status::InvalidArgument("unknown profile '" + profile + "'; use strict or maf-compat");
  }
  for (const std::string& h : hazards) {
    const properties::Mutant* found = nullptr;
    for (const properties::Mutant& m : properties::AllMutants()) {
      const std::string bare = m.name.substr(m.name.find(':') + 1);
      if (h == m.name || h == bare) found = &m;
    }
    if (found == nullptr) {
      std::string names;
      for (const properties::Mutant& m : properties::AllMutants()) names += "\n  " + m.name;
      return Status::InvalidArgument("unknown hazard '" + h + "'; the hazards are:" + names);
    }
    if (!found->crash_model_hazard.empty()) {  // the crash model's, not a run's (no apply)
      return Status::InvalidArgument("hazard '" + h +
                                     "' is a mutant of the black-box crash model, "
                                     "which no run carries; check it with `stepfault blackbox "
                                     "conformance --hazard " +
                                     found->crash_model_hazard + "`");
    }
    found->apply(&config);
  }
  return config;
}

Status CheckHazardsApply(
    const std::vector<std::string>& hazards,
    const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>& chosen) {
  for (const std::string& h : hazards) {
    const std::string bare = h.starts_with("host:") ? h.substr(5) : h;
    bool is_host = false, declared = false;
    for (const auto& s : scenarios::AllScenarios()) {
      for (const scenarios::HostHazard& d : s->host_hazards()) is_host = is_host || d.name == bare;
    }
    if (!is_host) continue;  // an engine or store hazard: every scenario has it
    for (const auto& s : chosen) {
      for (const scenarios::HostHazard& d : s->host_hazards())
        declared = declared || d.name == bare;
    }
    if (declared || chosen.empty()) continue;
    std::string own;
    for (const scenarios::HostHazard& d : chosen[0]->host_hazards())
      own += (own.empty() ? "" : ", ") + std::string("host:") + d.name;
    return Status::InvalidArgument(
        "'" + chosen[0]->name() + "' has no hazard 'host:" + bare +
        "', so switching it on would change nothing; its host hazards are: " +
        (own.empty() ? std::string("none") : own) +
        ", and the engine:* and store:* hazards apply to every scenario (`stepfault list "
        "hazards`)");
  }
  return Status::Ok();
}

Result<Json> ResolveParamsText(const scenarios::Scenario& scenario, const std::string& text) {
  Json given;  // null: none given
  if (!text.empty()) {
    if (text.size() > kMaxParamsBytes)
      return Status::InvalidArgument("--params is " + std::to_string(text.size()) +
                                     " bytes; at most " + std::to_string(kMaxParamsBytes));
    SF_ASSIGN_OR_RETURN(given, ParseJsonText(text, "--params"));
  }
  return scenarios::ResolveParams(scenario.name(), scenario.params(), given);
}

Result<std::shared_ptr<const scenarios::Scenario>> ResolveScenario(const std::string& name) {
  if (auto s = scenarios::FindScenario(name)) return s;
  if (scenarios::FindScheduleScenario(name) != nullptr) {
    return Status::InvalidArgument(
        "'" + name +
        "' has several actors in one world and is explored by schedules, not one life at a time: "
        "use `stepfault explore --scenario " +
        name + "`, `stepfault schedules explore` or `stepfault replay --scenario " + name +
        " --plan F --schedule S`");
  }
  std::error_code ec;
  if (name.size() > 5 && name.ends_with(".json")) {
    if (!std::filesystem::exists(name, ec))
      return Status::InvalidArgument("scenario file '" + name + "' does not exist");
    return scenarios::LoadJsonScenario(PosixEnv(), name);
  }
  std::string names;
  for (const auto& s : scenarios::BuiltinScenarios())
    names += (names.empty() ? "" : ", ") + s->name();
  return Status::InvalidArgument(
      "unknown scenario '" + name + "'; the scenarios are: " + names +
      ", or the path of a JSON scenario file (scenarios/json/examples/*.json)");
}

Status CheckOutDir(const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) return Status::InvalidArgument("--out needs a directory name");
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return Status::InvalidArgument("--out '" + dir + "': " + ec.message());
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec))
      return Status::InvalidArgument("--out '" + dir +
                                     "' exists and is not a directory; name a directory");
  } else {
    // The nearest existing ancestor must be a directory we may create entries in.
    fs::path up = p.parent_path();
    while (!up.empty() && !fs::exists(up, ec) && up != up.parent_path()) up = up.parent_path();
    if (!fs::is_directory(up, ec))
      return Status::InvalidArgument("--out '" + dir + "': '" + up.string() +
                                     "' is not a directory");
    p = up;
  }
  if (::access(p.c_str(), W_OK | X_OK) != 0)
    return Status::InvalidArgument("--out '" + dir + "': '" + p.string() + "' is not writable");
  // access(2) answers yes to root for every directory, /sys and /proc included: only creating a
  // file says whether the reports can be written.
  const std::string probe = (p / (".stepfault-out-check-" + std::to_string(::getpid()))).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return Status::InvalidArgument("--out '" + dir + "': cannot create a file in '" + p.string() +
                                   "': " + std::strerror(errno) + "; name another directory");
  }
  ::close(fd);
  ::unlink(probe.c_str());
  return Status::Ok();
}

namespace {

// Writes `bytes` to `path` and makes it durable.
Status WriteDurably(Env* env, const std::string& path, const std::string& bytes) {
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f, env->NewWritableFile(path));
  Status s = f->Append(bytes);
  if (s.ok()) s = f->Sync();
  Status closed = f->Close();
  return s.ok() ? closed : s;
}

std::atomic<uint64_t> temp_serial{0};

}  // namespace

Status WriteReportSet(Env* env, const std::string& dir, const reports::Report& report) {
  // Render everything first: a failure here touches nothing.
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& writer : reports::AllReportWriters())
    files.emplace_back(writer->file_name(), writer->Render(report));
  SF_RETURN_IF_ERROR(env->CreateDirIfMissing(dir));
  // Phase 1: every file complete and durable under a temporary name.
  std::vector<std::string> temps;
  auto clean_up = [&](Status s) {
    for (const std::string& t : temps) (void)env->RemoveFile(t);
    return s.WithContext("writing the reports into " + dir + " (nothing was written)");
  };
  for (const auto& [name, bytes] : files) {
    // This process's own name: a second writer's temporaries are never ours to replace.
    const std::string temp = JoinPath(dir, "." + name + "." + std::to_string(::getpid()) + "-" +
                                               std::to_string(temp_serial.fetch_add(1)) + ".tmp");
    temps.push_back(temp);
    Status s = WriteDurably(env, temp, bytes);
    if (!s.ok()) return clean_up(s);
  }
  // Phase 2: publish; a rename replaces a file whole, so each name holds an old or a new report.
  for (size_t i = 0; i < files.size(); ++i) {
    Status s = env->RenameFile(temps[i], JoinPath(dir, files[i].first));
    if (!s.ok()) {
      temps.erase(temps.begin(), temps.begin() + static_cast<std::ptrdiff_t>(i));
      return clean_up(s);
    }
  }
  return env->SyncDir(dir);
}

Status WriteReports(const std::string& dir, const reports::Report& report) {
  SF_RETURN_IF_ERROR(CheckOutDir(dir));
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::absolute(dir, ec).parent_path();
  std::filesystem::create_directories(parent, ec);
  if (ec) return Status::IOError("cannot create '" + parent.string() + "': " + ec.message());
  const bool existed = std::filesystem::exists(dir, ec);
  if (!existed) std::filesystem::create_directory(dir, ec);
  // The lock is the directory's own (flock on it): nothing is left behind when it is released.
  const int lock = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock < 0) return Status::IOError("cannot open '" + dir + "': " + std::strerror(errno));
  if (::flock(lock, LOCK_EX | LOCK_NB) != 0) {
    ::close(lock);
    return Status::InvalidArgument("another stepfault command is writing reports into '" + dir +
                                   "' (it holds the directory's lock); wait for it to finish, or "
                                   "give this command another --out");
  }
  Status s = WriteReportSet(PosixEnv(), dir, report);
  ::close(lock);
  if (!s.ok() && !existed) std::filesystem::remove(dir, ec);  // only if empty: ours
  return s;
}

namespace {

// What the cells not run are, so a coverage figure below 100% reads as what it is (issue 30: "what
// 78% at depth 1 means"): at a recovery window a fault is one more than the depth allows; at a
// fault-free window the cell belongs to another shard or was not reached before an interrupt.
void PrintNotRun(std::FILE* out, const reports::Report& report) {
  int64_t at_recovery = 0, at_fault_free = 0;
  for (const reports::ScenarioReport& s : report.scenarios) {
    std::map<std::string, bool> recovery;
    for (const reports::Window& w : s.windows) recovery[w.id] = w.recovery;
    for (const reports::Cell& c : s.cells) {
      if (c.outcome != reports::CellOutcome::kNotRun) continue;
      (recovery[c.window] ? at_recovery : at_fault_free) += 1;
    }
  }
  if (at_recovery > 0) {
    std::fprintf(out,
                 "not run: %lld cells at windows only a recovery reaches: a fault there would be "
                 "fault %d of its plan, beyond --depth %d%s\n",
                 static_cast<long long>(at_recovery), report.depth + 1, report.depth,
                 report.depth < 3 ? (" (--depth " + std::to_string(report.depth + 1) +
                                     " runs them and finds the windows behind them)")
                                        .c_str()
                                  : "");
  }
  if (at_fault_free > 0) {
    std::fprintf(out, "not run: %lld cells at windows of the fault-free run: %s\n",
                 static_cast<long long>(at_fault_free),
                 !report.inconclusive.empty()  ? "the recording is incomplete (inconclusive)"
                 : !report.interrupted.empty() ? "not reached before the interrupt"
                 : report.shard != "1/1"       ? "in the other shards (report merge joins them)"
                                               : "not run by this exploration");
  }
}

// The mutant hunt's line, and each mutant whose hunt the harness failed with its replay.
void PrintMutants(std::FILE* out, const reports::Report& report) {
  int killed = 0;
  size_t by_catalogue = 0;
  for (const auto& m : report.mutants) {
    killed += m.killed ? 1 : 0;
    by_catalogue += m.name.starts_with("blackbox:") ? 1 : 0;
  }
  // The mutants are defects of the built-in hosts and stores: they are hunted there, whatever
  // scenarios the exploration itself ran (issue 16, item 6); the black-box crash model's own
  // (blackbox:*) by its crash-state catalogue.
  const char* where = by_catalogue == 0 ? "the built-in scenarios"
                      : by_catalogue == report.mutants.size()
                          ? "the crash-state catalogue"
                          : "the built-in scenarios; blackbox:* on the crash-state catalogue";
  std::fprintf(out, "mutants killed: %d/%zu (hunted on %s)\n", killed, report.mutants.size(),
               where);
  for (const auto& m : report.mutants) {
    if (m.verdict == "harness-failed")
      std::fprintf(out, "HARNESS FAILED %s: %s\n  replay: %s\n", m.name.c_str(), m.message.c_str(),
                   m.replay.c_str());
  }
}

}  // namespace

void PrintSummary(std::FILE* out, const reports::Report& report, const std::string& dir) {
  // The name column fits the longest variant name ("approval/sqlite-truncate", a black-box spec).
  int width = 18;
  for (const auto& s : report.scenarios) width = std::max(width, static_cast<int>(s.name.size()));
  if (!report.scenarios.empty()) {
    std::fprintf(out, "%-*s %8s %8s %10s %10s\n", width, "scenario", "windows", "cells",
                 "exercised", "violations");
  }
  for (const auto& s : report.scenarios) {
    if (s.schedules) {
      int64_t violations = 0;
      for (const auto& v : report.violations) violations += v.scenario == s.name ? 1 : 0;
      std::fprintf(out,
                   "%-*s schedules %lld/%lld (%s), %lld distinct states (first %lld), %lld context "
                   "switches, "
                   "%lld faults fired, %lld windows (actor@point), %lld violations\n",
                   width, s.name.c_str(), static_cast<long long>(s.schedules->explored),
                   static_cast<long long>(s.schedules->budget), s.schedules->strategy.c_str(),
                   static_cast<long long>(s.schedules->distinct_states),
                   static_cast<long long>(s.schedules->states_counted_schedules),
                   static_cast<long long>(s.schedules->context_switches),
                   static_cast<long long>(s.schedules->faults_fired),
                   static_cast<long long>(s.schedules->windows),
                   static_cast<long long>(violations));
      continue;
    }
    auto c = reports::ComputeCoverage(s);
    int64_t violations = 0;
    for (const auto& v : report.violations) violations += v.scenario == s.name ? 1 : 0;
    std::fprintf(out, "%-*s %8lld %8lld %10lld %10lld\n", width, s.name.c_str(),
                 static_cast<long long>(c.windows_total), static_cast<long long>(c.cells_total),
                 static_cast<long long>(c.cells_exercised), static_cast<long long>(violations));
  }
  if (!report.mutants.empty()) PrintMutants(out, report);
  // Every failure names its seed and the command that replays it.
  for (size_t i = 0; i < report.violations.size() && i < 5; ++i) {
    const auto& v = report.violations[i];
    std::fprintf(out, "VIOLATION %s in %s at %s (%s): %s\n  replay: %s\n", v.invariant.c_str(),
                 v.scenario.c_str(), v.window.c_str(), v.action.c_str(), v.message.c_str(),
                 v.replay.c_str());
  }
  if (report.violations.size() > 5) {
    std::fprintf(out, "... %zu more violations in report.json (seed %llu)\n",
                 report.violations.size() - 5, static_cast<unsigned long long>(report.seed));
  }
  const std::string verdict(reports::VerdictName(reports::ComputeVerdict(report)));
  if (!report.interrupted.empty()) {
    std::fprintf(out,
                 "interrupted by %s: the report is partial (what ran is in it; the rest is \"not "
                 "run\" or \"not explored\"); it passes no gate\n",
                 report.interrupted.c_str());
  }
  if (!report.inconclusive.empty()) {
    std::fprintf(out,
                 "INCONCLUSIVE: the recording is incomplete, so nothing was explored and neither a "
                 "pass nor a violation can be said. Not seen:\n");
    for (const std::string& why : report.inconclusive) std::fprintf(out, "  - %s\n", why.c_str());
  }
  if (report.scenarios.empty()) {  // a mutant hunt: no cells to count
    std::fprintf(out, "verdict: %s\n", verdict.c_str());
    if (!dir.empty()) std::fprintf(out, "report: %s/report.html\n", dir.c_str());
    return;
  }
  auto total = reports::ComputeCoverage(report);
  std::fprintf(out, "coverage: %lld/%lld cells (%.1f%%), %lld runs, %lld lives, verdict: %s\n",
               static_cast<long long>(total.cells_exercised),
               static_cast<long long>(total.cells_total), total.cells_pct,
               static_cast<long long>(report.runs), static_cast<long long>(report.lives),
               verdict.c_str());
  PrintNotRun(out, report);
  if (!dir.empty()) std::fprintf(out, "report: %s/report.html\n", dir.c_str());
}

}  // namespace stepfault::cli
