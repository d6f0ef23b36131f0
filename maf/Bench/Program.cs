// maf-bench: what a checkpointed super-step costs in real MAF (Microsoft.Agents.AI.Workflows, the
// version pinned in maf/Directory.Packages.props) on the linear ring of Ring.cs, 100 B and 1 MB of
// state per executor, three ways in one process: no checkpointing (the baseline), the in-memory
// manager, and the JSON file store (FileSystemJsonCheckpointStore under STEPFAULT_BENCH_DIR, default
// /tmp). Prints one JSON object on stdout in the shape langgraph_bench.mjs prints, one entry of
// "shapes" per (state size, checkpointer), so tools/bench/peers/run hands it to stepfault-bench.
//
// Why a Stopwatch-style harness and not BenchmarkDotNet: one sample is a whole run of hundreds of
// steps (the token ring only ends by itself), it must share the timer definition of the two other
// columns it is compared with (process CPU time, user + system, all threads, per step, medians of
// `reps`, variants alternating), and BenchmarkDotNet's pilot and overhead phases take minutes per
// case on this 2-core machine shared with other jobs. Timing is fine here: this is a benchmark.
// Usage: maf-bench [reps]     (default 3)
using System.Diagnostics;
using System.Reflection;
using System.Text.Json;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Bench;

internal enum Checkpointer { None, Memory, JsonFile }

internal static class Program
{
    // What one run measured, per timed step (the steps after the warm-up turn).
    private readonly record struct Sample(double CpuUs, double WallUs);

    private static async Task<Sample> RunOnce(string pool, int stateBytes, int timedSteps,
                                              Checkpointer checkpointer, string scratch)
    {
        int totalSteps = timedSteps + Ring.Length;
        var probe = new RingProbe();
        Workflow workflow = Ring.Build(pool, stateBytes, totalSteps, probe);
        string dir = Path.Combine(scratch, $"run-{Guid.NewGuid():N}");
        FileSystemJsonCheckpointStore? store = null;
        CheckpointManager? manager = checkpointer switch
        {
            Checkpointer.None => null,
            // A fresh in-memory manager per run, the same type as CheckpointManager.Default: Default
            // is one process-wide instance that would keep every run's checkpoints alive.
            Checkpointer.Memory => CheckpointManager.CreateInMemory(),
            _ => CheckpointManager.CreateJson(store = new FileSystemJsonCheckpointStore(new DirectoryInfo(dir))),
        };
        try
        {
            // Lockstep: the steps run on the caller's task, with no hand-off to a background runner
            // thread, the environment with the least machinery between two steps.
            var env = InProcessExecution.Lockstep;
            await using StreamingRun run = manager is null
                ? await env.RunStreamingAsync(workflow, 0).ConfigureAwait(false)
                : await env.WithCheckpointing(manager).RunStreamingAsync(workflow, 0).ConfigureAwait(false);
            int checkpoints = 0;
            await foreach (WorkflowEvent evt in run.WatchStreamAsync(blockOnPendingRequest: false).ConfigureAwait(false))
            {
                switch (evt)
                {
                    case SuperStepCompletedEvent step when step.CompletionInfo?.Checkpoint is not null:
                        checkpoints++;
                        break;
                    case ExecutorFailedEvent or WorkflowErrorEvent:
                        throw new InvalidOperationException($"the ring failed: {evt}");
                }
            }
            TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime - probe.CpuAtWarm;
            double wallUs = Stopwatch.GetElapsedTime(probe.WallAtWarm).TotalMicroseconds;
            // A benchmark that silently measured a short or uncheckpointed run would be worse than none.
            if (probe.LastToken != totalSteps - 1)
            {
                throw new InvalidOperationException($"ran to token {probe.LastToken}, wanted {totalSteps - 1}");
            }
            int wantCheckpoints = checkpointer == Checkpointer.None ? 0 : totalSteps;
            if (checkpoints < wantCheckpoints - 1 || (wantCheckpoints == 0 && checkpoints != 0))
            {
                throw new InvalidOperationException($"{checkpoints} checkpoints in {totalSteps} steps ({checkpointer})");
            }
            return new Sample(cpu.TotalMicroseconds / timedSteps, wallUs / timedSteps);
        }
        finally
        {
            store?.Dispose();
            if (Directory.Exists(dir))
            {
                Directory.Delete(dir, recursive: true);
            }
        }
    }

    private static double Median(List<double> xs)
    {
        var sorted = xs.Order().ToList();
        return sorted[sorted.Count / 2];
    }

    private static string Name(Checkpointer c) => c switch
    {
        Checkpointer.Memory => "InMemoryCheckpointManager",
        Checkpointer.JsonFile => "FileSystemJsonCheckpointStore",
        _ => "none",
    };

    public static async Task<int> Main(string[] args)
    {
        int reps = 3;
        if (args.Length > 1 || (args.Length == 1 && (!int.TryParse(args[0], out reps) || reps < 1)))
        {
            Console.Error.WriteLine("usage: maf-bench [reps]   (reps: a positive integer, default 3)");
            return 2;
        }
        string scratch = Environment.GetEnvironmentVariable("STEPFAULT_BENCH_DIR") is { Length: > 0 } d ? d : Path.GetTempPath();
        scratch = Path.Combine(scratch, $"maf-bench-{Environment.ProcessId}");
        Directory.CreateDirectory(scratch);
        var shapes = new List<object>();
        try
        {
            foreach ((int stateBytes, int steps) in new[] { (100, 400), (1048576, 24) })
            {
                string pool = Ring.Pool(stateBytes);
                Checkpointer[] all = [Checkpointer.None, Checkpointer.Memory, Checkpointer.JsonFile];
                var cpu = all.ToDictionary(c => c, _ => new List<double>());
                var wall = all.ToDictionary(c => c, _ => new List<double>());
                // Warm the JIT up on every variant at full length, then rotate which goes first per
                // repetition, so a drift during the run does not land on one side.
                foreach (Checkpointer c in all)
                {
                    await RunOnce(pool, stateBytes, steps, c, scratch).ConfigureAwait(false);
                }
                for (int r = 0; r < reps; r++)
                {
                    for (int j = 0; j < all.Length; j++)
                    {
                        Checkpointer c = all[(r + j) % all.Length];
                        GC.Collect();
                        GC.WaitForPendingFinalizers();
                        Sample s = await RunOnce(pool, stateBytes, steps, c, scratch).ConfigureAwait(false);
                        cpu[c].Add(s.CpuUs);
                        wall[c].Add(s.WallUs);
                    }
                }
                double unchecked_ = Median(cpu[Checkpointer.None]);
                foreach (Checkpointer c in new[] { Checkpointer.Memory, Checkpointer.JsonFile })
                {
                    double checked_ = Median(cpu[c]);
                    shapes.Add(new Dictionary<string, object>
                    {
                        ["shape"] = "linear", ["length"] = Ring.Length, ["state_bytes_per_executor"] = stateBytes,
                        ["steps"] = steps, ["reps"] = reps, ["checkpointer"] = Name(c),
                        ["checked_us_per_step"] = checked_, ["unchecked_us_per_step"] = unchecked_,
                        ["overhead_us_per_step"] = checked_ - unchecked_,
                        ["checked_all"] = cpu[c], ["unchecked_all"] = cpu[Checkpointer.None],
                        ["checked_wall_us_per_step"] = Median(wall[c]),
                        ["unchecked_wall_us_per_step"] = Median(wall[Checkpointer.None]),
                    });
                }
            }
        }
        finally
        {
            Directory.Delete(scratch, recursive: true);
        }
        string version = typeof(Workflow).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion ?? "?";
        var output = new Dictionary<string, object>
        {
            ["peer"] = "maf-dotnet", ["maf_version"] = version.Split('+')[0],
            ["dotnet_version"] = Environment.Version.ToString(), ["environment"] = "InProcessExecution.Lockstep",
            ["timer"] = "process CPU time (user + system, all threads) per step", ["shapes"] = shapes,
        };
        Console.WriteLine(JsonSerializer.Serialize(output));
        return 0;
    }
}
