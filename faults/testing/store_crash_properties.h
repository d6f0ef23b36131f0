// Crash properties for a checkpoint store: the durability half of the store contract, checked at
// every file-system window of a workload on the simulated file system (faults/sim_fs.h), for a
// crash and for a power loss. The conformance suite (engine/testing/store_conformance.h) checks
// what a store does while it runs; this checks what survives when it dies.
//
// Method. The workload opens the store in a fresh SimFs and commits `checkpoints` checkpoints of
// one session, each the child of the previous, with deterministic payloads. A fault-free run
// records every file-system window; then, for every window and for crash and power loss, the
// workload runs again and dies there, the post-death world is taken (SimFs::CrashClone, tearing
// drawn from the seed), the store is reopened on it, and these must hold:
//   1. every checkpoint whose Commit returned ok before the death is listed by Index, in commit
//   order,
//      with its parent, and Retrieve returns exactly its bytes (Commit ok means durable);
//   2. at most one further entry is listed (the commit in flight), after them, and Retrieve of it
//      returns exactly its bytes or a typed error: kCorruption or kNotFound, never other bytes;
//   3. the reopened store accepts a new Commit, which Retrieve then returns exactly.
// Each failure names the window, the death and what broke, so it replays by hand.
//
// How to run it on your own store (link Stepfault::store_crash_properties; see examples/consumer):
//
//   auto result = stepfault::testing::CheckStoreCrashProperties(
//       [](stepfault::Env* env, const std::string& dir) -> stepfault::Result<...> {
//         return MyStore::Open(env, dir);   // every file operation through `env`
//       });
//   EXPECT_THAT(result.failures, ::testing::IsEmpty());
//   EXPECT_GT(result.states_checked, 0);
//
// The store must do all its I/O through the Env it is given (that is how the windows are seen).
// Thread-safety: runs on the calling thread; the opener is called from it only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"

namespace stepfault::testing {

// Opens (or reopens) the store kept in `dir` of `env`; `dir` exists.
using EnvStoreOpener =
    std::function<Result<std::unique_ptr<CheckpointStore>>(Env* env, const std::string& dir)>;

struct CrashPropertyOptions {
  int checkpoints = 5;         // commits of the workload
  size_t payload_bytes = 900;  // per checkpoint (spans sectors, so tearing matters)
  uint64_t seed = 20261130;    // tearing at power loss
};

struct CrashPropertyResult {
  int windows = 0;         // file-system windows of the fault-free workload
  int states_checked = 0;  // post-death worlds reopened and checked (crash and power loss)
  std::vector<std::string> failures;
};

CrashPropertyResult CheckStoreCrashProperties(const EnvStoreOpener& open,
                                              const CrashPropertyOptions& options = {});

}  // namespace stepfault::testing
