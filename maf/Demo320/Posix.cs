// The few POSIX calls .NET does not expose: fsync of a directory (a FileStream cannot open one) and
// SIGKILL of this very process (the kill hook). Every failure is an IOException naming the path.
using System.Runtime.InteropServices;

namespace Stepfault.Maf.Demo320;

internal static partial class Posix
{
    [LibraryImport("libc", SetLastError = true, StringMarshalling = StringMarshalling.Utf8)]
    private static partial int open(string path, int flags);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int fsync(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int close(int fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int sig);

    private const int ORdOnly = 0;
    private const int ODirectory = 0x10000;

    // fsync(2) of a file or directory by path; a missing path is not an error (nothing to sync).
    public static void SyncPath(string path, bool directory)
    {
        int fd = open(path, ORdOnly | (directory ? ODirectory : 0));
        if (fd < 0)
        {
            int err = Marshal.GetLastPInvokeError();
            if (err == 2) return;  // ENOENT
            throw new IOException($"cannot open '{path}' to sync it (errno {err})");
        }
        int rc = fsync(fd);
        int syncErr = Marshal.GetLastPInvokeError();
        close(fd);
        if (rc != 0) throw new IOException($"fsync of '{path}' failed (errno {syncErr})");
    }

    public static void SyncDirectory(string path) => SyncPath(path, directory: true);

    public static void KillSelf()
    {
        Console.Out.Flush();
        kill(Environment.ProcessId, 9);
        Thread.Sleep(Timeout.Infinite);
    }
}
