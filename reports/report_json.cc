// report.json writing and strict reading (see report_json.h).
#include "reports/report_json.h"

#include <fmt/format.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

#include "engine/json_text.h"

namespace stepfault::reports {
namespace {

using Json = nlohmann::json;

Json Number(double v) { return std::isnan(v) ? Json(nullptr) : Json(v); }

Json CrashStatesJson(const CrashStates& c) {
  return {{"total", c.total},
          {"distinct", c.distinct},
          {"explored", c.explored},
          {"beyond_depth", c.beyond_depth}};
}

// The derived coverage block; `report` adds what only a whole report knows (unreached points,
// filtered actions, variants).
Json CoverageJson(const Coverage& cov, const Report* report) {
  Json points = {{"reached", cov.points_reached}};
  Json actions = {{"run", cov.actions_run}};
  Json doc = {{"windows_discovered", cov.windows_total},
              {"recovery_windows", cov.recovery_windows},
              {"windows_exercised", cov.windows_exercised},
              {"cells_total", cov.cells_total},
              {"cells_exercised", cov.cells_exercised},
              {"cells_filtered", cov.cells_filtered},
              {"cells_not_run", cov.cells_not_run},
              {"cells_pct", cov.cells_pct},
              {"crash_states", CrashStatesJson(cov.crash_states)},
              {"determinism_checks", cov.determinism_checks}};
  if (report != nullptr) {
    points["registered"] = report->points_registered.size();
    points["unreached"] = cov.points_unreached;
    actions["filtered"] = report->actions_filtered;
    Json variants = Json::array();
    for (const ScenarioReport& s : report->scenarios) {
      variants.push_back({{"scenario", s.name},
                          {"variant", s.variant},
                          {"status", s.skipped.empty() ? "explored" : "skipped: " + s.skipped}});
    }
    doc["variants"] = variants;
  }
  doc["points"] = points;
  doc["actions"] = actions;
  return doc;
}

Json SchedulesJson(const ScheduleCoverage& c) {
  Json out = {{"strategy", c.strategy},
              {"pct_depth", c.pct_depth},
              {"budget", c.budget},
              {"explored", c.explored},
              {"distinct_states", c.distinct_states},
              {"states_counted_schedules", c.states_counted_schedules},
              {"distinct_final_worlds", c.distinct_final_worlds},
              {"scheduling_points", c.scheduling_points},
              {"context_switches", c.context_switches},
              {"faults_fired", c.faults_fired},
              {"windows", c.windows},
              {"window_names", c.window_names}};
  // Optional: only an exploration with a bounded exhaustive phase has it.
  if (c.bounded) {
    out["bounded"] = {{"max_preemptions", c.bounded->max_preemptions},
                      {"schedules", c.bounded->schedules},
                      {"complete", c.bounded->complete},
                      {"distinct_states", c.bounded->distinct_states},
                      {"runs_per_preemption_bound", c.bounded->runs_per_preemption_bound}};
  }
  return out;
}

Json ToJsonValue(const ScenarioReport& s) {
  Json windows = Json::array();
  for (const Window& w : s.windows) {
    windows.push_back({{"id", w.id},
                       {"point", w.point},
                       {"occurrence", w.occurrence},
                       {"business_window", w.business_window},
                       {"recovery", w.recovery}});
  }
  Json cells = Json::array();
  for (const Cell& c : s.cells) {
    cells.push_back({{"window", c.window},
                     {"action", c.action},
                     {"outcome", std::string(CellOutcomeName(c.outcome))},
                     {"runs", c.runs},
                     {"lives_max", c.lives_max},
                     {"invariants_violated", c.invariants_violated}});
  }
  Json results = Json::array();
  for (const InvariantResult& r : s.invariant_results) {
    results.push_back({{"id", r.id},
                       {"statement", r.statement},
                       {"checks", r.checks},
                       {"violations", r.violations}});
  }
  Json doc = {{"name", s.name},
              {"variant", s.variant},
              {"skipped", s.skipped},
              {"description", s.description},
              {"invariants", s.invariants},
              {"actions", s.actions},
              {"windows", windows},
              {"cells", cells},
              {"invariant_results", results},
              {"crash_states", CrashStatesJson(s.crash_states)},
              {"points_reached", s.points_reached},
              {"determinism_checks", s.determinism_checks},
              {"runs", s.runs},
              {"lives", s.lives},
              {"coverage", CoverageJson(ComputeCoverage(s), nullptr)}};
  // Optional: only scenarios explored by schedules have it.
  if (s.schedules) doc["schedules"] = SchedulesJson(*s.schedules);
  return doc;
}

// ---- Reading: every accessor names the JSON pointer of what it rejects. ----

Status Bad(const std::string& path, std::string_view reason) {
  return Status::InvalidArgument(fmt::format("{}: {}", path.empty() ? "/" : path, reason));
}

std::string Child(const std::string& path, std::string_view key) {
  return fmt::format("{}/{}", path, key);
}

// Checks `j` is an object with exactly the members `keys`.
Status CheckObject(const Json& j, const std::string& path,
                   std::initializer_list<const char*> keys) {
  if (!j.is_object()) return Bad(path, "expected an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool known = false;
    for (const char* k : keys) known |= it.key() == k;
    if (!known)
      return Bad(Child(path, it.key()),
                 fmt::format("unknown member (schema_version {} has no such field)",
                             kReportSchemaVersion));
  }
  for (const char* k : keys) {
    if (!j.contains(k)) return Bad(Child(path, k), "missing required member");
  }
  return Status::Ok();
}

Status GetString(const Json& o, const std::string& path, const char* key, std::string* out) {
  const Json& v = o.at(key);
  if (!v.is_string()) return Bad(Child(path, key), "expected a string");
  *out = v.get<std::string>();
  return Status::Ok();
}

Status GetInt64(const Json& o, const std::string& path, const char* key, int64_t* out) {
  const Json& v = o.at(key);
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{std::numeric_limits<int64_t>::max()}) {
    return Bad(Child(path, key), "integer out of range");
  }
  if (!v.is_number_integer()) return Bad(Child(path, key), "expected an integer");
  *out = v.get<int64_t>();
  if (*out < 0) return Bad(Child(path, key), "expected a non-negative integer");
  return Status::Ok();
}

Status GetInt(const Json& o, const std::string& path, const char* key, int* out) {
  int64_t v = 0;
  SF_RETURN_IF_ERROR(GetInt64(o, path, key, &v));
  if (v > std::numeric_limits<int>::max()) return Bad(Child(path, key), "integer out of range");
  *out = static_cast<int>(v);
  return Status::Ok();
}

Status GetUint64(const Json& o, const std::string& path, const char* key, uint64_t* out) {
  const Json& v = o.at(key);
  if (!v.is_number_unsigned()) return Bad(Child(path, key), "expected a non-negative integer");
  *out = v.get<uint64_t>();
  return Status::Ok();
}

Status GetDouble(const Json& o, const std::string& path, const char* key, bool nullable,
                 double* out) {
  const Json& v = o.at(key);
  if (nullable && v.is_null()) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return Status::Ok();
  }
  if (!v.is_number())
    return Bad(Child(path, key), nullable ? "expected a number or null" : "expected a number");
  *out = v.get<double>();
  return Status::Ok();
}

Status GetBool(const Json& o, const std::string& path, const char* key, bool* out) {
  const Json& v = o.at(key);
  if (!v.is_boolean()) return Bad(Child(path, key), "expected true or false");
  *out = v.get<bool>();
  return Status::Ok();
}

Status GetStrings(const Json& o, const std::string& path, const char* key,
                  std::vector<std::string>* out) {
  const Json& v = o.at(key);
  std::string p = Child(path, key);
  if (!v.is_array()) return Bad(p, "expected an array of strings");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) return Bad(Child(p, std::to_string(i)), "expected a string");
    out->push_back(v[i].get<std::string>());
  }
  return Status::Ok();
}

// Reads the array o[key], calling read(element, element_path, &out_element) for each element.
template <typename T, typename ReadFn>
Status GetArray(const Json& o, const std::string& path, const char* key, std::vector<T>* out,
                ReadFn read) {
  const Json& v = o.at(key);
  std::string p = Child(path, key);
  if (!v.is_array()) return Bad(p, "expected an array");
  out->clear();
  for (size_t i = 0; i < v.size(); ++i) {
    T item{};
    SF_RETURN_IF_ERROR(read(v[i], Child(p, std::to_string(i)), &item));
    out->push_back(std::move(item));
  }
  return Status::Ok();
}

Status ReadWindow(const Json& j, const std::string& p, Window* w) {
  SF_RETURN_IF_ERROR(
      CheckObject(j, p, {"id", "point", "occurrence", "business_window", "recovery"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "id", &w->id));
  SF_RETURN_IF_ERROR(GetString(j, p, "point", &w->point));
  SF_RETURN_IF_ERROR(GetInt(j, p, "occurrence", &w->occurrence));
  SF_RETURN_IF_ERROR(GetString(j, p, "business_window", &w->business_window));
  return GetBool(j, p, "recovery", &w->recovery);
}

Status ReadCrashStates(const Json& o, const std::string& path, const char* key, CrashStates* c) {
  const Json& j = o.at(key);
  const std::string p = Child(path, key);
  SF_RETURN_IF_ERROR(CheckObject(j, p, {"total", "distinct", "explored", "beyond_depth"}));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "total", &c->total));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "distinct", &c->distinct));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "explored", &c->explored));
  return GetInt64(j, p, "beyond_depth", &c->beyond_depth);
}

Status ReadCell(const Json& j, const std::string& p, Cell* c) {
  SF_RETURN_IF_ERROR(CheckObject(
      j, p, {"window", "action", "outcome", "runs", "lives_max", "invariants_violated"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "window", &c->window));
  SF_RETURN_IF_ERROR(GetString(j, p, "action", &c->action));
  std::string outcome;
  SF_RETURN_IF_ERROR(GetString(j, p, "outcome", &outcome));
  std::optional<CellOutcome> parsed = ParseCellOutcome(outcome);
  if (!parsed)
    return Bad(Child(p, "outcome"), "expected one of pass|violation|n/a|not-run|filtered");
  c->outcome = *parsed;
  SF_RETURN_IF_ERROR(GetInt64(j, p, "runs", &c->runs));
  SF_RETURN_IF_ERROR(GetInt(j, p, "lives_max", &c->lives_max));
  return GetStrings(j, p, "invariants_violated", &c->invariants_violated);
}

Status ReadInvariantResult(const Json& j, const std::string& p, InvariantResult* r) {
  SF_RETURN_IF_ERROR(CheckObject(j, p, {"id", "statement", "checks", "violations"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "id", &r->id));
  SF_RETURN_IF_ERROR(GetString(j, p, "statement", &r->statement));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "checks", &r->checks));
  return GetInt64(j, p, "violations", &r->violations);
}

// The coverage block is derived from the rest; reading checks its shape only.
Status CheckCoverage(const Json& j, const std::string& p, bool whole_report) {
  if (whole_report) {
    SF_RETURN_IF_ERROR(
        CheckObject(j, p,
                    {"windows_discovered", "recovery_windows", "windows_exercised", "cells_total",
                     "cells_exercised", "cells_filtered", "cells_not_run", "cells_pct",
                     "crash_states", "determinism_checks", "variants", "points", "actions"}));
  } else {
    SF_RETURN_IF_ERROR(
        CheckObject(j, p,
                    {"windows_discovered", "recovery_windows", "windows_exercised", "cells_total",
                     "cells_exercised", "cells_filtered", "cells_not_run", "cells_pct",
                     "crash_states", "determinism_checks", "points", "actions"}));
  }
  CrashStates ignored;
  return ReadCrashStates(j, p, "crash_states", &ignored);
}

Status ReadBoundedPhase(const Json& j, const std::string& p, BoundedPhase* b) {
  SF_RETURN_IF_ERROR(CheckObject(j, p,
                                 {"max_preemptions", "schedules", "complete", "distinct_states",
                                  "runs_per_preemption_bound"}));
  SF_RETURN_IF_ERROR(GetInt(j, p, "max_preemptions", &b->max_preemptions));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "schedules", &b->schedules));
  SF_RETURN_IF_ERROR(GetBool(j, p, "complete", &b->complete));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "distinct_states", &b->distinct_states));
  return GetArray(j, p, "runs_per_preemption_bound", &b->runs_per_preemption_bound,
                  [](const Json& v, const std::string& at, int64_t* out) {
                    if (!v.is_number_integer()) return Bad(at, "expected an integer");
                    *out = v.get<int64_t>();
                    return Status::Ok();
                  });
}

Status ReadSchedules(const Json& in, const std::string& p, ScheduleCoverage* c) {
  // "bounded" is optional (only an exploration with a bounded exhaustive phase has it).
  Json j = in;
  if (j.is_object() && j.contains("bounded")) {
    c->bounded.emplace();
    SF_RETURN_IF_ERROR(ReadBoundedPhase(j["bounded"], Child(p, "bounded"), &*c->bounded));
    j.erase("bounded");
  }
  SF_RETURN_IF_ERROR(
      CheckObject(j, p,
                  {"strategy", "pct_depth", "budget", "explored", "distinct_states",
                   "states_counted_schedules", "distinct_final_worlds", "scheduling_points",
                   "context_switches", "faults_fired", "windows", "window_names"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "strategy", &c->strategy));
  SF_RETURN_IF_ERROR(GetInt(j, p, "pct_depth", &c->pct_depth));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "budget", &c->budget));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "explored", &c->explored));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "distinct_states", &c->distinct_states));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "states_counted_schedules", &c->states_counted_schedules));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "distinct_final_worlds", &c->distinct_final_worlds));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "scheduling_points", &c->scheduling_points));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "context_switches", &c->context_switches));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "faults_fired", &c->faults_fired));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "windows", &c->windows));
  return GetStrings(j, p, "window_names", &c->window_names);
}

Status ReadScenario(const Json& in, const std::string& p, ScenarioReport* s) {
  // "schedules" is optional (version 3, scenarios explored by schedules only).
  Json j = in;
  if (j.is_object() && j.contains("schedules")) {
    s->schedules.emplace();
    SF_RETURN_IF_ERROR(ReadSchedules(j["schedules"], Child(p, "schedules"), &*s->schedules));
    j.erase("schedules");
  }
  SF_RETURN_IF_ERROR(
      CheckObject(j, p,
                  {"name", "variant", "skipped", "description", "invariants", "actions", "windows",
                   "cells", "invariant_results", "crash_states", "points_reached",
                   "determinism_checks", "runs", "lives", "coverage"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "name", &s->name));
  SF_RETURN_IF_ERROR(GetString(j, p, "variant", &s->variant));
  SF_RETURN_IF_ERROR(GetString(j, p, "skipped", &s->skipped));
  SF_RETURN_IF_ERROR(GetString(j, p, "description", &s->description));
  SF_RETURN_IF_ERROR(GetStrings(j, p, "invariants", &s->invariants));
  SF_RETURN_IF_ERROR(GetStrings(j, p, "actions", &s->actions));
  SF_RETURN_IF_ERROR(GetArray(j, p, "windows", &s->windows, ReadWindow));
  SF_RETURN_IF_ERROR(GetArray(j, p, "cells", &s->cells, ReadCell));
  SF_RETURN_IF_ERROR(
      GetArray(j, p, "invariant_results", &s->invariant_results, ReadInvariantResult));
  SF_RETURN_IF_ERROR(ReadCrashStates(j, p, "crash_states", &s->crash_states));
  SF_RETURN_IF_ERROR(GetStrings(j, p, "points_reached", &s->points_reached));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "determinism_checks", &s->determinism_checks));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "runs", &s->runs));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "lives", &s->lives));
  return CheckCoverage(j.at("coverage"), Child(p, "coverage"), false);
}

Status ReadViolation(const Json& in, const std::string& p, Violation* v) {
  // "failure" arrived with version 4; a version 2 or 3 document has none (grouped by window).
  // "holds_under" is optional (black-box reports under posix only).
  Json j = in;
  if (j.is_object() && j.contains("failure")) {
    SF_RETURN_IF_ERROR(GetString(j, p, "failure", &v->failure));
    j.erase("failure");
  }
  if (j.is_object() && j.contains("holds_under")) {
    SF_RETURN_IF_ERROR(GetStrings(j, p, "holds_under", &v->holds_under));
    j.erase("holds_under");
  }
  SF_RETURN_IF_ERROR(CheckObject(j, p,
                                 {"scenario", "invariant", "window", "action", "plan", "replay",
                                  "message", "rapidcheck_reproduce", "seed"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "scenario", &v->scenario));
  SF_RETURN_IF_ERROR(GetString(j, p, "invariant", &v->invariant));
  SF_RETURN_IF_ERROR(GetString(j, p, "window", &v->window));
  SF_RETURN_IF_ERROR(GetString(j, p, "action", &v->action));
  SF_RETURN_IF_ERROR(GetString(j, p, "plan", &v->plan));
  SF_RETURN_IF_ERROR(GetString(j, p, "replay", &v->replay));
  SF_RETURN_IF_ERROR(GetString(j, p, "message", &v->message));
  SF_RETURN_IF_ERROR(GetString(j, p, "rapidcheck_reproduce", &v->rapidcheck_reproduce));
  return GetUint64(j, p, "seed", &v->seed);
}

Status ReadProperty(const Json& j, const std::string& p, PropertyResult* r) {
  SF_RETURN_IF_ERROR(CheckObject(j, p,
                                 {"name", "scenario", "invariant", "cases", "passed", "plan",
                                  "replay", "rapidcheck_reproduce", "message"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "name", &r->name));
  SF_RETURN_IF_ERROR(GetString(j, p, "scenario", &r->scenario));
  SF_RETURN_IF_ERROR(GetString(j, p, "invariant", &r->invariant));
  SF_RETURN_IF_ERROR(GetInt64(j, p, "cases", &r->cases));
  SF_RETURN_IF_ERROR(GetBool(j, p, "passed", &r->passed));
  SF_RETURN_IF_ERROR(GetString(j, p, "plan", &r->plan));
  SF_RETURN_IF_ERROR(GetString(j, p, "replay", &r->replay));
  SF_RETURN_IF_ERROR(GetString(j, p, "rapidcheck_reproduce", &r->rapidcheck_reproduce));
  return GetString(j, p, "message", &r->message);
}

Status ReadMutant(const Json& j, const std::string& p, MutantResult* m) {
  // "expected", "verdict" and "message" are optional, so reports written before them still read.
  Json required = j;
  if (required.is_object()) {
    required.erase("expected");
    required.erase("verdict");
    required.erase("message");
  }
  SF_RETURN_IF_ERROR(CheckObject(
      required, p, {"name", "description", "scenario", "killed", "invariant", "plan", "replay"}));
  if (j.contains("expected")) {
    if (!j["expected"].is_array()) return Bad(Child(p, "expected"), "expected an array");
    for (const Json& e : j["expected"]) {
      if (!e.is_string()) return Bad(Child(p, "expected"), "expected strings");
      m->expected.push_back(e.get<std::string>());
    }
  }
  if (j.contains("verdict")) SF_RETURN_IF_ERROR(GetString(j, p, "verdict", &m->verdict));
  if (j.contains("message")) SF_RETURN_IF_ERROR(GetString(j, p, "message", &m->message));
  SF_RETURN_IF_ERROR(GetString(j, p, "name", &m->name));
  SF_RETURN_IF_ERROR(GetString(j, p, "description", &m->description));
  SF_RETURN_IF_ERROR(GetString(j, p, "scenario", &m->scenario));
  SF_RETURN_IF_ERROR(GetBool(j, p, "killed", &m->killed));
  SF_RETURN_IF_ERROR(GetString(j, p, "invariant", &m->invariant));
  SF_RETURN_IF_ERROR(GetString(j, p, "plan", &m->plan));
  return GetString(j, p, "replay", &m->replay);
}

Status ReadBench(const Json& j, const std::string& p, BenchResult* b) {
  SF_RETURN_IF_ERROR(CheckObject(j, p, {"name", "family", "median_ns", "ratio", "labels"}));
  SF_RETURN_IF_ERROR(GetString(j, p, "name", &b->name));
  SF_RETURN_IF_ERROR(GetString(j, p, "family", &b->family));
  SF_RETURN_IF_ERROR(GetDouble(j, p, "median_ns", /*nullable=*/true, &b->median_ns));
  SF_RETURN_IF_ERROR(GetDouble(j, p, "ratio", /*nullable=*/true, &b->ratio));
  const Json& labels = j.at("labels");
  std::string lp = Child(p, "labels");
  if (!labels.is_object()) return Bad(lp, "expected an object of strings");
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (!it->is_string()) return Bad(Child(lp, it.key()), "expected a string");
    b->labels[it.key()] = it->get<std::string>();
  }
  return Status::Ok();
}

Json MutantToJson(const MutantResult& m) {
  Json j{{"name", m.name},     {"description", m.description}, {"scenario", m.scenario},
         {"killed", m.killed}, {"invariant", m.invariant},     {"plan", m.plan},
         {"replay", m.replay}};
  // Optional: absent when unknown (reports of older hunts stay byte-identical).
  if (!m.expected.empty()) j["expected"] = m.expected;
  if (!m.verdict.empty()) j["verdict"] = m.verdict;
  if (!m.message.empty()) j["message"] = m.message;
  return j;
}

// The canonical text of a document: 2-space indent, keys sorted. Invalid UTF-8 is replaced rather
// than aborting: report text may quote arbitrary bytes.
std::string Dump(const Json& j) { return j.dump(2, ' ', false, Json::error_handler_t::replace); }

// Fills the empty top-level "scenarios" array of `text` (Dump of the whole document) with the
// scenarios, each built as a tree and dumped on its own: the same bytes as dumping the document
// with them in it, without holding every scenario as one tree (a report of every scenario is ~50 MB
// as text and several times that as a tree: the peak of a whole `explore --all`, issue 27). An
// element of a top-level array sits 4 spaces in; a raw newline in a dump is always structural
// (strings escape theirs), so indenting is prefixing each line; only top-level members start 2
// spaces in.
void SpliceScenarios(const Report& r, std::string* text) {
  if (r.scenarios.empty()) return;
  static constexpr std::string_view kEmpty = "\n  \"scenarios\": []";
  const size_t at = text->find(kEmpty);
  if (at == std::string::npos) throw std::logic_error("report.json: no scenarios member to fill");
  std::string filled = "\n  \"scenarios\": [";
  for (size_t i = 0; i < r.scenarios.size(); ++i) {
    filled += i == 0 ? "\n    " : ",\n    ";
    const std::string one = Dump(ToJsonValue(r.scenarios[i]));
    for (char c : one) {
      filled += c;
      if (c == '\n') filled += "    ";
    }
  }
  filled += "\n  ]";
  text->replace(at, kEmpty.size(), filled);
}

}  // namespace

std::string ToJson(const Report& r) {
  Json violations = Json::array();
  for (const Violation& v : r.violations) {
    violations.push_back({{"scenario", v.scenario},
                          {"invariant", v.invariant},
                          {"window", v.window},
                          {"action", v.action},
                          {"plan", v.plan},
                          {"replay", v.replay},
                          {"message", v.message},
                          {"failure", v.failure},
                          {"rapidcheck_reproduce", v.rapidcheck_reproduce},
                          {"seed", v.seed}});
    // Optional: only a labelled black-box violation has it.
    if (!v.holds_under.empty()) violations.back()["holds_under"] = v.holds_under;
  }
  Json properties = Json::array();
  for (const PropertyResult& p : r.properties) {
    properties.push_back({{"name", p.name},
                          {"scenario", p.scenario},
                          {"invariant", p.invariant},
                          {"cases", p.cases},
                          {"passed", p.passed},
                          {"plan", p.plan},
                          {"replay", p.replay},
                          {"rapidcheck_reproduce", p.rapidcheck_reproduce},
                          {"message", p.message}});
  }
  Json mutants = Json::array();
  for (const MutantResult& m : r.mutants) mutants.push_back(MutantToJson(m));
  Json bench = Json::array();
  for (const BenchResult& b : r.bench) {
    bench.push_back({{"name", b.name},
                     {"family", b.family},
                     {"median_ns", Number(b.median_ns)},
                     {"ratio", Number(b.ratio)},
                     {"labels", b.labels}});
  }
  Json doc = {{"schema_version", r.schema_version},
              {"command", r.command},
              {"seed", r.seed},
              {"profile", r.profile},
              {"hazards", r.hazards},
              {"depth", r.depth},
              {"shard", r.shard},
              {"min_coverage_pct", r.min_coverage_pct},
              {"points_registered", r.points_registered},
              {"actions_filtered", r.actions_filtered},
              {"coverage", CoverageJson(ComputeCoverage(r), &r)},
              {"verdict", std::string(VerdictName(ComputeVerdict(r)))},
              {"runs", r.runs},
              {"lives", r.lives},
              {"scenarios", Json::array()},  // spliced in below, one scenario at a time
              {"violations", violations},
              {"properties", properties},
              {"mutants", mutants},
              {"bench", bench}};
  // Optional: only a partial report has it.
  if (!r.interrupted.empty()) doc["interrupted"] = r.interrupted;
  // Optional: only a black-box report has it.
  if (!r.fs_model.empty()) doc["fs_model"] = r.fs_model;
  // Optional: only a report whose recording was incomplete has it.
  if (!r.inconclusive.empty()) doc["inconclusive"] = r.inconclusive;
  std::string text = Dump(doc);
  SpliceScenarios(r, &text);
  text += '\n';
  return text;
}

Result<Report> FromJson(std::string_view text) {
  Result<Json> parsed = ParseJsonText(text, "report.json");
  if (!parsed.ok()) return parsed.status();
  Json doc = std::move(parsed).value();
  const std::string root;
  Report r;
  // "interrupted" is optional (a partial report only).
  if (doc.is_object() && doc.contains("interrupted")) {
    SF_RETURN_IF_ERROR(GetString(doc, root, "interrupted", &r.interrupted));
    if (r.interrupted.empty()) return Bad("/interrupted", "expected the signal's name");
    doc.erase("interrupted");
  }
  // "fs_model" is optional (a black-box report only).
  if (doc.is_object() && doc.contains("fs_model")) {
    SF_RETURN_IF_ERROR(GetString(doc, root, "fs_model", &r.fs_model));
    if (r.fs_model.empty()) return Bad("/fs_model", "expected a persistence model's name");
    doc.erase("fs_model");
  }
  // "inconclusive" is optional (a report whose recording was incomplete only).
  if (doc.is_object() && doc.contains("inconclusive")) {
    SF_RETURN_IF_ERROR(GetStrings(doc, root, "inconclusive", &r.inconclusive));
    if (r.inconclusive.empty()) return Bad("/inconclusive", "expected at least one reason");
    doc.erase("inconclusive");
  }
  SF_RETURN_IF_ERROR(CheckObject(
      doc, root,
      {"schema_version", "command", "seed", "profile", "hazards", "depth", "shard",
       "min_coverage_pct", "points_registered", "actions_filtered", "coverage", "verdict", "runs",
       "lives", "scenarios", "violations", "properties", "mutants", "bench"}));
  SF_RETURN_IF_ERROR(GetInt(doc, root, "schema_version", &r.schema_version));
  if (r.schema_version != kReportSchemaVersion && r.schema_version != 2 && r.schema_version != 3) {
    return Bad("/schema_version",
               fmt::format("this build reads schema_version 2, 3 and {}, the document has {}",
                           kReportSchemaVersion, r.schema_version));
  }
  SF_RETURN_IF_ERROR(GetString(doc, root, "command", &r.command));
  SF_RETURN_IF_ERROR(GetUint64(doc, root, "seed", &r.seed));
  SF_RETURN_IF_ERROR(GetString(doc, root, "profile", &r.profile));
  SF_RETURN_IF_ERROR(GetStrings(doc, root, "hazards", &r.hazards));
  SF_RETURN_IF_ERROR(GetInt(doc, root, "depth", &r.depth));
  SF_RETURN_IF_ERROR(GetString(doc, root, "shard", &r.shard));
  SF_RETURN_IF_ERROR(
      GetDouble(doc, root, "min_coverage_pct", /*nullable=*/false, &r.min_coverage_pct));
  SF_RETURN_IF_ERROR(GetStrings(doc, root, "points_registered", &r.points_registered));
  SF_RETURN_IF_ERROR(GetStrings(doc, root, "actions_filtered", &r.actions_filtered));
  SF_RETURN_IF_ERROR(CheckCoverage(doc.at("coverage"), "/coverage", true));
  std::string verdict;
  SF_RETURN_IF_ERROR(GetString(doc, root, "verdict", &verdict));
  SF_RETURN_IF_ERROR(GetInt64(doc, root, "runs", &r.runs));
  SF_RETURN_IF_ERROR(GetInt64(doc, root, "lives", &r.lives));
  SF_RETURN_IF_ERROR(GetArray(doc, root, "scenarios", &r.scenarios, ReadScenario));
  SF_RETURN_IF_ERROR(GetArray(doc, root, "violations", &r.violations, ReadViolation));
  SF_RETURN_IF_ERROR(GetArray(doc, root, "properties", &r.properties, ReadProperty));
  SF_RETURN_IF_ERROR(GetArray(doc, root, "mutants", &r.mutants, ReadMutant));
  SF_RETURN_IF_ERROR(GetArray(doc, root, "bench", &r.bench, ReadBench));
  return r;
}

}  // namespace stepfault::reports
