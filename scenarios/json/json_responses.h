// The JSON host's responses (issue 12: duplicate and conflicting responses, as the approval
// scenario has them) and the oracle that judges them from durable bytes. Internal to the JSON
// scenario.
//
// Host rules: the request ledger (`requests.json`, written with WriteFileAtomically) records, with
// every request the host reported, the response it answers with, before the response reaches the
// engine; a request the ledger already holds a response for is answered with exactly that
// response (a replay repeats it). A second response to an answered request is a duplicate when it
// is the recorded one (it goes to the engine, which must reject it: the run resumes once) and a
// conflict when it differs (the host refuses it with kFailedPrecondition, and neither the ledger
// nor the engine sees it). A response to a request id that is not pending goes to the engine,
// which must reject it.
//
// Oracle (CheckJsonResponses), from durable bytes and what lives reported:
//  - INV-DECISION: a response recorded in the ledger never changes; every response a stored
//    checkpoint consumed (pending in its parent, not in it) was recorded in the ledger first; a
//    conflicting response a life was offered was refused with a typed error.
//  - INV-REQID: no request's response is consumed by two stored checkpoints (a duplicate response
//    resumed the run twice); a duplicate or a response to a request that is not pending was
//    rejected by the engine.
// Thread-safety: as the scenario's life.
#pragma once

#include <string>
#include <vector>

#include "engine/env.h"
#include "engine/message.h"
#include "scenarios/scenario.h"

namespace stepfault::scenarios {

// The request ledger's file name in the scenario directory, and its content (an empty object when
// missing or unreadable; read-only).
inline constexpr const char* kRequestLedgerFile = "requests.json";
Json ReadRequestLedger(Env* env, const std::string& dir);

// The body of a conflicting response: every member of `body` changed (strings get " (edited)",
// booleans flip, numbers grow by one, anything else becomes "edited"); an empty body gets a member
// "edited": true, so the result always differs.
Json ConflictingResponseBody(const Json& body);

// The oracle above, after every life. `session_id` names the checkpoints to read in
// <dir>/checkpoints.
void CheckJsonResponses(HostEnv& env, const std::string& session_id,
                        const std::vector<LifeReport>& lives, std::vector<Violation>* out);

}  // namespace stepfault::scenarios
