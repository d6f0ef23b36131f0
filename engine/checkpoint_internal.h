// What the files of the checkpoint codec share; engine/checkpoint.h is its interface. Internal to
// engine/. One concept a file:
//   checkpoint.cc            the two document forms (framed versions 2 and 3, all-JSON version 1):
//                            header line, seal, metadata line, and the decoder of any of them
//   checkpoint_body.cc       the body: a Checkpoint to JSON and back, validated
//   checkpoint_blobs.cc      the large strings of a body moved to the blob area and back
//   checkpoint_link_scan.cc  a chain link's metadata read without building what a chain skips
//   checkpoint_delta.cc      incremental checkpoints: encode a delta, resolve and apply chains
// Thread-safety: as checkpoint.h.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/checkpoint.h"

namespace stepfault {
namespace checkpoint_internal {

inline constexpr const char* kFormat = "stepfault.checkpoint";
inline constexpr std::string_view kMagic = "stepfault.checkpoint v";
inline constexpr std::string_view kBlobRef("\0blob:", 6);
inline constexpr size_t kTrailerBytes = 16;  // "crc32c:" + 8 hex + "\n"

// --- checkpoint_blobs.cc

// Moves large strings out of state values and message bodies into the blob list (encoder side).
class Framer {
 public:
  // Blob views go to `blobs`, strings moved out of the encoder's own JSON copies to `owned`.
  Framer(std::vector<std::string_view>& blobs, std::deque<std::string>& owned)
      : blobs_(blobs), owned_(owned) {}

  // A copy of `v` with large strings replaced by references to views of the original bytes.
  Json Frame(const Json& v);
  // The same, in place, for a value this encoder owns (its strings move, nothing is copied).
  void FrameInPlace(Json& v);
  // The body of the message holder[message_key], in place, when there is one.
  void FrameMessageBody(Json& holder, const char* message_key);

  const std::vector<std::string_view>& blobs() const { return blobs_; }

 private:
  Json Ref(std::string_view bytes);

  std::vector<std::string_view>& blobs_;
  std::deque<std::string>& owned_;  // deque: growing it never moves the strings blobs_ points into
};

// Replaces blob references (and unescapes U+0000-prefixed strings) inside one framed value.
class Unframer {
 public:
  explicit Unframer(std::vector<std::string_view> blobs)
      : blobs_(std::move(blobs)), used_(blobs_.size(), false) {}

  Status Unframe(Json& v);
  Status UnframeMessageBody(Json& holder, const char* message_key);
  // kCorruption when a blob was never referenced.
  Status CheckAllUsed() const;

 private:
  std::vector<std::string_view> blobs_;
  std::vector<bool> used_;
};

// The framed strings of a body's state (UnframeBody's first part; all a chain's link needs).
Status UnframeState(Json& body, Unframer& u);
// The framed locations of a body, mirroring BodyToJson. A location of the wrong shape is left for
// BodyFromJson to reject.
Status UnframeBody(Json& body, Unframer& u);

// --- checkpoint_body.cc

// How a body names its topology and lists its executors (see EncodeCheckpoint, deltas).
struct BodyForm {
  std::string_view workflow_ref;    // non-empty: "workflow_ref" instead of the signature
  bool instantiated_added = false;  // a delta: c.instantiated are the ids added since the base
};

// The body of `c`; with a `framer`, its large strings framed as blobs.
Json BodyToJson(const Checkpoint& c, Framer* framer, const BodyForm& form = {});
// The body's state (values moved, not copied).
Status StateFromJson(Json& j, const std::string& path, StateMap* out);
// The body's instantiated ids: "instantiated" (the whole list), or in a delta (when
// `instantiated_added` is not null) "instantiated_added", which sets *instantiated_added.
Status InstantiatedFromJson(const Json& j, const std::string& path, bool* instantiated_added,
                            Checkpoint* c);
// Decodes a body it may consume: state values and the topology signature are moved, not copied.
// `instantiated_added`: null unless a delta's body is decoded (see InstantiatedFromJson).
Result<Checkpoint> BodyFromJson(Json& j, bool* instantiated_added = nullptr);

// --- checkpoint_link_scan.cc

// The metadata of a base link with only what ResolveCheckpoint takes from it parsed: "blobs",
// "delta" and, when `body_fields`, the body fields a link contributes (its state, instantiated
// ids, session and step); every other field is present but null (so the field checks still see
// it), its text skipped without being parsed. Discarded when malformed.
Json ParseLinkMetadata(std::string_view text, bool body_fields);

// --- checkpoint.cc

// A decoded framed checkpoint: a full one (version 2), or a delta (version 3) whose state holds
// only the changed values, with its base and the keys it removed.
struct FramedParts {
  Checkpoint checkpoint;
  std::optional<std::string> base;
  std::vector<std::pair<std::string, std::string>> removed;
  bool instantiated_added = false;  // checkpoint.instantiated: only those added since the base
};

// How much of a checkpoint a reader needs.
enum class DecodePart {
  kWhole,  // the checkpoint, every field parsed and validated
  // What a base link of a chain contributes (ParseLinkMetadata, the delta fields, the blob
  // lengths). The header, the size and the seal are checked in full, so a damaged link is still
  // kCorruption; the parts a chain never uses (workflow, queues, requests, fan-in, parent) are
  // skipped by a scan of their brackets and strings (ParseLinkMetadata) instead of being parsed,
  // built and validated: ResolveCheckpoint takes them from the newest checkpoint, decoded in full.
  kLink,
  // Only whether it is a delta and of which base (CheckpointDeltaBase, asked for every stored
  // checkpoint when pruning): header, size, seal and metadata framing checked as for kLink, the
  // body's values not built at all (the seal vouches for them).
  kBase,
};

// Any checkpoint's bytes (version 1, 2 or 3) as far as `part` asks (a version-1 document, always
// full, is decoded whole).
Result<FramedParts> DecodeAny(std::string_view bytes, DecodePart part = DecodePart::kWhole);

// --- checkpoint_delta.cc

// A delta's "delta" metadata: its base and the keys it removed, into *out.
Status ReadDelta(const Json& meta, FramedParts* out);

}  // namespace checkpoint_internal

// Builds EncodedCheckpoint's parts (checkpoint.cc): the framed encoding; `delta` (version 3)
// names the base and the removed keys. The blobs are sealed where they are; nothing is copied
// into one buffer.
class CheckpointFramer {
 public:
  static EncodedCheckpoint Encode(const Checkpoint& c, Json* delta,
                                  std::shared_ptr<const Checkpoint> delta_body,
                                  const checkpoint_internal::BodyForm& form);
};

}  // namespace stepfault
