// Test helper of every plan grammar (plan_syntax.h): a table of malformed texts, each rejected with
// InvalidArgument whose message starts with the expected "position N: reason". Test-only;
// thread-safety: values.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <span>
#include <string>
#include <string_view>

#include "engine/status.h"

namespace stepfault::faults::testing {

struct BadPlan {
  std::string_view text;
  std::string_view expected;  // a prefix of the message: position and reason
};

// parse(text) -> Result<...> for one grammar.
template <typename Parse>
void ExpectEachRejectedAsSaid(Parse parse, std::span<const BadPlan> cases) {
  for (const BadPlan& c : cases) {
    auto result = parse(c.text);
    ASSERT_FALSE(result.ok()) << c.text;
    EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument) << c.text;
    EXPECT_THAT(result.status().message(), ::testing::StartsWith(std::string(c.expected)))
        << c.text;
  }
}

}  // namespace stepfault::faults::testing
