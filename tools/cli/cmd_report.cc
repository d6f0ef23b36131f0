// stepfault report: merge shard reports, re-render a report.json, add benchmark charts.
#include <fstream>
#include <sstream>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "faults/points.h"
#include "properties/explorer.h"
#include "properties/mutants.h"
#include "reports/bench_json.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

Result<std::string> ReadWholeFile(const std::string& path) {
  auto bytes = PosixEnv()->ReadFile(path);
  if (!bytes.ok())
    return Status::InvalidArgument("cannot read '" + path + "': " + bytes.status().message());
  return bytes;
}

int ReportMerge(const ReportArgs& a) {
  if (a.inputs.empty()) return UsageError("report merge needs the shard report.json files");
  if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
  std::vector<reports::Report> shards;
  for (const std::string& path : a.inputs) {
    auto text = ReadWholeFile(path);
    if (!text.ok()) return UsageError(text.status().message());
    auto r = reports::FromJson(*text);
    if (!r.ok()) return UsageError(path + ": " + r.status().message());
    shards.push_back(std::move(*r));
  }
  auto merged = reports::MergeShards(shards);
  if (!merged.ok()) return UsageError(merged.status().message());
  Status s = WriteReports(a.out, *merged);
  if (!s.ok()) return UsageError(s.ToString());
  PrintSummary(stdout, *merged, a.out);
  return reports::VerdictExitCode(reports::ComputeVerdict(*merged));
}

int ReportRender(const ReportArgs& a, bool bench) {
  if (a.inputs.size() != 1)
    return UsageError(std::string("report ") + (bench ? "bench" : "render") +
                      " takes one input file");
  if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
  reports::Report report;
  if (bench) {
    if (!a.report.empty()) {
      auto text = ReadWholeFile(a.report);
      if (!text.ok()) return UsageError(text.status().message());
      auto r = reports::FromJson(*text);
      if (!r.ok()) return UsageError(a.report + ": " + r.status().message());
      report = std::move(*r);
    } else {
      report.command = "stepfault report bench";
    }
    auto text = ReadWholeFile(a.inputs[0]);
    if (!text.ok()) return UsageError(text.status().message());
    auto rows = reports::ParseBenchmarkJson(*text);
    if (!rows.ok()) return UsageError(a.inputs[0] + ": " + rows.status().message());
    report.bench = std::move(*rows);
  } else {
    auto text = ReadWholeFile(a.inputs[0]);
    if (!text.ok()) return UsageError(text.status().message());
    auto r = reports::FromJson(*text);
    if (!r.ok()) return UsageError(a.inputs[0] + ": " + r.status().message());
    report = std::move(*r);
  }
  Status s = WriteReports(a.out, report);
  if (!s.ok()) return UsageError(s.ToString());
  std::printf("report: %s/report.html\n", a.out.c_str());
  return bench ? kExitOk : reports::VerdictExitCode(reports::ComputeVerdict(report));
}

}  // namespace

void AddReportCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand(
      "report", "merge shard reports, re-render a report, or add benchmark charts");
  cmd->require_subcommand(1);
  auto* merge =
      cmd->add_subcommand("merge", "merge the report.json of every shard into one report");
  merge->add_option("inputs", state.report.inputs, "shard report.json files")->required();
  merge->add_option("--out", state.report.out, "output directory")->required();
  merge->callback([&state] { state.run = [&state] { return ReportMerge(state.report); }; });
  auto* render = cmd->add_subcommand("render", "re-render every format from a report.json");
  render->add_option("inputs", state.report.inputs, "report.json")->required();
  render->add_option("--out", state.report.out, "output directory")->required();
  render->callback(
      [&state] { state.run = [&state] { return ReportRender(state.report, false); }; });
  auto* bench = cmd->add_subcommand(
      "bench", "render Google Benchmark JSON into the report's overhead charts");
  bench->add_option("inputs", state.report.inputs, "bench.json (--benchmark_format=json output)")
      ->required();
  bench->add_option("--report", state.report.report,
                    "an existing report.json to add the charts to");
  bench->add_option("--out", state.report.out, "output directory")->required();
  bench->callback([&state] { state.run = [&state] { return ReportRender(state.report, true); }; });
}

}  // namespace stepfault::cli
