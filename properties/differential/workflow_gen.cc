// The generator (workflow_gen.h). A workflow is a chain of "stages" over the executors e0..eN:
// each stage is one executor (pass-through, transform or effect), or an "ask" pair (a transform
// emitting the port's request type and the request port it alone feeds, since a port accepts only
// its request and response types). Every stage after the first is fed by an earlier stage's exit
// through a direct edge (conditional on the input's "flag" or the response's "approved" a third of
// the time), a fan-out from an earlier exit to several later entries, or a fan-in barrier from two
// earlier exits. Counters (state writes, private or shared) come last (AddCounters). Edges only go
// forward, so every workflow halts.
#include "properties/differential/workflow_gen.h"

#include <set>
#include <vector>

#include "engine/json_text.h"
#include "engine/random.h"

namespace stepfault::properties {
namespace {

struct Stage {
  std::string entry, exit;  // equal unless the stage is an ask pair
  bool ask = false;
};

std::string Id(int i) { return "e" + std::to_string(i); }

// Counter stages appended after the others, drawn from their own stream so the rest of the
// workflow is the one the same (seed, index) gave before counters existed. Shapes: none (4 in
// 10), a private counter fed by one or two earlier exits, two counters of one shared scope fed by
// one fan-out with different keys (no conflict) or the same key (a state conflict in that step),
// and two counters of one shared key in a chain (the second reads what the first published).
void AddCounters(uint64_t seed, int index, const std::vector<Stage>& stages, int next,
                 Json* executors, Json* edges, Json* outputs) {
  Rng rng(DeriveSeed(seed, "differential-counters|" + std::to_string(index)));
  if (rng.Bernoulli(0.4)) return;
  auto counter = [&](const std::string& key, const std::string& scope) {
    const std::string id = Id(next++);
    Json e{{"id", id}, {"kind", "counter"}, {"key", key}};
    if (!scope.empty()) e["scope"] = scope;
    executors->push_back(std::move(e));
    outputs->push_back(id);
    return id;
  };
  auto exit = [&]() { return stages[rng.Uniform(stages.size())].exit; };
  switch (rng.Uniform(4)) {
    case 0: {
      const std::string c = counter("seen", "");
      const std::string a = exit(), b = exit();
      edges->push_back(Json{{"kind", "direct"}, {"from", a}, {"to", c}});
      if (b != a) edges->push_back(Json{{"kind", "direct"}, {"from", b}, {"to", c}});
      break;
    }
    case 1:
    case 2: {
      const bool same_key = rng.Bernoulli(0.5);
      const std::string c1 = counter("k", "tally");
      const std::string c2 = counter(same_key ? "k" : "k2", "tally");
      edges->push_back(Json{{"kind", "fan-out"}, {"from", exit()}, {"to", Json::array({c1, c2})}});
      break;
    }
    default: {
      const std::string c1 = counter("k", "tally");
      const std::string c2 = counter("k", "tally");
      edges->push_back(Json{{"kind", "direct"}, {"from", exit()}, {"to", c1}});
      edges->push_back(Json{{"kind", "direct"}, {"from", c1}, {"to", c2}});
      break;
    }
  }
}

}  // namespace

std::string GenerateWorkflow(uint64_t seed, int index) {
  Rng rng(DeriveSeed(seed, "differential-workflow|" + std::to_string(index)));
  const std::string name = "gen-" + std::to_string(seed) + "-" + std::to_string(index);
  const bool flag = rng.Bernoulli(0.5);
  Json executors = Json::array();
  Json edges = Json::array();
  std::vector<Stage> stages;
  std::set<std::string> fed;  // executors that already have an incoming edge
  int next = 0;
  const int count = 2 + static_cast<int>(rng.Uniform(6));  // stages
  for (int s = 0; s < count; ++s) {
    const uint64_t kind = s == 0 ? 0 : rng.Uniform(4);  // the start is never a port
    if (kind == 3) {
      const std::string ask = Id(next++), port = Id(next++);
      executors.push_back(Json{{"id", ask},
                               {"kind", "transform"},
                               {"emit", "Req" + port},
                               {"set", Json{{"asked_" + port, true}}}});
      Json responses = Json::array();
      if (rng.Bernoulli(0.3)) {  // only some requests are answered: the rest stay pending
        responses.push_back(Json{{"when", Json{{"field", "flag"}, {"equals", !flag}}},
                                 {"body", Json{{"approved", true}}}});
      } else {
        const bool approved = rng.Bernoulli(0.5);
        responses.push_back(Json{{"body", Json{{"approved", approved}, {"by", port}}}});
      }
      executors.push_back(Json{{"id", port},
                               {"kind", "request-port"},
                               {"request_type", "Req" + port},
                               {"response_type", "Resp" + port},
                               {"responses", responses}});
      edges.push_back(Json{{"kind", "direct"}, {"from", ask}, {"to", port}});
      fed.insert(port);
      stages.push_back({ask, port, true});
    } else {
      const std::string id = Id(next++);
      if (kind == 0) {
        executors.push_back(Json{{"id", id}, {"kind", "pass-through"}});
      } else if (kind == 1) {
        executors.push_back(Json{{"id", id},
                                 {"kind", "transform"},
                                 {"emit", "T" + id},
                                 {"set", Json{{"seen_" + id, static_cast<int>(rng.Uniform(10))}}}});
      } else {
        executors.push_back(
            Json{{"id", id}, {"kind", "effect"}, {"key", "{id}-" + id}, {"emit", "Done" + id}});
      }
      stages.push_back({id, id, false});
    }
  }
  // Feed every stage after the first from earlier exits.
  for (int s = 1; s < count; ++s) {
    if (fed.count(stages[s].entry) > 0) continue;
    const uint64_t how = rng.Uniform(6);
    const int from = static_cast<int>(rng.Uniform(s));
    if (how == 0 && s >= 2) {  // fan-in from two distinct earlier exits
      int other = static_cast<int>(rng.Uniform(s - 1));
      if (other >= from) ++other;
      edges.push_back(Json{{"kind", "fan-in"},
                           {"sources", Json::array({stages[from].exit, stages[other].exit})},
                           {"sink", stages[s].entry}});
      fed.insert(stages[s].entry);
    } else if (how == 1 && s + 1 < count && fed.count(stages[s + 1].entry) == 0) {
      edges.push_back(Json{{"kind", "fan-out"},
                           {"from", stages[from].exit},
                           {"to", Json::array({stages[s].entry, stages[s + 1].entry})}});
      fed.insert(stages[s].entry);
      fed.insert(stages[s + 1].entry);
    } else {
      Json edge{{"kind", "direct"}, {"from", stages[from].exit}, {"to", stages[s].entry}};
      if (how == 2) edge["when"] = Json{{"field", "flag"}, {"equals", rng.Bernoulli(0.5)}};
      if (how == 3 && stages[from].ask) {
        edge["when"] = Json{{"field", "approved"}, {"equals", rng.Bernoulli(0.5)}};
      }
      edges.push_back(std::move(edge));
      fed.insert(stages[s].entry);
    }
  }
  Json outputs = Json::array();
  for (const Stage& st : stages) {
    if (!st.ask) outputs.push_back(st.exit);
  }
  AddCounters(seed, index, stages, next, &executors, &edges, &outputs);
  Json doc{{"name", name},
           {"description", "generated by `stepfault differential` (seed " + std::to_string(seed) +
                               ", workflow " + std::to_string(index) + ")"},
           {"input",
            Json{{"type", "Input"}, {"body", Json{{"id", name}, {"flag", flag}, {"n", index}}}}},
           {"start", stages[0].entry},
           {"executors", executors},
           {"edges", edges},
           {"outputs", outputs},
           {"expect", Json{{"effects", Json::array()}, {"outputs", Json::array()}}}};
  return doc.dump(2) + "\n";
}

}  // namespace stepfault::properties
