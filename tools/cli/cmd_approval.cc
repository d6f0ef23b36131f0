// approval start|status|resume: Demo320 in real processes over a real directory. Every command
// accepts --crash-at POINT[#N]: the process kills itself with SIGKILL at that hit (engine and host
// probes, and the checkpoint and receipt file operations; SQLite's own file operations on the real
// disk are not fault points here — exploration reaches them through the simulated VFS).
#include <filesystem>

#include "engine/clock.h"
#include "engine/random.h"
#include "faults/kill_injector.h"
#include "faults/points.h"
#include "faults/probed_env.h"
#include "reports/shell_quote.h"
#include "scenarios/approval/approval.h"
#include "scenarios/approval/approval_store.h"
#include "tools/cli/cli_common.h"
#include "tools/cli/commands.h"

namespace stepfault::cli {
namespace {

class NoFaults final : public faults::FaultHook {
 public:
  faults::Decision OnPoint(std::string_view) override { return faults::Decision::Proceed(); }
};

int RunApproval(const std::string& command, const ApprovalArgs& a) {
  // Every argument is checked before anything touches the directory: a rejected command leaves it
  // byte-identical (and does not create it).
  if (a.dir.empty()) return UsageError("approval " + command + " needs --dir DIR");
  if (command == "start") {
    Status draft = scenarios::ValidateDraft(a.draft);
    if (!draft.ok()) return UsageError(draft.message());
  }
  std::unique_ptr<faults::KillInjector> kill;
  if (!a.crash_at.empty()) {
    auto k = faults::KillInjector::Create(a.crash_at);
    if (!k.ok()) return UsageError("bad --crash-at: " + k.status().message());
    kill = std::move(k).value();
    faults::Plan as_plan;
    as_plan.faults.push_back(faults::Fault{
        faults::FaultAction::Of(faults::FaultActionKind::kCrash), kill->target().point, {}});
    Status known = faults::CheckPlanPoints(as_plan);
    if (!known.ok()) return UsageError("bad --crash-at: " + known.message());
  }
  std::error_code ec;
  if (command == "start") {
    std::filesystem::create_directories(a.dir, ec);
    if (ec) return UsageError("cannot create directory '" + a.dir + "': " + ec.message());
  } else if (!std::filesystem::is_directory(a.dir, ec)) {
    return UsageError("directory '" + a.dir +
                      "' does not exist; run `stepfault approval start --dir " +
                      reports::ShellQuote(a.dir) + "` first");
  }
  NoFaults no_faults;
  faults::ProbedEnv probed(PosixEnv(),
                           kill ? static_cast<faults::FaultHook*>(kill.get()) : &no_faults,
                           faults::DefaultRoleClassifier());
  LogicalClock clock;
  scenarios::HostEnv env;
  env.env = kill ? static_cast<Env*>(&probed) : PosixEnv();
  env.dir = a.dir;
  env.probe = kill ? static_cast<Probe*>(kill.get()) : NullProbe();
  env.clock = &clock;
  env.root_seed = a.seed;
  env.seed = DeriveSeed(a.seed, command);
  scenarios::LifeReport report;
  scenarios::ApprovalOutcome out;
  if (command == "start") {
    out = scenarios::ApprovalStart(env, a.draft, &report);
    if (out.status.ok())
      std::printf("OperationId: %s\nRequestId: %s\n", out.operation_id.c_str(),
                  out.request_id.c_str());
  } else if (command == "status") {
    out = scenarios::ApprovalStatusOf(env, /*read_only=*/true);
    if (out.status.ok()) {
      std::printf("Status: %s\n", out.state.c_str());
      if (out.item_id) std::printf("StoredItem: %lld\n", static_cast<long long>(*out.item_id));
    }
  } else {
    out = scenarios::ApprovalResume(env, a.choice, a.comment, a.fail_after_write, &report);
    if (out.status.ok()) {
      if (out.item_id) {
        std::printf("ItemId: %lld\n", static_cast<long long>(*out.item_id));
      } else {
        std::printf("%s: operation %s was rejected; no item was created\n", out.state.c_str(),
                    out.operation_id.c_str());
      }
    }
  }
  if (!out.status.ok()) {
    std::fprintf(stderr, "stepfault approval %s: %s\n", command.c_str(),
                 out.status.ToString().c_str());
  }
  if (kill && kill->matching_hits() < kill->target().hit) {
    // --crash-at asked for a death that never came: the run did not test what was asked.
    std::fprintf(stderr,
                 "stepfault approval %s: --crash-at %s never fired: '%s' was hit %lld time(s) "
                 "(the real file system probes checkpoint and receipt files, not SQLite's own; "
                 "`stepfault list points` lists the points)\n",
                 command.c_str(), kill->target().Print().c_str(),
                 kill->target().point.Print().c_str(),
                 static_cast<long long>(kill->matching_hits()));
    return out.exit_code == kExitOk ? kExitViolation : out.exit_code;
  }
  return out.exit_code;
}

}  // namespace

void AddApprovalCommand(CLI::App& app, CommandState& state) {
  auto* cmd = app.add_subcommand("approval", "Demo320: durable approval across processes");
  cmd->require_subcommand(1);
  auto common = [&state](CLI::App* sub) {
    sub->add_option("--dir", state.approval.dir, "the operation's directory")->required();
    sub->add_option("--crash-at", state.approval.crash_at, "SIGKILL this process at POINT[#N]");
    AddUnsignedOption(sub, "--seed", &state.approval.seed, "root seed of ids", 0, UINT64_MAX);
  };
  auto* start = cmd->add_subcommand("start", "register the draft and wait for a decision");
  common(start);
  start->add_option("--draft", state.approval.draft, "the proposal text");
  start->callback(
      [&state] { state.run = [&state] { return RunApproval("start", state.approval); }; });
  auto* status = cmd->add_subcommand("status", "print the operation's status and its stored item");
  common(status);
  status->callback(
      [&state] { state.run = [&state] { return RunApproval("status", state.approval); }; });
  auto* resume =
      cmd->add_subcommand("resume", "answer the pending request: approve|reject \"COMMENT\"");
  common(resume);
  resume->add_option("choice", state.approval.choice, "approve or reject")->required();
  resume->add_option("comment", state.approval.comment, "1 to 500 characters")->required();
  resume->add_flag("--fail-after-write", state.approval.fail_after_write,
                   "exit 1 right after the commit");
  resume->callback(
      [&state] { state.run = [&state] { return RunApproval("resume", state.approval); }; });
}

}  // namespace stepfault::cli
