// approval: Demo320 of the "Waiting, checkpoints and idempotent effects" lesson, faithfully
// (docs/sources.md, seed 004). PrepareApprovalV1 validates and registers the proposal;
// BusinessApprovalV1 is a request port (ApprovalTicket -> ApprovalDecision); ApplyApprovalV1
// applies the decision in one SQLite transaction. Checkpoints, waiting.json and business.db live
// together in one directory, guarded by a host lease.
//
// start: registers the proposal under an OperationId made once (from the seed and the draft) and
// bound to it, runs until RequestInfo, keeps the checkpoint of the next SuperStepCompleted (never
// an earlier one: it may lack the request), and only then publishes waiting.json (GraphVersion,
// SessionId, CheckpointId, OperationId, RequestId) by temp file + fsync + rename + directory fsync.
// resume: rebuilds the graph with the same identities, resumes the receipt's checkpoint, checks the
// re-emitted RequestId and OperationId, records the first valid decision before sending it, and
// lets ApplyApprovalV1 insert the item ON CONFLICT DO NOTHING and mark the proposal Completed. A
// replay must repeat the exact decision and returns the same ItemId; the receipt is kept after
// completion. status: Waiting|Approved|Rejected|Completed and the StoredItem read independently by
// a join. The same host runs on the real file system (the `stepfault approval` commands) and on the
// simulated one (exploration).
// Thread-safety: one host per directory (the lease enforces it).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

inline constexpr const char* kApprovalGraphVersion = "approval-graph/1";

struct ApprovalOutcome {
  Status status;      // ok, or what was wrong
  int exit_code = 0;  // scenarios/exit_codes.h: 0 ok, 1 failed after write, 2 bad input/damage
  std::string operation_id, request_id;
  std::string state;               // Waiting|Approved|Rejected|Completed
  std::optional<int64_t> item_id;  // the stored item, when completed
};

// The three commands. `report` receives the trace and the oracle's facts.
ApprovalOutcome ApprovalStart(HostEnv& env, const std::string& draft, LifeReport* report);
ApprovalOutcome ApprovalResume(HostEnv& env, const std::string& choice, const std::string& comment,
                               bool fail_after_write, LifeReport* report);
ApprovalOutcome ApprovalStatusOf(HostEnv& env);
// `read_only`: the `approval status` command, which never creates or changes a file (a missing
// business.db is reported as damage, not re-created).
ApprovalOutcome ApprovalStatusOf(HostEnv& env, bool read_only);

class ApprovalStore;
// How the business database is opened: kAct, by a host that will act on (or report) what it reads,
// so Open first makes the inherited database durable (the recovery rule of engine/env.h); kLook,
// the oracles' look, which must change nothing; kReadOnly, `approval status`: durable like kAct,
// but SQLite opens an existing database read-only (no file created, no schema, no journal mode).
enum class BusinessOpen { kAct, kLook, kReadOnly };
// The business database of the directory, opened with the env's VFS, probe, clock and mutants.
Result<std::unique_ptr<ApprovalStore>> OpenApprovalBusiness(const HostEnv& env,
                                                            BusinessOpen mode = BusinessOpen::kAct);

}  // namespace stepfault::scenarios
