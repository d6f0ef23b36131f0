// libFuzzer target: the checkpoint decoder and the compatibility check. Promise under test: any
// bytes give a Checkpoint or a typed error, never a crash; a decoded checkpoint's signature is safe
// to compare against a workflow under the strict and the MAF-compatible profile.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "engine/checkpoint.h"
#include "engine/compat.h"
#include "engine/executor.h"
#include "engine/workflow.h"

namespace {

std::shared_ptr<stepfault::Workflow> Sample() {
  using stepfault::Message;
  using stepfault::Status;
  using stepfault::WorkflowContext;
  auto forward = [](const std::string& id) {
    return stepfault::FunctionExecutor(id, "Forward", {"*"},
                                       [](const Message& m, WorkflowContext& ctx) {
                                         ctx.SendMessage(m);
                                         return Status::Ok();
                                       });
  };
  auto wf = stepfault::WorkflowBuilder(forward("a"))
                .AddExecutor(forward("b"))
                .AddExecutor(forward("c"))
                .AddFanOutEdge("a", {"b", "c"})
                .AddFanInBarrierEdge({"b", "c"}, "a")
                .Build();
  SF_CHECK(wf.ok());
  return *wf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto* workflow = new std::shared_ptr<stepfault::Workflow>(Sample());
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto decoded = stepfault::DecodeCheckpoint(bytes);
  if (!decoded.ok()) return 0;
  // What the engine does with a decoded checkpoint before anything else.
  (void)stepfault::CheckCompatibility(decoded->workflow, **workflow, stepfault::EngineProfile());
  (void)stepfault::CheckCompatibility(decoded->workflow, **workflow,
                                      stepfault::EngineProfile::MafCompat());
  // The codec round-trips what it accepted.
  auto again = stepfault::DecodeCheckpoint(stepfault::EncodeCheckpoint(*decoded));
  SF_CHECK(again.ok());
  return 0;
}
