// The Demo320 contract of maf-demo320, per checkpoint store variant: the full flow, replay, refusals
// that change nothing, --fail-after-write, the lease, and SIGKILL at each named point followed by
// the operator's recovery (status-driven: start again if nothing durable, else resume).
using Xunit;

namespace Stepfault.Maf.Demo320.Tests;

public sealed class Demo320Tests
{
    public static TheoryData<string> Stores => new() { "maf-json", "strict" };

    [Theory, MemberData(nameof(Stores))]
    public void ApproveCompletesWithOneRowAndStatusReadsIt(string store)
    {
        using var h = new HostProcess(store);
        Outcome start = h.Start();
        Assert.Equal(0, start.Exit);
        Assert.Contains("RequestId: ", start.Stdout);
        Assert.Equal("Status: Waiting\n", h.Status().Stdout);
        Outcome resume = h.Resume("approve", "looks good");
        Assert.Equal(0, resume.Exit);
        Assert.Equal("ItemId: 1\n", resume.Stdout);
        Assert.Equal("Status: Completed\nStoredItem: 1\n", h.Status().Stdout);
        Assert.Single(h.Items());
    }

    [Theory, MemberData(nameof(Stores))]
    public void RejectIsFinalAndCreatesNoRow(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(0, h.Start().Exit);
        Outcome reject = h.Resume("reject", "no budget this quarter");
        Assert.Equal(0, reject.Exit);
        Assert.Contains("was rejected; no item was created", reject.Stdout);
        Assert.Equal("Status: Rejected\n", h.Status().Stdout);
        Outcome approve = h.Resume("approve", "no budget this quarter");
        Assert.Equal(2, approve.Exit);
        Assert.Empty(h.Items());
    }

    [Theory, MemberData(nameof(Stores))]
    public void ReplayOfACompletedResumeReturnsTheSameItemAndOneRow(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(0, h.Start().Exit);
        Assert.Equal("ItemId: 1\n", h.Resume("approve", "looks good").Stdout);
        Outcome replay = h.Resume("approve", "looks good");
        Assert.Equal(0, replay.Exit);
        Assert.Equal("ItemId: 1\n", replay.Stdout);
        Assert.Single(h.Items());
    }

    [Theory, MemberData(nameof(Stores))]
    public void AConflictingDecisionExits2AndChangesNothing(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(0, h.Start().Exit);
        Assert.Equal(0, h.Resume("approve", "looks good").Exit);
        string before = h.Digest();
        Outcome edited = h.Resume("approve", "looks better");
        Assert.Equal(2, edited.Exit);
        Assert.Contains("must repeat that exact decision", edited.Stderr);
        Assert.Equal(2, h.Resume("reject", "looks good").Exit);
        Assert.Equal(before, h.Digest());
    }

    [Theory, MemberData(nameof(Stores))]
    public void BadInputExits2AndChangesNothing(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(2, h.Resume("approve", "x").Exit);  // nothing started: the directory is not created
        Assert.Equal("absent", h.Digest());
        Assert.Equal(0, h.Start().Exit);
        string before = h.Digest();
        Assert.Equal(2, h.Resume("Approve", "x").Exit);
        Assert.Equal(2, h.Resume("approve", "").Exit);
        Assert.Equal(2, h.Resume("approve", "   ").Exit);
        Assert.Equal(2, h.Resume("approve", new string('a', 501)).Exit);
        Assert.Equal(2, h.Start().Exit);  // the directory already holds an operation
        Assert.Equal(2, h.Run(null, "resume", "--dir", h.Dir, "approve", "x", "--bogus").Exit);
        Assert.Equal(before, h.Digest());
    }

    [Theory, MemberData(nameof(Stores))]
    public void FailAfterWriteExits1ThenStatusIsCompletedAndResumeReturnsTheSameItem(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(0, h.Start().Exit);
        Outcome failed = h.Resume("approve", "External business decision.", failAfterWrite: true);
        Assert.Equal(1, failed.Exit);
        Assert.Equal("Status: Completed\nStoredItem: 1\n", h.Status().Stdout);
        Outcome again = h.Resume("approve", "External business decision.");
        Assert.Equal("ItemId: 1\n", again.Stdout);
        Assert.Single(h.Items());
    }

    [Theory, MemberData(nameof(Stores))]
    public void ASecondConcurrentHostIsRefused(string store)
    {
        using var h = new HostProcess(store);
        Assert.Equal(0, h.Start().Exit);
        string before = h.Digest();
        using (new FileStream(Path.Combine(h.Dir, "host.lease"), FileMode.Open, FileAccess.ReadWrite, FileShare.None))
        {
            Outcome second = h.Resume("approve", "looks good");
            Assert.Equal(2, second.Exit);
            Assert.Contains("holds", second.Stderr);
        }
        Assert.Equal(before, h.Digest());
    }

    public static TheoryData<string, string, string> Kills()
    {
        var data = new TheoryData<string, string, string>();
        foreach (string store in new[] { "maf-json", "strict" })
        {
            data.Add(store, "start", "after-checkpoint");
            data.Add(store, "start", "after-checkpoint#2");
            data.Add(store, "start", "after-waiting-tmp");
            data.Add(store, "start", "after-waiting");
            data.Add(store, "resume", "after-decision");
            data.Add(store, "resume", "after-commit");
            data.Add(store, "resume", "after-checkpoint");
        }
        return data;
    }

    // SIGKILL from outside the engine's control at a named point, then the operator's recovery: the
    // operation completes with exactly one row, ItemId 1, and status agrees with the row.
    [Theory, MemberData(nameof(Kills))]
    public void SigkillAtAPointThenRecoveryCompletesWithOneRow(string store, string command, string point)
    {
        using var h = new HostProcess(store);
        Outcome start = h.Start(command == "start" ? point : null);
        if (command == "start") Assert.Equal(137 & 0xff, start.Exit & 0xff);
        if (command == "resume")
        {
            Assert.Equal(0, start.Exit);
            Assert.NotEqual(0, h.Resume("approve", "looks good", killAt: point).Exit);
        }
        Outcome status = h.Status();
        if (status.Stderr.Contains("nothing was started") || status.Stderr.Contains("interrupted before it published"))
            Assert.Equal(0, h.Start().Exit);
        Outcome resume = h.Resume("approve", "looks good");
        Assert.True(resume.Exit == 0, resume.Stderr);
        Assert.Equal("ItemId: 1\n", resume.Stdout);
        Assert.Equal("Status: Completed\nStoredItem: 1\n", h.Status().Stdout);
        Assert.Equal([(1L, h.Items()[0].OperationId)], h.Items());
    }
}
