// preload_maps.c: writable MAP_SHARED mappings of tracked files (see preload_core.c).
//
// A store through a shared mapping is no call: the recorder sees it only at a flush point. For each
// writable MAP_SHARED mapping of a tracked, non-volatile file it keeps the mapping's address,
// length, file offset, file role and inode, and a shadow: the bytes of the mapped range as the
// trace last has them. At every flush point it compares the mapping with the shadow page by page,
// appends one `write` record (map=1, window map.write[role]) per run of changed pages (clamped to
// the file's size) and updates the shadow. The flush points: msync (any flags; its range only),
// munmap and mremap (the range unmapped or moved), fsync/fdatasync of the file (any descriptor),
// a write(2) on stdout (an acknowledgement: so data acknowledged before its msync is in the trace
// before the acknowledgement, and a crash after it keeps it, as the page cache does), execve, and
// process exit (a destructor). msync then appends an `msync` record (from=, len=: the file range;
// flags=), a window fs.msync[role] and a data barrier for the range with MS_SYNC (crash_state.h).
// Writes the trace records through descriptors (write, pwrite, stdio snapshots, ftruncate) update
// the shadows of the same inode, so they are not recorded twice.
//
// What is approximate (docs/blackbox.md): a store is placed at the flush point after it, not when
// it happened, and pages of one flush in address order; a page another process changed may be
// recorded again by this one (the same bytes: no change to any state). What cannot be modelled is
// an `incomplete` record: more than SF_MAX_MAPS live mappings, a shadow that cannot be allocated, a
// partial mremap. A volatile file's mapping (IsVolatilePath) is a `volatile` record and not
// followed. Memory is read with process_vm_readv (a page beyond the end of the file or without
// PROT_READ is an error, never a SIGBUS); where that is refused, directly, clamped to the file's
// size. Thread-safety: the table is read and written under lock_all().
#define _GNU_SOURCE
#include "preload_internal.h"

#define SF_MAX_MAPS 64

typedef struct {
  uintptr_t addr;  // 0: a free slot
  size_t len;      // page-rounded
  long long off;   // the file offset of addr
  char* role;
  unsigned long long ino;
  int fd;          // the descriptor it was mapped from (fstat'ed while it still names `ino`)
  long long size;  // the file's size as last known
  unsigned char* shadow;
  size_t shadow_len;  // shadow covers [off, off + shadow_len) of the file
} SfMap;

static SfMap g_maps[SF_MAX_MAPS];
static int g_nmaps;

static size_t page_size(void) {
  static size_t p;
  if (!p) p = (size_t)sysconf(_SC_PAGESIZE);
  return p;
}

// Copies n bytes of this process's memory at `addr` into `dst`; the count copied.
static size_t read_mem(void* dst, uintptr_t addr, size_t n) {
  struct iovec local = {dst, n}, remote = {(void*)addr, n};
  ssize_t r = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
  if (r >= 0) return (size_t)r;
  if (errno == EFAULT) return 0;
  memcpy(dst, (const void*)addr,
         n);  // process_vm_readv refused (seccomp): the range is in the file
  return n;
}

static long long file_size(SfMap* m) {
  struct stat st;
  if (m->fd >= 0 && m->fd < SF_MAX_FDS && g_fds[m->fd].role && g_fds[m->fd].ino == m->ino &&
      fstat(m->fd, &st) == 0)
    m->size = (long long)st.st_size;
  return m->size;
}

// Grows the shadow to cover `n` bytes; the bytes it did not know read as zeros (a file grown by
// ftruncate, or by another process). 0 when it cannot.
static int grow_shadow(SfMap* m, size_t n) {
  if (n <= m->shadow_len) return 1;
  unsigned char* s = realloc(m->shadow, n);
  if (!s) return 0;
  memset(s + m->shadow_len, 0, n - m->shadow_len);
  m->shadow = s;
  m->shadow_len = n;
  return 1;
}

static void forget(SfMap* m) {
  free(m->role);
  free(m->shadow);
  memset(m, 0, sizeof *m);
  --g_nmaps;
}

static void emit_map_write(SfMap* m, size_t at, const unsigned char* data, size_t n) {
  char point[PATH_MAX + 32];
  snprintf(point, sizeof point, "map.write[%s]", m->role);
  Buf f = {0};
  buf_kv(&f, "path", m->role);
  buf_kv(&f, "w", point);
  buf_ki(&f, "ino", (long long)m->ino);
  buf_ki(&f, "off", m->off + (long long)at);
  buf_ki(&f, "map", 1);
  emit("write", &f, data, n);
}

// Under the lock: records the pages of [from, to) of the mapping (offsets in it) that differ from
// the shadow, one write per run of changed pages, and takes them into every shadow of the file.
static void flush_range(SfMap* m, size_t from, size_t to) {
  long long size = file_size(m);
  size_t avail = size > m->off ? (size_t)(size - m->off) : 0;
  if (to > m->len) to = m->len;
  if (to > avail) to = avail;
  from -= from % page_size();
  if (from >= to) return;
  if (!grow_shadow(m, to)) {
    emit_incomplete("mmap-shadow-failed", m->role);
    return;
  }
  unsigned char* now = malloc(to - from);
  if (!now) {
    emit_incomplete("mmap-shadow-failed", m->role);
    return;
  }
  size_t got = read_mem(now, m->addr + from, to - from);
  if (got < to - from) emit_incomplete("mmap-unreadable", m->role);
  size_t end = from + got;
  size_t run = SIZE_MAX;  // start of the current run of changed pages
  for (size_t p = from; run != SIZE_MAX || p < end; p += page_size()) {
    size_t q = p + page_size() < end ? p + page_size() : end;
    int changed = p < end && memcmp(now + (p - from), m->shadow + p, q - p) != 0;
    if (changed && run == SIZE_MAX) run = p;
    if (!changed && run != SIZE_MAX) {
      size_t stop = p < end ? p : end;
      emit_map_write(m, run, now + (run - from), stop - run);
      maps_learn(m->ino, m->off + (long long)run, now + (run - from), stop - run);
      run = SIZE_MAX;
    }
  }
  free(now);
}

// Under the lock: flushes every mapping of `ino` (0: every mapping).
static void flush_where(unsigned long long ino) {
  if (!g_nmaps) return;
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    if (g_maps[i].addr && (ino == 0 || g_maps[i].ino == ino))
      flush_range(&g_maps[i], 0, g_maps[i].len);
  }
}
void maps_flush_file(unsigned long long ino) {
  if (ino) flush_where(ino);
}
void maps_flush_all(void) { flush_where(0); }

void maps_learn(unsigned long long ino, long long off, const void* data, size_t n) {
  if (!g_nmaps) return;
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    SfMap* m = &g_maps[i];
    if (!m->addr || m->ino != ino) continue;
    if (off + (long long)n > m->size) m->size = off + (long long)n;
    long long lo = off > m->off ? off : m->off;
    long long hi = off + (long long)n < m->off + (long long)m->len ? off + (long long)n
                                                                   : m->off + (long long)m->len;
    if (lo >= hi || !grow_shadow(m, (size_t)(hi - m->off))) continue;
    memcpy(m->shadow + (lo - m->off), (const char*)data + (lo - off), (size_t)(hi - lo));
  }
}

void maps_truncate(unsigned long long ino, long long size) {
  if (!g_nmaps) return;
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    SfMap* m = &g_maps[i];
    if (!m->addr || m->ino != ino) continue;
    m->size = size;
    size_t keep = size > m->off ? (size_t)(size - m->off) : 0;
    if (keep < m->shadow_len) memset(m->shadow + keep, 0, m->shadow_len - keep);
  }
}

// Under the lock: follows the new mapping [p, p + n) of tracked fd `fd` at file offset `off`.
static void maps_add(FdEntry* e, int fd, void* p, size_t n, long long off) {
  if (is_volatile(e->role)) {
    Buf f = {0};
    buf_kv(&f, "path", e->role);
    emit("volatile", &f, NULL, 0);
    return;
  }
  SfMap* m = NULL;
  for (int i = 0; i < SF_MAX_MAPS && !m; ++i) m = g_maps[i].addr ? NULL : &g_maps[i];
  if (!m) {
    emit_incomplete("mmap-shared-write-untracked", e->role);
    return;
  }
  struct stat st;
  long long size = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
  size_t len = (n + page_size() - 1) / page_size() * page_size();
  size_t known = size > off ? (size_t)(size - off) : 0;
  if (known > len) known = len;
  unsigned char* shadow = malloc(known ? known : 1);
  if (!shadow) {
    emit_incomplete("mmap-shared-write-untracked", e->role);
    return;
  }
  known = read_mem(shadow, (uintptr_t)p, known);
  *m = (SfMap){(uintptr_t)p, len, off, strdup(e->role), e->ino, fd, size, shadow, known};
  ++g_nmaps;
}

// Under the lock: flushes and forgets (or trims) the parts of mappings inside [a, a + n).
static void maps_unmap(uintptr_t a, size_t n) {
  if (!g_nmaps) return;
  n = (n + page_size() - 1) / page_size() * page_size();
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    SfMap* m = &g_maps[i];
    if (!m->addr || a >= m->addr + m->len || a + n <= m->addr) continue;
    size_t lo = a > m->addr ? a - m->addr : 0;
    size_t hi = a + n < m->addr + m->len ? a + n - m->addr : m->len;
    flush_range(m, lo, hi);
    if (lo == 0 && hi == m->len) {
      forget(m);
    } else if (lo == 0) {  // the front is gone
      memmove(m->shadow, m->shadow + (hi < m->shadow_len ? hi : m->shadow_len),
              m->shadow_len > hi ? m->shadow_len - hi : 0);
      m->shadow_len = m->shadow_len > hi ? m->shadow_len - hi : 0;
      m->addr += hi;
      m->off += (long long)hi;
      m->len -= hi;
    } else if (hi == m->len) {  // the back is gone
      m->len = lo;
      if (m->shadow_len > lo) m->shadow_len = lo;
    } else {  // a hole in the middle: no longer followed
      emit_incomplete("munmap-inside-shared-write-mapping", m->role);
      forget(m);
    }
  }
}

static void* do_mmap(void* (*real)(void*, size_t, int, int, int, off_t), void* a, size_t n,
                     int prot, int flags, int fd, long long off) {
  FdEntry* e = tracked(fd);
  int follow = e && !e->is_dir && (prot & PROT_WRITE) && (flags & MAP_SHARED);
  int replaces = (flags & MAP_FIXED) && g_nmaps && g_active && !t_guard;
  if (!follow && !replaces) return real(a, n, prot, flags, fd, (off_t)off);
  lock_all();
  if (replaces) maps_unmap((uintptr_t)a, n);  // MAP_FIXED replaces what was there
  void* p = real(a, n, prot, flags, fd, (off_t)off);
  int saved = errno;
  if (p != MAP_FAILED && follow) maps_add(e, fd, p, n, off);
  unlock_all();
  errno = saved;
  return p;
}
SF_EXPORT void* mmap(void* a, size_t n, int prot, int flags, int fd, off_t off) {
  resolve_mmap();
  return do_mmap(real_mmap, a, n, prot, flags, fd, off);
}
SF_EXPORT void* mmap64(void* a, size_t n, int prot, int flags, int fd, off64_t off) {
  resolve_mmap64();
  return do_mmap((void* (*)(void*, size_t, int, int, int, off_t))real_mmap64, a, n, prot, flags, fd,
                 off);
}

SF_EXPORT int munmap(void* a, size_t n) {
  resolve_munmap();
  if (!g_nmaps || !g_active || t_guard) return real_munmap(a, n);
  lock_all();
  maps_unmap((uintptr_t)a, n);
  int r = real_munmap(a, n);
  int saved = errno;
  unlock_all();
  errno = saved;
  return r;
}

// msync: the changed pages of its range are written; with MS_SYNC the range is a window
// fs.msync[role] (a live fault can fail it) and a data barrier.
SF_EXPORT int msync(void* a, size_t n, int flags) {
  resolve_msync();
  if (!g_nmaps || !g_active || t_guard) return real_msync(a, n, flags);
  uintptr_t lo_addr = (uintptr_t)a, hi_addr = (uintptr_t)a + n;
  lock_all();
  int hit[SF_MAX_MAPS] = {0};
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    SfMap* m = &g_maps[i];
    if (!m->addr || lo_addr >= m->addr + m->len || hi_addr <= m->addr) continue;
    hit[i] = 1;
    flush_range(m, lo_addr > m->addr ? lo_addr - m->addr : 0,
                hi_addr < m->addr + m->len ? hi_addr - m->addr : m->len);
    if (!(flags & MS_SYNC)) continue;
    char point[PATH_MAX + 32];
    snprintf(point, sizeof point, "fs.msync[%s]", m->role);
    if (failed_here(point)) return -1;
  }
  int r = real_msync(a, n, flags);
  int saved = errno;
  for (int i = 0; i < SF_MAX_MAPS; ++i) {
    SfMap* m = &g_maps[i];
    if (!hit[i]) continue;
    char point[PATH_MAX + 32];
    snprintf(point, sizeof point, "fs.msync[%s]", m->role);
    if (r != 0) {
      if (flags & MS_SYNC) emit_failure("msync", point, saved);
      continue;
    }
    size_t lo = lo_addr > m->addr ? lo_addr - m->addr : 0;
    size_t hi = hi_addr < m->addr + m->len ? hi_addr - m->addr : m->len;
    lo -= lo % page_size();
    Buf f = {0};
    buf_kv(&f, "path", m->role);
    if (flags & MS_SYNC) buf_kv(&f, "w", point);
    buf_ki(&f, "ino", (long long)m->ino);
    buf_ki(&f, "from", m->off + (long long)lo);
    buf_ki(&f, "len", (long long)(hi - lo));
    buf_ki(&f, "flags", flags);
    emit("msync", &f, NULL, 0);
  }
  unlock_all();
  errno = saved;
  return r;
}

// mremap of a whole followed mapping moves it (the new part's bytes are read as known: no store can
// precede the call); of part of one it is no longer followed (incomplete).
SF_EXPORT void* mremap(void* a, size_t old_n, size_t new_n, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  void* want = (flags & MREMAP_FIXED) ? va_arg(ap, void*) : NULL;
  va_end(ap);
  resolve_mremap();
  if (!g_nmaps || !g_active || t_guard) return real_mremap(a, old_n, new_n, flags, want);
  lock_all();
  SfMap* m = NULL;
  for (int i = 0; i < SF_MAX_MAPS && !m; ++i)
    m = g_maps[i].addr && (uintptr_t)a < g_maps[i].addr + g_maps[i].len &&
                (uintptr_t)a + old_n > g_maps[i].addr
            ? &g_maps[i]
            : NULL;
  if (m) flush_range(m, 0, m->len);
  void* p = real_mremap(a, old_n, new_n, flags, want);
  int saved = errno;
  if (m && p != MAP_FAILED) {
    size_t old_len = (old_n + page_size() - 1) / page_size() * page_size();
    if ((uintptr_t)a != m->addr || old_len != m->len) {
      emit_incomplete("mremap-part-of-shared-write-mapping", m->role);
      forget(m);
    } else {
      m->addr = (uintptr_t)p;
      m->len = (new_n + page_size() - 1) / page_size() * page_size();
      if (m->shadow_len > m->len) m->shadow_len = m->len;
      long long size = file_size(m);
      size_t avail = size > m->off ? (size_t)(size - m->off) : 0;
      if (avail > m->len) avail = m->len;
      if (avail > m->shadow_len) {
        size_t was = m->shadow_len;
        if (grow_shadow(m, avail))
          read_mem(m->shadow + was, m->addr + was, avail - was);
        else
          emit_incomplete("mmap-shadow-failed", m->role);
      }
    }
  }
  unlock_all();
  errno = saved;
  return p;
}

// Mappings still live when the process exits are flushed: the kernel writes them back.
__attribute__((destructor)) static void stepfault_maps_fini(void) {
  if (!g_active || !g_nmaps) return;
  lock_all();
  maps_flush_all();
  unlock_all();
}
