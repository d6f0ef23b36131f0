// Shared command-line pieces.
#include "tools/cli/cli_common.h"

#include <unistd.h>

#include <charconv>
#include <filesystem>

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

Result<uint64_t> ParseUnsigned(const std::string& flag, const std::string& text, uint64_t min,
                               uint64_t max) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (text.empty() || text[0] == '+' || text[0] == '-' || ec == std::errc::invalid_argument ||
      ptr != end) {
    return Status::InvalidArgument(flag + " must be a whole number in " + range + " (got '" + text +
                                   "')");
  }
  if (ec == std::errc::result_out_of_range || v < min || v > max) {
    return Status::InvalidArgument(flag + " is out of range: '" + text + "' is not in " + range);
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
    found->apply(&config);
  }
  return config;
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
        name + "`, `stepfault schedules explore` or `stepfault replay " + name +
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
    const std::string temp = JoinPath(dir, "." + name + ".tmp");
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
  Status s = WriteReportSet(PosixEnv(), dir, report);
  if (!s.ok() && !existed) std::filesystem::remove(dir, ec);  // only if empty: ours
  return s;
}

void PrintSummary(std::FILE* out, const reports::Report& report, const std::string& dir) {
  std::fprintf(out, "%-18s %8s %8s %10s %10s\n", "scenario", "windows", "cells", "exercised",
               "violations");
  for (const auto& s : report.scenarios) {
    if (s.schedules) {
      int64_t violations = 0;
      for (const auto& v : report.violations) violations += v.scenario == s.name ? 1 : 0;
      std::fprintf(
          out,
          "%-18s schedules %lld/%lld (%s), %lld distinct states (first %lld), %lld context "
          "switches, "
          "%lld faults fired, %lld windows (actor@point), %lld violations\n",
          s.name.c_str(), static_cast<long long>(s.schedules->explored),
          static_cast<long long>(s.schedules->budget), s.schedules->strategy.c_str(),
          static_cast<long long>(s.schedules->distinct_states),
          static_cast<long long>(s.schedules->states_counted_schedules),
          static_cast<long long>(s.schedules->context_switches),
          static_cast<long long>(s.schedules->faults_fired),
          static_cast<long long>(s.schedules->windows), static_cast<long long>(violations));
      continue;
    }
    auto c = reports::ComputeCoverage(s);
    int64_t violations = 0;
    for (const auto& v : report.violations) violations += v.scenario == s.name ? 1 : 0;
    std::fprintf(out, "%-18s %8lld %8lld %10lld %10lld\n", s.name.c_str(),
                 static_cast<long long>(c.windows_total), static_cast<long long>(c.cells_total),
                 static_cast<long long>(c.cells_exercised), static_cast<long long>(violations));
  }
  if (!report.mutants.empty()) {
    int killed = 0;
    for (const auto& m : report.mutants) killed += m.killed ? 1 : 0;
    // The mutants are defects of the built-in hosts and stores: they are hunted there, whatever
    // scenarios the exploration itself ran (issue 16, item 6).
    std::fprintf(out, "mutants killed: %d/%zu (hunted on the built-in scenarios)\n", killed,
                 report.mutants.size());
  }
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
  auto total = reports::ComputeCoverage(report);
  std::fprintf(out, "coverage: %lld/%lld cells (%.1f%%), %lld runs, %lld lives, verdict: %s\n",
               static_cast<long long>(total.cells_exercised),
               static_cast<long long>(total.cells_total), total.cells_pct,
               static_cast<long long>(report.runs), static_cast<long long>(report.lives),
               std::string(reports::VerdictName(reports::ComputeVerdict(report))).c_str());
  if (!dir.empty()) std::fprintf(out, "report: %s/report.html\n", dir.c_str());
}

}  // namespace stepfault::cli
