// Status and Result<T>: the expected-failure values of Stepfault (as leveldb's Status).
//
// A Status is Ok or carries a code and a message that says what went wrong and what to do. Injected
// faults carry the `injected` tag so the oracle can tell a fault the harness caused from a bug.
// Programmer errors are not Status values: they are SF_CHECK assertions that stay on in release.
// Thread-safety: values; safe to copy between threads.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace stepfault {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // the caller passed something malformed
  kNotFound,            // an id or file that does not exist
  kAlreadyExists,       // a duplicate id or a second owner
  kFailedPrecondition,  // the object is in the wrong state for the call
  kCorruption,          // stored bytes failed validation (checksum, structure, sizes)
  kIncompatible,        // a checkpoint does not match the workflow it is restored into
  kIOError,             // the file system failed (EIO)
  kNoSpace,             // the file system is full (ENOSPC)
  kBusy,                // a lock or lease is held by someone else
  kCancelled,           // the run was cancelled
  kHandlerFailed,       // an executor's handler failed
  kInternal,            // an invariant of our own broke; always a bug
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message, bool injected = false)
      : code_(code), message_(std::move(message)), injected_(injected) {}

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Incompatible(std::string m) { return {StatusCode::kIncompatible, std::move(m)}; }
  static Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
  static Status NoSpace(std::string m) { return {StatusCode::kNoSpace, std::move(m)}; }
  static Status Busy(std::string m) { return {StatusCode::kBusy, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status HandlerFailed(std::string m) { return {StatusCode::kHandlerFailed, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  bool injected() const { return injected_; }

  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;
  // "Corruption: <message>" (plus " [injected]" for injected faults); "OK" when ok.
  std::string ToString() const;

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_ && a.injected_ == b.injected_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  bool injected_ = false;
};

// Result<T> holds a T or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    if (std::get<Status>(v_).ok()) {
      std::fprintf(stderr, "Result constructed from an ok Status\n");
      std::abort();
    }
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { return Get(); }
  const T& value() const& { return const_cast<Result*>(this)->Get(); }
  T&& value() && { return std::move(Get()); }
  T* operator->() { return &Get(); }
  const T* operator->() const { return &const_cast<Result*>(this)->Get(); }
  T& operator*() & { return Get(); }
  const T& operator*() const& { return const_cast<Result*>(this)->Get(); }

 private:
  T& Get() {
    if (!ok()) {
      std::fprintf(stderr, "Result::value() on error: %s\n",
                   std::get<Status>(v_).ToString().c_str());
      std::abort();
    }
    return std::get<T>(v_);
  }
  std::variant<T, Status> v_;
};

}  // namespace stepfault

// SF_RETURN_IF_ERROR(expr): return the Status of `expr` when it is not ok.
#define SF_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::stepfault::Status sf_status_ = (expr); \
    if (!sf_status_.ok()) return sf_status_; \
  } while (0)

#define SF_CONCAT_INNER(a, b) a##b
#define SF_CONCAT(a, b) SF_CONCAT_INNER(a, b)
// SF_ASSIGN_OR_RETURN(lhs, expr): evaluate a Result; return its Status on error, else assign.
#define SF_ASSIGN_OR_RETURN(lhs, expr) \
  SF_ASSIGN_OR_RETURN_IMPL(SF_CONCAT(sf_result_, __LINE__), lhs, expr)
#define SF_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

// SF_CHECK(cond): a programmer-error assertion that stays on in release builds.
#define SF_CHECK(cond)                                                                 \
  do {                                                                                 \
    if (!(cond)) {                                                                     \
      std::fprintf(stderr, "%s:%d: SF_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)
