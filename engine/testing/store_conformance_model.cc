// Conformance: a RapidCheck model-based test (rc::state) of any CheckpointStore.
// Method: random sequences of Commit(session, parent), Retrieve, Index(session, parent filter),
// RestoreNotify and Reopen run against the store and against a plain vector model. The model names
// checkpoints by commit number (the store picks ids, so the system-under-test keeps the mapping),
// and implements the prune rule on its own, independently of ObsoleteBeforeRestored.
// Fixed seed per store name; STEPFAULT_LONG=1 runs more and longer sequences.
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <cstdlib>
#include <map>
#include <set>

#include "engine/random.h"
#include "engine/testing/store_conformance_internal.h"
#include "tools/testing/test_env.h"

namespace stepfault::testing {
namespace {

constexpr int kSessions = 3;

std::string SessionName(int s) { return "session-" + std::to_string(s); }

struct ModelEntry {
  int session = 0;
  std::optional<int> parent;  // commit number
  bool alive = true;
};

struct Model {
  bool durable = true;
  bool prunes = true;
  std::vector<ModelEntry> commits;  // index = commit number

  // Alive commit numbers of `session` in commit order.
  std::vector<int> SessionIndex(int session) const {
    std::vector<int> out;
    for (int i = 0; i < static_cast<int>(commits.size()); ++i) {
      if (commits[i].alive && commits[i].session == session) out.push_back(i);
    }
    return out;
  }

  // The prune rule, written independently: alive roots before `restored` and its alive ancestors.
  std::set<int> Obsolete(int restored) const {
    const std::vector<int> index = SessionIndex(commits[restored].session);
    auto pos = std::find(index.begin(), index.end(), restored);
    if (pos == index.end() || pos == index.begin()) return {};
    std::set<int> ancestors;
    std::optional<int> cursor = commits[restored].parent;
    for (size_t hops = 0; cursor && hops < commits.size(); ++hops) {
      if (!commits[*cursor].alive || commits[*cursor].session != commits[restored].session) break;
      ancestors.insert(*cursor);
      cursor = commits[*cursor].parent;
    }
    std::set<int> out;
    for (auto it = index.begin(); it != pos; ++it) {
      if (!commits[*it].parent || ancestors.count(*it) > 0) out.insert(*it);
    }
    return out;
  }
};

struct Sut {
  const StoreUnderTest* param = nullptr;
  std::string dir;
  std::unique_ptr<CheckpointStore> store;
  std::vector<CheckpointInfo> ids;       // by commit number
  std::map<std::string, int> number_of;  // checkpoint id -> commit number
};

using Command = rc::state::Command<Model, Sut>;

std::string ModelDoc(int commit) { return Doc(commit, "model"); }

struct CommitCmd : Command {
  int session = *rc::gen::inRange(0, kSessions);
  std::optional<int> parent;
  explicit CommitCmd(const Model& m) {
    const std::vector<int> index = m.SessionIndex(session);
    if (!index.empty() && *rc::gen::inRange(0, 4) != 0) {
      parent = index[*rc::gen::inRange<size_t>(0, index.size())];
    }
  }
  void checkPreconditions(const Model& m) const override {
    if (parent) RC_PRE(*parent < static_cast<int>(m.commits.size()));
  }
  void apply(Model& m) const override { m.commits.push_back({session, parent, true}); }
  void run(const Model& m, Sut& sut) const override {
    const int number = static_cast<int>(m.commits.size());
    RC_ASSERT(static_cast<int>(sut.ids.size()) == number);
    std::optional<CheckpointInfo> parent_info;
    if (parent) parent_info = sut.ids[*parent];
    auto info = sut.store->Commit(SessionName(session), ModelDoc(number), parent_info);
    RC_ASSERT(info.ok());
    RC_ASSERT(info->session_id == SessionName(session));
    RC_ASSERT(sut.number_of.count(info->checkpoint_id) == 0u);
    sut.ids.push_back(*info);
    sut.number_of[info->checkpoint_id] = number;
  }
  void show(std::ostream& os) const override {
    os << "Commit(" << SessionName(session)
       << ", parent=" << (parent ? std::to_string(*parent) : "none") << ")";
  }
};

struct RetrieveCmd : Command {
  int target;
  explicit RetrieveCmd(const Model& m) {
    RC_PRE(!m.commits.empty());
    target = *rc::gen::inRange<int>(0, static_cast<int>(m.commits.size()));
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(target < static_cast<int>(m.commits.size()));
  }
  void apply(Model&) const override {}
  void run(const Model& m, Sut& sut) const override {
    auto bytes = sut.store->Retrieve(sut.ids[target]);
    if (m.commits[target].alive) {
      RC_ASSERT(bytes.ok());
      RC_ASSERT(*bytes == ModelDoc(target));
    } else {
      RC_ASSERT(bytes.status().code() == StatusCode::kNotFound);
    }
  }
  void show(std::ostream& os) const override { os << "Retrieve(#" << target << ")"; }
};

struct IndexCmd : Command {
  int session = *rc::gen::inRange(0, kSessions);
  std::optional<int> with_parent;
  explicit IndexCmd(const Model& m) {
    if (!m.commits.empty() && *rc::gen::arbitrary<bool>()) {
      with_parent = *rc::gen::inRange<int>(0, static_cast<int>(m.commits.size()));
    }
  }
  void checkPreconditions(const Model& m) const override {
    if (with_parent) RC_PRE(*with_parent < static_cast<int>(m.commits.size()));
  }
  void apply(Model&) const override {}
  void run(const Model& m, Sut& sut) const override {
    std::vector<int> expected;
    for (int n : m.SessionIndex(session)) {
      if (!with_parent ||
          (m.commits[n].parent == with_parent && m.commits[*with_parent].session == session)) {
        expected.push_back(n);
      }
    }
    std::optional<CheckpointInfo> filter;
    if (with_parent) filter = sut.ids[*with_parent];
    auto index = sut.store->Index(SessionName(session), filter);
    RC_ASSERT(index.ok());
    std::vector<int> actual;
    for (const StoreEntry& e : *index) {
      auto it = sut.number_of.find(e.info.checkpoint_id);
      RC_ASSERT(it != sut.number_of.end());
      RC_ASSERT(e.info == sut.ids[it->second]);
      const std::optional<int>& parent = m.commits[it->second].parent;
      RC_ASSERT(
          e.parent_checkpoint_id ==
          (parent ? std::optional<std::string>(sut.ids[*parent].checkpoint_id) : std::nullopt));
      actual.push_back(it->second);
    }
    RC_ASSERT(actual == expected);
  }
  void show(std::ostream& os) const override {
    os << "Index(" << SessionName(session)
       << ", with_parent=" << (with_parent ? std::to_string(*with_parent) : "none") << ")";
  }
};

struct RestoreNotifyCmd : Command {
  int restored;
  explicit RestoreNotifyCmd(const Model& m) {
    RC_PRE(m.prunes && !m.commits.empty());
    restored = *rc::gen::inRange<int>(0, static_cast<int>(m.commits.size()));
  }
  void checkPreconditions(const Model& m) const override {
    RC_PRE(restored < static_cast<int>(m.commits.size()) && m.commits[restored].alive);
  }
  void apply(Model& m) const override {
    for (int n : m.Obsolete(restored)) m.commits[n].alive = false;
  }
  void run(const Model&, Sut& sut) const override {
    auto* observer = dynamic_cast<RestorationObserver*>(sut.store.get());
    RC_ASSERT(observer != nullptr);
    Status s = observer->OnRestorationCompleted(sut.ids[restored]);
    RC_ASSERT(s.ok());
  }
  void show(std::ostream& os) const override { os << "RestoreNotify(#" << restored << ")"; }
};

struct ReopenCmd : Command {
  explicit ReopenCmd(const Model& m) { RC_PRE(m.durable); }
  void apply(Model&) const override {}
  void run(const Model&, Sut& sut) const override {
    sut.store.reset();  // the previous store must release the directory first
    auto reopened = sut.param->open(sut.dir);
    RC_ASSERT(reopened.ok());
    sut.store = std::move(reopened).value();
  }
  void show(std::ostream& os) const override { os << "Reopen"; }
};

}  // namespace

int ModelTestsAnchor() { return 0; }

TEST_P(StoreConformanceTest, ModelBasedRandomOperationsMatchAVectorModel) {
  const StoreUnderTest& param = GetParam();
  bool prunes = false;
  {
    auto probe = OpenStore(NewSubdir());
    ASSERT_NE(probe, nullptr);
    prunes = dynamic_cast<RestorationObserver*>(probe.get()) != nullptr;
  }
  rc::detail::TestParams params;
  params.seed = DeriveSeed(0x5eed, param.name);
  params.maxSuccess = test_env::LongRun() ? 300 : 30;
  params.maxSize = test_env::LongRun() ? 100 : 40;
  const auto result = rc::detail::checkTestable(
      [&] {
        Sut sut;
        sut.param = &param;
        sut.dir = NewSubdir();
        auto opened = param.open(sut.dir);
        RC_ASSERT(opened.ok());
        sut.store = std::move(opened).value();
        Model model;
        model.durable = param.durable;
        model.prunes = prunes;
        rc::state::check(
            model, sut,
            rc::state::gen::execOneOfWithArgs<CommitCmd, CommitCmd, RetrieveCmd, IndexCmd,
                                              RestoreNotifyCmd, ReopenCmd>());
      },
      rc::detail::TestMetadata{}, params);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    std::ostringstream os;
    rc::detail::printResultMessage(result, os);
    ADD_FAILURE() << "seed " << params.seed << ": " << os.str();
  }
  rc::detail::GaveUpResult gave_up;
  EXPECT_FALSE(result.match(gave_up)) << gave_up.description;
  rc::detail::Error error;
  EXPECT_FALSE(result.match(error)) << error.description;
}

}  // namespace stepfault::testing
