// The oracles of the interactive-flow model: every INV-FLOW-* invariant, INV-ALO and INV-IDEM,
// judged from the database bytes alone (the final tables and the Journal, read through a
// read-only connection on a copy of the world), never from the actors' memory.
// Thread-safety: pure function of the database.
#pragma once

#include <vector>

#include "scenarios/interactive_flow/flow_db.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios::flow {

// Appends one Violation per broken invariant instance to *out. Call after Recover().
void CheckFlow(FlowDb& db, std::vector<Violation>* out);

}  // namespace stepfault::scenarios::flow
