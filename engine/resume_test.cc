// Goal: checkpoints, live restore and fresh resume behave as MAF's (docs/engine-semantics.md §1.4,
// §3, §5, §8) where we follow it, and every upstream hazard is fixed by default yet reproducible by
// its switch. Method: upstream-equivalent tests named after the tests they mirror, then tests of
// the gaps upstream never tested, each run under strict and, where it matters, maf-compat.
#include <gtest/gtest.h>

#include "engine/checkpoint.h"
#include "engine/run_test_util.h"
#include "engine/stores/memory_store.h"
#include "engine/topology_record.h"

namespace stepfault {
namespace {
using testing::Count;
using testing::Drain;
using testing::Msg;
using testing::OfKind;

struct Harness {
  InMemoryCheckpointManager manager;
  RunOptions Options(EngineProfile profile = EngineProfile::Strict()) {
    RunOptions o;
    o.checkpoints = &manager;
    o.profile = profile;
    return o;
  }
};

// The checkpoint of the step that posted the request (the one a host would keep).
CheckpointInfo CheckpointWithRequest(const std::vector<WorkflowEvent>& events) {
  bool seen = false;
  for (const WorkflowEvent& e : events) {
    if (e.kind == EventKind::kRequestInfo) seen = true;
    if (seen && e.kind == EventKind::kSuperStepCompleted) return *e.checkpoint;
  }
  ADD_FAILURE() << "no checkpoint after a RequestInfo";
  return {};
}

// Checkpoint_Resume_WithPendingRequests_RepublishesRequestInfoEventsAsync
// Checkpoint_Resume_WithPendingRequests_RunStatusIsPendingRequestsAsync
// Checkpoint_Resume_RespondToPendingRequest_CompletesWithoutDuplicateAsync
TEST(ResumeTest, ResumeReemitsPendingRequestsOnceWithIdenticalIdsAndAnsweringCompletes) {
  Harness h;
  auto first = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), h.Options());
  auto events = Drain(**first);
  const std::string request_id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
  CheckpointInfo cp = CheckpointWithRequest(events);
  first->reset();

  auto resumed = StreamingRun::Resume(testing::ApprovalLikeWorkflow(), cp, h.Options());
  ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
  EXPECT_EQ((*resumed)->session_id(), cp.session_id);
  auto after = Drain(**resumed);
  auto requests = OfKind(after, EventKind::kRequestInfo);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].request_id, request_id);
  EXPECT_EQ((*resumed)->status(), RunStatus::kPendingRequests);

  ASSERT_TRUE((*resumed)->SendResponse({request_id, "approval", Msg("Decision", "yes")}).ok());
  auto answered = Drain(**resumed);
  EXPECT_EQ(Count(answered, EventKind::kRequestInfo), 0u);
  EXPECT_EQ(Count(answered, EventKind::kWorkflowError), 0u);
  EXPECT_EQ(Count(answered, EventKind::kWorkflowOutput), 1u);
  EXPECT_EQ((*resumed)->status(), RunStatus::kIdle);
}

// Checkpoint_Restore_WithPendingRequests_RepublishesRequestInfoEventsAsync
TEST(ResumeTest, LiveRestoreReemitsTheOriginalRequestOnce) {
  Harness h;
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), h.Options());
  auto events = Drain(**run);
  const std::string id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
  CheckpointInfo cp = CheckpointWithRequest(events);
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", 1)}).ok());
  Drain(**run);
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);

  ASSERT_TRUE((*run)->Restore(cp).ok());
  auto restored = Drain(**run);
  auto requests = OfKind(restored, EventKind::kRequestInfo);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].request_id, id);
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", 2)}).ok());
  auto done = Drain(**run);
  EXPECT_EQ(Count(done, EventKind::kWorkflowError), 0u);
  EXPECT_EQ(Count(done, EventKind::kWorkflowOutput), 1u);
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);
}

// Checkpoint_Restore_ClearsQueuedExternalResponsesBeforeImportAsync
TEST(ResumeTest, ResponsesQueuedBeforeALiveRestoreAreDropped) {
  Harness h;
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), h.Options());
  auto events = Drain(**run);
  const std::string id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", "stale")}).ok());
  ASSERT_TRUE((*run)->Restore(CheckpointWithRequest(events)).ok());
  auto after = Drain(**run);
  EXPECT_EQ(Count(after, EventKind::kWorkflowOutput), 0u);
  EXPECT_EQ((*run)->status(), RunStatus::kPendingRequests);
}

// Checkpoint_Resume_PreservesFanInBarrierBufferedMessagesAsync (2 sources) and _MultiSourceAsync
// (3).
TEST(ResumeTest, FanInContributionsBufferedBeforeTheCheckpointSurviveResume) {
  for (int buffered : {1, 2}) {
    Harness h;
    auto run =
        StreamingRun::Start(testing::FanInWithPortWorkflow(buffered), Msg("Go"), h.Options());
    auto events = Drain(**run);
    const std::string id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
    CheckpointInfo cp = (*run)->checkpoints().back();
    auto stored = h.manager.Lookup(cp);
    ASSERT_EQ((*stored)->edge_state.begin()->second->pending.size(), static_cast<size_t>(buffered));
    run->reset();

    auto resumed = StreamingRun::Resume(testing::FanInWithPortWorkflow(buffered), cp, h.Options());
    ASSERT_TRUE(resumed.ok()) << resumed.status().ToString();
    Drain(**resumed);
    ASSERT_TRUE((*resumed)->SendResponse({id, "ask", Msg("Reply", "after")}).ok());
    auto outputs = OfKind(Drain(**resumed), EventKind::kWorkflowOutput);
    ASSERT_EQ(outputs.size(), static_cast<size_t>(buffered + 1));
    EXPECT_EQ(outputs.back().message->body["from"], "answer");
    EXPECT_EQ((*resumed)->status(), RunStatus::kIdle);
  }
}

std::vector<std::string> ResumeAndFinish(Harness& h, const CheckpointInfo& cp,
                                         const std::string& id, EngineProfile profile) {
  auto resumed = StreamingRun::Resume(testing::FanInWithPortWorkflow(1), cp, h.Options(profile));
  EXPECT_TRUE(resumed.ok());
  Drain(**resumed);
  EXPECT_TRUE((*resumed)->SendResponse({id, "ask", Msg("Reply", "x")}).ok());
  return testing::CanonicalOutputs(Drain(**resumed));
}

// Checkpoint_Resume_FanInBarrierCheckpointCanBeResumedTwiceAsync, and the #6573 hazard.
TEST(ResumeTest, TheSameCheckpointResumedTwiceGivesIdenticalResultsUnlessFanInStateIsAliased) {
  for (bool aliasing : {false, true}) {
    EngineProfile profile;
    profile.fan_in_aliasing = aliasing;
    Harness h;
    auto run =
        StreamingRun::Start(testing::FanInWithPortWorkflow(1), Msg("Go"), h.Options(profile));
    auto events = Drain(**run);
    const std::string id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
    CheckpointInfo cp = (*run)->checkpoints().back();
    run->reset();
    auto once = ResumeAndFinish(h, cp, id, profile);
    auto twice = ResumeAndFinish(h, cp, id, profile);
    if (!aliasing) {
      EXPECT_EQ(once, twice);
      EXPECT_EQ(once.size(), 2u);
    } else {
      // The first resume consumed the live buffer the checkpoint still points at.
      EXPECT_NE(once, twice);
    }
  }
}

// A request port that is itself a source of a fan-in barrier: start fans out to a worker and the
// port; the barrier {worker, ask} feeds "sink", which takes both the worker's part and the reply.
std::shared_ptr<Workflow> PortFeedsFanInWorkflow() {
  auto start =
      FunctionExecutor("start", "Start", {"Go"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Work", m.body));
        ctx.SendMessage(Msg("Ask", m.body));
        return Status::Ok();
      });
  auto worker =
      FunctionExecutor("worker", "Worker", {"Work"}, [](const Message&, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Part", "worker"));
        return Status::Ok();
      });
  auto sink = FunctionExecutor("sink", "Sink", {"Part", "Reply"},
                               [](const Message& m, WorkflowContext& ctx) {
                                 ctx.YieldOutput(m);
                                 return Status::Ok();
                               });
  WorkflowBuilder b(start);
  b.AddExecutor(worker).AddExecutor(sink).AddRequestPort("ask", "Ask", "Reply");
  b.AddFanOutEdge("start", {"worker", "ask"});
  b.AddFanInBarrierEdge({"worker", "ask"}, "sink");
  b.WithOutputFrom("sink");
  auto wf = b.Build();
  EXPECT_TRUE(wf.ok()) << wf.status().ToString();
  return *wf;
}

// MAF 1.28's RequestInfoExecutor sends the ExternalResponse before the data (the differential's
// gen-1-6). Strict: the reply completes the barrier and the sink gets both parts. Under
// port-response-sent-wrapped: the wrapped reply completes it, the sink (which does not take an
// ExternalResponse) gets only the worker's part, and the reply waits alone in the next round.
TEST(ResumeTest, AFanInFedByAPortReleasesWithoutTheReplyOnlyUnderPortResponseSentWrapped) {
  for (bool wrapped : {false, true}) {
    SCOPED_TRACE(wrapped ? "port-response-sent-wrapped" : "strict");
    EngineProfile profile;
    profile.port_response_sent_wrapped = wrapped;
    Harness h;
    auto run = StreamingRun::Start(PortFeedsFanInWorkflow(), Msg("Go"), h.Options(profile));
    ASSERT_TRUE(run.ok()) << run.status().ToString();
    const std::string id = OfKind(Drain(**run), EventKind::kRequestInfo)[0].request_id;
    ASSERT_TRUE((*run)->SendResponse({id, "ask", Msg("Reply", "yes")}).ok());
    std::vector<std::string> outputs = testing::CanonicalOutputs(Drain(**run));
    auto stored = h.manager.Lookup((*run)->checkpoints().back());
    ASSERT_TRUE(stored.ok());
    const FanInState& barrier = *(*stored)->edge_state.begin()->second;
    if (!wrapped) {
      EXPECT_EQ(outputs.size(), 2u);
      EXPECT_TRUE(barrier.pending.empty());
    } else {
      ASSERT_EQ(outputs.size(), 1u);
      EXPECT_NE(outputs[0].find("worker"), std::string::npos) << outputs[0];
      ASSERT_EQ(barrier.pending.size(), 1u);
      EXPECT_EQ(barrier.pending[0].message, Msg("Reply", "yes"));
      EXPECT_EQ(barrier.unseen, std::vector<std::string>{"worker"});
    }
  }
}

// CheckpointParentTests: first null, chained, resumed checkpoint is the parent after resume.
TEST(ResumeTest, ParentLinksChainAndTheResumedCheckpointBecomesTheParent) {
  Harness h;
  auto counts = std::make_shared<testing::HookCounts>();
  auto chain = [&] {
    return *WorkflowBuilder(testing::Recording("a", counts))
                .AddExecutor(testing::Recording("b", counts))
                .AddExecutor(testing::Recording("c", counts))
                .AddEdge("a", "b")
                .AddEdge("b", "c")
                .Build();
  };
  auto run = StreamingRun::Start(chain(), Msg("X"), h.Options());
  Drain(**run);
  auto cps = (*run)->checkpoints();
  ASSERT_EQ(cps.size(), 3u);
  EXPECT_FALSE((*h.manager.Lookup(cps[0]))->parent.has_value());
  for (size_t i = 1; i < cps.size(); ++i)
    EXPECT_EQ((*h.manager.Lookup(cps[i]))->parent, cps[i - 1]);
  run->reset();
  auto resumed = StreamingRun::Resume(chain(), cps[0], h.Options());
  ASSERT_TRUE(resumed.ok());
  Drain(**resumed);
  ASSERT_EQ((*resumed)->checkpoints().size(), 5u);  // 3 before + 2 new
  const CheckpointInfo next = (*resumed)->checkpoints()[3];
  EXPECT_EQ((*h.manager.Lookup(next))->parent, cps[0]);
  EXPECT_EQ((*h.manager.Lookup((*resumed)->checkpoints()[4]))->parent, next);
  EXPECT_EQ((*h.manager.Lookup(next))->step_number, 1);  // strict: the step number is restored
}

TEST(ResumeTest, StepNumbersRestartAtZeroAfterResumeOnlyUnderTheHazard) {
  for (bool hazard : {false, true}) {
    EngineProfile profile;
    profile.step_numbers_restart = hazard;
    Harness h;
    auto counts = std::make_shared<testing::HookCounts>();
    auto chain = [&] {
      return *WorkflowBuilder(testing::Recording("a", counts))
                  .AddExecutor(testing::Recording("b", counts))
                  .AddExecutor(testing::Recording("c", counts))
                  .AddEdge("a", "b")
                  .AddEdge("b", "c")
                  .Build();
    };
    auto run = StreamingRun::Start(chain(), Msg("X"), h.Options(profile));
    Drain(**run);
    auto cp = (*run)->checkpoints()[1];
    run->reset();
    auto resumed = StreamingRun::Resume(chain(), cp, h.Options(profile));
    auto steps = OfKind(Drain(**resumed), EventKind::kSuperStepStarted);
    ASSERT_EQ(steps.size(), 1u);
    EXPECT_EQ(steps[0].step, hazard ? 0 : 2);
  }
}

// Test_InProcessExecution_InvokesCheckpointingEventIFFCheckpointingEnabledAsync and
// Test_InProcessExecution_InvokesRestoredEventIFFRestoringCheckpointAsync
TEST(ResumeTest, CheckpointHooksOnlyOnInstantiatedExecutorsAndRestoredHooksOncePerExecutor) {
  auto counts = std::make_shared<testing::HookCounts>();
  auto build = [&] {
    return *WorkflowBuilder(testing::Recording("a", counts))
                .AddExecutor(testing::Recording("b", counts))
                .AddExecutor(testing::Recording("never", counts))
                .AddEdge("a", "b")
                .AddEdge("b", "never", [](const Message&) { return false; })
                .Build();
  };
  Harness h;
  auto run = StreamingRun::Start(build(), Msg("X"), h.Options());
  Drain(**run);
  EXPECT_EQ((*run)->checkpoints().size(), 2u);
  EXPECT_EQ(counts->checkpointing["a"], 2);
  EXPECT_EQ(counts->checkpointing["b"], 2);  // instantiated while a's message was routed in step 0
  EXPECT_EQ(counts->checkpointing.count("never"), 0u);
  EXPECT_EQ(counts->restored.size(), 0u);
  auto first = (*run)->checkpoints()[0];
  run->reset();

  auto plain = StreamingRun::Start(build(), Msg("X"), {});
  Drain(**plain);
  EXPECT_EQ(counts->checkpointing["a"], 2);  // no manager, no hooks

  auto resumed = StreamingRun::Resume(build(), first, h.Options());
  ASSERT_TRUE(resumed.ok());
  Drain(**resumed);
  EXPECT_EQ(counts->restored["a"], 1);
  EXPECT_EQ(counts->restored["b"], 1);
  EXPECT_EQ(counts->restored.count("never"), 0u);
  EXPECT_EQ((*resumed)->checkpoints().size(), 3u);  // 2 from before + (steps - 1) = 1 new
}

// ---- What upstream never tested ------------------------------------------------------------

TEST(ResumeTest, MalformedAndTruncatedStoredCheckpointsAreTypedErrors) {
  // A manager whose stored bytes are damaged: any decode error surfaces as kCorruption.
  class DamagedStore : public CheckpointStore {
   public:
    std::string bytes;
    Result<CheckpointInfo> Commit(const std::string& s, std::string_view b,
                                  const std::optional<CheckpointInfo>&) override {
      bytes = std::string(b);
      return CheckpointInfo{s, "only"};
    }
    Result<std::string> Retrieve(const CheckpointInfo&) override { return bytes; }
    Result<std::vector<StoreEntry>> Index(const std::string&,
                                          const std::optional<CheckpointInfo>&) override {
      return std::vector<StoreEntry>{};
    }
  } store;
  StoreCheckpointManager manager(&store);
  RunOptions o;
  o.checkpoints = &manager;
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), o);
  Drain(**run);
  run->reset();
  const std::string good = store.bytes;
  for (std::string damaged : {good.substr(0, good.size() / 2), std::string("{"), std::string("")}) {
    store.bytes = damaged;
    auto wf = testing::ApprovalLikeWorkflow();
    auto resumed = StreamingRun::Resume(wf, {"x", "only"}, o);
    ASSERT_FALSE(resumed.ok());
    EXPECT_EQ(resumed.status().code(), StatusCode::kCorruption) << resumed.status().ToString();
    EXPECT_FALSE(wf->owned());
  }
}

// Two fan-in barriers whose edges are added in the opposite order in the rebuilt workflow.
TEST(ResumeTest, SwappedFanInEdgesDeliverBufferedMessagesToTheWrongSinkUnderMafCompat) {
  // Barrier 1 (a,b)->left holds a's message; barrier 2 (a,c)->right holds nothing yet.
  auto build = [](bool swapped) {
    auto start =
        FunctionExecutor("s", "S", {"Go", "More"}, [](const Message& m, WorkflowContext& ctx) {
          ctx.SendMessage(Msg("Part", m.type), std::string(m.type == "Go" ? "a" : "b"));
          if (m.type == "More") ctx.SendMessage(Msg("Part", "c-part"), std::string("c"));
          return Status::Ok();
        });
    auto fwd = [](const std::string& id) {
      return FunctionExecutor(id, "P", {"Part"}, [id](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Part", id + ":" + m.body.get<std::string>()));
        return Status::Ok();
      });
    };
    auto sink = [](const std::string& id) {
      return FunctionExecutor(id, "Sink", {"Part"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(m);
        return Status::Ok();
      });
    };
    WorkflowBuilder b(start);
    b.AddExecutor(fwd("a")).AddExecutor(fwd("b")).AddExecutor(fwd("c"));
    b.AddExecutor(sink("left")).AddExecutor(sink("right"));
    b.AddFanOutEdge("s", {"a", "b", "c"});
    if (!swapped) {
      b.AddFanInBarrierEdge({"a", "b"}, "left").AddFanInBarrierEdge({"a", "c"}, "right");
    } else {
      b.AddFanInBarrierEdge({"a", "c"}, "right").AddFanInBarrierEdge({"a", "b"}, "left");
    }
    b.WithOutputFrom("left").WithOutputFrom("right");
    return *b.Build();
  };
  Harness h;
  auto run = StreamingRun::Start(build(false), Msg("Go"), h.Options());
  Drain(**run);
  CheckpointInfo cp = (*run)->checkpoints().back();
  // Fault-free continuation: b and c complete both barriers.
  ASSERT_TRUE((*run)->SendMessage(Msg("More")).ok());
  auto reference = testing::CanonicalOutputs(Drain(**run));
  run->reset();
  EXPECT_EQ(reference, (std::vector<std::string>{"left:\"a:Go\"", "left:\"b:More\"",
                                                 "right:\"a:Go\"", "right:\"c:c-part\""}));

  auto strict = StreamingRun::Resume(build(true), cp, h.Options());
  ASSERT_FALSE(strict.ok());
  EXPECT_EQ(strict.status().code(), StatusCode::kIncompatible);
  EXPECT_NE(strict.status().message().find("EdgeId 2 differs"), std::string::npos)
      << strict.status().message();

  auto compat = StreamingRun::Resume(build(true), cp, h.Options(EngineProfile::MafCompat()));
  ASSERT_TRUE(compat.ok()) << compat.status().ToString();
  ASSERT_TRUE((*compat)->SendMessage(Msg("More")).ok());
  auto outputs = testing::CanonicalOutputs(Drain(**compat));
  EXPECT_NE(outputs, reference);  // buffered messages reached the wrong sink
}

// a -> b, and an executor `loner` on no edge (renaming it changes only the signature).
std::shared_ptr<Workflow> WithLoner(const std::string& loner) {
  return *WorkflowBuilder(testing::Forward("a"))
              .AddExecutor(testing::Forward("b"))
              .AddExecutor(testing::Forward(loner))
              .AddEdge("a", "b")
              .Build();
}

TEST(ResumeTest, ARenamedExecutorIsRejectedStrictlyButSlipsThroughMafIsMatch) {
  const auto build = WithLoner;
  Harness h;
  auto run = StreamingRun::Start(build("side"), Msg("X"), h.Options());
  Drain(**run);
  auto cp = (*run)->checkpoints()[0];
  run->reset();
  auto strict = StreamingRun::Resume(build("renamed"), cp, h.Options());
  ASSERT_FALSE(strict.ok());
  EXPECT_NE(strict.status().message().find("executor 'side'"), std::string::npos);
  EXPECT_TRUE(
      StreamingRun::Resume(build("renamed"), cp, h.Options(EngineProfile::MafCompat())).ok());
}

// Issue 27: checkpoints that name their topology by a record (a store that keeps records) are
// checked against the rebuilt workflow's full signature exactly as inline ones: a fresh manager
// (a new process) resolves the record; a renamed executor is still kIncompatible, the same
// workflow resumes, and a damaged record is kCorruption before anything is owned or restored.
TEST(ResumeTest, ACheckpointThatRefersToATopologyRecordIsCheckedAgainstTheFullSignature) {
  const auto build = WithLoner;
  MemoryCheckpointStore store;
  CheckpointInfo cp;
  std::string key;
  {
    StoreCheckpointManager manager(&store);
    RunOptions o;
    o.checkpoints = &manager;
    auto wf = build("side");
    key = TopologyRecordKey(wf->signature());
    auto run = StreamingRun::Start(wf, Msg("X"), o);
    ASSERT_TRUE(run.ok());
    Drain(**run);
    cp = (*run)->checkpoints()[0];
  }
  ASSERT_NE(store.Retrieve(cp)->find(key), std::string::npos) << "the checkpoint names the record";
  auto resume = [&](const std::string& loner) {
    StoreCheckpointManager fresh(&store);
    RunOptions o;
    o.checkpoints = &fresh;
    auto wf = build(loner);
    auto run = StreamingRun::Resume(wf, cp, o);
    EXPECT_FALSE(!run.ok() && wf->owned()) << "a rejected resume leaves the workflow unowned";
    return run.ok() ? Status::Ok() : run.status();
  };
  Status renamed = resume("renamed");
  EXPECT_EQ(renamed.code(), StatusCode::kIncompatible) << renamed.ToString();
  EXPECT_NE(renamed.message().find("executor 'side'"), std::string::npos) << renamed.ToString();
  EXPECT_TRUE(resume("side").ok());
  ASSERT_TRUE(store.PutRecord(key, "stepfault.topology v1 2\n{}\ncrc32c:00000000\n").ok());
  Status damaged = resume("side");
  EXPECT_EQ(damaged.code(), StatusCode::kCorruption) << damaged.ToString();
}

TEST(ResumeTest, XYAgainstXXEdgesNeedTheNonBijectiveHazardToPass) {
  auto always = [](const Message&) { return true; };
  auto build = [&](bool xx) {
    WorkflowBuilder b(testing::Forward("s"));
    b.AddExecutor(testing::Forward("x")).AddExecutor(testing::Forward("y"));
    b.AddEdge("s", "x", always);
    b.AddEdge("s", xx ? "x" : "y", always);
    b.AddEdge("y", "x");  // keeps y in the edge map either way
    return *b.Build();
  };
  Harness h;
  auto run = StreamingRun::Start(build(false), Msg("X"), h.Options());
  Drain(**run);
  auto cp = (*run)->checkpoints()[0];
  run->reset();
  EngineProfile blind;
  blind.edge_id_blind_matching = true;
  EngineProfile non_bijective = blind;
  non_bijective.non_bijective_edge_matching = true;
  EXPECT_FALSE(StreamingRun::Resume(build(true), cp, h.Options()).ok());
  EXPECT_FALSE(StreamingRun::Resume(build(true), cp, h.Options(blind)).ok());
  EXPECT_TRUE(StreamingRun::Resume(build(true), cp, h.Options(non_bijective)).ok());
}

TEST(ResumeTest, TheWorkflowIsReusableAfterARejectedResumeExceptUnderMafCompat) {
  Harness h;
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), h.Options());
  Drain(**run);
  run->reset();
  for (bool compat : {false, true}) {
    auto wf = testing::ApprovalLikeWorkflow();
    EngineProfile profile = compat ? EngineProfile::MafCompat() : EngineProfile::Strict();
    auto bad = StreamingRun::Resume(wf, {"no-such", "checkpoint"}, h.Options(profile));
    ASSERT_FALSE(bad.ok());
    auto reuse = StreamingRun::Start(wf, Msg("Draft"), h.Options(profile));
    EXPECT_EQ(reuse.ok(), !compat) << reuse.status().ToString();
  }
}

class FailingRestore : public Executor {
 public:
  explicit FailingRestore(bool* fail) : Executor("fragile", "Fragile", {"*"}), fail_(fail) {}
  Status Handle(const Message& m, WorkflowContext& ctx) override {
    ctx.QueueStateUpdate("last", m.body);
    ctx.SendMessage(m);
    return Status::Ok();
  }
  Status OnCheckpointRestored(WorkflowContext&) override {
    return *fail_ ? Status::HandlerFailed("restore hook refused") : Status::Ok();
  }

 private:
  bool* fail_;
};

TEST(ResumeTest, ARestoreThatFailsLateLeavesTheRunExactlyAsItWasExceptUnderMafCompat) {
  for (bool compat : {false, true}) {
    bool fail = false;
    auto wf = *WorkflowBuilder(
                   ExecutorBinding{"fragile",
                                   "Fragile",
                                   {"*"},
                                   [&fail] { return std::make_unique<FailingRestore>(&fail); }})
                   .AddExecutor(testing::Forward("next"))
                   .AddEdge("fragile", "next")
                   .Build();
    Harness h;
    EngineProfile profile = compat ? EngineProfile::MafCompat() : EngineProfile::Strict();
    auto run = StreamingRun::Start(wf, Msg("X", 1), h.Options(profile));
    Drain(**run);
    auto early = (*run)->checkpoints()[0];
    ASSERT_TRUE((*run)->SendMessage(Msg("X", 2)).ok());
    Drain(**run);
    const auto before_step = (*run)->next_step_number();
    const auto before_last = (*run)->last_checkpoint();
    fail = true;
    Status s = (*run)->Restore(early);
    ASSERT_FALSE(s.ok());
    if (!compat) {
      EXPECT_EQ((*run)->next_step_number(), before_step);
      EXPECT_EQ((*run)->last_checkpoint(), before_last);
      EXPECT_EQ((*run)->status(), RunStatus::kIdle);
    } else {
      // Half-restored: runner data came back (the message queued by step 0) but the restore failed
      // before it recorded the restored checkpoint.
      EXPECT_EQ((*run)->status(), RunStatus::kRunning);
      EXPECT_EQ((*run)->last_checkpoint(), before_last);
    }
  }
}

TEST(ResumeTest, TheSameRunTwiceGivesByteIdenticalCheckpoints) {
  auto once = [] {
    Harness h;
    auto run = StreamingRun::Start(testing::FanInWithPortWorkflow(2), Msg("Go"), h.Options());
    Drain(**run);
    std::vector<std::string> out;
    for (const auto& cp : (*run)->checkpoints())
      out.push_back(EncodeCheckpoint(**h.manager.Lookup(cp)));
    return out;
  };
  auto a = once();
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, once());
}

}  // namespace
}  // namespace stepfault

namespace stepfault {
namespace {
// The historical upstream bugs kept as switches: each must really change behaviour, or the harness
// could not prove it detects them.
TEST(HistoricalBugTest, EachSwitchReproducesItsBug) {
  using testing::Drain;
  using testing::Msg;
  using testing::OfKind;
  {
    EngineProfile p;
    p.requests_not_reemitted = true;
    InMemoryCheckpointManager m;
    RunOptions o;
    o.checkpoints = &m;
    o.profile = p;
    auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), o);
    Drain(**run);
    auto cp = (*run)->checkpoints().back();
    run->reset();
    auto resumed = StreamingRun::Resume(testing::ApprovalLikeWorkflow(), cp, o);
    EXPECT_EQ(OfKind(Drain(**resumed), EventKind::kRequestInfo).size(), 0u);
  }
  {
    EngineProfile p;
    p.stale_responses_kept = true;
    InMemoryCheckpointManager m;
    RunOptions o;
    o.checkpoints = &m;
    o.profile = p;
    auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), o);
    auto events = Drain(**run);
    auto id = OfKind(events, EventKind::kRequestInfo)[0].request_id;
    ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", "stale")}).ok());
    ASSERT_TRUE((*run)->Restore((*run)->checkpoints().back()).ok());
    EXPECT_EQ(OfKind(Drain(**run), EventKind::kWorkflowOutput).size(),
              1u);  // the stale one applied
  }
  {
    EngineProfile p;
    p.parent_link_empty = true;
    InMemoryCheckpointManager m;
    RunOptions o;
    o.checkpoints = &m;
    o.profile = p;
    auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), o);
    Drain(**run);
    EXPECT_FALSE((*m.Lookup((*run)->checkpoints().back()))->parent.has_value());
  }
  {
    EngineProfile p;
    p.fan_in_state_not_checkpointed = true;
    InMemoryCheckpointManager m;
    RunOptions o;
    o.checkpoints = &m;
    o.profile = p;
    auto run = StreamingRun::Start(testing::FanInWithPortWorkflow(1), Msg("Go"), o);
    Drain(**run);
    EXPECT_TRUE((*m.Lookup((*run)->checkpoints().back()))->edge_state.empty());
  }
  {
    EngineProfile p;
    p.watcher_cancel_ends_run = true;
    RunOptions o;
    o.profile = p;
    auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), o);
    auto stream = (*run)->Watch();
    ASSERT_TRUE(stream->Next().has_value());
    stream->Cancel();
    EXPECT_EQ((*run)->status(), RunStatus::kEnded);
  }
}
}  // namespace
}  // namespace stepfault
