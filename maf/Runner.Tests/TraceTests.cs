// The normalized trace maf-runner prints for a small fan-out/fan-in workflow on real MAF 1.28: the step lines and
// every member of a checkpoint line (docs/engine-semantics.md §11.2), in both executions.
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner.Tests;

public class TraceTests
{
    [Theory]
    [InlineData(Execution.Lockstep)]
    [InlineData(Execution.OffThread)]
    public async Task FanOutFanInStepsRunInOrderAndAnswerTheRequestsOnce(Execution execution)
    {
        List<JsonObject> t = await Scenarios.Trace(Scenarios.FanOutFanIn, execution: execution);
        Assert.Equal("""{"line":"begin","mode":"run"}""", t[0].Text());
        List<JsonObject> steps = t.Lines("step");
        Assert.Equal(Enumerable.Range(0, 5), steps.Take(5).Select(s => s["step"]!.GetValue<int>()));
        Assert.Equal(["split", "a,b", "c", "join,join", "ask,ask"],
                     steps.Take(5).Select(s => string.Join(",", s["completed"]!.AsArray().Select(x => x!.GetValue<string>()))));
        // The barrier released both messages to join in one step: one from each source.
        Assert.Equal("""[{"executor":"join","message":{"body":{"b":true,"count_c":1,"id":"j1"},"type":"B"}},""" +
                     """{"executor":"join","message":{"body":{"count_a":1,"id":"j1"},"type":"Job"}}]""",
                     steps[3]["invoked"].Text());
        List<JsonObject> halts = t.Lines("halt");
        Assert.Equal("pending_requests", halts[0]["status"]!.GetValue<string>());
        Assert.Equal("idle", halts[^1]["status"]!.GetValue<string>());
        Assert.Equal(["r1", "r2"], halts[0]["responses"]!.AsArray().Select(r => r!["request"]!.GetValue<string>()));
        // Each answer reaches done once. Lockstep takes both in one step; OffThread runs a step as soon as the first
        // answer arrives, so the second may come a step later (thread timing, offthread-responses-split-by-timing).
        Assert.Equal(2, steps.Sum(s => s["outputs"]!.AsArray().Count));
        if (execution == Execution.Lockstep) Assert.Equal(7, steps.Count);
        Assert.Equal(Enumerable.Range(0, steps.Count).Select(i => $"cp{i}"),
                     t.Lines("checkpoint").Select(c => c["name"]!.GetValue<string>()));
    }

    [Theory]
    [InlineData(Execution.Lockstep)]
    [InlineData(Execution.OffThread)]
    public async Task ACheckpointHoldsScopesQueuesBarrierBufferStepAndParent(Execution execution)
    {
        List<JsonObject> t = await Scenarios.Trace(Scenarios.FanOutFanIn, execution: execution);
        JsonObject cp1 = t.Checkpoint("cp1");
        Assert.Equal(1, cp1["step"]!.GetValue<int>());
        Assert.Equal("cp0", cp1["parent"]!.GetValue<string>());
        Assert.Null(t.Checkpoint("cp0")["parent"]);
        Assert.Equal("""["a","b","c","split"]""", cp1["instantiated"].Text());
        // a's message waits in the barrier for c; b's message is queued for c.
        Assert.Equal("""{"join<-a,c":{"pending":[{"from":"a","message":{"body":{"count_a":1,"id":"j1"},"type":"Job"}}],"unseen":["c"]}}""",
                     cp1["fan_in"].Text());
        Assert.Equal("""{"c":[{"from":"b","message":{"body":{"b":true,"id":"j1"},"type":"B"}}]}""", cp1["queued"].Text());
        Assert.Equal("""{"a||n":1}""", cp1["state"].Text());
        Assert.Equal("[]", cp1["pending"].Text());
        // After c ran: the shared scope is named by the scope, not by the executor that wrote it.
        Assert.Equal("""{"@pool||m":1,"a||n":1}""", t.Checkpoint("cp2")["state"].Text());
        Assert.Equal("""{"join<-a,c":{"pending":[],"unseen":["a","c"]}}""", t.Checkpoint("cp2")["fan_in"].Text());
        // The port's step: two requests pending, named in (port, message) order, and MAF's port bookkeeping key.
        JsonObject cp4 = t.Checkpoint("cp4");
        Assert.Equal("""[{"message":{"body":{"b":true,"count_c":1,"id":"j1"},"type":"B"},"port":"ask","request":"r1"},""" +
                     """{"message":{"body":{"count_a":1,"id":"j1"},"type":"Job"},"port":"ask","request":"r2"}]""",
                     cp4["pending"].Text());
        Assert.Equal("{}", cp4["queued"].Text());
        Assert.True(cp4["state"]!.AsObject().ContainsKey("ask||WrappedRequestsStateKey"));
    }

    [Fact]
    public async Task LockstepAndOffThreadGiveOneTraceUpToTheFirstAnswers()
    {
        // OffThread streams events while the step runs; grouped by step and sorted, they are Lockstep's trace, up to
        // the host's answers (which OffThread may take in separate steps) and in every checkpoint written before.
        List<JsonObject> lockstep = await Scenarios.Trace(Scenarios.FanOutFanIn);
        List<JsonObject> offThread = await Scenarios.Trace(Scenarios.FanOutFanIn, execution: Execution.OffThread);
        int firstHalt = lockstep.FindIndex(l => l["line"]!.GetValue<string>() == "halt");
        Assert.Equal(lockstep.Take(firstHalt + 1).Select(l => l.Text()), offThread.Take(firstHalt + 1).Select(l => l.Text()));
        Assert.Equal(Enumerable.Range(0, 5).Select(i => lockstep.Checkpoint($"cp{i}").Text()),
                     Enumerable.Range(0, 5).Select(i => offThread.Checkpoint($"cp{i}").Text()));
        List<string> l = (await Scenarios.Trace(Scenarios.TwoSenders("l", "r"))).Select(x => x.Text()).ToList();
        List<string> o = (await Scenarios.Trace(Scenarios.TwoSenders("l", "r"), execution: Execution.OffThread)).Select(x => x.Text()).ToList();
        Assert.Equal(l, o);
    }

    [Fact]
    public async Task SeveralSendersToOneReceiverGiveOneTraceWhicheverIsListedFirst()
    {
        // sink gets l's and r's messages in one step; swapping the senders' order in the document (and so the
        // order MAF starts them in) must not change the trace: the queue and the step's lists are multisets.
        List<string> lr = (await Scenarios.Trace(Scenarios.TwoSenders("l", "r"))).Select(l => l.Text()).ToList();
        List<string> rl = (await Scenarios.Trace(Scenarios.TwoSenders("r", "l"))).Select(l => l.Text()).ToList();
        Assert.Equal(lr, rl);
        JsonObject cp1 = (await Scenarios.Trace(Scenarios.TwoSenders("r", "l"))).Checkpoint("cp1");
        Assert.Equal(["l", "r"], cp1["queued"]!["sink"]!.AsArray().Select(q => q!["from"]!.GetValue<string>()));
    }
}
