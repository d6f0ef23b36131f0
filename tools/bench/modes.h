// The checkpointing modes a step benchmark runs under, as one table: no checkpointing, the
// in-memory manager, and StoreCheckpointManager over any CheckpointStore built by a factory.
//
// A store mode is one row: a name (the `mode:` label), a factory that builds a fresh store in an
// empty scratch directory, the physical limit its steps are compared against, and whether it
// touches a disk (disk modes run a reduced matrix, see step_bench.cc). Durable stores are added in
// AddDurableStoreModes (modes.cc; see stores_pending.md).
// Thread-safety: the table is built once, before benchmarks run, and then only read.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/checkpoint_manager.h"
#include "engine/checkpoint_store.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {

// Builds a store over an empty directory that outlives the store. The store must keep alive
// anything it needs (a simulated file system, an Env).
using StoreFactory = std::function<std::unique_ptr<CheckpointStore>(const std::string& dir)>;

// kInMemoryCopying: the in-memory manager as it was before CommitOwned (every commit deep-copies
// the run's export), kept as the "before" of that change, measured in the same run.
enum class ManagerKind { kNone, kInMemory, kInMemoryCopying, kStore };

struct Mode {
  std::string name;
  ManagerKind manager = ManagerKind::kNone;
  StoreFactory factory;                // kStore only
  LimitKind limit = LimitKind::kNone;  // what `ratio` divides by
  bool on_disk = false;                // reduced matrix; a scratch dir per harness
  // kStore: StoreCheckpointOptions::full_every (1: every checkpoint full, as before issue 15).
  int full_every = kDefaultFullSnapshotEvery;
};

// A store that keeps alive what its inner store runs on (a simulated file system, an Env), so a
// factory can return one object. Forwards the store calls, and restoration notices when the inner
// store is a RestorationObserver.
class OwningStore final : public ForwardingCheckpointStore {
 public:
  OwningStore(std::shared_ptr<void> owned, std::unique_ptr<CheckpointStore> inner)
      : ForwardingCheckpointStore(std::move(inner)), owned_(std::move(owned)) {}
  ~OwningStore() override { DestroyInner(); }  // the store goes before what it runs on
  // Changes nothing on commit: the parts go to the inner store as they are.
  Result<CheckpointInfo> CommitParts(const std::string& session_id,
                                     std::span<const std::string_view> parts,
                                     const std::optional<CheckpointInfo>& parent) override {
    return ForwardCommitParts(session_id, parts, parent);
  }

 private:
  std::shared_ptr<void> owned_;
};

// none, memory, bytes, then the durable store modes.
const std::vector<Mode>& Modes();

// The hook where the durable stores are registered (stores_pending.md).
void AddDurableStoreModes(std::vector<Mode>* modes);

}  // namespace stepfault::bench
