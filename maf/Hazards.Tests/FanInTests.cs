// A fan-in barrier caught half full by a checkpoint, in real MAF: is the buffered message in the
// checkpoint (#6372), and does the in-memory manager's checkpoint keep its own copy of the buffer
// or the live object the run goes on changing (fan-in aliasing)?
// Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/Execution/FanInEdgeRunner.cs and
// Execution/FanInEdgeState.cs (the barrier's buffer, exported by IStatefulEdgeRunner), and
// Checkpointing/InMemoryCheckpointManager.cs (keeps Checkpoint objects, no serialisation).
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Hazards.Tests;

public class FanInTests
{
    // s fans out to a and b; a reaches the barrier in step 1, b only through b2 in step 2, so
    // the checkpoint of step 1 holds a barrier with a's message and without b2's.
    private static Workflow HalfFullBarrier(Probe probe, bool barrierBeforeRelay = false)
    {
        var s = new Relay("s", probe);
        var a = new Relay("a", probe);
        var b = new Relay("b", probe);
        var b2 = new Relay("b2", probe);
        var join = new Sink("join", probe);
        var builder = new WorkflowBuilder(s).AddFanOutEdge(s, [a, b]);
        // The builder numbers EdgeIds in the order edges are added: the same topology with the
        // barrier's and b->b2's EdgeIds swapped.
        return barrierBeforeRelay
            ? builder.AddFanInBarrierEdge([a, b2], join).AddEdge(b, b2).Build()
            : builder.AddEdge(b, b2).AddFanInBarrierEdge([a, b2], join).Build();
    }

    private static readonly string[] JoinSees = ["join:x>s>a", "join:x>s>b>b2"];

    private static async Task<List<string>> ResumeJoinAsync(CheckpointManager manager, CheckpointInfo checkpoint,
                                                            bool barrierBeforeRelay = false)
    {
        var probe = new Probe();
        await using StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(HalfFullBarrier(probe, barrierBeforeRelay), checkpoint);
        await Runs.DrainAsync(resumed);
        return [.. probe.All.Where(s => s.StartsWith("join:", StringComparison.Ordinal)).Order()];
    }

    // Hazard fan-in-state-not-checkpointed (#6372). Resumed on a fresh workflow from the JSON
    // file store (so nothing can come from a live object), the barrier still holds a's message:
    // b2 completes it and join receives both.
    [Fact]
    public async Task FanInBufferIsCheckpointed_Holds()
    {
        string dir = Path.Combine(Path.GetTempPath(), $"maf-hazards-{Guid.NewGuid():N}");
        try
        {
            using var store = new FileSystemJsonCheckpointStore(new DirectoryInfo(dir));
            CheckpointManager manager = CheckpointManager.CreateJson(store);
            var probe = new Probe();
            List<WorkflowEvent> events;
            await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(HalfFullBarrier(probe), "x"))
            {
                events = await Runs.DrainAsync(run);
            }
            Assert.Contains("join:x>s>a", probe.All);
            Assert.Equal(JoinSees, await ResumeJoinAsync(manager, Runs.Checkpoints(events)[1]));
        }
        finally
        {
            Directory.Delete(dir, recursive: true);
        }
    }

    // Hazard fan-in-aliasing. The in-memory manager's checkpoint of step 1 is resumed after the
    // original run went on, completed the barrier and released it. Whether join then receives both
    // messages (the checkpoint kept its own buffer) or not (it shared the live buffer the run
    // emptied) is what this test records.
    [Fact]
    public async Task InMemoryFanInCheckpointIsNotAliased_Holds()
    {
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        var probe = new Probe();
        List<WorkflowEvent> events;
        await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(HalfFullBarrier(probe), "x"))
        {
            events = await Runs.DrainAsync(run);
        }
        Assert.Equal(JoinSees, probe.All.Where(s => s.StartsWith("join:", StringComparison.Ordinal)).Order());
        Assert.Equal(JoinSees, await ResumeJoinAsync(manager, Runs.Checkpoints(events)[1]));
    }

    // Hazard edge-id-blind-matching, its fan-in half. The half-full checkpoint is resumed on the
    // same topology built in another order, so the barrier's EdgeId in the checkpoint is the
    // b->b2 edge's in the workflow. Compatibility ignores EdgeIds and passes it (a mismatch would
    // be its InvalidDataException); the barrier's buffer is then imported by EdgeId
    // (Execution/EdgeMap.cs ImportStateAsync indexes `_statefulRunners[id]` with each saved
    // EdgeId, unchecked) and the lookup of EdgeId 3, a stateless edge
    // here, fails with a bare KeyNotFoundException: no diagnosis, and the checkpoint cannot be
    // resumed on this workflow. (With two barriers swapped, the buffer would land in the wrong one.)
    [Fact]
    public async Task FanInStateImportedByEdgeIdUnchecked_StillPresent()
    {
        CheckpointManager manager = CheckpointManager.CreateInMemory();
        List<WorkflowEvent> events;
        await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(HalfFullBarrier(new Probe()), "x"))
        {
            events = await Runs.DrainAsync(run);
        }
        await Assert.ThrowsAsync<KeyNotFoundException>(
            async () => await ResumeJoinAsync(manager, Runs.Checkpoints(events)[1], barrierBeforeRelay: true));
    }
}
