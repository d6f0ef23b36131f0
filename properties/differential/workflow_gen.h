// Seeded random JSON scenarios for the differential (docs/engine-semantics.md §11): small acyclic
// workflows of pass-through, transform, effect, counter and request-port executors joined by direct
// edges (some with conditions), fan-outs and fan-in barriers, in the JSON scenario format
// (scenarios/json/json_scenario.h), so a workflow the two engines disagree on can be written out
// and replayed as a file. Promise: the same (seed, index) gives the same document, byte for byte,
// and every document parses (ParseJsonScenarioDef). "expect" is left empty: the differential
// compares two engines, not an engine with a written outcome. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace stepfault::properties {

// The index-th workflow of `seed`, as canonical JSON text; its name is "gen-<seed>-<index>".
std::string GenerateWorkflow(uint64_t seed, int index);

}  // namespace stepfault::properties
