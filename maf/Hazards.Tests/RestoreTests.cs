// A live restore (CheckpointableRunBase.RestoreCheckpointAsync) in real MAF: what happens to a
// response queued before it (PR #5134), and what a restore that fails late leaves behind.
// Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/InProc/InProcessRunner.cs (RestoreCheckpointAsync:
// imports the runner state, edge state and executor state in turn, then calls each executor's
// OnCheckpointRestoredAsync) and InProc/InProcessRunnerContext.cs (the queued external messages).
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Hazards.Tests;

public class RestoreTests
{
    // Hazard stale-responses-kept (PR #5134). A response sent for the outstanding request but not
    // yet processed, then a live restore to the checkpoint that holds the request: the response
    // belongs to the abandoned timeline, and the processor must never see it.
    [Fact]
    public async Task ResponseQueuedBeforeRestoreIsDropped_Holds()
    {
        var probe = new Probe();
        Workflow workflow = Runs.PortWorkflow(probe);
        await using StreamingRun run = await Runs.Lockstep(CheckpointManager.CreateInMemory()).RunStreamingAsync(workflow, "hello");
        List<WorkflowEvent> first = await Runs.DrainAsync(run);
        ExternalRequest request = Assert.Single(first.OfType<RequestInfoEvent>()).Request;
        CheckpointInfo checkpoint = Runs.Checkpoints(first).Last();

        await run.SendResponseAsync(request.CreateResponse("stale"));
        await run.RestoreCheckpointAsync(checkpoint);
        await Runs.DrainAsync(run);
        Assert.DoesNotContain("processor:stale", probe.All);
    }

    // A Counter whose restore hook can be told to fail: the last phase of a live restore.
    [SendsMessage(typeof(string))]
    public sealed class FailingRestoreCounter(string id, Probe probe, int hops) : Counter(id, probe, hops)
    {
        public bool FailRestore { get; set; }

        protected override ValueTask OnCheckpointRestoredAsync(IWorkflowContext context, CancellationToken cancellationToken = default) =>
            this.FailRestore ? throw new InvalidOperationException("restore hook fails") : default;
    }

    // Hazard non-atomic-restore. c0 counts to 2 (two messages), the run is restored live to the
    // checkpoint where c0 was 1, and c0's restore hook throws. A third message then shows c0's
    // state: 3 if the failed restore changed nothing, 2 if it left the checkpoint's state
    // imported (a half-restored run).
    [Fact]
    public async Task FailedRestoreLeavesStateImported_StillPresent()
    {
        var probe = new Probe();
        var c0 = new FailingRestoreCounter("c0", probe, hops: 1);
        Workflow workflow = new WorkflowBuilder(c0).Build();
        await using StreamingRun run = await Runs.Lockstep(CheckpointManager.CreateInMemory()).RunStreamingAsync(workflow, ".");
        CheckpointInfo atOne = Runs.Checkpoints(await Runs.DrainAsync(run)).Last();
        Assert.True(await run.TrySendMessageAsync("."));
        await Runs.DrainAsync(run);
        Assert.Equal(["c0=1", "c0=2"], probe.All);

        c0.FailRestore = true;
        await Assert.ThrowsAnyAsync<Exception>(async () => await run.RestoreCheckpointAsync(atOne));
        c0.FailRestore = false;
        Assert.True(await run.TrySendMessageAsync("."));
        await Runs.DrainAsync(run);
        Assert.Equal(["c0=1", "c0=2", "c0=2"], probe.All);
    }
}
