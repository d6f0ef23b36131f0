// The mutant table and the hunt.
#include "properties/mutants.h"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <optional>
#include <set>

#include "faults/blackbox/crash_catalogue.h"
#include "faults/plan.h"
#include "properties/explore_flow.h"
#include "properties/life_runner.h"
#include "scenarios/interactive_flow/flow_hazards.h"
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
      {"host:effect-without-unique-key", {kInvIdem}},
      {"host:receipt-before-request", {kInvReqid}},
      {"host:receipt-in-place", {kInvReceipt}},
      {"host:receipt-no-dir-sync", {kInvReceipt}},
      {"host:decision-sent-before-persisted", {kInvDecision}},
      {"host:duplicate-response-resumes-twice", {kInvReqid}},
      {"host:boundary-checkpoint-too-early", {kInvNoreplay}},
      // The black-box crash model's own hazards: the catalogue of crash states disagrees.
      {"blackbox:rename-durable-without-dir-fsync", {kInvBbModel}},
      {"blackbox:unlink-durable-without-dir-fsync", {kInvBbModel}},
      {"blackbox:create-durable-without-dir-fsync", {kInvBbModel}},
  };
  auto it = table.find(mutant);
  if (it != table.end()) return it->second;
  // The flow hazards declare their own (scenarios/interactive_flow/flow_hazards.h).
  for (const auto& h : scenarios::flow::FlowHazards()) {
    if (mutant == std::string("host:") + h.name) return {h.expected_invariant};
  }
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
                      ExpectedFor("host:" + name), "", by_schedules});
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

Json ResultToJson(size_t index, const reports::MutantResult& r) {
  return Json{{"i", index},
              {"name", r.name},
              {"description", r.description},
              {"scenario", r.scenario},
              {"killed", r.killed},
              {"invariant", r.invariant},
              {"plan", r.plan},
              {"replay", r.replay},
              {"expected", r.expected},
              {"verdict", r.verdict}};
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
  return r;
}

// Forks `workers` processes; worker k hunts mutants k, k + workers, ... and writes one JSON line
// per result to its pipe. Results land by index, so the outcome never depends on the job count.
std::vector<reports::MutantResult> HuntInWorkers(
    const std::vector<const Mutant*>& chosen, const ExploreOptions& base, int workers,
    const std::function<void(int64_t, int64_t)>& progress) {
  std::fflush(nullptr);
  std::vector<std::pair<pid_t, int>> children;
  for (int k = 0; k < workers; ++k) {
    int fds[2];
    SF_CHECK(::pipe(fds) == 0);
    const pid_t pid = ::fork();
    SF_CHECK(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      for (size_t i = static_cast<size_t>(k); i < chosen.size(); i += workers) {
        const std::string line = ResultToJson(i, HuntMutant(*chosen[i], base)).dump() + "\n";
        for (size_t off = 0; off < line.size();) {
          const ssize_t n = ::write(fds[1], line.data() + off, line.size() - off);
          if (n <= 0) ::_exit(3);
          off += static_cast<size_t>(n);
        }
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    children.emplace_back(pid, fds[0]);
  }
  std::vector<std::optional<reports::MutantResult>> slots(chosen.size());
  std::vector<std::string> pending(children.size());
  int64_t done = 0;
  std::vector<pollfd> polls;
  for (const auto& c : children) polls.push_back(pollfd{c.second, POLLIN, 0});
  size_t open = polls.size();
  while (open > 0) {
    SF_CHECK(::poll(polls.data(), polls.size(), -1) >= 0 || errno == EINTR);
    for (size_t w = 0; w < polls.size(); ++w) {
      if (polls[w].fd < 0 || polls[w].revents == 0) continue;
      char buf[4096];
      const ssize_t n = ::read(polls[w].fd, buf, sizeof buf);
      if (n <= 0) {
        ::close(polls[w].fd);
        polls[w].fd = -1;
        --open;
        continue;
      }
      pending[w].append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = pending[w].find('\n')) != std::string::npos;) {
        const Json j = Json::parse(pending[w].substr(0, nl));
        pending[w].erase(0, nl + 1);
        slots[j.at("i").get<size_t>()] = ResultFromJson(j);
        if (progress) progress(++done, static_cast<int64_t>(chosen.size()));
      }
    }
  }
  for (const auto& c : children) {
    int status = 0;
    ::waitpid(c.first, &status, 0);
    SF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && "a mutant worker failed");
  }
  std::vector<reports::MutantResult> results;
  for (auto& slot : slots) {
    SF_CHECK(slot.has_value());
    results.push_back(std::move(*slot));
  }
  return results;
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
  // --jobs N: N worker processes hunt different mutants (each hunt is sequential: it stops at the
  // first violation).
  const int workers = static_cast<int>(std::min<size_t>(std::max(base.jobs, 1), chosen.size()));
  if (workers > 1) return HuntInWorkers(chosen, base, workers, progress);
  std::vector<reports::MutantResult> results;
  for (size_t i = 0; i < chosen.size(); ++i) {
    results.push_back(HuntMutant(*chosen[i], base));
    if (progress) progress(static_cast<int64_t>(i + 1), static_cast<int64_t>(chosen.size()));
  }
  return results;
}

std::vector<reports::MutantResult> RunFlowScheduleMutants(int schedules) {
  std::vector<reports::MutantResult> out;
  for (const auto& hazard : scenarios::flow::FlowHazards()) {
    out.push_back(HuntScheduleMutant(std::string("host:") + hazard.name, hazard.meaning,
                                     hazard.expected_invariant, /*seed=*/1, schedules));
  }
  return out;
}

}  // namespace stepfault::properties
