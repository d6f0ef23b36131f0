// Real MAF's JSON file store (FileSystemJsonCheckpointStore) under the two store hazards: does
// reading a checkpoint prune anything (#7796), and how is a checkpoint put on disk?
// Mirror: dotnet/src/Microsoft.Agents.AI.Workflows/Checkpointing/FileSystemJsonCheckpointStore.cs
// (CreateCheckpointAsync: File.Open(FileMode.Create) on the final name, the JSON written into it,
// then one index.jsonl line appended and FlushAsync'd; no temp file, no rename, no fsync;
// RetrieveCheckpointAsync only reads) and Checkpointing/CheckpointManagerImpl.cs.
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Hazards.Tests;

public sealed class StoreTests : IDisposable
{
    private readonly string _dir = Path.Combine(Path.GetTempPath(), $"maf-hazards-{Guid.NewGuid():N}");

    public void Dispose()
    {
        if (Directory.Exists(this._dir))
        {
            Directory.Delete(this._dir, recursive: true);
        }
    }

    // Hazard prune-on-read (#7796). Four checkpoints, a fresh resume from the second (a read
    // and a restore) that runs to the end: every original checkpoint is still in the index and
    // still retrievable.
    [Fact]
    public async Task ReadingACheckpointPrunesNothing_Holds()
    {
        using var store = new FileSystemJsonCheckpointStore(new DirectoryInfo(this._dir));
        CheckpointManager manager = CheckpointManager.CreateJson(store);
        List<CheckpointInfo> chain;
        string session;
        await using (StreamingRun run = await Runs.Lockstep(manager).RunStreamingAsync(ResumeTests.CounterChain(new Probe(), 4), "."))
        {
            session = run.SessionId;
            chain = Runs.Checkpoints(await Runs.DrainAsync(run));
        }
        Assert.Equal(4, chain.Count);
        await using (StreamingRun resumed = await Runs.Lockstep(manager).ResumeStreamingAsync(ResumeTests.CounterChain(new Probe(), 4), chain[1]))
        {
            await Runs.DrainAsync(resumed);
        }
        List<CheckpointInfo> index = [.. await store.RetrieveIndexAsync(session)];
        Assert.All(chain, c => Assert.Contains(c, index));
        foreach (CheckpointInfo c in chain)
        {
            await store.RetrieveCheckpointAsync(session, c);
        }
    }

    // What the file system sees while one checkpoint is committed, in kernel order (inotify,
    // through FileSystemWatcher): "<kind> <name>".
    private async Task<List<string>> WatchOneCommitAsync()
    {
        Directory.CreateDirectory(this._dir);
        using var store = new FileSystemJsonCheckpointStore(new DirectoryInfo(this._dir));
        var seen = new System.Collections.Concurrent.ConcurrentQueue<string>();
        using var watcher = new FileSystemWatcher(this._dir) { IncludeSubdirectories = false };
        watcher.NotifyFilter = NotifyFilters.FileName | NotifyFilters.LastWrite | NotifyFilters.Size;
        watcher.Created += (_, e) => seen.Enqueue($"created {e.Name}");
        watcher.Changed += (_, e) => seen.Enqueue($"changed {e.Name}");
        watcher.Renamed += (_, e) => seen.Enqueue($"renamed {e.OldName}->{e.Name}");
        watcher.EnableRaisingEvents = true;
        await using (StreamingRun run = await Runs.Lockstep(CheckpointManager.CreateJson(store))
                                                  .RunStreamingAsync(new WorkflowBuilder(new Sink("only", new Probe())).Build(), "x"))
        {
            Assert.Single(Runs.Checkpoints(await Runs.DrainAsync(run)));
        }
        // The watcher's events arrive on its own thread: wait (bounded) until the index line shows.
        for (int i = 0; i < 200 && !seen.Any(s => s.EndsWith("index.jsonl", StringComparison.Ordinal)); i++)
        {
            await Task.Delay(25);
        }
        return [.. seen];
    }

    // Hazard in-place-checkpoint-write, its ordering half: the checkpoint file is created before
    // its index line is appended, so a crash between the two leaves an unindexed file, never an
    // index line naming a missing checkpoint.
    [Fact]
    public async Task CheckpointFileIsWrittenBeforeItsIndexLine_Holds()
    {
        List<string> seen = await this.WatchOneCommitAsync();
        int file = seen.FindIndex(s => s.StartsWith("created ", StringComparison.Ordinal) && s.EndsWith("json", StringComparison.Ordinal) && !s.Contains("index", StringComparison.Ordinal));
        int index = seen.FindIndex(s => s.EndsWith("index.jsonl", StringComparison.Ordinal) && s.StartsWith("changed ", StringComparison.Ordinal));
        Assert.True(file >= 0 && index > file, string.Join(", ", seen));
    }

    // Hazard in-place-checkpoint-write, its in-place half: the checkpoint is written under its
    // final name (no temporary file, no rename), so a crash mid-write leaves a torn file under
    // the name the index will give it.
    [Fact]
    public async Task CheckpointIsWrittenInPlaceWithoutRename_StillPresent()
    {
        List<string> seen = await this.WatchOneCommitAsync();
        Assert.DoesNotContain(seen, s => s.StartsWith("renamed ", StringComparison.Ordinal));
        List<string> created = [.. seen.Where(s => s.StartsWith("created ", StringComparison.Ordinal))];
        // Only the checkpoint itself is created (index.jsonl already exists when the store opens).
        Assert.Single(created);
    }
}
