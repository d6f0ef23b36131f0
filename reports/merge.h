// Merging the reports of a sharded exploration (`--shard i/n`, then `stepfault report merge`).
//
// Shards of one exploration list the same scenarios, windows and actions; each runs a disjoint
// part of the cells and marks the rest not-run. MergeShards gives the report the unsharded run
// would have given: a cell run in one shard wins over not-run, counters are summed, lists are
// unioned in canonical order, and shard becomes "1/1". Any mismatch is an error that says what
// differs, never a silently wrong report.
// Thread-safety: pure functions.
#pragma once

#include <vector>

#include "engine/status.h"
#include "reports/report_model.h"

namespace stepfault::reports {

// REQUIRES: the shards come from one exploration (same schema_version, command, seed, profile,
// hazards, depth and min_coverage_pct) and their shard fields "i/n" are exactly 1/n .. n/n in any
// order. Fails with kInvalidArgument otherwise, or when a cell ran in two shards.
Result<Report> MergeShards(const std::vector<Report>& shards);

// Sorts and deduplicates the report's lists into the canonical order MergeShards produces:
// violations by scenario (report order), window (scenario order), action (scenario order),
// invariant, then the remaining fields; properties by scenario, name; mutants by name, scenario;
// bench by family, name. Exploration calls this before writing so sharded and unsharded reports
// are byte-identical.
void Canonicalize(Report* report);

}  // namespace stepfault::reports
