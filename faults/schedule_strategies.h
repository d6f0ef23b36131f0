// The strategies that choose the next actor at a scheduling point (faults/actor_scheduler.h):
//  - RandomWalkStrategy: uniform among the enabled actors, from a seed.
//  - PctStrategy: probabilistic concurrency testing (Burckhardt et al., ASPLOS 2010). Every actor
//    gets a distinct random priority d..d+25; d-1 change points are drawn uniformly among the
//    first `expected_steps` scheduling points; the highest-priority enabled actor always runs, and
//    at the i-th change point the running actor's priority drops to i (below every initial one).
//    A bug of depth d (d ordering constraints) among n actors and k steps is found by one run with
//    probability at least 1/(n k^(d-1)); depth 1 is "some actor runs to a point before another
//    moves at all", which a random walk finds with probability exponentially small in the steps.
//  - ReplayStrategy: the choices of a printed schedule, in order; a choice that names an actor
//    that is not enabled there is a divergence (counted). Where the schedule diverges or runs
//    out, the running actor goes on while it is enabled, else the lowest enabled actor runs (no
//    preemption), so a replay never hangs and a prefix of a schedule is a schedule too (what
//    shrinking tries).
//  - DfsExplorer: bounded exhaustive exploration, depth first over the choices, one run per leaf,
//    with state-hash deduplication: at a choice whose state key (the caller's: e.g. the world's
//    SimFs::Digest plus its actors' memory) and actor positions were seen before, the other
//    branches are not explored again. The key is only as exact as the caller makes it: a state
//    that differs only in what the key leaves out is merged (documented where it is used).
//    Backtracking from the deepest choice, a budget of runs explores permutations of the last
//    choices of one run only; kept for comparison (`--strategy dfs-plain`).
//  - SwitchReplayStrategy: replays a run from its deviations (actor_scheduler.h SwitchPoint):
//    the listed actor at the listed position, the non-preemptive default everywhere else.
//  - BoundedExplorer: iterative preemption bounding (Musuvathi and Qadeer, CHESS, PLDI 2007):
//    every schedule with 0 preemptions, then every one with 1, then 2, ... (a deviation where the
//    running actor was blocked or finished is free), breadth first, each new preemption placed at
//    ascending choice indices, so a budget of runs covers the early choices of the whole run
//    instead of the permutations of its last few. State hashing as in DfsExplorer: a choice
//    point whose state key was reached before with no more preemptions spawns no new schedules.
//  - ShrinkSwitches: delta debugging (Zeller and Hildebrandt's ddmin) over the deviations of a
//    failing run, then merging adjacent switches and removing windows of consecutive ones,
//    keeping only reductions that still fail.
// Thread-safety: a strategy is used by one scheduler, under its mutex.
#pragma once

#include <climits>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/random.h"
#include "faults/actor_scheduler.h"
#include "faults/shrink.h"

namespace stepfault::faults {

class RandomWalkStrategy final : public ScheduleStrategy {
 public:
  explicit RandomWalkStrategy(uint64_t seed) : rng_(DeriveSeed(seed, "schedule.random")) {}
  int Pick(const ScheduleChoice& choice) override;

 private:
  Rng rng_;
};

class PctStrategy final : public ScheduleStrategy {
 public:
  // depth >= 1; expected_steps >= 1: an estimate of the scheduling points of one run.
  PctStrategy(uint64_t seed, int depth, uint64_t expected_steps);
  int Pick(const ScheduleChoice& choice) override;

 private:
  std::vector<int> priority_;              // by actor index
  std::map<uint64_t, int> change_points_;  // step -> i (1-based), not yet applied
};

class ReplayStrategy final : public ScheduleStrategy {
 public:
  explicit ReplayStrategy(std::vector<int> choices) : choices_(std::move(choices)) {}
  int Pick(const ScheduleChoice& choice) override;
  // Choices that could not be followed, choices made after the schedule ran out, and choices of
  // the schedule left unused.
  uint64_t divergences() const { return divergences_; }
  uint64_t past_end() const { return past_end_; }
  uint64_t unused() const { return next_ < choices_.size() ? choices_.size() - next_ : 0; }

 private:
  std::vector<int> choices_;
  size_t next_ = 0;
  uint64_t divergences_ = 0;
  uint64_t past_end_ = 0;
};

class DfsExplorer {
 public:
  // The strategy for the next run, or nullptr when every branch was explored (or max_runs done).
  // state_key is asked at each new choice of that run (while every actor is parked).
  ScheduleStrategy* BeginRun(std::function<std::string()> state_key);
  // Call after each run; moves to the next branch.
  void EndRun();
  explicit DfsExplorer(uint64_t max_runs) : max_runs_(max_runs) {}
  uint64_t runs() const { return runs_; }
  uint64_t distinct_states() const { return visited_.size(); }
  // True when the tree was explored to its end (not stopped by max_runs).
  bool complete() const { return done_ && !stopped_; }

 private:
  struct Node {
    size_t taken = 0;
    size_t options = 0;
    bool pruned = false;  // its state was seen before: its other branches are explored elsewhere
  };
  class Strategy final : public ScheduleStrategy {
   public:
    explicit Strategy(DfsExplorer* owner) : owner_(owner) {}
    int Pick(const ScheduleChoice& choice) override;

   private:
    DfsExplorer* owner_;
  };
  std::vector<Node> stack_;
  std::set<std::string> visited_;
  std::function<std::string()> state_key_;
  Strategy strategy_{this};
  uint64_t max_runs_;
  uint64_t runs_ = 0;
  size_t next_choice_ = 0;  // choices made in the current run
  bool done_ = false;
  bool stopped_ = false;
};

// Finds each switch by its position (from, from_steps), not its choice index, so removing one
// switch of a run leaves the others where they were.
class SwitchReplayStrategy final : public ScheduleStrategy {
 public:
  explicit SwitchReplayStrategy(const std::vector<SwitchPoint>& switches);
  int Pick(const ScheduleChoice& choice) override;
  // Switches whose actor was not enabled at their position (ignored there).
  uint64_t ignored() const { return ignored_; }

 private:
  std::map<std::pair<int, uint64_t>, int> switches_;  // (from, from_steps) -> actor
  uint64_t ignored_ = 0;
};

// The non-preemptive default at a choice: the running actor if enabled, else the lowest enabled.
int DefaultPick(const ScheduleChoice& choice);

class BoundedExplorer {
 public:
  // max_preemptions: schedules with more are never run (INT_MAX: unbounded).
  explicit BoundedExplorer(uint64_t max_runs, int max_preemptions = INT_MAX)
      : max_runs_(max_runs), max_preemptions_(max_preemptions) {}
  // As DfsExplorer::BeginRun: the strategy of the next schedule, nullptr when none is left.
  ScheduleStrategy* BeginRun(std::function<std::string()> state_key);
  void EndRun();
  uint64_t runs() const { return runs_; }
  uint64_t distinct_states() const { return visited_.size(); }
  // True when every schedule within max_preemptions was run (not stopped by max_runs).
  bool complete() const { return done_ && !stopped_; }
  // The preemption bound of the last schedule begun, and schedules run per bound.
  int bound() const { return current_.preemptions; }
  const std::map<int, uint64_t>& runs_per_bound() const { return runs_per_bound_; }

 private:
  struct Item {
    std::vector<SwitchPoint> switches;
    int preemptions = 0;
  };
  class Strategy final : public ScheduleStrategy {
   public:
    explicit Strategy(BoundedExplorer* owner) : owner_(owner) {}
    int Pick(const ScheduleChoice& choice) override;

   private:
    BoundedExplorer* owner_;
  };
  void Spawn(const ScheduleChoice& choice, int fallback);

  std::map<int, std::deque<Item>> pending_;  // by preemptions
  std::map<std::string, int> visited_;       // state key -> fewest preemptions it was seen with
  std::map<int, uint64_t> runs_per_bound_;
  std::function<std::string()> state_key_;
  Strategy strategy_{this};
  Item current_;
  size_t next_switch_ = 0;
  uint64_t max_runs_;
  int max_preemptions_;
  uint64_t runs_ = 0;
  bool started_ = false;
  bool done_ = false;
  bool stopped_ = false;
};

// Shrinks the deviations of a failing run, on the one shrinker loop (faults/shrink.h) with a
// switch-specific reducer. `fails` runs a candidate (with SwitchReplayStrategy)
// and returns the deviations that run really made when it still fails (a subset of the
// candidate), nullopt when it does not. ddmin; then merging adjacent switches (a detour a -> c,
// c -> b becomes a -> b); then every window of 2 to 4 consecutive deviations; repeated until none
// removes anything. Deterministic for a deterministic `fails`. Stops after max_runs candidates;
// `minimal` says whether it ended on its own: no single remaining deviation, no adjacent pair
// merged, and no 2 to 4 consecutive ones removed keeps the failure. That is not minimum: a run
// needing two switches may still be reported with more when only changing several scattered
// ones together would keep the failure.
struct SwitchShrink {
  std::vector<SwitchPoint> switches;
  int runs = 0;
  bool minimal = false;
};
using SwitchOracle = ShrinkOracle<std::vector<SwitchPoint>>;
SwitchShrink ShrinkSwitches(std::vector<SwitchPoint> switches, const SwitchOracle& fails,
                            int max_runs);

}  // namespace stepfault::faults
