// The interactive-flow entry of the scenario registry (scenarios/registry.h): its name,
// description, invariants and host hazards, so `stepfault list`, `explore --all` and the mutant
// table see it. It has several actors in one world, so it is explored by schedules
// (properties/explore_flow.h runs scenarios/interactive_flow/flow_world.h), never by the life
// runner: RunLife only reports, with a typed error, that a single life is not how it runs.
// Thread-safety: immutable.
#include "scenarios/interactive_flow/flow_hazards.h"
#include "scenarios/invariants.h"
#include "scenarios/registry.h"

namespace stepfault::scenarios {
namespace {

class InteractiveFlowScenario final : public Scenario {
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
    for (const flow::FlowHazard& h : flow::FlowHazards()) out.push_back({h.name, h.meaning});
    return out;
  }
  void RunLife(HostEnv& env, const std::vector<LifeReport>& previous,
               LifeReport* report) const override {
    (void)env;
    (void)previous;
    report->command = "none";
    report->status = Status::FailedPrecondition(
        "interactive-flow has several actors in one world: it is explored by schedules "
        "(stepfault explore --scenario interactive-flow, stepfault schedules explore), not one "
        "life at a time");
    report->final = true;
  }
  void Check(HostEnv& env, const std::vector<LifeReport>& lives, bool final,
             std::vector<Violation>* out) const override {
    (void)env;
    (void)lives;
    (void) final;
    (void)out;
  }
};

}  // namespace

std::shared_ptr<const Scenario> MakeInteractiveFlowScenario() {
  return std::make_shared<InteractiveFlowScenario>();
}

}  // namespace stepfault::scenarios
