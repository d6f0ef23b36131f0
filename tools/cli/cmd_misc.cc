// list, report (merge, render, bench) and demo.
#include <fstream>
#include <sstream>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "faults/points.h"
#include "properties/explorer.h"
#include "properties/invariants.h"
#include "properties/mutants.h"
#include "reports/bench_json.h"
#include "reports/merge.h"
#include "reports/report_json.h"
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

int List(const std::string& what) {
  if (what == "scenarios") {
    for (const auto& s : scenarios::BuiltinScenarios()) {
      std::string invs;
      for (const auto& i : s->invariants()) invs += " " + i;
      std::printf("%-18s %s\n%-18s invariants:%s\n", s->name().c_str(), s->description().c_str(),
                  "", invs.c_str());
    }
  } else if (what == "points") {
    for (const auto& p : faults::AllPoints()) {
      std::string roles;
      for (const auto& r : p.roles) roles += (roles.empty() ? "" : ",") + r;
      std::printf("%-26s %-9s %-36s %s\n", p.name.c_str(),
                  std::string(faults::PointLayerName(p.layer)).c_str(),
                  roles.empty() ? "-" : ("[" + roles + "]").c_str(), p.meaning.c_str());
    }
  } else if (what == "invariants") {
    for (const auto& i : properties::AllInvariants())
      std::printf("%-16s %s\n", i.id.c_str(), i.statement.c_str());
  } else if (what == "hazards") {
    for (const auto& m : properties::AllMutants())
      std::printf("%-45s %s\n", m.name.c_str(), m.description.c_str());
  } else if (what == "actions") {
    for (const auto& a : properties::ActionKindNames()) std::printf("%s\n", a.c_str());
  } else {
    return UsageError("list what? one of: scenarios, points, invariants, hazards, actions");
  }
  return kExitOk;
}

int ReportMerge(const ReportArgs& a) {
  if (a.inputs.empty()) return UsageError("report merge needs the shard report.json files");
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

// The sample workflow of the Quick start: a request port between two steps, answered in the loop.
int Demo() {
  auto prepare =
      FunctionExecutor("prepare", "Prepare", {"Draft"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.QueueStateUpdate("draft", m.body);
        ctx.SendMessage(Message{"Ticket", m.body});
        return Status::Ok();
      });
  auto apply =
      FunctionExecutor("apply", "Apply", {"Decision"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(Message{"Applied", m.body});
        return Status::Ok();
      });
  auto wf = WorkflowBuilder(prepare)
                .AddExecutor(apply)
                .AddRequestPort("approval", "Ticket", "Decision")
                .AddEdge("prepare", "approval")
                .AddEdge("approval", "apply")
                .WithOutputFrom("apply")
                .Build();
  SF_CHECK(wf.ok());
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(*wf, Message{"Draft", Json{{"text", "Regional pilot proposal"}}},
                                 options);
  SF_CHECK(run.ok());
  auto stream = (*run)->Watch();
  SF_CHECK(stream.ok());
  for (int i = 0; i < 1000; ++i) {
    auto e = stream->Next();
    if (!e) break;
    std::printf("%s\n", e->ToJson().dump().c_str());
    if (e->kind == EventKind::kRequestInfo) {
      SF_CHECK((*run)
                   ->SendResponse({e->request_id, "approval",
                                   Message{"Decision", Json{{"choice", "approve"}}}})
                   .ok());
    }
  }
  std::printf("status: %s\n", std::string(RunStatusName((*run)->status())).c_str());
  return kExitOk;
}

}  // namespace

void AddListCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("list", "list scenarios, points, invariants, hazards or actions");
  cmd->add_option("what", state.list_what, "scenarios|points|invariants|hazards|actions")
      ->required();
  cmd->callback([&state] { state.run = [&state] { return List(state.list_what); }; });
}

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

void AddDemoCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("demo", "run a sample workflow and print its event stream");
  cmd->callback([&state] { state.run = [] { return Demo(); }; });
}

}  // namespace stepfault::cli
