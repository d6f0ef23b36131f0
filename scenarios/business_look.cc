// LookOnce (see business_look.h): the key of a database's files and the look counters.
#include "scenarios/business_look.h"

#include <atomic>

namespace stepfault::scenarios {
namespace {

std::atomic<uint64_t> looks_ran{0};
std::atomic<uint64_t> looks_kept_hits{0};

}  // namespace

Result<std::string> DatabaseFilesKey(Env* env, const std::string& db_path,
                                     const std::string& salt) {
  return FilesKey(env, salt, DirName(db_path), BaseName(db_path));
}

LookCounts LookCountsForTesting() { return {looks_ran.load(), looks_kept_hits.load()}; }

void CountLook(bool hit) { (hit ? looks_kept_hits : looks_ran).fetch_add(1); }

}  // namespace stepfault::scenarios
