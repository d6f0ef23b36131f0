// libFuzzer target: the black-box trace reader (faults/blackbox/trace.h) and the crash-state
// builder that consumes what it accepts (faults/blackbox/crash_state.h).
// Promises under test: any bytes give a trace or a typed error, never a crash, a hang or an
// allocation beyond the reader's bounds; every accepted trace yields its windows and builds every
// crash, power-loss and reorder state without a crash.
// Method: two modes on the first byte. Raw mode parses the input as a trace file. Framed mode
// treats the rest as record bodies separated by the byte 0x1e and frames each with a correct length
// and CRC32C (FrameRecord's framing), so mutations reach the body parser and the crash model
// instead of stopping at the checksum. Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "engine/crc32c.h"
#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"

namespace {

namespace bb = stepfault::faults::blackbox;

std::string Framed(std::string_view bodies) {
  std::string out = bb::kTraceHeader;
  size_t at = 0;
  while (at <= bodies.size()) {
    size_t end = bodies.find('\x1e', at);
    if (end == std::string_view::npos) end = bodies.size();
    const std::string_view body = bodies.substr(at, end - at);
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", stepfault::Crc32c(body));
    out += "R " + std::to_string(body.size()) + " " + crc + "\n";
    out.append(body);
    at = end + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string text = (data[0] & 1) ? Framed(rest) : std::string(rest);
  auto trace = bb::ParseTrace(text);
  if (!trace.ok()) return 0;
  (void)bb::IncompleteReasons(*trace);
  (void)bb::VolatileFiles(*trace);
  (void)bb::VolatilePatterns(*trace);
  const std::vector<bb::TraceWindow> windows = bb::WindowsOf(*trace);
  // The reader bounds every file to kMaxTraceFileBytes (1 GiB); states of files that large are
  // legal but exceed the fuzzer's memory limit, so only traces of files up to 1 MiB are built.
  for (const bb::TraceRecord& r : trace->records) {
    if (r.Int("off") + r.Int("size") + static_cast<int64_t>(r.data.size()) > (1 << 20)) return 0;
  }
  bb::CrashState initial;
  initial.nodes["state.json"] = {bb::StateNode::kFile, "{}"};
  initial.nodes["sub"] = {bb::StateNode::kDir, ""};
  for (size_t i = 0; i <= windows.size() && i < 16; ++i) {
    const size_t upto = i < windows.size() ? windows[i].record : trace->records.size();
    for (bb::CrashKind kind :
         {bb::CrashKind::kCrash, bb::CrashKind::kPowerLoss, bb::CrashKind::kReorder}) {
      (void)bb::BuildCrashState(initial, *trace, upto, kind, /*seed=*/i).Digest();
      if (kind == bb::CrashKind::kPowerLoss)
        (void)bb::BuildCrashState(initial, *trace, upto, kind, i, /*kept_sectors=*/0).Digest();
    }
  }
  return 0;
}
