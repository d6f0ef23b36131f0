// Goal: the black-box crash-state builder produces EXACTLY the crash states the crash model of
// docs/blackbox.md implies for each trace of the hand-written catalogue
// (testdata/crash_catalogue.txt): at every window, the one state a crash leaves, every state a
// power loss leaves over all its tearings, and the state a reorder leaves; nothing missing, nothing
// extra. And the suite has teeth: run against builders broken in the ways a crash model goes wrong
// (a rename, unlink or create kept without a directory fsync, no tearing, a crash that loses
// unsynced data, an O_DSYNC write taken as unsynced, sync_file_range's flags ignored, ...), it
// fails for each, while it holds for the real builder (the control). Method: the three namespace
// mutants are the builder's own hazards (CrashModelOptions, the mutants blackbox:* of `stepfault
// mutants`); the others are the real builder over a rewritten or edited trace (say, a directory
// fsync inserted after every file fsync, synced= erased) or with its arguments bent. The catalogue
// is the one the library embeds (crash_catalogue.h), run by RunCatalogue.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "faults/blackbox/crash_catalogue_test_util.h"

namespace stepfault::faults::blackbox {
namespace {

using Builder = CrashBuilder;
using testing::Catalogue;
using testing::Join;

// Every disagreement of `builder` with the whole catalogue.
std::vector<CatalogueDisagreement> RunSuite(const Builder& builder) {
  Result<CatalogueRun> run = RunCatalogue(Catalogue(), builder);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  return run.ok() ? run->disagreements : std::vector<CatalogueDisagreement>{};
}

// The real model's options under persistence model `m`.
CrashModelOptions Under(PersistenceModel m) {
  CrashModelOptions o;
  o.fs_model = m;
  return o;
}

CrashModelOptions With(const std::string& hazard) {
  CrashModelOptions o;
  EXPECT_TRUE(o.Enable(hazard).ok()) << hazard;
  return o;
}

TEST(CrashStateConformanceTest, TheCatalogueIsWellFormedAndCoversTheModelsRules) {
  std::vector<CatalogueEntry> entries = Catalogue();
  std::set<std::string> names;
  for (const CatalogueEntry& e : entries) {
    EXPECT_TRUE(names.insert(e.name).second) << "duplicate entry " << e.name;
    EXPECT_FALSE(e.windows.empty()) << e.name;
    for (const ExpectedWindow& w : e.windows) {
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
  std::vector<CatalogueDisagreement> d = RunSuite(BuilderWith({}));
  EXPECT_TRUE(d.empty()) << Join(d);
}

// ---- the builder's hazards: the catalogue kills each, by the rule it breaks ----

TEST(CrashStateConformanceTest, EveryHazardOfTheBuilderIsKilledByTheRuleItBreaks) {
  // The entry that states the rule each hazard breaks must be among the entries that disagree.
  const std::map<std::string, std::string> rule = {
      {"rename-durable-without-dir-fsync", "rename-without-dirsync-lost"},
      {"unlink-durable-without-dir-fsync", "unlink-undone-until-dirsync"},
      {"create-durable-without-dir-fsync", "create-missing-until-dirsync"},
  };
  ASSERT_EQ(CrashModelHazards().size(), rule.size());
  for (const CrashModelHazard& h : CrashModelHazards()) {
    SCOPED_TRACE(h.name);
    ASSERT_EQ(rule.count(h.name), 1u);
    std::vector<CatalogueDisagreement> d = RunSuite(BuilderWith(With(h.name)));
    ASSERT_FALSE(d.empty()) << "hazard survived the catalogue";
    std::set<std::string> entries;
    for (const CatalogueDisagreement& x : d) entries.insert(x.entry);
    EXPECT_EQ(entries.count(rule.at(h.name)), 1u) << Join(d);
    // Only power loss and reorder see a name made durable too early; a crash keeps every name.
    for (const CatalogueDisagreement& x : d)
      EXPECT_EQ(x.message.find(" crash: "), std::string::npos) << x.message;
  }
}

TEST(CrashStateConformanceTest, TheDefaultOptionsAreTheRealBuilder) {
  // The control of the hazards' seam: no hazard on is BuildCrashState's default, for every window
  // and kind of the catalogue.
  CrashModelOptions none;
  EXPECT_EQ(none, CrashModelOptions{});
  for (const CatalogueEntry& e : Catalogue()) {
    Trace t = testing::ParseOrFail(e.trace_text);
    for (const TraceWindow& w : WindowsOf(t)) {
      for (CrashKind k : {CrashKind::kCrash, CrashKind::kPowerLoss, CrashKind::kReorder}) {
        EXPECT_EQ(StateKey(BuildCrashState(e.initial, t, w.record, k, 3, -1, none)),
                  StateKey(BuildCrashState(e.initial, t, w.record, k, 3)))
            << e.name << " " << w.id;
      }
    }
  }
}

TEST(CrashStateConformanceTest, EveryPersistenceModelHasEntriesThatTellItFromPosix) {
  // Each entry under another model states a rule where that model differs from posix: built under
  // posix (or under any other model but its own, for the rules only it has), it disagrees.
  std::map<PersistenceModel, int> entries;
  const Builder under = [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s,
                           int64_t kept,
                           PersistenceModel) { return BuildCrashState(i, t, u, k, s, kept); };
  for (const CatalogueEntry& e : Catalogue()) {
    ++entries[e.model];
    if (e.model == PersistenceModel::kPosix) continue;
    SCOPED_TRACE(e.name);
    Trace t = testing::ParseOrFail(e.trace_text);
    EXPECT_FALSE(Disagreements(e, e.initial, t, under).empty()) << "holds under posix too";
    EXPECT_TRUE(Disagreements(e, e.initial, t, BuilderWith({})).empty());
  }
  for (PersistenceModel m : AllPersistenceModels())
    EXPECT_GE(entries[m], 1) << PersistenceModelName(m);
  // The shape (mkdir, a file in it fsynced, no directory fsync) under every model.
  for (const char* name :
       {"mkdir-file-fsync-no-parent-fsync", "mkdir-file-fsync-no-parent-fsync-ext4-ordered",
        "mkdir-file-fsync-no-parent-fsync-xfs", "mkdir-file-fsync-no-parent-fsync-btrfs"}) {
    bool found = false;
    for (const CatalogueEntry& e : Catalogue()) found |= e.name == name;
    EXPECT_TRUE(found) << name;
  }
  // ext4's auto_da_alloc rules are its own: under xfs those entries disagree.
  const Builder as_xfs = [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s,
                            int64_t kept, PersistenceModel) {
    return BuildCrashState(i, t, u, k, s, kept, Under(PersistenceModel::kXfs));
  };
  for (const CatalogueEntry& e : Catalogue()) {
    if (e.name.find("rename-over") == std::string::npos &&
        e.name.find("otrunc-write-close") == std::string::npos)
      continue;
    if (e.model != PersistenceModel::kExt4Ordered) continue;
    Trace t = testing::ParseOrFail(e.trace_text);
    EXPECT_FALSE(Disagreements(e, e.initial, t, as_xfs).empty()) << e.name;
  }
}

TEST(CrashStateConformanceTest, AnUnknownPersistenceModelIsRefusedWithTheNames) {
  for (PersistenceModel m : AllPersistenceModels()) {
    Result<PersistenceModel> back = ParsePersistenceModel(PersistenceModelName(m));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, m);
  }
  Result<PersistenceModel> bad = ParsePersistenceModel("ext4");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("posix, ext4-ordered, xfs, btrfs"), std::string::npos)
      << bad.status().message();
  EXPECT_FALSE(ParseCatalogue("entry x\n  model zfs\n  at a#1\n    all {}\nend\n").ok());
}

TEST(CrashStateConformanceTest, AnUnknownHazardNameIsRefusedWithTheNames) {
  CrashModelOptions o;
  Status s = o.Enable("rename-durable");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  for (const CrashModelHazard& h : CrashModelHazards())
    EXPECT_NE(s.message().find(h.name), std::string::npos) << s.message();
  EXPECT_EQ(o, CrashModelOptions{});
}

TEST(CrashStateConformanceTest, AMalformedCatalogueIsRefusedWithItsLine) {
  const std::string good = "entry e\n  rec exit w=proc.exit[cmd1]\n  at proc.exit[cmd1]\n";
  ASSERT_TRUE(ParseCatalogue(good + "    all {}\nend\n").ok());
  for (const auto& [text, line] : std::vector<std::pair<std::string, int>>{
           {"rec open path=a\n", 1},                          // outside an entry
           {good + "    all {a}\nend\n", 4},                  // a node that is neither file nor dir
           {good + "    all {a=x\nend\n", 4},                 // an unclosed state
           {good + "    bogus\nend\n", 4},                    // an unknown line
           {good + "    all {}\n  rec open path\nend\n", 5},  // a field without '='
           {"entry e\n  all {}\nend\n", 2},                   // states before any window
           {good + "    all {a=x*99999999999}\nend\n", 4}}) {  // a run too long
    Result<std::vector<CatalogueEntry>> r = ParseCatalogue(text);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.status().message().find("catalogue line " + std::to_string(line)),
              std::string::npos)
        << r.status().message();
  }
  EXPECT_FALSE(ParseCatalogue(good + "    all {}\n").ok()) << "no `end`";
}

// ---- mutants: broken builders the suite must reject ----

// The real builder over a rewritten trace: `extra(r)` records are inserted after each record r
// (never windows, so the window list is unchanged; `upto` is mapped to the rewritten index).
Builder Rewriting(std::function<std::vector<TraceRecord>(const TraceRecord&)> extra) {
  return [extra](const CrashState& initial, const Trace& trace, size_t upto, CrashKind kind,
                 uint64_t seed, int64_t kept, PersistenceModel m) {
    Trace out;
    size_t mapped = 0;
    for (size_t i = 0; i < trace.records.size(); ++i) {
      if (i == upto) mapped = out.records.size();
      out.records.push_back(trace.records[i]);
      for (TraceRecord& r : extra(trace.records[i])) out.records.push_back(std::move(r));
    }
    if (upto >= trace.records.size()) mapped = out.records.size();
    return BuildCrashState(initial, out, mapped, kind, seed, kept, Under(m));
  };
}

// The real builder over a copy of the trace that `edit` changes in place (records keep their
// places, so the windows stay).
Builder Editing(std::function<void(Trace*)> edit) {
  return [edit](const CrashState& initial, const Trace& trace, size_t upto, CrashKind kind,
                uint64_t seed, int64_t kept, PersistenceModel m) {
    Trace out = trace;
    edit(&out);
    return BuildCrashState(initial, out, upto, kind, seed, kept, Under(m));
  };
}
// Sets `key` to `value` on every record of `op` (erases it when value is empty).
Builder SettingField(const std::string& op, const std::string& key, const std::string& value) {
  return Editing([op, key, value](Trace* t) {
    for (TraceRecord& r : t->records) {
      if (r.op != op) continue;
      if (value.empty()) {
        r.fields.erase(key);
      } else {
        r.fields[key] = value;
      }
    }
  });
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
std::vector<TraceRecord> DirSyncsAfter(const TraceRecord& r, const std::string& op) {
  if (r.op != op) return {};
  return {DirSync(ParentOf(r.Get("path")))};
}

struct Mutant {
  const char* name;
  Builder builder;
};

std::vector<Mutant> Mutants() {
  return {
      {"a rename is kept without a directory fsync",
       BuilderWith(With("rename-durable-without-dir-fsync"))},
      {"an unlink is kept without a directory fsync",
       BuilderWith(With("unlink-durable-without-dir-fsync"))},
      {"a created file's name is kept without a directory fsync",
       BuilderWith(With("create-durable-without-dir-fsync"))},
      {"fsync of a file also makes its name durable", Rewriting([](const TraceRecord& r) {
         return r.op == "fsync" && !r.Int("dir") ? DirSyncsAfter(r, "fsync")
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
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t,
          PersistenceModel m) { return BuildCrashState(i, t, u, k, s, 0, Under(m)); }},
      {"the last unsynced write always reaches the disk whole",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t,
          PersistenceModel m) { return BuildCrashState(i, t, u, k, s, 1 << 20, Under(m)); }},
      {"a crash loses what was not synced",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept,
          PersistenceModel m) {
         return BuildCrashState(i, t, u, k == CrashKind::kCrash ? CrashKind::kPowerLoss : k, s,
                                k == CrashKind::kCrash ? 0 : kept, Under(m));
       }},
      {"a power loss keeps everything, as a crash does",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept,
          PersistenceModel m) {
         return BuildCrashState(i, t, u, k == CrashKind::kPowerLoss ? CrashKind::kCrash : k, s,
                                kept, Under(m));
       }},
      {"a reorder is a plain power loss that keeps the last write",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept,
          PersistenceModel m) {
         return BuildCrashState(i, t, u, k == CrashKind::kReorder ? CrashKind::kPowerLoss : k, s,
                                k == CrashKind::kReorder ? 1 << 20 : kept, Under(m));
       }},
      {"a write durable at return (O_DSYNC, RWF_DSYNC) is taken as unsynced",
       SettingField("write", "synced", "")},
      {"durability follows the file, not the descriptor (every later write synced)",
       Editing([](Trace* t) {
         std::set<std::string> synced_inos;
         for (TraceRecord& r : t->records) {
           if (r.op != "write") continue;
           if (!r.Get("synced").empty()) synced_inos.insert(r.Get("ino"));
           if (synced_inos.count(r.Get("ino"))) r.fields["synced"] = "data";
         }
       })},
      {"a write durable at return also makes its file's name durable",
       Rewriting([](const TraceRecord& r) {
         return r.op == "write" && !r.Get("synced").empty() ? DirSyncsAfter(r, "write")
                                                            : std::vector<TraceRecord>{};
       })},
      {"sync_file_range is a barrier whatever its flags",
       SettingField("sync_file_range", "flags", "7")},
      {"sync_file_range with the wait flags is no barrier",
       SettingField("sync_file_range", "flags", "0")},
      {"msync with MS_SYNC is no barrier", SettingField("msync", "flags", "1")},
      {"msync is a barrier whatever its flags (MS_ASYNC too)", SettingField("msync", "flags", "4")},
      {"the model sees the window's own call (off by one)",
       [](const CrashState& i, const Trace& t, size_t u, CrashKind k, uint64_t s, int64_t kept,
          PersistenceModel m) { return BuildCrashState(i, t, u + 1, k, s, kept, Under(m)); }},
  };
}

TEST(CrashStateConformanceTest, EveryBrokenBuilderFailsTheSuite) {
  for (const Mutant& m : Mutants()) {
    std::vector<CatalogueDisagreement> d = RunSuite(m.builder);
    EXPECT_FALSE(d.empty()) << "mutant survived: " << m.name;
    // The first disagreement says which entry killed it (read with --gtest_print_time=0 -v).
    if (!d.empty()) std::printf("killed: %s\n  by %s\n", m.name, d.front().message.c_str());
  }
}

TEST(CrashStateConformanceTest, TheRewritingSeamIsTransparentWithoutARewrite) {
  // The control of the mutants' seam: rewriting nothing is the real builder, so a mutant's failure
  // comes from its rewrite, not from the index mapping.
  std::vector<CatalogueDisagreement> d =
      RunSuite(Rewriting([](const TraceRecord&) { return std::vector<TraceRecord>{}; }));
  EXPECT_TRUE(d.empty()) << Join(d);
}

TEST(CrashStateConformanceTest, TheValueNotationRoundTrips) {
  for (const std::string& v : {std::string(""), std::string("AB"), std::string(1100, 'o'),
                               std::string("A\0C", 3), std::string(100, 'o') + "n" + "0000"}) {
    Result<std::string> back = ParseValue(RenderValue(v));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, v) << RenderValue(v);
  }
  EXPECT_EQ(RenderValue(std::string(100, 'o') + std::string(412, 'n')), "o*100+n*412");
}

}  // namespace
}  // namespace stepfault::faults::blackbox
