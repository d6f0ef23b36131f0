// Goal: the black-box crash-state builder produces EXACTLY the crash states the crash model of
// docs/blackbox.md implies for each trace of the hand-written catalogue
// (testdata/crash_catalogue.txt): at every window, the one state a crash leaves, every state a
// power loss leaves over all its tearings, and the state a reorder leaves; nothing missing, nothing
// extra. And the suite has teeth: run against builders broken in the ways a crash model goes wrong
// (a rename, unlink or create kept without a directory fsync, no tearing, a crash that loses
// unsynced data, ...), it fails for each, while it holds for the real builder (the control).
// Method: each mutant is the real builder over a rewritten trace (say, a directory fsync inserted
// after every rename) or with its arguments bent, so production code carries no test switch.
#include <gtest/gtest.h>

#include <map>

#include "faults/blackbox/crash_catalogue_test_util.h"

namespace stepfault::faults::blackbox {
namespace {

using testing::Builder;
using testing::CatalogueEntry;

std::vector<CatalogueEntry> Catalogue() {
  return testing::ParseCatalogue(testing::CatalogueText());
}

// Every disagreement of `builder` with the whole catalogue.
std::vector<std::string> RunSuite(const Builder& builder) {
  std::vector<std::string> out;
  for (const CatalogueEntry& e : Catalogue()) {
    Trace t = testing::ParseOrFail(e.trace_text);
    for (std::string& d : testing::Disagreements(e, e.initial, t, builder)) out.push_back(d);
  }
  return out;
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

TEST(CrashStateConformanceTest, TheCatalogueIsWellFormedAndCoversTheModelsRules) {
  std::vector<CatalogueEntry> entries = Catalogue();
  std::set<std::string> names;
  for (const CatalogueEntry& e : entries) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate entry " << e.name;
    EXPECT_FALSE(e.windows.empty()) << e.name;
    for (const testing::ExpectedWindow& w : e.windows) {
      EXPECT_EQ(w.crash.size(), 1u) << e.name << " " << w.id << ": a crash leaves one state";
      EXPECT_EQ(w.reorder.size(), 1u) << e.name << " " << w.id << ": a reorder leaves one state";
      EXPECT_FALSE(w.powerloss.empty()) << e.name << " " << w.id;
    }
  }
  // The rules issue 29 names, one entry at least each.
  for (const char* rule :
       {"append-unsynced", "torn-overwrite-at-file-sectors", "rename-without-dirsync-lost",
        "rename-with-dirsync-kept", "unlink-undone-until-dirsync", "create-missing-until-dirsync",
        "two-files-no-fsync-between", "two-files-fsync-between", "otrunc-then-write",
        "ftruncate-then-write"})
    EXPECT_EQ(names.count(rule), 1u) << rule;
}

TEST(CrashStateConformanceTest, TheBuilderProducesExactlyTheCataloguedStates) {
  std::vector<std::string> d = RunSuite(testing::RealBuilder);
  EXPECT_TRUE(d.empty()) << Join(d);
}

// ---- mutants: broken builders the suite must reject ----

// The real builder over a rewritten trace: `extra(r)` records are inserted after each record r
// (never windows, so the window list is unchanged; `upto` is mapped to the rewritten index).
Builder Rewriting(std::function<std::vector<TraceRecord>(const TraceRecord&)> extra) {
  return [extra](const CrashState& initial, const Trace& trace, size_t upto, CrashKind kind,
                 uint64_t seed, int64_t kept) {
    Trace out;
    size_t mapped = 0;
    for (size_t i = 0; i < trace.records.size(); ++i) {
      if (i == upto) mapped = out.records.size();
      out.records.push_back(trace.records[i]);
      for (TraceRecord& r : extra(trace.records[i])) out.records.push_back(std::move(r));
    }
    if (upto >= trace.records.size()) mapped = out.records.size();
    return BuildCrashState(initial, out, mapped, kind, seed, kept);
  };
}

std::string ParentOf(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}
TraceRecord DirSync(const std::string& dir) {
  TraceRecord r;
  r.op = "fsync";
  r.fields = {{"path", dir}, {"dir", "1"}};
  return r;
}
std::vector<TraceRecord> DirSyncsAfter(const TraceRecord& r, const std::string& op,
                                       bool both_paths) {
  if (r.op != op) return {};
  std::vector<TraceRecord> out = {DirSync(ParentOf(r.Get(both_paths ? "path2" : "path")))};
  if (both_paths) out.push_back(DirSync(ParentOf(r.Get("path"))));
  return out;
}

struct Mutant {
  const char* name;
  Builder builder;
};

std::vector<Mutant> Mutants() {
  return {
      {"a rename is kept without a directory fsync",
       Rewriting([](const TraceRecord& r) { return DirSyncsAfter(r, "rename", true); })},
      {"an unlink is kept without a directory fsync",
       Rewriting([](const TraceRecord& r) { return DirSyncsAfter(r, "unlink", false); })},
      {"a created file's name is kept without a directory fsync",
       Rewriting([](const TraceRecord& r) {
         return r.op == "open" && r.Int("created") ? DirSyncsAfter(r, "open", false)
                                                   : std::vector<TraceRecord>{};
       })},
      {"fsync of a file also makes its name durable", Rewriting([](const TraceRecord& r) {
         return r.op == "fsync" && !r.Int("dir") ? DirSyncsAfter(r, "fsync", false)
                                                 : std::vector<TraceRecord>{};
       })},
      {"an O_TRUNC is durable at once", Rewriting([](const TraceRecord& r) {
         if (r.op != "open" || !r.Int("trunc")) return std::vector<TraceRecord>{};
         TraceRecord sync;
         sync.op = "fsync";
         sync.fields = {{"path", r.Get("path")}, {"ino", r.Get("ino")}};
         return std::vector<TraceRecord>{sync};
       })},
      {"the last unsynced write is never torn (lost whole)",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t) {
         return BuildCrashState(i, t, u, k, s, 0);
       }},
      {"the last unsynced write always reaches the disk whole",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t) {
         return BuildCrashState(i, t, u, k, s, 1 << 20);
       }},
      {"a crash loses what was not synced",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept) {
         return BuildCrashState(i, t, u, k == CrashKind::kCrash ? CrashKind::kPowerLoss : k, s,
                                k == CrashKind::kCrash ? 0 : kept);
       }},
      {"a power loss keeps everything, as a crash does",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept) {
         return BuildCrashState(i, t, u, k == CrashKind::kPowerLoss ? CrashKind::kCrash : k, s,
                                kept);
       }},
      {"a reorder is a plain power loss that keeps the last write",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept) {
         return BuildCrashState(i, t, u, k == CrashKind::kReorder ? CrashKind::kPowerLoss : k, s,
                                k == CrashKind::kReorder ? 1 << 20 : kept);
       }},
      {"the model sees the window's own call (off by one)",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept) {
         return BuildCrashState(i, t, u + 1, k, s, kept);
       }},
  };
}

TEST(CrashStateConformanceTest, EveryBrokenBuilderFailsTheSuite) {
  for (const Mutant& m : Mutants()) {
    std::vector<std::string> d = RunSuite(m.builder);
    EXPECT_FALSE(d.empty()) << "mutant survived: " << m.name;
    // The first disagreement says which entry killed it (read with --gtest_print_time=0 -v).
    if (!d.empty()) std::printf("killed: %s\n  by %s\n", m.name, d.front().c_str());
  }
}

TEST(CrashStateConformanceTest, TheRewritingSeamIsTransparentWithoutARewrite) {
  // The control of the mutants' seam: rewriting nothing is the real builder, so a mutant's failure
  // comes from its rewrite, not from the index mapping.
  std::vector<std::string> d =
      RunSuite(Rewriting([](const TraceRecord&) { return std::vector<TraceRecord>{}; }));
  EXPECT_TRUE(d.empty()) << Join(d);
}

TEST(CrashStateConformanceTest, TheValueNotationRoundTrips) {
  for (const std::string& v : {std::string(""), std::string("AB"), std::string(1100, 'o'),
                               std::string("A\0C", 3), std::string(100, 'o') + "n" + "0000"}) {
    EXPECT_EQ(testing::ParseValue(testing::RenderValue(v)), v) << testing::RenderValue(v);
  }
  EXPECT_EQ(testing::RenderValue(std::string(100, 'o') + std::string(412, 'n')), "o*100+n*412");
}

}  // namespace
}  // namespace stepfault::faults::blackbox
