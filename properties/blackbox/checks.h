// The checks of black-box mode, run on a recovered directory: the spec's check commands (the exit
// status is the verdict, stdout the message), its declarative SQL checks, and the built-in ones
// (PRAGMA integrity_check on every SQLite database in the directory; optionally, no file the
// fault-free run never created). Each failure names its invariant (scenarios/invariants.h).
// Thread-safety: safe from any thread on distinct directories.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/status.h"
#include "properties/blackbox/spec.h"

namespace stepfault::properties::blackbox {

struct CheckFailure {
  std::string invariant, message;
};

// What the fault-free run left: the SQL results same-as-reference compares with, and its files.
struct Reference {
  std::map<size_t, std::vector<std::string>> sql_rows;  // by index into spec.sql_checks
  std::set<std::string> files;
  bool has_database = false;  // the fault-free run left a SQLite database (HasSqliteDatabase)
};

// Whether any regular file under `dir` is a SQLite database (by its 16-byte header): what
// INV-BB-INTEGRITY checks, so without one it does not apply.
bool HasSqliteDatabase(const std::string& dir);

struct CheckContext {
  const Spec* spec = nullptr;
  std::string work_dir;  // the commands' working directory
  std::string dir;       // the directory under test (absolute)
  std::map<std::string, std::string> env;
  const Reference* reference = nullptr;  // null while the reference itself is being taken
};

std::vector<CheckFailure> RunChecks(const CheckContext& context);

// The rows of `query` on the SQLite database at `db_path`, columns joined by '|'.
Result<std::vector<std::string>> QueryRows(const std::string& db_path, const std::string& query);

// Relative paths of every regular file under `dir`.
std::set<std::string> FilesUnder(const std::string& dir);

}  // namespace stepfault::properties::blackbox
