// Small executors and run helpers the hazard tests share. Every executor appends what it saw to a
// Probe (a list the test reads afterwards), so a test can say exactly which messages, states and
// steps real MAF produced. Runs use InProcessExecution.Lockstep (steps on the caller's task, no
// background runner) unless a test needs the off-thread runner, and every watch has a timeout, so
// a hazard that hangs the run fails its test instead of hanging the suite.
using System.Collections.Concurrent;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.InProc;

namespace Stepfault.Maf.Hazards.Tests;

public sealed class Probe
{
    public ConcurrentQueue<string> Seen { get; } = new();
    public void Add(string what) => this.Seen.Enqueue(what);
    public List<string> All => [.. this.Seen];
}

// Records "<id>:<message>" and forwards the message to its successors (if it has any edges).
[SendsMessage(typeof(string))]
public sealed class Relay(string id, Probe probe) : Executor<string>(id)
{
    public override async ValueTask HandleAsync(string message, IWorkflowContext context,
                                                CancellationToken cancellationToken = default)
    {
        probe.Add($"{this.Id}:{message}");
        await context.SendMessageAsync($"{message}>{this.Id}", cancellationToken: cancellationToken).ConfigureAwait(false);
    }
}

// Records "<id>:<message>" and sends nothing: the end of a chain.
public sealed class Sink(string id, Probe probe) : Executor<string>(id)
{
    public override ValueTask HandleAsync(string message, IWorkflowContext context,
                                          CancellationToken cancellationToken = default)
    {
        probe.Add($"{this.Id}:{message}");
        return default;
    }
}

// A counter in the executor's own state: each message adds one, records "<id>=<value>" and
// passes the message on while it is shorter than `hops` relays, so a chain of super-steps runs.
[SendsMessage(typeof(string))]
public class Counter(string id, Probe probe, int hops) : Executor<string>(id)
{
    public override async ValueTask HandleAsync(string message, IWorkflowContext context,
                                                CancellationToken cancellationToken = default)
    {
        int value = await context.ReadOrInitStateAsync("n", () => 0, cancellationToken: cancellationToken).ConfigureAwait(false);
        value++;
        await context.QueueStateUpdateAsync("n", value, cancellationToken: cancellationToken).ConfigureAwait(false);
        probe.Add($"{this.Id}={value}");
        if (message.Length < hops)
        {
            await context.SendMessageAsync(message + ".", cancellationToken: cancellationToken).ConfigureAwait(false);
        }
    }
}

public static class Runs
{
    // A request port "port" as start executor, its responses going to Sink "processor".
    public static Workflow PortWorkflow(Probe probe)
    {
        RequestPort<string, string> port = RequestPort.Create<string, string>("port");
        return new WorkflowBuilder(port).AddEdge(port, new Sink("processor", probe)).Build();
    }

    public static InProcessExecutionEnvironment Lockstep(CheckpointManager manager) =>
        InProcessExecution.Lockstep.WithCheckpointing(manager);

    // Watches until the run has nothing left to do (pending requests do not block), with a
    // timeout. Returns every event; throws on an executor failure.
    public static async Task<List<WorkflowEvent>> DrainAsync(StreamingRun run, bool allowFailure = false)
    {
        using CancellationTokenSource cts = new(TimeSpan.FromSeconds(20));
        var events = new List<WorkflowEvent>();
        await foreach (WorkflowEvent evt in run.WatchStreamAsync(blockOnPendingRequest: false, cts.Token).ConfigureAwait(false))
        {
            events.Add(evt);
            if (!allowFailure && evt is ExecutorFailedEvent or WorkflowErrorEvent)
            {
                throw new InvalidOperationException($"the run failed: {evt}");
            }
        }
        return events;
    }

    public static List<CheckpointInfo> Checkpoints(IEnumerable<WorkflowEvent> events) =>
        [.. events.OfType<SuperStepCompletedEvent>()
                  .Select(e => e.CompletionInfo?.Checkpoint)
                  .Where(c => c is not null)
                  .Select(c => c!)];

    public static List<int> StepNumbers(IEnumerable<WorkflowEvent> events) =>
        [.. events.OfType<SuperStepStartedEvent>().Select(e => e.StepNumber)];
}
