// The CRC32C of committed checkpoint bytes taken from their own seal instead of a second pass (the
// durable stores' commit path; joining CRCs of parts is Crc32cCombine in engine/crc32c.h).
//
// A framed checkpoint (engine/checkpoint.h, versions 2 and 3) ends with a 16-byte trailer
// "crc32c:<8 hex>\n" sealing every byte before it, so the CRC32C of the whole is that seal
// extended over the trailer: 16 bytes of work instead of a pass over megabytes. The seal is taken
// as written, not verified (verifying it is the pass this saves): if the bytes do not match their
// own seal, the CRC a store records for them is not theirs either, so the store's own check (the
// file store's header seal, the SQLite row seal) reports the checkpoint damaged on every read, as
// DecodeCheckpoint would. Bytes that are not framed, or whose trailer is not well formed, get the
// full pass.
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace stepfault {

// Crc32c(bytes), from the seal of a framed checkpoint when it has one (see above).
uint32_t Crc32cOfCommitted(std::string_view bytes);
// The same for the concatenation of `parts` (a checkpoint handed over as parts, however split):
// equal to Crc32cOfCommitted of the joined bytes, without joining them.
uint32_t Crc32cOfCommittedParts(std::span<const std::string_view> parts);

}  // namespace stepfault
