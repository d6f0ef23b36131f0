// Pruning shared by the memory, file and SQLite stores.
#include "engine/store_prune.h"

#include <set>

#include "engine/checkpoint.h"
#include "engine/probe_points.h"

namespace stepfault {

std::vector<CheckpointInfo> PrunableBeforeRestored(const std::vector<StoreEntry>& session_index,
                                                   const CheckpointInfo& restored,
                                                   const DeltaBaseOf& base_of) {
  std::vector<CheckpointInfo> victims = ObsoleteBeforeRestored(session_index, restored);
  if (victims.empty() || !base_of) return victims;
  std::set<std::string> doomed;
  for (const CheckpointInfo& v : victims) doomed.insert(v.checkpoint_id);
  std::set<std::string> in_index;
  for (const StoreEntry& e : session_index) in_index.insert(e.info.checkpoint_id);
  std::set<std::string> needed;   // bases a kept checkpoint's chain reaches
  std::set<std::string> visited;  // each stored checkpoint is read at most once
  for (const StoreEntry& e : session_index) {
    if (doomed.count(e.info.checkpoint_id) > 0) continue;  // kept entries start the walks
    std::string cursor = e.info.checkpoint_id;
    for (size_t hops = 0; hops <= session_index.size(); ++hops) {
      if (!visited.insert(cursor).second) break;
      std::optional<std::string> base = base_of(CheckpointInfo{restored.session_id, cursor});
      if (!base || in_index.count(*base) == 0) break;
      needed.insert(*base);
      cursor = *base;
    }
  }
  std::erase_if(victims, [&](const CheckpointInfo& v) { return needed.count(v.checkpoint_id); });
  return victims;
}

DeltaBaseOf DeltaBaseFromBytes(std::function<Result<std::string>(const CheckpointInfo&)> read) {
  return [read = std::move(read)](const CheckpointInfo& info) -> std::optional<std::string> {
    Result<std::string> bytes = read(info);
    if (!bytes.ok()) return std::nullopt;
    Result<std::optional<std::string>> base = CheckpointDeltaBase(*bytes);
    return base.ok() ? *base : std::nullopt;
  };
}

Status PruneObsolete(const std::vector<StoreEntry>& session_index, const CheckpointInfo& restored,
                     const std::function<Status(const CheckpointInfo&)>& erase, Probe* probe,
                     const DeltaBaseOf& base_of) {
  if (probe == nullptr) probe = NullProbe();
  probe->Hit(points::kStorePruneBefore);
  for (const CheckpointInfo& victim : PrunableBeforeRestored(session_index, restored, base_of)) {
    probe->Hit(points::kStorePruneDelete);
    Status s = erase(victim);
    if (!s.ok() && s.code() != StatusCode::kNotFound) {
      return s.WithContext("pruning " + victim.ToString() + " after restoring " +
                           restored.ToString() + " (prune again to finish)");
    }
  }
  return Status::Ok();
}

}  // namespace stepfault
