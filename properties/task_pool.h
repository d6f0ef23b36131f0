// Runs exploration tasks (plans) inline or in forked worker processes, on the worker pool
// (properties/worker_pool.h): results land in task order, so the outcome never depends on the
// number of workers.
//
// Every crash is a counterexample: an exception escaping a life becomes an INV-HARNESS violation
// inside RunPlan; a worker that aborts (SF_CHECK), dies of a signal or exits early turns the task
// it was running into an INV-HARNESS result naming the signal or exit status, and a new worker
// takes over the rest of its share. Inline (jobs <= 1) only exceptions are caught: an abort there
// ends the process, so run with --jobs 2 or more to survive one. Thread-safety: call from one
// thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "faults/injector.h"
#include "properties/life_runner.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {

// The windows of one life where a fault could be injected: every hit of a fault-free life, and the
// hits of a faulted life up to and including the one where its fault fired.
struct LifeWindows {
  std::string command;
  std::vector<faults::Window> windows;
};

struct TaskResult {
  std::vector<scenarios::Violation> violations;
  int lives = 0;
  bool completed = false;
  // One per life, in order; the windows only of the lives after the plan's last fault (the earlier
  // ones were discovered by the run the plan grew from), so results stay small. Equal lists are
  // one shared list (most recovery lives of a level have the same windows), and a worker sends
  // each distinct list once, then only its hash.
  std::vector<std::shared_ptr<const LifeWindows>> lives_windows;
  // The life the plan's last fault killed (1-based; 0 when that fault did not kill) and the digest
  // of the world it left (SimFs::Digest): the crash state the next lives recover from.
  int died_in_life = 0;
  std::string crash_digest;
  // Hash of the trace and the final world's digest, for INV-DETERMINISM.
  std::string fingerprint;
  // Not run: an interrupt was requested before it finished (properties/interrupt.h). Nothing else
  // in the result is meaningful; the explorer records nothing of it and grows nothing from it.
  bool interrupted = false;
};

// The summary of one execution of `plan`.
TaskResult Summarize(const faults::Plan& plan, const Execution& ex);

// An interrupt (properties/interrupt.h) stops the run: the workers are killed and every task not
// answered yet comes back `interrupted`.
// `reuse`: each process (inline: this one; else each worker, forked with an empty one) keeps a
// RunMemo across its tasks (the same results; see properties/life_runner.h). Workers get whole
// blocks of neighbouring tasks.
std::vector<TaskResult> RunTasks(const scenarios::Scenario& scenario, const RunConfig& config,
                                 const std::vector<faults::Plan>& plans, int jobs,
                                 const std::function<void(int64_t done)>& progress,
                                 bool reuse = false);

}  // namespace stepfault::properties
