// Topology records: key, encoding and the verifying decoder.
#include "engine/topology_record.h"

#include <charconv>

#include "engine/compat.h"
#include "engine/crc32c.h"
#include "engine/random.h"

namespace stepfault {
namespace {
constexpr std::string_view kMagic = "stepfault.topology v1 ";
constexpr size_t kTrailerBytes = 16;  // "crc32c:" + 8 hex + "\n"

std::string KeyOfDump(std::string_view dump) {
  return std::string(kTopologyRecordPrefix) + DeriveId(kTopologyRecordSeed, dump);
}
}  // namespace

std::string TopologyRecordKey(const Json& signature) { return KeyOfDump(signature.dump()); }

bool IsTopologyRecordKey(std::string_view key) {
  if (!key.starts_with(kTopologyRecordPrefix)) return false;
  key.remove_prefix(kTopologyRecordPrefix.size());
  if (key.size() != 32) return false;
  for (char c : key) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string EncodeTopologyRecord(const Json& signature) {
  const std::string dump = signature.dump();
  std::string out = std::string(kMagic) + std::to_string(dump.size()) + "\n";
  out.reserve(out.size() + dump.size() + 1 + kTrailerBytes);
  out += dump;
  out += '\n';
  out += Crc32cTagOf(Crc32c(out));
  out += '\n';
  return out;
}

Result<Json> DecodeTopologyRecord(std::string_view bytes, std::string_view key) {
  const std::string what = "topology record " + std::string(key);
  if (!IsTopologyRecordKey(key)) return Status::Corruption(what + ": not a topology record key");
  if (!bytes.starts_with(kMagic)) {
    return Status::Corruption(what + ": does not start with '" + std::string(kMagic) + "'");
  }
  const size_t newline = bytes.find('\n', kMagic.size());
  uint64_t length = 0;
  const char* first = bytes.data() + kMagic.size();
  const char* last = newline == std::string_view::npos ? first : bytes.data() + newline;
  auto [end, ec] = std::from_chars(first, last, length);
  if (newline == std::string_view::npos || ec != std::errc() || end != last || first == last) {
    return Status::Corruption(what + ": header line is truncated or malformed");
  }
  const uint64_t expected = newline + 1 + length + 1 + kTrailerBytes;
  if (expected != bytes.size()) {
    return Status::Corruption(what + " is " + std::to_string(bytes.size()) +
                              " bytes but its header announces " + std::to_string(expected) +
                              "; it was truncated or damaged");
  }
  const std::string_view sealed = bytes.substr(0, bytes.size() - kTrailerBytes);
  const std::string actual = Crc32cTagOf(Crc32c(sealed));
  const std::string_view trailer = bytes.substr(sealed.size());
  if (trailer.substr(0, kTrailerBytes - 1) != actual || trailer.back() != '\n' ||
      sealed.back() != '\n') {
    return Status::Corruption(what + ": checksum mismatch (computed " + actual +
                              "); the bytes were damaged");
  }
  const std::string_view dump = bytes.substr(newline + 1, length);
  if (KeyOfDump(dump) != key) {
    return Status::Corruption(what + " holds the signature of another topology (" +
                              KeyOfDump(dump) + ")");
  }
  Json signature = Json::parse(dump, nullptr, /*allow_exceptions=*/false);
  if (signature.is_discarded() || !signature.is_object()) {
    return Status::Corruption(what + ": the signature is not a JSON object");
  }
  SF_RETURN_IF_ERROR(ValidateWorkflowSignature(signature, "/" + std::string(key)));
  return signature;
}

}  // namespace stepfault
