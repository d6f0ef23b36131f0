// An in-memory JSON checkpoint store: keeps every checkpoint MAF commits as the JsonElement it serialized, in commit
// order, with ids "cp0", "cp1", ... (the ordinal names the trace uses). Holding the serialized form means a fresh
// resume reads what a durable store would have given back, and the normalizer reads checkpoint content without
// MAF's internal types.
using System.Text.Json;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Runner;

public sealed class MemoryJsonStore : JsonCheckpointStore
{
    public sealed record Entry(CheckpointInfo Info, JsonElement Value, CheckpointInfo? Parent);

    readonly List<Entry> _entries = [];
    readonly object _lock = new();

    public IReadOnlyList<Entry> Entries { get { lock (this._lock) { return this._entries.ToList(); } } }

    public int IndexOf(CheckpointInfo info)
    {
        lock (this._lock) { return this._entries.FindIndex(e => e.Info.CheckpointId == info.CheckpointId); }
    }

    public override ValueTask<CheckpointInfo> CreateCheckpointAsync(string sessionId, JsonElement value,
                                                                    CheckpointInfo? parent = null)
    {
        lock (this._lock)
        {
            var info = new CheckpointInfo(sessionId, $"cp{this._entries.Count}");
            this._entries.Add(new Entry(info, value.Clone(), parent));
            return ValueTask.FromResult(info);
        }
    }

    public override ValueTask<JsonElement> RetrieveCheckpointAsync(string sessionId, CheckpointInfo key)
    {
        lock (this._lock)
        {
            Entry? e = this._entries.Find(x => x.Info.CheckpointId == key.CheckpointId);
            if (e is null) throw new KeyNotFoundException($"no checkpoint {key.CheckpointId}");
            return ValueTask.FromResult(e.Value);
        }
    }

    public override ValueTask<IEnumerable<CheckpointInfo>> RetrieveIndexAsync(string sessionId,
                                                                              CheckpointInfo? withParent = null)
    {
        lock (this._lock) { return ValueTask.FromResult<IEnumerable<CheckpointInfo>>(this._entries.Select(e => e.Info).ToList()); }
    }
}
