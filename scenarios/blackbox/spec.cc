// Parsing and validation of black-box spec files (see spec.h).
#include "scenarios/blackbox/spec.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/json_text.h"

namespace stepfault::scenarios::blackbox {
namespace {

using Json = nlohmann::json;

class Checker {
 public:
  explicit Checker(std::string source) : source_(std::move(source)) {}
  bool ok() const { return error_.empty(); }
  void Fail(const std::string& path, const std::string& reason) {
    if (ok()) error_ = path + ": " + reason;
  }
  Status status() const {
    return Status::InvalidArgument(source_ + ": " + error_ +
                                   " (see the spec schema in docs/blackbox.md)");
  }
  void OnlyKeys(const Json& j, const std::string& path, const std::vector<std::string>& allowed) {
    for (const auto& [key, value] : j.items()) {
      (void)value;
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Fail(path + "/" + key, "unknown field; expected one of " + list);
    }
  }
  std::string String(const Json& j, const std::string& path, const char* key, bool required) {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) Fail(path + "/" + key, "missing; expected a string");
      return "";
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
      Fail(path + "/" + key, "expected a non-empty string");
      return "";
    }
    return it->get<std::string>();
  }
  std::vector<std::string> Commands(const Json& j, const char* key) {
    std::vector<std::string> out;
    auto it = j.find(key);
    if (it == j.end()) return out;
    std::string path = std::string("/") + key;
    if (!it->is_array()) {
      Fail(path, "expected an array of shell commands");
      return out;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const Json& c = (*it)[i];
      if (!c.is_string() || c.get<std::string>().find_first_not_of(" \t") == std::string::npos) {
        Fail(path + "/" + std::to_string(i), "expected a non-empty shell command string");
        return out;
      }
      out.push_back(c.get<std::string>());
    }
    return out;
  }
  // An array of non-empty strings none of which contains `banned` (each one name, say).
  std::vector<std::string> Names(const Json& j, const char* key, char banned, const char* what) {
    std::vector<std::string> out;
    auto it = j.find(key);
    if (it == j.end()) return out;
    std::string path = std::string("/") + key;
    if (!it->is_array()) {
      Fail(path, std::string("expected an array of ") + what);
      return out;
    }
    for (size_t i = 0; i < it->size(); ++i) {
      const Json& c = (*it)[i];
      if (!c.is_string() || c.get<std::string>().empty() ||
          c.get<std::string>().find(banned) != std::string::npos) {
        Fail(path + "/" + std::to_string(i), std::string("expected ") + what);
        return out;
      }
      out.push_back(c.get<std::string>());
    }
    return out;
  }
  int Int(const Json& j, const char* key, int fallback, int lo, int hi) {
    auto it = j.find(key);
    if (it == j.end()) return fallback;
    if (!it->is_number_integer() || it->get<int64_t>() < lo || it->get<int64_t>() > hi) {
      Fail(std::string("/") + key,
           "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi));
      return fallback;
    }
    return it->get<int>();
  }

 private:
  std::string source_, error_;
};

void ParseExpect(Checker& c, const Json& e, const std::string& path, SqlCheck* s) {
  const std::string forms =
      "expected \"empty\", \"same-as-reference\", {\"rows\": N} or {\"equals\": [...]}";
  if (e.is_string()) {
    if (e == "empty") {
      s->expect = SqlCheck::Expect::kEmpty;
    } else if (e == "same-as-reference") {
      s->expect = SqlCheck::Expect::kSameAsReference;
    } else {
      c.Fail(path, forms);
    }
    return;
  }
  if (!e.is_object() || e.size() != 1) return c.Fail(path, forms);
  if (e.contains("rows")) {
    if (!e["rows"].is_number_integer() || e["rows"].get<int64_t>() < 0)
      return c.Fail(path + "/rows", "expected a non-negative integer");
    s->expect = SqlCheck::Expect::kRows;
    s->rows = e["rows"].get<int64_t>();
  } else if (e.contains("equals")) {
    if (!e["equals"].is_array())
      return c.Fail(path + "/equals", "expected an array of row strings");
    s->expect = SqlCheck::Expect::kEquals;
    for (size_t i = 0; i < e["equals"].size(); ++i) {
      const Json& r = e["equals"][i];
      if (!r.is_string())
        return c.Fail(path + "/equals/" + std::to_string(i),
                      "expected a string (columns joined by '|')");
      s->equals.push_back(r.get<std::string>());
    }
  } else {
    c.Fail(path, forms);
  }
}

void ParseSqlChecks(Checker& c, const Json& j, Spec* spec) {
  auto it = j.find("sql_checks");
  if (it == j.end()) return;
  if (!it->is_array()) return c.Fail("/sql_checks", "expected an array of {db, query, expect}");
  for (size_t i = 0; i < it->size() && c.ok(); ++i) {
    const Json& q = (*it)[i];
    std::string path = "/sql_checks/" + std::to_string(i);
    if (!q.is_object()) return c.Fail(path, "expected an object {db, query, expect}");
    c.OnlyKeys(q, path, {"db", "query", "expect"});
    SqlCheck s;
    s.db = c.String(q, path, "db", true);
    s.query = c.String(q, path, "query", true);
    if (!s.db.empty() && (s.db[0] == '/' || s.db.find("..") != std::string::npos))
      c.Fail(path + "/db", "must be a path inside the directory under test");
    if (!q.contains("expect")) return c.Fail(path + "/expect", "missing");
    ParseExpect(c, q["expect"], path + "/expect", &s);
    spec->sql_checks.push_back(std::move(s));
  }
}

// `volatile`: glob patterns (fnmatch(3), `*` matching `/` too) of files relative to `dir`.
void ParseVolatile(Checker& c, const Json& j, Spec* spec) {
  auto it = j.find("volatile");
  if (it == j.end()) return;
  if (!it->is_array())
    return c.Fail("/volatile",
                  "expected an array of glob patterns relative to dir, e.g. [\"*-shm\"]");
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& p = (*it)[i];
    const std::string path = "/volatile/" + std::to_string(i);
    if (!p.is_string() || p.get<std::string>().empty())
      return c.Fail(path, "expected a non-empty glob pattern string");
    const std::string pat = p.get<std::string>();
    if (pat[0] == '/' || pat == ".." || pat.rfind("../", 0) == 0 ||
        pat.find("/../") != std::string::npos || pat.find('\n') != std::string::npos)
      return c.Fail(path, "\"" + pat +
                              "\" is not a pattern relative to dir (no leading /, no .., no "
                              "newline); give e.g. \"cache/*\"");
    spec->volatile_files.push_back(pat);
  }
}

}  // namespace

Result<Spec> ParseSpec(std::string_view text, const std::string& source) {
  // One JSON reader for user text (engine/json_text.h): the error names line, column and token.
  Result<Json> parsed = ParseJsonText(text, source);
  if (!parsed.ok())
    return Status::InvalidArgument(parsed.status().message() +
                                   " (see the spec schema in docs/blackbox.md)");
  const Json& j = *parsed;
  Checker c(source);
  if (!j.is_object()) c.Fail("/", "expected an object");
  Spec spec;
  if (c.ok()) {
    c.OnlyKeys(j, "",
               {"name", "dir", "setup", "run", "recover", "check", "sql_checks", "env", "timeout_s",
                "lives_max", "no_stray_files", "temp_names", "ack", "volatile"});
    spec.name = c.String(j, "", "name", true);
    spec.dir = c.String(j, "", "dir", true);
    spec.setup = c.Commands(j, "setup");
    spec.run = c.Commands(j, "run");
    spec.recover = c.Commands(j, "recover");
    spec.check = c.Commands(j, "check");
    ParseSqlChecks(c, j, &spec);
    ParseVolatile(c, j, &spec);
    spec.timeout_s = c.Int(j, "timeout_s", 30, 1, 3600);
    spec.lives_max = c.Int(j, "lives_max", 3, 1, 100);
    spec.temp_names =
        c.Names(j, "temp_names", '/', "a glob over one file name, such as \"tmp_obj_*\" (no '/')");
  }
  if (c.ok() && j.contains("ack")) {
    const Json& a = j["ack"];
    if (a == "auto") {
      spec.ack = Spec::Ack::kAuto;
    } else if (a == "file") {
      spec.ack = Spec::Ack::kFile;
    } else if (a == "stdout") {
      spec.ack = Spec::Ack::kStdout;
    } else {
      c.Fail("/ack", "expected \"auto\", \"file\" or \"stdout\"");
    }
  }
  if (c.ok() && spec.run.empty())
    c.Fail("/run", "names no command; give the workload as [\"cmd\", ...]");
  if (c.ok() && (spec.dir[0] == '/' || spec.dir == ".." || spec.dir.rfind("../", 0) == 0 ||
                 spec.dir.find("/../") != std::string::npos || spec.dir == "." ||
                 (spec.dir.size() >= 3 && spec.dir.compare(spec.dir.size() - 3, 3, "/..") == 0)))
    c.Fail("/dir", "\"" + spec.dir +
                       "\" is outside the working directory; give a relative path like \"data\"");
  if (c.ok() && j.contains("env")) {
    if (!j["env"].is_object()) c.Fail("/env", "expected an object of strings");
    for (const auto& [k, v] : j["env"].items()) {
      if (!v.is_string()) {
        c.Fail("/env/" + k, "expected a string");
        break;
      }
      spec.env[k] = v.get<std::string>();
    }
  }
  if (c.ok() && j.contains("no_stray_files")) {
    if (!j["no_stray_files"].is_boolean())
      c.Fail("/no_stray_files", "expected true or false");
    else
      spec.no_stray_files = j["no_stray_files"].get<bool>();
  }
  if (!c.ok()) return c.status();
  return spec;
}

Result<Spec> LoadSpec(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return Status::InvalidArgument("spec file " + path + " cannot be read; give --spec FILE");
  std::stringstream text;
  text << in.rdbuf();
  Result<Spec> spec = ParseSpec(text.str(), path);
  if (spec.ok()) spec->path = path;
  return spec;
}

}  // namespace stepfault::scenarios::blackbox
