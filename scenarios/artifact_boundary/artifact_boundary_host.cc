// The artifact-boundary host: commands, checkpoint selection, live restore, deduplicated
// publication, and the in-memory checkpoint audit.
#include "scenarios/artifact_boundary/artifact_boundary_host.h"

#include <set>
#include <utility>
#include <vector>

#include "engine/checkpoint_manager.h"
#include "engine/probe_points.h"
#include "engine/random.h"
#include "scenarios/artifact_boundary/artifact_boundary_workflow.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/host_drive.h"

namespace stepfault::scenarios {
namespace {

// What the host saw of one watched segment of a run.
struct Segment {
  std::set<std::string> protected_ids;  // executors that must not run in this segment
  std::string replay_fact;              // the facts key that lists those that did ("" = none)
  int outputs = 0;
  Status error;
  bool boundary_completed = false;  // the guide's flag, reset when a checkpoint is selected
  bool boundary_seen = false;
  std::optional<CheckpointInfo> after_boundary;  // the guide's selection
  int64_t after_boundary_step = -1;
  std::optional<CheckpointInfo> before_boundary;  // the latest checkpoint before it (the mutant's)
  int64_t before_boundary_step = -1;
};

class HostLife {
 public:
  HostLife(HostEnv& env, LifeReport* report)
      : env_(env), report_(report), job_(ArtifactJobId(env.root_seed)), manager_(env.seed) {}

  void Run() {
    report_->command = "inspect";
    env_.probe->Hit(points::kHostResume);
    auto ledger = ArtifactLedger::Open(env_.dir, env_.vfs_name, env_.probe, env_.env);
    if (!ledger.ok()) return Fail(ledger.status());
    ledger_ = std::move(ledger).value();
    // Every durable store is opened at startup, the recovery run's checkpoints too, so whatever
    // command follows acts on state made durable first (the recovery rule, at the store's open).
    auto recovery = OpenCheckpointStore(env_, kArtifactRecoveryDir);
    if (!recovery.ok()) return Fail(recovery.status());
    recovery_store_ = std::move(recovery).value();
    auto published = ledger_->Publication(job_);
    if (!published.ok()) return Fail(published.status());
    if (*published) {
      report_->command = "verify";
      report_->trace.push_back("host: the terminal output is published: " + **published);
      report_->completed = true;
      return;
    }
    // The recovery rule (engine/env.h): the artifact a dead process published is made durable
    // before this life acts on it.
    Status durable = MakeInheritedDurable(env_.env, JoinPath(env_.dir, kArtifactsDir),
                                          {std::string(kAcceptedArtifactFile)});
    if (!durable.ok()) return Fail(durable);
    auto accepted = ReadAcceptedArtifact(env_.env, env_.dir);
    if (!accepted.ok()) {
      report_->command = "recover";
      report_->final = accepted.status().code() == StatusCode::kCorruption;
      return Fail(accepted.status());
    }
    if (*accepted) {
      report_->command = "recover";
      return Recover(**accepted);
    }
    auto calls = ledger_->ProviderCalls();
    if (!calls.ok()) return Fail(calls.status());
    report_->command = calls->empty() ? "start" : "restart";
    StartOver();
  }

 private:
  void Fail(const Status& s) {
    report_->status = s;
    report_->trace.push_back("host: " + s.ToString());
  }

  Result<int64_t> ProviderCallCount() {
    SF_ASSIGN_OR_RETURN(std::vector<ProviderCall> calls, ledger_->ProviderCalls());
    return static_cast<int64_t>(calls.size());
  }

  // No accepted artifact: run the whole workflow, then restore the accepted-boundary checkpoint on
  // the same live handle and watch the restored segment.
  void StartOver() {
    segment_name_ = "original";
    auto run = StartRun(Message{"Job", Json{{"job", job_}}});
    if (!run.ok()) return Fail(run.status());
    Segment original;
    DriveSegment(**run, original);
    if (!original.error.ok() || (*run)->status() != RunStatus::kIdle) {
      const Status ended = Status::Cancelled("the run ended before it halted (" +
                                             std::string(RunStatusName((*run)->status())) +
                                             "); run the next command to recover");
      return Finish(**run, original.error.ok() ? ended : original.error);
    }
    const bool too_early = env_.hazards.count(kHazardBoundaryCheckpointTooEarly) > 0;
    const std::optional<CheckpointInfo>& selected =
        too_early ? original.before_boundary : original.after_boundary;
    if (!selected) {
      return Finish(**run, Status::Internal(
                               "no checkpoint was committed after the accepted artifact boundary"));
    }
    report_->facts["selected_checkpoint_step"] =
        too_early ? original.before_boundary_step : original.after_boundary_step;
    auto calls_before = ProviderCallCount();
    if (!calls_before.ok()) return Finish(**run, calls_before.status());
    segment_name_ = "restored";
    report_->trace.push_back("host: restoring " + selected->ToString() + " on the live run");
    Status restored = (*run)->Restore(*selected);
    if (!restored.ok()) return Finish(**run, restored.WithContext("live restore"));
    Segment replay;
    replay.protected_ids = {kDispatchId, kProducerAId, kProducerBId, kManifestId, kBoundaryId};
    replay.replay_fact = "replayed_after_restore";
    DriveSegment(**run, replay);
    auto calls_after = ProviderCallCount();
    if (!calls_after.ok()) return Finish(**run, calls_after.status());
    report_->facts["provider_calls_after_restore"] = *calls_after - *calls_before;
    if (replay.error.ok() && (*run)->status() == RunStatus::kIdle) {
      report_->facts["restored_outputs"] = replay.outputs;
    }
    Finish(**run, replay.error);
  }

  // An accepted artifact and no publication: the in-memory checkpoints died with the process that
  // made them; recover from the application-owned artifact without calling the producers. The
  // recovery run is checkpointed in the durable store the host is configured with
  // (env.checkpoint_store, in <dir>/recovery; ArtifactRecoverySession), so a life that dies during
  // recovery resumes it from its latest intact checkpoint; when none resumes (all damaged), it
  // recovers from the artifact again with in-memory checkpoints, as before acceptance.
  void Recover(const AcceptedArtifact& accepted) {
    // The artifact we act on must be durable even if the life that renamed it failed to sync.
    Status synced = env_.env->SyncDir(JoinPath(env_.dir, kArtifactsDir));
    if (!synced.ok()) return Fail(synced.WithContext("making the accepted artifact durable"));
    auto calls_before = ProviderCallCount();
    if (!calls_before.ok()) return Fail(calls_before.status());
    segment_name_ = "recovered";
    report_->trace.push_back("host: recovering from accepted artifact " + accepted.artifact_id);
    auto run = StartRecoveryRun(Message{"Accepted", accepted.ToJson()});
    report_->command = "recover";
    if (!run.ok()) return Fail(run.status());
    Segment recovered;
    recovered.protected_ids = {kProducerAId, kProducerBId, kManifestId, kBoundaryId};
    recovered.replay_fact = "replayed_after_acceptance";
    DriveSegment(**run, recovered);
    auto published = ledger_->Publication(job_);
    if (active_ != &manager_ && recovered.error.ok() && recovered.outputs == 0 &&
        (*run)->status() == RunStatus::kIdle && published.ok() && !published->has_value()) {
      // The resumed recovery run had already yielded its output before the crash, which took the
      // publication: the output is not in any checkpoint, so recover from the artifact again.
      report_->trace.push_back("host: the resumed recovery run yields no output; recovering " +
                               std::string("from the artifact again"));
      run = StartRun(Message{"Accepted", accepted.ToJson()});
      if (!run.ok()) return Fail(run.status());
      DriveSegment(**run, recovered);
    }
    auto calls_after = ProviderCallCount();
    if (!calls_after.ok()) return Finish(**run, calls_after.status());
    report_->facts["provider_calls_after_acceptance"] = *calls_after - *calls_before;
    Finish(**run, recovered.error);
  }

  Result<std::unique_ptr<StreamingRun>> StartRecoveryRun(Message input) {
    durable_ = std::make_unique<HostCheckpointManager>(recovery_store_.get(),
                                                       HostCheckpointOptions(env_), env_, report_);
    deps_ = ArtifactWorkflowDeps{env_.env, env_.dir, env_.root_seed, ledger_.get(), &segment_name_};
    auto run =
        StartOrResume(env_, BuildArtifactBoundarySpec(deps_), recovery_store_.get(), durable_.get(),
                      ArtifactRecoverySession(env_.root_seed), input, report_);
    if (run.ok()) {
      active_ = durable_.get();
      return run;
    }
    if (run.status().code() != StatusCode::kCorruption) return run.status();
    report_->trace.push_back("host: the recovery checkpoints are damaged (" +
                             run.status().ToString() + "); recovering from the artifact again");
    report_->status = Status::Ok();
    report_->final = false;
    return StartRun(std::move(input));
  }

  Result<std::unique_ptr<StreamingRun>> StartRun(Message input) {
    active_ = &manager_;
    deps_ = ArtifactWorkflowDeps{env_.env, env_.dir, env_.root_seed, ledger_.get(), &segment_name_};
    SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> wf, BuildArtifactBoundarySpec(deps_).Build());
    return StreamingRun::Start(wf, std::move(input), LifeRunOptions(env_, &manager_));
  }

  // Drive() overwrites the observer fact on every call; an earlier segment's verdict must stand.
  void DriveSegment(StreamingRun& run, Segment& segment) {
    const bool ended_before = report_->facts.value("run_ended_by_observer_cancel", false);
    Drive(run, env_, report_, [&](const WorkflowEvent& e) { OnEvent(segment, e); });
    if (ended_before) report_->facts["run_ended_by_observer_cancel"] = true;
  }

  void OnEvent(Segment& segment, const WorkflowEvent& e) {
    switch (e.kind) {
      case EventKind::kExecutorInvoked:
        if (segment.protected_ids.count(e.executor_id) != 0) {
          // Recorded at once: the life may die before the segment ends.
          report_->facts[segment.replay_fact].push_back(e.executor_id);
        }
        break;
      case EventKind::kExecutorCompleted:
        if (e.executor_id == kBoundaryId) segment.boundary_completed = segment.boundary_seen = true;
        break;
      case EventKind::kSuperStepCompleted:
        if (!e.checkpoint) break;
        RecordCommitted(*e.checkpoint, e.step);
        if (!segment.after_boundary && segment.boundary_completed) {
          segment.after_boundary = e.checkpoint;
          segment.after_boundary_step = e.step;
          segment.boundary_completed = false;
        }
        if (!segment.boundary_seen) {
          segment.before_boundary = e.checkpoint;
          segment.before_boundary_step = e.step;
        }
        break;
      case EventKind::kWorkflowOutput:
        if (e.executor_id == kSynthesisId && e.message) {
          ++segment.outputs;
          Publish(e.message->body.value("text", std::string()));
        }
        break;
      case EventKind::kWorkflowError:
        if (segment.error.ok()) segment.error = e.error;
        break;
      default:
        break;
    }
  }

  // Deduplicated terminal publication: the first output is published, later (at-least-once)
  // duplicates are only counted.
  void Publish(const std::string& text) {
    Json& f = report_->facts;
    f["outputs"] = f.value("outputs", 0) + 1;
    env_.probe->Hit(points::kOutputPublishBefore);
    auto outcome = ledger_->Publish(job_, text);
    if (!outcome.ok()) {
      publish_error_ = outcome.status().WithContext("publishing the terminal output");
      report_->trace.push_back("host: " + publish_error_.ToString());
      return;
    }
    if (!outcome->newly) f["duplicate_outputs"] = f.value("duplicate_outputs", 0) + 1;
    if (outcome->value != text) f["output_mismatch"] = true;
  }

  // The committed checkpoint as it is now, to compare at the end of the life.
  void RecordCommitted(const CheckpointInfo& info, int64_t step) {
    // A durable recovery run's checkpoints are judged from the store's bytes by the oracle
    // (CheckAncestry), never read back through the host's store.
    if (active_ != &manager_) return;
    // An in-memory checkpoint dies with the process: Drive() listed it as observed committed (the
    // durability oracle's "checkpoints_written", which it then expects to find in the durable
    // store); move it to the facts of what only memory held, so the observations say what is true.
    Json& written = report_->facts["checkpoints_written"];
    if (written.is_array() && !written.empty() && written.back() == info.checkpoint_id) {
      report_->facts["in_memory_checkpoints"].push_back(written.back());
      written.erase(written.end() - 1);
    }
    auto cp = active_->Lookup(info);
    SF_CHECK(cp.ok());  // the in-memory manager returns what it committed
    committed_.push_back({info, step, EncodeCheckpoint(**cp)});
  }

  // INV-ANCESTRY for in-memory checkpoints: none changed after commit; parent links chain.
  void AuditCheckpoints() {
    std::map<std::string, int64_t> steps;
    for (const Committed& c : committed_) steps[c.info.checkpoint_id] = c.step;
    for (size_t i = 0; i < committed_.size(); ++i) {
      const Committed& c = committed_[i];
      auto cp = manager_.Lookup(c.info);
      SF_CHECK(cp.ok());  // the in-memory manager returns what it committed
      const std::string where =
          "step " + std::to_string(c.step) + " (" + c.info.checkpoint_id + ")";
      if (EncodeCheckpoint(**cp) != c.encoded)
        report_->facts["checkpoints_changed_after_commit"].push_back(where);
      if (i > 0 && !(*cp)->parent) {
        report_->facts["ancestry_errors"].push_back(where + " has no parent link");
      } else if ((*cp)->parent) {
        auto parent = steps.find((*cp)->parent->checkpoint_id);
        if (parent == steps.end() || parent->second + 1 != c.step) {
          report_->facts["ancestry_errors"].push_back(where + " names parent " +
                                                      (*cp)->parent->checkpoint_id +
                                                      " which is not the step before");
        }
      }
    }
  }

  void Finish(StreamingRun& run, const Status& run_error) {
    AuditCheckpoints();
    if (!run_error.ok()) return Fail(run_error);
    // A publication whose COMMIT failed may be visible and still not durable (a failed directory
    // sync after the journal was deleted): never report completion on it. The next life reopens
    // the ledger, makes what it inherits durable, and verifies.
    if (!publish_error_.ok()) return Fail(publish_error_);
    auto published = ledger_->Publication(job_);
    if (!published.ok()) return Fail(published.status());
    report_->completed = published->has_value() && run.status() == RunStatus::kIdle;
    if (!report_->completed)
      Fail(Status::FailedPrecondition("the terminal output is not published yet"));
  }

  struct Committed {
    CheckpointInfo info;
    int64_t step;
    std::string encoded;
  };

  HostEnv& env_;
  LifeReport* report_;
  const std::string job_;
  InMemoryCheckpointManager manager_;
  std::unique_ptr<CheckpointStore> recovery_store_;  // the recovery run's durable store
  std::unique_ptr<HostCheckpointManager> durable_;   // over recovery_store_
  CheckpointManager* active_ = &manager_;            // where the watched run commits
  std::unique_ptr<ArtifactLedger> ledger_;
  std::string segment_name_;
  ArtifactWorkflowDeps deps_;
  std::vector<Committed> committed_;
  Status publish_error_;
};

}  // namespace

std::string ArtifactJobId(uint64_t root_seed) {
  return DeriveId(root_seed, "artifact-boundary|job");
}

std::string ArtifactRecoverySession(uint64_t root_seed) {
  return DeriveId(root_seed, "artifact-boundary|recovery");
}

void RunArtifactBoundaryLife(HostEnv& env, LifeReport* report) { HostLife(env, report).Run(); }

}  // namespace stepfault::scenarios
