// The invariant registry: every invariant id as a constant, with the statement reports print
// (docs/design.md §6). It sits below the scenarios so that every oracle names an invariant through
// a constant from here, never a string of its own; a test checks that every id a scenario declares
// or reports is registered here and documented in docs/invariants.md's table. Thread-safety:
// immutable after first use.
#pragma once

#include <string>
#include <vector>

namespace stepfault::scenarios {

inline constexpr char kInvAlo[] = "INV-ALO";
inline constexpr char kInvIdem[] = "INV-IDEM";
inline constexpr char kInvNoreplay[] = "INV-NOREPLAY";
inline constexpr char kInvAncestry[] = "INV-ANCESTRY";
inline constexpr char kInvAtomic[] = "INV-ATOMIC";
inline constexpr char kInvTopology[] = "INV-TOPOLOGY";
inline constexpr char kInvCorrupt[] = "INV-CORRUPT";
inline constexpr char kInvReqid[] = "INV-REQID";
inline constexpr char kInvDecision[] = "INV-DECISION";
inline constexpr char kInvReceipt[] = "INV-RECEIPT";
inline constexpr char kInvObserver[] = "INV-OBSERVER";
inline constexpr char kInvLiveness[] = "INV-LIVENESS";
inline constexpr char kInvExpect[] = "INV-EXPECT";
inline constexpr char kInvDeterminism[] = "INV-DETERMINISM";
// Black-box mode (docs/blackbox.md).
inline constexpr char kInvBbCheck[] = "INV-BB-CHECK";
inline constexpr char kInvBbSql[] = "INV-BB-SQL";
inline constexpr char kInvBbIntegrity[] = "INV-BB-INTEGRITY";
inline constexpr char kInvBbStray[] = "INV-BB-STRAY";
// The crash model's self-check (faults/blackbox/crash_catalogue.h), not a check of a program.
inline constexpr char kInvBbModel[] = "INV-BB-MODEL";
inline constexpr char kInvHarness[] = "INV-HARNESS";
// Interactive flow (ADR-0054; scenarios/interactive_flow/): several actors in one world.
inline constexpr char kInvFlowOneRequest[] = "INV-FLOW-ONE-REQUEST";
inline constexpr char kInvFlowOneAccept[] = "INV-FLOW-ONE-ACCEPT";
inline constexpr char kInvFlowNoDoubleResume[] = "INV-FLOW-NO-DOUBLE-RESUME";
inline constexpr char kInvFlowLease[] = "INV-FLOW-LEASE";
inline constexpr char kInvFlowExpiry[] = "INV-FLOW-EXPIRY";
inline constexpr char kInvFlowAnsweredResumed[] = "INV-FLOW-ANSWERED-RESUMED";
inline constexpr char kInvFlowProjection[] = "INV-FLOW-PROJECTION";
inline constexpr char kInvFlowBinding[] = "INV-FLOW-BINDING";
inline constexpr char kInvFlowPurge[] = "INV-FLOW-PURGE";

struct InvariantInfo {
  std::string id;
  std::string statement;
};

// Every invariant, in report order.
const std::vector<InvariantInfo>& AllInvariants();
// The statement of `id` ("" when unknown).
std::string InvariantStatement(const std::string& id);
// Whether `id` is registered.
bool IsRegisteredInvariant(const std::string& id);

}  // namespace stepfault::scenarios
