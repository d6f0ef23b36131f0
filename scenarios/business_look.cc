// LookOnce (see business_look.h): the key of a database's files and the look counters.
#include "scenarios/business_look.h"

#include <algorithm>
#include <atomic>
#include <vector>

namespace stepfault::scenarios {
namespace {

std::atomic<uint64_t> looks_ran{0};
std::atomic<uint64_t> looks_kept_hits{0};

}  // namespace

Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path,
                                     const std::string& salt) {
  std::string key;
  auto field = [&key](std::string_view v) {
    key += std::to_string(v.size());
    key += ':';
    key += v;
  };
  field(salt);
  field(db_path);
  const std::string dir = DirName(db_path);
  const std::string base = BaseName(db_path);
  SF_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  std::sort(children.begin(), children.end());
  for (const std::string& name : children) {
    if (!name.starts_with(base)) continue;
    field(name);
    auto bytes = env->ReadFile(JoinPath(dir, name));
    field(bytes.ok() ? "+" + *bytes : "-" + bytes.status().ToString());
  }
  return key;
}

LookCounts LookCountsForTesting() { return {looks_ran.load(), looks_kept_hits.load()}; }

void CountLook(bool hit) { (hit ? looks_kept_hits : looks_ran).fetch_add(1); }

}  // namespace stepfault::scenarios
