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
  void RunLife(scenarios::HostEnv& env, const std::vector<scenarios::LifeReport>& previous,
               scenarios::LifeReport* report) const override {
    scenarios::HostEnv edited = env;
    if (life_edit_) life_edit_(edited);
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
};

// A checkpoint store that drops part of what it is given: `edit` changes each decoded checkpoint
// before it is stored (the bug), everything else is forwarded (restoration notices too, so the
// store still prunes).
class EditingStore final : public CheckpointStore, public RestorationObserver {
 public:
  EditingStore(std::unique_ptr<CheckpointStore> inner, std::function<void(Checkpoint&)> edit)
      : inner_(std::move(inner)), edit_(std::move(edit)) {}
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override {
    auto decoded = DecodeCheckpoint(bytes);
    if (!decoded.ok()) return inner_->Commit(session_id, bytes, parent);
    edit_(*decoded);
    return inner_->Commit(session_id, EncodeCheckpoint(*decoded), parent);
  }
  Result<std::string> Retrieve(const CheckpointInfo& info) override {
    return inner_->Retrieve(info);
  }
  Result<std::vector<StoreEntry>> Index(const std::string& session_id,
                                        const std::optional<CheckpointInfo>& with_parent) override {
    return inner_->Index(session_id, with_parent);
  }
  Status OnRestorationCompleted(const CheckpointInfo& restored) override {
    auto* observer = dynamic_cast<RestorationObserver*>(inner_.get());
    return observer != nullptr ? observer->OnRestorationCompleted(restored) : Status::Ok();
  }

 private:
  std::unique_ptr<CheckpointStore> inner_;
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
  const char* source = std::getenv("STEPFAULT_SOURCE_DIR");
  const std::string dir = source != nullptr && *source != '\0'
                              ? JoinPath(source, "scenarios/json/examples")
                              : JoinPath(DirName(DirName(__FILE__)), "scenarios/json/examples");
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
