// Goal: the progress display prints what each mode promises and nothing more: a throttled,
// redrawn bar with an ETA on a terminal, a line per 10% on a pipe, silence when quiet. Method:
// write into an in-memory FILE (open_memstream) and drive time with a fake clock, so the ETA and
// the throttling are exact.
#include "tools/cli/progress.h"

#include <gtest/gtest.h>
#include <stdio.h>

#include <cstdlib>

#include "engine/status.h"

namespace stepfault::cli {
namespace {

// An in-memory FILE whose contents can be read at any time.
class MemoryFile {
 public:
  MemoryFile() : file_(open_memstream(&buf_, &len_)) { SF_CHECK(file_ != nullptr); }
  ~MemoryFile() {
    std::fclose(file_);
    std::free(buf_);
  }
  std::FILE* get() { return file_; }
  std::string text() {
    std::fflush(file_);
    return std::string(buf_, len_);
  }

 private:
  char* buf_ = nullptr;
  size_t len_ = 0;
  std::FILE* file_;
};

int Count(const std::string& text, const std::string& needle) {
  int n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

TEST(ProgressTest, QuietPrintsNothing) {
  MemoryFile out;
  int64_t now = 0;
  Progress p(out.get(), /*is_tty=*/true, /*quiet=*/true, "explore", 10,
             [&] { return now += 1'000'000; });
  for (int i = 0; i < 10; ++i) p.Advance();
  p.Finish();
  EXPECT_EQ(out.text(), "");
  EXPECT_EQ(p.done(), 10);
}

TEST(ProgressTest, PipePrintsOneLinePerTenPercent) {
  MemoryFile out;
  Progress p(out.get(), /*is_tty=*/false, /*quiet=*/false, "explore", 100,
             [] { return int64_t{0}; });
  for (int i = 0; i < 100; ++i) p.Advance();
  p.Finish();
  std::string expected;
  for (int i = 10; i <= 100; i += 10) expected += "explore: " + std::to_string(i) + "/100 cells\n";
  EXPECT_EQ(out.text(), expected);
}

TEST(ProgressTest, PipePrintsOnceForABigJumpAndTheFinalCountAtFinish) {
  MemoryFile out;
  Progress p(out.get(), /*is_tty=*/false, /*quiet=*/false, "check", 200, [] { return int64_t{0}; });
  p.set_unit("plans");
  p.Advance(19);  // below 10%: silent
  p.Advance(81);  // 50%: one line, not five
  p.Advance(3);
  p.Finish();
  p.Finish();
  EXPECT_EQ(out.text(), "check: 100/200 plans\ncheck: 103/200 plans\n");
}

TEST(ProgressTest, TerminalRedrawsInPlaceWithAnEtaFromTheInjectedClock) {
  MemoryFile out;
  int64_t now = 0;
  Progress p(out.get(), /*is_tty=*/true, /*quiet=*/false, "explore", 100, [&] { return now; });
  now = 4'000'000;  // 40 cells in 4 s: 60 more take 6 s
  p.Advance(40);
  std::string first = out.text();
  EXPECT_EQ(first, "\rexplore [############------------------] 40/100 cells  40%  ETA 6s");
  now += 10;  // within the redraw interval: no redraw, however many advances
  for (int i = 0; i < 50; ++i) p.Advance();
  EXPECT_EQ(out.text(), first);
  now = 9'000'000;  // 91 done in 9 s; 9 more take ~0.9 s
  p.Advance();
  EXPECT_EQ(Count(out.text(), "\r"), 2);
  EXPECT_NE(out.text().find("91/100 cells  91%  ETA 1s"), std::string::npos) << out.text();
  now = 125'000'000;
  p.Advance(9);  // reaching the total always redraws
  p.Finish();
  std::string text = out.text();
  EXPECT_EQ(Count(text, "\r"), 4);
  EXPECT_EQ(text.substr(text.rfind('\r')),
            "\rexplore [##############################] 100/100 cells 100%  done in 2m05s\n");
}

// Issue 30: one count over the whole run (variants), the current one named with its own count,
// and the ETA from the whole run's rate, however few and long the items are.
TEST(ProgressTest, FewLongItemsMoveTheWholeRunsCountAndEtaThroughTheirCurrentFraction) {
  MemoryFile pipe;
  Progress p(pipe.get(), /*is_tty=*/false, /*quiet=*/false, "explore", 4,
             [] { return int64_t{0}; });
  p.set_unit("variants");
  p.SetCurrent("fan-in: 10/100 cells", 0.1);  // 2.5% of the run: silent
  p.SetCurrent("fan-in: 50/100 cells", 0.5);  // 12.5%: the first line
  p.Advance();                                // 25%: the second
  p.SetCurrent("approval: 1/2 cells", 0.5);   // 37.5%: the third
  p.Advance(3);
  p.Finish();
  EXPECT_EQ(pipe.text(),
            "explore: 0/4 variants (fan-in: 50/100 cells)\n"
            "explore: 1/4 variants\n"
            "explore: 1/4 variants (approval: 1/2 cells)\n"
            "explore: 4/4 variants\n");
  MemoryFile tty;
  int64_t now = 0;
  Progress t(tty.get(), /*is_tty=*/true, /*quiet=*/false, "explore", 4, [&] { return now; });
  t.set_unit("variants");
  now = 10'000'000;  // half of the first of four variants in 10 s: 70 s to go
  t.SetCurrent("fan-in: level 2, 50/100 cells", 0.5);
  EXPECT_EQ(tty.text(),
            "\rexplore [###---------------------------] 0/4 variants  12%  ETA 1m10s  fan-in: "
            "level 2, 50/100 cells");
}

TEST(ProgressTest, TerminalBlanksTheTailOfALongerPreviousLine) {
  MemoryFile out;
  int64_t now = 0;
  Progress p(out.get(), /*is_tty=*/true, /*quiet=*/false, "explore", 10, [&] { return now; });
  now = 3'600'000'000;  // 1 cell in an hour: "ETA 9h00m"
  p.Advance();
  now += Progress::kRedrawIntervalMicros;
  p.Advance(9);  // "ETA 0s" is shorter
  std::string text = out.text();
  std::string second = text.substr(text.rfind('\r'));
  EXPECT_EQ(second.size(), text.rfind('\r'));               // same width as the first line
  EXPECT_EQ(second.substr(second.size() - 8), "ETA 0s  ");  // 2 characters shorter, blanked
}

}  // namespace
}  // namespace stepfault::cli
