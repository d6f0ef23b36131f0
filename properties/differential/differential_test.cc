// CompareTraces and the deviation table: equal traces give no difference; each kind of
// difference is found and classified; every documented deviation claims exactly what its entry
// says and no more (a pin per deviation).
#include "properties/differential/differential.h"

#include <gtest/gtest.h>

namespace stepfault::properties {
namespace {

std::vector<Json> Trace() {
  return {Json{{"line", "begin"}, {"mode", "run"}},
          Json{{"line", "step"}, {"step", 0}, {"invoked", Json::array({"a"})}},
          Json{{"line", "halt"}, {"status", "idle"}},
          Json{{"line", "checkpoint"},
               {"name", "cp0"},
               {"step", 0},
               {"state", Json::object()},
               {"queued", Json{{"b", Json::array({1})}}}}};
}

TEST(CompareTraces, EqualTracesHaveNoDifference) {
  EXPECT_TRUE(CompareTraces(Trace(), Trace()).empty());
}

TEST(CompareTraces, AFieldThatDiffersIsNamedByLineAndField) {
  std::vector<Json> engine = Trace();
  engine[1]["step"] = 1;
  auto d = CompareTraces(Trace(), engine);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "step.step");
  EXPECT_TRUE(d[0].deviation.empty());
}

TEST(CompareTraces, QueuedMessagesCompareByReceiver) {
  std::vector<Json> engine = Trace();
  engine[3]["queued"]["b"] = Json::array({2});
  auto d = CompareTraces(Trace(), engine);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "checkpoint.queued");
  EXPECT_EQ(d[0].where, "cp0/b");
}

TEST(CompareTraces, MissingLinesAndCheckpointsAreReported) {
  std::vector<Json> engine = Trace();
  engine.erase(engine.begin() + 2, engine.end());
  auto d = CompareTraces(Trace(), engine);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].kind, "line missing in engine");
  EXPECT_EQ(d[1].kind, "checkpoint missing in engine");
}

TEST(CompareTraces, LinesOfDifferentKindsAreAnOrderDifference) {
  std::vector<Json> engine = Trace();
  std::swap(engine[1], engine[2]);
  auto d = CompareTraces(Trace(), engine);
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d[0].kind, "event order");
}

TEST(CompareTraces, SplitModesCutsAtBeginLines) {
  std::vector<Json> all = Trace();
  std::vector<Json> second = Trace();
  second[0]["mode"] = "resume:0";
  all.insert(all.end(), second.begin(), second.end());
  auto modes = SplitModes(all);
  ASSERT_EQ(modes.size(), 2u);
  EXPECT_EQ(modes[1].first, "resume:0");
  EXPECT_EQ(modes[1].second.size(), 4u);
}

// Pin: port-bookkeeping-state claims only MAF's own port entry that the engine lacks.
TEST(Deviations, PortBookkeepingStateClaimsOnlyThePortEntry) {
  std::vector<Json> maf = Trace();
  maf[3]["state"]["review||WrappedRequestsStateKey"] = Json::object();
  auto d = CompareTraces(maf, Trace());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].deviation, "port-bookkeeping-state");

  std::vector<Json> other = Trace();
  other[3]["state"]["review||counter"] = 1;
  auto undocumented = CompareTraces(other, Trace());
  ASSERT_EQ(undocumented.size(), 1u);
  EXPECT_TRUE(undocumented[0].deviation.empty());
}

// Pin: maf-restored-message-emptied claims what follows MAF's first emptied delivery, not before.
TEST(Deviations, RestoredMessageEmptiedClaimsOnlyFromTheEmptiedStepOn) {
  const Json emptied{{"type", ""}, {"body", Json::object()}};
  std::vector<Json> maf = Trace();
  maf.insert(maf.begin() + 2,
             Json{{"line", "step"},
                  {"step", 1},
                  {"invoked", Json::array({Json{{"executor", "b"}, {"message", emptied}}})}});
  std::vector<Json> engine = Trace();
  engine.insert(engine.begin() + 2,
                Json{{"line", "step"},
                     {"step", 1},
                     {"invoked", Json::array({Json{{"executor", "b"}, {"message", 1}}})}});
  engine[2 + 1]["status"] = "ended";  // the halt after the emptied step differs as well
  auto d = CompareTraces(maf, engine);
  ASSERT_EQ(d.size(), 2u);
  for (const TraceDifference& x : d) EXPECT_EQ(x.deviation, "maf-restored-message-emptied");

  engine[1]["invoked"] = Json::array({"z"});  // step 0, before the emptied delivery
  bool undocumented = false;
  for (const TraceDifference& x : CompareTraces(maf, engine)) {
    undocumented |= x.kind == "step.invoked" && x.step == 0 && x.deviation.empty();
  }
  EXPECT_TRUE(undocumented);
}

// Pin: failed-step-ends-run claims the halt after a failure and a refused restore, nothing else.
TEST(Deviations, FailedStepEndsRunClaimsTheHaltAfterAFailureAndARefusedRestore) {
  std::vector<Json> maf = Trace();
  maf[1]["failed"] = Json::array({"a"});
  std::vector<Json> engine = maf;
  engine[2]["status"] = "ended";
  auto d = CompareTraces(maf, engine);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].deviation, "failed-step-ends-run");
  // Without a failed step the same halt difference is undocumented.
  std::vector<Json> plain = Trace();
  plain[2]["status"] = "ended";
  auto undocumented = CompareTraces(Trace(), plain);
  ASSERT_EQ(undocumented.size(), 1u);
  EXPECT_TRUE(undocumented[0].deviation.empty());
  // A restore the engine refused because its run had ended.
  std::vector<Json> refused{
      Trace()[0], Json{{"line", "error"}, {"message", "the run of session 's' has ended"}}};
  for (const TraceDifference& x : CompareTraces(Trace(), refused)) {
    EXPECT_EQ(x.deviation, "failed-step-ends-run") << x.kind;
  }
}

// Pin: failed-step-ends-run is Lockstep's: under OffThread MAF ends the run too, and the same
// halt difference is undocumented.
TEST(Deviations, FailedStepEndsRunDoesNotApplyToOffThread) {
  std::vector<Json> maf = Trace();
  maf[1]["failed"] = Json::array({"a"});
  std::vector<Json> engine = maf;
  engine[2]["status"] = "ended";
  auto d = CompareTraces(maf, engine, {}, MafExecution::kOffThread);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_TRUE(d[0].deviation.empty());
}

// Pin: offthread-restore-of-ended-run-is-inert claims an engine-refused restore only when MAF's
// OffThread trace of it is a lone halt "ended"; a restore MAF ran, or Lockstep, is not claimed.
TEST(Deviations, OffThreadRestoreOfEndedRunIsInertClaimsOnlyALoneEndedHalt) {
  const Json begin{{"line", "begin"}, {"mode", "restore:1"}};
  const std::vector<Json> refused{
      begin, Json{{"line", "error"}, {"message", "the run of session 's' has ended"}}};
  const std::vector<Json> inert{begin, Json{{"line", "halt"}, {"status", "ended"}}};
  auto d = CompareTraces(inert, refused, {}, MafExecution::kOffThread);
  ASSERT_FALSE(d.empty());
  for (const TraceDifference& x : d) {
    EXPECT_EQ(x.deviation, "offthread-restore-of-ended-run-is-inert") << x.kind;
  }
  std::vector<Json> ran = Trace();
  ran[0] = begin;
  for (const TraceDifference& x : CompareTraces(ran, refused, {}, MafExecution::kOffThread)) {
    EXPECT_TRUE(x.deviation.empty()) << x.kind;
  }
}

// Pin: offthread-idle-resume-never-halts claims the lone NotStarted halt of an OffThread resume
// against the engine's idle one, nothing else and not under Lockstep.
TEST(Deviations, OffThreadIdleResumeNeverHaltsClaimsOnlyTheLoneNotStartedHalt) {
  const Json begin{{"line", "begin"}, {"mode", "resume:2"}};
  const std::vector<Json> maf{begin, Json{{"line", "halt"}, {"status", "NotStarted"}}};
  const std::vector<Json> engine{begin, Json{{"line", "halt"}, {"status", "idle"}}};
  auto d = CompareTraces(maf, engine, {}, MafExecution::kOffThread);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].deviation, "offthread-idle-resume-never-halts");
  auto lockstep = CompareTraces(maf, engine, {}, MafExecution::kLockstep);
  ASSERT_EQ(lockstep.size(), 1u);
  EXPECT_TRUE(lockstep[0].deviation.empty());
  const std::vector<Json> ended{begin, Json{{"line", "halt"}, {"status", "ended"}}};
  auto other = CompareTraces(ended, engine, {}, MafExecution::kOffThread);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_TRUE(other[0].deviation.empty());
}

// Pin: offthread-responses-split-by-timing claims from the first step after a halt with two or
// more responses on, under OffThread only; a single response leaves the same difference
// undocumented.
TEST(Deviations, OffThreadResponsesSplitClaimsOnlyAfterSeveralAnswers) {
  const Json r{{"request", "r1"}};
  auto trace = [&](size_t answers, const Json& invoked) {
    Json responses = Json::array();
    for (size_t i = 0; i < answers; ++i) responses.push_back(r);
    return std::vector<Json>{
        Json{{"line", "begin"}, {"mode", "run"}},
        Json{{"line", "step"}, {"step", 0}, {"invoked", Json::array()}},
        Json{{"line", "halt"}, {"status", "pending_requests"}, {"responses", responses}},
        Json{{"line", "step"}, {"step", 1}, {"invoked", invoked}}};
  };
  auto d = CompareTraces(trace(2, Json::array({"a"})), trace(2, Json::array({"a", "a"})), {},
                         MafExecution::kOffThread);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].deviation, "offthread-responses-split-by-timing");
  auto lockstep = CompareTraces(trace(2, Json::array({"a"})), trace(2, Json::array({"a", "a"})));
  ASSERT_EQ(lockstep.size(), 1u);
  EXPECT_TRUE(lockstep[0].deviation.empty());
  auto single = CompareTraces(trace(1, Json::array({"a"})), trace(1, Json::array({"a", "a"})), {},
                              MafExecution::kOffThread);
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(single[0].deviation.empty());
  // A fresh OffThread run that did not write the mode's checkpoint, after the engine's run
  // answered two requests at one halt.
  const std::vector<Json> shorter{
      Json{{"line", "begin"}, {"mode", "resume:3"}},
      Json{{"line", "error"}, {"message", "--resume 3: the run wrote checkpoints 0..2"}}};
  std::vector<Json> engine_mode = trace(1, Json::array({"a"}));
  engine_mode[0]["mode"] = "resume:3";
  for (const TraceDifference& x :
       CompareTraces(shorter, engine_mode, trace(2, Json::array()), MafExecution::kOffThread)) {
    EXPECT_EQ(x.deviation, "offthread-responses-split-by-timing") << x.kind;
  }
  for (const TraceDifference& x :
       CompareTraces(shorter, engine_mode, trace(1, Json::array()), MafExecution::kOffThread)) {
    EXPECT_TRUE(x.deviation.empty()) << x.kind;
  }
}

// Pin: fan-in-rounds-by-thread-timing claims from the step in which two sources of a barrier sent
// to it and one of them twice; not when only one source sent, and nothing before that step.
TEST(Deviations, FanInRoundsByThreadTimingClaimsFromTheRacingStepOnOnly) {
  auto trace = [](const Json& step1_outputs, const Json& barrier) {
    const Json out{{"executor", "x"}, {"message", 1}};
    return std::vector<Json>{
        Json{{"line", "begin"}, {"mode", "run"}},
        Json{{"line", "step"}, {"step", 0}, {"outputs", Json::array({out})}, {"checkpoint", "cp0"}},
        Json{{"line", "step"}, {"step", 1}, {"outputs", step1_outputs}, {"checkpoint", "cp1"}},
        Json{{"line", "halt"}, {"status", "idle"}},
        Json{{"line", "checkpoint"},
             {"name", "cp0"},
             {"step", 0},
             {"fan_in", Json{{"s<-a,b", Json{{"pending", Json::array()}}}}}},
        Json{{"line", "checkpoint"}, {"name", "cp1"}, {"step", 1}, {"fan_in", barrier}}};
  };
  const Json a{{"executor", "a"}, {"message", 1}};
  const Json b{{"executor", "b"}, {"message", 2}};
  const Json maf_barrier{{"s<-a,b", Json{{"pending", Json::array({Json{{"from", "a"}}})}}}};
  const Json engine_barrier{{"s<-a,b", Json{{"pending", Json::array()}}}};
  const Json racing = Json::array({a, a, b});
  auto d = CompareTraces(trace(racing, maf_barrier), trace(racing, engine_barrier));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "checkpoint.fan_in");
  EXPECT_EQ(d[0].deviation, "fan-in-rounds-by-thread-timing");

  // One source alone sending twice: the order of its own messages is its own; undocumented.
  const Json alone = Json::array({a, a});
  auto single = CompareTraces(trace(alone, maf_barrier), trace(alone, engine_barrier));
  ASSERT_EQ(single.size(), 1u);
  EXPECT_TRUE(single[0].deviation.empty());

  // A difference in the step before the racing one stays undocumented.
  std::vector<Json> maf = trace(racing, engine_barrier);
  maf[1]["outputs"] = Json::array();
  bool undocumented = false;
  for (const TraceDifference& x : CompareTraces(maf, trace(racing, engine_barrier))) {
    undocumented |= x.step == 0 && x.deviation.empty();
  }
  EXPECT_TRUE(undocumented);

  // A restore from a checkpoint taken at or after the race inherits it; one from before does not.
  const std::vector<Json> run = trace(racing, engine_barrier);
  auto restore = [](int n, int status_step) {
    return std::vector<Json>{
        Json{{"line", "begin"}, {"mode", "restore:" + std::to_string(n)}},
        Json{{"line", "step"}, {"step", status_step}, {"outputs", Json::array()}}};
  };
  std::vector<Json> maf_after = restore(1, 2);
  maf_after[1]["outputs"] = Json::array({a});
  auto inherited = CompareTraces(maf_after, restore(1, 2), run);
  ASSERT_EQ(inherited.size(), 1u);
  EXPECT_EQ(inherited[0].deviation, "fan-in-rounds-by-thread-timing");
  std::vector<Json> maf_before = restore(0, 1);
  maf_before[1]["outputs"] = Json::array({a});
  auto earlier = CompareTraces(maf_before, restore(0, 1), run);
  ASSERT_EQ(earlier.size(), 1u);
  EXPECT_TRUE(earlier[0].deviation.empty());
}

// Pin: maf-state-conflict-runs-on claims what follows a step both sides failed to publish, and a
// live restore MAF refused with updates still queued; the conflict step itself stays compared.
TEST(Deviations, StateConflictRunsOnClaimsOnlyAfterTheUnpublishedStep) {
  const Json conflict{{"line", "step"},
                      {"step", 1},
                      {"errors", 1},
                      {"failed", Json::array()},
                      {"checkpoint", nullptr}};
  std::vector<Json> maf = Trace();
  maf.insert(maf.begin() + 2, conflict);
  std::vector<Json> engine = maf;
  Json later = conflict;  // MAF runs on: the next step fails its publish again
  later["step"] = 2;
  maf.insert(maf.begin() + 3, later);
  engine[3]["status"] = "ended";
  auto d = CompareTraces(maf, engine);
  ASSERT_EQ(d.size(), 2u);  // MAF's next step where the engine halted, then MAF's halt
  EXPECT_EQ(d[0].kind, "event order");
  EXPECT_EQ(d[1].kind, "line missing in engine");
  for (const TraceDifference& x : d) EXPECT_EQ(x.deviation, "maf-state-conflict-runs-on");
  // Nothing more to run after the conflict: only the halt differs, and it is claimed.
  maf.erase(maf.begin() + 3);
  d = CompareTraces(maf, engine);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].kind, "halt.status");
  EXPECT_EQ(d[0].deviation, "maf-state-conflict-runs-on");
  // A difference in the conflict step itself stays undocumented.
  engine[2]["errors"] = 2;
  bool undocumented = false;
  for (const TraceDifference& x : CompareTraces(maf, engine)) {
    undocumented |= x.kind == "step.errors" && x.deviation.empty();
  }
  EXPECT_TRUE(undocumented);
  // The engine published the step (a checkpoint): MAF's conflict is not the engine's, unclaimed.
  std::vector<Json> published = maf;
  published[2]["checkpoint"] = "cp1";
  published[2]["errors"] = 0;
  for (const TraceDifference& x : CompareTraces(maf, published)) {
    EXPECT_TRUE(x.deviation.empty()) << x.kind << " " << x.deviation;
  }
  // MAF refused a live restore with updates still queued: the whole mode is claimed.
  std::vector<Json> refused{
      Trace()[0], Json{{"line", "error"},
                       {"message",
                        "MAF refused the restore: Cannot import state while there are queued "
                        "updates. Call PublishUpdatesAsync() first."}}};
  for (const TraceDifference& x : CompareTraces(refused, Trace())) {
    EXPECT_EQ(x.deviation, "maf-state-conflict-runs-on") << x.kind;
  }
}

// Pin: receiver-order-by-thread-timing claims from a step whose invocations agree but whose
// results differ, when a receiver had two senders; one sender, or different invocations, do not.
TEST(Deviations, ReceiverOrderByThreadTimingClaimsOnlyAnOrderOfTheSameDeliveries) {
  const Json m1{{"executor", "c"}, {"message", 1}};
  const Json m2{{"executor", "c"}, {"message", 2}};
  auto trace = [&](const Json& outputs, const Json& invoked, const Json& queued) {
    return std::vector<Json>{
        Json{{"line", "begin"}, {"mode", "run"}},
        Json{{"line", "step"}, {"step", 0}, {"invoked", Json::array()}, {"checkpoint", "cp0"}},
        Json{{"line", "step"}, {"step", 1}, {"invoked", invoked}, {"outputs", outputs}},
        Json{{"line", "halt"}, {"status", "idle"}},
        Json{{"line", "checkpoint"}, {"name", "cp0"}, {"step", 0}, {"queued", queued}}};
  };
  const Json two_senders{{"c", Json::array({Json{{"from", "a"}}, Json{{"from", "b"}}})}};
  const Json one_sender{{"c", Json::array({Json{{"from", "a"}}, Json{{"from", "a"}}})}};
  const Json both = Json::array({m1, m2});
  const Json maf_out = Json::array({Json{{"n", 1}}, Json{{"n", 2}}});
  const Json engine_out = Json::array({Json{{"n", 2}}, Json{{"n", 1}}});
  auto d = CompareTraces(trace(maf_out, both, two_senders), trace(engine_out, both, two_senders));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].deviation, "receiver-order-by-thread-timing");
  auto one = CompareTraces(trace(maf_out, both, one_sender), trace(engine_out, both, one_sender));
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].deviation.empty());
  auto other = CompareTraces(trace(maf_out, Json::array({m1}), two_senders),
                             trace(engine_out, both, two_senders));
  for (const TraceDifference& x : other) EXPECT_TRUE(x.deviation.empty()) << x.kind;

  // A restore from cp1 inherits the race of the run's step from cp0 (two senders there).
  std::vector<Json> run = trace(engine_out, both, two_senders);
  run.push_back(Json{{"line", "checkpoint"}, {"name", "cp1"}, {"step", 1}, {"queued", one_sender}});
  auto restore = [&](const Json& outputs) {
    return std::vector<Json>{
        Json{{"line", "begin"}, {"mode", "restore:1"}},
        Json{{"line", "step"}, {"step", 2}, {"invoked", both}, {"outputs", outputs}}};
  };
  auto inherited = CompareTraces(restore(maf_out), restore(engine_out), run);
  ASSERT_EQ(inherited.size(), 1u);
  EXPECT_EQ(inherited[0].deviation, "receiver-order-by-thread-timing");
  run[4]["queued"] = one_sender;  // no race before cp1: the same difference is undocumented
  auto clean = CompareTraces(restore(maf_out), restore(engine_out), run);
  ASSERT_EQ(clean.size(), 1u);
  EXPECT_TRUE(clean[0].deviation.empty());
}

TEST(Deviations, EveryEntryIsNamedAndExplained) {
  for (const Deviation& d : Deviations()) {
    EXPECT_FALSE(std::string(d.name).empty());
    EXPECT_GT(std::string(d.reason).size(), 40u) << d.name;
    EXPECT_GT(std::string(d.accounts).size(), 20u) << d.name;
  }
}

}  // namespace
}  // namespace stepfault::properties
