// EngineProfile: the strict engine by default, and every known upstream hazard as a named switch.
//
// Strict semantics fix the hazards of MAF .NET (docs/design.md §2); each switch turns one upstream
// behaviour back on so the harness can show what it breaks and prove it detects it. `maf-compat`
// turns on every engine switch. Store hazards live in the store options (prune on read, in-place
// checkpoint writes); scenario hazards in the scenarios.
// Thread-safety: a value.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault {

struct EngineProfile {
  // Compatibility check ignores EdgeIds, matches edges per source as sets, and skips executors the
  // workflow lacks (MAF WorkflowInfo.IsMatch); fan-in state is then imported by EdgeId unchecked.
  bool edge_id_blind_matching = false;
  // Each workflow edge needs only to match *some* checkpoint edge of its source ({X,Y} vs {X,X}).
  // MAF IsMatch without its one-to-one pairing, so it switches the EdgeId-blind rule on as well.
  bool non_bijective_edge_matching = false;
  // A fresh resume takes ownership of the workflow before validating; a rejected resume leaves it
  // owned and unusable.
  bool ownership_before_validation = false;
  // Restore imports state, runner data, executor hooks and edge state in phases; a late failure
  // leaves the run half-restored.
  bool non_atomic_restore = false;
  // Step numbers restart at 0 after a fresh resume (Checkpoint.StepNumber is never read). Read
  // from the 1.17 source; MAF 1.28 continues from the checkpoint's step (the differential,
  // docs/engine-semantics.md §11.4), so it is a historical bug, not part of maf-compat.
  bool step_numbers_restart = false;
  // A request port forwards a response twice, first wrapped (an ExternalResponse, which no
  // workflow-typed handler takes) then the data; a fan-in barrier fed by the port counts the
  // wrapped one as the port's message, releases without the response, and keeps the response as
  // the first message of its next round (MAF RequestInfoExecutor, seen on 1.28 by the
  // differential, docs/engine-semantics.md §11.4).
  bool port_response_sent_wrapped = false;
  // The in-memory manager keeps the live fan-in state objects instead of copies (#6573). Fixed
  // upstream (FanInEdgeState.Snapshot on export and import); not observed on 1.28.
  bool fan_in_aliasing = false;

  // Historical upstream bugs, since fixed in MAF (so not part of maf-compat), kept as mutants the
  // harness must kill:
  // Pending requests are not re-emitted after a resume or restore (#2485, PR #4955).
  bool requests_not_reemitted = false;
  // Responses queued before a live restore survive it (PR #5134).
  bool stale_responses_kept = false;
  // Every checkpoint's parent link is empty (#3796).
  bool parent_link_empty = false;
  // Fan-in barrier buffers are left out of checkpoints (#6372).
  bool fan_in_state_not_checkpointed = false;
  // Cancelling a watcher cancels the run (contrary to ADR-0015's observer rule).
  bool watcher_cancel_ends_run = false;

  // Mistakes in Stepfault's own checkpoint machinery (incremental checkpoints and copy-on-write
  // state, deliberate deviations from MAF, which stores every checkpoint in full and copies state
  // on export: docs/engine-semantics.md section 10), kept as mutants the harness must kill (issue
  // 29). Never part of a profile a user would choose.
  // A delta is computed against the full snapshot that starts its chain instead of against its
  // parent, while it still names the parent as its base (StoreCheckpointOptions).
  bool delta_from_wrong_base = false;
  // Restoring a chain applies its deltas newest first, so an older value of a key rewritten along
  // the chain wins (ResolveCheckpoint's order, StoreCheckpointOptions).
  bool delta_chain_newest_first = false;
  // A step writes a state scope that a checkpoint still shares in place instead of copying it
  // first (StateMap::SetSharedInPlace): the checkpoint, and every delta built against it, changes.
  bool cow_scope_shared_too_long = false;

  static EngineProfile Strict() { return {}; }
  // Every switch that reproduces current upstream behaviour (not the historical bugs).
  static EngineProfile MafCompat();

  // The kebab-case names of the switches that are on, in a fixed order.
  std::vector<std::string> EnabledHazards() const;
  // Turns on the switch named `name` (kebab-case, as `stepfault list hazards` prints).
  Status Enable(std::string_view name);
  bool operator==(const EngineProfile&) const = default;
};

// Every engine hazard switch: name and one-line meaning, in a fixed order.
struct HazardInfo {
  std::string name;
  std::string meaning;
  bool
      maf_compat;  // part of the maf-compat profile (today's upstream); else a fixed historical bug
};
const std::vector<HazardInfo>& EngineHazards();

}  // namespace stepfault
