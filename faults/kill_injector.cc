// KillInjector: parsing its target and killing the process at it.
#include "faults/kill_injector.h"

#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace stepfault::faults {

std::string KillTarget::Print() const {
  return hit == 1 ? point.Print() : point.Print() + "#" + std::to_string(hit);
}

Result<KillTarget> KillTarget::Parse(std::string_view text) {
  PlanScanner scan(text);
  KillTarget target;
  auto point = FaultPoint::ParseFrom(scan);
  if (!point.ok()) {
    return point.status().WithContext(
        "--crash-at expects POINT[#N], e.g. 'checkpoint.commit.before#2'");
  }
  target.point = std::move(point).value();
  if (scan.Accept('#')) {
    auto n = scan.Number("hit number after '#'", 1, kMaxTriggerCount);
    if (!n.ok()) return n.status().WithContext("--crash-at expects POINT[#N]");
    target.hit = static_cast<int64_t>(*n);
  }
  if (!scan.AtEnd()) {
    return scan
        .Error("unexpected " + scan.Found() + " after the point '" + target.point.Print() +
               "'; --crash-at expects POINT[#N], e.g. 'fs.rename[receipt]#2'")
        .WithContext("bad --crash-at");
  }
  return target;
}

Result<std::unique_ptr<KillInjector>> KillInjector::Create(std::string_view text) {
  SF_ASSIGN_OR_RETURN(KillTarget target, KillTarget::Parse(text));
  return std::make_unique<KillInjector>(std::move(target));
}

void KillInjector::Hit(std::string_view point) { Visit(point); }

Decision KillInjector::OnPoint(std::string_view point) {
  Visit(point);
  return Decision::Proceed();
}

void KillInjector::Visit(std::string_view point) {
  if (!target_.point.Matches(point)) return;
  if (++matching_hits_ != target_.hit) return;
  // What the process printed before the point is part of what an observer saw; flush it, then die
  // with no further user-space code running.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::kill(::getpid(), SIGKILL);
  // SIGKILL cannot be caught; should delivery be delayed, leave without running anything else.
  ::_exit(128 + SIGKILL);
}

}  // namespace stepfault::faults
