// The artifact-boundary scenario's workflow (ADR-0015's fixed-macro autonomous phase):
//
//   dispatch  --fan-out-->  producer-a  ------------------+
//       |                   producer-b  -> (one extra step) +--fan-in--> manifest
//       |                                                                  |
//       |                                                     accepted-artifact-boundary
//       |                                                                  |
//       +-------- (Accepted, on recovery only) -------------------->  synthesis (output)
//
// The producers are the nondeterministic autonomous phase: each invocation records a provider call
// in the ledger. "manifest" is the all-settled fan-in barrier; "accepted-artifact-boundary" is the
// deterministic validation that publishes the accepted artifact durably before forwarding it;
// "synthesis" is the downstream phase that may replay (at-least-once terminal output).
// On recovery after a process restart the host starts the workflow with an Accepted message, which
// dispatch routes straight to synthesis: the accepted producer phase is never called again.
// Thread-safety: the spec's executors use the ledger and Env of one life, on the run's thread.
#pragma once

#include <string>

#include "engine/workflow_spec.h"
#include "scenarios/artifact_boundary/artifact_boundary_records.h"

namespace stepfault::scenarios {

inline constexpr char kDispatchId[] = "dispatch";
inline constexpr char kProducerAId[] = "producer-a";
inline constexpr char kProducerBId[] = "producer-b";
inline constexpr char kManifestId[] = "manifest";
inline constexpr char kBoundaryId[] = "accepted-artifact-boundary";
inline constexpr char kSynthesisId[] = "synthesis";

// What the executors reach outside the engine. REQUIRES: every pointer outlives the runs of the
// spec; *segment names the timeline the host is running ("original", "restored", "recovered").
struct ArtifactWorkflowDeps {
  Env* env = nullptr;
  std::string dir;
  uint64_t root_seed = 0;
  ArtifactLedger* ledger = nullptr;
  const std::string* segment = nullptr;
};

WorkflowSpec BuildArtifactBoundarySpec(const ArtifactWorkflowDeps& deps);

// What producer `phase` returns on its `attempt`-th provider call (deterministic per attempt, and
// different across attempts, so a replayed producer shows in the artifact).
std::string ProducerContent(uint64_t root_seed, const std::string& phase, int attempt);
// The boundary's deterministic validation: both producers settled, each content is what its
// recorded attempt returns.
Status ValidateManifest(uint64_t root_seed, const Json& manifest);
// The stable identity of an accepted manifest.
std::string ArtifactIdOf(uint64_t root_seed, const Json& manifest);
// The terminal output synthesis derives from an accepted artifact.
std::string Synthesize(const AcceptedArtifact& artifact);

}  // namespace stepfault::scenarios
