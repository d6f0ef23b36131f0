// The approval host (start, resume, status) and the approval scenario around it.
#include "scenarios/approval/approval.h"

#include <algorithm>
#include <map>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/probe_points.h"
#include "engine/random.h"
#include "scenarios/approval/approval_hazards.h"
#include "scenarios/approval/approval_seams.h"
#include "scenarios/approval/approval_store.h"
#include "scenarios/approval/lease.h"
#include "scenarios/approval/receipt.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/effect_store.h"
#include "scenarios/exit_codes.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

constexpr const char* kPrepare = "PrepareApprovalV1";
constexpr const char* kPort = "BusinessApprovalV1";
constexpr const char* kApply = "ApplyApprovalV1";
constexpr const char* kFailAfterWrite =
    "failing right after the write, as --fail-after-write asked";

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

}  // namespace

Result<std::unique_ptr<ApprovalStore>> OpenApprovalBusiness(const HostEnv& env, BusinessOpen mode) {
  ApprovalStoreOptions o;
  o.read_only = mode == BusinessOpen::kReadOnly;
  // Acting on (or reporting) what it reads: make the inherited database durable first.
  o.durable_env = mode == BusinessOpen::kLook ? nullptr : env.env;
  o.vfs_name = env.vfs_name;
  o.probe = env.probe;
  o.clock = env.clock;
  o.hazard_no_unique_key = env.hazards.count(kHazardEffectWithoutUniqueKey) > 0;
  if (const ApprovalSeams* seams = ApprovalSeamsOf(env)) {
    o.same_decision = seams->same_decision;
    o.split_effect_commit = seams->split_effect_commit;
    o.split_effect_commit_row_first = seams->split_effect_commit_row_first;
    // The oracle's look (kLook) sees the database as it is; the seam's SQL is the host's.
    if (mode != BusinessOpen::kLook) o.after_open_sql = seams->after_open_sql;
  }
  return ApprovalStore::Open(JoinPath(env.dir, "business.db"), o);
}

namespace {

// `status` of the directory; with `life_store`, through the calling life's open connection instead
// of a second one (a life opens the business database once).
ApprovalOutcome ApprovalStatusWith(HostEnv& env, bool read_only, ApprovalStore* life_store);

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

// The rule for damage (docs/cli.md, exit codes): a directory whose receipt, checkpoints or
// database cannot be read is bad input, exit 2, whichever file it is; any other failure after the
// command began its work is exit 1.
int ExitCodeOf(const Status& s) { return IsDataDamage(s) ? kExitUsage : kExitViolation; }

// Opens a life's checkpoint store and business database (start and resume alike); on failure, the
// life's outcome (final when the data is damaged).
std::optional<ApprovalOutcome> OpenLifeStores(const HostEnv& env, LifeReport* report,
                                              std::unique_ptr<CheckpointStore>* checkpoints,
                                              std::unique_ptr<ApprovalStore>* business) {
  auto opened = OpenCheckpointStore(env, "checkpoints");
  if (!opened.ok()) {
    report->final = IsDataDamage(opened.status());
    return Fail(opened.status(), ExitCodeOf(opened.status()), report);
  }
  *checkpoints = std::move(opened).value();
  auto db = OpenApprovalBusiness(env);
  if (!db.ok()) return Fail(db.status(), ExitCodeOf(db.status()), report);
  *business = std::move(db).value();
  return std::nullopt;
}

}  // namespace

namespace {

// One `start` life, phase by phase: check and open what it needs (Open), run to the pending
// request and keep the checkpoint that holds it (RunToRequest), then publish the waiting receipt
// (Publish).
class StartLife {
 public:
  StartLife(HostEnv& env, std::string draft, LifeReport* report)
      : env_(env), draft_(std::move(draft)), report_(report) {}

  ApprovalOutcome Run() {
    report_->command = "start";
    if (std::optional<ApprovalOutcome> failed = Open()) return *failed;
    if (std::optional<ApprovalOutcome> failed = RunToRequest()) return *failed;
    return Publish();
  }

 private:
  // Validates the draft, takes the lease, refuses a directory that already holds an operation and
  // opens both stores; an outcome when the life ends here.
  std::optional<ApprovalOutcome> Open() {
    Status valid = ValidateDraft(draft_);
    if (!valid.ok()) return Fail(valid, kExitUsage, report_);
    auto lease = AcquireLease(env_.env, env_.dir);
    if (!lease.ok()) return Fail(lease.status(), kExitUsage, report_);
    lease_ = std::move(lease).value();
    auto existing = ReadReceipt(env_.env, env_.dir);
    if (!existing.ok()) return Fail(existing.status(), kExitUsage, report_);
    if (existing->has_value()) {
      return Fail(Status::AlreadyExists("directory '" + env_.dir + "' already holds operation " +
                                        (*existing)->operation_id +
                                        "; resume it, or start in a fresh directory"),
                  kExitUsage, report_);
    }
    if (auto failed = OpenLifeStores(env_, report_, &checkpoints_, &business_)) return failed;
    return std::nullopt;
  }

  // Registers the proposal and runs until RequestInfo; keeps the checkpoint of the
  // SuperStepCompleted after the request (never an earlier one: it may lack the request).
  std::optional<ApprovalOutcome> RunToRequest() {
    HostCheckpointManager manager(checkpoints_.get(), HostCheckpointOptions(env_), env_, report_);
    op_ = DeriveId(env_.root_seed, "operation|" + draft_);
    auto wf = ApprovalSpec(business_.get(), false).Build();
    SF_CHECK(wf.ok());
    auto run = StreamingRun::Start(
        *wf, Message{"BacklogDraft", Json{{"operation_id", op_}, {"draft", draft_}}},
        LifeRunOptions(env_, &manager));
    if (!run.ok()) return Fail(run.status(), kExitViolation, report_);
    std::optional<CheckpointInfo> before_request;
    Status error;
    Drive(**run, env_, report_, [&](const WorkflowEvent& e) {
      if (e.kind == EventKind::kWorkflowError && error.ok()) error = e.error;
      if (e.kind == EventKind::kRequestInfo) {
        if (e.message->body.value("operation_id", std::string()) != op_) {
          error = Status::FailedPrecondition("unexpected pending operation");
        }
        request_id_ = e.request_id;
      }
      if (e.kind == EventKind::kSuperStepCompleted && e.checkpoint) {
        if (!request_id_.empty() && !captured_) captured_ = e.checkpoint;
        if (request_id_.empty()) before_request = e.checkpoint;
      }
    });
    if (!error.ok()) return Fail(error, kExitViolation, report_);
    if (env_.hazards.count(kHazardReceiptBeforeRequest) > 0) captured_ = before_request;
    if (!captured_ || request_id_.empty()) {
      return Fail(
          Status::FailedPrecondition("no checkpoint containing the pending request was observed"),
          1, report_);
    }
    return std::nullopt;
  }

  // Publishes waiting.json (temp file, fsync, rename, directory fsync) and reports it.
  ApprovalOutcome Publish() {
    WaitingReceipt receipt{kApprovalGraphVersion, captured_->session_id, captured_->checkpoint_id,
                           op_, request_id_};
    ReceiptOptions ro;
    ro.probe = env_.probe;
    ro.hazard_in_place = env_.hazards.count(kHazardReceiptInPlace) > 0;
    ro.hazard_no_dir_sync = env_.hazards.count(kHazardReceiptNoDirSync) > 0;
    Status published = PublishReceipt(env_.env, env_.dir, receipt, ro);
    if (!published.ok()) return Fail(published, kExitViolation, report_);
    auto bytes = env_.env->ReadFile(JoinPath(env_.dir, std::string(kReceiptFileName)));
    report_->facts["receipt"] = bytes.ok() ? *bytes : std::string();
    report_->facts["operation_id"] = op_;
    report_->facts["request_id"] = request_id_;
    report_->facts["session_id"] = captured_->session_id;
    report_->trace.push_back("host: waiting on " + request_id_);
    ApprovalOutcome out;
    out.operation_id = op_;
    out.request_id = request_id_;
    out.state = "Waiting";
    return out;
  }

  HostEnv& env_;
  const std::string draft_;
  LifeReport* const report_;
  std::unique_ptr<HostLease> lease_;
  std::unique_ptr<CheckpointStore> checkpoints_;
  std::unique_ptr<ApprovalStore> business_;
  std::string op_, request_id_;
  std::optional<CheckpointInfo> captured_;
};

}  // namespace

ApprovalOutcome ApprovalStart(HostEnv& env, const std::string& draft, LifeReport* report) {
  return StartLife(env, draft, report).Run();
}

namespace {

// One `resume` life, phase by phase: open what it needs (Open), resume the receipt's checkpoint and
// answer its request (Drive), then apply the host mistakes the mutants ask for and report (Finish).
class ResumeLife {
 public:
  ResumeLife(HostEnv& env, std::string choice, std::string comment, bool fail_after_write,
             LifeReport* report)
      : env_(env),
        choice_(std::move(choice)),
        comment_(std::move(comment)),
        fail_after_write_(fail_after_write),
        report_(report) {}

  ApprovalOutcome Run() {
    report_->command = "resume";
    if (std::optional<ApprovalOutcome> failed = Open()) return *failed;
    HostCheckpointManager manager(checkpoints_.get(), HostCheckpointOptions(env_), env_, report_);
    manager_ = &manager;
    spec_ = ApprovalSpec(business_.get(), fail_after_write_);
    env_.probe->Hit(points::kHostResume);
    auto run = ResumeAsHost(env_, spec_, Checkpoint(), manager_, report_);
    if (!run.ok()) {
      report_->final = IsDataDamage(run.status()) || run.status().code() == StatusCode::kNotFound;
      return Fail(run.status(), report_->final ? kExitUsage : kExitViolation, report_);
    }
    Drive(**run, env_, report_, OnEvent(**run));
    return Finish();
  }

 private:
  CheckpointInfo Checkpoint() const { return {receipt_.session_id, receipt_.checkpoint_id}; }

  // Validates the decision, takes the lease, trusts the receipt (after making it durable) and opens
  // the stores; an outcome when the life ends here.
  std::optional<ApprovalOutcome> Open() {
    Status valid = ValidateDecision(choice_, comment_);
    if (!valid.ok()) return Fail(valid, kExitUsage, report_);
    // Nothing to resume: say so before taking the lease, which would create host.lease.
    auto unlocked = ReadReceipt(env_.env, env_.dir);
    if (unlocked.ok() && !unlocked->has_value()) {
      return Fail(Status::NotFound("no waiting receipt in '" + env_.dir +
                                   "'; run `stepfault approval start` first"),
                  kExitUsage, report_);
    }
    auto lease = AcquireLease(env_.env, env_.dir);
    if (!lease.ok()) return Fail(lease.status(), kExitUsage, report_);
    lease_ = std::move(lease).value();
    // The recovery rule (engine/env.h): the receipt a dead process published is made durable
    // before this life acts on it.
    Status durable = MakeInheritedDurable(env_.env, env_.dir, {std::string(kReceiptFileName)});
    if (!durable.ok()) return Fail(durable, ExitCodeOf(durable), report_);
    auto receipt = ReadReceipt(env_.env, env_.dir);
    if (!receipt.ok()) {
      report_->final = IsDataDamage(receipt.status());
      return Fail(receipt.status(), kExitUsage, report_);
    }
    if (!receipt->has_value()) {
      return Fail(Status::NotFound("no waiting receipt in '" + env_.dir +
                                   "'; run `stepfault approval start` first"),
                  kExitUsage, report_);
    }
    receipt_ = **receipt;
    if (receipt_.graph_version != kApprovalGraphVersion) {
      report_->final = true;
      return Fail(Status::Incompatible("receipt graph version '" + receipt_.graph_version +
                                       "' is unknown to this host (it knows " +
                                       kApprovalGraphVersion + "); migrate it first"),
                  kExitUsage, report_);
    }
    return OpenStores();
  }

  std::optional<ApprovalOutcome> OpenStores() {
    if (auto failed = OpenLifeStores(env_, report_, &checkpoints_, &business_)) return failed;
    auto row = business_->Read(receipt_.operation_id);
    if (!row.ok()) return Fail(row.status(), ExitCodeOf(row.status()), report_);
    if (row->decision && !SameDecision(*row->decision, row->comment.value_or(""))) {
      return Fail(Status::FailedPrecondition("operation " + receipt_.operation_id +
                                             " was already decided '" + *row->decision +
                                             "' with comment '" + row->comment.value_or("") +
                                             "'; a replay must repeat it exactly"),
                  kExitUsage, report_);
    }
    if (row->decision &&
        (row->status == ApprovalStatus::kCompleted || row->status == ApprovalStatus::kRejected)) {
      return AlreadyFinished(row->status);
    }
    return std::nullopt;
  }

  // An exact replay of a resume that already finished writes nothing (issue 16 item 12): resuming
  // the receipt's checkpoint again would commit a new branch of checkpoints under it, which the
  // pruning rule keeps (siblings), so every replay left two more files. The run is finished when a
  // stored checkpoint descending from the receipt's has nothing queued and nothing outstanding;
  // then the outcome is read, not redone. Otherwise (a crash after the business commit but before
  // the run's last checkpoint) the run is resumed and finishes as before.
  std::optional<ApprovalOutcome> AlreadyFinished(ApprovalStatus status) {
    auto index = checkpoints_->Index(receipt_.session_id);
    if (!index.ok()) return std::nullopt;
    std::map<std::string, std::optional<std::string>> parent_of;
    for (const StoreEntry& e : *index) parent_of[e.info.checkpoint_id] = e.parent_checkpoint_id;
    auto descends = [&](std::string id) {
      for (size_t hops = 0; hops <= parent_of.size(); ++hops) {
        auto it = parent_of.find(id);
        if (it == parent_of.end() || !it->second) return false;
        if (*it->second == receipt_.checkpoint_id) return true;
        id = *it->second;
      }
      return false;
    };
    HostCheckpointManager manager(checkpoints_.get(), HostCheckpointOptions(env_), env_, report_);
    bool finished = false;
    for (const StoreEntry& e : *index) {
      if (finished || !descends(e.info.checkpoint_id)) continue;
      auto cp = manager.Lookup(e.info);
      finished = cp.ok() && (*cp)->queued.empty() && (*cp)->outstanding.empty();
    }
    if (!finished) return std::nullopt;
    ApprovalOutcome out;
    out.operation_id = receipt_.operation_id;
    out.request_id = receipt_.request_id;
    out.state = std::string(ApprovalStatusName(status));
    auto stored = business_->StoredItemByJoin(receipt_.operation_id);
    if (!stored.ok()) return Fail(stored.status(), ExitCodeOf(stored.status()), report_);
    out.item_id = *stored;
    report_->facts["already_finished"] = true;
    report_->trace.push_back("host: the run already finished (" + out.state +
                             "); nothing to resume, nothing written");
    return out;
  }

  // The host's replay rule (faithful: both fields equal; a test seam may replace it).
  bool SameDecision(const std::string& stored_choice, const std::string& stored_comment) const {
    const ApprovalSeams* seams = ApprovalSeamsOf(env_);
    if (seams && seams->same_decision) {
      return seams->same_decision(stored_choice, stored_comment, choice_, comment_);
    }
    return stored_choice == choice_ && stored_comment == comment_;
  }

  // The conflicting-response variation: a second decision that differs from the first in the
  // field(s) the plan names, offered to the business store after the first was recorded. The
  // request-id field is a response to a request id that is not pending, offered to the engine.
  void Conflict(StreamingRun& target, const Message& decision) {
    using faults::ConflictField;
    const ConflictField field = ConflictFieldOf(env_);
    report_->facts["conflict_field"] = std::string(faults::ConflictFieldName(field));
    if (field == ConflictField::kRequestId) {
      forged_request_id_ = DeriveId(env_.root_seed, "forged|" + receipt_.request_id);
      report_->facts["mismatched_request_id"] = forged_request_id_;
      report_->facts["mismatched_rejected"] = false;
      SF_CHECK(target.SendResponse({forged_request_id_, kPort, decision}).ok());
      return;
    }
    const bool change_choice = field == ConflictField::kAll || field == ConflictField::kChoice;
    const bool change_comment = field == ConflictField::kAll || field == ConflictField::kComment;
    Status conflicting = business_->RecordDecision(
        receipt_.operation_id,
        change_choice ? (choice_ == "approve" ? "reject" : "approve") : choice_,
        change_comment ? comment_ + " (edited)" : comment_);
    report_->facts["conflicting_rejected"] = !conflicting.ok();
  }

  // Persists the decision (first), then sends it, applying the misuse variations of this life.
  void Respond(StreamingRun& target, const std::string& request_id) {
    const Message decision{
        "ApprovalDecision",
        Json{{"operation_id", receipt_.operation_id}, {"choice", choice_}, {"comment", comment_}}};
    if (env_.hazards.count(kHazardDecisionSentBeforePersisted) == 0) {
      Status recorded = business_->RecordDecision(receipt_.operation_id, choice_, comment_);
      if (!recorded.ok()) {
        error_ = recorded;
        return;
      }
    }
    SF_CHECK(target.SendResponse({request_id, kPort, decision}).ok());
    if (env_.variation.kind == faults::FaultActionKind::kConflictingResponse) {
      Conflict(target, decision);
    }
    if (env_.variation.kind == faults::FaultActionKind::kDuplicateResponse) {
      SF_CHECK(target.SendResponse({request_id, kPort, decision}).ok());
    }
    responded_ = true;
  }

  std::function<void(const WorkflowEvent&)> OnEvent(StreamingRun& target) {
    return [this, target_ptr = &target](const WorkflowEvent& e) {
      if (e.kind == EventKind::kRequestInfo && !responded_) {
        seen_request_ = true;
        report_->facts["reemitted_request_id"] = e.request_id;
        if (e.request_id != receipt_.request_id ||
            e.message->body.value("operation_id", std::string()) != receipt_.operation_id) {
          error_ = Status::FailedPrecondition("the response does not match the pending request");
          return;
        }
        Respond(*target_ptr, e.request_id);
      }
      if (e.kind == EventKind::kExecutorInvoked && e.executor_id == kApply) ++apply_invocations_;
      if (e.kind == EventKind::kWorkflowError) {
        if (e.error_kind == ErrorKind::kResponseRejected && !forged_request_id_.empty() &&
            e.request_id == forged_request_id_) {
          report_->facts["mismatched_rejected"] = true;
        } else if (e.error_kind == ErrorKind::kResponseRejected) {
          rejected_duplicate_ = true;
        } else if (error_.ok()) {
          error_ = e.error;
        }
      }
    };
  }

  // The host mistakes the mutants switch on, after the run halted.
  void ApplyMutants() {
    if (responded_ && env_.hazards.count(kHazardDecisionSentBeforePersisted) > 0 && error_.ok()) {
      Status recorded = business_->RecordDecision(receipt_.operation_id, choice_, comment_);
      if (!recorded.ok()) error_ = recorded;
    }
    if (rejected_duplicate_ && env_.hazards.count(kHazardDuplicateResponseResumesTwice) > 0 &&
        error_.ok()) {
      // The mistake: treat the rejected duplicate as a new decision and resume again.
      auto again = ResumeAsHost(env_, spec_, Checkpoint(), manager_, report_);
      if (again.ok()) {
        responded_ = false;
        Drive(**again, env_, report_, OnEvent(**again));
      }
    }
  }

  ApprovalOutcome Finish() {
    ApplyMutants();
    report_->facts["apply_invocations"] = apply_invocations_;
    if (!seen_request_) {
      report_->facts["request_not_reemitted"] = true;
      return Fail(Status::FailedPrecondition("the resumed run re-emitted no pending request"),
                  kExitViolation, report_);
    }
    if (!error_.ok()) {
      const bool after_write = error_.message().find(kFailAfterWrite) != std::string::npos;
      return Fail(error_,
                  after_write ? kExitViolation
                              : (error_.code() == StatusCode::kFailedPrecondition ? kExitUsage
                                                                                  : kExitViolation),
                  report_);
    }
    ApprovalOutcome out = ApprovalStatusWith(env_, false, business_.get());
    if (!out.status.ok()) return Fail(out.status, kExitViolation, report_);
    if (out.item_id) report_->facts["item_id"] = *out.item_id;
    report_->facts["state"] = out.state;
    report_->trace.push_back("host: " + out.state +
                             (out.item_id ? " item " + std::to_string(*out.item_id) : ""));
    return out;
  }

  HostEnv& env_;
  const std::string choice_, comment_;
  const bool fail_after_write_;
  LifeReport* const report_;
  std::unique_ptr<HostLease> lease_;
  WaitingReceipt receipt_;
  std::unique_ptr<CheckpointStore> checkpoints_;
  std::unique_ptr<ApprovalStore> business_;
  CheckpointManager* manager_ = nullptr;
  WorkflowSpec spec_;
  bool seen_request_ = false, responded_ = false, rejected_duplicate_ = false;
  std::string forged_request_id_;  // conflicting-response:request-id
  int apply_invocations_ = 0;
  Status error_;
};

}  // namespace

ApprovalOutcome ApprovalResume(HostEnv& env, const std::string& choice, const std::string& comment,
                               bool fail_after_write, LifeReport* report) {
  return ResumeLife(env, choice, comment, fail_after_write, report).Run();
}

ApprovalOutcome ApprovalStatusOf(HostEnv& env) { return ApprovalStatusOf(env, false); }

ApprovalOutcome ApprovalStatusOf(HostEnv& env, bool read_only) {
  return ApprovalStatusWith(env, read_only, nullptr);
}

namespace {

ApprovalOutcome ApprovalStatusWith(HostEnv& env, bool read_only, ApprovalStore* life_store) {
  ApprovalOutcome out;
  auto fail = [&out](Status s, int code) {
    out.status = std::move(s);
    out.exit_code = code;
    return out;
  };
  // What `status` reports to the outside must survive a power loss: the recovery rule (fsync and
  // directory fsync change no byte, so a read-only status stays byte-identical).
  Status durable = MakeInheritedDurable(env.env, env.dir, {std::string(kReceiptFileName)});
  if (!durable.ok()) return fail(durable, ExitCodeOf(durable));
  auto receipt = ReadReceipt(env.env, env.dir);
  if (!receipt.ok()) return fail(receipt.status(), kExitUsage);
  const std::string db = JoinPath(env.dir, "business.db");
  auto db_exists = env.env->FileExists(db);
  if (!receipt->has_value()) {
    if (db_exists.ok() && *db_exists) {
      return fail(Status::FailedPrecondition(
                      "a start in '" + env.dir +
                      "' was interrupted before it published its receipt (business.db exists, "
                      "waiting.json does not); run `stepfault approval start` again with the same "
                      "--draft and --seed to finish it"),
                  kExitUsage);
    }
    return fail(
        Status::NotFound("no waiting receipt in '" + env.dir + "'; nothing was started there"),
        kExitUsage);
  }
  if (read_only && db_exists.ok() && !*db_exists) {
    return fail(Status::Corruption("the directory '" + env.dir +
                                   "' is damaged: its receipt names operation " +
                                   (*receipt)->operation_id + " but business.db is missing"),
                kExitUsage);
  }
  Result<std::unique_ptr<ApprovalStore>> opened = std::unique_ptr<ApprovalStore>();
  if (life_store != nullptr) {
    // The life's own connection (one per life), made durable as a new open would: the same
    // recovery rule, the same file-system calls.
    const std::string base = BaseName(db);
    Status made = MakeInheritedDurable(env.env, env.dir, {base, base + "-journal"});
    if (!made.ok()) return fail(made, ExitCodeOf(made));
  } else {
    opened = OpenApprovalBusiness(env, read_only ? BusinessOpen::kReadOnly : BusinessOpen::kAct);
    if (!opened.ok()) return fail(opened.status(), ExitCodeOf(opened.status()));
  }
  ApprovalStore* business = life_store != nullptr ? life_store : opened->get();
  out.operation_id = (*receipt)->operation_id;
  out.request_id = (*receipt)->request_id;
  auto row = business->Read(out.operation_id);
  // A read-only status cannot roll back a hot journal: bad input for it, like damage (exit 2).
  if (!row.ok() && read_only && row.status().code() == StatusCode::kFailedPrecondition)
    return fail(row.status(), kExitUsage);
  if (!row.ok()) return fail(row.status(), ExitCodeOf(row.status()));
  out.state = std::string(ApprovalStatusName(row->status));
  auto stored = business->StoredItemByJoin(out.operation_id);
  if (!stored.ok()) return fail(stored.status(), ExitCodeOf(stored.status()));
  out.item_id = *stored;
  return out;
}

}  // namespace

}  // namespace stepfault::scenarios
