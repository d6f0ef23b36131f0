// The mutant table and the hunt.
#include "properties/mutants.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "faults/blackbox/crash_catalogue.h"
#include "faults/plan.h"
#include "properties/explore_flow.h"
#include "properties/life_runner.h"
#include "properties/worker_pool.h"
#include "reports/shell_quote.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::properties {

namespace {

// The invariants each mutant breaks by design (what a reader expects to see kill it).
std::vector<std::string> ExpectedFor(const std::string& mutant) {
  using namespace scenarios;  // the kInv* ids
  static const std::map<std::string, std::vector<std::string>> table = {
      {"engine:edge-id-blind-matching", {kInvTopology}},
      {"engine:non-bijective-edge-matching", {kInvTopology}},
      {"engine:ownership-before-validation", {kInvTopology}},
      {"engine:non-atomic-restore", {kInvAtomic}},
      {"engine:step-numbers-restart", {kInvAncestry}},
      // The stored checkpoint changes under the live fan-in object: "stored checkpoints never
      // change" (INV-ANCESTRY) is the direct statement; lost or doubled deliveries follow.
      {"engine:fan-in-aliasing", {kInvAncestry, kInvAlo, kInvAtomic}},
      {"engine:requests-not-reemitted", {kInvReqid}},
      {"engine:stale-responses-kept", {kInvReqid, kInvAtomic}},
      {"engine:parent-link-empty", {kInvAncestry}},
      {"engine:fan-in-state-not-checkpointed", {kInvAlo}},
      {"engine:port-response-sent-wrapped", {kInvAlo}},
      {"engine:watcher-cancel-ends-run", {kInvObserver}},
      // Stepfault's own checkpoint machinery (issue 29): a stored or restored checkpoint that is
      // not what the engine exported (INV-ANCESTRY, checkpoint_reference.h) is the direct
      // statement; the wrong counts a restore then runs on are INV-EXPECT's.
      {"engine:delta-from-wrong-base", {kInvAncestry}},
      {"engine:delta-chain-newest-first", {kInvAncestry, kInvExpect}},
      {"engine:cow-scope-shared-too-long", {kInvAncestry, kInvExpect}},
      {"store:prune-on-read", {kInvAncestry}},
      {"store:in-place-checkpoint-write", {kInvCorrupt, kInvAncestry}},
      // The black-box crash model's own hazards: the catalogue of crash states disagrees.
      {"blackbox:rename-durable-without-dir-fsync", {kInvBbModel}},
      {"blackbox:unlink-durable-without-dir-fsync", {kInvBbModel}},
      {"blackbox:create-durable-without-dir-fsync", {kInvBbModel}},
  };
  auto it = table.find(mutant);
  if (it != table.end()) return it->second;
  return {};
}

}  // namespace

const std::vector<Mutant>& AllMutants() {
  static const auto* list = [] {
    auto* v = new std::vector<Mutant>();
    for (const HazardInfo& h : EngineHazards()) {
      const std::string name = h.name;
      // Non-bijective matching refines EdgeId-blind matching (the engine switches the blind rule
      // on with it): only a kill blind matching alone survives counts.
      v->push_back({"engine:" + name, h.meaning,
                    [name](RunConfig* c) { SF_CHECK(c->profile.Enable(name).ok()); },
                    ExpectedFor("engine:" + name),
                    name == "non-bijective-edge-matching" ? "engine:edge-id-blind-matching" : ""});
    }
    v->push_back(
        {"store:prune-on-read", "the store prunes a checkpoint's ancestry when it is read (#7796)",
         [](RunConfig* c) { c->store.prune_on_read = true; }, ExpectedFor("store:prune-on-read")});
    v->push_back({"store:in-place-checkpoint-write",
                  "the file store writes the index line first and the checkpoint in place, no "
                  "fsync, no rename",
                  [](RunConfig* c) { c->store.in_place_write = true; },
                  ExpectedFor("store:in-place-checkpoint-write")});
    // The crash model of black-box mode: its builder's hazards, hunted by its catalogue.
    for (const faults::blackbox::CrashModelHazard& h : faults::blackbox::CrashModelHazards()) {
      Mutant m{"blackbox:" + h.name, h.meaning, nullptr, ExpectedFor("blackbox:" + h.name)};
      m.crash_model_hazard = h.name;
      v->push_back(std::move(m));
    }
    // The host mistakes: each scenario declares its own (Scenario::host_hazards()); one mutant per
    // name, in registry order, the first declaration's meaning.
    std::set<std::string> seen;
    for (const auto& scenario : scenarios::AllScenarios()) {
      const bool by_schedules = scenario->AsScheduleScenario() != nullptr;
      for (const scenarios::HostHazard& h : scenario->host_hazards()) {
        if (!seen.insert(h.name).second) continue;
        const std::string name = h.name;
        v->push_back({"host:" + name, h.meaning, [name](RunConfig* c) { c->hazards.insert(name); },
                      h.expected, "", by_schedules});
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
    if (!m.crash_model_hazard.empty()) continue;  // no run config carries it
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

namespace {

const Mutant* FindMutant(const std::string& name) {
  for (const Mutant& m : AllMutants()) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

// For a refinement: drops the violations whose plan breaks the same invariant under the base
// mutant alone (replayed with RunPlan), keeping the ones that are the refinement's own.
// `unmutated` is the hunt's configuration before any mutant was applied.
void KeepOwnKills(const Mutant& m, const scenarios::Scenario& s, const RunConfig& unmutated,
                  std::vector<reports::Violation>* violations) {
  const Mutant* base_mutant = FindMutant(m.refines);
  SF_CHECK(base_mutant != nullptr);
  RunConfig base_config = unmutated;
  base_mutant->apply(&base_config);
  std::vector<reports::Violation> own;
  for (const reports::Violation& v : *violations) {
    auto plan = faults::ParsePlan(v.plan);
    SF_CHECK(plan.ok());
    bool base_breaks = false;
    for (const scenarios::Violation& b : RunPlan(s, *plan, base_config).violations) {
      base_breaks = base_breaks || b.invariant == v.invariant;
    }
    if (!base_breaks) own.push_back(v);
  }
  *violations = std::move(own);
}

void SetVerdict(const Mutant& m, reports::MutantResult* r) {
  r->expected = m.expected;
  const bool as_expected =
      std::find(m.expected.begin(), m.expected.end(), r->invariant) != m.expected.end();
  r->verdict = !r->killed ? "survived" : as_expected ? "killed-as-expected" : "killed-by-another";
}

// A crash-model mutant's hunt: the embedded crash-state catalogue with the hazard on. Both the
// hazard name and the catalogue are the library's own (tested), so a failure is a harness bug.
reports::MutantResult HuntByCatalogue(const Mutant& m) {
  namespace bb = faults::blackbox;
  reports::MutantResult r;
  r.name = m.name;
  r.description = m.description;
  bb::CrashModelOptions options;
  SF_CHECK(options.Enable(m.crash_model_hazard).ok());
  Result<std::vector<bb::CatalogueEntry>> entries = bb::ParseCatalogue(bb::CrashCatalogueText());
  SF_CHECK(entries.ok() && "the embedded crash-state catalogue does not parse");
  Result<bb::CatalogueRun> run = bb::RunCatalogue(*entries, bb::BuilderWith(options));
  SF_CHECK(run.ok() && "an entry of the embedded crash-state catalogue does not parse");
  if (!run->disagreements.empty()) {
    const bb::CatalogueDisagreement& first = run->disagreements.front();
    r.killed = true;
    r.scenario = "crash-catalogue";
    r.invariant = scenarios::kInvBbModel;
    r.plan = first.entry;
    r.replay = "stepfault blackbox conformance --hazard " + m.crash_model_hazard + " --entry " +
               first.entry;
  }
  SetVerdict(m, &r);
  return r;
}

// One mutant's hunt: depth 1 stopping at the first violation (a refinement explores the whole
// scenario, since its first violations may be its base's), then depth 2, over every built-in
// scenario; in one process (jobs = 1: the parallelism is across mutants).
reports::MutantResult HuntMutant(const Mutant& m, const ExploreOptions& base) {
  if (m.by_schedules) {
    SF_CHECK(m.expected.size() == 1);
    return HuntScheduleMutant(m.name, m.description, m.expected[0], base.config.seed,
                              kFlowMutantSchedules);
  }
  if (!m.crash_model_hazard.empty()) return HuntByCatalogue(m);
  reports::MutantResult r;
  r.name = m.name;
  r.description = m.description;
  for (int depth = 1; depth <= 2 && !r.killed; ++depth) {
    ExploreOptions o = base;
    m.apply(&o.config);
    o.stop_at_first_violation = depth == 1 && m.refines.empty();
    o.depth = depth;
    o.jobs = 1;
    o.progress = nullptr;
    for (const auto& s : scenarios::BuiltinScenarios()) {
      ScenarioExploration e = ExploreScenario(*s, o);
      if (!m.refines.empty()) KeepOwnKills(m, *s, base.config, &e.violations);
      if (e.violations.empty()) continue;
      // The smallest plan among the violations found.
      const reports::Violation* best = &e.violations.front();
      for (const auto& v : e.violations) {
        if (reports::SmallerPlan(v.plan, best->plan)) best = &v;
      }
      // Prefer a violation of an expected invariant when there is one.
      for (const auto& v : e.violations) {
        if (std::find(m.expected.begin(), m.expected.end(), v.invariant) != m.expected.end() &&
            std::find(m.expected.begin(), m.expected.end(), best->invariant) == m.expected.end()) {
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
  SetVerdict(m, &r);
  return r;
}

Json ResultToJson(const reports::MutantResult& r) {
  return Json{{"name", r.name},      {"description", r.description}, {"scenario", r.scenario},
              {"killed", r.killed},  {"invariant", r.invariant},     {"plan", r.plan},
              {"replay", r.replay},  {"expected", r.expected},       {"verdict", r.verdict},
              {"message", r.message}};
}

reports::MutantResult ResultFromJson(const Json& j) {
  reports::MutantResult r;
  r.name = j.at("name").get<std::string>();
  r.description = j.at("description").get<std::string>();
  r.scenario = j.at("scenario").get<std::string>();
  r.killed = j.at("killed").get<bool>();
  r.invariant = j.at("invariant").get<std::string>();
  r.plan = j.at("plan").get<std::string>();
  r.replay = j.at("replay").get<std::string>();
  r.expected = j.at("expected").get<std::vector<std::string>>();
  r.verdict = j.at("verdict").get<std::string>();
  r.message = j.at("message").get<std::string>();
  return r;
}

// The result of a mutant whose hunting worker died: no kill, and the harness failed (verdict
// harness-failed), naming the mutant and the death.
reports::MutantResult HarnessFailure(const Mutant& m, const std::string& how) {
  reports::MutantResult r;
  r.name = m.name;
  r.description = m.description;
  r.expected = m.expected;
  r.invariant = scenarios::kInvHarness;
  r.message =
      "the worker hunting mutant '" + m.name + "' " + how + " (an abort, SF_CHECK or signal)";
  r.replay = "stepfault mutants --only " + reports::ShellQuote(m.name) + " --out mutant-replay";
  r.verdict = "harness-failed";
  return r;
}

}  // namespace

std::vector<reports::MutantResult> RunMutants(
    const ExploreOptions& base, const std::vector<std::string>& only,
    const std::function<void(int64_t, int64_t)>& progress) {
  std::vector<const Mutant*> chosen;
  for (const Mutant& m : AllMutants()) {
    if (only.empty() || std::find(only.begin(), only.end(), m.name) != only.end())
      chosen.push_back(&m);
  }
  return HuntMutants(chosen, base, progress);
}

std::vector<reports::MutantResult> HuntMutants(
    const std::vector<const Mutant*>& chosen, const ExploreOptions& base,
    const std::function<void(int64_t, int64_t)>& progress) {
  // --jobs N: N worker processes hunt different mutants (each hunt is sequential: it stops at the
  // first violation). Results land by index, so the outcome never depends on the job count.
  const auto total = static_cast<int64_t>(chosen.size());
  PoolOptions options;
  options.jobs = base.jobs;
  options.progress = [&](int64_t done) {
    if (progress) progress(done, total);
  };
  options.on_death = [&](size_t i, const std::string& how) {
    return ResultToJson(HarnessFailure(*chosen[i], how));
  };
  const std::vector<std::optional<Json>> answers = RunPool(
      AllIndices(chosen.size()),
      [&](size_t i) { return ResultToJson(HuntMutant(*chosen[i], base)); }, options);
  std::vector<reports::MutantResult> results;
  for (const std::optional<Json>& answer : answers) {
    // The hunt runs with the default disposition of SIGINT (interrupt.h): nothing asks it to stop.
    SF_CHECK(answer.has_value() && "the mutant hunt was interrupted");
    results.push_back(ResultFromJson(*answer));
  }
  return results;
}

std::vector<reports::MutantResult> RunFlowScheduleMutants(int schedules) {
  std::vector<reports::MutantResult> out;
  for (const Mutant& m : AllMutants()) {
    if (!m.by_schedules) continue;
    SF_CHECK(m.expected.size() == 1);
    out.push_back(HuntScheduleMutant(m.name, m.description, m.expected[0], /*seed=*/1, schedules));
  }
  return out;
}

}  // namespace stepfault::properties
