// The invariant table (see invariants.h).
#include "scenarios/invariants.h"

namespace stepfault::scenarios {

const std::vector<InvariantInfo>& AllInvariants() {
  static const auto* list = new std::vector<InvariantInfo>{
      {kInvAlo,
       "after recovery completes, every effect of the fault-free reference run exists "
       "(at-least-once)"},
      {kInvIdem,
       "each operation id has at most one effect row; every replay returns the same item id"},
      {kInvNoreplay,
       "after restoring an accepted-boundary checkpoint, no executor at or before the boundary "
       "runs again"},
      {kInvAncestry,
       "a restore or resume that fails deletes and changes no stored checkpoint; stored "
       "checkpoints keep their parent links and never change: each resolves, in the store and "
       "when a restore loads it, to exactly what the engine exported at its step"},
      {kInvAtomic, "a restore that fails leaves the run exactly as it was"},
      {kInvTopology,
       "an incompatible workflow is rejected before any state is imported; the workflow stays "
       "usable"},
      {kInvCorrupt,
       "damaged checkpoint/index/receipt bytes give a typed error or a documented fallback to an "
       "intact ancestor"},
      {kInvReqid,
       "a pending request is re-emitted after restore with the same RequestId; a mismatched "
       "response is rejected and the request stays pending"},
      {kInvDecision,
       "the first valid decision is persisted before it reaches the engine; a replay must repeat "
       "it exactly; a conflicting one is rejected; a rejection creates no effect"},
      {kInvReceipt, "a receipt observed as published survives power loss intact"},
      {kInvObserver, "cancelling an event watcher does not cancel execution"},
      {kInvLiveness,
       "with finitely many faults, recovery reaches completion within a bounded number of lives"},
      {kInvExpect, "every terminal output a JSON scenario observes is one its file expects"},
      {kInvDeterminism,
       "the same scenario, seed and plan give a byte-identical event trace and final state"},
      {kInvBbCheck,
       "black box: after recovery from every crash state, every check command of the spec exits 0"},
      {kInvBbSql, "black box: after recovery, every SQL check of the spec gives its expected rows"},
      {kInvBbIntegrity,
       "black box: after recovery, every SQLite database in the directory passes PRAGMA "
       "integrity_check"},
      {kInvBbStray,
       "black box (opt-in): after recovery, no file is left that the fault-free run never leaves"},
      {kInvBbModel,
       "black box: the crash states built from a recording are exactly those the crash model's "
       "rules give (the crash-state catalogue: at every window of every entry, every catalogued "
       "state of a crash, a power loss over every tearing and a reorder is built, and no other)"},
      {kInvHarness,
       "no run throws an exception, fails an assertion or dies of a signal: whatever a plan does, "
       "the code under test and its oracles end every life normally"},
      {kInvFlowOneRequest, "interactive flow: a runtime request creates exactly one InputRequest"},
      {kInvFlowOneAccept, "interactive flow: at most one response per InputRequest is accepted"},
      {kInvFlowNoDoubleResume,
       "interactive flow: an answered request resumes its run at most once"},
      {kInvFlowLease,
       "interactive flow: a worker writes only under the run's newest, unexpired lease claim: "
       "never "
       "two live lease holders at one logical instant"},
      {kInvFlowExpiry,
       "interactive flow: no request is both accepted and expired (expiry and acceptance exclude "
       "each other)"},
      {kInvFlowAnsweredResumed,
       "interactive flow: an answered request is resumed within a bounded number of recovery "
       "sweeps (unless its run was terminated)"},
      {kInvFlowProjection,
       "interactive flow: after repair, the PendingAction projection equals the pending "
       "InputRequests"},
      {kInvFlowBinding,
       "interactive flow: a resume runs the recorded binding's revision, never the "
       "latest"},
      {kInvFlowPurge,
       "interactive flow: a purged revision never resumes a run, and every run a purge ended has "
       "the forced purge's audit event"},
  };
  return *list;
}

bool IsRegisteredInvariant(const std::string& id) {
  for (const InvariantInfo& i : AllInvariants()) {
    if (i.id == id) return true;
  }
  return false;
}

std::string InvariantStatement(const std::string& id) {
  for (const InvariantInfo& i : AllInvariants()) {
    if (i.id == id) return i.statement;
  }
  return "";
}

}  // namespace stepfault::scenarios
