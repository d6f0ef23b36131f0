// WorkflowSpec::Build: the builder calls, in order.
#include "engine/workflow_spec.h"

namespace stepfault {

Result<std::shared_ptr<Workflow>> WorkflowSpec::Build() const {
  const ExecutorBinding* start = nullptr;
  for (const ExecutorBinding& b : executors) {
    if (b.id == start_id) start = &b;
  }
  if (start == nullptr) {
    return Status::InvalidArgument("the start executor '" + start_id +
                                   "' is not among the executors");
  }
  WorkflowBuilder builder(*start);
  for (const ExecutorBinding& b : executors) {
    if (&b != start) builder.AddExecutor(b);
  }
  for (const RequestPortSpec& p : ports)
    builder.AddRequestPort(p.id, p.request_type, p.response_type);
  for (const EdgeSpec& e : edges) {
    switch (e.kind) {
      case EdgeKind::kDirect:
        if (e.sources.size() != 1 || e.sinks.size() != 1) {
          return Status::InvalidArgument("a direct edge needs exactly one source and one sink");
        }
        builder.AddEdge(e.sources[0], e.sinks[0], e.condition);
        break;
      case EdgeKind::kFanOut:
        if (e.sources.size() != 1)
          return Status::InvalidArgument("a fan-out edge needs exactly one source");
        builder.AddFanOutEdge(e.sources[0], e.sinks, e.assigner);
        break;
      case EdgeKind::kFanIn:
        if (e.sinks.size() != 1)
          return Status::InvalidArgument("a fan-in edge needs exactly one sink");
        builder.AddFanInBarrierEdge(e.sources, e.sinks[0]);
        break;
    }
  }
  for (const std::string& o : outputs) builder.WithOutputFrom(o);
  return builder.Build();
}

}  // namespace stepfault
