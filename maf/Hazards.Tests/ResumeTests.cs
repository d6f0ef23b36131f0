// What a resume from a checkpoint brings back in real MAF: pending requests (#2485), the step
// number, and the parent link of the checkpoints it writes (#3796).
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Hazards.Tests;

public class ResumeTests
{
    // Hazard requests-not-reemitted (#2485). A fresh resume from a checkpoint holding an
    // outstanding request publishes its RequestInfoEvent again, with the same request id.
    // Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/InProc/InProcessRunner.cs (the resume path
    // calls RepublishPendingEventsAsync, Execution/ISuperStepRunner.cs).
    [Fact]
    public async Task PendingRequestIsReemittedAfterResume_Holds()
    {
        var probe = new Probe();
        Workflow workflow = Runs.PortWorkflow(probe);
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        List<WorkflowEvent> first;
        await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(workflow, "hello"))
        {
            first = await Runs.DrainAsync(run);
        }
        string requestId = Assert.Single(first.OfType<RequestInfoEvent>()).Request.RequestId;
        CheckpointInfo checkpoint = Runs.Checkpoints(first).Last();

        await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(workflow, checkpoint);
        List<WorkflowEvent> again = await Runs.DrainAsync(resumed);
        Assert.Equal(requestId, Assert.Single(again.OfType<RequestInfoEvent>()).Request.RequestId);
    }

    // Hazard step-numbers-restart. After a fresh resume from the checkpoint of step k, the first
    // super-step the resumed run announces is numbered k + 1: the step number is part of the
    // checkpoint and the resumed runner continues from it.
    // Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/InProc/InProcessRunner.cs: on the mirror's
    // (older) line RestoreCheckpointCoreAsync calls StepTracer.Reload(StepTracer.StepNumber), the
    // runner's own count, which is the hazard; the 1.28 package, which is what counts, continues
    // from the checkpoint's StepNumber (Checkpointing/Checkpoint.cs).
    [Fact]
    public async Task StepNumbersContinueAfterResume_Holds()
    {
        var probe = new Probe();
        Workflow workflow = CounterChain(probe, hops: 6);
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        List<WorkflowEvent> first;
        await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(workflow, "."))
        {
            first = await Runs.DrainAsync(run);
        }
        Assert.Equal([0, 1, 2, 3, 4, 5], Runs.StepNumbers(first));
        CheckpointInfo afterStep2 = Runs.Checkpoints(first)[2];

        await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(workflow, afterStep2);
        List<WorkflowEvent> again = await Runs.DrainAsync(resumed);
        // The three remaining steps keep their numbers (0, 1, 2 would be the hazard).
        Assert.Equal([3, 4, 5], Runs.StepNumbers(again));
    }

    // Hazard parent-link-empty (#3796). Each checkpoint a run writes names the one before it as
    // its parent, so the store's index filtered by parent finds the child.
    // Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/Checkpointing/CheckpointManagerImpl.cs
    // (CommitCheckpointAsync passes checkpoint.Parent to the store) and
    // Checkpointing/FileSystemJsonCheckpointStore.cs (RetrieveIndexAsync filters on the parent).
    [Fact]
    public async Task CheckpointParentLinksTheCheckpointBefore_Holds()
    {
        string dir = Path.Combine(Path.GetTempPath(), $"maf-hazards-{Guid.NewGuid():N}");
        try
        {
            using var store = new FileSystemJsonCheckpointStore(new DirectoryInfo(dir));
            var probe = new Probe();
            List<WorkflowEvent> events;
            string session;
            await using (StreamingRun run = await Runs.Lockstep(CheckpointManager.CreateJson(store))
                                                      .RunStreamingAsync(CounterChain(probe, hops: 3), "."))
            {
                session = run.SessionId;
                events = await Runs.DrainAsync(run);
            }
            List<CheckpointInfo> chain = Runs.Checkpoints(events);
            Assert.Equal(3, chain.Count);
            for (int i = 1; i < chain.Count; i++)
            {
                IEnumerable<CheckpointInfo> children = await store.RetrieveIndexAsync(session, chain[i - 1]);
                Assert.Equal([chain[i]], children);
            }
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    // A chain of Counter executors c0 -> c1 -> ... each passing a growing string on: `hops`
    // super-steps, one checkpoint each.
    internal static Workflow CounterChain(Probe probe, int hops)
    {
        var executors = Enumerable.Range(0, hops).Select(i => new Counter($"c{i}", probe, hops)).ToList();
        var builder = new WorkflowBuilder(executors[0]);
        for (int i = 1; i < hops; i++)
        {
            builder.AddEdge(executors[i - 1], executors[i]);
        }
        return builder.Build();
    }
}
