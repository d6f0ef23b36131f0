// StateMap: copy on write at the scope list and at each scope (state_map.h).
#include "engine/state_map.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>

namespace stepfault {
namespace {

// True when `p` has no other owner, so the object may be changed in place. Every object this is
// asked about was created non-const by StateMap (make_shared<T>), so writing through a const_cast
// is defined. The acquire fence orders this owner's write after another owner's last read of the
// object, which happened before that owner released its reference.
template <class T>
bool SoleOwner(const std::shared_ptr<const T>& p) {
  if (p.use_count() != 1) return false;
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

}  // namespace

const StateMap::Scopes& StateMap::List() const {
  static const Scopes* const empty = new Scopes();
  return scopes_ ? *scopes_ : *empty;
}

std::pair<size_t, bool> StateMap::Locate(std::string_view scope) const {
  const Scopes& list = List();
  auto it =
      std::lower_bound(list.begin(), list.end(), scope,
                       [](const ScopePtr& s, std::string_view name) { return s->name < name; });
  return {static_cast<size_t>(it - list.begin()), it != list.end() && (*it)->name == scope};
}

StateMap::const_iterator StateMap::find(std::string_view scope) const {
  auto [index, found] = Locate(scope);
  return found ? const_iterator(List().begin() + static_cast<std::ptrdiff_t>(index)) : end();
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

StateMap::Scopes& StateMap::MutableList() {
  if (!scopes_) {
    scopes_ = std::make_shared<Scopes>();
  } else if (!SoleOwner(scopes_)) {
    // One allocation and a reference per scope: the scopes themselves stay shared.
    scopes_ = std::make_shared<Scopes>(*scopes_);
  }
  return const_cast<Scopes&>(*scopes_);
}

StateScope& StateMap::MutableScope(Scopes& list, size_t index) {
  ScopePtr& p = list[index];
  if (!SoleOwner(p)) p = std::make_shared<StateScope>(*p);
  return const_cast<StateScope&>(*p);
}

void StateMap::Set(std::string_view scope, std::string_view key, SharedJson value) {
  auto [index, found] = Locate(scope);
  Scopes& list = MutableList();
  if (!found) {
    auto fresh = std::make_shared<StateScope>();
    fresh->name = std::string(scope);
    fresh->values.emplace(std::string(key), std::move(value));
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(index), std::move(fresh));
    return;
  }
  ScopeMap& values = MutableScope(list, index).values;
  auto it = values.find(key);
  if (it != values.end()) {
    it->second = std::move(value);
  } else {
    values.emplace_hint(it, std::string(key), std::move(value));
  }
}

void StateMap::Erase(std::string_view scope, std::string_view key) {
  auto [index, found] = Locate(scope);
  if (!found) return;
  const ScopeMap& current = (*scopes_)[index]->values;
  if (current.find(key) == current.end()) {
    if (current.empty()) EraseScope(scope);  // an empty scope goes, as when its last key does
    return;                                  // else nothing changes, so nothing is copied
  }
  if (current.size() == 1) {
    EraseScope(scope);
    return;
  }
  Scopes& list = MutableList();
  ScopeMap& values = MutableScope(list, index).values;
  values.erase(values.find(key));
}

void StateMap::SetScope(std::string_view scope, ScopeMap values) {
  auto [index, found] = Locate(scope);
  Scopes& list = MutableList();
  auto fresh = std::make_shared<StateScope>(StateScope{std::string(scope), std::move(values)});
  if (found) {
    list[index] = std::move(fresh);
  } else {
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(index), std::move(fresh));
  }
}

void StateMap::EraseScope(std::string_view scope) {
  auto [index, found] = Locate(scope);
  if (!found) return;
  Scopes& list = MutableList();
  list.erase(list.begin() + static_cast<std::ptrdiff_t>(index));
  if (list.empty()) scopes_.reset();
}

ScopeMap& StateMap::operator[](std::string_view scope) {
  auto [index, found] = Locate(scope);
  Scopes& list = MutableList();
  if (!found) {
    auto fresh = std::make_shared<StateScope>();
    fresh->name = std::string(scope);
    list.insert(list.begin() + static_cast<std::ptrdiff_t>(index), std::move(fresh));
  }
  return MutableScope(list, index).values;
}

bool operator==(const StateMap& a, const StateMap& b) {
  if (a.scopes_ == b.scopes_) return true;
  const StateMap::Scopes& x = a.List();
  const StateMap::Scopes& y = b.List();
  if (x.size() != y.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
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
