// The baton-passing scheduler of faults/actor_scheduler.h. Every state change happens under mu_
// by the actor that holds the baton (or by Run before the first actor and after the last);
// the strategy is asked under mu_ too, while every other actor is parked.
#include "faults/actor_scheduler.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "engine/status.h"

namespace stepfault::faults {
namespace {

thread_local ActorScheduler* tls_scheduler = nullptr;

}  // namespace

struct ActorScheduler::Actor {
  std::string name;
  std::function<void()> body;
  std::thread thread;
  std::condition_variable cv;  // signalled when the baton is handed to this actor
  uint64_t steps = 0;
  std::string point = "start";
  bool blocked = false;
  bool finished = false;
};

std::string EncodeSchedule(const std::vector<int>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size();) {
    size_t j = i;
    while (j < choices.size() && choices[j] == choices[i]) ++j;
    out += static_cast<char>('a' + choices[i]);
    if (j - i > 1) out += std::to_string(j - i);
    i = j;
  }
  return out;
}

std::optional<std::vector<int>> DecodeSchedule(std::string_view text, std::string* error) {
  std::vector<int> out;
  for (size_t i = 0; i < text.size();) {
    const char letter = text[i];
    if (letter < 'a' || letter > 'z') {
      *error = "schedule: expected an actor letter a-z at position " + std::to_string(i) +
               ", found '" + std::string(1, letter) + "' (a schedule looks like a3b1a2)";
      return std::nullopt;
    }
    size_t j = i + 1;
    uint64_t count = 0;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9' && count < 10'000'000) {
      count = count * 10 + static_cast<uint64_t>(text[j] - '0');
      ++j;
    }
    if (j > i + 1 && count == 0) {
      *error = "schedule: a count must be at least 1 (position " + std::to_string(i + 1) + ")";
      return std::nullopt;
    }
    out.insert(out.end(), j > i + 1 ? count : 1, letter - 'a');
    i = j;
  }
  return out;
}

ActorScheduler::ActorScheduler(ScheduleStrategy* strategy, Options options)
    : strategy_(strategy), options_(options) {}

ActorScheduler::~ActorScheduler() {
  for (auto& actor : actors_) {
    if (actor->thread.joinable()) actor->thread.join();
  }
}

int ActorScheduler::AddActor(std::string name, std::function<void()> body) {
  SF_CHECK(actors_.size() < 26);
  auto actor = std::make_unique<Actor>();
  actor->name = std::move(name);
  actor->body = std::move(body);
  actors_.push_back(std::move(actor));
  return static_cast<int>(actors_.size()) - 1;
}

ActorScheduler* ActorScheduler::Current() { return tls_scheduler; }

const std::string& ActorScheduler::actor_name(int actor) const { return actors_[actor]->name; }
uint64_t ActorScheduler::actor_steps(int actor) const { return actors_[actor]->steps; }
std::string ActorScheduler::actor_point(int actor) const { return actors_[actor]->point; }
bool ActorScheduler::actor_finished(int actor) const { return actors_[actor]->finished; }

std::string ActorScheduler::PositionsKey() const {
  std::string key;
  for (const auto& actor : actors_) {
    key +=
        actor->finished ? std::string("done") : std::to_string(actor->steps) + "@" + actor->point;
    key += actor->blocked ? "!;" : ";";
  }
  return key;
}

RunResult ActorScheduler::Run() {
  unfinished_ = static_cast<int>(actors_.size());
  if (unfinished_ == 0) return result_;
  for (int i = 0; i < unfinished_; ++i) {
    actors_[i]->thread = std::thread([this, i] { ActorMain(i); });
  }
  {
    std::unique_lock<std::mutex> lock(mu_);
    current_ = ChooseNextLocked(-1);
    actors_[current_]->cv.notify_one();
    done_cv_.wait(lock, [&] { return unfinished_ == 0; });
  }
  for (auto& actor : actors_) actor->thread.join();
  result_.schedule = EncodeSchedule(result_.choices);
  return result_;
}

void ActorScheduler::ActorMain(int self) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    WaitForBatonLocked(self, lock);
  }
  tls_scheduler = this;
  std::string failure;
  bool died = false;
  try {
    actors_[self]->body();
  } catch (const CrashSignal& signal) {
    died = true;
    failure = std::string(DeathKindName(signal.kind)) + " at " + signal.point;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  tls_scheduler = nullptr;
  std::unique_lock<std::mutex> lock(mu_);
  Actor& me = *actors_[self];
  if (!failure.empty()) {
    (died ? result_.deaths : result_.errors).push_back(me.name + ": " + failure);
  }
  me.finished = true;
  --unfinished_;
  for (auto& actor : actors_) actor->blocked = false;  // what they waited for may be free now
  previous_ = self;
  current_ = unfinished_ > 0 ? ChooseNextLocked(-1) : -1;
  if (current_ >= 0) {
    actors_[current_]->cv.notify_one();
  } else {
    done_cv_.notify_one();
  }
}

void ActorScheduler::WaitForBatonLocked(int self, std::unique_lock<std::mutex>& lock) {
  actors_[self]->cv.wait(lock, [&] { return current_ == self; });
}

int ActorScheduler::ChooseNextLocked(int self) {
  std::vector<int> enabled;
  for (int i = 0; i < actor_count(); ++i) {
    if (!actors_[i]->finished && !actors_[i]->blocked) enabled.push_back(i);
  }
  if (enabled.empty()) {  // everyone waits for everyone: let them all retry
    for (int i = 0; i < actor_count(); ++i) {
      actors_[i]->blocked = false;
      if (!actors_[i]->finished) enabled.push_back(i);
    }
  }
  SF_CHECK(!enabled.empty());
  if (result_.cut_off) {
    return std::find(enabled.begin(), enabled.end(), self) != enabled.end() ? self : enabled[0];
  }
  if (enabled.size() == 1) return enabled[0];
  // An actor's end counts as one more point, so it is not the position of its last Yield.
  const uint64_t previous_steps =
      previous_ < 0 ? 0 : actors_[previous_]->steps + (actors_[previous_]->finished ? 1 : 0);
  ScheduleChoice choice{result_.steps, result_.choices.size(), self, enabled,
                        previous_,     previous_steps};
  const int pick = strategy_->Pick(choice);
  SF_CHECK(std::find(enabled.begin(), enabled.end(), pick) != enabled.end());
  const bool self_enabled =
      self >= 0 && std::find(enabled.begin(), enabled.end(), self) != enabled.end();
  if (pick != (self_enabled ? self : enabled[0])) {
    result_.deviations.push_back(
        SwitchPoint{result_.choices.size(), pick, choice.previous, choice.previous_steps});
  }
  result_.choices.push_back(pick);
  if (self_enabled && pick != self) ++result_.context_switches;
  return pick;
}

void ActorScheduler::PassBatonLocked(int self, std::unique_lock<std::mutex>& lock) {
  previous_ = self;
  const int next = ChooseNextLocked(self);
  if (next == self) return;
  current_ = next;
  actors_[next]->cv.notify_one();
  WaitForBatonLocked(self, lock);
}

void ActorScheduler::Yield(std::string_view point) {
  std::unique_lock<std::mutex> lock(mu_);
  const int self = current_;
  Actor& me = *actors_[self];
  ++me.steps;
  me.point = std::string(point);
  ++result_.steps;
  result_.windows.insert(me.name + "@" + me.point);
  if (options_.keep_trace) result_.trace.push_back(me.name + "@" + me.point);
  if (result_.cut_off) return;
  if (result_.steps >= options_.max_steps) {
    result_.cut_off = true;
    return;
  }
  for (auto& actor : actors_) actor->blocked = false;  // self made progress
  PassBatonLocked(self, lock);
}

bool ActorScheduler::YieldBusy(std::string_view point) {
  std::unique_lock<std::mutex> lock(mu_);
  const int self = current_;
  Actor& me = *actors_[self];
  ++me.steps;
  me.point = "busy:" + std::string(point);
  ++result_.steps;
  result_.windows.insert(me.name + "@" + me.point);
  ++result_.busy_yields;
  if (options_.keep_trace) result_.trace.push_back(me.name + "@" + me.point);
  if (result_.cut_off) return false;
  if (result_.steps >= options_.max_steps) {
    result_.cut_off = true;
    return false;
  }
  me.blocked = true;
  PassBatonLocked(self, lock);
  return !result_.cut_off;
}

Decision YieldingHook::OnPoint(std::string_view point) {
  if (ActorScheduler* scheduler = ActorScheduler::Current()) scheduler->Yield(point);
  return inner_ != nullptr ? inner_->OnPoint(point) : Decision::Proceed();
}

void YieldingProbe::Hit(std::string_view point) {
  if (ActorScheduler* scheduler = ActorScheduler::Current()) scheduler->Yield(point);
  if (inner_ != nullptr) inner_->Hit(point);
}

int SqliteBusyYield(void* /*unused*/, int /*attempts*/) {
  ActorScheduler* scheduler = ActorScheduler::Current();
  if (scheduler == nullptr) return 0;
  return scheduler->YieldBusy("sqlite.busy") ? 1 : 0;
}

}  // namespace stepfault::faults
