// The actors of the interactive-flow model (ADR-0054): a worker (claims a run's execution lease
// optimistically, materialises bindings once, records the runtime's checkpoint and its one
// InputRequest, resumes an answered request with the recorded bindings, applies the final effect
// under a stable operation id), a responder (records responses under optimistic concurrency; a
// duplicate or conflicting one conflicts), a sweeper (expires requests, re-enqueues runs that need
// work and whose lease is not live, repairs the PendingAction projection), and a clock (advances
// the logical clock: `time:advance`; publishes newer agent revisions; runs the retention purge).
// Recover() is what the system does after the actors stop: time passes beyond every lease, then
// startup sweeps and a worker drain, a bounded number of times.
//
// Every actor step begins with ActorContext::Step(name): a scheduling point (and where a fault
// plan can crash the actor or the machine). Each durable change is one SQLite transaction that
// also appends to the Journal what it did, so the oracles read the history from the file.
// Deliberate reductions of the ADR (docs/engine-semantics.md 10.1): one run, one participant, one
// runtime request port; the participant's runtime is the Stepfault engine, not MAF, and its
// checkpoints reach the runtime state store through the adapter of flow_runtime.h; logical time is
// integer ticks (retention age: 30 ticks).
// Thread-safety: each actor runs on its own thread with its own FlowDb; one runs at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>

#include "scenarios/interactive_flow/flow_db.h"

namespace stepfault::scenarios::flow {

struct FlowOptions {
  std::set<std::string> hazards;  // flow hazard names switched on (flow_hazards.h)
  bool force_purge = false;       // the clock's purge is forced (terminates referencing runs)
  int64_t lease_ticks = 12;       // the execution lease (5 with flow-lease-shorter-than-timeout)
  int64_t orchestration_timeout_ticks = 8;  // a worker abandons a claim older than this
  int64_t request_expiry_ticks = 10;
  int64_t clock_step_ticks = 6;
  int64_t retention_ticks = 30;
  int worker_polls = 4;
  int recovery_rounds = 3;
  bool has(const char* hazard) const { return hazards.count(hazard) > 0; }
  int64_t lease() const;
};

struct ActorContext {
  FlowDb* db = nullptr;
  std::string name;
  const FlowOptions* options = nullptr;
  std::function<void(const char* step)> step;  // scheduling point; may end the actor
  void Step(const char* what) const {
    if (step) step(what);
  }
};

void WorkerActor(const ActorContext& c);
void ResponderActor(const ActorContext& c);
void SweeperActor(const ActorContext& c, int sweeps);
void ClockActor(const ActorContext& c);
// After the actors: recovery_rounds x (time passes past every lease, a startup sweep, a worker
// drain). Single-threaded.
void Recover(const ActorContext& c);

// time:advance as a fault: moves the logical clock by `ticks` in one journalled transaction on
// db (no scheduling point of its own; SQLite's busy waits still yield). False when the lock stayed
// busy (the run was cut off).
bool JumpClock(FlowDb& db, int64_t ticks);

// One sweep (expire, re-enqueue, repair); exposed for tests.
void Sweep(const ActorContext& c);

}  // namespace stepfault::scenarios::flow
