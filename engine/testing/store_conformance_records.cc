// Conformance: records (checkpoint_store.h; the topology records of engine/topology_record.h).
// Method: a store that SupportsRecords() must give back exactly the bytes put under a key, replace
// them on a second put, keep them across a reopen (durable stores), answer an unknown key with
// kNotFound, refuse a key that is not [a-z0-9-]{1,64}, and never lose a record to pruning: a chain
// of checkpoints that refer to a record is committed through a StoreCheckpointManager, a late
// checkpoint is restore-notified (which prunes its ancestors), and the record and every surviving
// checkpoint must still read back through a fresh manager. A store without records must refuse a
// put (kFailedPrecondition) and its manager must write every checkpoint self-contained.
#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/testing/store_conformance_internal.h"
#include "engine/topology_record.h"

namespace stepfault::testing {
namespace {

Json Signature() {
  return Json::parse(
      R"({"start":"a","executors":{"a":{"type":"A"},"b":{"type":"B"}},"edges":[],"ports":[],)"
      R"("outputs":[]})");
}

Checkpoint Step(int step, const std::optional<CheckpointInfo>& parent, const SharedJson& sig) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = step;
  c.workflow = sig;
  c.instantiated = step == 0 ? std::vector<std::string>{"a"} : std::vector<std::string>{"a", "b"};
  c.state["executor:a"]["step"] = step;
  c.parent = parent;
  return c;
}

}  // namespace

int RecordTestsAnchor() { return 0; }

TEST_P(StoreConformanceTest, RecordsReadBackExactlyAndSurviveReopen) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  if (!store->SupportsRecords()) {
    EXPECT_EQ(store->PutRecord("k", "x").code(), StatusCode::kFailedPrecondition);
    GTEST_SKIP() << GetParam().name << " keeps no records";
  }
  const std::string bytes("record\0bytes\n\xff", 14);
  CONF_ASSERT_OK(store->PutRecord("topology-0123", bytes));
  CONF_ASSERT_OK(store->PutRecord("other", "first"));
  CONF_ASSERT_OK(store->PutRecord("other", "second"));  // a second put replaces
  for (const std::string& bad :
       std::vector<std::string>{"", "../x", "UPPER", "a/b", std::string(65, 'a')}) {
    EXPECT_FALSE(store->PutRecord(bad, "x").ok()) << "key '" << bad << "'";
  }
  for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
    if (life == 1) {
      store.reset();
      store = OpenStore(dir());
      ASSERT_NE(store, nullptr);
    }
    CONF_ASSERT_OK_AND_ASSIGN(std::string got, store->GetRecord("topology-0123"));
    EXPECT_EQ(got, bytes) << "life " << life;
    CONF_ASSERT_OK_AND_ASSIGN(std::string other, store->GetRecord("other"));
    EXPECT_EQ(other, "second");
    EXPECT_EQ(store->GetRecord("missing").status().code(), StatusCode::kNotFound);
    CONF_ASSERT_OK_AND_ASSIGN(auto index, store->Index("s"));
    EXPECT_TRUE(index.empty()) << "a record is not a checkpoint";
  }
}

TEST_P(StoreConformanceTest, PruningNeverRemovesATopologyRecordItsCheckpointsReferTo) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  const SharedJson sig(Signature());
  const std::string key = TopologyRecordKey(*sig);
  std::vector<CheckpointInfo> infos;
  std::vector<Checkpoint> committed;
  {
    StoreCheckpointManager manager(store.get(), StoreCheckpointOptions{3});
    std::optional<CheckpointInfo> parent;
    for (int i = 0; i < 7; ++i) {
      committed.push_back(Step(i, parent, sig));
      CONF_ASSERT_OK_AND_ASSIGN(CheckpointInfo info, manager.Commit(committed.back()));
      infos.push_back(info);
      parent = info;
    }
  }
  for (const CheckpointInfo& info : infos) {
    CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(info));
    const bool refers = bytes.find("\"workflow_ref\":\"" + key + "\"") != std::string::npos;
    EXPECT_EQ(refers, store->SupportsRecords())
        << "the signature is inline exactly without records";
  }
  if (!store->SupportsRecords()) GTEST_SKIP() << GetParam().name << " keeps no records";
  auto* observer = dynamic_cast<RestorationObserver*>(store.get());
  if (observer != nullptr) CONF_ASSERT_OK(observer->OnRestorationCompleted(infos[6]));
  CONF_ASSERT_OK_AND_ASSIGN(auto kept, store->Index("s"));
  if (observer != nullptr) {
    ASSERT_LT(kept.size(), infos.size()) << "the restore pruned nothing";
  }
  CONF_ASSERT_OK_AND_ASSIGN(std::string record, store->GetRecord(key));
  CONF_ASSERT_OK_AND_ASSIGN(Json decoded, DecodeTopologyRecord(record, key));
  EXPECT_EQ(decoded, *sig);
  for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
    if (life == 1) {
      store.reset();
      store = OpenStore(dir());
      ASSERT_NE(store, nullptr);
    }
    StoreCheckpointManager reader(store.get());  // fresh: reads the record from the store
    for (const StoreEntry& e : kept) {
      CONF_ASSERT_OK_AND_ASSIGN(auto got, reader.Lookup(e.info));
      EXPECT_EQ(got->workflow_ref, key);
      EXPECT_EQ(*got->workflow, *sig) << "the signature comes back in full";
      for (size_t i = 0; i < infos.size(); ++i) {
        if (infos[i] == e.info) {
          EXPECT_TRUE(CheckpointsEqual(*got, committed[i])) << i;
        }
      }
    }
  }
}

}  // namespace stepfault::testing
