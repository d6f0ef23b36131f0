// The interactive-flow actors (see flow_actors.h). Each function is one actor's program; every
// durable change is one BEGIN IMMEDIATE transaction that journals what it did.
#include "scenarios/interactive_flow/flow_actors.h"

#include <stdexcept>
#include <string>

#include "scenarios/interactive_flow/flow_hazards.h"
#include "scenarios/interactive_flow/flow_runtime.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios::flow {
namespace {

constexpr char kRun[] = "run-1";
// The InputRequest of the run's one runtime request (the engine's RequestId of its one port's
// request; the InputRequest's own id is chosen when it is created).
constexpr char kRequestOf[] =
    "(SELECT id FROM InputRequest WHERE run = 'run-1' ORDER BY rowid LIMIT 1)";
constexpr char kOperation[] = "effect:run-1";

int64_t Now(FlowDb& db) { return db.QueryInt("SELECT now FROM Clock WHERE id = 1", 0); }

void Journal(FlowDb& db, const std::string& kind, const std::string& request,
             const std::string& owner, int64_t epoch, int64_t at, const std::string& detail) {
  db.Exec("INSERT INTO Journal(kind, run, request, owner, epoch, at, detail) VALUES(" + Q(kind) +
          "," + Q(kRun) + "," + Q(request) + "," + Q(owner) + "," + std::to_string(epoch) + "," +
          std::to_string(at) + "," + Q(detail) + ")");
}

// A worker's claim on the run: the lease epoch it won and when.
struct Claim {
  int64_t epoch = 0;
  int64_t claimed_at = 0;
};

// Begins a transaction of guarded work under `claim`: false (nothing begun) when the worker must
// stop: its orchestration timeout passed (it abandons the claim, relying on the lease outliving
// the timeout), or the lock stayed busy. Journals the work with the claim's epoch.
bool BeginGuarded(const ActorContext& c, const Claim& claim, const char* what) {
  c.Step(what);
  FlowDb& db = *c.db;
  if (!db.Begin()) return false;
  const int64_t now = Now(db);
  if (now > claim.claimed_at + c.options->orchestration_timeout_ticks) {
    db.Rollback();
    return false;
  }
  Journal(db, "work", "", c.name, claim.epoch, now, what);
  return true;
}

// Frees the lease the worker claimed: fenced by the claim's epoch, so a worker whose claim was
// superseded (it abandoned it, the lease expired, another worker claimed) changes nothing. The
// mutant releases by run alone and clears the newer holder's lease.
void Release(const ActorContext& c, const Claim& claim) {
  c.Step("worker.release");
  FlowDb& db = *c.db;
  if (!db.Begin()) return;
  const int64_t now = Now(db);
  const std::string fence = c.options->has(kHazardLeaseReleaseIgnoresEpoch)
                                ? ""
                                : " AND epoch = " + std::to_string(claim.epoch);
  db.Exec("UPDATE Lease SET owner = NULL, expires_at = " + std::to_string(now) +
          " WHERE run = " + Q(kRun) + fence);
  if (db.Changes() == 1) Journal(db, "release", "", c.name, claim.epoch, now, "");
  db.Commit();
}

std::string RequestId(FlowDb& db) {
  std::vector<Row> rows = db.Query(std::string("SELECT ") + kRequestOf);
  return rows.empty() ? "" : rows[0][0];
}

// Created -> WaitingForInput: bindings (once), the runtime's run to its request (its
// checkpoints, through the adapter), one InputRequest for that request.
void Materialise(const ActorContext& c, const Claim& claim) {
  FlowDb& db = *c.db;
  // A new request id per attempt (as a GUID would be); the request itself is created once.
  const std::string fresh_id = "req-" + c.name + "-" + std::to_string(claim.epoch);
  if (c.options->has(kHazardProjectionBeforeTruth)) {
    if (!BeginGuarded(c, claim, "worker.project")) return;
    db.Exec("INSERT OR IGNORE INTO PendingAction VALUES(" + Q(kRun) + "," + Q(fresh_id) +
            ", 'action-required')");
    db.Commit();
  }
  if (!BeginGuarded(c, claim, "worker.materialise")) return;
  const int64_t now = Now(db);
  // First materialisation resolves the latest revision once and records it; never again.
  db.Exec("INSERT OR IGNORE INTO Binding SELECT " + Q(kRun) +
          ", 'planner', 'agents', 'planner', 1, max(revision), 'deploy-planner', 'standard', "
          "'model-a' FROM Revision WHERE agent = 'planner' AND purged = 0");
  const int64_t revision = db.QueryInt(
      "SELECT revision FROM Binding WHERE run = " + Q(kRun) + " AND participant = 'planner'", 0);
  // The runtime runs once: a materialisation that committed moved the run out of Created.
  const RuntimeOutcome runtime = StartRuntime(db, kRun, revision);
  if (!runtime.status.ok()) {
    db.Rollback();
    throw std::runtime_error("participant runtime: " + runtime.status.ToString());
  }
  db.Exec("INSERT INTO InputRequest SELECT " + Q(fresh_id) + "," + Q(kRun) + "," +
          Q(runtime.request_id) + ", 'Pending', '', 0, '', 0, " +
          std::to_string(now + c.options->request_expiry_ticks) + ", 0, " + Q(runtime.checkpoint) +
          " WHERE NOT EXISTS (SELECT 1 FROM InputRequest WHERE run = " + Q(kRun) +
          " AND runtime_request = " + Q(runtime.request_id) + ")");
  db.Exec("UPDATE FlowRun SET status = 'WaitingForInput' WHERE id = " + Q(kRun) +
          " AND status = 'Created'");
  db.Commit();
  if (c.options->has(kHazardProjectionBeforeTruth)) return;
  if (!BeginGuarded(c, claim, "worker.project")) return;
  db.Exec(
      "INSERT OR IGNORE INTO PendingAction SELECT run, id, 'action-required' FROM "
      "InputRequest WHERE id = " +
      std::string(kRequestOf) + " AND state = 'Pending'");
  db.Commit();
}

// The revision a resume runs: the recorded binding (or, as the mutant does, the latest one).
int64_t ResumeRevision(const ActorContext& c) {
  if (c.options->has(kHazardResumeLatestRevision)) {
    return c.db->QueryInt(
        "SELECT max(revision) FROM Revision WHERE agent = 'planner' AND "
        "purged = 0",
        0);
  }
  return c.db->QueryInt(
      "SELECT revision FROM Binding WHERE run = " + Q(kRun) + " AND participant = 'planner'", 0);
}

// Answered -> resumed (once): the runtime's next super-step, checkpointed; the final step (the
// effect) is dispatched as the next message.
void Resume(const ActorContext& c, const Claim& claim) {
  FlowDb& db = *c.db;
  if (!BeginGuarded(c, claim, "worker.resume")) return;
  const int64_t now = Now(db);
  const std::string request = RequestId(db);
  const int64_t revision = ResumeRevision(c);
  if (db.QueryInt("SELECT purged FROM Revision WHERE agent = 'planner' AND revision = " +
                      std::to_string(revision),
                  1) != 0) {
    // The bound revision is gone: the run cannot resume (historical runs keep the binding).
    db.Exec("UPDATE FlowRun SET status = 'Failed', error = 'revision purged' WHERE id = " +
            Q(kRun));
    Journal(db, "failed", request, c.name, claim.epoch, now, std::to_string(revision));
    db.Commit();
    return;
  }
  // Resumed once: the flag is the guard (the mutant resumes for every accepted response).
  db.Exec("UPDATE InputRequest SET resumed = 1 WHERE id = " + Q(request) +
          " AND state = 'Answered'" +
          (c.options->has(kHazardDuplicateResponseResumesTwice) ? "" : " AND resumed = 0"));
  if (db.Changes() != 1) {
    db.Rollback();
    return;
  }
  Journal(db, "resume", request, c.name, claim.epoch, now, std::to_string(revision));
  // The adapter resumes the runtime from the request's checkpoint and answers it.
  const std::vector<Row> raised =
      db.Query("SELECT checkpoint, value FROM InputRequest WHERE id = " + Q(request));
  const RuntimeOutcome runtime = ResumeRuntime(db, kRun, raised[0][0], revision, raised[0][1]);
  if (!runtime.status.ok()) {
    db.Rollback();
    throw std::runtime_error("participant runtime: " + runtime.status.ToString());
  }
  db.Exec("UPDATE FlowRun SET status = 'Running' WHERE id = " + Q(kRun));
  db.Exec("DELETE FROM PendingAction WHERE request = " + Q(request));
  db.Exec("INSERT INTO Queue(run, reason) VALUES(" + Q(kRun) + ", 'next-step')");
  db.Commit();
}

void ApplyEffect(const ActorContext& c, const Claim& claim) {
  FlowDb& db = *c.db;
  if (!BeginGuarded(c, claim, "worker.effect")) return;
  const int64_t now = Now(db);
  // Provider-level idempotency: the stable operation id is written once.
  if (db.QueryInt("SELECT count(*) FROM Effect WHERE op_id = " + Q(kOperation), 0) == 0) {
    db.Exec("INSERT INTO Effect VALUES(" + Q(kOperation) + "," + Q(kRun) +
            ", (SELECT value FROM InputRequest WHERE id = " + kRequestOf + "))");
    Journal(db, "effect", RequestId(db), c.name, claim.epoch, now, kOperation);
  }
  db.Exec("UPDATE FlowRun SET status = 'Completed' WHERE id = " + Q(kRun) +
          " AND status = 'Running'");
  db.Commit();
}

// Tries to claim the run for the queue message `seq` (consumed either way: the sweep re-enqueues
// what still needs work). Returns false when the lease is held by someone else.
bool TryClaim(const ActorContext& c, int64_t seq, int64_t seen_epoch, Claim* claim) {
  c.Step("worker.claim");
  FlowDb& db = *c.db;
  if (!db.Begin()) return false;
  const int64_t now = Now(db);
  db.Exec("DELETE FROM Queue WHERE seq = " + std::to_string(seq));
  std::string condition = " AND epoch = " + std::to_string(seen_epoch);
  if (!c.options->has(kHazardLeaseNotCheckedOnClaim)) {
    condition += " AND (owner IS NULL OR expires_at <= " + std::to_string(now) + ")";
  }
  db.Exec("UPDATE Lease SET owner = " + Q(c.name) + ", epoch = epoch + 1, claimed_at = " +
          std::to_string(now) + ", expires_at = " + std::to_string(now + c.options->lease()) +
          " WHERE run = " + Q(kRun) + condition);
  const bool won = db.Changes() == 1;
  if (won) {
    *claim = Claim{seen_epoch + 1, now};
    Journal(db, "claim", "", c.name, claim->epoch, now, std::to_string(now + c.options->lease()));
  }
  db.Commit();
  return won;
}

// One poll: take the oldest queue message, claim the run, do what its durable state calls for.
void Poll(const ActorContext& c) {
  c.Step("worker.poll");
  FlowDb& db = *c.db;
  std::vector<Row> head = db.Query("SELECT seq FROM Queue ORDER BY seq LIMIT 1");
  if (head.empty()) return;
  const int64_t epoch = db.QueryInt("SELECT epoch FROM Lease WHERE run = " + Q(kRun), 0);
  Claim claim;
  if (!TryClaim(c, std::stoll(head[0][0]), epoch, &claim)) return;
  const std::string status = db.Query("SELECT status FROM FlowRun WHERE id = " + Q(kRun))[0][0];
  const std::vector<Row> request =
      db.Query(std::string("SELECT state, resumed FROM InputRequest WHERE id = ") + kRequestOf);
  if (status == "Created") {
    Materialise(c, claim);
  } else if (!request.empty() && request[0][0] == "Answered" &&
             (request[0][1] == "0" || c.options->has(kHazardDuplicateResponseResumesTwice)) &&
             (status == "WaitingForInput" || status == "Running")) {
    Resume(c, claim);  // one super-step; the final one is the next dispatch
  } else if (status == "Running") {
    ApplyEffect(c, claim);
  }
  Release(c, claim);
}

}  // namespace

int64_t FlowOptions::lease() const {
  return has(kHazardLeaseShorterThanTimeout) ? orchestration_timeout_ticks - 3 : lease_ticks;
}

void WorkerActor(const ActorContext& c) {
  for (int i = 0; i < c.options->worker_polls; ++i) Poll(c);
}

void ResponderActor(const ActorContext& c) {
  FlowDb& db = *c.db;
  const std::pair<const char*, const char*> responses[] = {
      {"approve", "alice"}, {"approve", "alice"}, {"reject", "bob"}};
  for (const auto& [value, principal] : responses) {
    std::vector<Row> request;
    for (int wait = 0; wait < 6 && request.empty(); ++wait) {
      c.Step("responder.wait");
      request =
          db.Query(std::string("SELECT version, id FROM InputRequest WHERE id = ") + kRequestOf);
    }
    if (request.empty()) return;
    const std::string version = request[0][0];
    const std::string id = request[0][1];
    c.Step("responder.respond");
    if (!db.Begin()) continue;
    const int64_t now = Now(db);
    const std::string guard = c.options->has(kHazardDuplicateResponseResumesTwice)
                                  ? ", resumed = 0"
                                  : " WHERE version = " + version + " AND state = 'Pending' AND";
    const std::string set = "UPDATE InputRequest SET state = 'Answered', value = " + Q(value) +
                            ", principal = " + Q(principal) +
                            ", answered_at = " + std::to_string(now) + ", version = version + 1";
    db.Exec(c.options->has(kHazardDuplicateResponseResumesTwice)
                ? set + guard + " WHERE id = " + Q(id)
                : set + guard + " id = " + Q(id));
    if (db.Changes() == 1) {
      Journal(db, "accept", id, principal, 0, now, value);
      db.Exec("INSERT INTO Queue(run, reason) VALUES(" + Q(kRun) + ", 'continuation')");
    } else {
      Journal(db, "conflict", id, principal, 0, now, value);
    }
    db.Commit();
  }
}

void SweeperActor(const ActorContext& c, int sweeps) {
  for (int i = 0; i < sweeps; ++i) Sweep(c);
}

}  // namespace stepfault::scenarios::flow
