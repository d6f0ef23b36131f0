// MAF_DEMO320_KILL_AT=POINT[#N]: the process SIGKILLs itself at the N-th (default first) hit of a
// named point, so a test can crash it at an exact moment without racing it. Points: after-checkpoint,
// after-waiting-tmp, after-waiting, after-decision, after-commit. Unset: every Hit is a no-op.
namespace Stepfault.Maf.Demo320;

public static class KillHook
{
    public static readonly string[] Points =
        ["after-checkpoint", "after-waiting-tmp", "after-waiting", "after-decision", "after-commit"];

    private static readonly string? Target;
    private static readonly int TargetHit = 1;
    private static int hits;

    static KillHook()
    {
        string? spec = Environment.GetEnvironmentVariable("MAF_DEMO320_KILL_AT");
        if (string.IsNullOrEmpty(spec)) return;
        string[] parts = spec.Split('#');
        if (!Points.Contains(parts[0]) || parts.Length > 2 ||
            (parts.Length == 2 && (!int.TryParse(parts[1], out TargetHit) || TargetHit < 1)))
        {
            throw HostError.Bad($"MAF_DEMO320_KILL_AT='{spec}' is not POINT[#N] with POINT one of " +
                                string.Join(", ", Points));
        }
        Target = parts[0];
    }

    // Validates the variable before the command changes anything (the static constructor runs).
    public static void Check() => _ = Target;

    public static void Hit(string point)
    {
        if (Target != point) return;
        if (Interlocked.Increment(ref hits) == TargetHit) Posix.KillSelf();
    }
}
