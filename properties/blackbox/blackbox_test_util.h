// Shared by the black-box tests: run the stepfault binary in a fresh directory and read what it
// wrote. Thread-safety: test-only, one test at a time.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "properties/blackbox/command_runner.h"

namespace stepfault::properties::blackbox::testing {

inline std::string SourceDir() {
  const char* s = std::getenv("STEPFAULT_SOURCE_DIR");
  return s ? s : std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().string();
}
inline std::string BinDir() {
  const char* b = std::getenv("STEPFAULT_BIN_DIR");
  return b ? b : (std::filesystem::path(SourceDir()) / "build" / "bin").string();
}
inline std::string Example(const std::string& rel) {
  return (std::filesystem::path(SourceDir()) / "examples" / "blackbox" / rel).string();
}
inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
inline bool LongRun() {
  const char* l = std::getenv("STEPFAULT_LONG");
  return l && std::string(l) == "1";
}

// A fresh directory per test; `stepfault` runs with it as the working directory.
class BlackboxCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (std::filesystem::temp_directory_path() /
            ("stepfault-bb-" + std::string(info->name()) + "-" + std::to_string(getpid())))
               .string();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }
  CommandResult Stepfault(const std::string& args, int timeout_s = 600) {
    return RunShell(BinDir() + "/stepfault " + args, {dir_, {}, timeout_s});
  }
  std::string WriteSpec(const std::string& name, const std::string& json) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << json;
    return path;
  }
  std::string dir_;
};

}  // namespace stepfault::properties::blackbox::testing
