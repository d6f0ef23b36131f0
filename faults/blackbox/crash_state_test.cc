// Goal: the crash-state builder applies faults/sim_fs.h's crash model to a trace: a crash keeps
// every operation before the window; a power loss keeps only fsynced bytes under dir-synced names,
// tears the last unsynced write at 512-byte sectors (k = 0 .. all), undoes unsynced renames and
// unlinks; reorder keeps a later write while dropping an earlier one; -shm and the trace's
// volatile globs never appear; msync with MS_SYNC is a data barrier for its range, without it none.
// Method: hand-written traces of a few operations, states compared with the model's prediction.
#include "faults/blackbox/crash_state.h"

#include <gtest/gtest.h>

namespace stepfault::faults::blackbox {
namespace {

using Fields = std::vector<std::pair<std::string, std::string>>;

struct TraceBuilder {
  std::string text = kTraceHeader;
  TraceBuilder& Add(const std::string& op, Fields f, const std::string& data = "") {
    text += FrameRecord(op, 1, f, data);
    return *this;
  }
  Trace Build() {
    Result<Trace> t = ParseTrace(text);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return *t;
  }
};

CrashState Initial() {
  CrashState s;
  s.nodes["state.json"] = {StateNode::kFile, "old"};
  return s;
}

std::string FileOf(const CrashState& s, const std::string& path) {
  auto it = s.nodes.find(path);
  return it == s.nodes.end() ? "<absent>" : it->second.bytes;
}

// Atomic save: create tmp, write, fsync, rename over state.json, fsync the directory.
Trace AtomicSave(const std::string& data) {
  return TraceBuilder()
      .Add("open",
           {{"path", "state.tmp"}, {"w", "fs.create[state.tmp]"}, {"ino", "9"}, {"created", "1"}})
      .Add("write",
           {{"path", "state.tmp"}, {"w", "fs.write[state.tmp]"}, {"ino", "9"}, {"off", "0"}}, data)
      .Add("fsync", {{"path", "state.tmp"}, {"w", "fs.fsync[state.tmp]"}, {"ino", "9"}})
      .Add("rename",
           {{"path", "state.tmp"}, {"path2", "state.json"}, {"w", "fs.rename[state.tmp]"}})
      .Add("open", {{"path", "."}, {"ino", "1"}, {"dir", "1"}})
      .Add("fsync", {{"path", "."}, {"w", "fs.dirsync[.]"}, {"dir", "1"}})
      .Build();
}

TEST(BlackboxCrashStateTest, CrashKeepsEveryOperationBeforeTheWindow) {
  Trace t = AtomicSave("new");
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 2, CrashKind::kCrash, 0), "state.tmp"), "new");
  CrashState after_rename = BuildCrashState(Initial(), t, 4, CrashKind::kCrash, 0);
  EXPECT_EQ(FileOf(after_rename, "state.json"), "new");
  EXPECT_EQ(FileOf(after_rename, "state.tmp"), "<absent>");
}

TEST(BlackboxCrashStateTest, PowerLossUndoesRenamesUntilTheDirectoryIsSynced) {
  Trace t = AtomicSave("new");
  CrashState before_dirsync = BuildCrashState(Initial(), t, 5, CrashKind::kPowerLoss, 0);
  EXPECT_EQ(FileOf(before_dirsync, "state.json"), "old");
  EXPECT_EQ(FileOf(before_dirsync, "state.tmp"), "<absent>");  // its name was never dir-synced
  CrashState after = BuildCrashState(Initial(), t, t.records.size(), CrashKind::kPowerLoss, 0);
  EXPECT_EQ(FileOf(after, "state.json"), "new");
}

TEST(BlackboxCrashStateTest, PowerLossTearsTheLastUnsyncedWriteAtSectors) {
  std::string data(1300, 'n');  // sectors [0,512) [512,1024) [1024,1300)
  Trace t =
      TraceBuilder()
          .Add("open", {{"path", "state.json"},
                        {"w", "fs.truncate[state.json]"},
                        {"ino", "3"},
                        {"trunc", "1"}})
          .Add("write",
               {{"path", "state.json"}, {"w", "fs.write[state.json]"}, {"ino", "3"}, {"off", "0"}},
               data)
          .Build();
  // The O_TRUNC was never synced: k = 0 leaves the old bytes; k = 1 writes one sector over them.
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 2, CrashKind::kPowerLoss, 0, 0), "state.json"),
            "old");
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 2, CrashKind::kPowerLoss, 0, 1), "state.json"),
            std::string(512, 'n'));
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 2, CrashKind::kPowerLoss, 0, 9), "state.json"),
            data);
  // A crash (not a power loss) keeps the truncation and the whole write.
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 1, CrashKind::kCrash, 0), "state.json"), "");
  // The seed chooses k deterministically.
  EXPECT_EQ(BuildCrashState(Initial(), t, 2, CrashKind::kPowerLoss, 7).Digest(),
            BuildCrashState(Initial(), t, 2, CrashKind::kPowerLoss, 7).Digest());
}

TEST(BlackboxCrashStateTest, ReorderKeepsALaterWriteWhileLosingAnEarlierOne) {
  Trace t =
      TraceBuilder()
          .Add("open", {{"path", "state.json"}, {"ino", "3"}})
          .Add("write",
               {{"path", "state.json"}, {"w", "fs.write[state.json]"}, {"ino", "3"}, {"off", "0"}},
               "A")
          .Add("write",
               {{"path", "state.json"}, {"w", "fs.write[state.json]"}, {"ino", "3"}, {"off", "2"}},
               "C")
          .Build();
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 3, CrashKind::kReorder, 0), "state.json"), "olC");
}

TEST(BlackboxCrashStateTest, SharedMemoryFilesAreLeftOutAndUnsyncedCreatesVanish) {
  Trace t =
      TraceBuilder()
          .Add("open", {{"path", "app.db-shm"},
                        {"w", "fs.create[app.db-shm]"},
                        {"ino", "4"},
                        {"created", "1"}})
          .Add("open", {{"path", "."}, {"ino", "1"}, {"dir", "1"}})
          .Add("fsync", {{"path", "."}, {"w", "fs.dirsync[.]"}, {"dir", "1"}})
          .Add("open",
               {{"path", "new.txt"}, {"w", "fs.create[new.txt]"}, {"ino", "5"}, {"created", "1"}})
          .Build();
  CrashState crash = BuildCrashState(Initial(), t, 4, CrashKind::kCrash, 0);
  EXPECT_EQ(FileOf(crash, "app.db-shm"), "<absent>");
  EXPECT_EQ(FileOf(crash, "new.txt"), "");
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 4, CrashKind::kPowerLoss, 0), "new.txt"),
            "<absent>");
}

// Issue 31: the pages a shared mapping changed are unsynced writes (map=1) until an msync with
// MS_SYNC covers them; msync without MS_SYNC (MS_ASYNC) syncs nothing, and a write outside the
// msync's range stays unsynced.
TEST(BlackboxCrashStateTest, MsyncWithMsSyncIsADataBarrierForItsRangeOnly) {
  auto page = [](char c) { return std::string(4096, c); };
  Trace t = TraceBuilder()
                .Add("open", {{"path", "state.json"}, {"ino", "3"}})
                .Add("write",
                     {{"path", "state.json"},
                      {"w", "map.write[state.json]"},
                      {"ino", "3"},
                      {"off", "0"},
                      {"map", "1"}},
                     page('a'))
                .Add("msync", {{"path", "state.json"},
                               {"ino", "3"},
                               {"from", "0"},
                               {"len", "4096"},
                               {"flags", "1"}})  // MS_ASYNC: no barrier
                .Add("write",
                     {{"path", "state.json"},
                      {"w", "map.write[state.json]"},
                      {"ino", "3"},
                      {"off", "4096"},
                      {"map", "1"}},
                     page('b'))
                .Add("msync", {{"path", "state.json"},
                               {"w", "fs.msync[state.json]"},
                               {"ino", "3"},
                               {"from", "0"},
                               {"len", "4096"},
                               {"flags", "4"}})  // MS_SYNC over the first page only
                .Build();
  const size_t end = t.records.size();
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, 3, CrashKind::kPowerLoss, 0, 0), "state.json"),
            "old");  // after MS_ASYNC: nothing durable
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, end, CrashKind::kPowerLoss, 0, 0), "state.json"),
            page('a'));  // the first page is durable; the second, outside the range, lost
  EXPECT_EQ(FileOf(BuildCrashState(Initial(), t, end, CrashKind::kCrash, 0), "state.json"),
            page('a') + page('b'));
  std::vector<TraceWindow> w = WindowsOf(t);
  ASSERT_EQ(w.size(), 3u);  // the MS_ASYNC msync is no window
  EXPECT_EQ(w[2].id, "fs.msync[state.json]#1");
}

// Issue 31: a file matching a `volatile pattern=` glob (the spec's `volatile`) is in no state,
// from the initial snapshot or created by the run, and neither is SQLite's -shm.
TEST(BlackboxCrashStateTest, FilesMatchingTheTracesVolatileGlobsAreInNoState) {
  CrashState initial = Initial();
  initial.nodes["cache"] = {StateNode::kDir, ""};
  initial.nodes["cache/old.idx"] = {StateNode::kFile, "stale"};
  Trace t = TraceBuilder()
                .Add("volatile", {{"pattern", "cache/*"}})
                .Add("open", {{"path", "cache/new.idx"},
                              {"w", "fs.create[cache/new.idx]"},
                              {"ino", "4"},
                              {"created", "1"}})
                .Add("open",
                     {{"path", "a-shm"}, {"w", "fs.create[a-shm]"}, {"ino", "5"}, {"created", "1"}})
                .Build();
  for (CrashKind kind : {CrashKind::kCrash, CrashKind::kPowerLoss}) {
    CrashState s = BuildCrashState(initial, t, t.records.size(), kind, 0);
    EXPECT_EQ(s.nodes.count("cache"), 1u);
    EXPECT_EQ(FileOf(s, "cache/old.idx"), "<absent>");
    EXPECT_EQ(FileOf(s, "cache/new.idx"), "<absent>");
    EXPECT_EQ(FileOf(s, "a-shm"), "<absent>");
    EXPECT_EQ(FileOf(s, "state.json"), "old");
  }
}

// Found by fuzz_blackbox_trace (its input is
// tools/fuzz/corpus/fuzz_blackbox_trace/crash-link-root): a link record without path= named the
// root, which was linked under itself; the walk that builds a state recursed until the stack
// overflowed. The kernel never hard-links a directory or moves one into its own subtree, so the
// model ignores both (with a note) and the tree stays acyclic.
TEST(BlackboxCrashStateTest, TracesThatWouldMakeTheTreeACycleAreIgnoredWithANote) {
  Trace t = TraceBuilder()
                .Add("mkdir", {{"path", "sub"}, {"w", "fs.mkdir[sub]"}})
                .Add("link", {{"path2", "sub/l"}, {"w", "fs.link[.]"}})
                .Add("link", {{"path", "sub"}, {"path2", "sub/m"}, {"w", "fs.link[sub]"}})
                .Add("rename", {{"path", "sub"}, {"path2", "sub/n"}, {"w", "fs.rename[sub]"}})
                .Add("syncfs", {{"w", "fs.syncfs[.]"}})
                .Build();
  for (CrashKind kind : {CrashKind::kCrash, CrashKind::kPowerLoss, CrashKind::kReorder}) {
    CrashState s = BuildCrashState(Initial(), t, t.records.size(), kind, 0);
    EXPECT_EQ(s.nodes.count("sub"), 1u);
    EXPECT_EQ(s.nodes.count("sub/l") + s.nodes.count("sub/m") + s.nodes.count("sub/n"), 0u);
    EXPECT_EQ(FileOf(s, "state.json"), "old");
    std::string notes;
    for (const std::string& n : s.notes) notes += n + "\n";
    EXPECT_NE(notes.find("hard link to directory"), std::string::npos) << notes;
    EXPECT_NE(notes.find("into itself"), std::string::npos) << notes;
  }
}

}  // namespace
}  // namespace stepfault::faults::blackbox
