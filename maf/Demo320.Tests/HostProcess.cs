// Runs the built maf-demo320 (MAF_DEMO320_BIN, else the Release build beside this test assembly) as
// a child process over a scratch directory, and reads what it left: the business rows, and a digest
// of every file (to prove "nothing changed").
using System.Diagnostics;
using System.Security.Cryptography;
using Microsoft.Data.Sqlite;

namespace Stepfault.Maf.Demo320.Tests;

public sealed record Outcome(int Exit, string Stdout, string Stderr);

public sealed class HostProcess : IDisposable
{
    public string Dir { get; }
    public string Store { get; }

    public HostProcess(string store)
    {
        Store = store;
        Dir = Path.Combine(Path.GetTempPath(), "maf-demo320-test-" + Guid.NewGuid().ToString("N"), "op");
    }

    public void Dispose()
    {
        try { Directory.Delete(Path.GetDirectoryName(Dir)!, recursive: true); } catch (IOException) { }
    }

    public static string Binary =>
        Environment.GetEnvironmentVariable("MAF_DEMO320_BIN") is { Length: > 0 } bin ? bin
            : Path.GetFullPath(Path.Combine(AppContext.BaseDirectory, "..", "..", "Demo320", "release", "maf-demo320"));

    public Outcome Run(string? killAt, params string[] args)
    {
        var info = new ProcessStartInfo(Binary) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string a in args) info.ArgumentList.Add(a);
        info.ArgumentList.Add("--store");
        info.ArgumentList.Add(Store);
        if (killAt is not null) info.Environment["MAF_DEMO320_KILL_AT"] = killAt;
        using Process p = Process.Start(info)!;
        Task<string> stdout = p.StandardOutput.ReadToEndAsync();
        Task<string> stderr = p.StandardError.ReadToEndAsync();
        if (!p.WaitForExit(60_000))
        {
            p.Kill(entireProcessTree: true);
            throw new TimeoutException("maf-demo320 " + string.Join(' ', args) + " hung");
        }
        return new Outcome(p.ExitCode, stdout.Result, stderr.Result);
    }

    public Outcome Start(string? killAt = null) => Run(killAt, "start", "--dir", Dir);
    public Outcome Status() => Run(null, "status", "--dir", Dir);
    public Outcome Resume(string choice, string comment, string? killAt = null, bool failAfterWrite = false) =>
        failAfterWrite ? Run(killAt, "resume", "--dir", Dir, choice, comment, "--fail-after-write")
                       : Run(killAt, "resume", "--dir", Dir, choice, comment);

    // (ItemId, OperationId) of every backlog row, in ItemId order.
    public List<(long ItemId, string OperationId)> Items()
    {
        using var c = new SqliteConnection($"Data Source={Path.Combine(Dir, "business.db")};Mode=ReadOnly;Pooling=False");
        c.Open();
        using var cmd = c.CreateCommand();
        cmd.CommandText = "SELECT ItemId, OperationId FROM ApprovedBacklogItems ORDER BY ItemId";
        using var r = cmd.ExecuteReader();
        var rows = new List<(long, string)>();
        while (r.Read()) rows.Add((r.GetInt64(0), r.GetString(1)));
        return rows;
    }

    // Paths and bytes of every file under the directory (none when it does not exist).
    public string Digest()
    {
        if (!Directory.Exists(Dir)) return "absent";
        var lines = Directory.GetFiles(Dir, "*", SearchOption.AllDirectories).Order(StringComparer.Ordinal)
            .Select(f => Path.GetRelativePath(Dir, f) + " " + Convert.ToHexString(SHA256.HashData(File.ReadAllBytes(f))));
        return string.Join('\n', lines);
    }
}
