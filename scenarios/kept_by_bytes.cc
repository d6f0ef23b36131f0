// FilesKey (see kept_by_bytes.h): the key of some files of one directory.
#include "scenarios/kept_by_bytes.h"

#include <algorithm>
#include <vector>

#include "faults/sim_fs.h"

namespace stepfault::scenarios {

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
