// SimImage: the bytes of one simulated file image (faults/sim_fs_internal.h: a file's current or
// durable bytes), held as fixed-size chunks shared copy on write at two levels: copying an image
// copies one pointer (a sync, a crash clone, a recorded hit's copy), and a write to an image that
// is shared copies its list of chunk pointers and then only the chunks the write touches. A file
// image held as one string was copied whole by the first write after each copy: an append of a
// 4 KB frame to a 4 MB SQLite WAL after a recorded hit copied 4 MB (issue 27: recordings and kept
// worlds of WAL stores held hundreds of MB of such copies).
// Thread-safety: an image is a value (one writer, or any number of readers); images that share
// chunks may be used from different threads, because a shared list or chunk is never written: a
// write copies it first unless this image is its sole owner.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stepfault::faults {

class SimImage {
 public:
  // Chunk i holds the bytes [i * kChunkBytes, (i + 1) * kChunkBytes); the last one may be shorter.
  static constexpr size_t kChunkBytes = 16 * 1024;

  SimImage() = default;
  explicit SimImage(std::string_view bytes);

  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Copies up to n bytes at offset into out; returns how many there were.
  size_t Read(uint64_t offset, size_t n, char* out) const;
  std::string ToString() const;
  // Writes bytes at offset; a gap past the end reads as zero bytes.
  void Write(uint64_t offset, std::string_view bytes);
  // Cuts or zero-extends to size bytes.
  void Resize(uint64_t size);

  // Calls f(std::string_view) on the bytes chunk by chunk, in order (reading without a copy).
  template <typename F>
  void ForEachSpan(F&& f) const {
    if (chunks_ == nullptr) return;
    for (const auto& chunk : *chunks_) f(std::string_view(chunk->bytes));
  }

  // A 128-bit hash of the bytes: the XXH3-128 of each chunk, kept on the chunk until it is
  // written, combined by XXH3-128 (seeded with the size) over those hashes in order. So bytes are
  // hashed again only where they were written: the world's digest after every death and the
  // oracles' read keys rehashed whole SQLite WAL files after each append of a frame (a seventh of a
  // depth-2 exploration of fan-in over SQLite). A function of the bytes alone (the chunks are cut
  // at fixed offsets), the same on every platform and in every run.
  std::pair<uint64_t, uint64_t> Hash() const;
  // The same hash of bytes held elsewhere: HashOf(b) == SimImage(b).Hash().
  static std::pair<uint64_t, uint64_t> HashOf(std::string_view bytes);

  // True when both hold the very same chunk list (no write to either since one was copied).
  bool SharesWith(const SimImage& other) const {
    return chunks_ != nullptr && chunks_ == other.chunks_;
  }
  friend bool operator==(const SimImage& a, const SimImage& b);

  // The allocated bytes of this image's list and chunks not in *counted (then added to it).
  uint64_t HeldBytes(std::set<const void*>* counted) const;

 private:
  struct ChunkData {
    ChunkData() = default;
    explicit ChunkData(std::string b) : bytes(std::move(b)) {}
    ChunkData(const ChunkData& other);  // the bytes and the hash when kept
    ChunkData& operator=(const ChunkData&) = delete;
    std::string bytes;
    // XXH3-128 of bytes once computed: set once lo and hi are (any reader may compute it, each
    // storing the same values); MutableChunk forgets it before a write.
    mutable std::atomic<bool> hashed{false};
    mutable std::atomic<uint64_t> lo{0}, hi{0};
  };
  using Chunk = std::shared_ptr<ChunkData>;
  // The list for writing (copied first when shared) and chunk i of it (copied first when shared;
  // its kept hash forgotten).
  std::vector<Chunk>& MutableChunks();
  std::string& MutableChunk(size_t i);

  std::shared_ptr<std::vector<Chunk>> chunks_;  // null: empty
  uint64_t size_ = 0;
};

}  // namespace stepfault::faults
