// CRC32C (Castagnoli), the checksum that seals checkpoints, receipts and store files.
//
// Crc32c picks, once per process, the SSE4.2 `crc32` instruction when the CPU has it (runtime
// detection on x86-64; other targets always use the portable code) and a portable slicing-by-8
// table otherwise. Both compute the same function (crc32c_test.cc checks them against each other
// on many lengths and alignments). Crc32cExtend continues a CRC over more bytes, so a buffer can be
// sealed piecewise: Crc32cExtend(Crc32c(a), b) == Crc32c(a + b). Crc32cCombine joins two CRCs
// without reading the bytes again. On long buffers the hardware path runs three independent lanes
// and joins them the same way (the instruction's latency is three times its issue interval).
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepfault {

uint32_t Crc32c(std::string_view data);
uint32_t Crc32cExtend(uint32_t crc, std::string_view data);
// "crc32c:" followed by 8 lowercase hex digits.
std::string Crc32cTag(std::string_view data);
std::string Crc32cTagOf(uint32_t crc);
// Crc32c(a + b) from crc_a = Crc32c(a), crc_b = Crc32c(b) and b's length, without reading a or b
// (GF(2) arithmetic modulo the polynomial: O(log len_b) small multiplications).
uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

// The two implementations behind Crc32c, exposed so tests can compare them.
uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view data);
// False when this CPU (or target) has no CRC32C instruction; then *crc is untouched.
bool Crc32cExtendHardware(uint32_t* crc, std::string_view data);
bool Crc32cHardwareAvailable();

}  // namespace stepfault
