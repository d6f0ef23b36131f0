// Shared fixtures for the engine's tests: small workflows in the shapes the upstream tests use,
// and helpers that drain a run into a list of events. Header-only; tests only.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "engine/workflow.h"

namespace stepfault::testing {

inline Message Msg(std::string type, Json body = Json::object()) {
  return Message{std::move(type), std::move(body)};
}

// Drains one watch of `run` into a vector.
inline std::vector<WorkflowEvent> Drain(StreamingRun& run) {
  std::vector<WorkflowEvent> out;
  Result<EventStream> stream = run.Watch();
  EXPECT_TRUE(stream.ok()) << stream.status().ToString();
  if (!stream.ok()) return out;
  for (int i = 0; i < 100000; ++i) {
    std::optional<WorkflowEvent> e = stream->Next();
    if (!e) break;
    out.push_back(std::move(*e));
  }
  return out;
}

inline std::vector<WorkflowEvent> OfKind(const std::vector<WorkflowEvent>& events, EventKind kind) {
  std::vector<WorkflowEvent> out;
  for (const WorkflowEvent& e : events) {
    if (e.kind == kind) out.push_back(e);
  }
  return out;
}

inline size_t Count(const std::vector<WorkflowEvent>& events, EventKind kind) {
  return OfKind(events, kind).size();
}

// Outputs as "executor:body" strings, sorted within each step (receiver order is seeded).
inline std::vector<std::string> CanonicalOutputs(const std::vector<WorkflowEvent>& events) {
  std::map<int64_t, std::vector<std::string>> by_step;
  for (const WorkflowEvent& e : events) {
    if (e.kind == EventKind::kWorkflowOutput) {
      by_step[e.step].push_back(e.executor_id + ":" + e.message->body.dump());
    }
  }
  std::vector<std::string> out;
  for (auto& [step, list] : by_step) {
    std::sort(list.begin(), list.end());
    out.insert(out.end(), list.begin(), list.end());
  }
  return out;
}

// Forwards whatever it gets, tagged with its id; counts its hooks in shared counters.
struct HookCounts {
  std::map<std::string, int> delivery_starting, delivery_finished, checkpointing, restored, handled;
};

class RecordingExecutor : public Executor {
 public:
  RecordingExecutor(std::string id, std::shared_ptr<HookCounts> counts)
      : Executor(id, "Recording", {"*"}), counts_(std::move(counts)) {}
  Status Handle(const Message& m, WorkflowContext& ctx) override {
    counts_->handled[id()]++;
    ctx.SendMessage(m);
    ctx.YieldOutput(m);
    return Status::Ok();
  }
  Status OnCheckpointing(WorkflowContext&) override {
    counts_->checkpointing[id()]++;
    return Status::Ok();
  }
  Status OnCheckpointRestored(WorkflowContext&) override {
    counts_->restored[id()]++;
    return Status::Ok();
  }
  void OnDeliveryStarting(WorkflowContext&) override { counts_->delivery_starting[id()]++; }
  void OnDeliveryFinished(WorkflowContext&) override { counts_->delivery_finished[id()]++; }

 private:
  std::shared_ptr<HookCounts> counts_;
};

inline ExecutorBinding Recording(const std::string& id, std::shared_ptr<HookCounts> counts) {
  return ExecutorBinding{id, "Recording", {"*"}, [id, counts] {
                           return std::make_unique<RecordingExecutor>(id, counts);
                         }};
}

// An executor that forwards its input unchanged and yields it as output.
inline ExecutorBinding Forward(const std::string& id, std::vector<std::string> types = {"*"}) {
  return FunctionExecutor(id, "Forward", std::move(types),
                          [](const Message& m, WorkflowContext& ctx) {
                            ctx.SendMessage(m);
                            ctx.YieldOutput(m);
                            return Status::Ok();
                          });
}

// start("Start") -> port "approval" (Ticket -> Decision) -> "apply" (output).
inline std::shared_ptr<Workflow> ApprovalLikeWorkflow() {
  auto start =
      FunctionExecutor("prepare", "Prepare", {"Draft"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Ticket", Json{{"draft", m.body.value("text", std::string())}}));
        return Status::Ok();
      });
  auto apply =
      FunctionExecutor("apply", "Apply", {"Decision"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(Msg("Applied", m.body));
        return Status::Ok();
      });
  auto wf = WorkflowBuilder(start)
                .AddExecutor(apply)
                .AddRequestPort("approval", "Ticket", "Decision")
                .AddEdge("prepare", "approval")
                .AddEdge("approval", "apply")
                .WithOutputFrom("apply")
                .Build();
  EXPECT_TRUE(wf.ok()) << wf.status().ToString();
  return *wf;
}

// The upstream fan-in resume shape: start fans out to `buffered` workers that contribute at once
// and to a request port whose answer is the last contribution; a barrier joins them into "sink".
inline std::shared_ptr<Workflow> FanInWithPortWorkflow(int buffered_sources) {
  std::vector<std::string> workers;
  for (int i = 0; i < buffered_sources; ++i) workers.push_back("worker" + std::to_string(i));
  auto start =
      FunctionExecutor("start", "Start", {"Go"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Work", m.body));
        ctx.SendMessage(Msg("Ask", m.body));
        return Status::Ok();
      });
  auto sink =
      FunctionExecutor("sink", "Sink", {"Part"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(m);
        return Status::Ok();
      });
  auto answer =
      FunctionExecutor("answer", "Answer", {"Reply"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.SendMessage(Msg("Part", Json{{"from", "answer"}, {"value", m.body}}));
        return Status::Ok();
      });
  WorkflowBuilder b(start);
  b.AddExecutor(sink).AddExecutor(answer).AddRequestPort("ask", "Ask", "Reply");
  std::vector<std::string> fan_out = workers;
  for (const std::string& w : workers) {
    b.AddExecutor(
        FunctionExecutor(w, "Worker", {"Work"}, [w](const Message&, WorkflowContext& ctx) {
          ctx.SendMessage(Msg("Part", Json{{"from", w}}));
          return Status::Ok();
        }));
  }
  fan_out.push_back("ask");
  b.AddFanOutEdge("start", fan_out);
  b.AddEdge("ask", "answer");
  std::vector<std::string> sources = workers;
  sources.push_back("answer");
  b.AddFanInBarrierEdge(sources, "sink");
  b.WithOutputFrom("sink");
  auto wf = b.Build();
  EXPECT_TRUE(wf.ok()) << wf.status().ToString();
  return *wf;
}

}  // namespace stepfault::testing
