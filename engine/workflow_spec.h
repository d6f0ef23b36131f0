// WorkflowSpec: a workflow written down as the builder calls that make it, so it can be rebuilt,
// and changed on purpose (faults/topology_mutator.h) to test what a rebuilt workflow must match.
// Thread-safety: a value; Build() may be called from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/workflow.h"

namespace stepfault {

struct EdgeSpec {
  EdgeKind kind = EdgeKind::kDirect;
  std::vector<std::string> sources;
  std::vector<std::string> sinks;
  EdgeCondition condition;  // direct only
  EdgeAssigner assigner;    // fan-out only
};

struct WorkflowSpec {
  std::string start_id;
  std::vector<ExecutorBinding> executors;  // the start executor included
  std::vector<RequestPortSpec> ports;
  std::vector<EdgeSpec> edges;  // in builder call order: EdgeIds follow it
  std::vector<std::string> outputs;

  // Replays the builder calls: ports, then executors, then edges in order, then outputs.
  Result<std::shared_ptr<Workflow>> Build() const;
};

}  // namespace stepfault
