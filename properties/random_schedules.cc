// Generators of parameters and fault plans, and the programmatic RapidCheck check.
#include "properties/random_schedules.h"

#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListener.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "faults/injector.h"
#include "faults/points.h"
#include "reports/shell_quote.h"
#include "scenarios/params.h"

namespace stepfault::properties {
namespace {

using faults::FaultAction;
using faults::Window;

// Code points for generated text, one UTF-8 string each: ASCII, punctuation that needs quoting in
// JSON and shells, 2-, 3- and 4-byte sequences, emoji. No whitespace: text starts with one of
// these, so it is never blank; a space is mixed in at later positions.
const std::vector<std::string>& TextCodePoints() {
  static const auto* pool = new std::vector<std::string>{
      "a",
      "b",
      "c",
      "x",
      "y",
      "z",
      "A",
      "Q",
      "Z",
      "0",
      "7",
      "9",
      ".",
      ",",
      "'",
      "\"",
      "\\",
      "-",
      "\xC3\xA9",          // é
      "\xC3\x9F",          // ß
      "\xD0\xB6",          // ж
      "\xCE\xBB",          // λ
      "\xE2\x82\xAC",      // €
      "\xE4\xB8\xAD",      // 中
      "\xE6\x96\x87",      // 文
      "\xF0\x9D\x84\x9E",  // 𝄞
      "\xF0\x9F\x98\x80",  // 😀
      "\xF0\x9F\x9A\x80",  // 🚀
  };
  return *pool;
}

// `length` code points: the first from the pool at `start`, the others walking the pool (plus a
// space) by `step`. Small integers shrink to plain ASCII text.
std::string BuildText(int length, int start, int step) {
  const std::vector<std::string>& pool = TextCodePoints();
  const size_t n = pool.size();
  std::string text = pool[static_cast<size_t>(start) % n];
  for (int i = 1; i < length; ++i) {
    const size_t at = static_cast<size_t>(start + i * step) % (n + 1);
    text += at == n ? std::string(" ") : pool[at];
  }
  return text;
}

// A text of 1 ..< max_length code points, with the given lengths favoured.
rc::Gen<std::string> GenText(rc::Gen<int> length) {
  return rc::gen::map(
      rc::gen::tuple(std::move(length), rc::gen::inRange(0, 64), rc::gen::inRange(1, 64)),
      [](const std::tuple<int, int, int>& t) {
        return BuildText(std::get<0>(t), std::get<1>(t), std::get<2>(t));
      });
}

// Windows any later life may use although the fault-free run may not hit them there.
const std::vector<Window>& GenericWindows() {
  static const auto* windows = new std::vector<Window>{
      {"host.resume", 1},
      {"checkpoint.commit.before", 1},
      {"checkpoint.commit.after", 1},
      {"checkpoint.commit.after", 2},
      {"restore.import.after", 1},
      {"effect.commit.after", 1},
  };
  return *windows;
}

// The windows a plan may pick: the first life's (for a first-life fault), then every window of
// the fault-free run and the generic ones, each once, in fault-free order.
struct WindowPools {
  std::vector<Window> first_life;
  std::vector<Window> any_life;
  std::vector<FaultAction> recovery_actions;
};

std::vector<FaultAction> ActionsAt(const WindowPools& pools, const Window& window) {
  std::vector<FaultAction> actions;
  for (const FaultAction& a : faults::ApplicableFaultActions(window.point)) {
    if (faults::IsRecoverySide(a) &&
        std::find(pools.recovery_actions.begin(), pools.recovery_actions.end(), a) ==
            pools.recovery_actions.end()) {
      continue;
    }
    actions.push_back(a);
  }
  if (actions.empty()) actions.push_back(FaultAction::Of(faults::FaultActionKind::kCrash));
  return actions;
}

// One generated fault: whether it is there, its life (0-based), and indices of its window and
// action. Every part shrinks towards 0/false: fewer faults, earlier lives, earlier windows, the
// first applicable action (crash). Lives are absolute, so dropping one fault leaves the others
// where they were; of two faults for one life the first counts.
using FaultChoice = std::tuple<bool, int, int, int>;
constexpr int kMaxFaults = 3;
constexpr int kLives = 4;  // faults go to lives 1..4
constexpr int kActionChoices = 64;
constexpr int kFullSize = 100;  // RapidCheck's nominal size: full ranges

faults::Plan PlanOf(const WindowPools& pools, const std::vector<FaultChoice>& choices) {
  std::map<int, faults::Fault> by_life;
  for (const auto& [used, life, window_index, action_index] : choices) {
    if (!used || by_life.count(life) > 0) continue;
    const std::vector<Window>& pool = life == 0 ? pools.first_life : pools.any_life;
    const Window& window = pool[static_cast<size_t>(window_index) % pool.size()];
    const std::vector<FaultAction> actions = ActionsAt(pools, window);
    const FaultAction& action = actions[static_cast<size_t>(action_index) % actions.size()];
    auto fault = faults::FaultAtWindow(action, window);
    SF_CHECK(fault.ok());
    by_life.emplace(life, *fault);
  }
  faults::Plan plan;
  if (by_life.empty()) return plan;
  plan.faults.resize(static_cast<size_t>(by_life.rbegin()->first) + 1, faults::Fault::None());
  for (const auto& [life, fault] : by_life) plan.faults[static_cast<size_t>(life)] = fault;
  return plan;
}

class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// The last failing case the property saw.
struct Counterexample {
  bool seen = false;
  std::string invariant, plan, replay, message;
  Json params;
};

// One declared parameter's value: a choice, or an integer / a text length from min to the
// declaration's sample bound, its ends, their neighbours and the default favoured.
rc::Gen<Json> GenParam(const scenarios::ParamDecl& d) {
  const int64_t hi = d.sample_max > 0 ? std::min(d.sample_max, d.max) : d.max;
  std::vector<int64_t> favoured = {d.min, std::min(d.min + 1, hi), std::max(hi - 1, d.min), hi};
  if (d.type == scenarios::ParamType::kInt) favoured.push_back(d.default_value.get<int64_t>());
  rc::Gen<int64_t> n =
      rc::gen::oneOf(rc::gen::inRange<int64_t>(d.min, hi + 1), rc::gen::elementOf(favoured));
  switch (d.type) {
    case scenarios::ParamType::kInt:
      return rc::gen::map(std::move(n), [](int64_t v) { return Json(v); });
    case scenarios::ParamType::kString:
      return rc::gen::map(GenText(rc::gen::cast<int>(std::move(n))),
                          [](std::string t) { return Json(std::move(t)); });
    case scenarios::ParamType::kChoice:
      return rc::gen::map(rc::gen::elementOf(d.choices), [](std::string c) { return Json(c); });
  }
  return rc::gen::just(d.default_value);
}

}  // namespace

// Every declared parameter drawn from its declaration (ParamDecl::sample_max bounds the draw), so
// no scenario is named here; a scenario without parameters gets its defaults.
rc::Gen<Json> GenScenarioParams(const scenarios::Scenario& scenario) {
  const std::vector<scenarios::ParamDecl> decls = scenario.params();
  if (decls.empty()) return rc::gen::just(scenario.default_params());
  return rc::gen::exec([decls] {
    Json params = Json::object();
    for (const scenarios::ParamDecl& d : decls) params[d.name] = *GenParam(d);
    return params;
  });
}

rc::Gen<faults::Plan> GenFaultPlan(const scenarios::Scenario& scenario, const Json& params,
                                   const RunConfig& config) {
  RunConfig reference_config = config;
  reference_config.params = params;
  const Execution reference = RunPlan(scenario, faults::Plan{}, reference_config);
  SF_CHECK(!reference.lives.empty() && !reference.lives.front().windows.empty());

  auto pools = std::make_shared<WindowPools>();
  pools->first_life = reference.lives.front().windows;
  std::set<std::pair<std::string, int>> seen;
  auto add = [&](const Window& w) {
    if (seen.insert({w.point, w.occurrence}).second) pools->any_life.push_back(w);
  };
  for (const LifeRecord& life : reference.lives) {
    for (const Window& w : life.windows) add(w);
  }
  for (const Window& w : GenericWindows()) add(w);
  pools->recovery_actions = scenario.RecoveryActions();

  const int windows = static_cast<int>(pools->any_life.size());
  // Full range at every size: RapidCheck's size would otherwise keep early cases to first-life,
  // first-window crashes, and the interesting plans are the late, multi-life ones.
  auto choice = rc::gen::resize(
      kFullSize, rc::gen::tuple(rc::gen::arbitrary<bool>(), rc::gen::inRange(0, kLives),
                                rc::gen::inRange(0, windows), rc::gen::inRange(0, kActionChoices)));
  auto choices = rc::gen::suchThat(
      rc::gen::container<std::vector<FaultChoice>>(kMaxFaults, std::move(choice)),
      [](const std::vector<FaultChoice>& c) {
        return std::any_of(c.begin(), c.end(), [](const FaultChoice& f) { return std::get<0>(f); });
      });
  return rc::gen::map(std::move(choices),
                      [pools](const std::vector<FaultChoice>& c) { return PlanOf(*pools, c); });
}

std::string ReplayCommandWithParams(const scenarios::Scenario& scenario, const faults::Plan& plan,
                                    const RunConfig& config, const Json& params) {
  std::string cmd = ReplayCommand(scenario.replay_name(), plan, config);
  if (!params.is_null() && params != scenario.default_params()) {
    cmd += " --params " + reports::ShellQuote(params.dump());
  }
  return cmd;
}

namespace {

// One case of the property: a generated parameter set and plan, run; on a violation `last` keeps
// the counterexample and the case fails (RapidCheck then shrinks it).
void CheckOneCase(const scenarios::Scenario& scenario, const CheckOptions& options,
                  Counterexample* last) {
  const Json params = *GenScenarioParams(scenario);
  const faults::Plan plan = *GenFaultPlan(scenario, params, options.config);
  RunConfig config = options.config;
  config.params = params;
  const Execution ex = RunPlan(scenario, plan, config);
  if (ex.violations.empty()) return;
  Counterexample c;
  c.seen = true;
  c.invariant = ex.violations.front().invariant;
  c.plan = faults::PrintPlan(plan);
  c.params = params;
  c.replay = ReplayCommandWithParams(scenario, plan, options.config, params);
  for (const auto& v : ex.violations) c.message += v.invariant + ": " + v.message + "\n";
  *last = c;
  RC_FAIL(c.invariant + " violated by plan '" + c.plan + "'; replay: " + c.replay + "\n" +
          c.message);
}

// The case of `id` in options.reproduce, into `reproduce`; a CheckResult saying why the string is
// unusable when it is.
std::optional<CheckResult> ParseReproduce(
    const scenarios::Scenario& scenario, const CheckOptions& options, const std::string& id,
    std::unordered_map<std::string, rc::detail::Reproduce>* reproduce) {
  if (options.reproduce.empty()) return std::nullopt;
  CheckResult unusable;
  unusable.passed = false;
  try {
    const rc::detail::Configuration given = rc::detail::configFromString(options.reproduce);
    const auto it = given.reproduce.find(id);
    if (it == given.reproduce.end()) {
      unusable.message = "the reproduce string has no case of " + id +
                         "; pass the string a check of scenario " + scenario.name() + " printed";
      return unusable;
    }
    reproduce->insert(*it);
  } catch (const rc::detail::ConfigurationException& e) {
    // RapidCheck reports a malformed string only by throwing.
    unusable.message = std::string("the reproduce string is not RapidCheck's: ") + e.what() +
                       "; pass the CheckResult::reproduce text unchanged";
    return unusable;
  }
  return std::nullopt;
}

// RapidCheck's result as a CheckResult, with the counterexample the property kept.
CheckResult ResultOf(const rc::detail::TestResult& result, const rc::detail::TestParams& params,
                     const std::string& id, const Counterexample& last) {
  CheckResult out;
  if (result.is<rc::detail::SuccessResult>()) {
    out.cases = result.get<rc::detail::SuccessResult>().numSuccess;
    return out;
  }
  out.passed = false;
  if (result.is<rc::detail::FailureResult>()) {
    const auto& failure = result.get<rc::detail::FailureResult>();
    out.cases = failure.numSuccess + 1;
    // As RapidCheck prints it: the configuration of the run with the failure to reproduce.
    rc::detail::Configuration config;
    config.testParams = params;
    config.reproduce.emplace(id, failure.reproduce);
    out.reproduce = rc::detail::configToMinimalString(config);
    if (last.seen) {
      out.invariant = last.invariant;
      out.plan = last.plan;
      out.params = last.params;
      out.replay = last.replay;
      out.message = last.message;
    } else {
      out.message = failure.description;
    }
  } else if (result.is<rc::detail::GaveUpResult>()) {
    out.cases = result.get<rc::detail::GaveUpResult>().numSuccess;
    out.message = "RapidCheck gave up: " + result.get<rc::detail::GaveUpResult>().description;
  } else {
    out.message = "RapidCheck error: " + result.get<rc::detail::Error>().description;
  }
  return out;
}

}  // namespace

CheckResult CheckScenario(const scenarios::Scenario& scenario, const CheckOptions& options) {
  SF_CHECK(options.cases >= 1);
  Counterexample last;
  const auto property = [&]() { CheckOneCase(scenario, options, &last); };
  rc::detail::TestMetadata metadata;
  metadata.id = "stepfault/" + scenario.name();
  metadata.description = "no invariant of " + scenario.name() + " is violated";
  rc::detail::TestParams params;
  params.seed = options.seed;
  params.maxSuccess = options.cases;
  std::unordered_map<std::string, rc::detail::Reproduce> reproduce;
  if (auto unusable = ParseReproduce(scenario, options, metadata.id, &reproduce)) {
    return *unusable;
  }
  QuietListener listener;
  const rc::detail::TestResult result = rc::detail::checkProperty(
      rc::detail::toProperty(property), metadata, params, listener, reproduce);
  return ResultOf(result, params, metadata.id, last);
}

reports::PropertyResult ToPropertyResult(const std::string& name,
                                         const scenarios::Scenario& scenario,
                                         const CheckResult& result) {
  reports::PropertyResult p;
  p.name = name;
  p.scenario = scenario.name();
  p.invariant = result.invariant;
  p.cases = result.cases;
  p.passed = result.passed;
  p.plan = result.plan;
  p.replay = result.replay;
  p.rapidcheck_reproduce = result.reproduce;
  p.message = result.message;
  return p;
}

}  // namespace stepfault::properties
