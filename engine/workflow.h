// Workflow and WorkflowBuilder: the topology a run executes (docs/design.md §2,
// docs/engine-semantics.md §1.3).
//
// A builder starts from a start executor and adds edges. Every Add*Edge call takes the next EdgeId
// from a counter in call order, starting at 1 (one id per fan-in edge whatever its source count);
// adding an unconditional direct edge that already exists is idempotent and takes no id, as in
// MAF. Request ports are executors whose id is the port id. Build() validates the whole topology
// and names every problem: unknown or duplicate executor ids, an empty fan-in or fan-out, a port id
// that clashes with an executor or another port, an unknown output executor.
//
// A Workflow is immutable and shareable, but only one run may own it at a time: a run takes
// ownership when it starts and gives it back when it ends (MAF's ownership rule).
// Thread-safety: Workflow is immutable except for the ownership flag, which is atomic.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/executor.h"
#include "engine/message.h"
#include "engine/shared_json.h"
#include "engine/status.h"

namespace stepfault {

enum class EdgeKind { kDirect = 0, kFanOut = 1, kFanIn = 2 };
std::string_view EdgeKindName(EdgeKind kind);

using EdgeCondition = std::function<bool(const Message&)>;
// Returns indices into the ordered sink list.
using EdgeAssigner = std::function<std::vector<size_t>(const Message&, size_t sink_count)>;

struct Edge {
  int id = 0;
  EdgeKind kind = EdgeKind::kDirect;
  std::vector<std::string> sources;  // ordered
  std::vector<std::string> sinks;    // ordered
  EdgeCondition condition;           // direct only
  EdgeAssigner assigner;             // fan-out only
};

struct RequestPortSpec {
  std::string id;
  std::string request_type;
  std::string response_type;
};

class Workflow {
 public:
  const std::string& start_id() const { return start_id_; }
  const std::map<std::string, ExecutorBinding>& bindings() const { return bindings_; }
  const ExecutorBinding* FindBinding(const std::string& id) const;
  const std::vector<Edge>& edges() const { return edges_; }  // in EdgeId order
  // The fan-in edges of edges(), in EdgeId order (a run exports their state at every checkpoint).
  const std::vector<const Edge*>& fan_in_edges() const { return fan_in_edges_; }
  const Edge* FindEdge(int id) const;
  // Outgoing edges of `source` in insertion (EdgeId) order; fan-in edges included.
  const std::vector<const Edge*>& OutgoingEdges(const std::string& source) const;
  const std::map<std::string, RequestPortSpec>& ports() const { return ports_; }
  const std::vector<std::string>& outputs() const { return outputs_; }  // sorted
  bool IsOutput(const std::string& id) const;

  // The topology signature stored in every checkpoint (canonical JSON).
  const Json& signature() const { return *signature_; }
  // The same, shared: every checkpoint of every run of this workflow points to this one object.
  const SharedJson& shared_signature() const { return signature_; }

  // Ownership: one run at a time.
  bool TryAcquire() { return !owned_.exchange(true); }
  void Release() { owned_.store(false); }
  bool owned() const { return owned_.load(); }

 private:
  friend class WorkflowBuilder;
  Workflow() = default;
  Json MakeSignature() const;

  std::string start_id_;
  std::map<std::string, ExecutorBinding> bindings_;
  std::vector<Edge> edges_;
  std::map<std::string, std::vector<const Edge*>> outgoing_;
  std::vector<const Edge*> fan_in_edges_;
  std::map<std::string, RequestPortSpec> ports_;
  std::vector<std::string> outputs_;
  SharedJson signature_;
  std::atomic<bool> owned_{false};
};

class WorkflowBuilder {
 public:
  explicit WorkflowBuilder(ExecutorBinding start);

  WorkflowBuilder& AddExecutor(ExecutorBinding binding);
  WorkflowBuilder& AddEdge(const std::string& source, const std::string& sink,
                           EdgeCondition condition = nullptr);
  WorkflowBuilder& AddFanOutEdge(const std::string& source, std::vector<std::string> sinks,
                                 EdgeAssigner assigner = nullptr);
  WorkflowBuilder& AddFanInBarrierEdge(std::vector<std::string> sources, const std::string& sink);
  // A request port: an executor with id `port_id` that turns `request_type` messages into
  // external requests and forwards `response_type` responses along its outgoing edges.
  WorkflowBuilder& AddRequestPort(const std::string& port_id, const std::string& request_type,
                                  const std::string& response_type);
  WorkflowBuilder& WithOutputFrom(const std::string& executor_id);

  // Validates and builds. All problems are reported together, one per line.
  Result<std::shared_ptr<Workflow>> Build();

 private:
  void Problem(std::string text) { problems_.push_back(std::move(text)); }

  std::string start_id_;
  std::vector<ExecutorBinding> bindings_;
  std::vector<RequestPortSpec> ports_;
  std::vector<Edge> edges_;
  std::vector<std::string> outputs_;
  std::vector<std::string> problems_;
  std::set<std::pair<std::string, std::string>>
      plain_direct_;  // (source, sink) of unconditional direct edges
  int next_edge_id_ = 1;
};

// The built-in executor behind a request port (type name "RequestPort").
ExecutorBinding RequestPortBinding(const RequestPortSpec& spec);

}  // namespace stepfault
