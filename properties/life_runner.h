// The life runner: runs one scenario under one fault plan in a simulated world, life after life,
// the way an operator would recover it, and checks the invariants after every life and at the end.
//
// For each life i: a fresh in-memory process (engine, stores, host) on the world the last life
// left; the plan's i-th fault is armed in an Injector that is both the probe and the file system's
// hook; a death (crash, power loss, fail-after-write exit) freezes the world and unwinds the life;
// the next world is the possible post-death world (SimFs::CrashClone with a seed derived from the
// root seed), damaged afterwards when the fault was `corrupt`. A dying life is cut at its death:
// its report is the one it held at that instant, and what the host did afterwards (a host that
// goes on after the I/O error SQLite saw, destructors on the way out, an exception escaping then)
// is not part of it, as the frozen world already refuses every write after it. Lives go on until
// the scenario reports completion, reports an error no retry can fix, or lives_max is reached.
//
// An exception escaping a life or its check is a counterexample, not the end of the exploration:
// it becomes an INV-HARNESS violation and the run stops there (aborts and signals are caught one
// level up, by the forked workers of properties/task_pool.h).
// After a life that ended normally, the scenario's oracle also runs on the world a power loss right
// then would leave (per-life observations: what the life reported must already be durable).
// Harness-level invariants: INV-LIVENESS (completion within lives_max, or a typed final error only
// after damage was injected) and INV-CORRUPT (damage gives a typed error or a documented fallback).
// Everything is derived from the root seed, so RunPlan is a pure function of its arguments, and its
// trace is byte-identical on every run (INV-DETERMINISM, checked by running twice).
// Thread-safety: RunPlan may run on one thread at a time per process (SQLite's randomness is
// process-wide); parallel exploration uses processes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "faults/injector.h"
#include "faults/plan.h"
#include "scenarios/scenario.h"

namespace stepfault::properties {

struct RunConfig {
  uint64_t seed = 0;
  EngineProfile profile;
  scenarios::HostHazards hazards;
  scenarios::StoreHazards store;
  // 0: the scenario's fault-free lives, plus two per fault of the plan, plus one.
  int lives_max = 0;
  Json params;  // null: the scenario's defaults
  // Copied into every life's HostEnv: a name of CheckpointStoreKinds ("file", "sqlite",
  // "sqlite-persist", "sqlite-truncate", "sqlite-delete"; see scenarios::HostEnv). Not "file": the
  // replay command carries it as --store.
  std::string checkpoint_store = "file";
};

struct LifeRecord {
  scenarios::LifeReport report;
  std::optional<faults::Fault> fault;
  std::optional<faults::Window> fired;
  std::string death;                    // "", "crash", "powerloss", "exit"
  std::string death_point;              // the point the death struck at
  std::vector<faults::Window> windows;  // every hit of the life, in order
  std::string world_digest;             // SimFs::Digest of the post-death world; "" if no death
};

struct Execution {
  std::vector<LifeRecord> lives;
  std::vector<scenarios::Violation> violations;
  bool completed = false;
  std::string trace;         // canonical text of the whole execution
  std::string final_digest;  // SimFs::Digest of the world the last life left
};

// Work shared between the RunPlan calls of one exploration in one process (the same scenario and
// RunConfig for every call; a new RunMemo otherwise). Five reuses, all exact:
//  - prefix: the lives before the plan's last fault's life depend only on the faults of those lives
//    and lives_max, so the run's whole state after them (world, reports, oracle notes, execution so
//    far) is kept for the last few such prefixes and copied into the next plan with the same ones
//    (the children of one crash state share it);
//  - continuation: the lives after the last fault have no fault armed, and every seed of a life
//    derives from the root seed and the life's index only (never from the plan), so what they do,
//    what their checks find and how the run ends is a pure function of (lives_max, next life, world
//    digest, damaged, the oracle's notes, every earlier life's report); a run reaching a key seen
//    before appends that run's later lives and violations instead of running them. The key holds
//    the whole history because oracles look at earlier lives' observations;
//  - derived deaths: a life whose fault is a death (crash, powerloss, corrupt, fail-after-write)
//    is, up to the hit where that fault fires, the fault-free life, and it is cut at its death; so
//    the life is lived once fault-free from a world with a given digest and history, its world and
//    report copied at every hit (a recording, bounded in bytes), and every death in it is derived:
//    the firing hit found by an injector driven over the recorded hits, the world frozen there and
//    the report held then taken from the copies, the post-death world drawn from that world as
//    after a lived death. The children of one crash state all die in the recovery life of that
//    state, so depth 2 and 3 live each recovery life once, not once per plan. Windows past the
//    bound are lived;
//  - crash state: on a continuation miss, when the scenario's lives do not read `previous`
//    (Scenario::LifeReadsPrevious), each life itself depends only on (its index, the digest of the
//    world it starts on): it is reused from an earlier run whose life of that index started on an
//    equal world, with any history, with the world it left, and only the checks run again on that
//    world with this run's history. Every life of the continuation is looked up (the world after
//    the previous life's check), so runs whose crash states differ but whose recoveries converge
//    share the lives after the point where their worlds became equal;
//  - death check: the check after a life that died depends only on (lives_max, life, post-death
//    world digest, the oracle's notes, every life's report so far); sibling plans of one crash
//    state that die into an equal world with an equal history (a crash and a power loss at
//    windows between two writes, say) take the first one's verdict and notes. Kept only when that
//    check left the world's digest unchanged, so the world needs no restoring; the digest after
//    the check is then known, and the continuation's key does not hash the world again.
// This rests on what the scenario contract already requires: a life and a check depend only on
// their HostEnv, the world and the reports they are given (hosts never read process-wide state
// beyond SQLite's randomness, which every life reseeds). The explorer's INV-DETERMINISM sample
// runs without a memo and compares, and properties/explorer_test.cc compares whole explorations
// with and without it. Bounded memory: the tables share one byte budget, each a fixed part of it,
// each evicting what it used least recently. Thread-safety: one RunPlan at a time, like RunPlan
// itself.
class RunMemo {
 public:
  struct Stats {
    int64_t prefix_hits = 0;
    int64_t prefix_misses = 0;
    int64_t continuation_hits = 0;
    int64_t continuation_misses = 0;
    int64_t lives_hits = 0;  // crash-state reuse, tried for each life of a continuation miss
    int64_t lives_misses = 0;
    int64_t later_lives_hits = 0;  // of lives_hits, those at a life after the continuation's first
    int64_t death_check_hits = 0;  // the check after the faulted life's death
    int64_t death_check_misses = 0;
    int64_t recordings = 0;        // fault-free lives recorded window by window
    int64_t derived_lives = 0;     // faulted lives derived from a recording, not lived
    int64_t lived_past_bound = 0;  // faulted lives lived: their window was past the bound
    uint64_t kept_bytes_peak = 0;  // each table's peak (HeldBytes) summed: within the budget
    int64_t kept_evicted = 0;      // entries evicted to stay within the budget
  };
  struct Impl;
  struct Continuation;
  struct DeathCheck;

  // What the memo keeps, at most (HeldBytes: life_runner_internal.h), in fixed shares: a tenth
  // for prefixes, a fifth each for continuations and crash-state lives, a twentieth for death
  // checks and the rest for recordings (whose copies of the world hold at most two fifths).
  // 96 MB: json-state-shapes over SQLite at depth 2 hits as often as with 160 MB (a worker at
  // 226 MB instead of 294 MB, the same time).
  static constexpr uint64_t kDefaultKeptBytes = uint64_t{96} << 20;
  explicit RunMemo(uint64_t kept_bytes_max = kDefaultKeptBytes);
  ~RunMemo();
  RunMemo(const RunMemo&) = delete;
  RunMemo& operator=(const RunMemo&) = delete;
  Stats stats() const;
  Impl* impl() { return impl_.get(); }

 private:
  std::unique_ptr<Impl> impl_;
};

// `memo`: null runs every life; else see RunMemo (the same Execution either way).
Execution RunPlan(const scenarios::Scenario& scenario, const faults::Plan& plan,
                  const RunConfig& config, RunMemo* memo = nullptr);

// The command that replays a plan from the command line.
std::string ReplayCommand(const std::string& scenario, const faults::Plan& plan,
                          const RunConfig& config);

}  // namespace stepfault::properties
