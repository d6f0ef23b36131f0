// The artifact-boundary scenario's ledger and accepted-artifact file.
#include "scenarios/artifact_boundary/artifact_boundary_records.h"

#include <algorithm>

namespace stepfault::scenarios {
namespace {

constexpr std::string_view kCallPrefix = "call|";
constexpr std::string_view kPublishPrefix = "publish|";

}  // namespace

Result<std::unique_ptr<ArtifactLedger>> ArtifactLedger::Open(const std::string& dir,
                                                             const std::string& vfs_name,
                                                             Probe* probe, Env* durable_env) {
  EffectStoreOptions options;
  options.vfs_name = vfs_name;
  options.probe = probe;
  options.durable_env = durable_env;
  SF_ASSIGN_OR_RETURN(std::unique_ptr<EffectStore> store,
                      EffectStore::Open(JoinPath(dir, kArtifactLedgerFile), options));
  return std::unique_ptr<ArtifactLedger>(new ArtifactLedger(std::move(store)));
}

Result<int> ArtifactLedger::RecordProviderCall(const std::string& phase,
                                               const std::string& segment) {
  SF_ASSIGN_OR_RETURN(std::vector<ProviderCall> calls, ProviderCalls());
  int attempt = 1;
  for (const ProviderCall& c : calls) {
    if (c.phase == phase) attempt = std::max(attempt, c.attempt + 1);
  }
  const std::string key = std::string(kCallPrefix) + phase + "|" + std::to_string(attempt);
  const Json value = {{"phase", phase}, {"attempt", attempt}, {"segment", segment}};
  SF_ASSIGN_OR_RETURN(EffectRow row, store_->Apply(key, value.dump()));
  (void)row;
  return attempt;
}

Result<std::vector<ProviderCall>> ArtifactLedger::ProviderCalls() {
  SF_ASSIGN_OR_RETURN(std::vector<EffectRow> rows, store_->All());
  std::vector<ProviderCall> out;
  for (const EffectRow& r : rows) {
    if (!r.key.starts_with(kCallPrefix)) continue;
    const Json j = Json::parse(r.value, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("phase") || !j["phase"].is_string() ||
        !j.contains("attempt") || !j["attempt"].is_number_integer() || !j.contains("segment") ||
        !j["segment"].is_string()) {
      return Status::Corruption("provider call row '" + r.key + "' holds '" + r.value +
                                "', not a provider call record; the ledger is damaged");
    }
    out.push_back(
        {j["phase"].get<std::string>(), j["attempt"].get<int>(), j["segment"].get<std::string>()});
  }
  return out;
}

Result<std::optional<std::string>> ArtifactLedger::Publication(const std::string& job) {
  SF_ASSIGN_OR_RETURN(std::vector<EffectRow> rows, store_->All());
  const std::string key = std::string(kPublishPrefix) + job;
  for (const EffectRow& r : rows) {
    if (r.key == key) return std::optional<std::string>(r.value);
  }
  return std::optional<std::string>();
}

Result<int> ArtifactLedger::PublicationCount(const std::string& job) {
  SF_ASSIGN_OR_RETURN(std::vector<EffectRow> rows, store_->All());
  const std::string key = std::string(kPublishPrefix) + job;
  int count = 0;
  for (const EffectRow& r : rows) count += r.key == key ? 1 : 0;
  return count;
}

Result<PublishOutcome> ArtifactLedger::Publish(const std::string& job, const std::string& value) {
  SF_ASSIGN_OR_RETURN(std::optional<std::string> existing, Publication(job));
  if (existing) return PublishOutcome{*existing, false};
  SF_ASSIGN_OR_RETURN(EffectRow row, store_->Apply(std::string(kPublishPrefix) + job, value));
  return PublishOutcome{row.value, true};
}

Json AcceptedArtifact::ToJson() const {
  return Json{{"artifact_id", artifact_id},
              {"manifest", manifest},
              {"provider_calls_at_acceptance", provider_calls_at_acceptance}};
}

Result<AcceptedArtifact> AcceptedArtifact::FromJson(const Json& j) {
  if (!j.is_object() || !j.contains("artifact_id") || !j["artifact_id"].is_string() ||
      !j.contains("manifest") || !j["manifest"].is_object() ||
      !j.contains("provider_calls_at_acceptance") ||
      !j["provider_calls_at_acceptance"].is_number_integer()) {
    return Status::Corruption("'" + j.dump() +
                              "' is not an accepted artifact (artifact_id, manifest, "
                              "provider_calls_at_acceptance)");
  }
  AcceptedArtifact a;
  a.artifact_id = j["artifact_id"].get<std::string>();
  a.manifest = j["manifest"];
  a.provider_calls_at_acceptance = j["provider_calls_at_acceptance"].get<int64_t>();
  return a;
}

Status EnsureArtifactsDir(Env* env, const std::string& dir) {
  SF_RETURN_IF_ERROR(env->CreateDirIfMissing(JoinPath(dir, kArtifactsDir)));
  // The new directory entry is durable only once its parent is synced.
  return env->SyncDir(dir);
}

Result<std::optional<AcceptedArtifact>> ReadAcceptedArtifact(Env* env, const std::string& dir) {
  const std::string artifacts = JoinPath(dir, kArtifactsDir);
  const std::string path = JoinPath(artifacts, kAcceptedArtifactFile);
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(path));
  if (!exists) return std::optional<AcceptedArtifact>();
  SF_ASSIGN_OR_RETURN(std::string bytes, env->ReadFile(path));
  const Json j = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) {
    return Status::Corruption(path +
                              " is not JSON; the accepted artifact is damaged: restore it from "
                              "a backup or remove it to produce the artifact again");
  }
  Result<AcceptedArtifact> artifact = AcceptedArtifact::FromJson(j);
  if (!artifact.ok()) return artifact.status().WithContext(path);
  return std::optional<AcceptedArtifact>(std::move(artifact).value());
}

Status PublishAcceptedArtifact(Env* env, const std::string& dir, const AcceptedArtifact& artifact) {
  return WriteFileAtomically(env, JoinPath(dir, kArtifactsDir), kAcceptedArtifactFile,
                             artifact.ToJson().dump());
}

}  // namespace stepfault::scenarios
