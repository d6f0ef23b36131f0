// The one exception type the host turns into an exit status: Usage (2) means nothing durable was
// changed (bad input, a conflict, a damaged directory), Failed (1) means the command failed after it
// began changing the directory. Anything else escaping is an internal error (4).
namespace Stepfault.Maf.Demo320;

public sealed class HostError(int exitCode, string message) : Exception(message)
{
    public const int Ok = 0;
    public const int Failed = 1;
    public const int Usage = 2;
    public const int Internal = 4;

    public int ExitCode { get; } = exitCode;

    public static HostError Bad(string message) => new(Usage, message);
    public static HostError After(string message) => new(Failed, message);
}
