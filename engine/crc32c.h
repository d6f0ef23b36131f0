// CRC32C (Castagnoli), the checksum that seals checkpoints, receipts and store files.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepfault {

uint32_t Crc32c(std::string_view data);
// "crc32c:" followed by 8 lowercase hex digits.
std::string Crc32cTag(std::string_view data);

}  // namespace stepfault
