// SimFs::CrashClone (the possible world after a death), the damage helpers of the `corrupt` action
// and the inspection used by tests and oracles. The crash model is the prose in faults/sim_fs.h.
// Thread-safety: one thread drives a SimFs.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "engine/random.h"
#include "faults/sim_fs.h"
#include "faults/sim_fs_internal.h"

namespace stepfault::faults {
namespace {

// Copies inodes once each, so names sharing an inode (hard links) keep sharing it in the clone.
class InodeCopier {
 public:
  explicit InodeCopier(std::function<SimInodePtr(const SimInode&)> make) : make_(std::move(make)) {}
  SimInodePtr Copy(const SimInodePtr& inode) {
    if (inode == nullptr) return nullptr;
    auto [it, inserted] = copies_.try_emplace(inode.get());
    if (inserted) it->second = make_(*inode);
    return it->second;
  }
  SimInodePtr Find(const SimInode* inode) const {
    auto it = copies_.find(inode);
    return it == copies_.end() ? nullptr : it->second;
  }

 private:
  std::function<SimInodePtr(const SimInode&)> make_;
  std::map<const SimInode*, SimInodePtr> copies_;  // lookup only; never iterated
};

std::map<std::string, SimEntry> CopyEntries(const std::map<std::string, SimEntry>& entries,
                                            InodeCopier& copier) {
  std::map<std::string, SimEntry> out;
  for (const auto& [name, entry] : entries) out.emplace(name, SimEntry{copier.Copy(entry.inode)});
  return out;
}

// The durable image of `inode` with the first `sectors` sectors of its pending write applied.
std::string TornImage(const SimInode& inode, uint64_t sectors) {
  std::string image = inode.durable;
  const uint64_t begin = inode.pending_write_offset;
  const uint64_t end_of_write = begin + inode.pending_write_bytes.size();
  const uint64_t end =
      std::min(end_of_write, (begin / kSimSectorBytes + sectors) * kSimSectorBytes);
  if (end <= begin) return image;
  if (image.size() < end) image.resize(end, '\0');
  image.replace(begin, end - begin, inode.pending_write_bytes, 0, end - begin);
  return image;
}

uint64_t SectorCount(const SimInode& inode) {
  if (inode.pending_write_bytes.empty()) return 0;
  const uint64_t first = inode.pending_write_offset / kSimSectorBytes;
  const uint64_t last =
      (inode.pending_write_offset + inode.pending_write_bytes.size() - 1) / kSimSectorBytes;
  return last - first + 1;
}

}  // namespace

namespace {

// Everything of `from` that a crash keeps, into `clone`, each file through `copier`.
void CopyWorld(const SimWorld& from, InodeCopier& copier, SimWorld* clone) {
  for (const auto& [path, dir] : from.dirs) {
    SimDir& out = clone->dirs[path];
    out.entries = CopyEntries(dir.entries, copier);
    out.durable = CopyEntries(dir.durable, copier);
    out.changed = dir.changed;
  }
  for (const auto& [seq, weak] : from.pending_writes) {
    SimInodePtr original = weak.lock();
    clone->pending_writes[seq] = original ? copier.Find(original.get()) : nullptr;
  }
}

bool SameFile(const SimInode& a, const SimInode& b) {
  return a.pending_write_seq == b.pending_write_seq &&
         a.pending_write_offset == b.pending_write_offset && a.data == b.data &&
         a.durable == b.durable && a.pending_write_bytes == b.pending_write_bytes;
}

}  // namespace

std::unique_ptr<SimFs> SimFs::CopySharing(CopyCache* cache) const {
  auto clone = std::make_shared<SimWorld>();
  clone->classifier = world_->classifier;
  clone->write_seq = world_->write_seq;
  std::map<const SimInode*, SimInodePtr> copies;
  uint64_t copied = 0;
  InodeCopier copier([&](const SimInode& in) {
    SimInodePtr copy;
    auto last = cache->last_.find(&in);
    if (last != cache->last_.end() && SameFile(in, *last->second)) {
      copy = last->second;
    } else {
      copy = std::make_shared<SimInode>(in);
      copied += in.data.size() + in.durable.size();
    }
    copies[&in] = copy;
    return copy;
  });
  CopyWorld(*world_, copier, clone.get());
  cache->last_ = std::move(copies);
  cache->last_copied_bytes_ = copied;
  return std::unique_ptr<SimFs>(new SimFs(std::move(clone)));
}

std::unique_ptr<SimFs> SimFs::CrashClone(DeathKind kind, uint64_t seed) const {
  auto clone = std::make_shared<SimWorld>();
  clone->classifier = world_->classifier;
  clone->write_seq = world_->write_seq;
  if (kind != DeathKind::kPowerLoss) {
    InodeCopier copier([](const SimInode& in) { return std::make_shared<SimInode>(in); });
    CopyWorld(*world_, copier, clone.get());
    return std::unique_ptr<SimFs>(new SimFs(std::move(clone)));
  }

  // Power loss: the tree of durable entries, each file at its durable bytes, the system-wide last
  // unsynced write torn at a seed-chosen sector prefix.
  SimInodePtr torn;
  uint64_t torn_sectors = 0;
  if (!world_->pending_writes.empty()) {
    torn = world_->pending_writes.rbegin()->second.lock();
    if (torn != nullptr)
      torn_sectors = Rng(DeriveSeed(seed, "simfs.tear")).Uniform(SectorCount(*torn) + 1);
  }
  InodeCopier copier([&](const SimInode& in) {
    auto out = std::make_shared<SimInode>();
    out->durable = &in == torn.get() ? TornImage(in, torn_sectors) : in.durable;
    out->data = out->durable;
    return out;
  });
  std::vector<std::string> pending_dirs{"/"};
  for (size_t guard = 0; !pending_dirs.empty(); ++guard) {
    SF_CHECK(guard <= world_->dirs.size());  // each directory is visited once
    std::string path = std::move(pending_dirs.back());
    pending_dirs.pop_back();
    auto it = world_->dirs.find(path);
    SF_CHECK(it != world_->dirs.end());
    SimDir& out = clone->dirs[path];
    out.durable = CopyEntries(it->second.durable, copier);
    out.entries = out.durable;
    for (const auto& [name, entry] : out.durable) {
      if (entry.is_dir()) pending_dirs.push_back(JoinPath(path, name));
    }
  }
  return std::unique_ptr<SimFs>(new SimFs(std::move(clone)));
}

namespace {

Result<SimInodePtr> FindForDamage(SimWorld& world, const std::string& path) {
  SF_RETURN_IF_ERROR(world.Enter());
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(path));
  auto dir = world.dirs.find(DirName(norm));
  if (dir != world.dirs.end()) {
    auto it = dir->second.entries.find(BaseName(norm));
    if (it != dir->second.entries.end() && !it->second.is_dir()) {
      SimInodePtr inode = it->second.inode;
      // Damage is durable: a later power loss must not tear the old bytes back in.
      if (inode->pending_write_seq != 0) world.pending_writes.erase(inode->pending_write_seq);
      inode->pending_write_seq = 0;
      inode->pending_write_bytes.clear();
      return inode;
    }
  }
  return Status::NotFound("cannot damage '" + norm + "': no such file in the simulated world");
}

}  // namespace

Status SimFs::FlipBit(const std::string& path, uint64_t bit_index) {
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindForDamage(*world_, path));
  const uint64_t byte = bit_index / 8;
  if (byte >= inode->data.size()) {
    return Status::InvalidArgument("bit " + std::to_string(bit_index) + " is past the end of '" +
                                   path + "' (" + std::to_string(inode->data.size()) + " bytes)");
  }
  const char mask = static_cast<char>(1u << (bit_index % 8));
  inode->data[byte] ^= mask;
  if (byte < inode->durable.size()) inode->durable[byte] ^= mask;
  return Status::Ok();
}

Status SimFs::TruncateTo(const std::string& path, uint64_t size) {
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindForDamage(*world_, path));
  if (size > inode->data.size()) {
    return Status::InvalidArgument("cannot truncate '" + path + "' to " + std::to_string(size) +
                                   " bytes: it has only " + std::to_string(inode->data.size()));
  }
  inode->data.resize(size);
  if (inode->durable.size() > size) inode->durable.resize(size);
  return Status::Ok();
}

Status SimFs::ZeroRange(const std::string& path, uint64_t offset, uint64_t length) {
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindForDamage(*world_, path));
  for (std::string* image : {&inode->data, &inode->durable}) {
    if (offset >= image->size()) continue;
    const uint64_t n = std::min<uint64_t>(length, image->size() - offset);
    std::fill_n(image->begin() + static_cast<std::ptrdiff_t>(offset), n, '\0');
  }
  return Status::Ok();
}

Result<std::string> SimFs::DurableBytes(const std::string& path) const {
  SF_ASSIGN_OR_RETURN(std::string norm, NormalizeSimPath(path));
  const Status missing = Status::NotFound("'" + norm + "' would not survive a power loss now");
  // Walk the durable entries from the root, one component at a time.
  std::string dir_path = "/";
  size_t pos = 1;
  for (size_t guard = 0; guard <= norm.size(); ++guard) {
    auto dir = world_->dirs.find(dir_path);
    if (dir == world_->dirs.end()) return missing;
    size_t slash = norm.find('/', pos);
    const bool last = slash == std::string::npos;
    std::string name = norm.substr(pos, last ? std::string::npos : slash - pos);
    auto it = dir->second.durable.find(name);
    if (it == dir->second.durable.end()) return missing;
    if (last) {
      if (it->second.is_dir()) return missing;
      return it->second.inode->durable;
    }
    if (!it->second.is_dir()) return missing;
    dir_path = JoinPath(dir_path, name);
    pos = slash + 1;
  }
  SF_CHECK(false && "path walk exceeded its bound");
  return missing;
}

std::vector<std::string> SimFs::ListAllFiles() const {
  std::vector<std::string> files;
  for (const auto& [path, dir] : world_->dirs) {
    for (const auto& [name, entry] : dir.entries) {
      if (!entry.is_dir()) files.push_back(JoinPath(path, name));
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

// Two independent 64-bit hashes of `bytes` in one pass over 8-byte words (the digest is taken
// after every death and for every reuse key, so byte-at-a-time hashing of whole files was a fifth
// of an exploration). Words are little-endian (loaded whole where the machine is little-endian,
// assembled byte by byte elsewhere), so the value is the same on every platform.
std::pair<uint64_t, uint64_t> WideHash(std::string_view bytes) {
  uint64_t a = Mix64(bytes.size() ^ 0x9e3779b97f4a7c15ULL);
  uint64_t b = Mix64(bytes.size() ^ 0xc2b2ae3d27d4eb4fULL);
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t n = bytes.size();
  auto step = [&](uint64_t w) {
    a = std::rotl((a ^ w) * 0x87c37b91114253d5ULL, 31);
    b = std::rotl((b ^ w) * 0x4cf5ad432745937fULL, 29) + a;
  };
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w = 0;
    if constexpr (std::endian::native == std::endian::little) {
      std::memcpy(&w, p, 8);  // the same little-endian word as the loop below, in one load
    } else {
      for (int i = 7; i >= 0; --i) w = (w << 8) | p[i];
    }
    step(w);
  }
  uint64_t tail = 0;
  for (size_t i = n; i > 0; --i) tail = (tail << 8) | p[i - 1];
  step(tail ^ (static_cast<uint64_t>(n) << 56));
  return {Mix64(a ^ Mix64(b)), Mix64(b + 0x165667b19e3779f9ULL)};
}

// Canonical description of a world for Digest(): inodes are numbered by first appearance while
// walking directories and entry tables in sorted order, so the numbering never depends on
// addresses; blobs enter through their length and two hashes.
class DigestWriter {
 public:
  // Appends "<size>:<h1>:<h2>;" (decimal), formatted in place: the digest is taken several times
  // per window and hashes hundreds of small words, so temporary strings were a third of its cost.
  void Blob(std::string_view bytes) {
    const auto [h1, h2] = WideHash(bytes);
    Decimal(bytes.size());
    text_ += ':';
    Decimal(h1);
    text_ += ':';
    Decimal(h2);
    text_ += ';';
  }
  void Word(std::string_view word) { Blob(word); }
  // A blob equal to the last one (a blob's text always starts with a digit, this never does).
  void SameAsLast() { text_ += "same;"; }
  size_t Number(const SimInode* inode) {
    auto [it, inserted] = numbers_.try_emplace(inode, order_.size());
    if (inserted) order_.push_back(inode);
    return it->second;
  }
  void Entries(const std::map<std::string, SimEntry>& entries) {
    Word("entries " + std::to_string(entries.size()));
    for (const auto& [name, entry] : entries) {
      Word(name);
      if (entry.is_dir()) {
        Word("dir");
      } else {
        word_.assign("inode ");
        word_ += std::to_string(Number(entry.inode.get()));
        Word(word_);
      }
    }
  }
  const std::vector<const SimInode*>& order() const { return order_; }
  std::string Finish() const {
    char out[33];
    const auto [h1, h2] = WideHash(text_);
    std::snprintf(out, sizeof(out), "%016llx%016llx", static_cast<unsigned long long>(h1),
                  static_cast<unsigned long long>(h2));
    return out;
  }

 private:
  // Appends `v` in decimal, as std::to_string writes it.
  void Decimal(uint64_t v) {
    char buf[24];
    const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
    text_.append(buf, static_cast<size_t>(r.ptr - buf));
  }

  std::string text_;
  std::string word_;                           // scratch for an entry's word, reused
  std::map<const SimInode*, size_t> numbers_;  // lookup only; never iterated
  std::vector<const SimInode*> order_;
};

}  // namespace

std::string SimFs::Digest() const {
  DigestWriter w;
  for (const auto& [path, dir] : world_->dirs) {
    w.Word("dir " + path);
    w.Entries(dir.entries);
    w.Entries(dir.durable);
  }
  // Pending writes in sequence order (the last is what a power loss tears); gone inodes count.
  std::string pending;
  for (const auto& [seq, weak] : world_->pending_writes) {
    SimInodePtr inode = weak.lock();
    pending += inode == nullptr ? "gone," : std::to_string(w.Number(inode.get())) + ",";
  }
  w.Word("pending " + pending);
  for (size_t i = 0; i < w.order().size(); ++i) {  // order() may grow while numbering: none here
    const SimInode& inode = *w.order()[i];
    w.Blob(inode.data);
    if (inode.durable == inode.data) {
      w.SameAsLast();  // synced files: hash their bytes once
    } else {
      w.Blob(inode.durable);
    }
    w.Word(std::to_string(inode.pending_write_seq != 0) + "@" +
           std::to_string(inode.pending_write_offset));
    w.Blob(inode.pending_write_bytes);
  }
  w.Word(world_->frozen ? "frozen" : "live");
  return w.Finish();
}

}  // namespace stepfault::faults
