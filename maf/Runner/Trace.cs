// The normalized trace of one MAF run (format: docs/engine-semantics.md §11). Events are grouped by super-step and
// each group's members are sorted multisets, because MAF runs a step's receivers concurrently: the order of events
// of different executors within one step is not defined, and neither is the order in which several senders' messages
// reach one receiver. Request ids (GUIDs) become r1, r2, ... in order of first appearance in the sorted trace;
// checkpoint ids are the store's ordinals cp0, cp1, ...
using System.Text.Json;
using System.Text.Json.Nodes;
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Runner;

public sealed class Trace(ScenarioDef def, MemoryJsonStore store, string mode)
{
    sealed class Group
    {
        public int Step = -1;  // -1: before the first super-step (re-emitted requests of a restore)
        public List<JsonNode> Invoked = [], Completed = [], Outputs = [], Requests = [], Failed = [], Errors = [], Other = [];
        public string? Checkpoint;
        public bool? PendingMessages, PendingRequests;
    }

    readonly List<JsonObject> _lines = [new() { ["line"] = "begin", ["mode"] = mode }];
    readonly Dictionary<string, string> _requestNames = new(StringComparer.Ordinal);
    readonly List<ExternalRequest> _cycleRequests = [];
    Group? _group;

    public void Add(WorkflowEvent evt)
    {
        switch (evt)
        {
            case SuperStepStartedEvent s:
                this.Close();
                this._group = new Group { Step = s.StepNumber };
                return;
            case SuperStepCompletedEvent c:
                Group g = this.Current();
                g.Checkpoint = c.CompletionInfo?.Checkpoint is { } info ? info.CheckpointId : null;
                g.PendingMessages = c.CompletionInfo?.HasPendingMessages;
                g.PendingRequests = c.CompletionInfo?.HasPendingRequests;
                this.Close();
                return;
        }
        Group cur = this.Current();
        switch (evt)
        {
            case ExecutorInvokedEvent e:
                cur.Invoked.Add(new JsonObject { ["executor"] = e.ExecutorId, ["message"] = MessageJson(e.Data) });
                break;
            case ExecutorCompletedEvent e: cur.Completed.Add(JsonValue.Create(e.ExecutorId)!); break;
            case ExecutorFailedEvent e: cur.Failed.Add(JsonValue.Create(e.ExecutorId)!); break;
            case WorkflowErrorEvent: cur.Errors.Add(JsonValue.Create("error")!); break;
            case WorkflowOutputEvent e:
                cur.Outputs.Add(new JsonObject { ["executor"] = e.ExecutorId, ["message"] = MessageJson(e.Data) });
                break;
            case RequestInfoEvent e:
                this._cycleRequests.Add(e.Request);
                cur.Requests.Add(RequestJson(e.Request.RequestId, e.Request.PortInfo.PortId, MessageJson(e.Request.Data)));
                break;
            case WorkflowStartedEvent: break;  // not every engine reports it; the first step line marks the start
            default: cur.Other.Add(JsonValue.Create(evt.GetType().Name)!); break;
        }
    }

    Group Current() => this._group ??= new Group();

    void Close()
    {
        if (this._group is not { } g) return;
        this._group = null;
        // Before the first step only requests can be reported (a restore re-emits its pending requests); an empty
        // prologue is no line at all.
        if (g.Step < 0 && g.Requests.Count == 0 && g.Other.Count == 0 && g.Outputs.Count == 0) return;
        var line = new JsonObject
        {
            ["line"] = g.Step < 0 ? "prologue" : "step",
            ["step"] = g.Step,
            ["invoked"] = Canonical.SortedArray(g.Invoked),
            ["completed"] = Canonical.SortedArray(g.Completed),
            ["failed"] = Canonical.SortedArray(g.Failed),
            ["errors"] = g.Errors.Count,
            ["outputs"] = Canonical.SortedArray(g.Outputs),
            ["requests"] = this.NameRequests(g.Requests),
            ["checkpoint"] = g.Checkpoint,
            ["pending_messages"] = g.PendingMessages,
            ["pending_requests"] = g.PendingRequests,
        };
        if (g.Other.Count > 0) line["other"] = Canonical.SortedArray(g.Other);
        this._lines.Add(line);
    }

    // Names requests in (port, message) order, then sorts them with their names.
    JsonArray NameRequests(IEnumerable<JsonNode> requests)
    {
        var sorted = requests.Select(r => r.AsObject())
            .OrderBy(r => Canonical.Dump(new JsonObject { ["port"] = r["port"]!.DeepClone(), ["message"] = r["message"]!.DeepClone() }), StringComparer.Ordinal)
            .ToList();
        foreach (JsonObject r in sorted) r["request"] = this.NameOf(r["request"]!.GetValue<string>());
        // Requests equal but for their id keep a defined order: by name.
        return Canonical.SortedArray(sorted.Select(r => (JsonNode)r.DeepClone()));
    }

    string NameOf(string rawId)
    {
        if (!this._requestNames.TryGetValue(rawId, out string? name))
            this._requestNames[rawId] = name = $"r{this._requestNames.Count + 1}";
        return name;
    }

    static JsonObject RequestJson(string id, string port, JsonNode? message) =>
        new() { ["request"] = id, ["port"] = port, ["message"] = message };

    // The requests this cycle reported that the scenario answers, in the order their names were given.
    public List<(ExternalRequest, Msg)> Answerable()
    {
        this.Close();
        var answers = new List<(ExternalRequest, Msg)>();
        foreach (ExternalRequest r in this._cycleRequests.OrderBy(r => this.NameOf(r.RequestId), StringComparer.Ordinal))
        {
            ExecutorDef? port = def.Find(r.PortInfo.PortId);
            if (port is null || !r.TryGetDataAs(out Msg? request) || request is null) continue;
            if (MafWorkflow.Respond(port, request) is { } response) answers.Add((r, response));
        }
        this._cycleRequests.Clear();
        return answers;
    }

    public void Halt(string status, List<(ExternalRequest Request, Msg Response)> answers)
    {
        this.Close();
        this._lines.Add(new JsonObject
        {
            ["line"] = "halt",
            ["status"] = status switch { "Idle" => "idle", "PendingRequests" => "pending_requests", "Ended" => "ended", _ => status },
            ["responses"] = new JsonArray(answers.Select(a => (JsonNode)RequestJson(this.NameOf(a.Request.RequestId),
                a.Request.PortInfo.PortId, a.Response.ToJson())).ToArray()),
        });
    }

    // MAF refused the mode (it threw): an "error" line with its message, as the engine's side writes for a mode it
    // refuses, so the comparison sees the refusal instead of losing the runner.
    public void Error(string message) => this._lines.Add(new JsonObject { ["line"] = "error", ["message"] = message });

    // The trace's lines: what was recorded, then one line per checkpoint the store received from `from` on.
    public List<string> Finish(int from)
    {
        this.Close();
        IReadOnlyList<MemoryJsonStore.Entry> entries = store.Entries;
        for (int i = from; i < entries.Count; ++i)
            this._lines.Add(CheckpointNormalizer.Normalize(entries[i], def, this.NameOf));
        return this._lines.Select(l => Canonical.Dump(l)).ToList();
    }

    public static JsonNode? MessageJson(object? data) => data switch
    {
        Msg m => m.ToJson(),
        ExternalResponse r when r.TryGetDataAs(out Msg? m) && m is not null => m.ToJson(),
        PortableValue p when p.As<Msg>() is { } m => m.ToJson(),
        null => null,
        _ => JsonValue.Create(data.GetType().Name),
    };
}
