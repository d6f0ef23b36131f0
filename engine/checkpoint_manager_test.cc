// Goal: InMemoryCheckpointManager keeps each session's checkpoints apart, finds each one by its
// identity (the commit map is hashed by checkpoint id per session now, not ordered by the whole
// CheckpointInfo), lists a session's checkpoints in commit order, derives the same ids as before
// (id = DeriveId(seed, "<session>|<commit sequence>")), and hands back the very object it was given
// by CommitOwned. The id index is built by Lookup (a commit adds none), so a lookup must also find
// what was committed after an earlier lookup. Method: commits into two interleaved sessions, then
// lookups of every id, of an id under the wrong session, and of an unknown id; commits and
// lookups interleaved.
#include "engine/checkpoint_manager.h"

#include <gtest/gtest.h>

#include "engine/crc32c.h"
#include "engine/random.h"
#include "engine/stores/memory_store.h"
#include "engine/topology_record.h"

namespace stepfault {
namespace {

Checkpoint At(const std::string& session, int64_t step) {
  Checkpoint c;
  c.session_id = session;
  c.step_number = step;
  return c;
}

TEST(InMemoryCheckpointManagerTest, FindsEveryCommitOfInterleavedSessionsAndListsThemInOrder) {
  InMemoryCheckpointManager m(11);
  std::vector<CheckpointInfo> a, b;
  for (int64_t step = 0; step < 3; ++step) {
    auto ia = m.CommitOwned(At("a", step));
    auto ib = m.Commit(At("b", step));
    ASSERT_TRUE(ia.ok() && ib.ok());
    a.push_back(*ia);
    b.push_back(*ib);
  }
  // Ids follow the commit sequence across sessions: a=1, b=2, a=3, ...
  EXPECT_EQ(a[0].checkpoint_id, DeriveId(11, "a|1"));
  EXPECT_EQ(b[0].checkpoint_id, DeriveId(11, "b|2"));
  EXPECT_EQ(a[2].checkpoint_id, DeriveId(11, "a|5"));
  EXPECT_EQ(*m.Index("a"), a);
  EXPECT_EQ(*m.Index("b"), b);
  EXPECT_TRUE(m.Index("c")->empty());
  for (int64_t step = 0; step < 3; ++step) {
    auto ca = m.Lookup(a[static_cast<size_t>(step)]);
    ASSERT_TRUE(ca.ok());
    EXPECT_EQ((*ca)->session_id, "a");
    EXPECT_EQ((*ca)->step_number, step);
  }
  // An id of session a asked for under session b is not found, nor is an unknown id.
  EXPECT_EQ(m.Lookup(CheckpointInfo{"b", a[0].checkpoint_id}).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(m.Lookup(CheckpointInfo{"a", "no-such-id"}).status().code(), StatusCode::kNotFound);
}

TEST(InMemoryCheckpointManagerTest, LookupFindsWhatWasCommittedAfterAnEarlierLookup) {
  InMemoryCheckpointManager m(3);
  std::vector<CheckpointInfo> infos;
  for (int64_t step = 0; step < 7; ++step) {
    auto info = m.CommitOwned(At("s", step));
    ASSERT_TRUE(info.ok());
    infos.push_back(*info);
    // After every commit, every checkpoint so far (the newest one included) is found.
    for (size_t i = 0; i < infos.size(); ++i) {
      auto c = m.Lookup(infos[i]);
      ASSERT_TRUE(c.ok()) << "commit " << step << ", lookup " << i << ": " << c.status().ToString();
      EXPECT_EQ((*c)->step_number, static_cast<int64_t>(i));
    }
  }
  EXPECT_EQ(m.Lookup(CheckpointInfo{"s", "no-such-id"}).status().code(), StatusCode::kNotFound);
}

TEST(InMemoryCheckpointManagerTest, LookupReturnsTheSameObjectEveryTime) {
  InMemoryCheckpointManager m;
  auto info = m.CommitOwned(At("s", 4));
  ASSERT_TRUE(info.ok());
  auto first = m.Lookup(*info);
  auto second = m.Lookup(*info);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->get(), second->get());  // kept once, shared, never copied on lookup
}

// Goal (issue 27): over a store that keeps records, a checkpoint names its topology by a record
// stored once instead of carrying the signature; a fresh manager (a new process) resolves it and
// hands back the full signature; a missing or damaged record is kCorruption; without records (or
// with topology_records off, MAF's form) the signature is inline. A delta lists only the executors
// instantiated since its base, and its chain resolves to the whole sorted list.
Json Signature(const std::string& extra) {
  return Json{{"start", "a"},
              {"executors", {{"a", {{"type", "A"}}}, {extra, {{"type", "X"}}}}},
              {"edges", Json::array()},
              {"ports", Json::array()},
              {"outputs", Json::array()}};
}

Checkpoint WithTopology(const SharedJson& signature, std::vector<std::string> instantiated,
                        const std::optional<CheckpointInfo>& parent, int64_t step) {
  Checkpoint c = At("s", step);
  c.workflow = signature;
  c.instantiated = std::move(instantiated);
  c.parent = parent;
  return c;
}

// A view of a store that hides every record (as if its record file were lost) when `hide`, and
// counts record puts.
class RecordlessView final : public CheckpointStore {
 public:
  RecordlessView(CheckpointStore* inner, bool hide) : s_(inner), hide_(hide) {}
  Result<CheckpointInfo> Commit(const std::string& session, std::string_view b,
                                const std::optional<CheckpointInfo>& p) override {
    return s_->Commit(session, b, p);
  }
  Result<std::string> Retrieve(const CheckpointInfo& i) override { return s_->Retrieve(i); }
  Result<std::vector<StoreEntry>> Index(const std::string& session,
                                        const std::optional<CheckpointInfo>& p) override {
    return s_->Index(session, p);
  }
  bool SupportsRecords() const override { return s_->SupportsRecords(); }
  Status PutRecord(const std::string& k, std::string_view b) override {
    ++puts;
    return s_->PutRecord(k, b);
  }
  Result<std::string> GetRecord(const std::string& k) override {
    if (hide_) return Status::NotFound("no record " + k);
    return s_->GetRecord(k);
  }
  int puts = 0;

 private:
  CheckpointStore* s_;
  bool hide_;
};

TEST(StoreCheckpointManagerRecordsTest, ACheckpointNamesItsTopologyByRecordAndLookupResolvesIt) {
  MemoryCheckpointStore store;
  const SharedJson sig(Signature("b"));
  const std::string key = TopologyRecordKey(*sig);
  RecordlessView counting(&store, /*hide=*/false);
  std::vector<CheckpointInfo> infos;
  {
    StoreCheckpointManager writer(&counting);
    std::optional<CheckpointInfo> parent;
    for (int64_t step = 0; step < 3; ++step) {
      auto info = writer.Commit(WithTopology(sig, {"a"}, parent, step));
      ASSERT_TRUE(info.ok()) << info.status().ToString();
      infos.push_back(*info);
      parent = *info;
    }
  }
  EXPECT_EQ(counting.puts, 1) << "the record is put once, before the first checkpoint";
  for (const CheckpointInfo& info : infos) {
    const std::string bytes = *store.Retrieve(info);
    EXPECT_NE(bytes.find("\"workflow_ref\":\"" + key + "\""), std::string::npos);
    EXPECT_EQ(bytes.find("\"workflow\":"), std::string::npos) << "no inline signature";
  }
  ASSERT_TRUE(store.GetRecord(key).ok());
  StoreCheckpointManager reader(&counting);  // a fresh manager, as after a restart
  for (const CheckpointInfo& info : infos) {
    auto got = reader.Lookup(info);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*(*got)->workflow, *sig);
    EXPECT_EQ((*got)->workflow_ref, key);
  }
  // A later manager finds the intact record and does not write it again.
  StoreCheckpointManager later(&counting);
  ASSERT_TRUE(later.Commit(WithTopology(sig, {"a"}, infos.back(), 3)).ok());
  EXPECT_EQ(counting.puts, 1);
}

TEST(StoreCheckpointManagerRecordsTest, WithTopologyRecordsOffTheSignatureIsInline) {
  MemoryCheckpointStore store;
  StoreCheckpointOptions options;
  options.topology_records = false;
  StoreCheckpointManager manager(&store, options);
  auto info = manager.Commit(WithTopology(SharedJson(Signature("b")), {"a"}, std::nullopt, 0));
  ASSERT_TRUE(info.ok());
  const std::string bytes = *store.Retrieve(*info);
  EXPECT_NE(bytes.find("\"workflow\":{"), std::string::npos);
  EXPECT_EQ(bytes.find("workflow_ref"), std::string::npos);
  EXPECT_EQ(store.GetRecord(TopologyRecordKey(Signature("b"))).status().code(),
            StatusCode::kNotFound);
}

TEST(StoreCheckpointManagerRecordsTest, AMissingOrDamagedRecordIsCorruptionNamingIt) {
  MemoryCheckpointStore store;
  const SharedJson sig(Signature("b"));
  const std::string key = TopologyRecordKey(*sig);
  CheckpointInfo info;
  {
    StoreCheckpointManager writer(&store);
    info = *writer.Commit(WithTopology(sig, {"a"}, std::nullopt, 0));
  }
  RecordlessView missing(&store, /*hide=*/true);
  auto lost = StoreCheckpointManager(&missing).Lookup(info);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), StatusCode::kCorruption) << lost.status().ToString();
  EXPECT_NE(lost.status().message().find(key), std::string::npos) << lost.status().ToString();
  std::string damaged = EncodeTopologyRecord(*sig);
  damaged[damaged.size() / 2] ^= 0x20;
  ASSERT_TRUE(store.PutRecord(key, damaged).ok());
  auto broken = StoreCheckpointManager(&store).Lookup(info);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().code(), StatusCode::kCorruption) << broken.status().ToString();
  // Another topology's record filed under this key is damage too, never a wrong topology.
  ASSERT_TRUE(store.PutRecord(key, EncodeTopologyRecord(Signature("c"))).ok());
  auto misfiled = StoreCheckpointManager(&store).Lookup(info);
  EXPECT_EQ(misfiled.status().code(), StatusCode::kCorruption) << misfiled.status().ToString();
}

TEST(StoreCheckpointManagerRecordsTest, ADeltaListsOnlyTheNewlyInstantiatedExecutors) {
  MemoryCheckpointStore store;
  const SharedJson sig(Signature("b"));
  StoreCheckpointManager writer(&store, StoreCheckpointOptions{8});
  const std::vector<std::vector<std::string>> lists = {
      {"a"}, {"a", "b"}, {"a", "b"}, {"a", "b", "c", "d"}, {"b", "d"}, {"b", "d", "e"}};
  std::vector<CheckpointInfo> infos;
  std::optional<CheckpointInfo> parent;
  for (size_t i = 0; i < lists.size(); ++i) {
    auto info = writer.Commit(WithTopology(sig, lists[i], parent, static_cast<int64_t>(i)));
    ASSERT_TRUE(info.ok());
    infos.push_back(*info);
    parent = *info;
  }
  auto stored = [&](size_t i) { return *store.Retrieve(infos[i]); };
  EXPECT_NE(stored(0).find("\"instantiated\":[\"a\"]"), std::string::npos) << "full snapshot";
  EXPECT_NE(stored(1).find("\"instantiated_added\":[\"b\"]"), std::string::npos);
  EXPECT_NE(stored(2).find("\"instantiated_added\":[]"), std::string::npos);
  EXPECT_NE(stored(3).find("\"instantiated_added\":[\"c\",\"d\"]"), std::string::npos);
  // An executor gone since the base: the delta lists them all.
  EXPECT_NE(stored(4).find("\"instantiated\":[\"b\",\"d\"]"), std::string::npos);
  EXPECT_NE(stored(5).find("\"instantiated_added\":[\"e\"]"), std::string::npos);
  StoreCheckpointManager reader(&store);
  for (size_t i = 0; i < lists.size(); ++i) {
    auto got = reader.Lookup(infos[i]);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ((*got)->instantiated.Sorted(), lists[i]) << "checkpoint " << i;
  }
  // A full checkpoint (sealed correctly) that lists added executors is damage.
  Json doc = Json::parse(EncodeCheckpointJson(WithTopology(sig, {"a"}, std::nullopt, 0)));
  doc["body"]["instantiated_added"] = doc["body"]["instantiated"];
  doc["body"].erase("instantiated");
  doc["checksum"] = Crc32cTag(doc["body"].dump());
  auto decoded = DecodeCheckpoint(doc.dump());
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.status().code(), StatusCode::kCorruption);
  EXPECT_NE(decoded.status().message().find("instantiated_added"), std::string::npos)
      << decoded.status().ToString();
}

}  // namespace
}  // namespace stepfault
