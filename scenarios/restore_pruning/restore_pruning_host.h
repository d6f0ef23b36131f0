// The restore-pruning host: the workflow and the operator commands of the pruning PR's cases
// (docs/sources.md, seed 002, docs/engine-semantics.md §4.4, §5.4), one command per life.
//
// Workflow: intake -> draft -> review -> request port "approval" (Ticket -> Decision) -> apply.
// `review` is a guarded executor whose OnCheckpointRestored fails while progress.json says
// restore_hook_fails (the dependency it re-attaches to on restore is down).
// The first command builds the chain (one checkpoint per step, the last with the pending request);
// the cases then try restores that must fail and two that must succeed, recording in the life's
// facts the checkpoint directory's bytes before and after each (and the live run's shape around
// each live restore), for the oracle in restore_pruning.cc.
// Every command can be cut at any point and rerun from durable state alone.
// Thread-safety: as the scenario's life.
#pragma once

#include <string>

#include "engine/checkpoint_manager.h"
#include "engine/stores/file_store.h"
#include "engine/workflow_spec.h"
#include "scenarios/restore_pruning/restore_pruning_view.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

inline constexpr const char* kRestorePruningStoreDir = "checkpoints";

// The operator's command for progress `cases_done` (0..6): "case N: ..." or "verify".
std::string RestorePruningCommand(int cases_done);

// The workflow; the guarded executor reads the progress file in `dir` through `env`.
WorkflowSpec RestorePruningSpec(Env* env, const std::string& dir);

// One life's host state.
struct RestorePruningLife {
  HostEnv* env = nullptr;
  LifeReport* report = nullptr;
  CheckpointStore* store = nullptr;
  CheckpointManager* manager = nullptr;
  WorkflowSpec spec;
  std::string session_id;
  std::string store_dir;
  RestorePruningProgress progress;
};

// Runs the next command. An error is the life's status (the next life retries the command).
Status RunRestorePruningCommand(RestorePruningLife& life);

}  // namespace stepfault::scenarios
