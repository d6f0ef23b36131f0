// The artifact-boundary host: one life = one process running the operator's next command, chosen
// from the durable records alone (artifact_boundary.h describes the commands).
//
// Facts a life reports for the oracle (artifact_boundary.cc checks them):
//   selected_checkpoint_step   the step whose checkpoint the host restored
//   replayed_after_restore     executors at or before the boundary that ran after the restore
//   replayed_after_acceptance  producer-phase executors that ran in a recovery run
//   provider_calls_after_restore / provider_calls_after_acceptance   ledger rows they added
//   restored_outputs           terminal outputs of the restored segment (must be exactly 1)
//   outputs, duplicate_outputs, output_mismatch   terminal outputs seen / already published /
//                                                 different from the published one
//   checkpoints_changed_after_commit, ancestry_errors   checkpoints of the watched run that changed
//                                                       after their commit (or cannot be read
//                                                       back), broken parent links
// Thread-safety: a life runs on one thread.
#pragma once

#include <string>

#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// The host hazard of this scenario: the host selects the checkpoint completed before the accepted
// boundary, so a restore runs the producers again.
inline constexpr char kHazardBoundaryCheckpointTooEarly[] = "boundary-checkpoint-too-early";

// The job's stable identity: the key of its terminal publication.
std::string ArtifactJobId(uint64_t root_seed);

// The recovery run's durable checkpoints: the store env.checkpoint_store names, in <dir>/recovery,
// one session per job.
inline constexpr char kArtifactRecoveryDir[] = "recovery";
std::string ArtifactRecoverySession(uint64_t root_seed);

void RunArtifactBoundaryLife(HostEnv& env, LifeReport* report);

}  // namespace stepfault::scenarios
