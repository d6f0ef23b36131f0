// The checkpoint codec: the framed version-2 encoding, the all-JSON version 1, the CRC32C seal,
// and one validating decoder for both.
#include "engine/checkpoint.h"

#include <algorithm>
#include <charconv>
#include <deque>
#include <set>

#include "engine/compat.h"
#include "engine/crc32c.h"
#include "engine/topology_record.h"

namespace stepfault {
namespace {
constexpr const char* kFormat = "stepfault.checkpoint";
constexpr std::string_view kMagic = "stepfault.checkpoint v";
constexpr std::string_view kBlobRef("\0blob:", 6);
constexpr size_t kTrailerBytes = 16;  // "crc32c:" + 8 hex + "\n"

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

namespace {

// Moves large strings out of state values and message bodies into the blob list (encoder side).
class Framer {
 public:
  // Blob views go to `blobs`, strings moved out of the encoder's own JSON copies to `owned`.
  Framer(std::vector<std::string_view>& blobs, std::deque<std::string>& owned)
      : blobs_(blobs), owned_(owned) {}

  // A copy of `v` with large strings replaced by references to views of the original bytes.
  Json Frame(const Json& v) {
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

  // The same, in place, for a value this encoder owns (its strings move, nothing is copied).
  void FrameInPlace(Json& v) {
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

  void FrameMessageBody(Json& holder, const char* message_key) {
    auto m = holder.find(message_key);
    if (m == holder.end()) return;
    auto b = m->find("body");
    if (b != m->end()) FrameInPlace(*b);
  }

  const std::vector<std::string_view>& blobs() const { return blobs_; }

 private:
  Json Ref(std::string_view bytes) {
    blobs_.push_back(bytes);
    return Json(std::string(kBlobRef) + std::to_string(blobs_.size() - 1));
  }

  std::vector<std::string_view>& blobs_;
  std::deque<std::string>& owned_;  // deque: growing it never moves the strings blobs_ points into
};

// How a body names its topology and lists its executors (see EncodeCheckpoint, deltas).
struct BodyForm {
  std::string_view workflow_ref;    // non-empty: "workflow_ref" instead of the signature
  bool instantiated_added = false;  // a delta: c.instantiated are the ids added since the base
};

Json BodyToJson(const Checkpoint& c, Framer* framer, const BodyForm& form = {}) {
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
         {form.instantiated_added ? "instantiated_added" : "instantiated", c.instantiated.get()},
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

}  // namespace

Json CheckpointBodyToJson(const Checkpoint& c) { return BodyToJson(c, nullptr); }

namespace {

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

// The body's instantiated ids: "instantiated" (the whole list), or in a delta (when
// `instantiated_added` is not null) "instantiated_added", which sets *instantiated_added.
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
Result<Checkpoint> BodyFromJson(Json& j, bool* instantiated_added = nullptr) {
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

}  // namespace

Result<Checkpoint> CheckpointBodyFromJson(const Json& j) {
  Json copy = j;
  return BodyFromJson(copy);
}

std::string EncodeCheckpointJson(const Checkpoint& c) {
  Json body = CheckpointBodyToJson(c);
  std::string body_text = body.dump();
  Json doc{{"format", kFormat},
           {"version", kCheckpointJsonVersion},
           {"checksum", Crc32cTag(body_text)},
           {"body", std::move(body)}};
  return doc.dump();
}

// Builds EncodedCheckpoint's parts: the framed encoding; `delta` (version 3) names the base and
// the removed keys. The blobs are sealed where they are; nothing is copied into one buffer.
class CheckpointFramer {
 public:
  static EncodedCheckpoint Encode(const Checkpoint& c, Json* delta,
                                  std::shared_ptr<const Checkpoint> delta_body,
                                  const BodyForm& form) {
    EncodedCheckpoint out;
    out.delta_body_ = std::move(delta_body);
    Framer framer(out.blobs_, out.owned_);
    Json meta = Json::object();
    meta["body"] = BodyToJson(c, &framer, form);
    if (delta != nullptr) meta["delta"] = std::move(*delta);
    Json lengths = Json::array();
    size_t blob_bytes = 0;
    for (std::string_view b : out.blobs_) {
      lengths.push_back(b.size());
      blob_bytes += b.size();
    }
    meta["blobs"] = std::move(lengths);
    const std::string meta_text = meta.dump();
    const int version = delta != nullptr ? kCheckpointDeltaVersion : kCheckpointVersion;
    out.head_ = std::string(kMagic) + std::to_string(version) + " " +
                std::to_string(meta_text.size()) + " " + std::to_string(blob_bytes) + "\n";
    out.head_.reserve(out.head_.size() + meta_text.size() + 1);
    out.head_ += meta_text;
    out.head_ += '\n';
    uint32_t crc = Crc32c(out.head_);
    for (std::string_view b : out.blobs_) crc = Crc32cExtend(crc, b);
    out.seal_ = crc;
    out.trailer_ = Crc32cTagOf(crc) + "\n";
    return out;
  }
};

std::vector<std::string_view> EncodedCheckpoint::Parts() const {
  std::vector<std::string_view> parts;
  parts.reserve(blobs_.size() + 2);
  parts.push_back(head_);
  parts.insert(parts.end(), blobs_.begin(), blobs_.end());
  parts.push_back(trailer_);
  return parts;
}

size_t EncodedCheckpoint::size() const {
  size_t n = head_.size() + trailer_.size();
  for (std::string_view b : blobs_) n += b.size();
  return n;
}

std::string EncodedCheckpoint::Join() const {
  std::string out;
  out.reserve(size());
  for (std::string_view p : Parts()) out.append(p);
  return out;
}

EncodedCheckpoint EncodeCheckpointParts(const Checkpoint& c, std::string_view workflow_ref) {
  return CheckpointFramer::Encode(c, nullptr, nullptr, BodyForm{workflow_ref, false});
}

std::string EncodeCheckpoint(const Checkpoint& c) { return EncodeCheckpointParts(c).Join(); }

std::string EncodeCheckpointDelta(const Checkpoint& c, const Checkpoint& base,
                                  const std::string& base_checkpoint_id) {
  return EncodeCheckpointDeltaParts(c, base, base_checkpoint_id).Join();
}

namespace {
// The ids of `now` that are not in `base` (both sorted), or nullopt when an id of `base` is missing
// from `now` (the delta then lists them all). The very same shared list adds nothing.
std::optional<std::vector<std::string>> AddedSince(const std::vector<std::string>& base,
                                                   const std::vector<std::string>& now) {
  if (&base == &now) return std::vector<std::string>();
  std::vector<std::string> added;
  auto b = base.begin();
  for (const std::string& id : now) {
    if (b != base.end() && *b == id) {
      ++b;
    } else if (b != base.end() && *b < id) {
      return std::nullopt;  // *b was dropped
    } else {
      added.push_back(id);
    }
  }
  if (b != base.end()) return std::nullopt;
  return added;
}
}  // namespace

EncodedCheckpoint EncodeCheckpointDeltaParts(const Checkpoint& c, const Checkpoint& base,
                                             const std::string& base_checkpoint_id,
                                             std::string_view workflow_ref) {
  // Only what changed: with copy-on-write state an unchanged value is the base's very object, so
  // the comparison is a pointer compare for everything the step did not write.
  Checkpoint d;
  d.session_id = c.session_id;
  d.step_number = c.step_number;
  d.workflow = c.workflow;
  d.workflow_ref = c.workflow_ref;
  std::optional<std::vector<std::string>> added = AddedSince(*base.instantiated, *c.instantiated);
  if (added) {
    d.instantiated = std::move(*added);
  } else {
    d.instantiated = c.instantiated;
  }
  d.queued = c.queued;
  d.outstanding = c.outstanding;
  d.edge_state = c.edge_state;
  d.parent = c.parent;
  Json removed = Json::array();
  for (const auto& [scope, kv] : c.state) {
    auto b = base.state.find(scope);
    if (b != base.state.end() && &b->values == &kv) continue;  // the very same (shared) scope
    ScopeMap changed;
    for (const auto& [k, v] : kv) {
      if (b != base.state.end()) {
        auto bv = b->values.find(k);
        if (bv != b->values.end() && bv->second == v) continue;
      }
      changed.emplace_hint(changed.end(), k, v);
    }
    if (!changed.empty()) d.state.SetScope(scope, std::move(changed));
  }
  for (const auto& [scope, kv] : base.state) {
    auto cs = c.state.find(scope);
    if (cs != c.state.end() && &cs->values == &kv) continue;
    for (const auto& [k, v] : kv) {
      if (cs == c.state.end() || cs->values.count(k) == 0)
        removed.push_back(Json::array({scope, k}));
    }
  }
  Json delta{{"base", base_checkpoint_id}, {"removed", std::move(removed)}};
  auto body = std::make_shared<const Checkpoint>(std::move(d));
  return CheckpointFramer::Encode(*body, &delta, body, BodyForm{workflow_ref, added.has_value()});
}

bool LooksLikeFramedCheckpoint(std::string_view bytes) { return bytes.starts_with(kMagic); }

namespace {

Status TooBig(size_t n) {
  return Status::Corruption("checkpoint is " + std::to_string(n) + " bytes, over the " +
                            std::to_string(kMaxCheckpointBytes) + "-byte limit");
}

Result<Checkpoint> DecodeJsonDocument(std::string_view bytes) {
  Json doc = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Status::Corruption("checkpoint is not valid JSON (" + std::to_string(bytes.size()) +
                              " bytes); it was truncated or damaged");
  }
  SF_ASSIGN_OR_RETURN(std::string format, JsonString(doc, "format", ""));
  if (format != kFormat)
    return Status::Corruption("/format: expected '" + std::string(kFormat) + "'");
  SF_ASSIGN_OR_RETURN(int64_t version, JsonInt(doc, "version", ""));
  if (version != kCheckpointJsonVersion) {
    return Status::Incompatible("checkpoint JSON document version " + std::to_string(version) +
                                " is not supported (this build reads JSON documents of version " +
                                std::to_string(kCheckpointJsonVersion) +
                                " and framed checkpoints of version " +
                                std::to_string(kCheckpointVersion) + ")");
  }
  SF_ASSIGN_OR_RETURN(std::string checksum, JsonString(doc, "checksum", ""));
  SF_ASSIGN_OR_RETURN(const Json* body, JsonField(doc, "body", Json::value_t::object, ""));
  const std::string actual = Crc32cTag(body->dump());
  if (checksum != actual) {
    return Status::Corruption("checkpoint checksum mismatch (stored " + checksum + ", computed " +
                              actual + "); the bytes were damaged");
  }
  return BodyFromJson(const_cast<Json&>(*body));
}

// Reads decimal digits up to `stop` from `s` at *pos; false when there are none, too many, or the
// stop character is missing.
bool ReadNumber(std::string_view s, size_t* pos, char stop, uint64_t* out) {
  const size_t start = *pos;
  size_t end = start;
  while (end < s.size() && end - start <= 12 && s[end] >= '0' && s[end] <= '9') ++end;
  if (end == start || end - start > 12 || end >= s.size() || s[end] != stop) return false;
  std::from_chars(s.data() + start, s.data() + end, *out);
  *pos = end + 1;
  return true;
}

// Replaces blob references (and unescapes U+0000-prefixed strings) inside one framed value.
class Unframer {
 public:
  explicit Unframer(std::vector<std::string_view> blobs)
      : blobs_(std::move(blobs)), used_(blobs_.size(), false) {}

  Status Unframe(Json& v) {
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
      const bool digits = text.starts_with(kBlobRef) && text.size() > pos &&
                          text.size() - pos <= 9 &&
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

  Status UnframeMessageBody(Json& holder, const char* message_key) {
    if (!holder.is_object()) return Status::Ok();
    auto m = holder.find(message_key);
    if (m == holder.end() || !m->is_object()) return Status::Ok();
    auto b = m->find("body");
    return b == m->end() ? Status::Ok() : Unframe(*b);
  }

  Status CheckAllUsed() const {
    for (size_t i = 0; i < used_.size(); ++i) {
      if (!used_[i])
        return Status::Corruption("blob " + std::to_string(i) + " is never referenced");
    }
    return Status::Ok();
  }

 private:
  std::vector<std::string_view> blobs_;
  std::vector<bool> used_;
};

// The framed strings of a body's state (UnframeBody's first part; all a chain's link needs).
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

// A decoded framed checkpoint: a full one (version 2), or a delta (version 3) whose state holds
// only the changed values, with its base and the keys it removed.
struct FramedParts {
  Checkpoint checkpoint;
  std::optional<std::string> base;
  std::vector<std::pair<std::string, std::string>> removed;
  bool instantiated_added = false;  // checkpoint.instantiated: only those added since the base
};

Status ReadDelta(const Json& meta, FramedParts* out) {
  SF_ASSIGN_OR_RETURN(const Json* delta, JsonField(meta, "delta", Json::value_t::object, ""));
  SF_ASSIGN_OR_RETURN(std::string base, JsonString(*delta, "base", "/delta"));
  if (base.empty()) return Status::Corruption("/delta/base: empty checkpoint id");
  SF_ASSIGN_OR_RETURN(const Json* removed,
                      JsonField(*delta, "removed", Json::value_t::array, "/delta"));
  if (delta->size() != 2) return Status::Corruption("/delta has unexpected fields");
  for (const Json& r : *removed) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_string() || !r[1].is_string()) {
      return Status::Corruption("/delta/removed: expected [scope, key] pairs");
    }
    out->removed.emplace_back(r[0].get<std::string>(), r[1].get<std::string>());
  }
  out->base = std::move(base);
  return Status::Ok();
}

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

// The metadata of a base link with only what ResolveCheckpoint takes from it parsed: "blobs",
// "delta" and, when `body_fields`, the body fields for which LinkField holds; every other field is
// present but null (so the field checks still see it), its text skipped without being parsed.
// Discarded when malformed.
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

// How much of a checkpoint a reader needs.
enum class DecodePart {
  kWhole,  // the checkpoint, every field parsed and validated
  // What a base link of a chain contributes (LinkField, the delta fields, the blob lengths). The
  // header, the size and the seal are checked in full, so a damaged link is still kCorruption; the
  // parts a chain never uses (workflow, queues, requests, fan-in, parent) are skipped by a scan of
  // their brackets and strings (ParseLinkMetadata) instead of being parsed, built and validated:
  // ResolveCheckpoint takes them from the newest checkpoint, decoded in full.
  kLink,
  // Only whether it is a delta and of which base (CheckpointDeltaBase, asked for every stored
  // checkpoint when pruning): header, size, seal and metadata framing checked as for kLink, the
  // body's values not built at all (the seal vouches for them).
  kBase,
};

Result<FramedParts> DecodeFramed(std::string_view bytes, DecodePart part) {
  const bool link_only = part != DecodePart::kWhole;
  // Header line: version first, so a newer writer's document is kIncompatible, not damaged.
  size_t pos = kMagic.size();
  uint64_t version = 0, meta_bytes = 0, blob_bytes = 0;
  if (!ReadNumber(bytes, &pos, ' ', &version)) {
    return Status::Corruption("checkpoint header line is truncated or malformed");
  }
  if (version != static_cast<uint64_t>(kCheckpointVersion) &&
      version != static_cast<uint64_t>(kCheckpointDeltaVersion)) {
    return Status::Incompatible("checkpoint format version " + std::to_string(version) +
                                " is not supported (this build reads versions " +
                                std::to_string(kCheckpointVersion) + " and " +
                                std::to_string(kCheckpointDeltaVersion) + ")");
  }
  const bool is_delta = version == static_cast<uint64_t>(kCheckpointDeltaVersion);
  if (!ReadNumber(bytes, &pos, ' ', &meta_bytes) || !ReadNumber(bytes, &pos, '\n', &blob_bytes)) {
    return Status::Corruption("checkpoint header line is truncated or malformed");
  }
  const uint64_t expected = pos + meta_bytes + 1 + blob_bytes + kTrailerBytes;
  if (expected != bytes.size()) {
    return Status::Corruption("checkpoint is " + std::to_string(bytes.size()) +
                              " bytes but its header announces " + std::to_string(expected) +
                              "; it was truncated or damaged");
  }
  // The seal: one pass over everything before the trailer.
  const std::string_view sealed = bytes.substr(0, bytes.size() - kTrailerBytes);
  const std::string_view trailer = bytes.substr(sealed.size());
  const std::string actual = Crc32cTagOf(Crc32c(sealed));
  if (trailer.substr(0, kTrailerBytes - 1) != actual || trailer.back() != '\n') {
    return Status::Corruption("checkpoint checksum mismatch (stored '" +
                              std::string(trailer.substr(0, kTrailerBytes - 1)) + "', computed " +
                              actual + "); the bytes were damaged");
  }
  if (bytes[pos + meta_bytes] != '\n') {
    return Status::Corruption("checkpoint metadata line does not end where its header says");
  }
  const std::string_view meta_text = bytes.substr(pos, meta_bytes);
  Json meta = link_only ? ParseLinkMetadata(meta_text, /*body_fields=*/part == DecodePart::kLink)
                        : Json::parse(meta_text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object()) {
    return Status::Corruption("checkpoint metadata is not a JSON object");
  }
  SF_ASSIGN_OR_RETURN(const Json* lengths, JsonField(meta, "blobs", Json::value_t::array, ""));
  SF_ASSIGN_OR_RETURN(const Json* body_field, JsonField(meta, "body", Json::value_t::object, ""));
  FramedParts parts;
  if (is_delta) SF_RETURN_IF_ERROR(ReadDelta(meta, &parts));
  if (meta.size() != (is_delta ? 3u : 2u)) {
    return Status::Corruption("checkpoint metadata has unexpected fields");
  }
  std::vector<std::string_view> blobs;
  blobs.reserve(lengths->size());
  size_t offset = pos + meta_bytes + 1;
  const size_t blob_end = offset + blob_bytes;
  for (const Json& n : *lengths) {
    if (!n.is_number_unsigned() || n.get<uint64_t>() > blob_end - offset) {
      return Status::Corruption("/blobs: a blob length is not a count that fits the blob area");
    }
    blobs.push_back(bytes.substr(offset, n.get<uint64_t>()));
    offset += n.get<uint64_t>();
  }
  if (offset != blob_end) return Status::Corruption("/blobs: lengths do not cover the blob area");
  if (part == DecodePart::kBase) return parts;
  Json& body = const_cast<Json&>(*body_field);
  Unframer unframer(std::move(blobs));
  if (link_only) {
    // Blobs of the skipped fields stay unreferenced: the seal vouches for them.
    SF_RETURN_IF_ERROR(UnframeState(body, unframer));
    const std::string path = "/body";
    SF_ASSIGN_OR_RETURN(parts.checkpoint.session_id, JsonString(body, "session_id", path));
    SF_ASSIGN_OR_RETURN(parts.checkpoint.step_number, JsonInt(body, "step", path));
    if (parts.checkpoint.step_number < 0) {
      return Status::Corruption(path + "/step: negative step number");
    }
    SF_RETURN_IF_ERROR(StateFromJson(body, path, &parts.checkpoint.state));
    SF_RETURN_IF_ERROR(InstantiatedFromJson(
        body, path, is_delta ? &parts.instantiated_added : nullptr, &parts.checkpoint));
    return parts;
  }
  SF_RETURN_IF_ERROR(UnframeBody(body, unframer));
  SF_ASSIGN_OR_RETURN(parts.checkpoint,
                      BodyFromJson(body, is_delta ? &parts.instantiated_added : nullptr));
  return parts;
}

// `part`: see DecodePart (a version-1 document, always full, is decoded whole).
Result<FramedParts> DecodeAny(std::string_view bytes, DecodePart part = DecodePart::kWhole) {
  if (bytes.empty()) return Status::Corruption("checkpoint is empty (0 bytes)");
  if (bytes.size() > kMaxCheckpointBytes) return TooBig(bytes.size());
  if (bytes.starts_with(kMagic)) return DecodeFramed(bytes, part);
  if (bytes[0] == '{') {
    SF_ASSIGN_OR_RETURN(Checkpoint c, DecodeJsonDocument(bytes));
    return FramedParts{std::move(c), std::nullopt, {}};
  }
  return Status::Corruption("checkpoint starts with neither '" + std::string(kMagic) +
                            "' nor '{' (" + std::to_string(bytes.size()) +
                            " bytes); it is not a checkpoint or it was damaged");
}

}  // namespace

Result<Checkpoint> DecodeCheckpoint(std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts parts, DecodeAny(bytes));
  if (parts.base) {
    return Status::Incompatible(
        "checkpoint is incremental (version " + std::to_string(kCheckpointDeltaVersion) +
        ", based on " + *parts.base + "): read it with ResolveCheckpoint, which follows its chain");
  }
  return std::move(parts.checkpoint);
}

Result<std::optional<std::string>> CheckpointDeltaBase(std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts parts, DecodeAny(bytes, DecodePart::kBase));
  return parts.base;
}

namespace {
// The instantiated ids of a chain's newest link (chain: newest first, the last one full): from
// the newest link that lists them all, plus every id a newer link added (one sort at the end).
std::vector<std::string> InstantiatedOfChain(const std::vector<FramedParts>& chain) {
  size_t full = 0;
  while (chain[full].instantiated_added) ++full;  // the last link is full: always stops
  std::vector<std::string> ids = *chain[full].checkpoint.instantiated;
  for (size_t i = 0; i < full; ++i) {
    const std::vector<std::string>& added = *chain[i].checkpoint.instantiated;
    ids.insert(ids.end(), added.begin(), added.end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}
}  // namespace

Result<Checkpoint> ResolveCheckpoint(std::string_view bytes, const CheckpointFetch& fetch,
                                     ChainOrder order) {
  SF_ASSIGN_OR_RETURN(FramedParts head, DecodeAny(bytes));
  std::vector<FramedParts> chain;  // newest first; the last one is full
  chain.push_back(std::move(head));
  std::set<std::string> seen;
  while (chain.back().base) {
    const std::string base = *chain.back().base;
    if (!seen.insert(base).second || chain.size() > kMaxCheckpointChain) {
      return Status::Corruption("incremental checkpoint chain loops or is longer than " +
                                std::to_string(kMaxCheckpointChain) + " links at " + base);
    }
    const std::string where = "base checkpoint " + base + " of an incremental checkpoint (step " +
                              std::to_string(chain.back().checkpoint.step_number) + ")";
    Result<std::string> base_bytes = fetch(base);
    if (!base_bytes.ok()) {
      // A missing or unreadable link damages every checkpoint that depends on it.
      return Status::Corruption(where + " cannot be read: " + base_bytes.status().ToString());
    }
    // Only what a link contributes (its state, removed keys, base, session, step): the rest of
    // the checkpoint comes from the newest one, decoded in full above.
    Result<FramedParts> parts = DecodeAny(*base_bytes, DecodePart::kLink);
    if (!parts.ok()) return Status::Corruption(where + ": " + parts.status().ToString());
    if (parts->checkpoint.session_id != chain.back().checkpoint.session_id) {
      return Status::Corruption(where + " belongs to session '" + parts->checkpoint.session_id +
                                "'");
    }
    chain.push_back(std::move(parts).value());
  }
  StateMap state = std::move(chain.back().checkpoint.state);
  auto apply = [&state](const FramedParts& link) {
    for (const auto& [scope, key] : link.removed) state.Erase(scope, key);
    for (const auto& [scope, kv] : link.checkpoint.state) {
      for (const auto& [k, v] : kv) state.Set(scope, k, v);
    }
  };
  if (order == ChainOrder::kNewestFirstMutant) {
    for (size_t i = 0; i + 1 < chain.size(); ++i) apply(chain[i]);
  } else {
    for (size_t i = chain.size() - 1; i-- > 0;) apply(chain[i]);
  }
  std::optional<std::vector<std::string>> instantiated;
  if (chain.front().instantiated_added) instantiated = InstantiatedOfChain(chain);
  Checkpoint out = std::move(chain.front().checkpoint);
  out.state = std::move(state);
  if (instantiated) out.instantiated = std::move(*instantiated);
  return out;
}

Result<Checkpoint> ApplyCheckpointDelta(const Checkpoint& base, std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts head, DecodeAny(bytes));
  if (!head.base) return std::move(head.checkpoint);
  if (head.checkpoint.session_id != base.session_id) {
    return Status::Corruption("incremental checkpoint of session '" + head.checkpoint.session_id +
                              "' applied to a base of session '" + base.session_id + "'");
  }
  StateMap state = base.state;
  for (const auto& [scope, key] : head.removed) state.Erase(scope, key);
  for (const auto& [scope, kv] : head.checkpoint.state) {
    for (const auto& [k, v] : kv) state.Set(scope, k, v);
  }
  Checkpoint out = std::move(head.checkpoint);
  out.state = std::move(state);
  if (head.instantiated_added) {
    std::vector<std::string> ids = *base.instantiated;
    ids.insert(ids.end(), out.instantiated->begin(), out.instantiated->end());
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    out.instantiated = std::move(ids);
  }
  return out;
}

Result<std::string> ResolveCheckpointBytes(std::string_view bytes, const CheckpointFetch& fetch) {
  SF_ASSIGN_OR_RETURN(std::optional<std::string> base, CheckpointDeltaBase(bytes));
  if (!base) return std::string(bytes);
  SF_ASSIGN_OR_RETURN(Checkpoint full, ResolveCheckpoint(bytes, fetch));
  return EncodeCheckpoint(full);
}

}  // namespace stepfault
