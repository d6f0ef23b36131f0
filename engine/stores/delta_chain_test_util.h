// Helpers for the durable stores' damaged-delta-base tests (file_store_test.cc,
// sqlite_store_test.cc): a chain of incremental checkpoints committed through the
// StoreCheckpointManager with a full snapshot every 3, and the host's fallback rule (the newest
// checkpoint that resolves; a kCorruption moves on to the next older one, any other error stops),
// as scenarios/host_drive.cc's ResumeLatestIntact applies it, without a run (the engine's tests
// cannot see scenarios/).
// Thread-safety: test helpers, one thread.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/checkpoint_store.h"

namespace stepfault::testing {

inline constexpr int kDeltaChainFullEvery = 3;  // c0 full, c1 c2 deltas, c3 full, c4 c5 deltas

// Step `step` of a chain: a large value that never changes and a small one that does, so every
// checkpoint but the full snapshots is a small delta of its parent.
inline Checkpoint DeltaChainStep(int step, const std::optional<CheckpointInfo>& parent) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = step;
  c.workflow = Json::parse(
      R"({"start":"a","executors":{"a":{"type":"A"}},"edges":[],"ports":[],"outputs":[]})");
  c.state["executor:a"]["big"] = std::string(4000, 'k');
  c.state["executor:a"]["step"] = step;
  c.queued["a"] = {Envelope{Message{"Tick", Json{{"n", step}}}, "a", std::nullopt, ""}};
  c.parent = parent;
  return c;
}

struct DeltaChain {
  std::vector<CheckpointInfo> infos;
  std::vector<Checkpoint> committed;
};

// Commits `n` chained steps through a StoreCheckpointManager with kDeltaChainFullEvery, and
// checks that the stored bytes are full exactly at the positions it predicts.
inline DeltaChain CommitDeltaChain(CheckpointStore& store, int n) {
  DeltaChain chain;
  StoreCheckpointManager manager(&store, StoreCheckpointOptions{kDeltaChainFullEvery});
  std::optional<CheckpointInfo> parent;
  for (int i = 0; i < n; ++i) {
    Checkpoint c = DeltaChainStep(i, parent);
    auto info = manager.Commit(c);
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    if (!info.ok()) return chain;
    auto bytes = store.Retrieve(*info);
    EXPECT_TRUE(bytes.ok());
    auto base = CheckpointDeltaBase(bytes.ok() ? *bytes : std::string());
    EXPECT_TRUE(base.ok());
    EXPECT_EQ(base.ok() && base->has_value(), i % kDeltaChainFullEvery != 0) << "step " << i;
    chain.committed.push_back(std::move(c));
    chain.infos.push_back(*info);
    parent = *info;
  }
  return chain;
}

// The host's fallback over `store`: its index newest first, the first checkpoint that resolves
// (its position in the index and the checkpoint), or the first error that is not kCorruption.
struct Fallback {
  std::optional<CheckpointInfo> landed;
  std::optional<Checkpoint> checkpoint;
  std::vector<Status> skipped;  // the errors of the newer checkpoints it went past
};

inline Fallback FallBackToLatestIntact(CheckpointStore& store) {
  Fallback out;
  StoreCheckpointManager reader(&store);
  auto index = store.Index("s");
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  if (!index.ok()) return out;
  for (auto it = index->rbegin(); it != index->rend(); ++it) {
    auto got = reader.Lookup(it->info);
    if (got.ok()) {
      out.landed = it->info;
      out.checkpoint = **got;
      return out;
    }
    out.skipped.push_back(got.status());
    if (got.status().code() != StatusCode::kCorruption) return out;
  }
  return out;
}

// Whether the stored bytes of `info` are a full snapshot (no delta base).
inline bool StoredFull(CheckpointStore& store, const CheckpointInfo& info) {
  auto bytes = store.Retrieve(info);
  if (!bytes.ok()) return false;
  auto base = CheckpointDeltaBase(*bytes);
  return base.ok() && !base->has_value();
}

}  // namespace stepfault::testing
