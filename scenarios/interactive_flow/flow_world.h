// One run of the interactive-flow world: a fresh simulated file system with flow.db, the actors
// (worker-a, worker-b, sweeper, responder, clock; letters a..e in schedules) each a simulated
// process with its own SQLite VFS name and connection, interleaved by an ActorScheduler under a
// strategy; a fault plan (faults compose: crash one actor at its n-th step: its memory,
// connection and locks die, files survive; power loss of the machine at an actor's n-th step: the
// world becomes what the SimFs crash model keeps; time:advance at an actor's n-th step: the
// logical clock jumps past every lease and request expiry; e.g. a crash, a later time jump and a
// later power loss in one run; the plan and its text: flow_plan.h); then recovery (flow_actors.h
// Recover) and the oracles on a read-only copy of the database.
//
// Deterministic: the result (schedule, violations, final world digest) is a function of the
// strategy's choices, the fault and the options. Thread-safety: one run per call; runs may go in
// parallel (VFS names are unique per run).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "faults/actor_scheduler.h"
#include "scenarios/interactive_flow/flow_actors.h"
#include "scenarios/interactive_flow/flow_plan.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios::flow {

// How far time:advance moves the clock: one tick past the longer of the lease and the request
// expiry, so every lease taken and every request created before it has expired.
int64_t TimeJumpTicks(const FlowOptions& options);

struct FlowRunResult {
  faults::RunResult run;
  std::vector<Violation> violations;
  std::string digest;        // the final world (after recovery)
  std::string final_status;  // FlowRun.status after recovery
  bool fault_fired = false;  // at least one fault of the plan fired
  int faults_fired = 0;      // how many
};

// Picks the strategy of the run: called once, before the actors start, with the state key of the
// running world for state-hashing explorers: hashes of the current bytes of flow.db and its
// journal, and every actor's position (steps and last point). Deliberately not SimFs::Digest
// (forty times slower here): the key ignores durable images, and actor memory beyond positions.
using StrategySource =
    std::function<faults::ScheduleStrategy*(std::function<std::string()> state_key)>;

// keep_trace: RunResult::trace lists every scheduling point ("<actor>@<point>").
FlowRunResult RunFlowWorld(const StrategySource& strategy, const FlowOptions& options,
                           const FlowFault& fault, uint64_t max_steps = 20000,
                           bool keep_trace = false);
FlowRunResult RunFlowWorld(faults::ScheduleStrategy* strategy, const FlowOptions& options,
                           const FlowFault& fault, uint64_t max_steps = 20000,
                           bool keep_trace = false);
FlowRunResult RunFlowWorld(const StrategySource& strategy, const FlowOptions& options,
                           const FlowPlan& plan, uint64_t max_steps = 20000,
                           bool keep_trace = false);
FlowRunResult RunFlowWorld(faults::ScheduleStrategy* strategy, const FlowOptions& options,
                           const FlowPlan& plan, uint64_t max_steps = 20000,
                           bool keep_trace = false);

}  // namespace stepfault::scenarios::flow
