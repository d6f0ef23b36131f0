// The workflow a JSON scenario document describes: one FunctionExecutor per declared executor (a
// request port is the engine's own port), edges in document order (so EdgeIds follow the file).
// Every executor sends what it emits along its edges and also yields it as output (dropped unless
// the executor is listed in "outputs"). A counter keeps its count in the engine's state scopes, so
// a checkpoint carries it and a restore brings it back.
#include "scenarios/json/json_scenario_internal.h"

namespace stepfault::scenarios {
namespace {

Status Emit(WorkflowContext& ctx, Message message) {
  ctx.YieldOutput(message);
  ctx.SendMessage(std::move(message));
  return Status::Ok();
}

HandlerFn Handler(const JsonExecutorDef& def, const JsonRuntime* runtime) {
  const std::string id = def.id;
  switch (def.kind) {
    case JsonExecutorKind::kPassThrough:
      return [](const Message& m, WorkflowContext& ctx) { return Emit(ctx, m); };
    case JsonExecutorKind::kTransform:
      return [id, emit = def.emit, set = def.set](const Message& m, WorkflowContext& ctx) {
        if (!m.body.is_object()) {
          return Status::HandlerFailed("transform '" + id + "' needs an object body, got " +
                                       m.body.dump());
        }
        Json body = m.body;
        body.update(set);
        return Emit(ctx, Message{emit, std::move(body)});
      };
    case JsonExecutorKind::kEffect:
      return [id, emit = def.emit, key_template = def.key_template, runtime](const Message& m,
                                                                             WorkflowContext& ctx) {
        SF_CHECK(runtime != nullptr && runtime->effects != nullptr);
        if (!m.body.is_object()) {
          return Status::HandlerFailed("effect '" + id + "' needs an object body, got " +
                                       m.body.dump());
        }
        auto key = ExpandJsonKeyTemplate(key_template, m.body);
        if (!key.ok())
          return Status::HandlerFailed("effect '" + id + "': " + key.status().message());
        SF_ASSIGN_OR_RETURN(EffectRow row, runtime->effects->Apply(*key, m.body.dump()));
        // A replay emits what the first attempt stored, not what it was given this time.
        Json stored = Json::parse(row.value, nullptr, /*allow_exceptions=*/false);
        if (!stored.is_object()) {
          return Status::Corruption("effect row '" + row.key +
                                    "' does not hold a JSON object: " + row.value);
        }
        stored["effect_key"] = row.key;
        return Emit(ctx, Message{emit, std::move(stored)});
      };
    case JsonExecutorKind::kFailOnce:
      return [id, runtime](const Message& m, WorkflowContext& ctx) {
        SF_CHECK(runtime != nullptr && runtime->env != nullptr);
        const std::string marker = "fail-once-" + id + ".done";
        SF_ASSIGN_OR_RETURN(bool failed_before,
                            runtime->env->FileExists(JoinPath(runtime->dir, marker)));
        if (failed_before) return Emit(ctx, m);
        // The marker is durable before the failure is reported, so later lives pass. A life that
        // dies before that never reported the failure; the next invocation fails instead.
        SF_RETURN_IF_ERROR(
            WriteFileAtomically(runtime->env, runtime->dir, marker, "failed once\n"));
        return Status::HandlerFailed(
            "fail-once '" + id + "' fails its first invocation of the scenario run (by design)");
      };
    case JsonExecutorKind::kCounter:
    case JsonExecutorKind::kClear:
      return
          [id, key = def.state_key, scope = def.scope,
           clear = def.kind == JsonExecutorKind::kClear](const Message& m, WorkflowContext& ctx) {
            const std::string what = std::string(clear ? "clear '" : "counter '") + id + "'";
            if (!m.body.is_object()) {
              return Status::HandlerFailed(what + " needs an object body, got " + m.body.dump());
            }
            // Absent counts as 0. The read sees this executor's own write queued earlier in the
            // step; the update is published at the end of the step, where a second writer of the
            // same shared key is a state conflict (docs/engine-semantics.md 1.5).
            const std::optional<Json> seen = ctx.ReadState(key, scope);
            if (seen && !seen->is_number_integer()) {
              return Status::HandlerFailed(what + ": state key '" + key + "' holds a non-integer " +
                                           seen->dump());
            }
            const int64_t n = seen ? seen->get<int64_t>() : 0;
            Json body = m.body;
            if (clear) {
              // A removal (the scope goes with its last key, engine/state_map.h), queued as any
              // update; the message carries the count it removed, so an output shows what was held.
              ctx.QueueStateUpdate(key, std::nullopt, scope);
              body["cleared_" + id] = n;
            } else {
              ctx.QueueStateUpdate(key, Json(n + 1), scope);
              body["count_" + id] = n + 1;
            }
            return Emit(ctx, Message{m.type, std::move(body)});
          };
    case JsonExecutorKind::kRequestPort:
      break;
  }
  SF_CHECK(false && "request ports have no handler");
  return nullptr;
}

const char* TypeName(JsonExecutorKind kind) {
  switch (kind) {
    case JsonExecutorKind::kPassThrough:
      return "PassThrough";
    case JsonExecutorKind::kTransform:
      return "Transform";
    case JsonExecutorKind::kEffect:
      return "Effect";
    case JsonExecutorKind::kFailOnce:
      return "FailOnce";
    case JsonExecutorKind::kCounter:
      return "Counter";
    case JsonExecutorKind::kClear:
      return "Clear";
    case JsonExecutorKind::kRequestPort:
      return "RequestPort";
  }
  return "";
}

}  // namespace

Result<std::string> ExpandJsonKeyTemplate(const std::string& key_template, const Json& body) {
  std::string out;
  size_t i = 0;
  while (i < key_template.size()) {
    const size_t open = key_template.find('{', i);
    if (open == std::string::npos) {
      out += key_template.substr(i);
      break;
    }
    const size_t close = key_template.find('}', open);
    if (close == std::string::npos) {
      return Status::InvalidArgument("key template '" + key_template + "' has an unclosed '{'");
    }
    out += key_template.substr(i, open - i);
    const std::string field = key_template.substr(open + 1, close - open - 1);
    if (!body.is_object() || !body.contains(field)) {
      return Status::InvalidArgument("key template '" + key_template + "' names field '" + field +
                                     "' that the message body lacks: " + body.dump());
    }
    const Json& v = body[field];
    out += v.is_string() ? v.get<std::string>() : v.dump();
    i = close + 1;
  }
  return out;
}

WorkflowSpec JsonScenarioSpec(const JsonScenarioDef& def, const JsonRuntime* runtime) {
  WorkflowSpec spec;
  spec.start_id = def.start;
  for (const JsonExecutorDef& e : def.executors) {
    if (e.kind == JsonExecutorKind::kRequestPort) {
      spec.ports.push_back({e.id, e.request_type, e.response_type});
      continue;
    }
    spec.executors.push_back(FunctionExecutor(e.id, TypeName(e.kind), {"*"}, Handler(e, runtime)));
  }
  for (const JsonEdgeDef& e : def.edges) {
    EdgeCondition condition;
    if (e.when) {
      condition = [when = *e.when](const Message& m) { return when.Matches(m.body); };
    }
    spec.edges.push_back({e.kind, e.sources, e.sinks, condition, nullptr});
  }
  spec.outputs = def.outputs;
  return spec;
}

std::optional<Message> ScriptedResponse(const JsonExecutorDef& port, const Message& request) {
  for (const JsonScriptedResponse& r : port.responses) {
    if (r.when && !r.when->Matches(request.body)) continue;
    Json body = request.body.is_object() ? request.body : Json::object();
    body.update(r.body);
    return Message{port.response_type, std::move(body)};
  }
  return std::nullopt;
}

}  // namespace stepfault::scenarios
