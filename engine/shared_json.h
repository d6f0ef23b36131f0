// SharedJson: an immutable JSON value held by reference count, the unit of copy-on-write state
// (docs/engine-semantics.md 10.1: copy-on-write state). Copying a SharedJson copies a
// pointer, never the value, so a checkpoint shares every value it did not change with its parent
// and with the live run; a value is replaced, never modified, so nothing reached through one holder
// can change under another. Equality compares values (a shared pointer is equal to itself without a
// look). Thread-safety: a SharedJson is a value; the Json it points to is never written after
// construction, so any number of threads may read it.
#pragma once

#include <concepts>
#include <memory>
#include <ostream>
#include <utility>

#include "engine/message.h"

namespace stepfault {

class SharedJson {
 public:
  SharedJson() : value_(Null()) {}
  // Implicit, so a SharedJson is assigned like the Json it holds: state["k"] = "text".
  template <class T>
  requires(!std::same_as<std::remove_cvref_t<T>, SharedJson> && std::constructible_from<Json, T>)
      SharedJson(T&& value)  // NOLINT(google-explicit-constructor)
      : value_(std::make_shared<const Json>(std::forward<T>(value))) {}
  explicit SharedJson(std::shared_ptr<const Json> value)
      : value_(value ? std::move(value) : Null()) {}

  const Json& get() const { return *value_; }
  const Json& operator*() const { return *value_; }
  const Json* operator->() const { return value_.get(); }
  operator const Json&() const { return *value_; }  // NOLINT(google-explicit-constructor)
  // True when both hold the very same object (no copy was made between them).
  bool SharesWith(const SharedJson& other) const { return value_ == other.value_; }

  friend bool operator==(const SharedJson& a, const SharedJson& b) {
    return a.value_ == b.value_ || *a.value_ == *b.value_;
  }
  friend std::ostream& operator<<(std::ostream& os, const SharedJson& v) { return os << *v; }

 private:
  static const std::shared_ptr<const Json>& Null() {
    static const std::shared_ptr<const Json>* null =
        new std::shared_ptr<const Json>(std::make_shared<const Json>());
    return *null;
  }
  std::shared_ptr<const Json> value_;
};

}  // namespace stepfault
