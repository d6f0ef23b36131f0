// WorkflowEvent: what a run reports, in the order it happens (docs/design.md §2,
// docs/engine-semantics.md §7). Every event renders as one canonical JSON line; the sequence of
// lines is the run's trace, and the same workflow, input and seed give a byte-identical trace.
// Thread-safety: values.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/message.h"
#include "engine/status.h"

namespace stepfault {

enum class EventKind {
  kWorkflowStarted,
  kSuperStepStarted,
  kExecutorInvoked,
  kExecutorCompleted,
  kExecutorFailed,
  kWorkflowOutput,
  kRequestInfo,
  kWorkflowError,
  kSuperStepCompleted,
};

std::string_view EventKindName(EventKind kind);

// Why a WorkflowError was raised.
enum class ErrorKind {
  kNone,
  kHandlerFailed,     // an executor failed; the step was aborted
  kStateConflict,     // two executors wrote one shared key in one step
  kResponseRejected,  // a response named an unknown request, another port, or was a duplicate
  kCheckpointFailed,  // the checkpoint of a step could not be committed (sticky)
  kStepLimit,         // more than RunOptions::max_steps_per_cycle super-steps without halting
};

std::string_view ErrorKindName(ErrorKind kind);

struct WorkflowEvent {
  EventKind kind;
  int64_t step = -1;               // SuperStepStarted/Completed, and the step of executor events
  std::string executor_id;         // executor events, output, request (the port id)
  std::optional<Message> message;  // invoked: the input; output: the output; request: its data
  std::string request_id;          // RequestInfo
  ErrorKind error_kind = ErrorKind::kNone;
  Status error;  // ExecutorFailed, WorkflowError
  // SuperStepCompleted:
  std::optional<CheckpointInfo> checkpoint;
  bool has_pending_messages = false;
  bool has_pending_requests = false;

  Json ToJson() const;
};

// The trace: one canonical JSON line per event.
std::string RenderTrace(const std::vector<WorkflowEvent>& events);

}  // namespace stepfault
