// The six topology mutations.
#include "faults/topology_mutator.h"

#include <algorithm>
#include <optional>
#include <utility>

namespace stepfault::faults {
namespace {

void RenameEverywhere(WorkflowSpec* spec, const std::string& from, const std::string& to) {
  auto rename = [&](std::string& id) {
    if (id == from) id = to;
  };
  rename(spec->start_id);
  for (ExecutorBinding& b : spec->executors) {
    if (b.id != from) continue;
    b.id = to;
    ExecutorFactory inner = b.factory;
    // The executor keeps its behaviour under its new id.
    b.factory = [inner, to]() -> std::unique_ptr<Executor> {
      class Renamed final : public Executor {
       public:
        Renamed(std::unique_ptr<Executor> inner, std::string id)
            : Executor(std::move(id), inner->type_name(), inner->input_types()),
              inner_(std::move(inner)) {}
        Status Handle(const Message& m, WorkflowContext& c) override {
          return inner_->Handle(m, c);
        }
        bool HasCheckpointingHook() const override { return inner_->HasCheckpointingHook(); }
        Status OnCheckpointing(WorkflowContext& c) override { return inner_->OnCheckpointing(c); }
        Status OnCheckpointRestored(WorkflowContext& c) override {
          return inner_->OnCheckpointRestored(c);
        }

       private:
        std::unique_ptr<Executor> inner_;
      };
      return std::make_unique<Renamed>(inner(), to);
    };
  }
  for (EdgeSpec& e : spec->edges) {
    std::for_each(e.sources.begin(), e.sources.end(), rename);
    std::for_each(e.sinks.begin(), e.sinks.end(), rename);
  }
  std::for_each(spec->outputs.begin(), spec->outputs.end(), rename);
}

std::vector<size_t> FanInPositions(const WorkflowSpec& spec) {
  std::vector<size_t> out;
  for (size_t i = 0; i < spec.edges.size(); ++i) {
    if (spec.edges[i].kind == EdgeKind::kFanIn) out.push_back(i);
  }
  return out;
}

const ExecutorBinding* RenameCandidate(const WorkflowSpec& spec) {
  const ExecutorBinding* pick = nullptr;
  for (const ExecutorBinding& b : spec.executors) {
    if (b.id == spec.start_id) continue;
    if (pick == nullptr || b.id > pick->id) pick = &b;
  }
  return pick;
}

// duplicate-edge: (kept, replaced) positions of two different edges with the same sources where
// a copy of `kept` survives the builder (not an unconditional direct edge, which it folds into
// one), the first such pair in edge order.
std::optional<std::pair<size_t, size_t>> DuplicatePair(const WorkflowSpec& spec) {
  auto copyable = [](const EdgeSpec& e) {
    return e.kind != EdgeKind::kDirect || static_cast<bool>(e.condition);
  };
  for (size_t i = 0; i < spec.edges.size(); ++i) {
    for (size_t j = i + 1; j < spec.edges.size(); ++j) {
      const EdgeSpec& a = spec.edges[i];
      const EdgeSpec& b = spec.edges[j];
      if (a.sources != b.sources || (a.kind == b.kind && a.sinks == b.sinks)) continue;
      if (copyable(a)) return std::make_pair(i, j);
      if (copyable(b)) return std::make_pair(j, i);
    }
  }
  return std::nullopt;
}

}  // namespace

bool MutationApplies(const WorkflowSpec& spec, TopologyMutation mutation) {
  switch (mutation) {
    case TopologyMutation::kPermuteEdges:
      return spec.edges.size() >= 2;
    case TopologyMutation::kSwapFanIn:
      return FanInPositions(spec).size() >= 2;
    case TopologyMutation::kRenameExecutor:
      return RenameCandidate(spec) != nullptr;
    case TopologyMutation::kRemoveEdge:
      return !spec.edges.empty();
    case TopologyMutation::kChangePortType:
      return !spec.ports.empty();
    case TopologyMutation::kDuplicateEdge:
      return DuplicatePair(spec).has_value();
  }
  return false;
}

Result<WorkflowSpec> MutateTopology(const WorkflowSpec& spec, TopologyMutation mutation) {
  if (!MutationApplies(spec, mutation)) {
    return Status::FailedPrecondition("topology mutation does not apply to this workflow");
  }
  WorkflowSpec out = spec;
  switch (mutation) {
    case TopologyMutation::kPermuteEdges:
      // Rotate by one: every edge moves, so every EdgeId changes meaning.
      std::rotate(out.edges.begin(), out.edges.begin() + 1, out.edges.end());
      break;
    case TopologyMutation::kSwapFanIn: {
      std::vector<size_t> fan_in = FanInPositions(out);
      std::swap(out.edges[fan_in[0]], out.edges[fan_in[1]]);
      break;
    }
    case TopologyMutation::kRenameExecutor: {
      const std::string from = RenameCandidate(out)->id;
      RenameEverywhere(&out, from, from + "-renamed");
      break;
    }
    case TopologyMutation::kRemoveEdge:
      out.edges.pop_back();
      break;
    case TopologyMutation::kChangePortType:
      out.ports[0].response_type += "V2";
      break;
    case TopologyMutation::kDuplicateEdge: {
      const auto [kept, replaced] = *DuplicatePair(out);
      out.edges[replaced] = out.edges[kept];
      break;
    }
  }
  return out;
}

}  // namespace stepfault::faults
