// Goal: a JSON syntax error names its line, column and the offending token, and hostile nesting is
// rejected without exhausting the stack (issue 16, item 8).
// Method: parse broken documents and check the message; parse a 100 000-deep array.
#include "engine/json_text.h"

#include <gtest/gtest.h>

namespace stepfault {
namespace {

TEST(JsonTextTest, ASyntaxErrorNamesLineColumnAndToken) {
  auto r = ParseJsonText("{\n  \"name\": \"x\",\n  \"start\": intake\n}", "x.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x.json: not valid JSON at line 3, column 12"),
            std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("intake"), std::string::npos) << r.status().message();
  auto truncated = ParseJsonText("{\"a\": [1, 2", "p");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("line 1"), std::string::npos);
}

TEST(JsonTextTest, DeepNestingIsRejectedAndGoodJsonParses) {
  auto deep = ParseJsonText(std::string(100000, '[') + std::string(100000, ']'), "deep");
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested deeper"), std::string::npos);
  auto good = ParseJsonText("{\"width\": 4, \"s\": \"[{\"}", "p");
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  EXPECT_EQ((*good)["width"], 4);
}

}  // namespace
}  // namespace stepfault
