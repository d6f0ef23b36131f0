// FilesKey (see kept_by_bytes.h): the key of some files of one directory.
#include "scenarios/kept_by_bytes.h"

#include <algorithm>
#include <vector>

#include "faults/sim_fs.h"

// jemalloc's control interface, present only when the process runs on jemalloc (a weak reference:
// null otherwise).
extern "C" int mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen)
    __attribute__((weak));

namespace stepfault::scenarios {
namespace {

// This thread's allocated minus deallocated bytes so far, or nullopt without jemalloc.
std::optional<uint64_t> ThreadNetAllocated() {
  if (mallctl == nullptr) return std::nullopt;
  uint64_t allocated = 0, deallocated = 0;
  size_t size = sizeof(uint64_t);
  if (mallctl("thread.allocated", &allocated, &size, nullptr, 0) != 0) return std::nullopt;
  size = sizeof(uint64_t);
  if (mallctl("thread.deallocated", &deallocated, &size, nullptr, 0) != 0) return std::nullopt;
  return allocated - deallocated;  // both only grow; unsigned wrap-around keeps the difference
}

}  // namespace

AllocatedSince::AllocatedSince() : start_(ThreadNetAllocated()) {}

std::optional<size_t> AllocatedSince::Bytes() const {
  const std::optional<uint64_t> now = ThreadNetAllocated();
  if (!start_ || !now) return std::nullopt;
  const uint64_t held = *now - *start_;
  // Freed more than it allocated since (it released older memory): it holds nothing new.
  if (held > (uint64_t{1} << 62)) return 0;
  return static_cast<size_t>(held);
}

Result<std::string> FilesKey(Env* env, std::string_view salt, const std::string& dir,
                             std::string_view name_prefix) {
  std::string key;
  auto field = [&key](std::string_view v) {
    key += std::to_string(v.size());
    key += ':';
    key += v;
  };
  field(salt);
  field(dir);
  field(name_prefix);
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(dir));
  if (!exists) return key;
  SF_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  std::sort(children.begin(), children.end());
  // In the simulated world the hash kept on each file (no copy of its bytes); elsewhere, the same
  // hash of the bytes read.
  auto* sim = dynamic_cast<faults::SimFs*>(env);
  for (const std::string& name : children) {
    if (!name.starts_with(name_prefix)) continue;
    field(name);
    const std::string path = JoinPath(dir, name);
    Result<std::string> hash = Status::Internal("unread");
    if (sim != nullptr) {
      hash = sim->ReadFileHash(path);
    } else if (auto bytes = env->ReadFile(path); bytes.ok()) {
      hash = faults::HashBytes(*bytes);
    } else {
      hash = bytes.status();
    }
    field(hash.ok() ? "+" + *hash : "-" + hash.status().ToString());
  }
  return key;
}

}  // namespace stepfault::scenarios
