// ActorScheduler: deterministic interleaving of several actors (workers, a sweeper, a responder, a
// clock) that share one simulated world. Each actor runs its body on its own thread, but a baton
// lets exactly one run at a time; the running actor gives the baton back at every scheduling point
// (Yield: every fault point of the SimFs through YieldingHook, every probe hit through
// YieldingProbe, and every SQLITE_BUSY through YieldBusy, which the actor's busy handler calls
// instead of sleeping). At each point the scheduler asks its Strategy which enabled actor runs next
// (faults/schedule_strategies.h: random walk, PCT, replay, depth-first), so the whole run, and
// therefore the world it leaves, is a function of the strategy's choices alone.
//
// The code under test never knows: it calls the Env, SQLite and its Probe as always; the hooks
// find the running actor through a thread-local set while an actor body runs.
//
// A schedule is the list of choices at the points where more than one actor was enabled, printed
// run-length encoded as actor letters ("a3b1a2": actor a at three such points, then b, then a
// twice). Replaying it (ReplayStrategy) gives the same run.
//
// Blocking. An actor that yields with YieldBusy is not enabled again until another actor has given
// the baton back at a normal point or finished (the lock it waits for can only be released by
// someone else running). When every unfinished actor is blocked, all become enabled again (they
// retry; a true deadlock then runs into max_steps). After max_steps scheduling points the run is
// cut off: Yield returns at once and YieldBusy returns false (the busy handler gives up), so the
// actors run to their end in turn without further choices; RunResult::cut_off says so.
//
// Deaths. An actor body that throws CrashSignal died (its death is in RunResult::deaths); any
// other exception is an error of the harness (RunResult::errors). Neither stops the others.
// Thread-safety: AddActor and Run from one thread; Yield/YieldBusy/Kill from the running actor.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engine/probe.h"
#include "faults/fault_hook.h"

namespace stepfault::faults {

// What a strategy sees at a choice: at least two enabled actors.
struct ScheduleChoice {
  uint64_t step = 0;    // scheduling points so far in this run (all of them, not only choices)
  uint64_t choice = 0;  // choices so far in this run
  int current = -1;     // the actor that gave the baton back (-1 at the start or after it ended)
  std::vector<int> enabled;  // ascending actor indices, size >= 2
  // The actor that gave the baton back, also when it just ended (-1 only at the start), and how
  // many scheduling points it had passed: a choice's position that does not move when choices
  // elsewhere in the run change (each such pair is at most one choice of a run).
  int previous = -1;
  uint64_t previous_steps = 0;
};

class ScheduleStrategy {
 public:
  virtual ~ScheduleStrategy() = default;
  // Returns one of choice.enabled.
  virtual int Pick(const ScheduleChoice& choice) = 0;
};

// A deviation from the non-preemptive default at a choice: the default is the actor that gave the
// baton back when it is still enabled, else the lowest enabled actor (what ReplayStrategy does
// past the end of its schedule). A run is determined by its deviations (SwitchReplayStrategy
// replays them), so they are what shrinking removes and what bounded exploration extends. A
// deviation away from an enabled actor is a preemption (a context switch); one where that actor
// was blocked or finished is free. Located twice: by `choice`, the 0-based index among the run's
// choices (exact for a prefix of the same run), and by (from, from_steps), the actor that gave the
// baton back and its scheduling points (ScheduleChoice::previous), which stays put when another
// switch of the run is removed.
struct SwitchPoint {
  uint64_t choice = 0;
  int actor = 0;
  int from = -1;
  uint64_t from_steps = 0;
  bool operator==(const SwitchPoint&) const = default;
};

struct RunResult {
  std::string schedule;  // printable, see EncodeSchedule
  std::vector<int> choices;
  uint64_t steps = 0;             // scheduling points
  uint64_t context_switches = 0;  // the baton left an actor that was still enabled
  uint64_t busy_yields = 0;
  bool cut_off = false;                 // max_steps reached
  std::vector<std::string> deaths;      // "<actor>: <kind> at <point>"
  std::vector<std::string> errors;      // harness errors (unexpected exceptions)
  std::vector<std::string> trace;       // "<actor>@<point>" per scheduling point
  std::set<std::string> windows;        // distinct "<actor>@<point>" reached
  std::vector<SwitchPoint> deviations;  // ascending choice index
};

// "a3b1a2" from {0,0,0,1,0,0}; the letter is 'a' + actor index (at most 26 actors).
std::string EncodeSchedule(const std::vector<int>& choices);
// The inverse; nullopt (with *error) for text that is not letters each with an optional count.
std::optional<std::vector<int>> DecodeSchedule(std::string_view text, std::string* error);

class ActorScheduler {
 public:
  struct Options {
    uint64_t max_steps = 20000;
    bool keep_trace = false;
  };
  ActorScheduler(ScheduleStrategy* strategy, Options options);
  ~ActorScheduler();
  ActorScheduler(const ActorScheduler&) = delete;
  ActorScheduler& operator=(const ActorScheduler&) = delete;

  // Returns the actor's index (its letter in schedules). REQUIRES: before Run, at most 26.
  int AddActor(std::string name, std::function<void()> body);
  // Runs every actor to its end, one at a time. Call once.
  RunResult Run();

  // The scheduler of the calling thread's running actor, or nullptr outside an actor.
  static ActorScheduler* Current();
  // The running actor's index and name (REQUIRES: called from an actor).
  int current_actor() const { return current_; }
  const std::string& actor_name(int actor) const;
  int actor_count() const { return static_cast<int>(actors_.size()); }
  // How many scheduling points actor has passed, and the last one (its position).
  uint64_t actor_steps(int actor) const;
  std::string actor_point(int actor) const;
  bool actor_finished(int actor) const;
  // Every actor's position ("<steps>@<point>" or "done"), for a state key (DfsExplorer).
  std::string PositionsKey() const;

  // A scheduling point of the running actor.
  void Yield(std::string_view point);
  // The running actor waits for a lock someone else holds. Returns false when the run was cut off
  // (the caller gives up, e.g. the busy handler returns 0).
  bool YieldBusy(std::string_view point);

 private:
  struct Actor;
  void ActorMain(int self);
  void PassBatonLocked(int self, std::unique_lock<std::mutex>& lock);
  int ChooseNextLocked(int self);
  void WaitForBatonLocked(int self, std::unique_lock<std::mutex>& lock);

  ScheduleStrategy* strategy_;
  Options options_;
  std::vector<std::unique_ptr<Actor>> actors_;
  std::mutex mu_;
  // Run waits here for the last actor to finish; each actor waits for the baton on its own
  // condition variable (Actor::cv), so a hand-off wakes only the actor that takes the baton (one
  // shared variable woke every parked actor at every step: a quarter of interactive-flow's wall
  // time).
  std::condition_variable done_cv_;
  int current_ = -1;   // holder of the baton; -1: nobody (start, or all finished)
  int previous_ = -1;  // the actor that last gave the baton back (ScheduleChoice::previous)
  int unfinished_ = 0;
  RunResult result_;
};

// A FaultHook for a SimFs shared by actors: a scheduling point at every file-system fault point
// (outside an actor it only delegates), then the inner hook decides (nullptr: proceed).
class YieldingHook final : public FaultHook {
 public:
  explicit YieldingHook(FaultHook* inner = nullptr) : inner_(inner) {}
  Decision OnPoint(std::string_view point) override;

 private:
  FaultHook* inner_;
};

// A Probe for actor code: a scheduling point at every hit, then the inner probe (nullptr: none).
class YieldingProbe final : public Probe {
 public:
  explicit YieldingProbe(Probe* inner = nullptr) : inner_(inner) {}
  void Hit(std::string_view point) override;

 private:
  Probe* inner_;
};

// An SQLite busy handler (sqlite3_busy_handler(db, SqliteBusyYield, nullptr)): yields as
// YieldBusy instead of sleeping; gives up (returns 0) outside an actor or after the cut-off.
int SqliteBusyYield(void* unused, int attempts);

}  // namespace stepfault::faults
