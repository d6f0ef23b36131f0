// The few POSIX calls .NET does not expose: fsync of a directory (a FileStream cannot open one) and
// SIGKILL of this very process (the kill hook). Every failure is an IOException naming the path.
// The file calls go through the runtime's own libSystem.Native, not DllImport("libc"): a P/Invoke into
// libc resolves `open`/`fsync` with dlsym on libc's handle, which bypasses LD_PRELOAD interposers,
// so Stepfault's black-box recorder would never see those directory fsyncs.
using System.Runtime.InteropServices;

namespace Stepfault.Maf.Demo320;

internal static partial class Posix
{
    [LibraryImport("libSystem.Native", EntryPoint = "SystemNative_Open", SetLastError = true,
                   StringMarshalling = StringMarshalling.Utf8)]
    private static partial nint open(string path, int palFlags, int mode);

    [LibraryImport("libSystem.Native", EntryPoint = "SystemNative_FSync", SetLastError = true)]
    private static partial int fsync(nint fd);

    [LibraryImport("libSystem.Native", EntryPoint = "SystemNative_Close", SetLastError = true)]
    private static partial int close(nint fd);

    [LibraryImport("libc", SetLastError = true)]
    private static partial int kill(int pid, int sig);

    private const int PalReadOnly = 0x0000;  // PAL_O_RDONLY
    private const int PalCloseOnExec = 0x0010;  // PAL_O_CLOEXEC

    // fsync(2) of a file or directory by path; a missing path is not an error (nothing to sync).
    public static void SyncPath(string path)
    {
        nint fd = open(path, PalReadOnly | PalCloseOnExec, 0);
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

    public static void SyncDirectory(string path) => SyncPath(path);

    public static void KillSelf()
    {
        Console.Out.Flush();
        kill(Environment.ProcessId, 9);
        Thread.Sleep(Timeout.Infinite);
    }
}
