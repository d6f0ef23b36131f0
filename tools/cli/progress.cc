// The progress display (see progress.h).
#include "tools/cli/progress.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "engine/status.h"

namespace stepfault::cli {
namespace {

constexpr int kBarWidth = 30;

std::string FormatSeconds(int64_t seconds) {
  if (seconds < 60) return fmt::format("{}s", seconds);
  if (seconds < 3600) return fmt::format("{}m{:02}s", seconds / 60, seconds % 60);
  return fmt::format("{}h{:02}m", seconds / 3600, seconds % 3600 / 60);
}

}  // namespace

int64_t SteadyNowMicros() {
  // The one monotonic-clock read of the command line: it feeds the ETA on screen and nothing else.
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

Progress::Progress(std::FILE* out, bool is_tty, bool quiet, std::string label, int64_t total,
                   NowMicros now_micros)
    : out_(out),
      is_tty_(is_tty),
      quiet_(quiet),
      label_(std::move(label)),
      total_(total),
      now_micros_(std::move(now_micros)) {
  SF_CHECK(quiet_ || out_ != nullptr);
  SF_CHECK(total_ >= 0);
  SF_CHECK(now_micros_ != nullptr);
  start_micros_ = quiet_ ? 0 : now_micros_();
  last_draw_micros_ = start_micros_ - kRedrawIntervalMicros;
}

void Progress::Advance(int64_t n) {
  SF_CHECK(n >= 0);
  SF_CHECK(!finished_);
  done_ += n;
  if (quiet_) return;
  if (is_tty_) {
    int64_t now = now_micros_();
    if (now - last_draw_micros_ >= kRedrawIntervalMicros || done_ >= total_) {
      last_draw_micros_ = now;
      DrawBar(/*final=*/false);
    }
    return;
  }
  if (total_ == 0) return;
  int decile = static_cast<int>(std::min<int64_t>(done_, total_) * 10 / total_);
  if (decile > last_decile_) {
    last_decile_ = decile;
    PrintLine();
  }
}

void Progress::Finish() {
  if (finished_) return;
  finished_ = true;
  if (quiet_) return;
  if (is_tty_) {
    DrawBar(/*final=*/true);
  } else if (last_printed_ != done_) {
    PrintLine();
  }
}

void Progress::PrintLine() {
  std::fputs(fmt::format("{}: {}/{} {}\n", label_, done_, total_, unit_).c_str(), out_);
  std::fflush(out_);
  last_printed_ = done_;
}

std::string Progress::Eta(int64_t now) const {
  int64_t elapsed = now - start_micros_;
  if (done_ <= 0 || elapsed <= 0) return "ETA --";
  double remaining = static_cast<double>(std::max<int64_t>(total_ - done_, 0)) *
                     static_cast<double>(elapsed) / static_cast<double>(done_);
  return "ETA " + FormatSeconds(static_cast<int64_t>(remaining / 1e6 + 0.5));
}

void Progress::DrawBar(bool final) {
  int64_t now = now_micros_();
  double fraction =
      total_ == 0 ? 1.0 : std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
  int filled = static_cast<int>(fraction * kBarWidth);
  std::string tail =
      final ? "done in " + FormatSeconds((now - start_micros_) / 1'000'000) : Eta(now);
  std::string line = fmt::format("{} [{}{}] {}/{} {} {:3}%  {}", label_, std::string(filled, '#'),
                                 std::string(kBarWidth - filled, '-'), done_, total_, unit_,
                                 static_cast<int>(fraction * 100), tail);
  size_t width = line.size();
  if (width < last_width_) line += std::string(last_width_ - width, ' ');
  last_width_ = width;
  std::fputs(("\r" + line + (final ? "\n" : "")).c_str(), out_);
  std::fflush(out_);
}

}  // namespace stepfault::cli
