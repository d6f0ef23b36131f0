// The durable records of the interactive-flow model (ADR-0054), in one SQLite database on the
// simulated file system, and the connection every actor uses.
//
// Tables (flow.db): FlowRun (id, immutable definition snapshot, status, error); Binding (one row
// per participant, written once at first materialisation: namespace, resource, generation,
// revision, deployment, runtime profile, model profile); Revision (agent revisions: created_at,
// purged); RuntimeState (the IRuntimeExecutionStateStore: opaque checkpoint bytes keyed by run,
// runtime type and state id, with the parent state id: the engine's encoded checkpoints, written
// and read only by the adapter, flow_runtime.h); InputRequest (one per runtime request, keyed by
// the engine's RequestId: Pending/Answered/Expired, value, answered_at, principal, version for
// optimistic concurrency, resumed, and the opaque state id of the checkpoint it was raised in);
// Lease (the run's execution lease: owner, epoch: the fencing token every claim increments and
// the release names, expires_at on the logical clock); Queue (the
// at-least-once dispatch queue); PendingAction (the Workplace projection); Effect (the final side
// effect, by stable operation id; no unique key, so a second write is visible); Clock (the logical
// clock, a durable row the clock actor advances: `time:advance`); Journal (an ordered log, written
// in the same transaction as what it records: claims, guarded work, accepted and conflicting
// responses, expiries, resumes, purges, audit events, sweeps). The oracles read only these bytes
// (scenarios/interactive_flow/flow_oracle.h).
//
// Durability: rollback journal (DELETE; the simulated VFS has no shared memory) with
// synchronous=EXTRA, so a committed transaction survives power loss.
// Thread-safety: a FlowDb is one connection, used by one actor thread.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/status.h"

namespace stepfault::scenarios::flow {

using Row = std::vector<std::string>;

// Thrown (never through SQLite's C frames) when an actor's SQLite call fails because its process
// was killed or the machine lost power; the actor's body unwinds.
struct ActorGone {};

class FlowDb {
 public:
  // Opens path through vfs (its own simulated process); the busy handler yields to the actor
  // scheduler when there is one.
  FlowDb(const std::string& path, const std::string& vfs);
  ~FlowDb();
  FlowDb(const FlowDb&) = delete;
  FlowDb& operator=(const FlowDb&) = delete;

  // Runs sql; SQLITE_OK or SQLITE_BUSY (the busy handler gave up) are returned, any other failure
  // throws ActorGone when the process is gone and std::runtime_error otherwise.
  int Exec(const std::string& sql);
  // Rows of a query (values as text, NULL as ""); throws like Exec, BUSY included.
  std::vector<Row> Query(const std::string& sql);
  int64_t QueryInt(const std::string& sql, int64_t fallback);
  int64_t Changes() const;
  // BEGIN IMMEDIATE; false when the lock stayed busy (the run was cut off).
  bool Begin();
  void Commit();
  void Rollback();

 private:
  [[noreturn]] void Fail(int rc, const std::string& sql);
  sqlite3* db_ = nullptr;
};

// Creates the schema and the model's initial rows (one run, its agent's first revision, the clock
// at 0) in one transaction; idempotent.
void CreateFlowDatabase(FlowDb& db);

// SQL string literal.
std::string Q(const std::string& text);

}  // namespace stepfault::scenarios::flow
