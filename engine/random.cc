// Rng, IdSource and the seed derivation.
#include "engine/random.h"

#include "engine/status.h"

namespace stepfault {
namespace {
std::string Hex128(uint64_t hi, uint64_t lo) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(32, '0');
  for (int i = 0; i < 16; ++i) out[15 - i] = kDigits[(hi >> (4 * i)) & 0xF];
  for (int i = 0; i < 16; ++i) out[31 - i] = kDigits[(lo >> (4 * i)) & 0xF];
  return out;
}
uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

uint64_t Hash64(std::string_view bytes, uint64_t seed) {
  uint64_t h = 0xcbf29ce484222325ULL ^ Mix64(seed);
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return Mix64(h);
}

uint64_t DeriveSeed(uint64_t parent, std::string_view label) { return Hash64(label, parent); }

Rng::Rng(uint64_t seed) {
  uint64_t x = seed;
  for (auto& s : s_) {
    x = Mix64(x);
    s = x;
  }
}

uint64_t Rng::Next() {
  const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = Rotl(s_[3], 45);
  return result;
}

uint64_t Rng::Uniform(uint64_t bound) {
  SF_CHECK(bound > 0);
  // Rejection sampling keeps the distribution exactly uniform.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  for (int i = 0; i < 1000; ++i) {
    uint64_t r = Next();
    if (r < limit) return r % bound;
  }
  SF_CHECK(false && "Rng::Uniform rejection bound hit");
  return 0;
}

bool Rng::Bernoulli(double p) {
  return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0) < p;
}

std::string IdSource::NewId() {
  uint64_t hi = rng_.Next();
  uint64_t lo = rng_.Next();
  return Hex128(hi, lo);
}

std::string DeriveId(uint64_t seed, std::string_view parts) {
  uint64_t hi = Hash64(parts, seed);
  uint64_t lo = Hash64(parts, Mix64(seed ^ 0x5bd1e995ULL));
  return Hex128(hi, lo);
}

}  // namespace stepfault
