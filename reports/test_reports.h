// Report models shared by the reports/ tests (header-only; tests only): the sample report, read
// from its test-data file, and builders of windows and cells for the tests that make their own.
//
// SampleReport covers every cell outcome (filtered included), a recovery window, crash states, a
// skipped variant, a scenario explored by schedules (no cells, a schedules block, a violated
// invariant), a violation with its counterexample, a passed and a failed property, a killed
// and a surviving mutant and benchmark rows (one without a ratio), so the golden files exercise
// every part of every writer.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "engine/env.h"
#include "reports/report_json.h"
#include "reports/report_model.h"
#include "tools/testing/test_env.h"

namespace stepfault::reports::testing {

inline Window MakeWindow(std::string point, int occurrence, std::string business) {
  return Window{.id = point + "#" + std::to_string(occurrence),
                .point = point,
                .occurrence = occurrence,
                .business_window = std::move(business)};
}

inline Cell MakeCell(const Window& w, std::string action, CellOutcome outcome, int64_t runs,
                     int lives_max, std::vector<std::string> violated = {}) {
  return Cell{.window = w.id,
              .action = std::move(action),
              .outcome = outcome,
              .runs = runs,
              .lives_max = lives_max,
              .invariants_violated = std::move(violated)};
}

// The sample, read once from reports/testdata/sample_report.json (a report.json document, read
// with FromJson). It is the reports tests' input; report.json beside it, byte for byte the same
// today, is the JSON writer's golden output: STEPFAULT_UPDATE_GOLDENS rewrites that one, never
// the sample. A sample that does not load aborts the test binary, saying why.
inline Report SampleReport() {
  static const Report sample = [] {
    const std::string path = JoinPath(test_env::SourceDir(), "reports/testdata/sample_report.json");
    Result<std::string> text = PosixEnv()->ReadFile(path);
    Result<Report> report = text.ok() ? FromJson(*text) : Result<Report>(text.status());
    if (!report.ok()) {
      std::fprintf(stderr, "test_reports.h: %s: %s\n", path.c_str(),
                   report.status().ToString().c_str());
      std::abort();
    }
    return std::move(report).value();
  }();
  return sample;
}

using test_env::SourceDir;

}  // namespace stepfault::reports::testing
