// User-defined scenarios: a JSON file describes a workflow and its fault-free outcome, and loads
// into the Scenario interface, so it gets the same exploration as the built-in scenarios.
//
// Format (every member required unless marked optional; unknown members are rejected):
//   {
//     "name": "review-pipeline",  "description": "one line",
//     "input": {"type": "Draft", "body": {"op": "publish", "id": "d7"}},   // to the start executor
//     "start": "intake",
//     "executors": [
//       {"id": "intake", "kind": "pass-through"},                 // forwards every message
//       {"id": "tag", "kind": "transform", "emit": "Tagged", "set": {"stage": "review"}},
//                                  // emits type "emit" with the body plus "set" (optional)
//       {"id": "review", "kind": "request-port",
//        "request_type": "Tagged", "response_type": "Verdict",
//        "responses": [{"when": {"field": "id", "equals": "d7"}, "body": {"approved": true}}]},
//                                  // the host answers each request with the first response whose
//                                  // optional "when" matches the request body: the request body
//                                  // plus "body", as type response_type
//       {"id": "notify", "kind": "fail-once"},   // forwards, but fails the first invocation of the
//                                                // scenario run (a marker file makes it durable)
//       {"id": "publish", "kind": "effect", "key": "{op}-{id}", "emit": "Published"},
//                                  // stores the body once under the key filled from body fields
//                                  // (SQLite, idempotent) and emits the stored body plus
//                                  // "effect_key" as type "emit" (optional, default "Effect")
//       {"id": "tally", "kind": "counter", "key": "seen", "scope": "shared-a"},
//                                  // reads state key "key" (absent = 0) from its private scope, or
//                                  // from the shared scope "scope" (optional; one scope for every
//                                  // executor naming it), queues n+1 (visible at the end of the
//                                  // step) and forwards the message with "count_<id>": n+1 merged
//                                  // into the body; two executors writing one shared key in one
//                                  // step end the run with a state conflict; key and scope may
//                                  // not contain '|'
//       {"id": "drop", "kind": "clear", "key": "seen", "scope": "shared-a"}
//                                  // removes state key "key" (the scope goes with its last key),
//                                  // queued as any update, and forwards the message with
//                                  // "cleared_<id>": n, the count it removed (absent: 0)
//     ],
//     "edges": [
//       {"kind": "direct", "from": "intake", "to": "tag"},
//       {"kind": "direct", "from": "notify", "to": "publish",
//        "when": {"field": "approved", "equals": true}},
//       {"kind": "fan-out", "from": "a", "to": ["b", "c"]},
//       {"kind": "fan-in", "sources": ["b", "c"], "sink": "d"}
//     ],                                        // "when" (optional) only on direct edges
//     "outputs": ["publish"],                   // executors whose emitted messages are outputs
//     "max_steps": 1000,                        // optional (1..100000, default 1000): super-steps
//                                               // a life may run without halting; a loop beyond it
//                                               // is reported as "executor X loops: N steps ..."
//     "full_every": 3,                          // optional (1..100000, default 128): a full
//                                               // checkpoint every N commits, deltas between
//     "live_restore": {"to_step": 5},           // optional: once per scenario run, when the run
//                                               // first halts in a life that committed step 5's
//                                               // checkpoint, restore it on the live run and drive
//                                               // on (a durable marker: live-restore.done)
//     "expect": {                               // the fault-free outcome
//       "effects": [{"key": "publish-d7", "value": {...the stored body...}}],
//       "outputs": [{"executor": "publish", "type": "Published", "body": {...}}]
//     }
//   }
// Supported size: at most 4 MiB of text, 10,000 executors and 40,000 edges (docs/inputs.md); larger
// documents are rejected with the reason (kJsonScenarioSizeReason: what was measured, and what
// to do). A JSON syntax error names its line and
// column. A rejected document gives kInvalidArgument "<source>: <JSON pointer>: <reason>", e.g.
// "x.json: /edges/0/to: unknown executor 'x'"; topology problems the workflow builder finds are
// reported at /edges.
//
// Host (as scenarios/fan_in/fan_in.cc): a durable file checkpoint store in <dir>/checkpoints,
// effects in <dir>/effects.db, session DeriveId(root_seed, name). Each life resumes the latest
// intact checkpoint (or starts), answers every request from the script (again after a resume:
// answering is idempotent) and is done when the run halts idle with every expected effect row
// present. Every response is recorded in the request ledger (requests.json) before the engine
// sees it; a replay answers with the recorded response; misuse at host.resume (duplicate-response,
// conflicting-response, conflicting-response:request-id) follows scenarios/json/json_responses.h.
// Invariants: INV-ALO, INV-IDEM, INV-REQID, INV-ANCESTRY, INV-TOPOLOGY, INV-OBSERVER,
// INV-CORRUPT, INV-EXPECT (every observed output is one of expect.outputs) and INV-DECISION (the
// recorded responses). Thread-safety: a loaded scenario is immutable.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "engine/env.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

Result<std::shared_ptr<const Scenario>> ParseJsonScenario(std::string_view text,
                                                          const std::string& source_name);
// Reads `path` through `env` and parses it (source name: the path).
Result<std::shared_ptr<const Scenario>> LoadJsonScenario(Env* env, const std::string& path);

// The outputs the lives observed, unique and sorted, as {"executor", "type", "body"}. A fault-free
// run observes exactly JsonScenarioExpectedOutputs; a faulty one a subset (an output emitted just
// before a death may be lost with it), never anything else (INV-EXPECT).
Json JsonScenarioObservedOutputs(const std::vector<LifeReport>& lives);
// The scenario at `path` with its `expect` replaced by an empty one (or given one when it has
// none), for `stepfault expect`: everything else is checked as LoadJsonScenario checks it.
Result<std::shared_ptr<const Scenario>> LoadJsonScenarioIgnoringExpect(Env* env,
                                                                       const std::string& path);
// The `expect` member a run's lives observed: "effects", the rows of effects.db after the last
// life that read them (in the store's order), and "outputs" (JsonScenarioObservedOutputs).
Json JsonScenarioObservedExpect(const std::vector<LifeReport>& lives);
// expect.outputs, unique and sorted. REQUIRES: `scenario` came from Parse/LoadJsonScenario.
Json JsonScenarioExpectedOutputs(const Scenario& scenario);

}  // namespace stepfault::scenarios
