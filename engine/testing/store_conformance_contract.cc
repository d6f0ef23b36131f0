// Conformance: the read/write contract of a CheckpointStore.
// Method: commit known documents across sessions and branches, then check ids, bytes, order,
// filters, Latest, reopen, bad ids and concurrent readers against what was committed.
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "engine/checkpoint.h"
#include "engine/testing/store_conformance_internal.h"

namespace stepfault::testing {

int ContractTestsAnchor() { return 0; }

TEST_P(StoreConformanceTest, CommitReturnsFreshIdsAndRetrieveReturnsExactBytes) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  std::set<std::string> ids;
  std::optional<CheckpointInfo> parent;
  std::vector<CheckpointInfo> infos;
  for (int i = 0; i < 6; ++i) {
    CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info, CommitDoc(*store, "session-1", i, parent));
    EXPECT_EQ(info.session_id, "session-1");
    EXPECT_FALSE(info.checkpoint_id.empty());
    EXPECT_TRUE(ids.insert(info.checkpoint_id).second) << "id reused: " << info.checkpoint_id;
    infos.push_back(info);
    parent = info;
  }
  for (int i = 0; i < 6; ++i) {
    CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(infos[i]));
    EXPECT_EQ(bytes, Doc(i, "session-1"));
  }
}

TEST_P(StoreConformanceTest, IndexListsEachSessionInCommitOrder) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  std::map<std::string, std::vector<StoreEntry>> expected;
  const std::vector<std::string> sessions = {"b", "a", "c", "a", "b", "a", "c"};
  for (size_t i = 0; i < sessions.size(); ++i) {
    const std::string& s = sessions[i];
    std::optional<CheckpointInfo> parent;
    if (!expected[s].empty()) parent = expected[s].back().info;
    CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info,
                              CommitDoc(*store, s, static_cast<int>(i), parent));
    StoreEntry e;
    e.info = info;
    if (parent) e.parent_checkpoint_id = parent->checkpoint_id;
    expected[s].push_back(e);
  }
  for (const auto& [session, entries] : expected) {
    CONF_ASSERT_OK_AND_ASSIGN(std::vector<StoreEntry> index, store->Index(session));
    EXPECT_EQ(index, entries) << "session " << session;
  }
  CONF_ASSERT_OK_AND_ASSIGN(std::vector<StoreEntry> none, store->Index("no-such-session"));
  EXPECT_TRUE(none.empty());
}

TEST_P(StoreConformanceTest, IndexWithParentListsOnlyThatCheckpointsChildren) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo root, CommitDoc(*store, "s", 0, std::nullopt));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo c1, CommitDoc(*store, "s", 1, root));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo other, CommitDoc(*store, "t", 2, std::nullopt));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo c2, CommitDoc(*store, "s", 3, root));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo g, CommitDoc(*store, "s", 4, c1));
  CONF_ASSERT_OK_AND_ASSIGN(auto of_root, store->Index("s", root));
  EXPECT_EQ(Infos(of_root), (std::vector<CheckpointInfo>{c1, c2}));
  CONF_ASSERT_OK_AND_ASSIGN(auto of_c1, store->Index("s", c1));
  EXPECT_EQ(Infos(of_c1), (std::vector<CheckpointInfo>{g}));
  ASSERT_EQ(of_c1.size(), 1u);
  EXPECT_EQ(of_c1[0].parent_checkpoint_id, c1.checkpoint_id);
  CONF_ASSERT_OK_AND_ASSIGN(auto of_leaf, store->Index("s", g));
  EXPECT_TRUE(of_leaf.empty());
  CONF_ASSERT_OK_AND_ASSIGN(auto of_unknown, store->Index("s", CheckpointInfo{"s", "nope"}));
  EXPECT_TRUE(of_unknown.empty());
  CONF_ASSERT_OK_AND_ASSIGN(auto of_other, store->Index("t", root));
  EXPECT_TRUE(of_other.empty()) << "session t has no child of " << root.ToString();
  (void)other;
}

TEST_P(StoreConformanceTest, LatestIsTheLastCommitOfTheSession) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  CONF_ASSERT_OK_AND_ASSIGN(auto empty, store->Latest("s"));
  EXPECT_FALSE(empty.has_value());
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo a, CommitDoc(*store, "s", 0, std::nullopt));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo b, CommitDoc(*store, "s", 1, a));
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo other, CommitDoc(*store, "t", 2, std::nullopt));
  CONF_ASSERT_OK_AND_ASSIGN(auto latest_s, store->Latest("s"));
  EXPECT_EQ(latest_s, b);
  CONF_ASSERT_OK_AND_ASSIGN(auto latest_t, store->Latest("t"));
  EXPECT_EQ(latest_t, other);
}

TEST_P(StoreConformanceTest, ReopenKeepsEveryCheckpointAndItsOrder) {
  if (!GetParam().durable) GTEST_SKIP() << GetParam().name << " is not durable";
  std::map<std::string, std::vector<StoreEntry>> expected;
  std::map<CheckpointInfo, std::string> docs;
  std::set<std::string> ids;
  int n = 0;
  for (int life = 0; life < 3; ++life) {
    auto store = OpenStore(dir());
    ASSERT_NE(store, nullptr);
    for (const auto& [session, entries] : expected) {
      CONF_ASSERT_OK_AND_ASSIGN(auto index, store->Index(session));
      EXPECT_EQ(index, entries) << "life " << life << " session " << session;
    }
    for (const auto& [info, doc] : docs) {
      CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(info));
      EXPECT_EQ(bytes, doc);
    }
    for (const std::string session : {"x", "y", "x"}) {
      std::optional<CheckpointInfo> parent;
      if (!expected[session].empty()) parent = expected[session].back().info;
      CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info, CommitDoc(*store, session, n, parent));
      EXPECT_TRUE(ids.insert(info.checkpoint_id).second) << "id reused after reopen";
      StoreEntry e;
      e.info = info;
      if (parent) e.parent_checkpoint_id = parent->checkpoint_id;
      expected[session].push_back(e);
      docs[info] = Doc(n++, session);
    }
  }
}

// Framed (version-2) checkpoints are opaque bytes to a store: kept byte for byte (not
// re-serialised) across a reopen, and they still decode to the checkpoint that was encoded.
TEST_P(StoreConformanceTest, FramedCheckpointsAreKeptByteForByteAcrossReopen) {
  std::vector<std::pair<CheckpointInfo, std::string>> committed;
  for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
    auto store = OpenStore(dir());
    ASSERT_NE(store, nullptr);
    for (const auto& [info, bytes] : committed) {
      CONF_ASSERT_OK_AND_ASSIGN(std::string got, store->Retrieve(info));
      EXPECT_EQ(got, bytes) << "life " << life;
    }
    std::optional<CheckpointInfo> parent;
    if (!committed.empty()) parent = committed.back().first;
    for (int i = 0; i < 3; ++i) {
      Checkpoint c;
      c.session_id = "framed";
      c.step_number = life * 3 + i;
      // The smallest topology signature the decoder accepts (it validates what the engine reads).
      c.workflow = Json::parse(
          R"({"start":"a","executors":{"a":{"type":"A"}},"edges":[],"ports":[],"outputs":[]})");
      c.state["executor:a"]["big"] =
          std::string(1000 + 97 * i, static_cast<char>('a' + i)) + "\"\n";
      c.state["executor:a"]["small"] = Doc(i, "framed");
      // Raw bytes a text column or a C string would cut: NUL and invalid UTF-8 inside a blob.
      c.state["executor:a"]["binary"] = std::string(200, 'b') + std::string("\0\xff\x01", 3) + "e";
      c.parent = parent;
      const std::string bytes = EncodeCheckpoint(c);
      CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info, store->Commit("framed", bytes, parent));
      CONF_ASSERT_OK_AND_ASSIGN(std::string got, store->Retrieve(info));
      EXPECT_EQ(got, bytes);
      auto decoded = DecodeCheckpoint(got);
      CONF_ASSERT_OK(decoded);
      EXPECT_EQ(decoded->state, c.state);
      committed.emplace_back(info, bytes);
      parent = info;
    }
  }
}

TEST_P(StoreConformanceTest, BadIdsAreNotFoundNeverACrash) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo real, CommitDoc(*store, "s", 0, std::nullopt));
  const std::vector<CheckpointInfo> bad = {
      {"unknown-session", real.checkpoint_id},
      {"s", "0123456789abcdef0123456789abcdef"},
      {"s", ""},
      {"", ""},
      {"", real.checkpoint_id},
      {"s", "../x"},
      {"../s", "../../etc/passwd"},
      {"s", "/"},
      {"s", "x/../../y"},
      {"s", std::string(5000, 'a')},
      {std::string(5000, 's'), real.checkpoint_id},
      {"s", real.checkpoint_id + ".json"},
      {"s", "%00' OR 1=1 --"},
  };
  for (const CheckpointInfo& info : bad) {
    auto r = store->Retrieve(info);
    ASSERT_FALSE(r.ok()) << info.ToString().substr(0, 80);
    EXPECT_EQ(r.status().code(), StatusCode::kNotFound)
        << info.ToString().substr(0, 80) << ": " << r.status().ToString();
    auto index = store->Index(info.session_id, info);
    if (index.ok()) {
      EXPECT_TRUE(index->empty()) << info.ToString().substr(0, 80);
    }
  }
  CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(real));
  EXPECT_EQ(bytes, Doc(0, "s"));
}

TEST_P(StoreConformanceTest, WeirdSessionIdsRoundTrip) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  const std::vector<std::string> sessions = {
      "../../x", "/",           "a/b\\c",   "séance-日本-🙂", "..", ".",
      "LOCK",    "index.jsonl", " spaced ", std::string(300, 'z')};
  std::vector<CheckpointInfo> infos;
  for (size_t i = 0; i < sessions.size(); ++i) {
    CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info,
                              CommitDoc(*store, sessions[i], static_cast<int>(i), std::nullopt));
    infos.push_back(info);
  }
  for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
    if (life == 1) {
      store.reset();
      store = OpenStore(dir());
      ASSERT_NE(store, nullptr);
    }
    for (size_t i = 0; i < sessions.size(); ++i) {
      CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(infos[i]));
      EXPECT_EQ(bytes, Doc(static_cast<int>(i), sessions[i]));
      CONF_ASSERT_OK_AND_ASSIGN(auto index, store->Index(sessions[i]));
      EXPECT_EQ(Infos(index), std::vector<CheckpointInfo>{infos[i]});
    }
  }
}

// One writer commits while readers list and retrieve; afterwards every snapshot a reader saw must
// be a prefix of the final index and every document it read must be the committed one.
TEST_P(StoreConformanceTest, ConcurrentReadersSeeOnlyLegitimateResults) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  constexpr int kCommits = 24;
  constexpr int kReaders = 3;
  constexpr int kReaderIterationsMax = 100000;
  std::atomic<bool> done{false};
  std::mutex mu;
  std::vector<std::vector<CheckpointInfo>> snapshots;
  std::vector<std::pair<CheckpointInfo, std::string>> reads;
  std::vector<std::string> errors;
  auto reader = [&] {
    for (int i = 0; i < kReaderIterationsMax && !done.load(); ++i) {
      auto index = store->Index("s");
      std::lock_guard<std::mutex> lock(mu);
      if (!index.ok()) {
        errors.push_back(index.status().ToString());
        continue;
      }
      snapshots.push_back(Infos(*index));
      if (index->empty()) continue;
      const CheckpointInfo& pick = (*index)[static_cast<size_t>(i) % index->size()].info;
      auto bytes = store->Retrieve(pick);
      if (bytes.ok()) {
        reads.emplace_back(pick, *bytes);
      } else {
        errors.push_back(bytes.status().ToString());
      }
    }
  };
  std::vector<std::thread> readers;
  for (int r = 0; r < kReaders; ++r) readers.emplace_back(reader);
  std::vector<CheckpointInfo> committed;
  std::map<CheckpointInfo, std::string> docs;
  for (int i = 0; i < kCommits; ++i) {
    std::optional<CheckpointInfo> parent;
    if (!committed.empty()) parent = committed.back();
    auto info = CommitDoc(*store, "s", i, parent);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    if (!info.ok()) break;
    committed.push_back(*info);
    docs[*info] = Doc(i, "s");
  }
  done = true;
  for (std::thread& t : readers) t.join();
  EXPECT_TRUE(errors.empty()) << errors.front();
  for (const auto& snapshot : snapshots) {
    ASSERT_LE(snapshot.size(), committed.size());
    EXPECT_TRUE(std::equal(snapshot.begin(), snapshot.end(), committed.begin()))
        << "a reader saw an index that is not a prefix of the commit order";
  }
  for (const auto& [info, bytes] : reads) EXPECT_EQ(bytes, docs.at(info));
}

}  // namespace stepfault::testing
