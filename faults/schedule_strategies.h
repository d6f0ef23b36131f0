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
// Thread-safety: a strategy is used by one scheduler, under its mutex.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/random.h"
#include "faults/actor_scheduler.h"

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

}  // namespace stepfault::faults
