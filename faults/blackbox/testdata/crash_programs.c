// stepfault-crash-programs: the real programs behind the catalogue entries marked `program` in
// crash_catalogue.txt (faults/blackbox/crash_state_recorded_test.cc runs each under the recorder).
// `crash-programs MODE DIR` does, with plain system calls on DIR, what entry MODE's trace records;
// exit status 0 when every call succeeded, 1 when one failed, 2 for an unknown mode.
// Two modes are not catalogue entries but black-box workloads (properties/blackbox/
// durable_at_return_test.cc): `commit-dsync DIR` and `commit-plain DIR` append "commit 1" and
// "commit 2" to the existing DIR/log, through an O_DSYNC descriptor or an ordinary one, and
// acknowledge each with "committed N" on stdout once its write returned (no fsync in either).
// Mode mkdir-file-fsync-no-parent-fsync is also a workload (properties/blackbox/
// persistence_model_test.cc): it acknowledges "acked" on stdout once the fsync of d/f returned.
// Three more are the shared-mapping workloads of properties/blackbox/shared_map_test.cc:
// `map-commit DIR` stores "commit N" (N = 1, 2) in page N of the existing 8192-byte DIR/data
// through a writable MAP_SHARED mapping, msyncs the page with MS_SYNC and then acknowledges
// "committed N"; `map-ack-early DIR` acknowledges before the msync (a power loss can lose an
// acknowledged commit); `map-unseen DIR` commits "commit 1" to DIR/log with write + fsync, then
// fills DIR/cache.idx with copy_file_range and stores into it through a mapping it never flushes
// (_exit): I/O the recorder cannot see, unless the spec names cache.idx volatile.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static const char* g_dir;
static int g_failed;

static const char* At(const char* name) {
  static char paths[4][4096];
  static int next;
  char* p = paths[next++ % 4];
  snprintf(p, 4096, "%s/%s", g_dir, name);
  return p;
}
static void Check(int ok) {
  if (!ok) g_failed = 1;
}
static int Open(const char* name, int flags) { return open(At(name), flags, 0644); }
static void Write(int fd, const char* data) {
  Check(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
}
static void DirSync(const char* name) {
  int fd = open(name[0] ? At(name) : g_dir, O_RDONLY | O_DIRECTORY);
  Check(fd >= 0 && fsync(fd) == 0);
  close(fd);
}
// Creates `tmp` with `data`, optionally fsyncs it, and renames it over `state`.
static void Save(const char* data, int fsync_file) {
  int fd = Open("tmp", O_CREAT | O_WRONLY | O_TRUNC);
  Write(fd, data);
  if (fsync_file) Check(fsync(fd) == 0);
  close(fd);
  Check(rename(At("tmp"), At("state")) == 0);
}

// Appends `n` copies of `c` to `name` through a descriptor opened with `extra` flags.
static void AppendRun(const char* name, int extra, char c, size_t n) {
  char data[4096];
  memset(data, c, n);
  int fd = Open(name, O_WRONLY | O_APPEND | extra);
  Check(fd >= 0 && write(fd, data, n) == (ssize_t)n);
  close(fd);
}

static int Commit(int extra) {
  int fd = Open("log", O_WRONLY | O_APPEND | extra);
  Check(fd >= 0);
  for (int i = 1; i <= 2 && !g_failed; ++i) {
    char line[32], ack[32];
    int n = snprintf(line, sizeof line, "commit %d\n", i);
    Check(write(fd, line, (size_t)n) == n);
    if (g_failed) break;
    int a = snprintf(ack, sizeof ack, "committed %d\n", i);
    Check(write(1, ack, (size_t)a) == a);
  }
  close(fd);
  return g_failed;
}

// Commits "commit 1" and "commit 2" into pages 1 and 2 of DIR/data through a shared mapping, each
// made durable with msync(MS_SYNC) and acknowledged after it (`ack_first`: before it).
static int MapCommit(int ack_first) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  int fd = Open("data", O_RDWR);
  char* p = fd < 0 ? MAP_FAILED : mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return 1;
  for (int i = 1; i <= 2 && !g_failed; ++i) {
    char ack[32];
    char* slot = p + (size_t)(i - 1) * page;
    snprintf(slot, 32, "commit %d\n", i);
    int a = snprintf(ack, sizeof ack, "committed %d\n", i);
    if (ack_first) Check(write(1, ack, (size_t)a) == a);
    Check(msync(slot, page, MS_SYNC) == 0);
    if (!ack_first) Check(write(1, ack, (size_t)a) == a);
  }
  Check(munmap(p, 2 * page) == 0);
  close(fd);
  return g_failed;
}

static int MapUnseen(void) {
  int fd = Open("log", O_CREAT | O_WRONLY | O_TRUNC);
  Write(fd, "commit 1\n");
  Check(fsync(fd) == 0);
  close(fd);
  DirSync("");
  Check(write(1, "committed 1\n", 12) == 12);
  int in = Open("log", O_RDONLY), out = Open("cache.idx", O_CREAT | O_RDWR | O_TRUNC);
  Check(in >= 0 && out >= 0 && copy_file_range(in, NULL, out, NULL, 9, 0) == 9);
  char* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, out, 0);
  if (p == MAP_FAILED) return 1;
  memcpy(p, "index", 5);  // within the 9 bytes the file has
  _exit(g_failed);        // no msync, no munmap, no destructor: the store is never seen
}

static int Run(const char* mode) {
  int fd;
  if (strcmp(mode, "map-commit") == 0) return MapCommit(0);
  if (strcmp(mode, "map-ack-early") == 0) return MapCommit(1);
  if (strcmp(mode, "map-unseen") == 0) return MapUnseen();
  if (strcmp(mode, "msync-sync-kept") == 0) {
    fd = Open("m", O_RDWR);
    char* p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) return 1;
    p[0] = 'b';
    Check(msync(p, 4096, MS_SYNC) == 0);
    Check(munmap(p, 4096) == 0);
    close(fd);
    return g_failed;
  }
  if (strcmp(mode, "commit-dsync") == 0) return Commit(O_DSYNC);
  if (strcmp(mode, "commit-plain") == 0) return Commit(0);
  if (strcmp(mode, "append-unsynced") == 0) {
    fd = Open("log", O_WRONLY | O_APPEND);
    Write(fd, "B");
    close(fd);
  } else if (strcmp(mode, "torn-overwrite-at-file-sectors") == 0) {
    char data[1000];
    memset(data, 'n', sizeof data);
    fd = Open("f", O_WRONLY);
    Check(pwrite(fd, data, sizeof data, 100) == (ssize_t)sizeof data);
    close(fd);
  } else if (strcmp(mode, "rename-without-dirsync-lost") == 0) {
    Save("new", 1);
  } else if (strcmp(mode, "rename-with-dirsync-kept") == 0) {
    Save("new", 1);
    DirSync("");
  } else if (strcmp(mode, "unlink-undone-until-dirsync") == 0) {
    Check(unlink(At("a")) == 0);
    DirSync("");
  } else if (strcmp(mode, "create-missing-until-dirsync") == 0) {
    fd = Open("new", O_CREAT | O_WRONLY);
    Write(fd, "hi");
    Check(fsync(fd) == 0);
    close(fd);
    DirSync("");
  } else if (strcmp(mode, "two-files-fsync-between") == 0) {
    fd = Open("a", O_WRONLY);
    Write(fd, "1");
    Check(fsync(fd) == 0);
    close(fd);
    fd = Open("b", O_WRONLY);
    Write(fd, "2");
    close(fd);
  } else if (strcmp(mode, "otrunc-then-write") == 0) {
    fd = Open("f", O_WRONLY | O_TRUNC);
    Write(fd, "new");
    close(fd);
  } else if (strcmp(mode, "new-directory-needs-parent-dirsync") == 0) {
    Check(mkdir(At("d"), 0755) == 0);
    fd = Open("d/x", O_CREAT | O_WRONLY);
    close(fd);
    DirSync("d");
    DirSync("");
  } else if (strcmp(mode, "mkdir-file-fsync-no-parent-fsync") == 0) {
    Check(mkdir(At("d"), 0755) == 0);
    fd = Open("d/f", O_CREAT | O_WRONLY);
    Write(fd, "acked");
    Check(fsync(fd) == 0);
    close(fd);
    if (!g_failed) Check(write(1, "acked\n", 6) == 6);
  } else if (strcmp(mode, "rename-between-hard-links-is-a-no-op") == 0) {
    Check(link(At("f"), At("g")) == 0);
    Check(rename(At("f"), At("g")) == 0);
    DirSync("");
  } else if (strcmp(mode, "empty-stdio-snapshot-is-not-a-write") == 0) {
    fd = Open("a", O_WRONLY);
    Write(fd, "1");
    close(fd);
    FILE* fp = fopen(At("b"), "w");
    Check(fp != NULL);
    if (fp) fclose(fp);
  } else if (strcmp(mode, "odsync-append-kept-whole") == 0) {
    AppendRun("log", O_DSYNC, 'B', 600);
  } else if (strcmp(mode, "odsync-then-ordinary-write-unsynced") == 0) {
    AppendRun("log", O_DSYNC, 'B', 1);
    AppendRun("log", 0, 'C', 1);
  } else if (strcmp(mode, "osync-create-name-needs-dirsync") == 0) {
    fd = Open("n", O_CREAT | O_WRONLY | O_SYNC);
    Write(fd, "x");
    close(fd);
  } else if (strcmp(mode, "fsetfl-odsync-is-ignored-by-linux") == 0) {
    fd = Open("log", O_WRONLY | O_APPEND);
    Check(fcntl(fd, F_SETFL, O_APPEND | O_DSYNC) == 0);
    Write(fd, "B");
    close(fd);
  } else if (strcmp(mode, "pwritev2-rwf-dsync-kept") == 0) {
    char data[700];
    memset(data, 'n', sizeof data);
    struct iovec iov = {data, sizeof data};
    fd = Open("f", O_WRONLY);
    Check(pwritev2(fd, &iov, 1, 100, RWF_DSYNC) == (ssize_t)sizeof data);
    close(fd);
  } else if (strcmp(mode, "sync-file-range-with-wait-flags-kept") == 0) {
    char data[600];
    memset(data, 'B', sizeof data);
    fd = Open("log", O_WRONLY | O_APPEND);
    Check(write(fd, data, sizeof data) == (ssize_t)sizeof data);
    Check(sync_file_range(fd, 1, sizeof data,
                          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                              SYNC_FILE_RANGE_WAIT_AFTER) == 0);
    close(fd);
  } else if (strcmp(mode, "sync-file-range-is-not-a-barrier") == 0) {
    fd = Open("f", O_WRONLY);
    Write(fd, "x");
    Check(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) == 0);
    close(fd);
  } else if (strcmp(mode, "fopen-read-is-not-a-write") == 0) {
    char line[64];
    FILE* fp = fopen(At("conf"), "r");
    Check(fp != NULL && fgets(line, sizeof line, fp) != NULL);
    if (fp) fclose(fp);
    fd = Open("a", O_WRONLY);
    Write(fd, "1");
    close(fd);
  } else if (strcmp(mode, "fdopen-logger-is-seen") == 0) {
    fd = Open("log", O_WRONLY | O_APPEND);
    FILE* fp = fd >= 0 ? fdopen(fd, "a") : NULL;
    Check(fp != NULL && fputs("started", fp) >= 0);
    if (fp) Check(fclose(fp) == 0);
  } else {
    return 2;
  }
  return g_failed;
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  g_dir = argv[2];
  return Run(argv[1]);
}
