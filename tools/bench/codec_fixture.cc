// Codec fixtures.
#include "tools/bench/codec_fixture.h"

#include <map>
#include <memory>

#include "tools/bench/harness.h"

namespace stepfault::bench {

const CodecFixture& GetCodecFixture(size_t size) {
  SF_CHECK(size >= 8);
  static std::map<size_t, std::unique_ptr<CodecFixture>>* cache =
      new std::map<size_t, std::unique_ptr<CodecFixture>>();
  auto it = cache->find(size);
  if (it != cache->end()) return *it->second;
  const StepConfig config{Shape::kFanIn, 7, size / 8};
  Mode memory{"memory", ManagerKind::kInMemory, nullptr, LimitKind::kMemcpy, false};
  StepHarness harness(memory, config);
  Result<std::shared_ptr<const Checkpoint>> c =
      harness.manager()->Lookup(*harness.run().last_checkpoint());
  SF_CHECK(c.ok());
  auto fixture = std::make_unique<CodecFixture>();
  fixture->state_bytes = TotalStateBytes(config);
  fixture->checkpoint = **c;
  fixture->encoded = EncodeCheckpoint(fixture->checkpoint);
  fixture->encoded_json = EncodeCheckpointJson(fixture->checkpoint);
  // The codec benchmarks are only meaningful on a round trip that holds.
  Result<Checkpoint> decoded = DecodeCheckpoint(fixture->encoded);
  SF_CHECK(decoded.ok() && CheckpointsEqual(*decoded, fixture->checkpoint));
  decoded = DecodeCheckpoint(fixture->encoded_json);
  SF_CHECK(decoded.ok() && CheckpointsEqual(*decoded, fixture->checkpoint));
  const CodecFixture& out = *fixture;
  (*cache)[size] = std::move(fixture);
  return out;
}

const std::vector<size_t>& CodecSizes() {
  static const std::vector<size_t> sizes = {1u << 10,   8u << 10, 64u << 10,
                                            512u << 10, 4u << 20, 8u << 20};
  return sizes;
}

}  // namespace stepfault::bench
