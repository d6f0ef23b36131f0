// Strict signature comparison with a readable diff, and the MAF IsMatch rules behind the hazards.
#include "engine/compat.h"

#include <map>
#include <set>

namespace stepfault {
namespace {

constexpr const char* kPrefix =
    "the checkpoint is not compatible with the workflow it is restored into";

std::string EdgeText(const Json& e) {
  std::string s = "edge " + e.value("id", Json(0)).dump() + " (" +
                  e.value("kind", std::string("?")) + " " +
                  e.value("sources", Json::array()).dump() + " -> " +
                  e.value("sinks", Json::array()).dump() + ")";
  return s;
}

void DiffObjects(const Json& a, const Json& b, const std::string& what,
                 std::vector<std::string>* out) {
  for (const auto& [k, v] : a.items()) {
    if (!b.contains(k)) {
      out->push_back(what + " '" + k + "' is in the checkpoint but not in the workflow");
    } else if (b[k] != v) {
      out->push_back(what + " '" + k + "' differs: checkpoint " + v.dump() + ", workflow " +
                     b[k].dump());
    }
  }
  for (const auto& [k, v] : b.items()) {
    if (!a.contains(k))
      out->push_back(what + " '" + k + "' is in the workflow but not in the checkpoint");
  }
}

std::vector<std::string> StrictDiff(const Json& cp, const Json& wf) {
  std::vector<std::string> diffs;
  if (cp.value("start", Json()) != wf.value("start", Json())) {
    diffs.push_back("start executor differs: checkpoint " + cp.value("start", Json()).dump() +
                    ", workflow " + wf.value("start", Json()).dump());
  }
  DiffObjects(cp.value("executors", Json::object()), wf.value("executors", Json::object()),
              "executor", &diffs);
  const Json cp_edges = cp.value("edges", Json::array());
  const Json wf_edges = wf.value("edges", Json::array());
  for (size_t i = 0; i < std::max(cp_edges.size(), wf_edges.size()); ++i) {
    if (i >= wf_edges.size()) {
      diffs.push_back(EdgeText(cp_edges[i]) + " is in the checkpoint but not in the workflow");
    } else if (i >= cp_edges.size()) {
      diffs.push_back(EdgeText(wf_edges[i]) + " is in the workflow but not in the checkpoint");
    } else if (cp_edges[i] != wf_edges[i]) {
      diffs.push_back("EdgeId " + std::to_string(i + 1) + " differs: checkpoint " +
                      EdgeText(cp_edges[i]) + ", workflow " + EdgeText(wf_edges[i]));
    }
  }
  if (cp.value("ports", Json()) != wf.value("ports", Json())) {
    diffs.push_back("request ports differ: checkpoint " + cp.value("ports", Json()).dump() +
                    ", workflow " + wf.value("ports", Json()).dump());
  }
  if (cp.value("outputs", Json()) != wf.value("outputs", Json())) {
    diffs.push_back("output executors differ: checkpoint " + cp.value("outputs", Json()).dump() +
                    ", workflow " + wf.value("outputs", Json()).dump());
  }
  if (diffs.empty() && cp != wf) diffs.push_back("the topology signatures differ");
  return diffs;
}

// An edge as IsMatch sees it: no EdgeId.
Json Shape(const Json& e) {
  Json s = e;
  s.erase("id");
  return s;
}

// MAF IsMatch (docs/engine-semantics.md §3), returning the first reason it fails.
std::optional<std::string> BlindMismatch(const Json& cp, const Json& wf, bool bijective) {
  if (cp.value("start", Json()) != wf.value("start", Json())) return "start executor differs";
  const Json cp_ex = cp.value("executors", Json::object());
  const Json wf_ex = wf.value("executors", Json::object());
  if (cp_ex.size() != wf_ex.size()) return "executor count differs";
  for (const auto& [id, info] : cp_ex.items()) {
    // Executors the workflow lacks are skipped: the rename hole.
    if (wf_ex.contains(id) && wf_ex[id] != info) return "executor '" + id + "' type differs";
  }
  auto by_source = [](const Json& edges) {
    std::map<std::string, std::vector<Json>> m;
    for (const Json& e : edges) {
      for (const Json& s : e["sources"]) m[s.get<std::string>()].push_back(Shape(e));
    }
    return m;
  };
  auto cp_edges = by_source(cp.value("edges", Json::array()));
  auto wf_edges = by_source(wf.value("edges", Json::array()));
  if (cp_edges.size() != wf_edges.size()) return "edge source count differs";
  for (const auto& [source, cp_list] : cp_edges) {
    auto it = wf_edges.find(source);
    if (it == wf_edges.end()) return "no edges from '" + source + "' in the workflow";
    if (it->second.size() != cp_list.size()) return "edge count from '" + source + "' differs";
    std::vector<bool> used(cp_list.size(), false);
    for (const Json& w : it->second) {
      bool found = false;
      for (size_t i = 0; i < cp_list.size() && !found; ++i) {
        if (cp_list[i] == w && (!bijective || !used[i])) {
          used[i] = true;
          found = true;
        }
      }
      if (!found) return "an edge from '" + source + "' has no match";
    }
  }
  const Json cp_ports = cp.value("ports", Json::array());
  const Json wf_ports = wf.value("ports", Json::array());
  if (cp_ports.size() != wf_ports.size()) return "request port count differs";
  for (const Json& p : cp_ports) {
    bool found = false;
    for (const Json& q : wf_ports) found = found || p == q;
    if (!found) return "request port " + p.dump() + " differs";
  }
  if (cp.value("outputs", Json()) != wf.value("outputs", Json())) return "output executors differ";
  return std::nullopt;
}

}  // namespace

Status CheckCompatibility(const Json& checkpoint_signature, const Workflow& workflow,
                          const EngineProfile& profile) {
  const Json& wf = workflow.signature();
  if (profile.edge_id_blind_matching) {
    auto reason = BlindMismatch(checkpoint_signature, wf, !profile.non_bijective_edge_matching);
    if (!reason) return Status::Ok();
    return Status::Incompatible(std::string(kPrefix) + ": " + *reason);
  }
  if (checkpoint_signature == wf) return Status::Ok();
  std::string msg = std::string(kPrefix) +
                    "; rebuild it with the same executor ids, edges in the same "
                    "order, ports and outputs:";
  for (const std::string& d : StrictDiff(checkpoint_signature, wf)) msg += "\n  - " + d;
  return Status::Incompatible(msg);
}

}  // namespace stepfault
