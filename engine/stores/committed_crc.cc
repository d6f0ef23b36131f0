// Crc32cOfCommitted and Crc32cOfCommittedParts.
#include "engine/stores/committed_crc.h"

#include <algorithm>
#include <string>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"

namespace stepfault {
namespace {

constexpr std::string_view kTrailerTag = "crc32c:";
constexpr size_t kTrailerBytes = 16;  // "crc32c:" + 8 lowercase hex + "\n"

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

// The first `n` bytes of the parts' concatenation (fewer when it is shorter).
std::string Prefix(std::span<const std::string_view> parts, size_t n) {
  std::string out;
  for (std::string_view p : parts) {
    if (out.size() >= n) break;
    out.append(p.substr(0, n - out.size()));
  }
  return out;
}

// The last `n` bytes of the parts' concatenation (fewer when it is shorter).
std::string Suffix(std::span<const std::string_view> parts, size_t n) {
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend() && out.size() < n; ++it) {
    const size_t take = std::min(n - out.size(), it->size());
    out.insert(0, it->substr(it->size() - take));
  }
  return out;
}

}  // namespace

uint32_t Crc32cOfCommittedParts(std::span<const std::string_view> parts) {
  if (parts.size() == 1) return Crc32cOfCommitted(parts[0]);
  size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  uint32_t seal = 0;
  const std::string trailer = Suffix(parts, kTrailerBytes);
  if (total > kTrailerBytes && LooksLikeFramedCheckpoint(Prefix(parts, 64)) &&
      ParseTrailer(trailer, &seal)) {
    return Crc32cExtend(seal, trailer);
  }
  uint32_t crc = Crc32c(std::string_view());
  for (std::string_view p : parts) crc = Crc32cExtend(crc, p);
  return crc;
}

uint32_t Crc32cOfCommitted(std::string_view bytes) {
  uint32_t seal = 0;
  if (bytes.size() > kTrailerBytes && LooksLikeFramedCheckpoint(bytes) &&
      ParseTrailer(bytes.substr(bytes.size() - kTrailerBytes), &seal)) {
    return Crc32cExtend(seal, bytes.substr(bytes.size() - kTrailerBytes));
  }
  return Crc32c(bytes);
}

}  // namespace stepfault
