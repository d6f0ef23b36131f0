// A SQLite VFS over a SimFs, registered under a name, so a store that opens its database with
// sqlite3_open_v2(path, &db, flags, vfs_name) runs on the simulated file system and never knows.
//
// What it promises:
//  - Every xWrite, xSync, xTruncate, xDelete and file creation goes through the SimFs fault points
//    (fs.write[db], fs.fsync[journal], fs.truncate[..], fs.unlink[..], fs.create[..],
//    fs.dirsync[..]), with the roles of the SimFs's classifier (SqliteRoleOf is the suggested one).
//  - Like SQLite's unix VFS, the first xSync of a file this VFS created (journal, WAL, and also the
//    main database, which unix does not do) is followed by a SyncDir of its directory, so the new
//    name is durable under the strict crash model; xDelete dir-syncs when SQLite asks (syncDir set,
//    which it does for the journal in DELETE mode only under synchronous=EXTRA).
//  - A C++ exception never crosses SQLite's C frames: a CrashSignal from a fault point is caught at
//    the VFS boundary (the world is already frozen) and becomes SQLITE_IOERR_* (or SQLITE_CANTOPEN
//    from xOpen); SimVfsDeath tells the caller which death happened, so it can unwind the life.
//  - An injected kFail becomes SQLITE_IOERR_* (SQLITE_FULL for ENOSPC on a write).
//  - No OS randomness, no sleeping, no wall clock: xRandomness draws from a seeded Rng, xSleep
//  returns
//    at once, xCurrentTime reads a LogicalClock.
//  - Locks: SQLite's SHARED/RESERVED/PENDING/EXCLUSIVE locks per file, as os_unix.c grants them
//    (SQLITE_BUSY where it would refuse; a failed EXCLUSIVE stays PENDING), shared by every
//    connection to the file in one world (one SimFs), whichever VFS name opened it. One VFS name
//    is one simulated process: several actors of a world each register their own name over the
//    same SimFs and contend for the same locks. Locks are memory state of the machine: a
//    CrashClone (crash or power loss) starts with none, and KillSimVfsProcess releases the locks of
//    one process that died while the machine lives on (as the kernel drops a dead process's fcntl
//    locks), leaving its journal hot for the next connection to roll back.
//  - Journal modes: rollback journals (DELETE, TRUNCATE, PERSIST) work. There is no xShm, so
//    "PRAGMA journal_mode=WAL" leaves the mode unchanged (SQLite's rule for VFSes without shared
//    memory) unless locking_mode=EXCLUSIVE, where SQLite keeps the WAL index in heap memory and WAL
//    works over xRead/xWrite.
//  - Files SQLite opens with DELETEONCLOSE or without a name (temp files) are anonymous SimFs files
//    (role "temp"): never linked, gone on close.
// Thread-safety: registration and the lock tables are guarded by mutexes, so the actors of one
// world may run on different threads as long as only one drives the SimFs at a time (a baton, as
// the schedule explorer hands over); one connection is used by one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/status.h"
#include "faults/fault_hook.h"
#include "faults/sim_fs.h"

namespace stepfault::faults {

// Linking this VFS also turns SQLite's memory statistics off process-wide, before SQLite
// initializes (how it allocates only, never what it reads or writes; see sim_vfs.cc).
//
// Registers (not as default) a VFS named vfs_name whose files live in fs; seed drives xRandomness.
// kAlreadyExists if the name is taken (by any VFS).
// REQUIRES: fs outlives the registration.
Status RegisterSimVfs(const std::string& vfs_name, SimFs* fs, uint64_t seed);

// Unregisters and frees a VFS registered by RegisterSimVfs; no-op for unknown names.
// REQUIRES: no connection opened through it is still open.
void UnregisterSimVfs(const std::string& vfs_name);

// The first death this VFS caught at its C boundary (nullopt if none or unknown name). A caller
// that sees an SQLite error checks this (or fs->frozen()) and rethrows the CrashSignal to end the
// life.
std::optional<CrashSignal> SimVfsDeath(const std::string& vfs_name);

// The process behind vfs_name dies while the machine lives: every lock its files hold is released
// at once, and every later call through it (reads, writes, locks, open, delete, close's clean-up)
// does nothing and fails, so closing its connections afterwards changes no byte. The caller still
// closes them (sqlite3_close_v2) and then unregisters the name. kNotFound for an unknown name.
Status KillSimVfsProcess(const std::string& vfs_name);

// SQLite draws its randomness (journal nonces, randomblob, temp names) from one process-wide PRNG
// seeded by the DEFAULT VFS's xRandomness, not by the VFS a connection opened. This reseeds that
// PRNG from `seed` (SQLITE_TESTCTRL_PRNG_SEED), so a life's SQLite bytes depend on the seed alone.
// Process-wide: call it at the start of each simulated life, with no other thread using SQLite.
void SeedSqliteRandomness(uint64_t seed);

// The suggested role classifier for SQLite files: "*-journal" and "*-wal" -> "journal",
// "*.db" (and "*.sqlite") -> "db", anything else -> "file" (so the VFS's directory syncs are
// "fs.dirsync[file]" unless the caller's classifier names its directories).
std::string SqliteRoleOf(const std::string& path);

}  // namespace stepfault::faults
