// The report writers: one class per output format over one model (as google/benchmark's reporters).
//
// Every writer renders a whole Report to a string, deterministically: the same Report gives the
// same bytes. WriteAll publishes all four files into a directory, each atomically, so a crash
// leaves either the old or the new file, never half of one.
// Thread-safety: writers hold no state; Render may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/status.h"
#include "reports/report_model.h"

namespace stepfault::reports {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  virtual std::string Render(const Report& report) = 0;
  // The file this writer produces inside the output directory, e.g. "report.json".
  virtual std::string file_name() const = 0;
};

// report.json (see report_json.h).
class JsonReportWriter : public ReportWriter {
 public:
  std::string Render(const Report& report) override;
  std::string file_name() const override { return "report.json"; }
};

// report.html: one self-contained page (inline CSS and SVG, no script, no external reference).
class HtmlReportWriter : public ReportWriter {
 public:
  std::string Render(const Report& report) override;
  std::string file_name() const override { return "report.html"; }
};

// summary.md: a short verdict for a CI job summary (at most ~60 lines).
class MarkdownReportWriter : public ReportWriter {
 public:
  std::string Render(const Report& report) override;
  std::string file_name() const override { return "summary.md"; }
};

// junit.xml: one testcase per applicable cell, property and mutant.
class JunitReportWriter : public ReportWriter {
 public:
  std::string Render(const Report& report) override;
  std::string file_name() const override { return "junit.xml"; }
};

// The four writers, in the order WriteAll uses.
std::vector<std::unique_ptr<ReportWriter>> AllReportWriters();

// Creates out_dir if missing and publishes report.json, report.html, summary.md and junit.xml in it
// through WriteFileAtomically. Stops at the first failure and says which file failed.
Status WriteAll(Env* env, const std::string& out_dir, const Report& report);

}  // namespace stepfault::reports
