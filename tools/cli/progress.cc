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
  if (n > 0) {  // the next item starts from nothing
    detail_.clear();
    within_ = 0;
  }
  Show();
}

void Progress::SetCurrent(std::string detail, double within) {
  SF_CHECK(!finished_);
  detail_ = std::move(detail);
  within_ = std::clamp(within, 0.0, 0.999);
  Show();
}

double Progress::Fraction() const {
  if (total_ == 0) return 1.0;
  return std::min(1.0, (static_cast<double>(done_) + within_) / static_cast<double>(total_));
}

void Progress::Show() {
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
  int decile = static_cast<int>(Fraction() * 10);
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
  const std::string detail = detail_.empty() || done_ >= total_ ? "" : " (" + detail_ + ")";
  std::fputs(fmt::format("{}: {}/{} {}{}\n", label_, done_, total_, unit_, detail).c_str(), out_);
  std::fflush(out_);
  last_printed_ = done_;
}

std::string Progress::Eta(int64_t now) const {
  int64_t elapsed = now - start_micros_;
  const double fraction = Fraction();
  if (fraction <= 0 || elapsed <= 0) return "ETA --";
  double remaining = (1.0 - fraction) * static_cast<double>(elapsed) / fraction;
  return "ETA " + FormatSeconds(static_cast<int64_t>(remaining / 1e6 + 0.5));
}

void Progress::DrawBar(bool final) {
  int64_t now = now_micros_();
  double fraction = Fraction();
  int filled = static_cast<int>(fraction * kBarWidth);
  std::string tail =
      final ? "done in " + FormatSeconds((now - start_micros_) / 1'000'000) : Eta(now);
  if (!final && !detail_.empty()) tail += "  " + detail_;
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
