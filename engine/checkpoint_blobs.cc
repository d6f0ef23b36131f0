// The blob area of a framed checkpoint: strings of kFrameMinBytes or more inside state values
// and message bodies are moved out of the metadata into raw bytes and referenced by index
// ("\u0000blob:<index>"), and put back when decoding (checkpoint.h, version 2).
#include <charconv>

#include "engine/checkpoint_internal.h"

namespace stepfault::checkpoint_internal {

Json Framer::Frame(const Json& v) {
  switch (v.type()) {
    case Json::value_t::string: {
      const std::string& s = v.get_ref<const std::string&>();
      if (s.size() >= kFrameMinBytes) return Ref(s);
      if (!s.empty() && s[0] == '\0') return Json(std::string(1, '\0') + s);
      return v;
    }
    case Json::value_t::object: {
      Json out = Json::object();
      auto& obj = out.get_ref<Json::object_t&>();
      for (const auto& [k, x] : v.get_ref<const Json::object_t&>()) {
        obj.emplace_hint(obj.end(), k, Frame(x));
      }
      return out;
    }
    case Json::value_t::array: {
      Json out = Json::array();
      auto& arr = out.get_ref<Json::array_t&>();
      arr.reserve(v.size());
      for (const Json& x : v.get_ref<const Json::array_t&>()) arr.push_back(Frame(x));
      return out;
    }
    default:
      return v;
  }
}

void Framer::FrameInPlace(Json& v) {
  if (v.is_string()) {
    std::string& s = v.get_ref<std::string&>();
    if (s.size() >= kFrameMinBytes) {
      owned_.push_back(std::move(s));
      v = Ref(owned_.back());
    } else if (!s.empty() && s[0] == '\0') {
      s.insert(s.begin(), '\0');
    }
  } else if (v.is_object() || v.is_array()) {
    for (Json& x : v) FrameInPlace(x);
  }
}

void Framer::FrameMessageBody(Json& holder, const char* message_key) {
  auto m = holder.find(message_key);
  if (m == holder.end()) return;
  auto b = m->find("body");
  if (b != m->end()) FrameInPlace(*b);
}

Json Framer::Ref(std::string_view bytes) {
  blobs_.push_back(bytes);
  return Json(std::string(kBlobRef) + std::to_string(blobs_.size() - 1));
}

Status Unframer::Unframe(Json& v) {
  if (v.is_string()) {
    std::string& s = v.get_ref<std::string&>();
    if (s.empty() || s[0] != '\0') return Status::Ok();
    if (s.size() > 1 && s[1] == '\0') {
      s.erase(s.begin());
      return Status::Ok();
    }
    const std::string_view text(s);
    const size_t pos = kBlobRef.size();
    uint64_t index = 0;
    // Canonical decimal only ("01" is not what the encoder writes), so one checkpoint has one
    // encoding.
    const bool digits = text.starts_with(kBlobRef) && text.size() > pos && text.size() - pos <= 9 &&
                        text.find_first_not_of("0123456789", pos) == std::string_view::npos &&
                        (text[pos] != '0' || text.size() == pos + 1);
    if (!digits) return Status::Corruption("/body: malformed blob reference in a framed value");
    std::from_chars(text.data() + pos, text.data() + text.size(), index);
    if (index >= blobs_.size() || used_[index]) {
      return Status::Corruption("/body: blob reference " + std::to_string(index) +
                                " is out of range or used twice");
    }
    used_[index] = true;
    v = std::string(blobs_[index]);
    return Status::Ok();
  }
  if (v.is_object() || v.is_array()) {
    for (Json& x : v) SF_RETURN_IF_ERROR(Unframe(x));
  }
  return Status::Ok();
}

Status Unframer::UnframeMessageBody(Json& holder, const char* message_key) {
  if (!holder.is_object()) return Status::Ok();
  auto m = holder.find(message_key);
  if (m == holder.end() || !m->is_object()) return Status::Ok();
  auto b = m->find("body");
  return b == m->end() ? Status::Ok() : Unframe(*b);
}

Status Unframer::CheckAllUsed() const {
  for (size_t i = 0; i < used_.size(); ++i) {
    if (!used_[i]) return Status::Corruption("blob " + std::to_string(i) + " is never referenced");
  }
  return Status::Ok();
}

Status UnframeState(Json& body, Unframer& u) {
  auto state = body.find("state");
  if (state == body.end() || !state->is_object()) return Status::Ok();
  for (Json& scope : *state) {
    if (!scope.is_object()) continue;
    for (Json& v : scope) SF_RETURN_IF_ERROR(u.Unframe(v));
  }
  return Status::Ok();
}

// The framed locations of a body, mirroring BodyToJson. A location of the wrong shape is left for
// BodyFromJson to reject.
Status UnframeBody(Json& body, Unframer& u) {
  auto field = [&](const char* key) -> Json* {
    auto it = body.find(key);
    return it == body.end() ? nullptr : &*it;
  };
  SF_RETURN_IF_ERROR(UnframeState(body, u));
  if (Json* queued = field("queued"); queued && queued->is_object()) {
    for (Json& list : *queued) {
      if (!list.is_array()) continue;
      for (Json& e : list) SF_RETURN_IF_ERROR(u.UnframeMessageBody(e, "message"));
    }
  }
  if (Json* outstanding = field("outstanding"); outstanding && outstanding->is_array()) {
    for (Json& r : *outstanding) SF_RETURN_IF_ERROR(u.UnframeMessageBody(r, "data"));
  }
  if (Json* edges = field("edge_state"); edges && edges->is_object()) {
    for (Json& s : *edges) {
      if (!s.is_object()) continue;
      auto pending = s.find("pending");
      if (pending == s.end() || !pending->is_array()) continue;
      for (Json& e : *pending) SF_RETURN_IF_ERROR(u.UnframeMessageBody(e, "message"));
    }
  }
  return u.CheckAllUsed();
}

}  // namespace stepfault::checkpoint_internal
