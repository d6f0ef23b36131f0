// A toy scenario for the explorer's own tests: two lives ("start" writes and publishes one file,
// "resume" writes a second one and completes), each a handful of file-system windows, so depth 2
// and 3 explorations stay small. Modes turn it into the test doubles the explorer must survive: a
// host that throws or aborts in a recovery life (INV-HARNESS) and a host whose trace reads a
// process counter (INV-DETERMINISM); and a host whose oracle reports the whole history it was
// given (kHistoryChecked: a violation after every life of a faulted run naming each earlier life's
// command and how it died, and what the world holds), so a reuse that ran a check with the wrong
// history shows. Thread-safety: immutable, except the counter of kNondeterministic (one thread).
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenarios/scenario.h"

namespace stepfault::properties::testing {

class ToyScenario final : public scenarios::Scenario {
 public:
  enum class Mode {
    kNormal,
    kThrowInRecovery,
    kAbortInRecovery,
    kNondeterministic,
    kHistoryChecked
  };
  explicit ToyScenario(Mode mode = Mode::kNormal) : mode_(mode) {}

  std::string name() const override { return "toy"; }
  std::string description() const override { return "two lives, two published files"; }
  std::vector<std::string> invariants() const override { return {}; }
  std::vector<scenarios::ParamDecl> params() const override { return {}; }

  // Only the host doubles that throw or abort in recovery read `previous` (the counter of
  // kNondeterministic must not be reused either: its runs must differ).
  bool LifeReadsPrevious() const override {
    return mode_ != Mode::kNormal && mode_ != Mode::kHistoryChecked;
  }

  void RunLife(scenarios::HostEnv& env, const std::vector<scenarios::LifeReport>& previous,
               scenarios::LifeReport* report) const override {
    bool recovering = false;
    for (const auto& p : previous) recovering = recovering || p.died;
    if (recovering && mode_ == Mode::kThrowInRecovery) throw std::runtime_error("toy host bug");
    if (recovering && mode_ == Mode::kAbortInRecovery) std::abort();
    if (mode_ == Mode::kNondeterministic) report->trace.push_back(std::to_string(++counter_));
    const std::string data = env.dir + "/data", done = env.dir + "/done";
    auto has = [&](const std::string& path) {
      auto r = env.env->ReadFile(path);
      return r.ok() && *r == "payload";
    };
    report->command = has(data) ? "resume" : "start";
    report->status = Publish(env, has(data) ? done : data);
    report->completed = report->status.ok() && has(done);
  }

  void Check(scenarios::HostEnv& env, const std::vector<scenarios::LifeReport>& lives, bool final,
             std::vector<scenarios::Violation>* out) const override {
    if (mode_ != Mode::kHistoryChecked) return;
    std::string history;
    bool any_died = false;
    for (const auto& l : lives) {
      history += l.command + (l.died ? (l.power_lost ? "(power lost) " : "(crashed) ") : " ");
      any_died = any_died || l.died;
    }
    // The fault-free run holds (explore stops at once when it does not); every faulted run's
    // lives report their history.
    if (!any_died) return;
    std::string world;
    for (const char* name : {"/data", "/data.tmp", "/done", "/done.tmp"}) {
      auto r = env.env->ReadFile(env.dir + name);
      world += std::string(name) + "=" + (r.ok() ? std::to_string(r->size()) : "-") + " ";
    }
    out->push_back({"TOY-HISTORY", history + "| " + world + (final ? "final" : "")});
  }

 private:
  static Status Publish(scenarios::HostEnv& env, const std::string& path) {
    SF_ASSIGN_OR_RETURN(auto file, env.env->NewWritableFile(path + ".tmp"));
    SF_RETURN_IF_ERROR(file->Append("payload"));
    SF_RETURN_IF_ERROR(file->Sync());
    SF_RETURN_IF_ERROR(file->Close());
    SF_RETURN_IF_ERROR(env.env->RenameFile(path + ".tmp", path));
    return env.env->SyncDir(env.dir);
  }

  Mode mode_;
  mutable int counter_ = 0;
};

}  // namespace stepfault::properties::testing
