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
  options.probe = env.probe;
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
  // Reads the checkpoint files directly (commit order is the file name order), and remembers what
  // it parsed by checksum in the memo, so each file is parsed once per run however many lives look.
  const std::string dir = JoinPath(env.dir, subdir);
  auto children = env.env->GetChildren(dir);
  if (!children.ok()) return;
  Json& seen = (*env.oracle_memo)["checkpoint_crc"];
  Json& parsed = (*env.oracle_memo)["checkpoint_parsed"];
  std::map<std::string, int64_t> steps;
  bool first = true;
  for (const std::string& name : *children) {
    if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
    auto bytes = env.env->ReadFile(JoinPath(dir, name));
    if (!bytes.ok()) continue;
    const std::string crc = Crc32cTag(*bytes);
    if (!parsed.contains(crc)) {
      Json info = nullptr;
      Json envelope = Json::parse(*bytes, nullptr, false);
      // Only a file whose own seal holds counts: injected damage is INV-CORRUPT's business.
      bool sealed = false;
      if (!envelope.is_discarded() && envelope.is_object() && envelope.contains("checksum")) {
        Json unsealed = envelope;
        unsealed.erase("checksum");
        sealed = envelope["checksum"] == Crc32cTag(unsealed.dump());
      }
      const Json* doc =
          sealed && envelope.contains("checkpoint") ? &envelope["checkpoint"] : nullptr;
      // The checkpoint's own seal must hold too (a planted malformed checkpoint is not ancestry).
      if (doc != nullptr && doc->is_object() && doc->contains("body") &&
          doc->contains("checksum") && (*doc)["checksum"] == Crc32cTag((*doc)["body"].dump())) {
        auto cp = CheckpointBodyFromJson((*doc)["body"]);
        if (cp.ok()) {
          info = Json{{"session", cp->session_id},
                      {"id", envelope.value("checkpoint_id", std::string())},
                      {"step", cp->step_number},
                      {"parent", cp->parent ? Json(cp->parent->checkpoint_id) : Json(nullptr)}};
        }
      }
      parsed[crc] = info;  // null: damaged or not a checkpoint file (INV-CORRUPT's business)
    }
    const Json& info = parsed[crc];
    if (info.is_null() || info["session"] != session_id) continue;
    const std::string id = info["id"].get<std::string>();
    if (seen.contains(id) && seen[id] != crc) {
      out->push_back(
          {"INV-ANCESTRY", "stored checkpoint " + id + " changed after it was committed"});
    }
    seen[id] = crc;
    const int64_t step = info["step"].get<int64_t>();
    steps[id] = step;
    if (!first && info["parent"].is_null()) {
      out->push_back({"INV-ANCESTRY", "checkpoint " + id + " (step " + std::to_string(step) +
                                          ") is not its session's first yet has no parent link"});
    }
    first = false;
    if (!info["parent"].is_null()) {
      auto parent_step = steps.find(info["parent"].get<std::string>());
      if (parent_step != steps.end() && parent_step->second + 1 != step) {
        out->push_back({"INV-ANCESTRY", "checkpoint " + id + " is step " + std::to_string(step) +
                                            " but its parent is step " +
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
                                          f.value("topology_mutation", std::string()) +
                                          ") was accepted"});
    }
    if (f.contains("workflow_reusable") && !f["workflow_reusable"].get<bool>()) {
      out->push_back(
          {"INV-TOPOLOGY", life + ": the workflow stayed owned after its resume was rejected"});
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

Result<std::unique_ptr<StreamingRun>> ResumeLatestIntact(const HostEnv& env,
                                                         const WorkflowSpec& spec,
                                                         const std::vector<StoreEntry>& index,
                                                         CheckpointManager* manager,
                                                         LifeReport* report) {
  Status last_error = Status::NotFound("there is no checkpoint to resume");
  for (auto it = index.rbegin(); it != index.rend(); ++it) {
    auto resumed = ResumeAsHost(env, spec, it->info, manager, report);
    if (resumed.ok()) {
      if (it != index.rbegin())
        report->trace.push_back("host: fell back to " + it->info.checkpoint_id);
      return resumed;
    }
    last_error = resumed.status();
    report->trace.push_back("host: cannot resume " + it->info.checkpoint_id + ": " +
                            last_error.ToString());
    if (last_error.code() != StatusCode::kCorruption) break;
  }
  return last_error;
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
  env.probe->Hit("host.resume");
  auto resumed = ResumeLatestIntact(env, spec, *index, manager, report);
  if (!resumed.ok()) return fail(resumed.status());
  return resumed;
}

}  // namespace stepfault::scenarios
