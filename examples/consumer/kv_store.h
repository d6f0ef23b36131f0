// KvStore: a toy key-value checkpoint store, written the way a team would write its own store for
// Stepfault to check. Every checkpoint is one record appended to one log file, `<dir>/kv.log`:
//   <meta length> <checkpoint length> <crc32 hex>\n<meta JSON {session, id, parent}><checkpoint
//   bytes>\n
// (the checkpoint bytes verbatim: a store keeps opaque bytes, which need not be UTF-8). A commit
// appends its record and fsyncs the log (the log's name was made durable when it was created);
// Commit returning ok means the checkpoint is durable. Opening reads the log and stops at the first
// record that is incomplete or fails its CRC (a torn tail after a power loss); if there is one, it
// rewrites the intact prefix by temp file, fsync, rename and directory fsync before anything is
// appended after it. All I/O goes through the stepfault::Env it is given, which is how Stepfault
// sees its windows. Thread-safety: every method is safe for concurrent calls (one mutex).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/env.h"

namespace kvstore {

class KvStore final : public stepfault::CheckpointStore {
 public:
  static stepfault::Result<std::unique_ptr<KvStore>> Open(stepfault::Env* env, std::string dir);

  stepfault::Result<stepfault::CheckpointInfo> Commit(
      const std::string& session_id, std::string_view bytes,
      const std::optional<stepfault::CheckpointInfo>& parent) override;
  stepfault::Result<std::string> Retrieve(const stepfault::CheckpointInfo& info) override;
  stepfault::Result<std::vector<stepfault::StoreEntry>> Index(
      const std::string& session_id,
      const std::optional<stepfault::CheckpointInfo>& with_parent) override;

 private:
  struct Record {
    std::string session, id, parent, bytes;
  };
  KvStore(stepfault::Env* env, std::string dir) : env_(env), dir_(std::move(dir)) {}
  stepfault::Status Load();

  stepfault::Env* env_;
  std::string dir_;
  std::mutex mu_;
  std::vector<Record> records_;                   // in commit order
  std::map<std::string, size_t> by_id_;           // id -> index in records_
  std::unique_ptr<stepfault::WritableFile> log_;  // appends
  uint64_t next_id_ = 1;
};

}  // namespace kvstore
