// SimImage (faults/sim_image.h). Invariant: chunks_ is null exactly when size_ == 0; otherwise it
// holds ceil(size_ / kChunkBytes) chunks, each full but the last, none empty.
#include "faults/sim_image.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace stepfault::faults {

namespace {

std::pair<uint64_t, uint64_t> ChunkHash(std::string_view bytes) {
  const XXH128_hash_t h = XXH3_128bits(bytes.data(), bytes.size());
  return {h.low64, h.high64};
}

// XXH3-128 over the chunks' hashes (each as two little-endian 64-bit words), seeded with the size.
class Combiner {
 public:
  Combiner(uint64_t size, size_t chunks) : size_(size) { records_.reserve(16 * chunks); }
  void Add(std::pair<uint64_t, uint64_t> h) {
    for (const uint64_t word : {h.first, h.second}) {
      for (int i = 0; i < 8; ++i) records_.push_back(static_cast<char>(word >> (8 * i)));
    }
  }
  std::pair<uint64_t, uint64_t> Finish() const {
    const XXH128_hash_t h = XXH3_128bits_withSeed(records_.data(), records_.size(), size_);
    return {h.low64, h.high64};
  }

 private:
  uint64_t size_;
  std::string records_;
};

}  // namespace

SimImage::ChunkData::ChunkData(const ChunkData& other) : bytes(other.bytes) {
  if (other.hashed.load(std::memory_order_acquire)) {
    lo.store(other.lo.load(std::memory_order_relaxed), std::memory_order_relaxed);
    hi.store(other.hi.load(std::memory_order_relaxed), std::memory_order_relaxed);
    hashed.store(true, std::memory_order_release);
  }
}

SimImage::SimImage(std::string_view bytes) { Write(0, bytes); }

std::pair<uint64_t, uint64_t> SimImage::Hash() const {
  Combiner c(size_, chunks_ == nullptr ? 0 : chunks_->size());
  if (chunks_ != nullptr) {
    for (const Chunk& chunk : *chunks_) {
      if (!chunk->hashed.load(std::memory_order_acquire)) {
        const std::pair<uint64_t, uint64_t> h = ChunkHash(chunk->bytes);
        chunk->lo.store(h.first, std::memory_order_relaxed);
        chunk->hi.store(h.second, std::memory_order_relaxed);
        chunk->hashed.store(true, std::memory_order_release);
      }
      c.Add({chunk->lo.load(std::memory_order_relaxed), chunk->hi.load(std::memory_order_relaxed)});
    }
  }
  return c.Finish();
}

std::pair<uint64_t, uint64_t> SimImage::HashOf(std::string_view bytes) {
  Combiner c(bytes.size(), (bytes.size() + kChunkBytes - 1) / kChunkBytes);
  for (size_t at = 0; at < bytes.size(); at += kChunkBytes) {
    c.Add(ChunkHash(bytes.substr(at, kChunkBytes)));
  }
  return c.Finish();
}

size_t SimImage::Read(uint64_t offset, size_t n, char* out) const {
  if (offset >= size_) return 0;
  const size_t available = static_cast<size_t>(std::min<uint64_t>(n, size_ - offset));
  size_t done = 0;
  while (done < available) {
    const uint64_t at = offset + done;
    const std::string& chunk = (*chunks_)[at / kChunkBytes]->bytes;
    const size_t in_chunk = at % kChunkBytes;
    const size_t take = std::min(available - done, chunk.size() - in_chunk);
    std::memcpy(out + done, chunk.data() + in_chunk, take);
    done += take;
  }
  return available;
}

std::string SimImage::ToString() const {
  std::string out;
  out.reserve(size_);
  ForEachSpan([&](std::string_view span) { out.append(span); });
  return out;
}

std::vector<SimImage::Chunk>& SimImage::MutableChunks() {
  if (chunks_ == nullptr) {
    chunks_ = std::make_shared<std::vector<Chunk>>();
  } else if (chunks_.use_count() != 1) {
    chunks_ = std::make_shared<std::vector<Chunk>>(*chunks_);
  } else {
    // Orders this write after another owner's last read, which happened before that owner
    // released its reference (as SharedValue::Mutable).
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  return *chunks_;
}

std::string& SimImage::MutableChunk(size_t i) {
  std::vector<Chunk>& chunks = MutableChunks();
  if (chunks[i].use_count() != 1) {
    chunks[i] = std::make_shared<ChunkData>(*chunks[i]);
  } else {
    std::atomic_thread_fence(std::memory_order_acquire);
  }
  chunks[i]->hashed.store(false, std::memory_order_relaxed);  // the caller writes it now
  return chunks[i]->bytes;
}

void SimImage::Resize(uint64_t size) {
  if (size == size_) return;
  if (size == 0) {
    chunks_.reset();
    size_ = 0;
    return;
  }
  const size_t count = static_cast<size_t>((size + kChunkBytes - 1) / kChunkBytes);
  if (size < size_) {
    MutableChunks().resize(count);
    MutableChunk(count - 1).resize(static_cast<size_t>(size - (count - 1) * kChunkBytes));
    size_ = size;
    return;
  }
  // Zero-extend: fill the last chunk, then add chunks of zero bytes.
  std::vector<Chunk>& chunks = MutableChunks();
  if (!chunks.empty()) {
    const size_t last = chunks.size() - 1;
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(kChunkBytes, size - static_cast<uint64_t>(last) * kChunkBytes));
    std::string& chunk = MutableChunk(last);
    if (want > chunk.capacity())
      chunk.reserve(std::min(kChunkBytes, std::max(want, 2 * chunk.size())));
    chunk.resize(want, '\0');
  }
  while (chunks.size() < count) {
    const uint64_t begin = static_cast<uint64_t>(chunks.size()) * kChunkBytes;
    chunks.push_back(std::make_shared<ChunkData>(
        std::string(static_cast<size_t>(std::min<uint64_t>(kChunkBytes, size - begin)), '\0')));
  }
  size_ = size;
}

void SimImage::Write(uint64_t offset, std::string_view bytes) {
  if (bytes.empty()) return;
  const uint64_t end = offset + bytes.size();
  if (end > size_) Resize(end);
  size_t done = 0;
  while (done < bytes.size()) {
    const uint64_t at = offset + done;
    const size_t i = static_cast<size_t>(at / kChunkBytes);
    const size_t in_chunk = static_cast<size_t>(at % kChunkBytes);
    std::string& chunk = MutableChunk(i);
    const size_t take = std::min(bytes.size() - done, chunk.size() - in_chunk);
    std::memcpy(chunk.data() + in_chunk, bytes.data() + done, take);
    done += take;
  }
}

bool operator==(const SimImage& a, const SimImage& b) {
  if (a.size_ != b.size_) return false;
  if (a.size_ == 0 || a.chunks_ == b.chunks_) return true;
  for (size_t i = 0; i < a.chunks_->size(); ++i) {
    const auto& x = (*a.chunks_)[i];
    const auto& y = (*b.chunks_)[i];
    if (x != y && x->bytes != y->bytes) return false;
  }
  return true;
}

uint64_t SimImage::HeldBytes(std::set<const void*>* counted) const {
  if (chunks_ == nullptr || !counted->insert(chunks_.get()).second) return 0;
  // A make_shared block (control block and object) per list and per chunk.
  constexpr uint64_t kBlockBytes = 48;
  uint64_t bytes = kBlockBytes + chunks_->capacity() * sizeof(Chunk);
  for (const Chunk& chunk : *chunks_) {
    if (counted->insert(chunk.get()).second) {
      bytes += kBlockBytes - sizeof(std::string) + sizeof(ChunkData) + chunk->bytes.capacity() + 1;
    }
  }
  return bytes;
}

}  // namespace stepfault::faults
