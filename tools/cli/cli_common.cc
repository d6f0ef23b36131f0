// Shared command-line pieces.
#include "tools/cli/cli_common.h"

#include <unistd.h>

#include <filesystem>

#include "engine/env.h"
#include "properties/mutants.h"
#include "reports/report_writer.h"
#include "scenarios/json/json_scenario.h"
#include "scenarios/registry.h"

namespace stepfault::cli {

int UsageError(const std::string& message) {
  std::fprintf(stderr, "stepfault: %s\n", message.c_str());
  return kExitUsage;
}

bool StderrIsTerminal() { return ::isatty(STDERR_FILENO) == 1; }

Result<properties::RunConfig> MakeRunConfig(const std::string& profile,
                                            const std::vector<std::string>& hazards, uint64_t seed,
                                            const std::string& params_json) {
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
  if (!params_json.empty()) {
    Json params = Json::parse(params_json, nullptr, false);
    if (params.is_discarded() || !params.is_object()) {
      return Status::InvalidArgument("--params must be a JSON object, e.g. '{\"width\":4}'");
    }
    config.params = params;
  }
  return config;
}

Result<std::shared_ptr<const scenarios::Scenario>> ResolveScenario(const std::string& name) {
  if (auto s = scenarios::FindScenario(name)) return s;
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

Status WriteReports(const std::string& dir, const reports::Report& report) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create '" + dir + "': " + ec.message());
  return reports::WriteAll(PosixEnv(), dir, report);
}

void PrintSummary(std::FILE* out, const reports::Report& report, const std::string& dir) {
  std::fprintf(out, "%-18s %8s %8s %10s %10s\n", "scenario", "windows", "cells", "exercised",
               "violations");
  for (const auto& s : report.scenarios) {
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
    std::fprintf(out, "mutants killed: %d/%zu\n", killed, report.mutants.size());
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
