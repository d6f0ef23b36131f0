#include "engine/probe.h"

namespace stepfault {
Probe* NullProbe() {
  static Probe* probe = new Probe();
  return probe;
}
}  // namespace stepfault
