// The durable store rows of BM_Step (modes file, sqlite and the sqlite_* variants of modes.cc):
// each store step measured side by side with its physical limit and with the parts it is made of,
// in one loop, so that every figure of a row saw the same disk and the same load.
//
// One iteration, with everything but the store step paused (Google Benchmark reports the store
// step's wall time, as the other disk rows do):
//  1. one step of the same workflow without checkpointing (the engine alone, in memory);
//  2. one step with StoreCheckpointManager over a store that discards what it is given (the engine,
//     the manager and the checkpoint's encode and seal; no store, no disk);
//  3. one step of the durable store, its Commit timed inside the step by a forwarding store;
//  4. one operation of the mode's limit (atomic file publish or append + fdatasync) on the same
//     number of bytes, before the store step in odd iterations and after it in even ones (so
//     neither side always follows the other's fsync);
//  5. when the run is exhausted and in the last iteration, closing the store (the run, its
//     manager and its store destroyed, timed after step 3): a SQLite store's close copies the
//     WAL written since its last automatic checkpoint into the database, part of what its commits
//     cost (untimed, each run hid up to a checkpoint interval of it, so the mean depended on the
//     iteration count).
// Counters (per step, means over the iterations of the run; wall time unless named _cpu):
//  limit_ns, ratio = (sum of store step times + closes) / sum of limit times (same iterations);
//  close_ns (5, per step);
//  engine_ns (1), encode_ns = (2) - (1), commit_ns (the store's Commit within step 3),
//  outside_commit_ns = step 3 - commit_ns (the store step's own engine + encode: compare with
//  (2)), commit_cpu_ns and limit_cpu_ns (thread CPU time, system time included), step_cpu_ns;
//  crc_pass_ns, one CRC32C pass over as many bytes (untimed by Google Benchmark: what the codec's
//  seal costs, and what a commit saves by taking the CRC from that seal); the medians
//  step_median_ns, commit_median_ns, limit_median_ns and the slowest commit, commit_max_ns.
// Thread-safety: single-threaded.
#pragma once

#include <benchmark/benchmark.h>

#include "tools/bench/harness.h"
#include "tools/bench/modes.h"

namespace stepfault::bench {

// REQUIRES: mode.on_disk and mode.limit is a disk limit kind.
void RunDurableStep(benchmark::State& state, const Mode& mode, const StepConfig& config);

}  // namespace stepfault::bench
