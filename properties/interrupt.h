// Interruption of an exploration: the first SIGINT or SIGTERM to `explore` does not kill it; it
// asks it to stop. The worker pool (properties/worker_pool.h) then kills its workers (SIGKILL),
// counts the jobs they had not answered as interrupted (never run: not recorded, nothing grown
// from them), the explorer stops at once, and the command writes the report of what was done,
// marked partial. A second signal kills the process as usual. Workers never install this handler:
// they are guarded workers (properties/process_guard.h) that die of the signal or of their
// parent's death, and their death is not blamed on the job they were running when an interrupt
// was requested.
// Thread-safety: the flag is a lock-free atomic; install from the main thread.
#pragma once

#include <string>

namespace stepfault::properties {

// Installs the handlers for SIGINT and SIGTERM in this process (idempotent), and puts the default
// disposition back (a later phase that does not stop gracefully, such as the mutant hunt).
void InstallInterruptHandlers();
void RestoreDefaultInterruptHandlers();
// The signal that asked this process to stop (0: none yet).
int InterruptSignal();
inline bool Interrupted() { return InterruptSignal() != 0; }
// "SIGINT", "SIGTERM" (another signal: "signal N"); empty when none.
std::string InterruptSignalName();
// Asks to stop as the signal would (tests, and a worker pool that gives up).
void RequestInterrupt(int sig);
// Forgets a request (tests only).
void ClearInterruptForTesting();

}  // namespace stepfault::properties
