// Goal: determinism is the product. The same workflow, input and seed give a byte-identical event
// trace and byte-identical checkpoints; different seeds change only the interleaving of receivers,
// never the outcome. And no code outside tools/bench reads a wall clock or an unseeded random
// source. Method: run a wide fan-out/fan-in workflow under many seeds; grep the source tree.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"
#include "tools/testing/source_files.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {
using testing::Msg;

std::shared_ptr<Workflow> Wide() {
  std::vector<std::string> workers;
  WorkflowBuilder b(testing::Forward("start"));
  for (int i = 0; i < 6; ++i) {
    std::string id = "w" + std::to_string(i);
    workers.push_back(id);
    b.AddExecutor(FunctionExecutor(id, "W", {"*"}, [id](const Message& m, WorkflowContext& ctx) {
      ctx.QueueStateUpdate("seen", m.body);
      ctx.SendMessage(Msg("Part", Json{{"from", id}}));
      ctx.YieldOutput(Msg("Part", Json{{"from", id}}));
      return Status::Ok();
    }));
  }
  b.AddExecutor(testing::Forward("sink"));
  b.AddFanOutEdge("start", workers);
  b.AddFanInBarrierEdge(workers, "sink");
  for (const auto& w : workers) b.WithOutputFrom(w);
  b.WithOutputFrom("sink");
  return *b.Build();
}

struct Outcome {
  std::string trace;
  std::vector<std::string> outputs;
  std::vector<std::string> checkpoints;
};

Outcome RunWide(uint64_t seed) {
  InMemoryCheckpointManager manager(seed);
  RunOptions options;
  options.seed = seed;
  options.session_id = "fixed-session";
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(Wide(), Msg("Go", 1), options);
  auto events = testing::Drain(**run);
  Outcome o{RenderTrace(events), testing::CanonicalOutputs(events), {}};
  for (const auto& info : (*run)->checkpoints()) {
    Checkpoint c = **manager.Lookup(info);
    c.parent.reset();  // checkpoint ids come from the seeded manager
    o.checkpoints.push_back(EncodeCheckpoint(c));
  }
  return o;
}

TEST(DeterminismTest, SameSeedGivesByteIdenticalTraceAndCheckpoints) {
  for (uint64_t seed : {0u, 1u, 99u}) {
    Outcome a = RunWide(seed), b = RunWide(seed);
    EXPECT_EQ(a.trace, b.trace);
    EXPECT_EQ(a.checkpoints, b.checkpoints);
  }
}

TEST(DeterminismTest, DifferentSeedsReorderReceiversButNeverChangeTheOutcome) {
  Outcome base = RunWide(0);
  std::set<std::string> traces;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Outcome o = RunWide(seed);
    traces.insert(o.trace);
    EXPECT_EQ(o.outputs, base.outputs) << "seed " << seed;
    EXPECT_EQ(o.checkpoints, base.checkpoints) << "seed " << seed;
  }
  // The scheduler really does reorder receivers, so the equalities above are not vacuous.
  EXPECT_GT(traces.size(), 5u);
}

// STYLE.md rule 4: no wall clock or unseeded randomness outside tools/bench (the C of the recorder
// and of the examples included: C's time(0), random(), clock() too), and engine/ never includes
// faults/.
TEST(HygieneTest, NoWallClockOrUnseededRandomnessAndEngineNeverIncludesFaults) {
  namespace fs = std::filesystem;
  const fs::path root(test_env::SourceDir());
  ASSERT_TRUE(fs::exists(root / "engine")) << root;
  const std::regex banned(
      R"(std::chrono::system_clock|steady_clock::now|high_resolution_clock::now|std::random_device|[^_a-zA-Z.>]s?rand\(|[^_a-zA-Z.:>]time\(nullptr|[^_a-zA-Z.:>]time\(NULL|gettimeofday|clock_gettime)"
      // C's wall clock and unseeded randomness (the recorder and the examples are C).
      R"(|[^_a-zA-Z.:>]time\(0\)|[^_a-zA-Z.:>]random\(\)|[^_a-zA-Z.:>]srandom\(|getrandom\(|/dev/urandom|CLOCK_REALTIME|[^_a-zA-Z.:>]clock\(\))");
  const std::regex faults_include(R"(#include\s*[<"](\.\./)*faults/)");
  std::vector<std::string> offenders;
  int files = 0;
  int c_files = 0;  // the black-box recorder (faults/blackbox/preload) and the examples' programs
  for (const test_env::SourceFile& file : test_env::SourceFiles(
           {"engine", "faults", "scenarios", "properties", "reports", "examples"})) {
    if (file.test) continue;
    ++files;
    if (file.path.extension() == ".c") ++c_files;
    const std::string s = test_env::ReadSource(file.path);
    if (std::regex_search(s, banned))
      offenders.push_back(file.relative + ": wall clock/randomness");
    if (file.folder == "engine" && std::regex_search(s, faults_include)) {
      offenders.push_back(file.relative + ": engine includes faults/");
    }
  }
  EXPECT_GT(files, 10);
  EXPECT_GE(c_files, 5) << "the recorder's and the examples' .c files were not scanned";
  EXPECT_TRUE(offenders.empty()) << ::testing::PrintToString(offenders);
}

// The one-way include graph of docs/design.md section 1: tools -> properties -> scenarios -> faults
// -> engine, and properties -> reports -> engine. A folder includes only its own and those below
// it; tools/testing/ (the test helpers, header-only) is open to every folder. Black-box mode keeps
// the same direction: its drivers (properties/blackbox/) include its scenario and oracle
// (scenarios/blackbox/), never the reverse.
TEST(HygieneTest, IncludesPointOneWayDownTheLayers) {
  const std::map<std::string, std::set<std::string>> allowed = {
      {"engine", {"engine"}},
      {"faults", {"engine", "faults"}},
      {"scenarios", {"engine", "faults", "scenarios"}},
      {"reports", {"engine", "reports"}},
      {"properties", {"engine", "faults", "scenarios", "reports", "properties"}},
  };
  const std::regex include(R"re(^#include\s*"([a-z_]+)/([a-z_]+/)?)re");
  std::vector<std::string> offenders;
  int includes = 0;
  for (const test_env::SourceFile& file :
       test_env::SourceFiles({"engine", "faults", "scenarios", "reports", "properties"})) {
    std::istringstream lines(test_env::ReadSource(file.path));
    for (std::string line; std::getline(lines, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      ++includes;
      if (m[1] == "tools" && m[2] == "testing/") continue;
      if (!allowed.at(file.folder).count(m[1])) offenders.push_back(file.relative + ": " + line);
    }
  }
  EXPECT_GT(includes, 500);  // the scan sees the includes
  EXPECT_TRUE(offenders.empty()) << ::testing::PrintToString(offenders);
}

// One way to mark an internal header: its name ends in _internal.h, it is private to its folder
// (never installed), and no file in another folder includes it.
TEST(HygieneTest, InternalHeadersAreIncludedOnlyFromTheirOwnFolder) {
  const std::regex internal_include(R"re(#include\s*"([a-z_/]+)/[a-z_]+_internal\.h")re");
  std::vector<std::string> offenders;
  int internal_includes = 0;
  for (const test_env::SourceFile& file :
       test_env::SourceFiles({"engine", "faults", "scenarios", "properties", "reports", "tools"})) {
    if (file.path.extension() == ".c") continue;
    const std::string s = test_env::ReadSource(file.path);
    const std::string folder = std::filesystem::path(file.relative).parent_path().string();
    for (auto it = std::sregex_iterator(s.begin(), s.end(), internal_include);
         it != std::sregex_iterator(); ++it) {
      ++internal_includes;
      if ((*it)[1].str() != folder) offenders.push_back(file.relative + ": " + (*it)[0].str());
    }
  }
  EXPECT_GT(internal_includes, 3);  // the scan sees the internal headers in use
  EXPECT_TRUE(offenders.empty()) << ::testing::PrintToString(offenders);
}

}  // namespace
}  // namespace stepfault
