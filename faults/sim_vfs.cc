// The SQLite VFS over a SimFs: the C callbacks, each a thin translation to SimFs calls that catches
// every C++ exception before it reaches SQLite. Contract in faults/sim_vfs.h.
// Thread-safety: the registry is mutex-guarded; each VFS is driven by one thread.
#include "faults/sim_vfs.h"

#include <sqlite3.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <set>

#include "engine/clock.h"
#include "engine/random.h"
#include "faults/sim_fs_internal.h"

namespace stepfault::faults {
namespace {

// SQLite's per-file lock state (what os_unix.c keeps per inode), shared by every connection to
// the file in one simulated world, whichever VFS name (simulated process) opened it.
struct LockState {
  int shared_holders = 0;
  const void* writer = nullptr;  // holder of RESERVED, PENDING or EXCLUSIVE
  int writer_level = SQLITE_LOCK_NONE;
};

// The lock table of one world (one SimFs): memory state of the machine, so a CrashClone (a crash
// or power loss) starts with none. Counted by the VFS registrations that use it.
struct WorldLocks {
  int registrations = 0;
  std::map<std::string, LockState> locks;  // by normalized path
};

struct FileImpl;

struct VfsState {
  sqlite3_vfs vfs{};
  std::string name;
  SimFs* fs = nullptr;
  WorldLocks* world_locks = nullptr;  // owned by WorldLockTables()
  Rng rng{0};
  LogicalClock clock;
  std::optional<CrashSignal> death;
  bool killed = false;             // KillSimVfsProcess: the simulated process is gone
  std::set<FileImpl*> open_files;  // for KillSimVfsProcess
  uint64_t anonymous_files = 0;
};

// Every world's lock table, keyed by its SimFs. Guarded by LockMutex(): the actors of one world
// run on different threads (one at a time, handing a baton over), so the table is shared memory.
std::mutex& LockMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
std::map<const SimFs*, WorldLocks>& WorldLockTables() {
  static auto* tables = new std::map<const SimFs*, WorldLocks>();
  return *tables;
}

struct FileImpl {
  VfsState* vfs = nullptr;
  std::unique_ptr<SimFile> file;
  std::string path;      // empty for anonymous files
  std::string lock_key;  // path, or a unique name for anonymous files
  int lock = SQLITE_LOCK_NONE;
  bool dirsync_on_sync = false;  // opened with CREATE: its name becomes durable at its first sync
};

// The sqlite3_file SQLite allocates (szOsFile bytes); plain layout, the C++ state lives on the
// heap.
struct SimSqliteFile {
  sqlite3_file base;
  FileImpl* impl;
};

VfsState* StateOf(sqlite3_vfs* vfs) { return static_cast<VfsState*>(vfs->pAppData); }
FileImpl* ImplOf(sqlite3_file* file) { return reinterpret_cast<SimSqliteFile*>(file)->impl; }

// Runs body (returning an SQLite code); a death or any other exception becomes error_code, so no
// exception ever unwinds through SQLite's C frames.
template <typename Body>
int Guard(VfsState* vfs, int error_code, Body&& body) {
  if (vfs->killed) return error_code;  // a dead process does no I/O
  try {
    return body();
  } catch (const CrashSignal& signal) {
    if (!vfs->death.has_value()) vfs->death = signal;
    return error_code;
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    return error_code;
  }
}

int Code(const Status& status, int io_code) {
  if (status.ok()) return SQLITE_OK;
  if (status.code() == StatusCode::kNoSpace && io_code == SQLITE_IOERR_WRITE) return SQLITE_FULL;
  return io_code;
}

int Close(sqlite3_file* file);
int Read(sqlite3_file* file, void* out, int amount, sqlite3_int64 offset) {
  FileImpl* f = ImplOf(file);
  return Guard(f->vfs, SQLITE_IOERR_READ, [&] {
    Result<size_t> got = f->file->ReadAt(static_cast<uint64_t>(offset), static_cast<size_t>(amount),
                                         static_cast<char*>(out));
    if (!got.ok()) return SQLITE_IOERR_READ;
    if (*got < static_cast<size_t>(amount)) {
      std::memset(static_cast<char*>(out) + *got, 0, static_cast<size_t>(amount) - *got);
      return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
  });
}
int Write(sqlite3_file* file, const void* data, int amount, sqlite3_int64 offset) {
  FileImpl* f = ImplOf(file);
  return Guard(f->vfs, SQLITE_IOERR_WRITE, [&] {
    std::string_view bytes(static_cast<const char*>(data), static_cast<size_t>(amount));
    return Code(f->file->WriteAt(static_cast<uint64_t>(offset), bytes), SQLITE_IOERR_WRITE);
  });
}
int Truncate(sqlite3_file* file, sqlite3_int64 size) {
  FileImpl* f = ImplOf(file);
  return Guard(f->vfs, SQLITE_IOERR_TRUNCATE, [&] {
    return Code(f->file->Truncate(static_cast<uint64_t>(size)), SQLITE_IOERR_TRUNCATE);
  });
}
int Sync(sqlite3_file* file, int /*flags*/) {
  FileImpl* f = ImplOf(file);
  return Guard(f->vfs, SQLITE_IOERR_FSYNC, [&] {
    int rc = Code(f->file->Sync(), SQLITE_IOERR_FSYNC);
    if (rc != SQLITE_OK || !f->dirsync_on_sync) return rc;
    rc = Code(f->vfs->fs->SyncDir(DirName(f->path)), SQLITE_IOERR_DIR_FSYNC);
    if (rc == SQLITE_OK) f->dirsync_on_sync = false;
    return rc;
  });
}
int FileSize(sqlite3_file* file, sqlite3_int64* size) {
  FileImpl* f = ImplOf(file);
  return Guard(f->vfs, SQLITE_IOERR_FSTAT, [&] {
    Result<uint64_t> got = f->file->Size();
    if (!got.ok()) return SQLITE_IOERR_FSTAT;
    *size = static_cast<sqlite3_int64>(*got);
    return SQLITE_OK;
  });
}

// SQLite's lock protocol (as os_unix.c keeps it per inode): many SHARED, one RESERVED writer that
// readers may join, PENDING that lets no new SHARED in, EXCLUSIVE once the other readers are gone.
// A failed EXCLUSIVE leaves the caller at PENDING (as unixLock does), so new readers stay out while
// it retries. SQLite never asks for PENDING itself.
int LockLocked(FileImpl* f, LockState& s, int level) {
  if (level == SQLITE_LOCK_SHARED) {
    if (s.writer != nullptr && s.writer != f && s.writer_level >= SQLITE_LOCK_PENDING) {
      return SQLITE_BUSY;
    }
    ++s.shared_holders;
    f->lock = SQLITE_LOCK_SHARED;
    return SQLITE_OK;
  }
  SF_CHECK(f->lock >= SQLITE_LOCK_SHARED);  // SQLite asks for SHARED first
  if (s.writer != nullptr && s.writer != f) return SQLITE_BUSY;
  s.writer = f;
  if (level == SQLITE_LOCK_RESERVED) {
    s.writer_level = f->lock = SQLITE_LOCK_RESERVED;
    return SQLITE_OK;
  }
  SF_CHECK(level == SQLITE_LOCK_EXCLUSIVE);
  s.writer_level = f->lock = SQLITE_LOCK_PENDING;
  if (s.shared_holders > 1) return SQLITE_BUSY;
  s.writer_level = f->lock = SQLITE_LOCK_EXCLUSIVE;
  return SQLITE_OK;
}
int Lock(sqlite3_file* file, int level) {
  FileImpl* f = ImplOf(file);
  if (f->vfs->killed || f->vfs->fs->frozen()) return SQLITE_IOERR_LOCK;
  if (f->lock >= level) return SQLITE_OK;
  std::lock_guard<std::mutex> guard(LockMutex());
  return LockLocked(f, f->vfs->world_locks->locks[f->lock_key], level);
}
// Lowers f's lock to level (SHARED or NONE); the caller holds LockMutex(). Works on a killed
// process too: that is how its locks are released.
void UnlockLocked(FileImpl* f, int level) {
  if (f->lock <= level) return;
  auto& locks = f->vfs->world_locks->locks;
  LockState& s = locks[f->lock_key];
  if (f->lock > SQLITE_LOCK_SHARED) {
    s.writer = nullptr;
    s.writer_level = SQLITE_LOCK_NONE;
  }
  if (level == SQLITE_LOCK_NONE) {
    SF_CHECK(s.shared_holders > 0);
    --s.shared_holders;
  }
  f->lock = level;
  if (s.shared_holders == 0 && s.writer == nullptr) locks.erase(f->lock_key);
}
int Unlock(sqlite3_file* file, int level) {
  std::lock_guard<std::mutex> guard(LockMutex());
  UnlockLocked(ImplOf(file), level);
  return SQLITE_OK;
}
// As unixCheckReservedLock: true when any connection (this one included) holds RESERVED or more.
// A journal with no such holder is hot, and the next reader rolls it back.
int CheckReservedLock(sqlite3_file* file, int* out) {
  FileImpl* f = ImplOf(file);
  if (f->vfs->killed || f->vfs->fs->frozen()) return SQLITE_IOERR_CHECKRESERVEDLOCK;
  std::lock_guard<std::mutex> guard(LockMutex());
  const auto& locks = f->vfs->world_locks->locks;
  auto it = locks.find(f->lock_key);
  *out = it != locks.end() && it->second.writer_level >= SQLITE_LOCK_RESERVED;
  return SQLITE_OK;
}
int FileControl(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int SectorSize(sqlite3_file*) { return static_cast<int>(kSimSectorBytes); }
int DeviceCharacteristics(sqlite3_file*) { return 0; }

const sqlite3_io_methods kIoMethods = {1,
                                       Close,
                                       Read,
                                       Write,
                                       Truncate,
                                       Sync,
                                       FileSize,
                                       Lock,
                                       Unlock,
                                       CheckReservedLock,
                                       FileControl,
                                       SectorSize,
                                       DeviceCharacteristics};

int Close(sqlite3_file* file) {
  FileImpl* f = ImplOf(file);
  Unlock(file, SQLITE_LOCK_NONE);
  f->vfs->open_files.erase(f);
  delete f;
  file->pMethods = nullptr;
  return SQLITE_OK;
}

int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  VfsState* state = StateOf(vfs);
  file->pMethods = nullptr;  // SQLite calls xClose only when this is set
  return Guard(state, SQLITE_CANTOPEN, [&] {
    auto impl = std::make_unique<FileImpl>();
    impl->vfs = state;
    if (name == nullptr || (flags & SQLITE_OPEN_DELETEONCLOSE) != 0) {
      Result<std::unique_ptr<SimFile>> opened = state->fs->OpenAnonymousFile();
      if (!opened.ok()) return SQLITE_CANTOPEN;
      impl->file = std::move(*opened);
      impl->lock_key =
          "<anonymous " + state->name + " " + std::to_string(++state->anonymous_files) + ">";
    } else {
      impl->path = name;
      Result<std::string> key = NormalizeSimPath(name);
      if (!key.ok()) return SQLITE_CANTOPEN;
      impl->lock_key = *key;
      const bool create = (flags & SQLITE_OPEN_CREATE) != 0;
      Result<bool> existed = state->fs->FileExists(impl->path);
      if (!existed.ok()) return SQLITE_CANTOPEN;
      Result<std::unique_ptr<SimFile>> opened =
          state->fs->OpenFile(impl->path, create, (flags & SQLITE_OPEN_EXCLUSIVE) != 0);
      if (!opened.ok()) return SQLITE_CANTOPEN;
      impl->file = std::move(*opened);
      // As SQLite's unix VFS does: a file opened with SQLITE_OPEN_CREATE syncs its directory at its
      // first sync even when it already existed (a journal left behind by a crashed process is
      // reused, and its name must be durable before the database is overwritten).
      impl->dirsync_on_sync = create;
    }
    if (out_flags != nullptr) *out_flags = flags;
    state->open_files.insert(impl.get());
    reinterpret_cast<SimSqliteFile*>(file)->impl = impl.release();
    file->pMethods = &kIoMethods;
    return SQLITE_OK;
  });
}

int Delete(sqlite3_vfs* vfs, const char* name, int sync_dir) {
  VfsState* state = StateOf(vfs);
  return Guard(state, SQLITE_IOERR_DELETE, [&] {
    Status removed = state->fs->RemoveFile(name);
    if (removed.code() == StatusCode::kNotFound) return SQLITE_IOERR_DELETE_NOENT;
    if (!removed.ok()) return SQLITE_IOERR_DELETE;
    if (sync_dir == 0) return SQLITE_OK;
    return Code(state->fs->SyncDir(DirName(name)), SQLITE_IOERR_DIR_FSYNC);
  });
}

int Access(sqlite3_vfs* vfs, const char* name, int flags, int* out) {
  VfsState* state = StateOf(vfs);
  return Guard(state, SQLITE_IOERR_ACCESS, [&] {
    Result<bool> exists = state->fs->FileExists(name);
    if (!exists.ok()) return SQLITE_IOERR_ACCESS;
    *out = *exists ? 1 : 0;
    if (*exists && flags == SQLITE_ACCESS_EXISTS) {
      // As os_unix.c: an empty regular file does not count (a zeroed-out journal is no journal).
      Result<uint64_t> size = state->fs->GetFileSize(name);
      if (size.ok() && *size == 0) *out = 0;
    }
    return SQLITE_OK;
  });
}

int FullPathname(sqlite3_vfs*, const char* name, int out_size, char* out) {
  Result<std::string> full = NormalizeSimPath(name);
  if (!full.ok() || full->size() + 1 > static_cast<size_t>(out_size)) return SQLITE_CANTOPEN;
  std::memcpy(out, full->c_str(), full->size() + 1);
  return SQLITE_OK;
}

void* DlOpen(sqlite3_vfs*, const char*) { return nullptr; }
void DlError(sqlite3_vfs*, int n, char* out) {
  if (n > 0) std::snprintf(out, static_cast<size_t>(n), "no extensions in the simulated world");
}
void (*DlSym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void DlClose(sqlite3_vfs*, void*) {}

int Randomness(sqlite3_vfs* vfs, int n, char* out) {
  Rng& rng = StateOf(vfs)->rng;
  for (int i = 0; i < n; ++i) out[i] = static_cast<char>(rng.Next() & 0xff);
  return n;
}
int Sleep(sqlite3_vfs*, int micros) { return micros; }
int CurrentTimeInt64(sqlite3_vfs* vfs, sqlite3_int64* out) {
  // Julian day in milliseconds: the Unix epoch is day 2440587.5.
  constexpr sqlite3_int64 kUnixEpochJulianMs = 210866760000000LL;
  *out = kUnixEpochJulianMs + StateOf(vfs)->clock.NowMicros() / 1000;
  return SQLITE_OK;
}
int CurrentTime(sqlite3_vfs* vfs, double* out) {
  sqlite3_int64 ms = 0;
  CurrentTimeInt64(vfs, &ms);
  *out = static_cast<double>(ms) / 86400000.0;
  return SQLITE_OK;
}
int GetLastError(sqlite3_vfs*, int, char*) { return 0; }

std::mutex& RegistryMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}
std::map<std::string, std::unique_ptr<VfsState>>& Registry() {
  static auto* registry = new std::map<std::string, std::unique_ptr<VfsState>>();
  return *registry;
}

// Drops one registration's reference to fs's lock table (the last one frees it).
void ReleaseWorldLocks(const SimFs* fs) {
  std::lock_guard<std::mutex> guard(LockMutex());
  auto it = WorldLockTables().find(fs);
  if (it == WorldLockTables().end()) return;
  if (--it->second.registrations == 0) WorldLockTables().erase(it);
}

}  // namespace

Status RegisterSimVfs(const std::string& vfs_name, SimFs* fs, uint64_t seed) {
  SF_CHECK(fs != nullptr);
  std::lock_guard<std::mutex> lock(RegistryMutex());
  if (Registry().count(vfs_name) > 0 || sqlite3_vfs_find(vfs_name.c_str()) != nullptr) {
    return Status::AlreadyExists("SQLite VFS '" + vfs_name +
                                 "' is already registered; pick a name per simulated world");
  }
  auto state = std::make_unique<VfsState>();
  state->name = vfs_name;
  state->fs = fs;
  state->rng = Rng(DeriveSeed(seed, "sqlite.randomness"));
  {
    std::lock_guard<std::mutex> guard(LockMutex());
    state->world_locks = &WorldLockTables()[fs];
    ++state->world_locks->registrations;
  }
  sqlite3_vfs& v = state->vfs;
  v.iVersion = 2;
  v.szOsFile = static_cast<int>(sizeof(SimSqliteFile));
  v.mxPathname = 512;
  v.zName = state->name.c_str();
  v.pAppData = state.get();
  v.xOpen = Open;
  v.xDelete = Delete;
  v.xAccess = Access;
  v.xFullPathname = FullPathname;
  v.xDlOpen = DlOpen;
  v.xDlError = DlError;
  v.xDlSym = DlSym;
  v.xDlClose = DlClose;
  v.xRandomness = Randomness;
  v.xSleep = Sleep;
  v.xCurrentTime = CurrentTime;
  v.xGetLastError = GetLastError;
  v.xCurrentTimeInt64 = CurrentTimeInt64;
  int rc = sqlite3_vfs_register(&v, /*makeDflt=*/0);
  if (rc != SQLITE_OK) {
    ReleaseWorldLocks(fs);
    return Status::Internal("sqlite3_vfs_register('" + vfs_name +
                            "') failed: " + sqlite3_errstr(rc));
  }
  Registry()[vfs_name] = std::move(state);
  return Status::Ok();
}

void UnregisterSimVfs(const std::string& vfs_name) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(vfs_name);
  if (it == Registry().end()) return;
  sqlite3_vfs_unregister(&it->second->vfs);
  ReleaseWorldLocks(it->second->fs);
  Registry().erase(it);
}

Status KillSimVfsProcess(const std::string& vfs_name) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(vfs_name);
  if (it == Registry().end()) {
    return Status::NotFound("no simulated SQLite VFS named '" + vfs_name + "' to kill");
  }
  VfsState& state = *it->second;
  state.killed = true;
  std::lock_guard<std::mutex> guard(LockMutex());
  for (FileImpl* f : state.open_files) UnlockLocked(f, SQLITE_LOCK_NONE);
  return Status::Ok();
}

std::optional<CrashSignal> SimVfsDeath(const std::string& vfs_name) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  auto it = Registry().find(vfs_name);
  if (it == Registry().end()) return std::nullopt;
  return it->second->death;
}

void SeedSqliteRandomness(uint64_t seed) {
  // SQLite takes an int; 0 would mean "back to the default VFS's randomness".
  int x = static_cast<int>(DeriveSeed(seed, "sqlite.prng") & 0x7fffffff);
  if (x == 0) x = 1;
  sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, x, static_cast<sqlite3*>(nullptr));
}

namespace {

// Exploration opens a business database in every simulated life (as a new process must), so
// SQLite's per-allocation work is paid in every life and every look. One process-wide
// setting that changes only how SQLite gets memory, never what it reads or writes: no memory
// statistics (each allocation otherwise takes a global mutex and asks malloc for the block's
// size). sqlite3_config only works before SQLite initializes, hence a static initializer in the
// file every exploring binary links for the VFS; where SQLite was initialized earlier it returns
// SQLITE_MISUSE and the default stays (nothing else changes). Nothing in Stepfault reads SQLite's
// memory statistics or sets a heap limit (both need them). Measured by BM_BusinessConnection: a
// connection's open and close 40 -> 33 us of CPU (docs/performance.md); also turning off the
// initial bulk page-cache allocation measured nothing more, so it is not done.
[[maybe_unused]] const int kSqliteMemoryStatisticsOff = [] {
  (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  return 0;
}();

}  // namespace

std::string SqliteRoleOf(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) { return path.ends_with(suffix); };
  if (ends_with("-journal") || ends_with("-wal")) return "journal";
  if (ends_with(".db") || ends_with(".sqlite")) return "db";
  return "file";
}

}  // namespace stepfault::faults
