// Probe: named fault points. The engine, its stores and the scenarios call
// probe->Hit(points::kName) at the points where an interruption matters. The default probe does
// nothing (one virtual call); the fault injector in faults/ is a Probe that counts hits and acts on
// them. Every point name is listed, with what it means, in the registry in faults/points.cc.
//
// A probe may not return normally: an injected crash unwinds the caller by throwing (never through
// C code). Code between two probes must therefore be exception-safe (RAII), and nothing in the
// engine catches exceptions it does not know.
// Thread-safety: the engine calls Hit from the thread that drives the run.
#pragma once

#include <string_view>

namespace stepfault {

class Probe {
 public:
  virtual ~Probe() = default;
  virtual void Hit(std::string_view point) { (void)point; }
};

// A process-wide probe that does nothing.
Probe* NullProbe();

}  // namespace stepfault
