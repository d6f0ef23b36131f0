// libstepfault_preload.so, the black-box recorder (preload_core.c: records, locks, paths, the live
// fault, start-up; preload_io.c, preload_names.c and preload_maps.c hold the wrappers), loaded into
// an unmodified program with LD_PRELOAD (docs/blackbox.md). It records every file-system call on a
// path under the directory under test (STEPFAULT_BB_ROOT) as one framed record of the trace
// (faults/blackbox/trace.h documents the format) and passes every other call through untouched.
//
// Promises. Each mutating call on a tracked file runs, and is appended to the trace, while one lock
// is held (a per-process mutex plus flock on the trace file, which every process opens on its own),
// so the order of the trace is the order the kernel applied the calls, across threads and
// processes. Stores through a writable MAP_SHARED mapping are recorded at flush points as writes of
// the pages that changed (preload_maps.c). A call the recorder cannot model (io_uring_setup, a raw
// syscall() that mutates a tracked file, copy_file_range/sendfile into one, a static binary exec'd,
// a mapping it cannot follow) is written as an `incomplete` record, never dropped silently; a
// mapping of a volatile file (SQLite's `-shm`, the spec's `volatile`) is recorded as `volatile`.
// Every call at a window is counted across processes in STEPFAULT_BB_COUNTER and its record
// carries the count (k=); with STEPFAULT_BB_FAULT="#K:ERRNO" the K-th such call fails with ERRNO
// and does nothing: the live ioerror run. Writes to the acknowledgement file STEPFAULT_BB_ACK are
// recorded as `ack` records; writes to fd 1 as `stdout` records while fd 1 is the standard output
// the first recorded process was given. Without STEPFAULT_BB_ROOT every call passes straight
// through. The recorder opens no application file except a read-only reopen of a stdio stream's
// file when it snapshots it (stdio writes go through glibc-internal calls it cannot see; see
// docs/blackbox.md).
//
// Thread-safety: every entry point is safe from any thread; a per-thread guard stops re-entry (the
// recorder's own calls pass through); the lock is re-created in a forked child, which reopens the
// trace so its flock is its own. Only C and libc: no C++ runtime in the interposed process.
#define _GNU_SOURCE
#include "preload_internal.h"

char g_root[PATH_MAX];
size_t g_root_len;
int g_active;
char g_trace_path[PATH_MAX];
int g_trace_fd = -1;
int g_counter_fd = -1;
long g_fault_call;
int g_fault_errno;
char g_ack_path[PATH_MAX];
char g_stdout_id[64];
// The count of this thread's last fault-able call, until its record is emitted (0: none).
static __thread long long t_call_k;
static char* g_volatile;  // STEPFAULT_BB_VOLATILE: globs, one per line
FdEntry g_fds[SF_MAX_FDS];
pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
__thread int t_guard;

#define SF_DEFINE_REAL(ret, name, ...) ret (*real_##name)(__VA_ARGS__);
SF_REAL_LIST(SF_DEFINE_REAL)
#define SF_RESOLVE_REAL(ret, name, ...) resolve_##name();
void resolve_all(void) { SF_REAL_LIST(SF_RESOLVE_REAL) }

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
void buf_put(Buf* b, const void* d, size_t n) {
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
void buf_str(Buf* b, const char* s) { buf_put(b, s, strlen(s)); }
// " key=value" with bytes <= ' ', '%', '=' and >= 0x7f percent-encoded.
void buf_kv(Buf* b, const char* key, const char* value) {
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
void buf_ki(Buf* b, const char* key, long long v) {
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

// Appends one record: "R <len> <crc>\n" + body, where
// body = "op=<op> pid=.. tid=..<fields> n=<len>\n" + data.
void emit(const char* op, Buf* fields, const void* data, size_t len) {
  if (g_trace_fd < 0) return;
  Buf body = {0};
  buf_kv(&body, "op", op);
  buf_ki(&body, "pid", getpid());
  buf_ki(&body, "tid", (long long)gettid());
  if (fields && fields->n) buf_put(&body, fields->p, fields->n);
  if (t_call_k > 0) buf_ki(&body, "k", t_call_k);
  t_call_k = 0;
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

void lock_all(void) {
  pthread_mutex_lock(&g_mu);
  if (g_trace_fd >= 0) flock(g_trace_fd, LOCK_EX);
}
void unlock_all(void) {
  t_call_k = 0;  // a counted call that emitted nothing (it failed before any record) carries no k
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
int absolute_path(int dirfd, const char* path, char* out) {
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

int path_role(int dirfd, const char* path, char* role) {
  char abs[PATH_MAX];
  return g_active && !t_guard && absolute_path(dirfd, path, abs) && role_of(abs, role);
}

FdEntry* tracked(int fd) {
  if (!g_active || t_guard || fd < 0 || fd >= SF_MAX_FDS) return NULL;
  return g_fds[fd].role ? &g_fds[fd] : NULL;
}

int is_volatile(const char* role) {
  if (ends_with(role, "-shm")) return 1;
  for (const char* at = g_volatile; at && *at;) {
    const char* nl = strchr(at, '\n');
    size_t n = nl ? (size_t)(nl - at) : strlen(at);
    char glob[PATH_MAX];
    if (n > 0 && n < sizeof glob) {
      memcpy(glob, at, n);
      glob[n] = 0;
      if (fnmatch(glob, role, 0) == 0) return 1;
    }
    at += n + (nl ? 1 : 0);
  }
  return 0;
}

int ends_with(const char* s, const char* suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

// ---- the live fault (ioerror) ----
// Every fault-able call (a call at a window, whichever process makes it) is counted in the
// 8-byte counter file STEPFAULT_BB_COUNTER, under the lock, so the count is the call's place in
// the run: its record carries it as k=, and the ioerror run fails the call whose k the recording
// gave the window. Counting calls, not names, keeps a window addressable when the program names
// its files differently in every run (temporary names).
static long long count_call(void) {
  long long count = 0;
  if (pread(g_counter_fd, &count, sizeof count, 0) != (ssize_t)sizeof count) count = 0;
  ++count;
  if (pwrite(g_counter_fd, &count, sizeof count, 0) != (ssize_t)sizeof count) return 0;
  return count;
}

// Emits the `fault` record and sets errno; returns -1.
int inject(const char* point, int err) {
  Buf f = {0};
  buf_kv(&f, "w", point);
  buf_ki(&f, "errno", err);
  emit("fault", &f, NULL, 0);
  errno = err;
  return -1;
}

int failed_here(const char* point) {
  if (!point[0] || g_counter_fd < 0) return 0;
  t_call_k = count_call();
  if (g_fault_call <= 0 || t_call_k != g_fault_call) return 0;
  inject(point, g_fault_errno);
  unlock_all();
  errno = g_fault_errno;
  return 1;
}

void emit_failure(const char* op, const char* point, int err) {
  Buf f = {0};
  buf_kv(&f, "w", point);
  buf_ki(&f, "errno", err);
  buf_kv(&f, "call", op);
  emit("failed", &f, NULL, 0);
}

void emit_incomplete(const char* reason, const char* detail) {
  Buf f = {0};
  buf_kv(&f, "reason", reason);
  buf_kv(&f, "detail", detail);
  emit("incomplete", &f, NULL, 0);
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

// Descriptors a process inherits across exec (a shell's `prog >> file` opens the file, then
// execs prog on it): those on a file under the root are tracked and the acknowledgement file is
// marked, as if this process had opened them, so their writes are recorded.
static void adopt_inherited_fds(void) {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return;
  int own = dirfd(d);
  struct dirent* ent;
  while ((ent = readdir(d)) != NULL) {
    if (ent->d_name[0] < '0' || ent->d_name[0] > '9') continue;
    int fd = atoi(ent->d_name);
    if (fd == own || fd == g_trace_fd || fd == g_counter_fd || fd >= SF_MAX_FDS) continue;
    char link[64], abs[PATH_MAX], role[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, abs, sizeof abs - 1);
    if (n <= 0 || abs[0] != '/') continue;
    abs[n] = 0;
    if (g_ack_path[0] && strcmp(abs, g_ack_path) == 0) {
      g_fds[fd].is_ack = 1;
    } else if (role_of(abs, role)) {
      track_fd(fd, role, 0);
    }
  }
  closedir(d);
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
  const char* globs = getenv("STEPFAULT_BB_VOLATILE");
  if (globs && *globs) g_volatile = strdup(globs);
  open_trace();
  if (!g_active) return;
  const char* counter = getenv("STEPFAULT_BB_COUNTER");
  if (counter && counter[0]) {
    int cfd = real_open(counter, O_RDWR | O_CLOEXEC);
    if (cfd >= 0) {
      g_counter_fd = fcntl(cfd, F_DUPFD_CLOEXEC, SF_HIGH_FD + 1);
      real_close(cfd);
    }
  }
  const char* fault = getenv("STEPFAULT_BB_FAULT");  // "#K:ERRNO"
  if (fault && fault[0] == '#' && strchr(fault, ':')) {
    g_fault_call = strtol(fault + 1, NULL, 10);
    g_fault_errno = (int)strtol(strchr(fault, ':') + 1, NULL, 10);
  }
  const char* ack = getenv("STEPFAULT_BB_ACK");
  if (ack && ack[0] == '/') {
    snprintf(g_ack_path, sizeof g_ack_path, "%s", ack);
    normalise(g_ack_path);
  }
  // The descriptor the first recorded process got as standard output: writes to fd 1 count as
  // acknowledgements only while fd 1 is still that file (not a pipe of `$(...)` inside a run
  // command). Children inherit the identity through the environment.
  const char* inherited = getenv("STEPFAULT_BB_STDOUT");
  struct stat out;
  if (inherited) {
    snprintf(g_stdout_id, sizeof g_stdout_id, "%s", inherited);
  } else if (fstat(1, &out) == 0) {
    snprintf(g_stdout_id, sizeof g_stdout_id, "%llu:%llu", (unsigned long long)out.st_dev,
             (unsigned long long)out.st_ino);
    setenv("STEPFAULT_BB_STDOUT", g_stdout_id, 1);
  }
  adopt_inherited_fds();
  pthread_atfork(NULL, NULL, after_fork_child);
  emit_hello();
}
