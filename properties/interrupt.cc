// Interruption of an exploration (see interrupt.h).
#include "properties/interrupt.h"

#include <signal.h>

#include <atomic>

namespace stepfault::properties {
namespace {

std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

void OnSignal(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
  // The next signal of either kind kills as usual.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
}

}  // namespace

void InstallInterruptHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM}) ::sigaction(sig, &sa, nullptr);
}

void RestoreDefaultInterruptHandlers() {
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
}

int InterruptSignal() { return g_signal.load(); }

std::string InterruptSignalName() {
  const int sig = InterruptSignal();
  if (sig == 0) return "";
  if (sig == SIGINT) return "SIGINT";
  if (sig == SIGTERM) return "SIGTERM";
  return "signal " + std::to_string(sig);
}

void RequestInterrupt(int sig) {
  int none = 0;
  g_signal.compare_exchange_strong(none, sig);
}

void ClearInterruptForTesting() { g_signal.store(0); }

}  // namespace stepfault::properties
