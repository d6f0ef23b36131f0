// Runs one spec command with /bin/sh -c in its own process group, with a timeout that kills the
// whole group, and collects its exit status and output.
//
// The command's process group is killed when the command exits too, so a program that forks and
// leaves children behind cannot outlive its command (a child that calls setsid escapes; see
// docs/blackbox.md). The timeout is armed on a timerfd: this code never reads a clock.
// Thread-safety: safe from any thread; each call forks its own child.
#pragma once

#include <map>
#include <string>

namespace stepfault::properties::blackbox {

struct CommandResult {
  int exit_code = -1;          // the shell's status; 128+N when killed by signal N
  bool timed_out = false;      // the timeout struck; the group was killed
  bool left_children = false;  // processes of the group were still alive after it exited
  std::string out, err;
  bool ok() const { return exit_code == 0 && !timed_out; }
};

struct CommandOptions {
  std::string cwd;
  std::map<std::string, std::string> env;  // set on top of this process's environment
  int timeout_s = 30;
};

CommandResult RunShell(const std::string& command, const CommandOptions& options);

}  // namespace stepfault::properties::blackbox
