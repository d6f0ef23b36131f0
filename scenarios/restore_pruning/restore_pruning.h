// restore-pruning: the pruning PR's cases (docs/sources.md, seed 002, MAF #7796 / PR #7939,
// docs/design.md §7): a restore or resume that fails must leave every stored checkpoint as it was,
// and only a restore that fully succeeded may prune, and then exactly the restored checkpoint's
// obsolete ancestors.
//
// One case per life, in order, each continuing from progress.json: (1) resume with incompatible
// workflows, (2) resume malformed checkpoints committed with a parent link, (3) a live restore
// whose executor hook fails, (4) a checkpoint whose edge state does not fit the workflow, fresh and
// live, (5) a live restore with a stale response queued before it, (6) restoring a non-latest
// checkpoint. Invariants: INV-ANCESTRY, INV-ATOMIC, INV-REQID, INV-CORRUPT, INV-TOPOLOGY,
// INV-OBSERVER. Thread-safety: the scenario object is immutable.
#pragma once

#include <memory>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {}  // namespace stepfault::scenarios
