// The two checkpoint stores the host can keep MAF's checkpoints in, both under DIR/checkpoints:
//  - maf-json: MAF's own FileSystemJsonCheckpointStore (one file per checkpoint plus index.jsonl,
//    written without fsync), wrapped only to fire the after-checkpoint kill hook;
//  - strict: StrictCheckpointStore below, one file per checkpoint published by temp file, fsync,
//    rename and directory fsync, and no index: the list is the set of files, so no torn line can
//    brick it. Checkpoint ids are sequence numbers (000001, ...), deterministic across runs.
using System.Text.Json;
using Microsoft.Agents.AI.Workflows;
using Microsoft.Agents.AI.Workflows.Checkpointing;

namespace Stepfault.Maf.Demo320;

public static class CheckpointStores
{
    public const string DirName = "checkpoints";

    public static JsonCheckpointStore Open(string dir, bool strict)
    {
        var path = new DirectoryInfo(Path.Combine(dir, DirName));
        if (strict) return new StrictCheckpointStore(path.FullName);
        try
        {
            return new Hooked(new FileSystemJsonCheckpointStore(path));
        }
        catch (InvalidOperationException e)
        {
            throw HostError.Bad($"MAF's checkpoint store in '{path.FullName}' does not open: {e.Message}" +
                                (e.InnerException is null ? "" : $" ({e.InnerException.Message})"));
        }
    }

    private sealed class Hooked(FileSystemJsonCheckpointStore inner) : JsonCheckpointStore, IDisposable
    {
        public override async ValueTask<CheckpointInfo> CreateCheckpointAsync(string sessionId, JsonElement value,
                                                                              CheckpointInfo? parent = null)
        {
            CheckpointInfo info = await inner.CreateCheckpointAsync(sessionId, value, parent);
            KillHook.Hit("after-checkpoint");
            return info;
        }

        public override ValueTask<JsonElement> RetrieveCheckpointAsync(string sessionId, CheckpointInfo key) =>
            inner.RetrieveCheckpointAsync(sessionId, key);

        public override ValueTask<IEnumerable<CheckpointInfo>> RetrieveIndexAsync(string sessionId,
                                                                                 CheckpointInfo? withParent = null) =>
            inner.RetrieveIndexAsync(sessionId, withParent);

        public void Dispose() => inner.Dispose();
    }
}

public sealed class StrictCheckpointStore : JsonCheckpointStore
{
    private sealed record Entry(CheckpointInfo Info, string? Parent, string File);

    private readonly string _dir;
    private readonly List<Entry> _entries = [];  // in sequence (= commit) order
    private int _lastSequence;

    public StrictCheckpointStore(string dir)
    {
        _dir = dir;
        if (!Directory.Exists(dir)) return;  // created by the first checkpoint
        // Inherited durability: a dead process may have left renames and bytes only in the page cache.
        var names = Directory.GetFiles(dir, "*.json").Select(Path.GetFileName).Order(StringComparer.Ordinal).ToList();
        Durability.Inherit(dir, names!);
        foreach (string name in names!)
        {
            if (!int.TryParse(Path.GetFileNameWithoutExtension(name), out int sequence)) continue;
            JsonElement header;
            try
            {
                using var document = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(dir, name)));
                header = document.RootElement.Clone();
            }
            catch (JsonException e)
            {
                // Never produced by Publish (the name appears only with its synced bytes): real damage.
                throw HostError.Bad($"checkpoint file '{Path.Combine(dir, name)}' is damaged: {e.Message}");
            }
            string session = header.GetProperty("SessionId").GetString()!;
            string? parent = header.GetProperty("Parent").GetString();
            _entries.Add(new Entry(new CheckpointInfo(session, Path.GetFileNameWithoutExtension(name)), parent, name));
            _lastSequence = Math.Max(_lastSequence, sequence);
        }
    }

    public override ValueTask<CheckpointInfo> CreateCheckpointAsync(string sessionId, JsonElement value,
                                                                    CheckpointInfo? parent = null)
    {
        Directory.CreateDirectory(_dir);
        int sequence = _lastSequence + 1;
        string id = sequence.ToString("D6", System.Globalization.CultureInfo.InvariantCulture);
        var info = new CheckpointInfo(sessionId, id);
        var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteString("SessionId", sessionId);
            writer.WriteString("Parent", parent?.CheckpointId);
            writer.WritePropertyName("Value");
            value.WriteTo(writer);
            writer.WriteEndObject();
        }
        Durability.Publish(Path.Combine(_dir, id + ".json"), buffer.ToArray());
        _lastSequence = sequence;
        _entries.Add(new Entry(info, parent?.CheckpointId, id + ".json"));
        KillHook.Hit("after-checkpoint");
        return ValueTask.FromResult(info);
    }

    public override ValueTask<JsonElement> RetrieveCheckpointAsync(string sessionId, CheckpointInfo key)
    {
        Entry? entry = _entries.FirstOrDefault(e => e.Info.Equals(key));
        if (entry is null || entry.Info.SessionId != sessionId)
            throw new KeyNotFoundException($"checkpoint '{key.CheckpointId}' is not in '{_dir}'");
        using var document = JsonDocument.Parse(File.ReadAllBytes(Path.Combine(_dir, entry.File)));
        return ValueTask.FromResult(document.RootElement.GetProperty("Value").Clone());
    }

    public override ValueTask<IEnumerable<CheckpointInfo>> RetrieveIndexAsync(string sessionId,
                                                                             CheckpointInfo? withParent = null)
    {
        IEnumerable<CheckpointInfo> list = _entries
            .Where(e => e.Info.SessionId == sessionId && (withParent is null || e.Parent == withParent.CheckpointId))
            .Select(e => e.Info).ToArray();
        return ValueTask.FromResult(list);
    }
}
