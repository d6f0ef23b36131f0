// The process guard: black-box exploration runs the user's program in a process group of its own
// (so a timeout kills everything it started) and, with --jobs, in forked worker processes. Neither
// is in the terminal's foreground group, so a Ctrl-C never reached them, and a worker whose parent
// died went on running the program, reparented to init. The guard promises that they die
// together: a SIGINT, SIGTERM or SIGHUP to any of these processes kills the program group it is
// running (SIGKILL) and every worker it forked (SIGTERM, which each handles the same way), then the
// process dies of the signal; a worker dies (SIGTERM) when its parent dies, whatever the cause, and
// so does the shell that runs the program when its runner dies.
// Thread-safety: call from the one thread that forks; the handler reads only lock-free atomics.
#pragma once

#include <sys/types.h>

namespace stepfault::properties::blackbox {

// Installs the handlers in this process (idempotent).
void InstallProcessGuard();

// In a freshly forked worker of `parent`: forgets the parent's workers, installs the handlers and
// asks for SIGTERM when the parent dies (at once if it already has).
void BecomeGuardedWorker(pid_t parent);

// The workers this process forked: the handler passes its signal on to them.
void AddGuardedWorker(pid_t pid);
void RemoveGuardedWorker(pid_t pid);

// The process group of the program being run (0: none): the handler kills it.
void SetGuardedProgramGroup(pid_t pgid);

// In the child that becomes the program's shell: SIGKILL when its runner dies.
void DieWithParent();

}  // namespace stepfault::properties::blackbox
