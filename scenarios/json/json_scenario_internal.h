// The parsed, validated form of a JSON scenario document (format: scenarios/json/json_scenario.h),
// and the workflow spec it describes. Internal to the JSON scenario: json_scenario_parse.cc fills
// it, json_scenario.cc hosts it. Promise: a JsonScenarioDef returned by ParseJsonScenarioDef names
// only executors it declares and builds into a valid workflow. Thread-safety: a value.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/env.h"
#include "engine/message.h"
#include "engine/workflow_spec.h"
#include "scenarios/effect_store.h"

namespace stepfault::scenarios {

// The supported size of a JSON scenario (docs/inputs.md): larger documents are rejected with an
// error that says so.
inline constexpr size_t kMaxJsonScenarioBytes = 1u << 20;
// The supported size (issue 16 item 10). Why: every checkpoint carries the workflow's full
// topology signature (engine/checkpoint.h), which a super-step writes, seals and the oracles decode
// again, so a chain of N executors costs O(N^2) per run in time and memory: measured (linear
// chains, one run, release build, loaded 2-core machine) 0.5 s and 16 MB at 100 executors, 8.3 s
// and 123 MB at 400, 25-49 s and 0.7 GB at 1000; without the signature in the checkpoints (an
// experiment) 1000 took 1.0-1.5 s and 5000 took 30 s and 0.6 GB (the per-step executor list and
// the checkpoint directory keep it quadratic). docs/inputs.md has the figures and the commands.
inline constexpr size_t kMaxJsonScenarioExecutors = 1000;
inline constexpr const char* kJsonScenarioSizeReason =
    "every checkpoint carries the full topology signature, so a run's time grows with the square "
    "of the size (25 to 50 s and 0.7 GB per run at 1000 executors; 5000 would need about 25 times "
    "that); "
    "split the workflow into smaller scenarios";
inline constexpr size_t kMaxJsonScenarioEdges = 4000;
// "max_steps" (optional): super-steps one life may run without halting; a loop beyond it ends the
// life with "executor X loops" (issue 16, item 2).
inline constexpr int64_t kDefaultJsonScenarioSteps = 1000;
inline constexpr uint64_t kMaxJsonScenarioSteps = 100000;

enum class JsonExecutorKind {
  kPassThrough,
  kTransform,
  kEffect,
  kRequestPort,
  kFailOnce,
  kCounter
};

// {"field": f, "equals": v}: true when the body has `field` equal to `equals`.
struct JsonCondition {
  std::string field;
  Json equals;
  bool Matches(const Json& body) const;
};

struct JsonScriptedResponse {
  std::optional<JsonCondition> when;  // none: answers any request
  Json body = Json::object();         // merged into the request's body
};

struct JsonExecutorDef {
  std::string id;
  JsonExecutorKind kind = JsonExecutorKind::kPassThrough;
  std::string emit;                             // transform, effect: the emitted message type
  Json set = Json::object();                    // transform: merged into the body
  std::string key_template;                     // effect: "{op}-{id}"
  std::string request_type;                     // request-port
  std::string response_type;                    // request-port
  std::vector<JsonScriptedResponse> responses;  // request-port
  std::string state_key;                        // counter: the state key it counts in
  std::string scope;                            // counter: "" private, else a shared scope's name
};

struct JsonEdgeDef {
  EdgeKind kind = EdgeKind::kDirect;
  std::vector<std::string> sources;
  std::vector<std::string> sinks;
  std::optional<JsonCondition> when;  // direct only
};

struct JsonExpectedEffect {
  std::string key;
  Json value;
};

struct JsonScenarioDef {
  std::string source_name;
  std::string name;
  std::string description;
  std::string start;
  Message input;
  std::vector<JsonExecutorDef> executors;
  std::vector<JsonEdgeDef> edges;
  std::vector<std::string> outputs;
  std::vector<JsonExpectedEffect> expected_effects;
  std::vector<Json> expected_outputs;  // {"executor", "type", "body"}
  int64_t max_steps = kDefaultJsonScenarioSteps;

  const JsonExecutorDef* Find(const std::string& id) const;
};

// What the executors of one life use. Null members are allowed when the spec is only inspected
// (never run), as RecoveryActions does.
struct JsonRuntime {
  EffectStore* effects = nullptr;
  Env* env = nullptr;
  std::string dir;  // where fail-once markers live
};

Result<JsonScenarioDef> ParseJsonScenarioDef(std::string_view text, const std::string& source_name);

// The workflow the document describes; `runtime` must outlive every run of it.
WorkflowSpec JsonScenarioSpec(const JsonScenarioDef& def, const JsonRuntime* runtime);

// "{op}-{id}" with the body's fields filled in (strings as they are, other values as JSON).
Result<std::string> ExpandJsonKeyTemplate(const std::string& key_template, const Json& body);

// An observed or expected terminal output in its canonical form.
Json JsonOutputRecord(const std::string& executor, const Message& message);

// The scripted answer of request port `port` to `request`: its first response whose `when` matches,
// the request's body with the response's members merged over it; nullopt when none matches.
std::optional<Message> ScriptedResponse(const JsonExecutorDef& port, const Message& request);

}  // namespace stepfault::scenarios
