// Scenario: a recovery protocol under test (docs/design.md §7). A scenario is a workflow, its
// business store, a host that starts, recovers from durable state alone and responds the way the
// seed documents describe, the invariants it promises, and labels for its business windows.
//
// The harness drives a scenario as a sequence of *lives*: each life is one process of the host,
// running the operator's next command (start, resume, ...) chosen from the durable state alone.
// A life may die at a fault point (a CrashSignal unwinds it); the next life starts from what the
// world kept. After every life the scenario checks its invariants against the durable state and
// the facts the lives reported; after the last life it also checks the end state against the
// fault-free reference.
//
// The same scenario runs on the simulated file system (exploration: HostEnv::env is a SimFs and
// vfs_name its SQLite VFS) and on the real one (the command line: PosixEnv and the default VFS).
// Thread-safety: a scenario object is immutable; every life gets its own HostEnv.
#pragma once

#include <any>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/clock.h"
#include "engine/env.h"
#include "engine/message.h"
#include "engine/probe.h"
#include "engine/profile.h"
#include "engine/run.h"
#include "engine/workflow_spec.h"
#include "faults/plan.h"
#include "scenarios/params.h"

namespace stepfault::scenarios {

// A mistake a host author makes, which a scenario can reproduce on request (a mutant): switched on
// by name. Each scenario declares its own in its folder (Scenario::host_hazards()); the contract
// only carries the set of names switched on.
struct HostHazard {
  std::string name;     // stable, kebab-case: the name after "host:" in the mutant table
  std::string meaning;  // the mistake, in one line
  // The invariants expected to catch it (ids of invariants.h): the mutant hunt's "expected" column.
  std::vector<std::string> expected;
};
using HostHazards = std::set<std::string>;

// Store mutants (the upstream store behaviours).
struct StoreHazards {
  bool prune_on_read = false;
  bool in_place_write = false;
  friend bool operator==(const StoreHazards&, const StoreHazards&) = default;
};

// A recovery-side variation the harness asks of one life (fault actions applied at host.resume).
struct RecoveryVariation {
  faults::FaultActionKind kind =
      faults::FaultActionKind::kNone;  // topology / duplicate / conflicting / observer-cancel
  faults::TopologyMutation mutation = faults::TopologyMutation::kPermuteEdges;
  // conflicting-response: the one field the conflicting response changes (kAll: every field).
  // The life runner copies it from the plan's action (properties/life_runner.cc).
  faults::ConflictField conflict = faults::ConflictField::kAll;
};

// Test seams: hand-written host bugs (issue 12, point 6) that properties/*_test.cc introduce to
// prove the oracles catch a bug class without a hazard switch of its own. Null members: the
// faithful host. Exploration never sets them.
struct HostSeams {
  // Wraps the checkpoint store every host opens (OpenCheckpointStore), e.g. a store that drops part
  // of what it is given. The oracles read durable bytes, never through it.
  std::function<std::unique_ptr<CheckpointStore>(std::unique_ptr<CheckpointStore>)>
      wrap_checkpoint_store;
  // Replaces StreamingRun::Resume in the hosts' resume (ResumeAsHost, scenarios/host_drive.h):
  // `meant` is the workflow the host meant to rebuild, `built` the one it rebuilt (a topology
  // variation makes them differ). Faithful: StreamingRun::Resume(built, checkpoint, options).
  std::function<Result<std::unique_ptr<StreamingRun>>(
      const WorkflowSpec& meant, std::shared_ptr<Workflow> built, const CheckpointInfo& checkpoint,
      RunOptions options)>
      resume;
  // The JSON host's replay rule for responses: whether an offered response body is the recorded
  // one (faithful: equal as JSON). A rule that wrongly says yes records and sends a conflict.
  std::function<bool(const Json& recorded, const Json& offered)> same_response;
  // One scenario's own seams, which no other scenario reads (the approval scenario's:
  // ApprovalSeams, scenarios/approval/approval_seams.h); empty: none.
  std::any scenario_seams;
};

struct LifeReport;

struct HostEnv {
  Env* env = nullptr;
  std::string dir;       // the scenario's directory; exists
  std::string vfs_name;  // SQLite VFS for the databases ("" = SQLite's default)
  Probe* probe = nullptr;
  Clock* clock = nullptr;
  uint64_t seed = 0;       // this life's seed (engine ids, scheduler)
  uint64_t root_seed = 0;  // the scenario run's seed (stable identities across lives)
  EngineProfile profile;
  HostHazards hazards;  // names of the host hazards switched on (see Scenario::host_hazards())
  StoreHazards store;
  RecoveryVariation variation;
  Json params = Json::object();  // scenario parameters (fan width, payload size, decision ...)
  int64_t max_steps = 0;         // RunOptions::max_steps_per_cycle of the life's runs; 0: default
  // The checkpoint store every host opens (OpenCheckpointStore; the names are CheckpointStoreKinds
  // in engine/stores/store_kinds.h): "file" (FileCheckpointStore, one file per checkpoint in
  // dir/<subdir>), "sqlite" (SqliteCheckpointStore in WAL, dir/<subdir>/checkpoints.db through
  // vfs_name, so its windows are explored too) or "sqlite-persist", "sqlite-truncate",
  // "sqlite-delete" (the same database in that rollback-journal mode, its -journal file crashed
  // too).
  std::string checkpoint_store = "file";
  Json* oracle_memo = nullptr;  // Check only: the oracle's notes, kept across the lives of a run
  // RunLife only: the lives before this one, for the harness's instrumentation of the life (the
  // checkpoint references of HostCheckpointManager, checkpoint_reference.h), never for the host's
  // decisions (RunLife's `previous`). Null outside exploration.
  const std::vector<LifeReport>* earlier_lives = nullptr;
  std::shared_ptr<const HostSeams> seams;  // null: no hand-written bug (tests only)
};

// What one life reports. Everything here must be deterministic: it is part of the run's trace.
struct LifeReport {
  std::string command;      // the operator's command ("start", "resume", ...)
  Status status;            // how the command ended (ok, or the typed error it reported)
  bool completed = false;   // the scenario's job is done
  bool final = false;       // an error no retry can fix (damaged data): stop, no liveness owed
  bool died = false;        // filled by the harness: the life died at a fault point
  bool power_lost = false;  // filled by the harness: that death was a power loss
  bool damaged = false;     // filled by the harness: `corrupt` changed bytes after this life
  int exit_code = 0;        // what the process would exit with (fail-after-write: 1)
  std::vector<std::string> trace;  // event trace lines and host notes
  Json facts = Json::object();     // what the host observed, for the oracle
};

struct Violation {
  std::string invariant;
  std::string message;
};

class Scenario;
class ScheduleScenario;  // scenarios/schedule_scenario.h

// What every scenario has, whatever its kind: a name, a description, the invariants it declares,
// its parameters and the host mistakes it can reproduce. Two kinds derive from it: Scenario (one
// host per life, explored by the life runner, properties/explorer.h) and ScheduleScenario
// (several actors in one world, explored by schedules, scenarios/schedule_scenario.h). Code that
// holds a ScenarioInfo (`list`, `explore --all`, the mutant table) asks it for its kind
// (AsLifeScenario / AsScheduleScenario: exactly one is non-null) and branches on that.
class ScenarioInfo {
 public:
  virtual ~ScenarioInfo() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  // The invariant ids it declares (docs/design.md §6); the harness adds INV-DETERMINISM (and,
  // for a Scenario, INV-LIVENESS).
  virtual std::vector<std::string> invariants() const = 0;
  // The scenario's parameters, declared once (scenarios/params.h): name, type, range, default and
  // documentation. Every scenario folder implements it; `--params` is validated against it.
  virtual std::vector<ParamDecl> params() const = 0;
  // The default parameters of the fault-free reference run (from params()).
  Json default_params() const { return DefaultParams(params()); }
  // The host mistakes this scenario can reproduce (its mutants), declared in its folder.
  virtual std::vector<HostHazard> host_hazards() const { return {}; }
  // The scenario's kind: itself as a Scenario or as a ScheduleScenario (null when it is not one).
  virtual const Scenario* AsLifeScenario() const { return nullptr; }
  virtual const ScheduleScenario* AsScheduleScenario() const { return nullptr; }
};

// A scenario with one host per life (see the top of this file).
class Scenario : public ScenarioInfo {
 public:
  const Scenario* AsLifeScenario() const final { return this; }
  // What `stepfault replay` and `explore --scenario` take to find this scenario again: its name, or
  // the path of the file a user-defined scenario came from.
  virtual std::string replay_name() const { return name(); }
  // How many lives the fault-free run takes; the harness allows this plus two per injected fault
  // (and one more) before it calls a run not live (INV-LIVENESS).
  virtual int fault_free_lives() const { return 2; }
  // The parameter sets exploration enumerates (each a complete parameter object), the default
  // first; each scenario lists its own in its folder. Every variant is explored like the default.
  virtual std::vector<Json> Variants() const { return {default_params()}; }
  // The business window a fault point falls in, for a life running `command` ("" when none).
  virtual std::string BusinessWindow(const std::string& command, const std::string& point) const {
    (void)command;
    (void)point;
    return "";
  }
  // The label of a window given the label of the window before it in the same life ("" for the
  // first), so a scenario can label phases that only the order of points tells apart.
  virtual std::string BusinessWindowAfter(const std::string& command, const std::string& point,
                                          const std::string& previous) const {
    (void)previous;
    return BusinessWindow(command, point);
  }
  // Which recovery-side variations make sense for this scenario.
  virtual std::vector<faults::FaultAction> RecoveryActions() const { return {}; }

  // Whether RunLife's behaviour may depend on `previous`. false (every built-in host: it chooses
  // its command from durable state alone) lets the harness reuse the lives that follow one crash
  // state for every plan that reaches it, whatever its earlier lives reported, and run only the
  // checks again (properties/life_runner.h). true, the safe default, never reuses across histories.
  virtual bool LifeReadsPrevious() const { return true; }
  // Runs the operator's next command. `previous` are the reports of the earlier lives.
  // Fills `report` as it goes, so what a life did before it died is kept.
  virtual void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
                       LifeReport* report) const = 0;
  // Checks the invariants after a life (`final` after the last one) against the durable state.
  virtual void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
                     std::vector<Violation>* out) const = 0;
};

}  // namespace stepfault::scenarios
