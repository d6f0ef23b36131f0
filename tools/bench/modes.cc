// The mode table.
#include "tools/bench/modes.h"

#include "tools/bench/bytes_store.h"

namespace stepfault::bench {

const std::vector<Mode>& Modes() {
  static const std::vector<Mode>* modes = [] {
    auto* m = new std::vector<Mode>();
    m->push_back(Mode{"none", ManagerKind::kNone, nullptr, LimitKind::kMemcpy, false});
    m->push_back(Mode{"memory", ManagerKind::kInMemory, nullptr, LimitKind::kMemcpy, false});
    m->push_back(Mode{"bytes", ManagerKind::kStore,
                      [](const std::string&) { return std::make_unique<BytesStore>(); },
                      LimitKind::kMemcpy, false});
    AddDurableStoreModes(m);
    return m;
  }();
  return *modes;
}

void AddDurableStoreModes(std::vector<Mode>* modes) {
  (void)modes;
  // PENDING (stores_pending.md): the lead registers the durable stores here, e.g.
  //   modes->push_back(Mode{"file", ManagerKind::kStore, <factory: FileCheckpointStore on
  //                         PosixEnv() in dir, fsync on>, LimitKind::kAtomicFile, true});
  //   modes->push_back(Mode{"sqlite", ManagerKind::kStore, <factory: SqliteCheckpointStore at
  //                         dir + "/checkpoints.db">, LimitKind::kAppendSync, true});
  //   modes->push_back(Mode{"simfs", ManagerKind::kStore, <factory: FileCheckpointStore on a
  //                         faults::SimFs owned by the store wrapper>, LimitKind::kMemcpy, false});
}

}  // namespace stepfault::bench
