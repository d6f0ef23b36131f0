// The JSON host's response ledger and its oracle (see json_responses.h).
#include "scenarios/json/json_responses.h"

#include <map>
#include <set>

#include "engine/checkpoint.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios {

Json ReadRequestLedger(Env* env, const std::string& dir) {
  auto bytes = env->ReadFile(JoinPath(dir, kRequestLedgerFile));
  if (!bytes.ok()) return Json::object();
  Json j = Json::parse(*bytes, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : Json::object();
}

Json ConflictingResponseBody(const Json& body) {
  if (!body.is_object() || body.empty()) return Json{{"edited", true}};
  Json out = body;
  for (auto& [key, value] : out.items()) {
    if (value.is_string()) {
      value = value.get<std::string>() + " (edited)";
    } else if (value.is_boolean()) {
      value = !value.get<bool>();
    } else if (value.is_number_integer()) {
      value = value.get<int64_t>() + 1;
    } else if (value.is_number()) {
      value = value.get<double>() + 1;
    } else {
      value = "edited";
    }
  }
  return out;
}

namespace {

// Per stored, intact checkpoint of the session: its parent and the requests pending in it.
struct Pending {
  std::string parent;
  std::set<std::string> requests;
};

std::map<std::string, Pending> PendingByCheckpoint(const HostEnv& env,
                                                   const std::string& session_id) {
  std::map<std::string, Pending> out;
  auto stored = ReadDurableCheckpoints(env, "checkpoints");
  if (!stored.ok()) return out;
  for (const DurableCheckpoint& c : stored->items) {
    if (!c.intact || c.entry.info.session_id != session_id) continue;
    const Checkpoint* cp = c.decoded.get();  // resolved once per read (DurableCheckpoints)
    if (cp == nullptr) continue;
    Pending p;
    if (cp->parent) p.parent = cp->parent->checkpoint_id;
    for (const PendingRequest& r : cp->outstanding) p.requests.insert(r.request_id);
    out[c.entry.info.checkpoint_id] = std::move(p);
  }
  return out;
}

// INV-DECISION: the ledger's recorded responses never change (remembered across checks).
void CheckRecordedResponses(HostEnv& env, const Json& ledger, std::vector<Violation>* out) {
  Json& seen = (*env.oracle_memo)["json_responses"];
  for (const auto& [id, entry] : ledger.items()) {
    if (!entry.is_object() || !entry.contains("response")) continue;
    if (seen.contains(id) && seen[id] != entry["response"]) {
      out->push_back({kInvDecision, "the recorded response to request " + id + " changed from " +
                                        seen[id].dump() + " to " + entry["response"].dump()});
    }
    seen[id] = entry["response"];
  }
}

// Every response a stored checkpoint consumed was recorded first (INV-DECISION), and once only
// (INV-REQID: two stored checkpoints consuming it mean the run resumed twice on it).
void CheckConsumedResponses(const std::map<std::string, Pending>& pending, const Json& ledger,
                            std::vector<Violation>* out) {
  std::map<std::string, std::vector<std::string>> consumers;
  for (const auto& [id, p] : pending) {
    auto parent = pending.find(p.parent);
    if (p.parent.empty() || parent == pending.end()) continue;
    for (const std::string& request : parent->second.requests) {
      if (p.requests.count(request) == 0) consumers[request].push_back(id);
    }
  }
  for (const auto& [request, by] : consumers) {
    const Json entry = ledger.value(request, Json::object());
    if (!entry.is_object() || !entry.contains("response")) {
      out->push_back({kInvDecision, "checkpoint " + by.front() +
                                        " consumed a response to request " + request +
                                        " that the host had not recorded"});
    }
    if (by.size() > 1) {
      out->push_back({kInvReqid, "the response to request " + request +
                                     " resumed the run twice: checkpoints " + by[0] + " and " +
                                     by[1] + " both consumed it"});
    }
  }
}

// What each life reported of the misuse it was asked to commit.
void CheckMisuseFacts(const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  for (size_t i = 0; i < lives.size(); ++i) {
    const Json& f = lives[i].facts;
    const std::string life = "life " + std::to_string(i + 1);
    if (f.contains("conflicting_rejected") && !f["conflicting_rejected"].get<bool>()) {
      out->push_back({kInvDecision, life + ": a conflicting response to request " +
                                        f.value("conflicting_request", std::string()) +
                                        " was accepted"});
    }
    // The engine rejects at the next step; a life that died before it could not see it.
    const bool saw_next_step = f.value("drive_done", false);
    if (saw_next_step && f.contains("duplicate_rejected") && !f["duplicate_rejected"].get<bool>()) {
      out->push_back({kInvReqid, life + ": a duplicate response to request " +
                                     f.value("duplicate_request", std::string()) +
                                     " was not rejected"});
    }
    if (saw_next_step && f.contains("mismatched_rejected") &&
        !f["mismatched_rejected"].get<bool>()) {
      out->push_back({kInvReqid, life + ": a response to request " +
                                     f.value("mismatched_request_id", std::string()) +
                                     ", which is not pending, was not rejected"});
    }
  }
}

}  // namespace

void CheckJsonResponses(HostEnv& env, const std::string& session_id,
                        const std::vector<LifeReport>& lives, std::vector<Violation>* out) {
  const Json ledger = ReadRequestLedger(env.env, env.dir);
  if (env.oracle_memo != nullptr) CheckRecordedResponses(env, ledger, out);
  CheckConsumedResponses(PendingByCheckpoint(env, session_id), ledger, out);
  CheckMisuseFacts(lives, out);
}

}  // namespace stepfault::scenarios
