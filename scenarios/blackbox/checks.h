// The checks of black-box mode, run on a recovered directory: the spec's check commands (the exit
// status is the verdict, stdout the message), its declarative SQL checks, and the built-in ones
// (PRAGMA integrity_check on every SQLite database in the directory; optionally, no file the
// fault-free run never created). Each failure names its invariant (scenarios/invariants.h).
// This is black-box mode's oracle: it judges what the program's commands did and the directory they
// left, but it runs no program itself; the driver runs each check command
// (properties/blackbox/command_runner.h) and hands the oracle the result, so the oracle needs none
// of the drivers (scenarios/ never includes properties/).
// Thread-safety: safe from any thread on distinct directories.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/status.h"
#include "scenarios/blackbox/spec.h"

namespace stepfault::scenarios::blackbox {

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

// What one check command did, as the driver that ran it saw it.
struct CheckCommandResult {
  int exit_code = -1;      // the shell's status; 128+N when killed by signal N
  bool timed_out = false;  // it did not finish within the spec's timeout_s
  std::string out, err;
};

// Runs one of the spec's check commands in the commands' working directory, with their
// environment and the spec's timeout.
using CheckCommandRunner = std::function<CheckCommandResult(const std::string& command)>;

struct CheckContext {
  const Spec* spec = nullptr;
  std::string dir;                       // the directory under test (absolute)
  const Reference* reference = nullptr;  // null while the reference itself is being taken
  CheckCommandRunner run_check;          // needed when the spec has check commands
};

std::vector<CheckFailure> RunChecks(const CheckContext& context);

// The rows of `query` on the SQLite database at `db_path`, columns joined by '|'.
Result<std::vector<std::string>> QueryRows(const std::string& db_path, const std::string& query);

// Relative paths of every regular file under `dir`.
std::set<std::string> FilesUnder(const std::string& dir);

}  // namespace stepfault::scenarios::blackbox
