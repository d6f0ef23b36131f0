// The approval scenario: the operator's commands chosen from durable state, the business windows,
// and the oracle (INV-ALO, INV-IDEM, INV-DECISION, INV-RECEIPT, INV-REQID, INV-ANCESTRY, ...).
#include <algorithm>
#include <map>

#include "engine/checkpoint.h"
#include "engine/stores/file_store.h"
#include "scenarios/approval/approval.h"
#include "scenarios/approval/approval_hazards.h"
#include "scenarios/approval/approval_store.h"
#include "scenarios/approval/receipt.h"
#include "scenarios/business_look.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/effect_store.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

class ApprovalScenario final : public Scenario {
 public:
  std::string name() const override { return "approval"; }
  std::string description() const override {
    return "Demo320: durable approval with a waiting receipt, a persisted decision and an "
           "idempotent "
           "SQLite effect, across processes";
  }
  std::vector<HostHazard> host_hazards() const override {
    return {{kHazardEffectWithoutUniqueKey, kHazardEffectWithoutUniqueKeyMeaning, {kInvIdem}},
            {kHazardReceiptBeforeRequest,
             "the waiting receipt names the checkpoint before the request",
             {kInvReqid}},
            {kHazardReceiptInPlace,
             "waiting.json is written in place, without temp file and rename",
             {kInvReceipt}},
            {kHazardReceiptNoDirSync,
             "no directory fsync after renaming waiting.json into place",
             {kInvReceipt}},
            {kHazardDecisionSentBeforePersisted,
             "the decision reaches the engine before it is stored",
             {kInvDecision}},
            {kHazardDuplicateResponseResumesTwice,
             "a duplicate response resumes the run again",
             {kInvReqid}}};
  }
  std::vector<std::string> invariants() const override {
    return {kInvAlo,      kInvIdem,     kInvDecision, kInvReceipt, kInvReqid,
            kInvAncestry, kInvTopology, kInvObserver, kInvCorrupt};
  }
  std::vector<ParamDecl> params() const override {
    return {{"draft",
             ParamType::kString,
             1,
             static_cast<int64_t>(kDraftMaxBytes),
             {},
             "Regional pilot proposal",
             "the proposal text `start` registers",
             40,
             [](const Json& v) { return ValidateDraft(v.get<std::string>()); }},
            {"choice",
             ParamType::kChoice,
             0,
             0,
             {"approve", "reject"},
             "approve",
             "the decision `resume` sends"},
            {"comment",
             ParamType::kString,
             1,
             2000,
             {},
             "External business decision.",
             "the decision's comment: 1 to 500 characters, not blank",
             static_cast<int64_t>(kCommentMaxCodePoints),
             [](const Json& v) { return ValidateDecision("approve", v.get<std::string>()); }},
            CheckpointModeParam(),
            FullEveryParam()};
  }
  // Both decisions: an approval creates the effect, a rejection must create none. The approval
  // again with every checkpoint full (MAF's mode), so the stores' pruning after a restore deletes
  // full checkpoints (with deltas it keeps the bases they need).
  std::vector<Json> Variants() const override {
    Json reject = default_params();
    reject["choice"] = "reject";
    Json full = default_params();
    full[kCheckpointModeParam] = "full";
    return {default_params(), reject, full};
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
            // One field at a time too, so a replay rule comparing only one field is caught.
            FaultAction::Conflicting(faults::ConflictField::kAll),
            FaultAction::Conflicting(faults::ConflictField::kChoice),
            FaultAction::Conflicting(faults::ConflictField::kComment),
            FaultAction::Conflicting(faults::ConflictField::kRequestId),
            FaultAction::Of(FaultActionKind::kObserverCancel)};
  }
  std::string BusinessWindowAfter(const std::string& command, const std::string& point,
                                  const std::string& previous) const override {
    if (command == "start") {
      if (previous == "after published wait" || point == "receipt.publish.after")
        return "after published wait";
      if (point.find("[receipt]") != std::string::npos || point == "receipt.publish.before")
        return "publishing the wait";
      return "before the wait is published";
    }
    if (point == "effect.commit.after" || previous == "after commit, before engine completion") {
      return "after commit, before engine completion";
    }
    if (previous == "during the business transaction" ||
        (previous == "after decision, before effect" &&
         (point.find("[journal]") != std::string::npos ||
          point.find("[db]") != std::string::npos))) {
      return "during the business transaction";
    }
    if (point == "decision.record.after" || previous == "after decision, before effect") {
      return "after decision, before effect";
    }
    return "after published wait";
  }

  bool LifeReadsPrevious() const override { return false; }  // durable state alone
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override {
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
        out->push_back({kInvReqid, life + ": the resumed run did not re-emit the pending request"});
      }
      if (f.contains("reemitted_request_id") &&
          lives[i].status.code() == StatusCode::kFailedPrecondition &&
          lives[i].status.message().find("does not match") != std::string::npos) {
        out->push_back({kInvReqid, life + ": the re-emitted request " +
                                       f["reemitted_request_id"].get<std::string>() +
                                       " is not the one in the receipt"});
      }
      if (f.value("apply_invocations", 0) > 1) {
        out->push_back({kInvReqid, life + ": a duplicate response resumed the effect twice"});
      }
      if (f.contains("conflicting_rejected") && !f["conflicting_rejected"].get<bool>()) {
        out->push_back({kInvDecision, life + ": a conflicting decision (differing in " +
                                          f.value("conflict_field", std::string("all")) +
                                          ") was accepted"});
      }
      if (f.contains("mismatched_rejected") && !f["mismatched_rejected"].get<bool>() &&
          !lives[i].died) {
        out->push_back({kInvReqid, life + ": a response to request " +
                                       f["mismatched_request_id"].get<std::string>() +
                                       ", which is not pending, was not rejected"});
      }
      if (f.contains("item_id")) {
        const int64_t item = f["item_id"].get<int64_t>();
        if (returned_item && *returned_item != item) {
          out->push_back({kInvIdem, life + ": a replay returned item " + std::to_string(item) +
                                        " after item " + std::to_string(*returned_item)});
        }
        returned_item = item;
      }
    }
    // INV-RECEIPT: a receipt observed as published is there, byte for byte, unless bytes were
    // damaged on purpose (`corrupt`: INV-CORRUPT's business, a typed error).
    const bool damaged =
        std::any_of(lives.begin(), lives.end(), [](const LifeReport& l) { return l.damaged; });
    if (!published.empty() && !damaged) {
      auto now = env.env->ReadFile(JoinPath(env.dir, std::string(kReceiptFileName)));
      if (!now.ok() || *now != published) {
        out->push_back({kInvReceipt, "the published waiting receipt " +
                                         std::string(now.ok() ? "changed" : "is gone") + " (" +
                                         now.status().ToString() + ")"});
      }
    }
    const BusinessLook look = LookAtBusiness(env);
    const Result<std::vector<BacklogItem>>& items = look.items;
    const Result<std::vector<ApprovalRow>>& rows = look.rows;
    if (!items.ok() || !rows.ok()) {
      // What a life reported committed must be readable: a returned item is a business
      // transaction that returned success (the durability oracle for committed data).
      if (returned_item) {
        out->push_back({kInvAlo, "a life reported item " + std::to_string(*returned_item) +
                                     " Completed, but the business database cannot be read (" +
                                     (items.ok() ? rows.status() : items.status()).ToString() +
                                     ")"});
      }
      return;
    }
    std::map<std::string, int> per_op;
    for (const BacklogItem& item : *items) per_op[item.operation_id]++;
    CheckCompletedHasItsEffect(*rows, per_op, returned_item, out);
    for (const auto& [op, n] : per_op) {
      if (n > 1)
        out->push_back({kInvIdem, std::to_string(n) + " backlog items for operation " + op});
    }
    for (const ApprovalRow& row : *rows) {
      if (row.decision && (*row.decision != choice || row.comment.value_or("") != comment)) {
        out->push_back({kInvDecision, "operation " + row.operation_id + " records '" +
                                          *row.decision + "', not the operator's first decision"});
      }
      if (row.status == ApprovalStatus::kRejected && per_op.count(row.operation_id) > 0) {
        out->push_back(
            {kInvDecision, "rejected operation " + row.operation_id + " has an effect row"});
      }
      if (returned_item && row.item_id && *row.item_id != *returned_item) {
        out->push_back({kInvIdem, "the stored item " + std::to_string(*row.item_id) +
                                      " is not the item a resume returned"});
      }
    }
    CheckDecisionBeforeEngine(env, *rows, out);
    auto receipt = ReadReceipt(env.env, env.dir);
    if (receipt.ok() && receipt->has_value()) {
      CheckAncestry(env, "checkpoints", (*receipt)->session_id, lives, /*check_deletions=*/true,
                    out);
      if (final && !lives.empty() && lives.back().completed) {
        auto row = std::find_if(rows->begin(), rows->end(), [&](const ApprovalRow& x) {
          return x.operation_id == (*receipt)->operation_id;
        });
        const bool approve = choice == "approve";
        if (row == rows->end() ||
            row->status != (approve ? ApprovalStatus::kCompleted : ApprovalStatus::kRejected) ||
            per_op[(*receipt)->operation_id] != (approve ? 1 : 0)) {
          out->push_back({kInvAlo, "the completed operation is not " +
                                       std::string(approve ? "Completed with one item"
                                                           : "Rejected with no item")});
        }
      }
    }
  }

 private:
  // What the oracle reads from the business database: its backlog rows and its operations.
  struct BusinessLook {
    Result<std::vector<BacklogItem>> items = Status::Internal("unread");
    Result<std::vector<ApprovalRow>> rows = Status::Internal("unread");
  };

  // The business database as a recovering host would see it (BusinessOpen::kLook), on a private
  // copy of its files so the look changes nothing in the world (a hot journal is rolled back in
  // the copy), read once per process for the same bytes (LookOnce): the checks after every life
  // and on every power-loss copy look at the same few databases again and again. A missing
  // database is an observation (NotFound), never created.
  static BusinessLook LookAtBusiness(HostEnv& env) {
    const std::string db = JoinPath(env.dir, "business.db");
    auto db_exists = env.env->FileExists(db);
    if (!db_exists.ok() || !*db_exists) {
      Status missing = Status::NotFound("business.db does not exist");
      return {missing, missing};
    }
    const bool no_unique_key = env.hazards.count(kHazardEffectWithoutUniqueKey) > 0;
    return LookOnce<BusinessLook>(
        env.env, db, no_unique_key ? "approval|no-unique-key" : "approval",
        [&env](const Result<std::string>& vfs) -> BusinessLook {
          if (!vfs.ok()) return {vfs.status(), vfs.status()};
          HostEnv on_copy = env;
          on_copy.vfs_name = *vfs;
          auto business = OpenApprovalBusiness(on_copy, BusinessOpen::kLook);
          if (!business.ok()) return {business.status(), business.status()};
          return {(*business)->Items(), (*business)->ReadAll()};
        });
  }

  // INV-ALO on the durable database at every check (after every life, and on the world a power
  // loss right after a life would leave), not only the final one: `status` reports an operation
  // Completed from its Approvals row, so a Completed row must already have its backlog row (one
  // transaction commits both); and an item a life reported Completed must still be there.
  static void CheckCompletedHasItsEffect(const std::vector<ApprovalRow>& rows,
                                         const std::map<std::string, int>& per_op,
                                         std::optional<int64_t> returned_item,
                                         std::vector<Violation>* out) {
    bool returned_found = false;
    for (const ApprovalRow& row : rows) {
      if (row.status != ApprovalStatus::kCompleted) continue;
      if (per_op.count(row.operation_id) == 0) {
        out->push_back({kInvAlo, "operation " + row.operation_id +
                                     " is Completed in the durable database but its effect row "
                                     "does not exist"});
      }
      returned_found = returned_found || (returned_item && row.item_id == returned_item);
    }
    if (returned_item && !returned_found) {
      out->push_back({kInvAlo, "a life reported item " + std::to_string(*returned_item) +
                                   " Completed, but the durable database holds no Completed "
                                   "operation with that item"});
    }
  }

  // INV-DECISION: no stored checkpoint may carry a decision the business store does not hold yet.
  static void CheckDecisionBeforeEngine(HostEnv& env, const std::vector<ApprovalRow>& rows,
                                        std::vector<Violation>* out) {
    auto stored = ReadDurableCheckpoints(env, "checkpoints");
    if (!stored.ok()) return;
    for (const DurableCheckpoint& c : stored->items) {
      if (!c.intact) continue;
      const std::string& name = c.name;
      if (c.decoded == nullptr) continue;  // decoded once per read (DurableCheckpoints)
      for (const auto& [receiver, queue] : c.decoded->queued) {
        for (const Envelope& e : queue) {
          if (e.message.type != "ApprovalDecision") continue;
          const std::string op = e.message.body.value("operation_id", std::string());
          auto row = std::find_if(rows.begin(), rows.end(),
                                  [&](const ApprovalRow& x) { return x.operation_id == op; });
          if (row == rows.end() || !row->decision) {
            out->push_back({kInvDecision, "checkpoint " + name + " carries a decision for " + op +
                                              " that the business store has not recorded"});
          }
        }
      }
    }
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeApprovalScenario() {
  return std::make_shared<ApprovalScenario>();
}

}  // namespace stepfault::scenarios
