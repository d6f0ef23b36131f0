// The worker pool: runs job(i) for a list of indices, here (jobs <= 1) or in forked worker
// processes, and gives the results back in the order of the list, so the outcome never depends on
// the number of workers. Every parallel phase uses it: exploration's tasks (task_pool.h), the
// mutant hunt (mutants.h) and black-box exploration's cells (blackbox/explore_internal.h).
// SQLite's randomness is process-wide, so parallel runs need processes, not threads.
//
// - Workers get whole blocks of neighbouring indices, dealt in turn for balance, run their share in
//   increasing index order, and stream one JSON line per finished job back through a pipe;
//   `progress` hears every finished job in the parent.
// - A worker that dies (an abort, SF_CHECK, a signal, an early exit) has the job it was on answered
//   by `on_death(index, how)`, `how` naming the death: "died of signal 6 (Aborted)" or "exited with
//   status 7"; a new worker takes over the rest of its share, and every other job is answered as if
//   nothing happened. An exception escaping a job in a worker is such a death (an abort, the
//   exception's text on stderr). Inline (jobs <= 1) nothing is caught: an abort there ends the
//   process, an exception reaches the caller.
// - Workers are guarded workers (properties/process_guard.h): they die with the parent, and take
//   the program they run with them.
// - An interrupt (properties/interrupt.h) stops the pool: the workers are killed (a worker killed
//   by the same Ctrl-C is not a death) and every job not answered yet comes back empty (nullopt).
//   Inline, the flag is looked at before each job.
// - Memory: a worker is forked from the parent as it is when the pool starts (or when a dead
//   worker is replaced), so state a job keeps across calls (a cache captured by the job) is per
//   process: each worker has its own copy, which starts as the parent's.
// Thread-safety: call from one thread; the pool forks.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace stepfault::properties {

struct PoolOptions {
  int jobs = 1;
  // In the parent, once per job answered (by the job or by on_death), with the count so far.
  std::function<void(int64_t done)> progress;
  // The result of the job a worker died on (required when jobs > 1).
  std::function<nlohmann::json(size_t index, const std::string& how)> on_death;
  // In each worker after its last job (inline: after the last job), e.g. a diagnostic.
  std::function<void()> at_exit;
  // When set, each answer is handed over in the parent as it arrives (position k into the index
  // list, the answer) instead of being kept until the pool ends, and its result is left a null
  // JSON value (answered); nullopt still means interrupted. Answers arrive in increasing order of
  // k from each worker (inline: all in order), not in order across workers. For a caller that
  // turns answers into something smaller: a level's answers as JSON trees were 170 MB of one
  // exploration process (issue 27).
  std::function<void(size_t k, nlohmann::json&& answer)> on_answer;
};

// job(indices[k]) for every k; result k answers indices[k]; nullopt: interrupted before it ran.
std::vector<std::optional<nlohmann::json>> RunPool(const std::vector<size_t>& indices,
                                                   const std::function<nlohmann::json(size_t)>& job,
                                                   const PoolOptions& options);

// The indices 0 .. n-1.
std::vector<size_t> AllIndices(size_t n);

// How a worker's wait status reads in a death: "died of signal N (NAME)" or "exited with status N".
std::string DescribeDeath(int wait_status);

// One job in a forked guarded worker while the caller goes on: a pool of one job that blocks only
// when its answer is asked for. `explore` runs each schedule scenario so, beside the variants'
// pools: it is one long sequential search, which left the second core idle for its whole length.
// The worker is forked at construction, from the process as it is then; the workers a later pool
// forks inherit only the read end of its pipe, so its end of stream is its own. The answer
// travels as one JSON line when the job is done (the worker waits on a full pipe until Finish).
// Thread-safety: as RunPool (call from one thread; it forks).
class BackgroundJob {
 public:
  explicit BackgroundJob(const std::function<nlohmann::json()>& job);
  ~BackgroundJob();  // a worker not finished is killed and reaped
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Waits for the job's answer. nullopt: an interrupt (properties/interrupt.h) came first, and the
  // worker is killed (a worker killed by the same Ctrl-C is not a death); a worker that died
  // without answering (an abort, SF_CHECK, a signal, an exception, an early exit) is answered by
  // on_death(how), `how` as RunPool's on_death hears it. Once only.
  std::optional<nlohmann::json> Finish(
      const std::function<nlohmann::json(const std::string& how)>& on_death);

 private:
  void Stop();  // kills and reaps the worker

  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace stepfault::properties
