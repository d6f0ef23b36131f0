// Goal: the actor scheduler interleaves several actors of one simulated world deterministically:
// one runs at a time, the same seed gives the same schedule and the same world, a printed schedule
// replays exactly, SQLite's locks between actors are waited out by yielding (busy handler) and
// never lose an update, PCT finds a planted starvation-ordering bug in far fewer runs than a random
// walk, the depth-first explorer enumerates every interleaving while state hashing prunes orders
// of independent steps, and a run's deviations from the non-preemptive default replay it (the
// switch-level strategies are tested in schedule_strategies_test.cc). Method: small actors on a
// SimFs (appending to files through the YieldingHook, or SQLite transactions through one VFS name
// each), run under each strategy and compared across runs.
#include "faults/actor_scheduler.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "faults/append_world_test_util.h"
#include "faults/schedule_strategies.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"

namespace stepfault::faults {
namespace {

TEST(ScheduleTextTest, EncodesRunLengthsAndDecodesBackOrSaysWhatIsWrong) {
  const std::vector<int> choices = {0, 0, 0, 1, 0, 0, 2};
  EXPECT_EQ(EncodeSchedule(choices), "a3ba2c");
  std::string error;
  EXPECT_EQ(DecodeSchedule("a3ba2c", &error), choices);
  EXPECT_EQ(DecodeSchedule("", &error), std::vector<int>{});
  EXPECT_FALSE(DecodeSchedule("a3B", &error).has_value());
  EXPECT_NE(error.find("position 2"), std::string::npos) << error;
  EXPECT_FALSE(DecodeSchedule("a0", &error).has_value());
}

RunResult RunAppend(ScheduleStrategy* strategy, std::string* digest, std::string* shared) {
  AppendWorld w;
  ActorScheduler s(strategy, {});
  w.AddActors(s, 3, 6, true);
  RunResult r = s.Run();
  *digest = w.fs.Digest();
  *shared = w.Shared();
  return r;
}

TEST(ActorSchedulerTest, OneActorRunsAtATime) {
  int inside = 0;
  int overlaps = 0;
  RandomWalkStrategy strategy(5);
  ActorScheduler s(&strategy, {});
  for (int a = 0; a < 4; ++a) {
    s.AddActor("x", [&] {
      for (int i = 0; i < 200; ++i) {
        if (++inside != 1) ++overlaps;
        --inside;
        ActorScheduler::Current()->Yield("p");
      }
    });
  }
  RunResult r = s.Run();
  EXPECT_EQ(overlaps, 0);
  EXPECT_EQ(r.steps, 800u);
  EXPECT_EQ(r.windows, (std::set<std::string>{"x@p"}));
  EXPECT_GT(r.context_switches, 100u);
  EXPECT_TRUE(r.errors.empty());
}

TEST(ActorSchedulerTest, SameSeedGivesTheSameScheduleAndWorld) {
  std::set<std::string> schedules;
  for (uint64_t seed : {1, 2, 3}) {
    for (bool pct : {false, true}) {
      std::string d1, d2, s1, s2;
      RandomWalkStrategy r1(seed), r2(seed);
      PctStrategy p1(seed, 3, 30), p2(seed, 3, 30);
      RunResult a = RunAppend(pct ? static_cast<ScheduleStrategy*>(&p1) : &r1, &d1, &s1);
      RunResult b = RunAppend(pct ? static_cast<ScheduleStrategy*>(&p2) : &r2, &d2, &s2);
      EXPECT_EQ(a.schedule, b.schedule);
      EXPECT_EQ(d1, d2);
      EXPECT_EQ(s1, s2);
      EXPECT_EQ(s1.size(), 18u);
      schedules.insert(a.schedule);
    }
  }
  EXPECT_GE(schedules.size(), 4u) << "the seed must reach the choices";
}

TEST(ActorSchedulerTest, APrintedScheduleReplaysExactly) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::string d1, d2, s1, s2;
    RandomWalkStrategy random(seed);
    RunResult original = RunAppend(&random, &d1, &s1);
    std::string error;
    auto choices = DecodeSchedule(original.schedule, &error);
    ASSERT_TRUE(choices.has_value()) << error;
    ReplayStrategy replay(*choices);
    RunResult again = RunAppend(&replay, &d2, &s2);
    EXPECT_EQ(again.schedule, original.schedule);
    EXPECT_EQ(s2, s1);
    EXPECT_EQ(d2, d1);
    EXPECT_EQ(replay.divergences(), 0u);
    EXPECT_EQ(replay.unused(), 0u);
  }
}

// The planted bug: actor "init" takes `steps` steps and then publishes; actor "check" must look
// before the publication. Failing needs "check" to be starved for every one of init's steps
// (a depth-1 ordering bug): PCT gives it probability about 1/2 per run, a random walk 2^-steps.
int RunsToFindStarvation(bool pct, uint64_t seed, int limit) {
  constexpr int kSteps = 10;
  for (int run = 0; run < limit; ++run) {
    const uint64_t run_seed = DeriveSeed(seed, std::to_string(run));
    RandomWalkStrategy random(run_seed);
    PctStrategy pct_strategy(run_seed, 3, 2 * kSteps);
    ActorScheduler s(pct ? static_cast<ScheduleStrategy*>(&pct_strategy) : &random, {});
    bool published = false;
    bool bug = false;
    s.AddActor("init", [&] {
      for (int i = 0; i < kSteps; ++i) ActorScheduler::Current()->Yield("init.step");
      published = true;
    });
    s.AddActor("check", [&] {
      ActorScheduler::Current()->Yield("check.start");
      bug = published;
    });
    s.Run();
    if (bug) return run + 1;
  }
  return limit;
}

TEST(ActorSchedulerTest, PctFindsAPlantedOrderingBugFasterThanRandomWalk) {
  constexpr int kLimit = 600;
  int pct_total = 0;
  int random_total = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    pct_total += RunsToFindStarvation(true, seed, kLimit);
    random_total += RunsToFindStarvation(false, seed, kLimit);
  }
  EXPECT_LE(pct_total, 8 * 4) << "PCT: about one run in two should find it";
  EXPECT_GT(random_total, 10 * pct_total);
}

// Two SQLite processes (one VFS name each) on one world, each adding 1 to a counter `n` times.
// correct: read and write in one BEGIN IMMEDIATE transaction; else read, then write in a second
// transaction (the lost-update bug).
struct CounterRun {
  int final_count = 0;
  RunResult result;
  std::string digest;
};

int ReadCount(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  int value = -1;
  if (sqlite3_prepare_v2(db, "SELECT v FROM c", -1, &stmt, nullptr) == SQLITE_OK &&
      sqlite3_step(stmt) == SQLITE_ROW) {
    value = sqlite3_column_int(stmt, 0);
  }
  sqlite3_finalize(stmt);
  return value;
}

void CounterActor(const std::string& vfs, int n, bool correct) {
  sqlite3* db = nullptr;
  SF_CHECK(sqlite3_open_v2("/w/c.db", &db, SQLITE_OPEN_READWRITE, vfs.c_str()) == SQLITE_OK);
  sqlite3_busy_handler(db, SqliteBusyYield, nullptr);
  for (int i = 0; i < n; ++i) {
    if (correct) SF_CHECK(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) == 0);
    const int value = ReadCount(db);
    ActorScheduler::Current()->Yield("counter.read");
    const std::string sql = "UPDATE c SET v = " + std::to_string(value + 1);
    SF_CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
    if (correct) SF_CHECK(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr) == SQLITE_OK);
  }
  sqlite3_close_v2(db);
}

CounterRun RunCounter(ScheduleStrategy* strategy, bool correct) {
  SimFs fs;
  fs.SetRoleClassifier(SqliteRoleOf);
  SF_CHECK(fs.CreateDirIfMissing("/w").ok());
  SeedSqliteRandomness(1);
  SF_CHECK(RegisterSimVfs("counter-setup", &fs, 1).ok());
  sqlite3* db = nullptr;
  SF_CHECK(sqlite3_open_v2("/w/c.db", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                           "counter-setup") == SQLITE_OK);
  SF_CHECK(sqlite3_exec(db, "CREATE TABLE c(v); INSERT INTO c VALUES(0);", nullptr, nullptr,
                        nullptr) == SQLITE_OK);
  YieldingHook hook;
  fs.SetHook(&hook);
  CounterRun out;
  {
    ActorScheduler s(strategy, {});
    for (const char* name : {"counter-p", "counter-q"}) {
      SF_CHECK(RegisterSimVfs(name, &fs, 2).ok());
      s.AddActor(name, [name, correct] { CounterActor(name, 4, correct); });
    }
    out.result = s.Run();
  }
  UnregisterSimVfs("counter-p");
  UnregisterSimVfs("counter-q");
  out.final_count = ReadCount(db);
  sqlite3_close_v2(db);
  UnregisterSimVfs("counter-setup");
  out.digest = fs.Digest();
  return out;
}

TEST(ActorSchedulerTest, SqliteWritersInTwoProcessesWaitByYieldingAndLoseNoUpdate) {
  uint64_t busy = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    PctStrategy pct(seed, 3, 200);
    CounterRun run = RunCounter(&pct, /*correct=*/true);
    EXPECT_EQ(run.final_count, 8) << "seed " << seed << " schedule " << run.result.schedule;
    EXPECT_FALSE(run.result.cut_off);
    busy += run.result.busy_yields;
  }
  EXPECT_GT(busy, 0u) << "the schedules must make the writers contend for the lock";
}

TEST(ActorSchedulerTest, TheLostUpdateBugIsFoundAndItsScheduleReplaysTheSameWorld) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    RandomWalkStrategy random(seed);
    CounterRun run = RunCounter(&random, /*correct=*/false);
    if (run.final_count == 8) continue;
    std::string error;
    ReplayStrategy replay(*DecodeSchedule(run.result.schedule, &error));
    CounterRun again = RunCounter(&replay, false);
    EXPECT_EQ(again.final_count, run.final_count);
    EXPECT_EQ(again.digest, run.digest);
    EXPECT_EQ(replay.divergences(), 0u);
    return;
  }
  ADD_FAILURE() << "no schedule lost an update";
}

TEST(DfsExplorerTest, EnumeratesEveryInterleavingOfDependentSteps) {
  // Two actors, three appends each to one file: C(6,3) = 20 orders, all distinct worlds.
  DfsExplorer dfs(1000);
  uint64_t runs = 0;
  EXPECT_EQ(ExploreAppends(true, &runs, &dfs).size(), 20u);
  EXPECT_TRUE(dfs.complete());
  EXPECT_GE(runs, 20u);
}

TEST(DfsExplorerTest, StateHashingPrunesOrdersOfIndependentSteps) {
  // Each actor appends to its own file: every order ends with the same files, and states reached
  // by different orders are merged, so fewer runs are needed than for the dependent appends.
  DfsExplorer dependent(1000), independent(1000);
  uint64_t dependent_runs = 0, independent_runs = 0;
  ExploreAppends(true, &dependent_runs, &dependent);
  EXPECT_EQ(ExploreAppends(false, &independent_runs, &independent).size(), 1u);
  EXPECT_TRUE(independent.complete());
  EXPECT_LT(independent_runs, dependent_runs);
  EXPECT_LT(independent.distinct_states(), dependent.distinct_states());
}

TEST(DfsExplorerTest, StopsAtMaxRunsAndSaysItIsIncomplete) {
  DfsExplorer dfs(5);
  uint64_t runs = 0;
  ExploreAppends(true, &runs, &dfs);
  EXPECT_EQ(runs, 5u);
  EXPECT_FALSE(dfs.complete());
}

TEST(ActorSchedulerTest, DeviationsFromTheNonPreemptiveDefaultReplayTheRun) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::string d1, d2, s1, s2;
    RandomWalkStrategy random(seed);
    RunResult original = RunAppend(&random, &d1, &s1);
    EXPECT_LE(original.context_switches, original.deviations.size());
    SwitchReplayStrategy replay(original.deviations);
    RunResult again = RunAppend(&replay, &d2, &s2);
    EXPECT_EQ(again.schedule, original.schedule);
    EXPECT_EQ(again.deviations, original.deviations);
    EXPECT_EQ(d2, d1);
    EXPECT_EQ(replay.ignored(), 0u);
  }
}

}  // namespace
}  // namespace stepfault::faults
