// Reading a base link of a delta chain cheaply: its metadata's members are found by a scan of
// brackets and strings, and only the ones a chain takes from a link are parsed (ResolveCheckpoint,
// DecodePart::kLink).
#include "engine/checkpoint_internal.h"

namespace stepfault::checkpoint_internal {
namespace {

// The body fields a link of a chain contributes to the checkpoint it resolves (ResolveCheckpoint):
// its state, and its session and step for the chain's checks and messages.
bool LinkField(std::string_view key) {
  return key == "state" || key == "session_id" || key == "step" || key == "instantiated" ||
         key == "instantiated_added";
}

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && (t[i] == ' ' || t[i] == '\n' || t[i] == '\r' || t[i] == '\t')) ++i;
  return i;
}

// The end of the JSON string starting at t[i] == '"' (one past its closing quote), or npos.
size_t SkipString(std::string_view t, size_t i) {
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1;
    }
  }
  return std::string_view::npos;
}

// The end of the JSON value starting at t[i], found without building it, or npos when the text
// ends first. Only brackets and strings are followed: the value is parsed (and so validated) only
// when it is used.
size_t SkipValue(std::string_view t, size_t i) {
  i = SkipSpace(t, i);
  if (i >= t.size()) return std::string_view::npos;
  if (t[i] == '"') return SkipString(t, i);
  if (t[i] != '{' && t[i] != '[') {
    while (i < t.size() && t[i] != ',' && t[i] != '}' && t[i] != ']' && t[i] != ' ' &&
           t[i] != '\n') {
      ++i;
    }
    return i;
  }
  int depth = 0;
  while (i < t.size()) {
    const char c = t[i];
    if (c == '"') {
      i = SkipString(t, i);
      if (i == std::string_view::npos) return i;
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return i + 1;
    ++i;
  }
  return std::string_view::npos;
}

// Calls visit(key, value text) for each member of the JSON object `t` (keys taken verbatim between
// their quotes: the fields a link needs have plain names). False when `t` is not an object.
template <class Visit>
bool ForEachMember(std::string_view t, Visit&& visit) {
  size_t i = SkipSpace(t, 0);
  if (i >= t.size() || t[i] != '{') return false;
  i = SkipSpace(t, i + 1);
  if (i < t.size() && t[i] == '}') return SkipSpace(t, i + 1) == t.size();
  while (i < t.size()) {
    if (t[i] != '"') return false;
    const size_t key_end = SkipString(t, i);
    if (key_end == std::string_view::npos) return false;
    const std::string_view key = t.substr(i + 1, key_end - i - 2);
    i = SkipSpace(t, key_end);
    if (i >= t.size() || t[i] != ':') return false;
    const size_t value_start = SkipSpace(t, i + 1);
    const size_t value_end = SkipValue(t, value_start);
    if (value_end == std::string_view::npos) return false;
    if (!visit(key, t.substr(value_start, value_end - value_start))) return false;
    i = SkipSpace(t, value_end);
    if (i < t.size() && t[i] == '}') return SkipSpace(t, i + 1) == t.size();
    if (i >= t.size() || t[i] != ',') return false;
    i = SkipSpace(t, i + 1);
  }
  return false;
}

}  // namespace

Json ParseLinkMetadata(std::string_view text, bool body_fields) {
  const Json discarded(Json::value_t::discarded);
  Json meta = Json::object();
  auto parse = [](std::string_view v) { return Json::parse(v, nullptr, false); };
  const bool ok = ForEachMember(text, [&](std::string_view key, std::string_view value) {
    if (key == "body") {
      Json body = Json::object();
      const bool body_ok = ForEachMember(value, [&](std::string_view k, std::string_view v) {
        Json parsed = body_fields && LinkField(k) ? parse(v) : Json(nullptr);
        if (parsed.is_discarded()) return false;
        body[std::string(k)] = std::move(parsed);
        return true;
      });
      if (!body_ok) return false;
      meta["body"] = std::move(body);
      return true;
    }
    Json parsed = key == "blobs" || key == "delta" ? parse(value) : Json(nullptr);
    if (parsed.is_discarded()) return false;
    meta[std::string(key)] = std::move(parsed);
    return true;
  });
  return ok ? meta : discarded;
}

}  // namespace stepfault::checkpoint_internal
