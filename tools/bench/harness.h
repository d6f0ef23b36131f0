// StepHarness: one run of a benchmark workflow under one checkpointing mode, driven exactly one
// super-step at a time through an EventStream (EventStream::Next runs one step when its buffer is
// empty), so a benchmark iteration is one super-step.
//
// Workflows (never halt, so steps can be taken forever):
//  - linear: a ring of `width` executors e0 -> e1 -> ... -> e0 passing one token; the token holder
//    rewrites its private state each step, so the checkpoint carries `width` states of which one
//    is fresh.
//  - fanin: a hub fans a Go out to `width` workers, a fan-in barrier brings their Parts back to
//    the hub. A Kick from the hub to itself in step 0 puts two waves in flight, so from step 2 on
//    the hub and every worker run in every step and each rewrites its private state every step.
// State is one JSON string of `state_bytes` hex characters under key "blob" in the executor's
// private scope, a fresh slice of the byte pool per (executor, step).
//
// The run is rebuilt when the checkpoints it retains reach a budget, so memory stays bounded:
// benchmarks call FreeRun (destroying the retained checkpoints, a cost of the steps that made
// them) and then Reset (a new run and its warm-up) with timing paused. Every reset warms up
// `warm_steps` steps (at least `width` for the ring, so every executor's state is in every timed
// checkpoint). Thread-safety: single-threaded.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "engine/workflow.h"
#include "tools/bench/modes.h"

namespace stepfault::bench {

enum class Shape { kLinear, kFanIn };

// With StepConfig::static_state, executors write their state in steps below this only.
inline constexpr int64_t kStaticStateSteps = 3;

struct StepConfig {
  Shape shape = Shape::kFanIn;
  int width = 1;             // ring length (linear) or worker count (fanin)
  size_t state_bytes = 100;  // per executor
  // Every executor writes its state in its first steps only and never changes it afterwards
  // (steady state: a step that changes nothing): what incremental checkpoints save.
  bool static_state = false;
};

// Executors that hold state, and the state bytes a checkpoint carries in steady state.
int StatefulExecutors(const StepConfig& config);
size_t TotalStateBytes(const StepConfig& config);
std::shared_ptr<Workflow> BuildWorkflow(const StepConfig& config);

class StepHarness {
 public:
  // Retained checkpoint budget before a reset.
  static constexpr size_t kRetainedBytesBudget = 256u << 20;
  static constexpr int64_t kMaxStepsPerRun = 4096;

  StepHarness(const Mode& mode, StepConfig config, int warm_steps = 3);
  ~StepHarness();
  StepHarness(const StepHarness&) = delete;
  StepHarness& operator=(const StepHarness&) = delete;

  // Runs exactly one super-step. Aborts (SF_CHECK) if the run reports an error: a benchmark
  // that silently measures a failing run would be worse than none.
  void Step();
  // True when the run should be rebuilt before the next timed step.
  bool Exhausted() const;
  // Destroys the run, its manager and its store: frees every checkpoint the run retained in
  // memory (a disk mode's scratch directory is left for Reset). Benchmarks time this as part of
  // the steps that made those checkpoints (BM_Step, step_bench.cc).
  void FreeRun();
  // FreeRun (when not done yet), then a new run warmed up by `warm_steps` steps.
  void Reset();

  // Encoded size of the last checkpoint (0 without checkpointing), read back through the manager
  // and checked: its step, and (once warm) that it carries exactly TotalStateBytes. Not for timed
  // regions.
  size_t LastCheckpointBytes();
  // What the store holds per checkpoint (deltas when incremental), amortised over one cycle of
  // a full snapshot and full_every - 1 deltas; LastCheckpointBytes without a store. Not for timed
  // regions.
  double StoredBytesPerStep();
  StreamingRun& run() { return *run_; }
  CheckpointManager* manager() { return manager_.get(); }
  CheckpointStore* store() { return store_.get(); }  // null unless a store mode

 private:
  void TearDown();

  Mode mode_;
  StepConfig config_;
  int warm_steps_;
  std::shared_ptr<Workflow> workflow_;
  std::string dir_;
  std::unique_ptr<CheckpointStore> store_;
  std::unique_ptr<CheckpointManager> manager_;
  std::unique_ptr<StreamingRun> run_;
  std::optional<EventStream> stream_;
  int64_t steps_ = 0;
  int64_t max_steps_ = kMaxStepsPerRun;
};

}  // namespace stepfault::bench
