// The scheduling strategies of faults/schedule_strategies.h.
#include "faults/schedule_strategies.h"

#include <algorithm>

#include "engine/status.h"

namespace stepfault::faults {

int RandomWalkStrategy::Pick(const ScheduleChoice& choice) {
  return choice.enabled[rng_.Uniform(choice.enabled.size())];
}

PctStrategy::PctStrategy(uint64_t seed, int depth, uint64_t expected_steps) {
  SF_CHECK(depth >= 1 && expected_steps >= 1);
  Rng rng(DeriveSeed(seed, "schedule.pct"));
  // Initial priorities: a random permutation of depth .. depth+25 (Fisher-Yates).
  priority_.resize(26);
  for (int i = 0; i < 26; ++i) priority_[i] = depth + i;
  for (int i = 25; i > 0; --i) std::swap(priority_[i], priority_[rng.Uniform(i + 1)]);
  // depth-1 distinct change points among steps 1..expected_steps (fewer if there are not enough).
  for (int i = 1; i < depth && change_points_.size() < expected_steps; ++i) {
    uint64_t step = 1 + rng.Uniform(expected_steps);
    while (change_points_.count(step) > 0) step = 1 + step % expected_steps;
    change_points_[step] = i;
  }
}

int PctStrategy::Pick(const ScheduleChoice& choice) {
  // Apply every change point reached (steps with a single enabled actor are not choices, so
  // several may be due at once); each lowers the actor that was running.
  while (!change_points_.empty() && change_points_.begin()->first <= choice.step) {
    if (choice.current >= 0) priority_[choice.current] = change_points_.begin()->second;
    change_points_.erase(change_points_.begin());
  }
  int best = choice.enabled[0];
  for (int actor : choice.enabled) {
    if (priority_[actor] > priority_[best]) best = actor;
  }
  return best;
}

int ReplayStrategy::Pick(const ScheduleChoice& choice) {
  const auto enabled = [&](int actor) {
    return std::find(choice.enabled.begin(), choice.enabled.end(), actor) != choice.enabled.end();
  };
  if (next_ < choices_.size()) {
    const int wanted = choices_[next_++];
    if (enabled(wanted)) return wanted;
    ++divergences_;
  } else {
    ++past_end_;
  }
  // No preemption: the running actor goes on while it can.
  return enabled(choice.current) ? choice.current : choice.enabled[0];
}

ScheduleStrategy* DfsExplorer::BeginRun(std::function<std::string()> state_key) {
  if (done_) return nullptr;
  if (runs_ >= max_runs_) {
    done_ = stopped_ = true;
    return nullptr;
  }
  state_key_ = std::move(state_key);
  next_choice_ = 0;
  return &strategy_;
}

void DfsExplorer::EndRun() {
  ++runs_;
  // Backtrack to the deepest choice with an untried branch that is not a repeated state.
  while (!stack_.empty() &&
         (stack_.back().pruned || stack_.back().taken + 1 >= stack_.back().options)) {
    stack_.pop_back();
  }
  if (stack_.empty()) {
    done_ = true;
    return;
  }
  ++stack_.back().taken;
}

int DfsExplorer::Strategy::Pick(const ScheduleChoice& choice) {
  DfsExplorer& x = *owner_;
  const size_t depth = x.next_choice_++;
  if (depth < x.stack_.size()) {
    Node& node = x.stack_[depth];
    if (node.options == choice.enabled.size()) return choice.enabled[node.taken];
    // The run left the recorded path (the code under test is not deterministic in its choices):
    // cut the stack here and go on as a new branch.
    x.stack_.resize(depth);
  }
  std::string key = x.state_key_ ? x.state_key_() : std::string();
  key += "|current=" + std::to_string(choice.current) + "|enabled=";
  for (int actor : choice.enabled) key += std::to_string(actor) + ",";
  Node node;
  node.options = choice.enabled.size();
  node.pruned = !x.visited_.insert(std::move(key)).second;
  x.stack_.push_back(node);
  return choice.enabled[0];
}

}  // namespace stepfault::faults
