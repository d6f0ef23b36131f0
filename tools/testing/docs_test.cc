// Goal: the documentation cannot drift from the tree. Every relative link and #anchor in README.md,
// docs/*.md and tools/bench/README.md resolves (the file exists; the anchor is a heading of that
// file under GitHub's slug rule); README.md stays a guide of at most 380 lines; the invariant
// tables of README.md, docs/invariants.md and docs/design.md list exactly the registered
// invariants; and the exit-code lists of README.md, docs/cli.md and docs/design.md match
// scenarios/exit_codes.h.
// Method: read the files from the source tree (STEPFAULT_SOURCE_DIR) and compare them with the
// registries linked into this binary. The checkers are also run on small documents written for the
// purpose, so that a checker that finds nothing cannot pass unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "scenarios/exit_codes.h"
#include "scenarios/invariants.h"

namespace stepfault {
namespace {

namespace fs = std::filesystem;

fs::path SourceRoot() {
  const char* env = std::getenv("STEPFAULT_SOURCE_DIR");
  return env != nullptr ? fs::path(env) : fs::path(".");
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The lines of a Markdown document outside fenced code blocks (``` ... ```), where neither
// headings nor links count.
std::vector<std::string> ProseLines(const std::string& text) {
  std::vector<std::string> prose;
  bool in_fence = false;
  for (const std::string& line : Lines(text)) {
    const size_t start = line.find_first_not_of(' ');
    if (start != std::string::npos && line.compare(start, 3, "```") == 0) {
      in_fence = !in_fence;
      continue;
    }
    if (!in_fence) prose.push_back(line);
  }
  return prose;
}

// GitHub's anchor for a heading: lower case; every character that is not a letter, a digit, a
// space, '-' or '_' dropped; each space a '-'. Characters outside ASCII are dropped too: the
// docs' headings use only punctuation (an em dash, an arrow) there.
std::string GitHubSlug(const std::string& heading) {
  std::string slug;
  for (unsigned char c : heading) {
    if (c >= 0x80) continue;
    if (std::isalnum(c) != 0) {
      slug += static_cast<char>(std::tolower(c));
    } else if (c == ' ') {
      slug += '-';
    } else if (c == '-' || c == '_') {
      slug += static_cast<char>(c);
    }
  }
  return slug;
}

// Every anchor a document defines: its headings' slugs, a repeated slug numbered -1, -2, ... as
// GitHub does.
std::set<std::string> Anchors(const std::string& text) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  static const std::regex kHeading(R"(^#{1,6}\s+(.*?)\s*#*\s*$)");
  for (const std::string& line : ProseLines(text)) {
    std::smatch m;
    if (!std::regex_match(line, m, kHeading)) continue;
    const std::string slug = GitHubSlug(m[1].str());
    const int n = seen[slug]++;
    anchors.insert(n == 0 ? slug : slug + "-" + std::to_string(n));
  }
  return anchors;
}

struct LinkCheck {
  int links = 0;                      // relative links checked
  std::vector<std::string> problems;  // "file: target: what is wrong"
};

// Checks every relative link of `doc` (a path under `root`): the target exists, and an anchor
// names a heading of the target (or of `doc` itself for "#anchor").
void CheckLinks(const fs::path& root, const fs::path& doc, LinkCheck* check) {
  static const std::regex kLink(R"(\]\(([^)\s]+)(\s+"[^"]*")?\))");
  const std::string text = ReadFile(root / doc);
  for (const std::string& line : ProseLines(text)) {
    for (std::sregex_iterator it(line.begin(), line.end(), kLink), end; it != end; ++it) {
      const std::string target = (*it)[1].str();
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      ++check->links;
      const size_t hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const std::string anchor = hash == std::string::npos ? "" : target.substr(hash + 1);
      const fs::path file = path.empty() ? root / doc : (root / doc).parent_path() / path;
      const std::string where = doc.string() + ": " + target + ": ";
      if (!fs::exists(file)) {
        check->problems.push_back(where + "no such file");
        continue;
      }
      if (anchor.empty()) continue;
      if (file.extension() != ".md") {
        check->problems.push_back(where + "an anchor into a file that is not Markdown");
      } else if (Anchors(ReadFile(file)).count(anchor) == 0) {
        check->problems.push_back(where + "no heading has this anchor");
      }
    }
  }
}

std::vector<fs::path> CheckedDocuments() {
  std::vector<fs::path> docs = {"README.md", "tools/bench/README.md"};
  for (const auto& e : fs::directory_iterator(SourceRoot() / "docs")) {
    if (e.path().extension() == ".md") docs.push_back(fs::path("docs") / e.path().filename());
  }
  std::sort(docs.begin() + 2, docs.end());
  return docs;
}

// The capture groups of `re`'s first match in each prose line of `text` that has one.
std::vector<std::vector<std::string>> ProseMatches(const std::string& text, const std::regex& re) {
  std::vector<std::vector<std::string>> found;
  for (const std::string& line : ProseLines(text)) {
    std::smatch m;
    if (!std::regex_search(line, m, re)) continue;
    found.emplace_back(m.begin() + 1, m.end());
  }
  return found;
}

// The ids of the rows "| INV-... |" of a document's tables, with how often each appears.
std::map<std::string, int> InvariantRows(const std::string& text) {
  static const std::regex kRow(R"(^\|\s*(INV-[A-Z0-9-]+)\s*\|)");
  std::map<std::string, int> rows;
  for (const auto& groups : ProseMatches(text, kRow)) ++rows[groups[0]];
  return rows;
}

// The exit codes a document lists, name -> code, from table rows "| 0 | `kExitOk` |" and list
// items "- 0 `kExitOk`".
std::map<std::string, int> DocumentedExitCodes(const std::string& text) {
  static const std::regex kEntry(R"(^(?:\|\s*|-\s+)([0-9]+)\s*(?:\|\s*)?`(kExit[A-Za-z]+)`)");
  std::map<std::string, int> codes;
  for (const auto& groups : ProseMatches(text, kEntry)) codes[groups[1]] = std::stoi(groups[0]);
  return codes;
}

// The codes scenarios/exit_codes.h defines, read from its text.
std::map<std::string, int> HeaderExitCodes() {
  std::map<std::string, int> codes;
  static const std::regex kConst(R"(inline constexpr int (kExit[A-Za-z]+) = ([0-9]+);)");
  const std::string text = ReadFile(SourceRoot() / "scenarios/exit_codes.h");
  for (std::sregex_iterator it(text.begin(), text.end(), kConst), end; it != end; ++it) {
    codes[(*it)[1].str()] = std::stoi((*it)[2].str());
  }
  return codes;
}

TEST(DocsTest, GitHubSlugFollowsGitHubsRule) {
  EXPECT_EQ(GitHubSlug("The reports (`--out DIR`)"), "the-reports---out-dir");
  EXPECT_EQ(GitHubSlug("10. Stepfault's engine: deliberate deviations from MAF"),
            "10-stepfaults-engine-deliberate-deviations-from-maf");
  EXPECT_EQ(GitHubSlug("Stepfault \xe2\x80\x94 design"), "stepfault--design");
  EXPECT_EQ(GitHubSlug("Size of JSON scenarios (issue 16 item 10)"),
            "size-of-json-scenarios-issue-16-item-10");
  EXPECT_EQ(Anchors("# A\n```\n# not a heading\n```\n## A\n"), (std::set<std::string>{"a", "a-1"}));
}

TEST(DocsTest, TheLinkCheckerFindsAMissingFileAndAMissingAnchor) {
  const fs::path root = fs::path(::testing::TempDir()) / "docs_test_links";
  fs::remove_all(root);
  fs::create_directories(root / "docs");
  std::ofstream(root / "docs/a.md") << "# Title\n\n## Present part\n";
  std::ofstream(root / "README.md")
      << "[ok](docs/a.md) [ok](docs/a.md#present-part) [ok](#top) [web](https://x.example/y)\n"
         "[gone](docs/b.md) [bad anchor](docs/a.md#absent-part)\n"
         "```\n[in code](docs/c.md)\n```\n# Top\n";
  LinkCheck check;
  CheckLinks(root, "README.md", &check);
  EXPECT_EQ(check.links, 5);
  EXPECT_THAT(check.problems, ::testing::ElementsAre(
                                  "README.md: docs/b.md: no such file",
                                  "README.md: docs/a.md#absent-part: no heading has this anchor"));
  fs::remove_all(root);
}

TEST(DocsTest, EveryRelativeLinkAndAnchorResolves) {
  LinkCheck check;
  const std::vector<fs::path> docs = CheckedDocuments();
  ASSERT_GE(docs.size(), 10u);
  for (const fs::path& doc : docs) CheckLinks(SourceRoot(), doc, &check);
  EXPECT_GE(check.links, 50) << "the checker found too few links to be reading the documents";
  EXPECT_THAT(check.problems, ::testing::IsEmpty());
}

TEST(DocsTest, ReadmeIsAGuideOfAtMost400Lines) {
  const std::vector<std::string> lines = Lines(ReadFile(SourceRoot() / "README.md"));
  EXPECT_GT(lines.size(), 50u) << "README.md is missing or empty";
  EXPECT_LE(lines.size(), 380u) << "README.md is a guide; move reference text into docs/";
}

TEST(DocsTest, InvariantTablesListExactlyTheRegistry) {
  std::set<std::string> registered;
  for (const scenarios::InvariantInfo& info : scenarios::AllInvariants()) {
    registered.insert(info.id);
  }
  ASSERT_GE(registered.size(), 28u);
  for (const char* doc : {"README.md", "docs/invariants.md", "docs/design.md"}) {
    const std::map<std::string, int> rows = InvariantRows(ReadFile(SourceRoot() / doc));
    std::set<std::string> listed;
    for (const auto& [id, count] : rows) {
      listed.insert(id);
      EXPECT_EQ(count, 1) << doc << " lists " << id << " " << count << " times";
    }
    EXPECT_EQ(listed, registered) << doc
                                  << "'s invariant table differs from scenarios/invariants.cc";
  }
}

TEST(DocsTest, ExitCodeListsMatchExitCodesH) {
  const std::map<std::string, int> header = HeaderExitCodes();
  // The header's text is what the documents are compared with; it must be the compiled constants.
  const std::map<std::string, int> compiled = {{"kExitOk", kExitOk},
                                               {"kExitViolation", kExitViolation},
                                               {"kExitUsage", kExitUsage},
                                               {"kExitCoverage", kExitCoverage},
                                               {"kExitInternal", kExitInternal},
                                               {"kExitInconclusive", kExitInconclusive},
                                               {"kExitInterrupted", kExitInterrupted}};
  ASSERT_EQ(header, compiled) << "scenarios/exit_codes.h defines a code this test does not know";
  for (const char* doc : {"README.md", "docs/cli.md", "docs/design.md"}) {
    EXPECT_EQ(DocumentedExitCodes(ReadFile(SourceRoot() / doc)), header)
        << doc << "'s exit codes differ from scenarios/exit_codes.h";
  }
}

}  // namespace
}  // namespace stepfault
