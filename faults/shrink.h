// The one shrinker interface: every search that makes a failing case smaller runs through Shrink().
//
// A search shrinker has three parts, and only the first differs between its users:
//  - a Reducer, which proposes the candidates smaller than the current failing case, in the order
//    to try them, and may adapt to whether the last round reduced anything (ddmin's granularity);
//  - an oracle, which replays one candidate and answers with the case that run really was when it
//    still fails (a replay may do less than it was given: a schedule can lose switches it never
//    reached), or nullopt when the failure is gone;
//  - the loop below: try the candidates in order, go on from the first that fails, ask again; end
//    when the reducer has nothing left (the case is minimal for that reducer) or the budget of
//    replays is spent (not minimal). Deterministic for a deterministic oracle.
//
// Users: the interactive-flow schedule shrinker (ShrinkSwitches, faults/schedule_strategies.h:
// ddmin then merges then windows over context switches) and its fault-plan shrinker (RemoveEach
// over the plan's faults, scenarios/interactive_flow/flow_schedules.cc). Two other ways of getting
// a small counterexample are not searches and do not use this loop: `stepfault check` lets
// RapidCheck shrink the generated plan parameters (properties/random_schedules.h), and the
// exhaustive explorers run every cell anyway, so they pick the smallest violation found
// (reports::SmallerPlan in the report model and the mutant hunt; per failure class in black box,
// properties/blackbox/explore.cc).
#pragma once

#include <climits>
#include <cstddef>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace stepfault::faults {

// Replays a candidate: the case the run really was when it still fails, nullopt when it passes.
template <class Case>
using ShrinkOracle = std::function<std::optional<Case>(const Case&)>;

// Proposes smaller cases. Candidates(current) is called with a case that fails; an empty answer
// means nothing smaller is left to try (a reducer must come to it: after a round that reduced
// nothing, proposing that round again would loop). Reduced(r) follows each round: r is whether one
// of that round's candidates failed (shrinking goes on from it), false when all passed.
template <class Case>
class Reducer {
 public:
  virtual ~Reducer() = default;
  virtual std::vector<Case> Candidates(const Case& current) = 0;
  virtual void Reduced(bool /*reduced*/) {}
};

template <class Case>
struct Shrunk {
  Case value;            // the smallest failing case found
  int runs = 0;          // replays spent
  bool minimal = false;  // the reducer had nothing left (false: the budget ran out first)
};

template <class Case>
Shrunk<Case> Shrink(Case failing, Reducer<Case>& reducer, const ShrinkOracle<Case>& fails,
                    int max_runs = INT_MAX) {
  Shrunk<Case> out{std::move(failing)};
  for (;;) {
    std::vector<Case> candidates = reducer.Candidates(out.value);
    if (candidates.empty()) {
      out.minimal = true;
      return out;
    }
    bool reduced = false;
    for (const Case& candidate : candidates) {
      if (out.runs >= max_runs) return out;
      ++out.runs;
      if (std::optional<Case> kept = fails(candidate)) {
        out.value = std::move(*kept);
        reduced = true;
        break;
      }
    }
    reducer.Reduced(reduced);
  }
}

// The simplest reducer over a sequence: the case without one element, each element in turn, first
// to last, round after round until a round removes nothing. A case it leaves is 1-minimal: no
// single element can go.
template <class Case>
class RemoveEach final : public Reducer<Case> {
 public:
  std::vector<Case> Candidates(const Case& current) override {
    std::vector<Case> out;
    if (done_) return out;
    for (size_t i = 0; i < current.size(); ++i) {
      Case fewer = current;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      out.push_back(std::move(fewer));
    }
    return out;
  }
  void Reduced(bool reduced) override { done_ = !reduced; }

 private:
  bool done_ = false;
};

}  // namespace stepfault::faults
