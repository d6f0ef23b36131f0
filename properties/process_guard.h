// The process guard: the one mechanism that makes forked workers and the programs they run die
// together with the process that started them. Every worker pool (properties/worker_pool.h) makes
// its workers guarded workers and registers them; black-box mode also runs the user's program in a
// process group of its own (so a timeout kills everything it started), which is not in the
// terminal's foreground group, so a Ctrl-C never reached it, and a worker whose parent died went on
// running the program, reparented to init. The guard promises that they die together: a SIGINT,
// SIGTERM or SIGHUP to any guarded process kills the program group it is running (SIGKILL) and
// every worker it forked (SIGTERM, which each handles the same way), then the process dies of the
// signal; a worker dies (SIGTERM) when its parent dies, whatever the cause, and so does the shell
// that runs the program when its runner dies. A worker with no program group and no workers of its
// own (explore's, the mutant hunt's) thus dies of the signal as with the default disposition.
// The parent chooses what a signal does to itself: `blackbox` installs the guard (it dies, taking
// its workers along), `explore` the graceful interrupt of properties/interrupt.h (it stops its
// pool, which kills the workers, and writes a partial report). Thread-safety: call from the one
// thread that forks; the handler reads only lock-free atomics.
#pragma once

#include <sys/types.h>

namespace stepfault::properties {

// Installs the handlers in this process (idempotent).
void InstallProcessGuard();

// In a freshly forked worker of `parent`: forgets the parent's workers and program group, installs
// the handlers and asks for SIGTERM when the parent dies (at once if it already has).
void BecomeGuardedWorker(pid_t parent);

// The workers this process forked (at most 64 at a time): the handler passes its signal on to them.
void AddGuardedWorker(pid_t pid);
void RemoveGuardedWorker(pid_t pid);

// The process group of the program being run (0: none): the handler kills it.
void SetGuardedProgramGroup(pid_t pgid);

// In the child that becomes the program's shell: SIGKILL when its runner dies.
void DieWithParent();

}  // namespace stepfault::properties
