// `stepfault blackbox record|init|explore|replay|conformance`: black-box mode (docs/blackbox.md)
// from the command line. Exit codes as every command: 0 every invariant held, 1 a violation, 2 bad
// usage or input (nothing outside --out/--keep and the scratch directory changes), 3 coverage below
// --min-coverage, 5 inconclusive: the recording is incomplete (record still writes the trace and
// the window list; explore writes the reports, verdict inconclusive, without exploring; replay runs
// no plan).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "engine/env.h"
#include "faults/blackbox/crash_catalogue.h"
#include "faults/blackbox/plan.h"
#include "faults/blackbox/trace.h"
#include "properties/blackbox/explore.h"
#include "properties/blackbox/session.h"
#include "properties/process_guard.h"
#include "scenarios/blackbox/spec.h"
#include "scenarios/invariants.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"
#include "tools/cli/progress.h"
#include "tools/cli/shard_env.h"

namespace stepfault::cli {
namespace {

namespace fs = std::filesystem;
namespace bb = properties::blackbox;

struct BlackboxArgs {
  std::string spec, out, plan, keep, shard, trace;
  std::string name, dir;                                // init
  std::vector<std::string> setup, run, recover, check;  // init
  std::vector<std::string> actions;
  std::vector<std::string> hazards, entries;  // conformance
  std::string fs_model = "posix";             // explore, replay: the persistence model
  int depth = 1, jobs = 1;
  uint64_t seed = 0;
  double min_coverage = 0;
  int64_t depth2_max_pairs = 200;
  bool quiet = false;
};

// --fs-model's model; kInvalidArgument naming the valid ones.
Result<faults::blackbox::PersistenceModel> FsModel(const BlackboxArgs& a) {
  Result<faults::blackbox::PersistenceModel> m =
      faults::blackbox::ParsePersistenceModel(a.fs_model);
  if (!m.ok()) return Status::InvalidArgument("--fs-model: " + m.status().message());
  return m;
}

Result<scenarios::blackbox::Spec> Load(const BlackboxArgs& a) {
  if (a.spec.empty()) return Status::InvalidArgument("--spec FILE is required");
  return scenarios::blackbox::LoadSpec(a.spec);
}

// The file that marks a scratch directory as made by stepfault (so a later run may replace it).
constexpr char kScratchMark[] = ".stepfault-scratch";

// A fresh scratch directory below `base`. Only a scratch directory stepfault made (it holds
// kScratchMark) is removed first; an empty one is taken; anything else is the user's and refused,
// untouched (issue 30: an existing DIR/scratch was deleted, even by a rejected run).
Result<std::string> ClaimScratch(const std::string& base) {
  const fs::path dir = fs::absolute(fs::path(base) / "scratch");
  std::error_code ec;
  if (fs::exists(dir, ec)) {
    const bool ours = fs::exists(dir / kScratchMark, ec);
    if (!ours && (!fs::is_directory(dir, ec) || !fs::is_empty(dir, ec))) {
      return Status::InvalidArgument(
          (fs::path(base) / "scratch").string() +
          " exists and was not made by stepfault; stepfault fills and replaces that directory, so "
          "move it away or give another --out");
    }
    fs::remove_all(dir, ec);
    if (ec) return Status::IOError("cannot replace " + dir.string() + ": " + ec.message());
  }
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir.string() + ": " + ec.message());
  std::ofstream(dir / kScratchMark) << "made by stepfault: replaced by its next run\n";
  return dir.string();
}

// Prints what an incomplete recording did not see ("INCOMPLETE TRACE: <reason>" each, then the
// INCONCLUSIVE line with `consequence`); true when there was anything to print.
bool PrintIncomplete(const std::vector<std::string>& incomplete, const char* consequence) {
  for (const std::string& why : incomplete) std::printf("INCOMPLETE TRACE: %s\n", why.c_str());
  if (incomplete.empty()) return false;
  std::printf("INCONCLUSIVE: the recording is incomplete (%zu reasons above); %s (exit %d)\n",
              incomplete.size(), consequence, kExitInconclusive);
  return true;
}

int RunRecord(const BlackboxArgs& a) {
  if (!a.trace.empty()) {  // validate an existing trace file
    Result<faults::blackbox::Trace> t = faults::blackbox::ReadTraceFile(a.trace);
    if (!t.ok()) return UsageError(t.status().message());
    std::printf("%s: %zu records, %zu windows\n", a.trace.c_str(), t->records.size(),
                faults::blackbox::WindowsOf(*t).size());
    return kExitOk;
  }
  Result<scenarios::blackbox::Spec> spec = Load(a);
  if (!spec.ok()) return UsageError(spec.status().message());
  if (a.out.empty()) return UsageError("--out DIR is required");
  if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
  Result<std::string> scratch = ClaimScratch(a.out);
  if (!scratch.ok()) return UsageError(scratch.status().message());
  std::error_code ec;
  bb::SessionConfig config{bb::FindPreload(),
                           fs::read_symlink("/proc/self/exe", ec).parent_path().string(), *scratch,
                           a.seed};
  Result<bb::Recording> rec =
      bb::Record(*spec, config, (fs::path(config.scratch) / "record").string());
  if (!rec.ok()) return UsageError(rec.status().message());
  fs::copy_file(fs::path(config.scratch) / "record" / "run.sftrace",
                fs::path(a.out) / "trace.sftrace", fs::copy_options::overwrite_existing, ec);
  std::FILE* list = std::fopen((fs::path(a.out) / "windows.txt").c_str(), "w");
  for (const auto& w : rec->windows) {
    if (list) std::fprintf(list, "%s\n", w.id.c_str());
  }
  if (list) std::fclose(list);
  std::printf(
      "recorded %zu records, %zu windows into %s/trace.sftrace (window list: %s/windows.txt)\n",
      rec->trace.records.size(), rec->windows.size(), a.out.c_str(), a.out.c_str());
  for (const std::string& n : rec->notes) std::printf("note: %s\n", n.c_str());
  const std::string acked = bb::AckedBefore(rec->trace, rec->trace.records.size(), rec->ack);
  std::ofstream(fs::path(a.out) / "acknowledged.txt", std::ios::binary) << acked;
  std::printf("acknowledged on %s: %zu bytes (%s/acknowledged.txt)\n",
              rec->ack == bb::AckChannel::kFile ? "$STEPFAULT_ACK_FILE" : "standard output",
              acked.size(), a.out.c_str());
  for (const std::string& w : rec->warnings) std::printf("WARNING: %s\n", w.c_str());
  if (PrintIncomplete(rec->incomplete, "exploring it would be inconclusive"))
    return kExitInconclusive;
  return kExitOk;
}

int RunBbExplore(const BlackboxArgs& a) {
  Result<scenarios::blackbox::Spec> spec = Load(a);
  if (!spec.ok()) return UsageError(spec.status().message());
  if (Status out = CheckOutDir(a.out); !out.ok()) return UsageError(out.message());
  Result<faults::blackbox::PersistenceModel> model = FsModel(a);
  if (!model.ok()) return UsageError(model.status().message());
  bb::ExploreOptions o;
  o.fs_model = *model;
  for (const std::string& act : a.actions) {
    const auto& all = faults::blackbox::AllActions();
    if (std::find(all.begin(), all.end(), act) == all.end())
      return UsageError("unknown action '" + act +
                        "'; the actions are: crash, powerloss, reorder, ioerror, ioerror:ENOSPC");
  }
  o.actions = a.actions;
  o.depth = a.depth;
  o.seed = a.seed;
  o.jobs = a.jobs;
  o.depth2_max_pairs = a.depth2_max_pairs;
  // --shard, else the CI system's convention, as `explore` (tools/cli/shard_env.h).
  auto shard = ResolveShard(a.shard);
  if (!shard.ok()) return UsageError(shard.status().message());
  o.shard_index = shard->index;
  o.shard_count = shard->count;
  const std::string shard_note = shard->EnvironmentNote();
  if (!shard_note.empty()) std::fprintf(stderr, "blackbox explore: %s\n", shard_note.c_str());
  Result<std::string> scratch = ClaimScratch(a.out);
  if (!scratch.ok()) return UsageError(scratch.status().message());
  o.scratch = *scratch;
  // One bar over the whole exploration's runs (stderr; nothing with --quiet).
  std::unique_ptr<Progress> progress;
  o.progress = [&](int64_t done, int64_t total) {
    if (!progress) {
      progress = std::make_unique<Progress>(stderr, StderrIsTerminal(), a.quiet,
                                            "blackbox " + spec->name, total);
      progress->set_unit("runs");
    }
    progress->Advance(done - progress->done());
  };
  Result<bb::Exploration> result = bb::ExploreBlackBox(*spec, o);
  if (progress) progress->Finish();
  if (!result.ok()) return UsageError(result.status().message());
  reports::Report& report = result->report;
  // The exploration's identity, without --out, --jobs and --shard, so the shards of one
  // exploration merge with `stepfault report merge`.
  std::string canonical = "stepfault blackbox explore --spec " + a.spec;
  if (!a.actions.empty()) {
    canonical += " --actions ";
    for (size_t i = 0; i < a.actions.size(); ++i) canonical += (i ? "," : "") + a.actions[i];
  }
  canonical += " --depth " + std::to_string(a.depth) + " --seed " + std::to_string(a.seed);
  if (a.depth == 2) canonical += " --depth2-max-pairs " + std::to_string(a.depth2_max_pairs);
  if (*model != faults::blackbox::PersistenceModel::kPosix)
    canonical += " --fs-model " + a.fs_model;
  report.command = canonical;
  report.seed = a.seed;
  report.profile = "blackbox";
  report.depth = a.depth;
  report.shard = std::to_string(o.shard_index) + "/" + std::to_string(o.shard_count);
  report.min_coverage_pct = a.min_coverage;
  if (Status s = WriteReports(a.out, report); !s.ok()) return UsageError(s.message());
  PrintSummary(stdout, report, a.out);
  if (!shard_note.empty()) {
    std::printf("%s\n", shard->SummaryNote().c_str());
  }
  for (const std::string& n : result->notes) std::printf("note: %s\n", n.c_str());
  std::printf("%lld crash-state cells -> %lld distinct states\n",
              static_cast<long long>(result->crash_cells),
              static_cast<long long>(result->distinct_states));
  for (const bb::Shrunk& m : result->shrunk) {
    std::printf(
        "shrunk: %s (%s) needs %d fault(s); minimal plan '%s' (the smallest of %lld violating "
        "plans: fewer faults, then earlier windows, then simpler actions)\n  replay: %s\n",
        m.invariant.c_str(), m.failure.c_str(), m.faults, m.plan.c_str(),
        static_cast<long long>(m.candidates), m.replay.c_str());
    if (!m.holds_under.empty())
      std::printf("  holds under: %s\n", reports::HoldsUnderText(m.holds_under).c_str());
  }
  if (result->ioerror_cells > 0) {
    std::printf(
        "%lld ioerror cells (run live) -> %lld distinct resulting states (dedup ratio %.2f)\n",
        static_cast<long long>(result->ioerror_cells),
        static_cast<long long>(result->ioerror_distinct),
        static_cast<double>(result->ioerror_distinct) / static_cast<double>(result->ioerror_cells));
  }
  return reports::VerdictExitCode(reports::ComputeVerdict(report));
}

// `blackbox init`: a first spec for a program, from the commands the user already runs. The spec
// is checked by the same parser `explore` uses before it is written, and an existing file is never
// replaced. JSON has no comments, so the guide to each field is printed beside it.
int RunBbInit(const BlackboxArgs& a) {
  std::error_code ec;
  if (fs::exists(a.out, ec))
    return UsageError("--out " + a.out + " exists; give a new file name (nothing was written)");
  std::string name = a.name;
  if (name.empty()) name = fs::path(a.out).stem().string();
  nlohmann::ordered_json spec = {{"name", name}, {"dir", a.dir}};  // in the schema's order
  if (!a.setup.empty()) spec["setup"] = a.setup;
  spec["run"] = a.run;
  if (!a.recover.empty()) spec["recover"] = a.recover;
  if (!a.check.empty()) spec["check"] = a.check;
  const std::string text = spec.dump(2) + "\n";
  Result<scenarios::blackbox::Spec> parsed = scenarios::blackbox::ParseSpec(text, a.out);
  if (!parsed.ok()) return UsageError(parsed.status().message() + " (nothing was written)");
  const fs::path out(a.out);
  const std::string parent = out.has_parent_path() ? out.parent_path().string() : ".";
  if (Status w = WriteFileAtomically(PosixEnv(), parent, out.filename().string(), text); !w.ok())
    return UsageError("cannot write " + a.out + ": " + w.message());
  std::printf("wrote %s:\n%s", a.out.c_str(), text.c_str());
  std::printf(
      "\nWhat each field does (docs/blackbox.md has the whole schema):\n"
      "  dir      the directory the program keeps its state in, relative to the working "
      "directory;\n"
      "           every crash state is a copy of it, and the commands see its path as "
      "$STEPFAULT_DIR\n"
      "  setup    run once, fault-free, before the recording (create the initial state)\n"
      "  run      the workload, recorded; every write, fsync, rename and exit in it is a window\n"
      "  recover  what a restarted host does after a crash (default: nothing), run in up to\n"
      "           lives_max lives until it exits 0\n"
      "  check    after recovery: exit 0 when the state is right. $STEPFAULT_ACKED names a file "
      "of\n"
      "           what the program printed before the fault: what it acknowledged must be there\n"
      "  also: sql_checks (queries with expected rows), env, timeout_s, lives_max, "
      "no_stray_files\n");
  if (a.check.empty()) {
    std::printf(
        "\nnote: no --check: only liveness (recovery completes) and, if the program leaves a\n"
        "SQLite database, its integrity are checked. Add a \"check\" command that fails when an\n"
        "acknowledged result is missing or the state is damaged.\n");
  }
  std::printf(
      "\nNext:\n  stepfault blackbox record  --spec %s --out rec     # the windows of the run\n"
      "  stepfault blackbox explore --spec %s --out report  # every action at every window\n",
      a.out.c_str(), a.out.c_str());
  return kExitOk;
}

int RunBbReplay(const BlackboxArgs& a) {
  Result<scenarios::blackbox::Spec> spec = Load(a);
  if (!spec.ok()) return UsageError(spec.status().message());
  if (a.plan.empty())
    return UsageError("--plan PLAN is required, e.g. powerloss@fs.write[state.json]#1");
  Result<faults::blackbox::PersistenceModel> model = FsModel(a);
  if (!model.ok()) return UsageError(model.status().message());
  std::error_code ec;
  std::string base =
      (fs::temp_directory_path() / ("stepfault-bb-replay-" + std::to_string(getpid()))).string();
  if (!a.keep.empty() && fs::exists(a.keep) && !fs::is_empty(a.keep, ec))
    return UsageError("--keep " + a.keep + " exists and is not empty; give a new directory");
  Result<bb::ReplayResult> r = bb::ReplayBlackBox(
      *spec, a.plan, a.seed, (fs::path(base) / "scratch").string(), a.keep, *model);
  fs::remove_all(base, ec);
  if (!r.ok()) return UsageError(r.status().message());
  std::printf("persistence model: %s\n", a.fs_model.c_str());
  for (const std::string& l : r->log) std::printf("%s\n", l.c_str());
  if (PrintIncomplete(r->inconclusive, "the plan was not run")) return kExitInconclusive;
  for (const auto& f : r->failures)
    std::printf("VIOLATION %s: %s\n", f.invariant.c_str(), f.message.c_str());
  if (r->failures.empty()) std::printf("every check held after %s\n", a.plan.c_str());
  return r->failures.empty() ? kExitOk : kExitViolation;
}

// `blackbox conformance`: the crash model's self-check. The crash-state catalogue the binary embeds
// is run against the builder, with the named hazards on (the mutants blackbox:NAME): every
// catalogued state must be built at every window, and no other (INV-BB-MODEL).
int RunBbConformance(const BlackboxArgs& a) {
  namespace fb = faults::blackbox;
  fb::CrashModelOptions options;
  std::string on;
  for (const std::string& h : a.hazards) {
    const std::string bare = h.starts_with("blackbox:") ? h.substr(9) : h;
    if (Status s = options.Enable(bare); !s.ok()) return UsageError(s.message());
    on += (on.empty() ? "" : ", ") + bare;
  }
  Result<std::vector<fb::CatalogueEntry>> all = fb::ParseCatalogue(fb::CrashCatalogueText());
  if (!all.ok()) {
    std::fprintf(stderr, "blackbox conformance: the embedded catalogue: %s\n",
                 all.status().message().c_str());
    return kExitInternal;
  }
  std::vector<fb::CatalogueEntry> chosen;
  for (const std::string& name : a.entries) {
    auto it = std::find_if(all->begin(), all->end(),
                           [&](const fb::CatalogueEntry& e) { return e.name == name; });
    if (it == all->end()) {
      std::string names;
      for (const fb::CatalogueEntry& e : *all) names += "\n  " + e.name;
      return UsageError("unknown catalogue entry '" + name + "'; the entries are:" + names);
    }
    chosen.push_back(*it);
  }
  if (a.entries.empty()) chosen = *all;
  Result<fb::CatalogueRun> run = fb::RunCatalogue(chosen, fb::BuilderWith(options));
  if (!run.ok()) {
    std::fprintf(stderr, "blackbox conformance: %s\n", run.status().message().c_str());
    return kExitInternal;
  }
  // Each entry runs under its own persistence model: how many under each.
  std::string by_model;
  for (fb::PersistenceModel m : fb::AllPersistenceModels()) {
    const auto n = std::count_if(chosen.begin(), chosen.end(),
                                 [m](const fb::CatalogueEntry& e) { return e.model == m; });
    if (n > 0)
      by_model += (by_model.empty() ? "" : ", ") + std::string(fb::PersistenceModelName(m)) + " " +
                  std::to_string(n);
  }
  std::printf(
      "crash model conformance (hazards: %s): %lld entries (%s), %lld windows, %lld catalogued "
      "states\n",
      on.empty() ? "none" : on.c_str(), static_cast<long long>(run->entries), by_model.c_str(),
      static_cast<long long>(run->windows), static_cast<long long>(run->states));
  std::set<std::string> failed;
  for (const fb::CatalogueDisagreement& d : run->disagreements) {
    std::printf("VIOLATION %s: %s\n", scenarios::kInvBbModel, d.message.c_str());
    failed.insert(d.entry);
  }
  if (run->disagreements.empty()) {
    std::printf("%s holds: every catalogued state is built, and no other\n",
                scenarios::kInvBbModel);
    return kExitOk;
  }
  std::printf("%s violated: %zu disagreements in %zu of %lld entries (first: %s)\n",
              scenarios::kInvBbModel, run->disagreements.size(), failed.size(),
              static_cast<long long>(run->entries), run->disagreements.front().entry.c_str());
  return kExitViolation;
}

std::string FsModelHelp() {
  std::string names;
  for (faults::blackbox::PersistenceModel m : faults::blackbox::AllPersistenceModels())
    names += std::string(names.empty() ? "" : "|") + std::string(PersistenceModelName(m));
  return "persistence model of the crash states: " + names + " (default posix)";
}

}  // namespace

void AddBlackboxCommand(CLI::App& app, CommandState& state) {
  auto args = std::make_shared<BlackboxArgs>();
  auto* bbc = app.add_subcommand(
      "blackbox", "put an unmodified program under every window (LD_PRELOAD recorder)");
  bbc->require_subcommand(1);
  auto* rec = bbc->add_subcommand("record", "record the fault-free run: trace and window list");
  rec->add_option("--spec", args->spec, "black-box spec file (docs/blackbox.md)");
  rec->add_option("--out", args->out, "directory for trace.sftrace and windows.txt");
  rec->add_option("--check-trace", args->trace, "only validate an existing trace file");
  rec->callback([&state, args] {
    state.run = [args] {
      properties::InstallProcessGuard();
      return RunRecord(*args);
    };
  });
  auto* init = bbc->add_subcommand("init", "write a first spec for a program from its commands");
  init->add_option("--dir", args->dir, "the directory the program keeps its state in (relative)")
      ->required();
  init->add_option("--run", args->run, "the workload command (repeatable)")->required();
  init->add_option("--setup", args->setup, "a command that creates the initial state (repeatable)");
  init->add_option("--recover", args->recover, "what a restarted host runs (repeatable)");
  init->add_option("--check", args->check,
                   "exits 0 when the recovered state is right (repeatable)");
  init->add_option("--name", args->name, "the spec's name (default: the --out file's stem)");
  init->add_option("--out", args->out, "the spec file to write (must not exist)")->required();
  init->callback([&state, args] { state.run = [args] { return RunBbInit(*args); }; });
  auto* ex = bbc->add_subcommand("explore", "every action at every window, recovered and checked");
  ex->add_option("--spec", args->spec, "black-box spec file")->required();
  ex->add_option("--actions", args->actions, "crash,powerloss,reorder,ioerror,ioerror:ENOSPC")
      ->delimiter(',');
  AddUnsignedOption(ex, "--depth", &args->depth, "1, or 2 for a crash in the first recovery", 1, 2);
  AddUnsignedOption(ex, "--seed", &args->seed, "root seed (tearing)", 0, UINT64_MAX);
  AddUnsignedOption(ex, "--jobs", &args->jobs, "worker processes", 1, 64);
  ex->add_option("--shard", args->shard,
                 "run shard I of N (I/N); without it, GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS or "
                 "JOB_COMPLETION_INDEX/STEPFAULT_TOTAL_SHARDS");
  AddPercentOption(ex, "--min-coverage", &args->min_coverage, "exit 3 below PCT");
  AddUnsignedOption(ex, "--depth2-max-pairs", &args->depth2_max_pairs, "cap on depth-2 pairs", 1,
                    10000000);
  ex->add_flag("--quiet", args->quiet, "no progress output");
  ex->add_option("--fs-model", args->fs_model, FsModelHelp());
  ex->add_option("--out", args->out, "directory for the reports")->required();
  ex->callback([&state, args] {
    state.run = [args] {
      properties::InstallProcessGuard();
      return RunBbExplore(*args);
    };
  });
  auto* rp = bbc->add_subcommand("replay", "replay one plan and say what broke");
  rp->add_option("--spec", args->spec, "black-box spec file")->required();
  rp->add_option("--plan", args->plan, "e.g. powerloss@fs.write[state.json]#1")->required();
  AddUnsignedOption(rp, "--seed", &args->seed, "root seed (tearing)", 0, UINT64_MAX);
  rp->add_option("--keep", args->keep, "keep the crash state and the recovered directory here");
  rp->add_option("--fs-model", args->fs_model, FsModelHelp());
  rp->callback([&state, args] {
    state.run = [args] {
      properties::InstallProcessGuard();
      return RunBbReplay(*args);
    };
  });
  auto* cf = bbc->add_subcommand(
      "conformance", "the crash model's self-check: its catalogue of crash states, built exactly");
  std::string hazard_names;
  for (const auto& h : faults::blackbox::CrashModelHazards())
    hazard_names += (hazard_names.empty() ? "" : ", ") + h.name;
  cf->add_option("--hazard", args->hazards,
                 "switch a crash-model hazard on (repeatable): " + hazard_names);
  cf->add_option("--entry", args->entries, "only this catalogue entry (repeatable)");
  cf->callback([&state, args] { state.run = [args] { return RunBbConformance(*args); }; });
}

}  // namespace stepfault::cli
