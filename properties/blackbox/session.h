// One black-box session: recording the fault-free run of a spec under the recorder, and running
// one life after a fault (recovery under the recorder, lives up to lives_max, then the checks).
//
// Layout: every run gets a fresh working directory <cell>/work with the directory under test at
// <cell>/work/<spec.dir>; commands run there with /bin/sh -c and STEPFAULT_DIR (the absolute
// directory under test), STEPFAULT_ACK_FILE (the acknowledgement file: a program appends one line
// per acknowledged unit of work to it, e.g. `committed 7`, and the recorder notes where in the run
// each write to it happened), STEPFAULT_ACKED (for the checks: a file holding what the program
// acknowledged up to the fault), STEPFAULT_SPEC_DIR and UV_USE_IO_URING=0 set, and the stepfault
// binary's directory first on PATH. Nothing outside the scratch directory is written.
// Thread-safety: functions of values; distinct cells may run in parallel processes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/status.h"
#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"
#include "scenarios/blackbox/checks.h"
#include "scenarios/blackbox/spec.h"

namespace stepfault::properties::blackbox {

// Where a run's acknowledgements are read from (Spec::ack resolved by the fault-free run).
enum class AckChannel { kStdout, kFile };

struct SessionConfig {
  std::string preload;  // libstepfault_preload.so
  std::string bin_dir;  // put first on PATH
  std::string scratch;  // every cell directory goes below it
  uint64_t seed = 0;
  // The persistence model crash states are built under (crash_state.h).
  faults::blackbox::PersistenceModel fs_model = faults::blackbox::PersistenceModel::kPosix;
  AckChannel ack = AckChannel::kStdout;  // set from Recording::ack once recorded
};

// Finds libstepfault_preload.so: $STEPFAULT_PRELOAD, <dir of exe>/../lib, or the build's path.
std::string FindPreload();

struct Recording {
  faults::blackbox::CrashState initial;
  faults::blackbox::Trace trace;
  std::vector<faults::blackbox::TraceWindow> windows;
  scenarios::blackbox::Reference reference;
  AckChannel ack = AckChannel::kStdout;
  // What the recording did not see, one reason each ("mmap-shared-write-untracked: data.bin",
  // "replaying the trace does not give the directory the run left (data.bin differs)"): when not
  // empty the recording is incomplete, and no verdict but inconclusive may come from it.
  std::vector<std::string> incomplete;
  std::vector<std::string> notes;  // volatile files, children left behind
  // What the checks should hear about (shard-independent): acknowledgements nobody read.
  std::vector<std::string> warnings;
};

// Runs setup, then the run commands under the recorder, then recovery and the checks fault-free.
// Every trace starts with a `volatile pattern=` record per glob of the spec's `volatile`, and the
// recorder gets them as STEPFAULT_BB_VOLATILE (one per line).
// kInvalidArgument (exit 2) when a command is missing or fails, the fault-free run fails its own
// checks, the program never touches the directory (zero windows), a command hangs, or the spec
// says "ack": "file" and the run never wrote to $STEPFAULT_ACK_FILE. The acknowledgement channel
// is resolved here (rec.ack); when the fault-free run acknowledged nothing, or acknowledged work
// that no check command read ($STEPFAULT_ACKED, watched with inotify while the checks run), a
// warning says so.
Result<Recording> Record(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                         const std::string& cell);

// Whether window `w`'s call can be failed by the live ioerror run (its record carries k=: a
// stdio stream's bytes, snapshotted at flush, reached the file through calls nobody can fail).
bool CanFailLive(const faults::blackbox::Trace& trace, const faults::blackbox::TraceWindow& w);

// The live ioerror run of window `w` of `rec`, in <cell>/work. It starts at the last command
// boundary before the window: setup runs, the directory under test is replaced by the recording's
// state there (a process crash at proc.exit[cmdI]: every call before it applied; what earlier
// commands changed outside the directory is not carried), and the remaining run commands run
// with the window's call (its k, counted from the boundary) failing with `err`. When that run
// fails a different call (a program whose later commands depend on more than the directory's
// bytes), or when `from_start`, the whole run is made again from setup. `struck` says whether the
// failed call was the window's (by canonical point); `acked` is everything acknowledged (the
// recording's before the boundary, then this run's).
struct IOErrorRun {
  std::string acked;
  bool struck = false, from_start = false;
  std::string struck_point;  // the canonical point of the call that failed ("" when none did)
};
Result<IOErrorRun> RunWithIOError(const scenarios::blackbox::Spec& spec,
                                  const SessionConfig& config, const std::string& cell,
                                  const Recording& rec, const faults::blackbox::TraceWindow& w,
                                  int err, bool from_start);

struct LifeResult {
  std::vector<scenarios::blackbox::CheckFailure> failures;
  int lives = 0;
  faults::blackbox::Trace recovery_trace;  // of the first recovery life, when traced
  std::vector<std::string> notes;
  bool acked_read = false;  // a check command opened $STEPFAULT_ACKED
};

// Materialises `state` into <cell>/work/<dir> (unless `materialise` is false: the directory is
// already there), writes `acked` to <cell>/acked.txt, recovers (traced when `trace_recovery`) and
// checks.
LifeResult RecoverAndCheck(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                           const std::string& cell, const faults::blackbox::CrashState* state,
                           const std::string& acked,
                           const scenarios::blackbox::Reference* reference, bool trace_recovery);

// What the program acknowledged before record `upto`: on kStdout the bytes of the `stdout`
// records, on kFile the first S bytes of trace.ack_log, S the largest size of an `ack` record.
std::string AckedBefore(const faults::blackbox::Trace& trace, size_t upto, AckChannel channel);

// The window whose id is `id`, or nullptr.
const faults::blackbox::TraceWindow* FindWindow(const std::vector<faults::blackbox::TraceWindow>& w,
                                                const std::string& id);

}  // namespace stepfault::properties::blackbox
