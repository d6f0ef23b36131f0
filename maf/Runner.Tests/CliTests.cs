// The command line: --all gives every mode, and bad input exits 2 with a message that names what was wrong.
namespace Stepfault.Maf.Runner.Tests;

public class CliTests
{
    [Fact]
    public async Task AllPrintsTheRunThenRestoreAndResumeOfEveryCheckpoint()
    {
        using var f = new Scenarios.TempFile(Scenarios.TwoSenders("l", "r"));
        (int status, string stdout, string _) = await Scenarios.Cli(f.Path, "--all", "--execution", "offthread");
        Assert.Equal(0, status);
        List<string> begins = stdout.Split('\n').Where(l => l.Contains("\"line\":\"begin\"", StringComparison.Ordinal)).ToList();
        Assert.Equal(["run", "restore:0", "resume:0", "restore:1", "resume:1", "restore:2", "resume:2"],
                     begins.Select(b => System.Text.Json.Nodes.JsonNode.Parse(b)!["mode"]!.GetValue<string>()));
    }

    [Fact]
    public async Task AMissingFileExitsTwoNamingTheFile()
    {
        string path = Path.Combine(Path.GetTempPath(), "runner-test-no-such-file.json");
        (int status, string stdout, string stderr) = await Scenarios.Cli(path);
        Assert.Equal(2, status);
        Assert.Empty(stdout);
        Assert.Contains(path, stderr);
    }

    [Theory]
    [InlineData("--replay", "unexpected argument '--replay'")]
    [InlineData("--execution=offthread", "unexpected argument '--execution=offthread'")]
    [InlineData("--restore", "unexpected argument '--restore'")]
    public async Task AnUnknownModeExitsTwoNamingTheArgument(string arg, string message)
    {
        using var f = new Scenarios.TempFile(Scenarios.TwoSenders("l", "r"));
        (int status, string stdout, string stderr) = await Scenarios.Cli(f.Path, arg);
        Assert.Equal(2, status);
        Assert.Empty(stdout);
        Assert.Contains(message, stderr);
    }

    [Fact]
    public async Task AnUnknownExecutionExitsTwoNamingIt()
    {
        using var f = new Scenarios.TempFile(Scenarios.TwoSenders("l", "r"));
        (int status, _, string stderr) = await Scenarios.Cli(f.Path, "--execution", "concurrent");
        Assert.Equal(2, status);
        Assert.Contains("unknown execution 'concurrent'", stderr);
    }

    [Theory]
    [InlineData("--restore", "3")]
    [InlineData("--resume", "-1")]
    public async Task ACheckpointOutOfRangeExitsTwoNamingTheRange(string mode, string index)
    {
        using var f = new Scenarios.TempFile(Scenarios.TwoSenders("l", "r"));
        (int status, string stdout, string stderr) = await Scenarios.Cli(f.Path, mode, index);
        Assert.Equal(2, status);
        Assert.Empty(stdout);
        Assert.Contains($"{mode} {index}: the run wrote checkpoints 0..2", stderr);
    }

    [Fact]
    public async Task AScenarioThatDoesNotParseExitsTwoNamingTheMember()
    {
        using var f = new Scenarios.TempFile("""{"name": "x", "input": {"type": "T", "body": {}}}""");
        (int status, _, string stderr) = await Scenarios.Cli(f.Path);
        Assert.Equal(2, status);
        Assert.Contains("/start: missing", stderr);
    }
}
