// The checks every host shares: the ancestry oracle (INV-ANCESTRY) over a checkpoint directory, and
// the INV-OBSERVER / INV-TOPOLOGY facts every host records. They read durable bytes and the facts
// the lives reported, never the objects of the code under test.
// Thread-safety: as the scenario's life.
#pragma once

#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// INV-ANCESTRY over the checkpoint store in `subdir`: every checkpoint after a session's first
// names a parent; a child's step is its parent's step + 1; a stored checkpoint never changes
// (checked against the memo across lives).
void CheckAncestry(HostEnv& env, const std::string& subdir, const std::string& session_id,
                   std::vector<Violation>* out);

// INV-OBSERVER and INV-TOPOLOGY facts every host records, checked alike for every scenario.
void CheckHostFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out);

}  // namespace stepfault::scenarios
