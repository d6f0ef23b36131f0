// Helpers for the durable stores' damaged-delta-base tests (file_store_test.cc,
// sqlite_store_test.cc): a chain of incremental checkpoints committed through the
// StoreCheckpointManager with a full snapshot every 3, and the host's fallback rule applied with a
// lookup instead of a resume (the one rule, FallBackToNewestIntact in engine/checkpoint_store.h,
// that every host's ResumeLatestIntact applies). And the bytes their seal-trust tests commit
// (SealBreak). Thread-safety: test helpers, one thread.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/checkpoint_store.h"
#include "engine/testing/delta_chain.h"

namespace stepfault::testing {

inline constexpr int kDeltaChainFullEvery = 3;  // c0 full, c1 c2 deltas, c3 full, c4 c5 deltas

struct DeltaChain {
  std::vector<CheckpointInfo> infos;
  std::vector<Checkpoint> committed;
};

// Commits `n` chained steps (DeltaChainStep) through a StoreCheckpointManager with
// kDeltaChainFullEvery, and checks that the stored bytes are full exactly at the positions it
// predicts.
inline DeltaChain CommitDeltaChain(CheckpointStore& store, int n) {
  DeltaChain chain;
  const Status committed =
      CommitDeltaChainSteps(store, kDeltaChainFullEvery, n, &chain.infos, &chain.committed);
  EXPECT_TRUE(committed.ok()) << committed.ToString();
  for (size_t i = 0; i < chain.infos.size(); ++i) {
    auto bytes = store.Retrieve(chain.infos[i]);
    EXPECT_TRUE(bytes.ok());
    auto base = CheckpointDeltaBase(bytes.ok() ? *bytes : std::string());
    EXPECT_TRUE(base.ok());
    EXPECT_EQ(base.ok() && base->has_value(), i % kDeltaChainFullEvery != 0) << "step " << i;
  }
  return chain;
}

// The host's fallback over `store` (FallBackToNewestIntact with a lookup): the first checkpoint
// that resolves, newest first, and the errors of the newer ones it went past.
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
  std::optional<Checkpoint> found;
  Result<size_t> landed = FallBackToNewestIntact(*index, [&](const StoreEntry& entry) -> Status {
    auto got = reader.Lookup(entry.info);
    if (!got.ok()) {
      out.skipped.push_back(got.status());
      return got.status();
    }
    found = **got;
    return Status::Ok();
  });
  if (landed.ok()) {
    out.landed = (*index)[*landed].info;
    out.checkpoint = std::move(found);
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

// The cases of the damaged-base tests over a chain of 6 (c0 full, c1 c2 deltas, c3 full, c4 c5
// deltas): the damaged checkpoint, and where the fallback must land.
struct DamagedBaseCase {
  int victim;   // whose stored bytes are damaged
  int landing;  // where the fallback lands
};
inline constexpr DamagedBaseCase kDamagedBaseCases[] = {{4, 3}, {3, 2}};

// Over `store`, whose copy of chain.infos[k.victim] was damaged: restoring the newest checkpoint
// (c5) is kCorruption naming the broken link, and the host's fallback goes past every checkpoint
// of the broken chain (each a kCorruption) to chain.infos[k.landing], with exactly the committed
// content; damaging c4 leaves c3, a full snapshot, as the landing; damaging c3 leaves c2, a delta
// whose own chain (c1, c0) is intact.
inline void ExpectDamagedBaseFailsTypedAndFallbackLands(CheckpointStore& store,
                                                        const DeltaChain& chain,
                                                        const DamagedBaseCase& k,
                                                        const std::string& label) {
  const CheckpointInfo& victim = chain.infos[static_cast<size_t>(k.victim)];
  StoreCheckpointManager reader(&store);
  auto restored = reader.Lookup(chain.infos[5]);
  ASSERT_FALSE(restored.ok()) << label << ": a delta over a damaged base was loaded";
  EXPECT_EQ(restored.status().code(), StatusCode::kCorruption) << label;
  EXPECT_NE(restored.status().message().find("base checkpoint " + victim.checkpoint_id),
            std::string::npos)
      << label << ": " << restored.status().ToString();
  const Fallback fallback = FallBackToLatestIntact(store);
  ASSERT_TRUE(fallback.landed.has_value()) << label;
  EXPECT_EQ(*fallback.landed, chain.infos[static_cast<size_t>(k.landing)]) << label;
  EXPECT_TRUE(
      CheckpointsEqual(*fallback.checkpoint, chain.committed[static_cast<size_t>(k.landing)]))
      << label;
  for (const Status& s : fallback.skipped) {
    EXPECT_EQ(s.code(), StatusCode::kCorruption) << label << ": " << s.ToString();
  }
  EXPECT_EQ(StoredFull(store, *fallback.landed), k.landing % kDeltaChainFullEvery == 0) << label;
}

// A framed checkpoint holding one string of `blob_bytes` (framed as a blob) and the same bytes with
// one byte its seal covers flipped: a store that takes the CRC from the seal (committed_crc.h)
// must read the second as damaged.
struct SealBreak {
  std::string intact;
  std::string damaged;
};
inline SealBreak FramedCheckpointAndSealBreak(size_t blob_bytes) {
  Checkpoint c;
  c.session_id = "s";
  c.workflow = Json::object();
  c.state["executor:a"]["text"] = std::string(blob_bytes, 'q');
  SealBreak out{EncodeCheckpoint(c), ""};
  out.damaged = out.intact;
  out.damaged[out.damaged.size() / 2] ^= 0x01;  // inside the blob area, which the seal covers
  return out;
}

}  // namespace stepfault::testing
