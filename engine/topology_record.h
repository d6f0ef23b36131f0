// Topology records: a workflow's topology signature (Workflow::signature()) stored once per
// session in the checkpoint store, content-addressed, instead of inline in every checkpoint
// (issue 27; a deliberate deviation from MAF, docs/engine-semantics.md section 10).
//
// A checkpoint written by a StoreCheckpointManager over a store that SupportsRecords() holds
// "workflow_ref":"topology-<32 hex>" in its body instead of "workflow":{...}; the key is
// TopologyRecordKey of the signature: DeriveId (engine/random.h: two seeded 64-bit FNV-1a hashes
// folded through SplitMix64, 128 bits) of the signature's canonical JSON dump, under the fixed seed
// kTopologyRecordSeed. Encoded record (EncodeTopologyRecord), sealed like a checkpoint:
//   stepfault.topology v1 <signature bytes>\n     header line
//   <canonical JSON of the signature>\n           one line
//   crc32c:<8 hex>\n                              CRC32C of every byte before this line
// DecodeTopologyRecord checks the header, the length, the seal, the JSON, the signature's shape
// (ValidateWorkflowSignature) and that the signature's digest is the key it was fetched under, so a
// damaged, truncated or misfiled record is kCorruption, never a crash and never a wrong topology.
// The stores never prune a record (engine/store_prune.h): it is shared by every checkpoint of the
// topology, in any session. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/message.h"
#include "engine/status.h"

namespace stepfault {

inline constexpr uint64_t kTopologyRecordSeed = 0x746f706f6c6f6779ULL;  // "topology"
inline constexpr std::string_view kTopologyRecordPrefix = "topology-";

// "topology-<32 hex>" for `signature` (its canonical dump, Json::dump()).
std::string TopologyRecordKey(const Json& signature);
// True for a string of the shape TopologyRecordKey returns.
bool IsTopologyRecordKey(std::string_view key);
// The record bytes for `signature` (deterministic).
std::string EncodeTopologyRecord(const Json& signature);
// The signature `bytes` hold, verified to be the one `key` names; kCorruption naming what is
// wrong otherwise.
Result<Json> DecodeTopologyRecord(std::string_view bytes, std::string_view key);

}  // namespace stepfault
