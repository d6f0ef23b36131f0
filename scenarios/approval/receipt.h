// The waiting receipt `waiting.json` of Demo320: what a later `resume` needs to find the pending
// request again. The session/checkpoint pair locates the engine's state, the operation id names
// the business operation, the request id names the engine request.
//
// It is published only after the checkpoint that contains the request was captured, by temp file
// + fsync + rename + directory fsync, so a receipt observed as published survives power loss
// intact (INV-RECEIPT). The encoded form is canonical JSON (sorted keys, no whitespace):
//   {"body":{…five ids…},"checksum":"crc32c:…","format":"stepfault.waiting_receipt","version":1}
// where the checksum is Crc32cTag of the canonical document without its "checksum" member, so a
// damaged byte anywhere (format and version included) is detected. ReadReceipt never loads a
// damaged file silently (INV-CORRUPT). Whether graph_version is known is the host's business.
// Thread-safety: stateless functions; concurrent publishers on one directory must hold the lease.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/env.h"
#include "engine/probe.h"
#include "engine/status.h"

namespace stepfault::scenarios {

inline constexpr std::string_view kReceiptFileName = "waiting.json";
inline constexpr std::string_view kReceiptFormat = "stepfault.waiting_receipt";
inline constexpr int kReceiptVersion = 1;
inline constexpr size_t kMaxReceiptBytes = 64u << 10;

struct WaitingReceipt {
  std::string graph_version;
  std::string session_id;
  std::string checkpoint_id;
  std::string operation_id;
  std::string request_id;
  friend bool operator==(const WaitingReceipt&, const WaitingReceipt&) = default;
};

struct ReceiptOptions {
  Probe* probe = nullptr;  // null = NullProbe()
  // Mutant: write waiting.json in place (truncate, append, close): no temp file, no fsync.
  bool hazard_in_place = false;
  // Mutant: temp file, fsync and rename, but no fsync of the directory, so the rename itself
  // may be lost at power loss.
  bool hazard_no_dir_sync = false;
};

// The canonical bytes of `receipt`. kInvalidArgument when a field is empty or not valid UTF-8.
Result<std::string> EncodeReceipt(const WaitingReceipt& receipt);
// Parses and validates encoded bytes: kCorruption naming the problem for empty, truncated, bad
// JSON, bad checksum, wrong format, missing/extra/non-string/empty fields; kIncompatible for an
// intact receipt of another format version.
Result<WaitingReceipt> DecodeReceipt(std::string_view bytes);

// Publishes `receipt` as dir/waiting.json, hitting "receipt.publish.before" first and
// "receipt.publish.after" once it is durable. REQUIRES: `dir` exists.
Status PublishReceipt(Env* env, const std::string& dir, const WaitingReceipt& receipt,
                      ReceiptOptions options = {});

// Reads dir/waiting.json: nullopt when absent; the decoded receipt when intact; otherwise the
// DecodeReceipt error prefixed with the path. A leftover waiting.json.tmp is ignored.
Result<std::optional<WaitingReceipt>> ReadReceipt(Env* env, const std::string& dir);

}  // namespace stepfault::scenarios
