// The black-box spec file: what program to put under every window, and how to check it
// (docs/blackbox.md documents the schema).
//
//   {"name": "json-inplace", "dir": "data",
//    "setup": ["cmd", ...], "run": ["cmd", ...], "recover": ["cmd", ...], "check": ["cmd", ...],
//    "sql_checks": [{"db": "app.db", "query": "SELECT ...",
//                    "expect": "empty" | "same-as-reference" | {"rows": N} | {"equals": ["a|b",
//                    ...]}}],
//    "env": {"KEY": "value"}, "timeout_s": 30, "lives_max": 3, "no_stray_files": false,
//    "temp_names": ["tmp_obj_*"], "ack": "auto" | "file" | "stdout", "volatile": ["*-shm",
//    "cache/*"]}
//
// `dir` is relative to the working directory each state gets (never absolute, never "..");
// `run` needs at least one command. `volatile` names files the program rebuilds when it opens them
// (glob patterns relative to `dir`, fnmatch(3) without FNM_PATHNAME: `*` matches `/` too; no
// leading `/`, no `..`): they are left out of every crash state and of the replay-of-the-trace
// check, and a shared mapping of one is not reported; "*-shm" (SQLite) is always volatile.
// ParseSpec rejects anything else with kInvalidArgument naming the JSON pointer of the offending
// value and the reason. Thread-safety: values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault::scenarios::blackbox {

struct SqlCheck {
  enum class Expect { kEmpty, kRows, kEquals, kSameAsReference };
  std::string db;  // relative to the directory under test
  std::string query;
  Expect expect = Expect::kEmpty;
  int64_t rows = 0;                 // kRows
  std::vector<std::string> equals;  // kEquals: one row per entry, columns joined by '|'
};

struct Spec {
  std::string name, dir;
  std::string path;  // the spec file ("" when parsed from text)
  std::vector<std::string> setup, run, recover, check;
  std::vector<SqlCheck> sql_checks;
  std::map<std::string, std::string> env;
  int timeout_s = 30;
  int lives_max = 3;
  bool no_stray_files = false;
  // Globs over one file name: names the program makes up anew in every run (trace.h, WindowsOf).
  std::vector<std::string> temp_names;
  // Where acknowledgements come from: the acknowledgement file $STEPFAULT_ACK_FILE, standard
  // output, or (auto) the file when the fault-free run wrote to it and standard output otherwise.
  enum class Ack { kAuto, kFile, kStdout } ack = Ack::kAuto;
  std::vector<std::string> volatile_files;  // `volatile`: glob patterns relative to dir
};

Result<Spec> ParseSpec(std::string_view text, const std::string& source);
Result<Spec> LoadSpec(const std::string& path);

}  // namespace stepfault::scenarios::blackbox
