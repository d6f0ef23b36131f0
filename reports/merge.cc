// Shard merging and canonical list order (see merge.h).
#include "reports/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

namespace stepfault::reports {
namespace {

struct ShardId {
  int index = 0;
  int count = 0;
};

Result<ShardId> ParseShard(const std::string& text) {
  ShardId id;
  size_t slash = text.find('/');
  auto parse = [](std::string_view s, int* out) {
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && ptr == s.data() + s.size();
  };
  if (slash == std::string::npos || !parse(std::string_view(text).substr(0, slash), &id.index) ||
      !parse(std::string_view(text).substr(slash + 1), &id.count) || id.count < 1 || id.index < 1 ||
      id.index > id.count) {
    return Status::InvalidArgument(
        fmt::format("shard \"{}\" is not of the form i/n with 1 <= i <= n", text));
  }
  return id;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& s : v) out += (out.empty() ? "" : ",") + s;
  return "[" + out + "]";
}

// Checks the fields that identify one exploration agree between shard `a` and shard `b`.
Status SameExploration(const Report& a, const Report& b) {
  auto differs = [&](std::string_view field, const std::string& x, const std::string& y) {
    return Status::InvalidArgument(
        fmt::format("shards {} and {} are not from one exploration: {} {} vs {}", a.shard, b.shard,
                    field, x, y));
  };
  for (const Report* r : {&a, &b}) {
    if (!r->interrupted.empty()) {
      return Status::InvalidArgument(fmt::format(
          "shard {} is partial (interrupted by {}): run it again to completion, then merge",
          r->shard, r->interrupted));
    }
  }
  if (a.inconclusive != b.inconclusive) {
    return differs("inconclusive", Join(a.inconclusive), Join(b.inconclusive));
  }
  if (a.schema_version != b.schema_version) {
    return differs("schema_version", std::to_string(a.schema_version),
                   std::to_string(b.schema_version));
  }
  if (a.command != b.command) return differs("command", a.command, b.command);
  if (a.seed != b.seed) return differs("seed", std::to_string(a.seed), std::to_string(b.seed));
  if (a.profile != b.profile) return differs("profile", a.profile, b.profile);
  if (a.hazards != b.hazards) return differs("hazards", Join(a.hazards), Join(b.hazards));
  if (a.fs_model != b.fs_model) return differs("fs_model", a.fs_model, b.fs_model);
  if (a.depth != b.depth) return differs("depth", std::to_string(a.depth), std::to_string(b.depth));
  if (a.points_registered != b.points_registered)
    return differs("points_registered", Join(a.points_registered), Join(b.points_registered));
  if (a.actions_filtered != b.actions_filtered)
    return differs("actions_filtered", Join(a.actions_filtered), Join(b.actions_filtered));
  if (a.min_coverage_pct != b.min_coverage_pct) {
    return differs("min_coverage_pct", fmt::format("{}", a.min_coverage_pct),
                   fmt::format("{}", b.min_coverage_pct));
  }
  return Status::Ok();
}

// Folds cell `c` into `m` (the same window and action from another shard): runs add up, a
// violation anywhere is a violation, a run anywhere is a run.
void MergeCell(const Cell& c, Cell* m) {
  if (!CellRan(c.outcome)) return;
  if (!CellRan(m->outcome)) {
    *m = c;
    return;
  }
  m->runs += c.runs;
  m->lives_max = std::max(m->lives_max, c.lives_max);
  for (const std::string& inv : c.invariants_violated) {
    if (std::find(m->invariants_violated.begin(), m->invariants_violated.end(), inv) ==
        m->invariants_violated.end())
      m->invariants_violated.push_back(inv);
  }
  std::sort(m->invariants_violated.begin(), m->invariants_violated.end());
  if (c.outcome == CellOutcome::kViolation) m->outcome = CellOutcome::kViolation;
}

// Joins the windows and cells of `s` into `into`: fault-free windows (the same in every shard)
// first in their order, then every shard's recovery windows sorted by id, as one exploration
// orders them.
void MergeMatrix(const ScenarioReport& s, ScenarioReport* into) {
  std::map<std::string, Window> recovery;
  std::map<std::pair<std::string, std::string>, Cell> cells;
  for (const ScenarioReport* r : {static_cast<const ScenarioReport*>(into), &s}) {
    for (const Window& w : r->windows) {
      if (w.recovery) recovery.emplace(w.id, w);
    }
    for (const Cell& c : r->cells) {
      auto [it, inserted] = cells.try_emplace({c.window, c.action}, c);
      if (!inserted) MergeCell(c, &it->second);
    }
  }
  std::vector<Window> windows;
  for (const Window& w : into->windows) {
    if (!w.recovery) windows.push_back(w);
  }
  for (const auto& [id, w] : recovery) windows.push_back(w);
  into->windows = windows;
  into->cells.clear();
  for (const Window& w : windows) {
    for (const std::string& a : into->actions) into->cells.push_back(cells.at({w.id, a}));
  }
}

// Folds scenario `s` (from shard `shard`) into `into`, which came from an earlier shard.
Status MergeScenario(const ScenarioReport& s, const std::string& shard,
                     const std::string& into_shard, ScenarioReport* into) {
  auto differs = [&](std::string_view what) {
    return Status::InvalidArgument(
        fmt::format("scenario {}: the {} differ between shards {} and {}; shards must come from "
                    "one build and scenario set",
                    s.name, what, into_shard, shard));
  };
  if (s.description != into->description) return differs("descriptions");
  if (s.variant != into->variant || s.skipped != into->skipped) return differs("variants");
  if (s.invariants != into->invariants) return differs("invariant lists");
  if (s.actions != into->actions) return differs("action lists");
  auto fault_free = [](const ScenarioReport& r) {
    std::vector<Window> out;
    for (const Window& w : r.windows) {
      if (!w.recovery) out.push_back(w);
    }
    return out;
  };
  if (fault_free(s) != fault_free(*into)) return differs("window lists");
  if (s.invariant_results.size() != into->invariant_results.size())
    return differs("invariant results");
  const CrashStates& a = s.crash_states;
  const CrashStates& b = into->crash_states;
  if (a.total != b.total || a.distinct != b.distinct || a.explored != b.explored)
    return differs("crash states below the deepest level");
  std::map<std::pair<std::string, std::string>, bool> applicable;
  for (const Cell& m : into->cells)
    applicable[{m.window, m.action}] = m.outcome != CellOutcome::kNotApplicable;
  for (const Cell& c : s.cells) {
    auto it = applicable.find({c.window, c.action});
    if (it != applicable.end() && it->second != (c.outcome != CellOutcome::kNotApplicable))
      return differs(fmt::format("applicability of cell {} x {}", c.window, c.action));
  }
  // A scenario explored by schedules is explored whole by shard 1; the other shards list it with
  // nothing run (explored 0), so the merged block is the one that ran.
  if (s.schedules.has_value() != into->schedules.has_value()) return differs("schedule blocks");
  if (s.schedules && s.schedules->explored > 0) {
    if (into->schedules->explored > 0) return differs("schedule explorations (two shards ran one)");
    into->schedules = s.schedules;
  }
  MergeMatrix(s, into);
  for (size_t i = 0; i < s.invariant_results.size(); ++i) {
    const InvariantResult& r = s.invariant_results[i];
    InvariantResult& m = into->invariant_results[i];
    if (r.id != m.id || r.statement != m.statement) return differs("invariant results");
    m.checks += r.checks;
    m.violations += r.violations;
  }
  into->crash_states.beyond_depth += s.crash_states.beyond_depth;
  std::vector<std::string> points = into->points_reached;
  points.insert(points.end(), s.points_reached.begin(), s.points_reached.end());
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  into->points_reached = points;
  into->determinism_checks += s.determinism_checks;
  into->runs += s.runs;
  into->lives += s.lives;
  return Status::Ok();
}

template <typename T, typename Less>
void SortUnique(std::vector<T>* v, Less less) {
  std::stable_sort(v->begin(), v->end(), less);
  v->erase(std::unique(v->begin(), v->end()), v->end());
}

size_t IndexOf(const std::vector<std::string>& v, const std::string& x) {
  return static_cast<size_t>(std::find(v.begin(), v.end(), x) - v.begin());
}

}  // namespace

void Canonicalize(Report* r) {
  // Position keys: unknown names sort after known ones, then by text.
  std::map<std::string, size_t> scenario_index;
  std::map<std::string, std::vector<std::string>> windows, actions;
  for (size_t i = 0; i < r->scenarios.size(); ++i) {
    const ScenarioReport& s = r->scenarios[i];
    scenario_index.emplace(s.name, i);
    for (const Window& w : s.windows) windows[s.name].push_back(w.id);
    actions[s.name] = s.actions;
  }
  auto key = [&](const Violation& v) {
    auto it = scenario_index.find(v.scenario);
    size_t si = it == scenario_index.end() ? r->scenarios.size() : it->second;
    return std::make_tuple(si, v.scenario, IndexOf(windows[v.scenario], v.window), v.window,
                           IndexOf(actions[v.scenario], v.action), v.action, v.invariant, v.plan,
                           v.replay, v.message, v.rapidcheck_reproduce, v.seed, v.holds_under);
  };
  SortUnique(&r->violations,
             [&](const Violation& a, const Violation& b) { return key(a) < key(b); });
  SortUnique(&r->properties, [](const PropertyResult& a, const PropertyResult& b) {
    return std::tie(a.scenario, a.name, a.invariant, a.cases, a.passed, a.plan, a.replay,
                    a.rapidcheck_reproduce,
                    a.message) < std::tie(b.scenario, b.name, b.invariant, b.cases, b.passed,
                                          b.plan, b.replay, b.rapidcheck_reproduce, b.message);
  });
  SortUnique(&r->mutants, [](const MutantResult& a, const MutantResult& b) {
    return std::tie(a.name, a.scenario, a.description, a.killed, a.invariant, a.plan, a.replay) <
           std::tie(b.name, b.scenario, b.description, b.killed, b.invariant, b.plan, b.replay);
  });
  SortUnique(&r->bench, [](const BenchResult& a, const BenchResult& b) {
    return std::tie(a.family, a.name) < std::tie(b.family, b.name);
  });
}

Result<Report> MergeShards(const std::vector<Report>& shards) {
  if (shards.empty()) return Status::InvalidArgument("no shard reports to merge");
  // Order by shard index so every message and every tie is independent of the input order.
  std::map<int, const Report*> by_index;
  int count = 0;
  for (const Report& r : shards) {
    SF_ASSIGN_OR_RETURN(ShardId id, ParseShard(r.shard));
    if (count == 0) count = id.count;
    if (id.count != count) {
      return Status::InvalidArgument(
          fmt::format("shard counts differ: {} vs {}/{}; merge the shards of one run", r.shard,
                      by_index.begin()->first, count));
    }
    if (!by_index.emplace(id.index, &r).second) {
      return Status::InvalidArgument(
          fmt::format("duplicate shard {}; each shard must be given once", r.shard));
    }
  }
  for (int i = 1; i <= count; ++i) {
    if (!by_index.count(i))
      return Status::InvalidArgument(fmt::format("missing shard {}/{}", i, count));
  }
  const Report& first = *by_index.begin()->second;
  Report merged = first;
  merged.shard = "1/1";
  for (auto it = std::next(by_index.begin()); it != by_index.end(); ++it) {
    const Report& r = *it->second;
    SF_RETURN_IF_ERROR(SameExploration(first, r));
    if (r.scenarios.size() != merged.scenarios.size()) {
      return Status::InvalidArgument(fmt::format("shards {} and {} list {} and {} scenarios",
                                                 first.shard, r.shard, first.scenarios.size(),
                                                 r.scenarios.size()));
    }
    for (size_t i = 0; i < r.scenarios.size(); ++i) {
      if (r.scenarios[i].name != merged.scenarios[i].name) {
        return Status::InvalidArgument(
            fmt::format("shards {} and {} differ at scenario {}: {} vs {}", first.shard, r.shard, i,
                        first.scenarios[i].name, r.scenarios[i].name));
      }
      SF_RETURN_IF_ERROR(MergeScenario(r.scenarios[i], r.shard, first.shard, &merged.scenarios[i]));
    }
    merged.runs += r.runs;
    merged.lives += r.lives;
    merged.violations.insert(merged.violations.end(), r.violations.begin(), r.violations.end());
    merged.properties.insert(merged.properties.end(), r.properties.begin(), r.properties.end());
    merged.mutants.insert(merged.mutants.end(), r.mutants.begin(), r.mutants.end());
    merged.bench.insert(merged.bench.end(), r.bench.begin(), r.bench.end());
  }
  Canonicalize(&merged);
  return merged;
}

}  // namespace stepfault::reports
