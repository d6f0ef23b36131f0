// stepfault-crash-programs: the real programs behind the catalogue entries marked `program` in
// crash_catalogue.txt (faults/blackbox/crash_state_recorded_test.cc runs each under the recorder).
// `crash-programs MODE DIR` does, with plain system calls on DIR, what entry MODE's trace records;
// exit status 0 when every call succeeded, 1 when one failed, 2 for an unknown mode.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

static int Run(const char* mode) {
  int fd;
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
