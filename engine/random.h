// Seeded randomness and ids. One root seed; every component seed derives from it by label, so a
// failure replays from the root seed alone. Nothing here reads the clock or the OS.
// Thread-safety: Rng and IdSource are not thread-safe; DeriveSeed and DeriveId are pure.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace stepfault {

// SplitMix64 step: a well-mixed 64-bit hash of x.
uint64_t Mix64(uint64_t x);
// A 64-bit hash of bytes (FNV-1a folded through Mix64); stable across platforms and runs.
uint64_t Hash64(std::string_view bytes, uint64_t seed = 0);
// The seed of the component named `label` under `parent`.
uint64_t DeriveSeed(uint64_t parent, std::string_view label);

// xoshiro256** seeded through SplitMix64.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t Next();
  // Uniform in [0, bound); REQUIRES: bound > 0.
  uint64_t Uniform(uint64_t bound);
  // True with probability p.
  bool Bernoulli(double p);

 private:
  uint64_t s_[4];
};

// 32 lowercase hex characters (the shape of a GUID in "N" format), from a seeded stream.
class IdSource {
 public:
  explicit IdSource(uint64_t seed) : rng_(seed) {}
  std::string NewId();

 private:
  Rng rng_;
};

// A 32-hex id that is a pure function of the seed and the parts; used where an id must not depend
// on the order in which concurrent receivers happened to run (request ids).
std::string DeriveId(uint64_t seed, std::string_view parts);

}  // namespace stepfault
