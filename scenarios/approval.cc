// The approval host (start, resume, status) and the approval scenario around it.
#include "scenarios/approval.h"

#include <algorithm>
#include <map>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/random.h"
#include "scenarios/approval_store.h"
#include "scenarios/builtin.h"
#include "scenarios/host.h"
#include "scenarios/lease.h"
#include "scenarios/receipt.h"

namespace stepfault::scenarios {
namespace {

constexpr const char* kPrepare = "PrepareApprovalV1";
constexpr const char* kPort = "BusinessApprovalV1";
constexpr const char* kApply = "ApplyApprovalV1";
constexpr const char* kFailAfterWrite = "failing right after the write, as --fail-after-write asked";

WorkflowSpec ApprovalSpec(ApprovalStore* store, bool fail_after_write) {
  WorkflowSpec spec;
  spec.start_id = kPrepare;
  spec.executors.push_back(FunctionExecutor(
      kPrepare, kPrepare, {"BacklogDraft"}, [store](const Message& m, WorkflowContext& ctx) {
        const std::string op = m.body.value("operation_id", std::string());
        const std::string draft = m.body.value("draft", std::string());
        SF_RETURN_IF_ERROR(store->RegisterProposal(op, draft));
        ctx.SendMessage(Message{"ApprovalTicket", Json{{"operation_id", op}, {"draft", draft}}});
        return Status::Ok();
      }));
  spec.executors.push_back(FunctionExecutor(
      kApply, kApply, {"ApprovalDecision"},
      [store, fail_after_write](const Message& m, WorkflowContext& ctx) {
        const std::string op = m.body.value("operation_id", std::string());
        SF_ASSIGN_OR_RETURN(ApplyResult r, store->Apply(op, m.body.value("choice", std::string()),
                                                        m.body.value("comment", std::string())));
        if (fail_after_write) return Status::HandlerFailed(kFailAfterWrite);
        Json result{{"operation_id", op}, {"status", std::string(ApprovalStatusName(r.status))}};
        if (r.item_id) result["item_id"] = *r.item_id;
        ctx.YieldOutput(Message{"ApprovalResult", result});
        return Status::Ok();
      }));
  spec.ports.push_back({kPort, "ApprovalTicket", "ApprovalDecision"});
  spec.edges.push_back({EdgeKind::kDirect, {kPrepare}, {kPort}, nullptr, nullptr});
  spec.edges.push_back({EdgeKind::kDirect, {kPort}, {kApply}, nullptr, nullptr});
  spec.outputs = {kApply};
  return spec;
}

Result<std::unique_ptr<ApprovalStore>> OpenBusiness(const HostEnv& env) {
  ApprovalStoreOptions o;
  o.vfs_name = env.vfs_name;
  o.probe = env.probe;
  o.clock = env.clock;
  o.hazard_no_unique_key = env.hazards.effect_without_unique_key;
  return ApprovalStore::Open(JoinPath(env.dir, "business.db"), o);
}

ApprovalOutcome Fail(Status s, int exit_code, LifeReport* report) {
  report->trace.push_back("host: " + s.ToString());
  ApprovalOutcome o;
  o.status = std::move(s);
  o.exit_code = exit_code;
  return o;
}

bool IsDataDamage(const Status& s) {
  return s.code() == StatusCode::kCorruption || s.code() == StatusCode::kIncompatible;
}

}  // namespace

ApprovalOutcome ApprovalStart(HostEnv& env, const std::string& draft, LifeReport* report) {
  report->command = "start";
  if (draft.empty()) return Fail(Status::InvalidArgument("the draft is empty; pass --draft TEXT"), 2, report);
  auto lease = AcquireLease(env.env, env.dir);
  if (!lease.ok()) return Fail(lease.status(), 2, report);
  auto existing = ReadReceipt(env.env, env.dir);
  if (!existing.ok()) return Fail(existing.status(), 2, report);
  if (existing->has_value()) {
    return Fail(Status::AlreadyExists("directory '" + env.dir + "' already holds operation " +
                                      (*existing)->operation_id +
                                      "; resume it, or start in a fresh directory"),
                2, report);
  }
  auto checkpoints = OpenCheckpointStore(env, "checkpoints");
  if (!checkpoints.ok()) {
    report->final = IsDataDamage(checkpoints.status());
    return Fail(checkpoints.status(), 1, report);
  }
  auto business = OpenBusiness(env);
  if (!business.ok()) return Fail(business.status(), 1, report);
  StoreCheckpointManager manager(checkpoints->get());

  const std::string op = DeriveId(env.root_seed, "operation|" + draft);
  auto wf = ApprovalSpec(business->get(), false).Build();
  SF_CHECK(wf.ok());
  auto run = StreamingRun::Start(*wf, Message{"BacklogDraft", Json{{"operation_id", op}, {"draft", draft}}},
                                 LifeRunOptions(env, &manager));
  if (!run.ok()) return Fail(run.status(), 1, report);

  std::string request_id;
  std::optional<CheckpointInfo> captured, before_request;
  Status error;
  Drive(**run, env, report, [&](const WorkflowEvent& e) {
    if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
    if (e.kind == EventKind::kRequestInfo) {
      if (e.message->body.value("operation_id", std::string()) != op) {
        error = Status::FailedPrecondition("unexpected pending operation");
      }
      request_id = e.request_id;
    }
    if (e.kind == EventKind::kSuperStepCompleted && e.checkpoint) {
      // The checkpoint of the SuperStepCompleted after the request, never an earlier one.
      if (!request_id.empty() && !captured) captured = e.checkpoint;
      if (request_id.empty()) before_request = e.checkpoint;
    }
  });
  if (!error.ok()) return Fail(error, 1, report);
  if (env.hazards.receipt_before_request) captured = before_request;
  if (!captured || request_id.empty()) {
    return Fail(Status::FailedPrecondition("no checkpoint containing the pending request was observed"), 1, report);
  }
  WaitingReceipt receipt{kApprovalGraphVersion, captured->session_id, captured->checkpoint_id, op, request_id};
  ReceiptOptions ro;
  ro.probe = env.probe;
  ro.hazard_in_place = env.hazards.receipt_in_place;
  ro.hazard_no_dir_sync = env.hazards.receipt_no_dir_sync;
  Status published = PublishReceipt(env.env, env.dir, receipt, ro);
  if (!published.ok()) return Fail(published, 1, report);
  auto bytes = env.env->ReadFile(JoinPath(env.dir, std::string(kReceiptFileName)));
  report->facts["receipt"] = bytes.ok() ? *bytes : std::string();
  report->facts["operation_id"] = op;
  report->facts["request_id"] = request_id;
  report->facts["session_id"] = captured->session_id;
  report->trace.push_back("host: waiting on " + request_id);
  ApprovalOutcome out;
  out.operation_id = op;
  out.request_id = request_id;
  out.state = "Waiting";
  return out;
}

ApprovalOutcome ApprovalResume(HostEnv& env, const std::string& choice, const std::string& comment,
                               bool fail_after_write, LifeReport* report) {
  report->command = "resume";
  Status valid = ValidateDecision(choice, comment);
  if (!valid.ok()) return Fail(valid, 2, report);
  auto lease = AcquireLease(env.env, env.dir);
  if (!lease.ok()) return Fail(lease.status(), 2, report);
  auto receipt = ReadReceipt(env.env, env.dir);
  if (!receipt.ok()) {
    report->final = IsDataDamage(receipt.status());
    return Fail(receipt.status(), 2, report);
  }
  if (!receipt->has_value()) {
    return Fail(Status::NotFound("no waiting receipt in '" + env.dir +
                                 "'; run `stepfault approval start` first"),
                2, report);
  }
  const WaitingReceipt r = **receipt;
  if (r.graph_version != kApprovalGraphVersion) {
    report->final = true;
    return Fail(Status::Incompatible("receipt graph version '" + r.graph_version +
                                     "' is unknown to this host (it knows " +
                                     kApprovalGraphVersion + "); migrate it first"),
                2, report);
  }
  auto checkpoints = OpenCheckpointStore(env, "checkpoints");
  if (!checkpoints.ok()) {
    report->final = IsDataDamage(checkpoints.status());
    return Fail(checkpoints.status(), 1, report);
  }
  auto business = OpenBusiness(env);
  if (!business.ok()) return Fail(business.status(), 1, report);
  auto row = (*business)->Read(r.operation_id);
  if (!row.ok()) return Fail(row.status(), 1, report);
  if (row->decision && (*row->decision != choice || row->comment.value_or("") != comment)) {
    return Fail(Status::FailedPrecondition("operation " + r.operation_id + " was already decided '" +
                                           *row->decision + "' with comment '" + row->comment.value_or("") +
                                           "'; a replay must repeat it exactly"),
                2, report);
  }
  StoreCheckpointManager manager(checkpoints->get());
  ApprovalStore* store = business->get();
  const WorkflowSpec spec = ApprovalSpec(store, fail_after_write);
  env.probe->Hit("host.resume");
  auto run = ResumeAsHost(env, spec, CheckpointInfo{r.session_id, r.checkpoint_id}, &manager, report);
  if (!run.ok()) {
    report->final = IsDataDamage(run.status()) || run.status().code() == StatusCode::kNotFound;
    return Fail(run.status(), 1, report);
  }

  const Message decision{"ApprovalDecision",
                         Json{{"operation_id", r.operation_id}, {"choice", choice}, {"comment", comment}}};
  const auto& variation = env.variation.kind;
  bool seen_request = false, responded = false, rejected_duplicate = false;
  int apply_invocations = 0;
  Status error;
  auto respond = [&](StreamingRun& target, const std::string& request_id) {
    if (!env.hazards.decision_sent_before_persisted) {
      Status recorded = store->RecordDecision(r.operation_id, choice, comment);
      if (!recorded.ok()) {
        error = recorded;
        return;
      }
    }
    if (variation == faults::FaultActionKind::kConflictingResponse) {
      Status conflicting = store->RecordDecision(r.operation_id, choice == "approve" ? "reject" : "approve",
                                                 comment + " (edited)");
      report->facts["conflicting_rejected"] = !conflicting.ok();
    }
    SF_CHECK(target.SendResponse({request_id, kPort, decision}).ok());
    if (variation == faults::FaultActionKind::kDuplicateResponse) {
      SF_CHECK(target.SendResponse({request_id, kPort, decision}).ok());
    }
    responded = true;
  };
  auto on_event = [&](StreamingRun& target) {
    return [&, target_ptr = &target](const WorkflowEvent& e) {
      if (e.kind == EventKind::kRequestInfo && !responded) {
        seen_request = true;
        report->facts["reemitted_request_id"] = e.request_id;
        if (e.request_id != r.request_id ||
            e.message->body.value("operation_id", std::string()) != r.operation_id) {
          error = Status::FailedPrecondition("the response does not match the pending request");
          return;
        }
        respond(*target_ptr, e.request_id);
      }
      if (e.kind == EventKind::kExecutorInvoked && e.executor_id == kApply) ++apply_invocations;
      if (e.kind == EventKind::kWorkflowError) {
        if (e.error_kind == ErrorKind::kResponseRejected) {
          rejected_duplicate = true;
        } else if (error.ok()) {
          error = e.error;
        }
      }
    };
  };
  Drive(**run, env, report, on_event(**run));
  if (responded && env.hazards.decision_sent_before_persisted && error.ok()) {
    Status recorded = store->RecordDecision(r.operation_id, choice, comment);
    if (!recorded.ok()) error = recorded;
  }
  if (rejected_duplicate && env.hazards.duplicate_response_resumes_twice && error.ok()) {
    // The mistake: treat the rejected duplicate as a new decision and resume again.
    auto again = ResumeAsHost(env, spec, CheckpointInfo{r.session_id, r.checkpoint_id}, &manager, report);
    if (again.ok()) {
      responded = false;
      Drive(**again, env, report, on_event(**again));
    }
  }
  report->facts["apply_invocations"] = apply_invocations;
  if (!seen_request) {
    report->facts["request_not_reemitted"] = true;
    return Fail(Status::FailedPrecondition("the resumed run re-emitted no pending request"), 1, report);
  }
  if (!error.ok()) {
    const bool after_write = error.message().find(kFailAfterWrite) != std::string::npos;
    return Fail(error, after_write ? 1 : (error.code() == StatusCode::kFailedPrecondition ? 2 : 1), report);
  }
  ApprovalOutcome out = ApprovalStatusOf(env);
  if (!out.status.ok()) return Fail(out.status, 1, report);
  if (out.item_id) report->facts["item_id"] = *out.item_id;
  report->facts["state"] = out.state;
  report->trace.push_back("host: " + out.state + (out.item_id ? " item " + std::to_string(*out.item_id) : ""));
  return out;
}

ApprovalOutcome ApprovalStatusOf(HostEnv& env) {
  ApprovalOutcome out;
  auto receipt = ReadReceipt(env.env, env.dir);
  if (!receipt.ok()) {
    out.status = receipt.status();
    out.exit_code = 2;
    return out;
  }
  if (!receipt->has_value()) {
    out.status = Status::NotFound("no waiting receipt in '" + env.dir + "'; nothing was started there");
    out.exit_code = 2;
    return out;
  }
  auto business = OpenBusiness(env);
  if (!business.ok()) {
    out.status = business.status();
    out.exit_code = 1;
    return out;
  }
  out.operation_id = (*receipt)->operation_id;
  out.request_id = (*receipt)->request_id;
  auto row = (*business)->Read(out.operation_id);
  if (!row.ok()) {
    out.status = row.status();
    out.exit_code = 1;
    return out;
  }
  out.state = std::string(ApprovalStatusName(row->status));
  auto stored = (*business)->StoredItemByJoin(out.operation_id);
  if (!stored.ok()) {
    out.status = stored.status();
    out.exit_code = 1;
    return out;
  }
  out.item_id = *stored;
  return out;
}

namespace {

class ApprovalScenario final : public Scenario {
 public:
  std::string name() const override { return "approval"; }
  std::string description() const override {
    return "Demo320: durable approval with a waiting receipt, a persisted decision and an idempotent "
           "SQLite effect, across processes";
  }
  std::vector<std::string> invariants() const override {
    return {"INV-ALO", "INV-IDEM", "INV-DECISION", "INV-RECEIPT", "INV-REQID", "INV-ANCESTRY",
            "INV-TOPOLOGY", "INV-OBSERVER", "INV-CORRUPT"};
  }
  Json default_params() const override {
    return Json{{"draft", "Regional pilot proposal"}, {"choice", "approve"},
                {"comment", "External business decision."}};
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    using faults::FaultAction;
    using faults::FaultActionKind;
    using faults::TopologyMutation;
    return {FaultAction::Topology(TopologyMutation::kPermuteEdges),
            FaultAction::Topology(TopologyMutation::kRenameExecutor),
            FaultAction::Topology(TopologyMutation::kRemoveEdge),
            FaultAction::Topology(TopologyMutation::kChangePortType),
            FaultAction::Of(FaultActionKind::kDuplicateResponse),
            FaultAction::Of(FaultActionKind::kConflictingResponse),
            FaultAction::Of(FaultActionKind::kObserverCancel)};
  }
  std::string BusinessWindowAfter(const std::string& command, const std::string& point,
                                  const std::string& previous) const override {
    if (command == "start") {
      if (previous == "after published wait" || point == "receipt.publish.after") return "after published wait";
      if (point.find("[receipt]") != std::string::npos || point == "receipt.publish.before") return "publishing the wait";
      return "before the wait is published";
    }
    if (point == "effect.commit.after" || previous == "after commit, before engine completion") {
      return "after commit, before engine completion";
    }
    if (previous == "during the business transaction" ||
        (previous == "after decision, before effect" &&
         (point.find("[journal]") != std::string::npos || point.find("[db]") != std::string::npos))) {
      return "during the business transaction";
    }
    if (point == "decision.record.after" || previous == "after decision, before effect") {
      return "after decision, before effect";
    }
    return "after published wait";
  }

  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous, LifeReport* report) const override {
    (void)previous;
    auto receipt = ReadReceipt(env.env, env.dir);
    ApprovalOutcome out;
    if (receipt.ok() && !receipt->has_value()) {
      out = ApprovalStart(env, env.params.value("draft", std::string()), report);
    } else {
      out = ApprovalResume(env, env.params.value("choice", std::string()),
                           env.params.value("comment", std::string()), false, report);
      report->completed = out.status.ok() && (out.state == "Completed" || out.state == "Rejected");
    }
    report->status = out.status;
    report->exit_code = out.exit_code;
  }

  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override {
    const std::string choice = env.params.value("choice", std::string());
    const std::string comment = env.params.value("comment", std::string());
    CheckHostFacts(lives, out);
    std::string published;
    std::optional<int64_t> returned_item;
    for (size_t i = 0; i < lives.size(); ++i) {
      const Json& f = lives[i].facts;
      const std::string life = "life " + std::to_string(i + 1);
      if (f.contains("receipt")) published = f["receipt"].get<std::string>();
      if (f.value("request_not_reemitted", false)) {
        out->push_back({"INV-REQID", life + ": the resumed run did not re-emit the pending request"});
      }
      if (f.contains("reemitted_request_id") && lives[i].status.code() == StatusCode::kFailedPrecondition &&
          lives[i].status.message().find("does not match") != std::string::npos) {
        out->push_back({"INV-REQID", life + ": the re-emitted request " +
                                         f["reemitted_request_id"].get<std::string>() +
                                         " is not the one in the receipt"});
      }
      if (f.value("apply_invocations", 0) > 1) {
        out->push_back({"INV-REQID", life + ": a duplicate response resumed the effect twice"});
      }
      if (f.contains("conflicting_rejected") && !f["conflicting_rejected"].get<bool>()) {
        out->push_back({"INV-DECISION", life + ": a conflicting decision was accepted"});
      }
      if (f.contains("item_id")) {
        const int64_t item = f["item_id"].get<int64_t>();
        if (returned_item && *returned_item != item) {
          out->push_back({"INV-IDEM", life + ": a replay returned item " + std::to_string(item) +
                                          " after item " + std::to_string(*returned_item)});
        }
        returned_item = item;
      }
    }
    // INV-RECEIPT: a receipt observed as published is there, byte for byte.
    if (!published.empty()) {
      auto now = env.env->ReadFile(JoinPath(env.dir, std::string(kReceiptFileName)));
      if (!now.ok() || *now != published) {
        out->push_back({"INV-RECEIPT", "the published waiting receipt " +
                                           std::string(now.ok() ? "changed" : "is gone") + " (" +
                                           now.status().ToString() + ")"});
      }
    }
    auto db_exists = env.env->FileExists(JoinPath(env.dir, "business.db"));
    if (!db_exists.ok() || !*db_exists) return;
    auto business = OpenBusiness(env);
    if (!business.ok()) return;
    auto items = (*business)->Items();
    auto rows = (*business)->ReadAll();
    if (!items.ok() || !rows.ok()) return;
    std::map<std::string, int> per_op;
    for (const BacklogItem& item : *items) per_op[item.operation_id]++;
    for (const auto& [op, n] : per_op) {
      if (n > 1) out->push_back({"INV-IDEM", std::to_string(n) + " backlog items for operation " + op});
    }
    for (const ApprovalRow& row : *rows) {
      if (row.decision && (*row.decision != choice || row.comment.value_or("") != comment)) {
        out->push_back({"INV-DECISION", "operation " + row.operation_id + " records '" + *row.decision +
                                            "', not the operator's first decision"});
      }
      if (row.status == ApprovalStatus::kRejected && per_op.count(row.operation_id) > 0) {
        out->push_back({"INV-DECISION", "rejected operation " + row.operation_id + " has an effect row"});
      }
      if (returned_item && row.item_id && *row.item_id != *returned_item) {
        out->push_back({"INV-IDEM", "the stored item " + std::to_string(*row.item_id) +
                                        " is not the item a resume returned"});
      }
    }
    CheckDecisionBeforeEngine(env, *rows, out);
    auto receipt = ReadReceipt(env.env, env.dir);
    if (receipt.ok() && receipt->has_value()) {
      CheckAncestry(env, "checkpoints", (*receipt)->session_id, out);
      if (final && !lives.empty() && lives.back().completed) {
        auto row = std::find_if(rows->begin(), rows->end(), [&](const ApprovalRow& x) {
          return x.operation_id == (*receipt)->operation_id;
        });
        const bool approve = choice == "approve";
        if (row == rows->end() ||
            row->status != (approve ? ApprovalStatus::kCompleted : ApprovalStatus::kRejected) ||
            per_op[(*receipt)->operation_id] != (approve ? 1 : 0)) {
          out->push_back({"INV-ALO", "the completed operation is not " +
                                         std::string(approve ? "Completed with one item" : "Rejected with no item")});
        }
      }
    }
  }

 private:
  // INV-DECISION: no stored checkpoint may carry a decision the business store does not hold yet.
  static void CheckDecisionBeforeEngine(HostEnv& env, const std::vector<ApprovalRow>& rows,
                                        std::vector<Violation>* out) {
    const std::string dir = JoinPath(env.dir, "checkpoints");
    auto children = env.env->GetChildren(dir);
    if (!children.ok()) return;
    for (const std::string& name : *children) {
      if (name.size() < 5 || name.compare(name.size() - 5, 5, ".json") != 0) continue;
      auto bytes = env.env->ReadFile(JoinPath(dir, name));
      if (!bytes.ok()) continue;
      Json envelope = Json::parse(*bytes, nullptr, false);
      if (envelope.is_discarded() || !envelope.contains("checkpoint")) continue;
      auto cp = DecodeCheckpoint(envelope["checkpoint"].dump());
      if (!cp.ok()) continue;
      for (const auto& [receiver, queue] : cp->queued) {
        for (const Envelope& e : queue) {
          if (e.message.type != "ApprovalDecision") continue;
          const std::string op = e.message.body.value("operation_id", std::string());
          auto row = std::find_if(rows.begin(), rows.end(),
                                  [&](const ApprovalRow& x) { return x.operation_id == op; });
          if (row == rows.end() || !row->decision) {
            out->push_back({"INV-DECISION", "checkpoint " + name + " carries a decision for " + op +
                                                " that the business store has not recorded"});
          }
        }
      }
    }
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeApprovalScenario() { return std::make_shared<ApprovalScenario>(); }

}  // namespace stepfault::scenarios
