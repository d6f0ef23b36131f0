// The interactive-flow oracles (see flow_oracle.h). Each check is a query over the durable tables
// or a walk of the Journal in commit order.
#include "scenarios/interactive_flow/flow_oracle.h"

#include <map>
#include <string>

#include "scenarios/invariants.h"

namespace stepfault::scenarios::flow {
namespace {

void Report(std::vector<Violation>* out, const char* id, const std::string& message) {
  out->push_back(Violation{id, message});
}

// Every row of `sql` is one violation of `id`, described by its columns.
void EachRowViolates(FlowDb& db, const char* id, const std::string& what, const std::string& sql,
                     std::vector<Violation>* out) {
  for (const Row& row : db.Query(sql)) {
    std::string detail;
    for (const std::string& v : row) detail += (detail.empty() ? "" : " ") + v;
    Report(out, id, what + ": " + detail);
  }
}

// INV-FLOW-LEASE: walk claims, releases and guarded work in commit order; guarded work and a
// release are writes, allowed only under the newest claim (work also only while it is live).
void CheckLease(FlowDb& db, std::vector<Violation>* out) {
  struct Current {
    int64_t epoch = 0;
    std::string owner;
    int64_t expires = 0;
    bool held = false;
  };
  std::map<std::string, Current> runs;
  for (const Row& r : db.Query("SELECT kind, run, owner, epoch, at, detail FROM Journal WHERE "
                               "kind IN ('claim', 'release', 'work') ORDER BY seq")) {
    Current& cur = runs[r[1]];
    const int64_t epoch = std::stoll(r[3]);
    const int64_t at = std::stoll(r[4]);
    if (r[0] == "claim") {
      if (cur.held && at < cur.expires) {
        Report(out, kInvFlowLease,
               r[2] + " claimed " + r[1] + " at " + r[4] + " while " + cur.owner +
                   "'s lease (epoch " + std::to_string(cur.epoch) + ") was live until " +
                   std::to_string(cur.expires));
      }
      cur = Current{epoch, r[2], std::stoll(r[5]), true};
    } else if (r[0] == "release") {
      // A release writes the lease row: only the newest claim may (its epoch is the fence).
      if (epoch == cur.epoch) {
        cur.held = false;
      } else {
        Report(out, kInvFlowLease,
               r[2] + " released " + r[1] + " at " + r[4] + " under epoch " + r[3] +
                   ", but the newest claim is epoch " + std::to_string(cur.epoch) + " of " +
                   cur.owner +
                   (cur.held ? " until " + std::to_string(cur.expires) : " (released)"));
      }
    } else if (epoch != cur.epoch || !cur.held || at >= cur.expires) {
      Report(out, kInvFlowLease,
             r[2] + " wrote (" + r[5] + ") to " + r[1] + " at " + r[4] + " under epoch " + r[3] +
                 ", but the live claim is epoch " + std::to_string(cur.epoch) + " of " + cur.owner +
                 (cur.held ? " until " + std::to_string(cur.expires) : " (released)"));
    }
  }
}

// INV-FLOW-PURGE: no resume after its revision's purge; every run a purge ended is audited.
void CheckPurge(FlowDb& db, std::vector<Violation>* out) {
  EachRowViolates(db, kInvFlowPurge, "resumed with a revision purged before",
                  "SELECT r.request, r.detail FROM Journal r JOIN Journal p ON p.kind = 'purge' "
                  "AND p.detail = r.detail AND p.seq < r.seq WHERE r.kind = 'resume'",
                  out);
  EachRowViolates(db, kInvFlowPurge, "run ended by a purge without a forced purge's audit event",
                  "SELECT f.id, f.error FROM FlowRun f WHERE f.status = 'Failed' AND NOT EXISTS "
                  "(SELECT 1 FROM Journal a WHERE a.kind = 'audit' AND a.run = f.id)",
                  out);
}

}  // namespace

void CheckFlow(FlowDb& db, std::vector<Violation>* out) {
  EachRowViolates(db, kInvFlowOneRequest, "InputRequests for one runtime request",
                  "SELECT run, runtime_request, count(*) FROM InputRequest GROUP BY run, "
                  "runtime_request HAVING count(*) > 1",
                  out);
  EachRowViolates(db, kInvFlowOneAccept, "accepted responses to one request",
                  "SELECT request, count(*), group_concat(owner || '=' || detail) FROM Journal "
                  "WHERE kind = 'accept' GROUP BY request HAVING count(*) > 1",
                  out);
  EachRowViolates(db, kInvFlowNoDoubleResume, "resumes of one request",
                  "SELECT request, count(*), group_concat(owner) FROM Journal WHERE kind = "
                  "'resume' GROUP BY request HAVING count(*) > 1",
                  out);
  CheckLease(db, out);
  EachRowViolates(db, kInvFlowExpiry, "request both accepted and expired",
                  "SELECT a.request, a.at, e.at FROM Journal a JOIN Journal e ON e.request = "
                  "a.request AND e.kind = 'expire' WHERE a.kind = 'accept'",
                  out);
  EachRowViolates(db, kInvFlowAnsweredResumed, "answered request never resumed after recovery",
                  "SELECT r.id, f.status FROM InputRequest r JOIN FlowRun f ON f.id = r.run WHERE "
                  "r.state = 'Answered' AND r.resumed = 0 AND f.status <> 'Failed'",
                  out);
  EachRowViolates(db, kInvFlowProjection, "projection differs from the pending requests",
                  "SELECT 'stale', run, request FROM PendingAction WHERE request NOT IN (SELECT "
                  "id FROM InputRequest WHERE state = 'Pending') UNION ALL SELECT 'missing', run, "
                  "id FROM InputRequest WHERE state = 'Pending' AND id NOT IN (SELECT request "
                  "FROM PendingAction)",
                  out);
  EachRowViolates(db, kInvFlowBinding, "resume ran another revision than the binding",
                  "SELECT r.request, r.detail, b.revision FROM Journal r JOIN Binding b ON b.run "
                  "= r.run WHERE r.kind = 'resume' AND CAST(r.detail AS INT) <> b.revision",
                  out);
  CheckPurge(db, out);
  EachRowViolates(db, kInvAlo, "run owes its effect after recovery but has none",
                  "SELECT f.id, f.status FROM FlowRun f WHERE (f.status = 'Completed' OR EXISTS "
                  "(SELECT 1 FROM InputRequest r WHERE r.run = f.id AND r.state = 'Answered')) "
                  "AND f.status <> 'Failed' AND NOT EXISTS (SELECT 1 FROM Effect e WHERE e.run = "
                  "f.id)",
                  out);
  EachRowViolates(db, kInvIdem, "effect rows of one operation id",
                  "SELECT op_id, count(*) FROM Effect GROUP BY op_id HAVING count(*) > 1", out);
}

}  // namespace stepfault::scenarios::flow
