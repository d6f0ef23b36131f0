// The two halves of RunPlan (life_runner.h) and the narrow interface between them. Internal to
// properties/.
//   life_runner.cc       LifeLoop: the reference life loop, what the oracles define: life after
//                        life, deaths, post-death worlds, corruption, checks, the harness-level
//                        invariants, the trace. Run() lives every life.
//   life_runner_memo.cc  RunMemo: the reuse of work between the RunPlan calls of one exploration
//                        (prefixes, continuations, crash-state lives, death checks, deaths
//                        derived from recorded lives), a LifeLoop driven phase by phase that
//                        takes what an earlier run already did.
// The memo reaches the loop only through what LifeLoop declares here; the loop knows nothing of
// the memo but the life it may be handed (LiveAndCheck's `reused`, Derive), the check after a
// death it may answer (CheckAfterDeath) and the recording it may ask for (RecordLife).
// Thread-safety: as RunPlan.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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

// One life as it was lived (or derived from a recording), that a run may take instead of living
// it (crash-state reuse, deaths derived from a recorded life).
struct LivedLife {
  LifeRecord record;                     // before the harness's checks
  std::string life_error;                // an exception escaped the life (INV-HARNESS), else ""
  std::shared_ptr<faults::SimFs> world;  // the world right after the life, before its checks (a
                                         // death: the world at the death, before the post-death
                                         // world is drawn); shared, never written
};

// A fault-free life recorded window by window (LifeLoop::RecordLife): the life as lived, and at
// each hit the world and the life's report as they were at that instant. A death-kind fault that
// fires at hit i of that life freezes exactly that world and cuts the life with exactly that
// report (the faulted life is the fault-free one until its fault fires, and a dying life is cut at
// its death; see RunLife), so its record and its world are derived from at[i] without living it.
struct LifeRecording {
  struct AtHit {
    std::shared_ptr<faults::SimFs> world;  // an exact copy (a crash clone) of the world then
    scenarios::LifeReport report;
  };
  LivedLife lived;        // the whole life; lived.record.windows are its hits
  std::vector<AtHit> at;  // at[i]: at lived.record.windows[i]; shorter past the memory bound
  uint64_t bytes = 0;     // what it holds (HeldBytes), for the bound
};

// What kept things hold in memory, for the memo's byte budget (RunMemo) and the recording's bound:
// estimates from the sizes and capacities of what they hold (std::string, std::vector, std::map
// and nlohmann::json nodes of libstdc++ on 64 bits), the same on every allocator, so the memo keeps
// and evicts the same entries in the tests and the sanitizer builds as in the shipped binary. A
// world's are SimFs::HeldBytes: images it shares with other worlds are counted in each.
uint64_t HeldBytes(const std::string& s);
uint64_t HeldBytes(const Json& value);
uint64_t HeldBytes(const scenarios::LifeReport& report);
uint64_t HeldBytes(const LifeRecord& record);
uint64_t HeldBytes(const std::vector<scenarios::Violation>& violations);
uint64_t HeldBytes(const RunState& state);
uint64_t HeldBytes(const LivedLife& life);

// The reference life loop of one RunPlan (life_runner.cc).
class LifeLoop {
 public:
  LifeLoop(const scenarios::Scenario& scenario, const faults::Plan& plan, const RunConfig& config);
  virtual ~LifeLoop() = default;
  LifeLoop(const LifeLoop&) = delete;
  LifeLoop& operator=(const LifeLoop&) = delete;

  // Every life, lived in order, then Finish.
  Execution Run();
  // Life `life` (the next one) lived fault-free on a copy of the current world, recorded at every
  // hit while what the recording holds (HeldBytes) stays within `bytes_max`; the run's state is
  // untouched.
  LifeRecording RecordLife(int life, uint64_t bytes_max) const;

 protected:
  RunState& state() { return s_; }
  const scenarios::Scenario& scenario() const { return scenario_; }
  const faults::Plan& plan() const { return plan_; }
  int lives_max() const { return lives_max_; }

  // Runs lives from the next one up to `until` (and lives_max) unless the run has stopped; each
  // life is first offered to Derive.
  void RunLives(int until);
  // A life taken without living it (put in *out, returns true), or false: it is lived. LifeLoop's
  // derives nothing.
  virtual bool Derive(int life, LivedLife* out);
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
  // One process of the host on `world` as life `life`, `fault` armed; `at_hit` (may be empty) hears
  // every hit with the life's report as it stands; an exception escaping the life (before its
  // death) is put in *error.
  using HitListener = std::function<void(const faults::Window&, const scenarios::LifeReport&)>;
  LifeRecord LiveOn(faults::SimFs* world, int life, const std::optional<faults::Fault>& fault,
                    const HitListener& at_hit, std::string* error) const;
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
