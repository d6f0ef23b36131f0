// The small workflows the tests run, as scenario JSON (docs/scenarios.md), and helpers to run them.
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner.Tests;

static class Scenarios
{
    // split fans out to a private counter `a` and a transform `b`; `b` feeds `c`, a counter of the shared scope
    // "pool"; the barrier join<-a,c buffers a's message a step before c's arrives; join feeds the request port
    // `ask`, whose scripted answer goes to `done`. Checkpoints: after step 1 a message waits in the barrier and one
    // is queued for c; after step 4 the requests are pending.
    public const string FanOutFanIn = """
    {"name": "fan-out-fan-in", "input": {"type": "Job", "body": {"id": "j1"}}, "start": "split",
     "executors": [
       {"id": "split", "kind": "pass-through"},
       {"id": "a", "kind": "counter", "key": "n"},
       {"id": "b", "kind": "transform", "emit": "B", "set": {"b": true}},
       {"id": "c", "kind": "counter", "key": "m", "scope": "pool"},
       {"id": "join", "kind": "pass-through"},
       {"id": "ask", "kind": "request-port", "request_type": "Job", "response_type": "Answer",
        "responses": [{"body": {"ok": true}}]},
       {"id": "done", "kind": "pass-through"}],
     "edges": [
       {"kind": "fan-out", "from": "split", "to": ["a", "b"]},
       {"kind": "direct", "from": "b", "to": "c"},
       {"kind": "fan-in", "sources": ["a", "c"], "sink": "join"},
       {"kind": "direct", "from": "join", "to": "ask"},
       {"kind": "direct", "from": "ask", "to": "done"}],
     "outputs": ["done"]}
    """;

    // Two senders reach one receiver in one step: `left` and `right` both send to `sink`, listed in the given order
    // (the order of the fan-out and of the edges is the order MAF starts the senders in).
    public static string TwoSenders(string first, string second) => $$$"""
    {"name": "two-senders", "input": {"type": "Go", "body": {}}, "start": "split",
     "executors": [
       {"id": "split", "kind": "pass-through"},
       {"id": "{{{first}}}", "kind": "transform", "emit": "From{{{first}}}", "set": {"{{{first}}}": 1}},
       {"id": "{{{second}}}", "kind": "transform", "emit": "From{{{second}}}", "set": {"{{{second}}}": 1}},
       {"id": "sink", "kind": "pass-through"}],
     "edges": [
       {"kind": "fan-out", "from": "split", "to": ["{{{first}}}", "{{{second}}}"]},
       {"kind": "direct", "from": "{{{first}}}", "to": "sink"},
       {"kind": "direct", "from": "{{{second}}}", "to": "sink"}],
     "outputs": ["sink"]}
    """;

    public static async Task<List<JsonObject>> Trace(string scenario, string mode = "run", int index = -1,
                                                     Execution execution = Execution.Lockstep) =>
        (await new Driver(ScenarioDef.Parse(scenario), execution).RunAsync(mode, index, raw: false))
            .Select(l => JsonNode.Parse(l)!.AsObject()).ToList();

    public static List<JsonObject> Lines(this List<JsonObject> trace, string kind) =>
        trace.Where(l => l["line"]!.GetValue<string>() == kind).ToList();

    public static JsonObject Checkpoint(this List<JsonObject> trace, string name) =>
        trace.Lines("checkpoint").Single(l => l["name"]!.GetValue<string>() == name);

    public static string Text(this JsonNode? node) => Canonical.Dump(node);

    // Runs the command line in-process: exit status, stdout, stderr.
    public static async Task<(int Status, string Out, string Err)> Cli(params string[] args)
    {
        var stdout = new StringWriter();
        var stderr = new StringWriter();
        int status = await Runner.Cli.RunAsync(args, stdout, stderr);
        return (status, stdout.ToString(), stderr.ToString());
    }

    // A scenario written to a temporary file (the command line reads files); deleted on Dispose.
    public sealed class TempFile : IDisposable
    {
        public string Path { get; } = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"runner-test-{Guid.NewGuid():N}.json");
        public TempFile(string text) => File.WriteAllText(this.Path, text);
        public void Dispose() => File.Delete(this.Path);
    }
}
