// Parsing and validation of JSON scenario documents. Every rejection names the JSON pointer of the
// offending value and the reason, so an author can fix the file without reading this code.
#include <algorithm>

#include "engine/json_text.h"
#include "scenarios/json/json_scenario_internal.h"

namespace stepfault::scenarios {
namespace {

struct KindName {
  const char* name;
  JsonExecutorKind kind;
};
constexpr KindName kKinds[] = {{"pass-through", JsonExecutorKind::kPassThrough},
                               {"transform", JsonExecutorKind::kTransform},
                               {"effect", JsonExecutorKind::kEffect},
                               {"request-port", JsonExecutorKind::kRequestPort},
                               {"fail-once", JsonExecutorKind::kFailOnce},
                               {"counter", JsonExecutorKind::kCounter},
                               {"clear", JsonExecutorKind::kClear}};

std::string KindList() {
  std::string out;
  for (const KindName& k : kKinds) out += (out.empty() ? "" : ", ") + std::string(k.name);
  return out;
}

// Collects the first problem; every check after it is a no-op so the first reason is reported.
class Parser {
 public:
  explicit Parser(std::string source) : source_(std::move(source)) {}

  bool ok() const { return error_.empty(); }
  Status status() const {
    return Status::InvalidArgument(source_ + ": " + error_ +
                                   " (see the format in scenarios/json/json_scenario.h)");
  }
  void Fail(const std::string& path, const std::string& reason) {
    if (ok()) error_ = (path.empty() ? "/" : path) + ": " + reason;
  }

  // Rejects members outside `allowed` (typos would otherwise be ignored silently).
  void OnlyKeys(const Json& j, const std::string& path,
                std::initializer_list<const char*> allowed) {
    for (const auto& item : j.items()) {
      const std::string& key = item.key();  // a plain reference: clang 14 (the fuzz build)
                                            // cannot capture a structured binding
      bool known =
          std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        Fail(path + "/" + key, "unknown field; expected one of " + list);
      }
    }
  }
  const Json* Member(const Json& j, const std::string& path, const char* key, Json::value_t type,
                     const char* type_name, bool required) {
    if (!ok()) return nullptr;
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) Fail(path + "/" + key, std::string("missing; expected ") + type_name);
      return nullptr;
    }
    if (it->type() != type) {
      Fail(path + "/" + key, std::string("expected ") + type_name + ", got " + it->type_name());
      return nullptr;
    }
    return &*it;
  }
  std::string String(const Json& j, const std::string& path, const char* key,
                     bool required = true) {
    const Json* v = Member(j, path, key, Json::value_t::string, "a string", required);
    if (v == nullptr) return "";
    if (v->get<std::string>().empty()) Fail(path + "/" + key, "must not be empty");
    return v->get<std::string>();
  }
  const Json* Object(const Json& j, const std::string& path, const char* key,
                     bool required = true) {
    return Member(j, path, key, Json::value_t::object, "an object", required);
  }
  const Json* Array(const Json& j, const std::string& path, const char* key, bool required = true) {
    return Member(j, path, key, Json::value_t::array, "an array", required);
  }
  std::vector<std::string> Ids(const Json& j, const std::string& path, const char* key) {
    std::vector<std::string> out;
    const Json* a = Array(j, path, key);
    if (a == nullptr) return out;
    if (a->empty()) Fail(path + "/" + key, "must name at least one executor");
    for (size_t i = 0; i < a->size() && ok(); ++i) {
      if (!(*a)[i].is_string())
        Fail(path + "/" + key + "/" + std::to_string(i), "expected a string");
      else
        out.push_back((*a)[i].get<std::string>());
    }
    return out;
  }
  std::optional<JsonCondition> Condition(const Json& j, const std::string& path) {
    const Json* c = Object(j, path, "when", false);
    if (c == nullptr) return std::nullopt;
    const std::string p = path + "/when";
    OnlyKeys(*c, p, {"field", "equals"});
    JsonCondition out;
    out.field = String(*c, p, "field");
    if (ok() && !c->contains("equals"))
      Fail(p + "/equals", "missing; expected the value to compare with");
    if (ok()) out.equals = (*c)["equals"];
    return out;
  }

 private:
  std::string source_;
  std::string error_;
};

void ParseExecutor(Parser& p, const Json& e, const std::string& path, JsonExecutorDef* out) {
  if (!e.is_object()) return p.Fail(path, "expected an object {\"id\", \"kind\", ...}");
  out->id = p.String(e, path, "id");
  const std::string kind = p.String(e, path, "kind");
  if (!p.ok()) return;
  const KindName* found = std::find_if(std::begin(kKinds), std::end(kKinds),
                                       [&](const KindName& k) { return kind == k.name; });
  if (found == std::end(kKinds)) {
    return p.Fail(path + "/kind", "unknown kind '" + kind + "'; expected one of " + KindList());
  }
  out->kind = found->kind;
  switch (out->kind) {
    case JsonExecutorKind::kPassThrough:
    case JsonExecutorKind::kFailOnce:
      p.OnlyKeys(e, path, {"id", "kind"});
      break;
    case JsonExecutorKind::kTransform: {
      p.OnlyKeys(e, path, {"id", "kind", "emit", "set"});
      out->emit = p.String(e, path, "emit");
      const Json* set = p.Object(e, path, "set", false);
      if (set != nullptr) out->set = *set;
      break;
    }
    case JsonExecutorKind::kEffect:
      p.OnlyKeys(e, path, {"id", "kind", "key", "emit"});
      out->key_template = p.String(e, path, "key");
      out->emit = e.contains("emit") ? p.String(e, path, "emit") : "Effect";
      if (p.ok() && out->key_template.find('{') == std::string::npos) {
        p.Fail(path + "/key",
               "a constant key makes every message one effect; name a field, e.g. \"{op}-{id}\"");
      }
      break;
    case JsonExecutorKind::kCounter:
    case JsonExecutorKind::kClear:
      p.OnlyKeys(e, path, {"id", "kind", "key", "scope"});
      out->state_key = p.String(e, path, "key");
      out->scope = e.contains("scope") ? p.String(e, path, "scope") : "";
      // The differential's trace names a state entry "<scope>||<key>" (docs/engine-semantics.md
      // 11.2), and MAF's checkpoint keys use '|' as their separator.
      for (const auto& [member, value] :
           {std::pair{"/key", &out->state_key}, {"/scope", &out->scope}}) {
        if (p.ok() && value->find('|') != std::string::npos)
          p.Fail(path + member, "'" + *value + "' must not contain '|'");
      }
      break;
    case JsonExecutorKind::kRequestPort: {
      p.OnlyKeys(e, path, {"id", "kind", "request_type", "response_type", "responses"});
      out->request_type = p.String(e, path, "request_type");
      out->response_type = p.String(e, path, "response_type");
      if (p.ok() && out->request_type == out->response_type) {
        p.Fail(path + "/response_type",
               "must differ from request_type '" + out->request_type + "'");
      }
      const Json* responses = p.Array(e, path, "responses");
      if (responses == nullptr) break;
      if (responses->empty()) p.Fail(path + "/responses", "must script at least one response");
      for (size_t i = 0; i < responses->size() && p.ok(); ++i) {
        const std::string rp = path + "/responses/" + std::to_string(i);
        const Json& r = (*responses)[i];
        if (!r.is_object())
          return p.Fail(rp, "expected an object {\"body\": {...}, \"when\": {...}}");
        p.OnlyKeys(r, rp, {"body", "when"});
        JsonScriptedResponse response;
        response.when = p.Condition(r, rp);
        const Json* body = p.Object(r, rp, "body");
        if (body != nullptr) response.body = *body;
        out->responses.push_back(std::move(response));
      }
      break;
    }
  }
}

void ParseEdge(Parser& p, const Json& e, const std::string& path, JsonEdgeDef* out) {
  if (!e.is_object()) return p.Fail(path, "expected an object {\"kind\", ...}");
  const std::string kind = p.String(e, path, "kind");
  if (!p.ok()) return;
  if (kind == "direct") {
    p.OnlyKeys(e, path, {"kind", "from", "to", "when"});
    out->kind = EdgeKind::kDirect;
    out->sources = {p.String(e, path, "from")};
    out->sinks = {p.String(e, path, "to")};
    out->when = p.Condition(e, path);
  } else if (kind == "fan-out") {
    p.OnlyKeys(e, path, {"kind", "from", "to"});
    out->kind = EdgeKind::kFanOut;
    out->sources = {p.String(e, path, "from")};
    out->sinks = p.Ids(e, path, "to");
  } else if (kind == "fan-in") {
    p.OnlyKeys(e, path, {"kind", "sources", "sink"});
    out->kind = EdgeKind::kFanIn;
    out->sources = p.Ids(e, path, "sources");
    out->sinks = {p.String(e, path, "sink")};
  } else {
    p.Fail(path + "/kind",
           "unknown edge kind '" + kind + "'; expected one of direct, fan-out, fan-in");
  }
}

// Every id an edge names must be declared: reported at the member that names it.
void CheckEdgeIds(Parser& p, const JsonScenarioDef& def) {
  for (size_t i = 0; i < def.edges.size() && p.ok(); ++i) {
    const JsonEdgeDef& e = def.edges[i];
    const std::string path = "/edges/" + std::to_string(i);
    const bool fan_in = e.kind == EdgeKind::kFanIn;
    const bool fan_out = e.kind == EdgeKind::kFanOut;
    for (size_t s = 0; s < e.sources.size(); ++s) {
      if (def.Find(e.sources[s]) != nullptr) continue;
      p.Fail(fan_in ? path + "/sources/" + std::to_string(s) : path + "/from",
             "unknown executor '" + e.sources[s] + "'");
    }
    for (size_t s = 0; s < e.sinks.size(); ++s) {
      if (def.Find(e.sinks[s]) != nullptr) continue;
      p.Fail(fan_in    ? path + "/sink"
             : fan_out ? path + "/to/" + std::to_string(s)
                       : path + "/to",
             "unknown executor '" + e.sinks[s] + "'");
    }
  }
}

void ParseExpect(Parser& p, const Json& root, JsonScenarioDef* def) {
  const Json* expect = p.Object(root, "", "expect");
  if (expect == nullptr) return;
  p.OnlyKeys(*expect, "/expect", {"effects", "outputs"});
  const Json* effects = p.Array(*expect, "/expect", "effects");
  for (size_t i = 0; effects != nullptr && i < effects->size() && p.ok(); ++i) {
    const std::string path = "/expect/effects/" + std::to_string(i);
    const Json& e = (*effects)[i];
    if (!e.is_object()) return p.Fail(path, "expected an object {\"key\", \"value\"}");
    p.OnlyKeys(e, path, {"key", "value"});
    JsonExpectedEffect effect;
    effect.key = p.String(e, path, "key");
    if (p.ok() && !e.contains("value"))
      p.Fail(path + "/value", "missing; expected the row's value");
    if (!p.ok()) return;
    effect.value = e["value"];
    for (const JsonExpectedEffect& other : def->expected_effects) {
      if (other.key == effect.key)
        p.Fail(path + "/key", "duplicate effect key '" + effect.key + "'");
    }
    def->expected_effects.push_back(std::move(effect));
  }
  const Json* outputs = p.Array(*expect, "/expect", "outputs");
  for (size_t i = 0; outputs != nullptr && i < outputs->size() && p.ok(); ++i) {
    const std::string path = "/expect/outputs/" + std::to_string(i);
    const Json& o = (*outputs)[i];
    if (!o.is_object())
      return p.Fail(path, "expected an object {\"executor\", \"type\", \"body\"}");
    p.OnlyKeys(o, path, {"executor", "type", "body"});
    const std::string executor = p.String(o, path, "executor");
    const std::string type = p.String(o, path, "type");
    const Json* body = p.Object(o, path, "body");
    if (!p.ok()) return;
    if (std::find(def->outputs.begin(), def->outputs.end(), executor) == def->outputs.end()) {
      return p.Fail(path + "/executor", "'" + executor + "' is not listed in /outputs");
    }
    def->expected_outputs.push_back(JsonOutputRecord(executor, Message{type, *body}));
  }
}

}  // namespace

bool JsonCondition::Matches(const Json& body) const {
  return body.is_object() && body.contains(field) && body[field] == equals;
}

const JsonExecutorDef* JsonScenarioDef::Find(const std::string& id) const {
  if (index.size() == executors.size()) {
    auto it = index.find(id);
    return it == index.end() ? nullptr : &executors[it->second];
  }
  for (const JsonExecutorDef& e : executors) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

Json JsonOutputRecord(const std::string& executor, const Message& message) {
  return Json{{"executor", executor}, {"type", message.type}, {"body", message.body}};
}

Result<JsonScenarioDef> ParseJsonScenarioDef(std::string_view text,
                                             const std::string& source_name) {
  Parser p(source_name);
  if (text.size() > kMaxJsonScenarioBytes) {
    return Status::InvalidArgument(source_name + ": the file is " + std::to_string(text.size()) +
                                   " bytes; a JSON scenario may have at most " +
                                   std::to_string(kMaxJsonScenarioBytes));
  }
  Result<Json> parsed = ParseJsonText(text, source_name);
  if (!parsed.ok()) return parsed.status();
  const Json root = std::move(parsed).value();
  if (!root.is_object()) p.Fail("", "expected an object at the top level");
  if (!p.ok()) return p.status();
  p.OnlyKeys(root, "",
             {"name", "description", "input", "start", "executors", "edges", "outputs", "expect",
              "max_steps", "full_every", "live_restore"});
  JsonScenarioDef def;
  def.source_name = source_name;
  def.name = p.String(root, "", "name");
  // The name appears in replay commands and session ids: keep it shell- and file-name-safe.
  if (p.ok() && !std::all_of(def.name.begin(), def.name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
      })) {
    p.Fail("/name", "'" + def.name + "' may use only a-z, 0-9, '-', '_' and '.'");
  }
  def.description = p.String(root, "", "description");
  if (const Json* input = p.Object(root, "", "input")) {
    p.OnlyKeys(*input, "/input", {"type", "body"});
    def.input.type = p.String(*input, "/input", "type");
    const Json* body = p.Object(*input, "/input", "body");
    if (body != nullptr) def.input.body = *body;
  }
  def.start = p.String(root, "", "start");
  const Json* executors = p.Array(root, "", "executors");
  if (executors != nullptr && executors->empty())
    p.Fail("/executors", "must declare at least one executor");
  if (executors != nullptr && executors->size() > kMaxJsonScenarioExecutors) {
    p.Fail("/executors", "declares " + std::to_string(executors->size()) +
                             " executors; the supported size is at most " +
                             std::to_string(kMaxJsonScenarioExecutors) + ": " +
                             kJsonScenarioSizeReason + " (docs/inputs.md)");
  }
  for (size_t i = 0; executors != nullptr && i < executors->size() && p.ok(); ++i) {
    const std::string path = "/executors/" + std::to_string(i);
    JsonExecutorDef e;
    ParseExecutor(p, (*executors)[i], path, &e);
    if (p.ok() && !def.index.emplace(e.id, def.executors.size()).second)
      p.Fail(path + "/id", "duplicate executor id '" + e.id + "'");
    def.executors.push_back(std::move(e));
  }
  if (p.ok() && def.Find(def.start) == nullptr)
    p.Fail("/start", "unknown executor '" + def.start + "'");
  if (p.ok() && def.Find(def.start)->kind == JsonExecutorKind::kRequestPort) {
    p.Fail("/start", "request port '" + def.start +
                         "' cannot start a run; start with an executor that sends to it");
  }
  const Json* edges = p.Array(root, "", "edges");
  if (edges != nullptr && edges->size() > kMaxJsonScenarioEdges) {
    p.Fail("/edges", "declares " + std::to_string(edges->size()) +
                         " edges; the supported size is at most " +
                         std::to_string(kMaxJsonScenarioEdges) + ": " + kJsonScenarioSizeReason +
                         " (docs/inputs.md)");
  }
  for (size_t i = 0; edges != nullptr && i < edges->size() && p.ok(); ++i) {
    JsonEdgeDef e;
    ParseEdge(p, (*edges)[i], "/edges/" + std::to_string(i), &e);
    def.edges.push_back(std::move(e));
  }
  if (p.ok()) CheckEdgeIds(p, def);
  if (const Json* max_steps = p.Member(root, "", "max_steps", Json::value_t::number_unsigned,
                                       "a positive integer", false)) {
    const uint64_t n = max_steps->get<uint64_t>();
    if (n < 1 || n > kMaxJsonScenarioSteps) {
      p.Fail("/max_steps", "must be 1.." + std::to_string(kMaxJsonScenarioSteps));
    } else {
      def.max_steps = static_cast<int64_t>(n);
    }
  }
  if (const Json* full_every = p.Member(root, "", "full_every", Json::value_t::number_unsigned,
                                        "a positive integer", false)) {
    const uint64_t n = full_every->get<uint64_t>();
    if (n < 1 || n > kMaxJsonScenarioFullEvery) {
      p.Fail("/full_every", "must be 1.." + std::to_string(kMaxJsonScenarioFullEvery) +
                                " (1: every checkpoint full)");
    } else {
      def.full_every = static_cast<int>(n);
    }
  }
  if (const Json* restore = p.Object(root, "", "live_restore", false)) {
    p.OnlyKeys(*restore, "/live_restore", {"to_step"});
    if (const Json* to =
            p.Member(*restore, "/live_restore", "to_step", Json::value_t::number_unsigned,
                     "a step number (0, 1, ...)", true)) {
      const uint64_t step = to->get<uint64_t>();
      if (step >= static_cast<uint64_t>(def.max_steps)) {
        p.Fail("/live_restore/to_step", "step " + std::to_string(step) +
                                            " is never reached: a life runs at most max_steps (" +
                                            std::to_string(def.max_steps) + ") steps");
      } else {
        def.live_restore_step = static_cast<int64_t>(step);
      }
    }
  }
  def.outputs = p.Ids(root, "", "outputs");
  for (size_t i = 0; i < def.outputs.size() && p.ok(); ++i) {
    if (def.Find(def.outputs[i]) == nullptr) {
      p.Fail("/outputs/" + std::to_string(i), "unknown executor '" + def.outputs[i] + "'");
    }
  }
  ParseExpect(p, root, &def);
  if (!p.ok()) return p.status();
  // Whatever the builder still finds (a request port whose id clashes, ...) is a topology error.
  auto built = JsonScenarioSpec(def, nullptr).Build();
  if (!built.ok()) {
    p.Fail("/edges", built.status().message());
    return p.status();
  }
  return def;
}

}  // namespace stepfault::scenarios
