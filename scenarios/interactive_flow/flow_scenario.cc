// The interactive-flow entry of the scenario registry (scenarios/registry.h): a ScheduleScenario
// (scenarios/schedule_scenario.h) whose world is flow_world.h, explored by flow_schedules.h, its
// plans in the flow plan grammar ("crash:b@3,powerloss:a@9"), its hazards flow_hazards.h.
// Thread-safety: immutable.
#include "faults/schedule_strategies.h"
#include "scenarios/interactive_flow/flow_hazards.h"
#include "scenarios/interactive_flow/flow_schedules.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

// The flow options of a replay: its --hazard and --params, or what is wrong with them.
Status FlowOptionsOf(const ScheduleReplayRequest& r, flow::FlowOptions* out) {
  SF_RETURN_IF_ERROR(flow::FlowHazardsFrom(r.hazards, out));
  if (r.params.empty()) return Status::Ok();
  Json params = Json::parse(r.params, nullptr, /*allow_exceptions=*/false);
  if (!params.is_object() || params.size() != params.count("force_purge") ||
      (params.contains("force_purge") && !params["force_purge"].is_boolean())) {
    return Status::InvalidArgument(
        "bad --params for interactive-flow: only {\"force_purge\": true|false}");
  }
  out->force_purge = params.value("force_purge", false);
  return Status::Ok();
}

class InteractiveFlowScenario final : public ScheduleScenario {
 public:
  std::string name() const override { return "interactive-flow"; }
  std::string description() const override {
    return "ADR-0054 durable interactive flow: two workers, a sweeper, a responder and a clock "
           "share one SQLite database; explored by schedules (PCT) with crashes, power loss and "
           "time advancing";
  }
  std::vector<std::string> invariants() const override {
    return {kInvFlowOneRequest,
            kInvFlowOneAccept,
            kInvFlowNoDoubleResume,
            kInvFlowLease,
            kInvFlowExpiry,
            kInvFlowAnsweredResumed,
            kInvFlowProjection,
            kInvFlowBinding,
            kInvFlowPurge,
            kInvAlo,
            kInvIdem};
  }
  std::vector<ParamDecl> params() const override { return {}; }
  std::vector<HostHazard> host_hazards() const override {
    std::vector<HostHazard> out;
    for (const flow::FlowHazard& h : flow::FlowHazards())
      out.push_back({h.name, h.meaning, {h.expected_invariant}});
    return out;
  }

  ScheduleExploration ExploreSchedules(const ScheduleSearchOptions& search,
                                       const HostHazards& hazards) const override {
    flow::ScheduleExploreOptions o(search);
    for (const flow::FlowHazard& h : flow::FlowHazards()) {
      if (hazards.count(h.name) > 0) o.flow.hazards.insert(h.name);
    }
    return flow::ExploreFlowSchedules(o);
  }

  std::string ExploreCommand(const ScheduleSearchOptions& search,
                             const HostHazards& hazards) const override {
    std::string command = "stepfault schedules explore --seed " + std::to_string(search.seed) +
                          " --schedules " + std::to_string(search.schedules) + " --bounded-first " +
                          std::to_string(search.bounded_first) + " --max-preemptions " +
                          std::to_string(search.max_preemptions);
    for (const flow::FlowHazard& h : flow::FlowHazards()) {
      if (hazards.count(h.name) > 0) command += std::string(" --hazard host:") + h.name;
    }
    return command;
  }

  Result<ScheduleReplayResult> ReplaySchedule(const ScheduleReplayRequest& r) const override {
    flow::FlowOptions options;
    SF_RETURN_IF_ERROR(FlowOptionsOf(r, &options));
    Result<flow::FlowPlan> plan = flow::ParseFlowPlan(r.plan);
    if (!plan.ok()) return Status::InvalidArgument("bad --plan: " + plan.status().message());
    std::string error;
    auto choices = faults::DecodeSchedule(r.schedule, &error);
    if (!choices.has_value()) return Status::InvalidArgument("bad --schedule: " + error);
    faults::ReplayStrategy replay(*choices);
    flow::FlowRunResult run = flow::RunFlowWorld(&replay, options, *plan, 20000, r.trace);
    ScheduleReplayResult out;
    out.trace = std::move(run.run.trace);
    out.deaths = std::move(run.run.deaths);
    out.violations = std::move(run.violations);
    out.digest = std::move(run.digest);
    out.schedule = std::move(run.run.schedule);
    out.plan = flow::FlowPlanText(*plan);
    out.final_status = std::move(run.final_status);
    out.steps = run.run.steps;
    out.context_switches = run.run.context_switches;
    out.divergences = replay.divergences();
    return out;
  }
};

}  // namespace

std::shared_ptr<const ScheduleScenario> MakeInteractiveFlowScenario() {
  return std::make_shared<InteractiveFlowScenario>();
}

}  // namespace stepfault::scenarios
