// Event names and the canonical trace rendering.
#include "engine/events.h"

namespace stepfault {

std::string_view EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kWorkflowStarted:
      return "WorkflowStarted";
    case EventKind::kSuperStepStarted:
      return "SuperStepStarted";
    case EventKind::kExecutorInvoked:
      return "ExecutorInvoked";
    case EventKind::kExecutorCompleted:
      return "ExecutorCompleted";
    case EventKind::kExecutorFailed:
      return "ExecutorFailed";
    case EventKind::kWorkflowOutput:
      return "WorkflowOutput";
    case EventKind::kRequestInfo:
      return "RequestInfo";
    case EventKind::kWorkflowError:
      return "WorkflowError";
    case EventKind::kSuperStepCompleted:
      return "SuperStepCompleted";
  }
  return "Unknown";
}

std::string_view ErrorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kNone:
      return "none";
    case ErrorKind::kHandlerFailed:
      return "handler-failed";
    case ErrorKind::kStateConflict:
      return "state-conflict";
    case ErrorKind::kResponseRejected:
      return "response-rejected";
    case ErrorKind::kCheckpointFailed:
      return "checkpoint-failed";
    case ErrorKind::kStepLimit:
      return "step-limit";
  }
  return "unknown";
}

Json WorkflowEvent::ToJson() const {
  Json j{{"event", EventKindName(kind)}};
  if (step >= 0) j["step"] = step;
  if (!executor_id.empty()) j["executor"] = executor_id;
  if (message) j["message"] = MessageToJson(*message);
  if (!request_id.empty()) j["request_id"] = request_id;
  if (error_kind != ErrorKind::kNone) j["error_kind"] = ErrorKindName(error_kind);
  if (!error.ok()) j["error"] = error.ToString();
  if (kind == EventKind::kSuperStepCompleted) {
    j["pending_messages"] = has_pending_messages;
    j["pending_requests"] = has_pending_requests;
    if (checkpoint) j["checkpoint"] = checkpoint->ToString();
  }
  return j;
}

std::string RenderTrace(const std::vector<WorkflowEvent>& events) {
  std::string out;
  for (const WorkflowEvent& e : events) {
    out += e.ToJson().dump();
    out += '\n';
  }
  return out;
}

}  // namespace stepfault
