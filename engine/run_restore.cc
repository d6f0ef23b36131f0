// Live restore and fresh resume (docs/engine-semantics.md §5.2, §5.4; docs/design.md §2 hazard
// table).
//
// Strict: fetch, decode, check compatibility and the checkpoint's own consistency with the
// workflow, build the complete new state aside, then swap it in; if an executor's restore hook
// fails, swap the old state back, so a failed restore leaves the run exactly as it was. Only then
// are the superseded responses dropped, the restoration observer notified, and pending requests
// re-emitted. non_atomic_restore reproduces MAF's phased import: state scopes, runner data,
// executor hooks, edge state, each applied as it goes, so a late failure leaves a half-restored
// run. Both hit restore.state.apply right before the first restored state is written into the run,
// after every check that may refuse the checkpoint, so whether a refused restore imported anything
// can be told without trusting its return value.
#include "engine/compat.h"
#include "engine/probe_points.h"
#include "engine/run.h"
#include "engine/run_internal.h"

namespace stepfault {

Result<std::unique_ptr<StreamingRun>> StreamingRun::Resume(std::shared_ptr<Workflow> workflow,
                                                           const CheckpointInfo& checkpoint,
                                                           RunOptions options) {
  SF_CHECK(workflow != nullptr);
  if (options.checkpoints == nullptr) {
    return Status::FailedPrecondition(
        "resume needs a checkpoint manager (RunOptions::checkpoints)");
  }
  std::shared_ptr<Workflow> wf = workflow;
  // Hazard: MAF's runner constructor takes ownership before anything is validated and a failed
  // resume never gives it back.
  if (options.profile.ownership_before_validation && !wf->TryAcquire()) {
    return Status::FailedPrecondition(
        "cannot use a workflow that is already owned by another run (it stays owned after a "
        "rejected resume under ownership-before-validation)");
  }
  const bool leak_ownership = options.profile.ownership_before_validation;
  std::unique_ptr<StreamingRun> run(new StreamingRun(std::move(workflow), std::move(options)));
  run->session_id_ = checkpoint.session_id;
  SF_ASSIGN_OR_RETURN(std::shared_ptr<const Checkpoint> cp,
                      run->options_.checkpoints->Lookup(checkpoint));
  if (!leak_ownership) {
    // Strict: everything that can be checked without the workflow's ownership is checked first.
    SF_RETURN_IF_ERROR(CheckCompatibility(cp->workflow, *wf, run->options_.profile));
    if (!wf->TryAcquire()) {
      return Status::FailedPrecondition(
          "the workflow is already owned by another run; end that run or build a new workflow");
    }
  }
  run->owns_workflow_ = !leak_ownership;
  Status s = run->ImportCheckpoint(checkpoint, *cp, /*fresh=*/true);
  if (!s.ok()) {
    run->owns_workflow_ = false;
    if (!leak_ownership) wf->Release();
    return s;
  }
  run->owns_workflow_ = true;
  run->started_ = true;
  return run;
}

Status StreamingRun::Restore(const CheckpointInfo& checkpoint) {
  if (ended_) {
    return Status::FailedPrecondition(
        "the run of session '" + session_id_ +
        "' has ended; resume a fresh run from the checkpoint instead");
  }
  if (options_.checkpoints == nullptr) {
    return Status::FailedPrecondition("this run has no checkpoint manager; nothing to restore");
  }
  SF_ASSIGN_OR_RETURN(std::shared_ptr<const Checkpoint> cp,
                      options_.checkpoints->Lookup(checkpoint));
  // MAF drops the superseded timeline's buffered events first; strict drops them only once the
  // restore succeeded, so a failed restore leaves the run exactly as it was.
  if (options_.profile.non_atomic_restore) buffered_.clear();
  return ImportCheckpoint(checkpoint, *cp, /*fresh=*/false);
}

Status StreamingRun::ImportCheckpoint(const CheckpointInfo& info, const Checkpoint& checkpoint,
                                      bool fresh) {
  if (checkpoint.session_id != info.session_id) {
    return Status::Corruption("checkpoint " + info.ToString() + " records session '" +
                              checkpoint.session_id + "'");
  }
  probe_->Hit(points::kRestoreImportBefore);
  Status s = options_.profile.non_atomic_restore ? ImportInPhases(info, checkpoint, fresh)
                                                 : ImportStrict(info, checkpoint, fresh);
  if (!s.ok()) return s;
  if (!fresh) {
    buffered_.clear();  // events of the superseded timeline
    in_cycle_ = false;
  }
  probe_->Hit(points::kRestoreImportAfter);
  AfterRestore(info);
  return Status::Ok();
}

Result<StreamingRun::Snapshot> StreamingRun::SnapshotFromCheckpoint(const Checkpoint& cp,
                                                                    bool fresh) const {
  Snapshot s;
  for (const std::string& id : cp.instantiated.Sorted()) {
    if (workflow_->FindBinding(id) == nullptr) {
      return Status::Incompatible("checkpoint instantiated executor '" + id +
                                  "' is not in the workflow");
    }
    s.instantiated_ids.insert(id);
  }
  for (const auto& [receiver, list] : cp.queued) {
    if (workflow_->FindBinding(receiver) == nullptr) {
      return Status::Incompatible("checkpoint queues messages for unknown executor '" + receiver +
                                  "'");
    }
    s.instantiated_ids.insert(receiver);
  }
  s.next_queue = cp.queued;  // shared: the run copies it before writing (shared_value.h)
  for (const PendingRequest& r : cp.outstanding) {
    if (workflow_->ports().count(r.port_id) == 0) {
      return Status::Incompatible("checkpoint request '" + r.request_id + "' names unknown port '" +
                                  r.port_id + "'");
    }
  }
  s.outstanding = cp.outstanding;
  s.state = cp.state;
  for (const auto& [id, state] : cp.edge_state) {
    const Edge* edge = workflow_->FindEdge(id);
    if (edge == nullptr || edge->kind != EdgeKind::kFanIn) {
      return Status::Incompatible("checkpoint has fan-in state for edge " + std::to_string(id) +
                                  ", which is not a fan-in edge of the workflow");
    }
    // Strict: the state must belong to this barrier. MAF imports it unchecked by EdgeId.
    if (!options_.profile.edge_id_blind_matching && state->sources != edge->sources) {
      return Status::Incompatible("fan-in state of edge " + std::to_string(id) +
                                  " belongs to a barrier with other sources");
    }
    s.fan_in[id] = options_.profile.fan_in_aliasing ? std::const_pointer_cast<FanInState>(state)
                                                    : std::make_shared<FanInState>(*state);
  }
  if (options_.profile.step_numbers_restart) {
    s.step_number = fresh ? 0 : step_number_;  // MAF reloads its own counter
  } else {
    s.step_number = cp.step_number + 1;
  }
  return s;
}

StreamingRun::Snapshot StreamingRun::TakeSnapshot() const {
  Snapshot s;
  s.next_queue = next_queue_;
  s.outstanding = outstanding_;
  s.state = state_;
  s.fan_in = fan_in_;
  s.instantiated_ids = instantiated_ids_;
  s.step_number = step_number_;
  s.last_checkpoint = last_checkpoint_;
  return s;
}

void StreamingRun::ApplySnapshot(Snapshot s) {
  next_queue_ = std::move(s.next_queue);
  outstanding_ = std::move(s.outstanding);
  state_ = std::move(s.state);
  fan_in_ = std::move(s.fan_in);
  instantiated_ids_ = std::move(s.instantiated_ids);
  instantiated_list_ = InstantiatedIds();
  step_number_ = s.step_number;
  last_checkpoint_ = std::move(s.last_checkpoint);
}

Status StreamingRun::NotifyExecutorsRestored() {
  for (auto& [id, ex] : executors_) {
    StepContext ctx(this, id);
    Status s = ex->OnCheckpointRestored(ctx);
    if (!s.ok()) return s.WithContext("OnCheckpointRestored of executor '" + id + "'");
  }
  return Status::Ok();
}

}  // namespace stepfault

namespace stepfault {

Status StreamingRun::ImportStrict(const CheckpointInfo& info, const Checkpoint& checkpoint,
                                  bool fresh) {
  SF_RETURN_IF_ERROR(CheckCompatibility(checkpoint.workflow, *workflow_, options_.profile));
  SF_ASSIGN_OR_RETURN(Snapshot next, SnapshotFromCheckpoint(checkpoint, fresh));
  next.last_checkpoint = info;
  // Executors instantiated after the checkpoint are kept and told about the restore, as in MAF.
  for (const auto& [id, ex] : executors_) next.instantiated_ids.insert(id);
  Snapshot old = TakeSnapshot();
  std::set<std::string> existed;
  for (const auto& [id, ex] : executors_) existed.insert(id);

  probe_->Hit(points::kRestoreStateApply);
  ApplySnapshot(std::move(next));
  for (const std::string& id : std::set<std::string>(instantiated_ids_)) Instantiate(id);
  Status s = NotifyExecutorsRestored();
  if (!s.ok()) {
    ApplySnapshot(std::move(old));
    for (auto it = executors_.begin(); it != executors_.end();) {
      if (existed.count(it->first) > 0) {
        ++it;
        continue;
      }
      hooked_executors_.erase(it->first);
      it = executors_.erase(it);
    }
    return s;
  }
  // Responses and inputs of the superseded timeline are dropped (MAF PR #5134).
  if (!options_.profile.stale_responses_kept) deferred_.clear();
  return Status::Ok();
}

Status StreamingRun::ImportInPhases(const CheckpointInfo& info, const Checkpoint& checkpoint,
                                    bool fresh) {
  SF_RETURN_IF_ERROR(CheckCompatibility(checkpoint.workflow, *workflow_, options_.profile));
  probe_->Hit(points::kRestoreStateApply);
  // Phase 1: state scopes.
  state_ = checkpoint.state;
  // Phase 2: runner data.
  for (const std::string& id : checkpoint.instantiated.Sorted()) {
    if (workflow_->FindBinding(id) == nullptr) {
      return Status::NotFound("executor '" + id + "' of the checkpoint is not in the workflow");
    }
    Instantiate(id);
  }
  if (!options_.profile.stale_responses_kept) deferred_.clear();
  next_queue_.Reset();
  for (const auto& [receiver, list] : checkpoint.queued) {
    if (workflow_->FindBinding(receiver) == nullptr) {
      return Status::NotFound("executor '" + receiver +
                              "' of the checkpoint is not in the workflow");
    }
    Instantiate(receiver);
    next_queue_.Mutable()[receiver] = list;
  }
  outstanding_ = checkpoint.outstanding;
  if (options_.profile.step_numbers_restart) {
    if (fresh) step_number_ = 0;
  } else {
    step_number_ = checkpoint.step_number + 1;
  }
  // Phase 3: executors.
  SF_RETURN_IF_ERROR(NotifyExecutorsRestored());
  // Phase 4: edge state by EdgeId, its sources unchecked.
  for (const auto& [id, state] : checkpoint.edge_state) {
    const Edge* edge = workflow_->FindEdge(id);
    if (edge == nullptr || edge->kind != EdgeKind::kFanIn) {
      return Status::NotFound("no fan-in edge with id " + std::to_string(id) +
                              " to import state into (the restore stopped half-way)");
    }
    fan_in_[id] = options_.profile.fan_in_aliasing ? std::const_pointer_cast<FanInState>(state)
                                                   : std::make_shared<FanInState>(*state);
  }
  // Phase 5.
  last_checkpoint_ = info;
  return Status::Ok();
}

void StreamingRun::AfterRestore(const CheckpointInfo& info) {
  probe_->Hit(points::kRestoreNotifyBefore);
  Status observer;
  options_.checkpoints->NotifyRestored(info, &observer);
  observer_status_ = observer;
  // The observer may have deleted checkpoints, and a fresh run starts from the store's index:
  // re-read it either way so the list never offers a checkpoint that is gone.
  Result<std::vector<CheckpointInfo>> index = options_.checkpoints->Index(session_id_);
  if (index.ok()) checkpoints_ = std::move(index).value();
  if (options_.profile.requests_not_reemitted) return;
  for (const PendingRequest& r : outstanding_) {
    WorkflowEvent e{EventKind::kRequestInfo};
    e.executor_id = r.port_id;
    e.request_id = r.request_id;
    e.message = r.data;
    Emit(std::move(e));
  }
}

}  // namespace stepfault
