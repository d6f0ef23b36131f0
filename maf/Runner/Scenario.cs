// The part of a Stepfault JSON scenario (scenarios/json/json_scenario.h) that shapes a workflow: executors, edges,
// outputs, the input and the request ports' scripted responses. "expect" and "description" are read past: the
// differential compares two engines with each other, not with the file's expected outcome. Validation is the C++
// parser's job; this reader rejects only what it cannot build, naming the member.
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner;

public sealed record Condition(string Field, JsonNode? EqualsValue)
{
    public bool Matches(JsonObject body) =>
        body.TryGetPropertyValue(this.Field, out JsonNode? v) && JsonNode.DeepEquals(v, this.EqualsValue);
}

public sealed record ScriptedResponse(Condition? When, JsonObject Body);

// Scope: a counter's state scope name, null for the executor's private scope.
public sealed record ExecutorDef(string Id, string Kind, string Emit, JsonObject Set, string KeyTemplate,
                                 string RequestType, string ResponseType, List<ScriptedResponse> Responses,
                                 string? Scope);

public sealed record EdgeDef(string Kind, List<string> Sources, List<string> Sinks, Condition? When);

public sealed class ScenarioDef
{
    public string Name { get; init; } = "";
    public string Start { get; init; } = "";
    public Msg Input { get; init; } = new();
    public List<ExecutorDef> Executors { get; } = [];
    public List<EdgeDef> Edges { get; } = [];
    public List<string> Outputs { get; } = [];

    public ExecutorDef? Find(string id) => this.Executors.FirstOrDefault(e => e.Id == id);

    public static ScenarioDef Parse(string text)
    {
        JsonObject root = JsonNode.Parse(text)?.AsObject() ?? throw new FormatException("/: expected an object");
        JsonObject input = Obj(root, "input");
        var def = new ScenarioDef
        {
            Name = Str(root, "name"),
            Start = Str(root, "start"),
            Input = new Msg(Str(input, "type"), Obj(input, "body")),
        };
        foreach (JsonNode? e in Arr(root, "executors"))
        {
            JsonObject o = e!.AsObject();
            var responses = new List<ScriptedResponse>();
            if (o["responses"] is JsonArray rs)
            {
                foreach (JsonNode? r in rs)
                {
                    responses.Add(new ScriptedResponse(Cond(r!.AsObject()), Obj(r!.AsObject(), "body")));
                }
            }
            string kind = Str(o, "kind");
            def.Executors.Add(new ExecutorDef(Str(o, "id"), kind,
                                              o["emit"]?.GetValue<string>() ?? (kind == "effect" ? "Effect" : ""),
                                              o["set"] as JsonObject ?? [], o["key"]?.GetValue<string>() ?? "",
                                              o["request_type"]?.GetValue<string>() ?? "",
                                              o["response_type"]?.GetValue<string>() ?? "", responses,
                                              o["scope"]?.GetValue<string>()));
        }
        foreach (JsonNode? e in Arr(root, "edges"))
        {
            JsonObject o = e!.AsObject();
            string kind = Str(o, "kind");
            List<string> sources = kind == "fan-in" ? Ids(o, "sources") : [Str(o, "from")];
            List<string> sinks = kind == "fan-in" ? [Str(o, "sink")] : kind == "fan-out" ? Ids(o, "to") : [Str(o, "to")];
            def.Edges.Add(new EdgeDef(kind, sources, sinks, Cond(o)));
        }
        def.Outputs.AddRange(Ids(root, "outputs"));
        return def;
    }

    static Condition? Cond(JsonObject o) =>
        o["when"] is JsonObject w ? new Condition(Str(w, "field"), w["equals"]?.DeepClone()) : null;
    static string Str(JsonObject o, string k) =>
        o[k]?.GetValue<string>() ?? throw new FormatException($"/{k}: missing; expected a string");
    static JsonObject Obj(JsonObject o, string k) =>
        (o[k] as JsonObject)?.DeepClone().AsObject() ?? throw new FormatException($"/{k}: missing; expected an object");
    static JsonArray Arr(JsonObject o, string k) =>
        o[k] as JsonArray ?? throw new FormatException($"/{k}: missing; expected an array");
    static List<string> Ids(JsonObject o, string k) => Arr(o, k).Select(n => n!.GetValue<string>()).ToList();
}
