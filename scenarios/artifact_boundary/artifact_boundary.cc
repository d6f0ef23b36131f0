// artifact-boundary: the scenario object, its business windows and its oracle.
//
// The oracle reads the durable records (the ledger and the accepted artifact) and the facts of
// every life:
//  - INV-NOREPLAY: no provider call recorded after the artifact was accepted (the ledger holds
//    exactly the calls the artifact counted), none recorded by a restored or recovered segment, and
//    no executor at or before the boundary ran after the restore or in a recovery run;
//  - INV-ALO: the published terminal output is the synthesis of the accepted artifact, exists at
//    the end, and the restored segment yields its terminal output again (exactly one);
//  - INV-IDEM: one publication row for the job; an at-least-once duplicate equals the published
//    one;
//  - INV-ANCESTRY: no checkpoint of a watched run changed after its commit and parent links chain;
//    the recovery run's durable checkpoints (<dir>/recovery, file or SQLite store) keep their
//    links, never change and are never deleted but by the pruning rule (CheckAncestry with its
//    deletion rules, as approval, fan-in and JSON);
//  - INV-OBSERVER (and INV-TOPOLOGY, never exercised): CheckHostFacts.
#include "scenarios/artifact_boundary/artifact_boundary.h"

#include "scenarios/artifact_boundary/artifact_boundary_host.h"
#include "scenarios/artifact_boundary/artifact_boundary_workflow.h"
#include "scenarios/business_look.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

std::string LifeName(size_t i) { return "life " + std::to_string(i + 1); }

std::string JoinList(const Json& list) {
  std::string out;
  for (const Json& item : list) out += (out.empty() ? "" : ", ") + item.get<std::string>();
  return out;
}

// Durable records: the ledger against the accepted artifact.
void CheckRecords(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
                  std::vector<Violation>* out) {
  auto accepted = ReadAcceptedArtifact(env.env, env.dir);
  if (!accepted.ok())
    return;  // a damaged artifact is the host's typed final error, not a violation
  auto exists = env.env->FileExists(JoinPath(env.dir, kArtifactLedgerFile));
  std::vector<ProviderCall> calls;
  std::optional<std::string> publication;
  int publications = 0;
  if (exists.ok() && *exists) {
    // Read on a private copy of the ledger's files (DatabaseCopy), so the look never changes the
    // world (a hot journal is rolled back in the copy, for the next life to meet in the world).
    auto copy = DatabaseCopy::Make(env.env, JoinPath(env.dir, kArtifactLedgerFile));
    if (!copy.ok()) return;
    auto ledger = ArtifactLedger::Open(env.dir, (*copy)->vfs_name(), nullptr);
    if (!ledger.ok()) return;
    auto read_calls = (*ledger)->ProviderCalls();
    auto read_publication = (*ledger)->Publication(ArtifactJobId(env.root_seed));
    auto count = (*ledger)->PublicationCount(ArtifactJobId(env.root_seed));
    if (!read_calls.ok() || !read_publication.ok() || !count.ok()) return;
    calls = *read_calls;
    publication = *read_publication;
    publications = *count;
  }
  for (const ProviderCall& c : calls) {
    if (c.segment != "original") {
      out->push_back({kInvNoreplay, "provider call " + c.phase + "#" + std::to_string(c.attempt) +
                                        " was made by the " + c.segment + " segment"});
    }
  }
  if (*accepted) {
    const AcceptedArtifact& a = **accepted;
    if (static_cast<int64_t>(calls.size()) != a.provider_calls_at_acceptance) {
      out->push_back({kInvNoreplay, "the ledger holds " + std::to_string(calls.size()) +
                                        " provider calls but artifact " + a.artifact_id +
                                        " was accepted after " +
                                        std::to_string(a.provider_calls_at_acceptance) +
                                        ": a producer was called after acceptance"});
    }
  }
  if (publications > 1) {
    out->push_back({kInvIdem, std::to_string(publications) + " publication rows for one job"});
  }
  if (publication) {
    if (!*accepted) {
      out->push_back({kInvAlo, "the terminal output '" + *publication +
                                   "' was published with no accepted artifact"});
    } else if (*publication != Synthesize(**accepted)) {
      out->push_back({kInvAlo, "the published output '" + *publication +
                                   "' is not the synthesis of the accepted "
                                   "artifact ('" +
                                   Synthesize(**accepted) + "')"});
    }
  } else if (final && !lives.empty() && !lives.back().final) {
    out->push_back({kInvAlo, "the scenario ended without publishing its terminal output"});
  }
}

// What the lives observed.
void CheckLifeFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  for (size_t i = 0; i < lives.size(); ++i) {
    const Json& f = lives[i].facts;
    const std::string life = LifeName(i);
    if (f.contains("replayed_after_restore")) {
      out->push_back({kInvNoreplay, life + ": after restoring the checkpoint of step " +
                                        std::to_string(f.value("selected_checkpoint_step", -1)) +
                                        ", " + JoinList(f["replayed_after_restore"]) +
                                        " ran again"});
    }
    if (f.contains("replayed_after_acceptance")) {
      out->push_back({kInvNoreplay, life + ": recovering from the accepted artifact ran " +
                                        JoinList(f["replayed_after_acceptance"])});
    }
    for (const char* key : {"provider_calls_after_restore", "provider_calls_after_acceptance"}) {
      if (f.value(key, 0) > 0) {
        out->push_back({kInvNoreplay, life + ": " + std::to_string(f.value(key, 0)) + " " + key});
      }
    }
    if (f.contains("restored_outputs")) {
      const int n = f["restored_outputs"].get<int>();
      if (n == 0)
        out->push_back({kInvAlo, life + ": the restored segment yielded no terminal output"});
      if (n > 1)
        out->push_back({kInvIdem, life + ": the restored segment yielded " + std::to_string(n) +
                                      " terminal outputs"});
    }
    if (f.value("output_mismatch", false)) {
      out->push_back(
          {kInvIdem, life + ": a repeated terminal output differs from the published one"});
    }
    if (f.contains("checkpoints_changed_after_commit")) {
      out->push_back({kInvAncestry, life + ": in-memory checkpoints changed after their commit: " +
                                        JoinList(f["checkpoints_changed_after_commit"])});
    }
    if (f.contains("ancestry_errors")) {
      out->push_back({kInvAncestry, life + ": " + JoinList(f["ancestry_errors"])});
    }
  }
}

class ArtifactBoundaryScenario final : public Scenario {
 public:
  std::string name() const override { return "artifact-boundary"; }
  std::string description() const override {
    return "ADR-0015: two producers, an all-settled manifest, a deterministic accepted-artifact "
           "boundary and "
           "synthesis; the host restores the checkpoint after the boundary on the live run, "
           "recovers a new "
           "process from the accepted artifact, and publishes the terminal output once";
  }
  std::vector<HostHazard> host_hazards() const override {
    return {{kHazardBoundaryCheckpointTooEarly,
             "the boundary checkpoint is selected before the boundary completed",
             {kInvNoreplay}}};
  }
  // No parameters: the scenario's workflow and outcome are fixed (for JSON, by its file).
  std::vector<ParamDecl> params() const override { return {}; }
  std::vector<std::string> invariants() const override {
    return {kInvNoreplay, kInvAlo, kInvIdem, kInvAncestry, kInvObserver};
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    return {faults::FaultAction::Of(faults::FaultActionKind::kObserverCancel)};
  }
  std::string BusinessWindow(const std::string& command, const std::string& point) const override {
    if (point.starts_with("output.publish."))
      return "terminal output observed, before its publication";
    if (point.starts_with("effect.commit.after")) {
      return command == "recover" ? "after the publication commit"
                                  : "after a ledger commit (provider call or publication)";
    }
    if (point.starts_with("effect.") || point.find("[db]") != std::string::npos ||
        point.find("[journal]") != std::string::npos) {
      return command == "recover" ? "during the publication transaction"
                                  : "during a ledger transaction (provider call or publication)";
    }
    // The directory syncs of the ledger's journal carry the same role as the artifact's.
    if (point.starts_with("fs.dirsync[file]"))
      return "directory sync (ledger journal or accepted artifact)";
    if (point.find("[file]") != std::string::npos) return "publishing the accepted artifact";
    if (point.starts_with("restore.")) return "live restore of the accepted-boundary checkpoint";
    if (point.find("[checkpoint]") != std::string::npos ||
        point.find("[index]") != std::string::npos)
      return "durable recovery checkpoint";
    if (point.starts_with("checkpoint.") || point.starts_with("step."))
      return command == "recover" ? "recovery super-step checkpoint"
                                  : "in-memory super-step checkpoint";
    return "";
  }

  bool LifeReadsPrevious() const override { return false; }  // durable state alone
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override {
    (void)previous;  // the command comes from the durable records alone
    RunArtifactBoundaryLife(env, report);
  }

  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override {
    CheckRecords(env, lives, final, out);
    CheckLifeFacts(lives, out);
    CheckHostFacts(lives, out);
    // The recovery run's durable checkpoints: links, steps, never changed after their commit,
    // never deleted but by the pruning rule after a resume, and every one a life observed
    // committed still there (the lives report only these as committed; the live run's in-memory
    // checkpoints go to "in_memory_checkpoints", audited by the host).
    CheckAncestry(env, kArtifactRecoveryDir, ArtifactRecoverySession(env.root_seed), lives,
                  /*check_deletions=*/true, out);
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeArtifactBoundaryScenario() {
  return std::make_shared<ArtifactBoundaryScenario>();
}

}  // namespace stepfault::scenarios
