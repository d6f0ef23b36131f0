// Black-box exploration and replay: the fault-free run is recorded once (twice, to find unstable
// windows), every (window, action) cell is turned into a crash state built from the trace (crash,
// powerloss, reorder) or a live run with the call failing (ioerror), identical crash states are run
// once (by digest), each is recovered and checked, and the result is the report model of
// reports/report_model.h with one scenario section per spec ("blackbox:<name>").
//
// Determinism: cells are enumerated in a fixed order (windows in trace order, actions in
// faults/blackbox/plan.h AllActions order), states and tearing derive from the seed, and --jobs
// only changes which process runs a state, so the same program, spec and seed give the same
// report. Depth 2 crashes (crash, powerloss) into the windows of the first recovery life of every
// depth-1 state that passed, up to depth2_max_pairs (an evenly spaced sample above it): a violation
// there needs both faults, so its plan is already minimal. Thread-safety: one exploration per
// process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/status.h"
#include "properties/blackbox/session.h"
#include "reports/report_model.h"
#include "scenarios/blackbox/spec.h"

namespace stepfault::properties::blackbox {

struct ExploreOptions {
  std::vector<std::string> actions;  // empty: crash, powerloss, ioerror
  int depth = 1;
  uint64_t seed = 0;
  int jobs = 1;
  int shard_index = 1, shard_count = 1;
  int64_t depth2_max_pairs = 200;
  // The persistence model every crash state is built under (crash_state.h; --fs-model).
  faults::blackbox::PersistenceModel fs_model = faults::blackbox::PersistenceModel::kPosix;
  std::string scratch;  // a directory this exploration may fill (and leaves behind)
  // Display only (may be empty): (done, total) runs of the exploration, as RunAll counts them.
  std::function<void(int64_t done, int64_t total)> progress;
};

// The class of a failure, which groups counterexamples with its invariant: the first line of the
// message with every run of digits, and every hex-looking run of 7 or more characters holding a
// digit, blanked to '#', and a list of such blanks made one ("check `./verify` failed (exit #):
// lost commit #"; "rows present: 1 2 3" gives "rows present: #"). Two failures of one
// invariant in different classes (a lost commit; a repository that no longer opens) are reported
// apart.
std::string FailureClass(const scenarios::blackbox::CheckFailure& failure);

// The shrinker's answer for one failure class: the smallest plan that failed so, ordered by fewer
// faults first, then the earlier first window (fault-free order), the simpler first action (crash,
// powerloss, reorder, ioerror, ioerror:ENOSPC), then the earlier second window and the simpler
// second action. Exploration runs every (window, recovery window) pair (up to the cap), so the
// minimum over what it found is the minimal plan; the order is fixed, so the answer is
// deterministic.
struct Shrunk {
  std::string invariant, failure, plan, replay;  // failure: FailureClass
  int faults = 1;
  int64_t candidates = 0;  // violating plans of this invariant the minimum was taken over
  // The persistence models under which the plan still violates the invariant, in model order
  // (posix first); empty when not labelled (a run under another model, a depth-2 plan).
  std::vector<std::string> holds_under;
};

struct Exploration {
  reports::Report report;
  std::vector<std::string> notes;
  int64_t windows = 0, crash_cells = 0, distinct_states = 0;
  // ioerror cells this shard ran live, and the distinct directories they left (digest plus what
  // the program acknowledged): only those were recovered and checked.
  int64_t ioerror_cells = 0, ioerror_distinct = 0;
  std::vector<Shrunk> shrunk;  // one per violated invariant, in invariant order
};

// kInvalidArgument for bad input (see Record); otherwise the report.
Result<Exploration> ExploreBlackBox(const scenarios::blackbox::Spec& spec,
                                    const ExploreOptions& options);

struct ReplayResult {
  // Non-empty when the recording is incomplete (Recording::incomplete): the plan was not run, and
  // the answer is inconclusive (exit 5), neither a pass nor a violation.
  std::vector<std::string> inconclusive;
  std::vector<scenarios::blackbox::CheckFailure> failures;
  std::vector<std::string> log;  // what happened, for a person
};

// Replays `plan` (faults/blackbox/plan.h) from a fresh recording, its crash states built under
// `fs_model` (an incomplete recording runs nothing: inconclusive). With keep_dir, leaves the crash
// state in keep_dir/crash-state and the recovered directory in keep_dir/recovered.
Result<ReplayResult> ReplayBlackBox(
    const scenarios::blackbox::Spec& spec, const std::string& plan, uint64_t seed,
    const std::string& scratch, const std::string& keep_dir,
    faults::blackbox::PersistenceModel fs_model = faults::blackbox::PersistenceModel::kPosix);

}  // namespace stepfault::properties::blackbox
