// Finds the function bodies of a C++ (or C) source file and how long each is, for the function-
// length hygiene test (tools/testing/function_length_test.cc). Not a parser: a brace-matching scan
// of the code with comments, string and character literals (raw strings included) and preprocessor
// lines blanked out first, so that a brace in any of those never counts.
//
// A function body is a brace block at namespace or class scope (the top level, a namespace, an
// extern "C" block, or a class, struct or union body, however nested) whose head ends in ')'
// followed only by qualifiers (const, noexcept, noexcept(...), override, final, &, &&, mutable,
// try) or a trailing return type (-> type), or whose head is a constructor's member-initializer
// list (`) : a_(x), b_{y}`). Everything inside a body (lambdas, local classes) is part of it: a
// function is counted once. Any other brace block at scope (an initializer, an enum) is skipped.
// A function's name is the (qualified) name before its parameter list, prefixed with the classes
// it is defined in ("Framer::Frame"); a namespace-scope lambda is named by the variable it
// initialises; a macro-defined test (TEST(Suite, Name), TEST_F, RC_GTEST_PROP, ...: an all-caps
// name) by its first two arguments, "Suite.Name". Its length is the number of lines from the line
// of its name to the line of its closing brace, both included.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stepfault::test_env {

struct FunctionSpan {
  std::string name;
  int line = 0;   // of its name, 1-based
  int lines = 0;  // name line to closing brace, inclusive
};

struct FunctionScan {
  std::vector<FunctionSpan> functions;  // in source order
  std::string error;                    // non-empty when the braces do not balance
};

// `source` with every comment, string literal, character literal and preprocessor line replaced
// by spaces, newlines kept (so line numbers stay).
std::string BlankNonCode(std::string_view source);

// The function bodies of `source`.
FunctionScan ScanFunctions(std::string_view source);

}  // namespace stepfault::test_env
