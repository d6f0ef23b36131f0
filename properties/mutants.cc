// The mutant table and the hunt.
#include "properties/mutants.h"

#include <algorithm>
#include <set>

#include "faults/plan.h"
#include "scenarios/registry.h"

namespace stepfault::properties {

const std::vector<Mutant>& AllMutants() {
  static const auto* list = [] {
    auto* v = new std::vector<Mutant>();
    for (const HazardInfo& h : EngineHazards()) {
      const std::string name = h.name;
      v->push_back({"engine:" + name, h.meaning, [name](RunConfig* c) {
                      SF_CHECK(c->profile.Enable(name).ok());
                      // Non-bijective matching is a refinement of EdgeId-blind matching.
                      if (name == "non-bijective-edge-matching")
                        c->profile.edge_id_blind_matching = true;
                    }});
    }
    v->push_back({"store:prune-on-read",
                  "the store prunes a checkpoint's ancestry when it is read (#7796)",
                  [](RunConfig* c) { c->store.prune_on_read = true; }});
    v->push_back({"store:in-place-checkpoint-write",
                  "the file store writes the index line first and the checkpoint in place, no "
                  "fsync, no rename",
                  [](RunConfig* c) { c->store.in_place_write = true; }});
    // The host mistakes: each scenario declares its own (Scenario::host_hazards()); one mutant per
    // name, in registry order, the first declaration's meaning.
    std::set<std::string> seen;
    for (const auto& scenario : scenarios::BuiltinScenarios()) {
      for (const scenarios::HostHazard& h : scenario->host_hazards()) {
        if (!seen.insert(h.name).second) continue;
        const std::string name = h.name;
        v->push_back(
            {"host:" + name, h.meaning, [name](RunConfig* c) { c->hazards.insert(name); }});
      }
    }
    return v;
  }();
  return *list;
}

std::vector<std::string> ActiveHazardNames(const RunConfig& config) {
  // A mutant is active when switching it on changes nothing: every switch it sets is already set.
  std::vector<std::string> names;
  for (const Mutant& m : AllMutants()) {
    RunConfig applied = config;
    m.apply(&applied);
    if (applied.profile == config.profile && applied.hazards == config.hazards &&
        applied.store == config.store) {
      names.push_back(m.name);
    }
  }
  // A refinement implies its base: report only the refinement.
  auto refined = std::find(names.begin(), names.end(), "engine:non-bijective-edge-matching");
  if (refined != names.end())
    names.erase(std::remove(names.begin(), names.end(), "engine:edge-id-blind-matching"),
                names.end());
  return names;
}

std::vector<reports::MutantResult> RunMutants(
    const ExploreOptions& base, const std::vector<std::string>& only,
    const std::function<void(int64_t, int64_t)>& progress) {
  std::vector<const Mutant*> chosen;
  for (const Mutant& m : AllMutants()) {
    if (only.empty() || std::find(only.begin(), only.end(), m.name) != only.end())
      chosen.push_back(&m);
  }
  std::vector<reports::MutantResult> results;
  for (size_t i = 0; i < chosen.size(); ++i) {
    const Mutant& m = *chosen[i];
    reports::MutantResult r;
    r.name = m.name;
    r.description = m.description;
    for (int depth = 1; depth <= 2 && !r.killed; ++depth) {
      ExploreOptions o = base;
      m.apply(&o.config);
      o.stop_at_first_violation = depth == 1;
      o.depth = depth;
      o.jobs = base.jobs;
      for (const auto& s : scenarios::BuiltinScenarios()) {
        ScenarioExploration e = ExploreScenario(*s, o);
        if (e.violations.empty()) continue;
        // The smallest plan among the violations found (fewest faults, then shortest text).
        const reports::Violation* best = &e.violations.front();
        for (const auto& v : e.violations) {
          auto faults_in = [](const std::string& p) { return std::count(p.begin(), p.end(), '@'); };
          if (faults_in(v.plan) < faults_in(best->plan) ||
              (faults_in(v.plan) == faults_in(best->plan) && v.plan.size() < best->plan.size())) {
            best = &v;
          }
        }
        r.killed = true;
        r.scenario = s->name();
        r.invariant = best->invariant;
        r.plan = best->plan;
        r.replay = best->replay;
        break;
      }
    }
    results.push_back(std::move(r));
    if (progress) progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(chosen.size()));
  }
  return results;
}

}  // namespace stepfault::properties
