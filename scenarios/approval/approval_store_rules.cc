// The decision rules of Demo320 (ValidateDecision) and the status names, pure functions.
// Comments are counted in Unicode code points of strictly valid UTF-8 (no overlong forms, no
// surrogates, nothing above U+10FFFF), so "é" and an emoji each count as one character.
#include <cstdint>
#include <optional>
#include <string>

#include "scenarios/approval/approval_store.h"

namespace stepfault::scenarios {
namespace {

// Decodes `text` into code points; on invalid UTF-8 sets `bad_offset` and returns nullopt.
std::optional<std::u32string> DecodeUtf8(const std::string& text, size_t* bad_offset) {
  std::u32string out;
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<uint8_t>(text[i]);
    size_t length = 0;
    char32_t cp = 0;
    char32_t min = 0;
    if (lead < 0x80) {
      length = 1, cp = lead;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, cp = lead & 0x1F, min = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, cp = lead & 0x0F, min = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, cp = lead & 0x07, min = 0x10000;
    } else {
      *bad_offset = i;
      return std::nullopt;
    }
    if (i + length > text.size()) {
      *bad_offset = i;
      return std::nullopt;
    }
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<uint8_t>(text[i + k]);
      if ((next & 0xC0) != 0x80) {
        *bad_offset = i;
        return std::nullopt;
      }
      cp = (cp << 6) | (next & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      *bad_offset = i;
      return std::nullopt;
    }
    out.push_back(cp);
    i += length;
  }
  return out;
}

// Unicode White_Space (PropList.txt), the set .NET's string.IsNullOrWhiteSpace uses.
bool IsUnicodeWhiteSpace(char32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::string_view ApprovalStatusName(ApprovalStatus status) {
  switch (status) {
    case ApprovalStatus::kWaiting:
      return "Waiting";
    case ApprovalStatus::kApproved:
      return "Approved";
    case ApprovalStatus::kRejected:
      return "Rejected";
    case ApprovalStatus::kCompleted:
      return "Completed";
  }
  SF_CHECK(false);
  return "";
}

Status ValidateDecision(const std::string& choice, const std::string& comment) {
  if (choice != kChoiceApprove && choice != kChoiceReject) {
    return Status::InvalidArgument("decision '" + choice +
                                   "' is not allowed; use exactly 'approve' or 'reject' "
                                   "(lower case)");
  }
  size_t bad_offset = 0;
  std::optional<std::u32string> code_points = DecodeUtf8(comment, &bad_offset);
  if (!code_points) {
    return Status::InvalidArgument("the comment is not valid UTF-8 (bad byte sequence at offset " +
                                   std::to_string(bad_offset) +
                                   "); send the comment as UTF-8 text");
  }
  if (code_points->empty()) {
    return Status::InvalidArgument("the comment is empty; give a comment of 1 to " +
                                   std::to_string(kCommentMaxCodePoints) + " characters");
  }
  if (code_points->size() > kCommentMaxCodePoints) {
    return Status::InvalidArgument("the comment has " + std::to_string(code_points->size()) +
                                   " characters; shorten it to at most " +
                                   std::to_string(kCommentMaxCodePoints));
  }
  bool blank = true;
  for (char32_t cp : *code_points) blank = blank && IsUnicodeWhiteSpace(cp);
  if (blank) {
    return Status::InvalidArgument(
        "the comment is blank (only whitespace); say why the proposal is approved or rejected");
  }
  return Status::Ok();
}

Status ValidateDraft(const std::string& draft) {
  if (draft.empty()) return Status::InvalidArgument("the draft is empty; pass --draft TEXT");
  if (draft.size() > kDraftMaxBytes) {
    return Status::InvalidArgument("the draft is " + std::to_string(draft.size()) +
                                   " bytes; shorten it to at most " +
                                   std::to_string(kDraftMaxBytes));
  }
  size_t bad_offset = 0;
  if (!DecodeUtf8(draft, &bad_offset)) {
    return Status::InvalidArgument("the draft is not valid UTF-8 (bad byte sequence at offset " +
                                   std::to_string(bad_offset) + "); pass the draft as UTF-8 text");
  }
  return Status::Ok();
}

}  // namespace stepfault::scenarios
