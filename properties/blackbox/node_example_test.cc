// Goal: black-box mode works on a Node.js program through libuv and better-sqlite3: exploration
// passes the idempotent approval flow and finds the duplicate business effect in the plain one,
// and the recorder sees the same mutating calls as `strace -f` on the same workload (with
// UV_USE_IO_URING=0, as every black-box command gets). Method: run `stepfault blackbox` on
// examples/blackbox/node-approval (crash only by default, every action with STEPFAULT_LONG=1);
// for the cross-check, count (call, path) pairs of write/fsync/rename/unlink under the directory
// in `strace -f -y` output and in the recorded windows. Skipped, saying why, when node or the npm
// dependencies (installed by tools/test) are missing; a missing strace fails the cross-check
// unless STEPFAULT_ALLOW_MISSING_STRACE=1.
#include <nlohmann/json.hpp>
#include <regex>

#include "properties/blackbox/blackbox_test_util.h"

namespace stepfault::properties::blackbox {
namespace {

using testing::BlackboxCliTest;
using Json = nlohmann::json;

std::string NodeSkipReason() {
  if (RunShell("node --version", {"", {}, 30}).exit_code != 0) return "node is not installed";
  if (!std::filesystem::exists(testing::Example("node-approval/node_modules/better-sqlite3")))
    return "npm dependencies are not installed (tools/test runs npm ci in "
           "examples/blackbox/node-approval)";
  return "";
}

TEST_F(BlackboxCliTest, NodeApprovalIdempotentPassesAndPlainRecordsADuplicateEffect) {
  if (std::string why = NodeSkipReason(); !why.empty()) GTEST_SKIP() << why;
  const std::string actions = testing::LongRun() ? "" : " --actions crash";
  CommandResult idem =
      Stepfault("blackbox explore --spec " + testing::Example("node-approval/idempotent.json") +
                actions + " --jobs 2 --out idem");
  EXPECT_EQ(idem.exit_code, 0) << idem.out << idem.err;
  CommandResult plain =
      Stepfault("blackbox explore --spec " + testing::Example("node-approval/plain.json") +
                actions + " --jobs 2 --out plain");
  ASSERT_EQ(plain.exit_code, 1) << plain.out << plain.err;
  Json report = Json::parse(testing::ReadAll(dir_ + "/plain/report.json"));
  bool duplicate = false;
  for (const Json& v : report["violations"])
    duplicate |=
        v["message"].get<std::string>().find("gave [op-1|2], expected []") != std::string::npos;
  EXPECT_TRUE(duplicate) << report["violations"].dump(2);
}

// (call, path) -> count, from strace -f -y lines under `root`.
std::map<std::string, int> StraceCalls(const std::string& text, const std::string& root) {
  std::map<std::string, int> out;
  std::map<std::string, std::string> unfinished;  // pid -> line start
  std::istringstream in(text);
  std::string line;
  const std::regex fd_call(
      R"re(^(\d+)\s+(write|pwrite64|writev|pwritev|fsync|fdatasync)\(\d+<([^>]*)>.*\)\s+=\s+(-?\d+))re");
  const std::regex path_call(
      R"re(^(\d+)\s+(rename|renameat2?|unlink|unlinkat)\((?:[^"]*)"([^"]*)".*\)\s+=\s+(-?\d+))re");
  while (std::getline(in, line)) {
    std::smatch m;
    std::string pid = line.substr(0, line.find(' '));
    if (line.find("<unfinished ...>") != std::string::npos) {
      unfinished[pid] = line.substr(0, line.find("<unfinished ...>"));
      continue;
    }
    if (size_t r = line.find(" resumed>"); r != std::string::npos)
      line = unfinished[pid] + line.substr(r + 9);
    std::string call, path, kind;
    if (std::regex_search(line, m, fd_call) && std::stol(m[4]) >= 0) {
      call = m[2];
      path = m[3];
      kind = (call == "fsync" || call == "fdatasync") ? (path == root ? "fs.dirsync" : "fs.fsync")
                                                      : "fs.write";
      if (kind == "fs.write" && std::stol(m[4]) == 0) continue;
    } else if (std::regex_search(line, m, path_call) && std::stol(m[4]) == 0) {
      call = m[2];
      path = m[3];
      kind = call.rfind("rename", 0) == 0 ? "fs.rename" : "fs.unlink";
    } else {
      continue;
    }
    if (path.rfind(root, 0) != 0) continue;
    std::string rel = path == root ? "." : path.substr(root.size() + 1);
    ++out[kind + "[" + rel + "]"];
  }
  return out;
}

TEST_F(BlackboxCliTest, NodeRecordingMatchesStraceOnTheSameWorkload) {
  if (std::string why = NodeSkipReason(); !why.empty()) GTEST_SKIP() << why;
  STEPFAULT_REQUIRE_PROGRAM(RunShell("strace -V", {"", {}, 30}).exit_code == 0, "strace",
                            "STEPFAULT_ALLOW_MISSING_STRACE");
  CommandResult rec = Stepfault("blackbox record --spec " +
                                testing::Example("node-approval/plain.json") + " --out rec");
  ASSERT_EQ(rec.exit_code, 0) << rec.out << rec.err;
  std::map<std::string, int> recorded;
  std::istringstream windows(testing::ReadAll(dir_ + "/rec/windows.txt"));
  for (std::string w; std::getline(windows, w);) {
    std::string point = w.substr(0, w.rfind('#'));
    for (const char* k : {"fs.write[", "fs.fsync[", "fs.dirsync[", "fs.rename[", "fs.unlink["})
      if (point.rfind(k, 0) == 0) ++recorded[point];
  }
  std::string data = dir_ + "/strace/data";
  std::filesystem::create_directories(data);
  std::string app = testing::Example("node-approval/app.js");
  CommandResult st = RunShell(
      "strace -f -y -qq -o " + dir_ +
          "/strace.out -e trace=write,pwrite64,writev,pwritev,"
          "fsync,fdatasync,rename,renameat,renameat2,unlink,unlinkat sh -c 'node " +
          app + " request " + data + " op-1 && node " + app + " approve " + data + " plain'",
      {dir_ + "/strace", {{"UV_USE_IO_URING", "0"}}, 120});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  std::map<std::string, int> traced = StraceCalls(testing::ReadAll(dir_ + "/strace.out"),
                                                  std::filesystem::canonical(data).string());
  EXPECT_FALSE(recorded.empty());
  EXPECT_EQ(recorded, traced);
}

}  // namespace
}  // namespace stepfault::properties::blackbox
