// Goal: the run core behaves as MAF's in-process runner (docs/engine-semantics.md §1, §5, §6) where
// we follow it, and as documented where we deliberately depart. Method: small workflows driven
// through the public StreamingRun API; assertions on the event stream, status and state. Names
// follow the upstream tests they are equivalents of; tests of what upstream never tested say so.
#include "engine/run.h"

#include <gtest/gtest.h>

#include "engine/run_test_util.h"

namespace stepfault {
namespace {
using testing::Count;
using testing::Drain;
using testing::Forward;
using testing::Msg;
using testing::OfKind;

std::shared_ptr<Workflow> Chain(std::shared_ptr<testing::HookCounts> counts) {
  auto wf = WorkflowBuilder(testing::Recording("a", counts))
                .AddExecutor(testing::Recording("b", counts))
                .AddExecutor(testing::Recording("c", counts))
                .AddEdge("a", "b")
                .AddEdge("b", "c")
                .WithOutputFrom("c")
                .Build();
  return *wf;
}

TEST(RunTest, EventsOfALinearRunComeInSuperStepOrder) {
  auto counts = std::make_shared<testing::HookCounts>();
  auto run = StreamingRun::Start(Chain(counts), Msg("X", 1), {});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ((*run)->status(), RunStatus::kNotStarted);
  auto events = Drain(**run);
  std::vector<std::string> kinds;
  for (const auto& e : events) kinds.emplace_back(EventKindName(e.kind));
  std::vector<std::string> expected = {
      "WorkflowStarted",    "SuperStepStarted",  "ExecutorInvoked", "ExecutorCompleted",
      "SuperStepCompleted", "SuperStepStarted",  "ExecutorInvoked", "ExecutorCompleted",
      "SuperStepCompleted", "SuperStepStarted",  "ExecutorInvoked", "WorkflowOutput",
      "ExecutorCompleted",  "SuperStepCompleted"};
  EXPECT_EQ(kinds, expected);
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);
  EXPECT_EQ(OfKind(events, EventKind::kSuperStepCompleted).back().step, 2);
  // Outputs only from the declared output executor.
  EXPECT_EQ(Count(events, EventKind::kWorkflowOutput), 1u);
}

// Test_InProcessExecution_InvokesDeliveryEventsOnceAsync
TEST(RunTest, DeliveryHooksRunOncePerReceiverPerStep) {
  auto counts = std::make_shared<testing::HookCounts>();
  auto start = FunctionExecutor("s", "S", {"Go"}, [](const Message&, WorkflowContext& ctx) {
    for (int i = 0; i < 3; ++i) ctx.SendMessage(Msg("X", i));
    return Status::Ok();
  });
  auto wf =
      WorkflowBuilder(start).AddExecutor(testing::Recording("r", counts)).AddEdge("s", "r").Build();
  auto run = StreamingRun::Start(*wf, Msg("Go"), {});
  auto events = Drain(**run);
  EXPECT_EQ(counts->handled["r"], 3);
  EXPECT_EQ(counts->delivery_starting["r"], 1);
  EXPECT_EQ(counts->delivery_finished["r"], 1);
}

// InProcessRun_StateShouldPersist_NotCheckpointedAsync / _CheckpointedAsync
TEST(RunTest, SharedStateIsVisibleInLaterStepsAndCheckpointedEveryStep) {
  for (bool checkpointed : {false, true}) {
    auto counter =
        FunctionExecutor("n", "Counter", {"Tick"}, [](const Message&, WorkflowContext& ctx) {
          int v = ctx.ReadState("count", "shared").value_or(Json(0)).get<int>();
          ctx.QueueStateUpdate("count", Json(v + 1), "shared");
          if (v + 1 < 4) ctx.SendMessage(Msg("Tick"));
          return Status::Ok();
        });
    auto wf = WorkflowBuilder(counter).AddEdge("n", "n").Build();
    InMemoryCheckpointManager manager;
    RunOptions options;
    if (checkpointed) options.checkpoints = &manager;
    auto run = StreamingRun::Start(*wf, Msg("Tick"), options);
    auto events = Drain(**run);
    EXPECT_EQ(Count(events, EventKind::kSuperStepCompleted), 4u);
    EXPECT_EQ((*run)->status(), RunStatus::kIdle);
    EXPECT_EQ((*run)->checkpoints().size(), checkpointed ? 4u : 0u);
    if (checkpointed) {
      auto last = manager.Lookup((*run)->checkpoints().back());
      ASSERT_TRUE(last.ok());
      EXPECT_EQ((*last)->state.at("shared:shared").at("count"), 4);
    }
  }
}

TEST(RunTest, QueuedWritesAreInvisibleToOthersUntilTheStepEnds) {
  auto writer = FunctionExecutor("w", "W", {"Go"}, [](const Message&, WorkflowContext& ctx) {
    ctx.QueueStateUpdate("k", Json("new"), "s");
    EXPECT_EQ(ctx.ReadState("k", "s"), Json("new"));  // the writer sees its own write
    ctx.SendMessage(Msg("Check"));
    return Status::Ok();
  });
  std::vector<Json> seen;
  auto reader =
      FunctionExecutor("r", "R", {"Check"}, [&seen](const Message&, WorkflowContext& ctx) {
        seen.push_back(ctx.ReadState("k", "s").value_or(Json(nullptr)));
        return Status::Ok();
      });
  auto wf = WorkflowBuilder(writer).AddExecutor(reader).AddEdge("w", "r").Build();
  auto run = StreamingRun::Start(*wf, Msg("Go"), {});
  Drain(**run);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0], Json("new"));  // visible in the next step
}

// InProcessRun_StateShouldError_TwoExecutorsAsync
TEST(RunTest, TwoExecutorsWritingOneSharedKeyInOneStepIsOneWorkflowError) {
  auto writer = [](const std::string& id) {
    return FunctionExecutor(id, "W", {"Go"}, [](const Message&, WorkflowContext& ctx) {
      ctx.QueueStateUpdate("total", Json(1), "shared");
      return Status::Ok();
    });
  };
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(writer("w1"))
                .AddExecutor(writer("w2"))
                .AddFanOutEdge("s", {"w1", "w2"})
                .Build();
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(*wf, Msg("Go"), options);
  auto events = Drain(**run);
  auto errors = OfKind(events, EventKind::kWorkflowError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].error_kind, ErrorKind::kStateConflict);
  EXPECT_NE(errors[0].error.message().find("'total'"), std::string::npos);
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
  EXPECT_EQ((*run)->checkpoints().size(), 1u);  // step 0 only; the failed step has none
}

TEST(RunTest, AFailingHandlerGivesExecutorFailedAndWorkflowErrorAndNoCheckpoint) {
  auto failing = FunctionExecutor("f", "F", {"*"}, [](const Message&, WorkflowContext&) {
    return Status::HandlerFailed("boom");
  });
  auto throwing = FunctionExecutor("t", "T", {"*"}, [](const Message&, WorkflowContext&) -> Status {
    throw std::runtime_error("kaboom");
  });
  for (auto bad : {failing, throwing}) {
    auto wf = WorkflowBuilder(Forward("s")).AddExecutor(bad).AddEdge("s", bad.id).Build();
    InMemoryCheckpointManager manager;
    RunOptions options;
    options.checkpoints = &manager;
    auto run = StreamingRun::Start(*wf, Msg("Go"), options);
    auto events = Drain(**run);
    auto failed = OfKind(events, EventKind::kExecutorFailed);
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].executor_id, bad.id);
    EXPECT_EQ(Count(events, EventKind::kWorkflowError), 1u);
    EXPECT_EQ(OfKind(events, EventKind::kWorkflowError)[0].error_kind, ErrorKind::kHandlerFailed);
    EXPECT_EQ(Count(events, EventKind::kSuperStepCompleted), 1u);
    EXPECT_EQ((*run)->checkpoints().size(), 1u);
    EXPECT_EQ((*run)->status(), RunStatus::kEnded);
  }
}

TEST(RunTest, ExplicitTargetConditionAndTypeFilterDropMessagesAtTheEdge) {
  auto start = FunctionExecutor("s", "S", {"Go"}, [](const Message&, WorkflowContext& ctx) {
    ctx.SendMessage(Msg("Num", 1));
    ctx.SendMessage(Msg("Num", 2), std::string("even"));
    ctx.SendMessage(Msg("Text", "t"));
    return Status::Ok();
  });
  auto wf =
      WorkflowBuilder(start)
          .AddExecutor(Forward("odd", {"Num"}))
          .AddExecutor(Forward("even", {"Num"}))
          .AddExecutor(Forward("text", {"Text"}))
          .AddEdge("s", "odd",
                   [](const Message& m) { return m.type == "Num" && m.body.get<int>() % 2 == 1; })
          .AddEdge("s", "even")
          .AddEdge("s", "text")
          .WithOutputFrom("odd")
          .WithOutputFrom("even")
          .WithOutputFrom("text")
          .Build();
  auto run = StreamingRun::Start(*wf, Msg("Go"), {});
  auto outputs = testing::CanonicalOutputs(Drain(**run));
  // odd gets 1 (condition); even gets 1 and the targeted 2 (no condition); text only "t".
  EXPECT_EQ(outputs, (std::vector<std::string>{"even:1", "even:2", "odd:1", "text:\"t\""}));
}

TEST(RunTest, FanOutAssignerChoosesSinksAndTypeFilterApplies) {
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(Forward("a", {"Num"}))
                .AddExecutor(Forward("b", {"Num"}))
                .AddExecutor(Forward("c", {"Other"}))
                .AddFanOutEdge(
                    "s", {"a", "b", "c"},
                    [](const Message& m, size_t n) {
                      return std::vector<size_t>{static_cast<size_t>(m.body.get<int>()) % n, 2};
                    })
                .WithOutputFrom("a")
                .WithOutputFrom("b")
                .WithOutputFrom("c")
                .Build();
  auto run = StreamingRun::Start(*wf, Msg("Num", 1), {});
  EXPECT_EQ(testing::CanonicalOutputs(Drain(**run)), std::vector<std::string>{"b:1"});
}

// Test_FanInEdgeRunnerAsync
TEST(RunTest, FanInDropsTargetedElsewhereReleasesAllMessagesPerSourceTogetherAndResets) {
  auto a = FunctionExecutor("a", "A", {"Go"}, [](const Message& m, WorkflowContext& ctx) {
    ctx.SendMessage(Msg("Part", "a1-" + m.body.dump()));
    ctx.SendMessage(Msg("Part", "a2-" + m.body.dump()));
    ctx.SendMessage(Msg("Part", "a-elsewhere"), std::string("nobody"));
    return Status::Ok();
  });
  auto b = FunctionExecutor("b", "B", {"Go"}, [](const Message& m, WorkflowContext& ctx) {
    ctx.SendMessage(Msg("Part", "b1-" + m.body.dump()));
    return Status::Ok();
  });
  std::vector<std::vector<std::string>> batches;
  auto sink = FunctionExecutor("sink", "Sink", {"Part"},
                               [&batches](const Message& m, WorkflowContext& ctx) {
                                 if (batches.empty() || batches.back().size() == 3)
                                   batches.emplace_back();
                                 batches.back().push_back(m.body.get<std::string>());
                                 (void)ctx;
                                 return Status::Ok();
                               });
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(a)
                .AddExecutor(b)
                .AddExecutor(sink)
                .AddFanOutEdge("s", {"a", "b"})
                .AddFanInBarrierEdge({"a", "b"}, "sink")
                .Build();
  ASSERT_TRUE(wf.ok());
  auto run = StreamingRun::Start(*wf, Msg("Go", 1), {});
  Drain(**run);
  ASSERT_TRUE((*run)->SendMessage(Msg("Go", 2)).ok());
  Drain(**run);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0], (std::vector<std::string>{"a1-1", "a2-1", "b1-1"}));
  EXPECT_EQ(batches[1], (std::vector<std::string>{"a1-2", "a2-2", "b1-2"}));
}

TEST(RunTest, FanInWaitsForEverySourceBeforeReleasing) {
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(Forward("a"))
                .AddExecutor(Forward("b"))
                .AddExecutor(Forward("sink"))
                .AddEdge("s", "a")
                .AddFanInBarrierEdge({"a", "b"}, "sink")
                .WithOutputFrom("sink")
                .Build();
  auto run = StreamingRun::Start(*wf, Msg("Go"), {});
  auto events = Drain(**run);
  EXPECT_EQ(Count(events, EventKind::kWorkflowOutput), 0u);  // b never contributed
}

// ExternalResponsePortCorrelationTests: forged port, legitimate after forgery, unknown id.
TEST(RunTest, ForgedPortIdIsRejectedAndTheRequestStaysPendingForTheLegitimateResponse) {
  auto run =
      StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft", Json{{"text", "d"}}), {});
  auto events = Drain(**run);
  auto requests = OfKind(events, EventKind::kRequestInfo);
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ((*run)->status(), RunStatus::kPendingRequests);
  const std::string id = requests[0].request_id;
  ASSERT_EQ(id.size(), 32u);

  ASSERT_TRUE((*run)->SendResponse({id, "forged-port", Msg("Decision", "yes")}).ok());
  events = Drain(**run);
  auto errors = OfKind(events, EventKind::kWorkflowError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].error_kind, ErrorKind::kResponseRejected);
  EXPECT_EQ((*run)->status(), RunStatus::kPendingRequests);
  EXPECT_EQ(Count(events, EventKind::kWorkflowOutput), 0u);

  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", "yes")}).ok());
  events = Drain(**run);
  EXPECT_EQ(Count(events, EventKind::kWorkflowError), 0u);
  EXPECT_EQ(Count(events, EventKind::kWorkflowOutput), 1u);
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);
}

TEST(RunTest, UnknownRequestIdIsRejectedWithNoPendingRequestMessage) {
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), {});
  Drain(**run);
  ASSERT_TRUE((*run)->SendResponse({"0123", "approval", Msg("Decision")}).ok());
  auto errors = OfKind(Drain(**run), EventKind::kWorkflowError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].error.message().find("no pending request with id '0123'"), std::string::npos);
  EXPECT_EQ((*run)->pending_requests().size(), 1u);
}

TEST(RunTest, AResponseOfTheWrongTypeIsRejected) {
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), {});
  auto id = OfKind(Drain(**run), EventKind::kRequestInfo)[0].request_id;
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Ticket")}).ok());
  EXPECT_EQ(Count(Drain(**run), EventKind::kWorkflowError), 1u);
  EXPECT_EQ((*run)->pending_requests().size(), 1u);
}

// Not tested upstream: a duplicate response.
TEST(RunTest, ADuplicateResponseIsRejectedAndAppliesOnlyOnce) {
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), {});
  auto id = OfKind(Drain(**run), EventKind::kRequestInfo)[0].request_id;
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", 1)}).ok());
  ASSERT_TRUE((*run)->SendResponse({id, "approval", Msg("Decision", 2)}).ok());
  auto events = Drain(**run);
  EXPECT_EQ(Count(events, EventKind::kWorkflowOutput), 1u);
  auto errors = OfKind(events, EventKind::kWorkflowError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].error_kind, ErrorKind::kResponseRejected);
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);
}

// Not tested upstream: a second concurrent watcher.
TEST(RunTest, ASecondConcurrentWatcherIsAnErrorButSequentialWatchersAreFine) {
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Draft"), {});
  auto first = (*run)->Watch();
  ASSERT_TRUE(first.ok());
  auto second = (*run)->Watch();
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("only one watcher"), std::string::npos);
  first->Cancel();
  EXPECT_TRUE((*run)->Watch().ok());
}

// Not tested upstream: cancelling a watcher while the run goes on (ADR-0015 confirmation list).
TEST(RunTest, CancellingAWatcherDoesNotCancelExecution) {
  auto counts = std::make_shared<testing::HookCounts>();
  auto run = StreamingRun::Start(Chain(counts), Msg("X", 7), {});
  std::vector<WorkflowEvent> seen;
  {
    auto stream = (*run)->Watch();
    for (int i = 0; i < 3; ++i) seen.push_back(*stream->Next());
    stream->Cancel();
    EXPECT_FALSE(stream->Next().has_value());
  }
  EXPECT_NE((*run)->status(), RunStatus::kEnded);
  (*run)->RunUntilHalt();  // the run goes on without a watcher
  EXPECT_EQ((*run)->status(), RunStatus::kIdle);
  EXPECT_EQ(counts->handled["c"], 1);
  auto rest = Drain(**run);  // a later watcher sees what was buffered
  EXPECT_EQ(Count(rest, EventKind::kWorkflowOutput), 1u);
  EXPECT_EQ(seen.size() + rest.size(), 14u);
}

// Not tested upstream: Cancel().
TEST(RunTest, CancelEndsTheRunAndTheWatcher) {
  auto counts = std::make_shared<testing::HookCounts>();
  auto run = StreamingRun::Start(Chain(counts), Msg("X"), {});
  auto stream = (*run)->Watch();
  ASSERT_TRUE(stream->Next().has_value());
  (*run)->Cancel();
  EXPECT_FALSE(stream->Next().has_value());
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
  EXPECT_EQ((*run)->SendMessage(Msg("X")).code(), StatusCode::kFailedPrecondition);
  (*run)->RunUntilHalt();
  EXPECT_EQ(counts->handled["a"], 0);
}

TEST(RunTest, AThrowingEdgeConditionFailsTheStepInsteadOfEscaping) {
  auto wf = WorkflowBuilder(Forward("s"))
                .AddExecutor(Forward("x"))
                .AddEdge("s", "x", [](const Message& m) { return m.body.get<int>() > 0; })
                .Build();
  auto run = StreamingRun::Start(*wf, Msg("Go", "not a number"), {});
  auto errors = OfKind(Drain(**run), EventKind::kWorkflowError);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].error.message().find("threw"), std::string::npos);
  EXPECT_EQ((*run)->status(), RunStatus::kEnded);
}

TEST(RunTest, InputTheStartExecutorDoesNotAcceptIsRejected) {
  auto run = StreamingRun::Start(testing::ApprovalLikeWorkflow(), Msg("Nope"), {});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace stepfault
