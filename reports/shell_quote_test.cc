// Goal: ShellQuote makes one shell word that the shell turns back into exactly the text, so a
// printed replay command can be pasted safely whatever a path or parameter contains.
// Method: quote hostile texts (spaces, both quotes, $(), backticks, newlines, globs, empty), run
// `/bin/sh -c 'printf %s WORD'` and compare its output byte for byte; a `$()` that ran would
// change the output (and create a marker file, which must not exist).
#include "reports/shell_quote.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>

namespace stepfault::reports {
namespace {

std::string ThroughShell(const std::string& word) {
  const std::string cmd = "printf %s " + word;
  FILE* p = ::popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  ::pclose(p);
  return out;
}

TEST(ShellQuoteTest, EveryHostileTextSurvivesTheShellUnchanged) {
  const std::string marker =
      (std::filesystem::temp_directory_path() / ("sf_quote_" + std::to_string(::getpid())))
          .string();
  const std::vector<std::string> texts = {"plain",
                                          "with space",
                                          "it's",
                                          "say \"hi\"",
                                          "$(touch " + marker + ")",
                                          "`touch " + marker + "`",
                                          "line1\nline2",
                                          "*.json",
                                          "a;b|c&d>e<f",
                                          "{\"width\":4}",
                                          "none;crash@effect.commit.after#1",
                                          "fs.fsync[db]#1",
                                          "~",
                                          "=x",
                                          "\\back\\slash"};
  for (const std::string& t : texts) {
    EXPECT_EQ(ThroughShell(ShellQuote(t)), t) << "quoted as " << ShellQuote(t);
  }
  EXPECT_FALSE(std::filesystem::exists(marker)) << "a quoted $() or backtick ran";
}

TEST(ShellQuoteTest, SafeWordsStayReadableAndTheEmptyWordIsKept) {
  EXPECT_EQ(ShellQuote("scenarios/json/examples/review-pipeline.json"),
            "scenarios/json/examples/review-pipeline.json");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellJoin({"stepfault", "replay", "my file.json"}), "stepfault replay 'my file.json'");
}

}  // namespace
}  // namespace stepfault::reports
