// Shared host pieces.
#include "scenarios/host.h"

#include <map>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"

namespace stepfault::scenarios {

Result<std::unique_ptr<FileCheckpointStore>> OpenCheckpointStore(const HostEnv& env,
                                                                 const std::string& subdir) {
  FileStoreOptions options;
  options.seed = env.root_seed;
  options.hazard_prune_on_read = env.store.prune_on_read;
  options.hazard_in_place_write = env.store.in_place_write;
  return FileCheckpointStore::Open(env.env, JoinPath(env.dir, subdir), options);
}

RunOptions LifeRunOptions(const HostEnv& env, CheckpointManager* manager) {
  RunOptions o;
  o.profile = env.profile;
  o.checkpoints = manager;
  o.probe = env.probe;
  o.seed = env.seed;
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

void CheckAncestry(HostEnv& env, const std::string& subdir, const std::string& session_id,
                   std::vector<Violation>* out) {
  auto store = OpenCheckpointStore(env, subdir);
  if (!store.ok()) return;  // a store that cannot open fails the host's life, not this check
  auto index = (*store)->Index(session_id);
  if (!index.ok()) return;
  Json& seen = (*env.oracle_memo)["checkpoint_crc"];
  std::map<std::string, int64_t> steps;
  for (size_t i = 0; i < index->size(); ++i) {
    const StoreEntry& e = (*index)[i];
    auto bytes = (*store)->Retrieve(e.info);
    if (!bytes.ok()) continue;  // damaged files are INV-CORRUPT's business
    const std::string crc = Crc32cTag(*bytes);
    if (seen.contains(e.info.checkpoint_id) && seen[e.info.checkpoint_id] != crc) {
      out->push_back({"INV-ANCESTRY", "stored checkpoint " + e.info.checkpoint_id +
                                          " changed after it was committed"});
    }
    seen[e.info.checkpoint_id] = crc;
    auto cp = DecodeCheckpoint(*bytes);
    if (!cp.ok()) continue;
    steps[e.info.checkpoint_id] = cp->step_number;
    if (i > 0 && !cp->parent) {
      out->push_back({"INV-ANCESTRY", "checkpoint " + e.info.checkpoint_id + " (step " +
                                          std::to_string(cp->step_number) +
                                          ") is not its session's first yet has no parent link"});
    }
    if (cp->parent) {
      auto parent_step = steps.find(cp->parent->checkpoint_id);
      if (parent_step != steps.end() && parent_step->second + 1 != cp->step_number) {
        out->push_back({"INV-ANCESTRY", "checkpoint " + e.info.checkpoint_id + " is step " +
                                            std::to_string(cp->step_number) + " but its parent is step " +
                                            std::to_string(parent_step->second)});
      }
    }
  }
}

void CheckHostFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  for (size_t i = 0; i < lives.size(); ++i) {
    const Json& f = lives[i].facts;
    const std::string life = "life " + std::to_string(i + 1);
    if (f.value("run_ended_by_observer_cancel", false)) {
      out->push_back({"INV-OBSERVER", life + ": cancelling the event watcher ended the run"});
    }
    if (f.contains("topology_rejected") && !f["topology_rejected"].get<bool>()) {
      out->push_back({"INV-TOPOLOGY", life + ": a resume with a mutated workflow (" +
                                          f.value("topology_mutation", std::string()) + ") was accepted"});
    }
    if (f.contains("workflow_reusable") && !f["workflow_reusable"].get<bool>()) {
      out->push_back({"INV-TOPOLOGY", life + ": the workflow stayed owned after its resume was rejected"});
    }
  }
}

}  // namespace stepfault::scenarios

#include "faults/topology_mutator.h"

namespace stepfault::scenarios {

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
    auto run = StreamingRun::Resume(*wf, checkpoint, LifeRunOptions(env, manager));
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
  return StreamingRun::Resume(*wf, checkpoint, LifeRunOptions(env, manager));
}

}  // namespace stepfault::scenarios
