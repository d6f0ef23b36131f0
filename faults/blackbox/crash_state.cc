// The crash-state builder (see crash_state.h for the crash model it implements).
#include "faults/blackbox/crash_state.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace stepfault::faults::blackbox {
namespace {

namespace fs = std::filesystem;
constexpr uint64_t kSectorBytes = 512;
// Directory levels a state may have (PATH_MAX allows about 2048; no real tree under test is
// deeper).
constexpr int kMaxDepth = 256;
constexpr int64_t kRootDir = 0;
constexpr int64_t kMsSync = 4;  // MS_SYNC (Linux)

struct Entry {
  StateNode::Type type = StateNode::kFile;
  int64_t id = -1;     // file or directory id
  std::string target;  // symlink
};
struct Dir {
  std::map<std::string, Entry> cur, dur;
  bool changed = false;  // entries changed since the last journal commit (ext4-ordered, xfs)
  bool fresh = false;    // made since the last full commit, sync/syncfs (btrfs)
};
struct PendingWrite {
  int64_t seq = 0;
  uint64_t off = 0;
  std::string data;
};
// A metadata change of a file that a journal commit makes durable (ext4-ordered, xfs): a size
// change (truncate, fallocate), or an auto_da_alloc flush (ext4: `bytes` durable at the commit).
struct PendingMeta {
  int64_t seq = 0;
  bool flush = false;
  uint64_t size = 0;
  std::string bytes;
};
struct File {
  std::string cur, dur;
  std::vector<PendingWrite> unsynced;  // writes since the last sync, in order
  std::vector<PendingMeta> meta;       // since the last commit or sync of the file, in order
  bool changed = false;                // the inode changed since the last journal commit
  bool truncated_to_zero = false;      // ext4 auto_da_alloc: flushed at its next close
  bool fresh = false;                  // created since the last full commit (btrfs)
};

void WriteAt(std::string* bytes, uint64_t off, std::string_view data) {
  if (bytes->size() < off + data.size()) bytes->resize(off + data.size(), '\0');
  std::copy(data.begin(), data.end(), bytes->begin() + static_cast<std::ptrdiff_t>(off));
}

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser: the seed's choice of tearing
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

class Model {
 public:
  Model(const CrashState& initial, const CrashModelOptions& options)
      : options_(options),
        journal_(options.fs_model == PersistenceModel::kExt4Ordered ||
                 options.fs_model == PersistenceModel::kXfs),
        ext4_(options.fs_model == PersistenceModel::kExt4Ordered),
        btrfs_(options.fs_model == PersistenceModel::kBtrfs) {
    dirs_[kRootDir];
    for (const auto& [path, node] : initial.nodes) {  // map order: parents before children
      auto [parent, name] = Split(path);
      Entry e{node.type, -1, ""};
      if (node.type == StateNode::kDir) {
        e.id = NewDir(false);
      } else if (node.type == StateNode::kFile) {
        e.id = next_id_++;
        files_[e.id] = File{node.bytes, node.bytes, {}};
      } else {
        e.target = node.bytes;
      }
      if (parent >= 0) dirs_[parent].cur[name] = dirs_[parent].dur[name] = e;
    }
  }

  void Apply(const TraceRecord& r, int64_t seq) {
    const std::string& op = r.op;
    if (op == "open") return Open(r, seq);
    if (op == "close") return Close(r, seq);
    if (op == "write") return r.Get("synced").empty() ? Write(r, seq) : SyncedWrite(r, seq);
    if (op == "fsync") return Sync(r);
    if (op == "sync_file_range") return SyncRange(r, (r.Int("flags") & 7) == 7);
    if (op == "msync") return SyncRange(r, (r.Int("flags") & kMsSync) != 0);
    if (op == "volatile" && !r.Get("pattern").empty()) {
      volatile_patterns_.push_back(r.Get("pattern"));
      return;
    }
    if (op == "syncfs") return SyncAll();
    if (op == "rename") return Rename(r.Get("path"), r.Get("path2"), seq);
    if (op == "unlink" || op == "rmdir")
      return Remove(r.Get("path"), op == "unlink" && options_.unlink_durable_without_dir_fsync);
    if (op == "mkdir") return AddEntry(r.Get("path"), Entry{StateNode::kDir, NewDir(true), ""});
    if (op == "truncate") return Truncate(r, seq);
    if (op == "fallocate") return Fallocate(r, seq);
    if (op == "link") return Link(r.Get("path"), r.Get("path2"));
    if (op == "symlink")
      return AddEntry(r.Get("path2"), Entry{StateNode::kSymlink, -1, r.Get("target")});
  }

  CrashState Current() const {
    CrashState s;
    Walk(kRootDir, "", false, nullptr, &s);
    s.notes.insert(s.notes.begin(), notes_.begin(), notes_.end());
    return s;
  }

  // The durable tree, with the last unsynced write torn (kPowerLoss) or kept but its file's
  // earliest unsynced write dropped (kReorder).
  CrashState Durable(CrashKind kind, uint64_t seed, int64_t kept_sectors) const {
    std::map<int64_t, std::string> overrides;
    int64_t last_file = -1, last_seq = -1;
    for (const auto& [id, f] : files_) {
      if (!f.unsynced.empty() && f.unsynced.back().seq > last_seq) {
        last_seq = f.unsynced.back().seq;
        last_file = id;
      }
    }
    if (last_file >= 0) {
      const File& f = files_.at(last_file);
      std::string bytes = f.dur;
      if (kind == CrashKind::kReorder) {
        for (size_t i = 1; i < f.unsynced.size(); ++i)
          WriteAt(&bytes, f.unsynced[i].off, f.unsynced[i].data);
      } else {
        const PendingWrite& w = f.unsynced.back();
        uint64_t first = w.off / kSectorBytes;
        uint64_t last = (w.off + w.data.size() - 1) / kSectorBytes;
        uint64_t sectors = w.data.empty() ? 0 : last - first + 1;
        uint64_t k = kept_sectors >= 0
                         ? std::min<uint64_t>(static_cast<uint64_t>(kept_sectors), sectors)
                         : Mix(seed ^ Mix(static_cast<uint64_t>(last_seq))) % (sectors + 1);
        uint64_t end = std::min<uint64_t>(w.off + w.data.size(), (first + k) * kSectorBytes);
        if (end > w.off) WriteAt(&bytes, w.off, std::string_view(w.data).substr(0, end - w.off));
      }
      overrides[last_file] = bytes;
    }
    CrashState s;
    Walk(kRootDir, "", true, &overrides, &s);
    s.notes.insert(s.notes.begin(), notes_.begin(), notes_.end());
    return s;
  }

 private:
  std::pair<int64_t, std::string> Split(const std::string& path) const {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return {kRootDir, path};
    const Entry* e = Lookup(path.substr(0, slash));
    return {e && e->type == StateNode::kDir ? e->id : -1, path.substr(slash + 1)};
  }
  const Entry* Lookup(const std::string& path) const {
    static const Entry kRoot{StateNode::kDir, kRootDir, ""};
    if (path == "." || path.empty()) return &kRoot;
    auto [parent, name] = Split(path);
    if (parent < 0) return nullptr;
    const auto& cur = dirs_.at(parent).cur;
    auto it = cur.find(name);
    return it == cur.end() ? nullptr : &it->second;
  }
  int64_t NewDir(bool fresh) {
    int64_t id = next_id_++;
    dirs_[id].fresh = fresh;
    return id;
  }
  // `durable`: the entry is durable at once (a hazard: only a directory fsync makes it so).
  void AddEntry(const std::string& path, Entry e, bool durable = false) {
    auto [parent, name] = Split(path);
    if (parent < 0) return Note("no parent directory for " + path);
    if (durable) dirs_[parent].dur[name] = e;
    if (e.type == StateNode::kFile) files_[e.id].changed = true;  // a new link (nlink, ctime)
    dirs_[parent].changed = true;
    dirs_[parent].cur[name] = std::move(e);
  }
  void Remove(const std::string& path, bool durable) {
    auto [parent, name] = Split(path);
    if (parent < 0 || dirs_[parent].cur.erase(name) == 0) return Note("removed unknown " + path);
    dirs_[parent].changed = true;
    if (durable) dirs_[parent].dur.erase(name);
  }
  void Note(const std::string& what) {
    if (std::find(notes_.begin(), notes_.end(), what) == notes_.end()) notes_.push_back(what);
  }
  int64_t FileOf(const TraceRecord& r) {
    auto it = ino_.find(r.Int("ino", -1));
    if (it != ino_.end()) return it->second;
    const Entry* e = Lookup(r.Get("path"));
    if (e && e->type == StateNode::kFile) return e->id;
    Note("write to a file the trace never opened: " + r.Get("path"));
    int64_t id = next_id_++;
    files_[id];
    return id;
  }
  void Open(const TraceRecord& r, int64_t seq) {
    if (r.Int("dir")) return;
    const std::string path = r.Get("path");
    const Entry* e = Lookup(path);
    int64_t id;
    if (e && e->type == StateNode::kFile && !r.Int("created")) {
      id = e->id;
    } else {
      id = next_id_++;
      files_[id].fresh = true;
      AddEntry(path, Entry{StateNode::kFile, id, ""},
               r.Int("created") && options_.create_durable_without_dir_fsync);
    }
    ino_[r.Int("ino", -1)] = id;
    fds_[{r.pid, r.Int("fd", -1)}] = id;
    if (r.Int("trunc")) ResizeTo(id, 0, seq);
  }
  // ext4's auto_da_alloc: the close of a file truncated to zero from non-empty flushes its bytes,
  // durable at the next commit (the descriptor's file, else the path's).
  void Close(const TraceRecord& r, int64_t seq) {
    auto it = fds_.find({r.pid, r.Int("fd", -1)});
    int64_t id = -1;
    if (it != fds_.end()) {
      id = it->second;
      fds_.erase(it);
    } else if (const Entry* e = Lookup(r.Get("path")); e && e->type == StateNode::kFile) {
      id = e->id;
    }
    if (id < 0 || !files_.count(id)) return;
    File& f = files_[id];
    if (!ext4_ || !f.truncated_to_zero) return;
    f.truncated_to_zero = false;
    f.meta.push_back({seq, true, 0, f.cur});
  }
  // A size change of file `id` (truncate, O_TRUNC, fallocate): a metadata change a journal commit
  // makes durable; from non-empty to zero, ext4 flushes the file at its next close.
  void ResizeTo(int64_t id, uint64_t size, int64_t seq) {
    File& f = files_[id];
    if (ext4_ && size == 0 && !f.cur.empty()) f.truncated_to_zero = true;
    f.cur.resize(size, '\0');
    f.changed = true;
    if (journal_) f.meta.push_back({seq, false, size, ""});
  }
  void Write(const TraceRecord& r, int64_t seq) {
    File& f = files_[FileOf(r)];
    uint64_t off = static_cast<uint64_t>(std::max<int64_t>(0, r.Int("off")));
    if (r.Int("whole")) f.cur.clear();
    // A write of no bytes (a stdio snapshot of an empty stream) neither extends the file nor is a
    // write a power loss could tear: the last unsynced write stays the one before it (as SimFs).
    if (r.data.empty()) return;
    WriteAt(&f.cur, off, r.data);
    f.unsynced.push_back({seq, off, r.data});
    f.changed = true;  // mtime
  }
  // A write through an O_DSYNC/O_SYNC descriptor or with RWF_DSYNC/RWF_SYNC (synced=data|all) is
  // durable when it returns: as the write followed by fdatasync (fsync) of its file. The file's
  // entry in its directory is not made durable by it (that takes a directory fsync).
  void SyncedWrite(const TraceRecord& r, int64_t seq) {
    Write(r, seq);
    SyncFile(FileOf(r), r.Get("synced") == "data");
  }
  // sync_file_range with SYNC_FILE_RANGE_WAIT_BEFORE|WRITE|WAIT_AFTER (flags 7) makes the data of
  // [from, from + len) durable (len 0: to the end of the file): every unsynced write inside the
  // range reaches the durable bytes, in order, and is no longer unsynced. A write only partly in
  // the range, a truncation and the size a write outside it set stay as unsynced as before.
  // Without all three flags it is not a barrier and changes nothing. msync with MS_SYNC is the same
  // barrier for its range (Linux: vfs_fsync_range of the mapped range, data only); without MS_SYNC
  // it is none.
  void SyncRange(const TraceRecord& r, bool barrier) {
    if (!barrier) return;
    File& f = files_[FileOf(r)];
    const uint64_t from = static_cast<uint64_t>(std::max<int64_t>(0, r.Int("from")));
    const int64_t len = r.Int("len");
    std::vector<PendingWrite> still;
    for (PendingWrite& w : f.unsynced) {
      bool inside =
          w.off >= from && (len <= 0 || w.off + w.data.size() <= from + static_cast<uint64_t>(len));
      if (inside) {
        WriteAt(&f.dur, w.off, w.data);
      } else {
        still.push_back(std::move(w));
      }
    }
    f.unsynced = std::move(still);
  }
  void Sync(const TraceRecord& r) {
    if (r.Int("dir")) {
      const Entry* e = Lookup(r.Get("path"));
      if (!e || e->type != StateNode::kDir) return Note("dirsync of unknown " + r.Get("path"));
      Dir& d = dirs_[e->id];
      d.dur = d.cur;
      if (journal_ && d.changed) Commit();  // its changes are in the running transaction
      return;
    }
    SyncFile(FileOf(r), r.Int("data_only") != 0);
  }
  // fsync (data_only: fdatasync) of file `id`: its bytes durable; then what the model adds.
  void SyncFile(int64_t id, bool data_only) {
    File& f = files_[id];
    const bool resized = f.cur.size() != f.dur.size();
    const bool commit = journal_ && (resized || (!data_only && f.changed));
    f.dur = f.cur;
    f.unsynced.clear();
    f.meta.clear();
    f.truncated_to_zero = false;
    if (commit) Commit();
    if (btrfs_ && f.fresh) LogNames(id);
  }
  // A journal commit (ext4-ordered, xfs): every earlier metadata change, system-wide, in order.
  void Commit() {
    for (auto& [id, f] : files_) {
      for (PendingMeta& m : f.meta) {
        if (m.flush) {
          f.dur = std::move(m.bytes);
        } else {
          f.dur.resize(m.size, '\0');
        }
        // A write before the change is either in the flushed bytes or cut by the truncate.
        std::erase_if(f.unsynced, [&](const PendingWrite& w) { return w.seq < m.seq; });
      }
      f.meta.clear();
      f.changed = false;
    }
    for (auto& [id, d] : dirs_) {
      d.dur = d.cur;
      d.changed = false;
    }
  }
  // btrfs: the fsync of a file created since the last full commit logs its names, and each of
  // its ancestor directories made since then is created at log replay.
  void LogNames(int64_t file) {
    for (auto& [id, d] : dirs_) {
      bool named = false;
      for (const auto& [name, e] : d.cur) {
        if (e.type == StateNode::kFile && e.id == file) {
          d.dur[name] = e;
          named = true;
        }
      }
      if (named) LogAncestors(id);
    }
  }
  void LogAncestors(int64_t dir) {
    for (int depth = 0; dir != kRootDir && dirs_[dir].fresh && depth < kMaxDepth; ++depth) {
      int64_t parent = -1;
      for (auto& [id, d] : dirs_) {
        for (const auto& [name, e] : d.cur) {
          if (e.type == StateNode::kDir && e.id == dir) {
            d.dur[name] = e;
            parent = id;
          }
        }
      }
      if (parent < 0) return;
      dir = parent;
    }
  }
  void SyncAll() {
    for (auto& [id, f] : files_) {
      f.dur = f.cur;
      f.unsynced.clear();
      f.meta.clear();
      f.changed = f.truncated_to_zero = f.fresh = false;
    }
    for (auto& [id, d] : dirs_) {
      d.dur = d.cur;
      d.changed = d.fresh = false;
    }
  }
  void Rename(const std::string& from, const std::string& to, int64_t seq) {
    auto [fp, fname] = Split(from);
    auto [tp, tname] = Split(to);
    if (fp < 0 || tp < 0 || !dirs_[fp].cur.count(fname)) return Note("rename of unknown " + from);
    // The kernel refuses to move a directory into its own subtree (EINVAL); a trace that says it
    // did is not followed, since the tree would become a cycle.
    if (dirs_[fp].cur[fname].type == StateNode::kDir && to.starts_with(from + "/"))
      return Note("rename of directory " + from + " into itself (" + to + ") ignored");
    Entry e = dirs_[fp].cur[fname];
    // rename(2): when both names are links to the same file, nothing happens.
    auto target = dirs_[tp].cur.find(tname);
    if (e.type == StateNode::kFile && target != dirs_[tp].cur.end() &&
        target->second.type == StateNode::kFile && target->second.id == e.id)
      return;
    const bool over = target != dirs_[tp].cur.end();
    dirs_[fp].cur.erase(fname);
    dirs_[tp].cur[tname] = e;
    dirs_[fp].changed = dirs_[tp].changed = true;
    if (e.type == StateNode::kFile) {
      File& f = files_[e.id];
      f.changed = true;  // ctime
      // ext4's auto_da_alloc: a rename over an existing file flushes the source's data first.
      if (ext4_ && over) f.meta.push_back({seq, true, 0, f.cur});
    }
    if (options_.rename_durable_without_dir_fsync) {  // a hazard: both names durable at once
      dirs_[fp].dur.erase(fname);
      dirs_[tp].dur[tname] = e;
    }
  }
  void Link(const std::string& from, const std::string& to) {
    const Entry* e = Lookup(from);
    if (!e) return Note("link of unknown " + from);
    // No hard link to a directory (the kernel refuses with EPERM): it could make the tree a cycle.
    if (e->type == StateNode::kDir) return Note("hard link to directory " + from + " ignored");
    AddEntry(to, *e);
  }
  void Truncate(const TraceRecord& r, int64_t seq) {
    ResizeTo(FileOf(r), static_cast<uint64_t>(std::max<int64_t>(0, r.Int("size"))), seq);
  }
  void Fallocate(const TraceRecord& r, int64_t seq) {
    const int64_t id = FileOf(r);
    File& f = files_[id];
    int64_t mode = r.Int("mode"), off = r.Int("off"), len = r.Int("size");
    if (mode & 0x02) {  // FALLOC_FL_PUNCH_HOLE: zeros inside the current size
      for (int64_t i = off; i < off + len && i < static_cast<int64_t>(f.cur.size()); ++i)
        f.cur[i] = '\0';
    } else if (!(mode & 0x01) && static_cast<int64_t>(f.cur.size()) < off + len) {  // !KEEP_SIZE
      ResizeTo(id, static_cast<uint64_t>(off + len), seq);
    }
  }
  void Walk(int64_t dir, const std::string& prefix, bool durable,
            const std::map<int64_t, std::string>* overrides, CrashState* out) const {
    const Dir& d = dirs_.at(dir);
    for (const auto& [name, e] : durable ? d.dur : d.cur) {
      std::string path = prefix.empty() ? name : prefix + "/" + name;
      if (e.type == StateNode::kDir) {
        out->nodes[path] = StateNode{StateNode::kDir, ""};
        // Rename and Link above keep the tree acyclic; the depth bound is a second guard, so a
        // trace can never make the walk recurse without end.
        if (std::count(prefix.begin(), prefix.end(), '/') >= kMaxDepth) {
          out->notes.push_back("directory tree deeper than " + std::to_string(kMaxDepth) +
                               " levels at " + path + " cut");
          continue;
        }
        Walk(e.id, path, durable, overrides, out);
      } else if (e.type == StateNode::kSymlink) {
        out->nodes[path] = StateNode{StateNode::kSymlink, e.target};
      } else if (!IsVolatilePath(path, volatile_patterns_)) {
        const File& f = files_.at(e.id);
        auto ov =
            overrides ? overrides->find(e.id) : std::map<int64_t, std::string>::const_iterator();
        bool has = overrides && ov != overrides->end();
        out->nodes[path] = StateNode{StateNode::kFile, has ? ov->second : durable ? f.dur : f.cur};
      }
    }
  }

  const CrashModelOptions options_;
  const bool journal_, ext4_, btrfs_;  // the model's families (see PERSISTENCE MODELS)
  std::map<int64_t, Dir> dirs_;
  std::map<int64_t, File> files_;
  std::map<int64_t, int64_t> ino_;
  std::map<std::pair<int64_t, int64_t>, int64_t> fds_;  // (pid, fd) -> file, for close
  std::vector<std::string> notes_;
  std::vector<std::string> volatile_patterns_;  // the trace's `volatile pattern=` records
  int64_t next_id_ = 1;
};

struct HazardSwitch {
  const char* name;
  const char* meaning;
  bool CrashModelOptions::*field;
};
constexpr HazardSwitch kHazards[] = {
    {"rename-durable-without-dir-fsync",
     "the crash-state builder keeps a rename through a power loss without a directory fsync",
     &CrashModelOptions::rename_durable_without_dir_fsync},
    {"unlink-durable-without-dir-fsync",
     "the crash-state builder keeps an unlink through a power loss without a directory fsync",
     &CrashModelOptions::unlink_durable_without_dir_fsync},
    {"create-durable-without-dir-fsync",
     "the crash-state builder keeps a created file's name through a power loss without a "
     "directory fsync",
     &CrashModelOptions::create_durable_without_dir_fsync},
};

constexpr std::pair<PersistenceModel, const char*> kModels[] = {
    {PersistenceModel::kPosix, "posix"},
    {PersistenceModel::kExt4Ordered, "ext4-ordered"},
    {PersistenceModel::kXfs, "xfs"},
    {PersistenceModel::kBtrfs, "btrfs"},
};

}  // namespace

std::string_view PersistenceModelName(PersistenceModel model) {
  for (const auto& [m, name] : kModels)
    if (m == model) return name;
  return "posix";
}

const std::vector<PersistenceModel>& AllPersistenceModels() {
  static const std::vector<PersistenceModel>* all = [] {
    auto* v = new std::vector<PersistenceModel>();
    for (const auto& [m, name] : kModels) v->push_back(m);
    return v;
  }();
  return *all;
}

Result<PersistenceModel> ParsePersistenceModel(std::string_view name) {
  std::string names;
  for (const auto& [m, n] : kModels) {
    if (name == n) return m;
    names += std::string(names.empty() ? "" : ", ") + n;
  }
  return Status::InvalidArgument("unknown persistence model '" + std::string(name) +
                                 "'; the models are: " + names);
}

Status CrashModelOptions::Enable(std::string_view name) {
  std::string names;
  for (const HazardSwitch& h : kHazards) {
    if (name == h.name) {
      this->*(h.field) = true;
      return Status::Ok();
    }
    names += std::string(names.empty() ? "" : ", ") + h.name;
  }
  return Status::InvalidArgument("unknown crash-model hazard '" + std::string(name) +
                                 "'; the hazards are: " + names);
}

const std::vector<CrashModelHazard>& CrashModelHazards() {
  static const std::vector<CrashModelHazard>* list = [] {
    auto* v = new std::vector<CrashModelHazard>();
    for (const HazardSwitch& h : kHazards) v->push_back({h.name, h.meaning});
    return v;
  }();
  return *list;
}

uint64_t CrashState::Digest() const {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xFF) * 1099511628211ull;
  };
  for (const auto& [path, node] : nodes) {
    mix(path);
    mix(std::to_string(static_cast<int>(node.type)));
    mix(node.bytes);
  }
  return h;
}

Result<CrashState> LoadDirectory(const std::string& dir) {
  CrashState s;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string rel = fs::relative(it->path(), dir).string();
    fs::file_status st = it->symlink_status();
    if (fs::is_symlink(st)) {
      s.nodes[rel] = StateNode{StateNode::kSymlink, fs::read_symlink(it->path()).string()};
    } else if (fs::is_directory(st)) {
      s.nodes[rel] = StateNode{StateNode::kDir, ""};
    } else if (fs::is_regular_file(st)) {
      std::ifstream in(it->path(), std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      s.nodes[rel] = StateNode{StateNode::kFile, bytes.str()};
    } else {
      return Status::InvalidArgument(it->path().string() +
                                     " is neither a file, a directory nor a symlink");
    }
  }
  if (ec) return Status::IOError("cannot read " + dir + ": " + ec.message());
  return s;
}

CrashState BuildCrashState(const CrashState& initial, const Trace& trace, size_t upto_record,
                           CrashKind kind, uint64_t seed, int64_t kept_sectors,
                           const CrashModelOptions& options) {
  Model model(initial, options);
  size_t end = std::min(upto_record, trace.records.size());
  for (size_t i = 0; i < end; ++i) model.Apply(trace.records[i], static_cast<int64_t>(i));
  return kind == CrashKind::kCrash ? model.Current() : model.Durable(kind, seed, kept_sectors);
}

Status Materialise(const CrashState& state, const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec)) return Status::AlreadyExists(dir + " already exists");
  fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir + ": " + ec.message());
  for (const auto& [path, node] : state.nodes) {
    fs::path p = fs::path(dir) / path;
    if (node.type == StateNode::kDir) {
      fs::create_directories(p, ec);
    } else if (node.type == StateNode::kSymlink) {
      fs::create_symlink(node.bytes, p, ec);
    } else {
      std::ofstream out(p, std::ios::binary | std::ios::trunc);
      out.write(node.bytes.data(), static_cast<std::streamsize>(node.bytes.size()));
      if (!out) return Status::IOError("cannot write " + p.string());
    }
    if (ec) return Status::IOError("cannot create " + p.string() + ": " + ec.message());
  }
  return Status::Ok();
}

}  // namespace stepfault::faults::blackbox
