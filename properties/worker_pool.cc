// The worker pool (see worker_pool.h): inline, or forked guarded workers streaming JSON lines
// through pipes; a worker that dies has its current job answered by on_death and is replaced for
// the rest of its share.
#include "properties/worker_pool.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "engine/status.h"
#include "properties/interrupt.h"
#include "properties/process_guard.h"

namespace stepfault::properties {
namespace {

using Json = nlohmann::json;
using Results = std::vector<std::optional<Json>>;

// One forked worker: the positions (into the index list) it owns and how far its answers got.
struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  std::vector<size_t> share;
  size_t answered = 0;
};

// Stores the answer to position `pos`, or hands it to on_answer and stores a null (answered).
void Deliver(const PoolOptions& options, Results* results, size_t pos, Json answer) {
  if (options.on_answer) {
    options.on_answer(pos, std::move(answer));
    (*results)[pos] = Json();
  } else {
    (*results)[pos] = std::move(answer);
  }
}

void WriteAll(int fd, const std::string& line) {
  for (size_t off = 0; off < line.size();) {
    const ssize_t n = ::write(fd, line.data() + off, line.size() - off);
    if (n <= 0) ::_exit(3);
    off += static_cast<size_t>(n);
  }
}

// Forks a guarded worker of this process that runs body(write end of a pipe) and exits; the
// parent gets the pid and the read end. An exception must never unwind into the parent's code
// running in the child: it is a death of the job (an abort), said on stderr.
pid_t ForkWorker(const std::function<void(int fd)>& body, int* read_fd) {
  int p[2];
  // Close-on-exec: a program a job runs never holds a worker's pipe.
  SF_CHECK(::pipe2(p, O_CLOEXEC) == 0);
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  SF_CHECK(pid >= 0);
  if (pid == 0) {
    ::close(p[0]);
    BecomeGuardedWorker(parent);
    try {
      body(p[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "stepfault: a worker's job threw: %s\n", e.what());
      std::abort();
    }
    ::_exit(0);
  }
  ::close(p[1]);
  AddGuardedWorker(pid);
  *read_fd = p[0];
  return pid;
}

// Closes the parent's end of a worker's pipe, waits for the worker and forgets it; its wait
// status.
int ReapWorker(pid_t pid, int fd) {
  ::close(fd);
  int status = 0;
  ::waitpid(pid, &status, 0);
  RemoveGuardedWorker(pid);
  return status;
}

class Pool {
 public:
  Pool(const std::vector<size_t>& indices, const std::function<Json(size_t)>& job,
       const PoolOptions& options)
      : indices_(indices), job_(job), options_(options), results_(indices.size()) {}

  Results Run() {
    const size_t n = indices_.size();
    const size_t jobs = std::min<size_t>(static_cast<size_t>(options_.jobs), n);
    // Runs of neighbouring jobs (the children of one crash state) share a prefix and often a
    // continuation, so each worker gets whole blocks of them, dealt in turn for balance.
    const size_t block = std::max<size_t>(1, n / (jobs * 16));
    for (size_t k = 0; k < jobs; ++k) {
      std::vector<size_t> share;
      for (size_t start = k * block; start < n; start += block * jobs) {
        for (size_t p = start; p < std::min(n, start + block); ++p) share.push_back(p);
      }
      workers_.push_back(Spawn(std::move(share)));
    }
    while (!workers_.empty()) {
      if (Interrupted()) {
        StopWorkers();
        return std::move(results_);
      }
      std::vector<pollfd> polls;
      for (const Worker& w : workers_) polls.push_back({w.fd, POLLIN, 0});
      if (::poll(polls.data(), polls.size(), -1) < 0) {
        SF_CHECK(errno == EINTR);
        continue;  // a signal: the loop's head sees an interrupt
      }
      // A worker killed by the same Ctrl-C is no death of its job: look at the flag before reaping.
      if (Interrupted()) continue;
      std::vector<Worker> next;
      for (size_t k = 0; k < workers_.size(); ++k) {
        Worker& w = workers_[k];
        if ((polls[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0 || Drain(w)) {
          next.push_back(std::move(w));
          continue;
        }
        std::vector<size_t> rest = Reap(w);
        if (!rest.empty()) next.push_back(Spawn(std::move(rest)));
      }
      workers_ = std::move(next);
    }
    SF_CHECK(done_ == static_cast<int64_t>(n));
    return std::move(results_);
  }

 private:
  Worker Spawn(std::vector<size_t> share) {
    Worker w;
    w.pid = ForkWorker(
        [&](int fd) {
          for (size_t pos : share) {
            WriteAll(fd, Json{{"k", pos}, {"r", job_(indices_[pos])}}.dump() + "\n");
          }
          ::close(fd);
          if (options_.at_exit) options_.at_exit();
        },
        &w.fd);
    w.share = std::move(share);
    return w;
  }

  void Answer(size_t pos, Json result) {
    Deliver(options_, &results_, pos, std::move(result));
    ++done_;
    if (options_.progress) options_.progress(done_);
  }

  // Reads what is available from `w`; false at end of stream.
  bool Drain(Worker& w) {
    char buf[1 << 16];
    const ssize_t n = ::read(w.fd, buf, sizeof(buf));
    if (n <= 0) return false;
    const size_t searched = w.buffer.size();
    w.buffer.append(buf, static_cast<size_t>(n));
    size_t from = 0;
    for (size_t nl = w.buffer.find('\n', searched); nl != std::string::npos;
         nl = w.buffer.find('\n', from)) {
      Json line = Json::parse(w.buffer.begin() + static_cast<std::ptrdiff_t>(from),
                              w.buffer.begin() + static_cast<std::ptrdiff_t>(nl));
      from = nl + 1;
      Answer(line["k"].get<size_t>(), std::move(line["r"]));
      ++w.answered;
    }
    w.buffer.erase(0, from);
    return true;
  }

  // Reaps a finished worker. When it died before answering its whole share, the job it was on is
  // answered by on_death and the returned positions are the rest of its share (else it is empty).
  std::vector<size_t> Reap(Worker& w) {
    const int status = ReapWorker(w.pid, w.fd);
    if (w.answered >= w.share.size()) return {};
    SF_CHECK(options_.on_death != nullptr);
    const size_t culprit = w.share[w.answered];
    Answer(culprit, options_.on_death(indices_[culprit], DescribeDeath(status)));
    return std::vector<size_t>(w.share.begin() + static_cast<std::ptrdiff_t>(w.answered) + 1,
                               w.share.end());
  }

  // After an interrupt: kills every worker; the jobs they had not answered stay empty.
  void StopWorkers() {
    for (Worker& w : workers_) {
      ::kill(w.pid, SIGKILL);
      ReapWorker(w.pid, w.fd);
    }
    workers_.clear();
  }

  const std::vector<size_t>& indices_;
  const std::function<Json(size_t)>& job_;
  const PoolOptions& options_;
  Results results_;
  std::vector<Worker> workers_;
  int64_t done_ = 0;
};

}  // namespace

std::vector<size_t> AllIndices(size_t n) {
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

std::string DescribeDeath(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    return "died of signal " + std::to_string(WTERMSIG(wait_status)) + " (" +
           strsignal(WTERMSIG(wait_status)) + ")";
  }
  return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
}

BackgroundJob::BackgroundJob(const std::function<Json()>& job) {
  pid_ = ForkWorker([&](int fd) { WriteAll(fd, Json{{"r", job()}}.dump() + "\n"); }, &fd_);
}

BackgroundJob::~BackgroundJob() { Stop(); }

void BackgroundJob::Stop() {
  if (pid_ < 0) return;
  ::kill(pid_, SIGKILL);
  ReapWorker(pid_, fd_);
  pid_ = -1;
}

std::optional<Json> BackgroundJob::Finish(
    const std::function<Json(const std::string& how)>& on_death) {
  SF_CHECK(pid_ >= 0);  // once only
  std::string text;
  for (;;) {
    if (Interrupted()) {
      Stop();
      return std::nullopt;
    }
    pollfd poll_fd{fd_, POLLIN, 0};
    if (::poll(&poll_fd, 1, -1) < 0) {
      SF_CHECK(errno == EINTR);
      continue;  // a signal: the loop's head sees an interrupt
    }
    if (Interrupted()) continue;
    char buf[1 << 16];
    const ssize_t n = ::read(fd_, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  const int status = ReapWorker(pid_, fd_);
  pid_ = -1;
  // The answer is whole only with its newline: a worker dying mid-line answered nothing.
  if (text.empty() || text.back() != '\n') return on_death(DescribeDeath(status));
  return std::move(Json::parse(text)["r"]);
}

std::vector<std::optional<Json>> RunPool(const std::vector<size_t>& indices,
                                         const std::function<Json(size_t)>& job,
                                         const PoolOptions& options) {
  if (options.jobs > 1 && indices.size() > 1) return Pool(indices, job, options).Run();
  Results results(indices.size());
  for (size_t k = 0; k < indices.size() && !Interrupted(); ++k) {
    Deliver(options, &results, k, job(indices[k]));
    if (options.progress) options.progress(static_cast<int64_t>(k + 1));
  }
  if (options.at_exit) options.at_exit();
  return results;
}

}  // namespace stepfault::properties
