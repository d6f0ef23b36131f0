// Progress: the command line's progress display for long explorations.
//
// On a terminal it redraws one line in place ("\r") with a bar, the counts and an ETA, at most
// every kRedrawIntervalMicros; on a pipe or CI log it prints a plain line at most every 10%
// ("explore: 40/100 cells"); with quiet it prints nothing. It only ever writes to `out`: it never
// reaches results or reports, which is why it alone may read a real monotonic clock. The clock is
// injected (`now_micros`, default SteadyNowMicros) so tests drive it deterministically.
// Thread-safety: not thread-safe; call from the thread that runs the exploration loop.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace stepfault::cli {

// Microseconds from the steady (monotonic) clock. Display only: never use it for results.
int64_t SteadyNowMicros();

class Progress {
 public:
  using NowMicros = std::function<int64_t()>;
  static constexpr int64_t kRedrawIntervalMicros = 100'000;

  // REQUIRES: out != nullptr (unless quiet); total >= 0. `label` starts each line ("explore").
  Progress(std::FILE* out, bool is_tty, bool quiet, std::string label, int64_t total,
           NowMicros now_micros = SteadyNowMicros);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // The word after the counts; "cells" unless set.
  void set_unit(std::string unit) { unit_ = std::move(unit); }

  // Records n more items done. REQUIRES: n >= 0; not after Finish().
  void Advance(int64_t n = 1);
  // What the current (unfinished) item is doing, shown after the counts ("fan-in: level 2, 40/100
  // cells"), and how far it is (0..1): the bar and the ETA count done() + within, so a run of few
  // long items still moves and its ETA comes from the whole run's rate. A pipe gets a line when
  // the whole run passes another 10%. Does not change done(). REQUIRES: not after Finish().
  void SetCurrent(std::string detail, double within);
  // Draws the final state and ends the line. Idempotent.
  void Finish();

  int64_t done() const { return done_; }
  int64_t total() const { return total_; }

 private:
  void DrawBar(bool final);
  void PrintLine();
  void Show();  // after a change: redraw (terminal, rate-limited) or a line per 10% (pipe)
  double Fraction() const;  // (done + within) / total, at most 1
  std::string Eta(int64_t now) const;

  std::FILE* out_;
  bool is_tty_, quiet_;
  std::string label_, unit_ = "cells";
  int64_t total_, done_ = 0;
  std::string detail_;  // the current item's words (SetCurrent); empty: none
  double within_ = 0;   // the current item's fraction done, in [0, 1)
  NowMicros now_micros_;
  int64_t start_micros_, last_draw_micros_;
  int last_decile_ = 0;        // non-TTY: the last 10% step printed
  int64_t last_printed_ = -1;  // non-TTY: the count in the last line printed
  size_t last_width_ = 0;      // TTY: length of the line on screen, to blank a shorter redraw
  bool finished_ = false;
};

}  // namespace stepfault::cli
