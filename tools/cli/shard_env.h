// Which shard of an exploration this process runs, from the conventions CI systems already set, so
// a matrix job or an indexed job needs no per-shard command line:
//   - GoogleTest's sharding protocol (also set by Bazel and many CI wrappers): GTEST_SHARD_INDEX
//     (0-based) and GTEST_TOTAL_SHARDS;
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (0-based), with the total in
//     STEPFAULT_TOTAL_SHARDS (Kubernetes does not export the completion count; the manifest in
//     docs/ci/ sets it from the same value as `completions`).
// An explicit --shard I/N always wins. Both conventions set and disagreeing, a missing total, or a
// value that is not a whole number in range is an error that names the variable.
// Thread-safety: pure; `getenv` is called on the caller's thread.
#pragma once

#include <functional>
#include <optional>
#include <utility>

#include "engine/status.h"

namespace stepfault::cli {

using GetEnvFn = std::function<const char*(const char* name)>;

// The 1-based shard (index, count) the environment asks for; nullopt when it asks for none.
Result<std::optional<std::pair<int, int>>> ShardFromEnvironment(const GetEnvFn& getenv_fn);

}  // namespace stepfault::cli
