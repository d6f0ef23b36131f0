// Goal: the spec parser accepts the documented schema and rejects each kind of bad input with the
// JSON pointer of the offending value. Method: parse small documents and compare messages.
#include "scenarios/blackbox/spec.h"

#include <gtest/gtest.h>

namespace stepfault::scenarios::blackbox {
namespace {

std::string Error(const std::string& text) {
  Result<Spec> s = ParseSpec(text, "spec.json");
  return s.ok() ? "" : s.status().message();
}

TEST(BlackboxSpecTest, AcceptsEveryDocumentedField) {
  Result<Spec> s = ParseSpec(R"({"name":"n","dir":"data","setup":["a"],"run":["b"],"recover":["c"],
    "check":["d"],"sql_checks":[{"db":"x.db","query":"SELECT 1","expect":{"rows":1}},
    {"db":"x.db","query":"SELECT 1","expect":"same-as-reference"}],"env":{"K":"V"},"timeout_s":5,
    "lives_max":2,"no_stray_files":true})",
                             "spec.json");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->sql_checks.size(), 2u);
  EXPECT_EQ(s->sql_checks[0].rows, 1);
  EXPECT_EQ(s->env.at("K"), "V");
  EXPECT_TRUE(s->no_stray_files);
}

TEST(BlackboxSpecTest, RejectsBadInputWithJsonPaths) {
  EXPECT_NE(Error(R"({"name":"n","dir":"data","run":[]})").find("/run: names no command"),
            std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"data"})").find("/run: names no command"),
            std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"/tmp/x","run":["a"]})").find("/dir: "), std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"../x","run":["a"]})").find("outside the working directory"),
            std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":["a"],"bogus":1})").find("/bogus: unknown field"),
            std::string::npos);
  EXPECT_NE(
      Error(
          R"({"name":"n","dir":"d","run":["a"],"sql_checks":[{"db":"x","query":"q","expect":"some"}]})")
          .find("/sql_checks/0/expect: expected"),
      std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":[""]})").find("/run/0: "), std::string::npos);
  EXPECT_NE(Error("{not json").find("not valid JSON"), std::string::npos);
  // A syntax error names where it is (issue 30: line and column, as JSON scenarios do).
  const std::string at = Error("{\"name\": \"n\",\n  \"run\": [\"a\"\n}");
  EXPECT_NE(at.find("line 3, column 1"), std::string::npos) << at;
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":["a"],"timeout_s":0})").find("/timeout_s: "),
            std::string::npos);
}

// Issue 31: `volatile` is an array of glob patterns relative to dir; anything else is refused with
// the JSON pointer of the value.
TEST(BlackboxSpecTest, VolatileGlobsParseAndBadOnesAreRejectedWithTheirPointer) {
  Result<Spec> s = ParseSpec(R"({"name":"n","dir":"d","run":["a"],"volatile":["*-shm","cache/*"]})",
                             "spec.json");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->volatile_files, (std::vector<std::string>{"*-shm", "cache/*"}));
  EXPECT_TRUE(ParseSpec(R"({"name":"n","dir":"d","run":["a"]})", "s")->volatile_files.empty());
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":["a"],"volatile":"*.idx"})")
                .find("/volatile: expected an array of glob patterns"),
            std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":["a"],"volatile":["a",""]})")
                .find("/volatile/1: expected a non-empty glob pattern string"),
            std::string::npos);
  EXPECT_NE(Error(R"({"name":"n","dir":"d","run":["a"],"volatile":[3]})").find("/volatile/0: "),
            std::string::npos);
  for (const char* bad : {"/etc/*", "../x", "a/../../b", ".."}) {
    const std::string e =
        Error(std::string(R"({"name":"n","dir":"d","run":["a"],"volatile":[")") + bad + "\"]}");
    EXPECT_NE(e.find("/volatile/0: \"" + std::string(bad) + "\" is not a pattern relative to dir"),
              std::string::npos)
        << e;
  }
}

}  // namespace
}  // namespace stepfault::scenarios::blackbox
