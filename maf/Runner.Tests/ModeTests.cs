// restore:N and resume:N from a named checkpoint: the trace holds only what came after it, starting at step N+1,
// its checkpoints continue the store's numbering with cpN as the first parent, and the run reaches the same end.
using System.Text.Json.Nodes;

namespace Stepfault.Maf.Runner.Tests;

public class ModeTests
{
    [Theory]
    [InlineData("restore", Execution.Lockstep)]
    [InlineData("resume", Execution.Lockstep)]
    [InlineData("restore", Execution.OffThread)]
    [InlineData("resume", Execution.OffThread)]
    public async Task FromCheckpointOneTheModeRunsStepsTwoOnAndContinuesTheNumbering(string mode, Execution execution)
    {
        List<JsonObject> t = await Scenarios.Trace(Scenarios.FanOutFanIn, mode, 1, execution);
        Assert.Equal($$"""{"line":"begin","mode":"{{mode}}:1"}""", t[0].Text());
        List<JsonObject> steps = t.Lines("step");
        Assert.Equal(Enumerable.Range(2, 3), steps.Take(3).Select(s => s["step"]!.GetValue<int>()));
        // c runs on b's queued message and the barrier releases a's buffered one with it, as in the run.
        Assert.Equal("""[{"executor":"c","message":{"body":{"b":true,"id":"j1"},"type":"B"}}]""", steps[0]["invoked"].Text());
        Assert.Equal(2, steps[1]["invoked"]!.AsArray().Count);
        List<JsonObject> cps = t.Lines("checkpoint");
        // The numbering goes on from the fault-free run's last checkpoint: cp6 in Lockstep. OffThread starts a
        // super-step as soon as the first of two answers arrives, so that run wrote 6 or more checkpoints as the
        // threads fell (seen: 8 under load); the resumed ones still follow its last one without a gap.
        int first = int.Parse(cps[0]["name"]!.GetValue<string>()[2..]);
        if (execution == Execution.Lockstep) Assert.Equal(7, first);
        else Assert.True(first >= 7, $"the resumed run's first checkpoint is cp{first}, inside the first run's");
        Assert.Equal(Enumerable.Range(first, steps.Count).Select(i => $"cp{i}"), cps.Select(c => c["name"]!.GetValue<string>()));
        Assert.Equal("cp1", cps[0]["parent"]!.GetValue<string>());
        Assert.Equal(2, cps[0]["step"]!.GetValue<int>());
        // The private count came back from cp1; the shared one counts once, not twice. (A live restore keeps the
        // port's bookkeeping key of the later state, which cp1 did not have: port-bookkeeping-state.)
        Assert.Equal(1, cps[0]["state"]!["a||n"]!.GetValue<int>());
        Assert.Equal(1, cps[0]["state"]!["@pool||m"]!.GetValue<int>());
        Assert.Equal(mode == "restore", cps[0]["state"]!.AsObject().ContainsKey("ask||WrappedRequestsStateKey"));
        Assert.Equal("idle", t.Lines("halt")[^1]["status"]!.GetValue<string>());
    }

    [Fact]
    public async Task ResumeFromThePendingRequestCheckpointReEmitsAndAnswersIt()
    {
        // Lockstep only: both answers in one step.
        List<JsonObject> t = await Scenarios.Trace(Scenarios.FanOutFanIn, "resume", 4);
        List<JsonObject> halts = t.Lines("halt");
        Assert.Equal(2, halts[0]["responses"]!.AsArray().Count);
        Assert.Equal([5, 6], t.Lines("step").Select(s => s["step"]!.GetValue<int>()));
        Assert.Equal("idle", halts[^1]["status"]!.GetValue<string>());
    }

    [Fact]
    public async Task OffThreadResumeFromTheLastCheckpointReportsTheStatusInsteadOfWaiting()
    {
        // MAF 1.28 OffThread never halts a run resumed with nothing to do; the runner records MAF's status then.
        List<JsonObject> t = await Scenarios.Trace(Scenarios.TwoSenders("l", "r"), "resume", 2, Execution.OffThread);
        Assert.Equal(["""{"line":"begin","mode":"resume:2"}""", """{"line":"halt","responses":[],"status":"NotStarted"}"""],
                     t.Select(l => l.Text()));
        List<JsonObject> lockstep = await Scenarios.Trace(Scenarios.TwoSenders("l", "r"), "resume", 2);
        Assert.Equal("idle", lockstep.Lines("halt").Single()["status"]!.GetValue<string>());
    }
}
