// FileCheckpointStore beyond the conformance suite: the on-disk layout, directory ownership, and
// recovery from damaged files.
// Method: real directories on PosixEnv; damage is done with std::filesystem between lives
// (truncate, flip every byte, empty, leftover temp); the reopened store must give a typed error or
// a documented recovery, and must never return bytes other than the ones committed.
#include "engine/stores/file_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/crc32c.h"
#include "engine/stores/delta_chain_test_util.h"
#include "engine/topology_record.h"
#include "tools/testing/test_env.h"

namespace stepfault {
namespace {

namespace fs = std::filesystem;

std::string Doc(int n) {
  return nlohmann::json{{"n", n}, {"text", "caf\u00e9 " + std::to_string(n)}}.dump();
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void WriteAll(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << bytes;
}

class FileStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = test_env::ScratchDir("file-store");
    dir_ = (root_ / "store").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  std::unique_ptr<FileCheckpointStore> Open(FileStoreOptions options = {}) {
    auto store = FileCheckpointStore::Open(PosixEnv(), dir_, options);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  // Commits `count` chained checkpoints in session "s"; returns their infos.
  std::vector<CheckpointInfo> CommitChain(CheckpointStore& store, int count) {
    std::vector<CheckpointInfo> infos;
    for (int i = 0; i < count; ++i) {
      std::optional<CheckpointInfo> parent;
      if (!infos.empty()) parent = infos.back();
      auto info = store.Commit("s", Doc(i), parent);
      EXPECT_TRUE(info.ok()) << info.status().ToString();
      if (info.ok()) infos.push_back(*info);
    }
    return infos;
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  fs::path root_;
  std::string dir_;
};

TEST_F(FileStoreTest, EachCheckpointIsOneSealedReadableFileNamedBySeqAndId) {
  auto store = Open({.seed = 3});
  ASSERT_NE(store, nullptr);
  auto infos = CommitChain(*store, 2);
  ASSERT_EQ(infos.size(), 2u);
  EXPECT_EQ(Files(),
            (std::vector<std::string>{"0000000001-" + infos[0].checkpoint_id + ".json",
                                      "0000000002-" + infos[1].checkpoint_id + ".json", "LOCK"}));
  const std::string content =
      ReadAll(fs::path(dir_) / FileCheckpointStore::FileNameFor(2, infos[1].checkpoint_id));
  const size_t newline = content.find('\n');
  ASSERT_NE(newline, std::string::npos);
  auto header = nlohmann::json::parse(content.substr(0, newline));
  EXPECT_EQ(header.dump(), content.substr(0, newline));  // canonical, one line
  EXPECT_EQ(header["format"], "stepfault.checkpoint-file");
  EXPECT_EQ(header["version"], 2);
  EXPECT_EQ(header["seq"], 2);
  EXPECT_EQ(header["session_id"], "s");
  EXPECT_EQ(header["checkpoint_id"], infos[1].checkpoint_id);
  EXPECT_EQ(header["parent_checkpoint_id"], infos[0].checkpoint_id);
  EXPECT_EQ(content.substr(newline + 1), Doc(1));  // the committed bytes, unchanged
  EXPECT_EQ(header["checkpoint_bytes"], Doc(1).size());
  EXPECT_EQ(header["checkpoint_crc32c"], Crc32cTag(Doc(1)));
  const std::string checksum = header["checksum"];
  header.erase("checksum");
  EXPECT_EQ(checksum, Crc32cTag(header.dump()));
  auto record = DecodeCheckpointFile(content);
  ASSERT_TRUE(record.ok()) << record.status().ToString();
  EXPECT_EQ(record->seq, 2u);
  EXPECT_EQ(record->entry.info, infos[1]);
  EXPECT_EQ(record->checkpoint, Doc(1));
}

// The framed codec's bytes are kept verbatim (not re-serialised) and read back through the public
// decoder and its JSON view, which oracles use.
TEST_F(FileStoreTest, FramedCheckpointIsStoredVerbatimAndReadableAsJson) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  Checkpoint c;
  c.session_id = "s";
  c.step_number = 4;
  // The smallest topology signature the decoder accepts (it validates what the engine reads).
  c.workflow = nlohmann::json::parse(
      R"({"start":"a","executors":{"a":{"type":"A"}},"edges":[],"ports":[],"outputs":[]})");
  c.state["executor:a"]["text"] = std::string(5000, 'q');
  const std::string bytes = EncodeCheckpoint(c);
  auto info = store->Commit("s", bytes, std::nullopt);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(store->Retrieve(*info).value(), bytes);
  const std::string content =
      ReadAll(fs::path(dir_) / FileCheckpointStore::FileNameFor(1, info->checkpoint_id));
  EXPECT_EQ(content.substr(content.size() - bytes.size()), bytes);
  nlohmann::json view = CheckpointFileAsJson(content);
  ASSERT_FALSE(view.is_discarded());
  EXPECT_EQ(view["checkpoint"]["body"]["state"]["executor:a"]["text"], std::string(5000, 'q'));
  EXPECT_EQ(view["checkpoint_id"], info->checkpoint_id);
  std::string damaged = content;
  damaged[damaged.size() - 100] ^= 1;
  EXPECT_TRUE(CheckpointFileAsJson(damaged).is_discarded());
  EXPECT_EQ(DecodeCheckpointFile(damaged).status().code(), StatusCode::kCorruption);
  store.reset();
  store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Retrieve(*info).value(), bytes);
}

// Commit takes a framed checkpoint's CRC from its own seal (committed_crc.h) instead of reading
// the bytes again: bytes that disagree with their seal must then read as damaged, never as the
// committed checkpoint, in this life and after a reopen; an intact one beside them still reads.
TEST_F(FileStoreTest, FramedBytesThatDisagreeWithTheirSealReadAsDamagedNeverAsACheckpoint) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  const auto [intact, damaged] = testing::FramedCheckpointAndSealBreak(5000);
  auto good = store->Commit("s", intact, std::nullopt);
  ASSERT_TRUE(good.ok()) << good.status().ToString();
  auto bad = store->Commit("s", damaged, *good);
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_EQ(store->Retrieve(*bad).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store->Retrieve(*good).value(), intact);
  store.reset();
  store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->Retrieve(*bad).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store->damaged_files().size(), 1u);
  EXPECT_EQ(store->Retrieve(*good).value(), intact);
}

// engine/testdata/file_store_v1 was written by the previous (version-1 envelope) file store.
// The manager hands checkpoints over as parts (EncodedCheckpoint); the store writes the header
// line and the parts with one gathered write. The file must be the one Commit writes for the
// joined bytes, also with more parts than one writev takes (IOV_MAX, 1024 on Linux), and parts
// that are not a framed checkpoint are canonicalised like Commit's bytes.
TEST_F(FileStoreTest, CommitPartsStoresExactlyTheFileCommitStoresForTheJoinedBytes) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = 1;
  c.workflow = nlohmann::json::object();
  for (int i = 0; i < 1500; ++i) {
    c.state["executor:a"]["k" + std::to_string(i)] =
        std::string(130 + i % 7, static_cast<char>('a' + i % 26));
  }
  const EncodedCheckpoint encoded = EncodeCheckpointParts(c);
  const std::vector<std::string_view> parts = encoded.Parts();
  ASSERT_GT(parts.size(), 1024u);
  const std::string joined = encoded.Join();
  const std::string framed_cut_in_magic = joined.substr(0, 5);
  const std::vector<std::string_view> json_parts = {"{\"n\":", " 1, \"a\": 2}"};
  const std::vector<std::string_view> magic_parts = {framed_cut_in_magic,
                                                     std::string_view(joined).substr(5)};
  const std::string joined_dir = (root_ / "joined").string();
  {
    auto gathered = Open({.seed = 5});
    auto whole = FileCheckpointStore::Open(PosixEnv(), joined_dir, {.seed = 5});
    ASSERT_NE(gathered, nullptr);
    ASSERT_TRUE(whole.ok());
    auto a = gathered->CommitParts("s", parts, std::nullopt);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(gathered->CommitParts("s", json_parts, *a).ok());
    ASSERT_TRUE(gathered->CommitParts("s", magic_parts, *a).ok());
    ASSERT_TRUE((*whole)->Commit("s", joined, std::nullopt).ok());
    ASSERT_TRUE((*whole)->Commit("s", R"({"n": 1, "a": 2})", *a).ok());
    ASSERT_TRUE((*whole)->Commit("s", joined, *a).ok());
    auto back = gathered->Retrieve(*a);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, joined);
  }
  std::vector<std::string> names = Files();
  names.erase(std::remove(names.begin(), names.end(), "LOCK"), names.end());
  ASSERT_EQ(names.size(), 3u);
  for (const std::string& name : names) {
    EXPECT_EQ(ReadAll(fs::path(dir_) / name), ReadAll(fs::path(joined_dir) / name)) << name;
  }
  auto reopened = Open({.seed = 5});
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(reopened->damaged_files().empty());
}

TEST_F(FileStoreTest, GoldenVersion1DirectoryStillOpensAndReads) {
  const fs::path root(test_env::SourceDir());
  fs::create_directories(dir_);
  for (const auto& e : fs::directory_iterator(root / "engine" / "testdata" / "file_store_v1")) {
    fs::copy_file(e.path(), fs::path(dir_) / e.path().filename());
  }
  auto store = Open({.seed = 7});
  ASSERT_NE(store, nullptr);
  EXPECT_TRUE(store->damaged_files().empty());
  auto index = store->Index("s1");
  ASSERT_TRUE(index.ok());
  ASSERT_EQ(index->size(), 2u);
  EXPECT_EQ((*index)[1].parent_checkpoint_id, (*index)[0].info.checkpoint_id);
  EXPECT_EQ(store->Retrieve((*index)[1].info).value(), R"({"n":2})");
  auto first = DecodeCheckpoint(store->Retrieve((*index)[0].info).value());
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->step_number, 3);
  // A new commit goes after them, in version 2.
  auto next = store->Commit("s1", Doc(9), (*index)[1].info);
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(store->Retrieve(*next).value(), Doc(9));
}

TEST_F(FileStoreTest, IdsAreAPureFunctionOfSeedSessionAndSequence) {
  std::vector<std::string> first, second, other_seed;
  for (auto* ids : {&first, &second}) {
    fs::remove_all(dir_);
    auto store = Open({.seed = 11});
    ASSERT_NE(store, nullptr);
    for (const CheckpointInfo& info : CommitChain(*store, 3)) ids->push_back(info.checkpoint_id);
  }
  fs::remove_all(dir_);
  auto store = Open({.seed = 12});
  ASSERT_NE(store, nullptr);
  for (const CheckpointInfo& info : CommitChain(*store, 3))
    other_seed.push_back(info.checkpoint_id);
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other_seed);
}

TEST_F(FileStoreTest, SessionIdsNeverReachFileNames) {
  // The store two levels below the scratch root, so that every place "../../x" could reach is
  // this test's own (the scratch root's parent is shared with every other program).
  fs::create_directories(root_ / "a");
  dir_ = (root_ / "a" / "store").string();
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (const std::string session : {"../../x", "/", "/etc/passwd", "a/../../b", "日本語/🙂"}) {
    auto info = store->Commit(session, Doc(1), std::nullopt);
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    auto bytes = store->Retrieve(*info);
    ASSERT_TRUE(bytes.ok());
    EXPECT_EQ(*bytes, Doc(1));
  }
  EXPECT_FALSE(fs::exists(root_ / "a" / "x"));
  EXPECT_FALSE(fs::exists(root_ / "x"));
  for (const std::string& name : Files()) {
    EXPECT_TRUE(name == "LOCK" ||
                (name.size() == 10 + 1 + 32 + 5 && name.find('/') == std::string::npos))
        << name;
  }
}

TEST_F(FileStoreTest, CommitRejectsBytesThatAreNotJsonAndForeignParents) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  for (std::string_view bad : {"", "{", "not json", "{\"a\":1} trailing", "\xff\xfe"}) {
    auto r = store->Commit("s", bad, std::nullopt);
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  auto root = store->Commit("s", Doc(0), std::nullopt);
  ASSERT_TRUE(root.ok());
  EXPECT_EQ(store->Commit("t", Doc(1), *root).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Commit("", Doc(1), std::nullopt).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Files().size(), 2u) << "a rejected commit must leave no file";
}

TEST_F(FileStoreTest, SecondStoreOnTheSameDirectoryIsRefusedWithBusy) {
  auto first = Open();
  ASSERT_NE(first, nullptr);
  auto second = FileCheckpointStore::Open(PosixEnv(), dir_, {});
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kBusy);
  EXPECT_NE(second.status().message().find("is in use by another store"), std::string::npos)
      << second.status().message();
  first.reset();
  EXPECT_NE(Open(), nullptr) << "the lock must be released with the first store";
}

TEST_F(FileStoreTest, LeftoverTempFilesAreRemovedOnOpenAndNeverListed) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    infos = CommitChain(*store, 2);
  }
  // What an interrupted WriteFileAtomically leaves: a temp of the next checkpoint, whole or torn.
  const std::string next = FileCheckpointStore::FileNameFor(3, std::string(32, 'a'));
  WriteAll(fs::path(dir_) / (next + ".tmp"), "{\"format\":\"stepf");
  WriteAll(fs::path(dir_) / "0000000004-x.json.tmp", "");
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(Files().size(), 3u) << "two checkpoints and LOCK";
  auto index = store->Index("s");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->size(), 2u);
  EXPECT_TRUE(store->damaged_files().empty());
}

// Every single-byte flip, and truncations, of one checkpoint file: the reopened store either
// reports that file as damaged (kCorruption from Retrieve, not indexed) or returns the exact bytes.
TEST_F(FileStoreTest, DamagedCheckpointFileIsReportedAndNeverLoaded) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    infos = CommitChain(*store, 3);
  }
  const fs::path victim =
      fs::path(dir_) / FileCheckpointStore::FileNameFor(2, infos[1].checkpoint_id);
  const std::string original = ReadAll(victim);
  std::vector<std::pair<std::string, std::string>> damages;  // (what, bytes)
  for (size_t i = 0; i < original.size(); ++i) {
    std::string flipped = original;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    damages.emplace_back("flip byte " + std::to_string(i), flipped);
  }
  for (size_t len : {size_t{0}, size_t{1}, original.size() / 2, original.size() - 2}) {
    damages.emplace_back("truncate to " + std::to_string(len), original.substr(0, len));
  }
  int detected = 0;
  for (const auto& [what, bytes] : damages) {
    WriteAll(victim, bytes);
    auto store = Open();
    ASSERT_NE(store, nullptr) << what;
    for (size_t i = 0; i < infos.size(); ++i) {
      auto r = store->Retrieve(infos[i]);
      if (i != 1) {
        ASSERT_TRUE(r.ok()) << what << ": an undamaged file was lost";
        EXPECT_EQ(*r, Doc(static_cast<int>(i)));
        continue;
      }
      if (r.ok()) {
        EXPECT_EQ(*r, Doc(1)) << what << ": wrong bytes loaded silently";
      } else {
        ++detected;
        EXPECT_EQ(r.status().code(), StatusCode::kCorruption)
            << what << ": " << r.status().ToString();
        EXPECT_EQ(store->damaged_files().size(), 1u) << what;
        auto index = store->Index("s");
        ASSERT_TRUE(index.ok());
        EXPECT_EQ(index->size(), 2u) << what << ": a damaged file was indexed";
      }
    }
  }
  EXPECT_EQ(detected, static_cast<int>(damages.size())) << "every flip and truncation is visible";
  WriteAll(victim, original);
}

TEST_F(FileStoreTest, FileWhoseContentDisagreesWithItsNameIsDamaged) {
  std::vector<CheckpointInfo> infos;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    infos = CommitChain(*store, 1);
  }
  // A correctly sealed file copied under another seq: must not be loaded twice.
  fs::copy_file(fs::path(dir_) / FileCheckpointStore::FileNameFor(1, infos[0].checkpoint_id),
                fs::path(dir_) / FileCheckpointStore::FileNameFor(7, infos[0].checkpoint_id));
  auto store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_EQ(store->damaged_files().size(), 1u);
  EXPECT_NE(store->damaged_files()[0].find("disagree with its name"), std::string::npos);
  auto index = store->Index("s");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->size(), 1u);
  // New commits never reuse a sequence number seen on disk, damaged or not.
  auto next = store->Commit("s", Doc(9), std::nullopt);
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(
      fs::exists(fs::path(dir_) / FileCheckpointStore::FileNameFor(8, next->checkpoint_id)));
}

// The hazard mode reproduces the upstream file store: index.jsonl is the truth, a torn index line
// fails Open, and an index entry whose file never got its bytes is listed but unreadable.
TEST_F(FileStoreTest, InPlaceHazardTornIndexLineFailsOpenWithIndexCorrupted) {
  const FileStoreOptions hazard{.hazard_in_place_write = true};
  {
    auto store = Open(hazard);
    ASSERT_NE(store, nullptr);
    CommitChain(*store, 2);
  }
  const fs::path index = fs::path(dir_) / FileCheckpointStore::kIndexFileName;
  const std::string original = ReadAll(index);
  for (size_t len : {original.size() - 1, original.size() / 2, original.size() - 5}) {
    WriteAll(index, original.substr(0, len));
    auto store = FileCheckpointStore::Open(PosixEnv(), dir_, hazard);
    ASSERT_FALSE(store.ok()) << "truncated to " << len;
    EXPECT_EQ(store.status().code(), StatusCode::kCorruption);
    EXPECT_NE(store.status().message().find("index corrupted"), std::string::npos);
  }
  WriteAll(index, original + "\n");  // an empty line is unparsable too
  EXPECT_EQ(FileCheckpointStore::Open(PosixEnv(), dir_, hazard).status().code(),
            StatusCode::kCorruption);
  WriteAll(index, "");  // documented: an empty index is an empty store
  auto empty = Open(hazard);
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->Index("s")->empty());
}

TEST_F(FileStoreTest, InPlaceHazardListsCheckpointsWhoseBytesNeverLanded) {
  const FileStoreOptions hazard{.hazard_in_place_write = true};
  std::vector<CheckpointInfo> infos;
  {
    auto store = Open(hazard);
    ASSERT_NE(store, nullptr);
    infos = CommitChain(*store, 3);
  }
  const fs::path dir(dir_);
  WriteAll(dir / FileCheckpointStore::FileNameFor(1, infos[0].checkpoint_id), "");
  const std::string second =
      ReadAll(dir / FileCheckpointStore::FileNameFor(2, infos[1].checkpoint_id));
  WriteAll(dir / FileCheckpointStore::FileNameFor(2, infos[1].checkpoint_id), second.substr(0, 20));
  fs::remove(dir / FileCheckpointStore::FileNameFor(3, infos[2].checkpoint_id));
  auto store = Open(hazard);
  ASSERT_NE(store, nullptr);
  auto index = store->Index("s");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->size(), 3u) << "the index still lists all three";
  EXPECT_EQ(store->Retrieve(infos[0]).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store->Retrieve(infos[1]).status().code(), StatusCode::kCorruption);
  EXPECT_EQ(store->Retrieve(infos[2]).status().code(), StatusCode::kNotFound);
}

TEST_F(FileStoreTest, InPlaceHazardIndexByteFlipsGiveTypedErrorsOrExactBytes) {
  const FileStoreOptions hazard{.hazard_in_place_write = true};
  std::vector<CheckpointInfo> infos;
  {
    auto store = Open(hazard);
    ASSERT_NE(store, nullptr);
    infos = CommitChain(*store, 2);
  }
  const fs::path index = fs::path(dir_) / FileCheckpointStore::kIndexFileName;
  const std::string original = ReadAll(index);
  for (size_t i = 0; i < original.size(); ++i) {
    std::string flipped = original;
    flipped[i] = static_cast<char>(flipped[i] ^ 0x01);
    WriteAll(index, flipped);
    auto store = FileCheckpointStore::Open(PosixEnv(), dir_, hazard);
    if (!store.ok()) {
      EXPECT_EQ(store.status().code(), StatusCode::kCorruption) << "flip " << i;
      continue;
    }
    for (size_t k = 0; k < infos.size(); ++k) {
      auto r = (*store)->Retrieve(infos[k]);
      if (r.ok()) {
        EXPECT_EQ(*r, Doc(static_cast<int>(k))) << "flip " << i;
      } else {
        EXPECT_TRUE(r.status().code() == StatusCode::kNotFound ||
                    r.status().code() == StatusCode::kCorruption)
            << "flip " << i << ": " << r.status().ToString();
      }
    }
  }
}

// A damaged base of a kept delta (incremental checkpoints, K = 3: c0 full, c1 c2 deltas, c3 full,
// c4 c5 deltas). The file of c4 (the base of c5) or of c3 (the full snapshot under c4 and c5) is
// truncated, has a byte flipped, or is deleted between lives: restoring c5 is kCorruption naming
// the broken link, and the host's fallback goes past every checkpoint of the broken chain to the
// newest one whose chain is intact, with exactly the committed content.
TEST_F(FileStoreTest, DamagedBaseOfAKeptDeltaIsCorruptionNamingTheLinkAndTheFallbackPassesIt) {
  testing::DeltaChain chain;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    chain = testing::CommitDeltaChain(*store, 6);
  }
  ASSERT_EQ(chain.infos.size(), 6u);
  for (const testing::DamagedBaseCase& k : testing::kDamagedBaseCases) {
    const CheckpointInfo& victim_info = chain.infos[static_cast<size_t>(k.victim)];
    const fs::path victim =
        fs::path(dir_) / FileCheckpointStore::FileNameFor(static_cast<uint64_t>(k.victim) + 1,
                                                          victim_info.checkpoint_id);
    const std::string original = ReadAll(victim);
    ASSERT_FALSE(original.empty()) << victim;
    const std::vector<std::pair<std::string, std::string>> damages = {
        {"truncated", original.substr(0, original.size() / 2)},
        {"flipped",
         [&] {
           std::string b = original;
           b[b.size() / 2] = static_cast<char>(b[b.size() / 2] ^ 0x20);
           return b;
         }()},
        {"deleted", ""}};
    for (const auto& [what, bytes] : damages) {
      const std::string label = "c" + std::to_string(k.victim) + " " + what;
      if (what == "deleted") {
        fs::remove(victim);
      } else {
        WriteAll(victim, bytes);
      }
      auto store = Open();
      ASSERT_NE(store, nullptr) << label;
      testing::ExpectDamagedBaseFailsTypedAndFallbackLands(*store, chain, k, label);
      store.reset();
      WriteAll(victim, original);
    }
  }
}

// Issue 27: the topology record is one file, record-<key>.rec, written like a checkpoint (no
// temp left, the bytes exactly the record's); a checkpoint that refers to it restores through a
// reopened store and a fresh manager (a new process); a truncated or removed record file is
// kCorruption naming the record; the in-place-write hazard store keeps the signature inline.
TEST_F(FileStoreTest, TheTopologyRecordIsOneFileThatReopenedStoresResolveAndDamageIsCorruption) {
  Checkpoint c;
  c.session_id = "s";
  c.workflow = Json::parse(
      R"({"start":"a","executors":{"a":{"type":"A"}},"edges":[],"ports":[],"outputs":[]})");
  c.instantiated = std::vector<std::string>{"a"};
  const std::string key = TopologyRecordKey(*c.workflow);
  CheckpointInfo info;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    StoreCheckpointManager manager(store.get());
    info = *manager.Commit(c);
  }
  const fs::path record = fs::path(dir_) / FileCheckpointStore::RecordFileName(key);
  ASSERT_TRUE(fs::exists(record));
  EXPECT_EQ(ReadAll(record), EncodeTopologyRecord(*c.workflow));
  for (const std::string& name : Files()) EXPECT_FALSE(name.ends_with(".tmp")) << name;
  {
    auto store = Open();
    ASSERT_NE(store, nullptr);
    auto got = StoreCheckpointManager(store.get()).Lookup(info);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*(*got)->workflow, *c.workflow);
    EXPECT_TRUE(CheckpointsEqual(**got, c));
  }
  const std::string intact = ReadAll(record);
  for (bool remove : {false, true}) {
    if (remove) {
      fs::remove(record);
    } else {
      WriteAll(record, intact.substr(0, intact.size() - 3));
    }
    auto store = Open();
    ASSERT_NE(store, nullptr);
    auto got = StoreCheckpointManager(store.get()).Lookup(info);
    ASSERT_FALSE(got.ok());
    EXPECT_EQ(got.status().code(), StatusCode::kCorruption) << got.status().ToString();
    EXPECT_NE(got.status().message().find(key), std::string::npos) << got.status().ToString();
  }
  fs::remove_all(dir_);
  auto hazard = Open({.hazard_in_place_write = true});
  ASSERT_NE(hazard, nullptr);
  EXPECT_FALSE(hazard->SupportsRecords());
  auto inline_info = StoreCheckpointManager(hazard.get()).Commit(c);
  ASSERT_TRUE(inline_info.ok());
  EXPECT_EQ(hazard->Retrieve(*inline_info)->find("workflow_ref"), std::string::npos);
  EXPECT_FALSE(fs::exists(record));
}

}  // namespace
}  // namespace stepfault
