// Black-box exploration (see explore.h).
#include "properties/blackbox/explore.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

#include "faults/blackbox/plan.h"
#include "properties/blackbox/explore_internal.h"
#include "reports/shell_quote.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::blackbox {

// The scenario this file explores (scenarios/blackbox/spec.h).
using scenarios::blackbox::Spec;
namespace {

namespace fs = std::filesystem;
using faults::blackbox::CrashKind;
using faults::blackbox::CrashState;
using faults::blackbox::IsCrashLike;
using faults::blackbox::TraceWindow;
using Json = nlohmann::json;

// The invariants that apply: a spec without check commands has no INV-BB-CHECK, one without SQL
// checks no INV-BB-SQL, a program whose fault-free run leaves no SQLite database no
// INV-BB-INTEGRITY (the report shows them not applicable instead of "held" checks that checked
// nothing). The list comes from the spec and the fault-free run only, so every shard has the same
// one; a database only a crash leaves behind is still integrity-checked, and a failure is still a
// violation (listed, in its cell, in the verdict), only not a row of the invariant table.
std::vector<std::string> InvariantsOf(const Spec& spec, const scenarios::blackbox::Reference& ref) {
  std::vector<std::string> inv;
  if (!spec.check.empty()) inv.push_back(scenarios::kInvBbCheck);
  if (!spec.sql_checks.empty()) inv.push_back(scenarios::kInvBbSql);
  if (ref.has_database) inv.push_back(scenarios::kInvBbIntegrity);
  inv.push_back(scenarios::kInvLiveness);
  if (spec.no_stray_files) inv.push_back(scenarios::kInvBbStray);
  return inv;
}

}  // namespace

std::string FailureClass(const scenarios::blackbox::CheckFailure& failure) {
  std::string line = failure.message.substr(0, failure.message.find('\n'));
  std::string out;
  for (size_t i = 0; i < line.size() && out.size() < 160;) {
    size_t j = i;
    while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j]))) ++j;
    const std::string run = line.substr(i, j - i);
    const size_t digits = static_cast<size_t>(std::count_if(run.begin(), run.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    }));
    if (!run.empty() && (digits == run.size() || (run.size() >= 7 && digits > 0))) {
      out += '#';
      i = j;
    } else if (j > i) {
      out += run;
      i = j;
    } else {
      out += line[i++];
    }
  }
  // A list of numbers is one blank, however long: "rows present: 1 2" and "rows present: 1".
  static const std::regex kList("#(?:[ ,|]+#)+");
  return std::regex_replace(out, kList, "#");
}

namespace {

std::string ReplayCommand(const Spec& spec, const std::string& plan, uint64_t seed) {
  return "stepfault blackbox replay --spec " + reports::ShellQuote(spec.path) + " --plan " +
         reports::ShellQuote(plan) + (seed ? " --seed " + std::to_string(seed) : "");
}

// What a violation's reader needs of the acknowledgements: how many lines, and the last one.
std::string AckedSummary(const std::string& acked) {
  if (acked.empty()) return "nothing was acknowledged before the fault";
  std::string text = acked.back() == '\n' ? acked.substr(0, acked.size() - 1) : acked;
  const size_t lines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  std::string last = text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  if (last.size() > 80) last = last.substr(0, 77) + "...";
  return "acknowledged before the fault: " + std::to_string(lines) +
         (lines == 1 ? " line" : " lines") + ", the last `" + last + "`";
}

reports::Violation MakeViolation(const Spec& spec, const std::string& window,
                                 const std::string& action, const std::string& plan,
                                 const std::vector<scenarios::blackbox::CheckFailure>& failures,
                                 const std::string& acked, uint64_t seed) {
  reports::Violation v;
  v.scenario = "blackbox:" + spec.name;
  v.invariant = failures[0].invariant;
  v.window = window;
  v.action = action;
  v.plan = plan;
  v.replay = ReplayCommand(spec, plan, seed);
  for (const scenarios::blackbox::CheckFailure& f : failures)
    v.message += (v.message.empty() ? "" : "; ") + f.invariant + ": " + f.message;
  v.message += " (" + AckedSummary(acked) + ")";
  v.failure = FailureClass(failures[0]);
  v.seed = seed;
  return v;
}

}  // namespace

namespace {

// "NONDETERMINISTIC: ..." when a second recording's windows differ from the first's.
void CompareRecordings(const Recording& first, const Result<Recording>& again,
                       std::vector<std::string>* notes) {
  if (!again.ok()) return;
  std::set<std::string> a, b;
  for (const auto& w : first.windows) a.insert(w.id);
  for (const auto& w : again->windows) b.insert(w.id);
  int64_t unstable = 0;
  std::set<std::string> points;  // of windows only the first recording has
  for (const auto& w : first.windows) {
    if (b.count(w.id)) continue;
    ++unstable;
    points.insert(w.point);
  }
  for (const auto& id : b) unstable += a.count(id) ? 0 : 1;
  if (unstable == 0) return;
  std::string some;
  for (const std::string& p : points) {
    if (some.size() > 200) break;
    some += (some.empty() ? "" : ", ") + p;
  }
  notes->push_back("NONDETERMINISTIC: a second recording differs in " + std::to_string(unstable) +
                   " windows (matched by operation, path role and occurrence), such as " + some +
                   "; a file name the program makes up anew in each run is named by a glob in "
                   "the spec's \"temp_names\" (docs/blackbox.md)");
}

// Fills the matrix rows and cells and returns the work of this shard: one task per distinct
// crash state it owns and one per ioerror cell of its own. Every shard builds every state (cheap),
// so the dedup figures do not depend on the split, and a state belongs to the shard of the first
// cell it appears in: it runs (with its depth-2 pairs) in exactly one shard, which folds it into
// every cell it stands for. *counted marks the cells whose invariant checks this shard counts (a
// crash-like cell in the shard owning its first state; an ioerror cell in its own shard), so
// every cell is counted once over all shards.
std::vector<Task> PlanCells(const Recording& rec, const std::vector<std::string>& actions,
                            const ExploreOptions& options, reports::ScenarioReport* s,
                            Exploration* result, std::vector<bool>* counted) {
  std::vector<Task> tasks;
  std::map<uint64_t, size_t> by_digest;
  std::map<uint64_t, bool> owned;  // state key -> owned by this shard
  std::set<uint64_t> all_digests;
  size_t index = 0;
  for (const TraceWindow& w : rec.windows) {
    s->windows.push_back({w.id, w.point, w.occurrence, ""});
    for (const std::string& a : actions) {
      // An ioerror needs a call to fail: a window whose record has k= (CanFailLive).
      bool applicable = IsCrashLike(a) || CanFailLive(rec.trace, w);
      bool mine = static_cast<int>(index++ % static_cast<size_t>(options.shard_count)) ==
                  options.shard_index - 1;
      s->cells.push_back(
          {w.id,
           a,
           applicable ? reports::CellOutcome::kNotRun : reports::CellOutcome::kNotApplicable,
           0,
           0,
           {}});
      size_t cell_index = s->cells.size() - 1;
      counted->push_back(false);
      if (!applicable || (!mine && !IsCrashLike(a))) continue;
      if (!IsCrashLike(a)) {
        (*counted)[cell_index] = true;
        tasks.push_back({a, w, {}, "", {cell_index}});
        continue;
      }
      ++result->crash_cells;
      std::string acked = AckedBefore(rec.trace, w.record, rec.ack);
      bool first_state = true;
      for (CrashState& state :
           StatesOf(rec.initial, rec.trace, w.record, a, options.seed, options.fs_model)) {
        ++s->crash_states.total;
        uint64_t key = StateKey(state, acked);
        all_digests.insert(key);
        const bool own = owned.emplace(key, mine).first->second;
        if (first_state) (*counted)[cell_index] = own;
        first_state = false;
        if (!own) continue;
        auto [it, fresh] = by_digest.emplace(key, tasks.size());
        if (fresh) tasks.push_back({a, w, std::move(state), acked, {}});
        tasks[it->second].cells.push_back(cell_index);
      }
    }
  }
  result->distinct_states = static_cast<int64_t>(all_digests.size());
  s->crash_states.distinct = result->distinct_states;
  // Below the depth limit a distinct state's recovery is faulted again (depth 2).
  s->crash_states.explored = options.depth >= 2 ? result->distinct_states : 0;
  result->windows = static_cast<int64_t>(rec.windows.size());
  return tasks;
}

// Folds one task's outcome into its cells, the violations and the per-invariant counts.
// The recovery rows of depth 2: one window per recovery-life window id ("recover:<id>"), one cell
// per (window, action), merged over every state whose recovery reached it.
struct RecoveryRows {
  std::map<std::string, reports::Window> windows;
  std::map<std::pair<std::string, std::string>, reports::Cell> cells;
  int64_t checks = 0;  // pairs run: each is run in exactly one shard
};

void FoldPairs(const Outcome& o, RecoveryRows* rows) {
  for (const PairRun& p : o.pairs) {
    rows->windows.try_emplace(p.window, reports::Window{p.window, p.point, p.occurrence, "", true});
    reports::Cell& c = rows->cells[{p.window, p.action}];
    c.window = p.window;
    c.action = p.action;
    if (!p.ran) continue;
    ++rows->checks;
    c.runs += 1;
    c.lives_max = std::max(c.lives_max, p.lives);
    if (!reports::CellRan(c.outcome)) c.outcome = reports::CellOutcome::kPass;
    if (p.invariants.empty()) continue;
    c.outcome = reports::CellOutcome::kViolation;
    std::set<std::string> inv(c.invariants_violated.begin(), c.invariants_violated.end());
    inv.insert(p.invariants.begin(), p.invariants.end());
    c.invariants_violated.assign(inv.begin(), inv.end());
  }
}

// Appends the recovery rows after the fault-free ones, sorted by id (the order MergeShards gives),
// with a cell for every action (the actions depth 2 does not run stay not-run).
void AppendRecoveryRows(const RecoveryRows& rows, reports::ScenarioReport* s) {
  for (const auto& [id, w] : rows.windows) {
    s->windows.push_back(w);
    for (const std::string& a : s->actions) {
      auto it = rows.cells.find({id, a});
      s->cells.push_back(it != rows.cells.end()
                             ? it->second
                             : reports::Cell{id, a, reports::CellOutcome::kNotRun, 0, 0, {}});
    }
  }
}

void FoldOutcome(const Spec& spec, const Task& task, const Outcome& o, uint64_t seed, int depth,
                 reports::ScenarioReport* s, std::map<std::string, int64_t>* by_inv,
                 Exploration* result) {
  for (const std::string& n : o.notes)
    if (std::find(result->notes.begin(), result->notes.end(), n) == result->notes.end())
      result->notes.push_back(n);
  if (o.not_run) return;  // its cells stay not run
  s->runs += 1;
  // Deaths at the depth limit, whose recovery ran but was not faulted again.
  if (IsCrashLike(task.action)) s->crash_states.beyond_depth += depth == 1 ? 1 : o.pairs_run;
  s->lives += o.lives;
  for (size_t ci : task.cells) {
    reports::Cell& c = s->cells[ci];
    c.runs += 1;
    c.lives_max = std::max(c.lives_max, o.lives);
    if (c.outcome == reports::CellOutcome::kNotRun) c.outcome = reports::CellOutcome::kPass;
    if (o.failures.empty() || c.outcome == reports::CellOutcome::kViolation) continue;
    c.outcome = reports::CellOutcome::kViolation;  // the first failing state of the cell speaks
    std::set<std::string> inv;
    for (const scenarios::blackbox::CheckFailure& f : o.failures) inv.insert(f.invariant);
    c.invariants_violated.assign(inv.begin(), inv.end());
    for (const std::string& i : inv) ++(*by_inv)[i];
    result->report.violations.push_back(
        MakeViolation(spec, c.window, c.action, c.action + "@" + c.window, o.failures,
                      IsCrashLike(task.action) ? task.acked : o.acked, seed));
  }
  for (const Depth2Violation& v : o.depth2) {
    ++(*by_inv)[v.failures[0].invariant];
    result->report.violations.push_back(
        MakeViolation(spec, task.window.id, task.action, v.plan, v.failures, v.acked, seed));
  }
}

int ActionRank(const std::string& action) {
  static const std::vector<std::string> kOrder = {"crash", "powerloss", "reorder", "ioerror",
                                                  "ioerror:ENOSPC"};
  return static_cast<int>(std::find(kOrder.begin(), kOrder.end(), action) - kOrder.begin());
}

// The minimal violating plan of every failure class (see Shrunk), over the depth-1 cells that
// failed and the depth-2 violations of this run.
std::vector<Shrunk> Shrink(const Spec& spec, const Recording& rec, const reports::ScenarioReport& s,
                           const std::vector<Task>& tasks, const std::vector<Outcome>& outcomes,
                           uint64_t seed) {
  std::map<std::string, int64_t> order;
  for (size_t i = 0; i < rec.windows.size(); ++i)
    order[rec.windows[i].id] = static_cast<int64_t>(i);
  using Key = std::tuple<int, int64_t, int, int64_t>;
  using Class = std::pair<std::string, std::string>;  // invariant, failure class
  std::map<Class, std::pair<Key, std::string>> best;
  std::map<Class, int64_t> count;
  auto offer = [&](const std::vector<scenarios::blackbox::CheckFailure>& failures, Key key,
                   const std::string& plan) {
    std::set<Class> classes;
    for (const scenarios::blackbox::CheckFailure& f : failures)
      classes.insert({f.invariant, FailureClass(f)});
    for (const Class& c : classes) {
      ++count[c];
      auto it = best.find(c);
      if (it == best.end() || key < it->second.first) best[c] = {key, plan};
    }
  };
  for (size_t t = 0; t < tasks.size(); ++t) {
    const Outcome& o = outcomes[t];
    if (!o.failures.empty()) {
      for (size_t ci : tasks[t].cells) {
        const reports::Cell& c = s.cells[ci];
        if (order.count(c.window))
          offer(o.failures, {1, order[c.window], ActionRank(c.action), 0},
                c.action + "@" + c.window);
      }
    }
    for (const Depth2Violation& v : o.depth2)
      offer(v.failures, {2, order[tasks[t].window.id], ActionRank(tasks[t].action), v.second},
            v.plan);
  }
  std::vector<Shrunk> out;
  for (const auto& [c, b] : best)
    out.push_back({c.first, c.second, b.second, ReplayCommand(spec, b.second, seed),
                   std::get<0>(b.first), count[c]});
  return out;
}

std::string Description(const Spec& spec, const Exploration& r) {
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.2f",
                r.crash_cells
                    ? static_cast<double>(r.distinct_states) / static_cast<double>(r.crash_cells)
                    : 1.0);
  std::string d =
      "black-box program `" + spec.run[0] + "`" +
      (spec.run.size() > 1 ? " (+" + std::to_string(spec.run.size() - 1) + " commands)" : "") +
      " on \"" + spec.dir + "\": " + std::to_string(r.windows) + " windows; " +
      std::to_string(r.crash_cells) + " crash-state cells built from the trace map to " +
      std::to_string(r.distinct_states) + " distinct states (dedup ratio " + ratio + ")";
  // Shard-independent words only; the ioerror figures differ per shard, so the command prints them.
  if (r.ioerror_cells > 0)
    d += ". ioerror cells run live, and each distinct directory they leave (digest and "
         "acknowledgements) is recovered and checked once";
  for (const std::string& n : r.notes) d += ". " + n;
  return d;
}

}  // namespace

Result<Exploration> ExploreBlackBox(const Spec& spec, const ExploreOptions& options) {
  SessionConfig config{FindPreload(), "", options.scratch, options.seed, options.fs_model};
  std::error_code ec;
  config.bin_dir = fs::read_symlink("/proc/self/exe", ec).parent_path().string();
  fs::create_directories(options.scratch, ec);
  SF_ASSIGN_OR_RETURN(Recording rec,
                      Record(spec, config, (fs::path(options.scratch) / "record").string()));
  config.ack = rec.ack;
  Exploration result;
  result.notes = rec.notes;
  result.notes.push_back(rec.ack == AckChannel::kFile
                             ? "acknowledgements: the lines written to $STEPFAULT_ACK_FILE"
                             : "acknowledgements: what the program wrote to its standard output");
  for (const std::string& w : rec.warnings) result.notes.push_back("WARNING: " + w);
  // An incomplete recording can give neither a pass nor a violation: the report is inconclusive,
  // naming what was not seen, and nothing is explored (no second recording, no cell runs).
  result.report.inconclusive = rec.incomplete;
  const bool inconclusive = !rec.incomplete.empty();
  // Recording twice tells a deterministic program from one whose windows move.
  if (!inconclusive)
    CompareRecordings(rec,
                      Record(spec, config, (fs::path(options.scratch) / "record-again").string()),
                      &result.notes);
  reports::ScenarioReport s;
  s.name = "blackbox:" + spec.name;
  s.invariants = InvariantsOf(spec, rec.reference);
  s.actions = options.actions.empty() ? std::vector<std::string>{"crash", "powerloss", "ioerror"}
                                      : options.actions;
  std::vector<bool> counted;
  std::vector<Task> tasks = PlanCells(rec, s.actions, options, &s, &result, &counted);
  if (inconclusive) tasks.clear();  // every cell stays not run
  // Per distinct crash state, from figures every shard computes alike: the same cap in any split.
  const int64_t pair_cap =
      std::max<int64_t>(1, options.depth2_max_pairs / std::max<int64_t>(1, result.distinct_states));
  IOErrorDedup dedup;
  std::vector<Outcome> outcomes = RunAll(spec, config, tasks, rec, options.depth, pair_cap,
                                         options.jobs, &dedup, options.progress);
  result.ioerror_cells = dedup.cells;
  result.ioerror_distinct = dedup.distinct;
  std::map<std::string, int64_t> by_inv;
  RecoveryRows rows;
  for (size_t t = 0; t < tasks.size(); ++t) {
    FoldOutcome(spec, tasks[t], outcomes[t], options.seed, options.depth, &s, &by_inv, &result);
    FoldPairs(outcomes[t], &rows);
  }
  result.shrunk = Shrink(spec, rec, s, tasks, outcomes, options.seed);
  LabelPersistenceModels(spec, config, rec, tasks, outcomes, &result);
  int64_t ran = rows.checks;
  for (size_t i = 0; i < s.cells.size(); ++i)
    ran += counted[i] && reports::CellRan(s.cells[i].outcome) ? 1 : 0;
  AppendRecoveryRows(rows, &s);
  if (options.depth == 2) {
    // Shard-independent words only (the description must be equal in every shard); how many pairs
    // ran is in the recovery rows, where a pair the cap left out is a not-run cell.
    result.notes.push_back(
        "depth 2: crash and power loss at every window of the first recovery life of each distinct "
        "state that passed (the rows \"recover:...\"), at most " +
        std::to_string(pair_cap) + " pairs per state (--depth2-max-pairs " +
        std::to_string(options.depth2_max_pairs) + ")");
  }
  for (const std::string& id : s.invariants)
    s.invariant_results.push_back({id, scenarios::InvariantStatement(id), ran, by_inv[id]});
  s.description = Description(spec, result);
  result.report.runs = s.runs;
  result.report.lives = s.lives;
  result.report.scenarios.push_back(std::move(s));
  return result;
}

Result<ReplayResult> ReplayBlackBox(const Spec& spec, const std::string& plan_text, uint64_t seed,
                                    const std::string& scratch, const std::string& keep_dir,
                                    faults::blackbox::PersistenceModel fs_model) {
  SF_ASSIGN_OR_RETURN(faults::blackbox::Plan plan, faults::blackbox::ParsePlan(plan_text));
  SessionConfig config{FindPreload(), "", scratch, seed, fs_model};
  std::error_code ec;
  config.bin_dir = fs::read_symlink("/proc/self/exe", ec).parent_path().string();
  fs::create_directories(scratch, ec);
  SF_ASSIGN_OR_RETURN(Recording rec, Record(spec, config, (fs::path(scratch) / "record").string()));
  config.ack = rec.ack;
  ReplayResult out;
  out.log = rec.notes;
  out.inconclusive = rec.incomplete;
  if (!out.inconclusive.empty()) return out;
  const TraceWindow* w = FindWindow(rec.windows, plan[0].window);
  if (w == nullptr) {
    std::string list;
    for (size_t i = 0; i < rec.windows.size() && i < 20; ++i)
      list += (i ? ", " : "") + rec.windows[i].id;
    return Status::InvalidArgument("window " + plan[0].window +
                                   " is not in the recorded run; its windows are: " + list);
  }
  std::string cell = (fs::path(scratch) / "replay").string();
  Task task{plan[0].action, *w, {}, "", {}};
  LifeResult life;
  if (IsCrashLike(plan[0].action)) {
    task.acked = AckedBefore(rec.trace, w->record, rec.ack);
    // A power loss has two tearings (StatesOf); the first that fails is the one replayed and kept.
    for (CrashState& state :
         StatesOf(rec.initial, rec.trace, w->record, plan[0].action, seed, fs_model)) {
      task.state = std::move(state);
      life = RecoverAndCheck(spec, config, cell, &task.state, task.acked, &rec.reference,
                             plan.size() == 2);
      if (!life.failures.empty()) break;
    }
    if (!keep_dir.empty())
      SF_RETURN_IF_ERROR(faults::blackbox::Materialise(
          task.state, (fs::path(keep_dir) / "crash-state" / spec.dir).string()));
  } else {
    if (plan.size() == 2)
      return Status::InvalidArgument("a second fault can follow only crash, powerloss or reorder");
    if (!CanFailLive(rec.trace, *w))
      return Status::InvalidArgument("window " + w->id +
                                     " is a stdio stream's flush: no call there can be failed, so "
                                     "an ioerror does not apply (crash and powerloss do)");
    Result<IOErrorRun> run = RunWithIOError(
        spec, config, cell, rec, *w, plan[0].action == "ioerror:ENOSPC" ? ENOSPC : EIO, false);
    if (!run.ok()) return run.status();
    if (!run->struck)
      return Status::InvalidArgument(
          "the live run never failed the call at " + w->id +
          (run->struck_point.empty() ? "" : " (it failed " + run->struck_point + " instead)") +
          ": the program does not make the same calls in every run");
    out.log.push_back(std::string("the ioerror run ") +
                      (run->from_start ? "ran every run command"
                                       : "started from the last command boundary before it"));
    // What the failed run left is this plan's crash state: kept before recovery changes it.
    if (!keep_dir.empty()) {
      const fs::path kept = fs::path(keep_dir) / "crash-state" / spec.dir;
      fs::create_directories(kept.parent_path(), ec);
      fs::copy(fs::path(cell) / "work" / spec.dir, kept, fs::copy_options::recursive, ec);
      if (ec) return Status::IOError("cannot keep " + kept.string() + ": " + ec.message());
    }
    task.acked = run->acked;
    life = RecoverAndCheck(spec, config, cell, nullptr, task.acked, &rec.reference, false);
  }
  out.log.push_back("life 1: " + plan[0].Print() + " struck; recovery took " +
                    std::to_string(life.lives) + " lives");
  out.log.push_back(AckedSummary(task.acked));
  out.failures = life.failures;
  if (plan.size() == 2 && out.failures.empty()) {
    std::vector<TraceWindow> rw = faults::blackbox::WindowsOf(life.recovery_trace, spec.temp_names);
    const TraceWindow* w2 = FindWindow(rw, plan[1].window);
    if (w2 == nullptr || !IsCrashLike(plan[1].action))
      return Status::InvalidArgument(
          "the second fault must be crash, powerloss or reorder at a window of the first recovery "
          "(" +
          std::to_string(rw.size()) + " windows there)");
    faults::blackbox::CrashModelOptions under;
    under.fs_model = fs_model;
    CrashState state2 = faults::blackbox::BuildCrashState(
        task.state, life.recovery_trace, w2->record, KindOf(plan[1].action), seed, -1, under);
    LifeResult second = RecoverAndCheck(
        spec, config, cell + "-d2", &state2,
        task.acked + AckedBefore(life.recovery_trace, w2->record, rec.ack), &rec.reference, false);
    out.log.push_back("life 2: " + plan[1].Print() + " struck in recovery");
    out.failures = second.failures;
    cell += "-d2";
  }
  if (!keep_dir.empty()) {
    fs::create_directories(keep_dir, ec);
    fs::copy(fs::path(cell) / "work", fs::path(keep_dir) / "recovered", fs::copy_options::recursive,
             ec);
    if (ec) return Status::IOError("cannot keep " + keep_dir + "/recovered: " + ec.message());
    out.log.push_back(std::string(IsCrashLike(plan[0].action)
                                      ? "kept the crash state in "
                                      : "kept the directory the ioerror run left in ") +
                      keep_dir + "/crash-state/" + spec.dir + " and the recovered directory in " +
                      keep_dir + "/recovered");
  }
  return out;
}

}  // namespace stepfault::properties::blackbox
