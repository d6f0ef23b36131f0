// The checks of black-box mode (see checks.h).
#include "scenarios/blackbox/checks.h"

#include <sqlite3.h>
#include <stdlib.h>  // mkdtemp

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "scenarios/invariants.h"

namespace stepfault::scenarios::blackbox {
namespace {

namespace fs = std::filesystem;

std::string Clip(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

std::string JoinRows(const std::vector<std::string>& rows) {
  std::string out = "[";
  for (size_t i = 0; i < rows.size() && i < 12; ++i) out += (i ? ", " : "") + rows[i];
  if (rows.size() > 12) out += ", ... (" + std::to_string(rows.size()) + " rows)";
  return out + "]";
}

bool IsSqliteFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == 16 && std::string(head, 16) == std::string("SQLite format 3\0", 16);
}

void SqlChecks(const CheckContext& c, std::vector<CheckFailure>* out) {
  for (size_t i = 0; i < c.spec->sql_checks.size(); ++i) {
    const SqlCheck& q = c.spec->sql_checks[i];
    std::string where = "sql_checks[" + std::to_string(i) + "] on " + q.db;
    if (!fs::exists(fs::path(c.dir) / q.db)) {
      out->push_back(
          {scenarios::kInvBbSql, where + ": the database does not exist (looked for " +
                                     c.spec->dir + "/" + q.db +
                                     " in the working directory: `db` is relative to the spec's "
                                     "`dir`, \"" +
                                     c.spec->dir + "\")"});
      continue;
    }
    Result<std::vector<std::string>> rows = QueryRows((fs::path(c.dir) / q.db).string(), q.query);
    if (!rows.ok()) {
      out->push_back({scenarios::kInvBbSql, where + ": " + rows.status().message()});
      continue;
    }
    std::vector<std::string> want;
    switch (q.expect) {
      case SqlCheck::Expect::kEmpty:
        break;
      case SqlCheck::Expect::kRows:
        if (static_cast<int64_t>(rows->size()) != q.rows)
          out->push_back({scenarios::kInvBbSql, where + ": expected " + std::to_string(q.rows) +
                                                    " rows, got " + std::to_string(rows->size()) +
                                                    " " + JoinRows(*rows)});
        continue;
      case SqlCheck::Expect::kEquals:
        want = q.equals;
        break;
      case SqlCheck::Expect::kSameAsReference:
        if (c.reference == nullptr) continue;
        want = c.reference->sql_rows.at(i);
        break;
    }
    if (*rows != want)
      out->push_back({scenarios::kInvBbSql, where + ": `" + q.query + "` gave " + JoinRows(*rows) +
                                                ", expected " + JoinRows(want)});
  }
}

}  // namespace

bool HasSqliteDatabase(const std::string& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && IsSqliteFile(it->path())) return true;
  }
  return false;
}

namespace {

void Integrity(const CheckContext& c, std::vector<CheckFailure>* out) {
  std::vector<fs::path> dbs;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(c.dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file() && IsSqliteFile(it->path())) dbs.push_back(it->path());
  }
  std::sort(dbs.begin(), dbs.end());
  for (const fs::path& db : dbs) {
    Result<std::vector<std::string>> rows = QueryRows(db.string(), "PRAGMA integrity_check");
    std::string rel = fs::relative(db, c.dir).string();
    if (!rows.ok()) {
      out->push_back({scenarios::kInvBbIntegrity, rel + ": " + rows.status().message()});
    } else if (*rows != std::vector<std::string>{"ok"}) {
      out->push_back(
          {scenarios::kInvBbIntegrity, rel + ": integrity_check gave " + JoinRows(*rows)});
    }
  }
}

// Copies the files SQLite reads for `db_path` (every file beside it whose name begins with its
// name: the database, its journal, a WAL) into a fresh temporary directory, which it returns.
Result<fs::path> CopyDatabaseFiles(const std::string& db_path) {
  std::string dir_template = (fs::temp_directory_path() / "stepfault-query-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr)
    return Status::IOError("cannot make a scratch directory for a copy of " + db_path);
  const fs::path copy_dir(dir_template);
  const fs::path from(db_path);
  const std::string name = from.filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(from.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || !it->path().filename().string().starts_with(name)) continue;
    fs::copy_file(it->path(), copy_dir / it->path().filename(), ec);
    if (ec) break;
  }
  if (ec) {
    fs::remove_all(copy_dir, ec);
    return Status::IOError("cannot copy " + db_path + " to look at it");
  }
  return copy_dir;
}

// The rows of `query` on the database at `open_path` (named `db_path` in messages).
Result<std::vector<std::string>> QueryRowsAt(const std::string& db_path,
                                             const std::string& open_path,
                                             const std::string& query) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(open_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Status::IOError("cannot open " + db_path + ": " + msg);
  }
  sqlite3_busy_timeout(db, 2000);
  sqlite3_stmt* stmt = nullptr;
  std::vector<std::string> rows;
  int rc = sqlite3_prepare_v2(db, query.c_str(), -1, &stmt, nullptr);
  while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::string row;
    for (int col = 0; col < sqlite3_column_count(stmt); ++col) {
      const unsigned char* v = sqlite3_column_text(stmt, col);
      row += (col ? "|" : "") + std::string(v ? reinterpret_cast<const char*>(v) : "NULL");
    }
    rows.push_back(row);
    rc = SQLITE_OK;
  }
  std::string msg = sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  if (rc != SQLITE_DONE) return Status::Corruption("query `" + query + "` failed: " + msg);
  return rows;
}

}  // namespace

// On a copy (CopyDatabaseFiles): opening the database rolls back a hot journal, which must happen
// in the copy, never in the directory under test (a later check, the stray-file one, or a later
// life must meet the files as the program left them).
Result<std::vector<std::string>> QueryRows(const std::string& db_path, const std::string& query) {
  SF_ASSIGN_OR_RETURN(fs::path copy_dir, CopyDatabaseFiles(db_path));
  Result<std::vector<std::string>> rows =
      QueryRowsAt(db_path, (copy_dir / fs::path(db_path).filename()).string(), query);
  std::error_code ec;
  fs::remove_all(copy_dir, ec);
  return rows;
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file()) out.insert(fs::relative(it->path(), dir).string());
  }
  return out;
}

std::vector<CheckFailure> RunChecks(const CheckContext& c) {
  std::vector<CheckFailure> out;
  for (const std::string& cmd : c.spec->check) {
    const CheckCommandResult r = c.run_check(cmd);
    if (r.timed_out) {
      out.push_back({scenarios::kInvLiveness, "check `" + cmd + "` did not finish in " +
                                                  std::to_string(c.spec->timeout_s) + " s"});
    } else if (r.exit_code != 0) {
      std::string msg = Clip(r.out.empty() ? r.err : r.out);
      out.push_back({scenarios::kInvBbCheck, "check `" + cmd + "` failed (exit " +
                                                 std::to_string(r.exit_code) + ")" +
                                                 (msg.empty() ? "" : ": " + msg)});
    }
  }
  SqlChecks(c, &out);
  Integrity(c, &out);
  if (c.spec->no_stray_files && c.reference != nullptr) {
    for (const std::string& f : FilesUnder(c.dir)) {
      if (!c.reference->files.count(f))
        out.push_back(
            {scenarios::kInvBbStray, f + " is left behind; the fault-free run never leaves it"});
    }
  }
  return out;
}

}  // namespace stepfault::scenarios::blackbox
