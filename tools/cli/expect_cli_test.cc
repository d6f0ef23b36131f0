// Goal: `stepfault expect FILE.json` prints what the scenario's fault-free run did, in the form its
// `expect` member takes, so a scenario author pastes it instead of writing it by hand. Method: for
// every shipped example, the printed member equals the file's own (effects by key, outputs as a
// set: both are compared that way by the scenario's checks), with the file's `expect` present,
// removed, or deliberately wrong; bad input exits 2 saying what was wrong.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/json_text.h"
#include "tools/cli/cli_test_util.h"

namespace stepfault::cli {
namespace {

using testing::Stepfault;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// expect's effects keyed by row key, its outputs as a set of their JSON text.
std::pair<std::map<std::string, Json>, std::set<std::string>> Canonical(const Json& expect) {
  std::map<std::string, Json> effects;
  for (const Json& e : expect.at("effects")) effects[e.at("key")] = e.at("value");
  std::set<std::string> outputs;
  for (const Json& o : expect.at("outputs")) outputs.insert(o.dump());
  return {effects, outputs};
}

Json Printed(const std::string& path) {
  // The member on stdout; the hint (on stderr, merged here) is a line of its own before or after.
  const auto run = Stepfault("expect " + path);
  EXPECT_EQ(run.exit_code, 0) << run.out;
  const size_t begin = run.out.find("{\n  \"expect\"");
  const size_t end = run.out.rfind("\n}");
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    ADD_FAILURE() << run.out;
    return Json::object();
  }
  auto parsed = ParseJsonText(run.out.substr(begin, end + 2 - begin), "stdout");
  EXPECT_TRUE(parsed.ok()) << run.out;
  return parsed.ok() ? parsed->at("expect") : Json::object();
}

TEST(ExpectCliTest, EveryExampleGivesBackItsOwnExpectWrittenRemovedOrWrong) {
  const std::string dir = testing::Scratch("expect", "examples");
  std::filesystem::create_directories(dir);
  int examples = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(test_env::SourcePath("scenarios/json/examples"))) {
    if (e.path().extension() != ".json") continue;
    ++examples;
    const std::string path = e.path().string();
    const Json doc = Json::parse(ReadAll(path));
    const auto want = Canonical(doc.at("expect"));
    EXPECT_EQ(Canonical(Printed(path)), want) << path;
    Json without = doc;
    without.erase("expect");
    const std::string stripped = dir + "/stripped-" + e.path().filename().string();
    std::ofstream(stripped) << without.dump(2);
    EXPECT_EQ(Canonical(Printed(stripped)), want) << stripped;
    Json wrong = doc;
    wrong["expect"]["effects"] = Json::array({{{"key", "typo"}, {"value", 1}}});
    const std::string typo = dir + "/typo-" + e.path().filename().string();
    std::ofstream(typo) << wrong.dump(2);
    EXPECT_EQ(Canonical(Printed(typo)), want) << typo;
  }
  EXPECT_GE(examples, 3);
}

TEST(ExpectCliTest, BadInputExitsTwoSayingWhatIsWrong) {
  const std::string dir = testing::Scratch("expect", "bad");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/broken.json") << "{\n  \"name\": \"x\",\n  oops\n}\n";
  auto run = Stepfault("expect " + dir + "/broken.json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("line 3"), std::string::npos) << run.out;
  run = Stepfault("expect approval");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("expect takes a JSON scenario file"), std::string::npos) << run.out;
  run = Stepfault("expect " + dir + "/absent.json");
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("cannot read scenario file"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace stepfault::cli
