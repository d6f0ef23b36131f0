// Helpers shared by the conformance suite's test files (not part of its public surface).
// Thread-safety: pure helpers.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/status.h"
#include "engine/testing/store_conformance.h"

namespace stepfault::testing {

// Link anchors of the test files (see LinkStoreConformanceTests).
int ContractTestsAnchor();
int PruneTestsAnchor();
int ModelTestsAnchor();
int IncrementalTestsAnchor();
int RecordTestsAnchor();

// The canonical JSON document number `n` of `session`: nested, escaped and non-ASCII content.
std::string Doc(int n, std::string_view session);
Result<CheckpointInfo> CommitDoc(CheckpointStore& store, const std::string& session, int n,
                                 const std::optional<CheckpointInfo>& parent);
std::vector<CheckpointInfo> Infos(const std::vector<StoreEntry>& entries);

inline const Status& StatusOf(const Status& s) { return s; }
template <typename T>
const Status& StatusOf(const Result<T>& r) {
  return r.status();
}

}  // namespace stepfault::testing

#define CONF_ASSERT_OK(expr)                                                         \
  do {                                                                               \
    const auto& conf_v_ = (expr);                                                    \
    ASSERT_TRUE(conf_v_.ok()) << ::stepfault::testing::StatusOf(conf_v_).ToString(); \
  } while (0)

#define CONF_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  CONF_ASSERT_OK_AND_ASSIGN_IMPL(SF_CONCAT(conf_result_, __LINE__), lhs, expr)
#define CONF_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString();    \
  lhs = std::move(tmp).value()
