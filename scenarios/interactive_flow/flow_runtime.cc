// The interactive-flow participant runtime: the engine and its checkpoint adapter (see
// flow_runtime.h).
#include "scenarios/interactive_flow/flow_runtime.h"

#include <memory>

#include "engine/checkpoint_manager.h"
#include "engine/executor.h"
#include "engine/random.h"
#include "engine/run.h"
#include "engine/workflow.h"

namespace stepfault::scenarios::flow {
namespace {

constexpr char kPort[] = "approval";

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string Unhex(const std::string& hex) {
  const auto value = [](char c) { return c <= '9' ? c - '0' : c - 'A' + 10; };  // SQLite: upper
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<char>(value(hex[2 * i]) * 16 + value(hex[2 * i + 1]));
  }
  return out;
}

Message Msg(std::string type, Json body) { return Message{std::move(type), std::move(body)}; }

// planner -> port "approval" (Ticket -> Decision) -> apply (keeps and yields the decision).
std::shared_ptr<Workflow> ParticipantWorkflow() {
  auto planner =
      FunctionExecutor("planner", "Planner", {"Start"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Ticket", m.body));
        return Status::Ok();
      });
  auto apply =
      FunctionExecutor("apply", "Apply", {"Decision"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.QueueStateUpdate("decision", m.body);
        ctx.YieldOutput(Msg("Applied", m.body));
        return Status::Ok();
      });
  auto built = WorkflowBuilder(planner)
                   .AddExecutor(apply)
                   .AddRequestPort(kPort, "Ticket", "Decision")
                   .AddEdge("planner", kPort)
                   .AddEdge(kPort, "apply")
                   .WithOutputFrom("apply")
                   .Build();
  SF_CHECK(built.ok());
  return *built;
}

RunOptions Options(CheckpointManager* manager, const std::string& run) {
  RunOptions options;
  options.checkpoints = manager;
  options.seed = DeriveSeed(Hash64(run), "flow.runtime");
  options.session_id = run;
  return options;
}

// Drives the run to its halt; fills the request id or the decision from the events.
void Drain(StreamingRun& run, RuntimeOutcome* out) {
  run.RunUntilHalt();
  Result<EventStream> stream = run.Watch();
  if (!stream.ok()) {
    out->status = stream.status();
    return;
  }
  while (std::optional<WorkflowEvent> e = stream->Next()) {
    if (e->kind == EventKind::kRequestInfo) out->request_id = e->request_id;
    if (e->kind == EventKind::kWorkflowOutput && e->message.has_value()) {
      out->decision = e->message->body.value("value", std::string());
    }
    if (e->kind == EventKind::kWorkflowError && out->status.ok()) out->status = e->error;
    if (e->kind == EventKind::kSuperStepCompleted && e->checkpoint.has_value()) {
      out->checkpoint = e->checkpoint->checkpoint_id;
    }
  }
}

}  // namespace

Result<CheckpointInfo> RuntimeStateStore::Commit(const std::string& session_id,
                                                 std::string_view bytes,
                                                 const std::optional<CheckpointInfo>& parent) {
  const int64_t n = db_->QueryInt("SELECT count(*) FROM RuntimeState WHERE run = " + Q(run_) +
                                      " AND runtime_type = " + Q(kRuntimeType),
                                  0);
  CheckpointInfo info{session_id, "cp-" + std::to_string(n + 1)};
  db_->Exec("INSERT INTO RuntimeState VALUES(" + Q(run_) + "," + Q(kRuntimeType) + "," +
            Q(info.checkpoint_id) + "," + Q(parent ? parent->checkpoint_id : "") + ", X'" +
            Hex(bytes) + "')");
  return info;
}

Result<std::string> RuntimeStateStore::Retrieve(const CheckpointInfo& info) {
  std::vector<Row> rows = db_->Query("SELECT hex(bytes) FROM RuntimeState WHERE run = " + Q(run_) +
                                     " AND runtime_type = " + Q(kRuntimeType) +
                                     " AND state_id = " + Q(info.checkpoint_id));
  if (rows.empty()) return Status::NotFound("runtime state " + info.ToString());
  return Unhex(rows[0][0]);
}

Result<std::vector<StoreEntry>> RuntimeStateStore::Index(
    const std::string& session_id, const std::optional<CheckpointInfo>& with_parent) {
  std::vector<StoreEntry> out;
  for (const Row& row :
       db_->Query("SELECT state_id, parent_id FROM RuntimeState WHERE run = " + Q(run_) +
                  " AND runtime_type = " + Q(kRuntimeType) + " ORDER BY rowid")) {
    StoreEntry entry{CheckpointInfo{session_id, row[0]}, std::nullopt, true};
    if (!row[1].empty()) entry.parent_checkpoint_id = row[1];
    if (with_parent && entry.parent_checkpoint_id != with_parent->checkpoint_id) continue;
    out.push_back(std::move(entry));
  }
  return out;
}

RuntimeOutcome StartRuntime(FlowDb& db, const std::string& run, int64_t revision) {
  RuntimeStateStore store(&db, run);
  StoreCheckpointManager manager(&store);
  RuntimeOutcome out;
  Result<std::unique_ptr<StreamingRun>> started = StreamingRun::Start(
      ParticipantWorkflow(), Msg("Start", Json{{"run", run}, {"revision", revision}}),
      Options(&manager, run));
  if (!started.ok()) {
    out.status = started.status();
    return out;
  }
  Drain(**started, &out);
  if (out.status.ok() && out.request_id.empty()) {
    out.status = Status::Internal("the participant halted without its request");
  }
  return out;
}

RuntimeOutcome ResumeRuntime(FlowDb& db, const std::string& run, const std::string& from,
                             int64_t revision, const std::string& value) {
  RuntimeStateStore store(&db, run);
  StoreCheckpointManager manager(&store);
  RuntimeOutcome out;
  out.parent = from;
  Result<std::unique_ptr<StreamingRun>> resumed = StreamingRun::Resume(
      ParticipantWorkflow(), CheckpointInfo{run, from}, Options(&manager, run));
  if (!resumed.ok()) {
    out.status = resumed.status();
    return out;
  }
  StreamingRun& r = **resumed;
  if (r.pending_requests().empty()) {
    out.status = Status::FailedPrecondition("the runtime state of " + run + " has no request");
    return out;
  }
  const std::string request = r.pending_requests()[0].request_id;
  out.status = r.SendResponse(ExternalResponse{
      request, kPort, Msg("Decision", Json{{"value", value}, {"revision", revision}})});
  if (out.status.ok()) Drain(r, &out);
  if (out.status.ok() && out.decision.empty()) {
    out.status = Status::Internal("the participant did not apply the decision");
  }
  return out;
}

}  // namespace stepfault::scenarios::flow
