// Clock: the time seam. Stepfault never reads the wall clock: time is logical, starts at a fixed
// epoch and advances by a fixed tick on every read, so every run with the same inputs sees the
// same timestamps. Thread-safety: LogicalClock is not thread-safe; give each run its own.
#pragma once

#include <cstdint>
#include <string>

namespace stepfault {

class Clock {
 public:
  virtual ~Clock() = default;
  // Microseconds since the Unix epoch.
  virtual int64_t NowMicros() = 0;
};

class LogicalClock final : public Clock {
 public:
  // 2026-01-01T00:00:00Z, advancing 1 ms per read.
  static constexpr int64_t kDefaultStartMicros = 1767225600LL * 1000000LL;
  static constexpr int64_t kDefaultTickMicros = 1000;

  explicit LogicalClock(int64_t start_micros = kDefaultStartMicros,
                        int64_t tick_micros = kDefaultTickMicros)
      : now_micros_(start_micros), tick_micros_(tick_micros) {}
  int64_t NowMicros() override {
    int64_t t = now_micros_;
    now_micros_ += tick_micros_;
    return t;
  }

 private:
  int64_t now_micros_;
  int64_t tick_micros_;
};

// ISO-8601 UTC with milliseconds: "2026-01-01T00:00:00.000Z".
std::string FormatUtc(int64_t micros);

}  // namespace stepfault
