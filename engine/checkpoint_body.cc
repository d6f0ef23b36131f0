// The body of a checkpoint as JSON and back: executor and shared state, queues, requests, fan-in
// state, parent link and topology (the signature or its record's key), validated in full when
// read (checkpoint.h).
#include <set>

#include "engine/checkpoint_internal.h"
#include "engine/compat.h"
#include "engine/topology_record.h"

namespace stepfault {
namespace {

Result<std::vector<std::string>> StringList(const Json& j, const char* key,
                                            const std::string& path) {
  SF_ASSIGN_OR_RETURN(const Json* arr, JsonField(j, key, Json::value_t::array, path));
  std::vector<std::string> out;
  for (size_t i = 0; i < arr->size(); ++i) {
    if (!(*arr)[i].is_string()) {
      return Status::Corruption(path + "/" + key + "/" + std::to_string(i) + ": expected string");
    }
    out.push_back((*arr)[i].get<std::string>());
  }
  return out;
}

}  // namespace

Json PendingRequestToJson(const PendingRequest& r) {
  return Json{{"request_id", r.request_id}, {"port", r.port_id}, {"data", MessageToJson(r.data)}};
}

Result<PendingRequest> PendingRequestFromJson(const Json& j, const std::string& path) {
  PendingRequest r;
  SF_ASSIGN_OR_RETURN(r.request_id, JsonString(j, "request_id", path));
  SF_ASSIGN_OR_RETURN(r.port_id, JsonString(j, "port", path));
  SF_ASSIGN_OR_RETURN(const Json* d, JsonField(j, "data", Json::value_t::object, path));
  SF_ASSIGN_OR_RETURN(r.data, MessageFromJson(*d, path + "/data"));
  return r;
}

Json FanInStateToJson(const FanInState& s) {
  Json pending = Json::array();
  for (const Envelope& e : s.pending) pending.push_back(EnvelopeToJson(e));
  return Json{{"sources", s.sources}, {"unseen", s.unseen}, {"pending", pending}};
}

Result<FanInState> FanInStateFromJson(const Json& j, const std::string& path) {
  FanInState s;
  SF_ASSIGN_OR_RETURN(s.sources, StringList(j, "sources", path));
  SF_ASSIGN_OR_RETURN(s.unseen, StringList(j, "unseen", path));
  std::set<std::string> sources(s.sources.begin(), s.sources.end());
  for (const std::string& u : s.unseen) {
    if (sources.count(u) == 0)
      return Status::Corruption(path + "/unseen: '" + u + "' is not a source");
  }
  SF_ASSIGN_OR_RETURN(const Json* pending, JsonField(j, "pending", Json::value_t::array, path));
  for (size_t i = 0; i < pending->size(); ++i) {
    SF_ASSIGN_OR_RETURN(Envelope e,
                        EnvelopeFromJson((*pending)[i], path + "/pending/" + std::to_string(i)));
    s.pending.push_back(std::move(e));
  }
  return s;
}

Json CheckpointInfoToJson(const CheckpointInfo& info) {
  return Json{{"session_id", info.session_id}, {"checkpoint_id", info.checkpoint_id}};
}

Result<CheckpointInfo> CheckpointInfoFromJson(const Json& j, const std::string& path) {
  CheckpointInfo info;
  SF_ASSIGN_OR_RETURN(info.session_id, JsonString(j, "session_id", path));
  SF_ASSIGN_OR_RETURN(info.checkpoint_id, JsonString(j, "checkpoint_id", path));
  return info;
}

namespace checkpoint_internal {

Json BodyToJson(const Checkpoint& c, Framer* framer, const BodyForm& form) {
  Json queued = Json::object();
  for (const auto& [receiver, envelopes] : c.queued) {
    Json list = Json::array();
    for (const Envelope& e : envelopes) {
      list.push_back(EnvelopeToJson(e));
      if (framer) framer->FrameMessageBody(list.back(), "message");
    }
    queued[receiver] = std::move(list);
  }
  Json outstanding = Json::array();
  for (const PendingRequest& r : c.outstanding) {
    outstanding.push_back(PendingRequestToJson(r));
    if (framer) framer->FrameMessageBody(outstanding.back(), "data");
  }
  Json state = Json::object();
  for (const auto& [scope, kv] : c.state) {
    Json values = Json::object();
    auto& obj = values.get_ref<Json::object_t&>();
    for (const auto& [k, v] : kv) obj.emplace_hint(obj.end(), k, framer ? framer->Frame(*v) : *v);
    state[scope] = std::move(values);
  }
  Json edges = Json::object();
  for (const auto& [id, s] : c.edge_state) {
    Json e = FanInStateToJson(*s);
    if (framer) {
      for (Json& p : e["pending"]) framer->FrameMessageBody(p, "message");
    }
    edges[std::to_string(id)] = std::move(e);
  }
  Json j{{"session_id", c.session_id},
         {"step", c.step_number},
         {form.instantiated_added ? "instantiated_added" : "instantiated", c.instantiated.Sorted()},
         {"queued", std::move(queued)},
         {"outstanding", std::move(outstanding)},
         {"state", std::move(state)},
         {"edge_state", std::move(edges)},
         {"parent", c.parent ? CheckpointInfoToJson(*c.parent) : Json(nullptr)}};
  // The record a body names instead of its signature: the encoder's, or that of a checkpoint
  // decoded from such a body and never resolved (it has no signature to write).
  std::string_view ref = form.workflow_ref;
  if (ref.empty() && c.workflow->is_null()) ref = c.workflow_ref;
  if (!ref.empty()) {
    j["workflow_ref"] = std::string(ref);
  } else {
    j["workflow"] = *c.workflow;
  }
  return j;
}

// The body's state (values moved, not copied).
Status StateFromJson(Json& j, const std::string& path, StateMap* out) {
  SF_ASSIGN_OR_RETURN(const Json* state, JsonField(j, "state", Json::value_t::object, path));
  for (const auto& [scope, kv] : state->items()) {
    if (!kv.is_object()) return Status::Corruption(path + "/state/" + scope + ": expected object");
    ScopeMap values;
    for (auto& [k, v] : const_cast<Json&>(kv).get_ref<Json::object_t&>()) {
      values.emplace_hint(values.end(), k, std::move(v));
    }
    out->SetScope(scope, std::move(values));
  }
  return Status::Ok();
}

namespace {

// The body's topology: the signature inline, or the key of the record that holds it.
Status WorkflowFromJson(Json& j, const std::string& path, Checkpoint* c) {
  if (j.contains("workflow_ref")) {
    if (j.contains("workflow")) {
      return Status::Corruption(path + ": both workflow and workflow_ref are present");
    }
    SF_ASSIGN_OR_RETURN(c->workflow_ref, JsonString(j, "workflow_ref", path));
    if (!IsTopologyRecordKey(c->workflow_ref)) {
      return Status::Corruption(path + "/workflow_ref: '" + c->workflow_ref +
                                "' is not a topology record key");
    }
    return Status::Ok();
  }
  SF_ASSIGN_OR_RETURN(const Json* wf, JsonField(j, "workflow", Json::value_t::object, path));
  SF_RETURN_IF_ERROR(ValidateWorkflowSignature(*wf, path + "/workflow"));
  c->workflow = std::move(const_cast<Json&>(*wf));
  return Status::Ok();
}

}  // namespace

Status InstantiatedFromJson(const Json& j, const std::string& path, bool* instantiated_added,
                            Checkpoint* c) {
  if (j.contains("instantiated_added")) {
    if (instantiated_added == nullptr || j.contains("instantiated")) {
      return Status::Corruption(path + "/instantiated_added: only a delta lists added executors");
    }
    *instantiated_added = true;
    SF_ASSIGN_OR_RETURN(c->instantiated, StringList(j, "instantiated_added", path));
    return Status::Ok();
  }
  SF_ASSIGN_OR_RETURN(c->instantiated, StringList(j, "instantiated", path));
  return Status::Ok();
}

// Decodes a body it may consume: state values and the topology signature are moved, not copied.
// `instantiated_added`: null unless a delta's body is decoded (see InstantiatedFromJson).
Result<Checkpoint> BodyFromJson(Json& j, bool* instantiated_added) {
  const std::string path = "/body";
  Checkpoint c;
  SF_ASSIGN_OR_RETURN(c.session_id, JsonString(j, "session_id", path));
  SF_ASSIGN_OR_RETURN(c.step_number, JsonInt(j, "step", path));
  if (c.step_number < 0) return Status::Corruption(path + "/step: negative step number");
  SF_RETURN_IF_ERROR(WorkflowFromJson(j, path, &c));
  SF_RETURN_IF_ERROR(InstantiatedFromJson(j, path, instantiated_added, &c));
  SF_ASSIGN_OR_RETURN(const Json* queued, JsonField(j, "queued", Json::value_t::object, path));
  for (const auto& [receiver, list] : queued->items()) {
    const std::string p = path + "/queued/" + receiver;
    if (!list.is_array()) return Status::Corruption(p + ": expected array");
    std::vector<Envelope>& out = c.queued.Mutable()[receiver];
    for (size_t i = 0; i < list.size(); ++i) {
      SF_ASSIGN_OR_RETURN(Envelope e, EnvelopeFromJson(list[i], p + "/" + std::to_string(i)));
      out.push_back(std::move(e));
    }
  }
  SF_ASSIGN_OR_RETURN(const Json* outstanding,
                      JsonField(j, "outstanding", Json::value_t::array, path));
  std::set<std::string> request_ids;
  for (size_t i = 0; i < outstanding->size(); ++i) {
    const std::string p = path + "/outstanding/" + std::to_string(i);
    SF_ASSIGN_OR_RETURN(PendingRequest r, PendingRequestFromJson((*outstanding)[i], p));
    if (!request_ids.insert(r.request_id).second) {
      return Status::Corruption(p + ": request id '" + r.request_id + "' appears twice");
    }
    c.outstanding.push_back(std::move(r));
  }
  SF_RETURN_IF_ERROR(StateFromJson(j, path, &c.state));
  SF_ASSIGN_OR_RETURN(const Json* edges, JsonField(j, "edge_state", Json::value_t::object, path));
  for (const auto& [key, value] : edges->items()) {
    const std::string p = path + "/edge_state/" + key;
    int id = 0;
    if (key.empty() || key.size() > 9 || key.find_first_not_of("0123456789") != std::string::npos ||
        (id = std::stoi(key)) < 1) {
      return Status::Corruption(p + ": edge id must be a positive decimal integer");
    }
    SF_ASSIGN_OR_RETURN(FanInState s, FanInStateFromJson(value, p));
    c.edge_state[id] = std::make_shared<const FanInState>(std::move(s));
  }
  SF_ASSIGN_OR_RETURN(const Json* parent, JsonField(j, "parent", Json::value_t::discarded, path));
  if (!parent->is_null()) {
    SF_ASSIGN_OR_RETURN(CheckpointInfo info, CheckpointInfoFromJson(*parent, path + "/parent"));
    c.parent = std::move(info);
  }
  return c;
}

}  // namespace checkpoint_internal

Json CheckpointBodyToJson(const Checkpoint& c) {
  return checkpoint_internal::BodyToJson(c, nullptr);
}

Result<Checkpoint> CheckpointBodyFromJson(const Json& j) {
  Json copy = j;
  return checkpoint_internal::BodyFromJson(copy);
}

}  // namespace stepfault
