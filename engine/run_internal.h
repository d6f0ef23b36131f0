// StepContext: the WorkflowContext one executor's handlers and hooks see during a step or a
// restore. Internal to the run implementation. Thread-safety: as StreamingRun.
#pragma once

#include <string>

#include "engine/run.h"

namespace stepfault {

inline std::string ScopeId(const std::string& executor_id, const std::string& scope) {
  return scope.empty() ? "executor:" + executor_id : "shared:" + scope;
}

// The context one receiver's handlers and hooks see.
class StepContext final : public WorkflowContext {
 public:
  StepContext(StreamingRun* run, std::string executor_id)
      : run_(run), executor_id_(std::move(executor_id)) {}

  void SendMessage(Message message, std::optional<std::string> target_id) override {
    run_->outboxes_[executor_id_].push_back(
        {executor_id_, std::move(message), std::move(target_id)});
  }
  void YieldOutput(Message message) override {
    if (!run_->workflow_->IsOutput(executor_id_)) return;  // MAF drops undeclared outputs
    WorkflowEvent e{EventKind::kWorkflowOutput};
    e.step = run_->current_step_;
    e.executor_id = executor_id_;
    e.message = std::move(message);
    run_->Emit(std::move(e));
  }
  std::optional<Json> ReadState(const std::string& key, const std::string& scope) override {
    const std::string scope_id = ScopeId(executor_id_, scope);
    auto q = run_->queued_writes_.find({scope_id, key});
    if (q != run_->queued_writes_.end()) {
      auto mine = q->second.by_writer.find(executor_id_);
      if (mine != q->second.by_writer.end()) return mine->second;
    }
    const SharedJson* v = run_->state_.Find(scope_id, key);
    if (v == nullptr) return std::nullopt;
    return v->get();
  }
  void QueueStateUpdate(const std::string& key, std::optional<Json> value,
                        const std::string& scope) override {
    run_->queued_writes_[{ScopeId(executor_id_, scope), key}].by_writer[executor_id_] =
        std::move(value);
  }
  Status PostExternalRequest(Message data) override {
    if (run_->workflow_->ports().count(executor_id_) == 0) {
      return Status::FailedPrecondition("executor '" + executor_id_ + "' is not a request port");
    }
    PendingRequest r{run_->NewRequestId(executor_id_), executor_id_, std::move(data)};
    for (const PendingRequest& o : run_->outstanding_) {
      if (o.request_id == r.request_id) {
        return Status::AlreadyExists("request id '" + r.request_id + "' is already outstanding");
      }
    }
    WorkflowEvent e{EventKind::kRequestInfo};
    e.step = run_->current_step_;
    e.executor_id = executor_id_;
    e.request_id = r.request_id;
    e.message = r.data;
    run_->outstanding_.push_back(std::move(r));
    run_->Emit(std::move(e));
    return Status::Ok();
  }
  const std::string& executor_id() const override { return executor_id_; }
  const std::string& session_id() const override { return run_->session_id_; }
  int64_t step_number() const override { return run_->current_step_; }

 private:
  StreamingRun* run_;
  std::string executor_id_;
};

}  // namespace stepfault
