// The invariant table.
#include "properties/invariants.h"

namespace stepfault::properties {

const std::vector<InvariantInfo>& AllInvariants() {
  static const auto* list = new std::vector<InvariantInfo>{
      {"INV-ALO",
       "after recovery completes, every effect of the fault-free reference run exists "
       "(at-least-once)"},
      {"INV-IDEM",
       "each operation id has at most one effect row; every replay returns the same item id"},
      {"INV-NOREPLAY",
       "after restoring an accepted-boundary checkpoint, no executor at or before the boundary "
       "runs again"},
      {"INV-ANCESTRY",
       "a restore or resume that fails deletes and changes no stored checkpoint; stored "
       "checkpoints keep their parent links and never change"},
      {"INV-ATOMIC", "a restore that fails leaves the run exactly as it was"},
      {"INV-TOPOLOGY",
       "an incompatible workflow is rejected before any state is imported; the workflow stays "
       "usable"},
      {"INV-CORRUPT",
       "damaged checkpoint/index/receipt bytes give a typed error or a documented fallback to an "
       "intact ancestor"},
      {"INV-REQID",
       "a pending request is re-emitted after restore with the same RequestId; a mismatched "
       "response is rejected and the request stays pending"},
      {"INV-DECISION",
       "the first valid decision is persisted before it reaches the engine; a replay must repeat "
       "it exactly; a conflicting one is rejected; a rejection creates no effect"},
      {"INV-RECEIPT", "a receipt observed as published survives power loss intact"},
      {"INV-OBSERVER", "cancelling an event watcher does not cancel execution"},
      {"INV-LIVENESS",
       "with finitely many faults, recovery reaches completion within a bounded number of lives"},
      {"INV-EXPECT", "every terminal output a JSON scenario observes is one its file expects"},
      {"INV-DETERMINISM",
       "the same scenario, seed and plan give a byte-identical event trace and final state"},
  };
  return *list;
}

std::string InvariantStatement(const std::string& id) {
  for (const InvariantInfo& i : AllInvariants()) {
    if (i.id == id) return i.statement;
  }
  return "";
}

}  // namespace stepfault::properties
