// Runs one scenario on MAF in the runner's three modes and hands every event and checkpoint to a Trace. The host
// protocol is the one the C++ side follows (normalized_trace.cc): run until the run halts, then answer every request
// that cycle reported from the scenario's response rules (in the trace's sorted order), then run again; stop when
// a halt leaves nothing to answer. Execution: Lockstep (a super-step's events are delivered after it ran, in the
// watching thread) or OffThread (MAF's default, InProcessExecution.Default: super-steps run on a background thread
// and events stream out as they are raised); the trace's multisets make both give one trace where only thread
// timing differs.
//   run          the fault-free run from the input.
//   restore N    the fault-free run, then RestoreCheckpointAsync(cpN) on the same run handle, driven to a halt.
//   resume N     the fault-free run, then a new workflow instance and checkpoint manager over the same store,
//                ResumeStreamingAsync(cpN), driven to a halt (what a new process would do).
// The trace of restore/resume holds only what happened after the restore: its events and the checkpoints it wrote.
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.InProc;

namespace Stepfault.Maf.Runner;

public enum Execution { Lockstep, OffThread }

public sealed class Driver(ScenarioDef def, Execution execution = Execution.Lockstep)
{
    readonly Host _host = new();
    readonly MemoryJsonStore _store = new();

    // "lockstep" or "offthread"; null for anything else.
    public static Execution? ParseExecution(string text) => text switch
    {
        "lockstep" => Execution.Lockstep,
        "offthread" => Execution.OffThread,
        _ => null,
    };

    InProcessExecutionEnvironment Environment() =>
        (execution == Execution.OffThread ? InProcessExecution.OffThread : InProcessExecution.Lockstep)
            .WithCheckpointing(CheckpointManager.CreateJson(this._store));

    public async Task<List<string>> RunAsync(string mode, int index, bool raw)
    {
        var first = new Trace(def, this._store, "run");
        await using StreamingRun run = await this.Environment().RunStreamingAsync(MafWorkflow.Build(def, this._host), def.Input);
        await this.DriveAsync(run, first);
        if (mode == "run") return raw ? this.Raw(0) : first.Finish(0);

        IReadOnlyList<MemoryJsonStore.Entry> entries = this._store.Entries;
        if (index < 0 || index >= entries.Count)
            throw new ArgumentOutOfRangeException(nameof(index), $"--{mode} {index}: the run wrote checkpoints 0..{entries.Count - 1}");
        int from = entries.Count;
        var second = new Trace(def, this._store, $"{mode}:{index}");
        CheckpointInfo target = entries[index].Info;
        if (mode == "restore")
        {
            // After a failed state publish (two writers of one shared key in a step) MAF 1.28 keeps the failed
            // updates queued and its live restore throws; that refusal is this mode's trace.
            try { await run.RestoreCheckpointAsync(target); }
            catch (InvalidOperationException e)
            {
                second.Error("MAF refused the restore: " + e.Message);
                return raw ? this.Raw(from) : second.Finish(from);
            }
            await this.DriveAsync(run, second);
        }
        else
        {
            await using StreamingRun resumed = await this.Environment().ResumeStreamingAsync(MafWorkflow.Build(def, this._host), target);
            // MAF 1.28 OffThread: a run resumed from a checkpoint with nothing to do (no queued message, no pending
            // request) never halts, so WatchStreamAsync never ends. The trace records the status MAF reports
            // instead of waiting (the deviation offthread-idle-resume-never-halts).
            if (execution == Execution.OffThread && !HasWork(entries[index]))
                second.Halt((await resumed.GetStatusAsync()).ToString(), []);
            else await this.DriveAsync(resumed, second);
        }
        return raw ? this.Raw(from) : second.Finish(from);
    }

    // Whether a serialized checkpoint leaves the run anything to do: a queued message or a pending request.
    static bool HasWork(MemoryJsonStore.Entry e)
    {
        System.Text.Json.JsonElement runner = e.Value.GetProperty("runnerData");
        bool Any(string member) =>
            runner.TryGetProperty(member, out System.Text.Json.JsonElement v) &&
            (v.ValueKind == System.Text.Json.JsonValueKind.Object ? v.EnumerateObject().Any(p => p.Value.ValueKind != System.Text.Json.JsonValueKind.Array || p.Value.GetArrayLength() > 0)
             : v.ValueKind == System.Text.Json.JsonValueKind.Array && v.GetArrayLength() > 0);
        return Any("queuedMessages") || Any("outstandingRequests");
    }

    List<string> Raw(int from) =>
        this._store.Entries.Skip(from).Select(e => $"{e.Info.CheckpointId} parent={e.Parent?.CheckpointId} {e.Value}").ToList();

    async Task DriveAsync(StreamingRun run, Trace trace)
    {
        while (true)
        {
            await foreach (WorkflowEvent evt in run.WatchStreamAsync(false)) trace.Add(evt);
            RunStatus status = await run.GetStatusAsync();
            List<(ExternalRequest Request, Msg Response)> answers = trace.Answerable();
            trace.Halt(status.ToString(), answers);
            if (answers.Count == 0 || status == RunStatus.Ended) return;
            foreach ((ExternalRequest request, Msg response) in answers)
                await run.SendResponseAsync(request.CreateResponse(response));
        }
    }
}
