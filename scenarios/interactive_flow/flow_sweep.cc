// The interactive-flow sweeper, clock and recovery (see flow_actors.h), and the hazard table.
#include <string>

#include "scenarios/interactive_flow/flow_actors.h"
#include "scenarios/interactive_flow/flow_hazards.h"
#include "scenarios/invariants.h"

namespace stepfault::scenarios::flow {
namespace {

constexpr char kRun[] = "run-1";

int64_t Now(FlowDb& db) { return db.QueryInt("SELECT now FROM Clock WHERE id = 1", 0); }

void Journal(FlowDb& db, const std::string& kind, const std::string& request, int64_t at,
             const std::string& detail) {
  db.Exec("INSERT INTO Journal(kind, run, request, owner, epoch, at, detail) VALUES(" + Q(kind) +
          "," + Q(kRun) + "," + Q(request) + ", 'system', 0," + std::to_string(at) + "," +
          Q(detail) + ")");
}

// Expires every request whose time is up (decided from one read, applied after a step, as a
// sweeper that lists candidates and then updates them would).
void ExpireDue(const ActorContext& c) {
  FlowDb& db = *c.db;
  const int64_t seen_now = Now(db);
  std::vector<Row> due = db.Query(
      "SELECT id FROM InputRequest WHERE state = 'Pending' AND "
      "expires_at <= " +
      std::to_string(seen_now));
  for (const Row& row : due) {
    c.Step("sweep.expire");
    if (!db.Begin()) continue;
    const std::string guard =
        c.options->has(kHazardExpiryIgnoresAcceptance)
            ? ""
            : " AND state = 'Pending' AND expires_at <= " + std::to_string(Now(db));
    db.Exec("UPDATE InputRequest SET state = 'Expired', version = version + 1 WHERE id = " +
            Q(row[0]) + guard);
    if (db.Changes() == 1) {
      db.Exec("UPDATE FlowRun SET status = 'TimedOut' WHERE id = " + Q(kRun) +
              " AND status IN ('WaitingForInput', 'Running', 'Created')");
      db.Exec("DELETE FROM PendingAction WHERE request = " + Q(row[0]));
      Journal(db, "expire", row[0], Now(db), "");
    }
    db.Commit();
  }
}

// Re-enqueues the run when it needs work (not started, resumed but not finished, or answered and
// not resumed) and its lease is not live, unless a message already waits; repairs the projection.
void RequeueAndRepair(const ActorContext& c) {
  c.Step("sweep.requeue");
  FlowDb& db = *c.db;
  if (!db.Begin()) return;
  const int64_t now = Now(db);
  const bool needs_work =
      db.QueryInt("SELECT count(*) FROM FlowRun WHERE id = " + Q(kRun) +
                      " AND (status IN ('Created', 'Running') OR (status = 'WaitingForInput' "
                      "AND EXISTS (SELECT 1 FROM InputRequest WHERE run = " +
                      Q(kRun) + " AND state = 'Answered' AND resumed = 0)))",
                  0) > 0;
  const bool live =
      db.QueryInt("SELECT count(*) FROM Lease WHERE run = " + Q(kRun) +
                      " AND owner IS NOT NULL AND expires_at > " + std::to_string(now),
                  0) > 0;
  const bool queued = db.QueryInt("SELECT count(*) FROM Queue WHERE run = " + Q(kRun), 0) > 0;
  const bool steal = c.options->has(kHazardSweepRequeuesLiveLease);
  if (needs_work && !queued && (!live || steal)) {
    // The mutant takes a live lease for abandoned and frees it for the next claim.
    if (live) db.Exec("UPDATE Lease SET owner = NULL, expires_at = 0 WHERE run = " + Q(kRun));
    db.Exec("INSERT INTO Queue(run, reason) VALUES(" + Q(kRun) + ", 'recovery')");
  }
  if (!c.options->has(kHazardProjectionBeforeTruth)) {
    db.Exec(
        "DELETE FROM PendingAction WHERE request NOT IN (SELECT id FROM InputRequest WHERE "
        "state = 'Pending')");
    db.Exec(
        "INSERT OR IGNORE INTO PendingAction SELECT run, id, 'action-required' FROM "
        "InputRequest WHERE state = 'Pending'");
  }
  Journal(db, "sweep", "", now, "");
  db.Commit();
}

// Retention: a revision may go when it is not among the agent's latest three and is older than
// the retention age; a live run's binding blocks it, unless the purge is forced, which first
// terminates the referencing runs with an explicit error and appends an audit event.
void Purge(const ActorContext& c) {
  c.Step("clock.purge");
  FlowDb& db = *c.db;
  if (!db.Begin()) return;
  const int64_t now = Now(db);
  std::vector<Row> eligible = db.Query(
      "SELECT revision FROM Revision WHERE agent = 'planner' AND purged = 0 AND created_at < " +
      std::to_string(now - c.options->retention_ticks) +
      " AND revision NOT IN (SELECT revision FROM Revision WHERE agent = 'planner' ORDER BY "
      "revision DESC LIMIT 3)");
  for (const Row& row : eligible) {
    const std::string live_refs =
        "SELECT count(*) FROM Binding b JOIN FlowRun f ON f.id = b.run WHERE b.revision = " +
        row[0] + " AND f.status NOT IN ('Completed', 'TimedOut', 'Failed')";
    const bool referenced = db.QueryInt(live_refs, 0) > 0;
    if (referenced && !c.options->has(kHazardPurgeIgnoresLiveReferences)) {
      if (!c.options->force_purge) continue;  // blocked by active use
      db.Exec(
          "UPDATE FlowRun SET status = 'Failed', error = 'terminated: forced purge of "
          "revision " +
          row[0] + "' WHERE id IN (SELECT run FROM Binding WHERE revision = " + row[0] +
          ") AND status NOT IN ('Completed', 'TimedOut', 'Failed')");
      Journal(db, "audit", "", now, "forced purge of planner revision " + row[0]);
    }
    db.Exec("UPDATE Revision SET purged = 1 WHERE agent = 'planner' AND revision = " + row[0]);
    Journal(db, "purge", "", now, row[0]);
  }
  db.Commit();
}

void Advance(const ActorContext& c, int64_t ticks) {
  c.Step("time:advance");
  JumpClock(*c.db, ticks);
}

void Publish(const ActorContext& c) {
  c.Step("clock.publish");
  FlowDb& db = *c.db;
  if (!db.Begin()) return;
  db.Exec(
      "INSERT INTO Revision SELECT 'planner', max(revision) + 1, (SELECT now FROM Clock), 0 "
      "FROM Revision WHERE agent = 'planner'");
  db.Commit();
}

}  // namespace

bool JumpClock(FlowDb& db, int64_t ticks) {
  if (!db.Begin()) return false;
  db.Exec("UPDATE Clock SET now = now + " + std::to_string(ticks) + " WHERE id = 1");
  Journal(db, "time", "", Now(db), std::to_string(ticks));
  db.Commit();
  return true;
}

void Sweep(const ActorContext& c) {
  c.Step("sweep.start");
  ExpireDue(c);
  RequeueAndRepair(c);
}

void ClockActor(const ActorContext& c) {
  Advance(c, c.options->clock_step_ticks);
  for (int i = 0; i < 3; ++i) Publish(c);  // newer revisions: resume must not pick them up
  Advance(c, c.options->clock_step_ticks);
  Purge(c);
  Advance(c, c.options->clock_step_ticks);
}

void Recover(const ActorContext& c) {
  for (int round = 0; round < c.options->recovery_rounds; ++round) {
    Advance(c, c.options->lease());  // time passes: every lease taken so far expires
    Sweep(c);
    for (int i = 0; i < 3; ++i) WorkerActor(c);
  }
}

const std::vector<FlowHazard>& FlowHazards() {
  static const auto* list = new std::vector<FlowHazard>{
      {kHazardLeaseNotCheckedOnClaim,
       "a worker claims the execution lease without checking it is free", kInvFlowLease},
      {kHazardLeaseShorterThanTimeout,
       "the execution lease is shorter than the orchestration timeout", kInvFlowLease},
      {kHazardDuplicateResponseResumesTwice,
       "a response is recorded without the version check and every accepted response's "
       "continuation resumes the run",
       kInvFlowNoDoubleResume},
      {kHazardExpiryIgnoresAcceptance,
       "expiry overwrites a request without checking it is still pending", kInvFlowExpiry},
      {kHazardSweepRequeuesLiveLease,
       "the recovery sweep re-enqueues a run whose lease is live (and frees that lease)",
       kInvFlowLease},
      {kHazardProjectionBeforeTruth,
       "the PendingAction projection is written before the InputRequest and never repaired",
       kInvFlowProjection},
      {kHazardResumeLatestRevision, "resume resolves the latest agent revision, not the binding",
       kInvFlowBinding},
      {kHazardPurgeIgnoresLiveReferences,
       "retention purges a revision a live run is bound to, without terminating it or auditing",
       kInvFlowPurge},
      {kHazardLeaseReleaseIgnoresEpoch,
       "a worker releases the execution lease without its epoch (fencing token): a worker whose "
       "claim was superseded clears the newer holder's lease",
       kInvFlowLease},
  };
  return *list;
}

}  // namespace stepfault::scenarios::flow
