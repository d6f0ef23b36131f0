// Topology mutators: the recovery side of the fault model. Each takes the spec of the workflow a
// host would rebuild and returns a deliberately different one, as a careless rebuild would:
//   permute-edges     the same edges added in another order (so EdgeIds move)
//   swap-fan-in       two fan-in barrier edges added in swapped order
//   rename-executor   one executor (not the start, not a port) gets another id everywhere
//   remove-edge       the last edge is not added
//   change-port-type  a request port's response type changes
//   duplicate-edge    of two different edges with the same sources, the one that is not a copy
//                     the builder would fold away (an unconditional direct edge) is added twice:
//                     {s->X, s->Y} becomes {s->X, s->X}. Same executors, same edge count per
//                     source, so only a matcher that pairs edges one to one (bijectively) tells
//                     them apart (the non-bijective-edge-matching mutant, MAF IsMatch).
// Every mutation changes the topology signature, so a strict engine must reject a resume with it.
// A mutation the topology cannot express (swap-fan-in with fewer than two barriers,
// duplicate-edge without two different edges of the same sources) is
// kFailedPrecondition: the cell is not applicable to that scenario.
// Thread-safety: pure functions.
#pragma once

#include "engine/workflow_spec.h"
#include "faults/plan.h"

namespace stepfault::faults {

Result<WorkflowSpec> MutateTopology(const WorkflowSpec& spec, TopologyMutation mutation);

// Whether `mutation` applies to `spec`.
bool MutationApplies(const WorkflowSpec& spec, TopologyMutation mutation);

}  // namespace stepfault::faults
