// FormatUtc: civil-from-days conversion (Howard Hinnant's algorithm), no libc time calls.
#include "engine/clock.h"

#include <cstdio>

namespace stepfault {

std::string FormatUtc(int64_t micros) {
  int64_t secs = micros / 1000000;
  int64_t ms = (micros / 1000) % 1000;
  int64_t days = secs / 86400;
  int64_t rem = secs % 86400;
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) ++y;
  char buf[128];
  std::snprintf(buf, sizeof(buf), "%04lld-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(y), static_cast<long long>(m), static_cast<long long>(d),
                static_cast<long long>(rem / 3600), static_cast<long long>((rem / 60) % 60),
                static_cast<long long>(rem % 60), static_cast<long long>(ms));
  return buf;
}

}  // namespace stepfault
