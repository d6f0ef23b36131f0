// FilesKey (see kept_by_bytes.h): the exact key of some files of one directory.
#include "scenarios/kept_by_bytes.h"

#include <algorithm>
#include <vector>

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
  for (const std::string& name : children) {
    if (!name.starts_with(name_prefix)) continue;
    field(name);
    auto bytes = env->ReadFile(JoinPath(dir, name));
    if (!bytes.ok()) {
      field("-" + bytes.status().ToString());
      continue;
    }
    // field("+" + bytes), without copying the file's bytes into a temporary first.
    key += std::to_string(bytes->size() + 1);
    key += ":+";
    key += *bytes;
  }
  return key;
}

}  // namespace stepfault::scenarios
