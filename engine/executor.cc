// Executor helpers.
#include "engine/executor.h"

#include <algorithm>

namespace stepfault {

bool Executor::Accepts(const std::string& message_type) const {
  return std::any_of(input_types_.begin(), input_types_.end(),
                     [&](const std::string& t) { return t == "*" || t == message_type; });
}

namespace {
class FunctionExecutorImpl final : public Executor {
 public:
  FunctionExecutorImpl(const ExecutorBinding& b, HandlerFn handler)
      : Executor(b.id, b.type_name, b.input_types), handler_(std::move(handler)) {}
  Status Handle(const Message& message, WorkflowContext& context) override {
    return handler_(message, context);
  }
  bool HasCheckpointingHook() const override { return false; }

 private:
  HandlerFn handler_;
};
}  // namespace

ExecutorBinding FunctionExecutor(std::string id, std::string type_name,
                                 std::vector<std::string> input_types, HandlerFn handler) {
  ExecutorBinding b{std::move(id), std::move(type_name), std::move(input_types), nullptr};
  ExecutorBinding copy = b;
  b.factory = [copy, handler]() -> std::unique_ptr<Executor> {
    return std::make_unique<FunctionExecutorImpl>(copy, handler);
  };
  return b;
}

}  // namespace stepfault
