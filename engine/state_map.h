// StateMap: a run's state, scope -> key -> value, as a persistent (copy-on-write) structure at
// every level (docs/engine-semantics.md 10.1: copy-on-write state). The values are
// SharedJson (shared_json.h); each scope is an immutable shared StateScope; the sorted list of
// scopes is an immutable shared array. Copying a StateMap copies one pointer. A write copies only
// what the writer shares with someone else: the scope list (one allocation, a pointer per scope)
// and the one scope it changes (its key nodes); every other scope stays the very object of the copy
// it came from. So a checkpoint shares every scope its step did not write with its parent and with
// the live run, and nothing written through one StateMap is ever visible through another.
//
// Reads look like a std::map of scopes: iteration in scope order yields `const StateScope&`
// (`for (const auto& [scope, values] : state)`), and find/at/count/empty/size/== exist.
// Thread-safety: a StateMap is a value (one writer, or any number of readers); distinct StateMaps
// that share scopes may be used from different threads, because a shared object is never written:
// a write changes an object in place only when its StateMap is the object's sole owner.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include "engine/shared_json.h"

namespace stepfault {

// One scope's values, key -> value.
using ScopeMap = std::map<std::string, SharedJson, std::less<>>;

// One scope of a StateMap: its id ("executor:<id>" or "shared:<name>") and its values.
struct StateScope {
  std::string name;
  ScopeMap values;
};

class StateMap {
  using ScopePtr = std::shared_ptr<const StateScope>;

 public:
  // Iterates the scopes in name order; dereferences to the StateScope.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = StateScope;
    using difference_type = std::ptrdiff_t;
    using pointer = const StateScope*;
    using reference = const StateScope&;
    const_iterator() = default;
    reference operator*() const { return **it_; }
    pointer operator->() const { return it_->get(); }
    const_iterator& operator++() {
      ++it_;
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++it_;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) = default;

   private:
    friend class StateMap;
    explicit const_iterator(const ScopePtr* it) : it_(it) {}
    const ScopePtr* it_ = nullptr;
  };
  using iterator = const_iterator;
  using value_type = StateScope;

  StateMap() = default;

  bool empty() const { return size() == 0; }
  size_t size() const { return size_; }
  const_iterator begin() const { return const_iterator(scopes_.get()); }
  const_iterator end() const { return const_iterator(scopes_.get() + size_); }
  const_iterator find(std::string_view scope) const;
  size_t count(std::string_view scope) const { return find(scope) != end() ? 1 : 0; }
  // The scope's values; throws std::out_of_range when there is no such scope (as std::map::at).
  const ScopeMap& at(std::string_view scope) const;
  // The value of `key` in `scope`, or null.
  const SharedJson* Find(std::string_view scope, std::string_view key) const;

  // Sharing, by identity (for tests and for the delta encoder).
  // True when this map's `scope` and other's are the very same object (so also equal). False
  // when either has no such scope.
  bool SharesScopeWith(const StateMap& other, std::string_view scope) const;
  // True when the two maps share their whole scope list (a copy nobody wrote since).
  bool SharesAllWith(const StateMap& other) const { return scopes_ == other.scopes_; }

  // Writes: copy on write (see the file comment).
  void Set(std::string_view scope, std::string_view key, SharedJson value);
  // The cow-scope-shared-too-long mutant's write (EngineProfile, issue 29), never used otherwise:
  // as Set, but an existing scope is written in place even when another StateMap shares it, so
  // the write reaches every checkpoint holding that scope (a copy on write that forgot to copy).
  void SetSharedInPlace(std::string_view scope, std::string_view key, SharedJson value);
  // Removes `key` from `scope`, and the scope when it becomes empty. No-op when absent.
  void Erase(std::string_view scope, std::string_view key);
  // Adds or replaces a whole scope (an empty one included: encoders keep it).
  void SetScope(std::string_view scope, ScopeMap values);
  void EraseScope(std::string_view scope);
  // The scope's values for writing, created empty when absent (std::map-like building:
  // `state["executor:a"]["k"] = v`). The reference is valid until this StateMap is next copied,
  // assigned or written: writing through it after a copy would reach the copy too.
  ScopeMap& operator[](std::string_view scope);

  friend bool operator==(const StateMap& a, const StateMap& b);
  // {"scope":{"key":value,...},...} (for test failure messages).
  friend std::ostream& operator<<(std::ostream& os, const StateMap& state);

 private:
  // The index of `scope` or of where it would go, and whether it is there.
  std::pair<size_t, bool> Locate(std::string_view scope) const;
  // Slot `index` of the list for writing: the list copied first when shared (not the scope).
  ScopePtr& MutableSlot(size_t index);
  // Scope `index` for writing: the list, then the scope, each copied first when shared.
  StateScope& MutableScope(size_t index);
  // Replaces the list by a new one of size_ + 1 with `scope` at `index`, or of size_ - 1
  // without scope `index` (adding or removing a scope is rare: a fresh list each time).
  void InsertAt(size_t index, ScopePtr scope);
  void RemoveAt(size_t index);

  // The scopes sorted by name, names unique, in one allocation with its reference count.
  std::shared_ptr<const ScopePtr[]> scopes_;  // null when size_ == 0
  size_t size_ = 0;
};

// For GoogleTest's failure messages.
void PrintTo(const StateMap& state, std::ostream* os);

}  // namespace stepfault
