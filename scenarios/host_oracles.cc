// The checks every host shares (see host_oracles.h).
#include "scenarios/host_oracles.h"

#include <map>

#include "engine/checkpoint.h"
#include "engine/crc32c.h"
#include "engine/env.h"
#include "engine/stores/file_store.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios {

void CheckAncestry(HostEnv& env, const std::string& subdir, const std::string& session_id,
                   std::vector<Violation>* out) {
  // Reads the checkpoint files directly (commit order is the file name order), and remembers what
  // it parsed by checksum in the memo, so each file is parsed once per run however many lives look.
  const std::string dir = JoinPath(env.dir, subdir);
  auto children = env.env->GetChildren(dir);
  if (!children.ok()) return;
  Json& seen = (*env.oracle_memo)["checkpoint_crc"];
  Json& parsed = (*env.oracle_memo)["checkpoint_parsed"];
  std::map<std::string, int64_t> steps;
  bool first = true;
  for (const std::string& name : *children) {
    if (!name.ends_with(".json")) continue;
    auto bytes = env.env->ReadFile(JoinPath(dir, name));
    if (!bytes.ok()) continue;
    const std::string crc = Crc32cTag(*bytes);
    if (!parsed.contains(crc)) {
      Json info = nullptr;
      Json envelope = CheckpointFileAsJson(*bytes);
      // Only a file whose own seal holds counts: injected damage is INV-CORRUPT's business.
      bool sealed = false;
      if (!envelope.is_discarded() && envelope.is_object() && envelope.contains("checksum")) {
        Json unsealed = envelope;
        unsealed.erase("checksum");
        sealed = envelope["checksum"] == Crc32cTag(unsealed.dump());
      }
      const Json* doc =
          sealed && envelope.contains("checkpoint") ? &envelope["checkpoint"] : nullptr;
      // The checkpoint's own seal must hold too (a planted malformed checkpoint is not ancestry).
      if (doc != nullptr && doc->is_object() && doc->contains("body") &&
          doc->contains("checksum") && (*doc)["checksum"] == Crc32cTag((*doc)["body"].dump())) {
        auto cp = CheckpointBodyFromJson((*doc)["body"]);
        if (cp.ok()) {
          info = Json{{"session", cp->session_id},
                      {"id", envelope.value("checkpoint_id", std::string())},
                      {"step", cp->step_number},
                      {"parent", cp->parent ? Json(cp->parent->checkpoint_id) : Json(nullptr)}};
        }
      }
      parsed[crc] = info;  // null: damaged or not a checkpoint file (INV-CORRUPT's business)
    }
    const Json& info = parsed[crc];
    if (info.is_null() || info["session"] != session_id) continue;
    const std::string id = info["id"].get<std::string>();
    if (seen.contains(id) && seen[id] != crc) {
      out->push_back({kInvAncestry, "stored checkpoint " + id + " changed after it was committed"});
    }
    seen[id] = crc;
    const int64_t step = info["step"].get<int64_t>();
    steps[id] = step;
    if (!first && info["parent"].is_null()) {
      out->push_back({kInvAncestry, "checkpoint " + id + " (step " + std::to_string(step) +
                                        ") is not its session's first yet has no parent link"});
    }
    first = false;
    if (!info["parent"].is_null()) {
      auto parent_step = steps.find(info["parent"].get<std::string>());
      if (parent_step != steps.end() && parent_step->second + 1 != step) {
        out->push_back({kInvAncestry, "checkpoint " + id + " is step " + std::to_string(step) +
                                          " but its parent is step " +
                                          std::to_string(parent_step->second)});
      }
    }
  }
}

void CheckHostFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  for (size_t i = 0; i < lives.size(); ++i) {
    const Json& f = lives[i].facts;
    const std::string life = "life " + std::to_string(i + 1);
    if (f.value("run_ended_by_observer_cancel", false)) {
      out->push_back({kInvObserver, life + ": cancelling the event watcher ended the run"});
    }
    if (f.contains("topology_rejected") && !f["topology_rejected"].get<bool>()) {
      out->push_back({kInvTopology, life + ": a resume with a mutated workflow (" +
                                        f.value("topology_mutation", std::string()) +
                                        ") was accepted"});
    }
    if (f.contains("workflow_reusable") && !f["workflow_reusable"].get<bool>()) {
      out->push_back(
          {kInvTopology, life + ": the workflow stayed owned after its resume was rejected"});
    }
  }
}

}  // namespace stepfault::scenarios
