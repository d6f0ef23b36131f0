// The differential between Stepfault's engine (under maf-compat) and the real MAF 1.28, run by
// maf-runner (maf/Runner): both give the normalized trace of a JSON scenario in the modes run,
// restore:N and resume:N (scenarios/json/normalized_trace.h), and CompareTraces lists every way
// the two differ. Each difference either matches a documented deviation (kDeviations: the engine
// is deliberately not MAF there, docs/engine-semantics.md §11.3) or is undocumented, which is a
// finding: a bug in the engine's model of MAF to fix, or a deviation to name and document.
// Thread-safety: functions of their arguments; RunMaf starts a process.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/json_text.h"
#include "engine/status.h"
#include "scenarios/json/normalized_trace.h"

namespace stepfault::properties {

// The InProcessExecution environment maf-runner runs MAF in (--execution): Lockstep runs each
// super-step in the watching thread and delivers its events after it; OffThread (MAF's default,
// InProcessExecution.Default) runs super-steps on a background thread and streams events as they
// are raised. Deviations may apply to one of them only.
enum class MafExecution { kLockstep, kOffThread };
const char* ExecutionName(MafExecution e);  // "lockstep", "offthread"
// "lockstep" or "offthread"; kInvalidArgument naming the text otherwise.
Result<MafExecution> ParseExecution(const std::string& text);

struct TraceDifference {
  std::string kind;       // "step.invoked", "checkpoint.state", "line missing in engine", ...
  std::string where;      // "line 4 (step 2)", "cp3"
  Json maf, engine;       // the two values (null where one side has nothing)
  int64_t step = -1;      // the super-step of the line or checkpoint (-1: none, e.g. a halt)
  std::string deviation;  // the kDeviations name that documents it; empty: undocumented
};

// What a deviation may know about the whole mode besides the difference itself.
struct ModeFacts {
  // The execution MAF's trace came from.
  MafExecution execution = MafExecution::kLockstep;
  // The first super-step at which MAF invoked an executor with an emptied message
  // ({"type": "", "body": {}}: maf-restored-message-emptied); -1 when it never did.
  int64_t maf_emptied_message_step = -1;
  // The engine refused the mode because its run had ended (failed-step-ends-run).
  bool engine_refused_ended_run = false;
  // Some step of MAF's trace has a failed executor.
  bool maf_failed_step = false;
  // The first super-step of the engine's trace in which a fan-in barrier's rounds depend on the
  // order its messages arrive (fan-in-rounds-by-thread-timing): two or more of its sources send
  // to it, and one of them sends twice or sends while a message of its own is still buffered. -1
  // when no step does. A restore or resume from a checkpoint taken at or after such a step of
  // the run starts from a barrier the race already shaped: every line of the mode counts.
  int64_t fan_in_order_step = -1;
  bool fan_in_order_inherited = false;
  // The first step at which the two traces differ although both invoked the same messages, and a
  // receiver of that step had messages queued from two or more senders
  // (receiver-order-by-thread-timing); -1 when there is none.
  int64_t receiver_order_step = -1;
  // The first step of each side with a WorkflowError, no failed executor and no checkpoint: its
  // state publish failed (maf-state-conflict-runs-on); -1 when there is none.
  int64_t maf_unpublished_step = -1;
  int64_t engine_unpublished_step = -1;
  // MAF threw on a live restore because failed state updates were still queued.
  bool maf_refused_restore_queued_updates = false;
  // MAF's trace is only a begin line and a halt with this status ("" when it is more than that).
  std::string maf_halt_only_status;
  // The first step after a halt at which the host sent MAF two or more responses; -1 when there
  // is none (offthread-responses-split-by-timing).
  int64_t maf_after_responses_step = -1;
  // The mode is a restore or resume (or one side lacks it) and the engine's run answered two or
  // more requests at one halt: under OffThread, MAF's fresh run the mode starts from took steps
  // and checkpoints thread timing decided (its checkpoint N may differ, or be missing: an error
  // line "the run wrote checkpoints 0..K").
  bool maf_run_shorter_after_responses = false;
};

// A documented deviation: what differs, why the engine differs from MAF there, and how the
// comparison accounts for it (which differences it claims).
struct Deviation {
  const char* name;
  const char* reason;
  const char* accounts;
  std::function<bool(const TraceDifference&, const ModeFacts&)> matches;
};
const std::vector<Deviation>& Deviations();

// Every difference between two traces of one mode, each matched against Deviations().
// `engine_run`, the engine's trace of the fault-free run, lets a restore:N or resume:N mode
// inherit what happened before checkpoint N (a fan-in order race ahead of the checkpoint it
// starts from); without it only the mode's own lines count. `execution`: the one `maf` came from.
std::vector<TraceDifference> CompareTraces(const std::vector<Json>& maf,
                                           const std::vector<Json>& engine,
                                           const std::vector<Json>& engine_run = {},
                                           MafExecution execution = MafExecution::kLockstep);

// Splits a concatenated multi-mode trace (maf-runner --all) at its "begin" lines: mode -> lines.
std::vector<std::pair<std::string, std::vector<Json>>> SplitModes(const std::vector<Json>& lines);

// Runs `maf_runner` on the scenario file with `args` (e.g. {"--all"}) and parses its stdout.
// kNotFound when the program is missing, kInternal with its stderr when it fails.
Result<std::vector<Json>> RunMaf(const std::string& maf_runner, const std::string& scenario_file,
                                 const std::vector<std::string>& args);

// The engine's trace of one mode. A restore:N or resume:N the engine refuses (its run ended, a
// checkpoint it did not write) is a trace too, a begin line and an error line with the reason,
// since it differs from MAF's where MAF went on; a scenario that does not parse is an error.
Result<std::vector<Json>> EngineModeTrace(const std::string& scenario_text,
                                          const std::string& source_name,
                                          const scenarios::TraceMode& mode);

// The engine's traces of every mode maf-runner --all gives: run, then restore:N and resume:N for
// every checkpoint N of the engine's run (so a checkpoint count that differs shows as modes one
// side lacks).
Result<std::vector<std::pair<std::string, std::vector<Json>>>> EngineAllModes(
    const std::string& scenario_text, const std::string& source_name);

// One workflow compared in every mode.
struct WorkflowComparison {
  std::string name, file;
  MafExecution execution = MafExecution::kLockstep;
  int checkpoints = 0;  // the MAF run's
  int modes = 0;
  std::vector<std::pair<std::string, TraceDifference>> differences;  // mode -> difference
  std::string error;  // a side failed to run the workflow (a finding as well)
};
WorkflowComparison CompareWorkflow(const std::string& maf_runner, const std::string& file,
                                   const std::string& text,
                                   MafExecution execution = MafExecution::kLockstep);

}  // namespace stepfault::properties
