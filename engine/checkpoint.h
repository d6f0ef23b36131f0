// Checkpoint: everything a run needs to continue from the end of one super-step (docs/design.md
// §2-3, docs/engine-semantics.md §1.4, §2): executor (private) and shared state, fan-in edge state
// keyed by EdgeId, the messages queued for the next step, outstanding requests, the step number,
// the topology signature and the parent link.
//
// The encoded form is one canonical JSON document (sorted keys, no insignificant whitespace),
// schema-versioned and sealed with a CRC32C of the canonical body:
//   {"checksum":"crc32c:…","format":"stepfault.checkpoint","version":1,"body":{…}}
// DecodeCheckpoint validates size, JSON syntax, format, version, checksum and the full structure
// before returning anything, so a damaged byte anywhere gives a typed error (kCorruption, or
// kIncompatible for a newer version), never a crash and never a partial checkpoint.
// Thread-safety: values; FanInState is shared immutably between checkpoints.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/message.h"
#include "engine/status.h"

namespace stepfault {

inline constexpr int kCheckpointVersion = 1;
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

struct Checkpoint {
  std::string session_id;
  int64_t step_number = 0;
  Json workflow;                          // the topology signature (Workflow::signature())
  std::vector<std::string> instantiated;  // sorted executor ids
  std::map<std::string, std::vector<Envelope>> queued;          // receiver -> FIFO
  std::vector<PendingRequest> outstanding;                      // in registration order
  std::map<std::string, std::map<std::string, Json>> state;     // scope -> key -> value
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

// The sealed canonical document.
std::string EncodeCheckpoint(const Checkpoint& c);
Result<Checkpoint> DecodeCheckpoint(std::string_view bytes);

}  // namespace stepfault
