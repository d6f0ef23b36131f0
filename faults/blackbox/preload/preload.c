// libstepfault_preload.so: the black-box recorder, loaded into an unmodified program with LD_PRELOAD
// (docs/blackbox.md). It records every file-system call on a path under the directory under test
// (STEPFAULT_BB_ROOT) as one framed record of the trace (faults/blackbox/trace.h documents the
// format) and passes every other call through untouched.
//
// Promises. Each mutating call on a tracked file runs, and is appended to the trace, while one lock
// is held (a per-process mutex plus flock on the trace file, which every process opens on its own),
// so the order of the trace is the order the kernel applied the calls, across threads and processes.
// A call the recorder cannot model (a writable MAP_SHARED mapping, io_uring_setup, a raw syscall()
// that mutates a tracked file, copy_file_range/sendfile into one, a static binary exec'd) is written
// as an `incomplete` record, never dropped silently; SQLite's `-shm` mapping is recorded as
// `volatile` instead (it is rebuilt from the WAL). With STEPFAULT_BB_FAULT="point#N:ERRNO" the N-th
// call at window `point` (counted across processes in STEPFAULT_BB_COUNTER) fails with ERRNO and does
// nothing: the live ioerror run. Without STEPFAULT_BB_ROOT every call passes straight through.
// The recorder opens no application file except a read-only reopen of a stdio stream's file when it
// snapshots it (stdio writes go through glibc-internal calls it cannot see; see docs/blackbox.md).
//
// Thread-safety: every entry point is safe from any thread; a per-thread guard stops re-entry (the
// recorder's own calls pass through); the lock is re-created in a forked child, which reopens the
// trace so its flock is its own. Only C and libc: no C++ runtime in the interposed process.
#define _GNU_SOURCE
// Paths are bounded by PATH_MAX; a longer one is cut (and then matches no role), never overrun.
#pragma GCC diagnostic ignored "-Wformat-truncation"
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
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
  int is_stdio;
} FdEntry;

static char g_root[PATH_MAX];
static size_t g_root_len;
static int g_active;
static char g_trace_path[PATH_MAX];
static int g_trace_fd = -1;
static int g_counter_fd = -1;
static char g_fault_point[512];
static long g_fault_occurrence;
static int g_fault_errno;
static FdEntry g_fds[SF_MAX_FDS];
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static __thread int t_guard;

// ---- real functions ----
#define REAL(ret, name, ...)                                \
  static ret (*real_##name)(__VA_ARGS__);                   \
  static void resolve_##name(void) {                        \
    if (!real_##name) real_##name = dlsym(RTLD_NEXT, #name); \
  }
REAL(int, open, const char*, int, ...)
REAL(int, open64, const char*, int, ...)
REAL(int, openat, int, const char*, int, ...)
REAL(int, openat64, int, const char*, int, ...)
REAL(int, __open_2, const char*, int)
REAL(int, __open64_2, const char*, int)
REAL(int, __openat_2, int, const char*, int)
REAL(int, __openat64_2, int, const char*, int)


REAL(ssize_t, write, int, const void*, size_t)
REAL(ssize_t, pwrite, int, const void*, size_t, off_t)
REAL(ssize_t, pwrite64, int, const void*, size_t, off64_t)
REAL(ssize_t, writev, int, const struct iovec*, int)
REAL(ssize_t, pwritev, int, const struct iovec*, int, off_t)
REAL(ssize_t, pwritev64, int, const struct iovec*, int, off64_t)
REAL(ssize_t, pwritev2, int, const struct iovec*, int, off_t, int)
REAL(ssize_t, pwritev64v2, int, const struct iovec*, int, off64_t, int)
REAL(int, fsync, int)
REAL(int, fdatasync, int)
REAL(int, sync_file_range, int, off64_t, off64_t, unsigned int)
REAL(int, syncfs, int)
REAL(void, sync, void)
REAL(int, rename, const char*, const char*)
REAL(int, renameat, int, const char*, int, const char*)
REAL(int, renameat2, int, const char*, int, const char*, unsigned int)
REAL(int, unlink, const char*)
REAL(int, unlinkat, int, const char*, int)
REAL(int, mkdir, const char*, mode_t)
REAL(int, mkdirat, int, const char*, mode_t)
REAL(int, rmdir, const char*)
REAL(int, ftruncate, int, off_t)
REAL(int, ftruncate64, int, off64_t)
REAL(int, truncate, const char*, off_t)
REAL(int, truncate64, const char*, off64_t)
REAL(int, fallocate, int, int, off_t, off_t)
REAL(int, fallocate64, int, int, off64_t, off64_t)
REAL(int, posix_fallocate, int, off_t, off_t)
REAL(int, posix_fallocate64, int, off64_t, off64_t)
REAL(int, close, int)
REAL(int, link, const char*, const char*)
REAL(int, linkat, int, const char*, int, const char*, int)
REAL(int, symlink, const char*, const char*)
REAL(int, symlinkat, const char*, int, const char*)
REAL(int, fcntl, int, int, ...)
REAL(int, fcntl64, int, int, ...)
REAL(int, dup, int)
REAL(int, dup2, int, int)
REAL(int, dup3, int, int, int)
REAL(void*, mmap, void*, size_t, int, int, int, off_t)
REAL(void*, mmap64, void*, size_t, int, int, int, off64_t)
REAL(long, syscall, long, ...)
REAL(ssize_t, copy_file_range, int, off64_t*, int, off64_t*, size_t, unsigned int)
REAL(ssize_t, sendfile, int, int, off_t*, size_t)
REAL(ssize_t, sendfile64, int, int, off64_t*, size_t)
REAL(FILE*, fopen, const char*, const char*)
REAL(FILE*, fopen64, const char*, const char*)
REAL(int, fflush, FILE*)
REAL(int, fclose, FILE*)
REAL(int, execve, const char*, char* const[], char* const[])

// ---- CRC32C (Castagnoli, reflected), the same checksum engine/crc32c.h computes ----
static uint32_t crc32c(const unsigned char* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1u)));
  }
  return c ^ 0xFFFFFFFFu;
}

// ---- a growable byte buffer for one record (malloc only; no C++) ----
typedef struct {
  char* p;
  size_t n, cap;
} Buf;
static void buf_put(Buf* b, const void* d, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char* np = realloc(b->p, cap);
    if (!np) abort();
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, d, n);
  b->n += n;
}
static void buf_str(Buf* b, const char* s) { buf_put(b, s, strlen(s)); }
// " key=value" with bytes <= ' ', '%', '=' and >= 0x7f percent-encoded.
static void buf_kv(Buf* b, const char* key, const char* value) {
  buf_str(b, " ");
  buf_str(b, key);
  buf_str(b, "=");
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char* s = (const unsigned char*)value; *s; ++s) {
    if (*s <= ' ' || *s == '%' || *s == '=' || *s >= 0x7f) {
      char e[3] = {'%', hex[*s >> 4], hex[*s & 15]};
      buf_put(b, e, 3);
    } else {
      buf_put(b, s, 1);
    }
  }
}
static void buf_ki(Buf* b, const char* key, long long v) {
  char num[32];
  snprintf(num, sizeof num, "%lld", v);
  buf_kv(b, key, num);
}

static void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = real_write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

// Appends one record: "R <len> <crc>\n" + body, body = "op=<op> pid=.. tid=..<fields> n=<len>\n" + data.
static void emit(const char* op, Buf* fields, const void* data, size_t len) {
  if (g_trace_fd < 0) return;
  Buf body = {0};
  buf_kv(&body, "op", op);
  buf_ki(&body, "pid", getpid());
  buf_ki(&body, "tid", (long long)gettid());
  if (fields && fields->n) buf_put(&body, fields->p, fields->n);
  buf_ki(&body, "n", (long long)len);
  buf_str(&body, "\n");
  if (len) buf_put(&body, data, len);
  // buf_kv opened the body with a space; the record starts after it.
  char head[64];
  int hn = snprintf(head, sizeof head, "R %zu %08x\n", body.n - 1,
                    crc32c((const unsigned char*)body.p + 1, body.n - 1));
  Buf out = {0};
  buf_put(&out, head, (size_t)hn);
  buf_put(&out, body.p + 1, body.n - 1);
  write_all(g_trace_fd, out.p, out.n);
  free(out.p);
  free(body.p);
  if (fields) {
    free(fields->p);
    fields->p = NULL;
    fields->n = fields->cap = 0;
  }
}

static void lock_all(void) {
  pthread_mutex_lock(&g_mu);
  if (g_trace_fd >= 0) flock(g_trace_fd, LOCK_EX);
}
static void unlock_all(void) {
  if (g_trace_fd >= 0) flock(g_trace_fd, LOCK_UN);
  pthread_mutex_unlock(&g_mu);
}

// ---- paths ----
// Lexically normalises an absolute path in place ("//", "/./", "/x/.." collapse).
static void normalise(char* p) {
  char out[PATH_MAX];
  size_t o = 0;
  const char* s = p;
  while (*s) {
    while (*s == '/') ++s;
    if (!*s) break;
    const char* e = s;
    while (*e && *e != '/') ++e;
    size_t n = (size_t)(e - s);
    if (n == 1 && s[0] == '.') {
    } else if (n == 2 && s[0] == '.' && s[1] == '.') {
      while (o > 0 && out[o - 1] != '/') --o;
      if (o > 0) --o;
    } else if (o + n + 2 < sizeof out) {
      out[o++] = '/';
      memcpy(out + o, s, n);
      o += n;
    }
    s = e;
  }
  if (o == 0) out[o++] = '/';
  out[o] = 0;
  memcpy(p, out, o + 1);
}

// The absolute path of `path` relative to dirfd; 0 on failure.
static int absolute(int dirfd, const char* path, char* out) {
  if (!path) return 0;
  if (path[0] == '/') {
    snprintf(out, PATH_MAX, "%s", path);
  } else {
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
      if (!getcwd(base, sizeof base)) return 0;
    } else {
      char link[64];
      snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = readlink(link, base, sizeof base - 1);
      if (n <= 0) return 0;
      base[n] = 0;
    }
    if (snprintf(out, PATH_MAX, "%s/%s", base, path) >= PATH_MAX) return 0;
  }
  normalise(out);
  return 1;
}

// The role of an absolute path under the root ("." for the root); 0 when outside it.
static int role_of(const char* abs, char* role) {
  if (strncmp(abs, g_root, g_root_len) != 0) return 0;
  if (abs[g_root_len] == 0) {
    strcpy(role, ".");
    return 1;
  }
  if (abs[g_root_len] != '/') return 0;
  snprintf(role, PATH_MAX, "%s", abs + g_root_len + 1);
  return 1;
}

static int path_role(int dirfd, const char* path, char* role) {
  char abs[PATH_MAX];
  return g_active && !t_guard && absolute(dirfd, path, abs) && role_of(abs, role);
}

static FdEntry* tracked(int fd) {
  if (!g_active || t_guard || fd < 0 || fd >= SF_MAX_FDS) return NULL;
  return g_fds[fd].role ? &g_fds[fd] : NULL;
}

static int ends_with(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

// ---- the live fault (ioerror) ----
// Under the lock: whether the call at `point` is the one to fail; counts matching hits.
static int fault_here(const char* point) {
  if (!g_fault_point[0] || g_counter_fd < 0 || strcmp(point, g_fault_point) != 0) return 0;
  long long count = 0;
  if (pread(g_counter_fd, &count, sizeof count, 0) != (ssize_t)sizeof count) count = 0;
  ++count;
  if (pwrite(g_counter_fd, &count, sizeof count, 0) != (ssize_t)sizeof count) return 0;
  return count == g_fault_occurrence ? g_fault_errno : 0;
}

// Emits the `fault` record and sets errno; returns -1.
static int inject(const char* point, int err) {
  Buf f = {0};
  buf_kv(&f, "w", point);
  buf_ki(&f, "errno", err);
  emit("fault", &f, NULL, 0);
  errno = err;
  return -1;
}

static void emit_failure(const char* op, const char* point, int err) {
  Buf f = {0};
  buf_kv(&f, "w", point);
  buf_ki(&f, "errno", err);
  buf_kv(&f, "call", op);
  emit("failed", &f, NULL, 0);
}

static void emit_incomplete(const char* reason, const char* detail) {
  Buf f = {0};
  buf_kv(&f, "reason", reason);
  buf_kv(&f, "detail", detail);
  emit("incomplete", &f, NULL, 0);
}

// ---- open ----
static void track_fd(int fd, const char* role, int is_stdio) {
  struct stat st;
  if (fd < 0 || fd >= SF_MAX_FDS || fstat(fd, &st) != 0) return;
  if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) return;
  free(g_fds[fd].role);
  g_fds[fd].role = strdup(role);
  g_fds[fd].ino = (unsigned long long)st.st_ino;
  g_fds[fd].is_dir = S_ISDIR(st.st_mode);
  g_fds[fd].is_stdio = is_stdio;
}

typedef int (*OpenFn)(void* ctx);
// Runs `call` (the real open) for the tracked path `role` with `flags`, records it, tracks the fd.
static int traced_open(const char* role, int flags, OpenFn call, void* ctx, int is_stdio) {
  char abs[PATH_MAX];
  snprintf(abs, sizeof abs, "%s%s%s", g_root, strcmp(role, ".") ? "/" : "", strcmp(role, ".") ? role : "");
  lock_all();
  struct stat before;
  int existed = stat(abs, &before) == 0;
  char point[PATH_MAX + 32] = "";
  if ((flags & O_CREAT) && !existed) {
    snprintf(point, sizeof point, "fs.create[%s]", role);
  } else if ((flags & O_TRUNC) && existed && S_ISREG(before.st_mode) && before.st_size > 0 &&
             (flags & O_ACCMODE) != O_RDONLY) {
    snprintf(point, sizeof point, "fs.truncate[%s]", role);
  }
  int err = point[0] ? fault_here(point) : 0;
  if (err) {
    int r = inject(point, err);
    unlock_all();
    errno = err;
    return r;
  }
  int fd = call(ctx);
  int saved = errno;
  if (fd >= 0) {
    track_fd(fd, role, is_stdio);
    Buf f = {0};
    buf_kv(&f, "path", role);
    if (point[0]) buf_kv(&f, "w", point);
    buf_ki(&f, "fd", fd);
    buf_ki(&f, "ino", fd < SF_MAX_FDS ? (long long)g_fds[fd].ino : 0);
    buf_ki(&f, "flags", flags);
    buf_ki(&f, "created", (flags & O_CREAT) && !existed);
    buf_ki(&f, "trunc", point[0] && strncmp(point, "fs.truncate", 11) == 0);
    buf_ki(&f, "dir", fd < SF_MAX_FDS ? g_fds[fd].is_dir : 0);
    emit("open", &f, NULL, 0);
  } else if (point[0]) {
    emit_failure("open", point, saved);
  }
  unlock_all();
  errno = saved;
  return fd;
}

typedef struct {
  int kind;  // 0 open, 1 open64, 2 openat, 3 openat64, 4 __open_2, 5 __open64_2, 6 __openat_2, 7 __openat64_2
  int dirfd;
  const char* path;
  int flags;
  mode_t mode;
} OpenCtx;

static int call_open(void* p) {
  OpenCtx* c = p;
  switch (c->kind) {
    case 0: return real_open(c->path, c->flags, c->mode);
    case 1: return real_open64(c->path, c->flags, c->mode);
    case 2: return real_openat(c->dirfd, c->path, c->flags, c->mode);
    case 3: return real_openat64(c->dirfd, c->path, c->flags, c->mode);
    case 4: return real___open_2(c->path, c->flags);
    case 5: return real___open64_2(c->path, c->flags);
    case 6: return real___openat_2(c->dirfd, c->path, c->flags);
    default: return real___openat64_2(c->dirfd, c->path, c->flags);
  }
}

static int do_open(OpenCtx c) {
  char role[PATH_MAX];
  if (!path_role(c.dirfd, c.path, role)) return call_open(&c);
  return traced_open(role, c.flags, call_open, &c, 0);
}

#define MODE_ARG(flags, mode)                                  \
  mode_t mode = 0;                                             \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {                     \
    va_list ap;                                                \
    va_start(ap, flags);                                       \
    mode = (mode_t)va_arg(ap, int);                            \
    va_end(ap);                                                \
  }

SF_EXPORT int open(const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  resolve_open();
  return do_open((OpenCtx){0, AT_FDCWD, path, flags, mode});
}
SF_EXPORT int open64(const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  resolve_open64();
  return do_open((OpenCtx){1, AT_FDCWD, path, flags, mode});
}
SF_EXPORT int openat(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  resolve_openat();
  return do_open((OpenCtx){2, dirfd, path, flags, mode});
}
SF_EXPORT int openat64(int dirfd, const char* path, int flags, ...) {
  MODE_ARG(flags, mode);
  resolve_openat64();
  return do_open((OpenCtx){3, dirfd, path, flags, mode});
}
SF_EXPORT int __open_2(const char* path, int flags) {
  resolve___open_2();
  return do_open((OpenCtx){4, AT_FDCWD, path, flags, 0});
}
SF_EXPORT int __open64_2(const char* path, int flags) {
  resolve___open64_2();
  return do_open((OpenCtx){5, AT_FDCWD, path, flags, 0});
}
SF_EXPORT int __openat_2(int dirfd, const char* path, int flags) {
  resolve___openat_2();
  return do_open((OpenCtx){6, dirfd, path, flags, 0});
}
SF_EXPORT int __openat64_2(int dirfd, const char* path, int flags) {
  resolve___openat64_2();
  return do_open((OpenCtx){7, dirfd, path, flags, 0});
}
SF_EXPORT int creat(const char* path, mode_t mode) {
  resolve_open();
  return do_open((OpenCtx){0, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode});
}
SF_EXPORT int creat64(const char* path, mode_t mode) {
  resolve_open64();
  return do_open((OpenCtx){1, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode});
}

// ---- writes ----
// Records a successful write of `data` (len bytes) at `off` on the tracked fd.
static void emit_write(FdEntry* e, const char* point, long long off, const void* data, size_t len) {
  Buf f = {0};
  buf_kv(&f, "path", e->role);
  buf_kv(&f, "w", point);
  buf_ki(&f, "ino", (long long)e->ino);
  buf_ki(&f, "off", off);
  emit("write", &f, data, len);
}

// Gathers iov into one buffer of `total` bytes (the returned count).
static char* gather(const struct iovec* iov, int cnt, size_t total) {
  char* d = malloc(total ? total : 1);
  if (!d) abort();
  size_t at = 0;
  for (int i = 0; i < cnt && at < total; ++i) {
    size_t n = iov[i].iov_len < total - at ? iov[i].iov_len : total - at;
    memcpy(d + at, iov[i].iov_base, n);
    at += n;
  }
  return d;
}

// One write-like call: `positioned` off >= 0, else the fd's offset after the call minus the count.
typedef ssize_t (*WriteFn)(void* ctx);
typedef struct {
  int fd;
  const void* buf;
  size_t n;
  const struct iovec* iov;
  int cnt;
  long long off;
  int flags;
  int kind;
} WriteCtx;

static ssize_t call_write(void* p) {
  WriteCtx* c = p;
  switch (c->kind) {
    case 0: return real_write(c->fd, c->buf, c->n);
    case 1: return real_pwrite(c->fd, c->buf, c->n, (off_t)c->off);
    case 2: return real_pwrite64(c->fd, c->buf, c->n, (off64_t)c->off);
    case 3: return real_writev(c->fd, c->iov, c->cnt);
    case 4: return real_pwritev(c->fd, c->iov, c->cnt, (off_t)c->off);
    case 5: return real_pwritev64(c->fd, c->iov, c->cnt, (off64_t)c->off);
    case 6: return real_pwritev2(c->fd, c->iov, c->cnt, (off_t)c->off, c->flags);
    default: return real_pwritev64v2(c->fd, c->iov, c->cnt, (off64_t)c->off, c->flags);
  }
}

static ssize_t do_write(WriteCtx c) {
  FdEntry* e = tracked(c.fd);
  if (!e || e->is_dir) return call_write(&c);
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.write[%s]", e->role);
  lock_all();
  int err = fault_here(point);
  if (err) {
    ssize_t r = inject(point, err);
    unlock_all();
    errno = err;
    return r;
  }
  ssize_t r = call_write(&c);
  int saved = errno;
  if (r > 0) {
    int positioned = c.kind != 0 && c.kind != 3 && c.off >= 0;
    long long off = positioned ? c.off : (long long)lseek(c.fd, 0, SEEK_CUR) - r;
    if (c.iov) {
      char* d = gather(c.iov, c.cnt, (size_t)r);
      emit_write(e, point, off, d, (size_t)r);
      free(d);
    } else {
      emit_write(e, point, off, c.buf, (size_t)r);
    }
  } else if (r < 0) {
    emit_failure("write", point, saved);
  }
  unlock_all();
  errno = saved;
  return r;
}

// What the program printed with write(2) on fd 1, in trace order: the acknowledgements a check
// may compare a crash state with (ALICE's rule: the checker sees what was acknowledged).
static ssize_t stdout_write(const void* buf, size_t n) {
  lock_all();
  ssize_t r = real_write(1, buf, n);
  int saved = errno;
  if (r > 0) emit("stdout", NULL, buf, (size_t)r);
  unlock_all();
  errno = saved;
  return r;
}

SF_EXPORT ssize_t write(int fd, const void* buf, size_t n) {
  resolve_write();
  if (fd == 1 && g_active && !t_guard && !tracked(1)) return stdout_write(buf, n);
  return do_write((WriteCtx){fd, buf, n, NULL, 0, -1, 0, 0});
}
SF_EXPORT ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  resolve_pwrite();
  return do_write((WriteCtx){fd, buf, n, NULL, 0, off, 0, 1});
}
SF_EXPORT ssize_t pwrite64(int fd, const void* buf, size_t n, off64_t off) {
  resolve_pwrite64();
  return do_write((WriteCtx){fd, buf, n, NULL, 0, off, 0, 2});
}
SF_EXPORT ssize_t writev(int fd, const struct iovec* iov, int cnt) {
  resolve_writev();
  return do_write((WriteCtx){fd, NULL, 0, iov, cnt, -1, 0, 3});
}
SF_EXPORT ssize_t pwritev(int fd, const struct iovec* iov, int cnt, off_t off) {
  resolve_pwritev();
  return do_write((WriteCtx){fd, NULL, 0, iov, cnt, off, 0, 4});
}
SF_EXPORT ssize_t pwritev64(int fd, const struct iovec* iov, int cnt, off64_t off) {
  resolve_pwritev64();
  return do_write((WriteCtx){fd, NULL, 0, iov, cnt, off, 0, 5});
}
SF_EXPORT ssize_t pwritev2(int fd, const struct iovec* iov, int cnt, off_t off, int flags) {
  resolve_pwritev2();
  return do_write((WriteCtx){fd, NULL, 0, iov, cnt, off, flags, 6});
}
SF_EXPORT ssize_t pwritev64v2(int fd, const struct iovec* iov, int cnt, off64_t off, int flags) {
  resolve_pwritev64v2();
  return do_write((WriteCtx){fd, NULL, 0, iov, cnt, off, flags, 7});
}

// ---- stdio: a tracked stream's bytes are snapshotted at fflush/fclose/fsync ----
static void snapshot_stdio(FdEntry* e, int fd) {
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  int rfd = real_open(link, O_RDONLY | O_CLOEXEC);
  if (rfd < 0) {
    emit_incomplete("stdio-snapshot-failed", e->role);
    return;
  }
  Buf d = {0};
  char chunk[65536];
  ssize_t n;
  while ((n = read(rfd, chunk, sizeof chunk)) > 0) buf_put(&d, chunk, (size_t)n);
  real_close(rfd);
  Buf f = {0};
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.write[%s]", e->role);
  buf_kv(&f, "path", e->role);
  buf_kv(&f, "w", point);
  buf_ki(&f, "ino", (long long)e->ino);
  buf_ki(&f, "off", 0);
  buf_ki(&f, "whole", 1);
  emit("write", &f, d.p, d.n);
  free(d.p);
}

static FILE* do_fopen(FILE* (*real)(const char*, const char*), const char* path, const char* mode) {
  char role[PATH_MAX];
  if (!path_role(AT_FDCWD, path, role)) return real(path, mode);
  int flags = 0;
  if (mode[0] == 'w') flags = O_CREAT | O_TRUNC | O_WRONLY;
  if (mode[0] == 'a') flags = O_CREAT | O_APPEND | O_WRONLY;
  if (strchr(mode, '+')) flags = (flags & ~O_WRONLY) | O_RDWR;
  char abs[PATH_MAX];
  snprintf(abs, sizeof abs, "%s/%s", g_root, role);
  lock_all();
  struct stat before;
  int existed = stat(abs, &before) == 0;
  FILE* fp = real(path, mode);
  if (fp) {
    int fd = fileno(fp);
    track_fd(fd, role, 1);
    Buf f = {0};
    buf_kv(&f, "path", role);
    char point[PATH_MAX + 32] = "";
    if ((flags & O_CREAT) && !existed) snprintf(point, sizeof point, "fs.create[%s]", role);
    if ((flags & O_TRUNC) && existed && before.st_size > 0)
      snprintf(point, sizeof point, "fs.truncate[%s]", role);
    if (point[0]) buf_kv(&f, "w", point);
    buf_ki(&f, "fd", fd);
    buf_ki(&f, "ino", fd >= 0 && fd < SF_MAX_FDS ? (long long)g_fds[fd].ino : 0);
    buf_ki(&f, "flags", flags);
    buf_ki(&f, "created", (flags & O_CREAT) && !existed);
    buf_ki(&f, "trunc", (flags & O_TRUNC) && existed && before.st_size > 0);
    buf_ki(&f, "dir", 0);
    emit("open", &f, NULL, 0);
  }
  unlock_all();
  return fp;
}
SF_EXPORT FILE* fopen(const char* path, const char* mode) {
  resolve_fopen();
  return do_fopen(real_fopen, path, mode);
}
SF_EXPORT FILE* fopen64(const char* path, const char* mode) {
  resolve_fopen64();
  return do_fopen(real_fopen64, path, mode);
}
SF_EXPORT int fflush(FILE* fp) {
  resolve_fflush();
  int r = real_fflush(fp);
  FdEntry* e = fp ? tracked(fileno(fp)) : NULL;
  if (e && e->is_stdio) {
    lock_all();
    snapshot_stdio(e, fileno(fp));
    unlock_all();
  }
  return r;
}
SF_EXPORT int fclose(FILE* fp) {
  resolve_fclose();
  resolve_fflush();
  int fd = fp ? fileno(fp) : -1;
  FdEntry* e = tracked(fd);
  if (e && e->is_stdio) {
    real_fflush(fp);
    lock_all();
    snapshot_stdio(e, fd);
    Buf f = {0};
    buf_kv(&f, "path", e->role);
    buf_ki(&f, "fd", fd);
    emit("close", &f, NULL, 0);
    free(e->role);
    e->role = NULL;
    unlock_all();
  }
  return real_fclose(fp);
}

// ---- syncs ----
static int do_sync(int fd, int data_only, int (*real)(int)) {
  FdEntry* e = tracked(fd);
  if (!e) return real(fd);
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.%s[%s]", e->is_dir ? "dirsync" : "fsync", e->role);
  lock_all();
  if (e->is_stdio) snapshot_stdio(e, fd);
  int err = fault_here(point);
  if (err) {
    int r = inject(point, err);
    unlock_all();
    errno = err;
    return r;
  }
  int r = real(fd);
  int saved = errno;
  if (r == 0) {
    Buf f = {0};
    buf_kv(&f, "path", e->role);
    buf_kv(&f, "w", point);
    buf_ki(&f, "ino", (long long)e->ino);
    buf_ki(&f, "dir", e->is_dir);
    buf_ki(&f, "data_only", data_only);
    emit("fsync", &f, NULL, 0);
  } else {
    emit_failure("fsync", point, saved);
  }
  unlock_all();
  errno = saved;
  return r;
}
SF_EXPORT int fsync(int fd) {
  resolve_fsync();
  return do_sync(fd, 0, real_fsync);
}
SF_EXPORT int fdatasync(int fd) {
  resolve_fdatasync();
  return do_sync(fd, 1, real_fdatasync);
}
SF_EXPORT int sync_file_range(int fd, off64_t off, off64_t n, unsigned int flags) {
  resolve_sync_file_range();
  FdEntry* e = tracked(fd);
  int r = real_sync_file_range(fd, off, n, flags);
  if (e && r == 0) {
    // Not a barrier (man 2 sync_file_range): recorded for the reader, changes no durability.
    lock_all();
    Buf f = {0};
    buf_kv(&f, "path", e->role);
    buf_ki(&f, "ino", (long long)e->ino);
    emit("sync_file_range", &f, NULL, 0);
    unlock_all();
  }
  return r;
}
static void emit_syncfs(void) {
  Buf f = {0};
  buf_kv(&f, "w", "fs.syncfs[.]");
  emit("syncfs", &f, NULL, 0);
}
SF_EXPORT int syncfs(int fd) {
  resolve_syncfs();
  if (!g_active || t_guard) return real_syncfs(fd);
  lock_all();
  int r = real_syncfs(fd);
  if (r == 0) emit_syncfs();
  unlock_all();
  return r;
}
SF_EXPORT void sync(void) {
  resolve_sync();
  if (!g_active || t_guard) return real_sync();
  lock_all();
  real_sync();
  emit_syncfs();
  unlock_all();
}

// ---- name operations ----
typedef int (*NameFn)(void* ctx);
// Runs a name operation at `point` with fields `f` (consumed) under the lock.
static int traced_name(const char* op, const char* point, Buf* f, NameFn call, void* ctx) {
  lock_all();
  int err = fault_here(point);
  if (err) {
    int r = inject(point, err);
    unlock_all();
    free(f->p);
    errno = err;
    return r;
  }
  int r = call(ctx);
  int saved = errno;
  if (r == 0) {
    buf_kv(f, "w", point);
    emit(op, f, NULL, 0);
  } else {
    emit_failure(op, point, saved);
    free(f->p);
  }
  unlock_all();
  errno = saved;
  return r;
}

typedef struct {
  int kind;
  int d1, d2;
  const char *p1, *p2;
  unsigned int flags;
  mode_t mode;
  long long size;
} NameCtx;

static int call_name(void* p) {
  NameCtx* c = p;
  switch (c->kind) {
    case 0: return real_rename(c->p1, c->p2);
    case 1: return real_renameat(c->d1, c->p1, c->d2, c->p2);
    case 2: return real_renameat2(c->d1, c->p1, c->d2, c->p2, c->flags);
    case 3: return real_unlink(c->p1);
    case 4: return real_unlinkat(c->d1, c->p1, (int)c->flags);
    case 5: return real_mkdir(c->p1, c->mode);
    case 6: return real_mkdirat(c->d1, c->p1, c->mode);
    case 7: return real_rmdir(c->p1);
    case 8: return real_truncate(c->p1, (off_t)c->size);
    case 9: return real_truncate64(c->p1, (off64_t)c->size);
    case 10: return real_link(c->p1, c->p2);
    case 11: return real_linkat(c->d1, c->p1, c->d2, c->p2, (int)c->flags);
    case 12: return real_symlink(c->p1, c->p2);
    default: return real_symlinkat(c->p1, c->d2, c->p2);
  }
}

// Forgets fds whose role is `role` or under it after a rename (they keep their open-time role).
static int do_rename(NameCtx c) {
  char r1[PATH_MAX], r2[PATH_MAX];
  int in1 = path_role(c.d1, c.p1, r1), in2 = path_role(c.d2, c.p2, r2);
  if (!in1 && !in2) return call_name(&c);
  if (in1 && in2) {
    char point[PATH_MAX + 32];
    snprintf(point, sizeof point, "fs.rename[%s]", r1);
    Buf f = {0};
    buf_kv(&f, "path", r1);
    buf_kv(&f, "path2", r2);
    buf_ki(&f, "flags", c.flags);
    return traced_name("rename", point, &f, call_name, &c);
  }
  int r = call_name(&c);
  if (r == 0) {
    lock_all();
    emit_incomplete("rename-across-root", in1 ? r1 : r2);
    unlock_all();
  }
  return r;
}
SF_EXPORT int rename(const char* a, const char* b) {
  resolve_rename();
  return do_rename((NameCtx){0, AT_FDCWD, AT_FDCWD, a, b, 0, 0, 0});
}
SF_EXPORT int renameat(int d1, const char* a, int d2, const char* b) {
  resolve_renameat();
  return do_rename((NameCtx){1, d1, d2, a, b, 0, 0, 0});
}
SF_EXPORT int renameat2(int d1, const char* a, int d2, const char* b, unsigned int flags) {
  resolve_renameat2();
  return do_rename((NameCtx){2, d1, d2, a, b, flags, 0, 0});
}

// A one-path operation `op` at point "fs.<pname>[role]".
static int do_path_op(const char* op, const char* pname, NameCtx c, int dirfd, const char* path) {
  char role[PATH_MAX];
  if (!path_role(dirfd, path, role)) return call_name(&c);
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.%s[%s]", pname, role);
  Buf f = {0};
  buf_kv(&f, "path", role);
  if (c.kind == 8 || c.kind == 9) buf_ki(&f, "size", c.size);
  return traced_name(op, point, &f, call_name, &c);
}
SF_EXPORT int unlink(const char* p) {
  resolve_unlink();
  return do_path_op("unlink", "unlink", (NameCtx){3, AT_FDCWD, 0, p, 0, 0, 0, 0}, AT_FDCWD, p);
}
SF_EXPORT int unlinkat(int d, const char* p, int flags) {
  resolve_unlinkat();
  int dir = (flags & AT_REMOVEDIR) != 0;
  return do_path_op(dir ? "rmdir" : "unlink", dir ? "rmdir" : "unlink",
                    (NameCtx){4, d, 0, p, 0, (unsigned)flags, 0, 0}, d, p);
}
SF_EXPORT int mkdir(const char* p, mode_t m) {
  resolve_mkdir();
  return do_path_op("mkdir", "mkdir", (NameCtx){5, AT_FDCWD, 0, p, 0, 0, m, 0}, AT_FDCWD, p);
}
SF_EXPORT int mkdirat(int d, const char* p, mode_t m) {
  resolve_mkdirat();
  return do_path_op("mkdir", "mkdir", (NameCtx){6, d, 0, p, 0, 0, m, 0}, d, p);
}
SF_EXPORT int rmdir(const char* p) {
  resolve_rmdir();
  return do_path_op("rmdir", "rmdir", (NameCtx){7, AT_FDCWD, 0, p, 0, 0, 0, 0}, AT_FDCWD, p);
}
SF_EXPORT int truncate(const char* p, off_t n) {
  resolve_truncate();
  return do_path_op("truncate", "truncate", (NameCtx){8, AT_FDCWD, 0, p, 0, 0, 0, n}, AT_FDCWD, p);
}
SF_EXPORT int truncate64(const char* p, off64_t n) {
  resolve_truncate64();
  return do_path_op("truncate", "truncate", (NameCtx){9, AT_FDCWD, 0, p, 0, 0, 0, n}, AT_FDCWD, p);
}
static int do_link(NameCtx c, const char* op, int d2, const char* p2, const char* target) {
  char r2[PATH_MAX];
  if (!path_role(d2, p2, r2)) return call_name(&c);
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.%s[%s]", op, r2);
  Buf f = {0};
  buf_kv(&f, "path2", r2);
  if (target) {
    buf_kv(&f, "target", target);
  } else {
    char r1[PATH_MAX];
    if (!path_role(c.d1, c.p1, r1)) {
      int r = call_name(&c);
      free(f.p);
      if (r == 0) {
        lock_all();
        emit_incomplete("link-across-root", r2);
        unlock_all();
      }
      return r;
    }
    buf_kv(&f, "path", r1);
  }
  return traced_name(op, point, &f, call_name, &c);
}
SF_EXPORT int link(const char* a, const char* b) {
  resolve_link();
  return do_link((NameCtx){10, AT_FDCWD, AT_FDCWD, a, b, 0, 0, 0}, "link", AT_FDCWD, b, NULL);
}
SF_EXPORT int linkat(int d1, const char* a, int d2, const char* b, int flags) {
  resolve_linkat();
  return do_link((NameCtx){11, d1, d2, a, b, (unsigned)flags, 0, 0}, "link", d2, b, NULL);
}
SF_EXPORT int symlink(const char* target, const char* b) {
  resolve_symlink();
  return do_link((NameCtx){12, AT_FDCWD, AT_FDCWD, target, b, 0, 0, 0}, "symlink", AT_FDCWD, b,
                 target);
}
SF_EXPORT int symlinkat(const char* target, int d2, const char* b) {
  resolve_symlinkat();
  return do_link((NameCtx){13, AT_FDCWD, d2, target, b, 0, 0, 0}, "symlink", d2, b, target);
}

// ---- fd operations: truncate, fallocate, close, dup ----
static int do_fd_size(int fd, const char* op, long long off, long long len, int mode,
                      int (*call)(void*), void* ctx) {
  FdEntry* e = tracked(fd);
  if (!e) return call(ctx);
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "fs.%s[%s]", op, e->role);
  Buf f = {0};
  buf_kv(&f, "path", e->role);
  buf_ki(&f, "ino", (long long)e->ino);
  buf_ki(&f, "off", off);
  buf_ki(&f, "size", len);
  buf_ki(&f, "mode", mode);
  return traced_name(op, point, &f, call, ctx);
}
typedef struct {
  int kind, fd, mode;
  long long a, b;
} SizeCtx;
static int call_size(void* p) {
  SizeCtx* c = p;
  switch (c->kind) {
    case 0: return real_ftruncate(c->fd, (off_t)c->a);
    case 1: return real_ftruncate64(c->fd, (off64_t)c->a);
    case 2: return real_fallocate(c->fd, c->mode, (off_t)c->a, (off_t)c->b);
    case 3: return real_fallocate64(c->fd, c->mode, (off64_t)c->a, (off64_t)c->b);
    case 4: {
      int r = real_posix_fallocate(c->fd, (off_t)c->a, (off_t)c->b);
      if (r) errno = r;
      return r ? -1 : 0;
    }
    default: {
      int r = real_posix_fallocate64(c->fd, (off64_t)c->a, (off64_t)c->b);
      if (r) errno = r;
      return r ? -1 : 0;
    }
  }
}
SF_EXPORT int ftruncate(int fd, off_t n) {
  resolve_ftruncate();
  SizeCtx c = {0, fd, 0, n, 0};
  return do_fd_size(fd, "truncate", 0, n, 0, call_size, &c);
}
SF_EXPORT int ftruncate64(int fd, off64_t n) {
  resolve_ftruncate64();
  SizeCtx c = {1, fd, 0, n, 0};
  return do_fd_size(fd, "truncate", 0, n, 0, call_size, &c);
}
SF_EXPORT int fallocate(int fd, int mode, off_t off, off_t n) {
  resolve_fallocate();
  SizeCtx c = {2, fd, mode, off, n};
  return do_fd_size(fd, "fallocate", off, n, mode, call_size, &c);
}
SF_EXPORT int fallocate64(int fd, int mode, off64_t off, off64_t n) {
  resolve_fallocate64();
  SizeCtx c = {3, fd, mode, off, n};
  return do_fd_size(fd, "fallocate", off, n, mode, call_size, &c);
}
SF_EXPORT int posix_fallocate(int fd, off_t off, off_t n) {
  resolve_posix_fallocate();
  SizeCtx c = {4, fd, 0, off, n};
  int r = do_fd_size(fd, "fallocate", off, n, 0, call_size, &c);
  return r == 0 ? 0 : errno;
}
SF_EXPORT int posix_fallocate64(int fd, off64_t off, off64_t n) {
  resolve_posix_fallocate64();
  SizeCtx c = {5, fd, 0, off, n};
  int r = do_fd_size(fd, "fallocate", off, n, 0, call_size, &c);
  return r == 0 ? 0 : errno;
}

SF_EXPORT int close(int fd) {
  resolve_close();
  if (g_active && (fd == g_trace_fd || fd == g_counter_fd)) return 0;  // never the recorder's own
  FdEntry* e = tracked(fd);
  if (!e) return real_close(fd);
  lock_all();
  if (e->is_stdio) snapshot_stdio(e, fd);
  Buf f = {0};
  buf_kv(&f, "path", e->role);
  buf_ki(&f, "fd", fd);
  emit("close", &f, NULL, 0);
  free(e->role);
  e->role = NULL;
  int r = real_close(fd);
  unlock_all();
  return r;
}

static int dup_to(int old, int nfd) {
  if (nfd >= 0 && nfd < SF_MAX_FDS && old >= 0 && old < SF_MAX_FDS && g_active) {
    pthread_mutex_lock(&g_mu);
    free(g_fds[nfd].role);
    g_fds[nfd] = g_fds[old];
    if (g_fds[old].role) g_fds[nfd].role = strdup(g_fds[old].role);
    pthread_mutex_unlock(&g_mu);
  }
  return nfd;
}
SF_EXPORT int dup(int fd) {
  resolve_dup();
  int r = real_dup(fd);
  return r >= 0 ? dup_to(fd, r) : r;
}
SF_EXPORT int dup2(int fd, int nfd) {
  resolve_dup2();
  int r = real_dup2(fd, nfd);
  return r >= 0 && r != fd ? dup_to(fd, r) : r;
}
SF_EXPORT int dup3(int fd, int nfd, int flags) {
  resolve_dup3();
  int r = real_dup3(fd, nfd, flags);
  return r >= 0 ? dup_to(fd, r) : r;
}

// fcntl(F_DUPFD*) duplicates a descriptor like dup(); every other command passes through (the one
// argument, an int or a pointer, is forwarded as a pointer-sized value, as the ABI passes both).
static int do_fcntl(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  int r = real(fd, cmd, arg);
  if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r != fd) dup_to(fd, r);
  return r;
}
SF_EXPORT int fcntl(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  resolve_fcntl();
  return do_fcntl(real_fcntl, fd, cmd, arg);
}
SF_EXPORT int fcntl64(int fd, int cmd, ...) {
  va_list ap;
  va_start(ap, cmd);
  void* arg = va_arg(ap, void*);
  va_end(ap);
  resolve_fcntl64();
  resolve_fcntl();
  return do_fcntl(real_fcntl64 ? real_fcntl64 : real_fcntl, fd, cmd, arg);
}

// ---- what cannot be modelled: report it ----
static void check_mmap(int fd, int prot, int flags) {
  FdEntry* e = tracked(fd);
  if (!e || !(prot & PROT_WRITE) || !(flags & MAP_SHARED)) return;
  lock_all();
  if (ends_with(e->role, "-shm")) {
    Buf f = {0};
    buf_kv(&f, "path", e->role);
    emit("volatile", &f, NULL, 0);
  } else {
    emit_incomplete("mmap-shared-write", e->role);
  }
  unlock_all();
}
SF_EXPORT void* mmap(void* a, size_t n, int prot, int flags, int fd, off_t off) {
  resolve_mmap();
  check_mmap(fd, prot, flags);
  return real_mmap(a, n, prot, flags, fd, off);
}
SF_EXPORT void* mmap64(void* a, size_t n, int prot, int flags, int fd, off64_t off) {
  resolve_mmap64();
  check_mmap(fd, prot, flags);
  return real_mmap64(a, n, prot, flags, fd, off);
}

static void report_fd_bypass(const char* what, int fd) {
  FdEntry* e = tracked(fd);
  if (!e) return;
  lock_all();
  emit_incomplete(what, e->role);
  unlock_all();
}
SF_EXPORT ssize_t copy_file_range(int in, off64_t* io, int out, off64_t* oo, size_t n,
                                  unsigned int flags) {
  resolve_copy_file_range();
  report_fd_bypass("copy_file_range", out);
  return real_copy_file_range(in, io, out, oo, n, flags);
}
SF_EXPORT ssize_t sendfile(int out, int in, off_t* off, size_t n) {
  resolve_sendfile();
  report_fd_bypass("sendfile", out);
  return real_sendfile(out, in, off, n);
}
SF_EXPORT ssize_t sendfile64(int out, int in, off64_t* off, size_t n) {
  resolve_sendfile64();
  report_fd_bypass("sendfile", out);
  return real_sendfile64(out, in, off, n);
}

// Raw syscall(): io_uring is never modelled; a mutating call on a tracked fd or path bypasses us.
SF_EXPORT long syscall(long nr, ...) {
  resolve_syscall();
  va_list ap;
  va_start(ap, nr);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (g_active && !t_guard) {
    char role[PATH_MAX];
    const char* why = NULL;
    if (nr == SYS_io_uring_setup) {
      why = "io_uring_setup";
      strcpy(role, "(any)");
    } else if ((nr == SYS_write || nr == SYS_pwrite64 || nr == SYS_writev || nr == SYS_pwritev ||
                nr == SYS_pwritev2 || nr == SYS_fsync || nr == SYS_fdatasync ||
                nr == SYS_ftruncate || nr == SYS_fallocate) &&
               tracked((int)a[0])) {
      why = "raw-syscall-on-tracked-fd";
      snprintf(role, sizeof role, "%s", g_fds[a[0]].role);
    } else if (nr == SYS_copy_file_range && tracked((int)a[2])) {
      why = "raw-copy_file_range";
      snprintf(role, sizeof role, "%s", g_fds[a[2]].role);
    } else if ((nr == SYS_openat || nr == SYS_renameat2 || nr == SYS_unlinkat ||
                nr == SYS_mkdirat || nr == SYS_linkat) &&
               path_role((int)a[0], (const char*)a[1], role)) {
      why = "raw-syscall-on-tracked-path";
    }
    if (why) {
      lock_all();
      emit_incomplete(why, role);
      unlock_all();
    }
  }
  return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

// A static binary ignores LD_PRELOAD: its I/O is invisible, so say so before exec'ing it.
static int is_static_elf(const char* path) {
  int fd = real_open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  Elf64_Ehdr eh;
  int result = 0;
  if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
      eh.e_ident[EI_CLASS] == ELFCLASS64) {
    result = 1;
    for (int i = 0; i < eh.e_phnum && i < 256; ++i) {
      Elf64_Phdr ph;
      if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) !=
          (ssize_t)sizeof ph)
        break;
      if (ph.p_type == PT_INTERP) result = 0;
    }
  }
  real_close(fd);
  return result;
}
SF_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) {
  resolve_execve();
  if (g_active && !t_guard && is_static_elf(path)) {
    lock_all();
    emit_incomplete("static-binary", path);
    unlock_all();
  }
  return real_execve(path, argv, envp);
}

// ---- start-up and fork ----
static void open_trace(void) {
  int fd = real_open(g_trace_path, O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    g_active = 0;
    return;
  }
  int high = fcntl(fd, F_DUPFD_CLOEXEC, SF_HIGH_FD);
  if (high >= 0) {
    real_close(fd);
    fd = high;
  }
  g_trace_fd = fd;
}

static void emit_hello(void) {
  char exe[PATH_MAX] = "";
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) exe[n] = 0;
  lock_all();
  Buf f = {0};
  buf_ki(&f, "ppid", getppid());
  buf_kv(&f, "exe", exe);
  emit("hello", &f, NULL, 0);
  unlock_all();
}

static void after_fork_child(void) {
  pthread_mutex_init(&g_mu, NULL);
  if (!g_active) return;
  int old = g_trace_fd;
  g_trace_fd = -1;
  open_trace();
  if (old >= 0 && old != g_trace_fd) real_close(old);
  emit_hello();
}

static void resolve_all(void) {
  resolve_open();
  resolve_write();
  resolve_close();
  resolve_fflush();
  resolve_fclose();
}

__attribute__((constructor)) static void stepfault_preload_init(void) {
  resolve_all();
  const char* root = getenv("STEPFAULT_BB_ROOT");
  const char* trace = getenv("STEPFAULT_BB_TRACE");
  if (!root || !trace || !root[0] || root[0] != '/') return;
  snprintf(g_root, sizeof g_root, "%s", root);
  normalise(g_root);
  g_root_len = strlen(g_root);
  snprintf(g_trace_path, sizeof g_trace_path, "%s", trace);
  g_active = 1;
  open_trace();
  if (!g_active) return;
  const char* fault = getenv("STEPFAULT_BB_FAULT");  // "point#N:ERRNO"
  const char* counter = getenv("STEPFAULT_BB_COUNTER");
  if (fault && counter) {
    const char* hash = strrchr(fault, '#');
    const char* colon = hash ? strchr(hash, ':') : NULL;
    if (hash && colon && (size_t)(hash - fault) < sizeof g_fault_point) {
      memcpy(g_fault_point, fault, (size_t)(hash - fault));
      g_fault_point[hash - fault] = 0;
      g_fault_occurrence = strtol(hash + 1, NULL, 10);
      g_fault_errno = (int)strtol(colon + 1, NULL, 10);
      int cfd = real_open(counter, O_RDWR | O_CLOEXEC);
      if (cfd >= 0) {
        g_counter_fd = fcntl(cfd, F_DUPFD_CLOEXEC, SF_HIGH_FD + 1);
        real_close(cfd);
      }
    }
  }
  pthread_atfork(NULL, NULL, after_fork_child);
  emit_hello();
}
