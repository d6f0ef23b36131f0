// Recording and recovering one black-box life (see session.h).
#include "properties/blackbox/session.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "properties/blackbox/command_runner.h"
#include "scenarios/invariants.h"

namespace stepfault::properties::blackbox {
namespace {

namespace fs = std::filesystem;
using faults::blackbox::CrashState;
using faults::blackbox::Trace;

std::string DirOf(const scenarios::blackbox::Spec& spec, const std::string& cell) {
  return (fs::path(cell) / "work" / spec.dir).string();
}

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << text;
  return static_cast<bool>(out);
}

// The acknowledgement file of a cell's run commands and of its recovery commands.
std::string AckFile(const std::string& cell, const std::string& label) {
  return fs::absolute(fs::path(cell) / (label == "cmd" ? "ack-run.log" : "ack-recover.log"))
      .lexically_normal()
      .string();
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The environment of every command of a cell (`label` "cmd" for run and setup commands, else
// recovery); with a trace path, the recorder too.
std::map<std::string, std::string> CommandEnv(const scenarios::blackbox::Spec& spec,
                                              const SessionConfig& config, const std::string& cell,
                                              const std::string& trace,
                                              const std::string& label = "cmd") {
  std::map<std::string, std::string> env = spec.env;
  std::string dir = fs::weakly_canonical(DirOf(spec, cell)).string();
  env["STEPFAULT_DIR"] = dir;
  env["STEPFAULT_ACKED"] = (fs::path(cell) / "acked.txt").string();
  env["STEPFAULT_ACK_FILE"] = AckFile(cell, label);
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
    env["STEPFAULT_BB_ACK"] = AckFile(cell, label);
    env["STEPFAULT_BB_COUNTER"] = trace + ".counter";
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
void StartTrace(const scenarios::blackbox::Spec& spec, const std::string& trace_path) {
  std::string text = faults::blackbox::kTraceHeader;
  for (const std::string& g : spec.volatile_files)
    text += faults::blackbox::FrameRecord("volatile", getpid(), {{"pattern", g}}, "");
  WriteText(trace_path, text);
}

Status RunSetup(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                const std::string& cell) {
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

// Runs cmds[first..] under the recorder into `trace_path`, appending a proc.exit[<label>I] record
// after each (with an `ack` record first when the acknowledgement file grew: bytes a program left
// for exit() to flush are acknowledged by the time its command ended). Stops at the first failing
// command; returns its description ("" when all succeeded).
std::string RunTraced(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                      const std::string& cell, const std::vector<std::string>& cmds,
                      const std::string& label, const std::string& trace_path,
                      std::map<std::string, std::string> extra, bool* timed_out,
                      std::vector<std::string>* notes, size_t first = 0) {
  std::map<std::string, std::string> env = CommandEnv(spec, config, cell, trace_path, label);
  for (auto& [k, v] : extra) env[k] = v;
  std::ofstream(trace_path + ".counter", std::ios::binary | std::ios::trunc);
  for (size_t i = first; i < cmds.size(); ++i) {
    CommandResult r = RunShell(cmds[i], {(fs::path(cell) / "work").string(), env, spec.timeout_s});
    std::string point = "proc.exit[" + label + std::to_string(i + 1) + "]";
    std::error_code ec;
    const auto ack_size = fs::file_size(AckFile(cell, label), ec);
    if (!ec)
      WriteText(trace_path, faults::blackbox::FrameRecord(
                                "ack", getpid(), {{"size", std::to_string(ack_size)}}, ""));
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

// The trace a traced run left, with its acknowledgement file.
Result<Trace> ReadLife(const std::string& trace_path, const std::string& ack_file) {
  SF_ASSIGN_OR_RETURN(Trace t, faults::blackbox::ReadTraceFile(trace_path));
  t.ack_log = ReadText(ack_file);
  return t;
}

bool HasAckRecords(const Trace& t) {
  for (const auto& r : t.records)
    if (r.op == "ack" && r.Int("size") > 0) return true;
  return false;
}

Status TakeReference(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                     const std::string& cell, Recording* rec) {
  const std::string acked = AckedBefore(rec->trace, rec->trace.records.size(), rec->ack);
  LifeResult life = RecoverAndCheck(spec, config, cell, nullptr, acked, nullptr, false);
  if (!life.failures.empty())
    return Status::InvalidArgument("the fault-free run fails its own checks (" +
                                   life.failures[0].invariant + "): " + life.failures[0].message +
                                   "; fix the spec or the program first");
  const std::string channel =
      rec->ack == AckChannel::kFile ? "$STEPFAULT_ACK_FILE" : "standard output";
  if (acked.empty()) {
    rec->warnings.push_back(
        "the fault-free run acknowledged nothing (no line on " + channel +
        "): the checks cannot tell an acknowledged unit of work that a crash lost from one that "
        "was never done; have the program append a line per committed unit to "
        "$STEPFAULT_ACK_FILE");
  } else if (!life.acked_read) {
    rec->warnings.push_back(
        "no check command read $STEPFAULT_ACKED (what the program acknowledged on " + channel +
        "): a crash that loses acknowledged work passes every check that does not compare with it");
  }
  std::string dir = DirOf(spec, cell);
  for (size_t i = 0; i < spec.sql_checks.size(); ++i) {
    Result<std::vector<std::string>> rows = scenarios::blackbox::QueryRows(
        (fs::path(dir) / spec.sql_checks[i].db).string(), spec.sql_checks[i].query);
    if (!rows.ok())
      return Status::InvalidArgument("sql_checks[" + std::to_string(i) +
                                     "] fails on the fault-free run: " + rows.status().message());
    rec->reference.sql_rows[i] = *rows;
  }
  rec->reference.files = scenarios::blackbox::FilesUnder(dir);
  rec->reference.has_database = scenarios::blackbox::HasSqliteDatabase(dir);
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

std::string AckedBefore(const Trace& trace, size_t upto, AckChannel channel) {
  std::string out;
  int64_t size = 0;
  for (size_t i = 0; i < upto && i < trace.records.size(); ++i) {
    const faults::blackbox::TraceRecord& r = trace.records[i];
    if (channel == AckChannel::kStdout && r.op == "stdout") out += r.data;
    if (channel == AckChannel::kFile && r.op == "ack") size = std::max(size, r.Int("size"));
  }
  if (channel == AckChannel::kFile)
    out =
        trace.ack_log.substr(0, std::min<size_t>(static_cast<size_t>(size), trace.ack_log.size()));
  return out;
}

bool CanFailLive(const Trace& trace, const faults::blackbox::TraceWindow& w) {
  return w.record < trace.records.size() && trace.records[w.record].Int("k") > 0;
}

const faults::blackbox::TraceWindow* FindWindow(
    const std::vector<faults::blackbox::TraceWindow>& windows, const std::string& id) {
  for (const auto& w : windows) {
    if (w.id == id) return &w;
  }
  return nullptr;
}

Result<Recording> Record(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                         const std::string& cell) {
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
  SF_ASSIGN_OR_RETURN(rec.trace, ReadLife(trace_path, AckFile(cell, "cmd")));
  rec.windows = faults::blackbox::WindowsOf(rec.trace, spec.temp_names);
  const bool file_acks = HasAckRecords(rec.trace);
  if (spec.ack == scenarios::blackbox::Spec::Ack::kFile && !file_acks)
    return Status::InvalidArgument(
        "the spec says \"ack\": \"file\" but the fault-free run never wrote to "
        "$STEPFAULT_ACK_FILE; have the program append a line there per acknowledged unit of work, "
        "or set \"ack\" to \"stdout\"");
  rec.ack = spec.ack == scenarios::blackbox::Spec::Ack::kStdout ||
                    (spec.ack == scenarios::blackbox::Spec::Ack::kAuto && !file_acks)
                ? AckChannel::kStdout
                : AckChannel::kFile;
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

Result<IOErrorRun> RunWithIOError(const scenarios::blackbox::Spec& spec,
                                  const SessionConfig& config, const std::string& cell,
                                  const Recording& rec, const faults::blackbox::TraceWindow& w,
                                  int err, bool from_start) {
  const std::vector<faults::blackbox::TraceRecord>& records = rec.trace.records;
  size_t boundary = 0, first = 0;  // the record of proc.exit[cmdI] before the window, and I
  for (size_t i = 0; !from_start && i < w.record && i < records.size(); ++i) {
    const std::string point = records[i].op == "exit" ? records[i].Get("w") : "";
    if (point.rfind("proc.exit[cmd", 0) != 0) continue;
    boundary = i;
    first = std::stoul(point.substr(13));
  }
  int64_t k_before = 0;
  for (size_t i = 0; i < boundary; ++i) k_before = std::max(k_before, records[i].Int("k"));
  SF_RETURN_IF_ERROR(RunSetup(spec, config, cell));
  if (first > 0) {
    std::error_code ec;
    fs::remove_all(DirOf(spec, cell), ec);
    SF_RETURN_IF_ERROR(faults::blackbox::Materialise(
        faults::blackbox::BuildCrashState(rec.initial, rec.trace, boundary,
                                          faults::blackbox::CrashKind::kCrash, config.seed),
        DirOf(spec, cell)));
  }
  std::string trace_path = (fs::path(cell) / "run.sftrace").string();
  StartTrace(spec, trace_path);
  const int64_t k = records[w.record].Int("k") - k_before;
  RunTraced(spec, config, cell, spec.run, "cmd", trace_path,
            {{"STEPFAULT_BB_FAULT", "#" + std::to_string(k) + ":" + std::to_string(err)}}, nullptr,
            nullptr, first);
  SF_ASSIGN_OR_RETURN(Trace t, ReadLife(trace_path, AckFile(cell, "cmd")));
  IOErrorRun out;
  out.from_start = first == 0;
  out.acked =
      AckedBefore(rec.trace, boundary, config.ack) + AckedBefore(t, t.records.size(), config.ack);
  // The failed call named as the recording names it: the recording up to the boundary, then this.
  Trace whole;
  whole.records.assign(records.begin(), records.begin() + static_cast<std::ptrdiff_t>(boundary));
  whole.records.insert(whole.records.end(), t.records.begin(), t.records.end());
  for (size_t i = boundary; i < whole.records.size(); ++i) {
    if (whole.records[i].op != "fault") continue;
    out.struck_point = faults::blackbox::CanonicalPoint(whole, i, spec.temp_names);
    break;
  }
  out.struck = out.struck_point == w.point;
  if (!out.struck && first > 0) return RunWithIOError(spec, config, cell, rec, w, err, true);
  return out;
}

LifeResult RecoverAndCheck(const scenarios::blackbox::Spec& spec, const SessionConfig& config,
                           const std::string& cell, const CrashState* state,
                           const std::string& acked,
                           const scenarios::blackbox::Reference* reference, bool trace_recovery) {
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
  std::ofstream(AckFile(cell, "recover"), std::ios::binary | std::ios::trunc);
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
      Result<Trace> t = ReadLife(trace_path, AckFile(cell, "recover"));
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
  const CommandOptions check_options{(fs::path(cell) / "work").string(),
                                     CommandEnv(spec, config, cell, ""), spec.timeout_s};
  scenarios::blackbox::CheckContext context{
      &spec, fs::weakly_canonical(dir).string(), reference, [&](const std::string& command) {
        CommandResult r = RunShell(command, check_options);
        return scenarios::blackbox::CheckCommandResult{r.exit_code, r.timed_out, std::move(r.out),
                                                       std::move(r.err)};
      }};
  // Whether a check reads the acknowledgements: an inotify watch on the file while they run.
  const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (watch >= 0) inotify_add_watch(watch, acked_path.c_str(), IN_OPEN);
  result.failures = scenarios::blackbox::RunChecks(context);
  if (watch >= 0) {
    alignas(inotify_event) char events[4096];
    result.acked_read = read(watch, events, sizeof events) > 0;
    close(watch);
  }
  return result;
}

}  // namespace stepfault::properties::blackbox
