// KillInjector: a real crash for a real process. At the N-th hit of a point it flushes stdout and
// stderr and sends itself SIGKILL, so the CLI's `--crash-at POINT[#N]` dies exactly as a machine
// would kill it: no destructor, no atexit handler, no buffered write after the point.
//
// Text form: POINT ['#' N], N >= 1 (default 1); the point matches as in plans (a point without a
// role matches every role of its name, counted across roles). It is both a Probe (engine, store
// and scenario points) and a FaultHook (ProbedEnv's fs points); before the kill every hit proceeds.
// Thread-safety: one thread drives it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engine/probe.h"
#include "engine/status.h"
#include "faults/fault_hook.h"
#include "faults/plan.h"

namespace stepfault::faults {

struct KillTarget {
  FaultPoint point;
  int64_t hit = 1;

  // "point" when hit is 1, else "point#hit".
  std::string Print() const;
  static Result<KillTarget> Parse(std::string_view text);
  friend bool operator==(const KillTarget&, const KillTarget&) = default;
};

class KillInjector : public Probe, public FaultHook {
 public:
  explicit KillInjector(KillTarget target) : target_(std::move(target)) {}
  static Result<std::unique_ptr<KillInjector>> Create(std::string_view text);

  // At the target hit, does not return (the process dies by SIGKILL).
  void Hit(std::string_view point) override;
  Decision OnPoint(std::string_view point) override;

  const KillTarget& target() const { return target_; }
  int64_t matching_hits() const { return matching_hits_; }

 private:
  void Visit(std::string_view point);

  KillTarget target_;
  int64_t matching_hits_ = 0;
};

}  // namespace stepfault::faults
