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

Status Bad(const std::string& path, const std::string& what) {
  return Status::Corruption(path + ": " + what +
                            "; the checkpoint's topology signature is damaged");
}

Status StringArray(const Json& j, const std::string& path) {
  if (!j.is_array()) return Bad(path, "expected an array of strings");
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) return Bad(path + "/" + std::to_string(i), "expected a string");
  }
  return Status::Ok();
}

const Json* Member(const Json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

Status ValidateEdge(const Json& e, const std::string& path) {
  if (!e.is_object()) return Bad(path, "expected an object");
  const Json* id = Member(e, "id");
  if (id == nullptr || !id->is_number_integer()) return Bad(path + "/id", "expected an integer");
  const Json* kind = Member(e, "kind");
  if (kind == nullptr || !kind->is_string()) return Bad(path + "/kind", "expected a string");
  for (const char* key : {"sources", "sinks"}) {
    const Json* list = Member(e, key);
    if (list == nullptr) return Bad(path + "/" + key, "missing");
    SF_RETURN_IF_ERROR(StringArray(*list, path + "/" + key));
  }
  for (const char* key : {"has_condition", "has_assigner"}) {
    const Json* flag = Member(e, key);
    if (flag != nullptr && !flag->is_boolean()) return Bad(path + "/" + key, "expected a boolean");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateWorkflowSignature(const Json& sig, const std::string& path) {
  if (!sig.is_object()) return Bad(path, "expected an object");
  const Json* start = Member(sig, "start");
  if (start == nullptr || !start->is_string()) return Bad(path + "/start", "expected a string");
  const Json* executors = Member(sig, "executors");
  if (executors == nullptr || !executors->is_object())
    return Bad(path + "/executors", "expected an object");
  for (const auto& [id, info] : executors->items()) {
    const Json* type = info.is_object() ? Member(info, "type") : nullptr;
    if (type == nullptr || !type->is_string())
      return Bad(path + "/executors/" + id, "expected {\"type\": string}");
  }
  const Json* edges = Member(sig, "edges");
  if (edges == nullptr || !edges->is_array()) return Bad(path + "/edges", "expected an array");
  for (size_t i = 0; i < edges->size(); ++i)
    SF_RETURN_IF_ERROR(ValidateEdge((*edges)[i], path + "/edges/" + std::to_string(i)));
  const Json* ports = Member(sig, "ports");
  if (ports == nullptr || !ports->is_array()) return Bad(path + "/ports", "expected an array");
  for (size_t i = 0; i < ports->size(); ++i) {
    const Json& p = (*ports)[i];
    const std::string pp = path + "/ports/" + std::to_string(i);
    if (!p.is_object()) return Bad(pp, "expected an object");
    for (const char* key : {"id", "request_type", "response_type"}) {
      const Json* v = Member(p, key);
      if (v == nullptr || !v->is_string()) return Bad(pp + "/" + key, "expected a string");
    }
  }
  const Json* outputs = Member(sig, "outputs");
  if (outputs == nullptr) return Bad(path + "/outputs", "missing");
  return StringArray(*outputs, path + "/outputs");
}

Status CheckCompatibility(const Json& checkpoint_signature, const Workflow& workflow,
                          const EngineProfile& profile) {
  // Never read an unvalidated member: the comparisons below use throwing accessors.
  SF_RETURN_IF_ERROR(ValidateWorkflowSignature(checkpoint_signature, "/body/workflow"));
  const Json& wf = workflow.signature();
  // Non-bijective matching is MAF's IsMatch without its one-to-one pairing, so it matches blind
  // too: either hazard alone switches the MAF rule on.
  if (profile.edge_id_blind_matching || profile.non_bijective_edge_matching) {
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
