// The benchmark workflow, built on real MAF: stepfault-bench's linear ring (tools/bench/harness.h)
// and the LangGraph.js peer's (tools/bench/peers/langgraph_bench.mjs). Eight executors pass one
// token (the step count) around a ring; the token holder rewrites its private state, one string of
// `stateBytes` fresh characters under key "blob" in its own scope, and sends the token on. The run
// ends by itself after `steps` super-steps (the holder of the last token sends nothing), so one
// run is one measured sample. The first Length steps write every executor's state once (the
// warm-up turn): timing starts when the token comes back to e0, so every timed checkpoint carries
// all eight states, as in stepfault-bench.
using System.Diagnostics;
using Microsoft.Agents.AI.Workflows;

namespace Stepfault.Maf.Bench;

internal sealed class RingProbe
{
    public TimeSpan CpuAtWarm { get; set; }
    public long WallAtWarm { get; set; }
    public int LastToken { get; set; } = -1;
}

[SendsMessage(typeof(int))]
internal sealed class RingExecutor(int index, string pool, int stateBytes, int totalSteps, RingProbe probe)
    : Executor<int>($"e{index}")
{
    public override async ValueTask HandleAsync(int token, IWorkflowContext context,
                                                CancellationToken cancellationToken = default)
    {
        if (token == Ring.Length)
        {
            probe.CpuAtWarm = Process.GetCurrentProcess().TotalProcessorTime;
            probe.WallAtWarm = Stopwatch.GetTimestamp();
        }
        // A new string of exactly stateBytes, a different slice per (executor, step), as both peers do.
        int k = (int)(((long)token * 7 + index) % stateBytes);
        string fresh = pool.Substring(k, stateBytes);
        await context.QueueStateUpdateAsync("blob", fresh, cancellationToken).ConfigureAwait(false);
        probe.LastToken = token;
        if (token + 1 < totalSteps)
        {
            await context.SendMessageAsync(token + 1, cancellationToken: cancellationToken).ConfigureAwait(false);
        }
    }
}

internal static class Ring
{
    public const int Length = 8;

    // The same deterministic hex pool as langgraph_bench.mjs (xorshift32 from 0x9e3779b9).
    public static string Pool(int stateBytes)
    {
        uint x = 0x9e3779b9;
        char[] chars = new char[stateBytes * 2];
        const string Hex = "0123456789abcdef";
        for (int i = 0; i < chars.Length; i++)
        {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            chars[i] = Hex[(int)(x & 15)];
        }
        return new string(chars);
    }

    public static Workflow Build(string pool, int stateBytes, int totalSteps, RingProbe probe)
    {
        var executors = new RingExecutor[Length];
        for (int i = 0; i < Length; i++)
        {
            executors[i] = new RingExecutor(i, pool, stateBytes, totalSteps, probe);
        }
        var builder = new WorkflowBuilder(executors[0]);
        for (int i = 0; i < Length; i++)
        {
            builder.AddEdge(executors[i], executors[(i + 1) % Length]);
        }
        return builder.Build();
    }
}
