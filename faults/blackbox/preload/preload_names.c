// preload_names.c: name operations, descriptor operations and the detection of what the recorder
// cannot model (see preload_core.c). Thread-safety: every wrapper is safe from any thread.
#define _GNU_SOURCE
#include "preload_internal.h"

// ---- name operations ----
typedef int (*NameFn)(void* ctx);
// Runs a name operation at `point` with fields `f` (consumed) under the lock.
static int traced_name(const char* op, const char* point, Buf* f, NameFn call, void* ctx) {
  lock_all();
  if (failed_here(point)) {
    int err = errno;
    free(f->p);
    errno = err;
    return -1;
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
    case 0:
      return real_rename(c->p1, c->p2);
    case 1:
      return real_renameat(c->d1, c->p1, c->d2, c->p2);
    case 2:
      return real_renameat2(c->d1, c->p1, c->d2, c->p2, c->flags);
    case 3:
      return real_unlink(c->p1);
    case 4:
      return real_unlinkat(c->d1, c->p1, (int)c->flags);
    case 5:
      return real_mkdir(c->p1, c->mode);
    case 6:
      return real_mkdirat(c->d1, c->p1, c->mode);
    case 7:
      return real_rmdir(c->p1);
    case 8:
      return real_truncate(c->p1, (off_t)c->size);
    case 9:
      return real_truncate64(c->p1, (off64_t)c->size);
    case 10:
      return real_link(c->p1, c->p2);
    case 11:
      return real_linkat(c->d1, c->p1, c->d2, c->p2, (int)c->flags);
    case 12:
      return real_symlink(c->p1, c->p2);
    default:
      return real_symlinkat(c->p1, c->d2, c->p2);
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
  int r = traced_name(op, point, &f, call, ctx);
  if (r == 0 && strcmp(op, "truncate") == 0) {
    lock_all();
    maps_truncate(e->ino, len);
    unlock_all();
  }
  return r;
}
typedef struct {
  int kind, fd, mode;
  long long a, b;
} SizeCtx;
static int call_size(void* p) {
  SizeCtx* c = p;
  switch (c->kind) {
    case 0:
      return real_ftruncate(c->fd, (off_t)c->a);
    case 1:
      return real_ftruncate64(c->fd, (off64_t)c->a);
    case 2:
      return real_fallocate(c->fd, c->mode, (off_t)c->a, (off_t)c->b);
    case 3:
      return real_fallocate64(c->fd, c->mode, (off64_t)c->a, (off64_t)c->b);
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
  if (g_active && fd >= 0 && fd < SF_MAX_FDS && g_fds[fd].is_ack) g_fds[fd].is_ack = 0;
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

int dup_to(int old, int nfd) {
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

// fcntl(F_DUPFD*) duplicates a descriptor like dup(), F_SETFL re-reads the open flags; every other
// command passes through (the one argument, an int or a pointer, is forwarded as a pointer-sized
// value, as the ABI passes both).
static int do_fcntl(int (*real)(int, int, ...), int fd, int cmd, void* arg) {
  int r = real(fd, cmd, arg);
  if (r >= 0 && (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && r != fd) dup_to(fd, r);
  // F_SETFL may change what the write path honours; the kernel's flags are read back, not the
  // request (Linux ignores O_DSYNC and O_SYNC in F_SETFL: man 2 fcntl, BUGS).
  if (r >= 0 && cmd == F_SETFL && tracked(fd)) refresh_oflags(fd);
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
// A call the recorder cannot follow into a tracked file; a volatile file's is not reported.
static void report_fd_bypass(const char* what, int fd) {
  FdEntry* e = tracked(fd);
  if (!e || is_volatile(e->role)) return;
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
  if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
      memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64) {
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
  if (g_active && !t_guard) {
    lock_all();
    maps_flush_all();  // exec drops the mappings; the kernel writes them back
    if (is_static_elf(path)) emit_incomplete("static-binary", path);
    unlock_all();
  }
  return real_execve(path, argv, envp);
}
