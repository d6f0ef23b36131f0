// Goal: SimFs keeps the Env contract and implements the crash model written at the top of
// faults/sim_fs.h exactly. Method: unit tests for the contract, the fault points, freezing, tearing
// and damage; then RapidCheck properties that run generated sequences of file operations (create,
// appends and overwrites of up to 1600 bytes, sync, rename, unlink, dirsync, mkdir) against a small
// model kept here, die after a random prefix (or at a random fault point through the hook), and
// compare the crash / power-loss clone with what the model says must survive. STEPFAULT_LONG=1 runs
// 10x more cases.
#include "faults/sim_fs.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>

#include "engine/env.h"
#include "faults/sim_image.h"
#include "tools/testing/test_env.h"

namespace stepfault::faults {
namespace {

// Sets the number of RapidCheck cases (read lazily at the first property) before any test runs,
// unless RC_PARAMS says otherwise: 1000 by default (well under a second), 10000 with
// STEPFAULT_LONG=1.
const bool kCasesConfigured = [] {
  setenv("RC_PARAMS", test_env::LongRun() ? "max_success=10000" : "max_success=1000",
         /*overwrite=*/0);
  return true;
}();

// Records every point; dies or fails at the hit numbered `target` (0-based) when asked.
class ScriptedHook final : public FaultHook {
 public:
  Decision OnPoint(std::string_view point) override {
    points.emplace_back(point);
    if (target.has_value() && points.size() - 1 == *target) return decision;
    return Decision::Proceed();
  }
  std::vector<std::string> points;
  std::optional<size_t> target;
  Decision decision;
};

std::string Read(SimFs& fs, const std::string& path) {
  Result<std::string> r = fs.ReadFile(path);
  return r.ok() ? *r : "<" + r.status().ToString() + ">";
}

void Put(SimFs& fs, const std::string& path, std::string_view data, bool sync) {
  auto file = fs.NewWritableFile(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_TRUE((*file)->Append(data).ok());
  if (sync) {
    ASSERT_TRUE((*file)->Sync().ok());
  }
  ASSERT_TRUE((*file)->Close().ok());
}

TEST(SimFsContractTest, CreatingInAMissingDirectoryIsNotFound) {
  SimFs fs;
  EXPECT_EQ(fs.NewWritableFile("/nope/x").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs.CreateDirIfMissing("/a/b").code(), StatusCode::kNotFound);
  ASSERT_TRUE(fs.CreateDirIfMissing("/a").ok());
  ASSERT_TRUE(fs.CreateDirIfMissing("/a").ok());  // idempotent
  EXPECT_TRUE(fs.NewWritableFile("/a/x").ok());
}

TEST(SimFsContractTest, GetChildrenListsFilesAndDirectoriesInByteOrder) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  ASSERT_TRUE(fs.CreateDirIfMissing("/d/sub").ok());
  Put(fs, "/d/b", "1", false);
  Put(fs, "/d/B", "2", false);
  Put(fs, "/d/a.tmp", "3", false);
  auto children = fs.GetChildren("/d");
  ASSERT_TRUE(children.ok());
  EXPECT_EQ(*children, (std::vector<std::string>{"B", "a.tmp", "b", "sub"}));
  EXPECT_EQ(fs.GetChildren("/missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(fs.ListAllFiles(), (std::vector<std::string>{"/d/B", "/d/a.tmp", "/d/b"}));
}

TEST(SimFsContractTest, RenameReplacesTheTargetAndNewWritableFileTruncates) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  Put(fs, "/d/x", "new", false);
  Put(fs, "/d/y", "old-content", false);
  ASSERT_TRUE(fs.RenameFile("/d/x", "/d/y").ok());
  EXPECT_EQ(Read(fs, "/d/y"), "new");
  EXPECT_FALSE(*fs.FileExists("/d/x"));
  EXPECT_EQ(fs.RenameFile("/d/x", "/d/z").code(), StatusCode::kNotFound);
  Put(fs, "/d/y", "n", false);
  EXPECT_EQ(Read(fs, "/d/y"), "n");
  EXPECT_EQ(*fs.GetFileSize("/d/y"), 1u);
  auto appendable = fs.NewAppendableFile("/d/y");
  ASSERT_TRUE(appendable.ok());
  ASSERT_TRUE((*appendable)->Append("+m").ok());
  EXPECT_EQ(Read(fs, "/d/y"), "n+m");
  EXPECT_TRUE(fs.RemoveFile("/d/y").ok());
  EXPECT_EQ(fs.RemoveFile("/d/y").code(), StatusCode::kNotFound);
}

TEST(SimFsContractTest, LockIsExclusiveReleasedOnDestructionAndMayOutliveTheFs) {
  auto fs = std::make_unique<SimFs>();
  ASSERT_TRUE(fs->CreateDirIfMissing("/d").ok());
  auto lock = fs->LockFile("/d/LOCK");
  ASSERT_TRUE(lock.ok());
  EXPECT_EQ(fs->LockFile("/d/LOCK").status().code(), StatusCode::kBusy);
  EXPECT_TRUE(*fs->FileExists("/d/LOCK"));  // created like PosixEnv's lock file
  lock = Status::Cancelled("drop the lock");
  auto again = fs->LockFile("/d/LOCK");
  ASSERT_TRUE(again.ok());
  fs.reset();
  again = Status::Cancelled("the lock is released after its SimFs is gone");  // must not crash
}

TEST(SimFsContractTest, AnUnlinkedFileStaysUsableThroughItsHandle) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  auto file = fs.OpenFile("/d/x", /*create=*/true, /*exclusive=*/true);
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(fs.OpenFile("/d/x", true, true).status().code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(fs.RemoveFile("/d/x").ok());
  ASSERT_TRUE((*file)->WriteAt(3, "abc").ok());
  char out[8] = {};
  auto got = (*file)->ReadAt(0, 8, out);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(std::string(out, *got), std::string("\0\0\0abc", 6));
}

TEST(SimFsHookTest, PointsAreNamedByOperationAndRole) {
  SimFs fs;
  fs.SetRoleClassifier([](const std::string& path) {
    return path.starts_with("/cp") ? std::string("checkpoint") : std::string("file");
  });
  ASSERT_TRUE(fs.CreateDirIfMissing("/cp").ok());
  ScriptedHook hook;
  fs.SetHook(&hook);
  ASSERT_TRUE(WriteFileAtomically(&fs, "/cp", "a.json", "{}").ok());
  ASSERT_TRUE(WriteFileAtomically(&fs, "/cp", "a.json", "{}").ok());
  auto file = fs.OpenFile("/cp/a.json", false, false);
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE((*file)->Truncate(1).ok());
  ASSERT_TRUE(fs.RemoveFile("/cp/a.json").ok());
  Put(fs, "/x", "1", false);
  Put(fs, "/x", "2", false);  // truncating a non-empty file is a point
  EXPECT_EQ(hook.points,
            (std::vector<std::string>{
                "fs.create[checkpoint]", "fs.write[checkpoint]", "fs.fsync[checkpoint]",
                "fs.rename[checkpoint]", "fs.dirsync[checkpoint]", "fs.create[checkpoint]",
                "fs.write[checkpoint]", "fs.fsync[checkpoint]", "fs.rename[checkpoint]",
                "fs.dirsync[checkpoint]", "fs.truncate[checkpoint]", "fs.unlink[checkpoint]",
                "fs.create[file]", "fs.write[file]", "fs.truncate[file]", "fs.write[file]"}));
}

// Runs one mutating operation of each kind; returns its Status.
std::vector<std::pair<std::string, std::function<Status(SimFs&)>>> MutatingOps() {
  return {
      {"create", [](SimFs& fs) { return fs.NewWritableFile("/d/new").status(); }},
      {"write", [](SimFs& fs) { return (*fs.NewAppendableFile("/d/x"))->Append("zz"); }},
      {"fsync", [](SimFs& fs) { return (*fs.NewAppendableFile("/d/x"))->Sync(); }},
      {"rename", [](SimFs& fs) { return fs.RenameFile("/d/x", "/d/y"); }},
      {"unlink", [](SimFs& fs) { return fs.RemoveFile("/d/x"); }},
      {"dirsync", [](SimFs& fs) { return fs.SyncDir("/d"); }},
      {"truncate", [](SimFs& fs) { return fs.NewWritableFile("/d/x").status(); }},
  };
}

// Everything observable about a world: current and durable bytes of every name.
std::string Snapshot(SimFs& fs) {
  std::string out;
  for (const std::string& path : fs.ListAllFiles()) {
    out += path + "=" + Read(fs, path) + "|";
    auto durable = fs.DurableBytes(path);
    out += durable.ok() ? *durable : "<not durable>";
    out += "\n";
  }
  return out;
}

TEST(SimFsHookTest, InjectedFailureChangesNothingAndIsTagged) {
  for (StatusCode code : {StatusCode::kIOError, StatusCode::kNoSpace}) {
    for (auto& [name, op] : MutatingOps()) {
      SimFs fs;
      ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
      Put(fs, "/d/x", "content", true);
      const std::string before = Snapshot(fs);
      ScriptedHook hook;
      hook.target = 0;
      hook.decision = Decision::Fail(code);
      fs.SetHook(&hook);
      Status status = op(fs);
      EXPECT_EQ(status.code(), code) << name;
      EXPECT_TRUE(status.injected()) << name;
      EXPECT_NE(status.message().find(code == StatusCode::kNoSpace ? "injected ENOSPC at fs."
                                                                   : "injected EIO at fs."),
                std::string::npos)
          << status.message();
      fs.SetHook(nullptr);
      EXPECT_EQ(Snapshot(fs), before) << name;
      EXPECT_FALSE(fs.frozen());
    }
  }
}

TEST(SimFsHookTest, DeathFreezesThrowsAndTheFrozenWorldRefusesEverything) {
  for (auto& [name, op] : MutatingOps()) {
    SimFs fs;
    ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
    Put(fs, "/d/x", "content", true);
    auto handle = fs.OpenFile("/d/x", false, false);
    ASSERT_TRUE(handle.ok());
    auto lock = fs.LockFile("/d/LOCK");
    const std::string before = Snapshot(fs);
    ScriptedHook hook;
    hook.target = 0;
    hook.decision = Decision::Die(DeathKind::kPowerLoss);
    fs.SetHook(&hook);
    bool died = false;
    try {
      (void)op(fs);
    } catch (const CrashSignal& signal) {
      died = true;
      EXPECT_EQ(signal.kind, DeathKind::kPowerLoss);
      EXPECT_EQ(signal.point, "fs." + name + "[file]");
    }
    ASSERT_TRUE(died) << name;
    ASSERT_TRUE(fs.frozen());
    const uint64_t ops = fs.op_count();
    const std::string frozen_message = "simulated world is frozen after powerloss at fs." + name;
    std::vector<Status> refused = {
        fs.NewWritableFile("/d/a").status(),
        fs.NewAppendableFile("/d/x").status(),
        fs.ReadFile("/d/x").status(),
        fs.FileExists("/d/x").status(),
        fs.GetFileSize("/d/x").status(),
        fs.GetChildren("/d").status(),
        fs.RemoveFile("/d/x"),
        fs.RenameFile("/d/x", "/d/z"),
        fs.CreateDirIfMissing("/e"),
        fs.SyncDir("/d"),
        fs.LockFile("/d/L2").status(),
        (*handle)->WriteAt(0, "q"),
        (*handle)->Sync(),
        (*handle)->Truncate(0),
        (*handle)->Size().status(),
        fs.OpenAnonymousFile().status(),
        fs.FlipBit("/d/x", 0),
    };
    for (const Status& s : refused) {
      EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << name << ": " << s.ToString();
      EXPECT_EQ(s.message().rfind(frozen_message, 0), 0u) << s.message();
    }
    EXPECT_EQ(hook.points.size(), 1u);  // refused operations never reach the hook
    EXPECT_EQ(fs.op_count(), ops);
    fs.SetHook(nullptr);
    auto clone = fs.CrashClone(DeathKind::kCrash, 1);
    EXPECT_EQ(Snapshot(*clone), before) << name;  // the dying operation did not happen
  }
}

TEST(SimFsCrashModelTest, PowerLossDropsUnsyncedNamesAndBytesCrashKeepsThem) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  ASSERT_TRUE(fs.SyncDir("/").ok());
  Put(fs, "/d/synced", "durable", true);
  ASSERT_TRUE(fs.SyncDir("/d").ok());
  Put(fs, "/d/unsynced-name", "bytes", true);  // fsynced, but its name never dir-synced
  ASSERT_TRUE(fs.CreateDirIfMissing("/d/sub").ok());
  Put(fs, "/d/sub/f", "x", true);
  ASSERT_TRUE(fs.SyncDir("/d/sub").ok());  // the sub directory's own entry is not durable
  ASSERT_TRUE((*fs.NewAppendableFile("/d/synced"))->Append("+tail").ok());
  ASSERT_TRUE(fs.RenameFile("/d/synced", "/d/renamed").ok());

  auto crashed = fs.CrashClone(DeathKind::kCrash, 7);
  EXPECT_EQ(crashed->ListAllFiles(),
            (std::vector<std::string>{"/d/renamed", "/d/sub/f", "/d/unsynced-name"}));
  EXPECT_EQ(Read(*crashed, "/d/renamed"), "durable+tail");
  auto exited = fs.CrashClone(DeathKind::kExit, 7);
  EXPECT_EQ(Snapshot(*exited), Snapshot(*crashed));

  for (uint64_t seed = 0; seed < 16; ++seed) {
    auto lost = fs.CrashClone(DeathKind::kPowerLoss, seed);
    EXPECT_EQ(lost->ListAllFiles(), (std::vector<std::string>{"/d/synced"}));
    // The 5-byte append is the last unsynced write: its one sector is either in or out.
    std::string bytes = Read(*lost, "/d/synced");
    EXPECT_TRUE(bytes == "durable" || bytes == "durable+tail") << bytes;
    EXPECT_FALSE(*lost->FileExists("/d/sub"));
  }
  EXPECT_EQ(Read(fs, "/d/renamed"), "durable+tail");  // the original is untouched
  EXPECT_FALSE(fs.frozen());
}

TEST(SimFsCrashModelTest, TheLastUnsyncedWriteTearsAtEverySectorPrefixAndNothingElse) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  ASSERT_TRUE(fs.SyncDir("/").ok());
  Put(fs, "/d/a", std::string(100, 'a'), true);
  Put(fs, "/d/b", std::string(10, 'b'), true);
  ASSERT_TRUE(fs.SyncDir("/d").ok());
  ASSERT_TRUE((*fs.NewAppendableFile("/d/b"))->Append(std::string(700, 'B')).ok());  // not last
  auto a = fs.OpenFile("/d/a", false, false);
  ASSERT_TRUE(a.ok());
  // 1100 bytes at offset 400 cover sectors 0..2 (400-511, 512-1023, 1024-1499).
  ASSERT_TRUE((*a)->WriteAt(400, std::string(1100, 'w')).ok());
  EXPECT_EQ(*fs.DurableBytes("/d/a"), std::string(100, 'a'));
  std::set<std::string> seen;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    auto lost = fs.CrashClone(DeathKind::kPowerLoss, seed);
    EXPECT_EQ(Read(*lost, "/d/b"), std::string(10, 'b'));
    seen.insert(Read(*lost, "/d/a"));
  }
  const std::string zeros(300, '\0');
  std::set<std::string> expected = {
      std::string(100, 'a'),
      std::string(100, 'a') + zeros + std::string(112, 'w'),
      std::string(100, 'a') + zeros + std::string(624, 'w'),
      std::string(100, 'a') + zeros + std::string(1100, 'w'),
  };
  EXPECT_EQ(seen, expected);
  ASSERT_TRUE((*a)->Sync().ok());  // now b's append is the last unsynced write
  std::set<std::string> seen_b;
  for (uint64_t seed = 0; seed < 32; ++seed) {
    auto lost = fs.CrashClone(DeathKind::kPowerLoss, seed);
    EXPECT_EQ(Read(*lost, "/d/a").size(), 1500u);
    seen_b.insert(Read(*lost, "/d/b"));
  }
  EXPECT_EQ(seen_b, (std::set<std::string>{std::string(10, 'b'),
                                           std::string(10, 'b') + std::string(502, 'B'),
                                           std::string(10, 'b') + std::string(700, 'B')}));
}

// AppendParts (the gathered write the file store uses) is Append of the joined parts: one fault
// point, one write op, torn by a power loss at the same sector prefixes as that one Append.
TEST(SimFsCrashModelTest, AppendPartsIsOneWriteTornExactlyLikeAppendOfTheJoinedBytes) {
  const std::vector<std::string_view> parts = {std::string_view("head\n"), std::string_view(),
                                               std::string_view("x"), std::string_view("ptail")};
  const std::string big(1300, 'g');
  std::vector<std::string_view> all = parts;
  all.insert(all.begin() + 2, big);  // the parts span three sectors
  std::string joined;
  for (std::string_view p : all) joined.append(p);
  auto world = [&](bool gathered, ScriptedHook* hook) {
    auto fs = std::make_unique<SimFs>();
    EXPECT_TRUE(fs->CreateDirIfMissing("/d").ok());
    EXPECT_TRUE(fs->SyncDir("/").ok());
    Put(*fs, "/d/f", "durable", true);
    EXPECT_TRUE(fs->SyncDir("/d").ok());
    fs->SetHook(hook);
    auto file = fs->NewAppendableFile("/d/f");
    EXPECT_TRUE(file.ok());
    EXPECT_TRUE((gathered ? (*file)->AppendParts(all) : (*file)->Append(joined)).ok());
    return fs;
  };
  ScriptedHook gathered_hook, joined_hook;
  auto gathered = world(true, &gathered_hook);
  auto single = world(false, &joined_hook);
  EXPECT_EQ(gathered_hook.points, std::vector<std::string>{"fs.write[file]"});
  EXPECT_EQ(gathered_hook.points, joined_hook.points);
  EXPECT_EQ(Read(*gathered, "/d/f"), "durable" + joined);
  std::set<std::string> torn;
  for (uint64_t seed = 0; seed < 64; ++seed) {
    const std::string lost = Read(*gathered->CrashClone(DeathKind::kPowerLoss, seed), "/d/f");
    EXPECT_EQ(lost, Read(*single->CrashClone(DeathKind::kPowerLoss, seed), "/d/f")) << seed;
    torn.insert(lost);
  }
  EXPECT_EQ(torn.size(), 4u);  // none, and 1, 2 or 3 of the sectors the write covers
}

TEST(SimFsCrashModelTest, RenameSyncedOnlyInTheTargetLeavesTwoNames) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/a").ok());
  ASSERT_TRUE(fs.CreateDirIfMissing("/b").ok());
  ASSERT_TRUE(fs.SyncDir("/").ok());
  Put(fs, "/a/f", "data", true);
  ASSERT_TRUE(fs.SyncDir("/a").ok());
  ASSERT_TRUE(fs.RenameFile("/a/f", "/b/f").ok());
  ASSERT_TRUE(fs.SyncDir("/b").ok());
  auto lost = fs.CrashClone(DeathKind::kPowerLoss, 3);
  EXPECT_EQ(lost->ListAllFiles(), (std::vector<std::string>{"/a/f", "/b/f"}));
  EXPECT_EQ(Read(*lost, "/a/f"), "data");
  EXPECT_EQ(Read(*lost, "/b/f"), "data");
}

TEST(SimFsCopyTest, CopiesThroughACacheShareUnchangedFilesAndKeepTheirOwnBytes) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  constexpr uint64_t kBig = 10 * SimImage::kChunkBytes;
  Put(fs, "/d/big", std::string(kBig, 'b'), /*sync=*/true);
  Put(fs, "/d/log", "one", /*sync=*/false);
  SimFs::CopyCache cache;
  auto first = fs.CopySharing(&cache);
  // big: one image (synced: current and durable share it); log: its current bytes and the write.
  EXPECT_GE(cache.last_copied_bytes(), kBig + 3);
  EXPECT_LT(cache.last_copied_bytes(), kBig + 2048);
  auto log = fs.NewAppendableFile("/d/log");
  ASSERT_TRUE(log.ok());
  ASSERT_TRUE((*log)->Append(" two").ok());
  auto second = fs.CopySharing(&cache);
  EXPECT_GT(cache.last_copied_bytes(), 7u);  // only the file that changed
  EXPECT_LT(cache.last_copied_bytes(), 1024u);
  EXPECT_EQ(Read(*first, "/d/log"), "one");
  EXPECT_EQ(Read(*second, "/d/log"), "one two");
  EXPECT_EQ(second->Digest(), fs.Digest());
  EXPECT_EQ(second->CrashClone(DeathKind::kPowerLoss, 9)->Digest(),
            fs.CrashClone(DeathKind::kPowerLoss, 9)->Digest());
  // A write into big: the next copy adds the one chunk it touched, not the file.
  auto big = fs.OpenFile("/d/big", false, false);
  ASSERT_TRUE(big.ok());
  ASSERT_TRUE((*big)->WriteAt(3 * SimImage::kChunkBytes + 5, "B").ok());
  auto third = fs.CopySharing(&cache);
  EXPECT_GT(cache.last_copied_bytes(), SimImage::kChunkBytes);
  EXPECT_LT(cache.last_copied_bytes(), 2 * SimImage::kChunkBytes);
  EXPECT_EQ(Read(*second, "/d/big"), std::string(kBig, 'b'));
}

// What a world holds counts the images only a durable entry still reaches (a file unlinked since
// its directory's last sync), each image once however many names or tables share it, and the
// chunk a write made the file stop sharing with its durable bytes.
TEST(SimFsCopyTest, HeldBytesCountEveryDistinctImageTheWorldStillReaches) {
  constexpr uint64_t kBig = 100000;
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  ASSERT_TRUE(fs.SyncDir("/").ok());
  const uint64_t empty = fs.HeldBytes();
  Put(fs, "/d/wal", std::string(kBig, 'w'), /*sync=*/true);
  ASSERT_TRUE(fs.SyncDir("/d").ok());
  // Synced: the current and the durable bytes are one image.
  const uint64_t synced = fs.HeldBytes();
  EXPECT_GE(synced, empty + kBig);
  EXPECT_LT(synced, empty + kBig + 2048);
  // A crash clone shares every chunk with its world, and each world counts them in full.
  EXPECT_EQ(fs.CrashClone(DeathKind::kCrash, 0)->HeldBytes(), synced);
  // One more write: the current image now has a chunk of its own (the one the write touched; the
  // others are still shared with the durable image).
  auto wal = fs.NewAppendableFile("/d/wal");
  ASSERT_TRUE(wal.ok());
  ASSERT_TRUE((*wal)->Append("x").ok());
  ASSERT_TRUE((*wal)->Close().ok());
  EXPECT_GT(fs.HeldBytes(), synced + kBig % SimImage::kChunkBytes);
  EXPECT_LT(fs.HeldBytes(), synced + SimImage::kChunkBytes + 1024);
  // Unlinked without a directory sync: gone from the listing (its size no longer counts), but a
  // power loss would bring it back, so the world still holds its durable image.
  ASSERT_TRUE(fs.RemoveFile("/d/wal").ok());
  EXPECT_TRUE(fs.ListAllFiles().empty());
  EXPECT_GE(fs.HeldBytes(), empty + kBig);
  ASSERT_TRUE(fs.SyncDir("/d").ok());
  EXPECT_LT(fs.HeldBytes(), empty + 1024);
}

TEST(SimFsDamageTest, DamageIsAppliedToBothImagesAndSurvivesPowerLoss) {
  SimFs fs;
  ASSERT_TRUE(fs.CreateDirIfMissing("/d").ok());
  ASSERT_TRUE(fs.SyncDir("/").ok());
  Put(fs, "/d/x", "abcdefgh", true);
  ASSERT_TRUE(fs.SyncDir("/d").ok());
  ASSERT_TRUE(fs.FlipBit("/d/x", 8 * 1 + 0).ok());  // 'b' ^ 1 = 'c'
  ASSERT_TRUE(fs.ZeroRange("/d/x", 4, 2).ok());
  ASSERT_TRUE(fs.TruncateTo("/d/x", 7).ok());
  const std::string expected = std::string("accd\0\0g", 7);
  EXPECT_EQ(Read(fs, "/d/x"), expected);
  EXPECT_EQ(*fs.DurableBytes("/d/x"), expected);
  EXPECT_EQ(Read(*fs.CrashClone(DeathKind::kPowerLoss, 1), "/d/x"), expected);
  EXPECT_EQ(fs.FlipBit("/d/x", 56).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs.TruncateTo("/d/x", 8).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fs.FlipBit("/d/none", 0).code(), StatusCode::kNotFound);
}

// ---- Model-based properties -------------------------------------------------------------------

struct Op {
  enum Kind { kCreate, kAppend, kOverwrite, kSync, kRename, kUnlink, kSyncDir, kMkdir };
  int kind = kCreate;
  int dir = 0, name = 0, dir2 = 0, name2 = 0;
  uint32_t size = 0, offset = 0;
  uint8_t fill = 0;
};

std::ostream& operator<<(std::ostream& os, const Op& op) {
  static const char* kNames[] = {"create", "append", "overwrite", "sync",
                                 "rename", "unlink", "syncdir",   "mkdir"};
  return os << kNames[op.kind] << "(d" << op.dir << "/f" << op.name << " -> d" << op.dir2 << "/f"
            << op.name2 << " size=" << op.size << " off=" << op.offset << ")";
}

rc::Gen<Op> GenOp() {
  return rc::gen::apply(
      [](int kind, int dir, int name, int dir2, int name2, uint32_t size, uint32_t offset,
         uint8_t fill) { return Op{kind, dir, name, dir2, name2, size, offset, fill}; },
      rc::gen::weightedElement<int>({{3, Op::kCreate},
                                     {4, Op::kAppend},
                                     {2, Op::kOverwrite},
                                     {3, Op::kSync},
                                     {2, Op::kRename},
                                     {1, Op::kUnlink},
                                     {3, Op::kSyncDir},
                                     {1, Op::kMkdir}}),
      rc::gen::inRange(0, 3), rc::gen::inRange(0, 2), rc::gen::inRange(0, 3),
      rc::gen::inRange(0, 2), rc::gen::inRange<uint32_t>(0, 1600),
      rc::gen::inRange<uint32_t>(0, 2000), rc::gen::arbitrary<uint8_t>());
}

// Directories /d0 and /d1 exist durably from the start; /d1/s is made by kMkdir.
std::string DirPath(int d) { return d == 0 ? "/d0" : d == 1 ? "/d1" : "/d1/s"; }
constexpr size_t kSubdirMarker = SIZE_MAX;  // a directory entry in the model
std::string FilePath(int d, int n) { return DirPath(d) + "/f" + std::to_string(n); }
std::string Bytes(const Op& op) {
  std::string out(op.size, '\0');
  for (uint32_t i = 0; i < op.size; ++i) out[i] = static_cast<char>(op.fill + i % 251);
  return out;
}

// The crash model restated as plainly as possible.
struct Model {
  struct Inode {
    std::string cur, dur;
    uint64_t write_seq = 0;  // 0: no unsynced write
    uint64_t write_offset = 0;
    std::string write_bytes;
  };
  std::vector<Inode> inodes;
  // dir -> name -> inode (or kSubdirMarker); a directory absent from cur does not exist.
  std::map<std::string, std::map<std::string, size_t>> cur, dur;
  uint64_t seq = 0;

  Model() { cur["/d0"], cur["/d1"], dur["/d0"], dur["/d1"]; }
  std::optional<size_t> Find(int d, int n) const {
    if (cur.count(DirPath(d)) == 0) return std::nullopt;
    const auto& dir = cur.at(DirPath(d));
    auto it = dir.find("f" + std::to_string(n));
    if (it == dir.end()) return std::nullopt;
    return it->second;
  }
  void Write(size_t i, uint64_t offset, const std::string& bytes) {
    if (bytes.empty()) return;
    Inode& in = inodes[i];
    if (in.cur.size() < offset + bytes.size()) in.cur.resize(offset + bytes.size(), '\0');
    in.cur.replace(offset, bytes.size(), bytes);
    in.write_seq = ++seq;
    in.write_offset = offset;
    in.write_bytes = bytes;
  }
  void Apply(const Op& op) {
    const std::string name = "f" + std::to_string(op.name);
    std::optional<size_t> i = Find(op.dir, op.name);
    if (op.kind != Op::kMkdir && cur.count(DirPath(op.dir)) == 0) return;
    if (op.kind == Op::kRename && cur.count(DirPath(op.dir2)) == 0) return;
    switch (op.kind) {
      case Op::kMkdir:
        if (cur.count(DirPath(2)) == 0) {
          cur[DirPath(2)], dur[DirPath(2)];
          cur[DirPath(1)]["s"] = kSubdirMarker;
        }
        break;
      case Op::kCreate:
        if (i) {
          inodes[*i].cur.clear();
        } else {
          inodes.emplace_back();
          cur[DirPath(op.dir)][name] = inodes.size() - 1;
        }
        break;
      case Op::kAppend:
        if (i) Write(*i, inodes[*i].cur.size(), Bytes(op));
        break;
      case Op::kOverwrite:
        if (i) Write(*i, op.offset, Bytes(op));
        break;
      case Op::kSync:
        if (i) inodes[*i].dur = inodes[*i].cur, inodes[*i].write_seq = 0;
        break;
      case Op::kRename:
        if (i) {
          cur[DirPath(op.dir)].erase(name);
          cur[DirPath(op.dir2)]["f" + std::to_string(op.name2)] = *i;
        }
        break;
      case Op::kUnlink:
        if (i) cur[DirPath(op.dir)].erase(name);
        break;
      case Op::kSyncDir:
        dur[DirPath(op.dir)] = cur[DirPath(op.dir)];
        break;
    }
  }
  // The inode of the system-wide last unsynced write, if any.
  std::optional<size_t> LastUnsynced() const {
    std::optional<size_t> best;
    for (size_t i = 0; i < inodes.size(); ++i) {
      if (inodes[i].write_seq != 0 && (!best || inodes[i].write_seq > inodes[*best].write_seq)) {
        best = i;
      }
    }
    return best;
  }
  // Every image inode i may show after a power loss.
  std::set<std::string> PowerLossImages(size_t i) const {
    const Inode& in = inodes[i];
    if (LastUnsynced() != i) return {in.dur};
    std::set<std::string> out;
    const uint64_t end = in.write_offset + in.write_bytes.size();
    // Cut points: the write's start, each sector boundary inside it, and its end.
    std::vector<uint64_t> cuts = {in.write_offset};
    for (uint64_t b = (in.write_offset / 512 + 1) * 512; b < end; b += 512) cuts.push_back(b);
    cuts.push_back(end);
    for (uint64_t cut : cuts) {
      std::string image = in.dur;
      if (cut > in.write_offset) {
        if (image.size() < cut) image.resize(cut, '\0');
        image.replace(in.write_offset, cut - in.write_offset, in.write_bytes, 0,
                      cut - in.write_offset);
      }
      out.insert(image);
    }
    return out;
  }
};

Status Run(SimFs& fs, const Op& op) {
  if (op.kind == Op::kMkdir) return fs.CreateDirIfMissing(DirPath(2));
  for (int d : {op.dir, op.kind == Op::kRename ? op.dir2 : op.dir}) {
    auto dir_exists = fs.FileExists(DirPath(d));
    if (!dir_exists.ok()) return dir_exists.status();
    if (!*dir_exists) return Status::Ok();  // as the model: no-op on a missing directory
  }
  const std::string path = FilePath(op.dir, op.name);
  auto exists = fs.FileExists(path);
  if (!exists.ok()) return exists.status();
  if (!*exists && op.kind != Op::kCreate && op.kind != Op::kSyncDir) return Status::Ok();
  switch (op.kind) {
    case Op::kCreate:
      return fs.NewWritableFile(path).status();
    case Op::kAppend: {
      auto file = fs.NewAppendableFile(path);
      return file.ok() ? (*file)->Append(Bytes(op)) : file.status();
    }
    case Op::kOverwrite: {
      auto file = fs.OpenFile(path, false, false);
      return file.ok() ? (*file)->WriteAt(op.offset, Bytes(op)) : file.status();
    }
    case Op::kSync: {
      auto file = fs.NewAppendableFile(path);
      return file.ok() ? (*file)->Sync() : file.status();
    }
    case Op::kRename:
      return fs.RenameFile(path, FilePath(op.dir2, op.name2));
    case Op::kUnlink:
      return fs.RemoveFile(path);
    case Op::kSyncDir:
      return fs.SyncDir(DirPath(op.dir));
    case Op::kMkdir:
      break;
  }
  return Status::Internal("unknown op");
}

std::unique_ptr<SimFs> NewWorld() {
  auto fs = std::make_unique<SimFs>();
  RC_ASSERT(fs->CreateDirIfMissing("/d0").ok());
  RC_ASSERT(fs->CreateDirIfMissing("/d1").ok());
  RC_ASSERT(fs->SyncDir("/").ok());
  return fs;
}

void CheckCrashClone(SimFs& clone, const Model& model) {
  std::vector<std::string> expected;
  for (const auto& [dir, entries] : model.cur) {
    for (const auto& [name, i] : entries) {
      if (i == kSubdirMarker) continue;
      expected.push_back(dir + "/" + name);
      RC_ASSERT(Read(clone, dir + "/" + name) == model.inodes[i].cur);
    }
  }
  std::sort(expected.begin(), expected.end());
  RC_ASSERT(clone.ListAllFiles() == expected);
}

void CheckPowerLossClone(SimFs& clone, const Model& model) {
  std::vector<std::string> expected;
  for (const auto& [dir, entries] : model.dur) {
    // /d1/s survives only if its entry in /d1 was dir-synced.
    if (dir == DirPath(2) && model.dur.at(DirPath(1)).count("s") == 0) {
      RC_ASSERT(!*clone.FileExists(dir));
      continue;
    }
    for (const auto& [name, i] : entries) {
      if (i == kSubdirMarker) continue;
      expected.push_back(dir + "/" + name);
      std::set<std::string> allowed = model.PowerLossImages(i);
      RC_ASSERT(allowed.count(Read(clone, dir + "/" + name)) == 1u);
    }
  }
  std::sort(expected.begin(), expected.end());
  RC_ASSERT(clone.ListAllFiles() == expected);
}

RC_GTEST_PROP(SimFsModelProperty, CrashKeepsEverythingPowerLossKeepsExactlyTheDurable, ()) {
  const auto ops = *rc::gen::container<std::vector<Op>>(GenOp());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  auto fs = NewWorld();
  Model model;
  for (const Op& op : ops) {
    RC_ASSERT(Run(*fs, op).ok());
    model.Apply(op);
  }
  CheckCrashClone(*fs->CrashClone(DeathKind::kCrash, seed), model);
  auto lost = fs->CrashClone(DeathKind::kPowerLoss, seed);
  CheckPowerLossClone(*lost, model);
  // Deterministic for a seed, and a crash keeps what a later power loss would lose.
  RC_ASSERT(Snapshot(*fs->CrashClone(DeathKind::kPowerLoss, seed)) == Snapshot(*lost));
  auto crashed = fs->CrashClone(DeathKind::kCrash, seed);
  RC_ASSERT(Snapshot(*crashed->CrashClone(DeathKind::kPowerLoss, seed)) == Snapshot(*lost));
}

RC_GTEST_PROP(SimFsModelProperty, DeathAtAnyFaultPointFreezesTheWorldBeforeThatOperation, ()) {
  const auto ops = *rc::gen::container<std::vector<Op>>(GenOp());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const DeathKind kind = *rc::gen::element(DeathKind::kCrash, DeathKind::kPowerLoss);
  ScriptedHook hook;
  hook.target = *rc::gen::inRange<size_t>(0, 40);
  hook.decision = Decision::Die(kind);
  auto fs = NewWorld();
  fs->SetHook(&hook);
  Model model;
  bool died = false;
  for (const Op& op : ops) {
    try {
      RC_ASSERT(Run(*fs, op).ok());
    } catch (const CrashSignal& signal) {
      RC_ASSERT(signal.point == hook.points.back());
      died = true;
      break;
    }
    model.Apply(op);
  }
  if (!died) fs->Freeze(kind, "test.end");
  RC_ASSERT(fs->frozen());
  for (const Op& op : ops) {
    RC_ASSERT(Run(*fs, op).code() == StatusCode::kFailedPrecondition);
  }
  const size_t hits = hook.points.size();
  RC_ASSERT(hits <= *hook.target + 1);
  auto clone = fs->CrashClone(kind, seed);
  if (kind == DeathKind::kCrash) {
    CheckCrashClone(*clone, model);
  } else {
    CheckPowerLossClone(*clone, model);
  }
  RC_ASSERT(!clone->frozen());
  RC_ASSERT(Run(*clone, Op{Op::kSyncDir}).ok());  // the clone is alive and has no hook
  RC_ASSERT(hook.points.size() == hits);
}

// What the life runner's recordings rest on (properties/life_runner_internal.h, LifeRecording): a
// copy taken when the hook is asked at a point (sharing the files the last copy holds), in a run
// that goes on, is the world a death at that point would have frozen: every death drawn from
// either gives the same world, and the copies stay as they were taken while the source changes.
RC_GTEST_PROP(SimFsModelProperty, ACopyTakenAtAPointDiesLikeTheWorldFrozenThere, ()) {
  const auto ops = *rc::gen::container<std::vector<Op>>(GenOp());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const DeathKind kind =
      *rc::gen::element(DeathKind::kCrash, DeathKind::kPowerLoss, DeathKind::kExit);
  class CopyingHook final : public FaultHook {
   public:
    Decision OnPoint(std::string_view) override {
      copies.push_back(fs->CopySharing(&cache));
      RC_ASSERT(copies.back()->Digest() == fs->Digest());
      return Decision::Proceed();
    }
    SimFs* fs = nullptr;
    SimFs::CopyCache cache;
    std::vector<std::unique_ptr<SimFs>> copies;
  };
  auto recorded = NewWorld();
  CopyingHook copying;
  copying.fs = recorded.get();
  recorded->SetHook(&copying);
  for (const Op& op : ops) RC_ASSERT(Run(*recorded, op).ok());
  RC_PRE(!copying.copies.empty());
  const size_t target = *rc::gen::inRange<size_t>(0, copying.copies.size());
  ScriptedHook hook;
  hook.target = target;
  hook.decision = Decision::Die(kind);
  auto dying = NewWorld();
  dying->SetHook(&hook);
  try {
    for (const Op& op : ops) RC_ASSERT(Run(*dying, op).ok());
  } catch (const CrashSignal&) {
  }
  RC_ASSERT(dying->frozen());
  RC_ASSERT(copying.copies[target]->CrashClone(kind, seed)->Digest() ==
            dying->CrashClone(kind, seed)->Digest());
}

// What every reuse keyed on a digest rests on since the hashes are kept on the files
// (SimInode::Hashed): after any sequence of operations, damage and copies, with digests and file
// hashes taken between them (so kept hashes exist to go stale), the digest equals the one computed
// from scratch and each file's kept hash equals the hash of its bytes.
RC_GTEST_PROP(SimFsModelProperty, KeptHashesAlwaysEqualHashesComputedFromScratch, ()) {
  const auto ops = *rc::gen::container<std::vector<Op>>(GenOp());
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  auto fs = NewWorld();
  SimFs::CopyCache cache;
  std::vector<std::unique_ptr<SimFs>> worlds;
  auto check = [](SimFs& world) {
    RC_ASSERT(world.Digest() == world.DigestFromScratch());
    for (const std::string& path : world.ListAllFiles()) {
      Result<std::string> bytes = world.ReadFile(path);
      RC_ASSERT(bytes.ok());
      RC_ASSERT(*world.ReadFileHash(path) == HashBytes(*bytes));
    }
  };
  for (const Op& op : ops) {
    RC_ASSERT(Run(*fs, op).ok());
    check(*fs);
    const std::vector<std::string> files = fs->ListAllFiles();
    switch (*rc::gen::inRange(0, 6)) {
      case 0:
        worlds.push_back(fs->CopySharing(&cache));
        break;
      case 1:
        worlds.push_back(
            fs->CrashClone(*rc::gen::element(DeathKind::kCrash, DeathKind::kPowerLoss), seed));
        break;
      case 2:
        if (!files.empty()) {
          const std::string& path = files[*rc::gen::inRange<size_t>(0, files.size())];
          const uint64_t size = *fs->GetFileSize(path);
          if (size > 0) {
            const uint64_t at = *rc::gen::inRange<uint64_t>(0, size);
            RC_ASSERT((*rc::gen::inRange(0, 3) == 0   ? fs->FlipBit(path, at * 8)
                       : *rc::gen::inRange(0, 2) == 0 ? fs->TruncateTo(path, at)
                                                      : fs->ZeroRange(path, at, 3))
                          .ok());
          }
        }
        break;
      default:
        break;
    }
    check(*fs);
  }
  for (auto& world : worlds) {
    check(*world);
    // A clone of a copy, written: its files stop sharing what the copy kept.
    auto alive = world->CrashClone(DeathKind::kCrash, seed);
    for (const std::string& path : alive->ListAllFiles()) {
      auto file = alive->NewAppendableFile(path);
      RC_ASSERT(file.ok() && (*file)->Append("x").ok());
    }
    check(*alive);
    check(*world);
  }
}

}  // namespace
}  // namespace stepfault::faults
