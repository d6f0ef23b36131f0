// libFuzzer target: the report.json reader and what `stepfault report merge|render` do with what
// it accepts. Promise under test: any text gives a Report or a typed error; an accepted report
// merges with itself and renders in every format, never a crash.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "reports/merge.h"
#include "reports/report_json.h"
#include "reports/report_writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto report = stepfault::reports::FromJson(text);
  if (!report.ok()) return 0;
  (void)stepfault::reports::MergeShards({*report, *report});
  for (const auto& writer : stepfault::reports::AllReportWriters()) (void)writer->Render(*report);
  return 0;
}
