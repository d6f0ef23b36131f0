// maf-runner SCENARIO.json [--resume N | --restore N | --all] [--raw]: runs a Stepfault JSON scenario on the real MAF
// and prints its normalized trace (docs/engine-semantics.md §11) on stdout, one canonical JSON object per line.
// --all: the fault-free run's trace, then for every checkpoint N it wrote the restore:N and resume:N traces, each
// from a fresh start (new effects, new fail-once markers, new store), so one process serves a whole differential.
// Exit 0 on a run that was traced (whatever the run did), 2 on bad input with the reason on stderr.
using Stepfault.Maf.Runner;

string? path = null;
string mode = "run";
int index = -1;
bool raw = false;
for (int i = 0; i < args.Length; ++i)
{
    if ((args[i] == "--resume" || args[i] == "--restore") && i + 1 < args.Length && int.TryParse(args[i + 1], out index))
    {
        mode = args[i][2..];
        ++i;
    }
    else if (args[i] == "--raw") raw = true;
    else if (args[i] == "--all") mode = "all";
    else if (path is null && !args[i].StartsWith("--", StringComparison.Ordinal)) path = args[i];
    else
    {
        Console.Error.WriteLine($"maf-runner: unexpected argument '{args[i]}'; usage: maf-runner SCENARIO.json [--resume N | --restore N | --all] [--raw]");
        return 2;
    }
}
if (path is null)
{
    Console.Error.WriteLine("maf-runner: usage: maf-runner SCENARIO.json [--resume N | --restore N | --all] [--raw]");
    return 2;
}
ScenarioDef def;
try { def = ScenarioDef.Parse(File.ReadAllText(path)); }
catch (Exception e) when (e is IOException or FormatException or System.Text.Json.JsonException or InvalidOperationException)
{
    Console.Error.WriteLine($"maf-runner: {path}: {e.Message}");
    return 2;
}
List<string> lines;
try
{
    if (mode != "all") lines = await new Driver(def).RunAsync(mode, index, raw);
    else
    {
        lines = await new Driver(def).RunAsync("run", -1, raw);
        int count = lines.Count(l => l.Contains("\"line\":\"checkpoint\"", StringComparison.Ordinal));
        for (int n = 0; n < count; ++n)
        {
            lines.AddRange(await new Driver(def).RunAsync("restore", n, raw));
            lines.AddRange(await new Driver(def).RunAsync("resume", n, raw));
        }
    }
}
catch (ArgumentOutOfRangeException e)
{
    Console.Error.WriteLine($"maf-runner: {e.Message}");
    return 2;
}
foreach (string line in lines) Console.WriteLine(line);
return 0;
