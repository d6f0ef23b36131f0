// Reads one checkpoint as MAF serialized it (Checkpoint: stepNumber, runnerData, stateData, edgeStateData, parent)
// and gives its normalized trace line. Every value is unwrapped from MAF's portable envelopes ({"typeId", "value"})
// down to the scenario message {"type", "body"}, so assembly-qualified type names never reach the trace. Sorted:
// instantiated executors, each receiver's queued messages (several senders' order is not defined), each fan-in
// barrier's unseen sources and buffered messages, and the pending requests. A fan-in barrier is named by its sink and
// sorted sources ("audit<-bill,ship"), not by MAF's EdgeId, which numbers edges differently from the C++ engine
// (scenarios/json/normalized_trace.cc names it the same way).
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace Stepfault.Maf.Runner;

public static class CheckpointNormalizer
{
    public static JsonObject Normalize(MemoryJsonStore.Entry e, ScenarioDef def, Func<string, string> nameOf)
    {
        JsonObject cp = JsonNode.Parse(e.Value.GetRawText())!.AsObject();
        JsonObject runner = cp["runnerData"]?.AsObject() ?? [];
        var queued = new JsonObject();
        if (runner["queuedMessages"] is JsonObject q)
        {
            foreach (var (receiver, list) in q.OrderBy(kv => kv.Key, StringComparer.Ordinal))
                queued[receiver] = Canonical.SortedArray(list!.AsArray().Select(Envelope));
        }
        var pending = new List<JsonObject>();
        if (runner["outstandingRequests"] is JsonArray reqs)
        {
            foreach (JsonNode? r in reqs)
            {
                pending.Add(new JsonObject
                {
                    ["request"] = r!["requestId"]?.GetValue<string>(),
                    ["port"] = r["portInfo"]?["portId"]?.GetValue<string>(),
                    ["message"] = Unwrap(r["data"]),
                });
            }
        }
        var fanIn = new JsonObject();
        if (cp["edgeStateData"] is JsonObject edges)
        {
            // Two barriers may have the same sources: the n-th barrier of a source list in EdgeId order is the n-th
            // fan-in edge of that list in the file, since both MAF and the engine number edges in document order.
            var seen = new Dictionary<string, int>(StringComparer.Ordinal);
            foreach (var (_, state) in edges.OrderBy(kv => int.TryParse(kv.Key, out int id) ? id : int.MaxValue))
            {
                JsonNode? s = state?["value"];
                if (s?["sourceIds"] is not JsonArray sources) continue;
                var ids = sources.Select(x => x!.GetValue<string>()).ToList();
                string sourceKey = string.Join(",", ids);
                int nth = seen.GetValueOrDefault(sourceKey);
                seen[sourceKey] = nth + 1;
                string sink = def.Edges.Where(x => x.Kind == "fan-in" && x.Sources.SequenceEqual(ids))
                                       .Skip(nth).FirstOrDefault()?.Sinks[0] ?? "?";
                fanIn[$"{sink}<-{string.Join(",", ids.OrderBy(x => x, StringComparer.Ordinal))}"] = new JsonObject
                {
                    ["unseen"] = Canonical.SortedArray(s["unseen"]!.AsArray().Select(x => x?.DeepClone())),
                    ["pending"] = Canonical.SortedArray(s["pendingMessages"]!.AsArray().Select(Envelope)),
                };
            }
        }
        var state_ = new JsonObject();
        if (cp["stateData"] is JsonObject sd)
        {
            foreach (var (key, value) in sd) state_[StateName(key)] = Unwrap(value);
        }
        var line = new JsonObject
        {
            ["line"] = "checkpoint",
            ["name"] = e.Info.CheckpointId,
            ["step"] = cp["stepNumber"]?.GetValue<int>(),
            ["parent"] = e.Parent?.CheckpointId,
            ["instantiated"] = Canonical.SortedArray((runner["instantiatedExecutors"] as JsonArray ?? []).Select(x => x?.DeepClone())),
            ["queued"] = queued,
            ["fan_in"] = fanIn,
            ["state"] = state_,
        };
        var sortedPending = pending.OrderBy(p => Canonical.Dump(new JsonObject { ["port"] = p["port"]?.DeepClone(), ["message"] = p["message"]?.DeepClone() }), StringComparer.Ordinal).ToList();
        foreach (JsonObject p in sortedPending) p["request"] = nameOf(p["request"]!.GetValue<string>());
        line["pending"] = Canonical.SortedArray(sortedPending.Select(p => (JsonNode)p));
        return line;
    }

    // MAF names a state entry "<executor>|<scope>|<key>" ("|" inside a part doubled; a named scope written "@name",
    // the private scope empty). The trace names it "<executor>||<key>" for a private scope and "@<name>||<key>" for a
    // named one: a named scope is shared by every executor, and the executor MAF records is only whichever touched
    // the scope first, which is not defined when several do in one step.
    static readonly Regex StateKey = new(@"^(?<e>(?:\|\||[^|])*)\|(?<s>(?:@(?:\|\||[^|])*)?)\|(?<k>(?:\|\||[^|])*)$");

    public static string StateName(string mafKey)
    {
        Match m = StateKey.Match(mafKey);
        if (!m.Success) return "?" + mafKey;
        static string Part(Group g) => g.Value.Replace("||", "|");
        string scope = Part(m.Groups["s"]);
        return (scope.Length == 0 ? Part(m.Groups["e"]) : scope) + "||" + Part(m.Groups["k"]);
    }

    // A queued or buffered envelope: its sender and the scenario message it carries.
    static JsonNode Envelope(JsonNode? env) =>
        new JsonObject { ["from"] = env?["source"]?["id"]?.GetValue<string>() ?? "", ["message"] = Unwrap(env?["message"]) };

    // Peels {"typeId", "value"} wrappers and an ExternalResponse ({"data", "portInfo", "requestId"}: a request port
    // forwards one before the response itself, and a fan-in barrier may hold it) down to the response it carries, as
    // Trace.MessageJson shows it; a Msg ({"type", "body": "<json text>"}) becomes {"type", "body": {...}}.
    public static JsonNode? Unwrap(JsonNode? node)
    {
        while (node is JsonObject o)
        {
            if (o.ContainsKey("typeId") && o.ContainsKey("value")) node = o["value"];
            else if (o.ContainsKey("data") && o.ContainsKey("portInfo") && o.ContainsKey("requestId")) node = o["data"];
            else break;
        }
        if (node is JsonObject m && m["type"] is JsonValue t && m["body"] is JsonValue b && b.TryGetValue(out string? text))
            return new JsonObject { ["type"] = t.GetValue<string>(), ["body"] = JsonNode.Parse(text) };
        return node?.DeepClone();
    }
}
