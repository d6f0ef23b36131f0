// What the commands share: turning --profile/--hazard/--seed into a RunConfig, finding scenarios,
// writing reports, and the usage-error convention (message on stderr, exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "properties/life_runner.h"
#include "reports/report_model.h"
#include "scenarios/exit_codes.h"
#include "scenarios/scenario.h"

namespace stepfault::cli {

// The version `stepfault --version` prints.
inline constexpr const char* kStepfaultVersion = "0.9.0";

// The largest --params text.
inline constexpr size_t kMaxParamsBytes = 64 * 1024;

// Strict decimal parsing of an unsigned number in [min, max]: no sign, no spaces, no suffix, no
// wrap-around; the error names the flag, the text and the range.
Result<uint64_t> ParseUnsigned(const std::string& flag, const std::string& text, uint64_t min,
                               uint64_t max);

// Registers `name` (e.g. "--seed") whose value is parsed by ParseUnsigned into *target; a bad
// value is a CLI11 validation error (exit 2 with the message).
template <typename T>
CLI::Option* AddUnsignedOption(CLI::App* app, const std::string& name, T* target,
                               const std::string& description, uint64_t min, uint64_t max) {
  return app
      ->add_option_function<std::string>(
          name,
          [name, target, min, max](const std::string& text) {
            Result<uint64_t> v = ParseUnsigned(name, text, min, max);
            if (!v.ok()) throw CLI::ValidationError(v.status().message());
            *target = static_cast<T>(*v);
          },
          description + " (" + std::to_string(min) + ".." + std::to_string(max) + ")")
      ->type_name("UINT");
}

// Strict parsing of a percentage: a finite decimal number in [0, 100] ("nan", "inf", hex, a sign
// other than none, a suffix are errors naming the flag); what --min-coverage takes.
Result<double> ParsePercent(const std::string& flag, const std::string& text);

// Registers `name` whose value is parsed by ParsePercent into *target.
inline CLI::Option* AddPercentOption(CLI::App* app, const std::string& name, double* target,
                                     const std::string& description) {
  return app
      ->add_option_function<std::string>(
          name,
          [name, target](const std::string& text) {
            Result<double> v = ParsePercent(name, text);
            if (!v.ok()) throw CLI::ValidationError(v.status().message());
            *target = *v;
          },
          description + " (0..100)")
      ->type_name("PCT");
}

// Prints "stepfault: <message>" to stderr and returns kExitUsage.
int UsageError(const std::string& message);

// Builds the run configuration; a bad profile or hazard name is an error naming the valid ones.
Result<properties::RunConfig> MakeRunConfig(const std::string& profile,
                                            const std::vector<std::string>& hazards, uint64_t seed);

// --params text resolved against the scenario's declared parameters (scenarios/params.h): a JSON
// object (syntax errors with line and column) merged over the defaults; "" = the defaults.
Result<Json> ResolveParamsText(const scenarios::Scenario& scenario, const std::string& text);

// Every --hazard that is a host hazard must be declared by one of `chosen` (an undeclared one
// would change nothing and the run would pass); the error names the scenario's hazards.
Status CheckHazardsApply(const std::vector<std::string>& hazards,
                         const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>& chosen);

// A built-in scenario by name, or a JSON scenario file.
Result<std::shared_ptr<const scenarios::Scenario>> ResolveScenario(const std::string& name);

// Checks, before any work, that `dir` can become the report directory: it is a directory or does
// not exist yet, and a file can really be created in it (or in its nearest existing ancestor): a
// probe file is created and removed, since access(2) says yes to root everywhere, /sys included.
Status CheckOutDir(const std::string& dir);

// Writes report.json, report.html, summary.md and junit.xml into `dir` all or nothing: they are
// written into `dir` under temporary names, synced, and renamed to their own names only when
// all four are complete; on any error every temporary file is removed and `dir` keeps what it had.
// The temporaries' names are this process's own, and the directory is locked (flock) while the set
// is written: a second command writing the same directory is refused, saying so.
Status WriteReports(const std::string& dir, const reports::Report& report);
// The same through `env` (tests inject I/O errors with a FailingEnv).
Status WriteReportSet(Env* env, const std::string& dir, const reports::Report& report);

// A short summary table of a report on `out`.
void PrintSummary(std::FILE* out, const reports::Report& report, const std::string& dir);

bool StderrIsTerminal();

}  // namespace stepfault::cli
