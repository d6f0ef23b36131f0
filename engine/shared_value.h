// SharedValue<T>: an immutable value held by reference count and changed copy on write, for the
// parts of a checkpoint that a step usually leaves alone or builds once and never changes again:
// the instantiated list and the message queues (docs/engine-semantics.md 10.1:
// copy-on-write state). Copying a SharedValue copies a pointer, so a checkpoint takes the run's
// queues and instantiated list without copying them, and a checkpoint whose step instantiated no
// executor holds its parent's very list. Reads see a const T (an empty T when nothing was ever
// set); the only write is Mutable(), which copies the value first when anyone else holds it, so a
// write through one holder is never visible through another.
// Thread-safety: a SharedValue is a value (one writer, or any number of readers); distinct
// SharedValues that share their object may be used from different threads, because a shared
// object is never written: Mutable() changes it in place only when this holder is its sole owner.
#pragma once

#include <atomic>
#include <memory>
#include <utility>

namespace stepfault {

template <class T>
class SharedValue {
 public:
  SharedValue() = default;
  // Implicit, so a SharedValue is assigned like the T it holds (decoders: `c.instantiated = list`).
  SharedValue(T value)  // NOLINT(google-explicit-constructor)
      : value_(std::make_shared<T>(std::move(value))) {}

  const T& get() const { return value_ ? *value_ : Empty(); }
  const T& operator*() const { return get(); }
  const T* operator->() const { return &get(); }
  auto begin() const { return get().begin(); }
  auto end() const { return get().end(); }
  bool empty() const { return get().empty(); }
  auto size() const { return get().size(); }

  // The value for writing: created empty when there is none, copied first when shared. The
  // reference is valid until this SharedValue is next copied, assigned or reset: writing through
  // it after a copy would reach the copy too.
  T& Mutable() {
    if (!value_) {
      value_ = std::make_shared<T>();
    } else if (value_.use_count() != 1) {
      value_ = std::make_shared<T>(*value_);
    } else {
      // Orders this write after another owner's last read, which happened before that owner
      // released its reference (as StateMap's SoleOwner).
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    // Every object here was created non-const (make_shared<T>), so writing through it is defined.
    return const_cast<T&>(*value_);
  }
  // Back to empty (drops this holder's reference; nothing shared is touched).
  void Reset() { value_.reset(); }

  // True when both hold the very same object (no copy was made between them).
  bool SharesWith(const SharedValue& other) const {
    return value_ != nullptr && value_ == other.value_;
  }
  friend bool operator==(const SharedValue& a, const SharedValue& b) {
    return a.value_ == b.value_ || a.get() == b.get();
  }

 private:
  static const T& Empty() {
    static const T* empty = new T();
    return *empty;
  }
  std::shared_ptr<const T> value_;
};

}  // namespace stepfault
