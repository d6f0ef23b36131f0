// SimFs::CrashClone (the possible world after a death), the damage helpers of the `corrupt` action
// and the inspection used by tests and oracles. The crash model is the prose in faults/sim_fs.h.
// Thread-safety: one thread drives a SimFs.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

// xxHash compiled into this file (no library to link, none for find_package(Stepfault) users).
#define XXH_INLINE_ALL
#include <xxhash.h>

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
  std::string image = inode.durable.ToString();
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
    if (last != cache->last_.end() && last->second->version == in.version) {
      copy = last->second;
    } else {
      copy = std::make_shared<SimInode>(in);
      copied += in.data.HeldBytes(&cache->counted_) + in.durable.HeldBytes(&cache->counted_) +
                in.pending_write_bytes.size();
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
    if (&in == torn.get()) {
      out->durable = SimImage(TornImage(in, torn_sectors));
    } else {
      out->durable = in.durable;
      if (in.hashed.version == in.version) {  // the durable bytes are hashed already
        out->hashed = {out->version, in.hashed.durable, in.hashed.durable, true};
      }
    }
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
      std::string().swap(inode->pending_write_bytes);
      inode->Touch();
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
  for (SimImage* image : {&inode->data, &inode->durable}) {
    char c = 0;
    if (image->Read(byte, 1, &c) != 1) continue;  // past the end of the durable bytes
    c = static_cast<char>(c ^ mask);
    image->Write(byte, std::string_view(&c, 1));
  }
  inode->Touch();
  return Status::Ok();
}

Status SimFs::TruncateTo(const std::string& path, uint64_t size) {
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindForDamage(*world_, path));
  if (size > inode->data.size()) {
    return Status::InvalidArgument("cannot truncate '" + path + "' to " + std::to_string(size) +
                                   " bytes: it has only " + std::to_string(inode->data.size()));
  }
  if (inode->data.size() > size) inode->data.Resize(size);
  if (inode->durable.size() > size) inode->durable.Resize(size);
  inode->Touch();
  return Status::Ok();
}

Status SimFs::ZeroRange(const std::string& path, uint64_t offset, uint64_t length) {
  SF_ASSIGN_OR_RETURN(SimInodePtr inode, FindForDamage(*world_, path));
  for (SimImage* image : {&inode->data, &inode->durable}) {
    if (offset >= image->size()) continue;
    const uint64_t n = std::min<uint64_t>(length, image->size() - offset);
    image->Write(offset, std::string(static_cast<size_t>(n), '\0'));
  }
  inode->Touch();
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
      return it->second.inode->durable.ToString();
    }
    if (!it->second.is_dir()) return missing;
    dir_path = JoinPath(dir_path, name);
    pos = slash + 1;
  }
  SF_CHECK(false && "path walk exceeded its bound");
  return missing;
}

uint64_t SimFs::HeldBytes() const {
  // What a map node, an inode and a directory cost besides their strings (libstdc++ on 64 bits,
  // rounded up to jemalloc's size classes).
  constexpr uint64_t kEntryBytes = 96;
  constexpr uint64_t kInodeBytes = 192;
  constexpr uint64_t kDirBytes = 160;
  std::set<const SimInode*> inodes;
  std::set<const void*> images;  // chunk lists and chunks counted
  uint64_t bytes = 0;
  auto image = [&](const SimImage& value) { bytes += value.HeldBytes(&images); };
  auto entries = [&](const std::map<std::string, SimEntry>& table) {
    for (const auto& [name, entry] : table) {
      bytes += kEntryBytes + name.capacity();
      if (entry.is_dir() || !inodes.insert(entry.inode.get()).second) continue;
      bytes += kInodeBytes + entry.inode->pending_write_bytes.capacity();
      image(entry.inode->data);
      image(entry.inode->durable);
    }
  };
  for (const auto& [path, dir] : world_->dirs) {
    bytes += kDirBytes + path.capacity();
    entries(dir.entries);
    entries(dir.durable);
  }
  return bytes;
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

// The 128-bit XXH3 hash of `bytes` (xxHash, header-only): the digest is taken after every death
// and for every reuse key, and the oracles' reads are keyed on file hashes, so hashing speed is a
// large part of an exploration (a word-at-a-time multiply-rotate hash of ours was a sixth of one;
// XXH3 is several times faster on whole files). XXH3's value is specified, the same on every
// platform and in every run.
std::pair<uint64_t, uint64_t> WideHash(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {h.low64, h.high64};
}

// Appends `v` in decimal, as std::to_string writes it.
void AppendDecimal(std::string* text, uint64_t v) {
  char buf[24];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  text->append(buf, static_cast<size_t>(r.ptr - buf));
}

// Appends "<size>:<h1>:<h2>;" (decimal) for bytes of `size` whose WideHash is `h`, formatted in
// place: the digest is taken several times per window and hashes hundreds of small words, so
// temporary strings were a third of its cost.
void AppendHashed(std::string* text, size_t size, std::pair<uint64_t, uint64_t> h) {
  AppendDecimal(text, size);
  *text += ':';
  AppendDecimal(text, h.first);
  *text += ':';
  AppendDecimal(text, h.second);
  *text += ';';
}

void AppendBlob(std::string* text, std::string_view bytes) {
  AppendHashed(text, bytes.size(), WideHash(bytes));
}

std::string Hex128(std::pair<uint64_t, uint64_t> h) {
  char out[33];
  std::snprintf(out, sizeof(out), "%016llx%016llx", static_cast<unsigned long long>(h.first),
                static_cast<unsigned long long>(h.second));
  return out;
}

// The inode's hashes at its version (SimInode::Hashed), computed afresh: its current bytes, and its
// durable ones unless equal (each image hashed once).
SimInode::Hashed HashesOf(const SimInode& inode) {
  SimInode::Hashed h;
  h.version = inode.version;
  h.data = inode.data.Hash();                    // each chunk's hash kept on it until it is written
  h.durable_same = inode.durable == inode.data;  // the same chunks unless written since a Sync
  h.durable = h.durable_same ? h.data : inode.durable.Hash();
  return h;
}

// The hashes kept on the inode, computed and kept first when they are not of its version.
const SimInode::Hashed& KeptHashesOf(const SimInode& inode) {
  if (inode.hashed.version != inode.version) inode.hashed = HashesOf(inode);
  return inode.hashed;
}

// An inode's part of the digest text: its current bytes, its durable bytes ("same;" when equal to
// the current ones: a blob's text always starts with a digit, this never does), whether it has a
// pending write and where, and that write's bytes.
void AppendDigestPart(std::string* text, const SimInode& inode, const SimInode::Hashed& h) {
  AppendHashed(text, inode.data.size(), h.data);
  if (h.durable_same) {
    *text += "same;";  // synced files: hash their bytes once
  } else {
    AppendHashed(text, inode.durable.size(), h.durable);
  }
  AppendBlob(text, std::to_string(inode.pending_write_seq != 0) + "@" +
                       std::to_string(inode.pending_write_offset));
  AppendBlob(text, inode.pending_write_bytes);
}

// Canonical description of a world for Digest(): inodes are numbered by first appearance while
// walking directories and entry tables in sorted order, so the numbering never depends on
// addresses; blobs enter through their length and two hashes.
class DigestWriter {
 public:
  void Blob(std::string_view bytes) { AppendBlob(&text_, bytes); }
  void Word(std::string_view word) { Blob(word); }
  void Inode(const SimInode& inode, const SimInode::Hashed& h) {
    AppendDigestPart(&text_, inode, h);
  }
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
  std::string Finish() const { return Hex128(WideHash(text_)); }

 private:
  std::string text_;
  std::string word_;                           // scratch for an entry's word, reused
  std::map<const SimInode*, size_t> numbers_;  // lookup only; never iterated
  std::vector<const SimInode*> order_;
};

std::string DigestOf(const SimWorld& world, bool keep) {
  DigestWriter w;
  for (const auto& [path, dir] : world.dirs) {
    w.Word("dir " + path);
    w.Entries(dir.entries);
    w.Entries(dir.durable);
  }
  // Pending writes in sequence order (the last is what a power loss tears); gone inodes count.
  std::string pending;
  for (const auto& [seq, weak] : world.pending_writes) {
    SimInodePtr inode = weak.lock();
    pending += inode == nullptr ? "gone," : std::to_string(w.Number(inode.get())) + ",";
  }
  w.Word("pending " + pending);
  for (size_t i = 0; i < w.order().size(); ++i) {  // order() may grow while numbering: none here
    const SimInode& inode = *w.order()[i];
    w.Inode(inode, keep ? KeptHashesOf(inode) : HashesOf(inode));
  }
  w.Word(world.frozen ? "frozen" : "live");
  return w.Finish();
}

}  // namespace

std::string SimFs::Digest() const { return DigestOf(*world_, /*keep=*/true); }

std::string SimFs::DigestFromScratch() const { return DigestOf(*world_, /*keep=*/false); }

std::string HashBytes(std::string_view bytes) { return Hex128(SimImage::HashOf(bytes)); }

std::string CurrentBytesHash(const SimInode& inode) { return Hex128(KeptHashesOf(inode).data); }

}  // namespace stepfault::faults
