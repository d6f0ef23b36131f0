// The strict profile's file rules. Publish: temp file, fsync, rename, directory fsync, so a name
// appears only with its whole bytes and, once the call returns, survives power loss. Inherit: before
// a new process trusts files a dead one left (maybe only in the page cache), fsync them and their
// directory: what it reads and acts on is then what a power loss would keep (fsync changes no byte).
namespace Stepfault.Maf.Demo320;

public static class Durability
{
    public static void Publish(string path, ReadOnlySpan<byte> bytes, string? killPointAfterTmp = null)
    {
        string tmp = path + ".tmp";
        using (var stream = new FileStream(tmp, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            stream.Write(bytes);
            stream.Flush(flushToDisk: true);
        }
        if (killPointAfterTmp is not null) KillHook.Hit(killPointAfterTmp);
        File.Move(tmp, path, overwrite: true);
        Posix.SyncDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
    }

    public static void Inherit(string dir, IEnumerable<string> names)
    {
        foreach (string name in names) Posix.SyncPath(Path.Combine(dir, name));
        Posix.SyncDirectory(dir);
    }
}
