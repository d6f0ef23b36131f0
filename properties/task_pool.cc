// The task pool: inline, or forked workers streaming JSON lines through pipes.
#include "properties/task_pool.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace stepfault::properties {
namespace {

TaskResult Summarize(const Execution& ex) {
  TaskResult r;
  r.violations = ex.violations;
  r.lives = static_cast<int>(ex.lives.size());
  r.completed = ex.completed;
  for (size_t i = 0; i < ex.lives.size(); ++i) {
    if (!ex.lives[i].death.empty()) {
      r.died_in_life = static_cast<int>(i + 1);
      if (i + 1 < ex.lives.size()) r.recovery_windows = ex.lives[i + 1].windows;
      break;
    }
  }
  return r;
}

Json ToJson(size_t index, const TaskResult& r) {
  Json v = Json::array();
  for (const auto& x : r.violations) v.push_back(Json{{"i", x.invariant}, {"m", x.message}});
  Json w = Json::array();
  for (const auto& x : r.recovery_windows) w.push_back(Json{{"p", x.point}, {"o", x.occurrence}});
  return Json{{"index", index},         {"v", v}, {"lives", r.lives}, {"completed", r.completed},
              {"died", r.died_in_life}, {"w", w}};
}

TaskResult FromJson(const Json& j) {
  TaskResult r;
  for (const Json& x : j["v"]) r.violations.push_back({x["i"], x["m"]});
  r.lives = j["lives"];
  r.completed = j["completed"];
  r.died_in_life = j["died"];
  for (const Json& x : j["w"]) r.recovery_windows.push_back({x["p"], x["o"]});
  return r;
}

}  // namespace

std::vector<TaskResult> RunTasks(const scenarios::Scenario& scenario, const RunConfig& config,
                                 const std::vector<faults::Plan>& plans, int jobs,
                                 const std::function<void(int64_t done)>& progress) {
  std::vector<TaskResult> results(plans.size());
  if (jobs <= 1 || plans.size() < 2) {
    for (size_t i = 0; i < plans.size(); ++i) {
      results[i] = Summarize(RunPlan(scenario, plans[i], config));
      if (progress) progress(static_cast<int64_t>(i + 1));
    }
    return results;
  }
  jobs = std::min<int>(jobs, static_cast<int>(plans.size()));
  std::vector<int> fds;
  std::vector<pid_t> pids;
  for (int k = 0; k < jobs; ++k) {
    int p[2];
    SF_CHECK(::pipe(p) == 0);
    std::fflush(nullptr);
    pid_t pid = ::fork();
    SF_CHECK(pid >= 0);
    if (pid == 0) {
      ::close(p[0]);
      for (size_t i = static_cast<size_t>(k); i < plans.size(); i += static_cast<size_t>(jobs)) {
        std::string line = ToJson(i, Summarize(RunPlan(scenario, plans[i], config))).dump() + "\n";
        for (size_t off = 0; off < line.size();) {
          ssize_t n = ::write(p[1], line.data() + off, line.size() - off);
          if (n <= 0) ::_exit(3);
          off += static_cast<size_t>(n);
        }
      }
      ::close(p[1]);
      ::_exit(0);
    }
    ::close(p[1]);
    fds.push_back(p[0]);
    pids.push_back(pid);
  }
  std::vector<std::string> buffers(fds.size());
  std::vector<bool> open(fds.size(), true);
  int64_t done = 0;
  size_t still_open = fds.size();
  while (still_open > 0) {
    std::vector<pollfd> polls;
    std::vector<size_t> which;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (open[k]) {
        polls.push_back({fds[k], POLLIN, 0});
        which.push_back(k);
      }
    }
    SF_CHECK(::poll(polls.data(), polls.size(), -1) >= 0);
    for (size_t j = 0; j < polls.size(); ++j) {
      if ((polls[j].revents & (POLLIN | POLLHUP)) == 0) continue;
      const size_t k = which[j];
      char buf[1 << 16];
      ssize_t n = ::read(fds[k], buf, sizeof(buf));
      if (n <= 0) {
        open[k] = false;
        --still_open;
        ::close(fds[k]);
        continue;
      }
      buffers[k].append(buf, static_cast<size_t>(n));
      size_t nl;
      while ((nl = buffers[k].find('\n')) != std::string::npos) {
        Json j = Json::parse(buffers[k].substr(0, nl));
        buffers[k].erase(0, nl + 1);
        results[j["index"].get<size_t>()] = FromJson(j);
        ++done;
        if (progress) progress(done);
      }
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    SF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  SF_CHECK(done == static_cast<int64_t>(plans.size()));
  return results;
}

}  // namespace stepfault::properties
