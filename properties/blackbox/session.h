// One black-box session: recording the fault-free run of a spec under the recorder, and running
// one life after a fault (recovery under the recorder, lives up to lives_max, then the checks).
//
// Layout: every run gets a fresh working directory <cell>/work with the directory under test at
// <cell>/work/<spec.dir>; commands run there with /bin/sh -c and STEPFAULT_DIR (the absolute
// directory under test), STEPFAULT_ACKED (a file holding what the program acknowledged on stdout
// up to the fault), STEPFAULT_SPEC_DIR and UV_USE_IO_URING=0 set, and the stepfault binary's
// directory first on PATH. Nothing outside the scratch directory is written.
// Thread-safety: functions of values; distinct cells may run in parallel processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/status.h"
#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"
#include "properties/blackbox/checks.h"
#include "properties/blackbox/spec.h"

namespace stepfault::properties::blackbox {

struct SessionConfig {
  std::string preload;  // libstepfault_preload.so
  std::string bin_dir;  // put first on PATH
  std::string scratch;  // every cell directory goes below it
  uint64_t seed = 0;
};

// Finds libstepfault_preload.so: $STEPFAULT_PRELOAD, <dir of exe>/../lib, or the build's path.
std::string FindPreload();

struct Recording {
  faults::blackbox::CrashState initial;
  faults::blackbox::Trace trace;
  std::vector<faults::blackbox::TraceWindow> windows;
  Reference reference;
  // What the recording did not see, one reason each ("mmap-shared-write-untracked: data.bin",
  // "replaying the trace does not give the directory the run left (data.bin differs)"): when not
  // empty the recording is incomplete, and no verdict but inconclusive may come from it.
  std::vector<std::string> incomplete;
  std::vector<std::string> notes;  // volatile files, children left behind
};

// Runs setup, then the run commands under the recorder, then recovery and the checks fault-free.
// Every trace starts with a `volatile pattern=` record per glob of the spec's `volatile`, and the
// recorder gets them as STEPFAULT_BB_VOLATILE (one per line).
// kInvalidArgument (exit 2) when a command is missing or fails, the fault-free run fails its own
// checks, the program never touches the directory (zero windows), or a command hangs.
Result<Recording> Record(const Spec& spec, const SessionConfig& config, const std::string& cell);

// The live ioerror run: setup, then the run commands with `window` (point#N) failing with `err`.
// Leaves the directory in <cell>/work; returns its trace (for the acknowledgements).
Result<faults::blackbox::Trace> RunWithIOError(const Spec& spec, const SessionConfig& config,
                                               const std::string& cell, const std::string& window,
                                               int err);

struct LifeResult {
  std::vector<CheckFailure> failures;
  int lives = 0;
  faults::blackbox::Trace recovery_trace;  // of the first recovery life, when traced
  std::vector<std::string> notes;
};

// Materialises `state` into <cell>/work/<dir> (unless `materialise` is false: the directory is
// already there), writes `acked` to <cell>/acked.txt, recovers (traced when `trace_recovery`) and
// checks.
LifeResult RecoverAndCheck(const Spec& spec, const SessionConfig& config, const std::string& cell,
                           const faults::blackbox::CrashState* state, const std::string& acked,
                           const Reference* reference, bool trace_recovery);

// What the program wrote to stdout (write(2) on fd 1) before record `upto`.
std::string AckedBefore(const faults::blackbox::Trace& trace, size_t upto);

// The window whose id is `id`, or nullptr.
const faults::blackbox::TraceWindow* FindWindow(const std::vector<faults::blackbox::TraceWindow>& w,
                                                const std::string& id);

}  // namespace stepfault::properties::blackbox
