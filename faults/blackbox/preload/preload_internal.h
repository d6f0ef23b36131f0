// The recorder's shared internals (libstepfault_preload.so; see preload_core.c for what it
// promises). Plain C; every symbol here has hidden visibility (only the wrapped libc entry points
// are exported). Thread-safety: the globals are written at start-up and after fork, and read under
// lock_all() or by the owning call.
#pragma once
// Paths are bounded by PATH_MAX; a longer one is cut (and then matches no role), never overrun:
// GCC's warning about such a cut is off for every file that includes this one (clang has none).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define SF_EXPORT __attribute__((visibility("default")))
#define SF_MAX_FDS 65536
#define SF_HIGH_FD 900

typedef struct {
  char* role;  // path relative to the root ("." for the root itself); NULL: not tracked
  unsigned long long ino;
  int is_dir;
  int is_stdio;  // a writable stdio stream (fopen "w"/"a"/"r+", fdopen): snapshotted at flush
  int oflags;    // the open file description's flags as the kernel has them (F_GETFL)
  int is_ack;    // a descriptor (or stream) on the acknowledgement file STEPFAULT_BB_ACK
} FdEntry;

typedef struct {
  char* p;
  size_t n, cap;
} Buf;

extern char g_root[PATH_MAX];
extern size_t g_root_len;
extern int g_active;
extern char g_trace_path[PATH_MAX];
extern int g_trace_fd;
extern int g_counter_fd;
extern long g_fault_call;  // STEPFAULT_BB_FAULT="#K:ERRNO": the K-th fault-able call fails
extern int g_fault_errno;
extern char g_ack_path[PATH_MAX];
extern char g_stdout_id[64];  // STEPFAULT_BB_STDOUT, "dev:ino" of the command's standard output  //
                              // STEPFAULT_BB_ACK, normalised ("" when not given)
extern FdEntry g_fds[SF_MAX_FDS];
extern pthread_mutex_t g_mu;
extern __thread int t_guard;

// The real libc functions, found with dlsym(RTLD_NEXT) at start-up (resolve_all) or on first use.
#define SF_REAL_LIST(X)                                                           \
  X(int, open, const char*, int, ...)                                             \
  X(int, open64, const char*, int, ...)                                           \
  X(int, openat, int, const char*, int, ...)                                      \
  X(int, openat64, int, const char*, int, ...)                                    \
  X(int, __open_2, const char*, int)                                              \
  X(int, __open64_2, const char*, int)                                            \
  X(int, __openat_2, int, const char*, int)                                       \
  X(int, __openat64_2, int, const char*, int)                                     \
  X(ssize_t, write, int, const void*, size_t)                                     \
  X(ssize_t, pwrite, int, const void*, size_t, off_t)                             \
  X(ssize_t, pwrite64, int, const void*, size_t, off64_t)                         \
  X(ssize_t, writev, int, const struct iovec*, int)                               \
  X(ssize_t, pwritev, int, const struct iovec*, int, off_t)                       \
  X(ssize_t, pwritev64, int, const struct iovec*, int, off64_t)                   \
  X(ssize_t, pwritev2, int, const struct iovec*, int, off_t, int)                 \
  X(ssize_t, pwritev64v2, int, const struct iovec*, int, off64_t, int)            \
  X(int, fsync, int)                                                              \
  X(int, fdatasync, int)                                                          \
  X(int, sync_file_range, int, off64_t, off64_t, unsigned int)                    \
  X(int, syncfs, int)                                                             \
  X(void, sync, void)                                                             \
  X(int, rename, const char*, const char*)                                        \
  X(int, renameat, int, const char*, int, const char*)                            \
  X(int, renameat2, int, const char*, int, const char*, unsigned int)             \
  X(int, unlink, const char*)                                                     \
  X(int, unlinkat, int, const char*, int)                                         \
  X(int, mkdir, const char*, mode_t)                                              \
  X(int, mkdirat, int, const char*, mode_t)                                       \
  X(int, rmdir, const char*)                                                      \
  X(int, ftruncate, int, off_t)                                                   \
  X(int, ftruncate64, int, off64_t)                                               \
  X(int, truncate, const char*, off_t)                                            \
  X(int, truncate64, const char*, off64_t)                                        \
  X(int, fallocate, int, int, off_t, off_t)                                       \
  X(int, fallocate64, int, int, off64_t, off64_t)                                 \
  X(int, posix_fallocate, int, off_t, off_t)                                      \
  X(int, posix_fallocate64, int, off64_t, off64_t)                                \
  X(int, close, int)                                                              \
  X(int, link, const char*, const char*)                                          \
  X(int, linkat, int, const char*, int, const char*, int)                         \
  X(int, symlink, const char*, const char*)                                       \
  X(int, symlinkat, const char*, int, const char*)                                \
  X(int, fcntl, int, int, ...)                                                    \
  X(int, fcntl64, int, int, ...)                                                  \
  X(int, dup, int)                                                                \
  X(int, dup2, int, int)                                                          \
  X(int, dup3, int, int, int)                                                     \
  X(void*, mmap, void*, size_t, int, int, int, off_t)                             \
  X(void*, mmap64, void*, size_t, int, int, int, off64_t)                         \
  X(int, munmap, void*, size_t)                                                   \
  X(int, msync, void*, size_t, int)                                               \
  X(void*, mremap, void*, size_t, size_t, int, ...)                               \
  X(long, syscall, long, ...)                                                     \
  X(ssize_t, copy_file_range, int, off64_t*, int, off64_t*, size_t, unsigned int) \
  X(ssize_t, sendfile, int, int, off_t*, size_t)                                  \
  X(ssize_t, sendfile64, int, int, off64_t*, size_t)                              \
  X(FILE*, fopen, const char*, const char*)                                       \
  X(FILE*, fopen64, const char*, const char*)                                     \
  X(FILE*, fdopen, int, const char*)                                              \
  X(int, fflush, FILE*)                                                           \
  X(int, fclose, FILE*)                                                           \
  X(int, execve, const char*, char* const[], char* const[])
#define SF_DECLARE_REAL(ret, name, ...)                                           \
  extern ret (*real_##name)(__VA_ARGS__);                                         \
  __attribute__((unused)) static inline void resolve_##name(void) {               \
    if (!real_##name) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name); \
  }
SF_REAL_LIST(SF_DECLARE_REAL)
void resolve_all(void);

void buf_put(Buf* b, const void* d, size_t n);
void buf_str(Buf* b, const char* s);
void buf_kv(Buf* b, const char* key, const char* value);
void buf_ki(Buf* b, const char* key, long long v);
// Appends one record (consumes `fields`); call under lock_all().
void emit(const char* op, Buf* fields, const void* data, size_t len);
void lock_all(void);
void unlock_all(void);
int path_role(int dirfd, const char* path, char* role);
// The normalised absolute path of `path` relative to dirfd (AT_FDCWD: the working directory).
int absolute_path(int dirfd, const char* path, char* out);
FdEntry* tracked(int fd);
int ends_with(const char* s, const char* suffix);
int inject(const char* point, int err);
// Under the lock, for a call at window `point` ("" is no window: nothing happens): counts the call
// (the next record this thread emits under the lock carries the count as k=); when it is the call
// the fault plan fails, emits its `fault` record, releases the lock, sets errno and returns 1 (the
// caller then returns -1); else 0 with the lock still held.
int failed_here(const char* point);
// The acknowledgement channel: whether `abs_path` (absolute) is STEPFAULT_BB_ACK, marking `fd` so
// when it is; and, after a write or flush on a marked descriptor, the `ack` record with the file's
// size (the bytes acknowledged so far). Call note_ack under lock_all().
int mark_ack(int dirfd, const char* path, int fd);
void note_ack(int fd);
void emit_failure(const char* op, const char* point, int err);
void emit_incomplete(const char* reason, const char* detail);
void track_fd(int fd, const char* role, int is_stdio);
// Re-reads the open flags of a tracked fd (after open and fcntl F_SETFL).
void refresh_oflags(int fd);
void snapshot_stdio(FdEntry* e, int fd);
int dup_to(int old, int nfd);
// Whether a file (its role) is volatile: "*-shm", or a glob of STEPFAULT_BB_VOLATILE (one per
// line; fnmatch without flags), the rule of faults/blackbox/trace.h IsVolatilePath.
int is_volatile(const char* role);
// Shared mappings (preload_maps.c), under the lock: flush every mapping of the file (inode `ino`),
// or every mapping, as writes of the pages that changed; take bytes the trace now has for the
// file (a recorded write, a truncation) into the mappings' shadows.
void maps_flush_file(unsigned long long ino);
void maps_flush_all(void);
void maps_learn(unsigned long long ino, long long off, const void* data, size_t n);
void maps_truncate(unsigned long long ino, long long size);
