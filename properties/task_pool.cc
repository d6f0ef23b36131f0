// The task pool: inline, or forked workers streaming JSON lines through pipes; a worker that dies
// gives its current task an INV-HARNESS result and is replaced for the rest of its share.
#include "properties/task_pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "engine/random.h"
#include "properties/interrupt.h"
#include "scenarios/invariants.h"

namespace stepfault::properties {
namespace {

Json ToJson(size_t index, const TaskResult& r) {
  Json v = Json::array();
  for (const auto& x : r.violations) v.push_back(Json{{"i", x.invariant}, {"m", x.message}});
  Json lives = Json::array();
  for (const LifeWindows& l : r.lives_windows) {
    Json w = Json::array();
    for (const auto& x : l.windows) w.push_back(Json{x.point, x.occurrence});
    lives.push_back(Json{{"c", l.command}, {"w", w}});
  }
  return Json{{"index", index},
              {"v", v},
              {"lives", r.lives},
              {"completed", r.completed},
              {"died", r.died_in_life},
              {"digest", r.crash_digest},
              {"lw", lives},
              {"fp", r.fingerprint}};
}

TaskResult FromJson(const Json& j) {
  TaskResult r;
  for (const Json& x : j["v"]) r.violations.push_back({x["i"], x["m"]});
  r.lives = j["lives"];
  r.completed = j["completed"];
  r.died_in_life = j["died"];
  r.crash_digest = j["digest"];
  r.fingerprint = j["fp"];
  for (const Json& l : j["lw"]) {
    LifeWindows lw;
    lw.command = l["c"];
    for (const Json& x : l["w"]) lw.windows.push_back({x[0], x[1]});
    r.lives_windows.push_back(std::move(lw));
  }
  return r;
}

// The result of a task whose worker died without answering.
TaskResult HarnessDeath(const faults::Plan& plan, int wait_status) {
  TaskResult r;
  std::string how = WIFSIGNALED(wait_status)
                        ? "died of signal " + std::to_string(WTERMSIG(wait_status)) + " (" +
                              strsignal(WTERMSIG(wait_status)) + ")"
                        : "exited with status " + std::to_string(WEXITSTATUS(wait_status));
  r.violations.push_back({scenarios::kInvHarness, "the worker running plan '" +
                                                      faults::PrintPlan(plan) + "' " + how +
                                                      " (an abort, SF_CHECK or signal)"});
  r.fingerprint = "harness";
  return r;
}

// With STEPFAULT_REUSE_STATS set, each process prints how often its RunMemo was hit (a diagnostic
// on stderr: the hits depend on how tasks fall to workers, so they are not part of any report).
void PrintReuseStats(const RunMemo& memo) {
  if (std::getenv("STEPFAULT_REUSE_STATS") == nullptr) return;
  const RunMemo::Stats s = memo.stats();
  if (s.prefix_hits + s.prefix_misses + s.continuation_hits + s.continuation_misses == 0) return;
  std::fprintf(
      stderr,
      "reuse: prefixes %lld/%lld continuations %lld/%lld crash-state lives %lld/%lld (%lld after "
      "the first) death checks "
      "%lld/%lld\n",
      static_cast<long long>(s.prefix_hits),
      static_cast<long long>(s.prefix_hits + s.prefix_misses),
      static_cast<long long>(s.continuation_hits),
      static_cast<long long>(s.continuation_hits + s.continuation_misses),
      static_cast<long long>(s.lives_hits), static_cast<long long>(s.lives_hits + s.lives_misses),
      static_cast<long long>(s.later_lives_hits), static_cast<long long>(s.death_check_hits),
      static_cast<long long>(s.death_check_hits + s.death_check_misses));
}

// One forked worker: the task indices it owns and how far its answers got.
struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  std::vector<size_t> indices;
  size_t answered = 0;
};

void WriteAll(int fd, const std::string& line) {
  for (size_t off = 0; off < line.size();) {
    ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n <= 0) ::_exit(3);
    off += static_cast<size_t>(n);
  }
}

Worker Spawn(const scenarios::Scenario& scenario, const RunConfig& config,
             const std::vector<faults::Plan>& plans, std::vector<size_t> indices, bool reuse) {
  int p[2];
  SF_CHECK(::pipe(p) == 0);
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  SF_CHECK(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    BecomeInterruptibleWorker(parent);
    RunMemo memo;
    for (size_t i : indices) {
      const Execution ex = RunPlan(scenario, plans[i], config, reuse ? &memo : nullptr);
      WriteAll(p[1], ToJson(i, Summarize(plans[i], ex)).dump() + "\n");
    }
    ::close(p[1]);
    PrintReuseStats(memo);
    ::_exit(0);
  }
  ::close(p[1]);
  Worker w;
  w.pid = pid;
  w.fd = p[0];
  w.indices = std::move(indices);
  return w;
}

// Reads what is available from `w`; false at end of stream.
bool Drain(Worker& w, std::vector<TaskResult>* results, int64_t* done,
           const std::function<void(int64_t)>& progress) {
  char buf[1 << 16];
  ssize_t n = ::read(w.fd, buf, sizeof(buf));
  if (n <= 0) return false;
  w.buffer.append(buf, static_cast<size_t>(n));
  size_t nl;
  while ((nl = w.buffer.find('\n')) != std::string::npos) {
    Json j = Json::parse(w.buffer.substr(0, nl));
    w.buffer.erase(0, nl + 1);
    (*results)[j["index"].get<size_t>()] = FromJson(j);
    ++w.answered;
    ++*done;
    if (progress) progress(*done);
  }
  return true;
}

// Reaps a finished worker. When it died before answering every task, the task it was on gets an
// INV-HARNESS result and the returned list holds the tasks still to run (else it is empty).
std::vector<size_t> Reap(Worker& w, const std::vector<faults::Plan>& plans,
                         std::vector<TaskResult>* results, int64_t* done,
                         const std::function<void(int64_t)>& progress) {
  ::close(w.fd);
  int status = 0;
  ::waitpid(w.pid, &status, 0);
  if (w.answered >= w.indices.size()) return {};
  const size_t culprit = w.indices[w.answered];
  (*results)[culprit] = HarnessDeath(plans[culprit], status);
  ++*done;
  if (progress) progress(*done);
  return std::vector<size_t>(w.indices.begin() + static_cast<std::ptrdiff_t>(w.answered) + 1,
                             w.indices.end());
}

// After an interrupt: kills every worker and marks the tasks they had not answered interrupted.
void StopWorkers(std::vector<Worker>& workers, std::vector<TaskResult>* results) {
  for (Worker& w : workers) {
    ::kill(w.pid, SIGKILL);
    ::close(w.fd);
    int status = 0;
    ::waitpid(w.pid, &status, 0);
    for (size_t k = w.answered; k < w.indices.size(); ++k)
      (*results)[w.indices[k]].interrupted = true;
  }
  workers.clear();
}

}  // namespace

TaskResult Summarize(const faults::Plan& plan, const Execution& ex) {
  TaskResult r;
  r.violations = ex.violations;
  r.lives = static_cast<int>(ex.lives.size());
  r.completed = ex.completed;
  const size_t last_fault = plan.faults.size();  // plans end with their last fault
  for (size_t i = 0; i < ex.lives.size(); ++i) {
    const LifeRecord& life = ex.lives[i];
    LifeWindows lw;
    lw.command = life.report.command.empty() ? "life" : life.report.command;
    // The explorer discovers windows only in the lives after the last fault (those before were
    // discovered by the run the plan grew from): the others travel empty.
    if (i < last_fault) {
      r.lives_windows.push_back(std::move(lw));
      continue;
    }
    for (const faults::Window& w : life.windows) {
      lw.windows.push_back(w);
      if (life.fired && w == *life.fired) break;  // later hits need a second fault in this life
    }
    r.lives_windows.push_back(std::move(lw));
  }
  if (last_fault > 0 && last_fault <= ex.lives.size() && !ex.lives[last_fault - 1].death.empty()) {
    r.died_in_life = static_cast<int>(last_fault);
    r.crash_digest = ex.lives[last_fault - 1].world_digest;
  }
  r.fingerprint = std::to_string(Hash64(ex.trace)) + "/" + ex.final_digest;
  return r;
}

std::vector<TaskResult> RunTasks(const scenarios::Scenario& scenario, const RunConfig& config,
                                 const std::vector<faults::Plan>& plans, int jobs,
                                 const std::function<void(int64_t done)>& progress, bool reuse) {
  std::vector<TaskResult> results(plans.size());
  if (jobs <= 1 || plans.size() < 2) {
    RunMemo memo;
    for (size_t i = 0; i < plans.size(); ++i) {
      if (Interrupted()) {
        for (size_t k = i; k < plans.size(); ++k) results[k].interrupted = true;
        break;
      }
      results[i] =
          Summarize(plans[i], RunPlan(scenario, plans[i], config, reuse ? &memo : nullptr));
      if (progress) progress(static_cast<int64_t>(i + 1));
    }
    PrintReuseStats(memo);
    return results;
  }
  jobs = std::min<int>(jobs, static_cast<int>(plans.size()));
  std::vector<Worker> workers;
  // Runs of neighbouring tasks (the children of one crash state) share a prefix and often a
  // continuation, so each worker gets whole blocks of them, dealt in turn for balance.
  const size_t block = std::max<size_t>(1, plans.size() / (static_cast<size_t>(jobs) * 16));
  for (int k = 0; k < jobs; ++k) {
    std::vector<size_t> share;
    for (size_t start = static_cast<size_t>(k) * block; start < plans.size();
         start += block * static_cast<size_t>(jobs)) {
      for (size_t i = start; i < std::min(plans.size(), start + block); ++i) share.push_back(i);
    }
    workers.push_back(Spawn(scenario, config, plans, std::move(share), reuse));
  }
  int64_t done = 0;
  while (!workers.empty()) {
    if (Interrupted()) {
      StopWorkers(workers, &results);
      return results;
    }
    std::vector<pollfd> polls;
    for (const Worker& w : workers) polls.push_back({w.fd, POLLIN, 0});
    if (::poll(polls.data(), polls.size(), -1) < 0) {
      SF_CHECK(errno == EINTR);
      continue;  // a signal: the loop's head sees an interrupt
    }
    // A worker killed by the same Ctrl-C is no harness failure: look at the flag before reaping.
    if (Interrupted()) continue;
    std::vector<Worker> next;
    for (size_t k = 0; k < workers.size(); ++k) {
      Worker& w = workers[k];
      if ((polls[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0 ||
          Drain(w, &results, &done, progress)) {
        next.push_back(std::move(w));
        continue;
      }
      std::vector<size_t> rest = Reap(w, plans, &results, &done, progress);
      if (!rest.empty()) next.push_back(Spawn(scenario, config, plans, std::move(rest), reuse));
    }
    workers = std::move(next);
  }
  SF_CHECK(done == static_cast<int64_t>(plans.size()));
  return results;
}

}  // namespace stepfault::properties
