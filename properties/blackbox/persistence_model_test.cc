// Goal: a finding that holds only under POSIX-strict is labelled so, and each persistence model
// gives the verdict its rules give (issue 31 item 6). The program mkdirs d, creates d/f, writes
// "acked", fsyncs d/f (never a directory) and then acknowledges "acked". Under posix the power
// loss at the end leaves neither name durable: the acknowledged bytes are lost (VIOLATION), and
// the minimal plan, rebuilt under ext4-ordered, xfs and btrfs, holds under posix only. Under
// ext4-ordered and xfs the fsync commits the journal, which carries the mkdir and the create;
// under btrfs the fsync of a new file logs its name and its new parent: PASS under all three.
// Every report names its model, a replay reproduces each model's verdict, and a printed replay
// command carries --fs-model; a second program (a rename over an unsynced file) is labelled with
// exactly the models whose own exploration finds it. Method: `stepfault blackbox explore|replay` on
// a spec running stepfault-crash-programs mkdir-file-fsync-no-parent-fsync
// (faults/blackbox/testdata/ crash_programs.c), with a check that what was acknowledged is in d/f.
#include <fstream>
#include <nlohmann/json.hpp>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using testing::ReadAll;
using Json = nlohmann::json;

constexpr char kPlan[] = "powerloss@proc.exit[cmd1]#1";

class PersistenceModelTest : public BlackboxCliTest {
 protected:
  // The spec; `check` is the check script's body.
  std::string Spec(const std::string& check) {
    std::ofstream(dir_ + "/check.sh") << check;
    return WriteSpec("mkdir.json", R"({"name":"mkdir-fsync","dir":"w",
      "setup":["mkdir -p w"],
      "run":["stepfault-crash-programs mkdir-file-fsync-no-parent-fsync $STEPFAULT_DIR"],
      "check":["sh $STEPFAULT_SPEC_DIR/check.sh"],"timeout_s":20})");
  }
  std::string AckedSurvives() {
    return Spec(
        "if grep -qx acked \"$STEPFAULT_ACKED\" 2>/dev/null; then\n"
        "  [ \"$(cat \"$STEPFAULT_DIR/d/f\" 2>/dev/null)\" = acked ] ||\n"
        "    { echo \"acked was acknowledged but is lost\"; exit 1; }\n"
        "fi\n");
  }
  CommandResult Explore(const std::string& spec, const std::string& model) {
    return Stepfault("blackbox explore --spec " + spec + " --actions crash,powerloss --quiet" +
                     (model.empty() ? "" : " --fs-model " + model) + " --out " +
                     (model.empty() ? "default" : model));
  }
};

TEST_F(PersistenceModelTest, UnderPosixTheLostAcknowledgedFileIsAViolationLabelledPosixOnly) {
  CommandResult r = Explore(AckedSurvives(), "");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = Json::parse(ReadAll(dir_ + "/default/report.json"));
  EXPECT_EQ(report["fs_model"], "posix");
  bool lost = false;
  for (const Json& v : report["violations"]) {
    if (v["plan"] != kPlan) continue;
    lost = true;
    EXPECT_EQ(v["holds_under"], Json::array({"posix"})) << v.dump(2);
    EXPECT_EQ(v["replay"].get<std::string>().find("--fs-model"), std::string::npos) << v.dump(2);
  }
  EXPECT_TRUE(lost) << report["violations"].dump(2);
  EXPECT_NE(r.out.find("holds under: posix only"), std::string::npos) << r.out;
  const std::string summary = ReadAll(dir_ + "/default/summary.md");
  EXPECT_NE(summary.find("Persistence model: `posix`"), std::string::npos) << summary;
  EXPECT_NE(summary.find("holds under: posix only"), std::string::npos) << summary;
  EXPECT_NE(ReadAll(dir_ + "/default/junit.xml").find("name=\"fs_model\" value=\"posix\""),
            std::string::npos);
}

TEST_F(PersistenceModelTest, UnderExt4OrderedXfsAndBtrfsTheSameProgramPasses) {
  const std::string spec = AckedSurvives();
  for (const char* model : {"ext4-ordered", "xfs", "btrfs"}) {
    SCOPED_TRACE(model);
    CommandResult r = Explore(spec, model);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    Json report = Json::parse(ReadAll(dir_ + "/" + model + "/report.json"));
    EXPECT_EQ(report["fs_model"], model);
    EXPECT_TRUE(report["violations"].empty()) << report["violations"].dump(2);
    EXPECT_NE(report["command"].get<std::string>().find(std::string("--fs-model ") + model),
              std::string::npos);
  }
}

TEST_F(PersistenceModelTest, ReplayReproducesEachModelsVerdict) {
  const std::string spec = AckedSurvives();
  CommandResult posix = Stepfault("blackbox replay --spec " + spec + " --plan '" + kPlan + "'");
  EXPECT_EQ(posix.exit_code, 1) << posix.out << posix.err;
  EXPECT_NE(posix.out.find("acked was acknowledged but is lost"), std::string::npos) << posix.out;
  CommandResult ext4 = Stepfault("blackbox replay --spec " + spec + " --plan '" + kPlan +
                                 "' --fs-model ext4-ordered");
  EXPECT_EQ(ext4.exit_code, 0) << ext4.out << ext4.err;
  EXPECT_NE(ext4.out.find("persistence model: ext4-ordered"), std::string::npos) << ext4.out;
}

TEST_F(PersistenceModelTest, AViolationUnderAnotherModelPrintsAReplayWithThatModel) {
  // A crash between the mkdir and the create leaves d empty under every model.
  CommandResult r = Explore(Spec("[ ! -d \"$STEPFAULT_DIR/d\" ] || [ -f \"$STEPFAULT_DIR/d/f\" ] ||"
                                 " { echo \"d without f\"; exit 1; }\n"),
                            "xfs");
  ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
  Json report = Json::parse(ReadAll(dir_ + "/xfs/report.json"));
  ASSERT_FALSE(report["violations"].empty());
  for (const Json& v : report["violations"]) {
    EXPECT_NE(v["replay"].get<std::string>().find(" --fs-model xfs"), std::string::npos)
        << v.dump(2);
    EXPECT_FALSE(v.contains("holds_under")) << "only a posix run is labelled: " << v.dump(2);
  }
}

TEST_F(PersistenceModelTest, TheLabelsAgreeWithAnExplorationUnderEachModel) {
  // A save by rename over the old file without an fsync of the new one, then an fsync of another
  // file (coreutils `sync FILE`), acknowledged. posix loses the rename; ext4-ordered commits it
  // with the source's bytes (auto_da_alloc); xfs commits it but not the bytes (the zero-length
  // file, a state no posix cell builds: recovered and checked by the labelling); btrfs's fsync of
  // log carries nothing else. Each power loss has two tearings; the label must see both.
  std::ofstream(dir_ + "/check.sh")
      << "if grep -qx saved \"$STEPFAULT_ACKED\" 2>/dev/null; then\n"
         "  [ \"$(cat \"$STEPFAULT_DIR/state\" 2>/dev/null)\" = new ] ||\n"
         "    { echo \"saved but state is not new\"; exit 1; }\n"
         "fi\n";
  const std::string spec = WriteSpec("rename.json", R"({"name":"rename-over","dir":"w",
    "setup":["mkdir -p w && printf old > w/state && : > w/log"],
    "run":["printf new > $STEPFAULT_DIR/tmp && mv $STEPFAULT_DIR/tmp $STEPFAULT_DIR/state && printf L >> $STEPFAULT_DIR/log && sync $STEPFAULT_DIR/log && echo saved"],
    "check":["sh $STEPFAULT_SPEC_DIR/check.sh"],"timeout_s":20})");
  for (const char* seed : {"0", "1"}) {
    SCOPED_TRACE(seed);
    CommandResult r =
        Stepfault("blackbox explore --spec " + spec + " --actions crash,powerloss --quiet --seed " +
                  seed + " --out s" + seed);
    ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("holds under: posix, xfs, btrfs\n"), std::string::npos) << r.out;
    Json report = Json::parse(ReadAll(dir_ + "/s" + seed + "/report.json"));
    for (const Json& v : report["violations"]) {
      if (v["plan"] == kPlan) {
        EXPECT_EQ(v["holds_under"], Json::array({"posix", "xfs", "btrfs"})) << v.dump(2);
      }
    }
  }
  for (const auto& [model, exit_code] :
       {std::pair{"ext4-ordered", 0}, std::pair{"xfs", 1}, std::pair{"btrfs", 1}}) {
    CommandResult r = Explore(spec, model);
    EXPECT_EQ(r.exit_code, exit_code) << model << "\n" << r.out << r.err;
  }
}

TEST_F(PersistenceModelTest, AnUnknownModelExitsTwoNamingTheModelsAndWritesNothing) {
  CommandResult r = Explore(AckedSurvives(), "zfs");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("'zfs'; the models are: posix, ext4-ordered, xfs, btrfs"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/zfs"));
  CommandResult rp = Stepfault("blackbox replay --spec " + AckedSurvives() + " --plan '" + kPlan +
                               "' --fs-model ext3");
  EXPECT_EQ(rp.exit_code, 2) << rp.out << rp.err;
  EXPECT_NE(rp.err.find("the models are"), std::string::npos) << rp.err;
}

}  // namespace
}  // namespace stepfault::properties::blackbox
