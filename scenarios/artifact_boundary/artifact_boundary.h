// artifact-boundary: ADR-0015 and the "Checkpointed Workflows" guide (docs/sources.md, seed
// 000/001, docs/design.md §7).
//
// Two producers fan out from dispatch and join in the all-settled "manifest" barrier; the
// deterministic "accepted-artifact-boundary" publishes the accepted artifact durably; "synthesis"
// yields the terminal output (artifact_boundary_workflow.h). The host keeps its checkpoints in an
// InMemoryCheckpointManager, as ADR-0015's example does, so they die with the process:
//  - start/restart (no accepted artifact): run; select the checkpoint of the first
//    SuperStepCompleted after ExecutorCompleted of the boundary (the guide's rule); let synthesis
//    run once; restore that checkpoint on the same live run and watch the restored segment, which
//    must yield exactly one terminal output and run nothing at or before the boundary;
//  - recover (accepted artifact, no publication): no fresh-process resume (the guide rules it out);
//    a new run gets the accepted artifact, routed straight to synthesis: no producer is called;
//  - verify (publication exists): done.
// Every terminal output is published through the ledger, deduplicated by the job's key; duplicates
// are counted in the facts. Every life starts with host.resume (the observer-cancel variation).
// Invariants: INV-NOREPLAY, INV-ALO, INV-IDEM, INV-ANCESTRY (in-memory checkpoints never change
// after commit), INV-OBSERVER. Mutants it kills: boundary_checkpoint_too_early, fan_in_aliasing,
// watcher_cancel_ends_run.
// Thread-safety: the scenario object is immutable.
#pragma once

#include <memory>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {}  // namespace stepfault::scenarios
