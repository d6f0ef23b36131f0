// The host and oracle of a JSON scenario (format and host rules: scenarios/json/json_scenario.h).
#include "scenarios/json/json_scenario.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/json_text.h"
#include "engine/random.h"
#include "faults/topology_mutator.h"
#include "scenarios/business_look.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/json/json_responses.h"
#include "scenarios/json/json_scenario_internal.h"

namespace stepfault::scenarios {
namespace {

class JsonScenario final : public Scenario {
 public:
  explicit JsonScenario(JsonScenarioDef def) : def_(std::move(def)) {}

  const JsonScenarioDef& def() const { return def_; }
  std::string name() const override { return def_.name; }
  std::string replay_name() const override { return def_.source_name; }
  std::string description() const override { return def_.description; }
  std::vector<HostHazard> host_hazards() const override {
    return {{kHazardEffectWithoutUniqueKey, kHazardEffectWithoutUniqueKeyMeaning, {kInvIdem}}};
  }
  // No parameters: the scenario's workflow and outcome are fixed (for JSON, by its file).
  std::vector<ParamDecl> params() const override { return {}; }
  std::vector<std::string> invariants() const override {
    return {kInvAlo,      kInvIdem,    kInvReqid,  kInvAncestry, kInvTopology,
            kInvObserver, kInvCorrupt, kInvExpect, kInvDecision};
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    const WorkflowSpec spec = JsonScenarioSpec(def_, nullptr);
    std::vector<faults::FaultAction> out;
    for (faults::TopologyMutation m : faults::AllTopologyMutations()) {
      if (faults::MutationApplies(spec, m)) out.push_back(faults::FaultAction::Topology(m));
    }
    out.push_back(faults::FaultAction::Of(faults::FaultActionKind::kObserverCancel));
    if (HasScriptedPort()) {  // misuse of a response needs a request the host answers
      out.push_back(faults::FaultAction::Of(faults::FaultActionKind::kDuplicateResponse));
      out.push_back(faults::FaultAction::Conflicting(faults::ConflictField::kAll));
      out.push_back(faults::FaultAction::Conflicting(faults::ConflictField::kRequestId));
    }
    return out;
  }
  std::string BusinessWindow(const std::string& command, const std::string& point) const override {
    (void)command;
    if (point.starts_with("effect.commit.after")) return "after an effect commit";
    if (point.starts_with("effect.") || point.find("[db]") != std::string::npos ||
        point.find("[journal]") != std::string::npos) {
      return "during an effect transaction";
    }
    if (point.find("[checkpoint]") != std::string::npos || point.starts_with("checkpoint.")) {
      return "checkpoint publish";
    }
    if (point.find("[file]") != std::string::npos) return "fail-once marker";
    return "";
  }

  bool LifeReadsPrevious() const override { return false; }  // durable state alone
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override;
  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override;

 private:
  std::string Session(uint64_t root_seed) const {
    return DeriveId(root_seed, def_.name + "|session");
  }
  Result<std::unique_ptr<EffectStore>> OpenEffects(const HostEnv& env, Probe* probe) const {
    EffectStoreOptions eo;
    eo.vfs_name = env.vfs_name;
    eo.probe = probe;
    eo.without_unique_key = env.hazards.count(kHazardEffectWithoutUniqueKey) > 0;
    eo.durable_env = probe != nullptr ? env.env : nullptr;  // the host acts on it; the oracle looks
    return EffectStore::Open(JoinPath(env.dir, "effects.db"), eo);
  }
  // The oracle's look at effects.db, on a private copy of its files (DatabaseCopy), so it never
  // changes the world (a hot journal is rolled back in the copy); a missing database holds no
  // rows and is not created.
  Result<std::vector<EffectRow>> LookAtEffects(const HostEnv& env) const {
    const std::string db = JoinPath(env.dir, "effects.db");
    SF_ASSIGN_OR_RETURN(bool exists, env.env->FileExists(db));
    if (!exists) return std::vector<EffectRow>();
    SF_ASSIGN_OR_RETURN(std::unique_ptr<DatabaseCopy> copy, DatabaseCopy::Make(env.env, db));
    HostEnv on_copy = env;
    on_copy.vfs_name = copy->vfs_name();
    SF_ASSIGN_OR_RETURN(std::unique_ptr<EffectStore> effects, OpenEffects(on_copy, nullptr));
    return effects->All();  // `effects` closes before `copy` unregisters its VFS
  }
  // What one life's answering keeps: the request ledger (json_responses.h) and the misuse it did.
  struct Answering {
    const HostEnv* env = nullptr;
    LifeReport* report = nullptr;
    Json ledger = Json::object();
    bool ledger_changed = false;  // an entry was added that is not written yet
    bool misused = false;         // the life's misuse variation was applied (once, first answer)
    std::string duplicate_id, forged_id;
  };
  bool HasScriptedPort() const;
  // Answers a request with its scripted response, recorded in the ledger first (one write with a
  // newly reported request's entry); a request the ledger answered already gets the recorded
  // response. Then applies the life's misuse variation to the first answer. Fails when the ledger
  // cannot be written or the script's response differs from the recorded one.
  Status Answer(StreamingRun& run, const WorkflowEvent& e, Answering& a) const;
  Status WriteLedger(Answering& a) const;
  void Misuse(StreamingRun& run, const ExternalResponse& answer, Answering& a) const;
  // Applies the life's misuse variation, before the run is driven, to the latest response the
  // ledger records (none recorded: the first answer of the life gets it).
  void MisuseRecorded(StreamingRun& run, Answering& a) const;

  // INV-REQID after a resume, from durable bytes only: the resumed checkpoint's outstanding
  // requests (decoded from the store's bytes) and the request ledger the host wrote when it
  // reported each request, never the engine's pending list or events of the same restore.
  void CheckReemitted(HostEnv& env, const std::vector<LifeReport>& lives,
                      std::vector<Violation>* out) const;
  // The scenario's live restore (live_restore in the file), once per scenario run: when the
  // marker is absent and this life's run committed the checkpoint of step live_restore.to_step
  // (found through `manager` by parent links from its last checkpoint), makes the marker durable
  // and restores that checkpoint on `run`. True when it restored (drive the run again), false
  // when an earlier life did or this one resumed past that step.
  Result<bool> LiveRestoreOnce(HostEnv& env, StreamingRun& run, CheckpointManager& manager,
                               LifeReport* report) const;
  static constexpr char kLiveRestoreMarker[] = "live-restore.done";

  JsonScenarioDef def_;
};

bool JsonScenario::HasScriptedPort() const {
  return std::any_of(def_.executors.begin(), def_.executors.end(), [](const JsonExecutorDef& e) {
    return e.kind == JsonExecutorKind::kRequestPort && !e.responses.empty();
  });
}

Status JsonScenario::Answer(StreamingRun& run, const WorkflowEvent& e, Answering& a) const {
  a.report->facts["requests_seen"].push_back(e.request_id);
  const JsonExecutorDef* port = def_.Find(e.executor_id);
  std::optional<Message> response;
  if (port != nullptr && port->kind == JsonExecutorKind::kRequestPort && e.message) {
    response = ScriptedResponse(*port, *e.message);
  }
  if (!response) {
    a.report->trace.push_back("host: no scripted response matches request " + e.request_id +
                              " of '" + e.executor_id + "'; it stays pending");
    return a.ledger_changed ? WriteLedger(a) : Status::Ok();
  }
  Json& entry = a.ledger[e.request_id];
  if (!entry.is_object()) entry = Json::object();
  if (entry.contains("response") && entry["response"] != response->body) {
    return Status::FailedPrecondition("request " + e.request_id + ": the scripted response " +
                                      response->body.dump() + " differs from the recorded " +
                                      entry["response"].dump());
  }
  if (!entry.contains("response")) {
    // Recorded before it reaches the engine, with what a later misuse needs to send it again.
    entry["response"] = response->body;
    entry["port"] = e.executor_id;
    entry["type"] = response->type;
    a.ledger_changed = true;
  }
  if (a.ledger_changed) SF_RETURN_IF_ERROR(WriteLedger(a));
  const ExternalResponse answer{e.request_id, e.executor_id, std::move(*response)};
  Status s = run.SendResponse(answer);
  if (!s.ok()) {
    a.report->trace.push_back("host: response to " + e.request_id + " refused: " + s.ToString());
  }
  if (!a.misused) {
    a.misused = true;
    Misuse(run, answer, a);
  }
  return Status::Ok();
}

Status JsonScenario::WriteLedger(Answering& a) const {
  a.ledger_changed = false;
  return WriteFileAtomically(a.env->env, a.env->dir, kRequestLedgerFile, a.ledger.dump() + "\n");
}

void JsonScenario::MisuseRecorded(StreamingRun& run, Answering& a) const {
  if (a.env->variation.kind != faults::FaultActionKind::kDuplicateResponse &&
      a.env->variation.kind != faults::FaultActionKind::kConflictingResponse) {
    return;
  }
  // The latest recorded response (highest step, then id): a duplicate or conflicting delivery of
  // an answer the host already gave, arriving after the restart.
  const Json* latest = nullptr;
  std::string latest_id;
  for (const auto& [id, entry] : a.ledger.items()) {
    if (!entry.is_object() || !entry.contains("response") || !entry.contains("port")) continue;
    if (latest == nullptr ||
        entry.value("step", int64_t{-1}) >= latest->value("step", int64_t{-1})) {
      latest = &entry;
      latest_id = id;
    }
  }
  if (latest == nullptr) return;  // nothing answered yet: the first answer of this life gets it
  a.misused = true;
  Misuse(run,
         ExternalResponse{latest_id, (*latest)["port"].get<std::string>(),
                          Message{(*latest)["type"].get<std::string>(), (*latest)["response"]}},
         a);
}

void JsonScenario::Misuse(StreamingRun& run, const ExternalResponse& answer, Answering& a) const {
  const faults::FaultActionKind kind = a.env->variation.kind;
  Json& facts = a.report->facts;
  if (kind == faults::FaultActionKind::kDuplicateResponse) {
    facts["duplicate_request"] = answer.request_id;
    facts["duplicate_rejected"] = false;
    SF_CHECK(run.SendResponse(answer).ok());
    a.duplicate_id = answer.request_id;
    return;
  }
  if (kind != faults::FaultActionKind::kConflictingResponse) return;
  if (ConflictFieldOf(*a.env) == faults::ConflictField::kRequestId) {
    a.forged_id = DeriveId(a.env->root_seed, "forged|" + answer.request_id);
    facts["mismatched_request_id"] = a.forged_id;
    facts["mismatched_rejected"] = false;
    SF_CHECK(run.SendResponse({a.forged_id, answer.port_id, answer.data}).ok());
    return;
  }
  // Every field differs: the host's replay rule must refuse it before the engine sees it.
  const Json offered = ConflictingResponseBody(answer.data.body);
  const Json recorded = a.ledger[answer.request_id]["response"];
  const bool same = a.env->seams && a.env->seams->same_response
                        ? a.env->seams->same_response(recorded, offered)
                        : recorded == offered;
  facts["conflicting_request"] = answer.request_id;
  facts["conflicting_rejected"] = !same;
  if (!same) {
    a.report->trace.push_back("host: a second, different response to request " + answer.request_id +
                              " refused: the recorded response is " + recorded.dump());
    return;
  }
  // Taken for a replay: recorded and sent as if it were the same decision.
  a.ledger[answer.request_id]["response"] = offered;
  Status written = WriteLedger(a);
  if (written.ok()) {
    (void)run.SendResponse({answer.request_id, answer.port_id, Message{answer.data.type, offered}});
  }
}

void JsonScenario::RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
                           LifeReport* report) const {
  (void)previous;
  report->command = "open";
  // The recovery rule (engine/env.h): the ledger a dead life wrote decides what this one answers.
  Status inherited = MakeInheritedDurable(env.env, env.dir, {kRequestLedgerFile});
  if (!inherited.ok()) {
    report->status = inherited;
    return;
  }
  auto store = OpenCheckpointStore(env, "checkpoints");
  if (!store.ok()) {
    report->status = store.status();
    report->final = store.status().code() == StatusCode::kCorruption;
    return;
  }
  StoreCheckpointOptions options = HostCheckpointOptions(env);
  if (def_.full_every > 0) options.full_every = def_.full_every;
  HostCheckpointManager manager(store->get(), options, env, report);
  auto effects = OpenEffects(env, env.probe);
  if (!effects.ok()) {
    report->status = effects.status();
    return;
  }
  JsonRuntime runtime{effects->get(), env.env, env.dir};
  const WorkflowSpec spec = JsonScenarioSpec(def_, &runtime);
  env.max_steps = def_.max_steps;
  auto started =
      StartOrResume(env, spec, store->get(), &manager, Session(env.root_seed), def_.input, report);
  if (!started.ok()) return;
  std::unique_ptr<StreamingRun> run = std::move(started).value();
  report->facts["outputs"] = Json::array();
  report->facts["requests_seen"] = Json::array();
  report->facts["life_tag"] = std::to_string(env.seed);
  Answering answering;
  answering.env = &env;
  answering.report = report;
  answering.ledger = ReadRequestLedger(env.env, env.dir);
  MisuseRecorded(*run, answering);
  Status error;
  std::string last_invoked;
  bool in_step = false;  // re-emitted requests come before the first step of a resume
  auto on_event = [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kSuperStepStarted) in_step = true;
    if (e.kind == EventKind::kExecutorInvoked) last_invoked = e.executor_id;
    if (e.kind == EventKind::kRequestInfo && in_step && !answering.ledger.contains(e.request_id)) {
      // Reported to the outside: recorded durably, with the response the host answers with,
      // before it is answered (INV-REQID's and INV-DECISION's witness).
      answering.ledger[e.request_id] = Json{{"step", e.step}, {"life", std::to_string(env.seed)}};
      answering.ledger_changed = true;
    }
    if (e.kind == EventKind::kWorkflowError && e.error_kind == ErrorKind::kStepLimit) {
      // Tell the author which executor loops and what to change, not the engine's wording.
      error = Status::FailedPrecondition(
          def_.source_name + ": executor '" + last_invoked +
          "' loops: " + std::to_string(def_.max_steps) +
          " steps without halting; raise `max_steps` in the scenario file if that is intended");
      report->final = true;
    }
    if (e.kind == EventKind::kRequestInfo) {
      Status answered = Answer(*run, e, answering);
      if (!answered.ok() && error.ok()) error = answered;
    }
    if (e.kind == EventKind::kWorkflowOutput && e.message) {
      report->facts["outputs"].push_back(JsonOutputRecord(e.executor_id, *e.message));
    }
    if (e.kind == EventKind::kWorkflowError && e.error_kind == ErrorKind::kResponseRejected &&
        !e.request_id.empty() &&
        (e.request_id == answering.duplicate_id || e.request_id == answering.forged_id)) {
      // The misuse this life committed, rejected as it must be: not an error of the run.
      report->facts[e.request_id == answering.duplicate_id ? "duplicate_rejected"
                                                           : "mismatched_rejected"] = true;
      return;
    }
    if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
  };
  Drive(*run, env, report, on_event);
  if (error.ok() && run->status() == RunStatus::kIdle && def_.live_restore_step) {
    Result<bool> restored = LiveRestoreOnce(env, *run, manager, report);
    if (!restored.ok()) {
      error = restored.status();
    } else if (*restored) {
      in_step = false;
      Drive(*run, env, report, on_event);
    }
  }
  report->facts["drive_done"] = true;
  if (!error.ok()) {
    report->status = error;
    return;
  }
  auto rows = (*effects)->All();
  if (!rows.ok()) {
    report->status = rows.status();
    return;
  }
  std::set<std::string> keys;
  Json observed = Json::array();  // what `stepfault expect` prints
  for (const EffectRow& r : *rows) {
    keys.insert(r.key);
    observed.push_back({{"key", r.key}, {"value", Json::parse(r.value, nullptr, false)}});
  }
  report->facts["effects"] = std::move(observed);
  const bool all_effects =
      std::all_of(def_.expected_effects.begin(), def_.expected_effects.end(),
                  [&](const JsonExpectedEffect& e) { return keys.count(e.key) > 0; });
  report->completed = run->status() == RunStatus::kIdle && all_effects;
  if (!report->completed) {
    report->status = Status::FailedPrecondition(
        std::string("not done: the run is ") + std::string(RunStatusName(run->status())) +
        (all_effects ? "" : " and an expected effect row is missing"));
  }
}

Result<bool> JsonScenario::LiveRestoreOnce(HostEnv& env, StreamingRun& run,
                                           CheckpointManager& manager, LifeReport* report) const {
  SF_ASSIGN_OR_RETURN(bool done, env.env->FileExists(JoinPath(env.dir, kLiveRestoreMarker)));
  if (done) return false;
  // The checkpoint of step B that this life's run committed, back from its last checkpoint by
  // parents. A life that resumed past step B has none (and the resume may have pruned it as an
  // obsolete ancestor): it does not restore, and neither does the scenario run.
  const std::vector<CheckpointInfo>& mine = run.checkpoints();
  std::optional<CheckpointInfo> at = run.last_checkpoint();
  std::shared_ptr<const Checkpoint> cp;
  while (at && std::find(mine.begin(), mine.end(), *at) != mine.end()) {
    SF_ASSIGN_OR_RETURN(cp, manager.Lookup(*at));
    if (cp->step_number <= *def_.live_restore_step) break;
    at = cp->parent;
  }
  if (!at || !cp || cp->step_number != *def_.live_restore_step ||
      std::find(mine.begin(), mine.end(), *at) == mine.end()) {
    return false;
  }
  // Durable before the restore, so a life that dies after it does not restore again.
  SF_RETURN_IF_ERROR(WriteFileAtomically(env.env, env.dir, kLiveRestoreMarker, "restored\n"));
  report->trace.push_back("host: live restore of " + at->ToString() + " (step " +
                          std::to_string(cp->step_number) + ")");
  // What the pruning oracle reads (host_oracles.h): a restore may prune the target's ancestry.
  report->facts["restoring"] = at->checkpoint_id;
  SF_RETURN_IF_ERROR(run.Restore(*at).WithContext("live restore"));
  return true;
}

void JsonScenario::Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
                         std::vector<Violation>* out) const {
  {
    auto rows = LookAtEffects(env);
    if (rows.ok()) {
      std::map<std::string, std::vector<std::string>> by_key;
      for (const EffectRow& r : *rows) by_key[r.key].push_back(r.value);
      for (const auto& [key, values] : by_key) {
        if (values.size() > 1) {
          out->push_back(
              {kInvIdem, std::to_string(values.size()) + " effect rows for key '" + key + "'"});
        }
      }
      for (const JsonExpectedEffect& e : def_.expected_effects) {
        auto it = by_key.find(e.key);
        if (it == by_key.end()) {
          if (final && !lives.empty() && !lives.back().final) {
            out->push_back({kInvAlo, "the run ended without effect row '" + e.key + "'"});
          }
          continue;
        }
        const Json value = Json::parse(it->second.front(), nullptr, /*allow_exceptions=*/false);
        if (value != e.value) {
          out->push_back({kInvAlo, "effect row '" + e.key + "' holds " + it->second.front() +
                                       ", expected " + e.value.dump()});
        }
      }
    }
  }
  std::set<std::string> expected;
  for (const Json& o : def_.expected_outputs) expected.insert(o.dump());
  for (const Json& o : JsonScenarioObservedOutputs({lives.empty() ? LifeReport{} : lives.back()})) {
    if (expected.count(o.dump()) == 0) {
      out->push_back({kInvExpect, "output " + o.dump() + " is not one of expect.outputs"});
    }
  }
  CheckReemitted(env, lives, out);
  CheckJsonResponses(env, Session(env.root_seed), lives, out);
  CheckAncestry(env, "checkpoints", Session(env.root_seed), lives, /*check_deletions=*/true, out);
  CheckGiveUp(env, "checkpoints", Session(env.root_seed), lives, out);
  CheckHostFacts(lives, out);
}

}  // namespace

void JsonScenario::CheckReemitted(HostEnv& env, const std::vector<LifeReport>& lives,
                                  std::vector<Violation>* out) const {
  // Check runs after every life, so the newest life is the only one not yet judged.
  if (lives.empty()) return;
  const Json& facts = lives.back().facts;
  if (!facts.value("drive_done", false) || !facts.contains("resumed_from")) return;
  const std::string resumed = facts["resumed_from"].back().get<std::string>();
  auto stored = ReadDurableCheckpoints(env, "checkpoints");
  if (!stored.ok()) return;
  const DurableCheckpoint* c = stored->Find(resumed);
  if (c == nullptr) return;
  const Checkpoint* cp = c->decoded.get();  // resolved once per read (DurableCheckpoints)
  if (cp == nullptr) return;
  const std::string life = "life " + std::to_string(lives.size());
  std::set<std::string> expected;
  for (const PendingRequest& r : cp->outstanding) expected.insert(r.request_id);
  // The requests the life that committed `resumed` reported in that step: the checkpoint of a
  // step holds every request created in it (a response is accepted at a later step at the
  // earliest), so each must be there and come back with its id.
  std::string writer;
  for (size_t i = 0; i + 1 < lives.size(); ++i) {
    const Json written = lives[i].facts.value("checkpoints_written", Json::array());
    if (std::find(written.begin(), written.end(), Json(resumed)) != written.end()) {
      writer = lives[i].facts.value("life_tag", std::string());
    }
  }
  const Json ledger = ReadRequestLedger(env.env, env.dir);
  for (const auto& [id, entry] : ledger.items()) {
    if (writer.empty() || entry.value("life", std::string()) != writer ||
        entry.value("step", int64_t{-1}) != cp->step_number || expected.count(id) > 0) {
      continue;
    }
    out->push_back({kInvReqid, life + ": request " + id + ", reported at step " +
                                   std::to_string(cp->step_number) + " before the crash, is not " +
                                   "pending in checkpoint " + resumed + " of that step"});
    expected.insert(id);
  }
  const Json seen = facts.value("requests_seen", Json::array());
  for (const std::string& id : expected) {
    if (std::find(seen.begin(), seen.end(), Json(id)) == seen.end()) {
      out->push_back({kInvReqid, life + ": pending request " + id + " of the resumed checkpoint " +
                                     resumed + " was not re-emitted with its id"});
    }
  }
}

Result<std::shared_ptr<const Scenario>> ParseJsonScenario(std::string_view text,
                                                          const std::string& source_name) {
  SF_ASSIGN_OR_RETURN(JsonScenarioDef def, ParseJsonScenarioDef(text, source_name));
  return std::shared_ptr<const Scenario>(std::make_shared<JsonScenario>(std::move(def)));
}

Result<std::shared_ptr<const Scenario>> LoadJsonScenario(Env* env, const std::string& path) {
  auto text = env->ReadFile(path);
  if (!text.ok()) {
    return Status(text.status().code(),
                  "cannot read scenario file " + path + ": " + text.status().message());
  }
  return ParseJsonScenario(*text, path);
}

Json JsonScenarioObservedOutputs(const std::vector<LifeReport>& lives) {
  std::map<std::string, Json> unique;
  for (const LifeReport& l : lives) {
    if (!l.facts.contains("outputs")) continue;
    for (const Json& o : l.facts["outputs"]) unique.emplace(o.dump(), o);
  }
  Json out = Json::array();
  for (auto& [text, o] : unique) out.push_back(o);
  return out;
}

Result<std::shared_ptr<const Scenario>> LoadJsonScenarioIgnoringExpect(Env* env,
                                                                       const std::string& path) {
  auto text = env->ReadFile(path);
  if (!text.ok()) {
    return Status(text.status().code(),
                  "cannot read scenario file " + path + ": " + text.status().message());
  }
  // A syntax error is reported against the file as written (line and column).
  SF_ASSIGN_OR_RETURN(Json doc, ParseJsonText(*text, path));
  if (doc.is_object()) doc["expect"] = Json{{"effects", Json::array()}, {"outputs", Json::array()}};
  return ParseJsonScenario(doc.dump(), path);
}

Json JsonScenarioObservedExpect(const std::vector<LifeReport>& lives) {
  Json effects = Json::array();
  for (auto it = lives.rbegin(); it != lives.rend(); ++it) {
    if (it->facts.contains("effects")) {
      effects = it->facts["effects"];
      break;
    }
  }
  return Json{{"effects", effects}, {"outputs", JsonScenarioObservedOutputs(lives)}};
}

Json JsonScenarioExpectedOutputs(const Scenario& scenario) {
  const auto* json = dynamic_cast<const JsonScenario*>(&scenario);
  SF_CHECK(json != nullptr);
  std::map<std::string, Json> unique;
  for (const Json& o : json->def().expected_outputs) unique.emplace(o.dump(), o);
  Json out = Json::array();
  for (auto& [text, o] : unique) out.push_back(o);
  return out;
}

}  // namespace stepfault::scenarios
