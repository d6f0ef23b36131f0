// CRC32C helpers for the durable stores' commit path: the CRC32C of committed checkpoint bytes
// taken from their own seal instead of a second pass, and the CRC32C of a concatenation from the
// CRCs of its parts.
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
#include <string_view>

namespace stepfault {

// Crc32c(bytes), from the seal of a framed checkpoint when it has one (see above).
uint32_t Crc32cOfCommitted(std::string_view bytes);

// Crc32c(a + b) from crc_a = Crc32c(a), crc_b = Crc32c(b) and b's length, without reading a or b
// (GF(2) arithmetic modulo the CRC32C polynomial: O(log len_b) small multiplications).
uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

}  // namespace stepfault
