// libFuzzer target: the file checkpoint store's open path over a directory of fuzzed files (on the
// simulated file system). Input: NUL-separated name, content, name, content ... (names reduced to
// [a-z0-9.-]); the first byte's low bit selects the in-place-write hazard's index-trusting open.
// Promise under test: any directory gives a store or a typed error; every entry it indexes
// retrieves to bytes or a typed error, never a crash.
// Thread-safety: libFuzzer calls it from one thread.
#include <cstddef>
#include <cstdint>

#include "engine/checkpoint.h"
#include "engine/stores/file_store.h"
#include "faults/sim_fs.h"

namespace {

std::string SafeName(std::string_view raw) {
  std::string out;
  for (char c : raw.substr(0, 40)) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-') out += c;
  }
  return out.empty() || out == "." || out == ".." ? "f" : out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool trust_index = (data[0] & 1) != 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  stepfault::faults::SimFs fs;
  const std::string dir = "/store";
  SF_CHECK(fs.CreateDirIfMissing(dir).ok());
  for (int files = 0; !rest.empty() && files < 16; ++files) {
    const size_t name_end = rest.find('\0');
    const std::string name = SafeName(rest.substr(0, name_end));
    rest = name_end == std::string_view::npos ? std::string_view() : rest.substr(name_end + 1);
    const size_t body_end = rest.find('\0');
    const std::string_view body = rest.substr(0, body_end);
    rest = body_end == std::string_view::npos ? std::string_view() : rest.substr(body_end + 1);
    auto f = fs.NewWritableFile(dir + "/" + name);
    if (!f.ok()) continue;
    (void)(*f)->Append(body);
    (void)(*f)->Sync();
    (void)(*f)->Close();
  }
  stepfault::FileStoreOptions options;
  options.hazard_in_place_write = trust_index;
  auto store = stepfault::FileCheckpointStore::Open(&fs, dir, options);
  if (!store.ok()) return 0;
  (void)(*store)->damaged_files();
  for (const char* session : {"s", "session"}) {
    auto index = (*store)->Index(session);
    if (!index.ok()) continue;
    for (const auto& entry : *index) {
      auto bytes = (*store)->Retrieve(entry.info);
      if (bytes.ok()) (void)stepfault::DecodeCheckpoint(*bytes);
    }
  }
  return 0;
}
