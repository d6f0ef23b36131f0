// The checks every host shares: the ancestry and durability oracle (INV-ANCESTRY) over a checkpoint
// store, the independent statement of the pruning rule, and the INV-OBSERVER / INV-TOPOLOGY facts
// every host records. They read durable bytes (through DurableCheckpoints, the stores' own exported
// decoders) and the facts the lives reported, never the objects of the code under test.
// Thread-safety: as the scenario's life.
#pragma once

#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// INV-ANCESTRY over the checkpoint store in `subdir`: every checkpoint after a session's first
// names a parent; a child's step is its parent's step + 1; a stored checkpoint never changes
// (checked against the memo across lives); every stored checkpoint the store resolves to, and
// every checkpoint a restore loaded, equals field by field what the engine exported at its step
// (the fingerprints HostCheckpointManager recorded, checkpoint_reference.h). With
// `check_deletions`: a checkpoint seen at an earlier check may disappear only when a life since
// then resumed successfully from a checkpoint of which it is an obsolete ancestor (ExpectedPruned),
// or when a power loss took a checkpoint no life ever observed as committed; a checkpoint a life
// observed as committed (reported written by a SuperStepCompleted, or resumed from) that is gone
// otherwise is a durability violation.
void CheckAncestry(HostEnv& env, const std::string& subdir, const std::string& session_id,
                   const std::vector<LifeReport>& lives, bool check_deletions,
                   std::vector<Violation>* out);

// The pruning rule written again from its statement (#7796, docs/stores.md), not by
// calling the engine's ObsoleteBeforeRestored, so the oracle does not agree with a bug in it: the
// checkpoint ids of `index` (one session, commit order) strictly before `target` that are legacy
// entries (no parent metadata), parentless roots, or ancestors of `target` by parent links.
// Nothing when `target` is absent or first.
std::vector<std::string> ExpectedPruned(const std::vector<StoreEntry>& index,
                                        const std::string& target);

// INV-CORRUPT for a host whose documented recovery is the fallback to an intact ancestor
// (ResumeLatestIntact): when the newest life gave up (`final`), the store must hold no intact
// checkpoint of the session that decodes; a give-up while one exists means the fallback was not
// taken. Reads durable bytes through DurableCheckpoints.
// The field a conflicting-response variation of this life changes (env.variation.conflict, set by
// the life runner from the plan's action).
faults::ConflictField ConflictFieldOf(const HostEnv& env);

void CheckGiveUp(HostEnv& env, const std::string& subdir, const std::string& session_id,
                 const std::vector<LifeReport>& lives, std::vector<Violation>* out);

// INV-OBSERVER and INV-TOPOLOGY facts every host records, checked alike for every scenario.
void CheckHostFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out);

}  // namespace stepfault::scenarios
