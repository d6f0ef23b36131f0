// The checkpoint's document forms (checkpoint.h): the framed encoding (version 2, and version 3
// for a delta: checkpoint_delta.cc) with its header line, metadata line, blob area and CRC32C
// seal; the all-JSON version 1; and one validating decoder for all of them. The body inside is
// checkpoint_body.cc's, its blobs checkpoint_blobs.cc's.
#include "engine/checkpoint.h"

#include <charconv>

#include "engine/checkpoint_internal.h"
#include "engine/crc32c.h"

namespace stepfault {

using checkpoint_internal::BodyForm;
using checkpoint_internal::BodyFromJson;
using checkpoint_internal::BodyToJson;
using checkpoint_internal::DecodeAny;
using checkpoint_internal::DecodePart;
using checkpoint_internal::FramedParts;
using checkpoint_internal::Framer;
using checkpoint_internal::InstantiatedFromJson;
using checkpoint_internal::kFormat;
using checkpoint_internal::kMagic;
using checkpoint_internal::kTrailerBytes;
using checkpoint_internal::ParseLinkMetadata;
using checkpoint_internal::ReadDelta;
using checkpoint_internal::StateFromJson;
using checkpoint_internal::UnframeBody;
using checkpoint_internal::Unframer;
using checkpoint_internal::UnframeState;

bool CheckpointsEqual(const Checkpoint& a, const Checkpoint& b) {
  return EncodeCheckpoint(a) == EncodeCheckpoint(b);
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

EncodedCheckpoint CheckpointFramer::Encode(const Checkpoint& c, Json* delta,
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

// Where the parts of a framed checkpoint are, from a header line, size and seal that check.
struct Frame {
  bool is_delta = false;  // version 3
  size_t meta_at = 0;     // the metadata line (without its newline)
  size_t meta_bytes = 0;
  size_t blob_bytes = 0;  // the blob area follows the metadata line's newline
};

// The header line, the size it announces, the seal and the end of the metadata line.
Result<Frame> ReadFrame(std::string_view bytes) {
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
  return Frame{.is_delta = is_delta,
               .meta_at = pos,
               .meta_bytes = static_cast<size_t>(meta_bytes),
               .blob_bytes = static_cast<size_t>(blob_bytes)};
}

// The blobs of the blob area, one view each, from the metadata's "blobs" lengths.
Result<std::vector<std::string_view>> ReadBlobs(std::string_view bytes, const Frame& frame,
                                                const Json& lengths) {
  std::vector<std::string_view> blobs;
  blobs.reserve(lengths.size());
  size_t offset = frame.meta_at + frame.meta_bytes + 1;
  const size_t blob_end = offset + frame.blob_bytes;
  for (const Json& n : lengths) {
    if (!n.is_number_unsigned() || n.get<uint64_t>() > blob_end - offset) {
      return Status::Corruption("/blobs: a blob length is not a count that fits the blob area");
    }
    blobs.push_back(bytes.substr(offset, n.get<uint64_t>()));
    offset += n.get<uint64_t>();
  }
  if (offset != blob_end) return Status::Corruption("/blobs: lengths do not cover the blob area");
  return blobs;
}

// What a base link of a chain contributes (DecodePart::kLink), from its partly parsed body.
Status DecodeLinkBody(Json& body, Unframer& unframer, bool is_delta, FramedParts* parts) {
  // Blobs of the skipped fields stay unreferenced: the seal vouches for them.
  SF_RETURN_IF_ERROR(UnframeState(body, unframer));
  const std::string path = "/body";
  SF_ASSIGN_OR_RETURN(parts->checkpoint.session_id, JsonString(body, "session_id", path));
  SF_ASSIGN_OR_RETURN(parts->checkpoint.step_number, JsonInt(body, "step", path));
  if (parts->checkpoint.step_number < 0) {
    return Status::Corruption(path + "/step: negative step number");
  }
  SF_RETURN_IF_ERROR(StateFromJson(body, path, &parts->checkpoint.state));
  return InstantiatedFromJson(body, path, is_delta ? &parts->instantiated_added : nullptr,
                              &parts->checkpoint);
}

Result<FramedParts> DecodeFramed(std::string_view bytes, DecodePart part) {
  const bool link_only = part != DecodePart::kWhole;
  SF_ASSIGN_OR_RETURN(const Frame frame, ReadFrame(bytes));
  const std::string_view meta_text = bytes.substr(frame.meta_at, frame.meta_bytes);
  Json meta = link_only ? ParseLinkMetadata(meta_text, /*body_fields=*/part == DecodePart::kLink)
                        : Json::parse(meta_text, nullptr, /*allow_exceptions=*/false);
  if (meta.is_discarded() || !meta.is_object()) {
    return Status::Corruption("checkpoint metadata is not a JSON object");
  }
  SF_ASSIGN_OR_RETURN(const Json* lengths, JsonField(meta, "blobs", Json::value_t::array, ""));
  SF_ASSIGN_OR_RETURN(const Json* body_field, JsonField(meta, "body", Json::value_t::object, ""));
  FramedParts parts;
  if (frame.is_delta) SF_RETURN_IF_ERROR(ReadDelta(meta, &parts));
  if (meta.size() != (frame.is_delta ? 3u : 2u)) {
    return Status::Corruption("checkpoint metadata has unexpected fields");
  }
  SF_ASSIGN_OR_RETURN(std::vector<std::string_view> blobs, ReadBlobs(bytes, frame, *lengths));
  if (part == DecodePart::kBase) return parts;
  Json& body = const_cast<Json&>(*body_field);
  Unframer unframer(std::move(blobs));
  if (link_only) {
    SF_RETURN_IF_ERROR(DecodeLinkBody(body, unframer, frame.is_delta, &parts));
    return parts;
  }
  SF_RETURN_IF_ERROR(UnframeBody(body, unframer));
  SF_ASSIGN_OR_RETURN(parts.checkpoint,
                      BodyFromJson(body, frame.is_delta ? &parts.instantiated_added : nullptr));
  return parts;
}

}  // namespace

Result<FramedParts> checkpoint_internal::DecodeAny(std::string_view bytes, DecodePart part) {
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

Result<Checkpoint> DecodeCheckpoint(std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts parts, DecodeAny(bytes));
  if (parts.base) {
    return Status::Incompatible(
        "checkpoint is incremental (version " + std::to_string(kCheckpointDeltaVersion) +
        ", based on " + *parts.base + "): read it with ResolveCheckpoint, which follows its chain");
  }
  return std::move(parts.checkpoint);
}

}  // namespace stepfault
