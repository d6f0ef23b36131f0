// stepfault list: the registries (scenarios, points, invariants, hazards, actions).
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

int List(const std::string& what) {
  if (what == "scenarios") {
    for (const auto& s : scenarios::AllScenarios()) {
      std::string invs;
      for (const auto& i : s->invariants()) invs += " " + i;
      std::printf("%-18s %s\n%-18s invariants:%s\n", s->name().c_str(), s->description().c_str(),
                  "", invs.c_str());
      if (s->AsScheduleScenario() != nullptr)
        std::printf("%-18s several actors: explored by schedules, not by lives\n", "");
    }
  } else if (what == "points") {
    for (const auto& p : faults::AllPoints()) {
      std::string roles;
      for (const auto& r : p.roles) roles += (roles.empty() ? "" : ",") + r;
      std::printf("%-26s %-9s %-36s %s\n", p.name.c_str(),
                  std::string(faults::PointLayerName(p.layer)).c_str(),
                  roles.empty() ? "-" : ("[" + roles + "]").c_str(), p.meaning.c_str());
    }
  } else if (what == "invariants") {
    for (const auto& i : scenarios::AllInvariants())
      std::printf("%-16s %s\n", i.id.c_str(), i.statement.c_str());
  } else if (what == "hazards") {
    for (const auto& m : properties::AllMutants())
      std::printf("%-45s %s\n", m.name.c_str(), m.description.c_str());
  } else if (what == "params") {
    for (const auto& s : scenarios::BuiltinScenarios()) {
      std::printf("%s\n%s", s->name().c_str(),
                  scenarios::DescribeParams(s->params(), "  ").c_str());
    }
    std::printf("(a JSON scenario file takes no parameters)\n");
  } else if (what == "actions") {
    for (const auto& a : properties::ActionKindNames()) std::printf("%s\n", a.c_str());
  } else {
    return UsageError("list what? one of: scenarios, points, invariants, hazards, actions, params");
  }
  return kExitOk;
}

}  // namespace

void AddListCommand(CLI::App& app, CommandState& state) {
  auto* cmd =
      app.add_subcommand("list", "list scenarios, points, invariants, hazards, actions or params");
  cmd->add_option("what", state.list_what, "scenarios|points|invariants|hazards|actions|params")
      ->required();
  cmd->callback([&state] { state.run = [&state] { return List(state.list_what); }; });
}

}  // namespace stepfault::cli
