// The restore-pruning host: the workflow, the chain build and the six cases.
#include "scenarios/restore_pruning/restore_pruning_host.h"

#include <functional>
#include <map>

#include "engine/crc32c.h"
#include "engine/probe_points.h"
#include "engine/random.h"
#include "faults/sim_fs.h"
#include "faults/topology_mutator.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/host_drive.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios {
namespace {

constexpr const char* kPort = "approval";
constexpr int kDirectEdgeDraftToReview = 2;  // EdgeIds follow the spec's edge order from 1

// The reviewer re-attaches to an outside service when its run is restored; while the progress
// file says that service is down, the restore hook fails (case 3).
class GuardedReviewer final : public Executor {
 public:
  GuardedReviewer(Env* env, std::string dir)
      : Executor("review", "GuardedReview", {"Review"}), env_(env), dir_(std::move(dir)) {}
  Status Handle(const Message& message, WorkflowContext& context) override {
    context.SendMessage(Message{"Ticket", message.body});
    return Status::Ok();
  }
  Status OnCheckpointRestored(WorkflowContext&) override {
    auto progress = ReadRestorePruningProgress(env_, dir_);
    if (!progress.ok())
      return progress.status().WithContext("review: reading progress.json on restore");
    if (progress->restore_hook_fails) {
      return Status::FailedPrecondition(
          "review cannot re-attach to its review service after the restore (restore_hook_fails is "
          "set in progress.json); clear it and restore again");
    }
    return Status::Ok();
  }

 private:
  Env* env_;
  std::string dir_;
};

CheckpointInfo Info(const RestorePruningLife& life, const std::string& id) {
  return CheckpointInfo{life.session_id, id};
}

RunOptions Options(const RestorePruningLife& life) {
  return LifeRunOptions(*life.env, life.manager);
}

void Note(RestorePruningLife& life, const std::string& text) {
  life.report->trace.push_back("host: " + text);
}

Result<RestorePruningView> View(const RestorePruningLife& life,
                                RestorePruningDepth depth = RestorePruningDepth::kCheckpoints) {
  return ReadRestorePruningView(*life.env, kRestorePruningStoreDir, depth);
}

// INV-ATOMIC's witness, read from checkpoint bytes rather than the run's objects: a manager that
// finds checkpoints in the life's store but commits into a private, unprobed world of its own, so
// what a run would go on to commit can be recorded without touching the world under test.
class SnapshotManager final : public CheckpointManager {
 public:
  SnapshotManager(CheckpointManager* main, uint64_t seed) : main_(main) {
    FileStoreOptions options;
    options.seed = seed;
    auto store = FileCheckpointStore::Open(&world_, "/snapshots", options);
    SF_CHECK(store.ok());
    store_ = std::move(store).value();
    commits_ = std::make_unique<StoreCheckpointManager>(store_.get());
  }
  Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) override {
    return commits_->Commit(checkpoint);
  }
  Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) override {
    return main_->Lookup(info);
  }
  Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) override {
    return main_->Index(session_id);
  }
  // Never prunes: the life's store is not this manager's to change.
  bool NotifyRestored(const CheckpointInfo&, Status* observer_status) override {
    *observer_status = Status::Ok();
    return false;
  }

  // Every checkpoint committed so far, decoded from the private world's bytes with the store's own
  // decoder (DurableCheckpoints), as body JSON; parent ids inside the private store are replaced
  // by their position, since only the link to the life's store (`first`) is meaningful.
  Json Snapshot() {
    HostEnv reader;
    reader.env = &world_;
    reader.dir = "/";
    auto stored = ReadDurableCheckpoints(reader, "snapshots");
    SF_CHECK(stored.ok());
    Json out = Json::array();
    std::map<std::string, size_t> position;
    for (const DurableCheckpoint& c : stored->items) {
      const Checkpoint* cp = c.decoded.get();  // decoded once per read (DurableCheckpoints)
      if (!c.intact || cp == nullptr) {
        out.push_back("undecodable: " + c.name);
        continue;
      }
      Json body = CheckpointBodyToJson(*cp);
      if (cp->parent && position.count(cp->parent->checkpoint_id) > 0) {
        body["parent"] = "#" + std::to_string(position[cp->parent->checkpoint_id]);
      }
      position[c.entry.info.checkpoint_id] = out.size();
      out.push_back(std::move(body));
    }
    return out;
  }

 private:
  CheckpointManager* main_;
  faults::SimFs world_;
  std::unique_ptr<FileCheckpointStore> store_;
  std::unique_ptr<StoreCheckpointManager> commits_;
};

uint64_t SnapshotSeed(const RestorePruningLife& life) {
  return DeriveSeed(life.env->root_seed, "restore-pruning|snapshots");
}

// A fresh run resumed from `from` that commits into `snapshots`.
Result<std::unique_ptr<StreamingRun>> SnapshotRun(RestorePruningLife& life, const std::string& from,
                                                  SnapshotManager* snapshots) {
  SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> wf, life.spec.Build());
  return StreamingRun::Resume(wf, Info(life, from), LifeRunOptions(*life.env, snapshots));
}

Status ResumeStatus(Result<std::unique_ptr<StreamingRun>> run) {
  return run.ok() ? Status::Ok() : run.status();
}

// Runs `attempt`, a restore or resume that must be rejected, between two views of the checkpoint
// directory (and two shapes of `live`, when the attempt is a live restore), and records them.
// `invariant` names what an accepted attempt violates. Fails only when a view cannot be read.
// A live run under a restore attempt, and what it must commit if the attempt changes nothing:
// the checkpoints a fresh resume of the same checkpoint, driven to its halt, committed (`before`).
struct LiveRun {
  StreamingRun* run = nullptr;
  SnapshotManager* commits = nullptr;  // the live run's manager
  Json before;
};

// The reference for a live run resumed from `from`: a fresh resume driven to its halt.
Result<Json> ReferenceSnapshot(RestorePruningLife& life, const std::string& from) {
  SnapshotManager reference(life.manager, SnapshotSeed(life));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> run, SnapshotRun(life, from, &reference));
  run->RunUntilHalt();
  return reference.Snapshot();
}

Status Attempt(RestorePruningLife& life, int case_no, const std::string& what,
               const char* invariant, LiveRun* live, const std::function<Status()>& attempt,
               bool* rejected = nullptr) {
  SF_ASSIGN_OR_RETURN(RestorePruningView before, View(life, RestorePruningDepth::kBytes));
  const Status s = attempt();
  SF_ASSIGN_OR_RETURN(RestorePruningView after, View(life, RestorePruningDepth::kBytes));
  Json fact{{"case", case_no},
            {"what", what},
            {"invariant", invariant},
            {"rejected", !s.ok()},
            {"code", std::string(StatusCodeName(s.code()))},
            {"before", before.ToJson()},
            {"after", after.ToJson()}};
  if (live != nullptr) {
    // What the run commits from here, from checkpoint bytes: the full snapshot (state scopes,
    // queued messages, fan-in buffers, outstanding requests, step, parent link) of every step.
    live->run->RunUntilHalt();
    fact["snapshot_before"] = live->before;
    fact["snapshot_after"] = live->commits->Snapshot();
  }
  life.report->facts["attempts"].push_back(std::move(fact));
  Note(life, "case " + std::to_string(case_no) + ": " + what + " -> " +
                 (s.ok() ? std::string("accepted") : s.ToString()));
  if (rejected != nullptr) *rejected = !s.ok();
  return Status::Ok();
}

// Records a restore of `target` that succeeded, with the directory before it and now.
Status RecordRestore(RestorePruningLife& life, int case_no, const std::string& target,
                     const RestorePruningView& before, bool observer_ok) {
  SF_ASSIGN_OR_RETURN(RestorePruningView after, View(life, RestorePruningDepth::kBytes));
  life.report->facts["restores"].push_back(
      Json{{"case", case_no},
           {"target", target},
           {"before_index", RestorePruningIndexJson(before, life.session_id)},
           {"before", before.ToJson()},
           {"after", after.ToJson()},
           {"observer_ok", observer_ok}});
  Note(life, "case " + std::to_string(case_no) + ": restored " + target +
                 (observer_ok ? "" : " (the store's prune reported a failure)"));
  return Status::Ok();
}

// The chain checkpoint `id`, decoded; kCorruption when it is damaged or gone.
Result<Checkpoint> ChainCheckpoint(const RestorePruningLife& life, const std::string& id) {
  SF_ASSIGN_OR_RETURN(RestorePruningView view, View(life));
  const RestorePruningFile* file = view.Find(id);
  if (file == nullptr || !file->checkpoint) {
    return Status::Corruption("chain checkpoint " + id +
                              " is damaged or missing; the cases cannot go on");
  }
  return *file->checkpoint;
}

Status DriveToHalt(StreamingRun& run, RestorePruningLife& life,
                   const std::function<void(const WorkflowEvent&)>& on_event = nullptr) {
  Status error;
  Drive(run, *life.env, life.report, [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
    if (on_event) on_event(e);
  });
  return error;
}

// Starts the run (or resumes a chain a dead life left half-built) until it waits for approval, and
// records the chain's first checkpoint and the one with the pending request.
Status BuildChain(RestorePruningLife& life) {
  SF_ASSIGN_OR_RETURN(RestorePruningView view, View(life));
  const RestorePruningFile* latest = nullptr;
  for (const RestorePruningFile& f : view.files) {
    if (f.envelope_ok && f.checkpoint && f.entry.info.session_id == life.session_id) latest = &f;
  }
  std::unique_ptr<StreamingRun> run;
  if (latest == nullptr) {
    SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> wf, life.spec.Build());
    RunOptions options = Options(life);
    options.session_id = life.session_id;
    SF_ASSIGN_OR_RETURN(
        run, StreamingRun::Start(wf, Message{"Job", Json{{"title", "q3 report"}}}, options));
    Note(life, "started the run");
  } else if (latest->checkpoint->outstanding.empty()) {
    life.env->probe->Hit(points::kHostResume);
    SF_ASSIGN_OR_RETURN(
        run, ResumeAsHost(*life.env, life.spec, latest->entry.info, life.manager, life.report));
    Note(life, "resumed the half-built chain at " + latest->entry.info.checkpoint_id);
  }
  if (run) {
    SF_RETURN_IF_ERROR(DriveToHalt(*run, life));
    if (run->status() != RunStatus::kPendingRequests) {
      return Status::FailedPrecondition("the run halted as " +
                                        std::string(RunStatusName(run->status())) +
                                        " instead of waiting for approval");
    }
  }
  SF_ASSIGN_OR_RETURN(view, View(life));
  const std::vector<StoreEntry> index = view.Index(life.session_id);
  const RestorePruningFile* pending = nullptr;
  for (const RestorePruningFile& f : view.files) {
    if (f.envelope_ok && f.checkpoint && f.entry.info.session_id == life.session_id &&
        !f.checkpoint->outstanding.empty()) {
      pending = &f;
    }
  }
  if (index.empty() || pending == nullptr || index.front().info == pending->entry.info) {
    return Status::FailedPrecondition("the chain has no checkpoint before its pending request");
  }
  life.progress.first_id = index.front().info.checkpoint_id;
  life.progress.pending_id = pending->entry.info.checkpoint_id;
  life.progress.request_id = pending->checkpoint->outstanding.front().request_id;
  Note(life, "chain: first " + life.progress.first_id + ", pending request " +
                 life.progress.request_id + " in " + life.progress.pending_id);
  return WriteRestorePruningProgress(life.env->env, life.env->dir, life.progress);
}

// Case 1: resuming with a workflow a careless rebuild produced is rejected and prunes nothing.
Status IncompatibleWorkflow(RestorePruningLife& life) {
  bool all_reusable = true;
  for (faults::TopologyMutation m : faults::AllTopologyMutations()) {
    if (!faults::MutationApplies(life.spec, m)) continue;
    SF_ASSIGN_OR_RETURN(WorkflowSpec mutated, faults::MutateTopology(life.spec, m));
    SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> wf, mutated.Build());
    bool rejected = false;
    ImportWitness witness;  // whether state was imported, whatever the resume returns
    witness.Retarget(life.env->probe);
    SF_RETURN_IF_ERROR(Attempt(
        life, 1, "resume with " + std::string(faults::TopologyMutationName(m)), kInvTopology,
        nullptr,
        [&] {
          RunOptions options = Options(life);
          options.probe = &witness;
          return ResumeStatus(
              StreamingRun::Resume(wf, Info(life, life.progress.pending_id), options));
        },
        &rejected));
    life.report->facts["attempts"].back()["state_imported"] = witness.imported();
    if (rejected && wf->owned()) all_reusable = false;
  }
  Json& facts = life.report->facts;
  facts["workflow_reusable"] = facts.value("workflow_reusable", true) && all_reusable;
  return Status::Ok();
}

// Case 2: checkpoints that are not checkpoints, committed with a parent link, are rejected.
Status MalformedCheckpoint(RestorePruningLife& life) {
  SF_ASSIGN_OR_RETURN(Checkpoint base, ChainCheckpoint(life, life.progress.pending_id));
  base.step_number += 1;
  base.parent = Info(life, life.progress.pending_id);
  Json sealed = Json::parse(EncodeCheckpointJson(base));
  Json tampered = sealed;
  tampered["body"]["step"] = 999;  // the checksum no longer matches
  Json not_a_body = Json{{"session_id", life.session_id}, {"step", "four"}};
  Json resealed = sealed;
  resealed["body"] = not_a_body;
  resealed["checksum"] = Crc32cTag(not_a_body.dump());
  const std::vector<std::pair<std::string, std::string>> junk = {
      {"an empty JSON object", "{}"},
      {"a checkpoint altered after it was sealed", tampered.dump()},
      {"a correctly sealed body that is not a checkpoint", resealed.dump()},
  };
  for (const auto& [what, bytes] : junk) {
    SF_ASSIGN_OR_RETURN(
        CheckpointInfo info,
        life.store->Commit(life.session_id, bytes, Info(life, life.progress.pending_id)));
    SF_RETURN_IF_ERROR(Attempt(life, 2, "resume of " + what, kInvCorrupt, nullptr, [&] {
      auto wf = life.spec.Build();
      return wf.ok() ? ResumeStatus(StreamingRun::Resume(*wf, info, Options(life))) : wf.status();
    }));
  }
  return Status::Ok();
}

// Case 3: a live restore whose executor hook fails leaves the run exactly as it was.
Status ExecutorFailsDuringRestore(RestorePruningLife& life) {
  if (life.progress.restore_hook_fails) {  // left set by a life that died in this case
    life.progress.restore_hook_fails = false;
    SF_RETURN_IF_ERROR(WriteRestorePruningProgress(life.env->env, life.env->dir, life.progress));
  }
  LiveRun snapshots;
  SF_ASSIGN_OR_RETURN(snapshots.before, ReferenceSnapshot(life, life.progress.first_id));
  SnapshotManager commits(life.manager, SnapshotSeed(life));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> live,
                      ResumeAsHost(*life.env, life.spec, Info(life, life.progress.first_id),
                                   &commits, life.report));
  snapshots.run = live.get();
  snapshots.commits = &commits;
  life.progress.restore_hook_fails = true;
  SF_RETURN_IF_ERROR(WriteRestorePruningProgress(life.env->env, life.env->dir, life.progress));
  SF_RETURN_IF_ERROR(Attempt(life, 3, "live restore while review's restore hook fails", kInvAtomic,
                             &snapshots,
                             [&] { return live->Restore(Info(life, life.progress.pending_id)); }));
  life.progress.restore_hook_fails = false;  // published with the case's completion
  return Status::Ok();
}

// Case 4: a checkpoint whose fan-in state names a direct edge fails inside the state import.
Status StateImportFails(RestorePruningLife& life) {
  SF_ASSIGN_OR_RETURN(Checkpoint bad, ChainCheckpoint(life, life.progress.pending_id));
  bad.step_number += 1;
  bad.parent = Info(life, life.progress.pending_id);
  bad.edge_state[kDirectEdgeDraftToReview] =
      std::make_shared<const FanInState>(FanInState{{"draft"}, {"draft"}, {}});
  SF_ASSIGN_OR_RETURN(CheckpointInfo info,
                      life.store->Commit(life.session_id, EncodeCheckpoint(bad),
                                         Info(life, life.progress.pending_id)));
  SF_RETURN_IF_ERROR(Attempt(
      life, 4, "fresh resume of a checkpoint with fan-in state on a direct edge", kInvTopology,
      nullptr, [&] {
        auto wf = life.spec.Build();
        return wf.ok() ? ResumeStatus(StreamingRun::Resume(*wf, info, Options(life))) : wf.status();
      }));
  LiveRun snapshots;
  SF_ASSIGN_OR_RETURN(snapshots.before, ReferenceSnapshot(life, life.progress.first_id));
  SnapshotManager commits(life.manager, SnapshotSeed(life));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> live,
                      ResumeAsHost(*life.env, life.spec, Info(life, life.progress.first_id),
                                   &commits, life.report));
  snapshots.run = live.get();
  snapshots.commits = &commits;
  return Attempt(life, 4, "live restore of that checkpoint", kInvAtomic, &snapshots,
                 [&] { return live->Restore(info); });
}

Status ObserverOutcome(bool ok, const StreamingRun& run) {
  if (ok) return Status::Ok();
  return Status(run.observer_status().code(),
                "the restore succeeded but the store's prune did not finish (" +
                    run.observer_status().ToString() + "); rerun the case to prune again");
}

// Case 5: a response queued before a live restore belongs to the superseded timeline.
Status StaleResponse(RestorePruningLife& life) {
  const CheckpointInfo pending = Info(life, life.progress.pending_id);
  SF_ASSIGN_OR_RETURN(RestorePruningView before, View(life, RestorePruningDepth::kEnvelopes));
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> live,
                      ResumeAsHost(*life.env, life.spec, pending, life.manager, life.report));
  bool observer_ok = live->observer_status().ok();
  SF_RETURN_IF_ERROR(live->SendResponse(ExternalResponse{
      life.progress.request_id, kPort, Message{"Decision", Json{{"approved", true}}}}));
  Status restored = live->Restore(pending);
  if (!restored.ok())
    return restored.WithContext("case 5: live restore of " + pending.checkpoint_id);
  observer_ok = observer_ok && live->observer_status().ok();
  SF_RETURN_IF_ERROR(RecordRestore(life, 5, pending.checkpoint_id, before, observer_ok));
  Json reemitted = Json::array();
  SF_RETURN_IF_ERROR(DriveToHalt(*live, life, [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kRequestInfo) reemitted.push_back(e.request_id);
  }));
  Json still_pending = Json::array();
  for (const PendingRequest& r : live->pending_requests()) still_pending.push_back(r.request_id);
  life.report->facts["stale_response"] = Json{{"request_id", life.progress.request_id},
                                              {"reemitted", reemitted},
                                              {"pending_after", still_pending}};
  return ObserverOutcome(observer_ok, *live);
}

// Case 6: answer the request, then restore the first checkpoint after the answer (not the latest).
Status RestoreNonLatest(RestorePruningLife& life) {
  SF_ASSIGN_OR_RETURN(RestorePruningView view, View(life));
  const RestorePruningFile* chosen =
      life.progress.case6_target.empty() ? nullptr : view.Find(life.progress.case6_target);
  if (chosen != nullptr && chosen->checkpoint) {
    // A life died after choosing the target: restore it with a fresh run.
    const CheckpointInfo target = chosen->entry.info;
    SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> run,
                        ResumeAsHost(*life.env, life.spec, target, life.manager, life.report));
    const bool observer_ok = run->observer_status().ok();
    SF_RETURN_IF_ERROR(RecordRestore(life, 6, target.checkpoint_id, view, observer_ok));
    return ObserverOutcome(observer_ok, *run);
  }
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> live,
                      ResumeAsHost(*life.env, life.spec, Info(life, life.progress.pending_id),
                                   life.manager, life.report));
  SF_RETURN_IF_ERROR(live->SendResponse(ExternalResponse{
      life.progress.request_id, kPort, Message{"Decision", Json{{"approved", true}}}}));
  std::vector<CheckpointInfo> committed;
  SF_RETURN_IF_ERROR(DriveToHalt(*live, life, [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kSuperStepCompleted && e.checkpoint)
      committed.push_back(*e.checkpoint);
  }));
  if (committed.size() < 2) {
    return Status::FailedPrecondition("answering the request committed " +
                                      std::to_string(committed.size()) +
                                      " checkpoints; case 6 needs one that is not the latest");
  }
  life.progress.case6_target = committed.front().checkpoint_id;
  SF_RETURN_IF_ERROR(WriteRestorePruningProgress(life.env->env, life.env->dir, life.progress));
  SF_ASSIGN_OR_RETURN(view, View(life, RestorePruningDepth::kEnvelopes));
  Status restored = live->Restore(committed.front());
  if (!restored.ok())
    return restored.WithContext("case 6: live restore of " + committed.front().checkpoint_id);
  const bool observer_ok = live->observer_status().ok();
  SF_RETURN_IF_ERROR(RecordRestore(life, 6, committed.front().checkpoint_id, view, observer_ok));
  return ObserverOutcome(observer_ok, *live);
}

}  // namespace

std::string RestorePruningCommand(int cases_done) {
  switch (cases_done) {
    case 0:
      return "case 1: incompatible workflow";
    case 1:
      return "case 2: malformed checkpoint";
    case 2:
      return "case 3: executor fails during restore";
    case 3:
      return "case 4: state import fails";
    case 4:
      return "case 5: stale response before a live restore";
    case 5:
      return "case 6: restore a non-latest checkpoint";
    default:
      return "verify";
  }
}

WorkflowSpec RestorePruningSpec(Env* env, const std::string& dir) {
  WorkflowSpec spec;
  spec.start_id = "intake";
  spec.executors.push_back(
      FunctionExecutor("intake", "Intake", {"Job"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.QueueStateUpdate("job", m.body);
        ctx.SendMessage(Message{"Draft", m.body});
        return Status::Ok();
      }));
  spec.executors.push_back(
      FunctionExecutor("draft", "Draft", {"Draft"}, [](const Message& m, WorkflowContext& ctx) {
        const int revision = ctx.ReadState("revision").value_or(Json(0)).get<int>() + 1;
        ctx.QueueStateUpdate("revision", revision);
        ctx.SendMessage(
            Message{"Review", Json{{"title", m.body.value("title", "")}, {"revision", revision}}});
        return Status::Ok();
      }));
  spec.executors.push_back(ExecutorBinding{"review", "GuardedReview", {"Review"}, [env, dir] {
                                             return std::make_unique<GuardedReviewer>(env, dir);
                                           }});
  spec.executors.push_back(
      FunctionExecutor("apply", "Apply", {"Decision"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(Message{"Applied", m.body});
        return Status::Ok();
      }));
  spec.ports.push_back(RequestPortSpec{kPort, "Ticket", "Decision"});
  spec.edges.push_back({EdgeKind::kDirect, {"intake"}, {"draft"}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {"draft"}, {"review"}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {"review"}, {kPort}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {kPort}, {"apply"}, nullptr, nullptr});
  spec.outputs = {"apply"};
  return spec;
}

Status RunRestorePruningCommand(RestorePruningLife& life) {
  const int done = life.progress.cases_done;
  if (done >= 6) {
    life.report->completed = true;
    return Status::Ok();
  }
  if (done == 0 && life.progress.pending_id.empty()) SF_RETURN_IF_ERROR(BuildChain(life));
  life.env->probe->Hit(points::kHostResume);
  life.report->facts["case"] = done + 1;
  switch (done) {
    case 0:
      SF_RETURN_IF_ERROR(IncompatibleWorkflow(life));
      break;
    case 1:
      SF_RETURN_IF_ERROR(MalformedCheckpoint(life));
      break;
    case 2:
      SF_RETURN_IF_ERROR(ExecutorFailsDuringRestore(life));
      break;
    case 3:
      SF_RETURN_IF_ERROR(StateImportFails(life));
      break;
    case 4:
      SF_RETURN_IF_ERROR(StaleResponse(life));
      break;
    default:
      SF_RETURN_IF_ERROR(RestoreNonLatest(life));
      break;
  }
  life.progress.cases_done = done + 1;
  SF_RETURN_IF_ERROR(WriteRestorePruningProgress(life.env->env, life.env->dir, life.progress));
  life.report->completed = life.progress.cases_done >= 6;
  return Status::Ok();
}

}  // namespace stepfault::scenarios
