// Goal: the registry is well-formed and its applicability rules are the documented ones; the role
// classifier names files as the stores lay them out.
// Method: walk every registered point and role and check each rule independently of how
// ApplicableActions computes it; pin the classifier and plan check on hand-written cases.
#include "faults/points.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>

#include "engine/probe_points.h"
#include "tools/testing/source_files.h"
#include "tools/testing/test_env.h"

namespace stepfault::faults {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

bool Has(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(Points, NamesAreUniqueAndWellFormed) {
  std::set<std::string> names;
  for (const PointInfo& info : AllPoints()) {
    EXPECT_TRUE(names.insert(info.name).second) << "duplicate " << info.name;
    Result<FaultPoint> parsed = FaultPoint::Parse(info.name);
    ASSERT_TRUE(parsed.ok()) << info.name << ": " << parsed.status().ToString();
    EXPECT_TRUE(parsed->role.empty()) << info.name;
    EXPECT_FALSE(info.meaning.empty()) << info.name;
    EXPECT_EQ(info.meaning.find('\n'), std::string::npos) << info.name;
    EXPECT_EQ(info.layer == PointLayer::kFs, info.name.starts_with("fs.")) << info.name;
    EXPECT_EQ(info.layer == PointLayer::kFs, !info.roles.empty()) << info.name;
    for (const std::string& role : info.roles) {
      EXPECT_TRUE(FaultPoint::Parse(info.name + "[" + role + "]").ok()) << role;
    }
    EXPECT_EQ(FindPoint(info.name), &info);
  }
  for (std::string_view required : {"step.handlers.after",
                                    "checkpoint.commit.before",
                                    "checkpoint.commit.after",
                                    "restore.import.before",
                                    "restore.state.apply",
                                    "restore.import.after",
                                    "restore.notify.before",
                                    "store.prune.before",
                                    "store.prune.delete",
                                    "fs.create",
                                    "fs.write",
                                    "fs.fsync",
                                    "fs.truncate",
                                    "fs.rename",
                                    "fs.unlink",
                                    "fs.dirsync",
                                    "host.resume",
                                    "receipt.publish.before",
                                    "receipt.publish.after",
                                    "decision.record.after",
                                    "effect.commit.before",
                                    "effect.commit.after",
                                    "output.publish.before"}) {
    EXPECT_NE(FindPoint(required), nullptr) << required;
  }
  EXPECT_EQ(FindPoint("fs.rename[receipt]"), nullptr);
  EXPECT_EQ(FindPoint("no.such.point"), nullptr);
}

TEST(Points, ApplicableActionsFollowTheRules) {
  const std::set<std::string> corruptible = {"checkpoint", "index", "receipt"};
  const std::set<std::string> recovery = {"topology", "duplicate-response", "conflicting-response",
                                          "observer-cancel"};
  for (const PointInfo& info : AllPoints()) {
    std::vector<std::string> windows;
    if (info.roles.empty()) windows.push_back(info.name);
    for (const std::string& role : info.roles) windows.push_back(info.name + "[" + role + "]");
    for (const std::string& window : windows) {
      const std::vector<std::string> actions = ApplicableActions(window);
      const bool fs = info.name.starts_with("fs.");
      EXPECT_TRUE(Has(actions, "crash")) << window;
      EXPECT_TRUE(Has(actions, "powerloss")) << window;
      EXPECT_EQ(Has(actions, "ioerror"), fs) << window;
      EXPECT_EQ(Has(actions, "corrupt"), fs && corruptible.count(std::string(RoleOf(window))) > 0)
          << window;
      EXPECT_EQ(Has(actions, "fail-after-write"), info.name == "effect.commit.after") << window;
      for (const std::string& r : recovery)
        EXPECT_EQ(Has(actions, r), info.name == "host.resume") << window;
      EXPECT_FALSE(Has(actions, "none"));
      for (const FaultAction& a : ApplicableFaultActions(window)) {
        EXPECT_TRUE(Has(actions, std::string(FaultActionKindName(a.kind)))) << window;
        EXPECT_TRUE(IsApplicable(a, window));
      }
    }
  }
}

TEST(Points, ApplicableActionsExamples) {
  EXPECT_THAT(ApplicableActions("fs.rename[receipt]"),
              ElementsAre("crash", "powerloss", "ioerror", "corrupt"));
  EXPECT_THAT(ApplicableActions("fs.write[db]"), ElementsAre("crash", "powerloss", "ioerror"));
  EXPECT_THAT(ApplicableActions("checkpoint.commit.before"), ElementsAre("crash", "powerloss"));
  EXPECT_THAT(ApplicableActions("effect.commit.after"),
              ElementsAre("crash", "powerloss", "fail-after-write"));
  EXPECT_TRUE(ApplicableActions("no.such.point").empty());
  EXPECT_TRUE(ApplicableActions("fs.rename[bogus]").empty());
  EXPECT_TRUE(ApplicableActions("checkpoint.commit.before[file]").empty());
  // ioerror x2, corrupt x3, crash, powerloss.
  EXPECT_EQ(ApplicableFaultActions("fs.fsync[checkpoint]").size(), 7u);
  // crash, powerloss, topology x6, duplicate, conflicting x4 (every field, then one at a time),
  // observer-cancel.
  EXPECT_EQ(ApplicableFaultActions("host.resume").size(), 14u);
}

TEST(Points, RoleOfSplitsTheRole) {
  EXPECT_EQ(RoleOf("fs.rename[receipt]"), "receipt");
  EXPECT_EQ(RoleOf("checkpoint.commit.before"), "");
}

TEST(Points, DefaultRoleClassifierNamesStoreFiles) {
  auto role = DefaultRoleClassifier();
  EXPECT_EQ(role("/data/checkpoints/abc.json"), "checkpoint");
  EXPECT_EQ(role("/data/checkpoints/abc.json.tmp"), "checkpoint");
  EXPECT_EQ(role("/data/cp/000017-9f3a.json"), "checkpoint");
  EXPECT_EQ(role("/data/cp/17-xyz.json"), "file");
  EXPECT_EQ(role("/data/cp/index.jsonl"), "index");
  EXPECT_EQ(role("/data/checkpoints/index.jsonl"), "index");
  EXPECT_EQ(role("/data/host/waiting.json"), "receipt");
  EXPECT_EQ(role("/data/host/waiting.json.tmp"), "receipt");
  EXPECT_EQ(role("/data/host/req-1.receipt.json"), "receipt");
  EXPECT_EQ(role("/data/business.db"), "db");
  EXPECT_EQ(role("/data/business.db-journal"), "journal");
  EXPECT_EQ(role("/data/business.db-wal"), "journal");
  EXPECT_EQ(role("/data/LOCK"), "lock");
  EXPECT_EQ(role("/data/run.lock"), "lock");
  EXPECT_EQ(role("/data/run.lease"), "lock");
  EXPECT_EQ(role("/data/notes.txt"), "file");
  EXPECT_EQ(role("/data/checkpoints"), "file");
  EXPECT_EQ(role("config.json"), "file");
}

TEST(Points, CheckPlanPointsAcceptsApplicableAndExplainsTheRest) {
  EXPECT_TRUE(
      CheckPlanPoints(*ParsePlan("powerloss@fs.rename[receipt]#1;none;crash@effect.commit.after#1"))
          .ok());
  EXPECT_TRUE(CheckPlanPoints(*ParsePlan("corrupt:zero@fs.rename#1")).ok());  // some role qualifies
  EXPECT_TRUE(CheckPlanPoints(*ParsePlan("topology:remove-edge@host.resume#1")).ok());
  Status unknown = CheckPlanPoints(*ParsePlan("crash@no.such#1"));
  EXPECT_THAT(unknown.message(), HasSubstr("fault 1 'crash@no.such#1': unknown point 'no.such'"));
  Status role = CheckPlanPoints(*ParsePlan("none;crash@fs.write[bogus]#1"));
  EXPECT_THAT(role.message(),
              HasSubstr("fault 2 'crash@fs.write[bogus]#1': point 'fs.write' has no role 'bogus'"));
  Status io = CheckPlanPoints(*ParsePlan("ioerror@checkpoint.commit.before#1"));
  EXPECT_THAT(io.message(),
              HasSubstr("'ioerror' does not apply at 'checkpoint.commit.before'; there, use one "
                        "of: crash, powerloss"));
  EXPECT_FALSE(CheckPlanPoints(*ParsePlan("corrupt:zero@fs.write[db]#1")).ok());
  EXPECT_FALSE(CheckPlanPoints(*ParsePlan("fail-after-write@effect.commit.before#1")).ok());
}

// The registry and the constants agree both ways: every constant names a registered point, and
// every registered point has a constant (so call sites can name it without a string of their own).
TEST(PointRegistry, EveryConstantIsRegisteredAndEveryRegisteredPointHasAConstant) {
  std::set<std::string> constants(std::begin(points::kAll), std::end(points::kAll));
  EXPECT_EQ(constants.size(), std::size(points::kAll)) << "a constant is listed twice";
  for (const std::string& name : constants) {
    EXPECT_NE(FindPoint(name), nullptr) << name << " has a constant but is not registered";
  }
  for (const PointInfo& info : AllPoints()) {
    EXPECT_TRUE(constants.count(info.name)) << info.name << " is registered without a constant";
  }
}

// Method: scan every non-test source for probe hits and file-system points; each must name its
// point through a points:: constant. A point hit with a string of its own could be missing from
// the registry, and the explorer could never name its windows.
TEST(PointRegistry, EveryHitInTheSourcesNamesARegisteredConstant) {
  // A call of Hit( or Point( whose first argument is anything but points::kName.
  const std::regex hit(R"((->|\.)(Hit|Point)\(\s*([^,)]*))");
  const std::regex constant(R"(points::k[A-Za-z]+)");
  std::vector<std::string> offenders;
  int hits = 0;
  for (const test_env::SourceFile& file :
       test_env::SourceFiles({"engine", "faults", "scenarios", "properties", "tools"})) {
    if (file.test || file.path.extension() == ".c") continue;
    const std::string source = test_env::ReadSource(file.path);
    for (auto it = std::sregex_iterator(source.begin(), source.end(), hit);
         it != std::sregex_iterator(); ++it) {
      const std::string arg = (*it)[3].str();
      // Forwarders pass a parameter on (Injector::Hit -> Visit, ProbedEnv -> hook): only a
      // literal or a constant is a point name; a quoted string is the defect this test catches.
      if (arg.find('"') != std::string::npos) {
        offenders.push_back(file.relative + ": " + (*it)[0].str());
      } else if (std::regex_match(arg, constant)) {
        ++hits;
      }
    }
  }
  EXPECT_THAT(offenders, ::testing::IsEmpty());
  // The scan really sees the call sites (engine, stores, file systems, hosts).
  EXPECT_GE(hits, 30);
}

}  // namespace
}  // namespace stepfault::faults
