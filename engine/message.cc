// JSON forms of messages and envelopes, and the typed field readers every decoder uses.
#include "engine/message.h"

namespace stepfault {
namespace {
const char* TypeName(Json::value_t t) {
  switch (t) {
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::null:
      return "null";
    default:
      return "value";
  }
}
bool TypeMatches(const Json& v, Json::value_t want) {
  if (want == Json::value_t::number_integer) return v.is_number_integer();
  return v.type() == want;
}
}  // namespace

Result<const Json*> JsonField(const Json& j, const char* key, Json::value_t type,
                              const std::string& path) {
  if (!j.is_object()) return Status::Corruption(path + ": expected an object");
  auto it = j.find(key);
  if (it == j.end()) return Status::Corruption(path + "/" + key + ": missing");
  if (type != Json::value_t::discarded && !TypeMatches(*it, type)) {
    return Status::Corruption(path + "/" + key + ": expected " + TypeName(type) + ", found " +
                              TypeName(it->type()));
  }
  return &*it;
}

Result<std::string> JsonString(const Json& j, const char* key, const std::string& path) {
  SF_ASSIGN_OR_RETURN(const Json* v, JsonField(j, key, Json::value_t::string, path));
  return v->get<std::string>();
}

Result<int64_t> JsonInt(const Json& j, const char* key, const std::string& path) {
  SF_ASSIGN_OR_RETURN(const Json* v, JsonField(j, key, Json::value_t::number_integer, path));
  return v->get<int64_t>();
}

Result<bool> JsonBool(const Json& j, const char* key, const std::string& path) {
  SF_ASSIGN_OR_RETURN(const Json* v, JsonField(j, key, Json::value_t::boolean, path));
  return v->get<bool>();
}

Json MessageToJson(const Message& m) { return Json{{"type", m.type}, {"body", m.body}}; }

Message WrapResponse(const std::string& request_id, const std::string& port_id,
                     const Message& data) {
  return Message{
      kWrappedResponseType,
      Json{{"request_id", request_id}, {"port", port_id}, {"data", MessageToJson(data)}}};
}

std::optional<Message> UnwrapResponse(const Message& m) {
  if (m.type != kWrappedResponseType || !m.body.is_object()) return std::nullopt;
  auto data = m.body.find("data");
  if (data == m.body.end()) return std::nullopt;
  Result<Message> inner = MessageFromJson(*data, "data");
  if (!inner.ok()) return std::nullopt;
  return std::move(inner).value();
}

Result<Message> MessageFromJson(const Json& j, const std::string& path) {
  Message m;
  SF_ASSIGN_OR_RETURN(m.type, JsonString(j, "type", path));
  SF_ASSIGN_OR_RETURN(const Json* body, JsonField(j, "body", Json::value_t::discarded, path));
  m.body = *body;
  return m;
}

Json EnvelopeToJson(const Envelope& e) {
  Json j{{"message", MessageToJson(e.message)}, {"source", e.source_id}};
  if (e.target_id) j["target"] = *e.target_id;
  if (!e.request_id.empty()) j["request_id"] = e.request_id;
  return j;
}

Result<Envelope> EnvelopeFromJson(const Json& j, const std::string& path) {
  Envelope e;
  SF_ASSIGN_OR_RETURN(const Json* m, JsonField(j, "message", Json::value_t::object, path));
  SF_ASSIGN_OR_RETURN(e.message, MessageFromJson(*m, path + "/message"));
  SF_ASSIGN_OR_RETURN(e.source_id, JsonString(j, "source", path));
  if (j.contains("target")) {
    SF_ASSIGN_OR_RETURN(std::string t, JsonString(j, "target", path));
    e.target_id = std::move(t);
  }
  if (j.contains("request_id")) {
    SF_ASSIGN_OR_RETURN(e.request_id, JsonString(j, "request_id", path));
  }
  return e;
}

}  // namespace stepfault
