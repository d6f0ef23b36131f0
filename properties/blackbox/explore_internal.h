// The pieces black-box exploration (explore.cc) shares with its runner (explore_run.cc): the unit
// of work, what running it gives, and running every unit in worker processes.
// Determinism: RunAll's results depend only on the tasks, never on --jobs: worker processes only
// change where a task runs, and the ioerror deduplication picks its representatives in task order
// after every live run has finished. Thread-safety: one exploration per process.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"
#include "properties/blackbox/explore.h"
#include "properties/blackbox/session.h"
#include "scenarios/blackbox/spec.h"

namespace stepfault::properties::blackbox {

faults::blackbox::CrashKind KindOf(const std::string& action);

// The states of one crash-like cell under `model`: one, or for a power loss the seed's tearing and
// the last unsynced write lost whole (k = 0), when they differ.
std::vector<faults::blackbox::CrashState> StatesOf(
    const faults::blackbox::CrashState& initial, const faults::blackbox::Trace& trace,
    size_t record, const std::string& action, uint64_t seed,
    faults::blackbox::PersistenceModel model = faults::blackbox::PersistenceModel::kPosix);

// The state key exploration deduplicates by: the state's digest and what was acknowledged.
uint64_t StateKey(const faults::blackbox::CrashState& state, const std::string& acked);

// One unit of work: a distinct crash state, or one live ioerror cell.
struct Task {
  std::string action;
  faults::blackbox::TraceWindow window;
  faults::blackbox::CrashState state;
  std::string acked;
  std::vector<size_t> cells;
};

struct Depth2Violation {
  std::string plan;
  std::vector<scenarios::blackbox::CheckFailure> failures;
  int64_t second = 0;  // the pair's index: recovery windows in trace order, crash before powerloss
  std::string acked;   // what was acknowledged before the second fault
};

// One (recovery window, action) pair of depth 2: run (with its failures) or left out by the cap.
struct PairRun {
  std::string action, window, point;
  int occurrence = 0;
  bool ran = false;
  int lives = 0;
  std::vector<std::string> invariants;  // violated, sorted
};

struct Outcome {
  std::vector<scenarios::blackbox::CheckFailure> failures;
  int lives = 0;
  int64_t pairs_total = 0, pairs_run = 0;
  std::vector<Depth2Violation> depth2;
  std::vector<PairRun> pairs;
  std::vector<std::string> notes;
  bool not_run = false;  // an ioerror whose live run never failed the window's call
  std::string acked;     // an ioerror's: what its live run acknowledged (set by RunAll)
};

// What RunAll did with the ioerror cells: how many ran live, and how many distinct directories
// (digest of the directory after the live run, plus what the program acknowledged) they left.
struct IOErrorDedup {
  int64_t cells = 0, distinct = 0;
};

// Runs every task (crash-like: recover the state and check, then depth 2; ioerror: the live run,
// then, once per distinct resulting directory, recovery and checks, whose outcome every ioerror
// task that left the same directory shares) in `jobs` worker processes; outcomes in task order.
// `progress` (may be empty) hears (done, total) in runs: each ioerror task counts twice (its live
// run, then its recovery; the recovery of one whose directory another already left is done when
// that is known), each crash-like task once. Display only: it never reaches the outcomes.
// The persistence-model labels (explore_models.cc): the run's model in the report and in every
// replay command (`--fs-model X` unless posix); under posix, each depth-1 minimal plan of
// `result->shrunk` is rebuilt under every other model and labelled with the models under which it
// still violates its invariant (Shrunk::holds_under, and Violation::holds_under of the
// violations with that plan). A model's state with the key of a state this shard ran shares that
// outcome; any other is recovered and checked once (at most two per plan and model: a power
// loss's two tearings, as exploration runs them).
void LabelPersistenceModels(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                            const Recording& rec, const std::vector<Task>& tasks,
                            const std::vector<Outcome>& outcomes, Exploration* result);

std::vector<Outcome> RunAll(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                            const std::vector<Task>& tasks, const Recording& rec, int depth,
                            int64_t pair_cap, int jobs, IOErrorDedup* dedup,
                            const std::function<void(int64_t done, int64_t total)>& progress);

}  // namespace stepfault::properties::blackbox
