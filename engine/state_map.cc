// StateMap: copy on write at the scope list and at each scope (state_map.h).
#include "engine/state_map.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace stepfault {
namespace {

// True when `p` has no other owner, so the object may be changed in place. Every object this is
// asked about was created non-const by StateMap (make_shared<T>), so writing through a const_cast
// is defined. A shared list is copied whole by MutableScope. The acquire fence orders this owner's
// write after another owner's last read of the object, which happened before that owner released
// its reference.
template <class T>
bool SoleOwner(const std::shared_ptr<T>& p) {
  if (p.use_count() != 1) return false;
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

}  // namespace

std::pair<size_t, bool> StateMap::Locate(std::string_view scope) const {
  const ScopePtr* first = scopes_.get();
  const ScopePtr* last = first + size_;
  const ScopePtr* it = std::lower_bound(
      first, last, scope, [](const ScopePtr& s, std::string_view name) { return s->name < name; });
  return {static_cast<size_t>(it - first), it != last && (*it)->name == scope};
}

StateMap::const_iterator StateMap::find(std::string_view scope) const {
  auto [index, found] = Locate(scope);
  return found ? const_iterator(scopes_.get() + index) : end();
}

const ScopeMap& StateMap::at(std::string_view scope) const {
  auto it = find(scope);
  if (it == end()) throw std::out_of_range("StateMap::at: no scope '" + std::string(scope) + "'");
  return it->values;
}

const SharedJson* StateMap::Find(std::string_view scope, std::string_view key) const {
  auto s = find(scope);
  if (s == end()) return nullptr;
  auto v = s->values.find(key);
  return v == s->values.end() ? nullptr : &v->second;
}

bool StateMap::SharesScopeWith(const StateMap& other, std::string_view scope) const {
  auto a = find(scope);
  auto b = other.find(scope);
  return a != end() && b != other.end() && &*a == &*b;
}

StateMap::ScopePtr& StateMap::MutableSlot(size_t index) {
  if (!SoleOwner(scopes_)) {
    // One allocation and a reference per scope: the scopes themselves stay shared.
    std::shared_ptr<ScopePtr[]> copy = std::make_shared<ScopePtr[]>(size_);
    std::copy(scopes_.get(), scopes_.get() + size_, copy.get());
    scopes_ = std::move(copy);
  }
  return const_cast<ScopePtr&>(scopes_[index]);
}

StateScope& StateMap::MutableScope(size_t index) {
  ScopePtr& p = MutableSlot(index);
  if (!SoleOwner(p)) p = std::make_shared<StateScope>(*p);
  return const_cast<StateScope&>(*p);
}

void StateMap::InsertAt(size_t index, ScopePtr scope) {
  std::shared_ptr<ScopePtr[]> list = std::make_shared<ScopePtr[]>(size_ + 1);
  const ScopePtr* old = scopes_.get();
  std::copy(old, old + index, list.get());
  list[index] = std::move(scope);
  std::copy(old + index, old + size_, list.get() + index + 1);
  scopes_ = std::move(list);
  ++size_;
}

void StateMap::RemoveAt(size_t index) {
  if (size_ == 1) {
    scopes_.reset();
    size_ = 0;
    return;
  }
  std::shared_ptr<ScopePtr[]> list = std::make_shared<ScopePtr[]>(size_ - 1);
  const ScopePtr* old = scopes_.get();
  std::copy(old, old + index, list.get());
  std::copy(old + index + 1, old + size_, list.get() + index);
  scopes_ = std::move(list);
  --size_;
}

void StateMap::Set(std::string_view scope, std::string_view key, SharedJson value) {
  ScopeMap& values = (*this)[scope];
  auto it = values.find(key);
  if (it != values.end()) {
    it->second = std::move(value);
  } else {
    values.emplace_hint(it, std::string(key), std::move(value));
  }
}

void StateMap::SetSharedInPlace(std::string_view scope, std::string_view key, SharedJson value) {
  auto [index, found] = Locate(scope);
  if (!found) return Set(scope, key, std::move(value));
  // Every scope is made by make_shared<StateScope> (never const), so the write is defined; it is
  // the mutant's bug that other owners see it.
  ScopeMap& values = const_cast<StateScope&>(*scopes_[index]).values;
  values.insert_or_assign(std::string(key), std::move(value));
}

void StateMap::Erase(std::string_view scope, std::string_view key) {
  auto [index, found] = Locate(scope);
  if (!found) return;
  const ScopeMap& current = scopes_[index]->values;
  if (current.find(key) == current.end()) {
    if (current.empty()) RemoveAt(index);  // an empty scope goes, as when its last key does
    return;                                // else nothing changes, so nothing is copied
  }
  if (current.size() == 1) {
    RemoveAt(index);
    return;
  }
  ScopeMap& values = MutableScope(index).values;
  values.erase(values.find(key));
}

void StateMap::SetScope(std::string_view scope, ScopeMap values) {
  auto [index, found] = Locate(scope);
  auto fresh = std::make_shared<StateScope>(StateScope{std::string(scope), std::move(values)});
  if (!found) {
    InsertAt(index, std::move(fresh));
    return;
  }
  MutableSlot(index) = std::move(fresh);
}

void StateMap::EraseScope(std::string_view scope) {
  auto [index, found] = Locate(scope);
  if (found) RemoveAt(index);
}

ScopeMap& StateMap::operator[](std::string_view scope) {
  auto [index, found] = Locate(scope);
  // A new scope is this map's alone, so MutableScope copies nothing for it.
  if (!found) InsertAt(index, std::make_shared<StateScope>(StateScope{std::string(scope), {}}));
  return MutableScope(index).values;
}

bool operator==(const StateMap& a, const StateMap& b) {
  if (a.scopes_ == b.scopes_) return true;
  if (a.size_ != b.size_) return false;
  const auto& x = a.scopes_;
  const auto& y = b.scopes_;
  for (size_t i = 0; i < a.size_; ++i) {
    if (x[i] == y[i]) continue;
    if (x[i]->name != y[i]->name || x[i]->values != y[i]->values) return false;
  }
  return true;
}

std::ostream& operator<<(std::ostream& os, const StateMap& state) {
  os << '{';
  bool first_scope = true;
  for (const auto& [scope, values] : state) {
    os << (first_scope ? "" : ",") << Json(scope).dump() << ":{";
    first_scope = false;
    bool first = true;
    for (const auto& [key, value] : values) {
      os << (first ? "" : ",") << Json(key).dump() << ':' << value->dump();
      first = false;
    }
    os << '}';
  }
  return os << '}';
}

void PrintTo(const StateMap& state, std::ostream* os) { *os << state; }

}  // namespace stepfault
