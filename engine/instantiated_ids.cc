// InstantiatedIds (instantiated_ids.h): a persistent sorted set of executor ids.
#include "engine/instantiated_ids.h"

#include <algorithm>
#include <atomic>
#include <utility>

namespace stepfault {

InstantiatedIds::Layer::~Layer() {
  std::shared_ptr<Layer> next = std::move(below);
  // Sole owner: nobody else can take a new reference, so detaching its `below` first is safe.
  while (next != nullptr && next.use_count() == 1) {
    std::shared_ptr<Layer> after = std::move(next->below);
    next = std::move(after);  // destroys the detached layer, whose `below` is now empty
  }
}

std::shared_ptr<InstantiatedIds::Layer> InstantiatedIds::NewLayer(std::shared_ptr<Layer> below,
                                                                  std::vector<std::string> ids) {
  auto layer = std::make_shared<Layer>();
  layer->total = (below ? below->total : 0) + ids.size();
  layer->below = std::move(below);
  layer->ids = std::move(ids);
  return layer;
}

InstantiatedIds::InstantiatedIds(std::vector<std::string> ids) {
  // A stored list is sorted already (the encoder writes Sorted()): checked in one pass.
  auto out_of_order = [](const std::string& a, const std::string& b) { return !(a < b); };
  if (std::adjacent_find(ids.begin(), ids.end(), out_of_order) != ids.end()) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  }
  if (!ids.empty()) top_ = NewLayer(nullptr, std::move(ids));
}

bool InstantiatedIds::Contains(const std::string& id) const {
  for (const Layer* l = top_.get(); l != nullptr; l = l->below.get()) {
    if (std::binary_search(l->ids.begin(), l->ids.end(), id)) return true;
  }
  return false;
}

std::vector<std::string> InstantiatedIds::Sorted() const {
  if (top_ != nullptr && top_->below == nullptr) return top_->ids;
  std::vector<std::string> out;
  out.reserve(size());
  for (const Layer* l = top_.get(); l != nullptr; l = l->below.get()) {
    out.insert(out.end(), l->ids.begin(), l->ids.end());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void InstantiatedIds::Add(const std::string& id) {
  if (top_ != nullptr && top_.use_count() == 1) {
    // Orders this write after another owner's last read, which happened before that owner
    // released its reference (as SharedValue::Mutable).
    std::atomic_thread_fence(std::memory_order_acquire);
    top_->ids.insert(std::lower_bound(top_->ids.begin(), top_->ids.end(), id), id);
    ++top_->total;
    return;
  }
  top_ = NewLayer(std::move(top_), {id});
}

std::optional<std::vector<std::string>> InstantiatedIds::AddedSince(
    const InstantiatedIds& base) const {
  std::vector<std::string> added;
  const Layer* l = top_.get();
  while (l != base.top_.get() && l != nullptr && l->total > base.size()) {
    added.insert(added.end(), l->ids.begin(), l->ids.end());
    l = l->below.get();
  }
  if (l == base.top_.get()) {  // base is an older version: only ids were added since
    std::sort(added.begin(), added.end());
    return added;
  }
  // Unrelated versions (a restored run against a decoded base): compare the sorted sets.
  const std::vector<std::string> was = base.Sorted();
  const std::vector<std::string> now = Sorted();
  if (!std::includes(now.begin(), now.end(), was.begin(), was.end())) return std::nullopt;
  added.clear();
  std::set_difference(now.begin(), now.end(), was.begin(), was.end(), std::back_inserter(added));
  return added;
}

InstantiatedIds InstantiatedIds::Extend(const InstantiatedIds& base, const InstantiatedIds& added) {
  std::vector<std::string> fresh;
  for (const Layer* l = added.top_.get(); l != nullptr; l = l->below.get()) {
    for (const std::string& id : l->ids) {
      if (!base.Contains(id)) fresh.push_back(id);
    }
  }
  if (fresh.empty()) return base;
  std::sort(fresh.begin(), fresh.end());
  InstantiatedIds out;
  out.top_ = NewLayer(base.top_, std::move(fresh));
  return out;
}

}  // namespace stepfault
