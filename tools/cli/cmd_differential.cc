// `stepfault differential`: Stepfault's engine (maf-compat) against the real MAF 1.28 run by
// maf-runner, trace against trace (docs/engine-semantics.md §11). Every shipped JSON scenario and
// --workflows seeded random ones are compared in the fault-free run and in a live restore and a
// fresh resume from every checkpoint. --workflow FILE [--mode M] compares one file (the replay
// command every difference carries) and prints both traces of M. Writes into --out the report set
// (report.json, report.html, summary.md, junit.xml: one scenario per workflow, one window per
// mode, one violation per undocumented difference), differential.json (every difference, with its
// kind and the deviation that documents it) and workflows/<name>.json for each generated workflow
// that differs. --execution lockstep|offthread|both (default both) picks the InProcessExecution
// environment(s) MAF runs in; every trace, difference and replay command names its execution. Exit
// 0 when no difference is undocumented, 1 otherwise, 2 on bad input (maf-runner missing, a scenario
// that does not parse).
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/json_text.h"
#include "properties/differential/differential.h"
#include "properties/differential/workflow_gen.h"
#include "reports/shell_quote.h"
#include "scenarios/json/normalized_trace.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

namespace fs = std::filesystem;
namespace pd = properties;

struct DifferentialArgs {
  int workflows = 20;
  uint64_t seed = 0;
  std::string maf, out, workflow, mode, scenarios;
  std::string execution = "both";  // lockstep, offthread or both
};

// The executions --execution names, in the order they run.
Result<std::vector<pd::MafExecution>> Executions(const std::string& text) {
  if (text == "both") return std::vector{pd::MafExecution::kLockstep, pd::MafExecution::kOffThread};
  auto e = pd::ParseExecution(text);
  if (!e.ok()) return Status::InvalidArgument("--execution: " + e.status().message() + " or both");
  return std::vector{*e};
}

// Beside the checkout the binary was built in (build/bin/stepfault -> <root>), else the cwd.
std::string Root() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path root = exe.parent_path().parent_path().parent_path();
    if (fs::exists(root / "scenarios" / "json" / "examples", ec)) return root.string();
  }
  return fs::current_path(ec).string();
}

Result<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(path + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Replay(const DifferentialArgs& a, const pd::WorkflowComparison& w,
                   const std::string& mode) {
  return reports::ShellJoin({"stepfault", "differential", "--workflow", w.file, "--mode", mode,
                             "--execution", pd::ExecutionName(w.execution), "--maf", a.maf});
}

// One workflow's differences as printed lines and report entries.
void Record(const DifferentialArgs& a, const pd::WorkflowComparison& w, reports::Report* report,
            Json* differences, std::map<std::string, int>* by_kind,
            std::map<std::string, int>* by_deviation, int* undocumented) {
  reports::ScenarioReport s;
  const std::string execution = pd::ExecutionName(w.execution);
  s.name = w.name + " (" + execution + ")";
  s.description = w.file + ", MAF " + execution;
  s.actions = {"compare"};
  s.invariants = {"DIFF-TRACE"};
  std::map<std::string, int> bad_modes;
  for (const auto& [mode, d] : w.differences) {
    ++(*by_kind)[d.kind];
    differences->push_back(Json{{"workflow", w.name},
                                {"file", w.file},
                                {"execution", execution},
                                {"mode", mode},
                                {"kind", d.kind},
                                {"where", d.where},
                                {"maf", d.maf},
                                {"engine", d.engine},
                                {"deviation", d.deviation.empty() ? Json() : Json(d.deviation)}});
    if (!d.deviation.empty()) {
      ++(*by_deviation)[d.deviation + " (" + execution + ")"];
      continue;
    }
    ++*undocumented;
    ++bad_modes[mode];
    reports::Violation v;
    v.scenario = s.name;
    v.invariant = "DIFF-TRACE";
    v.window = mode;
    v.action = "compare";
    v.replay = Replay(a, w, mode);
    v.message = d.kind + " at " + d.where + ": MAF " + d.maf.dump() + ", engine " + d.engine.dump();
    report->violations.push_back(std::move(v));
  }
  if (!w.error.empty()) {
    ++*undocumented;
    ++(*by_kind)["run failed"];
    report->violations.push_back(
        {s.name, "DIFF-TRACE", "run", "compare", "", Replay(a, w, "run"), w.error, "", 0});
    bad_modes["run"]++;
  }
  std::vector<std::string> modes{"run"};
  for (int n = 0; n < w.checkpoints; ++n) {
    modes.push_back("restore:" + std::to_string(n));
    modes.push_back("resume:" + std::to_string(n));
  }
  for (const std::string& m : modes) {
    s.windows.push_back({m, m, 1, "", false});
    s.cells.push_back(
        {m, "compare",
         bad_modes.count(m) ? reports::CellOutcome::kViolation : reports::CellOutcome::kPass, 1, 1,
         bad_modes.count(m) ? std::vector<std::string>{"DIFF-TRACE"} : std::vector<std::string>{}});
  }
  int64_t bad = 0;
  for (const auto& [m, n] : bad_modes) bad += n > 0;
  s.invariant_results.push_back(
      {"DIFF-TRACE", "the engine's normalized trace equals MAF's, up to documented deviations",
       static_cast<int64_t>(modes.size()), bad});
  s.runs = static_cast<int64_t>(modes.size());
  report->runs += s.runs;
  report->scenarios.push_back(std::move(s));
}

// One mode of one file in one execution: both traces and their differences; the number of
// undocumented ones, or -1 after printing why a side could not give its trace.
int CompareOne(const DifferentialArgs& a, const std::string& text, const scenarios::TraceMode& mode,
               pd::MafExecution execution) {
  std::vector<std::string> args{"--execution", pd::ExecutionName(execution)};
  if (mode.kind != scenarios::TraceMode::kRun) {
    args.push_back(mode.kind == scenarios::TraceMode::kRestore ? "--restore" : "--resume");
    args.push_back(std::to_string(mode.checkpoint));
  }
  // A restore or resume inherits what happened in the run before its checkpoint; a mode the
  // engine refuses is an error line, as in the whole run (EngineModeTrace).
  auto engine_run = pd::EngineModeTrace(text, a.workflow, {});
  if (!engine_run.ok()) {
    UsageError(engine_run.status().message());
    return -1;
  }
  auto engine = pd::EngineModeTrace(text, a.workflow, mode);
  if (!engine.ok()) {
    UsageError(engine.status().message());
    return -1;
  }
  auto maf = pd::RunMaf(a.maf, a.workflow, args);
  const std::string title = mode.ToString() + ", " + pd::ExecutionName(execution);
  if (!maf.ok() && maf.status().message().find("the run wrote checkpoints") != std::string::npos) {
    // MAF's run did not write this checkpoint (the whole run reports the mode missing in MAF, or
    // under OffThread an error line): an error line, compared as the whole run compares it.
    maf = std::vector<Json>{Json{{"line", "begin"}, {"mode", mode.ToString()}},
                            Json{{"line", "error"}, {"message", maf.status().message()}}};
  }
  if (!maf.ok()) {
    UsageError(maf.status().message());
    return -1;
  }
  std::printf("== MAF (%s)\n", title.c_str());
  for (const Json& l : *maf) std::printf("%s\n", l.dump().c_str());
  std::printf("== engine (%s)\n", mode.ToString().c_str());
  for (const Json& l : *engine) std::printf("%s\n", l.dump().c_str());
  if (mode.kind == scenarios::TraceMode::kRun) engine_run->clear();
  int undocumented = 0;
  std::printf("== differences (%s)\n", title.c_str());
  for (const pd::TraceDifference& d : pd::CompareTraces(*maf, *engine, *engine_run, execution)) {
    undocumented += d.deviation.empty();
    std::printf("%s at %s [%s]: MAF %s, engine %s\n", d.kind.c_str(), d.where.c_str(),
                d.deviation.empty() ? "UNDOCUMENTED" : d.deviation.c_str(), d.maf.dump().c_str(),
                d.engine.dump().c_str());
  }
  std::printf("%d undocumented\n", undocumented);
  return undocumented;
}

int RunSingle(const DifferentialArgs& a) {
  auto text = ReadText(a.workflow);
  if (!text.ok()) return UsageError(text.status().message());
  auto mode = scenarios::TraceMode::Parse(a.mode.empty() ? "run" : a.mode);
  if (!mode.ok()) return UsageError(mode.status().message());
  auto executions = Executions(a.execution);
  if (!executions.ok()) return UsageError(executions.status().message());
  int undocumented = 0;
  for (pd::MafExecution e : *executions) {
    const int n = CompareOne(a, *text, *mode, e);
    if (n < 0) return kExitUsage;
    undocumented += n;
  }
  return undocumented == 0 ? kExitOk : kExitViolation;
}

// The shipped scenarios of `dir` (*.json, sorted by path): file, text.
Result<std::vector<std::pair<std::string, std::string>>> ShippedScenarios(const std::string& dir) {
  std::error_code ec;
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json") paths.push_back(e.path());
  }
  if (ec) return Status::InvalidArgument(dir + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  std::vector<std::pair<std::string, std::string>> out;
  for (const fs::path& p : paths) {
    SF_ASSIGN_OR_RETURN(std::string text, ReadText(p.string()));
    out.push_back({p.string(), std::move(text)});
  }
  return out;
}

// The deviation table with each entry's occurrences per execution ("name (execution)" counts).
Json DeviationsJson(const std::vector<pd::MafExecution>& executions,
                    std::map<std::string, int>* by_deviation) {
  Json deviations = Json::array();
  for (const pd::Deviation& d : pd::Deviations()) {
    Json occurrences = Json::object();
    for (pd::MafExecution e : executions) {
      const char* name = pd::ExecutionName(e);
      occurrences[name] = (*by_deviation)[std::string(d.name) + " (" + name + ")"];
    }
    deviations.push_back(Json{{"name", d.name},
                              {"reason", d.reason},
                              {"accounts", d.accounts},
                              {"occurrences", occurrences}});
  }
  return deviations;
}

int RunAll(const DifferentialArgs& a) {
  if (a.out.empty()) return UsageError("--out DIR is required (or --workflow FILE to replay one)");
  auto executions = Executions(a.execution);
  if (!executions.ok()) return UsageError(executions.status().message());
  if (Status s = CheckOutDir(a.out); !s.ok()) return UsageError(s.message());
  std::error_code ec;
  if (!fs::exists(a.maf, ec)) {
    return UsageError("maf-runner not found at " + a.maf +
                      "; build it with `dotnet build maf -c Release` (needs the .NET 10 SDK), or "
                      "name it with --maf PATH");
  }
  auto shipped = ShippedScenarios(a.scenarios);
  if (!shipped.ok()) return UsageError(shipped.status().message());
  std::vector<std::pair<std::string, std::string>> files = *shipped;  // file, text
  fs::create_directories(fs::path(a.out) / "workflows", ec);
  // Generated workflows are written before they run, so a replay command always names a file.
  const fs::path scratch = fs::path(a.out) / "workflows";
  std::vector<std::string> generated;
  for (int i = 0; i < a.workflows; ++i) {
    const std::string text = pd::GenerateWorkflow(a.seed, i);
    const fs::path p =
        scratch / ("gen-" + std::to_string(a.seed) + "-" + std::to_string(i) + ".json");
    std::ofstream(p) << text;
    files.push_back({p.string(), text});
    generated.push_back(p.string());
  }
  reports::Report report;
  report.command = reports::ShellJoin({"stepfault", "differential"});
  report.seed = a.seed;
  report.profile = "maf-compat";
  Json differences = Json::array();
  std::map<std::string, int> by_kind, by_deviation;
  int undocumented = 0, checkpoints = 0, modes = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [file, text] : files) {
    const int before = undocumented;
    size_t found = 0;
    for (pd::MafExecution e : *executions) {
      pd::WorkflowComparison w = pd::CompareWorkflow(a.maf, file, text, e);
      checkpoints += w.checkpoints;
      modes += w.modes;
      found += w.differences.size();
      Record(a, w, &report, &differences, &by_kind, &by_deviation, &undocumented);
      std::fprintf(stderr, "differential: %s (%s): %d checkpoints, %d modes, %zu differences%s\n",
                   w.name.c_str(), pd::ExecutionName(e), w.checkpoints, w.modes,
                   w.differences.size(), undocumented > before ? " (UNDOCUMENTED)" : "");
    }
    const bool is_generated =
        std::find(generated.begin(), generated.end(), file) != generated.end();
    if (is_generated && undocumented == before && found == 0) fs::remove(file, ec);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const Json deviations = DeviationsJson(*executions, &by_deviation);
  Json execution_names = Json::array();
  for (pd::MafExecution e : *executions) execution_names.push_back(pd::ExecutionName(e));
  Json summary{{"workflows", files.size()},
               {"shipped", shipped->size()},
               {"executions", execution_names},
               {"generated", a.workflows},
               {"seed", a.seed},
               {"checkpoints", checkpoints},
               {"modes", modes},
               {"undocumented", undocumented},
               {"by_kind", by_kind},
               {"deviations", deviations},
               {"differences", differences}};
  std::ofstream(fs::path(a.out) / "differential.json") << summary.dump(2) << "\n";
  if (Status s = WriteReports(a.out, report); !s.ok()) return UsageError(s.message());
  std::printf(
      "differential: %zu workflows (%zu shipped, %d generated, seed %llu), MAF %s: %d "
      "checkpoints, %d traces compared in %.1f s\n",
      files.size(), shipped->size(), a.workflows, static_cast<unsigned long long>(a.seed),
      execution_names.dump().c_str(), checkpoints, modes, seconds);
  for (const auto& [kind, n] : by_kind) std::printf("  %-40s %d\n", kind.c_str(), n);
  for (const auto& [name, n] : by_deviation) {
    std::printf("  documented deviation %-36s %d\n", name.c_str(), n);
  }
  std::printf("%d undocumented differences; details in %s/differential.json\n", undocumented,
              a.out.c_str());
  return undocumented == 0 ? kExitOk : kExitViolation;
}

}  // namespace

void AddDifferentialCommand(CLI::App& app, CommandState& state) {
  auto args = std::make_shared<DifferentialArgs>();
  const std::string root = Root();
  args->maf = (fs::path(root) / "maf/artifacts/bin/Runner/release/maf-runner").string();
  args->scenarios = (fs::path(root) / "scenarios/json/examples").string();
  auto* cmd = app.add_subcommand(
      "differential", "compare the engine (maf-compat) with the real MAF 1.28, trace by trace");
  AddUnsignedOption(cmd, "--workflows", &args->workflows, "seeded random workflows", 0, 100000);
  AddUnsignedOption(cmd, "--seed", &args->seed, "generator seed", 0, UINT64_MAX);
  cmd->add_option("--maf", args->maf, "the maf-runner program (dotnet build maf -c Release)");
  cmd->add_option("--scenarios", args->scenarios, "directory of shipped JSON scenarios");
  cmd->add_option("--out", args->out, "directory for the reports");
  cmd->add_option("--workflow", args->workflow, "compare only this JSON scenario file");
  cmd->add_option("--mode", args->mode, "with --workflow: run, restore:N or resume:N");
  cmd->add_option("--execution", args->execution,
                  "MAF's execution: lockstep, offthread or both (default: both)");
  cmd->callback([&state, args] {
    state.run = [args] { return args->workflow.empty() ? RunAll(*args) : RunSingle(*args); };
  });
}

}  // namespace stepfault::cli
