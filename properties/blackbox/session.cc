// Recording and recovering one black-box life (see session.h).
#include "properties/blackbox/session.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "properties/blackbox/command_runner.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::blackbox {
namespace {

namespace fs = std::filesystem;
using faults::blackbox::CrashState;
using faults::blackbox::Trace;

std::string DirOf(const Spec& spec, const std::string& cell) {
  return (fs::path(cell) / "work" / spec.dir).string();
}

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  return static_cast<bool>(out);
}

// The environment of every command of a cell; with a trace path, the recorder too.
std::map<std::string, std::string> CommandEnv(const Spec& spec, const SessionConfig& config,
                                              const std::string& cell, const std::string& trace) {
  std::map<std::string, std::string> env = spec.env;
  std::string dir = fs::weakly_canonical(DirOf(spec, cell)).string();
  env["STEPFAULT_DIR"] = dir;
  env["STEPFAULT_ACKED"] = (fs::path(cell) / "acked.txt").string();
  env["STEPFAULT_SPEC_DIR"] =
      spec.path.empty() ? "." : fs::absolute(fs::path(spec.path)).parent_path().string();
  env["UV_USE_IO_URING"] = "0";
  const char* path = std::getenv("PATH");
  env["PATH"] = config.bin_dir + ":" + (path ? path : "/usr/bin:/bin");
  if (!trace.empty()) {
    const char* pre = std::getenv("LD_PRELOAD");
    env["LD_PRELOAD"] = config.preload + (pre && *pre ? std::string(":") + pre : "");
    env["STEPFAULT_BB_ROOT"] = dir;
    env["STEPFAULT_BB_TRACE"] = trace;
    std::string globs;
    for (const std::string& g : spec.volatile_files) globs += g + "\n";
    env["STEPFAULT_BB_VOLATILE"] = globs;
  }
  return env;
}

std::string Describe(const std::string& what, const std::string& cmd, const CommandResult& r,
                     int timeout_s) {
  if (r.timed_out)
    return what + " `" + cmd + "` did not finish in " + std::to_string(timeout_s) +
           " s (killed with its process group)";
  std::string msg = what + " `" + cmd + "` exited " + std::to_string(r.exit_code);
  if (r.exit_code == 127) msg += " (command not found?)";
  std::string err = r.err.substr(0, 300);
  while (!err.empty() && err.back() == '\n') err.pop_back();
  return err.empty() ? msg : msg + ": " + err;
}

// A new trace file: the header, then the spec's volatile globs (the crash model reads them there).
void StartTrace(const Spec& spec, const std::string& trace_path) {
  std::string text = faults::blackbox::kTraceHeader;
  for (const std::string& g : spec.volatile_files)
    text += faults::blackbox::FrameRecord("volatile", getpid(), {{"pattern", g}}, "");
  WriteText(trace_path, text);
}

Status RunSetup(const Spec& spec, const SessionConfig& config, const std::string& cell) {
  std::error_code ec;
  fs::remove_all(cell, ec);
  fs::create_directories(DirOf(spec, cell), ec);
  if (ec) return Status::IOError("cannot create " + DirOf(spec, cell) + ": " + ec.message());
  WriteText((fs::path(cell) / "acked.txt").string(), "");
  for (const std::string& cmd : spec.setup) {
    CommandResult r = RunShell(cmd, {(fs::path(cell) / "work").string(),
                                     CommandEnv(spec, config, cell, ""), spec.timeout_s});
    if (!r.ok()) return Status::InvalidArgument(Describe("setup command", cmd, r, spec.timeout_s));
  }
  return Status::Ok();
}

// Runs `cmds` under the recorder into `trace_path`, appending a proc.exit[<label>I] record after
// each. Stops at the first failing command; returns its description ("" when all succeeded).
std::string RunTraced(const Spec& spec, const SessionConfig& config, const std::string& cell,
                      const std::vector<std::string>& cmds, const std::string& label,
                      const std::string& trace_path, std::map<std::string, std::string> extra,
                      bool* timed_out, std::vector<std::string>* notes) {
  std::map<std::string, std::string> env = CommandEnv(spec, config, cell, trace_path);
  for (auto& [k, v] : extra) env[k] = v;
  for (size_t i = 0; i < cmds.size(); ++i) {
    CommandResult r = RunShell(cmds[i], {(fs::path(cell) / "work").string(), env, spec.timeout_s});
    std::string point = "proc.exit[" + label + std::to_string(i + 1) + "]";
    WriteText(trace_path,
              faults::blackbox::FrameRecord(
                  "exit", getpid(), {{"w", point}, {"status", std::to_string(r.exit_code)}}, ""));
    if (r.left_children && notes)
      notes->push_back("`" + cmds[i] +
                       "` left processes behind; they were killed with its process group");
    if (!r.ok()) {
      if (timed_out) *timed_out = r.timed_out;
      return Describe(label == "cmd" ? "run command" : "recover command", cmds[i], r,
                      spec.timeout_s);
    }
  }
  return "";
}

Status TakeReference(const Spec& spec, const SessionConfig& config, const std::string& cell,
                     Recording* rec) {
  LifeResult life =
      RecoverAndCheck(spec, config, cell, nullptr,
                      AckedBefore(rec->trace, rec->trace.records.size()), nullptr, false);
  if (!life.failures.empty())
    return Status::InvalidArgument("the fault-free run fails its own checks (" +
                                   life.failures[0].invariant + "): " + life.failures[0].message +
                                   "; fix the spec or the program first");
  std::string dir = DirOf(spec, cell);
  for (size_t i = 0; i < spec.sql_checks.size(); ++i) {
    Result<std::vector<std::string>> rows =
        QueryRows((fs::path(dir) / spec.sql_checks[i].db).string(), spec.sql_checks[i].query);
    if (!rows.ok())
      return Status::InvalidArgument("sql_checks[" + std::to_string(i) +
                                     "] fails on the fault-free run: " + rows.status().message());
    rec->reference.sql_rows[i] = *rows;
  }
  rec->reference.files = FilesUnder(dir);
  rec->reference.has_database = HasSqliteDatabase(dir);
  return Status::Ok();
}

// The reconciliation of the recording with reality: the crash-model replay of the whole trace
// must give exactly the directory the run left (volatile files aside: IsVolatilePath). "" when it
// does, else the first path that differs.
std::string ReplayDiffers(const Recording& rec, const std::string& dir) {
  Result<CrashState> real = faults::blackbox::LoadDirectory(dir);
  if (!real.ok()) return real.status().message();
  CrashState model = faults::blackbox::BuildCrashState(
      rec.initial, rec.trace, rec.trace.records.size(), faults::blackbox::CrashKind::kCrash, 0);
  const std::vector<std::string> patterns = faults::blackbox::VolatilePatterns(rec.trace);
  std::set<std::string> paths;
  for (const auto& [p, n] : real->nodes) paths.insert(p);
  for (const auto& [p, n] : model.nodes) paths.insert(p);
  for (const std::string& p : paths) {
    if (faults::blackbox::IsVolatilePath(p, patterns)) continue;
    auto a = real->nodes.find(p);
    auto b = model.nodes.find(p);
    if (a == real->nodes.end()) return p + " is in the trace but not on disk";
    if (b == model.nodes.end()) return p + " is on disk but not in the trace";
    if (!(a->second == b->second)) return p + " differs";
  }
  return "";
}

}  // namespace

std::string FindPreload() {
  if (const char* env = std::getenv("STEPFAULT_PRELOAD"); env && *env) return env;
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& p : {exe.parent_path().parent_path() / "lib" / "libstepfault_preload.so",
                            exe.parent_path() / "libstepfault_preload.so"}) {
    if (!ec && fs::exists(p)) return p.string();
  }
#ifdef STEPFAULT_PRELOAD_PATH
  if (fs::exists(STEPFAULT_PRELOAD_PATH)) return STEPFAULT_PRELOAD_PATH;
#endif
  return "";
}

std::string AckedBefore(const Trace& trace, size_t upto) {
  std::string out;
  for (size_t i = 0; i < upto && i < trace.records.size(); ++i) {
    if (trace.records[i].op == "stdout") out += trace.records[i].data;
  }
  return out;
}

const faults::blackbox::TraceWindow* FindWindow(
    const std::vector<faults::blackbox::TraceWindow>& windows, const std::string& id) {
  for (const auto& w : windows) {
    if (w.id == id) return &w;
  }
  return nullptr;
}

Result<Recording> Record(const Spec& spec, const SessionConfig& config, const std::string& cell) {
  if (config.preload.empty() || !fs::exists(config.preload))
    return Status::InvalidArgument(
        "libstepfault_preload.so not found; build it or set STEPFAULT_PRELOAD");
  SF_RETURN_IF_ERROR(RunSetup(spec, config, cell));
  Recording rec;
  SF_ASSIGN_OR_RETURN(rec.initial, faults::blackbox::LoadDirectory(DirOf(spec, cell)));
  std::string trace_path = (fs::path(cell) / "run.sftrace").string();
  StartTrace(spec, trace_path);
  bool timed_out = false;
  std::string failed =
      RunTraced(spec, config, cell, spec.run, "cmd", trace_path, {}, &timed_out, &rec.notes);
  if (!failed.empty()) return Status::InvalidArgument("the fault-free run failed: " + failed);
  SF_ASSIGN_OR_RETURN(rec.trace, faults::blackbox::ReadTraceFile(trace_path));
  rec.windows = faults::blackbox::WindowsOf(rec.trace);
  size_t fs_windows = 0;
  for (const auto& w : rec.windows) fs_windows += w.point.rfind("fs.", 0) == 0 ? 1 : 0;
  if (fs_windows == 0)
    return Status::InvalidArgument(
        "zero windows: the run commands never changed anything under \"" + spec.dir +
        "\" (check `dir` and that the program writes there; a static binary is not seen)");
  if (std::string diff = ReplayDiffers(rec, DirOf(spec, cell)); !diff.empty())
    rec.incomplete.push_back("replaying the trace does not give the directory the run left (" +
                             diff + ")");
  for (const std::string& why : faults::blackbox::IncompleteReasons(rec.trace))
    rec.incomplete.push_back(why);
  for (const std::string& f : faults::blackbox::VolatileFiles(rec.trace))
    rec.notes.push_back(f +
                        " is memory-mapped volatile state (SQLite -shm, or the spec's `volatile`): "
                        "left out of every crash state");
  SF_RETURN_IF_ERROR(TakeReference(spec, config, cell, &rec));
  return rec;
}

Result<Trace> RunWithIOError(const Spec& spec, const SessionConfig& config, const std::string& cell,
                             const std::string& window, int err) {
  SF_RETURN_IF_ERROR(RunSetup(spec, config, cell));
  std::string trace_path = (fs::path(cell) / "run.sftrace").string();
  std::string counter = (fs::path(cell) / "fault.counter").string();
  StartTrace(spec, trace_path);
  WriteText(counter, "");
  std::map<std::string, std::string> extra = {
      {"STEPFAULT_BB_FAULT", window + ":" + std::to_string(err)},
      {"STEPFAULT_BB_COUNTER", counter}};
  RunTraced(spec, config, cell, spec.run, "cmd", trace_path, extra, nullptr, nullptr);
  return faults::blackbox::ReadTraceFile(trace_path);
}

LifeResult RecoverAndCheck(const Spec& spec, const SessionConfig& config, const std::string& cell,
                           const CrashState* state, const std::string& acked,
                           const Reference* reference, bool trace_recovery) {
  LifeResult result;
  std::string dir = DirOf(spec, cell);
  if (state != nullptr) {
    std::error_code ec;
    fs::remove_all(cell, ec);
    fs::create_directories(fs::path(cell) / "work", ec);
    if (Status s = faults::blackbox::Materialise(*state, dir); !s.ok()) {
      result.failures.push_back(
          {scenarios::kInvLiveness, "cannot materialise the crash state: " + s.message()});
      return result;
    }
  }
  std::string acked_path = (fs::path(cell) / "acked.txt").string();
  std::ofstream(acked_path, std::ios::binary | std::ios::trunc) << acked;
  std::string failed;
  for (int life = 1; life <= spec.lives_max && (life == 1 || !failed.empty()); ++life) {
    result.lives = life;
    if (spec.recover.empty()) break;
    std::string trace_path =
        (fs::path(cell) / ("recover" + std::to_string(life) + ".sftrace")).string();
    StartTrace(spec, trace_path);
    bool timed_out = false;
    failed = RunTraced(spec, config, cell, spec.recover, "recover", trace_path, {}, &timed_out,
                       &result.notes);
    if (life == 1 && trace_recovery) {
      Result<Trace> t = faults::blackbox::ReadTraceFile(trace_path);
      if (t.ok()) result.recovery_trace = *t;
    }
    if (timed_out) break;  // a hang is not retried
  }
  if (!failed.empty()) {
    result.failures.push_back({scenarios::kInvLiveness, "recovery did not complete within " +
                                                            std::to_string(spec.lives_max) +
                                                            " lives: " + failed});
    return result;
  }
  CheckContext context{&spec, (fs::path(cell) / "work").string(),
                       fs::weakly_canonical(dir).string(), CommandEnv(spec, config, cell, ""),
                       reference};
  result.failures = RunChecks(context);
  return result;
}

}  // namespace stepfault::properties::blackbox
