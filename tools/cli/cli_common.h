// What the commands share: turning --profile/--hazard/--seed into a RunConfig, finding scenarios,
// writing reports, and the usage-error convention (message on stderr, exit 2).
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "properties/life_runner.h"
#include "reports/report_model.h"
#include "scenarios/scenario.h"

namespace stepfault::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCoverage = 3;

// Prints "stepfault: <message>" to stderr and returns kExitUsage.
int UsageError(const std::string& message);

// Builds the run configuration; a bad profile or hazard name is an error naming the valid ones.
Result<properties::RunConfig> MakeRunConfig(const std::string& profile,
                                            const std::vector<std::string>& hazards, uint64_t seed,
                                            const std::string& params_json);

// A built-in scenario by name, or a JSON scenario file.
Result<std::shared_ptr<const scenarios::Scenario>> ResolveScenario(const std::string& name);

// Creates `dir` (and parents) and writes report.json, report.html, summary.md, junit.xml into it.
Status WriteReports(const std::string& dir, const reports::Report& report);

// A short summary table of a report on `out`.
void PrintSummary(std::FILE* out, const reports::Report& report, const std::string& dir);

bool StderrIsTerminal();

}  // namespace stepfault::cli
