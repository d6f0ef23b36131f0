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
#include <string>
#include <utility>

#include "engine/status.h"

namespace stepfault::cli {

using GetEnvFn = std::function<const char*(const char* name)>;

// The 1-based shard (index, count) the environment asks for; nullopt when it asks for none.
Result<std::optional<std::pair<int, int>>> ShardFromEnvironment(const GetEnvFn& getenv_fn);

// The shard one exploration runs, and who chose it.
struct Shard {
  int index = 1, count = 1;
  std::string source;  // "--shard", "GTEST_SHARD_INDEX", "JOB_COMPLETION_INDEX"; empty: unsharded
  // "shard 1/3 (from GTEST_SHARD_INDEX)" when the environment chose it; empty otherwise (a
  // --shard the user typed needs no reminder; an unsharded run has nothing to say).
  std::string EnvironmentNote() const;
  // The line after the summary when the environment chose the shard ("" otherwise).
  std::string SummaryNote() const;
};

// The shard of `explore` and `blackbox explore`: `flag` (the --shard text, I/N, strict decimal, at
// most 100000 shards) when given, else ShardFromEnvironment. The one parser of --shard.
Result<Shard> ResolveShard(const std::string& flag, const GetEnvFn& getenv_fn);
// The same over this process's environment (std::getenv): what the commands call.
Result<Shard> ResolveShard(const std::string& flag);

}  // namespace stepfault::cli
