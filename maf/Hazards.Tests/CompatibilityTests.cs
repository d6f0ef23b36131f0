// Which workflow real MAF accepts for a checkpoint: its compatibility check compares executors,
// edge connections per source, ports and outputs, and what a rejected resume leaves behind.
// Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/Checkpointing/WorkflowInfo.cs (IsMatch),
// Checkpointing/EdgeInfo.cs and DirectEdgeInfo.cs (an edge matches on kind, connection and
// whether it has a condition: never on its EdgeId).
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Hazards.Tests;

public class CompatibilityTests
{
    private static bool Always(string? _) => true;

    // s has two conditional edges, to the targets in the given order; b also reaches c (so c is
    // reachable when both of s's edges go to b), and b and c end at d. The builder numbers
    // EdgeIds in the order edges are added.
    private static Workflow TwoConditionalEdges(Probe probe, string first, string second)
    {
        var s = new Relay("s", probe);
        var b = new Relay("b", probe);
        var c = new Relay("c", probe);
        var d = new Sink("d", probe);
        Executor Pick(string id) => id == "b" ? b : c;
        return new WorkflowBuilder(s)
            .AddEdge<string>(s, Pick(first), Always)
            .AddEdge<string>(s, Pick(second), Always)
            .AddEdge<string>(b, c, Always)
            .AddEdge(b, d)
            .AddEdge(c, d)
            .Build();
    }

    private static async Task<CheckpointInfo> FirstCheckpointAsync(Workflow workflow, CheckpointManager manager)
    {
        await using StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(workflow, "x");
        return Runs.Checkpoints(await Runs.DrainAsync(run)).First();
    }

    // Hazard edge-id-blind-matching. A checkpoint of s->b (edge 1), s->c (edge 2) resumes on a
    // workflow built s->c (edge 1), s->b (edge 2): the two edges' EdgeIds are swapped, and MAF
    // accepts it, because an edge is matched by its connection alone.
    [Fact]
    public async Task CompatibilityIgnoresEdgeIds_StillPresent()
    {
        var probe = new Probe();
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        CheckpointInfo checkpoint = await FirstCheckpointAsync(TwoConditionalEdges(probe, "b", "c"), manager);
        var probe2 = new Probe();
        Workflow swapped = TwoConditionalEdges(probe2, "c", "b");
        await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(swapped, checkpoint);
        await Runs.DrainAsync(resumed);
        // Accepted and run on: the checkpoint's queued messages were delivered on the new topology.
        Assert.NotEmpty(probe2.All);
    }

    // Hazard non-bijective-edge-matching. A checkpoint of s with edges {s->b, s->c} (both
    // conditional) is resumed on a workflow whose s has {s->b, s->b}: each workflow edge finds
    // SOME checkpoint edge it matches and the per-source counts agree (2 = 2), which the mirror's
    // IsMatch accepts (`edgeList.All(edge => this.Edges[sourceId].Any(e => e.IsMatch(edge)))`).
    // The 1.28 package rejects it (InvalidDataException from the resume's compatibility check,
    // InProc/InProcessRunner.cs CheckWorkflowMatch): its matching is one-to-one. The swapped
    // EdgeIds of the test above pass the same check, so the rejection is the edge multiset's.
    [Fact]
    public async Task CompatibilityRejectsNonBijectiveEdgeMatch_Holds()
    {
        var probe = new Probe();
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        CheckpointInfo checkpoint = await FirstCheckpointAsync(TwoConditionalEdges(probe, "b", "c"), manager);
        Workflow duplicated = TwoConditionalEdges(new Probe(), "b", "b");
        await Assert.ThrowsAsync<InvalidDataException>(async () =>
        {
            await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(duplicated, checkpoint);
            await Runs.DrainAsync(resumed);
        });
    }

    // Hazard ownership-before-validation. A fresh resume of an incompatible checkpoint is rejected;
    // the test then runs the same workflow object normally and records whether it is still usable.
    // Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/InProc/InProcessRunnerContext.cs (its
    // constructor calls Workflow.TakeOwnership, Workflow.cs, before the resume checks the
    // checkpoint's WorkflowInfo; ownership is released only when the context is disposed).
    [Fact]
    public async Task RejectedResumeLeavesWorkflowOwned_StillPresent()
    {
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        CheckpointInfo checkpoint = await FirstCheckpointAsync(TwoConditionalEdges(new Probe(), "b", "c"), manager);
        var probe = new Probe();
        Workflow other = ResumeTests.CounterChain(probe, hops: 2);
        await Assert.ThrowsAnyAsync<Exception>(async () =>
        {
            await using StreamingRun rejected = await Runs.Lockstep(manager).ResumeStreamingAsync(other, checkpoint);
            await Runs.DrainAsync(rejected);
        });
        Exception? reuse = await Record.ExceptionAsync(async () =>
        {
            await using StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(other, ".");
            await Runs.DrainAsync(run);
        });
        Assert.NotNull(reuse);
        Assert.Contains("owned", reuse.Message, StringComparison.OrdinalIgnoreCase);
        Assert.Empty(probe.All);
    }

    // s -> t and one more executor bound to the workflow but on no edge (Build without the
    // orphan check), whose id is the parameter.
    private static Workflow WithLooseExecutor(string looseId)
    {
        var probe = new Probe();
        var s = new Relay("s", probe);
        return new WorkflowBuilder(s).AddEdge(s, new Sink("t", probe)).BindExecutor(new Sink(looseId, probe)).Build(validateOrphans: false);
    }

    // Hazard edge-id-blind-matching, its executor half. A checkpoint of {s, t, x} resumes on a
    // workflow of {s, t, y}: IsMatch counts executors and checks only the checkpoint's executors
    // the workflow has (`TryGetValue(id) && !IsMatch`), so x is skipped and y never checked.
    [Fact]
    public async Task CompatibilitySkipsExecutorsTheWorkflowLacks_StillPresent()
    {
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        CheckpointInfo checkpoint = await FirstCheckpointAsync(WithLooseExecutor("x"), manager);
        await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(WithLooseExecutor("y"), checkpoint);
        await Runs.DrainAsync(resumed);
    }
}
