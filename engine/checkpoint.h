// Checkpoint: everything a run needs to continue from the end of one super-step (docs/design.md
// §2-3, docs/engine-semantics.md §1.4, §2): executor (private) and shared state, fan-in edge state
// keyed by EdgeId, the messages queued for the next step, outstanding requests, the step number,
// the topology signature and the parent link.
//
// Encoded form, version 2 (EncodeCheckpoint): a framed document, JSON metadata plus raw blobs,
// sealed once with a CRC32C over every byte before the trailer:
//   stepfault.checkpoint v2 <metadata bytes> <blob bytes>\n      header line
//   {"blobs":[<len>,...],"body":{...}}\n                          canonical JSON, one line
//   <blob 0><blob 1>...                                          raw bytes, no escaping
//   crc32c:<8 hex>\n                                             trailer
// The body is the version-1 body (below) except that a string of kFrameMinBytes or more inside a
// state value or a message body is moved to the blob area and replaced by the JSON string
// "\u0000blob:<index>"; a genuine string there that starts with U+0000 gets one more U+0000 in
// front. Metadata therefore stays readable JSON while large strings are copied, not escaped.
// Verification is one CRC pass over the bytes (no re-dump); every blob must be referenced exactly
// once and every length must add up to the file size.
//
// Version 1 (EncodeCheckpointJson, still decoded): one canonical JSON document (sorted keys, no
// insignificant whitespace) sealed with a CRC32C of the canonical dump of its body:
//   {"body":{…},"checksum":"crc32c:…","format":"stepfault.checkpoint","version":1}
// DecodeCheckpoint reads both, tells them apart by the first byte ('{' or 's'), and validates size,
// framing, seal and the full structure before returning anything, so a damaged byte anywhere gives
// a typed error (kCorruption, or kIncompatible for an unknown version), never a crash and never a
// partial checkpoint.
// In memory a checkpoint is copy on write (docs/engine-semantics.md 10.1): its state is a
// StateMap (state_map.h) whose scope list, scopes and values are immutable shared objects, so a
// checkpoint shares every scope its step did not write with its parent and with the live run (a
// step copies the scope list and the scopes it writes, nothing else); the topology signature and
// the fan-in buffers are shared the same way; so are the queues (SharedValue, shared_value.h): a
// checkpoint holds the very queue map the run built in its step (the run reads it in the next step
// and writes a fresh one); the instantiated ids are a persistent set (instantiated_ids.h): a
// checkpoint holds the run's set as is, which a step that instantiates nothing leaves as is and a
// step that does extends by one layer. Only the pending requests are copied.
// Thread-safety: values; the shared parts are never written once shared.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/instantiated_ids.h"
#include "engine/message.h"
#include "engine/shared_json.h"
#include "engine/shared_value.h"
#include "engine/state_map.h"
#include "engine/status.h"

namespace stepfault {

inline constexpr int kCheckpointVersion = 2;       // what EncodeCheckpoint writes
inline constexpr int kCheckpointJsonVersion = 1;   // the all-JSON form, still decoded
inline constexpr int kCheckpointDeltaVersion = 3;  // an incremental checkpoint (a delta)
// The longest chain of deltas ResolveCheckpoint follows before calling the chain damaged.
inline constexpr size_t kMaxCheckpointChain = 100000;
// Strings at least this long inside state values and message bodies are framed as blobs.
inline constexpr size_t kFrameMinBytes = 128;
inline constexpr size_t kMaxCheckpointBytes = 256u << 20;

struct PendingRequest {
  std::string request_id;
  std::string port_id;
  Message data;
  friend bool operator==(const PendingRequest&, const PendingRequest&) = default;
};

// A fan-in barrier's state: its ordered sources, the sources not yet seen in this round, and the
// messages buffered until every source has contributed.
struct FanInState {
  std::vector<std::string> sources;
  std::vector<std::string> unseen;  // in source order
  std::vector<Envelope> pending;
  friend bool operator==(const FanInState&, const FanInState&) = default;
};

// receiver -> FIFO of envelopes queued for it.
using QueueMap = std::map<std::string, std::vector<Envelope>>;

struct Checkpoint {
  std::string session_id;
  int64_t step_number = 0;
  // The topology signature (Workflow::signature()). Null while only workflow_ref is known: a
  // checkpoint decoded from a store that keeps topology records until its manager resolves the
  // record (StoreCheckpointManager::Lookup does).
  SharedJson workflow;
  // The topology record (engine/topology_record.h) the stored form names instead of carrying the
  // signature; empty for a checkpoint stored with its signature inline (MAF's form).
  std::string workflow_ref;
  // The instantiated executor ids: a persistent set (instantiated_ids.h) shared with the run and
  // with the checkpoints before it.
  InstantiatedIds instantiated;
  SharedValue<QueueMap> queued;             // receiver -> FIFO, shared copy on write
  std::vector<PendingRequest> outstanding;  // in registration order
  StateMap state;  // scope -> key -> value, shared copy on write (state_map.h)
  std::map<int, std::shared_ptr<const FanInState>> edge_state;  // EdgeId -> fan-in state
  std::optional<CheckpointInfo> parent;
};

bool CheckpointsEqual(const Checkpoint& a, const Checkpoint& b);

Json PendingRequestToJson(const PendingRequest& r);
Result<PendingRequest> PendingRequestFromJson(const Json& j, const std::string& path);
Json FanInStateToJson(const FanInState& s);
Result<FanInState> FanInStateFromJson(const Json& j, const std::string& path);
Json CheckpointInfoToJson(const CheckpointInfo& info);
Result<CheckpointInfo> CheckpointInfoFromJson(const Json& j, const std::string& path);
Json CheckpointBodyToJson(const Checkpoint& c);
Result<Checkpoint> CheckpointBodyFromJson(const Json& j);

// The framed, sealed version-2 encoding (deterministic: equal checkpoints give equal bytes).
// The body holds "workflow":<signature>, or "workflow_ref":"<key>" (a deliberate deviation from
// MAF, which puts the workflow in every checkpoint: docs/engine-semantics.md section 10) when a
// `workflow_ref` is given to the encoder, or when the checkpoint's signature is null and it has a
// workflow_ref (it was decoded from such a form and not resolved).
std::string EncodeCheckpoint(const Checkpoint& c);

// A framed checkpoint (version 2 or 3) as the parts it is made of, not joined: the header line
// and metadata, one view per blob (the bytes of the large strings where they already are, in the
// encoded checkpoint's values), and the trailer. Parts() joined are exactly the bytes
// EncodeCheckpoint (EncodeCheckpointDelta) returns; a store that writes them with one gathered
// write (Env AppendParts) spares the copy of every blob into one buffer. The seal is computed over
// the parts where they are (one CRC pass over the blobs, no copy).
// The blob views point into the values of the checkpoint that was encoded (and of its base, for a
// delta) and into this object: valid while that checkpoint lives, whether or not this object is
// moved. Thread-safety: a value; const use from many threads is safe.
class EncodedCheckpoint {
 public:
  // Head, blobs (in order), trailer; never empty.
  std::vector<std::string_view> Parts() const;
  size_t size() const;
  // CRC32C of every byte before the trailer (what the trailer states).
  uint32_t seal() const { return seal_; }
  // The parts joined: EncodeCheckpoint's bytes.
  std::string Join() const;

 private:
  friend class CheckpointFramer;
  std::string head_;                     // "stepfault.checkpoint v<n> ...\n" + metadata + "\n"
  std::vector<std::string_view> blobs_;  // into the checkpoint's values or into owned_
  std::deque<std::string> owned_;        // strings the encoder moved out of its own JSON copies
  std::shared_ptr<const Checkpoint> delta_body_;  // a delta's partial checkpoint (its values)
  std::string trailer_;                           // "crc32c:<8 hex>\n"
  uint32_t seal_ = 0;
};
EncodedCheckpoint EncodeCheckpointParts(const Checkpoint& c, std::string_view workflow_ref = {});
// The version-1 all-JSON encoding, for readers that want one JSON document.
std::string EncodeCheckpointJson(const Checkpoint& c);
// Decodes version 1 or 2 (a full checkpoint); a delta (version 3) is kIncompatible, naming
// ResolveCheckpoint.
Result<Checkpoint> DecodeCheckpoint(std::string_view bytes);

// Incremental checkpoints (version 3; a deliberate deviation from MAF, which stores every
// checkpoint in full). A delta is framed and sealed like version 2, with a third metadata field
//   "delta":{"base":"<checkpoint id>","removed":[[scope,key],...]}
// and a body whose state holds only the values that differ from the base's, and, when the base's
// instantiated executors are all still instantiated, "instantiated_added" (the ids instantiated
// since the base, sorted) instead of the whole "instantiated" list (issue 27: a run of an
// N-executor chain otherwise writes O(N^2) ids); everything else (queues, requests, fan-in, step,
// parent, the workflow or its ref) is in full: a step replaces it anyway.
// The base is always the checkpoint's parent in the same session.
std::string EncodeCheckpointDelta(const Checkpoint& c, const Checkpoint& base,
                                  const std::string& base_checkpoint_id);
// The same as parts (see EncodedCheckpoint); the views point into `c`'s values.
EncodedCheckpoint EncodeCheckpointDeltaParts(const Checkpoint& c, const Checkpoint& base,
                                             const std::string& base_checkpoint_id,
                                             std::string_view workflow_ref = {});
// The base id when `bytes` are a delta, nullopt for a full checkpoint, an error when their header,
// size, seal or metadata framing do not check (the body's values are not built: asked of every
// stored checkpoint when pruning, it costs a CRC pass and the metadata line, not a decode).
Result<std::optional<std::string>> CheckpointDeltaBase(std::string_view bytes);
// Reads the stored bytes of a checkpoint of the same session by id.
using CheckpointFetch = std::function<Result<std::string>(const std::string& checkpoint_id)>;
// The full checkpoint `bytes` stand for: decoded as is when full, or by following the chain of
// bases through `fetch` to the nearest full snapshot and applying the deltas oldest first. A link
// that is missing, damaged, from another session, or a loop is kCorruption naming the link.
// `bytes` are decoded and validated in full; of each base link only what a chain takes from it
// is built (its state, removed keys, instantiated ids, base, session and step), each link once,
// after its header, size and seal
// are checked: the rest of a link is never used, so it is skipped while parsing.
// The order deltas are applied in: oldest first (the format's rule); newest first only for the
// delta-chain-newest-first mutant (EngineProfile, issue 29), never in real use.
enum class ChainOrder { kOldestFirst, kNewestFirstMutant };
Result<Checkpoint> ResolveCheckpoint(std::string_view bytes, const CheckpointFetch& fetch,
                                     ChainOrder order = ChainOrder::kOldestFirst);
// The checkpoint the delta `bytes` stands for, applied to `base`, the full checkpoint its base id
// resolves to (the caller checks that id: CheckpointDeltaBase): `bytes` decoded and validated in
// full, once, and nothing else read, so a reader that resolves every checkpoint of a chain in
// commit order decodes each link once instead of walking the chain for each. Full `bytes` decode
// as they are (DecodeCheckpoint); a delta of another session than `base` is kCorruption.
Result<Checkpoint> ApplyCheckpointDelta(const Checkpoint& base, std::string_view bytes);
// The same as bytes: `bytes` unchanged when full, else EncodeCheckpoint of the resolved chain
// (for readers that decode one document with DecodeCheckpoint, such as the oracles).
Result<std::string> ResolveCheckpointBytes(std::string_view bytes, const CheckpointFetch& fetch);
// True when `bytes` starts like a version-2 (or later) framed checkpoint; says nothing about
// whether the rest is intact.
bool LooksLikeFramedCheckpoint(std::string_view bytes);

}  // namespace stepfault
