// The reference of every checkpoint (issue 29): what a stored checkpoint must resolve to is the
// checkpoint the engine exported at its step. A host hands its run a HostCheckpointManager, which
// records a fingerprint of each exported checkpoint when its commit returns (before anything is
// encoded, diffed against a base or decoded again), and compares the checkpoint every restore or
// resume loads with the fingerprint recorded for its id. CheckAncestry (host_oracles.h) compares
// every checkpoint the store resolves to (DurableCheckpoints) with the same fingerprints, so a
// delta built against the wrong base, a chain resolved in the wrong order or a copy-on-write scope
// shared too long (the state of a stored checkpoint changing under it) is seen field by field
// without trusting the engine's delta encoder or resolver: the reference never went through them.
//
// A fingerprint is a digest per field: the step, the parent id, each state scope, the queues, the
// pending requests and the fan-in state (what a restore brings back). The topology (INV-TOPOLOGY's
// business) and the instantiated list (DurableCheckpoints resolves only a delta's own additions)
// are not in it. Recorded in the life's facts["exported"] (checkpoint id -> fingerprint), so the
// oracles of later lives read it as they read every fact, and the history key of reused lives
// (properties/life_runner.h) covers it. Only under exploration (HostEnv::earlier_lives set): a
// command-line host (`stepfault approval`) has no oracle and pays nothing.
// Thread-safety: as the life that owns the manager.
#pragma once

#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// {"step":n,"parent":"<id>"|null,"state":{"<scope>":"crc32c:…"},"queued":"crc32c:…",
//  "outstanding":"crc32c:…","edge_state":"crc32c:…"}; cost: one pass over the checkpoint's values.
Json CheckpointFingerprint(const Checkpoint& c);
// CheckpointFingerprint(*c.decoded), computed once per read of the store (DurableCheckpoint::
// Derived). REQUIRES: c.decoded.
const Json& StoredFingerprint(const DurableCheckpoint& c);
// Where `actual` differs from `expected`, one phrase each ("state scope 'shared:ledger'",
// "step 4, exported 5", "the queued messages", ...); empty when equal.
std::vector<std::string> FingerprintDifferences(const Json& expected, const Json& actual);
// The same joined into one phrase ("state scope 'a', the parent (...)"); "" when equal.
std::string DescribeDifferences(const Json& expected, const Json& actual);
// The fingerprints the lives recorded, by checkpoint id (a later life's record of an id wins: a
// power loss may take a commit and the store reuse its id).
Json ExportedFingerprints(const std::vector<LifeReport>& lives);

// INV-ANCESTRY's part of the reference: every intact checkpoint of `session_id` in `stored` that
// resolves, and was exported (`exported`: ExportedFingerprints), equals its fingerprint; every
// difference a life's manager saw when a restore loaded a checkpoint is reported with its life.
void CheckAgainstExports(const DurableCheckpoints& stored, const std::string& session_id,
                         const Json& exported, const std::vector<LifeReport>& lives,
                         std::vector<Violation>* out);

// The store manager a host gives its run: StoreCheckpointManager over `store` with `options`,
// recording every commit's fingerprint into report->facts["exported"] and checking every
// successful Lookup against the fingerprint recorded for that id by this life or by one of
// env.earlier_lives; a difference goes to facts["restored_differs"] (INV-ANCESTRY: CheckAncestry
// reports it). Outside exploration (no earlier lives: the command-line hosts) it compares with
// this life's exports only.
class HostCheckpointManager final : public CheckpointManager {
 public:
  // REQUIRES: store, env and report outlive the manager.
  HostCheckpointManager(CheckpointStore* store, StoreCheckpointOptions options, const HostEnv& env,
                        LifeReport* report);
  Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) override;
  Result<CheckpointInfo> CommitOwned(Checkpoint&& checkpoint) override;
  Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) override;
  Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) override {
    return inner_.Index(session_id);
  }
  bool NotifyRestored(const CheckpointInfo& info, Status* observer_status) override {
    return inner_.NotifyRestored(info, observer_status);
  }

 private:
  Json FingerprintIfExploring(const Checkpoint& checkpoint) const;
  Result<CheckpointInfo> Recorded(Result<CheckpointInfo> info, Json fingerprint);

  StoreCheckpointManager inner_;
  const HostEnv& env_;
  LifeReport* report_;
};

// The store options a host's manager uses: the checkpoint mode of env.params (CheckpointOptionsOf)
// with the checkpoint mutants of env.profile (delta-from-wrong-base, delta-chain-newest-first).
StoreCheckpointOptions HostCheckpointOptions(const HostEnv& env);

}  // namespace stepfault::scenarios
