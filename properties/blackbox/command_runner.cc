// The command runner (see command_runner.h).
#include "properties/blackbox/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "properties/process_guard.h"

extern char** environ;

namespace stepfault::properties::blackbox {
namespace {

std::vector<std::string> BuildEnv(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const char* eq = std::strchr(*e, '=');
    if (eq != nullptr) env[std::string(*e, static_cast<size_t>(eq - *e))] = eq + 1;
  }
  for (const auto& [k, v] : extra) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

void Drain(int fd, std::string* into) {
  char buf[8192];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0) into->append(buf, static_cast<size_t>(n));
}

}  // namespace

CommandResult RunShell(const std::string& command, const CommandOptions& options) {
  CommandResult result;
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    result.err = "pipe failed";
    return result;
  }
  std::vector<std::string> env = BuildEnv(options.env);
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    DieWithParent();  // a runner killed outright takes its shell with it
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
    execve("/bin/sh", const_cast<char* const*>(argv), envp.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also in the parent: whichever runs first
  SetGuardedProgramGroup(pid);
  close(out_pipe[1]);
  close(err_pipe[1]);
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  itimerspec spec{};
  spec.it_value.tv_sec = options.timeout_s;
  timerfd_settime(timer, 0, &spec, nullptr);
  bool exited = false, out_open = true, err_open = true;
  int status = 0;
  while (!exited || out_open || err_open) {
    pollfd fds[4] = {
        {pidfd, POLLIN, 0}, {timer, POLLIN, 0}, {out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    if (exited) fds[0].fd = fds[1].fd = -1;
    if (!out_open) fds[2].fd = -1;
    if (!err_open) fds[3].fd = -1;
    if (poll(fds, 4, -1) < 0 && errno != EINTR) break;
    if (fds[2].revents) {
      size_t before = result.out.size();
      Drain(out_pipe[0], &result.out);
      if (result.out.size() == before) out_open = false;
    }
    if (fds[3].revents) {
      size_t before = result.err.size();
      Drain(err_pipe[0], &result.err);
      if (result.err.size() == before) err_open = false;
    }
    if (!exited && fds[1].revents) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
    }
    if (!exited && fds[0].revents) {
      waitpid(pid, &status, 0);
      exited = true;
      // Whatever the command left in its group dies with it (and closes the pipes it held).
      if (kill(-pid, 0) == 0) {
        result.left_children = true;
        kill(-pid, SIGKILL);
      }
      SetGuardedProgramGroup(0);
    }
  }
  close(out_pipe[0]);
  close(err_pipe[0]);
  close(pidfd);
  close(timer);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.exit_code = 128 + WTERMSIG(status);
  return result;
}

}  // namespace stepfault::properties::blackbox
