// Crc32cOfCommitted and Crc32cCombine.
#include "engine/stores/committed_crc.h"

#include "engine/checkpoint.h"
#include "engine/crc32c.h"

namespace stepfault {
namespace {

constexpr std::string_view kTrailerTag = "crc32c:";
constexpr size_t kTrailerBytes = 16;  // "crc32c:" + 8 lowercase hex + "\n"
// CRC32C's polynomial, bit-reflected (as the CRC is computed): bit 31 - k holds x^k.
constexpr uint32_t kReflectedPoly = 0x82f63b78;

// The seal in a trailer "crc32c:<8 lowercase hex>\n", or false when it is not one.
bool ParseTrailer(std::string_view trailer, uint32_t* seal) {
  if (trailer.size() != kTrailerBytes || !trailer.starts_with(kTrailerTag) ||
      trailer.back() != '\n') {
    return false;
  }
  uint32_t value = 0;
  for (char c : trailer.substr(kTrailerTag.size(), 8)) {
    uint32_t digit;
    if (c >= '0' && c <= '9') {
      digit = static_cast<uint32_t>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      digit = static_cast<uint32_t>(c - 'a' + 10);
    } else {
      return false;
    }
    value = (value << 4) | digit;
  }
  *seal = value;
  return true;
}

// a * b modulo the polynomial, both reflected.
uint32_t MultiplyModPoly(uint32_t a, uint32_t b) {
  uint32_t product = 0;
  for (uint32_t bit = 1u << 31; bit != 0; bit >>= 1) {
    if ((a & bit) != 0) product ^= b;
    b = (b & 1) != 0 ? (b >> 1) ^ kReflectedPoly : b >> 1;  // b * x
  }
  return product;
}

}  // namespace

uint32_t Crc32cOfCommitted(std::string_view bytes) {
  uint32_t seal = 0;
  if (bytes.size() > kTrailerBytes && LooksLikeFramedCheckpoint(bytes) &&
      ParseTrailer(bytes.substr(bytes.size() - kTrailerBytes), &seal)) {
    return Crc32cExtend(seal, bytes.substr(bytes.size() - kTrailerBytes));
  }
  return Crc32c(bytes);
}

uint32_t Crc32cCombine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b) {
  // Crc32c(a + b) = Crc32c(a) * x^(8 len_b) + Crc32c(b) (mod the polynomial): the pre- and
  // post-conditioning of the two CRCs cancel. x^(8 len_b) by square-and-multiply.
  uint32_t shift = 1u << 31;  // x^0
  uint32_t power = 1u << 23;  // x^8, one byte
  for (uint64_t n = len_b; n != 0; n >>= 1) {
    if ((n & 1) != 0) shift = MultiplyModPoly(power, shift);
    power = MultiplyModPoly(power, power);
  }
  return MultiplyModPoly(shift, crc_a) ^ crc_b;
}

}  // namespace stepfault
