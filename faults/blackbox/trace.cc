// The trace reader (see trace.h).
#include "faults/blackbox/trace.h"

#include <fnmatch.h>

#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/crc32c.h"

namespace stepfault::faults::blackbox {
namespace {

Status Damaged(size_t index, size_t offset, const std::string& what) {
  return Status::Corruption("trace record " + std::to_string(index) + " at byte " +
                            std::to_string(offset) + ": " + what +
                            " (the trace is damaged; record it again with `stepfault blackbox "
                            "record`)");
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool Decode(std::string_view in, std::string* out) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '%') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 2 >= in.size()) return false;
    int hi = HexValue(in[i + 1]), lo = HexValue(in[i + 2]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return true;
}

bool ParseUnsigned(std::string_view s, uint64_t* v) {
  if (s.empty() || s.size() > 19) return false;
  *v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    *v = *v * 10 + static_cast<uint64_t>(c - '0');
  }
  return true;
}

// Parses one body (fields line + data) into `r`.
Status ParseBody(std::string_view body, size_t index, size_t offset, TraceRecord* r) {
  size_t eol = body.find('\n');
  if (eol == std::string_view::npos) return Damaged(index, offset, "body has no field line");
  std::string_view line = body.substr(0, eol);
  uint64_t n = 0;
  bool have_n = false, have_pid = false;
  size_t at = 0;
  while (at <= line.size()) {
    size_t sp = line.find(' ', at);
    if (sp == std::string_view::npos) sp = line.size();
    std::string_view kv = line.substr(at, sp - at);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return Damaged(index, offset, "field '" + std::string(kv) + "' is not key=value");
    std::string key(kv.substr(0, eq)), value;
    if (!Decode(kv.substr(eq + 1), &value))
      return Damaged(index, offset, "bad percent-encoding in field " + key);
    if (key == "op") {
      r->op = value;
    } else if (key == "pid") {
      uint64_t v = 0;
      if (!ParseUnsigned(value, &v)) return Damaged(index, offset, "pid is not a number");
      r->pid = static_cast<int64_t>(v);
      have_pid = true;
    } else if (key == "n") {
      if (!ParseUnsigned(value, &n)) return Damaged(index, offset, "n is not a number");
      have_n = true;
    } else if (key != "tid") {
      r->fields[key] = value;
    }
    at = sp + 1;
  }
  if (r->op.empty() || !have_pid || !have_n)
    return Damaged(index, offset, "body lacks op=, pid= or n=");
  if (body.size() - eol - 1 != n)
    return Damaged(index, offset,
                   "data is " + std::to_string(body.size() - eol - 1) + " bytes, n= says " +
                       std::to_string(n));
  r->data = std::string(body.substr(eol + 1));
  // Offsets and sizes become file bytes in the crash-state model: bound them, so no trace can
  // make a state larger than kMaxTraceFileBytes (a real file that large is not supported).
  uint64_t end = 0;
  for (const char* key : {"off", "size"}) {
    auto it = r->fields.find(key);
    if (it == r->fields.end()) continue;
    uint64_t v = 0;
    if (!ParseUnsigned(it->second, &v) || v > kMaxTraceFileBytes) {
      return Damaged(index, offset,
                     std::string(key) + "=" + it->second + " is not a byte count of 0.." +
                         std::to_string(kMaxTraceFileBytes) +
                         " (files under test are limited to 1 GiB)");
    }
    end += v;
  }
  if (end + n > kMaxTraceFileBytes) {
    return Damaged(index, offset,
                   "the record reaches past byte " + std::to_string(kMaxTraceFileBytes) +
                       " of its file (files under test are limited to 1 GiB)");
  }
  return Status::Ok();
}

}  // namespace

std::string TraceRecord::Get(const std::string& key) const {
  auto it = fields.find(key);
  return it == fields.end() ? "" : it->second;
}

int64_t TraceRecord::Int(const std::string& key, int64_t fallback) const {
  auto it = fields.find(key);
  if (it == fields.end() || it->second.empty()) return fallback;
  bool neg = it->second[0] == '-';
  uint64_t v = 0;
  if (!ParseUnsigned(std::string_view(it->second).substr(neg ? 1 : 0), &v)) return fallback;
  // Out of int64 range (19 digits can be): the fallback, never a wrapped or overflowing value.
  if (v > static_cast<uint64_t>(INT64_MAX)) return fallback;
  return neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

std::string TraceRecord::WindowPoint() const {
  if (op == "failed" || op == "fault") return "";
  return Get("w");
}

Result<Trace> ParseTrace(std::string_view text) {
  const std::string_view header(kTraceHeader);
  if (text.substr(0, header.size()) != header)
    return Status::Corruption(
        "trace: missing header \"STEPFAULT-TRACE 1\" (not a trace file, or a newer version)");
  Trace trace;
  size_t at = header.size();
  while (at < text.size()) {
    size_t index = trace.records.size();
    size_t eol = text.find('\n', at);
    if (eol == std::string_view::npos || eol - at > 40 || text[at] != 'R' || text[at + 1] != ' ')
      return Damaged(index, at, "expected a frame line \"R <length> <crc32c>\"");
    std::string_view frame = text.substr(at + 2, eol - at - 2);
    size_t sp = frame.find(' ');
    uint64_t len = 0;
    if (sp == std::string_view::npos || !ParseUnsigned(frame.substr(0, sp), &len) ||
        frame.size() - sp - 1 != 8)
      return Damaged(index, at, "malformed frame line");
    if (len > text.size() - eol - 1)
      return Damaged(index, at,
                     "truncated: the frame declares " + std::to_string(len) + " bytes, " +
                         std::to_string(text.size() - eol - 1) + " remain");
    std::string_view body = text.substr(eol + 1, len);
    char crc[9];
    std::snprintf(crc, sizeof crc, "%08x", Crc32c(body));
    if (frame.substr(sp + 1) != crc) return Damaged(index, at, "checksum mismatch");
    TraceRecord r;
    if (Status s = ParseBody(body, index, at, &r); !s.ok()) return s;
    trace.records.push_back(std::move(r));
    at = eol + 1 + len;
  }
  return trace;
}

std::string FrameRecord(const std::string& op, int64_t pid,
                        const std::vector<std::pair<std::string, std::string>>& fields,
                        std::string_view data) {
  static const char kHex[] = "0123456789ABCDEF";
  auto encode = [](const std::string& v) {
    std::string out;
    for (unsigned char c : v) {
      if (c <= ' ' || c == '%' || c == '=' || c >= 0x7f) {
        out += '%';
        out += kHex[c >> 4];
        out += kHex[c & 15];
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  };
  std::string body =
      "op=" + encode(op) + " pid=" + std::to_string(pid) + " tid=" + std::to_string(pid);
  for (const auto& [k, v] : fields) body += " " + k + "=" + encode(v);
  body += " n=" + std::to_string(data.size()) + "\n";
  body.append(data);
  char crc[9];
  std::snprintf(crc, sizeof crc, "%08x", Crc32c(body));
  return "R " + std::to_string(body.size()) + " " + crc + "\n" + body;
}

Result<Trace> ReadTraceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("trace file " + path + " cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  Result<Trace> t = ParseTrace(text.str());
  if (!t.ok()) return Status(t.status().code(), path + ": " + t.status().message());
  return t;
}

namespace {

// The canonical names of one trace (see WindowsOf).
class NameCanon {
 public:
  NameCanon(const Trace& trace, const std::vector<std::string>& temp_names)
      : temp_names_(temp_names) {
    for (const TraceRecord& r : trace.records) {
      if (r.op == "hello") pids_.emplace(std::to_string(r.pid), pids_.size() + 1);
    }
  }

  // "fs.write[a/tmp_obj_Xy12]" -> "fs.write[a/tmp_obj_@1]".
  std::string Canonical(const std::string& point) {
    size_t open = point.find('[');
    if (open == std::string::npos || point.back() != ']') return point;
    std::string role = point.substr(open + 1, point.size() - open - 2);
    if (role == ".") return point;
    std::string dir;
    size_t at = 0;
    while (at <= role.size()) {
      size_t slash = role.find('/', at);
      if (slash == std::string::npos) slash = role.size();
      std::string name = Name(dir, role.substr(at, slash - at));
      dir += (dir.empty() ? "" : "/") + name;
      at = slash + 1;
    }
    return point.substr(0, open + 1) + dir + "]";
  }

 private:
  std::string Name(const std::string& dir, const std::string& name) {
    for (const std::string& glob : temp_names_) {
      if (fnmatch(glob.c_str(), name.c_str(), FNM_PERIOD) != 0) continue;
      auto& seen = seen_[{dir, glob}];
      const size_t k = seen.emplace(name, seen.size() + 1).first->second;
      std::string mark = "@" + std::to_string(k);
      const size_t star = glob.find('*');
      return star == std::string::npos ? glob + mark
                                       : glob.substr(0, star) + mark + glob.substr(star + 1);
    }
    std::string out;
    for (size_t i = 0; i < name.size();) {
      if (!std::isdigit(static_cast<unsigned char>(name[i]))) {
        out += name[i++];
        continue;
      }
      size_t j = i;
      while (j < name.size() && std::isdigit(static_cast<unsigned char>(name[j]))) ++j;
      // Three digits at least: a pid below 100 is too likely to be part of an ordinary name. Not
      // next to a hex letter: then the digits are likely part of a hex number (git's object names
      // held a run that equalled a pid of one recording and not of the other).
      auto hex_letter = [&](size_t at) {
        return at < name.size() && std::isxdigit(static_cast<unsigned char>(name[at])) != 0 &&
               std::isdigit(static_cast<unsigned char>(name[at])) == 0;
      };
      const bool in_hex = (i > 0 && hex_letter(i - 1)) || hex_letter(j);
      auto it = j - i >= 3 && !in_hex ? pids_.find(name.substr(i, j - i)) : pids_.end();
      out += it != pids_.end() ? "@p" + std::to_string(it->second) : name.substr(i, j - i);
      i = j;
    }
    return out;
  }

  const std::vector<std::string>& temp_names_;
  std::map<std::string, size_t> pids_;  // pid text -> place in hello order
  std::map<std::pair<std::string, std::string>, std::map<std::string, size_t>> seen_;
};

}  // namespace

std::vector<TraceWindow> WindowsOf(const Trace& trace, const std::vector<std::string>& temp_names) {
  std::vector<TraceWindow> out;
  std::map<std::string, int> seen;
  NameCanon canon(trace, temp_names);
  for (size_t i = 0; i < trace.records.size(); ++i) {
    std::string point = trace.records[i].WindowPoint();
    if (point.empty()) continue;
    point = canon.Canonical(point);
    int occ = ++seen[point];
    out.push_back({point + "#" + std::to_string(occ), point, occ, i});
  }
  return out;
}

std::string CanonicalPoint(const Trace& trace, size_t record,
                           const std::vector<std::string>& temp_names) {
  if (record >= trace.records.size() || trace.records[record].Get("w").empty()) return "";
  NameCanon canon(trace, temp_names);
  for (size_t i = 0; i < record; ++i) {
    std::string point = trace.records[i].WindowPoint();
    if (!point.empty()) canon.Canonical(point);  // names are numbered in trace order
  }
  return canon.Canonical(trace.records[record].Get("w"));
}

std::vector<std::string> IncompleteReasons(const Trace& trace) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const TraceRecord& r : trace.records) {
    if (r.op != "incomplete") continue;
    std::string why = r.Get("reason") + ": " + r.Get("detail");
    if (seen.insert(why).second) out.push_back(why);
  }
  return out;
}

std::vector<std::string> VolatileFiles(const Trace& trace) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const TraceRecord& r : trace.records) {
    if (r.op == "volatile" && !r.Get("path").empty() && seen.insert(r.Get("path")).second)
      out.push_back(r.Get("path"));
  }
  return out;
}

std::vector<std::string> VolatilePatterns(const Trace& trace) {
  std::vector<std::string> out;
  for (const TraceRecord& r : trace.records) {
    if (r.op == "volatile" && !r.Get("pattern").empty()) out.push_back(r.Get("pattern"));
  }
  return out;
}

bool IsVolatilePath(const std::string& path, const std::vector<std::string>& patterns) {
  if (path.ends_with("-shm")) return true;
  for (const std::string& p : patterns) {
    if (fnmatch(p.c_str(), path.c_str(), 0) == 0) return true;
  }
  return false;
}

}  // namespace stepfault::faults::blackbox
