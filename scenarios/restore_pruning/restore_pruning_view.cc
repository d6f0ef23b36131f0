// The restore-pruning scenario's directory view, progress file and pruning oracle.
#include "scenarios/restore_pruning/restore_pruning_view.h"

#include <algorithm>
#include <map>
#include <set>

#include "engine/crc32c.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/host_oracles.h"

namespace stepfault::scenarios {
std::vector<StoreEntry> RestorePruningView::Index(const std::string& session_id) const {
  std::vector<StoreEntry> out;
  for (const RestorePruningFile& f : files) {
    if (f.envelope_ok && f.entry.info.session_id == session_id) out.push_back(f.entry);
  }
  return out;
}

const RestorePruningFile* RestorePruningView::Find(const std::string& checkpoint_id) const {
  for (const RestorePruningFile& f : files) {
    if (f.envelope_ok && f.entry.info.checkpoint_id == checkpoint_id) return &f;
  }
  return nullptr;
}

Json RestorePruningView::ToJson() const {
  Json out = Json::object();
  for (const auto& [name, crc] : crc_by_name) out[name] = crc;
  return out;
}

Result<RestorePruningView> ReadRestorePruningView(const HostEnv& env, const std::string& subdir,
                                                  RestorePruningDepth depth) {
  RestorePruningView view;
  SF_ASSIGN_OR_RETURN(DurableCheckpoints stored, ReadDurableCheckpoints(env, subdir));
  view.crc_by_name = stored.objects;
  if (depth == RestorePruningDepth::kBytes) return view;
  for (DurableCheckpoint& c : stored.items) {
    RestorePruningFile file;
    file.name = c.name;
    file.id = c.filed_id;
    file.crc = c.tag;
    file.envelope_ok = c.intact;
    file.entry = c.entry;
    file.delta_base = c.delta_base;
    if (c.intact && depth == RestorePruningDepth::kCheckpoints) {
      if (c.decoded != nullptr) file.checkpoint = *c.decoded;
    }
    view.files.push_back(std::move(file));
  }
  return view;
}

Json RestorePruningIndexJson(const RestorePruningView& view, const std::string& session_id) {
  Json out = Json::array();
  for (const RestorePruningFile& f : view.files) {
    if (!f.envelope_ok || f.entry.info.session_id != session_id) continue;
    out.push_back({{"name", f.name},
                   {"id", f.entry.info.checkpoint_id},
                   {"parent", f.entry.parent_checkpoint_id ? Json(*f.entry.parent_checkpoint_id)
                                                           : Json(nullptr)},
                   {"base", f.delta_base ? Json(*f.delta_base) : Json(nullptr)}});
  }
  return out;
}

Json RestorePruningProgress::ToJson() const {
  return Json{{"cases_done", cases_done},
              {"first_id", first_id},
              {"pending_id", pending_id},
              {"request_id", request_id},
              {"restore_hook_fails", restore_hook_fails},
              {"case6_target", case6_target}};
}

Result<RestorePruningProgress> ReadRestorePruningProgress(Env* env, const std::string& dir) {
  const std::string path = JoinPath(dir, kRestorePruningProgressFile);
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(path));
  RestorePruningProgress p;
  if (!exists) return p;
  SF_ASSIGN_OR_RETURN(std::string content, env->ReadFile(path));
  Json j = Json::parse(content, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("cases_done") ||
      !j["cases_done"].is_number_integer()) {
    return Status::Corruption(path + " is not a progress document; remove it to start over");
  }
  p.cases_done = j["cases_done"].get<int>();
  p.first_id = j.value("first_id", std::string());
  p.pending_id = j.value("pending_id", std::string());
  p.request_id = j.value("request_id", std::string());
  p.restore_hook_fails = j.value("restore_hook_fails", false);
  p.case6_target = j.value("case6_target", std::string());
  return p;
}

Status WriteRestorePruningProgress(Env* env, const std::string& dir,
                                   const RestorePruningProgress& progress) {
  return WriteFileAtomically(env, dir, kRestorePruningProgressFile,
                             progress.ToJson().dump() + "\n");
}

std::string RestorePruningUnchanged(const Json& before, const Json& after) {
  std::string out;
  for (const auto& [name, crc] : before.items()) {
    if (!after.contains(name)) {
      out += name + " was deleted; ";
    } else if (after[name] != crc) {
      out += name + " changed; ";
    }
  }
  for (const auto& [name, crc] : after.items()) {
    if (!before.contains(name)) out += name + " appeared; ";
  }
  return out;
}

std::string RestorePruningPrunedExactly(const Json& before_index, const Json& before,
                                        const Json& after, const std::string& session_id,
                                        const std::string& target, bool observer_ok) {
  std::vector<StoreEntry> index;
  std::map<std::string, std::string> name_by_id;
  for (const Json& e : before_index) {
    StoreEntry entry;
    entry.info = CheckpointInfo{session_id, e["id"].get<std::string>()};
    if (e["parent"].is_string()) entry.parent_checkpoint_id = e["parent"].get<std::string>();
    name_by_id[entry.info.checkpoint_id] = e["name"].get<std::string>();
    index.push_back(std::move(entry));
  }
  // Incremental checkpoints: a base that a kept checkpoint's chain of deltas reaches stays.
  std::set<std::string> doomed;
  for (const std::string& id : ExpectedPruned(index, target)) doomed.insert(id);
  std::map<std::string, std::string> base_by_id;
  for (const Json& e : before_index) {
    if (e.value("base", Json()).is_string()) base_by_id[e["id"]] = e["base"].get<std::string>();
  }
  std::set<std::string> needed;
  for (const StoreEntry& e : index) {
    if (doomed.count(e.info.checkpoint_id) > 0) continue;
    std::string cursor = e.info.checkpoint_id;
    for (size_t hops = 0; hops <= index.size() && base_by_id.count(cursor) > 0; ++hops) {
      cursor = base_by_id[cursor];
      needed.insert(cursor);
    }
  }
  std::vector<std::string> victims;
  for (const std::string& id : ExpectedPruned(index, target)) {
    if (needed.count(id) == 0) victims.push_back(name_by_id[id]);
  }
  std::string out;
  std::set<std::string> removed;
  for (const auto& [name, crc] : before.items()) {
    if (!after.contains(name)) {
      removed.insert(name);
    } else if (after[name] != crc) {
      out += name + " changed; ";
    }
  }
  for (const auto& [name, crc] : after.items()) {
    if (!before.contains(name)) out += name + " appeared; ";
  }
  // Oldest first: what was removed must be a prefix of the victims (all of them when the
  // observer reported success).
  size_t prefix = 0;
  while (prefix < victims.size() && removed.count(victims[prefix]) > 0) ++prefix;
  for (const std::string& name : removed) {
    if (std::find(victims.begin(), victims.begin() + static_cast<long>(prefix), name) ==
        victims.begin() + static_cast<long>(prefix)) {
      out += name + " was deleted but is not an obsolete ancestor of " + target +
             " (or was deleted out of order); ";
    }
  }
  if (observer_ok && prefix < victims.size()) {
    out += victims[prefix] + " is an obsolete ancestor of " + target +
           " but survived a prune that reported success; ";
  }
  return out;
}

}  // namespace stepfault::scenarios
