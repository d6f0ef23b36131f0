// Explore: every scenario over every parameter set it declares (Scenario::Variants) and every
// checkpoint store; a variant whose fault-free run is identical to an earlier variant's (the host
// ignores it on this build) is reported as skipped, with the reason, never as explored.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "engine/stores/store_kinds.h"
#include "faults/points.h"
#include "properties/explore_flow.h"
#include "properties/explorer.h"
#include "properties/interrupt.h"
#include "properties/mutants.h"
#include "properties/task_pool.h"
#include "properties/worker_pool.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

struct Variant {
  Json params;  // null: the scenario's defaults
  std::string store;
  std::string label;
};

// "key=value" for each parameter that differs from the default, then the store when not "file".
std::string Label(const Json& defaults, const Json& params, const std::string& store) {
  std::string label;
  for (auto it = params.begin(); it != params.end(); ++it) {
    if (defaults.contains(it.key()) && defaults[it.key()] == *it) continue;
    const std::string value = it->is_string() ? it->get<std::string>() : it->dump();
    label += (label.empty() ? "" : ",") + it.key() + "=" + value;
  }
  if (store != "file") label += (label.empty() ? "" : ",") + std::string("store=") + store;
  return label;
}

std::vector<Variant> VariantsOf(const scenarios::Scenario& s, const ExploreOptions& options) {
  std::vector<Variant> out;
  const bool all = options.all_variants;
  const std::vector<Json> params = all ? s.Variants() : std::vector<Json>{s.default_params()};
  std::vector<std::string> stores;
  for (const std::string& store : all ? CheckpointStoreNames() : std::vector<std::string>{"file"}) {
    const bool chosen =
        options.stores.empty() ||
        std::find(options.stores.begin(), options.stores.end(), store) != options.stores.end();
    if (!all || chosen) stores.push_back(store);
  }
  for (const std::string& store : stores) {
    for (size_t i = 0; i < params.size(); ++i) {
      const Json p = i == 0 ? Json(nullptr) : params[i];
      out.push_back({p, store, Label(s.default_params(), params[i], store)});
    }
  }
  return out;
}

// "scenario [label]", the variant's name in the report.
std::string NameOf(const scenarios::Scenario& s, const Variant& v) {
  return s.name() + (v.label.empty() ? "" : " [" + v.label + "]");
}

// What makes two variants the same exploration: the fault-free run's trace and windows.
std::string Signature(const Execution& ex) {
  std::string sig = ex.trace;
  for (const LifeRecord& l : ex.lives) {
    for (const faults::Window& w : l.windows) sig += w.point + "#" + std::to_string(w.occurrence);
  }
  return sig;
}

// A variant the run was interrupted before: listed, never counted as explored.
reports::ScenarioReport NotExplored(const scenarios::ScenarioInfo& s, const std::string& name,
                                    const std::string& label) {
  reports::ScenarioReport rep;
  rep.name = name;
  rep.variant = label;
  rep.description = s.description();
  rep.skipped = "not explored: the run was interrupted before it";
  return rep;
}

// The report's facts about the run itself: command, seed, profile, every hazard on, depth, shard,
// the registered points and the actions --actions filtered out.
reports::Report ReportHead(const ExploreOptions& options, const std::string& command) {
  reports::Report report;
  report.command = command;
  report.seed = options.config.seed;
  report.profile = options.config.profile == EngineProfile::MafCompat() ? "maf-compat" : "strict";
  // Every switch that is on: the engine's (by the profile's names), then the host's and the
  // store's as `--hazard` names them. Before, a host hazard was missing and the report said "none".
  report.hazards = options.config.profile.EnabledHazards();
  for (const std::string& h : options.config.hazards) report.hazards.push_back("host:" + h);
  for (const std::string& h : ActiveHazardNames(options.config)) {  // the mutant table's names
    if (h.starts_with("store:")) report.hazards.push_back(h);
  }
  report.depth = options.depth;
  report.shard = std::to_string(options.shard_index) + "/" + std::to_string(options.shard_count);
  for (const faults::PointInfo& p : faults::AllPoints()) report.points_registered.push_back(p.name);
  std::sort(report.points_registered.begin(), report.points_registered.end());
  for (const std::string& k : ActionKindNames()) {
    if (!options.action_kinds.empty() &&
        std::find(options.action_kinds.begin(), options.action_kinds.end(), k) ==
            options.action_kinds.end())
      report.actions_filtered.push_back(k);
  }
  return report;
}

// A schedule scenario's exploration through a worker's pipe: as a report of that one scenario
// (reports/report_json.h, what `report merge` reads back exactly).
nlohmann::json ExplorationToJson(ScenarioExploration e) {
  reports::Report r;
  r.scenarios.push_back(std::move(e.report));
  r.violations = std::move(e.violations);
  return nlohmann::json{{"report", reports::ToJson(r)}};
}

ScenarioExploration ExplorationFromJson(const nlohmann::json& j) {
  Result<reports::Report> r = reports::FromJson(j.at("report").get<std::string>());
  SF_CHECK(r.ok() && r->scenarios.size() == 1);  // written by ExplorationToJson above
  return {std::move(r->scenarios[0]), std::move(r->violations)};
}

// With --jobs 2 or more, each schedule scenario is explored in a worker of its own from the start,
// beside the variants' pools, and collected at its place in the report. Its search is sequential
// (PCT's step estimate learns from the runs before), so explored in turn it left the second core
// idle for its whole length (interactive-flow: 13 s of the 43 s of `explore --all --depth 1`).
// Started after the fault-free runs: a variant that breaks without faults returns before.
std::map<size_t, std::unique_ptr<BackgroundJob>> StartScheduleScenarios(
    const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>& scenarios,
    const ExploreOptions& options) {
  std::map<size_t, std::unique_ptr<BackgroundJob>> beside;
  if (options.jobs <= 1 || Interrupted()) return beside;
  for (size_t k = 0; k < scenarios.size(); ++k) {
    const scenarios::ScheduleScenario* several = scenarios[k]->AsScheduleScenario();
    if (several == nullptr) continue;
    beside[k] = std::make_unique<BackgroundJob>([&options, several] {
      return ExplorationToJson(ExploreScheduleScenario(*several, options));
    });
  }
  return beside;
}

// Appends the exploration of `several` by schedules: the answer of its job when it ran beside
// (`beside`), else explored now; not explored after an interrupt.
void AppendSchedules(const scenarios::ScheduleScenario& several, BackgroundJob* beside,
                     const ExploreOptions& options,
                     const std::function<void(const std::string&)>& starting,
                     reports::Report* report) {
  std::optional<nlohmann::json> answer;
  if (beside != nullptr) {
    answer = beside->Finish([&](const std::string& how) {
      return ExplorationToJson(ScheduleExplorationDied(several, options, how));
    });
  }
  if (Interrupted()) {
    report->scenarios.push_back(NotExplored(several, several.name(), ""));
    return;
  }
  starting(several.name());
  if (answer.has_value()) {
    AppendScheduleExploration(ExplorationFromJson(*answer), report);
  } else {
    AppendScheduleExploration(several, options, report);
  }
}

}  // namespace

reports::Report Explore(
    const std::vector<std::shared_ptr<const scenarios::ScenarioInfo>>& scenarios,
    const ExploreOptions& options, const std::string& command, std::string* fault_free_failure) {
  reports::Report report = ReportHead(options, command);
  // Every variant's fault-free run first: one that already breaks an invariant is no
  // crash-consistency finding, and exploring under faults would only blame its failure on them.
  std::vector<std::vector<std::string>> signatures(scenarios.size());
  for (size_t k = 0; k < scenarios.size(); ++k) {
    if (scenarios[k]->AsLifeScenario() == nullptr) continue;  // schedules: no fault-free life
    const scenarios::Scenario& s = *scenarios[k]->AsLifeScenario();
    for (const Variant& v : VariantsOf(s, options)) {
      ExploreOptions o = options;
      o.config.params = v.params;
      o.config.checkpoint_store = v.store;
      const Execution ex = RunPlan(s, faults::Plan{}, o.config);
      signatures[k].push_back(Signature(ex));
      if (ex.violations.empty()) continue;
      o.depth = 0;  // the fault-free run recorded, nothing under faults
      ScenarioExploration e = ExploreScenario(s, o);
      e.report.name = NameOf(s, v);
      e.report.variant = v.label;
      report.runs = e.report.runs;
      report.lives = e.report.lives;
      report.scenarios = {std::move(e.report)};
      for (auto& x : e.violations) {
        x.scenario = NameOf(s, v);
        report.violations.push_back(std::move(x));
      }
      if (fault_free_failure != nullptr) *fault_free_failure = NameOf(s, v);
      reports::Canonicalize(&report);
      return report;
    }
  }
  // How many variants will run (a schedule scenario is one; an indistinct variant none), so the
  // display can count the whole run.
  int64_t to_run = 0, started = 0;
  for (size_t k = 0; k < scenarios.size(); ++k) {
    if (scenarios[k]->AsScheduleScenario() != nullptr) {
      ++to_run;
      continue;
    }
    std::set<std::string> distinct(signatures[k].begin(), signatures[k].end());
    to_run += static_cast<int64_t>(distinct.size());
  }
  auto starting = [&](const std::string& name) {
    if (options.variant) options.variant(started++, to_run, name);
  };
  std::map<size_t, std::unique_ptr<BackgroundJob>> beside =
      StartScheduleScenarios(scenarios, options);
  for (size_t k = 0; k < scenarios.size(); ++k) {
    if (const scenarios::ScheduleScenario* several = scenarios[k]->AsScheduleScenario()) {
      AppendSchedules(*several, beside.count(k) > 0 ? beside[k].get() : nullptr, options, starting,
                      &report);
      continue;
    }
    const scenarios::Scenario* s = scenarios[k]->AsLifeScenario();
    std::vector<std::pair<std::string, Variant>> seen;  // signature, variant
    size_t index = 0;
    for (const Variant& v : VariantsOf(*s, options)) {
      ExploreOptions o = options;
      o.config.params = v.params;
      o.config.checkpoint_store = v.store;
      const std::string name = NameOf(*s, v);
      const std::string sig = signatures[k][index++];
      auto same =
          std::find_if(seen.begin(), seen.end(), [&](const auto& x) { return x.first == sig; });
      if (same != seen.end()) {
        reports::ScenarioReport rep;
        rep.name = name;
        rep.variant = v.label;
        rep.description = s->description();
        // Two SQLite journal modes with the same parameters: the modes behave alike here (the
        // earliest match is the file store's variant when the host ignores the store, so that
        // case keeps the host's reason); else the host ignores the parameter.
        const bool store_only =
            same->second.params == v.params && same->second.store != v.store &&
            FindCheckpointStoreKind(same->second.store)->sqlite_journal_mode != nullptr;
        rep.skipped = "indistinct: its fault-free run is identical to '" +
                      NameOf(*s, same->second) +
                      (store_only ? "' (the two stores write the same files at the same windows "
                                    "in this scenario on this build)"
                                  : "' (the host ignores this variant on this build)");
        report.scenarios.push_back(std::move(rep));
        continue;
      }
      seen.push_back({sig, v});
      if (Interrupted()) {
        report.scenarios.push_back(NotExplored(*s, name, v.label));
        continue;
      }
      starting(name);
      ScenarioExploration e = ExploreScenario(*s, o);
      e.report.name = name;
      e.report.variant = v.label;
      report.runs += e.report.runs;
      report.lives += e.report.lives;
      report.scenarios.push_back(std::move(e.report));
      for (auto& x : e.violations) {
        x.scenario = name;
        report.violations.push_back(std::move(x));
      }
    }
  }
  if (Interrupted()) report.interrupted = InterruptSignalName();
  reports::Canonicalize(&report);
  return report;
}

}  // namespace stepfault::properties
