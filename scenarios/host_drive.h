// Driving and resuming, as every host does: opening the durable checkpoint store of a scenario
// directory with the configured store mutants, driving a run to its halt while recording the trace
// (and applying the observer-cancel variation), resuming with the topology variation, falling back
// to an intact ancestor, and choosing between start and resume. The checks every host shares are in
// host_oracles.h.
// Thread-safety: as the scenario's life.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/probe_points.h"
#include "engine/run.h"
#include "engine/stores/store_kinds.h"
#include "engine/workflow_spec.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// Opens the checkpoint store env.checkpoint_store names in dir/<subdir> (CheckpointStoreKinds,
// engine/stores/store_kinds.h): the file store, or the SQLite store in the kind's journal mode
// (dir/<subdir>/checkpoints.db through env.vfs_name), with the store mutants that apply to it;
// kInvalidArgument for an unknown name. Either makes what it inherits durable at open (the recovery
// rule, engine/env.h).
Result<std::unique_ptr<CheckpointStore>> OpenCheckpointStore(const HostEnv& env,
                                                             const std::string& subdir);
// RunOptions for a life: the env's profile, probe and seed, and `manager`.
RunOptions LifeRunOptions(const HostEnv& env, CheckpointManager* manager);

// Watches `run` until it halts; every event goes to the report's trace and to `on_event` (which may
// answer requests from inside the loop); the id of every checkpoint a SuperStepCompleted reports
// goes to the facts' "checkpoints_written" (what the life observed as committed). Under the
// observer-cancel variation the first watcher is cancelled after its first event, the run is driven
// on without a watcher and a second watcher collects the rest; the facts record whether the run
// survived that (INV-OBSERVER).
void Drive(StreamingRun& run, const HostEnv& env, LifeReport* report,
           const std::function<void(const WorkflowEvent&)>& on_event = nullptr);

}  // namespace stepfault::scenarios

namespace stepfault::scenarios {

// The probe a restore or resume attempt runs under when an oracle must know whether it imported
// anything: forwards every hit to `target` (the life's probe) and notes whether the engine began
// writing restored state into a run (restore.state.apply), whatever the attempt returned
// (INV-TOPOLOGY: an incompatible workflow is refused before any state is imported).
// Thread-safety: one thread.
class ImportWitness final : public Probe {
 public:
  void Retarget(Probe* target) {
    target_ = target != nullptr ? target : NullProbe();
    imported_ = false;
  }
  bool imported() const { return imported_; }
  void Hit(std::string_view point) override {
    if (point == points::kRestoreStateApply) imported_ = true;
    target_->Hit(point);
  }

 private:
  Probe* target_ = NullProbe();
  bool imported_ = false;
};

// Resumes `checkpoint` as a host does, and applies the topology variation first when the life has
// one: the resume is tried with the mutated workflow, as a careless rebuild would; the facts record
// whether it was rejected (topology_rejected) and whether the mutated workflow stayed usable
// (workflow_reusable) and whether the engine began importing its state before the refusal
// (topology_state_imported, observed through the restore.state.apply probe point, not through what
// the resume returned). A successful resume appends the checkpoint id to the facts'
// "resumed_from". A strict engine rejects it and the host goes on with the faithful rebuild;
// an engine that accepts it (a hazard) runs on with the mutated workflow.
Result<std::unique_ptr<StreamingRun>> ResumeAsHost(const HostEnv& env, const WorkflowSpec& spec,
                                                   const CheckpointInfo& checkpoint,
                                                   CheckpointManager* manager, LifeReport* report);

// Resumes the newest checkpoint of `index` that resumes, falling back to older ones while the
// newer ones are damaged (kCorruption): the documented fallback to an intact ancestor
// (INV-CORRUPT), the engine's one rule FallBackToNewestIntact (engine/checkpoint_store.h) with
// ResumeAsHost as the attempt. Any other failure stops the search and is returned.
Result<std::unique_ptr<StreamingRun>> ResumeLatestIntact(const HostEnv& env,
                                                         const WorkflowSpec& spec,
                                                         const std::vector<StoreEntry>& index,
                                                         CheckpointManager* manager,
                                                         LifeReport* report);

// The operator's next command for a host that keeps one session in `store`: "start" (no checkpoint
// of the session yet: a new run with `input`) or "resume" (hits host.resume, then the newest intact
// checkpoint). Sets report->command; on failure sets report->status, and report->final when the
// checkpoints are damaged beyond a fallback.
Result<std::unique_ptr<StreamingRun>> StartOrResume(const HostEnv& env, const WorkflowSpec& spec,
                                                    CheckpointStore* store,
                                                    CheckpointManager* manager,
                                                    const std::string& session_id,
                                                    const Message& input, LifeReport* report);

}  // namespace stepfault::scenarios
