// Driving and resuming (see host_drive.h).
#include "scenarios/host_drive.h"

#include <map>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"

namespace stepfault::scenarios {

namespace {

Result<std::unique_ptr<CheckpointStore>> OpenStoreOf(const HostEnv& env, const std::string& subdir);

}  // namespace

Result<std::unique_ptr<CheckpointStore>> OpenCheckpointStore(const HostEnv& env,
                                                             const std::string& subdir) {
  SF_ASSIGN_OR_RETURN(std::unique_ptr<CheckpointStore> store, OpenStoreOf(env, subdir));
  if (env.seams && env.seams->wrap_checkpoint_store) {
    return env.seams->wrap_checkpoint_store(std::move(store));
  }
  return store;
}

namespace {

Result<std::unique_ptr<CheckpointStore>> OpenStoreOf(const HostEnv& env,
                                                     const std::string& subdir) {
  const CheckpointStoreKind* kind = FindCheckpointStoreKind(env.checkpoint_store);
  if (kind == nullptr) {
    return Status::InvalidArgument(UnknownCheckpointStoreMessage(env.checkpoint_store));
  }
  CheckpointStoreKindOptions options;
  options.seed = env.root_seed;
  options.vfs_name = env.vfs_name;
  options.probe = env.probe;
  options.hazard_prune_on_read = env.store.prune_on_read;
  options.hazard_in_place_write = env.store.in_place_write;
  return OpenCheckpointStoreOfKind(env.env, *kind, JoinPath(env.dir, subdir), options);
}

}  // namespace

RunOptions LifeRunOptions(const HostEnv& env, CheckpointManager* manager) {
  RunOptions o;
  o.profile = env.profile;
  o.checkpoints = manager;
  o.probe = env.probe;
  o.seed = env.seed;
  if (env.max_steps > 0) o.max_steps_per_cycle = env.max_steps;
  return o;
}

void Drive(StreamingRun& run, const HostEnv& env, LifeReport* report,
           const std::function<void(const WorkflowEvent&)>& on_event) {
  const bool cancel_first = env.variation.kind == faults::FaultActionKind::kObserverCancel;
  bool cancelled = false;
  Result<EventStream> stream = run.Watch();
  SF_CHECK(stream.ok());
  for (int i = 0; i < 1'000'000; ++i) {
    std::optional<WorkflowEvent> e = stream->Next();
    if (!e) return;
    report->trace.push_back(e->ToJson().dump());
    if (e->kind == EventKind::kSuperStepCompleted && e->checkpoint) {
      // What this life observed as committed (the durability oracle holds it to that).
      report->facts["checkpoints_written"].push_back(e->checkpoint->checkpoint_id);
    }
    if (on_event) on_event(*e);
    if (cancel_first && !cancelled) {
      cancelled = true;
      stream->Cancel();
      report->facts["observer_cancelled"] = true;
      report->facts["run_ended_by_observer_cancel"] = run.status() == RunStatus::kEnded;
      run.RunUntilHalt();
      stream = run.Watch();
      SF_CHECK(stream.ok());
    }
  }
  SF_CHECK(false && "Drive: event bound hit");
}

}  // namespace stepfault::scenarios

#include "engine/probe_points.h"
#include "faults/topology_mutator.h"

namespace stepfault::scenarios {

namespace {

Result<std::unique_ptr<StreamingRun>> ResumeWith(const HostEnv& env, const WorkflowSpec& meant,
                                                 std::shared_ptr<Workflow> built,
                                                 const CheckpointInfo& checkpoint,
                                                 RunOptions options) {
  if (env.seams && env.seams->resume) {
    return env.seams->resume(meant, std::move(built), checkpoint, std::move(options));
  }
  return StreamingRun::Resume(std::move(built), checkpoint, std::move(options));
}

}  // namespace

Result<std::unique_ptr<StreamingRun>> ResumeAsHost(const HostEnv& env, const WorkflowSpec& spec,
                                                   const CheckpointInfo& checkpoint,
                                                   CheckpointManager* manager, LifeReport* report) {
  if (env.variation.kind == faults::FaultActionKind::kTopology &&
      faults::MutationApplies(spec, env.variation.mutation)) {
    auto mutated = faults::MutateTopology(spec, env.variation.mutation);
    SF_CHECK(mutated.ok());
    auto wf = mutated->Build();
    SF_CHECK(wf.ok());
    const std::string name =
        faults::FaultActionName(faults::FaultAction::Topology(env.variation.mutation));
    report->facts["topology_mutation"] = name;
    // One per thread, so the run of an accepted attempt (a hazard) can keep hitting it for the
    // rest of its life; a run never outlives its life, and the next attempt retargets it.
    thread_local ImportWitness witness;
    witness.Retarget(env.probe);
    RunOptions options = LifeRunOptions(env, manager);
    options.probe = &witness;
    auto run = ResumeWith(env, spec, *wf, checkpoint, std::move(options));
    report->facts["topology_state_imported"] = witness.imported();
    if (run.ok()) {
      report->facts["topology_rejected"] = false;
      report->trace.push_back("host: resume with " + name + " was accepted");
      return run;
    }
    report->facts["topology_rejected"] = true;
    report->facts["workflow_reusable"] = !(*wf)->owned();
    report->trace.push_back("host: resume with " + name + " rejected: " + run.status().ToString());
  }
  auto wf = spec.Build();
  if (!wf.ok()) return wf.status();
  // What the store may prune after this resume (INV-ANCESTRY): noted before, since a death inside
  // the resume may strike after the restore succeeded, in the middle of its pruning.
  report->facts["restoring"] = checkpoint.checkpoint_id;
  auto run = ResumeWith(env, spec, *wf, checkpoint, LifeRunOptions(env, manager));
  report->facts.erase("restoring");
  if (run.ok()) report->facts["resumed_from"].push_back(checkpoint.checkpoint_id);
  return run;
}

Result<std::unique_ptr<StreamingRun>> ResumeLatestIntact(const HostEnv& env,
                                                         const WorkflowSpec& spec,
                                                         const std::vector<StoreEntry>& index,
                                                         CheckpointManager* manager,
                                                         LifeReport* report) {
  std::unique_ptr<StreamingRun> run;
  Result<size_t> landed = FallBackToNewestIntact(index, [&](const StoreEntry& entry) -> Status {
    auto resumed = ResumeAsHost(env, spec, entry.info, manager, report);
    if (resumed.ok()) {
      run = std::move(resumed).value();
      return Status::Ok();
    }
    report->trace.push_back("host: cannot resume " + entry.info.checkpoint_id + ": " +
                            resumed.status().ToString());
    return resumed.status();
  });
  if (!landed.ok()) return landed.status();
  if (*landed + 1 != index.size()) {
    report->trace.push_back("host: fell back to " + index[*landed].info.checkpoint_id);
  }
  return run;
}

Result<std::unique_ptr<StreamingRun>> StartOrResume(const HostEnv& env, const WorkflowSpec& spec,
                                                    CheckpointStore* store,
                                                    CheckpointManager* manager,
                                                    const std::string& session_id,
                                                    const Message& input, LifeReport* report) {
  auto fail = [report](Status s) -> Result<std::unique_ptr<StreamingRun>> {
    report->status = s;
    report->final = s.code() == StatusCode::kCorruption;
    return s;
  };
  auto index = store->Index(session_id);
  if (!index.ok()) return fail(index.status());
  if (index->empty()) {
    report->command = "start";
    auto wf = spec.Build();
    if (!wf.ok()) return fail(wf.status());
    RunOptions o = LifeRunOptions(env, manager);
    o.session_id = session_id;
    auto started = StreamingRun::Start(*wf, input, o);
    if (!started.ok()) return fail(started.status());
    return started;
  }
  report->command = "resume";
  env.probe->Hit(points::kHostResume);
  auto resumed = ResumeLatestIntact(env, spec, *index, manager, report);
  if (!resumed.ok()) return fail(resumed.status());
  return resumed;
}

}  // namespace stepfault::scenarios
