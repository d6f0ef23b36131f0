// The host mistakes the interactive-flow model can reproduce (its mutants), each found only by
// some interleaving of its actors (and sometimes a crash or a jump of the logical clock), with the
// invariant expected to catch it. Names are stable: the name after "host:" in reports.
// Thread-safety: constants.
#pragma once

#include <string>
#include <vector>

namespace stepfault::scenarios::flow {

inline constexpr char kHazardLeaseNotCheckedOnClaim[] = "flow-lease-not-checked-on-claim";
inline constexpr char kHazardLeaseShorterThanTimeout[] = "flow-lease-shorter-than-timeout";
inline constexpr char kHazardDuplicateResponseResumesTwice[] =
    "flow-duplicate-response-resumes-twice";
inline constexpr char kHazardExpiryIgnoresAcceptance[] = "flow-expiry-ignores-acceptance";
inline constexpr char kHazardSweepRequeuesLiveLease[] = "flow-sweep-requeues-live-lease";
inline constexpr char kHazardProjectionBeforeTruth[] = "flow-projection-before-truth-unrepaired";
inline constexpr char kHazardResumeLatestRevision[] = "flow-resume-latest-revision";
inline constexpr char kHazardPurgeIgnoresLiveReferences[] = "flow-purge-ignores-live-references";
inline constexpr char kHazardLeaseReleaseIgnoresEpoch[] = "flow-lease-release-ignores-epoch";

struct FlowHazard {
  const char* name;
  const char* meaning;
  const char* expected_invariant;  // an id of scenarios/invariants.h
};

// Every hazard, in a fixed order.
const std::vector<FlowHazard>& FlowHazards();

}  // namespace stepfault::scenarios::flow
