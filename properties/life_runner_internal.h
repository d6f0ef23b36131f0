// The two halves of RunPlan (life_runner.h) and the narrow interface between them. Internal to
// properties/.
//   life_runner.cc       LifeLoop: the reference life loop, what the oracles define: life after
//                        life, deaths, post-death worlds, corruption, checks, the harness-level
//                        invariants, the trace. Run() lives every life.
//   life_runner_memo.cc  RunMemo: the reuse of work between the RunPlan calls of one exploration
//                        (prefixes, continuations, crash-state lives, death checks), a LifeLoop
//                        driven phase by phase that takes what an earlier run already did.
// The memo reaches the loop only through what LifeLoop declares here; the loop knows nothing of
// the memo but the life it may be handed (LiveAndCheck's `reused`) and the check after a death it
// may answer (CheckAfterDeath). Thread-safety: as RunPlan.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "faults/sim_fs.h"
#include "properties/life_runner.h"

namespace stepfault::properties {

// Everything a run carries from one life to the next: the world, the reports and oracle notes of
// the lives so far, and the execution being built.
struct RunState {
  std::unique_ptr<faults::SimFs> world;
  int next_life = 1;
  bool stopped = false;  // completed, gave up or hit a harness error
  bool damaged = false;
  std::string harness_error;  // an exception escaped a life or a check: the run stops
  std::vector<scenarios::LifeReport> reports;
  Json memo = Json::object();
  Execution ex;
};

// One life as it was lived, that a later run may take instead of living it (crash-state reuse).
struct LivedLife {
  LifeRecord record;                     // before the harness's checks
  std::string life_error;                // an exception escaped the life (INV-HARNESS), else ""
  std::unique_ptr<faults::SimFs> world;  // the world right after the life, before its checks
};

// The reference life loop of one RunPlan (life_runner.cc).
class LifeLoop {
 public:
  LifeLoop(const scenarios::Scenario& scenario, const faults::Plan& plan, const RunConfig& config);
  virtual ~LifeLoop() = default;
  LifeLoop(const LifeLoop&) = delete;
  LifeLoop& operator=(const LifeLoop&) = delete;

  // Every life, lived in order, then Finish.
  Execution Run();

 protected:
  RunState& state() { return s_; }
  const scenarios::Scenario& scenario() const { return scenario_; }
  const faults::Plan& plan() const { return plan_; }
  int lives_max() const { return lives_max_; }

  // Runs lives from the next one up to `until` (and lives_max) unless the run has stopped.
  void RunLives(int until);
  // One life and its checks; true when the run stops after it. `reused`: the life is not lived
  // but taken from there (the world it left, its record, its error); only the checks run. Else,
  // when `lived` is not null and the life did not die, the life as lived is put there.
  bool LiveAndCheck(int life, const LivedLife* reused, LivedLife* lived);
  // The check after a life that died; LifeLoop's is CheckWorld.
  virtual void CheckAfterDeath(int life, const LifeRecord& record);
  // The scenario's invariants over the current world after `life`.
  void CheckWorld(int life, const LifeRecord& record);
  // The execution, with the liveness verdict and the trace; `final_digest`: the last world's.
  Execution Finish(const std::string& final_digest);

 private:
  LifeRecord LiveOrReuse(int life, const LivedLife* reused, LivedLife* lived);
  scenarios::HostEnv MakeEnv(faults::SimFs* fs, const std::string& vfs, Probe* probe, Clock* clock,
                             int life) const;
  LifeRecord RunLife(int life);
  void AfterDeath(int life, LifeRecord* record);
  void Check(faults::SimFs* world, Json* memo, int life, bool last,
             const std::vector<scenarios::LifeReport>& lives, const std::string& prefix);
  void CheckObservedSurvivesPowerLoss(int life, const LifeRecord& record);
  void JudgeGiveUp(int life, const LifeRecord& record);
  void WriteTrace();

  const scenarios::Scenario& scenario_;
  const faults::Plan& plan_;
  const RunConfig& config_;
  const Json params_;
  int lives_max_ = 0;
  RunState s_;
};

// RunPlan with a memo (life_runner_memo.cc).
Execution RunPlanWithMemo(const scenarios::Scenario& scenario, const faults::Plan& plan,
                          const RunConfig& config, RunMemo::Impl* memo);

}  // namespace stepfault::properties
