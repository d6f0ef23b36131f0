// EngineProfile: the names of the hazard switches.
#include "engine/profile.h"

namespace stepfault {
namespace {
struct Switch {
  const char* name;
  const char* meaning;
  bool EngineProfile::*field;
  bool maf_compat;  // part of today's upstream behaviour
};
const Switch kSwitches[] = {
    {"edge-id-blind-matching",
     "compatibility ignores EdgeIds and matches edges per source as a set (MAF IsMatch)",
     &EngineProfile::edge_id_blind_matching, true},
    {"non-bijective-edge-matching",
     "MAF IsMatch without one-to-one pairing: a workflow edge needs only to match some "
     "checkpoint edge of its source ({X,Y} vs {X,X}); implies matching blind to EdgeIds "
     "(the 1.17 source; 1.28 pairs edges one to one)",
     &EngineProfile::non_bijective_edge_matching, false},
    {"ownership-before-validation",
     "a fresh resume owns the workflow before validating; a rejected resume leaves it unusable",
     &EngineProfile::ownership_before_validation, true},
    {"non-atomic-restore", "restore imports in phases; a late failure leaves a half-restored run",
     &EngineProfile::non_atomic_restore, true},
    // Not in maf-compat since the differential (docs/engine-semantics.md §11.4): MAF 1.28 numbers
    // the first step after a restore or a fresh resume checkpoint.step + 1, as the strict engine.
    {"step-numbers-restart",
     "step numbers restart at 0 after a fresh resume (MAF before 1.28; fixed in 1.28)",
     &EngineProfile::step_numbers_restart, false},
    // Not in maf-compat since the hazard tests on 1.28 (docs/maf-hazards.md): MAF pairs edges one
    // to one and snapshots fan-in state on export and import (#6574).
    {"fan-in-aliasing",
     "the in-memory manager keeps live fan-in state objects (aliasing; before #6574)",
     &EngineProfile::fan_in_aliasing, false},
    {"port-response-sent-wrapped",
     "a request port forwards a response wrapped, then unwrapped; a fan-in barrier it feeds "
     "releases on the wrapped one, without the response (MAF 1.28)",
     &EngineProfile::port_response_sent_wrapped, true},
    {"requests-not-reemitted",
     "pending requests are not re-emitted after resume or restore (#2485)",
     &EngineProfile::requests_not_reemitted, false},
    {"stale-responses-kept", "responses queued before a live restore survive it (PR #5134)",
     &EngineProfile::stale_responses_kept, false},
    {"parent-link-empty", "every checkpoint's parent link is empty (#3796)",
     &EngineProfile::parent_link_empty, false},
    {"fan-in-state-not-checkpointed", "fan-in barrier buffers are left out of checkpoints (#6372)",
     &EngineProfile::fan_in_state_not_checkpointed, false},
    {"watcher-cancel-ends-run", "cancelling a watcher cancels the run (contrary to ADR-0015)",
     &EngineProfile::watcher_cancel_ends_run, false},
    // Stepfault's own machinery (not MAF's): the incremental checkpoint and copy-on-write bugs
    // of issue 29, each a mistake its implementation could make.
    {"delta-from-wrong-base",
     "an incremental checkpoint is computed against its chain's full snapshot but names its "
     "parent as base (Stepfault's deltas, not MAF)",
     &EngineProfile::delta_from_wrong_base, false},
    {"delta-chain-newest-first",
     "restoring an incremental checkpoint applies its chain's deltas newest first (Stepfault's "
     "deltas, not MAF)",
     &EngineProfile::delta_chain_newest_first, false},
    {"cow-scope-shared-too-long",
     "a step writes a state scope a checkpoint still shares in place instead of copying it "
     "(Stepfault's copy-on-write state, not MAF)",
     &EngineProfile::cow_scope_shared_too_long, false},
};
}  // namespace

EngineProfile EngineProfile::MafCompat() {
  EngineProfile p;
  for (const Switch& s : kSwitches) {
    if (s.maf_compat) p.*(s.field) = true;
  }
  return p;
}

std::vector<std::string> EngineProfile::EnabledHazards() const {
  std::vector<std::string> out;
  for (const Switch& s : kSwitches) {
    if (this->*(s.field)) out.emplace_back(s.name);
  }
  return out;
}

Status EngineProfile::Enable(std::string_view name) {
  for (const Switch& s : kSwitches) {
    if (name == s.name) {
      this->*(s.field) = true;
      return Status::Ok();
    }
  }
  return Status::InvalidArgument("unknown engine hazard '" + std::string(name) +
                                 "'; run `stepfault list hazards` for the names");
}

const std::vector<HazardInfo>& EngineHazards() {
  static const std::vector<HazardInfo>* list = [] {
    auto* v = new std::vector<HazardInfo>();
    for (const Switch& s : kSwitches) v->push_back({s.name, s.meaning, s.maf_compat});
    return v;
  }();
  return *list;
}

}  // namespace stepfault
