// The one place a test asks about its environment: where the source tree and the built binaries
// are, whether this is a long run, and a fresh scratch directory. Tests read nothing else from the
// environment for these, so STEPFAULT_LONG has one meaning everywhere.
//   SourceDir(), BinDir()  STEPFAULT_SOURCE_DIR / STEPFAULT_BIN_DIR; test_env_defaults.cc (linked
//                          into every test binary) points them at this build unless already set.
//   LongRun()              STEPFAULT_LONG=1 (`tools/test --long`, run every night by `.ci/long`):
//                          more cases, broader sweeps, and the tests that only run then. Unset,
//                          empty or 0 is the default run; any other value is a mistake and aborts.
//   ScratchDir(prefix)     an empty directory <tmp>/stepfault-<prefix>-<pid>-<test name>.
//   TimeoutScale()         4 in a sanitizer build, else 1: the factor for a child's time limit.
//   STEPFAULT_SKIP_UNLESS_LONG()  a test that runs only in the long run.
//   STEPFAULT_REQUIRE_PROGRAM(...)  a test that needs chromium or strace: missing FAILS, unless
//                          STEPFAULT_ALLOW_MISSING_BROWSER=1 / STEPFAULT_ALLOW_MISSING_STRACE=1.
// docs/ci/nightly.md lists every variable.
// Header-only, so the installed store-conformance library can use it without shipping it.
// Thread-safety: test-only; call from the test's thread.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

namespace stepfault::test_env {

namespace internal {
inline std::string Required(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') {
    std::fprintf(stderr,
                 "test_env: %s is not set; run the test through ctest (or set it to the "
                 "directory it names)\n",
                 name);
    std::abort();
  }
  return v;
}
}  // namespace internal

// The source tree (the checkout's root).
inline std::string SourceDir() { return internal::Required("STEPFAULT_SOURCE_DIR"); }

// The directory holding the built `stepfault` binary and its helpers.
inline std::string BinDir() { return internal::Required("STEPFAULT_BIN_DIR"); }

// A path inside the source tree, e.g. SourcePath("README.md").
inline std::string SourcePath(std::string_view relative) {
  return (std::filesystem::path(SourceDir()) / relative).string();
}

// True for STEPFAULT_LONG=1. A value that is neither 1 nor 0/empty aborts: a typo such as
// STEPFAULT_LONG=yes must not quietly run the short suite (or the long one).
inline bool LongRun() {
  const char* v = std::getenv("STEPFAULT_LONG");
  if (v == nullptr || *v == '\0' || std::string_view(v) == "0") return false;
  if (std::string_view(v) == "1") return true;
  std::fprintf(stderr, "test_env: STEPFAULT_LONG must be 1 (long run) or 0/unset, not '%s'\n", v);
  std::abort();
}

// How many times longer a command of this build may take: 4 in a sanitizer build (ASan+UBSan runs
// the same programs several times slower, more so under the load of a parallel ctest), else 1. A
// test's own time limit on a child process is a hang detector, not a benchmark.
inline int TimeoutScale() {
#if defined(STEPFAULT_SANITIZED)
  return 4;
#else
  return 1;
#endif
}

// True when the environment variable `name` is 1: the opt-out of a required program.
inline bool OptedOut(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string_view(v) == "1";
}

// An empty directory for this test, made afresh (whatever an earlier run left is removed). The
// name carries the pid and the current test's name, so parallel test processes never share one.
inline std::string ScratchDir(std::string_view prefix) {
  std::string name = "stepfault-" + std::string(prefix) + "-" + std::to_string(::getpid());
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name += "-" + std::string(info->test_suite_name()) + "." + info->name();
  }
  for (char& c : name) {
    if (c == '/') c = '_';
  }
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace stepfault::test_env

// For a test that runs only in the long run: skips, saying where it does run.
#define STEPFAULT_SKIP_UNLESS_LONG()                                                 \
  if (!::stepfault::test_env::LongRun())                                             \
  GTEST_SKIP() << "a long-run test: runs with STEPFAULT_LONG=1 (tools/test --long, " \
                  "nightly in .ci/long)"

// For a test that needs a program tools/test installs (chromium, strace): when `present` is false
// the test FAILS, saying what is missing, unless the opt-out variable `opt_out` is 1, which skips
// it instead (a machine that cannot install the program says so explicitly).
#define STEPFAULT_REQUIRE_PROGRAM(present, what, opt_out)                                      \
  if (!(present)) {                                                                            \
    if (::stepfault::test_env::OptedOut(opt_out))                                              \
      GTEST_SKIP() << what << " is missing (" opt_out "=1)";                                   \
    GTEST_FAIL() << what << " is missing: tools/test installs it; install it, or set " opt_out \
                 << "=1 to skip this test";                                                    \
  }
