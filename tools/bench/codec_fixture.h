// Checkpoints of a given nominal size for the codec and limit benchmarks: a real checkpoint of the
// fanin workflow of width 7 (8 stateful executors, each holding size/8 bytes) after three steps
// under the in-memory manager, with its encoding. Built once per size and cached for the process.
// Thread-safety: build before benchmarks run (prepare steps); then read-only.
#pragma once

#include <string>
#include <vector>

#include "engine/checkpoint.h"

namespace stepfault::bench {

struct CodecFixture {
  size_t state_bytes = 0;
  Checkpoint checkpoint;
  std::string encoded;       // EncodeCheckpoint: the framed version 2
  std::string encoded_json;  // EncodeCheckpointJson: version 1, the previous codec
};

// REQUIRES: size >= 8.
const CodecFixture& GetCodecFixture(size_t size);

// The nominal sizes of the codec and limit benchmarks: 1 KB, 8 KB, 64 KB, 512 KB, 4 MB, 8 MB.
const std::vector<size_t>& CodecSizes();

}  // namespace stepfault::bench
