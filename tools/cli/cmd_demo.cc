// stepfault demo: the sample workflow of the Quick start, with its event stream.
#include <fstream>
#include <sstream>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "faults/points.h"
#include "properties/explorer.h"
#include "properties/mutants.h"
#include "reports/bench_json.h"
#include "reports/merge.h"
#include "reports/report_json.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

// The sample workflow of the Quick start: a request port between two steps, answered in the loop.
int Demo() {
  auto prepare =
      FunctionExecutor("prepare", "Prepare", {"Draft"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.QueueStateUpdate("draft", m.body);
        ctx.SendMessage(Message{"Ticket", m.body});
        return Status::Ok();
      });
  auto apply =
      FunctionExecutor("apply", "Apply", {"Decision"}, [](const Message& m, WorkflowContext& ctx) {
        ctx.YieldOutput(Message{"Applied", m.body});
        return Status::Ok();
      });
  auto wf = WorkflowBuilder(prepare)
                .AddExecutor(apply)
                .AddRequestPort("approval", "Ticket", "Decision")
                .AddEdge("prepare", "approval")
                .AddEdge("approval", "apply")
                .WithOutputFrom("apply")
                .Build();
  SF_CHECK(wf.ok());
  InMemoryCheckpointManager manager;
  RunOptions options;
  options.checkpoints = &manager;
  auto run = StreamingRun::Start(*wf, Message{"Draft", Json{{"text", "Regional pilot proposal"}}},
                                 options);
  SF_CHECK(run.ok());
  auto stream = (*run)->Watch();
  SF_CHECK(stream.ok());
  for (int i = 0; i < 1000; ++i) {
    auto e = stream->Next();
    if (!e) break;
    std::printf("%s\n", e->ToJson().dump().c_str());
    if (e->kind == EventKind::kRequestInfo) {
      SF_CHECK((*run)
                   ->SendResponse({e->request_id, "approval",
                                   Message{"Decision", Json{{"choice", "approve"}}}})
                   .ok());
    }
  }
  std::printf("status: %s\n", std::string(RunStatusName((*run)->status())).c_str());
  return kExitOk;
}

}  // namespace

void AddDemoCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("demo", "run a sample workflow and print its event stream");
  cmd->callback([&state] { state.run = [] { return Demo(); }; });
}

}  // namespace stepfault::cli
