// The black-box trace: what libstepfault_preload.so recorded of one run, and its typed reader.
//
// FORMAT (version 1; docs/blackbox.md repeats it). A trace file is the header line
// "STEPFAULT-TRACE 1\n" followed by records, in the order the kernel applied the calls (the
// recorder appends each record while holding one cross-process lock around the call). A record is
//   "R " <body length, decimal> " " <CRC32C of the body, 8 lowercase hex digits> "\n" <body>
// and a body is one line of space-separated key=value fields (values percent-encode bytes <= ' ',
// '%', '=' and >= 0x7f), ending with "n=<data length>\n", followed by exactly that many data
// bytes (the bytes a write returned as written). Every body starts with op=, pid= and tid=.
// Ops: hello (a process started), open, write, fsync, rename, unlink, mkdir, rmdir, truncate,
// fallocate, link, symlink, syncfs, sync_file_range (from=, len=, flags=; a window
// fs.sync_file_range[path] only with all three wait flags), close, stdout (bytes the program wrote
// to fd 1 with write(2) while fd 1 was the command's own standard output: its acknowledgements
// when the program uses no acknowledgement file), ack (size=: the acknowledgement file
// STEPFAULT_ACK_FILE held that many bytes after a write or flush to it; the harness adds one after
// every command too), exit (written by the harness when a command ends;
// its window is proc.exit[cmdI]), failed (the call returned an error and changed nothing), fault
// (the harness failed the call: the ioerror run), incomplete (the recorder saw I/O it cannot
// model), volatile (path=: a writable shared mapping of a volatile file, not followed; pattern=:
// a glob of the spec's `volatile`, written by the harness at the start of every trace, so the
// trace says which files the crash model leaves out), msync (from=, len=, flags=; a window
// fs.msync[path] only with MS_SYNC). A record with a `w` field, other than failed and
// fault, is a window: the point "fs.<op>[<path role>]" the call was at. A write with synced=data
// (O_DSYNC, RWF_DSYNC) or synced=all (O_SYNC, RWF_SYNC) was durable when it returned (crash_state.h
// says what the model makes of it). Every record of a call at a window (its window record, or its
// failed or fault record) carries k=, the call's place among the run's calls at windows counted
// across processes: the live ioerror run fails the call with the window's k.
// says what the model makes of it). A write with map=1 holds pages of a writable MAP_SHARED mapping
// that changed since the recorder last knew the file's bytes, recorded at a flush point (msync,
// munmap, mremap, fsync/fdatasync of the file, an acknowledgement on stdout, execve, exit).
//
// Fields off= and size= are byte counts of 0..kMaxTraceFileBytes, and off + size + n stays within
// it. The reader rejects anything else with kCorruption naming the record index, the byte offset
// and what was wrong (a damaged or truncated trace is never half-used). Thread-safety: values.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace stepfault::faults::blackbox {

inline constexpr char kTraceHeader[] = "STEPFAULT-TRACE 1\n";
inline constexpr int kTraceVersion = 1;
// The largest offset + length (and truncate/fallocate size) a record may name: the crash-state
// model keeps files in memory, so larger files under test are not supported (a typed error).
inline constexpr uint64_t kMaxTraceFileBytes = uint64_t{1} << 30;

struct TraceRecord {
  std::string op;
  int64_t pid = 0;
  std::map<std::string, std::string> fields;  // every field but op, pid, tid, n
  std::string data;

  // The field's text ("" when absent) and its integer value (fallback when absent).
  std::string Get(const std::string& key) const;
  int64_t Int(const std::string& key, int64_t fallback = 0) const;
  // The window point ("" when this record is not a window).
  std::string WindowPoint() const;
};

struct Trace {
  std::vector<TraceRecord> records;
  // The acknowledgement file's bytes after the run (the session reads it beside the trace; the
  // `ack` records' sizes index into it). Empty when the program wrote none.
  std::string ack_log;
};

// One window of a trace: its id "point#occurrence" and the index of its record.
struct TraceWindow {
  std::string id, point;
  int occurrence = 0;
  size_t record = 0;
};

Result<Trace> ParseTrace(std::string_view text);
// One framed record, as the recorder writes it (the harness adds its own `exit` records this way).
std::string FrameRecord(const std::string& op, int64_t pid,
                        const std::vector<std::pair<std::string, std::string>>& fields,
                        std::string_view data);
Result<Trace> ReadTraceFile(const std::string& path);
// The windows in trace order; occurrences count per point from 1. Names a run makes up are
// canonicalised in window points, so that the windows and plans of two recordings of one program
// name the same calls: each path component of a window's role that matches one of `temp_names`
// (fnmatch globs over one name, e.g. "tmp_obj_*", tried in order) becomes the glob with its first
// '*' replaced by "@<k>" (or "@<k>" appended when it has none), k counting from 1 the distinct
// names of that directory the glob matched, in trace order; otherwise every decimal run of three
// digits or more equal to the pid of a recorded process (a `hello` record), and not next to a hex
// letter (a-f, A-F: then it is likely part of a hex number), becomes "@p<k>", k the process's place
// in hello order. The record index still leads to the real names.
std::vector<TraceWindow> WindowsOf(const Trace& trace,
                                   const std::vector<std::string>& temp_names = {});
// The canonical point (as WindowsOf names it) of the `w` field of record `record`, which may be a
// failed or fault record; "" when it has none.
std::string CanonicalPoint(const Trace& trace, size_t record,
                           const std::vector<std::string>& temp_names = {});
// The reasons the trace is incomplete ("mmap-shared-write: data.bin"), deduplicated, in order.
std::vector<std::string> IncompleteReasons(const Trace& trace);
// Files named by `volatile` path= records (mapped volatile files), deduplicated, in order.
std::vector<std::string> VolatileFiles(const Trace& trace);
// The globs of the trace's `volatile` pattern= records (the spec's `volatile`), in order.
std::vector<std::string> VolatilePatterns(const Trace& trace);
// Whether the file at `path` (a role) is volatile: its name ends in "-shm" (SQLite's shared-memory
// index, rebuilt from the WAL: always), or it matches one of `patterns` (fnmatch(3) without flags,
// so `*` matches `/` too). The recorder applies the same rule (preload_io.c is_volatile).
bool IsVolatilePath(const std::string& path, const std::vector<std::string>& patterns);

}  // namespace stepfault::faults::blackbox
