// fan-in: fan-out to K workers that finish in different super-steps, two fan-in barriers, and a
// sink with an idempotent SQLite effect (docs/design.md §7).
//
// Worker i contributes after i extra steps, so checkpoints in between hold a half-full barrier:
// those buffered contributions must survive a crash and a resume (MAF #6372). The two barriers
// (sink and audit) share their sources, so adding them in swapped order is a topology a careless
// rebuild produces and a strict engine must reject (MAF's IsMatch accepts it).
// The last contribution is a request port's answer ("merge-approval" is itself a source of both
// barriers), the shape of MAF's Checkpoint_Resume_PreservesFanInBarrierBufferedMessages tests: the
// start command runs until every worker has contributed and the request is pending, then the
// process ends; the resume command answers the re-emitted request and the barriers release. Host:
// one durable file checkpoint store and effects.db in the scenario directory; each life resumes the
// session's latest intact checkpoint (falling back to older ones when it is damaged) or starts the
// run; the job is done when the effect row exists and the run halted.
#include <algorithm>

#include "engine/checkpoint_manager.h"
#include "engine/random.h"
#include "scenarios/business_look.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/effect_store.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

constexpr const char* kOperation = "fan-in-op-1";

std::string Payload(const std::string& worker, int bytes) {
  std::string out;
  Rng rng(Hash64(worker));
  for (int i = 0; i < bytes; ++i) out += static_cast<char>('a' + rng.Uniform(26));
  return out;
}

constexpr const char* kApproval = "approved";

std::string ExpectedValue(int width, int bytes) {
  std::vector<std::string> parts{std::string("approver=") + kApproval};
  for (int i = 0; i < width; ++i) {
    const std::string id = "w" + std::to_string(i);
    parts.push_back(id + "=" + Payload(id, bytes));
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

// A barrier member as the sink records it: a worker's part, or the port's decision itself (the port
// is the barrier's last source, so MAF's wrapped-response forwarding, the
// port-response-sent-wrapped hazard, releases the barriers without the decision).
std::string PartText(const Message& m) {
  if (m.type == "MergeDecision") return "approver=" + m.body.value("decision", std::string());
  return m.body["from"].get<std::string>() + "=" + m.body["data"].get<std::string>();
}

WorkflowSpec BuildSpec(int width, int bytes, EffectStore* effects) {
  WorkflowSpec spec;
  spec.start_id = "dispatch";
  std::vector<std::string> workers;
  for (int i = 0; i < width; ++i) workers.push_back("w" + std::to_string(i));
  spec.executors.push_back(
      FunctionExecutor("dispatch", "Dispatch", {"Job"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Message{"Work", m.body});
        ctx.SendMessage(Message{"MergeRequest", m.body});
        return Status::Ok();
      }));
  spec.ports.push_back({"merge-approval", "MergeRequest", "MergeDecision"});
  for (int i = 0; i < width; ++i) {
    const std::string& id = workers[i];  // the handler keeps its own copy (captured by value)
    spec.executors.push_back(FunctionExecutor(
        id, "Worker", {"Work", "Tick"}, [id, i, bytes](const Message& m, WorkflowContext& ctx) {
          int remaining = m.type == "Work" ? i : m.body.value("remaining", 0);
          if (remaining > 0) {
            ctx.SendMessage(Message{"Tick", Json{{"remaining", remaining - 1}}}, id);
          } else {
            ctx.SendMessage(Message{"Part", Json{{"from", id}, {"data", Payload(id, bytes)}}});
          }
          return Status::Ok();
        }));
    spec.edges.push_back({EdgeKind::kDirect, {id}, {id}, nullptr, nullptr});
  }
  spec.executors.push_back(FunctionExecutor(
      "sink", "Sink", {"Part", "MergeDecision"},
      [width, effects](const Message& m, WorkflowContext& ctx) {
        Json parts = ctx.ReadState("parts").value_or(Json::array());
        parts.push_back(PartText(m));
        if (static_cast<int>(parts.size()) < width + 1) {
          ctx.QueueStateUpdate("parts", parts);
          return Status::Ok();
        }
        std::vector<std::string> sorted = parts.get<std::vector<std::string>>();
        std::sort(sorted.begin(), sorted.end());
        std::string value;
        for (const std::string& p : sorted) value += (value.empty() ? "" : ",") + p;
        ctx.QueueStateUpdate("parts", std::nullopt);
        SF_ASSIGN_OR_RETURN(EffectRow row, effects->Apply(kOperation, value));
        ctx.YieldOutput(Message{"Done", Json{{"id", row.id}, {"value", row.value}}});
        return Status::Ok();
      }));
  spec.executors.push_back(FunctionExecutor(
      "audit", "Audit", {"Part", "MergeDecision"}, [width](const Message&, WorkflowContext& ctx) {
        int seen = ctx.ReadState("seen").value_or(Json(0)).get<int>() + 1;
        ctx.QueueStateUpdate("seen", seen == width + 1 ? Json(0) : Json(seen));
        if (seen == width + 1) ctx.YieldOutput(Message{"Audited", Json{{"parts", seen}}});
        return Status::Ok();
      }));
  spec.edges.insert(spec.edges.begin(),
                    {EdgeKind::kFanOut, {"dispatch"}, workers, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {"dispatch"}, {"merge-approval"}, nullptr, nullptr});
  std::vector<std::string> sources = workers;
  sources.push_back("merge-approval");
  spec.edges.push_back({EdgeKind::kFanIn, sources, {"sink"}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kFanIn, sources, {"audit"}, nullptr, nullptr});
  spec.outputs = {"sink", "audit"};
  return spec;
}

class FanInScenario final : public Scenario {
 public:
  std::string name() const override { return "fan-in"; }
  std::string description() const override {
    return "fan-out to K workers finishing in different steps, two fan-in barriers, an idempotent "
           "SQLite effect; buffered contributions must survive resume, mutated topologies must be "
           "rejected";
  }
  std::vector<HostHazard> host_hazards() const override {
    return {{kHazardEffectWithoutUniqueKey, kHazardEffectWithoutUniqueKeyMeaning, {kInvIdem}}};
  }
  std::vector<std::string> invariants() const override {
    return {kInvAlo, kInvIdem, kInvAncestry, kInvTopology, kInvObserver, kInvCorrupt};
  }
  // Bounded so no --params can take the machine's memory: a life holds width x payload_bytes bytes
  // of messages (at most 4 MiB), and a fan needs at least one worker.
  std::vector<ParamDecl> params() const override {
    return {
        {"width", ParamType::kInt, 1, 64, {}, 3, "workers the fan-out feeds (fan-in sources)", 8},
        {"payload_bytes", ParamType::kInt, 0, 65536, {}, 16, "bytes of payload per worker", 2048},
        CheckpointModeParam(),
        FullEveryParam()};
  }
  // The default width first, then a single branch and a wide fan-in; the default width again with
  // every checkpoint full (MAF's mode; the default is incremental).
  std::vector<Json> Variants() const override {
    std::vector<Json> out{default_params()};
    for (int width : {1, 8}) {
      Json v = default_params();
      v["width"] = width;
      out.push_back(v);
    }
    Json full = default_params();
    full[kCheckpointModeParam] = "full";
    out.push_back(full);
    return out;
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    using faults::FaultAction;
    using faults::TopologyMutation;
    return {FaultAction::Topology(TopologyMutation::kPermuteEdges),
            FaultAction::Topology(TopologyMutation::kSwapFanIn),
            FaultAction::Topology(TopologyMutation::kRenameExecutor),
            FaultAction::Topology(TopologyMutation::kRemoveEdge),
            FaultAction::Topology(TopologyMutation::kChangePortType),
            // dispatch has a fan-out and a direct edge: {fan-out, fan-out} tells a bijective
            // edge matcher from a non-bijective one.
            FaultAction::Topology(TopologyMutation::kDuplicateEdge),
            FaultAction::Of(faults::FaultActionKind::kObserverCancel)};
  }
  std::string BusinessWindow(const std::string& command, const std::string& point) const override {
    (void)command;
    if (point.starts_with("effect.commit.after")) return "after effect commit, before completion";
    if (point.starts_with("effect.") || point.find("[db]") != std::string::npos ||
        point.find("[journal]") != std::string::npos) {
      return "during the effect transaction";
    }
    if (point.find("[checkpoint]") != std::string::npos || point.starts_with("checkpoint.")) {
      return "checkpoint publish";
    }
    return "";
  }

  bool LifeReadsPrevious() const override { return false; }  // durable state alone
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override {
    (void)previous;
    const int width = env.params.value("width", 3);
    const int bytes = env.params.value("payload_bytes", 16);
    const std::string session = DeriveId(env.root_seed, "fan-in|session");
    auto store = OpenCheckpointStore(env, "checkpoints");
    if (!store.ok()) {
      report->command = "open";
      report->status = store.status();
      report->final = store.status().code() == StatusCode::kCorruption;
      return;
    }
    HostCheckpointManager manager(store->get(), HostCheckpointOptions(env), env, report);
    EffectStoreOptions eo;
    eo.vfs_name = env.vfs_name;
    eo.probe = env.probe;
    eo.without_unique_key = env.hazards.count(kHazardEffectWithoutUniqueKey) > 0;
    eo.durable_env = env.env;
    auto effects = EffectStore::Open(JoinPath(env.dir, "effects.db"), eo);
    if (!effects.ok()) {
      report->command = "open";
      report->status = effects.status();
      return;
    }
    WorkflowSpec spec = BuildSpec(width, bytes, effects->get());
    auto started = StartOrResume(env, spec, store->get(), &manager, session,
                                 Message{"Job", Json{{"op", kOperation}}}, report);
    if (!started.ok()) return;
    std::unique_ptr<StreamingRun> run = std::move(started).value();
    std::vector<std::string> outputs;
    Status error;
    StreamingRun* live = run.get();
    const bool answer = report->command == "resume";
    Drive(*run, env, report, [&](const WorkflowEvent& e) {
      // The start command leaves the request pending (the process ends); resume answers it.
      if (answer && e.kind == EventKind::kRequestInfo) {
        // Refused when the run already ended (a checkpoint that could not be committed, as when
        // the machine dies inside SQLite): a host reports it, it does not abort.
        Status sent = live->SendResponse({e.request_id, "merge-approval",
                                          Message{"MergeDecision", Json{{"decision", kApproval}}}});
        if (!sent.ok() && error.ok()) error = sent;
      }
      if (e.kind == EventKind::kWorkflowOutput && e.executor_id == "sink") {
        outputs.push_back(e.message->body["value"].get<std::string>());
      }
      if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
    });
    report->facts["outputs"] = outputs;
    if (!error.ok()) {
      report->status = error;
      return;
    }
    auto rows = (*effects)->All();
    if (!rows.ok()) {
      report->status = rows.status();
      return;
    }
    report->completed = run->status() == RunStatus::kIdle &&
                        std::any_of(rows->begin(), rows->end(),
                                    [](const EffectRow& r) { return r.key == kOperation; });
    if (!report->completed &&
        !(report->command == "start" && run->status() == RunStatus::kPendingRequests)) {
      report->status = Status::FailedPrecondition("the effect is not there yet");
    }
  }

  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override {
    EffectStoreOptions eo;
    eo.vfs_name = env.vfs_name;
    eo.without_unique_key = env.hazards.count(kHazardEffectWithoutUniqueKey) > 0;
    // Looked at on a private copy of the database's files (the world is never changed: a hot
    // journal is rolled back in the copy), once per process for the same bytes (LookOnce,
    // scenarios/business_look.h). A missing database holds no effect row; the look never creates
    // it.
    const std::string db = JoinPath(env.dir, "effects.db");
    using Rows = Result<std::vector<EffectRow>>;
    auto db_exists = env.env->FileExists(db);
    const Rows rows =
        db_exists.ok() && !*db_exists
            ? Rows(std::vector<EffectRow>())
            : LookOnce<Rows>(env.env, db, eo.without_unique_key ? "fan-in|no-unique" : "fan-in",
                             [&](const Result<std::string>& vfs) -> Rows {
                               if (!vfs.ok()) return vfs.status();
                               EffectStoreOptions on_copy = eo;
                               on_copy.vfs_name = *vfs;
                               auto effects = EffectStore::Open(db, on_copy);
                               if (!effects.ok()) return effects.status();
                               return (*effects)->All();
                             });
    if (rows.ok()) {
      int count = 0;
      std::string value;
      for (const EffectRow& r : *rows) {
        if (r.key == kOperation) {
          ++count;
          value = r.value;
        }
      }
      if (count > 1)
        out->push_back({kInvIdem, std::to_string(count) + " effect rows for one operation"});
      const std::string expected =
          ExpectedValue(env.params.value("width", 3), env.params.value("payload_bytes", 16));
      if (count == 1 && value != expected) {
        out->push_back({kInvAlo, "the effect holds '" + value +
                                     "', expected every contribution: '" + expected + "'"});
      }
      if (final && count == 0 && !lives.empty() && !lives.back().final) {
        out->push_back({kInvAlo, "the run ended without its effect"});
      }
    }
    CheckAncestry(env, "checkpoints", DeriveId(env.root_seed, "fan-in|session"), lives,
                  /*check_deletions=*/true, out);
    CheckGiveUp(env, "checkpoints", DeriveId(env.root_seed, "fan-in|session"), lives, out);
    CheckHostFacts(lives, out);
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeFanInScenario() { return std::make_shared<FanInScenario>(); }

}  // namespace stepfault::scenarios
