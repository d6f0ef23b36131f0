// Hazard watcher-cancel-ends-run (contrary to ADR-0015): in real MAF, does cancelling the token
// of one WatchStreamAsync end the run, or only that watch?
// Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/Execution/StreamingRunEventStream.cs (the
// off-thread run loop has its own cancellation source; a watcher's token only ends the
// enumeration) and StreamingRun.cs (CancelRunAsync is the way to end a run).
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Hazards.Tests;

public class WatcherTests
{
    // The off-thread runner (the default one, where a watch and the run are separate): the run
    // waits on a request, the watch is cancelled, then the response is sent and a new watch sees
    // the processor run.
    [Fact]
    public async Task CancellingAWatcherLeavesTheRunGoing_Holds()
    {
        var probe = new Probe();
        Workflow workflow = Runs.PortWorkflow(probe);
        await using StreamingRun run = await InProcessExecution.OffThread.RunStreamingAsync(workflow, "hello");

        ExternalRequest? request = null;
        using (CancellationTokenSource watch = new(TimeSpan.FromSeconds(20)))
        {
            // 1.28 ends the cancelled enumeration quietly (no OperationCanceledException); either
            // way only what follows matters.
            await Record.ExceptionAsync(async () =>
            {
                await foreach (WorkflowEvent evt in run.WatchStreamAsync(blockOnPendingRequest: true, watch.Token))
                {
                    if (evt is RequestInfoEvent info)
                    {
                        request = info.Request;
                        await watch.CancelAsync();
                    }
                }
            });
        }
        Assert.NotNull(request);
        Assert.NotEqual(RunStatus.Ended, await run.GetStatusAsync());

        await run.SendResponseAsync(request.CreateResponse("answer"));
        await Runs.DrainAsync(run);
        Assert.Contains("processor:answer", probe.All);
    }
}
