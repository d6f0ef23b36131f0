// The persistence-model labels of black-box exploration (see explore_internal.h,
// LabelPersistenceModels, and docs/blackbox.md "Persistence models").
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "faults/blackbox/plan.h"
#include "properties/blackbox/explore_internal.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::blackbox {
namespace {

namespace fs = std::filesystem;
namespace fb = faults::blackbox;

std::string WithModel(const std::string& replay, fb::PersistenceModel m) {
  return m == fb::PersistenceModel::kPosix
             ? replay
             : replay + " --fs-model " + std::string(fb::PersistenceModelName(m));
}

std::set<std::string> InvariantsOf(const std::vector<scenarios::blackbox::CheckFailure>& failures) {
  std::set<std::string> out;
  for (const scenarios::blackbox::CheckFailure& f : failures) out.insert(f.invariant);
  return out;
}

// Under each model (AllPersistenceModels order), the invariants the depth-1 plan `plan` violates
// there; nullopt: a state posix failed on (or no crash state at all: crash and ioerror do not
// depend on the model), so the same invariants as posix. A state no task of this shard ran is
// recovered and checked once (at most two per plan and model: a power loss's two tearings).
class ModelChecker {
 public:
  ModelChecker(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
               const Recording& rec, const std::vector<Task>& tasks,
               const std::vector<Outcome>& outcomes)
      : spec_(spec), config_(config), rec_(rec) {
    for (size_t t = 0; t < tasks.size(); ++t)
      if (fb::IsCrashLike(tasks[t].action))
        known_.emplace(StateKey(tasks[t].state, tasks[t].acked),
                       InvariantsOf(outcomes[t].failures));
  }

  std::vector<std::optional<std::set<std::string>>> Check(const std::string& plan) {
    const std::vector<fb::PersistenceModel>& models = fb::AllPersistenceModels();
    std::vector<std::optional<std::set<std::string>>> out(models.size());
    Result<fb::Plan> faults = fb::ParsePlan(plan);
    if (!faults.ok() || faults->size() != 1) return out;
    const fb::Fault& f = faults->front();
    const fb::TraceWindow* w = FindWindow(rec_.windows, f.window);
    // A crash leaves the current tree and an ioerror the live run's directory: no model differs.
    if (w == nullptr || f.action == "crash" || !fb::IsCrashLike(f.action)) return out;
    const std::string acked = AckedBefore(rec_.trace, w->record, rec_.ack);
    // The posix states of the cell that failed (a power loss has up to two tearings).
    std::set<uint64_t> failed;
    for (const fb::CrashState& p :
         StatesOf(rec_.initial, rec_.trace, w->record, f.action, config_.seed)) {
      auto it = known_.find(StateKey(p, acked));
      if (it != known_.end() && !it->second.empty()) failed.insert(it->first);
    }
    for (size_t m = 1; m < models.size(); ++m) {
      // Every state the model gives the cell (both tearings of a power loss, as exploration runs
      // them): the cell fails there when any of them fails.
      std::set<std::string> violated;
      bool same = false;
      for (fb::CrashState& state :
           StatesOf(rec_.initial, rec_.trace, w->record, f.action, config_.seed, models[m])) {
        const uint64_t key = StateKey(state, acked);
        if (failed.count(key)) {  // a state posix failed on: the same recovery, the same failures
          same = true;
          continue;
        }
        auto it = known_.find(key);
        if (it == known_.end()) {
          const std::string cell =
              (fs::path(config_.scratch) / "models" /
               (std::string(fb::PersistenceModelName(models[m])) + "-" + std::to_string(next_++)))
                  .string();
          LifeResult life =
              RecoverAndCheck(spec_, config_, cell, &state, acked, &rec_.reference, false);
          it = known_.emplace(key, InvariantsOf(life.failures)).first;
        }
        violated.insert(it->second.begin(), it->second.end());
      }
      if (!same) out[m] = violated;
    }
    return out;
  }

 private:
  const scenarios::blackbox::Spec& spec_;
  const SessionConfig& config_;
  const Recording& rec_;
  std::map<uint64_t, std::set<std::string>> known_;  // state key -> invariants it violated
  int64_t next_ = 0;
};

// The models (names) under which `invariant` is violated, from ModelChecker::Check's answer.
std::vector<std::string> HoldsUnder(const std::vector<std::optional<std::set<std::string>>>& by,
                                    const std::string& invariant) {
  std::vector<std::string> out;
  const std::vector<fb::PersistenceModel>& models = fb::AllPersistenceModels();
  for (size_t m = 0; m < models.size() && m < by.size(); ++m)
    if (!by[m] || by[m]->count(invariant)) out.emplace_back(fb::PersistenceModelName(models[m]));
  return out;
}

}  // namespace

void LabelPersistenceModels(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                            const Recording& rec, const std::vector<Task>& tasks,
                            const std::vector<Outcome>& outcomes, Exploration* result) {
  const fb::PersistenceModel model = config.fs_model;
  result->report.fs_model = std::string(fb::PersistenceModelName(model));
  for (reports::Violation& v : result->report.violations) v.replay = WithModel(v.replay, model);
  for (Shrunk& s : result->shrunk) s.replay = WithModel(s.replay, model);
  if (model != fb::PersistenceModel::kPosix) return;
  ModelChecker checker(spec, config, rec, tasks, outcomes);
  std::map<std::string, std::vector<std::optional<std::set<std::string>>>> by_plan;
  for (Shrunk& s : result->shrunk) {
    // A worker that died (INV-HARNESS) is no property of the model, and its recovery is not run
    // again here, in this process.
    if (s.faults != 1 || s.invariant == scenarios::kInvHarness) continue;
    auto [it, fresh] = by_plan.try_emplace(s.plan);
    if (fresh) it->second = checker.Check(s.plan);
    s.holds_under = HoldsUnder(it->second, s.invariant);
  }
  for (reports::Violation& v : result->report.violations) {
    auto it = by_plan.find(v.plan);
    if (it != by_plan.end()) v.holds_under = HoldsUnder(it->second, v.invariant);
  }
}

}  // namespace stepfault::properties::blackbox
