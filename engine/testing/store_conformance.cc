// The conformance suite's fixture and test bodies (see store_conformance.h for what and how).
// Method: each test opens GetParam() in its own fresh directory, drives it through the public
// CheckpointStore / RestorationObserver API only, and compares with what it committed. Expected
// prune results are written out by hand, not recomputed with the function under test.
#include "engine/testing/store_conformance.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "engine/testing/store_conformance_internal.h"
#include "tools/testing/test_env.h"

namespace stepfault::testing {
namespace {

std::atomic<int> g_dir_counter{0};

}  // namespace

int LinkStoreConformanceTests() {
  return ContractTestsAnchor() + PruneTestsAnchor() + ModelTestsAnchor() +
         IncrementalTestsAnchor() + RecordTestsAnchor();
}

void PrintTo(const StoreUnderTest& store, std::ostream* os) { *os << store.name; }

std::string StoreName(const ::testing::TestParamInfo<StoreUnderTest>& info) {
  return info.param.name;
}

void StoreConformanceTest::SetUp() {
  dir_ = test_env::ScratchDir("conformance-" + std::to_string(g_dir_counter++));
}

void StoreConformanceTest::TearDown() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

std::string StoreConformanceTest::NewSubdir() {
  std::string sub = dir_ + "/s" + std::to_string(subdirs_++);
  std::filesystem::create_directories(sub);
  return sub;
}

std::unique_ptr<CheckpointStore> StoreConformanceTest::OpenStore(const std::string& dir) {
  auto store = GetParam().open(dir);
  EXPECT_TRUE(store.ok()) << GetParam().name << " failed to open " << dir << ": "
                          << store.status().ToString();
  if (!store.ok()) return nullptr;
  return std::move(store).value();
}

std::string Doc(int n, std::string_view session) {
  nlohmann::json doc = {{"step", n},
                        {"session", std::string(session)},
                        {"payload",
                         {{"text", "caf\u00e9 \"quoted\" \\ \n line " + std::to_string(n)},
                          {"values", {n, n * 2.5, -n}},
                          {"flag", n % 2 == 0},
                          {"none", nullptr}}}};
  return doc.dump();
}

Result<CheckpointInfo> CommitDoc(CheckpointStore& store, const std::string& session, int n,
                                 const std::optional<CheckpointInfo>& parent) {
  return store.Commit(session, Doc(n, session), parent);
}

std::vector<CheckpointInfo> Infos(const std::vector<StoreEntry>& entries) {
  std::vector<CheckpointInfo> out;
  for (const StoreEntry& e : entries) out.push_back(e.info);
  return out;
}

}  // namespace stepfault::testing
