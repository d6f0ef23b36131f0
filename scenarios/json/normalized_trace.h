// The normalized trace of a JSON scenario run on Stepfault's engine: the same lines maf-runner
// (maf/Runner) prints for the real MAF, so `stepfault differential` can compare the two line by
// line (format: docs/engine-semantics.md §11).
//
// Host protocol, the runner's: run until the run halts; answer every request that cycle reported
// with the scenario's scripted response (in the order of the trace's request names); run again;
// stop when a halt leaves nothing to answer or the run ended. Modes:
//   run         the run from the scenario's input;
//   restore:N   that run, then a live Restore of its checkpoint N on the same handle, driven to a
//               halt;
//   resume:N    that run, then a new workflow instance and StreamingRun::Resume from checkpoint N
//               (the same checkpoint store, as a new process would find it), driven to a halt.
// A restore or resume trace holds only what happened after the restore. Checkpoints go through a
// StoreCheckpointManager (full snapshots, every one encoded and decoded) over a memory store, as
// the runner's go through MAF's JSON checkpoint manager; effects and fail-once markers live in a
// private temporary directory that outlives the modes' runs of one call and is removed after it.
// Normalization: events grouped per super-step, each group's members sorted (multisets: MAF runs
// a step's receivers concurrently); request ids named r1, r2, ... in order of first appearance in
// the sorted lines; checkpoints named cp0, cp1, ... in commit order; a fan-in barrier named by
// its sink and sorted sources. Thread-safety: a call is self-contained.
#pragma once

#include <string>
#include <vector>

#include "engine/json_text.h"
#include "engine/profile.h"
#include "engine/status.h"

namespace stepfault::scenarios {

struct TraceMode {
  enum Kind { kRun, kRestore, kResume } kind = kRun;
  int checkpoint = -1;  // restore, resume: the checkpoint's ordinal

  // "run", "restore:3", "resume:3".
  std::string ToString() const;
  static Result<TraceMode> Parse(const std::string& text);
};

// The trace's lines (canonical JSON objects). `profile`: the engine profile (the differential
// uses MafCompat). Fails on a document that does not parse, and on a mode whose checkpoint the
// run did not write (kInvalidArgument, naming the range).
Result<std::vector<Json>> EngineNormalizedTrace(const std::string& scenario_text,
                                                const std::string& source_name, TraceMode mode,
                                                const EngineProfile& profile);

// How many checkpoints the fault-free run writes (the restore and resume modes' range).
Result<int> EngineCheckpointCount(const std::string& scenario_text, const std::string& source_name,
                                  const EngineProfile& profile);

}  // namespace stepfault::scenarios
