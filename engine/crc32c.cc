// Table-driven CRC32C (reflected polynomial 0x82F63B78).
#include "engine/crc32c.h"

#include <array>
#include <cstdio>

namespace stepfault {
namespace {
constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kTable = MakeTable();
}  // namespace

uint32_t Crc32c(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : data) crc = kTable[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

std::string Crc32cTag(std::string_view data) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", Crc32c(data));
  return std::string("crc32c:") + buf;
}

}  // namespace stepfault
