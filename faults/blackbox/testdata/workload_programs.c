// stepfault-workload-programs: small programs that behave the way real programs the black-box
// harness meets do, each a workload of properties/blackbox/ tests (harness_channels_test.cc).
// `workload-programs MODE DIR [N]`; exit status 0 on success, 1 when a call failed, 2 for an
// unknown mode.
//   temp-save DIR N   saves "state N" as DIR/state through a temporary file whose name is new in
//                     every run (tmp_obj_ and six characters scrambled from the process id, as
//                     mkstemp's look: no digit run of the pid survives in them), then
//                     through one named after the process id (state.<pid>.tmp), each written,
//                     fsynced, renamed over DIR/state, with DIR fsynced after; then acknowledges
//                     "saved N" on the acknowledgement file $STEPFAULT_ACK_FILE.
//   ack-stdio DIR     creates DIR/log (DIR fsynced), appends "commit 1", fsyncs it and
//                     acknowledges "committed 1"
//                     through a stdio stream on $STEPFAULT_ACK_FILE (fprintf + fflush); then
//                     appends "commit 2" without any fsync and acknowledges "committed 2" the
//                     same way: a power loss can lose an acknowledged commit.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int g_failed;
static void Check(int ok) {
  if (!ok) g_failed = 1;
}

static void WriteAll(int fd, const char* data) {
  Check(write(fd, data, strlen(data)) == (ssize_t)strlen(data));
}

static void SyncDir(const char* dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  Check(fd >= 0 && fsync(fd) == 0);
  close(fd);
}

// Writes `data` to DIR/tmp_name, fsyncs it, renames it over DIR/state and fsyncs DIR.
static void SaveVia(const char* dir, const char* tmp_name, const char* data) {
  char tmp[4096], state[4096];
  snprintf(tmp, sizeof tmp, "%s/%s", dir, tmp_name);
  snprintf(state, sizeof state, "%s/state", dir);
  int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0644);
  Check(fd >= 0);
  WriteAll(fd, data);
  Check(fsync(fd) == 0);
  close(fd);
  Check(rename(tmp, state) == 0);
  SyncDir(dir);
}

static void Ack(const char* line) {
  const char* path = getenv("STEPFAULT_ACK_FILE");
  FILE* f = path ? fopen(path, "a") : stdout;
  Check(f != NULL);
  if (!f) return;
  fprintf(f, "%s\n", line);
  fflush(f);
  if (f != stdout) fclose(f);
}

static int TempSave(const char* dir, const char* n) {
  static const char kChars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  unsigned long long scrambled = (unsigned long long)getpid() * 0x9E3779B97F4A7C15ull;
  char name[64] = "tmp_obj_";
  for (size_t i = 0; i < 6; ++i) {
    scrambled = scrambled * 6364136223846793005ull + 1442695040888963407ull;
    name[8 + i] = kChars[(scrambled >> 33) % (sizeof kChars - 1)];
  }
  name[14] = 0;
  char data[128], line[128];
  snprintf(data, sizeof data, "state %s (draft)\n", n);
  SaveVia(dir, name, data);
  snprintf(name, sizeof name, "state.%d.tmp", (int)getpid());
  snprintf(data, sizeof data, "state %s\n", n);
  SaveVia(dir, name, data);
  snprintf(line, sizeof line, "saved %s", n);
  if (!g_failed) Ack(line);  // a save that failed is not acknowledged
  return g_failed;
}

static int AckStdio(const char* dir) {
  char log[4096];
  snprintf(log, sizeof log, "%s/log", dir);
  int fd = open(log, O_CREAT | O_WRONLY | O_APPEND, 0644);
  Check(fd >= 0);
  SyncDir(dir);  // the new file's name is durable
  WriteAll(fd, "commit 1\n");
  Check(fsync(fd) == 0);
  if (!g_failed) Ack("committed 1");
  WriteAll(fd, "commit 2\n");
  if (!g_failed) Ack("committed 2");
  close(fd);
  return g_failed;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  if (strcmp(argv[1], "temp-save") == 0 && argc == 4) return TempSave(argv[2], argv[3]);
  if (strcmp(argv[1], "ack-stdio") == 0) return AckStdio(argv[2]);
  return 2;
}
