// DurableCheckpoints (see durable_checkpoints.h).
#include "scenarios/durable_checkpoints.h"

#include <algorithm>
#include <atomic>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/stores/file_store.h"
#include "engine/stores/sqlite_store.h"
#include "engine/stores/store_kinds.h"
#include "faults/sim_fs.h"
#include "faults/sim_vfs.h"
#include "scenarios/kept_by_bytes.h"

namespace stepfault::scenarios {
namespace {

Result<DurableCheckpoints> ReadFileStore(Env* env, const std::string& dir) {
  DurableCheckpoints out;
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(dir));
  if (!exists) return out;
  SF_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  std::sort(children.begin(), children.end());
  for (const std::string& name : children) {
    if (name == "LOCK" || name.ends_with(kTempSuffix)) continue;
    auto bytes = env->ReadFile(JoinPath(dir, name));
    if (!bytes.ok()) continue;  // a directory, or a file that vanished
    auto named = FileCheckpointStore::ParseCheckpointFileName(name);
    if (!named) {
      out.objects[name] = Crc32cTag(*bytes);
      continue;
    }
    DurableCheckpoint c;
    c.name = name;
    c.tag = Crc32cTag(*bytes);
    c.seq = named->first;
    c.filed_id = named->second;
    auto decoded = FileCheckpointStore::DecodeFile(name, *bytes);
    if (decoded.ok()) {
      c.intact = true;
      c.entry = decoded->entry;
      c.document = std::move(decoded->document);
    }
    out.objects[c.name] = c.tag;
    out.items.push_back(std::move(c));
  }
  std::stable_sort(
      out.items.begin(), out.items.end(),
      [](const DurableCheckpoint& a, const DurableCheckpoint& b) { return a.seq < b.seq; });
  return out;
}

// `journal_mode`: the store's own (CheckpointStoreKind): opened in any other mode, the copy would
// first be converted (a rollback-journal database switched to WAL, or the reverse), which is not
// how the store reads its rows after a crash.
Result<DurableCheckpoints> ReadSqliteStore(Env* env, const std::string& dir,
                                           const std::string& journal_mode) {
  DurableCheckpoints out;
  const std::string db = JoinPath(dir, kSqliteCheckpointDb);
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(db));
  if (!exists) return out;
  auto* sim = dynamic_cast<faults::SimFs*>(env);
  if (sim == nullptr) {
    return Status::FailedPrecondition(
        "reading a SQLite checkpoint store needs the simulated world");
  }
  std::unique_ptr<faults::SimFs> copy = sim->CrashClone(faults::DeathKind::kCrash, 0);
  static std::atomic<uint64_t> counter{0};
  const std::string vfs = "stepfault-oracle-" + std::to_string(counter.fetch_add(1));
  SF_RETURN_IF_ERROR(faults::RegisterSimVfs(vfs, copy.get(), 0));
  Result<std::vector<SqliteCheckpointStore::Row>> rows = Status::Internal("unread");
  {
    SqliteStoreOptions options;
    options.vfs_name = vfs;
    options.journal_mode = journal_mode;
    auto store = SqliteCheckpointStore::Open(copy.get(), db, options);
    rows = store.ok() ? (*store)->Rows()
                      : Result<std::vector<SqliteCheckpointStore::Row>>(store.status());
  }
  faults::UnregisterSimVfs(vfs);
  if (!rows.ok()) {
    // A database that does not open is one damaged object (INV-CORRUPT's business).
    out.objects[kSqliteCheckpointDb] = "unreadable: " + rows.status().ToString();
    return out;
  }
  for (SqliteCheckpointStore::Row& row : *rows) {
    DurableCheckpoint c;
    c.name = "row " + std::to_string(row.seq);
    c.tag = row.checksum + "|" + Crc32cTag(row.document);
    c.seq = row.seq;
    c.filed_id = row.entry.info.checkpoint_id;
    c.intact = row.intact;
    if (c.intact) {
      c.entry = row.entry;
      c.document = std::move(row.document);
    }
    out.objects[c.name] = c.tag;
    out.items.push_back(std::move(c));
  }
  return out;
}

// Every intact item decoded once, in commit order (see durable_checkpoints.h): a full checkpoint
// by DecodeCheckpoint, a delta by ApplyCheckpointDelta onto its base's decoded checkpoint (a base
// is always committed before its deltas), so each link of a chain is decoded once for the whole
// read instead of once per checkpoint resolved through it (issue 27: that was O(N^2) link decodes
// and documents for a chain of N). A delta whose base is not an intact, decoded item of the same
// session (a missing or damaged link) stays undecoded, as a checkpoint that cannot be loaded.
void Decode(DurableCheckpoints* out) {
  std::map<std::string, std::shared_ptr<const Checkpoint>> by_info;  // session/id -> decoded
  for (DurableCheckpoint& c : out->items) {
    if (!c.intact) continue;
    Result<std::optional<std::string>> base = CheckpointDeltaBase(c.document);
    if (!base.ok()) continue;
    Result<Checkpoint> cp = Status::NotFound("unresolved");
    if (*base) {
      c.delta_base = **base;
      auto b = by_info.find(CheckpointInfo{c.entry.info.session_id, **base}.ToString());
      if (b == by_info.end()) continue;
      // Only the executors the delta itself lists (see durable_checkpoints.h, `decoded`).
      Checkpoint on = *b->second;
      on.instantiated = InstantiatedIds();
      cp = ApplyCheckpointDelta(on, c.document);
    } else {
      cp = DecodeCheckpoint(c.document);
    }
    if (!cp.ok()) continue;
    c.decoded = std::make_shared<const Checkpoint>(std::move(cp).value());
    c.derived = std::make_shared<DurableCheckpoint::Derived>();
    by_info[c.entry.info.ToString()] = c.decoded;
  }
}

// A read is a pure function of the store kind, the directory and the names and bytes of its
// entries (the SQLite store's copy of the world is opened on nothing but its own directory's
// files), so a directory read before is not read and decoded again: the oracles of a run look at
// the same stores after every life and in the power-loss copy, and reused lives
// (properties/life_runner.h) give the same worlds again. Keyed by FilesKey (every byte, so a hit
// is exact); each read counted by its key and what it holds (AllocatedSince: the read and its
// decoded trees, and the kept copy's documents).
struct ReadTag {};
using ReadCache = KeptByBytes<DurableCheckpoints, ReadTag>;

}  // namespace

std::vector<StoreEntry> DurableCheckpoints::Index(const std::string& session_id) const {
  std::vector<StoreEntry> out;
  for (const DurableCheckpoint& c : items) {
    if (c.intact && c.entry.info.session_id == session_id) out.push_back(c.entry);
  }
  return out;
}

const DurableCheckpoint* DurableCheckpoints::Find(const std::string& checkpoint_id) const {
  for (const DurableCheckpoint& c : items) {
    if (c.intact && c.entry.info.checkpoint_id == checkpoint_id) return &c;
  }
  return nullptr;
}

Result<DurableCheckpoints> ReadDurableCheckpoints(const HostEnv& env, const std::string& subdir) {
  const std::string dir = JoinPath(env.dir, subdir);
  SF_ASSIGN_OR_RETURN(std::string key, FilesKey(env.env, env.checkpoint_store, dir, ""));
  if (auto kept = ReadCache::Get().Find(key)) return *std::move(kept);
  const AllocatedSince read_and_decoded;
  const CheckpointStoreKind* kind = FindCheckpointStoreKind(env.checkpoint_store);
  if (kind == nullptr) {
    return Status::InvalidArgument(UnknownCheckpointStoreMessage(env.checkpoint_store));
  }
  SF_ASSIGN_OR_RETURN(DurableCheckpoints out,
                      kind->sqlite_journal_mode != nullptr
                          ? ReadSqliteStore(env.env, dir, kind->sqlite_journal_mode)
                          : ReadFileStore(env.env, dir));
  Decode(&out);
  size_t documents = 0;
  for (const DurableCheckpoint& c : out.items) documents += c.document.size();
  // What the read and its decoded trees hold, plus the kept copy's documents (the decoded
  // checkpoints are shared, not copied); without jemalloc, twice the documents.
  const std::optional<size_t> held = read_and_decoded.Bytes();
  ReadCache::Get().Keep(key, out, held ? *held + documents : 2 * documents);
  return out;
}

}  // namespace stepfault::scenarios
