// Runs exploration tasks (plans) inline or in forked worker processes. SQLite's randomness is
// process-wide, so parallel runs need processes, not threads; each worker runs every N-th task and
// streams its results back through a pipe as JSON lines; results land in task order, so the outcome
// never depends on the number of workers.
// Thread-safety: call from one thread.
#pragma once

#include <functional>
#include <vector>

#include "faults/injector.h"
#include "properties/life_runner.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {

struct TaskResult {
  std::vector<scenarios::Violation> violations;
  int lives = 0;
  bool completed = false;
  // Where the first death struck (life index, 1-based; 0 when no life died) and the windows of the
  // life after it: the candidates for a second fault.
  int died_in_life = 0;
  std::vector<faults::Window> recovery_windows;
};

std::vector<TaskResult> RunTasks(const scenarios::Scenario& scenario, const RunConfig& config,
                                 const std::vector<faults::Plan>& plans, int jobs,
                                 const std::function<void(int64_t done)>& progress);

}  // namespace stepfault::properties
