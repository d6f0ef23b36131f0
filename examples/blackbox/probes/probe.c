// stepfault-example-probe: small programs that exercise the recorder's edges, for
// properties/blackbox/recorder_test.cc.
//   probe threads DIR   4 threads each append 50 records to their own file and fsync it, while
//                       the main thread renames a file back and forth: the trace must replay to
//                       exactly what is on disk (thread-safe recording, kernel order)
//   probe mmap DIR      writes a file through a writable MAP_SHARED mapping (seen at its msync)
//   probe plain DIR     writes DIR/plain.txt with write(2) (built static as -static: invisible)
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const char* g_dir;

static void* Writer(void* arg) {
  long id = (long)arg;
  char path[4096], line[64];
  snprintf(path, sizeof path, "%s/thread-%ld.log", g_dir, id);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  for (int i = 0; i < 50; ++i) {
    int n = snprintf(line, sizeof line, "thread %ld record %d\n", id, i);
    if (write(fd, line, (size_t)n) != n) return NULL;
    if (i % 10 == 9) fsync(fd);
  }
  close(fd);
  return NULL;
}

static int Threads(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; ++i) pthread_create(&t[i], NULL, Writer, (void*)i);
  char a[4096], b[4096];
  snprintf(a, sizeof a, "%s/ping", g_dir);
  snprintf(b, sizeof b, "%s/pong", g_dir);
  int fd = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  close(fd);
  for (int i = 0; i < 20; ++i) rename(i % 2 ? b : a, i % 2 ? a : b);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  return 0;
}

static int Mmap(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/mapped.bin", g_dir);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  char* p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return 1;
  memcpy(p, "written through a shared mapping", 32);
  msync(p, 4096, MS_SYNC);
  munmap(p, 4096);
  close(fd);
  return 0;
}

static int Plain(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/plain.txt", g_dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || write(fd, "plain\n", 6) != 6) return 1;
  return close(fd);
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  g_dir = argv[2];
  if (strcmp(argv[1], "threads") == 0) return Threads();
  if (strcmp(argv[1], "mmap") == 0) return Mmap();
  if (strcmp(argv[1], "plain") == 0) return Plain();
  return 2;
}
