// Goal: no function in our sources passes 70 lines (TigerBeetle's tidy.zig rule), except the ones
// that did when the rule came, each listed with the length it had; that list may only shrink.
// Method: scan every *.cc, *.h and *.c under the source folders with ScanFunctions
// (function_scan.h) and compare with kAllowed. The scanner is also run on small sources written
// for the purpose, so that a scanner that finds nothing cannot pass unnoticed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/testing/function_scan.h"
#include "tools/testing/source_files.h"

namespace stepfault::test_env {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;

constexpr int kMaxFunctionLines = 70;

// The functions longer than kMaxFunctionLines when the rule came, "path:Name" -> their length
// then. Shorten one and remove its row (the test fails until you do); never add one. Two long
// functions of one name in one file share a row.
const std::map<std::string, int> kAllowed = {
    {"engine/run_step.cc:StreamingRun::RouteUnchecked", 77},
    {"engine/run_step.cc:StreamingRun::RunStep", 85},
    {"engine/stores/sqlite_store.cc:SqliteCheckpointStore::Initialize", 74},
    {"faults/blackbox/crash_catalogue.cc:ParseCatalogue", 83},
    {"faults/blackbox/crash_state_simfs_differential_test.cc:Synthesize", 105},
    {"faults/blackbox/crash_state_simfs_differential_test.cc:Generate", 94},
    {"faults/blackbox/testdata/crash_programs.c:Run", 130},
    {"properties/blackbox/command_runner.cc:RunShell", 75},
    {"properties/blackbox/explore.cc:ReplayBlackBox", 102},
    {"properties/differential/differential.cc:Deviations", 84},
    {"properties/differential/differential.cc:CompareTraces", 77},
    {"properties/differential/workflow_gen.cc:GenerateWorkflow", 95},
    {"scenarios/interactive_flow/flow_schedules.cc:ExploreFlowSchedules", 88},
    {"properties/explore_variants.cc:Explore", 109},
    {"reports/junit_writer.cc:ScenarioSuite", 85},
    {"reports/markdown_writer.cc:MarkdownReportWriter::Render", 88},
    {"reports/merge_test.cc:RandomReport", 78},
    {"reports/report_json_test.cc:SchemaValidator::Check", 71},
    {"scenarios/approval/approval_scenario.cc:ApprovalScenario::Check", 111},
    {"scenarios/invariants.cc:AllInvariants", 75},
    {"scenarios/json/json_scenario.cc:JsonScenario::RunLife", 113},
    {"scenarios/json/json_scenario_parse.cc:ParseExecutor", 72},
    {"scenarios/json/json_scenario_parse.cc:ParseJsonScenarioDef", 119},
    {"scenarios/json/json_scenario_spec.cc:Handler", 86},
    {"scenarios/json/"
     "json_scenario_test.cc:JsonScenarioTest.EveryMalformedDocumentIsRejectedWithItsPathAndReason",
     142},
    {"tools/bench/durable_bench.cc:RunDurableStep", 79},
    {"tools/bench/summary.cc:PrintSummary", 75},
    {"tools/cli/cli_common.cc:PrintSummary", 72},
    {"tools/cli/cmd_approval.cc:RunApproval", 81},
    {"tools/cli/cmd_blackbox.cc:RunBbExplore", 87},
    {"tools/cli/cmd_differential.cc:RunAll", 83},
    {"tools/cli/cmd_explore.cc:RunExplore", 112},
    {"tools/cli/cmd_explore.cc:AddReplayCommand", 75},
};

std::string Lines(int n, const std::string& line) {
  std::string out;
  for (int i = 0; i < n; ++i) out += line + "\n";
  return out;
}

TEST(FunctionScanTest, FindsAFunctionOf71LinesAndMeasuresItFromNameToClosingBrace) {
  const std::string source =
      "int Short() { return 1; }\n"
      "static void\n"
      "Long(int a,\n"
      "     int b) {\n" +
      Lines(68, "  a += b;") + "}\n";
  const FunctionScan scan = ScanFunctions(source);
  EXPECT_EQ(scan.error, "");
  ASSERT_EQ(scan.functions.size(), 2u);
  EXPECT_EQ(scan.functions[0].name, "Short");
  EXPECT_EQ(scan.functions[0].lines, 1);
  EXPECT_EQ(scan.functions[1].name, "Long");
  EXPECT_EQ(scan.functions[1].line, 3);
  EXPECT_EQ(scan.functions[1].lines, 71);
}

TEST(FunctionScanTest, IgnoresBracesInStringsCharactersCommentsAndDirectives) {
  const std::string source =
      "// a comment { with a brace\n"
      "/* a block comment {\n   over lines { */\n"
      "#define OPEN {\n"
      "#define MULTI(x) \\\n  { x\n"
      "const char* s = \"{\\\"{\";\n"
      "const char* r = R\"x({ \" } )\" {)x\";\n"
      "char c = '{', d = '\\'', e = '}';\n"
      "int n = 1'000'000;\n"
      "int F() {\n  return '{' + 0x1'0;  // }\n}\n"
      "int G() { return 2; }\n";
  const FunctionScan scan = ScanFunctions(source);
  EXPECT_EQ(scan.error, "");
  EXPECT_THAT(scan.functions,
              ElementsAre(Field(&FunctionSpan::name, "F"), Field(&FunctionSpan::name, "G")));
  EXPECT_EQ(scan.functions[0].line, 11);
  EXPECT_EQ(scan.functions[0].lines, 3);
}

TEST(FunctionScanTest, FindsInlineMethodsOfClassesWithTheirClassInTheName) {
  const std::string source =
      "namespace a::b {\n"
      "namespace {\n"
      "template <typename T>\n"
      "class Framer final : public Base<decltype(f())> {\n"
      " public:\n"
      "  explicit Framer(int x) : x_(x), y_{x + 1} { Setup(); }\n"
      "  int Get() const noexcept { return x_; }\n"
      "  auto Pair() const -> std::pair<int, int> { return {x_, y_}; }\n"
      "  bool operator==(const Framer&) const { return true; }\n"
      "  int operator()(int v) { return v; }\n"
      "  struct Inner { void Run() & {} };\n"
      " private:\n"
      "  int x_ = 0;\n"
      "  int y_{0};\n"
      "  std::vector<int> v_ = {1, 2};\n"
      "};\n"
      "enum class E : int { kA, kB };\n"
      "}  // namespace\n"
      "void Framer::Out(Options o = {}) {}\n"
      "Framer::~Framer() {}\n"
      "}  // namespace a::b\n"
      "extern \"C\" {\nint c_api(void) { return 0; }\n}\n";
  const FunctionScan scan = ScanFunctions(source);
  EXPECT_EQ(scan.error, "");
  std::vector<std::string> names;
  for (const FunctionSpan& f : scan.functions) names.push_back(f.name);
  EXPECT_THAT(names, ElementsAre("Framer::Framer", "Framer::Get", "Framer::Pair",
                                 "Framer::operator==", "Framer::operator()", "Framer::Inner::Run",
                                 "Framer::Out", "Framer::~Framer", "c_api"));
}

TEST(FunctionScanTest, CountsALambdaHeavyFunctionOnceAndNamesTestsBySuiteAndName) {
  const std::string source =
      "TEST(SuiteName, TestName) {\n"
      "  auto f = [&](int x) { return [x] { return x; }(); };\n"
      "  struct Local { int M() { return 1; } };\n"
      "  std::sort(v.begin(), v.end(), [](int a, int b) {\n"
      "    return a < b;\n"
      "  });\n"
      "}\n"
      "const auto kCompare = [](int a, int b) {\n  return a < b;\n};\n";
  const FunctionScan scan = ScanFunctions(source);
  EXPECT_EQ(scan.error, "");
  ASSERT_EQ(scan.functions.size(), 2u);
  EXPECT_EQ(scan.functions[0].name, "SuiteName.TestName");
  EXPECT_EQ(scan.functions[0].lines, 7);
  EXPECT_EQ(scan.functions[1].name, "kCompare");
  EXPECT_EQ(scan.functions[1].lines, 3);
}

TEST(FunctionScanTest, SaysWhenTheBracesDoNotBalance) {
  EXPECT_THAT(ScanFunctions("void F() {\n  if (x) {\n}\n").error,
              ::testing::HasSubstr("never closed"));
  EXPECT_THAT(ScanFunctions("int x;\n}\n").error, ::testing::HasSubstr("closes nothing"));
}

TEST(FunctionLength, NoFunctionPasses70LinesUnlessAllowListedAndTheListOnlyShrinks) {
  std::vector<std::string> problems;
  std::set<std::string> long_ones;
  int files = 0;
  int functions = 0;
  for (const SourceFile& file : SourceFiles(
           {"engine", "faults", "scenarios", "properties", "reports", "tools", "examples"})) {
    ++files;
    const FunctionScan scan = ScanFunctions(ReadSource(file.path));
    if (!scan.error.empty()) problems.push_back(file.relative + ": " + scan.error);
    functions += static_cast<int>(scan.functions.size());
    for (const FunctionSpan& f : scan.functions) {
      if (f.lines <= kMaxFunctionLines) continue;
      const std::string key = file.relative + ":" + f.name;
      const std::string where = file.relative + ":" + std::to_string(f.line) + " " + f.name +
                                " is " + std::to_string(f.lines) + " lines";
      long_ones.insert(key);
      auto allowed = kAllowed.find(key);
      if (allowed == kAllowed.end()) {
        problems.push_back(where + ", over " + std::to_string(kMaxFunctionLines) +
                           ": split it (allow-list row: {\"" + key + "\", " +
                           std::to_string(f.lines) + "})");
      } else if (f.lines > allowed->second) {
        problems.push_back(where + ", longer than the " + std::to_string(allowed->second) +
                           " it is allowed: shorten it");
      }
    }
  }
  for (const auto& [key, lines] : kAllowed) {
    if (long_ones.count(key) == 0) {
      problems.push_back(key + " is allow-listed but gone or now at most " +
                         std::to_string(kMaxFunctionLines) + " lines: remove its row");
    }
  }
  EXPECT_GT(files, 300) << "the scan read too few files to be reading the sources";
  EXPECT_GT(functions, 3000) << "the scanner found too few functions to be working";
  std::string listed;
  for (const std::string& p : problems) listed += "\n  " + p;
  EXPECT_TRUE(problems.empty()) << problems.size() << " problems:" << listed;
}

}  // namespace
}  // namespace stepfault::test_env
