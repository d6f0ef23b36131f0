// The process exit codes of every stepfault command, in one place: the exploring commands
// (tools/cli) and the approval host commands (scenarios/approval) both return these, and the
// "Exit codes" tables of README.md and docs/cli.md and the list in docs/design.md (checked by
// tools/testing/docs_test.cc) document them. Rule per kind of outcome:
//   kExitOk        0  the command did what it was asked; every invariant held.
//   kExitViolation 1  an invariant was violated (explore, check, replay, mutants, report), or an
//                     approval command failed after it began changing the directory (an I/O error,
//                     --fail-after-write, a crash-at fault that never fired).
//   kExitUsage     2  bad usage or bad input, including a damaged directory (a receipt, checkpoint
//                     or database that cannot be read): the command changed nothing durable.
//   kExitCoverage  3  coverage below --min-coverage.
//   kExitInternal  4  an internal error (a bug in stepfault): the message says "please report" and
//                     names the command and seed.
//   kExitInconclusive 5  the recording the verdict would rest on is incomplete (black-box mode: the
//                     recorder saw I/O it cannot model, or the trace does not replay to the
//                     directory the run left): neither a pass nor a violation can be said; the
//                     report names what was not seen (`blackbox record`, `explore`, `replay`).
//   kExitInterrupted 130  explore was interrupted (SIGINT or SIGTERM) and found no violation: the
//                     report it wrote is partial (the shell's code for a Ctrl-C).
// Thread-safety: constants.
#pragma once

namespace stepfault {

inline constexpr int kExitOk = 0;
inline constexpr int kExitViolation = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitCoverage = 3;
inline constexpr int kExitInternal = 4;
inline constexpr int kExitInconclusive = 5;
inline constexpr int kExitInterrupted = 130;

}  // namespace stepfault
