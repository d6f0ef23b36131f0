// Goal: the one worker pool (explore, mutants, black-box) answers every job in index order whatever
// the job count; a worker that dies (abort, _exit, SIGSEGV) costs exactly the job it was on, which
// on_death answers with a description of the death, while a new worker runs the rest; progress
// hears every job once; an interrupt stops it, its unanswered jobs empty and no worker left behind;
// a background job (one job in a worker while the caller goes on) answers beside pools, dies as a
// pool's job dies, and is killed by an interrupt or when never asked for.
// Method: jobs that compute from their index, and jobs that kill their worker at a chosen index.
#include "properties/worker_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "properties/interrupt.h"

namespace stepfault::properties {
namespace {

using Json = nlohmann::json;

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearInterruptForTesting(); }
  void TearDown() override {
    ClearInterruptForTesting();
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a worker was left unreaped";
  }
};

Json Square(size_t i) { return Json{{"i", i}, {"sq", i * i}}; }

PoolOptions WithJobs(int jobs) {
  PoolOptions o;
  o.jobs = jobs;
  o.on_death = [](size_t i, const std::string& how) { return Json{{"dead", i}, {"how", how}}; };
  return o;
}

TEST_F(WorkerPoolTest, ResultsComeInIndexOrderAndAreTheSameForOneTwoAndThreeJobs) {
  const std::vector<size_t> indices = {7, 3, 11, 0, 5, 42, 8, 1, 9, 2, 6};
  std::vector<std::vector<std::optional<Json>>> runs;
  for (int jobs : {1, 2, 3}) runs.push_back(RunPool(indices, Square, WithJobs(jobs)));
  for (const auto& run : runs) {
    ASSERT_EQ(run.size(), indices.size());
    for (size_t k = 0; k < indices.size(); ++k) {
      ASSERT_TRUE(run[k].has_value()) << "result " << k;
      EXPECT_EQ(*run[k], Square(indices[k])) << "result " << k;
    }
  }
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

// on_answer takes every answer (the one a dead worker's job gets from on_death too) exactly once,
// as it arrives; nothing is kept, and only an interrupted job would come back nullopt.
TEST_F(WorkerPoolTest, OnAnswerTakesEveryAnswerOnceAndThePoolKeepsNone) {
  constexpr size_t kN = 40;
  constexpr size_t kFatal = 21;
  for (int jobs : {1, 2, 3}) {
    PoolOptions o = WithJobs(jobs);
    std::vector<std::optional<Json>> taken(kN);
    std::vector<size_t> order;
    o.on_answer = [&](size_t k, Json&& answer) {
      EXPECT_FALSE(taken[k].has_value()) << "answer " << k << " taken twice";
      taken[k] = std::move(answer);
      order.push_back(k);
    };
    const auto results = RunPool(
        AllIndices(kN),
        [&](size_t i) {
          if (jobs > 1 && i == kFatal) std::abort();
          return Square(i);
        },
        o);
    ASSERT_EQ(results.size(), kN);
    ASSERT_EQ(order.size(), kN) << jobs << " jobs";
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_TRUE(results[i].has_value()) << i;
      EXPECT_TRUE(results[i]->is_null()) << "the pool kept answer " << i;
      ASSERT_TRUE(taken[i].has_value()) << i;
      if (jobs > 1 && i == kFatal) {
        EXPECT_EQ(*taken[i], (Json{{"dead", kFatal}, {"how", "died of signal 6 (Aborted)"}}));
      } else {
        EXPECT_EQ(*taken[i], Square(i)) << i;
      }
    }
    if (jobs == 1) {
      EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << "inline: in order";
    }
  }
}

struct Death {
  const char* name;
  void (*die)();
  const char* how;
};

class WorkerDeathTest : public WorkerPoolTest, public ::testing::WithParamInterface<Death> {};

TEST_P(WorkerDeathTest, OnlyTheJobItDiedOnIsAnsweredByOnDeathWithHowItDied) {
  constexpr size_t kN = 40;
  constexpr size_t kFatal = 13;
  std::vector<size_t> deaths;
  PoolOptions o = WithJobs(2);
  o.on_death = [&](size_t i, const std::string& how) {
    deaths.push_back(i);
    return Json{{"dead", i}, {"how", how}};
  };
  int64_t progress_calls = 0, last = 0;
  o.progress = [&](int64_t done) {
    ++progress_calls;
    last = done;
  };
  const Death death = GetParam();
  const auto results = RunPool(
      AllIndices(kN),
      [&](size_t i) {
        if (i == kFatal) death.die();
        return Square(i);
      },
      o);
  EXPECT_EQ(deaths, std::vector<size_t>{kFatal});
  ASSERT_EQ(results.size(), kN);
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_TRUE(results[i].has_value()) << "job " << i;
    if (i == kFatal) {
      EXPECT_EQ(*results[i], (Json{{"dead", kFatal}, {"how", death.how}}));
    } else {
      EXPECT_EQ(*results[i], Square(i)) << "job " << i;
    }
  }
  EXPECT_EQ(progress_calls, static_cast<int64_t>(kN));
  EXPECT_EQ(last, static_cast<int64_t>(kN));
}

INSTANTIATE_TEST_SUITE_P(
    Deaths, WorkerDeathTest,
    ::testing::Values(Death{"abort", [] { std::abort(); }, "died of signal 6 (Aborted)"},
                      Death{"exit7", [] { ::_exit(7); }, "exited with status 7"},
                      Death{"sigsegv", [] { ::raise(SIGSEGV); },
                            "died of signal 11 (Segmentation fault)"},
                      Death{"exception", [] { throw std::runtime_error("job failed"); },
                            "died of signal 6 (Aborted)"}),
    [](const ::testing::TestParamInfo<Death>& info) { return std::string(info.param.name); });

// The background job is answered by on_death as a pool's job would be, for each way to die.
TEST_P(WorkerDeathTest, ABackgroundJobThatDiesIsAnsweredByOnDeathWithHowItDied) {
  const Death death = GetParam();
  BackgroundJob job([&] {
    death.die();
    return Square(3);
  });
  std::vector<std::string> hows;
  const std::optional<Json> answer = job.Finish([&](const std::string& how) {
    hows.push_back(how);
    return Json{{"how", how}};
  });
  EXPECT_EQ(hows, std::vector<std::string>{death.how});
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ(*answer, (Json{{"how", death.how}}));
}

TEST_F(WorkerPoolTest, ProgressHearsEveryJobOnceInOrderInlineAndInWorkers) {
  for (int jobs : {1, 3}) {
    std::vector<int64_t> seen;
    PoolOptions o = WithJobs(jobs);
    o.progress = [&](int64_t done) { seen.push_back(done); };
    RunPool(AllIndices(25), Square, o);
    std::vector<int64_t> expected;
    for (int64_t d = 1; d <= 25; ++d) expected.push_back(d);
    EXPECT_EQ(seen, expected) << "jobs " << jobs;
  }
}

TEST_F(WorkerPoolTest, AnInterruptStopsThePoolAndItsUnansweredJobsComeBackEmpty) {
  for (int jobs : {1, 2}) {
    ClearInterruptForTesting();
    PoolOptions o = WithJobs(jobs);
    o.progress = [](int64_t done) {
      if (done == 1) RequestInterrupt(SIGINT);
    };
    const auto results = RunPool(
        AllIndices(20),
        [](size_t i) {
          if (i > 0) ::usleep(50 * 1000);  // the later jobs are still running when it arrives
          return Square(i);
        },
        o);
    size_t answered = 0;
    for (size_t i = 0; i < results.size(); ++i) {
      if (!results[i]) continue;
      ++answered;
      EXPECT_EQ(*results[i], Square(i)) << "jobs " << jobs << " job " << i;
    }
    EXPECT_GE(answered, 1u) << "jobs " << jobs;
    EXPECT_LT(answered, 5u) << "jobs " << jobs << ": the pool went on after the interrupt";
    if (jobs == 1) {
      EXPECT_EQ(answered, 1u) << "inline, the flag is looked at before each job";
    }
  }
}

// A background job started first runs while pools fork their own workers and finish, and its
// answer, larger than a pipe holds, arrives whole after them.
TEST_F(WorkerPoolTest, ABackgroundJobAnswersAfterPoolsRanBesideIt) {
  BackgroundJob job([] {
    ::usleep(100 * 1000);  // still running when the pools start
    Json big = Json::array();
    for (size_t i = 0; i < 20000; ++i) big.push_back(Square(i));  // more than a pipe holds
    return big;
  });
  for (int round = 0; round < 2; ++round) {
    const auto results = RunPool(AllIndices(12), Square, WithJobs(2));
    for (size_t i = 0; i < results.size(); ++i) {
      ASSERT_TRUE(results[i].has_value());
      EXPECT_EQ(*results[i], Square(i)) << "round " << round << " job " << i;
    }
  }
  bool died = false;
  const std::optional<Json> answer = job.Finish([&](const std::string&) {
    died = true;
    return Json();
  });
  EXPECT_FALSE(died);
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(answer->size(), 20000u);
  EXPECT_EQ((*answer)[19999], Square(19999));
}

TEST_F(WorkerPoolTest, AnInterruptWhileWaitingKillsTheBackgroundJobAndAnswersNothing) {
  BackgroundJob job([] {
    ::sleep(30);
    return Square(1);
  });
  RequestInterrupt(SIGINT);
  bool died = false;
  const std::optional<Json> answer = job.Finish([&](const std::string&) {
    died = true;
    return Json();
  });
  EXPECT_FALSE(answer.has_value());
  EXPECT_FALSE(died) << "an interrupted job is no death";
}

TEST_F(WorkerPoolTest, ABackgroundJobNeverAskedForIsKilledAndReaped) {
  {
    BackgroundJob job([] {
      ::sleep(30);
      return Square(1);
    });
  }
  // TearDown: no worker left unreaped (the destructor killed it rather than wait 30 s).
}

TEST_F(WorkerPoolTest, AtExitRunsInEveryWorkerAndOnceInline) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  PoolOptions o = WithJobs(3);
  o.at_exit = [&] { (void)!::write(pipe_fds[1], "x", 1); };
  RunPool(AllIndices(9), Square, o);
  o.jobs = 1;
  RunPool(AllIndices(9), Square, o);
  ::close(pipe_fds[1]);
  char buf[16];
  const ssize_t n = ::read(pipe_fds[0], buf, sizeof buf);
  ::close(pipe_fds[0]);
  EXPECT_EQ(n, 4) << "three workers and one inline run";
}

}  // namespace
}  // namespace stepfault::properties
