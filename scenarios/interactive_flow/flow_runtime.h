// The participant's runtime in the interactive-flow model: the real Stepfault engine (engine/)
// runs a small workflow for the participant, and an adapter keeps its checkpoints in the flow's
// runtime state store (ADR-0054: "Runtime checkpoint bytes are opaque outside the adapter.
// IRuntimeExecutionStateStore is a runtime-neutral port ... keyed by run, runtime type, and state
// ID. The MAF adapter owns JSON checkpoint interpretation and stores parent checkpoint links.").
//
// - RuntimeStateStore is an engine CheckpointStore over the RuntimeState table of flow.db: a
//   commit inserts (run, runtime type "stepfault", state id "cp-<n>", parent state id, the
//   engine's encoded checkpoint bytes) on the worker's connection, inside the worker's open
//   transaction, so the checkpoint commits or rolls back with the flow's own records. The flow
//   never reads the bytes; only this adapter does, through the engine's codec.
// - The workflow: "planner" turns the run's input (with the bound revision) into a Ticket for the
//   request port "approval" (Ticket -> Decision), whose answer goes to "apply", which keeps the
//   decision in its state and yields it. The revision is data, not topology, so the checkpoint's
//   topology check does not depend on it.
// - StartRuntime runs the workflow from its input until it halts on the port's request (one
//   checkpoint per super-step) and returns the engine's RequestId: the flow's runtime request.
// - ResumeRuntime resumes from a stored checkpoint the flow names by its opaque state id (the one
//   its InputRequest was raised in; StreamingRun::Resume: the engine decodes and checks it and
//   re-emits the pending request), answers that request with the response value and runs to the
//   halt; the new checkpoints name their parents.
//
// The engine runs with no probe (no scheduling points inside it): its work happens between the
// worker's BEGIN and COMMIT, where the only scheduling points are SQLite's file operations.
// Thread-safety: a RuntimeStateStore is used by one actor thread, on that actor's FlowDb.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/status.h"
#include "scenarios/interactive_flow/flow_db.h"

namespace stepfault::scenarios::flow {

inline constexpr char kRuntimeType[] = "stepfault";

class RuntimeStateStore final : public CheckpointStore {
 public:
  // `run` is the session id of the engine run and the RuntimeState key's run.
  RuntimeStateStore(FlowDb* db, std::string run) : db_(db), run_(std::move(run)) {}
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override;
  Result<std::string> Retrieve(const CheckpointInfo& info) override;
  // In commit order (rowid).
  Result<std::vector<StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<CheckpointInfo>& with_parent = std::nullopt) override;

 private:
  FlowDb* db_;
  std::string run_;
};

struct RuntimeOutcome {
  Status status;           // not ok: the runtime failed; the caller rolls back
  std::string request_id;  // StartRuntime: the engine's RequestId of the port's request
  std::string decision;    // ResumeRuntime: the decision the workflow applied
  std::string checkpoint;  // the newest state id the run committed
  std::string parent;      // its parent state id ("" for none)
};

// REQUIRES: an open transaction on db. Deterministic: the engine's seed derives from the run id.
RuntimeOutcome StartRuntime(FlowDb& db, const std::string& run, int64_t revision);
// Resumes from the state `from` (the checkpoint the request was raised in).
RuntimeOutcome ResumeRuntime(FlowDb& db, const std::string& run, const std::string& from,
                             int64_t revision, const std::string& value);

}  // namespace stepfault::scenarios::flow
