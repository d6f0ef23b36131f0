// Executor: a node of a workflow with a stable string id, a type name (part of the topology
// signature) and the message types it accepts. Its handler runs once per delivered message, in
// FIFO order per receiver, and talks to the run through a WorkflowContext.
//
// Executors keep their durable state in state scopes (QueueStateUpdate), never in members: that is
// what a checkpoint captures. Handlers report expected failures as a non-ok Status; an exception
// derived from std::exception is also caught and reported as ExecutorFailed. Anything else (a
// simulated crash) unwinds through the engine untouched.
// Thread-safety: an executor is driven by one run on one thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/message.h"
#include "engine/status.h"

namespace stepfault {

class WorkflowContext {
 public:
  virtual ~WorkflowContext() = default;
  // Routes `message` through this executor's outgoing edges into the next super-step.
  virtual void SendMessage(Message message,
                           std::optional<std::string> target_id = std::nullopt) = 0;
  // Emits WorkflowOutput when this executor is declared an output executor; dropped otherwise
  // (as MAF drops output from undeclared executors).
  virtual void YieldOutput(Message message) = 0;
  // Reads a state key. `scope` "" is the executor's private scope; a named scope is shared by all
  // executors. A value this executor queued in the current step is seen first.
  virtual std::optional<Json> ReadState(const std::string& key, const std::string& scope = "") = 0;
  // Queues a write (nullopt deletes) that becomes visible at the end of the step.
  virtual void QueueStateUpdate(const std::string& key, std::optional<Json> value,
                                const std::string& scope = "") = 0;
  // Posts an external request carrying `data` (request ports only): emits RequestInfo with a new
  // RequestId and keeps the request outstanding until a valid response arrives.
  virtual Status PostExternalRequest(Message data) = 0;
  virtual const std::string& executor_id() const = 0;
  virtual const std::string& session_id() const = 0;
  virtual int64_t step_number() const = 0;
};

class Executor {
 public:
  // input_types: the message type names the executor handles; "*" accepts every type.
  Executor(std::string id, std::string type_name, std::vector<std::string> input_types)
      : id_(std::move(id)),
        type_name_(std::move(type_name)),
        input_types_(std::move(input_types)) {}
  virtual ~Executor() = default;

  const std::string& id() const { return id_; }
  const std::string& type_name() const { return type_name_; }
  const std::vector<std::string>& input_types() const { return input_types_; }
  bool Accepts(const std::string& message_type) const;

  // REQUIRES: Accepts(message.type).
  virtual Status Handle(const Message& message, WorkflowContext& context) = 0;
  // Whether OnCheckpointing does anything: false lets a run skip the call (and building its
  // context) at every checkpoint, which for an N-executor run is N calls per step. Default true;
  // an executor that overrides neither may say false (function executors do).
  virtual bool HasCheckpointingHook() const { return true; }
  // Before each checkpoint, on instantiated executors only.
  virtual Status OnCheckpointing(WorkflowContext& context) {
    (void)context;
    return Status::Ok();
  }
  // After a restore imported state, once per instantiated executor.
  virtual Status OnCheckpointRestored(WorkflowContext& context) {
    (void)context;
    return Status::Ok();
  }
  // Once per receiver per step, around its queue.
  virtual void OnDeliveryStarting(WorkflowContext& context) { (void)context; }
  virtual void OnDeliveryFinished(WorkflowContext& context) { (void)context; }

 private:
  std::string id_;
  std::string type_name_;
  std::vector<std::string> input_types_;
};

using ExecutorFactory = std::function<std::unique_ptr<Executor>()>;
using HandlerFn = std::function<Status(const Message&, WorkflowContext&)>;

// How a workflow names and creates an executor. The factory runs when the executor is first
// instantiated by a run (lazily, as MAF does), and again for every new run.
struct ExecutorBinding {
  std::string id;
  std::string type_name;
  std::vector<std::string> input_types;
  ExecutorFactory factory;
};

// A binding whose executor runs `handler` for every accepted message.
ExecutorBinding FunctionExecutor(std::string id, std::string type_name,
                                 std::vector<std::string> input_types, HandlerFn handler);

}  // namespace stepfault
