// The checks every host shares (see host_oracles.h).
#include "scenarios/host_oracles.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/checkpoint.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios {
namespace {

struct Parsed {
  std::string id;
  int64_t step = 0;
  std::optional<std::string> parent;
};

// The session's intact checkpoints with their step numbers, in commit order. A checkpoint whose
// document does not decode (a planted malformed one) is not ancestry: INV-CORRUPT's business.
std::vector<Parsed> SessionCheckpoints(const DurableCheckpoints& stored,
                                       const std::string& session_id) {
  std::vector<Parsed> out;
  for (const DurableCheckpoint& c : stored.items) {
    if (!c.intact || c.entry.info.session_id != session_id) continue;
    if (c.decoded == nullptr) continue;
    out.push_back(
        {c.entry.info.checkpoint_id, c.decoded->step_number, c.entry.parent_checkpoint_id});
  }
  return out;
}

void CheckLinks(const std::vector<Parsed>& session, std::vector<Violation>* out) {
  std::map<std::string, int64_t> steps;
  for (size_t i = 0; i < session.size(); ++i) {
    const Parsed& p = session[i];
    steps[p.id] = p.step;
    if (i > 0 && !p.parent) {
      out->push_back({kInvAncestry, "checkpoint " + p.id + " (step " + std::to_string(p.step) +
                                        ") is not its session's first yet has no parent link"});
    }
    if (!p.parent) continue;
    auto parent_step = steps.find(*p.parent);
    if (parent_step != steps.end() && parent_step->second + 1 != p.step) {
      out->push_back({kInvAncestry, "checkpoint " + p.id + " is step " + std::to_string(p.step) +
                                        " but its parent is step " +
                                        std::to_string(parent_step->second)});
    }
  }
}

// Ids the lives observed as committed, and what a successful resume since `first_life` allows the
// store to prune from `previous` (the index the last check saw).
std::set<std::string> ObservedCommitted(const std::vector<LifeReport>& lives) {
  std::set<std::string> ids;
  for (const LifeReport& l : lives) {
    for (const char* key : {"checkpoints_written", "resumed_from"}) {
      if (!l.facts.contains(key)) continue;
      for (const Json& id : l.facts[key]) ids.insert(id.get<std::string>());
    }
  }
  return ids;
}

bool PowerLostSince(const std::vector<LifeReport>& lives, size_t first_life) {
  for (size_t i = first_life; i < lives.size(); ++i) {
    if (lives[i].power_lost) return true;
  }
  return false;
}

void CheckDeletions(const Json& previous, const DurableCheckpoints& now,
                    const std::vector<LifeReport>& lives, size_t first_life, const Json& exported,
                    std::vector<Violation>* out) {
  // Present: stored, intact or not (damage is INV-CORRUPT's business, not a deletion).
  std::set<std::string> present;
  for (const DurableCheckpoint& c : now.items) present.insert(c.filed_id);
  std::vector<StoreEntry> before;
  for (const Json& e : previous) {
    StoreEntry entry;
    entry.info.checkpoint_id = e["id"].get<std::string>();
    if (e["parent"].is_string()) entry.parent_checkpoint_id = e["parent"].get<std::string>();
    before.push_back(std::move(entry));
  }
  // Checkpoints committed since that check rank under the pruning rule too (a life may commit a
  // checkpoint and restore it before the next check: the JSON host's live restore), in commit
  // order, with the parent their lives exported (`exported`: checkpoint_reference.h).
  std::set<std::string> listed;
  for (const StoreEntry& e : before) listed.insert(e.info.checkpoint_id);
  for (size_t i = first_life; i < lives.size(); ++i) {
    for (const Json& id : lives[i].facts.value("checkpoints_written", Json::array())) {
      if (!listed.insert(id.get<std::string>()).second) continue;
      StoreEntry entry;
      entry.info.checkpoint_id = id.get<std::string>();
      auto fp = exported.find(entry.info.checkpoint_id);
      if (fp != exported.end() && (*fp)["parent"].is_string()) {
        entry.parent_checkpoint_id = (*fp)["parent"].get<std::string>();
      }
      before.push_back(std::move(entry));
    }
  }
  std::set<std::string> prunable;
  const bool power_lost = PowerLostSince(lives, first_life);
  for (size_t i = first_life; i < lives.size(); ++i) {
    Json targets = lives[i].facts.value("resumed_from", Json::array());
    if (lives[i].facts.contains("restoring")) targets.push_back(lives[i].facts["restoring"]);
    for (const Json& target : targets) {
      for (const std::string& id : ExpectedPruned(before, target.get<std::string>())) {
        prunable.insert(id);
      }
    }
  }
  const std::set<std::string> committed = ObservedCommitted(lives);
  for (const StoreEntry& e : before) {
    const std::string& id = e.info.checkpoint_id;
    if (present.count(id) > 0 || prunable.count(id) > 0) continue;
    if (power_lost && committed.count(id) == 0) continue;  // never committed: may be lost
    out->push_back({kInvAncestry,
                    "stored checkpoint " + id + " was deleted" +
                        (committed.count(id) > 0 ? " although a life observed it committed" : "") +
                        ", and no successful resume made it obsolete"});
  }
}

// The durability oracle for checkpoints a life observed as committed and no check has seen yet
// (a power loss in the same life took it before the next check): gone without a successful resume
// since, which alone may prune, it was never durable.
void CheckCommittedSurvive(const HostEnv& env, const DurableCheckpoints& now,
                           const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  // Damaged bytes are INV-CORRUPT's business (a damaged SQLite store lists no rows at all).
  for (const LifeReport& l : lives) {
    if (l.damaged) return;
  }
  std::set<std::string> present;
  for (const DurableCheckpoint& c : now.items) present.insert(c.filed_id);
  Json& reported = (*env.oracle_memo)["committed_lost"];
  for (size_t i = 0; i < lives.size(); ++i) {
    bool resumed_since = false;
    for (size_t j = i; j < lives.size(); ++j) {
      const Json& f = lives[j].facts;
      resumed_since = resumed_since || f.contains("restoring") ||
                      !f.value("resumed_from", Json::array()).empty();
    }
    if (resumed_since) continue;
    for (const Json& id : lives[i].facts.value("checkpoints_written", Json::array())) {
      const std::string name = id.get<std::string>();
      if (present.count(name) > 0 || reported.contains(name)) continue;
      reported[name] = true;
      out->push_back({kInvAncestry, "checkpoint " + name + ", which life " + std::to_string(i + 1) +
                                        " observed committed, is gone although no resume " +
                                        "since could prune it: it was never durable"});
    }
  }
}

}  // namespace

std::vector<std::string> ExpectedPruned(const std::vector<StoreEntry>& index,
                                        const std::string& target) {
  // Ancestors of `target`: follow the parent links through the whole index, never twice.
  std::set<std::string> ancestors;
  std::optional<std::string> next;
  bool found = false;
  for (const StoreEntry& e : index) {
    if (e.info.checkpoint_id == target) {
      found = true;
      next = e.has_parent_metadata ? e.parent_checkpoint_id : std::nullopt;
    }
  }
  if (!found || index.front().info.checkpoint_id == target) return {};
  while (next && ancestors.insert(*next).second) {
    std::optional<std::string> parent;
    for (const StoreEntry& e : index) {
      if (e.info.checkpoint_id == *next && e.has_parent_metadata) parent = e.parent_checkpoint_id;
    }
    next = parent;
  }
  std::vector<std::string> pruned;
  for (const StoreEntry& e : index) {
    if (e.info.checkpoint_id == target) break;
    const bool legacy = !e.has_parent_metadata;
    const bool root = e.has_parent_metadata && !e.parent_checkpoint_id;
    if (legacy || root || ancestors.count(e.info.checkpoint_id) > 0) {
      pruned.push_back(e.info.checkpoint_id);
    }
  }
  return pruned;
}

void CheckAncestry(HostEnv& env, const std::string& subdir, const std::string& session_id,
                   const std::vector<LifeReport>& lives, bool check_deletions,
                   std::vector<Violation>* out) {
  auto stored = ReadDurableCheckpoints(env, subdir);
  if (!stored.ok()) return;
  // A committed checkpoint never changes. One no life observed committed (its commit never
  // returned) may be lost to a power loss and its store-chosen id reused by the next commit.
  Json& seen = (*env.oracle_memo)["checkpoint_tag"];
  Json& seen_at = (*env.oracle_memo)["checkpoint_tag_lives"];
  Json& seen_committed = (*env.oracle_memo)["checkpoint_tag_committed"];
  const std::set<std::string> committed = ObservedCommitted(lives);
  for (const DurableCheckpoint& c : stored->items) {
    if (!c.intact || c.entry.info.session_id != session_id) continue;
    const std::string& id = c.entry.info.checkpoint_id;
    if (seen.contains(id) && seen[id] != c.tag &&
        (seen_committed[id].get<bool>() || !PowerLostSince(lives, seen_at[id].get<size_t>()))) {
      out->push_back({kInvAncestry, "stored checkpoint " + id + " changed after it was committed"});
    }
    seen[id] = c.tag;
    seen_at[id] = lives.size();
    seen_committed[id] = committed.count(id) > 0;
  }
  const Json exported = ExportedFingerprints(lives);
  CheckAgainstExports(*stored, session_id, exported, lives, out);
  const std::vector<Parsed> session = SessionCheckpoints(*stored, session_id);
  CheckLinks(session, out);
  Json& memo = (*env.oracle_memo)["ancestry|" + subdir + "|" + session_id];
  if (check_deletions && memo.contains("index")) {
    CheckDeletions(memo["index"], *stored, lives, memo["lives"].get<size_t>(), exported, out);
  }
  if (check_deletions) CheckCommittedSurvive(env, *stored, lives, out);
  Json index = Json::array();
  for (const Parsed& p : session) {
    index.push_back({{"id", p.id}, {"parent", p.parent ? Json(*p.parent) : Json(nullptr)}});
  }
  memo = Json{{"index", index}, {"lives", lives.size()}};
}

void CheckGiveUp(HostEnv& env, const std::string& subdir, const std::string& session_id,
                 const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  if (lives.empty() || !lives.back().final) return;
  auto stored = ReadDurableCheckpoints(env, subdir);
  if (!stored.ok()) return;
  const std::vector<Parsed> session = SessionCheckpoints(*stored, session_id);
  if (session.empty()) return;
  out->push_back(
      {kInvCorrupt, "life " + std::to_string(lives.size()) + " gave up with '" +
                        lives.back().status.ToString() + "' although checkpoint " +
                        session.back().id + " (step " + std::to_string(session.back().step) +
                        ") is intact: the fallback to an intact ancestor was not taken"});
}

faults::ConflictField ConflictFieldOf(const HostEnv& env) { return env.variation.conflict; }

void CheckHostFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  for (size_t i = 0; i < lives.size(); ++i) {
    const Json& f = lives[i].facts;
    const std::string life = "life " + std::to_string(i + 1);
    if (f.value("run_ended_by_observer_cancel", false)) {
      out->push_back({kInvObserver, life + ": cancelling the event watcher ended the run"});
    }
    if (f.contains("topology_rejected") && !f["topology_rejected"].get<bool>()) {
      out->push_back({kInvTopology, life + ": a resume with a mutated workflow (" +
                                        f.value("topology_mutation", std::string()) +
                                        ") was accepted"});
    }
    if (f.value("topology_rejected", false) && f.value("topology_state_imported", false)) {
      out->push_back({kInvTopology, life + ": the resume with a mutated workflow (" +
                                        f.value("topology_mutation", std::string()) +
                                        ") was refused only after state was imported"});
    }
    if (f.contains("workflow_reusable") && !f["workflow_reusable"].get<bool>()) {
      out->push_back(
          {kInvTopology, life + ": the workflow stayed owned after its resume was rejected"});
    }
  }
}

}  // namespace stepfault::scenarios
