// Goal: the two crash models of the project agree. The same sequence of file operations, run
// through SimFs (faults/sim_fs.h, the in-process explorer's file system) and turned into the trace
// records the black-box recorder writes for it (faults/blackbox/crash_state.h's input), leaves the
// same SET of post-crash worlds (path -> bytes, directories included) after a crash and after a
// power loss at every operation boundary, over every tearing. Where they differ by design the
// difference is pinned below and written down in docs/blackbox.md ("Crash model").
// Method: seeded generated sequences (creates, writes of 0..1100 bytes at the end, inside or past
// the end, ftruncate, O_TRUNC, fsync, rename, unlink, mkdir, directory fsync) over a small
// namespace, plus the catalogue's own shapes; SimFs's power-loss worlds are collected over many
// seeds (it chooses the tearing from its seed), the builder's over every kept_sectors. Writes
// durable at return (O_DSYNC, O_SYNC, RWF_DSYNC: synced= records) are never generated: SimFs has
// no open flags, so those rules are held by the catalogue only (docs/blackbox.md).
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "faults/blackbox/crash_catalogue_test_util.h"
#include "faults/sim_fs.h"

namespace stepfault::faults::blackbox {
namespace {

struct Op {
  enum Kind {
    kCreate,
    kWrite,
    kTruncate,
    kOTrunc,
    kFsync,
    kRename,
    kUnlink,
    kMkdir,
    kDirSync,
    kHold,       // open path and keep the handle (one at a time)
    kWriteHeld,  // write through the held handle: it follows the file across renames and unlinks
    kSyncHeld,   // fsync through the held handle
  };
  Kind kind;
  std::string path, path2;  // relative: "a", "d/c"; "." is the root directory
  uint64_t off = 0;         // kWrite
  std::string data;         // kWrite
  uint64_t size = 0;        // kTruncate
};

std::string Describe(const std::vector<Op>& ops) {
  static const char* kNames[] = {"create",  "write",  "ftruncate",  "otrunc",
                                 "fsync",   "rename", "unlink",     "mkdir",
                                 "dirsync", "hold",   "write-held", "sync-held"};
  std::string out;
  for (const Op& op : ops) {
    out += std::string("  ") + kNames[op.kind] + " " + op.path;
    if (op.kind == Op::kRename) out += " " + op.path2;
    if (op.kind == Op::kWrite || op.kind == Op::kWriteHeld)
      out += " @" + std::to_string(op.off) + " " + RenderValue(op.data);
    if (op.kind == Op::kTruncate) out += " " + std::to_string(op.size);
    out += "\n";
  }
  return out;
}

// Both sides start from this durable world: a=init and the directory d.
CrashState Initial() {
  CrashState s;
  s.nodes["a"] = StateNode{StateNode::kFile, "init"};
  s.nodes["d"] = StateNode{StateNode::kDir, ""};
  return s;
}

// ---- SimFs side ----

std::string Abs(const std::string& rel) { return rel == "." ? "/" : "/" + rel; }

void Apply(SimFs& fs, const Op& op, std::unique_ptr<SimFile>* held) {
  Status s = Status::Ok();
  switch (op.kind) {
    case Op::kHold: {
      Result<std::unique_ptr<SimFile>> f = fs.OpenFile(Abs(op.path), false, false);
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      *held = std::move(*f);
      break;
    }
    case Op::kWriteHeld:
      s = (*held)->WriteAt(op.off, op.data);
      break;
    case Op::kSyncHeld:
      s = (*held)->Sync();
      break;
    case Op::kCreate:
      s = fs.OpenFile(Abs(op.path), /*create=*/true, /*exclusive=*/true).status();
      break;
    case Op::kWrite:
    case Op::kTruncate:
    case Op::kFsync: {
      Result<std::unique_ptr<SimFile>> f = fs.OpenFile(Abs(op.path), false, false);
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      s = op.kind == Op::kWrite      ? (*f)->WriteAt(op.off, op.data)
          : op.kind == Op::kTruncate ? (*f)->Truncate(op.size)
                                     : (*f)->Sync();
      break;
    }
    case Op::kOTrunc:
      s = fs.NewWritableFile(Abs(op.path)).status();
      break;
    case Op::kRename:
      s = fs.RenameFile(Abs(op.path), Abs(op.path2));
      break;
    case Op::kUnlink:
      s = fs.RemoveFile(Abs(op.path));
      break;
    case Op::kMkdir:
      s = fs.CreateDirIfMissing(Abs(op.path));
      break;
    case Op::kDirSync:
      s = fs.SyncDir(Abs(op.path));
      break;
  }
  ASSERT_TRUE(s.ok()) << s.ToString();
}

void Walk(SimFs& fs, const std::string& dir, const std::string& prefix, CrashState* out) {
  Result<std::vector<std::string>> names = fs.GetChildren(dir);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  for (const std::string& name : *names) {
    std::string rel = prefix.empty() ? name : prefix + "/" + name;
    std::string abs = (dir == "/" ? "/" : dir + "/") + name;
    if (fs.GetChildren(abs).ok()) {
      out->nodes[rel] = StateNode{StateNode::kDir, ""};
      Walk(fs, abs, rel, out);
    } else {
      Result<std::string> bytes = fs.ReadFile(abs);
      ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
      out->nodes[rel] = StateNode{StateNode::kFile, *bytes};
    }
  }
}

CrashState WorldOf(SimFs& fs) {
  CrashState s;
  Walk(fs, "/", "", &s);
  return s;
}

// SimFs chooses the tearing from the seed: this many seeds reach every k of a 3-sector write.
constexpr uint64_t kSimSeeds = 96;

using WorldSet = std::map<std::string, std::string>;  // StateKey -> rendering

struct Worlds {
  WorldSet crash, powerloss;
};

// The worlds after a crash / power loss before each op (index i: after ops [0, i)).
std::vector<Worlds> SimWorlds(const std::vector<Op>& ops) {
  SimFs fs;
  EXPECT_TRUE(fs.CreateDirIfMissing("/d").ok());
  {
    auto f = fs.OpenFile("/a", true, true);
    EXPECT_TRUE((*f)->WriteAt(0, "init").ok() && (*f)->Sync().ok());
  }
  EXPECT_TRUE(fs.SyncDir("/").ok() && fs.SyncDir("/d").ok());
  std::vector<Worlds> out;
  std::unique_ptr<SimFile> held;
  for (size_t i = 0; i <= ops.size(); ++i) {
    Worlds w;
    CrashState c = WorldOf(*fs.CrashClone(DeathKind::kCrash, 0));
    w.crash[StateKey(c)] = RenderState(c);
    for (uint64_t seed = 0; seed < kSimSeeds; ++seed) {
      CrashState p = WorldOf(*fs.CrashClone(DeathKind::kPowerLoss, seed));
      w.powerloss[StateKey(p)] = RenderState(p);
    }
    out.push_back(std::move(w));
    if (i < ops.size()) Apply(fs, ops[i], &held);
  }
  return out;
}

// ---- black-box side: the records the recorder writes for each op ----

struct Synthesis {
  Trace trace;
  std::vector<size_t> op_start;  // record index where op i begins; one more: the end
};

Synthesis Synthesize(const std::vector<Op>& ops) {
  std::string text = kTraceHeader;
  size_t records = 0;
  std::map<std::string, int64_t> ino = {{"a", 2}};
  std::map<int64_t, size_t> size = {{2, 4}};  // by inode
  int64_t next_ino = 10;
  std::string held_role;  // the path the held handle was opened as (the recorder's role)
  int64_t held_ino = 0;
  Synthesis out;
  auto add = [&](const std::string& op, std::vector<std::pair<std::string, std::string>> f,
                 const std::string& data = "") {
    text += FrameRecord(op, 1, f, data);
    ++records;
  };
  auto open = [&](const std::string& path) {
    add("open", {{"path", path}, {"ino", std::to_string(ino[path])}});
  };
  for (const Op& op : ops) {
    out.op_start.push_back(records);
    const std::string p = op.path, i = std::to_string(ino.count(p) ? ino[p] : 0);
    const int64_t n = ino.count(p) ? ino[p] : 0;
    switch (op.kind) {
      case Op::kHold:
        open(p);
        held_role = p;
        held_ino = n;
        break;
      case Op::kWriteHeld:
        add("write",
            {{"path", held_role},
             {"w", "fs.write[" + held_role + "]"},
             {"ino", std::to_string(held_ino)},
             {"off", std::to_string(op.off)}},
            op.data);
        if (!op.data.empty())
          size[held_ino] = std::max<size_t>(size[held_ino], op.off + op.data.size());
        break;
      case Op::kSyncHeld:
        add("fsync", {{"path", held_role},
                      {"w", "fs.fsync[" + held_role + "]"},
                      {"ino", std::to_string(held_ino)}});
        break;
      case Op::kCreate:
        ino[p] = next_ino++;
        size[ino[p]] = 0;
        add("open", {{"path", p},
                     {"w", "fs.create[" + p + "]"},
                     {"ino", std::to_string(ino[p])},
                     {"created", "1"}});
        break;
      case Op::kWrite:
        open(p);
        add("write",
            {{"path", p},
             {"w", "fs.write[" + p + "]"},
             {"ino", i},
             {"off", std::to_string(op.off)}},
            op.data);
        if (!op.data.empty()) size[n] = std::max<size_t>(size[n], op.off + op.data.size());
        break;
      case Op::kTruncate:
        open(p);
        add("truncate", {{"path", p},
                         {"w", "fs.truncate[" + p + "]"},
                         {"ino", i},
                         {"off", "0"},
                         {"size", std::to_string(op.size)}});
        size[n] = op.size;
        break;
      case Op::kOTrunc:
        if (size[n] > 0) {
          add("open", {{"path", p}, {"w", "fs.truncate[" + p + "]"}, {"ino", i}, {"trunc", "1"}});
        } else {
          open(p);
        }
        size[n] = 0;
        break;
      case Op::kFsync:
        open(p);
        add("fsync", {{"path", p}, {"w", "fs.fsync[" + p + "]"}, {"ino", i}});
        break;
      case Op::kRename:
        add("rename", {{"path", p}, {"path2", op.path2}, {"w", "fs.rename[" + p + "]"}});
        if (p != op.path2) {
          ino[op.path2] = ino[p];
          ino.erase(p);
        }
        break;
      case Op::kUnlink:
        add("unlink", {{"path", p}, {"w", "fs.unlink[" + p + "]"}});
        ino.erase(p);
        break;
      case Op::kMkdir:
        add("mkdir", {{"path", p}, {"w", "fs.mkdir[" + p + "]"}});
        break;
      case Op::kDirSync:
        add("open", {{"path", p}, {"ino", "1"}, {"dir", "1"}});
        add("fsync", {{"path", p}, {"w", "fs.dirsync[" + p + "]"}, {"ino", "1"}, {"dir", "1"}});
        break;
    }
  }
  out.op_start.push_back(records);
  out.trace = testing::ParseOrFail(text);
  return out;
}

std::vector<Worlds> BlackboxWorlds(const std::vector<Op>& ops) {
  Synthesis syn = Synthesize(ops);
  std::vector<Worlds> out;
  for (size_t upto : syn.op_start) {
    Worlds w;
    CrashState c = BuildCrashState(Initial(), syn.trace, upto, CrashKind::kCrash, 0);
    w.crash[StateKey(c)] = RenderState(c);
    for (int64_t k = 0; k <= kMaxKeptSectors; ++k) {
      CrashState p = BuildCrashState(Initial(), syn.trace, upto, CrashKind::kPowerLoss, 0, k);
      w.powerloss[StateKey(p)] = RenderState(p);
    }
    out.push_back(std::move(w));
  }
  return out;
}

// "" when both models give the same worlds at every boundary, else the first difference.
std::string Difference(const std::vector<Op>& ops) {
  std::vector<Worlds> sim = SimWorlds(ops), bb = BlackboxWorlds(ops);
  auto diff = [](const WorldSet& a, const WorldSet& b) {
    std::string out;
    for (const auto& [key, shown] : a)
      if (!b.count(key)) out += " " + shown;
    return out;
  };
  for (size_t i = 0; i < sim.size(); ++i) {
    for (auto [kind, s, b] : {std::tuple{"crash", &sim[i].crash, &bb[i].crash},
                              std::tuple{"powerloss", &sim[i].powerloss, &bb[i].powerloss}}) {
      std::string only_sim = diff(*s, *b), only_bb = diff(*b, *s);
      if (!only_sim.empty() || !only_bb.empty())
        return std::string(kind) + " before op " + std::to_string(i) + ": only SimFs:" + only_sim +
               "; only the black-box builder:" + only_bb + "\n" + Describe(ops);
    }
  }
  return "";
}

// A valid random sequence over files {a, b, d/c, e/f} and directories {d, e}.
std::vector<Op> Generate(std::mt19937_64& rng) {
  std::map<std::string, size_t> files = {{"a", 4}};
  std::set<std::string> dirs = {".", "d"};
  auto pick = [&rng](size_t n) { return static_cast<size_t>(rng() % n); };
  auto parent = [](const std::string& p) {
    size_t slash = p.rfind('/');
    return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
  };
  static const std::vector<std::string> kFiles = {"a", "b", "d/c", "e/f"};
  static const std::vector<size_t> kLengths = {0, 1, 3, 600, 1100};
  std::vector<Op> ops;
  bool holding = false;
  size_t n = 1 + pick(12);
  for (size_t guard = 0; ops.size() < n && guard < 200; ++guard) {
    const std::string& p = kFiles[pick(kFiles.size())];
    const bool exists = files.count(p) > 0, parent_ok = dirs.count(parent(p)) > 0;
    switch (pick(12)) {
      case Op::kCreate:
        if (exists || !parent_ok) continue;
        ops.push_back({Op::kCreate, p});
        files[p] = 0;
        break;
      case Op::kWrite: {
        if (!exists) continue;
        uint64_t offs[] = {0, files[p], files[p] / 2, files[p] + 5, 500};
        Op op{Op::kWrite, p};
        op.off = offs[pick(5)];
        op.data = std::string(kLengths[pick(kLengths.size())], static_cast<char>('k' + pick(8)));
        if (!op.data.empty()) files[p] = std::max<size_t>(files[p], op.off + op.data.size());
        ops.push_back(op);
        break;
      }
      case Op::kTruncate: {
        if (!exists) continue;
        Op op{Op::kTruncate, p};
        op.size = pick(2) ? files[p] / 2 : files[p] + 3;
        files[p] = op.size;
        ops.push_back(op);
        break;
      }
      case Op::kOTrunc:
        if (!exists) continue;
        ops.push_back({Op::kOTrunc, p});
        files[p] = 0;
        break;
      case Op::kFsync:
        if (!exists) continue;
        ops.push_back({Op::kFsync, p});
        break;
      case Op::kRename: {
        const std::string& to = kFiles[pick(kFiles.size())];
        if (!exists || !dirs.count(parent(to))) continue;
        ops.push_back({Op::kRename, p, to});
        size_t sz = files[p];
        files.erase(p);
        files[to] = sz;
        break;
      }
      case Op::kUnlink:
        if (!exists) continue;
        ops.push_back({Op::kUnlink, p});
        files.erase(p);
        break;
      case Op::kMkdir:
        if (dirs.count("e")) continue;
        ops.push_back({Op::kMkdir, "e"});
        dirs.insert("e");
        break;
      case Op::kDirSync: {
        std::vector<std::string> ds(dirs.begin(), dirs.end());
        ops.push_back({Op::kDirSync, ds[pick(ds.size())]});
        break;
      }
      case Op::kHold:
        if (!exists) continue;
        ops.push_back({Op::kHold, p});
        holding = true;
        break;
      case Op::kWriteHeld: {
        if (!holding) continue;
        Op op{Op::kWriteHeld};
        op.off = pick(2) ? 0 : 700;
        op.data = std::string(kLengths[pick(kLengths.size())], static_cast<char>('s' + pick(4)));
        ops.push_back(op);
        break;
      }
      case Op::kSyncHeld:
        if (!holding) continue;
        ops.push_back({Op::kSyncHeld});
        break;
    }
  }
  return ops;
}

TEST(CrashStateSimFsDifferentialTest, TheCataloguesShapesGiveTheSameWorlds) {
  std::vector<std::vector<Op>> shapes = {
      // atomic save, with and without its fsyncs
      {{Op::kCreate, "b"},
       {Op::kWrite, "b", "", 0, "new"},
       {Op::kFsync, "b"},
       {Op::kRename, "b", "a"},
       {Op::kDirSync, "."}},
      {{Op::kCreate, "b"},
       {Op::kWrite, "b", "", 0, "new"},
       {Op::kRename, "b", "a"},
       {Op::kDirSync, "."}},
      // torn overwrite over three sectors, torn append past the durable size
      {{Op::kWrite, "a", "", 100, std::string(1000, 'n')}},
      {{Op::kWrite, "a", "", 4, std::string(600, 'n')}, {Op::kWrite, "a", "", 1, "B"}},
      // unlink, create, two files with and without fsync, truncate then write
      {{Op::kUnlink, "a"}, {Op::kDirSync, "."}},
      {{Op::kCreate, "d/c"},
       {Op::kWrite, "d/c", "", 0, "hi"},
       {Op::kFsync, "d/c"},
       {Op::kDirSync, "d"}},
      {{Op::kCreate, "b"},
       {Op::kDirSync, "."},
       {Op::kWrite, "a", "", 0, "1"},
       {Op::kWrite, "b", "", 0, "2"}},
      {{Op::kCreate, "b"},
       {Op::kDirSync, "."},
       {Op::kWrite, "a", "", 0, "1"},
       {Op::kFsync, "a"},
       {Op::kWrite, "b", "", 0, "2"}},
      {{Op::kOTrunc, "a"}, {Op::kWrite, "a", "", 0, "new"}},
      {{Op::kTruncate, "a", "", 0, "", 2}, {Op::kWrite, "a", "", 2, "XY"}},
      // a new directory, its entries synced but not its own entry; then synced
      {{Op::kMkdir, "e"}, {Op::kCreate, "e/f"}, {Op::kDirSync, "e"}, {Op::kDirSync, "."}},
      // a rename across directories synced in the target only: both names
      {{Op::kRename, "a", "d/c"}, {Op::kDirSync, "d"}},
      // found by the generated sequences: a write of no bytes past the end extended the file in
      // the builder, and hid the earlier write's tearing (it became "the last unsynced write")
      {{Op::kWrite, "a", "", 500, ""}},
      {{Op::kCreate, "b"},
       {Op::kDirSync, "."},
       {Op::kWrite, "a", "", 0, "1"},
       {Op::kWrite, "b", "", 0, ""}},
  };
  for (const std::vector<Op>& ops : shapes) EXPECT_EQ(Difference(ops), "");
}

TEST(CrashStateSimFsDifferentialTest, GeneratedSequencesGiveTheSameWorlds) {
  std::mt19937_64 rng(29);  // fixed: the same sequences every run
  std::map<int, int> kinds;
  size_t boundaries = 0;
  for (int i = 0; i < 400; ++i) {
    std::vector<Op> ops = Generate(rng);
    for (const Op& op : ops) ++kinds[op.kind];
    boundaries += ops.size() + 1;
    ASSERT_EQ(Difference(ops), "") << "sequence " << i;
  }
  // Every kind of operation was compared many times (the generator is not stuck on a few).
  for (int kind = Op::kCreate; kind <= Op::kSyncHeld; ++kind)
    EXPECT_GE(kinds[kind], 40) << "operation kind " << kind;
  EXPECT_GE(boundaries, 2000u);
  std::printf("compared %zu operation boundaries of 400 sequences\n", boundaries);
}

// ---- differences by design (docs/blackbox.md, "Crash model"): pinned ----

TEST(CrashStateSimFsDifferentialTest, ByDesignSharedMemoryFilesExistOnlyInSimFs) {
  // SQLite's -shm is memory-mapped state the black-box recorder cannot see; the builder leaves it
  // out of every state. SimFs sees every byte its VFS writes and keeps it.
  SimFs fs;
  auto f = fs.OpenFile("/db-shm", true, true);
  ASSERT_TRUE(f.ok() && (*f)->WriteAt(0, "m").ok());
  EXPECT_EQ(RenderState(WorldOf(*fs.CrashClone(DeathKind::kCrash, 0))), "{db-shm=m}");
  std::string text =
      std::string(kTraceHeader) +
      FrameRecord("open", 1,
                  {{"path", "db-shm"}, {"w", "fs.create[db-shm]"}, {"ino", "9"}, {"created", "1"}},
                  "") +
      FrameRecord("write", 1, {{"path", "db-shm"}, {"w", "fs.write[db-shm]"}, {"ino", "9"}}, "m");
  Trace t = testing::ParseOrFail(text);
  EXPECT_EQ(RenderState(BuildCrashState({}, t, 2, CrashKind::kCrash, 0)), "{}");
}

TEST(CrashStateSimFsDifferentialTest, ByDesignReorderExistsOnlyInTheBlackBoxBuilder) {
  // SimFs has no reorder death: its power loss only ever tears the last unsynced write. The
  // builder's reorder keeps a later write of the last written file while losing an earlier one,
  // a world no SimFs power loss gives.
  std::vector<Op> ops = {
      {Op::kWrite, "a", "", 0, "X"}, {Op::kWrite, "a", "", 1, "Y"}, {Op::kWrite, "a", "", 2, "Z"}};
  std::vector<Worlds> sim = SimWorlds(ops);
  Synthesis syn = Synthesize(ops);
  CrashState reorder =
      BuildCrashState(Initial(), syn.trace, syn.trace.records.size(), CrashKind::kReorder, 0);
  EXPECT_EQ(RenderState(reorder), "{a=iYZt d/}");
  EXPECT_EQ(sim.back().powerloss.count(StateKey(reorder)), 0u);
  std::string sim_worlds;
  for (const auto& [key, shown] : sim.back().powerloss) sim_worlds += shown + " ";
  EXPECT_EQ(sim_worlds, "{a=inZt d/} {a=init d/} ");  // in StateKey order
}

}  // namespace
}  // namespace stepfault::faults::blackbox
