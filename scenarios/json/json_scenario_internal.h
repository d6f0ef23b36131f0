// The parsed, validated form of a JSON scenario document (format: scenarios/json/json_scenario.h),
// and the workflow spec it describes. Internal to the JSON scenario: json_scenario_parse.cc fills
// it, json_scenario.cc hosts it. Promise: a JsonScenarioDef returned by ParseJsonScenarioDef names
// only executors it declares and builds into a valid workflow. Thread-safety: a value.
#pragma once

#include <map>
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
// error that says so. 4 MiB holds the largest supported topology (10,000 executors, 40,000 edges:
// a direct edge is about 40 bytes, so 1 MiB stopped at about 26,000 edges).
inline constexpr size_t kMaxJsonScenarioBytes = 4u << 20;
// The supported size (issue 16 item 10, raised by issue 27). Checkpoints no longer grow with the
// workflow: they name the topology by a record stored once (engine/topology_record.h) and a delta
// lists only the executors instantiated since its base, so a run of an N-executor chain is no
// longer O(N^2) in bytes written; docs/inputs.md "Size of JSON scenarios" has the measurements
// (linear chains, one fault-free replay each) and what still grows faster than N.
inline constexpr size_t kMaxJsonScenarioExecutors = 10000;
inline constexpr const char* kJsonScenarioSizeReason =
    "larger workflows are not measured (a linear chain of 10,000 executors takes about 100 s per "
    "replay, and the cost still grows faster than the size); split the workflow into smaller "
    "scenarios";
inline constexpr size_t kMaxJsonScenarioEdges = 40000;
// "max_steps" (optional): super-steps one life may run without halting; a loop beyond it ends the
// life with "executor X loops" (issue 16, item 2).
inline constexpr int64_t kDefaultJsonScenarioSteps = 1000;
inline constexpr uint64_t kMaxJsonScenarioSteps = 100000;
// "full_every" (optional): 1..this.
inline constexpr uint64_t kMaxJsonScenarioFullEvery = 100000;

enum class JsonExecutorKind {
  kPassThrough,
  kTransform,
  kEffect,
  kRequestPort,
  kFailOnce,
  kCounter,
  kClear
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
  std::string state_key;                        // counter, clear: the state key it counts in
  std::string scope;  // counter, clear: "" private, else a shared scope's name
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
  // "full_every" (optional): the host's StoreCheckpointOptions::full_every, a full checkpoint every
  // N commits of a chain (0: the manager's default, kDefaultFullSnapshotEvery). A small N makes
  // exploration crash delta chains and their bases (issue 29).
  int full_every = 0;
  // "live_restore" (optional): {"to_step": B}. Once per scenario run, when the run first halts
  // idle, the host restores on the live run the checkpoint the run committed at step B (through
  // the durable manager) and drives it to its halt again (a durable marker file keeps later lives
  // from doing it again). nullopt: no live restore.
  std::optional<int64_t> live_restore_step;

  // The executor with this id, or null. Through `index` (id -> position in `executors`, which the
  // parser fills as it appends) when it covers every executor, else by a walk (a def built by
  // hand).
  const JsonExecutorDef* Find(const std::string& id) const;
  std::map<std::string, size_t> index;
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
