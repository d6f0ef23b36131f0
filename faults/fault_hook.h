// The contract between the places where a fault can strike and the injector that decides.
//
// A fault point is named ("fs.rename[receipt]", "checkpoint.commit.before"). Engine, store and
// scenario code reach points through the engine's Probe seam; the simulated file system (and the
// SQLite VFS on it) asks a FaultHook before every operation, because only there can the answer be
// "fail this one operation" as well as "die here".
//
// A death (crash, power loss, or the fail-after-write exit) freezes the simulated world first and
// then unwinds the dying life with a CrashSignal. CrashSignal deliberately does not derive from
// std::exception, so code that catches std::exception (a handler failure) never swallows a death.
// The SQLite VFS, which must not throw through C frames, freezes and returns an I/O error instead;
// the frozen world then refuses every later operation, so nothing leaks past the point.
// Thread-safety: a world and its hook are driven by one thread.
#pragma once

#include <string>
#include <string_view>

#include "engine/status.h"

namespace stepfault::faults {

enum class DeathKind {
  kCrash,      // the process dies; everything written to files survives
  kPowerLoss,  // the machine dies; only what was fsynced (and dir-synced) survives
  kExit,       // the process exits with status 1 after its work committed (fail-after-write)
};

std::string_view DeathKindName(DeathKind kind);

// Thrown to unwind a life that died at `point`.
struct CrashSignal {
  DeathKind kind;
  std::string point;
};

// What the injector decides for one hit of one point.
struct Decision {
  enum class Kind { kProceed, kFail, kDie };
  Kind kind = Kind::kProceed;
  StatusCode fail_code = StatusCode::kIOError;  // kFail: kIOError (EIO) or kNoSpace (ENOSPC)
  DeathKind death = DeathKind::kCrash;          // kDie

  static Decision Proceed() { return {}; }
  static Decision Fail(StatusCode code) { return {Kind::kFail, code, DeathKind::kCrash}; }
  static Decision Die(DeathKind kind) { return {Kind::kDie, StatusCode::kIOError, kind}; }
};

class FaultHook {
 public:
  virtual ~FaultHook() = default;
  // Called before the operation at `point` happens. Counting hits is the hook's business.
  virtual Decision OnPoint(std::string_view point) = 0;
};

// Something that can be frozen at a death: after Freeze every operation is refused.
class Freezable {
 public:
  virtual ~Freezable() = default;
  virtual void Freeze(DeathKind kind, std::string_view point) = 0;
};

}  // namespace stepfault::faults
