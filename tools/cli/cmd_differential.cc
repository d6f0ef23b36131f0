// `stepfault differential`: Stepfault's engine (maf-compat) against the real MAF 1.28 run by
// maf-runner, trace against trace (docs/engine-semantics.md §11). Every shipped JSON scenario and
// --workflows seeded random ones are compared in the fault-free run and in a live restore and a
// fresh resume from every checkpoint. --workflow FILE [--mode M] compares one file (the replay
// command every difference carries) and prints both traces of M. Writes into --out the report set
// (report.json, report.html, summary.md, junit.xml: one scenario per workflow, one window per
// mode, one violation per undocumented difference), differential.json (every difference, with its
// kind and the deviation that documents it) and workflows/<name>.json for each generated workflow
// that differs. Exit 0 when no difference is undocumented, 1 otherwise, 2 on bad input (maf-runner
// missing, a scenario that does not parse).
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
};

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

std::string Replay(const DifferentialArgs& a, const std::string& file, const std::string& mode) {
  return reports::ShellJoin(
      {"stepfault", "differential", "--workflow", file, "--mode", mode, "--maf", a.maf});
}

// One workflow's differences as printed lines and report entries.
void Record(const DifferentialArgs& a, const pd::WorkflowComparison& w, reports::Report* report,
            Json* differences, std::map<std::string, int>* by_kind,
            std::map<std::string, int>* by_deviation, int* undocumented) {
  reports::ScenarioReport s;
  s.name = w.name;
  s.description = w.file;
  s.actions = {"compare"};
  s.invariants = {"DIFF-TRACE"};
  std::map<std::string, int> bad_modes;
  for (const auto& [mode, d] : w.differences) {
    ++(*by_kind)[d.kind];
    differences->push_back(Json{{"workflow", w.name},
                                {"file", w.file},
                                {"mode", mode},
                                {"kind", d.kind},
                                {"where", d.where},
                                {"maf", d.maf},
                                {"engine", d.engine},
                                {"deviation", d.deviation.empty() ? Json() : Json(d.deviation)}});
    if (!d.deviation.empty()) {
      ++(*by_deviation)[d.deviation];
      continue;
    }
    ++*undocumented;
    ++bad_modes[mode];
    reports::Violation v;
    v.scenario = w.name;
    v.invariant = "DIFF-TRACE";
    v.window = mode;
    v.action = "compare";
    v.replay = Replay(a, w.file, mode);
    v.message = d.kind + " at " + d.where + ": MAF " + d.maf.dump() + ", engine " + d.engine.dump();
    report->violations.push_back(std::move(v));
  }
  if (!w.error.empty()) {
    ++*undocumented;
    ++(*by_kind)["run failed"];
    report->violations.push_back(
        {w.name, "DIFF-TRACE", "run", "compare", "", Replay(a, w.file, "run"), w.error, "", 0});
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

int RunSingle(const DifferentialArgs& a) {
  auto text = ReadText(a.workflow);
  if (!text.ok()) return UsageError(text.status().message());
  const std::string mode_text = a.mode.empty() ? "run" : a.mode;
  auto mode = scenarios::TraceMode::Parse(mode_text);
  if (!mode.ok()) return UsageError(mode.status().message());
  std::vector<std::string> args;
  if (mode->kind != scenarios::TraceMode::kRun) {
    args = {mode->kind == scenarios::TraceMode::kRestore ? "--restore" : "--resume",
            std::to_string(mode->checkpoint)};
  }
  auto maf = pd::RunMaf(a.maf, a.workflow, args);
  if (!maf.ok()) return UsageError(maf.status().message());
  auto engine =
      scenarios::EngineNormalizedTrace(*text, a.workflow, *mode, EngineProfile::MafCompat());
  if (!engine.ok()) return UsageError(engine.status().message());
  std::printf("== MAF (%s)\n", mode_text.c_str());
  for (const Json& l : *maf) std::printf("%s\n", l.dump().c_str());
  std::printf("== engine (%s)\n", mode_text.c_str());
  for (const Json& l : *engine) std::printf("%s\n", l.dump().c_str());
  int undocumented = 0;
  // A restore or resume inherits what happened in the run before its checkpoint.
  std::vector<Json> engine_run;
  if (mode->kind != scenarios::TraceMode::kRun) {
    auto run = scenarios::EngineNormalizedTrace(*text, a.workflow, scenarios::TraceMode{},
                                                EngineProfile::MafCompat());
    if (!run.ok()) return UsageError(run.status().message());
    engine_run = std::move(*run);
  }
  std::printf("== differences\n");
  for (const pd::TraceDifference& d : pd::CompareTraces(*maf, *engine, engine_run)) {
    undocumented += d.deviation.empty();
    std::printf("%s at %s [%s]: MAF %s, engine %s\n", d.kind.c_str(), d.where.c_str(),
                d.deviation.empty() ? "UNDOCUMENTED" : d.deviation.c_str(), d.maf.dump().c_str(),
                d.engine.dump().c_str());
  }
  std::printf("%d undocumented\n", undocumented);
  return undocumented == 0 ? kExitOk : kExitViolation;
}

int RunAll(const DifferentialArgs& a) {
  if (a.out.empty()) return UsageError("--out DIR is required (or --workflow FILE to replay one)");
  if (Status s = CheckOutDir(a.out); !s.ok()) return UsageError(s.message());
  std::error_code ec;
  if (!fs::exists(a.maf, ec)) {
    return UsageError("maf-runner not found at " + a.maf +
                      "; build it with `dotnet build maf -c Release` (needs the .NET 10 SDK), or "
                      "name it with --maf PATH");
  }
  std::vector<std::pair<std::string, std::string>> files;  // file, text
  std::vector<fs::path> shipped;
  for (const auto& e : fs::directory_iterator(a.scenarios, ec)) {
    if (e.path().extension() == ".json") shipped.push_back(e.path());
  }
  if (ec) return UsageError(a.scenarios + ": " + ec.message());
  std::sort(shipped.begin(), shipped.end());
  for (const fs::path& p : shipped) {
    auto text = ReadText(p.string());
    if (!text.ok()) return UsageError(text.status().message());
    files.push_back({p.string(), *text});
  }
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
    pd::WorkflowComparison w = pd::CompareWorkflow(a.maf, file, text);
    checkpoints += w.checkpoints;
    modes += w.modes;
    Record(a, w, &report, &differences, &by_kind, &by_deviation, &undocumented);
    const bool is_generated =
        std::find(generated.begin(), generated.end(), file) != generated.end();
    if (is_generated && undocumented == before && w.differences.empty()) fs::remove(file, ec);
    std::fprintf(stderr, "differential: %s: %d checkpoints, %d modes, %zu differences%s\n",
                 w.name.c_str(), w.checkpoints, w.modes, w.differences.size(),
                 undocumented > before ? " (UNDOCUMENTED)" : "");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  Json deviations = Json::array();
  for (const pd::Deviation& d : pd::Deviations()) {
    deviations.push_back(Json{{"name", d.name},
                              {"reason", d.reason},
                              {"accounts", d.accounts},
                              {"occurrences", by_deviation[d.name]}});
  }
  Json summary{{"workflows", files.size()},    {"shipped", shipped.size()},
               {"generated", a.workflows},     {"seed", a.seed},
               {"checkpoints", checkpoints},   {"modes", modes},
               {"undocumented", undocumented}, {"by_kind", by_kind},
               {"deviations", deviations},     {"differences", differences}};
  std::ofstream(fs::path(a.out) / "differential.json") << summary.dump(2) << "\n";
  if (Status s = WriteReports(a.out, report); !s.ok()) return UsageError(s.message());
  std::printf(
      "differential: %zu workflows (%zu shipped, %d generated, seed %llu), %d "
      "checkpoints, %d traces compared in %.1f s\n",
      files.size(), shipped.size(), a.workflows, static_cast<unsigned long long>(a.seed),
      checkpoints, modes, seconds);
  for (const auto& [kind, n] : by_kind) std::printf("  %-40s %d\n", kind.c_str(), n);
  for (const auto& [name, n] : by_deviation) {
    std::printf("  documented deviation %-24s %d\n", name.c_str(), n);
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
  cmd->callback([&state, args] {
    state.run = [args] { return args->workflow.empty() ? RunAll(*args) : RunSingle(*args); };
  });
}

}  // namespace stepfault::cli
