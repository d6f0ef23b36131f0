// ShardFromEnvironment (see shard_env.h).
#include "tools/cli/shard_env.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <tuple>

namespace stepfault::cli {
namespace {

constexpr int kShardsMax = 100000;

// A whole number in [lo, hi], the whole text; nullopt otherwise.
std::optional<int> ParseInt(const char* text, int lo, int hi) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  const std::string s(text);
  int value = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || value < lo || value > hi) {
    return std::nullopt;
  }
  return value;
}

// One convention: the 0-based index in `index_var`, the total in `total_var`.
Result<std::optional<std::pair<int, int>>> FromPair(const GetEnvFn& getenv_fn,
                                                    const char* index_var, const char* total_var) {
  const char* index_text = getenv_fn(index_var);
  const char* total_text = getenv_fn(total_var);
  if (index_text == nullptr && total_text == nullptr) return std::optional<std::pair<int, int>>();
  if (index_text == nullptr || total_text == nullptr) {
    return Status::InvalidArgument(
        std::string(index_text == nullptr ? index_var : total_var) + " is not set, but " +
        (index_text == nullptr ? total_var : index_var) + " is: set both, or neither");
  }
  const auto total = ParseInt(total_text, 1, kShardsMax);
  if (!total) {
    return Status::InvalidArgument(std::string(total_var) + "='" + total_text +
                                   "' is not a whole number from 1 to " +
                                   std::to_string(kShardsMax));
  }
  const auto index = ParseInt(index_text, 0, *total - 1);
  if (!index) {
    return Status::InvalidArgument(
        std::string(index_var) + "='" + index_text + "' is not a whole number from 0 to " +
        std::to_string(*total - 1) + " (" + total_var + "=" + total_text + ")");
  }
  return std::optional<std::pair<int, int>>(std::make_pair(*index + 1, *total));
}

}  // namespace

Result<std::optional<std::pair<int, int>>> ShardFromEnvironment(const GetEnvFn& getenv_fn) {
  auto gtest = FromPair(getenv_fn, "GTEST_SHARD_INDEX", "GTEST_TOTAL_SHARDS");
  if (!gtest.ok()) return gtest.status();
  auto k8s = FromPair(getenv_fn, "JOB_COMPLETION_INDEX", "STEPFAULT_TOTAL_SHARDS");
  if (!k8s.ok()) return k8s.status();
  if (*gtest && *k8s && **gtest != **k8s) {
    return Status::InvalidArgument(
        "GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS and JOB_COMPLETION_INDEX/STEPFAULT_TOTAL_SHARDS "
        "name different shards: unset one, or pass --shard I/N");
  }
  return *gtest ? *gtest : *k8s;
}

std::string Shard::EnvironmentNote() const {
  if (source.empty() || source == "--shard") return "";
  return "shard " + std::to_string(index) + "/" + std::to_string(count) + " (from " + source + ")";
}

std::string Shard::SummaryNote() const {
  const std::string note = EnvironmentNote();
  if (note.empty()) return "";
  return note +
         ": this report holds only that shard's cells; `stepfault report merge` joins the shards' "
         "report.json files";
}

Result<Shard> ResolveShard(const std::string& flag) {
  return ResolveShard(flag, [](const char* name) { return std::getenv(name); });
}

Result<Shard> ResolveShard(const std::string& flag, const GetEnvFn& getenv_fn) {
  Shard shard;
  if (!flag.empty()) {
    const Status bad = Status::InvalidArgument(
        "--shard must be I/N with 1 <= I <= N <= " + std::to_string(kShardsMax) +
        ", e.g. 2/4, in decimal digits (got '" + flag + "')");
    const size_t slash = flag.find('/');
    if (slash == std::string::npos) return bad;
    const std::string count_text = flag.substr(slash + 1), index_text = flag.substr(0, slash);
    const auto count = ParseInt(count_text.c_str(), 1, kShardsMax);
    if (!count) return bad;
    const auto index = ParseInt(index_text.c_str(), 1, *count);
    if (!index) return bad;
    shard.index = *index;
    shard.count = *count;
    shard.source = "--shard";
    return shard;
  }
  auto env = ShardFromEnvironment(getenv_fn);
  if (!env.ok()) return env.status();
  if (!*env) return shard;
  std::tie(shard.index, shard.count) = **env;
  const char* gtest = getenv_fn("GTEST_SHARD_INDEX");
  shard.source = gtest != nullptr ? "GTEST_SHARD_INDEX" : "JOB_COMPLETION_INDEX";
  return shard;
}

}  // namespace stepfault::cli
