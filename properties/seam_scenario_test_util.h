// SeamScenario: a built-in scenario with a hand-written bug introduced through a seam, for the bug
// class tests (issue 12, point 6). It delegates everything to the scenario it wraps and lets the
// test change the HostEnv of every life before the host runs (wrap the Env, install HostSeams),
// so the bug lives in the host's surroundings, never in a hazard switch; Check sees the same
// change, so the oracles read through whatever the bug did to the world.
// Thread-safety: immutable; the edit function must be safe to call from the exploring thread.
#pragma once

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "properties/explorer.h"
#include "scenarios/json/json_scenario.h"
#include "scenarios/registry.h"
#include "scenarios/scenario.h"
#include "tools/testing/test_env.h"

namespace stepfault::properties::testing {

class SeamScenario final : public scenarios::Scenario {
 public:
  using Edit = std::function<void(scenarios::HostEnv&)>;
  SeamScenario(std::shared_ptr<const scenarios::Scenario> inner, Edit life_edit,
               Edit check_edit = nullptr)
      : inner_(std::move(inner)),
        life_edit_(std::move(life_edit)),
        check_edit_(std::move(check_edit)) {}

  std::string name() const override { return inner_->name(); }
  std::string description() const override { return inner_->description(); }
  std::string replay_name() const override { return inner_->replay_name(); }
  std::vector<std::string> invariants() const override { return inner_->invariants(); }
  int fault_free_lives() const override { return inner_->fault_free_lives(); }
  std::vector<scenarios::ParamDecl> params() const override { return inner_->params(); }
  std::vector<Json> Variants() const override { return inner_->Variants(); }
  std::string BusinessWindow(const std::string& command, const std::string& point) const override {
    return inner_->BusinessWindow(command, point);
  }
  std::string BusinessWindowAfter(const std::string& command, const std::string& point,
                                  const std::string& previous) const override {
    return inner_->BusinessWindowAfter(command, point, previous);
  }
  std::vector<scenarios::HostHazard> host_hazards() const override {
    return inner_->host_hazards();
  }
  std::vector<faults::FaultAction> RecoveryActions() const override {
    return inner_->RecoveryActions();
  }
  // Every life's Env goes through `wrap` (a new wrapper per life, around the life's world).
  using EnvWrap = std::function<std::unique_ptr<Env>(Env*, const std::string& dir)>;
  void WrapEnv(EnvWrap wrap) { wrap_env_ = std::move(wrap); }

  bool LifeReadsPrevious() const override { return inner_->LifeReadsPrevious(); }
  void RunLife(scenarios::HostEnv& env, const std::vector<scenarios::LifeReport>& previous,
               scenarios::LifeReport* report) const override {
    scenarios::HostEnv edited = env;
    if (life_edit_) life_edit_(edited);
    std::unique_ptr<Env> wrapper = wrap_env_ ? wrap_env_(env.env, env.dir) : nullptr;
    if (wrapper) edited.env = wrapper.get();
    inner_->RunLife(edited, previous, report);
  }
  void Check(scenarios::HostEnv& env, const std::vector<scenarios::LifeReport>& lives, bool final,
             std::vector<scenarios::Violation>* out) const override {
    scenarios::HostEnv edited = env;
    if (check_edit_) check_edit_(edited);
    inner_->Check(edited, lives, final, out);
  }

 private:
  std::shared_ptr<const scenarios::Scenario> inner_;
  Edit life_edit_, check_edit_;
  EnvWrap wrap_env_;
};

// An Env that skips one durability call, as a hand-written host bug would: the fsync of the first
// file it writes whose name contains `file` (skip_file_sync), or the directory fsync right after
// the first rename onto such a name (skip_dir_sync). Everything else is forwarded.
class SkipOneSyncEnv final : public EnvWrapper {
 public:
  SkipOneSyncEnv(Env* target, std::string file, bool skip_file_sync, bool skip_dir_sync)
      : EnvWrapper(target),
        file_(std::move(file)),
        skip_file_sync_(skip_file_sync),
        skip_dir_sync_(skip_dir_sync) {}
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, target()->NewWritableFile(path));
    if (!skip_file_sync_ || skipped_ || path.find(file_) == std::string::npos) return file;
    skipped_ = true;
    return std::unique_ptr<WritableFile>(std::make_unique<NoSyncFile>(std::move(file)));
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    if (skip_dir_sync_ && !skipped_ && to.find(file_) != std::string::npos) skip_next_dir_ = true;
    return target()->RenameFile(from, to);
  }
  Status SyncDir(const std::string& dir) override {
    if (skip_next_dir_) {
      skip_next_dir_ = false;
      skipped_ = true;
      return Status::Ok();  // the bug: the rename's directory entry is never made durable
    }
    return target()->SyncDir(dir);
  }

 private:
  class NoSyncFile final : public WritableFile {
   public:
    explicit NoSyncFile(std::unique_ptr<WritableFile> inner) : inner_(std::move(inner)) {}
    Status Append(std::string_view data) override { return inner_->Append(data); }
    Status Sync() override { return Status::Ok(); }  // the bug: the bytes are never fsynced
    Status Close() override { return inner_->Close(); }

   private:
    std::unique_ptr<WritableFile> inner_;
  };

  std::string file_;
  bool skip_file_sync_, skip_dir_sync_;
  bool skipped_ = false, skip_next_dir_ = false;
};

// An Env that never makes a file durable whose path contains `file`: every fsync of it is skipped
// (what a host that trusts the page cache does; SQLite's own syncs go through the VFS, not here).
class NeverSyncEnv final : public EnvWrapper {
 public:
  NeverSyncEnv(Env* target, std::string file) : EnvWrapper(target), file_(std::move(file)) {}
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(const std::string& path) override {
    SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, target()->NewAppendableFile(path));
    if (path.find(file_) == std::string::npos) return file;
    return std::unique_ptr<WritableFile>(std::make_unique<NoSync>(std::move(file)));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, target()->NewWritableFile(path));
    if (path.find(file_) == std::string::npos) return file;
    return std::unique_ptr<WritableFile>(std::make_unique<NoSync>(std::move(file)));
  }

 private:
  class NoSync final : public WritableFile {
   public:
    explicit NoSync(std::unique_ptr<WritableFile> inner) : inner_(std::move(inner)) {}
    Status Append(std::string_view data) override { return inner_->Append(data); }
    Status Sync() override { return Status::Ok(); }  // the bug
    Status Close() override { return inner_->Close(); }

   private:
    std::unique_ptr<WritableFile> inner_;
  };
  std::string file_;
};

// A checkpoint store that drops part of what it is given: `edit` changes each checkpoint before it
// is stored (the bug), everything else is forwarded (restoration notices too, so the store still
// prunes). An incremental checkpoint (a delta) is resolved against what this store already holds
// and stored edited and full, so the bug reaches every checkpoint whatever the manager's K.
class EditingStore final : public ForwardingCheckpointStore {
 public:
  EditingStore(std::unique_ptr<CheckpointStore> inner, std::function<void(Checkpoint&)> edit)
      : ForwardingCheckpointStore(std::move(inner)), edit_(std::move(edit)) {}
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override {
    auto decoded = ResolveCheckpoint(bytes, [&](const std::string& id) {
      return inner().Retrieve(CheckpointInfo{session_id, id});
    });
    if (!decoded.ok()) return inner().Commit(session_id, bytes, parent);
    edit_(*decoded);
    return inner().Commit(session_id, EncodeCheckpoint(*decoded), parent);
  }

 private:
  std::function<void(Checkpoint&)> edit_;
};

// HostSeams whose checkpoint store applies `edit` to every checkpoint it is given.
inline std::shared_ptr<scenarios::HostSeams> EditingStoreSeams(
    std::function<void(Checkpoint&)> edit) {
  auto seams = std::make_shared<scenarios::HostSeams>();
  seams->wrap_checkpoint_store = [edit](std::unique_ptr<CheckpointStore> inner) {
    return std::unique_ptr<CheckpointStore>(std::make_unique<EditingStore>(std::move(inner), edit));
  };
  return seams;
}

// A JSON example scenario of scenarios/json/examples.
inline std::shared_ptr<const scenarios::Scenario> JsonExample(const std::string& file) {
  const std::string dir = test_env::SourcePath("scenarios/json/examples");
  auto scenario = scenarios::LoadJsonScenario(PosixEnv(), JoinPath(dir, file));
  SF_CHECK(scenario.ok());
  return *scenario;
}

// Depth-1 exploration of the default variant of `scenario`, file store, only `actions` (empty:
// every action kind).
inline ScenarioExploration ExploreDepth1(const scenarios::Scenario& scenario,
                                         std::vector<std::string> actions,
                                         const std::string& store = "file") {
  ExploreOptions o;
  o.depth = 1;
  o.all_variants = false;
  o.determinism_every = 0;
  o.action_kinds = std::move(actions);
  o.config.checkpoint_store = store;
  return ExploreScenario(scenario, o);
}

// How many violations of `invariant` the exploration found.
inline int CountViolations(const ScenarioExploration& e, const std::string& invariant) {
  int n = 0;
  for (const reports::Violation& v : e.violations) n += v.invariant == invariant ? 1 : 0;
  return n;
}

// "INV-X (plan): message" per violation, for failure messages.
inline std::string Describe(const ScenarioExploration& e) {
  std::string out;
  for (const reports::Violation& v : e.violations) {
    out += v.invariant + " (" + v.plan + "): " + v.message + "\n";
  }
  return out.empty() ? "no violation" : out;
}

}  // namespace stepfault::properties::testing
