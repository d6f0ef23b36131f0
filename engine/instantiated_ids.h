// InstantiatedIds: the set of executor ids a checkpoint lists as instantiated, held as a
// persistent (versioned) set so that a run of N steps that each instantiate one executor costs
// O(N) in all, not O(N^2) (issue 27: every checkpoint of a 10,000-executor chain held its own
// sorted copy, and the delta encoder compared two whole lists to find the one id a step added).
//
// A value is a stack of immutable sorted layers, newest on top; each layer holds ids no layer below
// it holds. Copying a value copies a pointer, so a checkpoint takes the run's set as is. Add writes
// the top layer in place only when this value is its sole owner; otherwise (a checkpoint shares
// it) it pushes a new one-id layer, so what a checkpoint holds never changes after it was taken.
// AddedSince is then the ids of the layers above the base's top (one layer for the step between
// two checkpoints of a run), and Extend (a delta applied to its base) shares the base's layers.
// Thread-safety: a value (one writer, or any number of readers); distinct values that share layers
// may be used from different threads, since a shared layer is never written.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace stepfault {

class InstantiatedIds {
 public:
  InstantiatedIds() = default;
  // Any order, duplicates allowed (decoded bytes are not trusted): kept sorted and unique.
  // Implicit, so a checkpoint is given its ids like a list (`c.instantiated = {"a", "b"}`).
  InstantiatedIds(std::vector<std::string> ids);  // NOLINT(google-explicit-constructor)

  size_t size() const { return top_ ? top_->total : 0; }
  bool empty() const { return size() == 0; }
  bool Contains(const std::string& id) const;
  // Every id, sorted: O(size) plus a sort of the layers' merge.
  std::vector<std::string> Sorted() const;

  // Adds `id`. REQUIRES: !Contains(id) (the run adds an id once, when it first instantiates it).
  void Add(const std::string& id);

  // The ids of this set that `base` lacks (sorted), or nullopt when `base` holds an id this set
  // lacks. Walks only the layers above `base` when `base` is an older version of this set (one of
  // its layers is base's top); compares the two sorted sets otherwise.
  std::optional<std::vector<std::string>> AddedSince(const InstantiatedIds& base) const;

  // `base` and the ids of `added` it lacks, sharing base's layers (`base` itself when it adds
  // nothing).
  static InstantiatedIds Extend(const InstantiatedIds& base, const InstantiatedIds& added);

  // True when both are the very same version (no id was added between them).
  bool SharesWith(const InstantiatedIds& other) const {
    return top_ != nullptr && top_ == other.top_;
  }
  friend bool operator==(const InstantiatedIds& a, const InstantiatedIds& b) {
    return a.top_ == b.top_ || (a.size() == b.size() && a.Sorted() == b.Sorted());
  }

 private:
  struct Layer {
    Layer() = default;
    Layer(const Layer&) = delete;
    Layer& operator=(const Layer&) = delete;
    // Releases the layers below one by one while this was their sole owner: a stack of 10,000
    // layers must not be torn down by 10,000 nested destructors.
    ~Layer();
    std::shared_ptr<Layer> below;  // never written once shared
    std::vector<std::string> ids;  // sorted, none of them in a layer below
    size_t total = 0;              // ids here and below
  };
  static std::shared_ptr<Layer> NewLayer(std::shared_ptr<Layer> below,
                                         std::vector<std::string> ids);
  std::shared_ptr<Layer> top_;
};

}  // namespace stepfault
