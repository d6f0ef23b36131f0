// Shared by the black-box tests: run the stepfault binary in a fresh directory and read what it
// wrote. Thread-safety: test-only, one test at a time.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "properties/blackbox/command_runner.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties::blackbox::testing {

using test_env::BinDir;
using test_env::LongRun;
using test_env::SourceDir;

inline std::string Example(const std::string& rel) {
  return (std::filesystem::path(SourceDir()) / "examples" / "blackbox" / rel).string();
}
inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
// A fresh directory per test; `stepfault` runs with it as the working directory.
class BlackboxCliTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = test_env::ScratchDir("bb"); }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  CommandResult Stepfault(const std::string& args, int timeout_s = 600) {
    return RunShell(BinDir() + "/stepfault " + args,
                    {dir_, {}, timeout_s * test_env::TimeoutScale()});
  }
  std::string WriteSpec(const std::string& name, const std::string& json) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << json;
    return path;
  }
  // Writes check.sh: every "committed N" in $STEPFAULT_ACKED must be a line "commit N" of what
  // the shell command `reader` prints (the recovered file), else "commit N was acknowledged but
  // is lost" and exit 1.
  void WriteCommitCheck(const std::string& reader) {
    std::ofstream(dir_ + "/check.sh")
        << "for n in $(sed -n 's/^committed //p' \"$STEPFAULT_ACKED\" 2>/dev/null); do\n"
           "  " +
               reader +
               " | grep -qx \"commit $n\" ||\n"
               "    { echo \"commit $n was acknowledged but is lost\"; exit 1; }\n"
               "done\n";
  }
  std::string dir_;
};

}  // namespace stepfault::properties::blackbox::testing
