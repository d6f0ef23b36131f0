// A chain of incremental checkpoints for store tests: the conformance suite
// (store_conformance_incremental.cc) and the durable stores' damaged-delta-base tests
// (engine/stores/delta_chain_test_util.h) commit the same chain. Each step keeps a large value
// that never changes, changes a small one, and has a key that comes and goes (so a delta both
// sets and removes), so every checkpoint but a full snapshot is a small delta of its parent.
// Thread-safety: pure helpers.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_store.h"
#include "engine/status.h"

namespace stepfault::testing {

// A checkpoint of session "s" at `step`, child of `parent`, holding `state`, of a one-executor
// workflow ("a", instantiated): the smallest chain link a manager commits (the mutant and
// reference-oracle tests build their chains from it).
// Inline: a test that links no conformance suite uses it too.
inline Checkpoint StateChainStep(int64_t step, const std::optional<CheckpointInfo>& parent,
                                 StateMap state) {
  Checkpoint c;
  c.session_id = "s";
  c.step_number = step;
  c.workflow = Json::parse(
      R"({"start":"a","executors":{"a":{"type":"A"}},"edges":[],"ports":[],"outputs":[]})");
  c.instantiated = std::vector<std::string>{"a"};
  c.parent = parent;
  c.state = std::move(state);
  return c;
}

// Step `step` of the chain (session "s"), child of `parent`.
Checkpoint DeltaChainStep(int step, const std::optional<CheckpointInfo>& parent);

// Commits `n` chained steps through a StoreCheckpointManager with full_every = `k`, appending what
// it committed and the ids the store gave.
Status CommitDeltaChainSteps(CheckpointStore& store, int k, int n,
                             std::vector<CheckpointInfo>* infos,
                             std::vector<Checkpoint>* committed);

}  // namespace stepfault::testing
