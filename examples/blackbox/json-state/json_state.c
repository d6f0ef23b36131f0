// stepfault-example-json-state: a tiny program that saves a JSON state file, in place or correctly,
// for black-box mode's first example (examples/blackbox/json-state/README.md).
//   json_state init FILE              write version 1 (fsync, rename, dir fsync: setup)
//   json_state save-inplace FILE N    open(O_TRUNC), write, close; no fsync        (the bug)
//   json_state save-atomic FILE N     write FILE.tmp, fsync, rename, fsync the directory
//   json_state check FILE ACKED       FILE must hold one whole version, and at least the last
//                                     version ACKED (the program's stdout) says was saved
// After a save it prints "saved N" with write(2), the acknowledgement the check compares with.
// The state is ~1.5 KB so a torn write spans several 512-byte sectors.
#define _GNU_SOURCE
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int Render(int version, char* out, size_t cap) {
  int n = snprintf(out, cap, "{\"version\":%d,\"items\":[", version);
  for (int i = 0; i < 60; ++i)
    n += snprintf(out + n, cap - (size_t)n, "%s\"item-%03d-v%04d\"", i ? "," : "", i, version);
  n += snprintf(out + n, cap - (size_t)n, "]}\n");
  return n;
}

static int WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int SaveInPlace(const char* path, int version) {
  char buf[4096];
  int n = Render(version, buf, sizeof buf);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || WriteAll(fd, buf, (size_t)n) != 0) return perror("save-inplace"), 1;
  close(fd);
  return 0;
}

static int SaveAtomic(const char* path, int version) {
  char buf[4096], tmp[4096], dir[4096];
  int n = Render(version, buf, sizeof buf);
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  snprintf(dir, sizeof dir, "%s", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || WriteAll(fd, buf, (size_t)n) != 0 || fsync(fd) != 0)
    return perror("save-atomic"), 1;
  close(fd);
  if (rename(tmp, path) != 0) return perror("rename"), 1;
  int dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY);
  if (dfd < 0 || fsync(dfd) != 0) return perror("fsync dir"), 1;
  close(dfd);
  return 0;
}

static int ReadFile(const char* path, char* out, size_t cap) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  ssize_t n = read(fd, out, cap - 1);
  close(fd);
  if (n < 0) return -1;
  out[n] = 0;
  return (int)n;
}

static int Check(const char* full_path, const char* acked_path) {
  const char* path = strrchr(full_path, '/') ? strrchr(full_path, '/') + 1 : full_path;
  char got[8192], want[4096], acked[8192];
  int n = ReadFile(full_path, got, sizeof got);
  if (n < 0) return printf("%s is missing\n", path), 1;
  int version = 0;
  if (sscanf(got, "{\"version\":%d,", &version) != 1 || version < 1)
    return printf("%s holds no whole state (%d bytes, starts \"%.20s\")\n", path, n, got), 1;
  Render(version, want, sizeof want);
  if (strcmp(got, want) != 0)
    return printf("%s is torn: version %d header, damaged body (%d bytes)\n", path, version, n), 1;
  int last = 0;
  if (ReadFile(acked_path, acked, sizeof acked) >= 0) {
    for (char* p = strstr(acked, "saved "); p; p = strstr(p + 1, "saved ")) last = atoi(p + 6);
  }
  if (version < last)
    return printf("the program acknowledged \"saved %d\" but %s holds version %d\n", last, path,
                  version),
           1;
  return 0;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "init") == 0) return SaveAtomic(argv[2], 1);
  if (argc >= 4 && strcmp(argv[1], "check") == 0) return Check(argv[2], argv[3]);
  if (argc >= 4 && (strcmp(argv[1], "save-inplace") == 0 || strcmp(argv[1], "save-atomic") == 0)) {
    int version = atoi(argv[3]);
    int rc = argv[1][5] == 'i' ? SaveInPlace(argv[2], version) : SaveAtomic(argv[2], version);
    if (rc == 0) {
      char msg[64];
      int n = snprintf(msg, sizeof msg, "saved %d\n", version);
      if (write(1, msg, (size_t)n) != n) return 1;
    }
    return rc;
  }
  fprintf(stderr, "usage: json_state init|save-inplace|save-atomic|check FILE [N|ACKED]\n");
  return 2;
}
