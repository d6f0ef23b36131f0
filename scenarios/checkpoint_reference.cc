// Checkpoint references (see checkpoint_reference.h).
#include "scenarios/checkpoint_reference.h"

#include <algorithm>
#include <utility>

#include "engine/crc32c.h"
#include "engine/message.h"
#include "scenarios/invariants.h"
#include "scenarios/params.h"

namespace stepfault::scenarios {

namespace {

constexpr char kExportedFact[] = "exported";
constexpr char kRestoredDiffersFact[] = "restored_differs";

std::string TagOf(const Json& j) { return Crc32cTag(j.dump()); }

}  // namespace

Json CheckpointFingerprint(const Checkpoint& c) {
  Json state = Json::object();
  for (const StateScope& scope : c.state) {
    uint32_t crc = 0;
    for (const auto& [key, value] : scope.values) {
      // Key and value, each closed by a separator no key contains and no dump ends in alone.
      crc = Crc32cExtend(crc, key);
      crc = Crc32cExtend(crc, std::string_view("\0", 1));
      crc = Crc32cExtend(crc, value->dump());
      crc = Crc32cExtend(crc, std::string_view("\n", 1));
    }
    state[scope.name] = Crc32cTagOf(crc);
  }
  Json queued = Json::object();
  for (const auto& [receiver, envelopes] : c.queued) {
    Json list = Json::array();
    for (const Envelope& e : envelopes) list.push_back(EnvelopeToJson(e));
    queued[receiver] = std::move(list);
  }
  Json outstanding = Json::array();
  for (const PendingRequest& r : c.outstanding) outstanding.push_back(PendingRequestToJson(r));
  Json edges = Json::object();
  for (const auto& [id, s] : c.edge_state) edges[std::to_string(id)] = FanInStateToJson(*s);
  return Json{{"step", c.step_number},
              {"parent", c.parent ? Json(c.parent->checkpoint_id) : Json(nullptr)},
              {"state", std::move(state)},
              {"queued", TagOf(queued)},
              {"outstanding", TagOf(outstanding)},
              {"edge_state", TagOf(edges)}};
}

const Json& StoredFingerprint(const DurableCheckpoint& c) {
  SF_CHECK(c.decoded != nullptr && c.derived != nullptr);
  DurableCheckpoint::Derived& d = *c.derived;
  std::call_once(d.fingerprint_once, [&] { d.fingerprint = CheckpointFingerprint(*c.decoded); });
  return d.fingerprint;
}

std::vector<std::string> FingerprintDifferences(const Json& expected, const Json& actual) {
  std::vector<std::string> out;
  if (expected.value("step", int64_t{-1}) != actual.value("step", int64_t{-1})) {
    out.push_back("the step number (" + actual.value("step", Json()).dump() + ", exported " +
                  expected.value("step", Json()).dump() + ")");
  }
  if (expected.value("parent", Json()) != actual.value("parent", Json())) {
    out.push_back("the parent (" + actual.value("parent", Json()).dump() + ", exported " +
                  expected.value("parent", Json()).dump() + ")");
  }
  const Json empty = Json::object();
  const Json& es = expected.contains("state") ? expected["state"] : empty;
  const Json& as = actual.contains("state") ? actual["state"] : empty;
  for (const auto& [scope, tag] : es.items()) {
    if (!as.contains(scope)) {
      out.push_back("state scope '" + scope + "' (missing)");
    } else if (as[scope] != tag) {
      out.push_back("state scope '" + scope + "'");
    }
  }
  for (const auto& [scope, tag] : as.items()) {
    if (!es.contains(scope)) out.push_back("state scope '" + scope + "' (not exported)");
  }
  const std::pair<const char*, const char*> fields[] = {{"queued", "the queued messages"},
                                                        {"outstanding", "the pending requests"},
                                                        {"edge_state", "the fan-in state"}};
  for (const auto& [field, phrase] : fields) {
    if (expected.value(field, Json()) != actual.value(field, Json())) out.emplace_back(phrase);
  }
  return out;
}

std::string DescribeDifferences(const Json& expected, const Json& actual) {
  std::string what;
  for (const std::string& d : FingerprintDifferences(expected, actual)) {
    what += (what.empty() ? "" : ", ") + d;
  }
  return what;
}

Json ExportedFingerprints(const std::vector<LifeReport>& lives) {
  Json out = Json::object();
  for (const LifeReport& l : lives) {
    auto it = l.facts.find(kExportedFact);
    if (it == l.facts.end()) continue;
    for (const auto& [id, fingerprint] : it->items()) out[id] = fingerprint;
  }
  return out;
}

HostCheckpointManager::HostCheckpointManager(CheckpointStore* store, StoreCheckpointOptions options,
                                             const HostEnv& env, LifeReport* report)
    : inner_(store, options), env_(env), report_(report) {}

Result<CheckpointInfo> HostCheckpointManager::Recorded(Result<CheckpointInfo> info,
                                                       Json fingerprint) {
  if (info.ok() && fingerprint.is_object()) {
    report_->facts[kExportedFact][info->checkpoint_id] = std::move(fingerprint);
  }
  return info;
}

// Taken before the commit: the checkpoint as exported, before any delta is built from it.
Json HostCheckpointManager::FingerprintIfExploring(const Checkpoint& checkpoint) const {
  return env_.earlier_lives != nullptr ? CheckpointFingerprint(checkpoint) : Json();
}

Result<CheckpointInfo> HostCheckpointManager::Commit(const Checkpoint& checkpoint) {
  Json fingerprint = FingerprintIfExploring(checkpoint);
  return Recorded(inner_.Commit(checkpoint), std::move(fingerprint));
}

Result<CheckpointInfo> HostCheckpointManager::CommitOwned(Checkpoint&& checkpoint) {
  Json fingerprint = FingerprintIfExploring(checkpoint);
  return Recorded(inner_.CommitOwned(std::move(checkpoint)), std::move(fingerprint));
}

Result<std::shared_ptr<const Checkpoint>> HostCheckpointManager::Lookup(
    const CheckpointInfo& info) {
  Result<std::shared_ptr<const Checkpoint>> found = inner_.Lookup(info);
  if (!found.ok()) return found;
  const Json* expected = nullptr;
  auto mine = report_->facts.find(kExportedFact);
  if (mine != report_->facts.end() && mine->contains(info.checkpoint_id)) {
    expected = &(*mine)[info.checkpoint_id];
  }
  if (expected == nullptr && env_.earlier_lives != nullptr) {
    for (auto l = env_.earlier_lives->rbegin(); l != env_.earlier_lives->rend(); ++l) {
      auto it = l->facts.find(kExportedFact);
      if (it != l->facts.end() && it->contains(info.checkpoint_id)) {
        expected = &(*it)[info.checkpoint_id];
        break;
      }
    }
  }
  if (expected == nullptr) return found;  // committed by no life that reported back
  const std::string what = DescribeDifferences(*expected, CheckpointFingerprint(**found));
  if (!what.empty()) {
    const std::string line =
        "checkpoint " + info.checkpoint_id + " (step " + std::to_string((*found)->step_number) +
        ") loaded for a restore differs from what the engine exported at its step in " + what;
    Json& noted = report_->facts[kRestoredDiffersFact];
    if (std::find(noted.begin(), noted.end(), Json(line)) == noted.end()) noted.push_back(line);
  }
  return found;
}

void CheckAgainstExports(const DurableCheckpoints& stored, const std::string& session_id,
                         const Json& exported, const std::vector<LifeReport>& lives,
                         std::vector<Violation>* out) {
  for (const DurableCheckpoint& c : stored.items) {
    if (!c.intact || !c.decoded || c.entry.info.session_id != session_id) continue;
    const std::string& id = c.entry.info.checkpoint_id;
    auto it = exported.find(id);
    if (it == exported.end()) continue;  // committed by no life that reported back
    const std::string what = DescribeDifferences(*it, StoredFingerprint(c));
    if (what.empty()) continue;
    out->push_back({kInvAncestry, "stored checkpoint " + id + " (step " +
                                      std::to_string(c.decoded->step_number) +
                                      (c.delta_base ? ", a delta on " + *c.delta_base : ", full") +
                                      ") resolves to a checkpoint that differs from what the "
                                      "engine exported at its step in " +
                                      what});
  }
  for (size_t i = 0; i < lives.size(); ++i) {
    auto it = lives[i].facts.find(kRestoredDiffersFact);
    if (it == lives[i].facts.end()) continue;
    for (const Json& line : *it) {
      out->push_back(
          {kInvAncestry, "life " + std::to_string(i + 1) + ": " + line.get<std::string>()});
    }
  }
}

StoreCheckpointOptions HostCheckpointOptions(const HostEnv& env) {
  StoreCheckpointOptions options = CheckpointOptionsOf(env.params);
  options.delta_from_wrong_base = env.profile.delta_from_wrong_base;
  options.delta_chain_newest_first = env.profile.delta_chain_newest_first;
  return options;
}

}  // namespace stepfault::scenarios
