// Conformance: pruning after a restore (docs/engine-semantics.md §4.4, #7796) and the prune-on-read
// hazard.
// Method: build one session with two roots, a sibling branch and entries after the restored
// checkpoint, plus a second session; notify (or retrieve, for the hazard) and compare the surviving
// index with the hand-computed set.
#include <set>

#include "engine/testing/store_conformance_internal.h"

namespace stepfault::testing {
namespace {

// Session "s" in commit order: r1; a(r1); [t0 in session t]; sib(r1); b(a); r2; c(b); d(c); e(b).
struct Tree {
  CheckpointInfo r1, a, t0, sib, b, r2, c, d, e;
  std::vector<CheckpointInfo> session_s() const { return {r1, a, sib, b, r2, c, d, e}; }
  // ObsoleteBeforeRestored(c) by hand: roots before c (r1, r2) and c's ancestors (b, a, r1).
  std::vector<CheckpointInfo> pruned_by_c() const { return {r1, a, b, r2}; }
  std::vector<CheckpointInfo> kept_after_c() const { return {sib, c, d, e}; }
};

Status BuildTree(CheckpointStore& store, Tree& t) {
  int n = 0;
  auto commit = [&](const std::string& session, const std::optional<CheckpointInfo>& parent,
                    CheckpointInfo& out) -> Status {
    auto info = CommitDoc(store, session, n++, parent);
    if (!info.ok()) return info.status();
    out = *info;
    return Status::Ok();
  };
  SF_RETURN_IF_ERROR(commit("s", std::nullopt, t.r1));
  SF_RETURN_IF_ERROR(commit("s", t.r1, t.a));
  SF_RETURN_IF_ERROR(commit("t", std::nullopt, t.t0));
  SF_RETURN_IF_ERROR(commit("s", t.r1, t.sib));
  SF_RETURN_IF_ERROR(commit("s", t.a, t.b));
  SF_RETURN_IF_ERROR(commit("s", std::nullopt, t.r2));
  SF_RETURN_IF_ERROR(commit("s", t.b, t.c));
  SF_RETURN_IF_ERROR(commit("s", t.c, t.d));
  SF_RETURN_IF_ERROR(commit("s", t.b, t.e));
  return Status::Ok();
}

RestorationObserver* ObserverOf(CheckpointStore* store) {
  return dynamic_cast<RestorationObserver*>(store);
}

}  // namespace

int PruneTestsAnchor() { return 0; }

TEST_P(StoreConformanceTest, RestorationNotifyPrunesExactlyObsoleteBeforeRestored) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  RestorationObserver* observer = ObserverOf(store.get());
  if (observer == nullptr) GTEST_SKIP() << GetParam().name << " does not prune";
  Tree t;
  CONF_ASSERT_OK(BuildTree(*store, t));
  CONF_ASSERT_OK_AND_ASSIGN(auto before, store->Index("s"));
  ASSERT_EQ(Infos(before), t.session_s());
  ASSERT_EQ(ObsoleteBeforeRestored(before, t.c), t.pruned_by_c()) << "the hand-built tree is wrong";

  CONF_ASSERT_OK(observer->OnRestorationCompleted(t.c));

  for (int life = 0; life < (GetParam().durable ? 2 : 1); ++life) {
    if (life == 1) {
      observer = nullptr;
      store.reset();
      store = OpenStore(dir());
      ASSERT_NE(store, nullptr);
    }
    CONF_ASSERT_OK_AND_ASSIGN(auto after, store->Index("s"));
    EXPECT_EQ(Infos(after), t.kept_after_c()) << "life " << life;
    for (const CheckpointInfo& gone : t.pruned_by_c()) {
      EXPECT_EQ(store->Retrieve(gone).status().code(), StatusCode::kNotFound) << gone.ToString();
    }
    for (const CheckpointInfo& kept : t.kept_after_c()) {
      EXPECT_TRUE(store->Retrieve(kept).ok()) << kept.ToString();
    }
    CONF_ASSERT_OK_AND_ASSIGN(auto other, store->Index("t"));
    EXPECT_EQ(Infos(other), std::vector<CheckpointInfo>{t.t0}) << "another session was pruned";
  }
}

TEST_P(StoreConformanceTest, RestorationNotifyOnFirstOrUnknownCheckpointDeletesNothing) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  RestorationObserver* observer = ObserverOf(store.get());
  if (observer == nullptr) GTEST_SKIP() << GetParam().name << " does not prune";
  Tree t;
  CONF_ASSERT_OK(BuildTree(*store, t));
  const std::vector<CheckpointInfo> no_ops = {
      t.r1,
      t.t0,
      CheckpointInfo{"s", "0123456789abcdef0123456789abcdef"},
      CheckpointInfo{"t", t.c.checkpoint_id},
      CheckpointInfo{"nobody", "../x"},
      CheckpointInfo{"", ""}};
  for (const CheckpointInfo& restored : no_ops) {
    CONF_ASSERT_OK(observer->OnRestorationCompleted(restored));
  }
  CONF_ASSERT_OK_AND_ASSIGN(auto s, store->Index("s"));
  EXPECT_EQ(Infos(s), t.session_s());
  CONF_ASSERT_OK_AND_ASSIGN(auto other, store->Index("t"));
  EXPECT_EQ(Infos(other), std::vector<CheckpointInfo>{t.t0});
}

TEST_P(StoreConformanceTest, RestorationNotifyTwiceIsIdempotent) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  RestorationObserver* observer = ObserverOf(store.get());
  if (observer == nullptr) GTEST_SKIP() << GetParam().name << " does not prune";
  Tree t;
  CONF_ASSERT_OK(BuildTree(*store, t));
  CONF_ASSERT_OK(observer->OnRestorationCompleted(t.c));
  CONF_ASSERT_OK(observer->OnRestorationCompleted(t.c));
  CONF_ASSERT_OK_AND_ASSIGN(auto after, store->Index("s"));
  EXPECT_EQ(Infos(after), t.kept_after_c());
  // Restoring a later checkpoint prunes the rest of the chain but keeps the sibling branch.
  CONF_ASSERT_OK(observer->OnRestorationCompleted(t.d));
  CONF_ASSERT_OK_AND_ASSIGN(auto later, store->Index("s"));
  // sib keeps its parent link (to the pruned r1), so it is neither a root nor d's ancestor.
  EXPECT_EQ(Infos(later), (std::vector<CheckpointInfo>{t.sib, t.d, t.e}));
}

// #7796: reading is not restoring. A strict store's Retrieve must delete nothing, however often.
TEST_P(StoreConformanceTest, RetrieveNeverDeletes_Issue7796) {
  auto store = OpenStore(dir());
  ASSERT_NE(store, nullptr);
  Tree t;
  CONF_ASSERT_OK(BuildTree(*store, t));
  for (int round = 0; round < 3; ++round) {
    for (const CheckpointInfo& info : t.session_s()) CONF_ASSERT_OK(store->Retrieve(info));
  }
  CONF_ASSERT_OK_AND_ASSIGN(auto after, store->Index("s"));
  EXPECT_EQ(Infos(after), t.session_s());
}

TEST_P(StoreConformanceTest, PruneOnReadHazardDeletesAncestryOnRetrieve) {
  if (!GetParam().open_prune_on_read) GTEST_SKIP() << "no prune-on-read variant given";
  auto opened = GetParam().open_prune_on_read(dir());
  CONF_ASSERT_OK(opened);
  std::unique_ptr<CheckpointStore> store = std::move(opened).value();
  Tree t;
  CONF_ASSERT_OK(BuildTree(*store, t));
  CONF_ASSERT_OK_AND_ASSIGN(std::string bytes, store->Retrieve(t.c));
  EXPECT_FALSE(bytes.empty());
  CONF_ASSERT_OK_AND_ASSIGN(auto after, store->Index("s"));
  EXPECT_EQ(Infos(after), t.kept_after_c())
      << "the hazard switch should reproduce upstream's prune inside Retrieve";
}

}  // namespace stepfault::testing
