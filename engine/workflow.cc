// WorkflowBuilder validation, EdgeId assignment and the topology signature.
#include "engine/workflow.h"

#include <algorithm>
#include <set>

namespace stepfault {

std::string_view EdgeKindName(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::kDirect:
      return "direct";
    case EdgeKind::kFanOut:
      return "fan-out";
    case EdgeKind::kFanIn:
      return "fan-in";
  }
  return "unknown";
}

const ExecutorBinding* Workflow::FindBinding(const std::string& id) const {
  auto it = bindings_.find(id);
  return it == bindings_.end() ? nullptr : &it->second;
}

const Edge* Workflow::FindEdge(int id) const {
  if (id < 1 || static_cast<size_t>(id) > edges_.size()) return nullptr;
  const Edge* e = &edges_[static_cast<size_t>(id) - 1];
  return e->id == id ? e : nullptr;
}

const std::vector<const Edge*>& Workflow::OutgoingEdges(const std::string& source) const {
  static const std::vector<const Edge*> kNone;
  auto it = outgoing_.find(source);
  return it == outgoing_.end() ? kNone : it->second;
}

bool Workflow::IsOutput(const std::string& id) const {
  return std::binary_search(outputs_.begin(), outputs_.end(), id);
}

Json Workflow::MakeSignature() const {
  Json executors = Json::object();
  for (const auto& [id, b] : bindings_) executors[id] = Json{{"type", b.type_name}};
  Json edges = Json::array();
  for (const Edge& e : edges_) {
    Json je{
        {"id", e.id}, {"kind", EdgeKindName(e.kind)}, {"sources", e.sources}, {"sinks", e.sinks}};
    if (e.kind == EdgeKind::kDirect) je["has_condition"] = static_cast<bool>(e.condition);
    if (e.kind == EdgeKind::kFanOut) je["has_assigner"] = static_cast<bool>(e.assigner);
    edges.push_back(std::move(je));
  }
  Json ports = Json::array();
  for (const auto& [id, p] : ports_) {
    ports.push_back(
        Json{{"id", id}, {"request_type", p.request_type}, {"response_type", p.response_type}});
  }
  return Json{{"start", start_id_},
              {"executors", executors},
              {"edges", edges},
              {"ports", ports},
              {"outputs", outputs_}};
}

WorkflowBuilder::WorkflowBuilder(ExecutorBinding start) : start_id_(start.id) {
  AddExecutor(std::move(start));
}

WorkflowBuilder& WorkflowBuilder::AddExecutor(ExecutorBinding binding) {
  if (binding.id.empty()) Problem("an executor has an empty id; give every executor a stable id");
  if (!binding.factory) Problem("executor '" + binding.id + "' has no factory");
  bindings_.push_back(std::move(binding));
  return *this;
}

WorkflowBuilder& WorkflowBuilder::AddEdge(const std::string& source, const std::string& sink,
                                          EdgeCondition condition) {
  // An unconditional direct edge added again is an idempotent duplicate: it takes no EdgeId.
  if (!condition && !plain_direct_.insert({source, sink}).second) return *this;
  Edge e;
  e.id = next_edge_id_++;
  e.kind = EdgeKind::kDirect;
  e.sources = {source};
  e.sinks = {sink};
  e.condition = std::move(condition);
  edges_.push_back(std::move(e));
  return *this;
}

WorkflowBuilder& WorkflowBuilder::AddFanOutEdge(const std::string& source,
                                                std::vector<std::string> sinks,
                                                EdgeAssigner assigner) {
  const int id = next_edge_id_++;
  if (sinks.empty())
    Problem("fan-out edge " + std::to_string(id) + " from '" + source + "' has no sinks");
  Edge e;
  e.id = id;
  e.kind = EdgeKind::kFanOut;
  e.sources = {source};
  e.sinks = std::move(sinks);
  e.assigner = std::move(assigner);
  edges_.push_back(std::move(e));
  return *this;
}

WorkflowBuilder& WorkflowBuilder::AddFanInBarrierEdge(std::vector<std::string> sources,
                                                      const std::string& sink) {
  const int id = next_edge_id_++;
  if (sources.empty())
    Problem("fan-in edge " + std::to_string(id) + " into '" + sink + "' has no sources");
  std::set<std::string> unique(sources.begin(), sources.end());
  if (unique.size() != sources.size()) {
    Problem("fan-in edge " + std::to_string(id) + " into '" + sink + "' lists a source twice");
  }
  Edge e;
  e.id = id;
  e.kind = EdgeKind::kFanIn;
  e.sources = std::move(sources);
  e.sinks = {sink};
  edges_.push_back(std::move(e));
  return *this;
}

WorkflowBuilder& WorkflowBuilder::AddRequestPort(const std::string& port_id,
                                                 const std::string& request_type,
                                                 const std::string& response_type) {
  if (request_type == response_type) {
    Problem("request port '" + port_id + "' uses type '" + request_type +
            "' for both request and response; they must differ");
  }
  ports_.push_back({port_id, request_type, response_type});
  return *this;
}

WorkflowBuilder& WorkflowBuilder::WithOutputFrom(const std::string& executor_id) {
  outputs_.push_back(executor_id);
  return *this;
}

Result<std::shared_ptr<Workflow>> WorkflowBuilder::Build() {
  std::vector<std::string> problems = problems_;
  std::shared_ptr<Workflow> wf(new Workflow());
  wf->start_id_ = start_id_;
  for (const ExecutorBinding& b : bindings_) {
    if (!wf->bindings_.emplace(b.id, b).second) {
      problems.push_back("executor id '" + b.id + "' is used twice; executor ids must be unique");
    }
  }
  for (const RequestPortSpec& p : ports_) {
    auto existing = wf->ports_.find(p.id);
    if (existing != wf->ports_.end()) {
      if (existing->second.request_type != p.request_type ||
          existing->second.response_type != p.response_type) {
        problems.push_back("request port '" + p.id + "' is declared twice with different types (" +
                           existing->second.request_type + "->" + existing->second.response_type +
                           " vs " + p.request_type + "->" + p.response_type + ")");
      }
      continue;
    }
    if (wf->bindings_.count(p.id) > 0) {
      problems.push_back("request port id '" + p.id + "' clashes with an executor of that id");
      continue;
    }
    wf->ports_.emplace(p.id, p);
    wf->bindings_.emplace(p.id, RequestPortBinding(p));
  }
  auto known = [&](const std::string& id) { return wf->bindings_.count(id) > 0; };
  for (const Edge& e : edges_) {
    for (const std::string& s : e.sources) {
      if (!known(s)) {
        problems.push_back("edge " + std::to_string(e.id) + " names unknown source executor '" + s +
                           "'");
      }
    }
    for (const std::string& s : e.sinks) {
      if (!known(s)) {
        problems.push_back("edge " + std::to_string(e.id) + " names unknown sink executor '" + s +
                           "'");
      }
    }
  }
  std::vector<std::string> outputs = outputs_;
  std::sort(outputs.begin(), outputs.end());
  outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
  for (const std::string& o : outputs) {
    if (!known(o)) problems.push_back("output executor '" + o + "' is not in the workflow");
  }
  if (!problems.empty()) {
    std::string msg = "invalid workflow topology:";
    for (const std::string& p : problems) msg += "\n  - " + p;
    return Status::InvalidArgument(msg);
  }
  wf->edges_ = edges_;
  for (const Edge& e : wf->edges_) {
    for (const std::string& s : e.sources) wf->outgoing_[s].push_back(&e);
    if (e.kind == EdgeKind::kFanIn) wf->fan_in_edges_.push_back(&e);
  }
  wf->outputs_ = std::move(outputs);
  wf->signature_ = wf->MakeSignature();
  return wf;
}

namespace {
class RequestPortExecutor final : public Executor {
 public:
  explicit RequestPortExecutor(const RequestPortSpec& spec)
      : Executor(spec.id, "RequestPort", {spec.request_type, spec.response_type}), spec_(spec) {}
  Status Handle(const Message& message, WorkflowContext& context) override {
    if (message.type == spec_.request_type) return context.PostExternalRequest(message);
    context.SendMessage(message);  // a response: forwarded along the port's outgoing edges
    return Status::Ok();
  }

 private:
  RequestPortSpec spec_;
};
}  // namespace

ExecutorBinding RequestPortBinding(const RequestPortSpec& spec) {
  return ExecutorBinding{spec.id,
                         "RequestPort<" + spec.request_type + "," + spec.response_type + ">",
                         {spec.request_type, spec.response_type},
                         [spec]() { return std::make_unique<RequestPortExecutor>(spec); }};
}

}  // namespace stepfault
