// Incremental checkpoints (version 3, checkpoint.h): a delta holds only the state values that
// changed since its parent; reading one follows the chain of bases to the nearest full snapshot.
#include <algorithm>
#include <set>

#include "engine/checkpoint_internal.h"

namespace stepfault {

using checkpoint_internal::DecodeAny;
using checkpoint_internal::DecodePart;
using checkpoint_internal::FramedParts;

std::string EncodeCheckpointDelta(const Checkpoint& c, const Checkpoint& base,
                                  const std::string& base_checkpoint_id) {
  return EncodeCheckpointDeltaParts(c, base, base_checkpoint_id).Join();
}

EncodedCheckpoint EncodeCheckpointDeltaParts(const Checkpoint& c, const Checkpoint& base,
                                             const std::string& base_checkpoint_id,
                                             std::string_view workflow_ref) {
  // Only what changed: with copy-on-write state an unchanged value is the base's very object, so
  // the comparison is a pointer compare for everything the step did not write.
  Checkpoint d;
  d.session_id = c.session_id;
  d.step_number = c.step_number;
  d.workflow = c.workflow;
  d.workflow_ref = c.workflow_ref;
  // Only the ids instantiated since the base (instantiated_ids.h: the layers above the base's),
  // or all of them when the base holds one this checkpoint lacks.
  std::optional<std::vector<std::string>> added = c.instantiated.AddedSince(base.instantiated);
  if (added) {
    d.instantiated = std::move(*added);
  } else {
    d.instantiated = c.instantiated;
  }
  d.queued = c.queued;
  d.outstanding = c.outstanding;
  d.edge_state = c.edge_state;
  d.parent = c.parent;
  Json removed = Json::array();
  for (const auto& [scope, kv] : c.state) {
    auto b = base.state.find(scope);
    if (b != base.state.end() && &b->values == &kv) continue;  // the very same (shared) scope
    ScopeMap changed;
    for (const auto& [k, v] : kv) {
      if (b != base.state.end()) {
        auto bv = b->values.find(k);
        if (bv != b->values.end() && bv->second == v) continue;
      }
      changed.emplace_hint(changed.end(), k, v);
    }
    if (!changed.empty()) d.state.SetScope(scope, std::move(changed));
  }
  for (const auto& [scope, kv] : base.state) {
    auto cs = c.state.find(scope);
    if (cs != c.state.end() && &cs->values == &kv) continue;
    for (const auto& [k, v] : kv) {
      if (cs == c.state.end() || cs->values.count(k) == 0)
        removed.push_back(Json::array({scope, k}));
    }
  }
  Json delta{{"base", base_checkpoint_id}, {"removed", std::move(removed)}};
  auto body = std::make_shared<const Checkpoint>(std::move(d));
  return CheckpointFramer::Encode(*body, &delta, body,
                                  checkpoint_internal::BodyForm{workflow_ref, added.has_value()});
}

Status checkpoint_internal::ReadDelta(const Json& meta, FramedParts* out) {
  SF_ASSIGN_OR_RETURN(const Json* delta, JsonField(meta, "delta", Json::value_t::object, ""));
  SF_ASSIGN_OR_RETURN(std::string base, JsonString(*delta, "base", "/delta"));
  if (base.empty()) return Status::Corruption("/delta/base: empty checkpoint id");
  SF_ASSIGN_OR_RETURN(const Json* removed,
                      JsonField(*delta, "removed", Json::value_t::array, "/delta"));
  if (delta->size() != 2) return Status::Corruption("/delta has unexpected fields");
  for (const Json& r : *removed) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_string() || !r[1].is_string()) {
      return Status::Corruption("/delta/removed: expected [scope, key] pairs");
    }
    out->removed.emplace_back(r[0].get<std::string>(), r[1].get<std::string>());
  }
  out->base = std::move(base);
  return Status::Ok();
}

Result<std::optional<std::string>> CheckpointDeltaBase(std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts parts, DecodeAny(bytes, DecodePart::kBase));
  return parts.base;
}

namespace {
// The instantiated ids of a chain's newest link (chain: newest first, the last one full): those of
// the newest link that lists them all, extended by every id a newer link added (sharing them).
InstantiatedIds InstantiatedOfChain(const std::vector<FramedParts>& chain) {
  size_t full = 0;
  while (chain[full].instantiated_added) ++full;  // the last link is full: always stops
  std::vector<std::string> added;
  for (size_t i = 0; i < full; ++i) {
    std::vector<std::string> ids = chain[i].checkpoint.instantiated.Sorted();
    added.insert(added.end(), ids.begin(), ids.end());
  }
  return InstantiatedIds::Extend(chain[full].checkpoint.instantiated, std::move(added));
}
}  // namespace

Result<Checkpoint> ResolveCheckpoint(std::string_view bytes, const CheckpointFetch& fetch,
                                     ChainOrder order) {
  SF_ASSIGN_OR_RETURN(FramedParts head, DecodeAny(bytes));
  std::vector<FramedParts> chain;  // newest first; the last one is full
  chain.push_back(std::move(head));
  std::set<std::string> seen;
  while (chain.back().base) {
    const std::string base = *chain.back().base;
    if (!seen.insert(base).second || chain.size() > kMaxCheckpointChain) {
      return Status::Corruption("incremental checkpoint chain loops or is longer than " +
                                std::to_string(kMaxCheckpointChain) + " links at " + base);
    }
    const std::string where = "base checkpoint " + base + " of an incremental checkpoint (step " +
                              std::to_string(chain.back().checkpoint.step_number) + ")";
    Result<std::string> base_bytes = fetch(base);
    if (!base_bytes.ok()) {
      // A missing or unreadable link damages every checkpoint that depends on it.
      return Status::Corruption(where + " cannot be read: " + base_bytes.status().ToString());
    }
    // Only what a link contributes (its state, removed keys, base, session, step): the rest of
    // the checkpoint comes from the newest one, decoded in full above.
    Result<FramedParts> parts = DecodeAny(*base_bytes, DecodePart::kLink);
    if (!parts.ok()) return Status::Corruption(where + ": " + parts.status().ToString());
    if (parts->checkpoint.session_id != chain.back().checkpoint.session_id) {
      return Status::Corruption(where + " belongs to session '" + parts->checkpoint.session_id +
                                "'");
    }
    chain.push_back(std::move(parts).value());
  }
  StateMap state = std::move(chain.back().checkpoint.state);
  auto apply = [&state](const FramedParts& link) {
    for (const auto& [scope, key] : link.removed) state.Erase(scope, key);
    for (const auto& [scope, kv] : link.checkpoint.state) {
      for (const auto& [k, v] : kv) state.Set(scope, k, v);
    }
  };
  if (order == ChainOrder::kNewestFirstMutant) {
    for (size_t i = 0; i + 1 < chain.size(); ++i) apply(chain[i]);
  } else {
    for (size_t i = chain.size() - 1; i-- > 0;) apply(chain[i]);
  }
  std::optional<InstantiatedIds> instantiated;
  if (chain.front().instantiated_added) instantiated = InstantiatedOfChain(chain);
  Checkpoint out = std::move(chain.front().checkpoint);
  out.state = std::move(state);
  if (instantiated) out.instantiated = std::move(*instantiated);
  return out;
}

Result<Checkpoint> ApplyCheckpointDelta(const Checkpoint& base, std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(FramedParts head, DecodeAny(bytes));
  if (!head.base) return std::move(head.checkpoint);
  if (head.checkpoint.session_id != base.session_id) {
    return Status::Corruption("incremental checkpoint of session '" + head.checkpoint.session_id +
                              "' applied to a base of session '" + base.session_id + "'");
  }
  StateMap state = base.state;
  for (const auto& [scope, key] : head.removed) state.Erase(scope, key);
  for (const auto& [scope, kv] : head.checkpoint.state) {
    for (const auto& [k, v] : kv) state.Set(scope, k, v);
  }
  Checkpoint out = std::move(head.checkpoint);
  out.state = std::move(state);
  if (head.instantiated_added) {
    out.instantiated = InstantiatedIds::Extend(base.instantiated, out.instantiated);
  }
  return out;
}

Result<std::string> ResolveCheckpointBytes(std::string_view bytes, const CheckpointFetch& fetch) {
  SF_ASSIGN_OR_RETURN(std::optional<std::string> base, CheckpointDeltaBase(bytes));
  if (!base) return std::string(bytes);
  SF_ASSIGN_OR_RETURN(Checkpoint full, ResolveCheckpoint(bytes, fetch));
  return EncodeCheckpoint(full);
}

}  // namespace stepfault
