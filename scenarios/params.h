// Scenario parameters: each scenario declares its parameters once (Scenario::params(): name, type,
// range, default, one line of documentation) and everything else derives from that declaration:
// the defaults of the fault-free reference run, the validation of `--params`, `stepfault list
// params` and the replay help. ResolveParams merges a partial object over the defaults, rejects an
// unknown key (with "did you mean" when it is close to a declared one), a wrong type and a value
// out of range, so no input can take the machine's memory or make a scenario report a violation of
// a world it cannot model (a fan of width 0).
// Thread-safety: pure functions over values.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "engine/checkpoint_manager.h"
#include "engine/message.h"
#include "engine/status.h"

namespace stepfault::scenarios {

enum class ParamType {
  kInt,     // a JSON integer in [min, max]
  kString,  // a JSON string of valid UTF-8 whose length in bytes is in [min, max]
  kChoice,  // a JSON string, one of `choices`
};

struct ParamDecl {
  std::string name;
  ParamType type = ParamType::kInt;
  int64_t min = 0;
  int64_t max = 0;
  std::vector<std::string> choices;  // kChoice
  Json default_value;
  std::string doc;  // one line
  // The largest value (kInt) or length in code points (kString) the random check (`check`)
  // draws; 0: `max`. A smaller bound keeps a random life fast where the accepted range is wide.
  int64_t sample_max = 0;
  // Optional: the scenario's own rule for a value that passed the type and range (e.g. "not
  // blank").
  std::function<Status(const Json&)> check;
};

// {name: default} of every declared parameter.
Json DefaultParams(const std::vector<ParamDecl>& decls);

// `given` (null: none given) merged over the defaults and validated; kInvalidArgument naming the
// scenario, the key and what is allowed.
Result<Json> ResolveParams(const std::string& scenario, const std::vector<ParamDecl>& decls,
                           const Json& given);

// The checkpoint mode of a host that checkpoints into a durable store (issue 15: every store mode
// is explored like the others): "incremental" (the default: a full snapshot every
// kDefaultFullSnapshotEvery commits of a chain, deltas in between) or "full" (every checkpoint a
// full snapshot, K = 1, MAF's own mode). Declared by the scenarios that explore both.
inline constexpr char kCheckpointModeParam[] = "checkpoints";
ParamDecl CheckpointModeParam();
// The interval K of the incremental mode (issue 29: a small K makes exploration and `check` crash
// delta chains and their bases): 1..kDefaultFullSnapshotEvery, default kDefaultFullSnapshotEvery.
// Declared beside CheckpointModeParam; ignored when the mode is "full".
inline constexpr char kFullEveryParam[] = "full_every";
ParamDecl FullEveryParam();
// The StoreCheckpointOptions the mode and interval in `params` ask for (absent: incremental, the
// default interval).
StoreCheckpointOptions CheckpointOptionsOf(const Json& params);

// "width  int 1..64  default 3  the number of parallel workers" lines, one per parameter.
std::string DescribeParams(const std::vector<ParamDecl>& decls, const std::string& indent);

}  // namespace stepfault::scenarios
