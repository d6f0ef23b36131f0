// The waiting receipt (see receipt.h): canonical encoding, strict decoding and the publish
// protocol with its two mutants.
#include "scenarios/approval/receipt.h"

#include <array>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>

#include "engine/crc32c.h"
#include "engine/probe_points.h"
#include "scenarios/kept_by_bytes.h"

namespace stepfault::scenarios {
namespace {

using Json = nlohmann::json;

struct Field {
  const char* name;
  std::string WaitingReceipt::*member;
};
constexpr std::array<Field, 5> kFields{{
    {"checkpoint_id", &WaitingReceipt::checkpoint_id},
    {"graph_version", &WaitingReceipt::graph_version},
    {"operation_id", &WaitingReceipt::operation_id},
    {"request_id", &WaitingReceipt::request_id},
    {"session_id", &WaitingReceipt::session_id},
}};

// Canonical text: sorted keys (nlohmann's default object is a std::map), no whitespace.
// REQUIRES: every string in `doc` is valid UTF-8 (true for anything the parser produced).
std::string Canonical(const Json& doc) { return doc.dump(); }

// The checksum seals every member but itself.
std::string ChecksumOf(Json doc) {
  doc.erase("checksum");
  return Crc32cTag(Canonical(doc));
}

Status Damaged(const std::string& what) {
  return Status::Corruption("waiting receipt " + what +
                            "; it was damaged: keep the directory for inspection and do not "
                            "resume from it");
}

Status WriteInPlace(Env* env, const std::string& path, std::string_view bytes) {
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(path));
  SF_RETURN_IF_ERROR(file->Append(bytes));
  return file->Close();
}

Status WriteWithoutDirSync(Env* env, const std::string& path, std::string_view bytes) {
  const std::string tmp_path = path + std::string(kTempSuffix);
  SF_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, env->NewWritableFile(tmp_path));
  SF_RETURN_IF_ERROR(file->Append(bytes));
  SF_RETURN_IF_ERROR(file->Sync());
  SF_RETURN_IF_ERROR(file->Close());
  return env->RenameFile(tmp_path, path);
}

// The decoding itself (DecodeReceipt keeps its results by the exact bytes).
Result<WaitingReceipt> DecodeReceiptBytes(std::string_view bytes);

}  // namespace

Result<std::string> EncodeReceipt(const WaitingReceipt& receipt) {
  Json body = Json::object();
  for (const Field& field : kFields) {
    const std::string& value = receipt.*field.member;
    if (value.empty()) {
      return Status::InvalidArgument(std::string("waiting receipt field '") + field.name +
                                     "' is empty; every id must be set before publishing");
    }
    body[field.name] = value;
  }
  Json doc{{"format", kReceiptFormat}, {"version", kReceiptVersion}, {"body", std::move(body)}};
  // dump() is the only call here that can throw (type_error 316 on invalid UTF-8); keep it local.
  try {
    doc["checksum"] = ChecksumOf(doc);
    return Canonical(doc);
  } catch (const Json::type_error& e) {
    return Status::InvalidArgument(std::string("waiting receipt has a field that is not valid "
                                               "UTF-8 (") +
                                   e.what() + "); ids must be UTF-8 text");
  }
}

// A pure function of the bytes, read by every host life and every oracle check of a plan (a JSON
// parse and a canonical re-dump to verify the checksum), and exploration reads the same few
// receipts over and over: so each result (error or receipt) is kept by the exact bytes it came
// from (KeptByBytes: a hit is the result of identical bytes, never a guess).
Result<WaitingReceipt> DecodeReceipt(std::string_view bytes) {
  struct ReceiptTag {};
  using Kept = KeptByBytes<Result<WaitingReceipt>, ReceiptTag>;
  if (bytes.empty() || bytes.size() > kMaxReceiptBytes) return DecodeReceiptBytes(bytes);
  const std::string key(bytes);
  if (std::optional<Result<WaitingReceipt>> kept = Kept::Get().Find(key)) return *std::move(kept);
  Result<WaitingReceipt> decoded = DecodeReceiptBytes(bytes);
  Kept::Get().Keep(key, decoded, key.size());
  return decoded;
}

namespace {

Result<WaitingReceipt> DecodeReceiptBytes(std::string_view bytes) {
  if (bytes.empty()) return Damaged("is empty (0 bytes)");
  if (bytes.size() > kMaxReceiptBytes) {
    return Damaged("is " + std::to_string(bytes.size()) + " bytes, over the " +
                   std::to_string(kMaxReceiptBytes) + "-byte limit");
  }
  Json doc = Json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) {
    return Damaged("is not valid JSON (" + std::to_string(bytes.size()) + " bytes; truncated?)");
  }
  if (!doc.is_object()) return Damaged("is not a JSON object");
  for (const auto& [key, value] : doc.items()) {
    if (key != "body" && key != "checksum" && key != "format" && key != "version") {
      return Damaged("has an unexpected member '" + key + "'");
    }
  }
  auto checksum = doc.find("checksum");
  if (checksum == doc.end() || !checksum->is_string()) return Damaged("has no checksum string");
  const std::string expected = ChecksumOf(doc);
  if (checksum->get<std::string>() != expected) {
    return Damaged("checksum mismatch (stored " + checksum->get<std::string>() + ", computed " +
                   expected + ")");
  }
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_string() || format->get<std::string>() != kReceiptFormat) {
    return Damaged("has no format '" + std::string(kReceiptFormat) + "'");
  }
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer()) {
    return Damaged("has no integer version");
  }
  if (version->get<int64_t>() != kReceiptVersion) {
    return Status::Incompatible(
        "waiting receipt format version " + std::to_string(version->get<int64_t>()) +
        " is not supported (this build reads version " + std::to_string(kReceiptVersion) +
        "); resume with a matching build");
  }
  auto body = doc.find("body");
  if (body == doc.end() || !body->is_object()) return Damaged("has no body object");
  WaitingReceipt receipt;
  for (const Field& field : kFields) {
    auto value = body->find(field.name);
    if (value == body->end()) return Damaged(std::string("is missing field '") + field.name + "'");
    if (!value->is_string() || value->get<std::string>().empty()) {
      return Damaged(std::string("field '") + field.name + "' is not a non-empty string");
    }
    receipt.*field.member = value->get<std::string>();
  }
  if (body->size() != kFields.size()) {
    return Damaged("body has " + std::to_string(body->size()) + " members, expected " +
                   std::to_string(kFields.size()));
  }
  return receipt;
}

}  // namespace

Status PublishReceipt(Env* env, const std::string& dir, const WaitingReceipt& receipt,
                      ReceiptOptions options) {
  Probe* probe = options.probe != nullptr ? options.probe : NullProbe();
  SF_ASSIGN_OR_RETURN(std::string bytes, EncodeReceipt(receipt));
  const std::string path = JoinPath(dir, kReceiptFileName);
  probe->Hit(points::kReceiptPublishBefore);
  Status s;
  if (options.hazard_in_place) {
    s = WriteInPlace(env, path, bytes);
  } else if (options.hazard_no_dir_sync) {
    s = WriteWithoutDirSync(env, path, bytes);
  } else {
    s = WriteFileAtomically(env, dir, std::string(kReceiptFileName), bytes);
  }
  if (!s.ok()) return s.WithContext("publishing waiting receipt '" + path + "'");
  probe->Hit(points::kReceiptPublishAfter);
  return Status::Ok();
}

Result<std::optional<WaitingReceipt>> ReadReceipt(Env* env, const std::string& dir) {
  const std::string path = JoinPath(dir, kReceiptFileName);
  SF_ASSIGN_OR_RETURN(bool exists, env->FileExists(path));
  if (!exists) return std::optional<WaitingReceipt>();
  Result<std::string> bytes = env->ReadFile(path);
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) return std::optional<WaitingReceipt>();
    return bytes.status().WithContext("reading waiting receipt '" + path + "'");
  }
  Result<WaitingReceipt> receipt = DecodeReceipt(*bytes);
  if (!receipt.ok()) return receipt.status().WithContext(path);
  return std::optional<WaitingReceipt>(std::move(receipt).value());
}

}  // namespace stepfault::scenarios
