// A pass-through SQLite VFS for the SQLite store's tests: it opens every file through SQLite's
// default VFS and calls a test's hook before each xWrite and xSync, with the kind of file SQLite
// opened ("db", "journal", "wal", "other"); a hook counts, or fails the call by returning an error
// code (SQLITE_OK passes it on). Registered once per name, never as the default VFS.
// Version 1 (no shared memory): WAL works through it only in exclusive locking mode, which the
// store sets.
// Thread-safety: registration is guarded by a mutex; hooks run on the thread that does the I/O
// (the tests that use them are single-threaded).
#pragma once

#include <sqlite3.h>

#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace stepfault::test_util {

struct ShimVfsHooks {
  std::function<int(const char* kind)> before_write;  // empty: every write passes
  std::function<int(const char* kind)> before_sync;   // empty: every sync passes
};

namespace shim_vfs_internal {

struct Vfs {
  sqlite3_vfs vfs;
  sqlite3_vfs* real;
  ShimVfsHooks hooks;
  std::string name;
};

struct File {
  sqlite3_file base;
  const char* kind;
  const ShimVfsHooks* hooks;
  sqlite3_file* real;  // in the same allocation, after this struct
};

inline File* Shim(sqlite3_file* f) { return reinterpret_cast<File*>(f); }
inline sqlite3_file* Real(sqlite3_file* f) { return Shim(f)->real; }

inline int Close(sqlite3_file* f) { return Real(f)->pMethods->xClose(Real(f)); }
inline int Read(sqlite3_file* f, void* buf, int n, sqlite3_int64 off) {
  return Real(f)->pMethods->xRead(Real(f), buf, n, off);
}
inline int Write(sqlite3_file* f, const void* buf, int n, sqlite3_int64 off) {
  if (Shim(f)->hooks->before_write) {
    const int rc = Shim(f)->hooks->before_write(Shim(f)->kind);
    if (rc != SQLITE_OK) return rc;
  }
  return Real(f)->pMethods->xWrite(Real(f), buf, n, off);
}
inline int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  return Real(f)->pMethods->xTruncate(Real(f), size);
}
inline int Sync(sqlite3_file* f, int flags) {
  if (Shim(f)->hooks->before_sync) {
    const int rc = Shim(f)->hooks->before_sync(Shim(f)->kind);
    if (rc != SQLITE_OK) return rc;
  }
  return Real(f)->pMethods->xSync(Real(f), flags);
}
inline int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Real(f)->pMethods->xFileSize(Real(f), size);
}
inline int Lock(sqlite3_file* f, int level) { return Real(f)->pMethods->xLock(Real(f), level); }
inline int Unlock(sqlite3_file* f, int level) { return Real(f)->pMethods->xUnlock(Real(f), level); }
inline int CheckReservedLock(sqlite3_file* f, int* out) {
  return Real(f)->pMethods->xCheckReservedLock(Real(f), out);
}
inline int FileControl(sqlite3_file* f, int op, void* arg) {
  return Real(f)->pMethods->xFileControl(Real(f), op, arg);
}
inline int SectorSize(sqlite3_file* f) { return Real(f)->pMethods->xSectorSize(Real(f)); }
inline int DeviceCharacteristics(sqlite3_file* f) {
  return Real(f)->pMethods->xDeviceCharacteristics(Real(f));
}

inline const sqlite3_io_methods kMethods = {1,
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

inline int Open(sqlite3_vfs* vfs, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* shim = static_cast<Vfs*>(vfs->pAppData);
  File* f = Shim(file);
  f->base.pMethods = nullptr;
  f->hooks = &shim->hooks;
  f->real = reinterpret_cast<sqlite3_file*>(f + 1);
  f->kind = (flags & SQLITE_OPEN_MAIN_DB)        ? "db"
            : (flags & SQLITE_OPEN_MAIN_JOURNAL) ? "journal"
            : (flags & SQLITE_OPEN_WAL)          ? "wal"
                                                 : "other";
  const int rc = shim->real->xOpen(shim->real, name, f->real, flags, out_flags);
  if (rc == SQLITE_OK) f->base.pMethods = &kMethods;
  return rc;
}

}  // namespace shim_vfs_internal

// Registers a shim VFS named `name` with `hooks` over the default VFS, once: a later call with the
// same name keeps the first hooks. True when the VFS is registered.
inline bool RegisterShimVfs(const std::string& name, ShimVfsHooks hooks) {
  static std::mutex mu;
  static auto* registered = new std::map<std::string, shim_vfs_internal::Vfs*>();
  std::lock_guard<std::mutex> lock(mu);
  if (registered->count(name) != 0) return true;
  sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
  if (real == nullptr) return false;
  auto* shim = new shim_vfs_internal::Vfs{*real, real, std::move(hooks), name};
  shim->vfs.iVersion = 1;
  shim->vfs.szOsFile = static_cast<int>(sizeof(shim_vfs_internal::File)) + real->szOsFile;
  shim->vfs.zName = shim->name.c_str();
  shim->vfs.pAppData = shim;
  shim->vfs.xOpen = shim_vfs_internal::Open;
  if (sqlite3_vfs_register(&shim->vfs, /*makeDflt=*/0) != SQLITE_OK) return false;
  (*registered)[name] = shim;
  return true;
}

}  // namespace stepfault::test_util
