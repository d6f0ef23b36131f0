// Builds a scenario's workflow on MAF: one FunctionExecutor<Msg> per declared executor (a request port is MAF's
// RequestPort<Msg, Msg>), edges in document order, outputs from the listed executors. The handlers do what
// scenarios/json/json_scenario_spec.cc does in the C++ engine: every executor yields what it emits as output and
// sends it along its edges; a counter keeps its count in MAF's own state (private, or a named shared scope), and a
// clear deletes it (a null update). Effects and fail-once markers live in a Host that outlives each workflow
// instance, as the effect database and marker files outlive a process in the C++ host, so a resume replays an
// effect's stored row and a fail-once executor fails only its first invocation in the whole runner process.
using System.Text.Json.Nodes;
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Runner;

public sealed class Host
{
    public Dictionary<string, string> Effects { get; } = new(StringComparer.Ordinal);
    public HashSet<string> FailedOnce { get; } = new(StringComparer.Ordinal);
    readonly object _lock = new();

    public string ApplyEffect(string key, string value)
    {
        lock (this._lock)
        {
            if (!this.Effects.TryGetValue(key, out string? stored)) { this.Effects[key] = stored = value; }
            return stored;
        }
    }

    public bool FirstFailure(string id) { lock (this._lock) { return this.FailedOnce.Add(id); } }
}

public static class MafWorkflow
{
    public static Workflow Build(ScenarioDef def, Host host)
    {
        var bindings = new Dictionary<string, ExecutorBinding>(StringComparer.Ordinal);
        foreach (ExecutorDef e in def.Executors)
        {
            bindings[e.Id] = e.Kind == "request-port"
                ? RequestPort.Create<Msg, Msg>(e.Id)
                : new FunctionExecutor<Msg>(e.Id, Handler(e, host), sentMessageTypes: [typeof(Msg)],
                                            outputTypes: [typeof(Msg)]);
        }
        var builder = new WorkflowBuilder(bindings[def.Start]);
        foreach (EdgeDef e in def.Edges)
        {
            switch (e.Kind)
            {
                case "direct":
                    Condition? when = e.When;
                    if (when is null) builder.AddEdge(bindings[e.Sources[0]], bindings[e.Sinks[0]]);
                    else builder.AddEdge<Msg>(bindings[e.Sources[0]], bindings[e.Sinks[0]],
                                              m => m is not null && when.Matches(m.BodyObject()));
                    break;
                case "fan-out":
                    builder.AddFanOutEdge(bindings[e.Sources[0]], e.Sinks.Select(s => bindings[s]));
                    break;
                case "fan-in":
                    builder.AddFanInBarrierEdge(e.Sources.Select(s => bindings[s]), bindings[e.Sinks[0]]);
                    break;
                default: throw new FormatException($"unknown edge kind '{e.Kind}'");
            }
        }
        builder.WithOutputFrom(def.Outputs.Select(o => bindings[o]).ToArray());
        return builder.Build(validateOrphans: false);
    }

    static async ValueTask Emit(IWorkflowContext ctx, Msg m, CancellationToken ct)
    {
        await ctx.YieldOutputAsync(m, ct);
        await ctx.SendMessageAsync(m, null, ct);
    }

    static Func<Msg, IWorkflowContext, CancellationToken, ValueTask> Handler(ExecutorDef e, Host host) => e.Kind switch
    {
        "pass-through" => (m, ctx, ct) => Emit(ctx, m, ct),
        "transform" => (m, ctx, ct) =>
        {
            JsonObject body = m.BodyObject();
            foreach (var kv in e.Set) body[kv.Key] = kv.Value?.DeepClone();
            return Emit(ctx, new Msg(e.Emit, body), ct);
        },
        "effect" => (m, ctx, ct) =>
        {
            JsonObject body = m.BodyObject();
            string key = ExpandKey(e.KeyTemplate, body);
            JsonObject stored = JsonNode.Parse(host.ApplyEffect(key, Canonical.Dump(body)))!.AsObject();
            stored["effect_key"] = key;
            return Emit(ctx, new Msg(e.Emit, stored), ct);
        },
        "counter" => async (m, ctx, ct) =>
        {
            // Absent reads as 0; the update is queued and published at the end of the step (null scope = private).
            int n = await ctx.ReadStateAsync<int>(e.KeyTemplate, e.Scope, ct) + 1;
            await ctx.QueueStateUpdateAsync(e.KeyTemplate, n, e.Scope, ct);
            JsonObject body = m.BodyObject();
            body[$"count_{e.Id}"] = n;
            await Emit(ctx, new Msg(m.Type, body), ct);
        },
        "clear" => async (m, ctx, ct) =>
        {
            // Absent reads as 0; a null update deletes the key (MAF StateUpdate: a null value is a delete).
            int n = await ctx.ReadStateAsync<int>(e.KeyTemplate, e.Scope, ct);
            await ctx.QueueStateUpdateAsync<object>(e.KeyTemplate, null, e.Scope, ct);
            JsonObject body = m.BodyObject();
            body[$"cleared_{e.Id}"] = n;
            await Emit(ctx, new Msg(m.Type, body), ct);
        },
        "fail-once" => (m, ctx, ct) =>
        {
            if (host.FirstFailure(e.Id))
                throw new InvalidOperationException($"fail-once '{e.Id}' fails its first invocation (by design)");
            return Emit(ctx, m, ct);
        },
        _ => throw new FormatException($"unknown executor kind '{e.Kind}'"),
    };

    // "{op}-{id}" filled from the body: strings as they are, other values as canonical JSON.
    public static string ExpandKey(string template, JsonObject body)
    {
        var out_ = new System.Text.StringBuilder();
        int i = 0;
        while (i < template.Length)
        {
            int open = template.IndexOf('{', i);
            if (open < 0) { out_.Append(template, i, template.Length - i); break; }
            int close = template.IndexOf('}', open);
            if (close < 0) throw new InvalidOperationException($"key template '{template}' has an unclosed '{{'");
            out_.Append(template, i, open - i);
            string field = template[(open + 1)..close];
            if (!body.TryGetPropertyValue(field, out JsonNode? v))
                throw new InvalidOperationException($"key template '{template}' names field '{field}' the body lacks");
            out_.Append(v is JsonValue jv && jv.TryGetValue(out string? s) ? s : Canonical.Dump(v));
            i = close + 1;
        }
        return out_.ToString();
    }

    public static Msg? Respond(ExecutorDef port, Msg request)
    {
        JsonObject reqBody = request.BodyObject();
        foreach (ScriptedResponse r in port.Responses)
        {
            if (r.When is not null && !r.When.Matches(reqBody)) continue;
            JsonObject body = reqBody.DeepClone().AsObject();
            foreach (var kv in r.Body) body[kv.Key] = kv.Value?.DeepClone();
            return new Msg(port.ResponseType, body);
        }
        return null;
    }
}
