// The mutant table and the hunt.
#include "properties/mutants.h"

#include <algorithm>
#include <map>

#include "faults/plan.h"
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
      {"engine:fan-in-aliasing", {kInvAlo, kInvAtomic}},
      {"engine:requests-not-reemitted", {kInvReqid}},
      {"engine:stale-responses-kept", {kInvReqid, kInvAtomic}},
      {"engine:parent-link-empty", {kInvAncestry}},
      {"engine:fan-in-state-not-checkpointed", {kInvAlo}},
      {"engine:watcher-cancel-ends-run", {kInvObserver}},
      {"store:prune-on-read", {kInvAncestry}},
      {"store:in-place-checkpoint-write", {kInvCorrupt, kInvAncestry}},
      {"host:effect-without-unique-key", {kInvIdem}},
      {"host:receipt-before-request", {kInvReqid}},
      {"host:receipt-in-place", {kInvReceipt}},
      {"host:receipt-no-dir-sync", {kInvReceipt}},
      {"host:decision-sent-before-persisted", {kInvDecision}},
      {"host:duplicate-response-resumes-twice", {kInvReqid}},
      {"host:boundary-checkpoint-too-early", {kInvNoreplay}},
  };
  auto it = table.find(mutant);
  return it == table.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace

const std::vector<Mutant>& AllMutants() {
  static const auto* list = [] {
    auto* v = new std::vector<Mutant>();
    for (const HazardInfo& h : EngineHazards()) {
      const std::string name = h.name;
      v->push_back({"engine:" + name, h.meaning,
                    [name](RunConfig* c) {
                      SF_CHECK(c->profile.Enable(name).ok());
                      // Non-bijective matching is a refinement of EdgeId-blind matching.
                      if (name == "non-bijective-edge-matching")
                        c->profile.edge_id_blind_matching = true;
                    },
                    ExpectedFor("engine:" + name)});
    }
    v->push_back(
        {"store:prune-on-read", "the store prunes a checkpoint's ancestry when it is read (#7796)",
         [](RunConfig* c) { c->store.prune_on_read = true; }, ExpectedFor("store:prune-on-read")});
    v->push_back({"store:in-place-checkpoint-write",
                  "the file store writes the index line first and the checkpoint in place, no "
                  "fsync, no rename",
                  [](RunConfig* c) { c->store.in_place_write = true; },
                  ExpectedFor("store:in-place-checkpoint-write")});
    v->push_back({"host:effect-without-unique-key", "the business effect has no unique key",
                  [](RunConfig* c) { c->hazards.effect_without_unique_key = true; },
                  ExpectedFor("host:effect-without-unique-key")});
    v->push_back({"host:receipt-before-request",
                  "the waiting receipt names the checkpoint before the request",
                  [](RunConfig* c) { c->hazards.receipt_before_request = true; },
                  ExpectedFor("host:receipt-before-request")});
    v->push_back({"host:receipt-in-place",
                  "waiting.json is written in place, without temp file and rename",
                  [](RunConfig* c) { c->hazards.receipt_in_place = true; },
                  ExpectedFor("host:receipt-in-place")});
    v->push_back({"host:receipt-no-dir-sync",
                  "no directory fsync after renaming waiting.json into place",
                  [](RunConfig* c) { c->hazards.receipt_no_dir_sync = true; },
                  ExpectedFor("host:receipt-no-dir-sync")});
    v->push_back({"host:decision-sent-before-persisted",
                  "the decision reaches the engine before it is stored",
                  [](RunConfig* c) { c->hazards.decision_sent_before_persisted = true; },
                  ExpectedFor("host:decision-sent-before-persisted")});
    v->push_back({"host:duplicate-response-resumes-twice",
                  "a duplicate response resumes the run again",
                  [](RunConfig* c) { c->hazards.duplicate_response_resumes_twice = true; },
                  ExpectedFor("host:duplicate-response-resumes-twice")});
    v->push_back({"host:boundary-checkpoint-too-early",
                  "the boundary checkpoint is selected before the boundary completed",
                  [](RunConfig* c) { c->hazards.boundary_checkpoint_too_early = true; },
                  ExpectedFor("host:boundary-checkpoint-too-early")});
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
        // Prefer a violation of an expected invariant when there is one.
        for (const auto& v : e.violations) {
          if (std::find(m.expected.begin(), m.expected.end(), v.invariant) != m.expected.end() &&
              std::find(m.expected.begin(), m.expected.end(), best->invariant) ==
                  m.expected.end()) {
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
    r.expected = m.expected;
    const bool as_expected =
        std::find(m.expected.begin(), m.expected.end(), r.invariant) != m.expected.end();
    r.verdict = !r.killed ? "survived" : as_expected ? "killed-as-expected" : "killed-by-another";
    results.push_back(std::move(r));
    if (progress) progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(chosen.size()));
  }
  return results;
}

}  // namespace stepfault::properties
