// Forwarding header: the black-box plan grammar is faults/blackbox/plan.h. It stays only while
// properties/blackbox/explore_run.cc (another change owns it) includes it for IsCrashLike; remove
// it once that file includes faults/blackbox/plan.h.
#pragma once

#include "faults/blackbox/plan.h"

namespace stepfault::properties::blackbox {

using faults::blackbox::IsCrashLike;

}  // namespace stepfault::properties::blackbox
