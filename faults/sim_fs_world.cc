// The simulated world's fault-point gate, freezing and the write/sync bookkeeping of the crash
// model (see faults/sim_fs.h). Thread-safety: one thread drives a world.
#include <atomic>
#include <cstring>

#include "faults/sim_fs_internal.h"

namespace stepfault::faults {

uint64_t SimInode::NextVersion() {
  static std::atomic<uint64_t> next{1};  // versions of all worlds of the process, never 0
  return next.fetch_add(1, std::memory_order_relaxed);
}

Status SimWorld::Enter() {
  if (frozen) {
    return Status::FailedPrecondition("simulated world is frozen after " +
                                      std::string(DeathKindName(frozen_kind)) + " at " +
                                      frozen_point);
  }
  ++op_count;
  return Status::Ok();
}

Status SimWorld::Point(std::string_view fs_point, std::string_view role) {
  SF_RETURN_IF_ERROR(Enter());
  if (hook == nullptr) return Status::Ok();
  std::string point(fs_point);
  point.append("[").append(role).append("]");
  Decision decision = hook->OnPoint(point);
  switch (decision.kind) {
    case Decision::Kind::kProceed:
      return Status::Ok();
    case Decision::Kind::kFail: {
      const char* what = decision.fail_code == StatusCode::kNoSpace ? "ENOSPC" : "EIO";
      return Status(decision.fail_code, std::string("injected ") + what + " at " + point,
                    /*injected=*/true);
    }
    case Decision::Kind::kDie:
      Freeze(decision.death, point);
      throw CrashSignal{decision.death, point};
  }
  SF_CHECK(false && "unknown Decision::Kind");
  return Status::Internal("unreachable");
}

std::string SimWorld::Role(const std::string& path) const {
  return classifier ? classifier(path) : std::string("file");
}

void SimWorld::Freeze(DeathKind kind, std::string_view point) {
  if (frozen) return;  // the first death wins
  frozen = true;
  frozen_kind = kind;
  frozen_point = std::string(point);
}

void SimWorld::Write(const SimInodePtr& inode, uint64_t offset, std::string_view bytes) {
  if (bytes.empty()) return;
  inode->data.Write(offset, bytes);  // the chunks it touches copied first when shared
  if (inode->pending_write_seq != 0) pending_writes.erase(inode->pending_write_seq);
  inode->pending_write_seq = ++write_seq;
  inode->pending_write_offset = offset;
  // Only this write's bytes are held: the buffer of a larger earlier write (a whole checkpoint
  // file) would otherwise stay allocated for as long as the file lives.
  if (inode->pending_write_bytes.capacity() > 2 * bytes.size() + 64) {
    std::string().swap(inode->pending_write_bytes);
  }
  inode->pending_write_bytes.assign(bytes.data(), bytes.size());
  pending_writes[inode->pending_write_seq] = inode;
  inode->Touch();
}

void SimWorld::SyncInode(const SimInodePtr& inode) {
  inode->durable = inode->data;  // shared: the next write to the file copies it
  if (inode->pending_write_seq != 0) pending_writes.erase(inode->pending_write_seq);
  inode->pending_write_seq = 0;
  inode->pending_write_offset = 0;
  std::string().swap(inode->pending_write_bytes);  // released, not only emptied
  inode->Touch();
}

Result<std::string> NormalizeSimPath(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 1);  // never longer than the path plus a leading '/': one allocation
  size_t pos = 0;
  // Each iteration consumes one component; a path has at most path.size() components.
  for (size_t guard = 0; pos <= path.size(); ++guard) {
    SF_CHECK(guard <= path.size() + 1);
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view part = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return Status::InvalidArgument("simulated path '" + std::string(path) +
                                     "' contains '..'; pass a normalized absolute path");
    }
    out += '/';
    out.append(part);
  }
  if (out.empty()) out = "/";
  return out;
}

}  // namespace stepfault::faults
