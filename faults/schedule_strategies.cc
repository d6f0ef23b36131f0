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

int DefaultPick(const ScheduleChoice& choice) {
  const bool current_enabled = std::find(choice.enabled.begin(), choice.enabled.end(),
                                         choice.current) != choice.enabled.end();
  return current_enabled ? choice.current : choice.enabled[0];
}

SwitchReplayStrategy::SwitchReplayStrategy(const std::vector<SwitchPoint>& switches) {
  for (const SwitchPoint& s : switches) switches_[{s.from, s.from_steps}] = s.actor;
}

int SwitchReplayStrategy::Pick(const ScheduleChoice& choice) {
  auto it = switches_.find({choice.previous, choice.previous_steps});
  if (it != switches_.end()) {
    if (std::find(choice.enabled.begin(), choice.enabled.end(), it->second) !=
        choice.enabled.end()) {
      return it->second;
    }
    ++ignored_;
  }
  return DefaultPick(choice);
}

ScheduleStrategy* BoundedExplorer::BeginRun(std::function<std::string()> state_key) {
  if (done_) return nullptr;
  if (!started_) {
    started_ = true;
    pending_[0].push_back(Item{});  // the non-preemptive schedule
  }
  while (!pending_.empty() && pending_.begin()->second.empty()) pending_.erase(pending_.begin());
  if (pending_.empty()) {
    done_ = true;
    return nullptr;
  }
  if (runs_ >= max_runs_) {
    done_ = stopped_ = true;
    return nullptr;
  }
  current_ = std::move(pending_.begin()->second.front());
  pending_.begin()->second.pop_front();
  next_switch_ = 0;
  state_key_ = std::move(state_key);
  return &strategy_;
}

void BoundedExplorer::EndRun() {
  ++runs_;
  ++runs_per_bound_[current_.preemptions];
  while (!pending_.empty() && pending_.begin()->second.empty()) pending_.erase(pending_.begin());
  if (pending_.empty()) done_ = true;  // every schedule within the bound was run
}

// New schedules from one choice point past the schedule's last switch: every other enabled
// actor, unless this state was already reached with no more preemptions (its schedules are
// queued from there).
void BoundedExplorer::Spawn(const ScheduleChoice& choice, int fallback) {
  if (state_key_) {  // without a state key, nothing is pruned
    std::string key = state_key_();
    key += "|current=" + std::to_string(choice.current) + "|enabled=";
    for (int actor : choice.enabled) key += std::to_string(actor) + ",";
    auto [it, inserted] = visited_.emplace(std::move(key), current_.preemptions);
    if (!inserted && it->second <= current_.preemptions) return;
    it->second = current_.preemptions;
  }
  const bool current_enabled = fallback == choice.current;
  for (int actor : choice.enabled) {
    if (actor == fallback) continue;
    Item child{current_.switches, current_.preemptions + (current_enabled ? 1 : 0)};
    if (child.preemptions > max_preemptions_) continue;
    child.switches.push_back(
        SwitchPoint{choice.choice, actor, choice.previous, choice.previous_steps});
    pending_[child.preemptions].push_back(std::move(child));
  }
}

int BoundedExplorer::Strategy::Pick(const ScheduleChoice& choice) {
  BoundedExplorer& x = *owner_;
  const int fallback = DefaultPick(choice);
  const std::vector<SwitchPoint>& switches = x.current_.switches;
  if (x.next_switch_ < switches.size()) {
    const SwitchPoint& next = switches[x.next_switch_];
    if (next.choice != choice.choice) return fallback;  // before the next switch: the prefix
    ++x.next_switch_;
    const bool enabled =
        std::find(choice.enabled.begin(), choice.enabled.end(), next.actor) != choice.enabled.end();
    // Not enabled only if the code under test is not deterministic in its choices.
    return enabled ? next.actor : fallback;
  }
  x.Spawn(choice, fallback);
  return fallback;
}

namespace {

// The switches without [begin, end).
std::vector<SwitchPoint> Without(const std::vector<SwitchPoint>& switches, size_t begin,
                                 size_t end) {
  std::vector<SwitchPoint> out(switches.begin(), switches.begin() + static_cast<long>(begin));
  out.insert(out.end(), switches.begin() + static_cast<long>(end), switches.end());
  return out;
}

// ddmin (the complements of n chunks, n adapting as Zeller and Hildebrandt's), then, once no
// chunk can go at the finest granularity, the merges and windows round; after a merge or window
// reduced, ddmin starts again at n = 2.
class SwitchReducer final : public Reducer<std::vector<SwitchPoint>> {
 public:
  std::vector<std::vector<SwitchPoint>> Candidates(
      const std::vector<SwitchPoint>& current) override {
    size_ = current.size();
    if (done_ || current.empty()) return {};
    std::vector<std::vector<SwitchPoint>> out;
    if (!merging_) {
      n_ = std::min(n_, size_);
      for (size_t i = 0; i < n_; ++i)
        out.push_back(Without(current, i * size_ / n_, (i + 1) * size_ / n_));
      return out;
    }
    // A detour (a -> c, then c -> b) merged into one switch (a -> b): switch i takes switch
    // i+1's target and i+1 goes.
    for (size_t i = 0; i + 1 < size_; ++i) {
      std::vector<SwitchPoint> merged = Without(current, i + 1, i + 2);
      merged[i].actor = current[i + 1].actor;
      out.push_back(std::move(merged));
    }
    // ddmin's chunks never cover a run of 3 that straddles two chunks: every window of 2 to 4
    // consecutive switches.
    for (size_t w = 2; w <= std::min<size_t>(4, size_); ++w) {
      for (size_t b = 0; b + w <= size_; ++b) out.push_back(Without(current, b, b + w));
    }
    return out;
  }

  void Reduced(bool reduced) override {
    if (merging_) {
      merging_ = false;
      n_ = 2;
      done_ = !reduced;
    } else if (reduced) {
      n_ = std::max<size_t>(n_ - 1, 2);
    } else if (n_ < size_) {
      n_ = std::min(2 * n_, size_);
    } else {
      merging_ = true;
    }
  }

 private:
  size_t n_ = 2;
  size_t size_ = 0;
  bool merging_ = false;
  bool done_ = false;
};

}  // namespace

SwitchShrink ShrinkSwitches(std::vector<SwitchPoint> switches, const SwitchOracle& fails,
                            int max_runs) {
  SwitchReducer reducer;
  Shrunk<std::vector<SwitchPoint>> shrunk = Shrink(std::move(switches), reducer, fails, max_runs);
  return {std::move(shrunk.value), shrunk.runs, shrunk.minimal};
}

}  // namespace stepfault::faults
