// The host and oracle of a JSON scenario (format and host rules: scenarios/json/json_scenario.h).
#include "scenarios/json/json_scenario.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/random.h"
#include "faults/topology_mutator.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/json/json_scenario_internal.h"

namespace stepfault::scenarios {
namespace {

// The scripted answer to a request of `port`, or nullopt when no response matches.
std::optional<Message> ScriptedResponse(const JsonExecutorDef& port, const Message& request) {
  for (const JsonScriptedResponse& r : port.responses) {
    if (r.when && !r.when->Matches(request.body)) continue;
    Json body = request.body.is_object() ? request.body : Json::object();
    body.update(r.body);
    return Message{port.response_type, std::move(body)};
  }
  return std::nullopt;
}

class JsonScenario final : public Scenario {
 public:
  explicit JsonScenario(JsonScenarioDef def) : def_(std::move(def)) {}

  const JsonScenarioDef& def() const { return def_; }
  std::string name() const override { return def_.name; }
  std::string replay_name() const override { return def_.source_name; }
  std::string description() const override { return def_.description; }
  std::vector<HostHazard> host_hazards() const override {
    return {{kHazardEffectWithoutUniqueKey, kHazardEffectWithoutUniqueKeyMeaning}};
  }
  // No parameters: the scenario's workflow and outcome are fixed (for JSON, by its file).
  std::vector<ParamDecl> params() const override { return {}; }
  std::vector<std::string> invariants() const override {
    return {kInvAlo,      kInvIdem,     kInvReqid,   kInvAncestry,
            kInvTopology, kInvObserver, kInvCorrupt, kInvExpect};
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    const WorkflowSpec spec = JsonScenarioSpec(def_, nullptr);
    std::vector<faults::FaultAction> out;
    for (faults::TopologyMutation m : faults::AllTopologyMutations()) {
      if (faults::MutationApplies(spec, m)) out.push_back(faults::FaultAction::Topology(m));
    }
    out.push_back(faults::FaultAction::Of(faults::FaultActionKind::kObserverCancel));
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
  // Resumes the latest intact checkpoint, falling back to older ones when one is damaged. Records
  // the requests the resumed checkpoint holds, which the run must re-emit (INV-REQID).
  void Answer(StreamingRun& run, const WorkflowEvent& e, LifeReport* report) const;

  // INV-REQID after a resume, from durable bytes only: the resumed checkpoint's outstanding
  // requests (decoded from the store's bytes) and the request ledger the host wrote when it
  // reported each request, never the engine's pending list or events of the same restore.
  void CheckReemitted(HostEnv& env, const std::vector<LifeReport>& lives,
                      std::vector<Violation>* out) const;

  JsonScenarioDef def_;
};

// The request ledger: every request id the host reported to the outside, with the step and the
// life (its seed) that created it, written with WriteFileAtomically before the request is answered.
constexpr const char* kRequestLedgerFile = "requests.json";

// The ledger of `dir` (empty when missing or unreadable; read-only).
Json ReadRequestLedger(Env* env, const std::string& dir) {
  auto bytes = env->ReadFile(JoinPath(dir, kRequestLedgerFile));
  if (!bytes.ok()) return Json::object();
  Json j = Json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : Json::object();
}

void JsonScenario::Answer(StreamingRun& run, const WorkflowEvent& e, LifeReport* report) const {
  report->facts["requests_seen"].push_back(e.request_id);
  const JsonExecutorDef* port = def_.Find(e.executor_id);
  std::optional<Message> response;
  if (port != nullptr && port->kind == JsonExecutorKind::kRequestPort && e.message) {
    response = ScriptedResponse(*port, *e.message);
  }
  if (!response) {
    report->trace.push_back("host: no scripted response matches request " + e.request_id + " of '" +
                            e.executor_id + "'; it stays pending");
    return;
  }
  Status s = run.SendResponse(ExternalResponse{e.request_id, e.executor_id, std::move(*response)});
  if (!s.ok())
    report->trace.push_back("host: response to " + e.request_id + " refused: " + s.ToString());
}

void JsonScenario::RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
                           LifeReport* report) const {
  (void)previous;
  report->command = "open";
  auto store = OpenCheckpointStore(env, "checkpoints");
  if (!store.ok()) {
    report->status = store.status();
    report->final = store.status().code() == StatusCode::kCorruption;
    return;
  }
  StoreCheckpointManager manager(store->get());
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
  Json ledger = ReadRequestLedger(env.env, env.dir);
  Status error;
  std::string last_invoked;
  bool in_step = false;  // re-emitted requests come before the first step of a resume
  Drive(*run, env, report, [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kSuperStepStarted) in_step = true;
    if (e.kind == EventKind::kExecutorInvoked) last_invoked = e.executor_id;
    if (e.kind == EventKind::kRequestInfo && in_step && !ledger.contains(e.request_id)) {
      // Reported to the outside: recorded durably before it is answered (INV-REQID's witness).
      ledger[e.request_id] = Json{{"step", e.step}, {"life", std::to_string(env.seed)}};
      Status recorded =
          WriteFileAtomically(env.env, env.dir, kRequestLedgerFile, ledger.dump() + "\n");
      if (!recorded.ok() && error.ok()) error = recorded;
    }
    if (e.kind == EventKind::kWorkflowError && e.error_kind == ErrorKind::kStepLimit) {
      // Tell the author which executor loops and what to change, not the engine's wording.
      error = Status::FailedPrecondition(
          def_.source_name + ": executor '" + last_invoked +
          "' loops: " + std::to_string(def_.max_steps) +
          " steps without halting; raise `max_steps` in the scenario file if that is intended");
      report->final = true;
    }
    if (e.kind == EventKind::kRequestInfo) Answer(*run, e, report);
    if (e.kind == EventKind::kWorkflowOutput && e.message) {
      report->facts["outputs"].push_back(JsonOutputRecord(e.executor_id, *e.message));
    }
    if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
  });
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
  for (const EffectRow& r : *rows) keys.insert(r.key);
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

void JsonScenario::Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
                         std::vector<Violation>* out) const {
  auto effects = OpenEffects(env, nullptr);
  if (effects.ok()) {
    auto rows = (*effects)->All();
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
  auto cp = DecodeCheckpoint(c->document);
  if (!cp.ok()) return;
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
