// The conformance catalogue of black-box crash states (testdata/crash_catalogue.txt, whose header
// describes the text form): its reader, a compact rendering of states, and the check that a
// crash-state builder produces EXACTLY the states an entry lists at every window (every listed
// state produced, nothing else). The builder is a parameter, so the suite can be run against a
// deliberately broken one (crash_state_conformance_test.cc) and against a real recording
// (crash_state_recorded_test.cc). Test-only; thread-safety: values.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"

namespace stepfault::faults::blackbox::testing {

// A VALUE of the catalogue ("o*100+n*412", "A+\0*1+C", "" for no bytes) as bytes.
inline std::string ParseValue(const std::string& text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    size_t plus = text.find('+', at);
    if (plus == std::string::npos) plus = text.size();
    std::string piece = text.substr(at, plus - at);
    at = plus + 1;
    std::string ch = piece.rfind("\\0", 0) == 0 ? std::string(1, '\0') : piece.substr(0, 1);
    size_t star = piece.rfind("\\0", 0) == 0 ? 2 : 1;
    if (piece.size() > star + 1 && piece[star] == '*' &&
        piece.find_first_not_of("0123456789", star + 1) == std::string::npos) {
      out.append(std::stoul(piece.substr(star + 1)), ch[0]);
    } else {
      for (size_t i = 0; i < piece.size(); ++i) {
        if (piece.compare(i, 2, "\\0") == 0) {
          out += '\0';
          ++i;
        } else {
          out += piece[i];
        }
      }
    }
  }
  return out;
}

// The catalogue's form of `bytes` for messages: pieces joined by '+', runs of 4 or more (and NUL
// bytes) as C*N, everything else literal.
inline std::string RenderValue(const std::string& bytes) {
  std::vector<std::string> pieces;
  bool literal = false;  // the last piece is literal text that may grow
  for (size_t i = 0; i < bytes.size();) {
    size_t run = 1;
    while (i + run < bytes.size() && bytes[i + run] == bytes[i]) ++run;
    if (run >= 4 || bytes[i] == '\0') {
      pieces.push_back((bytes[i] == '\0' ? std::string("\\0") : std::string(1, bytes[i])) + "*" +
                       std::to_string(run));
      literal = false;
    } else {
      if (!literal) pieces.emplace_back();
      pieces.back().append(run, bytes[i]);
      literal = true;
    }
    i += run;
  }
  std::string out;
  for (const std::string& p : pieces) out += (out.empty() ? "" : "+") + p;
  return out;
}

// "{a=x b/}": the paths, types and bytes of a state (its notes are not part of it).
inline std::string RenderState(const CrashState& s) {
  std::string out = "{";
  for (const auto& [path, node] : s.nodes) {
    if (out.size() > 1) out += ' ';
    if (node.type == StateNode::kDir) {
      out += path + "/";
    } else if (node.type == StateNode::kSymlink) {
      out += path + "->" + node.bytes;
    } else {
      out += path + "=" + RenderValue(node.bytes);
    }
  }
  return out + "}";
}

// A state as a comparable key: exact, unlike the rendering (which is only for messages).
inline std::string StateKey(const CrashState& s) {
  std::string out;
  for (const auto& [path, node] : s.nodes)
    out += std::to_string(path.size()) + ":" + path + std::to_string(node.type) + ":" +
           std::to_string(node.bytes.size()) + ":" + node.bytes;
  return out;
}

inline void AddNode(const std::string& token, CrashState* s) {
  if (token.empty()) return;
  size_t eq = token.find('=');
  if (eq == std::string::npos) {
    EXPECT_EQ(token.back(), '/') << "a node is path=VALUE or path/: " << token;
    s->nodes[token.substr(0, token.size() - 1)] = StateNode{StateNode::kDir, ""};
  } else {
    s->nodes[token.substr(0, eq)] = StateNode{StateNode::kFile, ParseValue(token.substr(eq + 1))};
  }
}

struct ExpectedWindow {
  std::string id;  // "fs.write[log]#1"
  int line = 0;
  std::vector<CrashState> crash, powerloss, reorder;
};

struct CatalogueEntry {
  std::string name;
  int line = 0;
  bool program = false;  // testdata/crash_programs.c has a mode of this name
  CrashState initial;
  std::string trace_text = kTraceHeader;
  std::vector<ExpectedWindow> windows;
};

// Reads the catalogue; a malformed line fails the calling test with its line number.
inline std::vector<CatalogueEntry> ParseCatalogue(const std::string& text) {
  std::vector<CatalogueEntry> out;
  std::istringstream in(text);
  std::string line;
  CatalogueEntry* e = nullptr;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word) || word[0] == '#') continue;
    std::vector<std::string> rest;
    for (std::string w; words >> w;) rest.push_back(w);
    if (word == "entry") {
      out.push_back(CatalogueEntry{rest.empty() ? "" : rest[0], n});
      e = &out.back();
      continue;
    }
    if (e == nullptr) {
      ADD_FAILURE() << "catalogue line " << n << ": outside an entry: " << line;
      continue;
    }
    if (word == "end") {
      e = nullptr;
    } else if (word == "program") {
      e->program = true;
    } else if (word == "initial") {
      for (const std::string& t : rest) AddNode(t, &e->initial);
    } else if (word == "rec") {
      std::vector<std::pair<std::string, std::string>> fields;
      std::string data;
      for (size_t i = 1; i < rest.size(); ++i) {
        size_t eq = rest[i].find('=');
        if (rest[i].rfind("data=", 0) == 0) {
          data = ParseValue(rest[i].substr(5));
        } else {
          fields.emplace_back(rest[i].substr(0, eq), rest[i].substr(eq + 1));
        }
      }
      e->trace_text += FrameRecord(rest.at(0), 1, fields, data);
    } else if (word == "at") {
      e->windows.push_back(ExpectedWindow{rest.at(0), n});
    } else if (word == "crash" || word == "powerloss" || word == "reorder" || word == "all") {
      if (e->windows.empty()) {
        ADD_FAILURE() << "catalogue line " << n << ": states before any `at`";
        continue;
      }
      std::vector<CrashState> states;
      std::string joined;
      for (const std::string& t : rest) joined += t + " ";
      for (size_t open = joined.find('{'); open != std::string::npos;
           open = joined.find('{', open + 1)) {
        size_t close = joined.find('}', open);
        CrashState s;
        std::istringstream nodes(joined.substr(open + 1, close - open - 1));
        for (std::string t; nodes >> t;) AddNode(t, &s);
        states.push_back(s);
      }
      ExpectedWindow& w = e->windows.back();
      if (word == "crash" || word == "all") w.crash = states;
      if (word == "powerloss" || word == "all") w.powerloss = states;
      if (word == "reorder" || word == "all") w.reorder = states;
    } else {
      ADD_FAILURE() << "catalogue line " << n << ": unknown line: " << line;
    }
  }
  return out;
}

inline std::string CatalogueText() {
  // STEPFAULT_SOURCE_DIR is set in every test binary (tools/testing/test_env_defaults.cc); __FILE__
  // is relative under ccache.
  const char* root = std::getenv("STEPFAULT_SOURCE_DIR");
  std::filesystem::path here =
      std::filesystem::path(root != nullptr ? root : ".") / "faults" / "blackbox";
  std::ifstream in(here / "testdata" / "crash_catalogue.txt", std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << (here / "testdata" / "crash_catalogue.txt").string();
  }
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// BuildCrashState's shape: the code under test, or a deliberately broken stand-in.
using Builder =
    std::function<CrashState(const CrashState& initial, const Trace& trace, size_t upto_record,
                             CrashKind kind, uint64_t seed, int64_t kept_sectors)>;
inline CrashState RealBuilder(const CrashState& initial, const Trace& trace, size_t upto,
                              CrashKind kind, uint64_t seed, int64_t kept_sectors) {
  return BuildCrashState(initial, trace, upto, kind, seed, kept_sectors);
}

// Tearings and seeds tried per power loss and reorder: more than any entry's sectors, so every k
// the builder can choose is produced.
inline constexpr int64_t kMaxKeptSectors = 8;
inline constexpr uint64_t kSeeds = 16;

// Every way `builder` disagrees with `entry` on `trace` (empty: it conforms). `trace` is the
// entry's own trace, or a recording of the entry's program.
inline std::vector<std::string> Disagreements(const CatalogueEntry& entry,
                                              const CrashState& initial, const Trace& trace,
                                              const Builder& builder) {
  std::vector<std::string> out;
  const std::string where = entry.name + " (catalogue line " + std::to_string(entry.line) + ")";
  if (StateKey(initial) != StateKey(entry.initial))
    out.push_back(where + ": initial snapshot " + RenderState(initial) + ", catalogue says " +
                  RenderState(entry.initial));
  std::vector<TraceWindow> windows = WindowsOf(trace);
  std::string got_ids, want_ids;
  for (const TraceWindow& w : windows) got_ids += w.id + " ";
  for (const ExpectedWindow& w : entry.windows) want_ids += w.id + " ";
  if (got_ids != want_ids) {
    out.push_back(where + ": the trace's windows are [" + got_ids + "], the catalogue lists [" +
                  want_ids + "]");
    return out;
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    const ExpectedWindow& want = entry.windows[i];
    auto compare = [&](const char* kind, const std::vector<CrashState>& expected,
                       const std::vector<CrashState>& produced) {
      std::set<std::string> want_keys, got_keys;
      for (const CrashState& s : expected) want_keys.insert(StateKey(s));
      for (const CrashState& s : produced) {
        got_keys.insert(StateKey(s));
        for (const std::string& note : s.notes)
          out.push_back(where + " at " + want.id + " " + kind + ": builder note: " + note);
      }
      for (const CrashState& s : expected)
        if (!got_keys.count(StateKey(s)))
          out.push_back(where + " at " + want.id + " " + kind + ": expected state not produced " +
                        RenderState(s));
      std::set<std::string> reported;
      for (const CrashState& s : produced)
        if (!want_keys.count(StateKey(s)) && reported.insert(StateKey(s)).second)
          out.push_back(where + " at " + want.id + " " + kind + ": unexpected state " +
                        RenderState(s));
    };
    size_t upto = windows[i].record;
    std::vector<CrashState> crash = {builder(initial, trace, upto, CrashKind::kCrash, 0, -1)};
    std::vector<CrashState> powerloss, reorder;
    for (int64_t k = 0; k <= kMaxKeptSectors; ++k)
      powerloss.push_back(builder(initial, trace, upto, CrashKind::kPowerLoss, 0, k));
    for (uint64_t seed = 0; seed < kSeeds; ++seed) {
      powerloss.push_back(builder(initial, trace, upto, CrashKind::kPowerLoss, seed, -1));
      reorder.push_back(builder(initial, trace, upto, CrashKind::kReorder, seed, -1));
    }
    compare("crash", want.crash, crash);
    compare("powerloss", want.powerloss, powerloss);
    compare("reorder", want.reorder, reorder);
  }
  return out;
}

inline Trace ParseOrFail(const std::string& text) {
  Result<Trace> t = ParseTrace(text);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Trace{};
}

}  // namespace stepfault::faults::blackbox::testing
