// The host hazards of the approval scenario (mistakes a Demo320 host author makes), by name; the
// scenario lists them in host_hazards() and switches each on when HostEnv::hazards names it.
// Thread-safety: constants.
#pragma once

namespace stepfault::scenarios {

inline constexpr char kHazardReceiptBeforeRequest[] = "receipt-before-request";
inline constexpr char kHazardReceiptInPlace[] = "receipt-in-place";
inline constexpr char kHazardReceiptNoDirSync[] = "receipt-no-dir-sync";
inline constexpr char kHazardDecisionSentBeforePersisted[] = "decision-sent-before-persisted";
inline constexpr char kHazardDuplicateResponseResumesTwice[] = "duplicate-response-resumes-twice";

}  // namespace stepfault::scenarios
