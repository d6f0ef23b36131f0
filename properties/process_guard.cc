// The process guard (see process_guard.h).
#include "properties/process_guard.h"

#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>

namespace stepfault::properties {
namespace {

constexpr int kMaxWorkers = 64;  // --jobs is at most 64
std::atomic<pid_t> g_workers[kMaxWorkers];
std::atomic<pid_t> g_program_group{0};

void OnSignal(int sig) {
  const pid_t group = g_program_group.load();
  if (group > 0) ::kill(-group, SIGKILL);
  for (auto& w : g_workers) {
    const pid_t pid = w.load();
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

void InstallProcessGuard() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

void BecomeGuardedWorker(pid_t parent) {
  for (auto& w : g_workers) w.store(0);
  g_program_group.store(0);
  InstallProcessGuard();
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != parent) ::raise(SIGTERM);  // the parent died before the request
}

void AddGuardedWorker(pid_t pid) {
  for (auto& w : g_workers) {
    pid_t empty = 0;
    if (w.compare_exchange_strong(empty, pid)) return;
  }
}

void RemoveGuardedWorker(pid_t pid) {
  for (auto& w : g_workers) {
    pid_t expected = pid;
    w.compare_exchange_strong(expected, 0);
  }
}

void SetGuardedProgramGroup(pid_t pgid) { g_program_group.store(pgid); }

void DieWithParent() { ::prctl(PR_SET_PDEATHSIG, SIGKILL); }

}  // namespace stepfault::properties
