// CheckPlanForScenario and FaultsNeverFired (see plan_check.h).
#include "tools/cli/plan_check.h"

#include <set>

#include "faults/points.h"

namespace stepfault::cli {

Status CheckPlanForScenario(const faults::Plan& plan, const scenarios::Scenario& scenario,
                            const properties::RunConfig& config) {
  Status registered = faults::CheckPlanPoints(plan);
  if (!registered.ok()) {
    std::string names;
    for (const auto& p : faults::AllPoints()) names += "\n  " + p.name;
    return Status::InvalidArgument(registered.message() + "\nThe registered points:" + names);
  }
  // The points the scenario reaches, from its fault-free run (not needed when no fault names one).
  bool faulted = false;
  for (const faults::Fault& f : plan.faults) faulted = faulted || !f.is_none();
  if (!faulted) return Status::Ok();
  properties::Execution reference = properties::RunPlan(scenario, faults::Plan{}, config);
  std::set<std::string> reached;
  for (const auto& life : reference.lives) {
    for (const auto& w : life.windows) reached.insert(w.point);
  }
  for (size_t i = 0; i < plan.faults.size(); ++i) {
    const faults::Fault& f = plan.faults[i];
    if (f.is_none()) continue;
    bool hit = false;
    for (const std::string& p : reached) hit = hit || f.point.Matches(p);
    if (hit) continue;
    std::string names;
    for (const std::string& p : reached) names += "\n  " + p;
    return Status::InvalidArgument("fault " + std::to_string(i + 1) + " '" + f.Print() +
                                   "': scenario '" + scenario.name() + "' never reaches '" +
                                   f.point.Print() + "', so the fault could not fire; the points " +
                                   "it reaches (`stepfault list points` explains each):" + names);
  }
  return Status::Ok();
}

std::vector<std::string> FaultsNeverFired(const faults::Plan& plan,
                                          const properties::Execution& ex) {
  std::vector<std::string> out;
  for (size_t i = 0; i < plan.faults.size(); ++i) {
    const faults::Fault& f = plan.faults[i];
    if (f.is_none()) continue;
    const std::string head = "fault " + std::to_string(i + 1) + " '" + f.Print() + "' never fired";
    if (i >= ex.lives.size()) {
      out.push_back(head + ": the run ended after " + std::to_string(ex.lives.size()) +
                    " lives, before life " + std::to_string(i + 1));
    } else if (!ex.lives[i].fired) {
      int hits = 0;
      for (const auto& w : ex.lives[i].windows) hits += f.point.Matches(w.point) ? 1 : 0;
      out.push_back(head + ": life " + std::to_string(i + 1) + " hit '" + f.point.Print() + "' " +
                    std::to_string(hits) + " time(s), and the trigger asked for another");
    }
  }
  return out;
}

}  // namespace stepfault::cli
