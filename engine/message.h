// Message and Envelope: what flows along edges. A message is a JSON body with a type name; the type
// name is what edges and executors filter on (MAF filters on the runtime .NET type; we make the
// type explicit). An envelope adds routing facts: who sent it ("" = external), an optional explicit
// target, and whether it carries a response to an external request.
// Thread-safety: values.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "engine/status.h"

namespace stepfault {

using Json = nlohmann::json;

struct Message {
  std::string type;
  Json body;

  friend bool operator==(const Message&, const Message&) = default;
};

struct Envelope {
  Message message;
  std::string source_id;                 // "" for external input and responses
  std::optional<std::string> target_id;  // explicit target; edges to other sinks drop it
  std::string request_id;                // set when the envelope delivers a response

  friend bool operator==(const Envelope&, const Envelope&) = default;
};

Json MessageToJson(const Message& m);

// MAF's RequestPort forwards a response twice: first wrapped, as the ExternalResponse object, then
// the response data (RequestInfoExecutor.HandleAsync(ExternalResponse)). The wrapped form is a
// message of type kWrappedResponseType whose body is {"request_id", "port", "data": {type, body}};
// only an executor that names this type takes it ("*" does not: in MAF a handler of the workflow's
// message type cannot handle an ExternalResponse). Sent only under the port-response-sent-wrapped
// hazard (engine/profile.h).
inline constexpr const char* kWrappedResponseType = "ExternalResponse";
Message WrapResponse(const std::string& request_id, const std::string& port_id,
                     const Message& data);
// The data of a wrapped response, or nullopt when `m` is not one (or its body has not that shape).
std::optional<Message> UnwrapResponse(const Message& m);
Result<Message> MessageFromJson(const Json& j, const std::string& path);
Json EnvelopeToJson(const Envelope& e);
Result<Envelope> EnvelopeFromJson(const Json& j, const std::string& path);

// Typed access helpers for decoding: each returns kCorruption naming `path` on a shape mismatch.
Result<std::string> JsonString(const Json& j, const char* key, const std::string& path);
Result<int64_t> JsonInt(const Json& j, const char* key, const std::string& path);
Result<bool> JsonBool(const Json& j, const char* key, const std::string& path);
Result<const Json*> JsonField(const Json& j, const char* key, Json::value_t type,
                              const std::string& path);

}  // namespace stepfault
