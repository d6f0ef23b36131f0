// Goal: the trace reader accepts exactly what the recorder writes and rejects any damage with a
// typed error that names the record. Method: frame records with FrameRecord (the same framing the
// C recorder uses; the recorder itself is exercised end to end in properties/blackbox), parse them
// back, then flip, cut and forge bytes.
#include "faults/blackbox/trace.h"

#include <gtest/gtest.h>

namespace stepfault::faults::blackbox {
namespace {

std::string SampleTrace() {
  return std::string(kTraceHeader) +
         FrameRecord(
             "open", 7,
             {{"path", "data/state json"}, {"w", "fs.create[data/state json]"}, {"ino", "5"}}, "") +
         FrameRecord("write", 7,
                     {{"path", "data/state json"},
                      {"w", "fs.write[data/state json]"},
                      {"ino", "5"},
                      {"off", "0"}},
                     std::string("a\nb=%\0c", 7)) +
         FrameRecord(
             "write", 7,
             {{"path", "x"}, {"w", "fs.write[data/state json]"}, {"ino", "5"}, {"off", "7"}}, "z") +
         FrameRecord("failed", 7, {{"w", "fs.fsync[x]"}, {"errno", "5"}}, "");
}

TEST(BlackboxTraceTest, ReadsBackWhatIsFramedWithFieldsAndBinaryData) {
  Result<Trace> t = ParseTrace(SampleTrace());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->records.size(), 4u);
  EXPECT_EQ(t->records[0].Get("path"), "data/state json");  // percent-encoded space round-trips
  EXPECT_EQ(t->records[1].data, std::string("a\nb=%\0c", 7));
  EXPECT_EQ(t->records[1].Int("ino"), 5);
  std::vector<TraceWindow> w = WindowsOf(*t);
  ASSERT_EQ(w.size(), 3u);  // the failed call is not a window
  EXPECT_EQ(w[1].id, "fs.write[data/state json]#1");
  EXPECT_EQ(w[2].id, "fs.write[data/state json]#2");
  EXPECT_EQ(w[2].record, 2u);
}

TEST(BlackboxTraceTest, RejectsEveryKindOfDamageWithTheRecordNamed) {
  const std::string good = SampleTrace();
  std::string flipped = good;
  flipped[good.size() - 30] ^= 0x01;
  Result<Trace> a = ParseTrace(flipped);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kCorruption);
  EXPECT_NE(a.status().message().find("checksum mismatch"), std::string::npos)
      << a.status().message();
  Result<Trace> b = ParseTrace(good.substr(0, good.size() - 3));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("trace record 3"), std::string::npos) << b.status().message();
  EXPECT_NE(b.status().message().find("truncated"), std::string::npos);
  Result<Trace> c = ParseTrace("STEPFAULT-TRACE 9\n");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("missing header"), std::string::npos);
  Result<Trace> d = ParseTrace(std::string(kTraceHeader) + "garbage\n");
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("frame line"), std::string::npos);
}

// Offsets and sizes become bytes of a file held in memory: a record past kMaxTraceFileBytes (an
// offset of an exabyte would have been a resize of that many bytes) is damage, and a 19-digit
// number never wraps into a negative one.
TEST(BlackboxTraceTest, OffsetsAndSizesAreBoundedAndNumbersNeverWrap) {
  auto with = [](const std::string& key, const std::string& value, const std::string& data) {
    return std::string(kTraceHeader) +
           FrameRecord("write", 1, {{"path", "f"}, {"w", "fs.write[f]"}, {key, value}}, data);
  };
  EXPECT_TRUE(ParseTrace(with("off", std::to_string(kMaxTraceFileBytes - 1), "x")).ok());
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"off", "1000000000000000000"},
                                                        {"size", "9999999999999999999"},
                                                        {"off", "-1"},
                                                        {"off", std::to_string(kMaxTraceFileBytes)},
                                                        {"size", "12x"}}) {
    Result<Trace> t = ParseTrace(with(key, value, "x"));
    ASSERT_FALSE(t.ok()) << key << "=" << value;
    EXPECT_EQ(t.status().code(), StatusCode::kCorruption);
    EXPECT_NE(t.status().message().find("1 GiB"), std::string::npos) << t.status().message();
  }
  TraceRecord r;
  r.fields["mode"] = "-9223372036854775808";
  EXPECT_EQ(r.Int("mode", 7), 7);
  r.fields["mode"] = "-9223372036854775807";
  EXPECT_EQ(r.Int("mode", 7), -9223372036854775807LL);
}

// Goal: names a run makes up are canonical in window ids, so two recordings with different
// random and pid-based names give the same windows, while ordinary names stay as they are.
Trace RunWithNames(const std::string& random, int64_t pid) {
  Trace t;
  t.records.push_back({"hello", pid, {}, ""});
  for (const std::string& name : std::vector<std::string>{
           "objects/tmp_obj_" + random, "objects/tmp_obj_" + random, "objects/tmp_obj_zz" + random,
           "state." + std::to_string(pid) + ".tmp", std::string("app.db-journal"),
           std::string("seg-42"), "objects/f7/5898b0b" + std::to_string(pid) + "ab3c"})
    t.records.push_back({"write", pid, {{"w", "fs.write[" + name + "]"}}, "x"});
  t.records.push_back(
      {"fault", pid, {{"w", "fs.fsync[state." + std::to_string(pid) + ".tmp]"}}, ""});
  return t;
}

TEST(BlackboxTraceTest, TemporaryAndPidNamesAreCanonicalInWindowIds) {
  const std::vector<std::string> globs = {"tmp_obj_*"};
  std::vector<TraceWindow> a = WindowsOf(RunWithNames("Ab12Cd", 4321), globs);
  std::vector<TraceWindow> b = WindowsOf(RunWithNames("x9Y8z7", 7777), globs);
  ASSERT_EQ(a.size(), 7u);
  for (size_t i = 0; i + 1 < a.size(); ++i) EXPECT_EQ(a[i].id, b[i].id);
  EXPECT_EQ(a[0].id, "fs.write[objects/tmp_obj_@1]#1");
  EXPECT_EQ(a[1].id, "fs.write[objects/tmp_obj_@1]#2");  // the same name, its second write
  EXPECT_EQ(a[2].id, "fs.write[objects/tmp_obj_@2]#1");  // a second name in that directory
  EXPECT_EQ(a[3].id, "fs.write[state.@p1.tmp]#1");
  EXPECT_EQ(a[4].id, "fs.write[app.db-journal]#1");  // an ordinary name is left alone
  EXPECT_EQ(a[5].id, "fs.write[seg-42]#1");          // two digits are never a pid
  // Digits next to a hex letter are part of a hex number (a git object name), even when they
  // equal a pid.
  EXPECT_EQ(a[6].id, "fs.write[objects/f7/5898b0b4321ab3c]#1");
  EXPECT_EQ(CanonicalPoint(RunWithNames("Ab12Cd", 4321), 8, globs), "fs.fsync[state.@p1.tmp]");
  // Without the glob, random names differ between the runs.
  EXPECT_NE(WindowsOf(RunWithNames("Ab12Cd", 4321))[0].id,
            WindowsOf(RunWithNames("x9Y8z7", 7777))[0].id);
}

// Issue 31: the harness's `volatile pattern=` records are globs (fnmatch without flags: `*`
// matches `/`), a recorder's `volatile path=` record a mapped file; "-shm" is always volatile.
TEST(BlackboxTraceTest, VolatileGlobsAndFilesAreReadApartAndMatchedAsDocumented) {
  Result<Trace> t = ParseTrace(std::string(kTraceHeader) +
                               FrameRecord("volatile", 1, {{"pattern", "cache/*"}}, "") +
                               FrameRecord("volatile", 1, {{"pattern", "*.idx"}}, "") +
                               FrameRecord("volatile", 2, {{"path", "app.db-shm"}}, ""));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(VolatilePatterns(*t), (std::vector<std::string>{"cache/*", "*.idx"}));
  EXPECT_EQ(VolatileFiles(*t), std::vector<std::string>{"app.db-shm"});
  const std::vector<std::string> globs = VolatilePatterns(*t);
  EXPECT_TRUE(IsVolatilePath("cache/a/b", globs));
  EXPECT_TRUE(IsVolatilePath("sub/x.idx", globs));
  EXPECT_TRUE(IsVolatilePath("db/app.db-shm", {}));
  EXPECT_FALSE(IsVolatilePath("cachex", globs));
  EXPECT_FALSE(IsVolatilePath("x.idx.tmp", globs));
  EXPECT_FALSE(IsVolatilePath("app.db-wal", globs));
}

}  // namespace
}  // namespace stepfault::faults::blackbox
