// CRC32C (reflected polynomial 0x82F63B78): SSE4.2 instruction (three lanes on long buffers) with a
// slicing-by-8 fallback.
#include "engine/crc32c.h"

#include <array>
#include <cstdio>
#include <cstring>

namespace stepfault {
namespace {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

// tables[0] is the classic byte table; tables[k][b] is the CRC of byte b followed by k zero bytes,
// which lets the portable loop fold 8 bytes per iteration.
constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int k = 1; k < 8; ++k) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFF];
  }
  return t;
}
constexpr Tables kTables = MakeTables();

uint32_t ExtendRawPortable(uint32_t crc, const unsigned char* p, size_t n) {
  while (n >= 8) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);  // little-endian load; the tables assume it (checked below)
    std::memcpy(&hi, p + 4, 4);
    lo ^= crc;
    crc = kTables[7][lo & 0xFF] ^ kTables[6][(lo >> 8) & 0xFF] ^ kTables[5][(lo >> 16) & 0xFF] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xFF] ^ kTables[2][(hi >> 8) & 0xFF] ^
          kTables[1][(hi >> 16) & 0xFF] ^ kTables[0][hi >> 24];
    p += 8;
    n -= 8;
  }
  while (n-- > 0) crc = kTables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return crc;
}

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the slicing-by-8 loop loads words little-endian");

// a * b modulo the CRC32C polynomial, both bit-reflected as the CRC register holds them (bit
// 31 - k is the coefficient of x^k).
constexpr uint32_t MultiplyModPoly(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
    if ((a & bit) != 0) product ^= b;
    b = (b & 1) != 0 ? (b >> 1) ^ 0x82F63B78u : b >> 1;  // b * x
  }
  return product;
}

// x^(8 n) modulo the polynomial (reflected): what feeding n zero bytes does to a raw CRC register.
constexpr uint32_t ZeroBytesOperator(uint64_t n) {
  uint32_t result = 1u << 31;  // x^0
  uint32_t power = 1u << 23;   // x^8
  for (; n != 0; n >>= 1) {
    if ((n & 1) != 0) result = MultiplyModPoly(power, result);
    power = MultiplyModPoly(power, power);
  }
  return result;
}

#if defined(__x86_64__)
// The `crc32` instruction takes 3 cycles of latency and issues one per cycle, so one dependent
// chain runs at a third of the unit's throughput. Long buffers are therefore cut into rounds of
// three equal lanes of kLaneBytes, CRCed as three independent chains in one loop and joined by
// shifting the first two over the bytes after them (a raw CRC register is linear: feeding it
// zero bytes multiplies it by x^(8 n)), two carry-less multiplications per round by constants.
constexpr size_t kLaneBytes = 4096;
constexpr uint32_t kShiftOneLane = ZeroBytesOperator(kLaneBytes);
constexpr uint32_t kShiftTwoLanes = ZeroBytesOperator(2 * kLaneBytes);

__attribute__((target("sse4.2"))) uint64_t ThreeLanes(uint64_t c, const unsigned char* p) {
  uint64_t c1 = 0, c2 = 0;
  for (size_t i = 0; i < kLaneBytes; i += 8) {
    uint64_t w0, w1, w2;
    std::memcpy(&w0, p + i, 8);
    std::memcpy(&w1, p + kLaneBytes + i, 8);
    std::memcpy(&w2, p + 2 * kLaneBytes + i, 8);
    c = __builtin_ia32_crc32di(c, w0);
    c1 = __builtin_ia32_crc32di(c1, w1);
    c2 = __builtin_ia32_crc32di(c2, w2);
  }
  return MultiplyModPoly(kShiftTwoLanes, static_cast<uint32_t>(c)) ^
         MultiplyModPoly(kShiftOneLane, static_cast<uint32_t>(c1)) ^ static_cast<uint32_t>(c2);
}

__attribute__((target("sse4.2"))) uint32_t ExtendRawHardware(uint32_t crc, const unsigned char* p,
                                                             size_t n) {
  uint64_t c = crc;
  // Unaligned head, then three lanes per round, then 8 bytes per instruction, then the tail.
  while (n > 0 && (reinterpret_cast<uintptr_t>(p) & 7) != 0) {
    c = __builtin_ia32_crc32qi(static_cast<uint32_t>(c), *p++);
    --n;
  }
  while (n >= 3 * kLaneBytes) {
    c = ThreeLanes(c, p);
    p += 3 * kLaneBytes;
    n -= 3 * kLaneBytes;
  }
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = __builtin_ia32_crc32di(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n-- > 0) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
bool DetectHardware() { return __builtin_cpu_supports("sse4.2"); }
#else
uint32_t ExtendRawHardware(uint32_t crc, const unsigned char*, size_t) { return crc; }
bool DetectHardware() { return false; }
#endif

const bool kHardware = DetectHardware();

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

bool Crc32cHardwareAvailable() { return kHardware; }

uint32_t Crc32cExtendPortable(uint32_t crc, std::string_view data) {
  return ExtendRawPortable(crc ^ 0xFFFFFFFFu, Bytes(data), data.size()) ^ 0xFFFFFFFFu;
}

bool Crc32cExtendHardware(uint32_t* crc, std::string_view data) {
  if (!kHardware) return false;
  *crc = ExtendRawHardware(*crc ^ 0xFFFFFFFFu, Bytes(data), data.size()) ^ 0xFFFFFFFFu;
  return true;
}

uint32_t Crc32cExtend(uint32_t crc, std::string_view data) {
  if (Crc32cExtendHardware(&crc, data)) return crc;
  return Crc32cExtendPortable(crc, data);
}

uint32_t Crc32c(std::string_view data) { return Crc32cExtend(0, data); }

uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  // Crc32c(a + b) = Crc32c(a) * x^(8 len_b) + Crc32c(b) (mod the polynomial): the pre- and
  // post-conditioning of the two CRCs cancel.
  return MultiplyModPoly(ZeroBytesOperator(len_b), crc_a) ^ crc_b;
}

std::string Crc32cTagOf(uint32_t crc) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", crc);
  return std::string("crc32c:") + buf;
}

std::string Crc32cTag(std::string_view data) { return Crc32cTagOf(Crc32c(data)); }

}  // namespace stepfault
