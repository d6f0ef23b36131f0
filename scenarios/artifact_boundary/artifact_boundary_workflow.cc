// The artifact-boundary workflow: producers, the all-settled manifest, the accepting boundary and
// synthesis.
#include "scenarios/artifact_boundary/artifact_boundary_workflow.h"

#include "engine/random.h"

namespace stepfault::scenarios {
namespace {

// A provider call of `phase`: recorded durably first, as diagnostics middleware records each call
// that actually runs, then answered.
Status CallProvider(const ArtifactWorkflowDeps& deps, const std::string& phase,
                    WorkflowContext& ctx) {
  SF_ASSIGN_OR_RETURN(int attempt, deps.ledger->RecordProviderCall(phase, *deps.segment));
  ctx.SendMessage(
      Message{"Artifact", Json{{"phase", phase},
                               {"attempt", attempt},
                               {"content", ProducerContent(deps.root_seed, phase, attempt)}}});
  return Status::Ok();
}

ExecutorBinding Dispatch() {
  return FunctionExecutor(kDispatchId, "Dispatch", {"Job", "Accepted"},
                          [](const Message& m, WorkflowContext& ctx) {
                            if (m.type == "Accepted") {
                              // Recovery: the accepted phase is behind us; only synthesis runs.
                              ctx.SendMessage(m, std::string(kSynthesisId));
                            } else {
                              ctx.SendMessage(Message{"Produce", m.body});
                            }
                            return Status::Ok();
                          });
}

ExecutorBinding ProducerA(const ArtifactWorkflowDeps& deps) {
  return FunctionExecutor(kProducerAId, "Producer", {"Produce"},
                          [deps](const Message&, WorkflowContext& ctx) {
                            return CallProvider(deps, kProducerAId, ctx);
                          });
}

// Thinks for one super-step before calling its provider, so the manifest barrier holds producer-a's
// contribution across a checkpoint while producer-b is still working.
ExecutorBinding ProducerB(const ArtifactWorkflowDeps& deps) {
  return FunctionExecutor(
      kProducerBId, "Producer", {"Produce", "Think"},
      [deps](const Message& m, WorkflowContext& ctx) {
        if (m.type == "Produce") {
          ctx.SendMessage(Message{"Think", Json::object()}, std::string(kProducerBId));
          return Status::Ok();
        }
        return CallProvider(deps, kProducerBId, ctx);
      });
}

// The all-settled manifest: collects one artifact per producer (the fan-in releases them together)
// and forwards the manifest once every producer settled.
ExecutorBinding Manifest() {
  return FunctionExecutor(
      kManifestId, "Manifest", {"Artifact"}, [](const Message& m, WorkflowContext& ctx) {
        Json settled = ctx.ReadState("settled").value_or(Json::object());
        settled[m.body["phase"].get<std::string>()] =
            Json{{"attempt", m.body["attempt"]}, {"content", m.body["content"]}};
        if (settled.size() < 2) {
          ctx.QueueStateUpdate("settled", settled);
          return Status::Ok();
        }
        ctx.QueueStateUpdate("settled", std::nullopt);
        ctx.SendMessage(Message{"Manifest", settled});
        return Status::Ok();
      });
}

// Deterministic validation, then durable acceptance under a stable identity. A manifest that was
// already accepted (a replay) forwards the stored artifact: the first acceptance wins.
ExecutorBinding Boundary(const ArtifactWorkflowDeps& deps) {
  return FunctionExecutor(
      kBoundaryId, "AcceptedArtifactBoundary", {"Manifest"},
      [deps](const Message& m, WorkflowContext& ctx) -> Status {
        SF_RETURN_IF_ERROR(ValidateManifest(deps.root_seed, m.body));
        SF_ASSIGN_OR_RETURN(std::optional<AcceptedArtifact> existing,
                            ReadAcceptedArtifact(deps.env, deps.dir));
        AcceptedArtifact accepted;
        if (existing) {
          accepted = *existing;
        } else {
          SF_ASSIGN_OR_RETURN(std::vector<ProviderCall> calls, deps.ledger->ProviderCalls());
          accepted.artifact_id = ArtifactIdOf(deps.root_seed, m.body);
          accepted.manifest = m.body;
          accepted.provider_calls_at_acceptance = static_cast<int64_t>(calls.size());
          SF_RETURN_IF_ERROR(EnsureArtifactsDir(deps.env, deps.dir));
          SF_RETURN_IF_ERROR(PublishAcceptedArtifact(deps.env, deps.dir, accepted));
        }
        ctx.SendMessage(Message{"Accepted", accepted.ToJson()});
        return Status::Ok();
      });
}

ExecutorBinding Synthesis() {
  return FunctionExecutor(
      kSynthesisId, "Synthesis", {"Accepted"},
      [](const Message& m, WorkflowContext& ctx) -> Status {
        SF_ASSIGN_OR_RETURN(AcceptedArtifact accepted, AcceptedArtifact::FromJson(m.body));
        ctx.YieldOutput(Message{"Synthesis", Json{{"artifact_id", accepted.artifact_id},
                                                  {"text", Synthesize(accepted)}}});
        return Status::Ok();
      });
}

}  // namespace

WorkflowSpec BuildArtifactBoundarySpec(const ArtifactWorkflowDeps& deps) {
  SF_CHECK(deps.env != nullptr && deps.ledger != nullptr && deps.segment != nullptr);
  WorkflowSpec spec;
  spec.start_id = kDispatchId;
  spec.executors = {Dispatch(), ProducerA(deps), ProducerB(deps),
                    Manifest(), Boundary(deps),  Synthesis()};
  spec.edges = {
      {EdgeKind::kFanOut, {kDispatchId}, {kProducerAId, kProducerBId}, nullptr, nullptr},
      {EdgeKind::kDirect, {kProducerBId}, {kProducerBId}, nullptr, nullptr},
      {EdgeKind::kFanIn, {kProducerAId, kProducerBId}, {kManifestId}, nullptr, nullptr},
      {EdgeKind::kDirect, {kManifestId}, {kBoundaryId}, nullptr, nullptr},
      {EdgeKind::kDirect, {kBoundaryId}, {kSynthesisId}, nullptr, nullptr},
      {EdgeKind::kDirect, {kDispatchId}, {kSynthesisId}, nullptr, nullptr},
  };
  spec.outputs = {kSynthesisId};
  return spec;
}

std::string ProducerContent(uint64_t root_seed, const std::string& phase, int attempt) {
  const std::string id = phase + "#" + std::to_string(attempt);
  return id + ":" + DeriveId(root_seed, "artifact-boundary|provider|" + id);
}

Status ValidateManifest(uint64_t root_seed, const Json& manifest) {
  if (!manifest.is_object() || manifest.size() != 2) {
    return Status::FailedPrecondition("the manifest '" + manifest.dump() +
                                      "' does not hold exactly the two producers' artifacts");
  }
  for (const char* phase : {kProducerAId, kProducerBId}) {
    if (!manifest.contains(phase)) {
      return Status::FailedPrecondition(std::string("the manifest lacks ") + phase + "'s artifact");
    }
    const Json& entry = manifest[phase];
    if (!entry.contains("attempt") || !entry["attempt"].is_number_integer() ||
        !entry.contains("content") ||
        entry["content"] != ProducerContent(root_seed, phase, entry["attempt"].get<int>())) {
      return Status::FailedPrecondition(std::string("the artifact of ") + phase + " ('" +
                                        entry.dump() + "') is not what its provider call returned");
    }
  }
  return Status::Ok();
}

std::string ArtifactIdOf(uint64_t root_seed, const Json& manifest) {
  return DeriveId(root_seed, "artifact-boundary|artifact|" + manifest.dump());
}

std::string Synthesize(const AcceptedArtifact& artifact) {
  std::string text = "synthesis of " + artifact.artifact_id + ":";
  for (const char* phase : {kProducerAId, kProducerBId}) {
    text += " " + artifact.manifest.value(phase, Json::object()).value("content", std::string("?"));
  }
  return text;
}

}  // namespace stepfault::scenarios
