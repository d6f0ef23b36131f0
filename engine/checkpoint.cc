// The checkpoint codec: canonical JSON, version, CRC32C seal, and a validating decoder.
#include "engine/checkpoint.h"

#include <set>

#include "engine/compat.h"
#include "engine/crc32c.h"

namespace stepfault {
namespace {
constexpr const char* kFormat = "stepfault.checkpoint";

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

bool CheckpointsEqual(const Checkpoint& a, const Checkpoint& b) {
  return EncodeCheckpoint(a) == EncodeCheckpoint(b);
}

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

Json CheckpointBodyToJson(const Checkpoint& c) {
  Json queued = Json::object();
  for (const auto& [receiver, envelopes] : c.queued) {
    Json list = Json::array();
    for (const Envelope& e : envelopes) list.push_back(EnvelopeToJson(e));
    queued[receiver] = std::move(list);
  }
  Json outstanding = Json::array();
  for (const PendingRequest& r : c.outstanding) outstanding.push_back(PendingRequestToJson(r));
  Json state = Json::object();
  for (const auto& [scope, kv] : c.state) {
    Json values = Json::object();
    for (const auto& [k, v] : kv) values[k] = v;
    state[scope] = std::move(values);
  }
  Json edges = Json::object();
  for (const auto& [id, s] : c.edge_state) edges[std::to_string(id)] = FanInStateToJson(*s);
  Json j{{"session_id", c.session_id},
         {"step", c.step_number},
         {"workflow", c.workflow},
         {"instantiated", c.instantiated},
         {"queued", queued},
         {"outstanding", outstanding},
         {"state", state},
         {"edge_state", edges},
         {"parent", c.parent ? CheckpointInfoToJson(*c.parent) : Json(nullptr)}};
  return j;
}

Result<Checkpoint> CheckpointBodyFromJson(const Json& j) {
  const std::string path = "/body";
  Checkpoint c;
  SF_ASSIGN_OR_RETURN(c.session_id, JsonString(j, "session_id", path));
  SF_ASSIGN_OR_RETURN(c.step_number, JsonInt(j, "step", path));
  if (c.step_number < 0) return Status::Corruption(path + "/step: negative step number");
  SF_ASSIGN_OR_RETURN(const Json* wf, JsonField(j, "workflow", Json::value_t::object, path));
  SF_RETURN_IF_ERROR(ValidateWorkflowSignature(*wf, path + "/workflow"));
  c.workflow = *wf;
  SF_ASSIGN_OR_RETURN(c.instantiated, StringList(j, "instantiated", path));
  SF_ASSIGN_OR_RETURN(const Json* queued, JsonField(j, "queued", Json::value_t::object, path));
  for (const auto& [receiver, list] : queued->items()) {
    const std::string p = path + "/queued/" + receiver;
    if (!list.is_array()) return Status::Corruption(p + ": expected array");
    std::vector<Envelope>& out = c.queued[receiver];
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
  SF_ASSIGN_OR_RETURN(const Json* state, JsonField(j, "state", Json::value_t::object, path));
  for (const auto& [scope, kv] : state->items()) {
    if (!kv.is_object()) return Status::Corruption(path + "/state/" + scope + ": expected object");
    auto& out = c.state[scope];
    for (const auto& [k, v] : kv.items()) out[k] = v;
  }
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

std::string EncodeCheckpoint(const Checkpoint& c) {
  Json body = CheckpointBodyToJson(c);
  std::string body_text = body.dump();
  Json doc{{"format", kFormat},
           {"version", kCheckpointVersion},
           {"checksum", Crc32cTag(body_text)},
           {"body", std::move(body)}};
  return doc.dump();
}

Result<Checkpoint> DecodeCheckpoint(std::string_view bytes) {
  if (bytes.empty()) return Status::Corruption("checkpoint is empty (0 bytes)");
  if (bytes.size() > kMaxCheckpointBytes) {
    return Status::Corruption("checkpoint is " + std::to_string(bytes.size()) +
                              " bytes, over the " + std::to_string(kMaxCheckpointBytes) +
                              "-byte limit");
  }
  Json doc = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Corruption("checkpoint is not valid JSON (" + std::to_string(bytes.size()) +
                              " bytes); it was truncated or damaged");
  }
  SF_ASSIGN_OR_RETURN(std::string format, JsonString(doc, "format", ""));
  if (format != kFormat)
    return Status::Corruption("/format: expected '" + std::string(kFormat) + "'");
  SF_ASSIGN_OR_RETURN(int64_t version, JsonInt(doc, "version", ""));
  if (version != kCheckpointVersion) {
    return Status::Incompatible("checkpoint format version " + std::to_string(version) +
                                " is not supported (this build reads version " +
                                std::to_string(kCheckpointVersion) + ")");
  }
  SF_ASSIGN_OR_RETURN(std::string checksum, JsonString(doc, "checksum", ""));
  SF_ASSIGN_OR_RETURN(const Json* body, JsonField(doc, "body", Json::value_t::object, ""));
  const std::string actual = Crc32cTag(body->dump());
  if (checksum != actual) {
    return Status::Corruption("checkpoint checksum mismatch (stored " + checksum + ", computed " +
                              actual + "); the bytes were damaged");
  }
  return CheckpointBodyFromJson(*body);
}

}  // namespace stepfault
