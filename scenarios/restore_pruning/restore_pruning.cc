// The restore-pruning scenario: its life (open, dispatch to the host) and its oracle.
#include "scenarios/restore_pruning/restore_pruning.h"

#include <set>

#include "engine/random.h"
#include "scenarios/checkpoint_reference.h"
#include "scenarios/host_drive.h"
#include "scenarios/host_oracles.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"
#include "scenarios/restore_pruning/restore_pruning_host.h"

namespace stepfault::scenarios {
namespace {

bool IsTypedDataError(const std::string& code) {
  return code == StatusCodeName(StatusCode::kCorruption) ||
         code == StatusCodeName(StatusCode::kNotFound) ||
         code == StatusCodeName(StatusCode::kIncompatible) ||
         code == StatusCodeName(StatusCode::kInvalidArgument);
}

std::string SessionId(const HostEnv& env) {
  return DeriveId(env.root_seed, "restore-pruning|session");
}

// INV-ATOMIC: the checkpoints a live run committed after a failed restore (decoded from their
// bytes) against those a fresh resume of the same checkpoint committed; "" when equal, else the
// first difference.
std::string SnapshotDiff(const Json& before, const Json& after) {
  if (before.size() != after.size()) {
    return "it committed " + std::to_string(after.size()) + " checkpoints to its halt where an " +
           "untouched run commits " + std::to_string(before.size());
  }
  for (size_t i = 0; i < before.size(); ++i) {
    if (before[i] == after[i]) continue;
    std::string fields;
    if (before[i].is_object() && after[i].is_object()) {
      for (const auto& [key, value] : before[i].items()) {
        if (!after[i].contains(key) || after[i][key] != value) fields += " " + key;
      }
    }
    return "its checkpoint " + std::to_string(i + 1) + " after the attempt differs from an " +
           "untouched run's in:" + (fields.empty() ? std::string(" its shape") : fields) +
           " (untouched " + before[i].dump() + ", after the attempt " + after[i].dump() + ")";
  }
  return "";
}

// The rules over one life's facts.
void CheckLifeFacts(const Json& facts, const std::string& life, const std::string& session_id,
                    std::vector<Violation>* out) {
  for (const Json& a : facts.value("attempts", Json::array())) {
    const std::string what = life + ", case " + std::to_string(a["case"].get<int>()) + ": " +
                             a["what"].get<std::string>();
    if (!a["rejected"].get<bool>()) {
      out->push_back(
          {a["invariant"].get<std::string>(), what + " was accepted; it must be rejected"});
      continue;  // an accepted restore may prune: the ancestry rules below are for failed ones
    }
    if (a.value("state_imported", false)) {
      out->push_back({kInvTopology, what + " was rejected only after state was imported"});
    }
    if (a["invariant"] == kInvCorrupt && !IsTypedDataError(a["code"].get<std::string>())) {
      out->push_back({kInvCorrupt, what + " was rejected with an untyped error (" +
                                       a["code"].get<std::string>() + ")"});
    }
    const std::string diff = RestorePruningUnchanged(a["before"], a["after"]);
    if (!diff.empty()) {
      out->push_back({kInvAncestry, what + " failed but changed the checkpoint store: " + diff});
    }
    if (a.contains("snapshot_before")) {
      const std::string diff = SnapshotDiff(a["snapshot_before"], a["snapshot_after"]);
      if (!diff.empty()) {
        out->push_back({kInvAtomic, what + " failed but left the live run changed: " + diff});
      }
    }
  }
  for (const Json& r : facts.value("restores", Json::array())) {
    const std::string diff =
        RestorePruningPrunedExactly(r["before_index"], r["before"], r["after"], session_id,
                                    r["target"].get<std::string>(), r["observer_ok"].get<bool>());
    if (!diff.empty()) {
      out->push_back({kInvAncestry, life + ", case " + std::to_string(r["case"].get<int>()) +
                                        ": the successful restore of " +
                                        r["target"].get<std::string>() +
                                        " did not prune exactly its obsolete ancestors: " + diff});
    }
  }
  if (facts.contains("stale_response")) {
    const Json& s = facts["stale_response"];
    const Json& id = s["request_id"];
    int reemitted = 0;
    for (const Json& r : s["reemitted"]) reemitted += r == id ? 1 : 0;
    bool pending = false;
    for (const Json& r : s["pending_after"]) pending = pending || r == id;
    if (!pending) {
      out->push_back({kInvReqid, life +
                                     ", case 5: a response queued before the live restore was "
                                     "applied after it; request " +
                                     id.get<std::string>() + " is no longer pending"});
    }
    if (reemitted != 1) {
      out->push_back({kInvReqid, life + ", case 5: request " + id.get<std::string>() +
                                     " was re-emitted " + std::to_string(reemitted) +
                                     " times after the restore, not once"});
    }
  }
}

// INV-ANCESTRY over the durable directory: pruning deletes oldest first, so going up from any
// stored checkpoint, once an ancestor is gone every older one is gone too. A gap means a prune
// deleted out of order (or a death left one half-done in a way a re-prune cannot finish: the
// walk up the parent links stops at the gap). Parent links are remembered in the memo across
// lives, since the files that carried them may be gone.
void CheckNoGaps(HostEnv& env, const std::string& session_id, std::vector<Violation>* out) {
  auto view = ReadRestorePruningView(env, kRestorePruningStoreDir, RestorePruningDepth::kEnvelopes);
  if (!view.ok()) return;
  Json& parents = (*env.oracle_memo)["restore_pruning_parents"];
  std::set<std::string> on_disk;  // by file name, damaged files included
  for (const RestorePruningFile& f : view->files) {
    on_disk.insert(f.id);
    if (f.envelope_ok && f.entry.info.session_id == session_id) {
      parents[f.entry.info.checkpoint_id] =
          f.entry.parent_checkpoint_id ? Json(*f.entry.parent_checkpoint_id) : Json(nullptr);
    }
  }
  std::set<std::string> reported;  // one violation per stranded checkpoint
  for (const RestorePruningFile& f : view->files) {
    if (!f.envelope_ok || f.entry.info.session_id != session_id) continue;
    std::string missing;
    Json cursor = parents[f.entry.info.checkpoint_id];
    for (size_t hops = 0; hops <= parents.size() && cursor.is_string(); ++hops) {
      const std::string id = cursor.get<std::string>();
      if (on_disk.count(id) == 0) {
        if (missing.empty()) missing = id;
      } else if (!missing.empty()) {
        if (!reported.insert(id).second) break;
        out->push_back({kInvAncestry, "checkpoint " + id + " is still stored but " + missing +
                                          ", between it and its descendant " +
                                          f.entry.info.checkpoint_id +
                                          ", is gone: a prune deleted out of order"});
        break;
      }
      cursor = parents.contains(id) ? parents[id] : Json(nullptr);
    }
  }
}

class RestorePruningScenario final : public Scenario {
 public:
  std::string name() const override { return "restore-pruning"; }
  int fault_free_lives() const override { return 6; }
  std::string description() const override {
    return "the pruning PR's cases: incompatible workflow, malformed checkpoint, executor failure "
           "during restore, failure inside state import, stale response, restoring a non-latest "
           "checkpoint; a failed restore changes nothing, a successful one prunes exactly the "
           "obsolete ancestors";
  }
  // No parameters: the scenario's workflow and outcome are fixed (for JSON, by its file).
  std::vector<ParamDecl> params() const override { return {}; }
  std::vector<std::string> invariants() const override {
    return {kInvAncestry, kInvAtomic, kInvReqid, kInvCorrupt, kInvTopology, kInvObserver};
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    using faults::FaultAction;
    using faults::TopologyMutation;
    return {FaultAction::Topology(TopologyMutation::kPermuteEdges),
            FaultAction::Topology(TopologyMutation::kRenameExecutor),
            FaultAction::Topology(TopologyMutation::kRemoveEdge),
            FaultAction::Topology(TopologyMutation::kChangePortType),
            FaultAction::Of(faults::FaultActionKind::kObserverCancel)};
  }
  std::string BusinessWindow(const std::string& command, const std::string& point) const override {
    if (!command.starts_with("case ")) return command == "verify" ? "after the last case" : "";
    if (point.starts_with("store.prune") || point == "fs.unlink[checkpoint]") {
      return "pruning after a successful restore";
    }
    if (point.find("[file]") != std::string::npos) return command + ": recording progress";
    const bool commits = point.starts_with("checkpoint.commit") || point.starts_with("step.") ||
                         point.find("[checkpoint]") != std::string::npos;
    if (commits && command.starts_with("case 1")) return "building the checkpoint chain";
    if (commits && command.starts_with("case 2")) return "case 2: committing malformed checkpoints";
    if (commits && command.starts_with("case 4")) return "case 4: committing the unfit checkpoint";
    if (commits && command.starts_with("case 6")) return "case 6: answering the request";
    return command;
  }

  bool LifeReadsPrevious() const override { return false; }  // durable state alone
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override {
    (void)previous;
    auto progress = ReadRestorePruningProgress(env.env, env.dir);
    if (!progress.ok()) {
      report->command = "open";
      report->status = progress.status();
      report->final = progress.status().code() == StatusCode::kCorruption;
      return;
    }
    report->command = RestorePruningCommand(progress->cases_done);
    auto store = OpenCheckpointStore(env, kRestorePruningStoreDir);
    if (!store.ok()) {
      report->status = store.status();
      return;
    }
    // Full checkpoints: the scenario replays the pruning PR's cases, whose expected prunes are
    // MAF's rule; with deltas a restored checkpoint keeps its chain (conformance suite).
    StoreCheckpointOptions full = HostCheckpointOptions(env);
    full.full_every = 1;
    HostCheckpointManager manager(store->get(), full, env, report);
    RestorePruningLife life;
    life.env = &env;
    life.report = report;
    life.store = store->get();
    life.manager = &manager;
    life.spec = RestorePruningSpec(env.env, env.dir);
    life.session_id = SessionId(env);
    life.store_dir = JoinPath(env.dir, kRestorePruningStoreDir);
    life.progress = *progress;
    Status s = RunRestorePruningCommand(life);
    if (!s.ok()) {
      report->status = s;
      // Damaged chain data cannot be fixed by another try; anything else is retried.
      report->final = s.code() == StatusCode::kCorruption;
    }
  }

  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override {
    (void) final;
    // Facts are checked for the newest life only: earlier lives were checked after they ran.
    if (!lives.empty()) {
      const LifeReport& last = lives.back();
      CheckLifeFacts(last.facts, "life " + std::to_string(lives.size()) + " (" + last.command + ")",
                     SessionId(env), out);
    }
    // The oracle must not prune while it reads: prune_on_read is a mutant of the host's store.
    HostEnv reader = env;
    reader.store.prune_on_read = false;
    // Deletions are judged per case, exactly, by the pruning oracle above.
    CheckAncestry(reader, kRestorePruningStoreDir, SessionId(env), lives, /*check_deletions=*/false,
                  out);
    CheckNoGaps(env, SessionId(env), out);
    CheckHostFacts(lives, out);
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeRestorePruningScenario() {
  return std::make_shared<RestorePruningScenario>();
}

}  // namespace stepfault::scenarios
