// The parsed arguments of every command and the functions that register and run them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace stepfault::cli {

struct ExploreArgs {
  std::string scenario;
  bool all = false;
  std::vector<std::string> actions;
  int depth = 2;
  std::string profile = "strict";
  std::vector<std::string> hazards;
  uint64_t seed = 0;
  int jobs = 1;
  std::string shard;
  double min_coverage = 0;
  bool with_mutants = false;
  bool quiet = false;
  std::string out;
  int schedules = 0;  // per scenario with several actors; 0: properties::kDefaultFlowSchedules
  std::vector<std::string> stores;  // only these checkpoint stores' variants; empty: every store
};

struct MutantsArgs {
  int jobs = 1;
  uint64_t seed = 0;
  std::vector<std::string> only;
  bool quiet = false;
  std::string out;
};

struct ReplayArgs {
  std::string scenario;             // --scenario X (as explore and check take it)
  std::string scenario_positional;  // `replay X`, the older spelling, still accepted
  std::string plan;
  uint64_t seed = 0;
  std::string profile = "strict";
  std::vector<std::string> hazards;
  std::string params;
  std::string store =
      "file";  // the checkpoint store every host opens (properties::CheckpointStoreNames)
  bool trace = false;
  std::string schedule;  // a ScheduleScenario only: the actor schedule (cmd_explore.cc)
};

struct CheckArgs {
  std::string scenario;
  int cases = 100;
  uint64_t seed = 0;
  std::string profile = "strict";
  std::vector<std::string> hazards;
  std::string out;
};

struct ApprovalArgs {
  std::string dir;
  std::string draft = "Regional pilot proposal";
  std::string choice;
  std::string comment;
  bool fail_after_write = false;
  std::string crash_at;
  uint64_t seed = 0;
};

struct ReportArgs {
  std::vector<std::string> inputs;
  std::string report;
  std::string out;
};

struct CommandState {
  std::string argv_line;
  ExploreArgs explore;
  MutantsArgs mutants;
  ReplayArgs replay;
  CheckArgs check;
  ApprovalArgs approval;
  ReportArgs report;
  std::string list_what;
  std::string expect_scenario;  // cmd_expect.cc
  uint64_t expect_seed = 0;
  std::function<int()> run;  // set by the chosen subcommand's callback
};

void AddExploreCommand(CLI::App& app, CommandState& state);
void AddMutantsCommand(CLI::App& app, CommandState& state);
void AddReplayCommand(CLI::App& app, CommandState& state);
void AddCheckCommand(CLI::App& app, CommandState& state);
void AddListCommand(CLI::App& app, CommandState& state);
void AddReportCommand(CLI::App& app, CommandState& state);
void AddApprovalCommand(CLI::App& app, CommandState& state);
void AddDemoCommand(CLI::App& app, CommandState& state);
void AddBlackboxCommand(CLI::App& app, CommandState& state);      // cmd_blackbox.cc
void AddSchedulesCommand(CLI::App& app, CommandState& state);     // cmd_schedules.cc
void AddDifferentialCommand(CLI::App& app, CommandState& state);  // cmd_differential.cc
void AddExpectCommand(CLI::App& app, CommandState& state);        // cmd_expect.cc

int RunExplore(const ExploreArgs& args);

}  // namespace stepfault::cli
