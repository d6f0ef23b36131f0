// The command line of maf-runner (Program.cs): SCENARIO.json [--resume N | --restore N | --all]
// [--execution lockstep|offthread] [--raw].
// --all: the fault-free run's trace, then for every checkpoint N it wrote the restore:N and resume:N traces, each
// from a fresh start (new effects, new fail-once markers, new store), so one process serves a whole differential.
// --execution: MAF's Lockstep (the default) or OffThread environment (Driver.cs).
// Exit 0 on a run that was traced (whatever the run did), 2 on bad input with the reason on stderr: a missing or
// unreadable file, a scenario that does not parse, an unknown argument or execution, a checkpoint the run did not
// write.
namespace Stepfault.Maf.Runner;

public static class Cli
{
    const string Usage =
        "usage: maf-runner SCENARIO.json [--resume N | --restore N | --all] [--execution lockstep|offthread] [--raw]";

    public static async Task<int> RunAsync(string[] args, TextWriter stdout, TextWriter stderr)
    {
        string? path = null;
        string mode = "run";
        int index = -1;
        bool raw = false;
        Execution execution = Execution.Lockstep;
        for (int i = 0; i < args.Length; ++i)
        {
            if ((args[i] == "--resume" || args[i] == "--restore") && i + 1 < args.Length && int.TryParse(args[i + 1], out index))
            {
                mode = args[i][2..];
                ++i;
            }
            else if (args[i] == "--execution" && i + 1 < args.Length)
            {
                if (Driver.ParseExecution(args[++i]) is not { } e)
                {
                    stderr.WriteLine($"maf-runner: unknown execution '{args[i]}'; expected lockstep or offthread");
                    return 2;
                }
                execution = e;
            }
            else if (args[i] == "--raw") raw = true;
            else if (args[i] == "--all") mode = "all";
            else if (path is null && !args[i].StartsWith("--", StringComparison.Ordinal)) path = args[i];
            else
            {
                stderr.WriteLine($"maf-runner: unexpected argument '{args[i]}'; {Usage}");
                return 2;
            }
        }
        if (path is null)
        {
            stderr.WriteLine($"maf-runner: {Usage}");
            return 2;
        }
        ScenarioDef def;
        try { def = ScenarioDef.Parse(File.ReadAllText(path)); }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException or FormatException
                                      or System.Text.Json.JsonException or InvalidOperationException)
        {
            stderr.WriteLine($"maf-runner: {path}: {e.Message}");
            return 2;
        }
        List<string> lines;
        try
        {
            if (mode != "all") lines = await new Driver(def, execution).RunAsync(mode, index, raw);
            else
            {
                lines = await new Driver(def, execution).RunAsync("run", -1, raw);
                int count = lines.Count(l => l.Contains("\"line\":\"checkpoint\"", StringComparison.Ordinal));
                for (int n = 0; n < count; ++n)
                {
                    foreach (string m in new[] { "restore", "resume" })
                    {
                        // Under OffThread a fresh run may take other steps than the first (thread timing: the
                        // host's answers split across steps), so checkpoint N may not exist this time; that mode's
                        // trace is then an error line with the reason, as for a restore MAF refuses.
                        try { lines.AddRange(await new Driver(def, execution).RunAsync(m, n, raw)); }
                        catch (ArgumentOutOfRangeException e) when (execution == Execution.OffThread)
                        {
                            lines.Add(Canonical.Dump(new System.Text.Json.Nodes.JsonObject { ["line"] = "begin", ["mode"] = $"{m}:{n}" }));
                            lines.Add(Canonical.Dump(new System.Text.Json.Nodes.JsonObject { ["line"] = "error", ["message"] = e.Message }));
                        }
                    }
                }
            }
        }
        catch (ArgumentOutOfRangeException e)
        {
            stderr.WriteLine($"maf-runner: {e.Message}");
            return 2;
        }
        foreach (string line in lines) stdout.WriteLine(line);
        return 0;
    }
}
