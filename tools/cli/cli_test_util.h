// Helpers shared by the command-line tests that run the built binary in separate processes: where
// the binary is, how to run it and collect its output and exit code, and a fresh scratch directory.
// Thread-safety: test-only helpers; popen runs one child at a time per call.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tools/testing/test_env.h"

namespace stepfault::cli::testing {

struct ProcessRun {
  int exit_code;  // -signal when killed
  std::string out;
};

inline std::string Binary() { return test_env::BinDir() + "/stepfault"; }

// Runs `stepfault ARGS` through the shell, stdout and stderr together.
inline ProcessRun Stepfault(const std::string& args) {
  std::string cmd = Binary() + " " + args + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  EXPECT_NE(p, nullptr);
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  int status = ::pclose(p);
  int code =
      WIFEXITED(status) ? WEXITSTATUS(status) : (WIFSIGNALED(status) ? -WTERMSIG(status) : -1);
  // popen runs a shell: a child killed by a signal shows as 128+N from the shell.
  if (code > 128) code = -(code - 128);
  return {code, out};
}

// A fresh, absent directory path for this test process: `<tmp>/<prefix>_<pid>_<name>`.
inline std::string Scratch(const std::string& prefix, const std::string& name) {
  const std::string dir = test_env::ScratchDir(prefix + "-" + name);
  std::filesystem::remove(dir);
  return dir;
}

}  // namespace stepfault::cli::testing
