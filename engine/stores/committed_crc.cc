// Crc32cOfCommitted.
#include "engine/stores/committed_crc.h"

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

}  // namespace

uint32_t Crc32cOfCommitted(std::string_view bytes) {
  uint32_t seal = 0;
  if (bytes.size() > kTrailerBytes && LooksLikeFramedCheckpoint(bytes) &&
      ParseTrailer(bytes.substr(bytes.size() - kTrailerBytes), &seal)) {
    return Crc32cExtend(seal, bytes.substr(bytes.size() - kTrailerBytes));
  }
  return Crc32c(bytes);
}

}  // namespace stepfault
