// Status: names and rendering.
#include "engine/status.h"

namespace stepfault {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "OK";
    case StatusCode::kInvalidArgument:
      return "InvalidArgument";
    case StatusCode::kNotFound:
      return "NotFound";
    case StatusCode::kAlreadyExists:
      return "AlreadyExists";
    case StatusCode::kFailedPrecondition:
      return "FailedPrecondition";
    case StatusCode::kCorruption:
      return "Corruption";
    case StatusCode::kIncompatible:
      return "Incompatible";
    case StatusCode::kIOError:
      return "IOError";
    case StatusCode::kNoSpace:
      return "NoSpace";
    case StatusCode::kBusy:
      return "Busy";
    case StatusCode::kCancelled:
      return "Cancelled";
    case StatusCode::kHandlerFailed:
      return "HandlerFailed";
    case StatusCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  return Status(code_, std::string(context) + ": " + message_, injected_);
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string s(StatusCodeName(code_));
  s += ": ";
  s += message_;
  if (injected_) s += " [injected]";
  return s;
}

}  // namespace stepfault
