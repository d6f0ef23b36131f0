// Goal: the business store keeps Demo320's promises: decision rules exact at their boundaries, a
// draft bound to its operation, first decision wins and replays must repeat it, a refusal is
// final, the effect is one row whatever the replays (and the no-UNIQUE mutant is caught by
// counting rows), and the effect transaction is all-or-nothing around a crash.
// Method: ValidateDecision on hand-picked boundary inputs; the store on a real SQLite file in a
// scratch directory (PosixEnv's disk), probes that record or throw, forked children that die with
// _exit at a fault point (a real crash: SQLite's hot journal must roll back), reopening the file
// as a later process would, and two stores driven from several threads.
#include "scenarios/approval/approval_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "scenarios/approval/approval_store_sql.h"
#include "tools/testing/test_env.h"

namespace stepfault::scenarios {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Repeat(std::string_view unit, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += unit;
  return out;
}

StatusCode CodeOf(const Status& s) { return s.code(); }

// ---- Decision rules ---------------------------------------------------------------------------

TEST(ValidateDecisionTest, ChoiceMustBeExactlyApproveOrReject) {
  EXPECT_TRUE(ValidateDecision("approve", "ok").ok());
  EXPECT_TRUE(ValidateDecision("reject", "no").ok());
  for (const char* bad : {"Approve", "REJECT", "approve ", " reject", "", "yes", "approved"}) {
    Status s = ValidateDecision(bad, "fine comment");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(s.message(), HasSubstr("'approve' or 'reject'")) << bad;
  }
}

TEST(ValidateDecisionTest, CommentOfZeroOneFiveHundredAndFiveHundredOneAsciiCharacters) {
  Status empty = ValidateDecision("approve", "");
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.message(), HasSubstr("empty"));
  EXPECT_TRUE(ValidateDecision("approve", "x").ok());
  EXPECT_TRUE(ValidateDecision("approve", Repeat("x", 500)).ok());
  Status too_long = ValidateDecision("approve", Repeat("x", 501));
  EXPECT_EQ(too_long.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(too_long.message(), HasSubstr("501 characters"));
  EXPECT_THAT(too_long.message(), HasSubstr("at most 500"));
}

TEST(ValidateDecisionTest, MultiByteCharactersCountAsOneEach) {
  const std::string e_acute = "\xC3\xA9";        // U+00E9, 2 bytes
  const std::string euro = "\xE2\x82\xAC";       // U+20AC, 3 bytes
  const std::string emoji = "\xF0\x9F\x98\x80";  // U+1F600, 4 bytes
  for (const std::string& unit : {e_acute, euro, emoji}) {
    EXPECT_TRUE(ValidateDecision("reject", unit).ok());
    EXPECT_TRUE(ValidateDecision("reject", Repeat(unit, 500)).ok()) << unit;
    EXPECT_EQ(CodeOf(ValidateDecision("reject", Repeat(unit, 501))), StatusCode::kInvalidArgument)
        << unit;
  }
  // 499 ASCII + one emoji is 500 characters although it is 503 bytes.
  EXPECT_TRUE(ValidateDecision("approve", Repeat("a", 499) + emoji).ok());
  EXPECT_FALSE(ValidateDecision("approve", Repeat("a", 500) + e_acute).ok());
}

TEST(ValidateDecisionTest, BlankCommentsAreRefused) {
  for (const std::string& blank :
       {std::string(" "), std::string("\t\r\n "), Repeat(" ", 500), std::string("\xC2\xA0"),
        std::string("\xE3\x80\x80"), std::string("\xE2\x80\x83 \xE2\x80\xA8")}) {
    Status s = ValidateDecision("approve", blank);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("blank"));
  }
  EXPECT_TRUE(ValidateDecision("approve", "  a  ").ok());
  EXPECT_TRUE(ValidateDecision("approve", "\xC2\xA0x").ok());
}

TEST(ValidateDecisionTest, InvalidUtf8IsRefused) {
  for (const std::string& bad : {
           std::string("\xFF"),              // never valid
           std::string("ok\x80"),            // stray continuation byte
           std::string("\xC3"),              // truncated 2-byte sequence
           std::string("\xE2\x82"),          // truncated 3-byte sequence
           std::string("\xC0\xAF"),          // overlong '/'
           std::string("\xE0\x80\xAF"),      // overlong, 3 bytes
           std::string("\xED\xA0\x80"),      // surrogate U+D800
           std::string("\xF4\x90\x80\x80"),  // U+110000, beyond Unicode
           std::string("\xC3(x"),            // lead byte followed by a non-continuation
       }) {
    Status s = ValidateDecision("approve", bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), HasSubstr("not valid UTF-8"));
  }
  EXPECT_TRUE(ValidateDecision("approve", "\xF4\x8F\xBF\xBF").ok());  // U+10FFFF, the last one
}

// ---- The store ----------------------------------------------------------------------------------

class RecordingProbe : public Probe {
 public:
  void Hit(std::string_view point) override { hits.emplace_back(point); }
  std::vector<std::string> hits;
};

struct InjectedCrash : std::runtime_error {
  InjectedCrash() : std::runtime_error("injected crash") {}
};

// Throws (unwinding the store as an injected crash does) at the first hit of one point.
class ThrowingProbe : public Probe {
 public:
  explicit ThrowingProbe(std::string point) : point_(std::move(point)) {}
  void Hit(std::string_view point) override {
    if (point == point_) throw InjectedCrash();
  }

 private:
  std::string point_;
};

// Ends the process at one point, as a real crash or Demo320's --fail-after-write does.
class ExitProbe : public Probe {
 public:
  explicit ExitProbe(std::string point) : point_(std::move(point)) {}
  void Hit(std::string_view point) override {
    if (point == point_) ::_exit(1);
  }

 private:
  std::string point_;
};

class ApprovalStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test_env::ScratchDir("approval");
    db_path_ = (dir_ / "business.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::unique_ptr<ApprovalStore> OpenStore(ApprovalStoreOptions options = {}) {
    if (options.clock == nullptr) options.clock = &clock_;
    auto store = ApprovalStore::Open(db_path_, std::move(options));
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  fs::path dir_;
  std::string db_path_;
  LogicalClock clock_;
};

TEST_F(ApprovalStoreTest, RegisterProposalIsIdempotentForTheSameDraft) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", R"({"title":"pilot"})").ok());
  ASSERT_TRUE(store->RegisterProposal("op-1", R"({"title":"pilot"})").ok());
  auto rows = store->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].status, ApprovalStatus::kWaiting);
  EXPECT_EQ((*rows)[0].draft, R"({"title":"pilot"})");
  EXPECT_FALSE((*rows)[0].decision.has_value());
  EXPECT_FALSE((*rows)[0].item_id.has_value());
}

TEST_F(ApprovalStoreTest, ReusingAnOperationIdForAnotherDraftFails) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft A").ok());
  Status s = store->RegisterProposal("op-1", "draft B");
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists);
  EXPECT_THAT(s.message(), HasSubstr("operation op-1 is bound to another draft"));
  auto row = store->Read("op-1");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->draft, "draft A");
  // Still reusable after a decision: the binding never changes.
  ASSERT_TRUE(store->RecordDecision("op-1", "approve", "fine").ok());
  EXPECT_EQ(store->RegisterProposal("op-1", "draft B").code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(store->RegisterProposal("op-1", "draft A").ok());
}

TEST_F(ApprovalStoreTest, FirstDecisionWinsExactReplayIsOkEditsAndConflictsFail) {
  RecordingProbe probe;
  auto store = OpenStore({.probe = &probe});
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  ASSERT_TRUE(store->RecordDecision("op-1", "approve", "Looks right.").ok());
  EXPECT_THAT(probe.hits, ElementsAre("decision.record.after"));
  EXPECT_TRUE(store->RecordDecision("op-1", "approve", "Looks right.").ok());
  EXPECT_THAT(probe.hits, ElementsAre("decision.record.after"));  // a replay writes nothing

  Status edited = store->RecordDecision("op-1", "approve", "Looks right!");
  EXPECT_EQ(edited.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(edited.message(),
              HasSubstr("operation op-1 was already decided 'approve' with comment "
                        "'Looks right.'; a replay must repeat it exactly"));
  EXPECT_EQ(store->RecordDecision("op-1", "reject", "Looks right.").code(),
            StatusCode::kFailedPrecondition);
  // Whitespace is part of the comment.
  EXPECT_EQ(store->RecordDecision("op-1", "approve", "Looks right. ").code(),
            StatusCode::kFailedPrecondition);

  auto row = store->Read("op-1");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->status, ApprovalStatus::kApproved);
  EXPECT_EQ(row->decision, "approve");
  EXPECT_EQ(row->comment, "Looks right.");
}

TEST_F(ApprovalStoreTest, InvalidOrUnknownDecisionsChangeNothing) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  EXPECT_EQ(store->RecordDecision("op-1", "Approve", "c").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->RecordDecision("op-1", "approve", "   ").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->Apply("op-1", "approve", "").status().code(), StatusCode::kInvalidArgument);
  Status unknown = store->RecordDecision("op-2", "approve", "c");
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_THAT(unknown.message(), HasSubstr("op-2"));
  EXPECT_EQ(store->Apply("op-2", "approve", "c").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store->Read("op-2").status().code(), StatusCode::kNotFound);
  auto row = store->Read("op-1");
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->status, ApprovalStatus::kWaiting);
  EXPECT_FALSE(row->decision.has_value());
  EXPECT_TRUE(store->Items()->empty());
}

TEST_F(ApprovalStoreTest, RefusalIsFinalAndCreatesNoRow) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  ASSERT_TRUE(store->RecordDecision("op-1", "reject", "Not this quarter.").ok());
  auto applied = store->Apply("op-1", "reject", "Not this quarter.");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_EQ(applied->status, ApprovalStatus::kRejected);
  EXPECT_FALSE(applied->item_id.has_value());
  EXPECT_EQ(store->Apply("op-1", "approve", "Changed my mind.").status().code(),
            StatusCode::kFailedPrecondition);
  auto again = store->Apply("op-1", "reject", "Not this quarter.");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *applied);
  EXPECT_TRUE(store->Items()->empty());
  EXPECT_EQ(store->StoredItemByJoin("op-1").value(), std::nullopt);
  EXPECT_EQ(store->Read("op-1")->status, ApprovalStatus::kRejected);
}

TEST_F(ApprovalStoreTest, ApplyTwiceReturnsTheSameItemIdAndLeavesExactlyOneRow) {
  RecordingProbe probe;
  auto store = OpenStore({.probe = &probe});
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  ASSERT_TRUE(store->RecordDecision("op-1", "approve", "External business decision.").ok());
  auto first = store->Apply("op-1", "approve", "External business decision.");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->status, ApprovalStatus::kCompleted);
  ASSERT_TRUE(first->item_id.has_value());
  auto second = store->Apply("op-1", "approve", "External business decision.");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, *first);
  EXPECT_THAT(probe.hits,
              ElementsAre("decision.record.after", "effect.commit.before", "effect.commit.after",
                          "effect.commit.before", "effect.commit.after"));

  auto items = store->Items();
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), 1u);
  EXPECT_EQ((*items)[0].item_id, *first->item_id);
  EXPECT_EQ((*items)[0].operation_id, "op-1");
  EXPECT_EQ((*items)[0].draft, "draft");
  EXPECT_EQ((*items)[0].created_utc, "2026-01-01T00:00:00.000Z");  // the logical clock, not now
  EXPECT_EQ(store->StoredItemByJoin("op-1").value(), first->item_id);
  EXPECT_EQ(store->Read("op-1")->item_id, first->item_id);
  // An edited replay after completion is refused and adds nothing.
  EXPECT_EQ(store->Apply("op-1", "approve", "External business decision").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(store->Items()->size(), 1u);
  EXPECT_EQ(store->IntegrityCheck().value(), "ok");
}

TEST_F(ApprovalStoreTest, ApplyWithoutAPriorRecordDecisionRecordsIt) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  auto applied = store->Apply("op-1", "approve", "ok");
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(applied->status, ApprovalStatus::kCompleted);
  EXPECT_EQ(store->Read("op-1")->comment, "ok");
}

TEST_F(ApprovalStoreTest, DistinctOperationsGetDistinctRowsAndReadAllIsOrdered) {
  auto store = OpenStore();
  for (const char* op : {"op-b", "op-a", "op-c"}) ASSERT_TRUE(store->RegisterProposal(op, op).ok());
  auto a = store->Apply("op-a", "approve", "yes");
  auto b = store->Apply("op-b", "approve", "yes");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->item_id, b->item_id);
  auto rows = store->ReadAll();
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].operation_id, "op-a");
  EXPECT_EQ((*rows)[2].status, ApprovalStatus::kWaiting);
  EXPECT_EQ(store->Items()->size(), 2u);
}

TEST_F(ApprovalStoreTest, ParametersAreBoundNotSpliced) {
  auto store = OpenStore();
  const std::string op = "o'p\"; DROP TABLE Approvals; --";
  const std::string draft = std::string("{\"q\":\"it's\"}") + '\0' + "tail";
  ASSERT_TRUE(store->RegisterProposal(op, draft).ok());
  auto applied = store->Apply(op, "approve", "it's 'quoted' \"twice\"");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  auto row = store->Read(op);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ(row->draft, draft);
  EXPECT_EQ(row->comment, "it's 'quoted' \"twice\"");
  EXPECT_EQ(store->Items()->at(0).draft, draft);
}

TEST_F(ApprovalStoreTest, ReplayInALaterProcessReturnsTheSameItemId) {
  std::optional<int64_t> item_id;
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
    item_id = store->Apply("op-1", "approve", "yes")->item_id;
  }
  auto reopened = OpenStore();
  auto replay = reopened->Apply("op-1", "approve", "yes");
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->item_id, item_id);
  EXPECT_EQ(reopened->Items()->size(), 1u);
}

TEST_F(ApprovalStoreTest, NoUniqueKeyMutantAddsASecondRowOnReplay) {
  auto store = OpenStore({.hazard_no_unique_key = true});
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  auto first = store->Apply("op-1", "approve", "yes");
  auto second = store->Apply("op-1", "approve", "yes");
  ASSERT_TRUE(first.ok() && second.ok());
  auto items = store->Items();
  ASSERT_TRUE(items.ok());
  EXPECT_EQ(items->size(), 2u);  // INV-IDEM violated: exactly what a row count must catch
  EXPECT_EQ((*items)[0].operation_id, (*items)[1].operation_id);
}

TEST_F(ApprovalStoreTest, CrashBeforeCommitRollsBackTheRowAndTheStatusTogether) {
  ThrowingProbe crash_before("effect.commit.before");
  auto store = OpenStore({.probe = &crash_before});
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  EXPECT_THROW((void)store->Apply("op-1", "approve", "yes"), InjectedCrash);
  // The decision committed before the effect transaction; the effect did not.
  EXPECT_EQ(store->Read("op-1")->status, ApprovalStatus::kApproved);
  EXPECT_TRUE(store->Items()->empty());
  store.reset();
  auto recovered = OpenStore();
  auto applied = recovered->Apply("op-1", "approve", "yes");
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(applied->status, ApprovalStatus::kCompleted);
  EXPECT_EQ(recovered->Items()->size(), 1u);
}

// Runs `body` in a forked child (which must end by _exit) and returns its exit status.
template <typename F>
int RunInChild(F body) {
  pid_t pid = ::fork();
  if (pid == 0) {
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(ApprovalStoreTest, ProcessDeathInsideTheEffectTransactionLeavesNoHalfEffect) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  }
  int exit_code = RunInChild([&] {
    ExitProbe die("effect.commit.before");
    auto store = ApprovalStore::Open(db_path_, {.probe = &die});
    if (!store.ok()) ::_exit(3);
    (void)(*store)->Apply("op-1", "approve", "yes");
    ::_exit(4);  // not reached: the probe ends the process
  });
  ASSERT_EQ(exit_code, 1);
  auto store = OpenStore();
  EXPECT_EQ(store->Read("op-1")->status, ApprovalStatus::kApproved);
  EXPECT_TRUE(store->Items()->empty());
  EXPECT_EQ(store->IntegrityCheck().value(), "ok");
}

TEST_F(ApprovalStoreTest, FailAfterWriteThenReplayReturnsTheSameItemIdAndOneRow) {
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  }
  const std::string comment = "External business decision.";
  int exit_code = RunInChild([&] {
    ExitProbe fail_after_write("effect.commit.after");
    auto store = ApprovalStore::Open(db_path_, {.probe = &fail_after_write});
    if (!store.ok()) ::_exit(3);
    (void)(*store)->Apply("op-1", "approve", comment);
    ::_exit(4);
  });
  ASSERT_EQ(exit_code, 1);  // the program returns 1 after the commit
  auto store = OpenStore();
  EXPECT_EQ(store->Read("op-1")->status, ApprovalStatus::kCompleted);
  auto stored = store->StoredItemByJoin("op-1");
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored->has_value());  // `status` reads Completed and a StoredItem
  auto replay = store->Apply("op-1", "approve", comment);
  ASSERT_TRUE(replay.ok());
  EXPECT_EQ(replay->item_id, *stored);
  EXPECT_EQ(store->Items()->size(), 1u);
}

TEST_F(ApprovalStoreTest, ConcurrentAppliesThroughTwoStoresCreateOneRow) {
  auto a = OpenStore();
  LogicalClock other_clock;
  auto b = OpenStore({.clock = &other_clock});
  ASSERT_TRUE(a->RegisterProposal("op-1", "draft").ok());
  constexpr int kThreads = 4;
  std::vector<std::optional<int64_t>> ids(kThreads);
  std::vector<Status> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ApprovalStore* store = (t % 2 == 0) ? a.get() : b.get();
      for (int round = 0; round < 5; ++round) {
        auto r = store->Apply("op-1", "approve", "yes");
        if (!r.ok()) {
          errors[t] = r.status();
          return;
        }
        if (ids[t].has_value() && ids[t] != r->item_id) errors[t] = Status::Internal("id changed");
        ids[t] = r->item_id;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_TRUE(errors[t].ok()) << errors[t].ToString();
    EXPECT_EQ(ids[t], ids[0]);
  }
  EXPECT_EQ(a->Items()->size(), 1u);
}

TEST_F(ApprovalStoreTest, SqliteErrorsBecomeTypedStatuses) {
  {
    std::ofstream garbage(db_path_, std::ios::binary);
    garbage << Repeat("this is not a SQLite database. ", 200);
  }
  auto not_a_db = ApprovalStore::Open(db_path_, {});
  ASSERT_FALSE(not_a_db.ok());
  EXPECT_EQ(not_a_db.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(not_a_db.status().message(), HasSubstr("not a database"));

  auto missing_dir = ApprovalStore::Open((dir_ / "no" / "such" / "business.db").string(), {});
  ASSERT_FALSE(missing_dir.ok());
  EXPECT_EQ(missing_dir.status().code(), StatusCode::kIOError);

  auto no_vfs = ApprovalStore::Open((dir_ / "x.db").string(), {.vfs_name = "no-such-vfs"});
  ASSERT_FALSE(no_vfs.ok());
  EXPECT_EQ(no_vfs.status().code(), StatusCode::kInvalidArgument);
}

TEST(SqliteErrorMappingTest, EveryFamilyOfResultCodesGetsItsStatusCode) {
  const std::vector<std::pair<int, StatusCode>> cases = {
      {SQLITE_FULL, StatusCode::kNoSpace},
      {SQLITE_IOERR, StatusCode::kIOError},
      {SQLITE_IOERR_FSYNC, StatusCode::kIOError},
      {SQLITE_IOERR_SHORT_READ, StatusCode::kIOError},
      {SQLITE_CORRUPT, StatusCode::kCorruption},
      {SQLITE_NOTADB, StatusCode::kCorruption},
      {SQLITE_BUSY, StatusCode::kBusy},
      {SQLITE_LOCKED, StatusCode::kBusy},
      {SQLITE_CONSTRAINT_UNIQUE, StatusCode::kAlreadyExists},
      {SQLITE_CANTOPEN, StatusCode::kIOError},
      {SQLITE_ERROR, StatusCode::kInternal},
  };
  for (const auto& [rc, code] : cases) {
    Status s = sql::ErrorStatus(nullptr, rc, "doing X");
    EXPECT_EQ(s.code(), code) << rc;
    EXPECT_THAT(s.message(), HasSubstr("doing X: "));
    EXPECT_THAT(s.message(), HasSubstr(sqlite3_errstr(rc)));
  }
}

TEST(ApprovalStatusTest, NamesMatchTheStoredStrings) {
  EXPECT_EQ(ApprovalStatusName(ApprovalStatus::kWaiting), "Waiting");
  EXPECT_EQ(ApprovalStatusName(ApprovalStatus::kApproved), "Approved");
  EXPECT_EQ(ApprovalStatusName(ApprovalStatus::kRejected), "Rejected");
  EXPECT_EQ(ApprovalStatusName(ApprovalStatus::kCompleted), "Completed");
}

// ---- One connection, statements prepared once --------------------------------------------------

TEST_F(ApprovalStoreTest, RepeatedCallsOnOneConnectionPrepareNoStatementAgain) {
  auto store = OpenStore();
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  EXPECT_EQ(store->RegisterProposal("op-1", "other draft").code(), StatusCode::kAlreadyExists);
  ASSERT_TRUE(store->Read("op-1").ok());
  ASSERT_TRUE(store->Apply("op-1", "approve", "yes").ok());
  ASSERT_TRUE(store->ReadAll().ok());
  ASSERT_TRUE(store->Items().ok());
  const uint64_t prepared = store->StatementsPreparedForTesting();
  EXPECT_GT(prepared, 0u);
  // The same calls again (a refused one rolls back, an unknown operation) reuse every statement.
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  EXPECT_EQ(store->RegisterProposal("op-1", "other draft").code(), StatusCode::kAlreadyExists);
  EXPECT_EQ(store->Read("op-2").status().code(), StatusCode::kNotFound);
  auto replay = store->Apply("op-1", "approve", "yes");
  ASSERT_TRUE(replay.ok()) << replay.status().ToString();
  EXPECT_EQ(replay->status, ApprovalStatus::kCompleted);
  EXPECT_EQ(store->ReadAll()->size(), 1u);
  EXPECT_EQ(store->Items()->size(), 1u);
  EXPECT_EQ(store->StatementsPreparedForTesting(), prepared);
}

TEST_F(ApprovalStoreTest, AStatementInUseWhenAProbeThrowsIsResetForTheNextCall) {
  ThrowingProbe crash("effect.commit.before");
  auto store = OpenStore({.probe = &crash});
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  ASSERT_TRUE(store->Read("op-1").ok());
  EXPECT_EQ(store->RegisterProposal("op-1", "other draft").code(), StatusCode::kAlreadyExists);
  EXPECT_THROW((void)store->Apply("op-1", "approve", "yes"), InjectedCrash);
  // The unwound transaction rolled back and its statements were reset: the same connection reads
  // the decision (committed before the effect) and no effect, without preparing anything again.
  const uint64_t prepared = store->StatementsPreparedForTesting();
  auto row = store->Read("op-1");
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(row->status, ApprovalStatus::kApproved);
  EXPECT_FALSE(row->item_id.has_value());
  EXPECT_EQ(store->StatementsPreparedForTesting(), prepared);
}

TEST_F(ApprovalStoreTest, OpenCountsOneConnectionAndClosingTheStoreEndsIt) {
  const uint64_t opens = ApprovalStore::OpensForTesting();
  const int64_t open_now = ApprovalStore::OpenNowForTesting();
  {
    auto store = OpenStore();
    EXPECT_EQ(ApprovalStore::OpensForTesting(), opens + 1);
    EXPECT_EQ(ApprovalStore::OpenNowForTesting(), open_now + 1);
  }
  EXPECT_EQ(ApprovalStore::OpenNowForTesting(), open_now);
}

// Open skips the schema's CREATE statements only when the loaded schema has both tables: a
// database that lacks one (made by another program, say) still gets it created.
TEST_F(ApprovalStoreTest, OpenCreatesTheTableAnExistingDatabaseLacks) {
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path_.c_str(), &db), SQLITE_OK);
    ASSERT_TRUE(sql::Exec(db,
                          "CREATE TABLE Approvals(OperationId TEXT PRIMARY KEY, Draft TEXT NOT "
                          "NULL, Status TEXT NOT NULL, Decision TEXT NULL, Comment TEXT NULL)")
                    .ok());
    sqlite3_close(db);
  }
  auto store = OpenStore();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  auto applied = store->Apply("op-1", "approve", "yes");
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  auto items = store->Items();
  ASSERT_TRUE(items.ok()) << items.status().ToString();
  EXPECT_EQ(items->size(), 1u);
}

// Reopening a database whose schema exists (what every later life does) writes nothing: the
// file's bytes are unchanged and no journal is left.
TEST_F(ApprovalStoreTest, ReopeningAnExistingDatabaseChangesNoByte) {
  auto read_all = [this] {
    std::ifstream in(db_path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  {
    auto store = OpenStore();
    ASSERT_TRUE(store->RegisterProposal("op-1", "draft").ok());
  }
  const std::string before = read_all();
  ASSERT_FALSE(before.empty());
  { auto reopened = OpenStore(); }
  EXPECT_EQ(read_all(), before);
  EXPECT_FALSE(fs::exists(db_path_ + "-journal"));
}

}  // namespace
}  // namespace stepfault::scenarios
