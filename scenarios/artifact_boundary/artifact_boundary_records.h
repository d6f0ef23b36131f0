// The application-owned durable records of the artifact-boundary scenario (ADR-0015): what the
// "Checkpointed Workflows" guide tells a host to keep outside MAF's checkpoints, because in-memory
// checkpoints die with the process.
//
//  - ArtifactLedger (SQLite, ledger.db, on EffectStore): one row per provider call, keyed by phase
//    and attempt so a repeated call is a new, visible row (how INV-NOREPLAY is observed), and the
//    terminal publication, keyed by the job, so at-least-once outputs are published once.
//  - AcceptedArtifact (artifacts/accepted.json): the artifact the deterministic boundary accepted,
//    published atomically (temp + fsync + rename + directory fsync) under a stable identity. It
//    records how many provider calls existed when it was accepted; no call may follow it.
// Promises: a committed ledger row and a published artifact survive crash and power loss; reading
// a damaged artifact file gives kCorruption, never a half-read artifact.
// Thread-safety: one thread per ledger; the free functions are as thread-safe as the Env.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/message.h"
#include "engine/probe.h"
#include "scenarios/effect_store.h"

namespace stepfault::scenarios {

inline constexpr char kArtifactLedgerFile[] = "ledger.db";
inline constexpr char kArtifactsDir[] = "artifacts";
inline constexpr char kAcceptedArtifactFile[] = "accepted.json";

// One recorded provider call. `segment` names the timeline that made it ("original" for a run's
// first pass; anything else means a producer ran where the host promised it would not).
struct ProviderCall {
  std::string phase;
  int attempt = 0;
  std::string segment;
};

struct PublishOutcome {
  std::string value;   // the published terminal output (the first one, when it already existed)
  bool newly = false;  // this call published it
};

class ArtifactLedger {
 public:
  // Opens (creating) dir/ledger.db. `probe` may be null (the oracle's read-only use).
  // `durable_env`: set by a host that acts on the ledger, which first makes the inherited database
  // durable (the recovery rule of engine/env.h); null for a read-only look.
  static Result<std::unique_ptr<ArtifactLedger>> Open(const std::string& dir,
                                                      const std::string& vfs_name, Probe* probe,
                                                      Env* durable_env = nullptr);

  // Records a provider call of `phase` as its next attempt (1 + the attempts recorded so far) and
  // returns that attempt. Committed (durable) when it returns ok.
  Result<int> RecordProviderCall(const std::string& phase, const std::string& segment);
  // Every recorded provider call, in commit order.
  Result<std::vector<ProviderCall>> ProviderCalls();
  // The job's published terminal output, if any, and how many publication rows the job has (more
  // than one is an INV-IDEM violation).
  Result<std::optional<std::string>> Publication(const std::string& job);
  Result<int> PublicationCount(const std::string& job);
  // Publishes `value` as the job's terminal output unless the job already has one.
  Result<PublishOutcome> Publish(const std::string& job, const std::string& value);

 private:
  explicit ArtifactLedger(std::unique_ptr<EffectStore> store) : store_(std::move(store)) {}
  std::unique_ptr<EffectStore> store_;
};

// The artifact the boundary accepted.
struct AcceptedArtifact {
  std::string artifact_id;  // stable identity: derived from the root seed and the manifest
  Json manifest;            // phase -> {"attempt": n, "content": "..."}
  int64_t provider_calls_at_acceptance = 0;

  Json ToJson() const;
  // kCorruption when `j` is not an accepted artifact.
  static Result<AcceptedArtifact> FromJson(const Json& j);
};

// Creates dir/artifacts and makes its entry durable. Idempotent.
Status EnsureArtifactsDir(Env* env, const std::string& dir);
// The accepted artifact, nullopt when none was published; kCorruption when the file is damaged.
Result<std::optional<AcceptedArtifact>> ReadAcceptedArtifact(Env* env, const std::string& dir);
// Publishes `artifact` atomically and durably. REQUIRES: EnsureArtifactsDir succeeded.
Status PublishAcceptedArtifact(Env* env, const std::string& dir, const AcceptedArtifact& artifact);

}  // namespace stepfault::scenarios
