// StreamingRun: the handle, watchers, inputs and responses, and the pump that drives steps.
#include "engine/run.h"

#include "engine/random.h"

namespace stepfault {

std::string_view RunStatusName(RunStatus status) {
  switch (status) {
    case RunStatus::kNotStarted:
      return "NotStarted";
    case RunStatus::kRunning:
      return "Running";
    case RunStatus::kIdle:
      return "Idle";
    case RunStatus::kPendingRequests:
      return "PendingRequests";
    case RunStatus::kEnded:
      return "Ended";
  }
  return "Unknown";
}

// ---- EventStream ----------------------------------------------------------------------------

EventStream::EventStream(EventStream&& other) noexcept : run_(other.run_) {
  other.run_ = nullptr;
  if (run_ != nullptr) run_->watcher_ = this;
}

EventStream& EventStream::operator=(EventStream&& other) noexcept {
  if (this != &other) {
    Release();
    run_ = other.run_;
    other.run_ = nullptr;
    if (run_ != nullptr) run_->watcher_ = this;
  }
  return *this;
}

EventStream::~EventStream() { Release(); }

void EventStream::Release() {
  if (run_ != nullptr && run_->watcher_ == this) run_->watcher_ = nullptr;
  run_ = nullptr;
}

void EventStream::Cancel() {
  StreamingRun* run = run_;
  Release();
  // The mistake ADR-0015 rules out: observation and execution sharing one cancellation.
  if (run != nullptr && run->options_.profile.watcher_cancel_ends_run) run->Cancel();
}

std::optional<WorkflowEvent> EventStream::Next() {
  if (run_ == nullptr) return std::nullopt;
  StreamingRun* run = run_;
  if (run->buffered_.empty()) run->Pump(/*until_halt=*/false);
  if (run->buffered_.empty()) {
    // Halted or ended: this watch is over.
    Release();
    return std::nullopt;
  }
  WorkflowEvent e = std::move(run->buffered_.front());
  run->buffered_.pop_front();
  return e;
}

// ---- StreamingRun ---------------------------------------------------------------------------

StreamingRun::StreamingRun(std::shared_ptr<Workflow> workflow, RunOptions options)
    : workflow_(std::move(workflow)),
      options_(std::move(options)),
      probe_(options_.probe != nullptr ? options_.probe : NullProbe()) {}

StreamingRun::~StreamingRun() {
  if (watcher_ != nullptr) watcher_->run_ = nullptr;
  if (owns_workflow_) workflow_->Release();
}

Result<std::unique_ptr<StreamingRun>> StreamingRun::Start(std::shared_ptr<Workflow> workflow,
                                                          Message input, RunOptions options) {
  SF_CHECK(workflow != nullptr);
  if (!workflow->TryAcquire()) {
    return Status::FailedPrecondition(
        "the workflow is already owned by another run; end that run or build a new workflow");
  }
  std::unique_ptr<StreamingRun> run(new StreamingRun(std::move(workflow), std::move(options)));
  run->owns_workflow_ = true;
  run->session_id_ = run->options_.session_id.empty() ? DeriveId(run->options_.seed, "session")
                                                      : run->options_.session_id;
  SF_RETURN_IF_ERROR(run->SendMessage(std::move(input)));
  return run;
}

Result<EventStream> StreamingRun::Watch() {
  if (watcher_ != nullptr) {
    return Status::FailedPrecondition(
        "the event stream has already been taken; only one watcher is allowed at a time");
  }
  EventStream stream(this);
  watcher_ = &stream;
  return stream;  // the move constructor re-points watcher_
}

void StreamingRun::RunUntilHalt() { Pump(/*until_halt=*/true); }

Status StreamingRun::SendMessage(Message input) {
  if (ended_)
    return Status::FailedPrecondition("the run of session '" + session_id_ + "' has ended");
  const ExecutorBinding* start = workflow_->FindBinding(workflow_->start_id());
  bool accepted = false;
  for (const std::string& t : start->input_types)
    accepted = accepted || t == "*" || t == input.type;
  if (!accepted) {
    return Status::InvalidArgument("the start executor '" + workflow_->start_id() +
                                   "' does not accept messages of type '" + input.type + "'");
  }
  deferred_.push_back(Deferred{false, std::move(input), {}});
  return Status::Ok();
}

Status StreamingRun::SendResponse(ExternalResponse response) {
  if (ended_)
    return Status::FailedPrecondition("the run of session '" + session_id_ + "' has ended");
  deferred_.push_back(Deferred{true, {}, std::move(response)});
  return Status::Ok();
}

void StreamingRun::Cancel() {
  ended_ = true;
  in_cycle_ = false;
  if (watcher_ != nullptr) watcher_->Release();
}

RunStatus StreamingRun::status() const {
  if (ended_) return RunStatus::kEnded;
  if (HasWork()) return started_ ? RunStatus::kRunning : RunStatus::kNotStarted;
  if (!outstanding_.empty()) return RunStatus::kPendingRequests;
  return started_ ? RunStatus::kIdle : RunStatus::kNotStarted;
}

void StreamingRun::Emit(WorkflowEvent event) {
  // Bounded: a run that buffers this many events without a watcher is a runaway.
  SF_CHECK(buffered_.size() < 10'000'000);
  buffered_.push_back(std::move(event));
}

void StreamingRun::Pump(bool until_halt) {
  while (!ended_ && HasWork()) {
    if (!until_halt && !buffered_.empty()) return;
    if (!in_cycle_) {
      in_cycle_ = true;
      steps_in_cycle_ = 0;
      started_ = true;
      Emit(WorkflowEvent{EventKind::kWorkflowStarted});
      if (!until_halt) return;
    }
    RunStep();
    // Counted in the run, not in this call: a watcher's Next pumps one step per call.
    if (++steps_in_cycle_ > options_.max_steps_per_cycle) {
      EndWithError(ErrorKind::kStepLimit,
                   Status::FailedPrecondition(
                       "more than " + std::to_string(options_.max_steps_per_cycle) +
                       " super-steps without halting; is there a cycle? (raise "
                       "max_steps_per_cycle if the workflow is meant to run this long)"),
                   step_number_);
    }
  }
  in_cycle_ = false;
}

std::string StreamingRun::NewRequestId(const std::string& port_id) {
  const int n = requests_this_step_[port_id]++;
  return DeriveId(options_.seed, session_id_ + "|" + std::to_string(current_step_) + "|" + port_id +
                                     "|" + std::to_string(n));
}

void StreamingRun::EndWithError(ErrorKind kind, Status error, int64_t step) {
  WorkflowEvent e{EventKind::kWorkflowError};
  e.step = step;
  e.error_kind = kind;
  e.error = std::move(error);
  Emit(std::move(e));
  ended_ = true;
}

}  // namespace stepfault
