// Path helpers and the atomic publish protocol shared by every durable writer.
#include "engine/env.h"

namespace stepfault {

std::string JoinPath(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string out(dir);
  if (out.back() != '/') out += '/';
  out += name;
  return out;
}

std::string DirName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

Status WritableFile::AppendParts(std::span<const std::string_view> parts) {
  if (parts.size() == 1) return Append(parts[0]);
  size_t total = 0;
  for (std::string_view p : parts) total += p.size();
  std::string joined;
  joined.reserve(total);
  for (std::string_view p : parts) joined.append(p);
  return Append(joined);
}

Status WriteFileAtomically(Env* env, const std::string& dir, const std::string& name,
                           std::string_view data) {
  return WriteFileAtomically(env, dir, name, std::span<const std::string_view>(&data, 1));
}

Status WriteFileAtomically(Env* env, const std::string& dir, const std::string& name,
                           std::span<const std::string_view> parts) {
  const std::string final_path = JoinPath(dir, name);
  const std::string tmp_path = final_path + std::string(kTempSuffix);
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(tmp_path));
  SF_RETURN_IF_ERROR(file->AppendParts(parts));
  SF_RETURN_IF_ERROR(file->Sync());
  SF_RETURN_IF_ERROR(file->Close());
  SF_RETURN_IF_ERROR(env->RenameFile(tmp_path, final_path));
  return env->SyncDir(dir);
}

Status MakeInheritedDurable(Env* env, const std::string& dir,
                            const std::vector<std::string>& file_names) {
  SF_ASSIGN_OR_RETURN(bool dir_exists, env->FileExists(dir));
  if (!dir_exists) return Status::Ok();  // nothing was inherited there
  for (const std::string& name : file_names) {
    const std::string path = JoinPath(dir, name);
    SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(path));
    if (!exists) continue;
    // Appendable: opens the existing file without changing a byte (writable would truncate).
    SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewAppendableFile(path));
    SF_RETURN_IF_ERROR(file->Sync());
    SF_RETURN_IF_ERROR(file->Close());
  }
  SF_RETURN_IF_ERROR(env->SyncDir(dir));
  const std::string parent = DirName(dir);
  if (parent == dir || parent == ".") return Status::Ok();
  return env->SyncDir(parent);
}

}  // namespace stepfault
