// The writer registry and WriteAll (see report_writer.h); each format lives in its own file.
#include "reports/report_writer.h"

#include "reports/report_json.h"

namespace stepfault::reports {

std::string JsonReportWriter::Render(const Report& report) { return ToJson(report); }

std::vector<std::unique_ptr<ReportWriter>> AllReportWriters() {
  std::vector<std::unique_ptr<ReportWriter>> writers;
  writers.push_back(std::make_unique<JsonReportWriter>());
  writers.push_back(std::make_unique<HtmlReportWriter>());
  writers.push_back(std::make_unique<MarkdownReportWriter>());
  writers.push_back(std::make_unique<JunitReportWriter>());
  return writers;
}

Status WriteAll(Env* env, const std::string& out_dir, const Report& report) {
  Status s = env->CreateDirIfMissing(out_dir);
  if (!s.ok()) return s.WithContext("creating the report directory " + out_dir);
  for (const auto& writer : AllReportWriters()) {
    s = WriteFileAtomically(env, out_dir, writer->file_name(), writer->Render(report));
    if (!s.ok()) return s.WithContext("writing " + JoinPath(out_dir, writer->file_name()));
  }
  return Status::Ok();
}

}  // namespace stepfault::reports
