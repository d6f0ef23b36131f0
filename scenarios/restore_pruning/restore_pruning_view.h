// Pieces of the restore-pruning scenario that read durable state without going through a store:
// a byte-level view of a checkpoint directory, the scenario's progress file, and the oracle rules
// that compare two views.
//
// The view reads the checkpoint files directly through the Env, so taking one never prunes, locks
// or repairs anything, whatever store mutant is on (a FileCheckpointStore with prune_on_read would
// erode the very ancestry it is asked to show). Files are ordered by their sequence prefix, which
// is the store's commit order.
// Thread-safety: values and pure functions; reading needs the Env the life owns.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_store.h"
#include "engine/env.h"
#include "engine/message.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// One checkpoint file as read from the directory.
struct RestorePruningFile {
  std::string name;          // file name, "<seq>-<id>.json" (the SQLite store: "row <seq>")
  std::string id;            // the checkpoint id it is filed under, damaged or not
  std::string crc;           // Crc32cTag of the whole file
  bool envelope_ok = false;  // the store's envelope parsed (else the file counts as damaged)
  StoreEntry entry;          // when envelope_ok
  std::optional<Checkpoint> checkpoint;   // when the document inside decodes
  std::optional<std::string> delta_base;  // the base of an incremental checkpoint
};

struct RestorePruningView {
  std::vector<RestorePruningFile> files;           // checkpoint files in commit order
  std::map<std::string, std::string> crc_by_name;  // every file but LOCK and temps

  // The session's entries whose envelope parsed, in commit order (the store's index).
  std::vector<StoreEntry> Index(const std::string& session_id) const;
  const RestorePruningFile* Find(const std::string& checkpoint_id) const;
  Json ToJson() const;  // {name: crc}
};

// How much of each file a view decodes: only the bytes' checksums (enough to compare two views),
// the store's envelopes too, or the checkpoint documents as well.
enum class RestorePruningDepth { kBytes, kEnvelopes, kCheckpoints };

// Reads the checkpoint store in env.dir/<subdir> through ReadDurableCheckpoints (the stores' own
// exported decoders; missing: an empty view). Fails only when the store cannot be listed.
Result<RestorePruningView> ReadRestorePruningView(
    const HostEnv& env, const std::string& subdir,
    RestorePruningDepth depth = RestorePruningDepth::kCheckpoints);

// The host's durable progress: how many of the six cases are done, the chain the cases work on,
// and the switch that makes the guarded executor's restore hook fail (case 3).
struct RestorePruningProgress {
  int cases_done = 0;
  std::string first_id;    // the chain's first checkpoint (position 0 of the index)
  std::string pending_id;  // the chain's checkpoint with the pending request
  std::string request_id;  // that request's id
  bool restore_hook_fails = false;
  std::string case6_target;  // the non-latest checkpoint case 6 restores, once chosen

  Json ToJson() const;
};

inline constexpr const char* kRestorePruningProgressFile = "progress.json";

// Missing file: a fresh progress. A file that does not parse is kCorruption.
Result<RestorePruningProgress> ReadRestorePruningProgress(Env* env, const std::string& dir);
// Publishes the progress with WriteFileAtomically.
Status WriteRestorePruningProgress(Env* env, const std::string& dir,
                                   const RestorePruningProgress& progress);

// Oracle rules over two directory views (JSON as ToJson makes them). Each returns "" when the rule
// holds, else what broke.
// A failed restore changed nothing: the same files with the same bytes.
std::string RestorePruningUnchanged(const Json& before, const Json& after);
// A successful restore of `target` removed exactly ExpectedPruned(before_index, target) (the rule
// written independently in host_oracles.h)
// (only a prefix of it, oldest first, when the observer reported a failure) and changed nothing
// else. `before_index` is a list of {"name","id","parent"} in commit order.
std::string RestorePruningPrunedExactly(const Json& before_index, const Json& before,
                                        const Json& after, const std::string& session_id,
                                        const std::string& target, bool observer_ok);
// {"name","id","parent"} per indexed entry of the session, for RestorePruningPrunedExactly.
Json RestorePruningIndexJson(const RestorePruningView& view, const std::string& session_id);

}  // namespace stepfault::scenarios
