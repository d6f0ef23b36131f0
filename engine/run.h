// StreamingRun: a run of a workflow and the handle a host drives it with (MAF's StreamingRun,
// docs/engine-semantics.md §1, §5, §6).
//
// Execution is single-threaded and pulled: an EventStream's Next() runs super-steps until the run
// halts (no queued work), and RunUntilHalt() does the same without watching, buffering the events
// for the next watcher. This is MAF's Lockstep driving with OffThread's observer rule: ending or
// cancelling a watcher never cancels execution; Cancel() does (status Ended).
// Only one watcher may be active at a time; a second Watch() while one is active is an error.
//
// Super-steps follow docs/design.md §2: external inputs and responses queued with SendMessage and
// SendResponse are validated and routed at the start of the next step; each receiver handles its
// queue in FIFO order; receivers run in an order drawn from the seed, while messages for the next
// step are routed in a canonical order (sender id, then emission order) so outcomes never depend on
// that draw; shared state writes become visible at the end of the step; a failing handler aborts
// the step with ExecutorFailed and WorkflowError and ends the run. With a CheckpointManager, every
// executed step commits exactly one checkpoint before SuperStepCompleted.
//
// Deliberate deviations (docs/engine-semantics.md 10.1): a rejected response (unknown RequestId,
// another port, a duplicate, a wrong response type) is reported as a WorkflowError event and the
// run goes on with the request still pending, where MAF OffThread ends the run; a step that fails
// ends the run (OffThread), and so does a checkpoint that cannot be committed (sticky: recover by
// resuming from a durable checkpoint); SendMessage rejects an input type the start executor does
// not accept instead of returning false.
// Thread-safety: a run is driven by one thread.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/checkpoint.h"
#include "engine/checkpoint_manager.h"
#include "engine/events.h"
#include "engine/executor.h"
#include "engine/probe.h"
#include "engine/profile.h"
#include "engine/workflow.h"

namespace stepfault {

enum class RunStatus { kNotStarted, kRunning, kIdle, kPendingRequests, kEnded };
std::string_view RunStatusName(RunStatus status);

struct RunOptions {
  EngineProfile profile;
  CheckpointManager* checkpoints = nullptr;  // none: no checkpoints, no restore
  Probe* probe = nullptr;                    // null: NullProbe()
  uint64_t seed = 0;                         // ids and the receiver order derive from it
  std::string session_id;                    // empty: derived from the seed
  // A bound on runaway cyclic workflows: more super-steps than this in one cycle (from the start
  // or a resume to a halt), however the run is driven (RunUntilHalt or a watcher's Next), ends the
  // run with a kStepLimit error.
  int64_t max_steps_per_cycle = 100000;
};

struct ExternalResponse {
  std::string request_id;
  std::string port_id;
  Message data;
};

class StreamingRun;

// One watcher of a run. Move-only; destroying or cancelling it releases the run's watcher slot.
class EventStream {
 public:
  EventStream(EventStream&& other) noexcept;
  EventStream& operator=(EventStream&& other) noexcept;
  EventStream(const EventStream&) = delete;
  EventStream& operator=(const EventStream&) = delete;
  ~EventStream();

  // The next event; executes super-steps as needed. nullopt when the run halts or ends, or the
  // stream was cancelled.
  std::optional<WorkflowEvent> Next();
  // Stops watching. The run is not cancelled: its remaining work runs when next driven.
  void Cancel();
  bool active() const { return run_ != nullptr; }

 private:
  friend class StreamingRun;
  explicit EventStream(StreamingRun* run) : run_(run) {}
  // Gives the watcher slot back without any other effect (end of stream, destruction).
  void Release();
  StreamingRun* run_;
};

class StreamingRun {
 public:
  // A new run that will deliver `input` to the start executor.
  static Result<std::unique_ptr<StreamingRun>> Start(std::shared_ptr<Workflow> workflow,
                                                     Message input, RunOptions options);
  // A fresh run from a stored checkpoint (MAF ResumeStreamingAsync). The checkpoint is fetched,
  // decoded and checked against `workflow` before the workflow is taken, and the import is all or
  // nothing; pending requests are re-emitted, once each, as the first events. REQUIRES:
  // options.checkpoints. The run keeps the checkpoint's session id.
  static Result<std::unique_ptr<StreamingRun>> Resume(std::shared_ptr<Workflow> workflow,
                                                      const CheckpointInfo& checkpoint,
                                                      RunOptions options);
  ~StreamingRun();

  Result<EventStream> Watch();
  // Runs until the run halts, buffering events for the next watcher.
  void RunUntilHalt();
  // Queues external input for the start executor.
  Status SendMessage(Message input);
  // Queues a response; it is validated at the start of the next step.
  Status SendResponse(ExternalResponse response);
  // Live restore on this handle (MAF RestoreCheckpointAsync): buffered events and queued responses
  // of the superseded timeline are dropped, state is swapped in one step, pending requests are
  // re-emitted once each with their original RequestIds.
  Status Restore(const CheckpointInfo& checkpoint);
  // Stops execution for good: status Ended, the active watcher ends.
  void Cancel();

  RunStatus status() const;
  const std::string& session_id() const { return session_id_; }
  int64_t next_step_number() const { return step_number_; }
  const std::vector<CheckpointInfo>& checkpoints() const { return checkpoints_; }
  const std::optional<CheckpointInfo>& last_checkpoint() const { return last_checkpoint_; }
  const std::vector<PendingRequest>& pending_requests() const { return outstanding_; }
  // The last restoration observer failure (reported, never fatal).
  const Status& observer_status() const { return observer_status_; }
  const std::set<std::string>& instantiated() const { return instantiated_ids_; }
  // The messages the next step delivers, receiver -> FIFO: between steps, the very map the last
  // checkpoint holds (shared copy on write, shared_value.h) until input queued for the next step
  // copies it.
  const SharedValue<QueueMap>& queued() const { return next_queue_; }

 private:
  friend class EventStream;
  friend class StepContext;

  // State that a restore replaces as a whole.
  struct Snapshot {
    SharedValue<QueueMap> next_queue;
    std::vector<PendingRequest> outstanding;
    StateMap state;
    std::map<int, std::shared_ptr<FanInState>> fan_in;
    std::set<std::string> instantiated_ids;
    int64_t step_number = 0;
    std::optional<CheckpointInfo> last_checkpoint;
  };
  struct Deferred {
    bool is_response = false;
    Message input;
    ExternalResponse response;
  };
  struct QueuedWrite {
    std::map<std::string, std::optional<Json>> by_writer;  // executor id -> value
  };
  struct Outgoing {
    std::string sender;
    Message message;
    std::optional<std::string> target;
  };

  StreamingRun(std::shared_ptr<Workflow> workflow, RunOptions options);

  bool HasWork() const { return !deferred_.empty() || !next_queue_.empty(); }
  void Emit(WorkflowEvent event);
  // Runs one super-step if there is work; returns false when there was none.
  bool RunStep();
  void Advance();
  Status RouteFrom(const std::string& sender, const Message& message,
                   const std::optional<std::string>& target);
  void RouteUnchecked(const std::string& sender, const Message& message,
                      const std::optional<std::string>& target);
  void Enqueue(const std::string& receiver, Envelope envelope);
  Executor* Instantiate(const std::string& id);
  bool Publish(int64_t step);
  bool CommitCheckpoint(int64_t step);
  void EndWithError(ErrorKind kind, Status error, int64_t step);
  void Pump(bool until_halt);
  // Non-const: brings instantiated_list_ up to date first.
  Checkpoint ExportCheckpoint();
  Snapshot TakeSnapshot() const;
  void ApplySnapshot(Snapshot s);
  // Restore core shared by live restore and fresh resume.
  Status ImportCheckpoint(const CheckpointInfo& info, const Checkpoint& checkpoint, bool fresh);
  Status ImportStrict(const CheckpointInfo& info, const Checkpoint& checkpoint, bool fresh);
  Status ImportInPhases(const CheckpointInfo& info, const Checkpoint& checkpoint, bool fresh);
  Result<Snapshot> SnapshotFromCheckpoint(const Checkpoint& checkpoint, bool fresh) const;
  Status NotifyExecutorsRestored();
  void AfterRestore(const CheckpointInfo& info);
  std::string NewRequestId(const std::string& port_id);

  std::shared_ptr<Workflow> workflow_;
  RunOptions options_;
  Probe* probe_;
  std::string session_id_;
  bool owns_workflow_ = false;

  // Durable-by-checkpoint state (see Snapshot).
  // The queues the next step delivers, built by this step's routing. Shared copy on write
  // (shared_value.h): the step's checkpoint holds this very map, the next step reads it and
  // routes into a fresh one; a write while it is shared (external input queued after a
  // checkpoint, Advance) copies it first.
  SharedValue<QueueMap> next_queue_;
  std::vector<PendingRequest> outstanding_;
  StateMap state_;
  std::map<int, std::shared_ptr<FanInState>> fan_in_;
  std::set<std::string> instantiated_ids_;
  // instantiated_ids_ as the persistent set a checkpoint holds (instantiated_ids.h), shared with
  // every checkpoint taken since it last changed. Either in step with the set (Instantiate adds
  // each new id: a new layer over the one the last checkpoint shares) or emptied (a restore
  // replaced the set); ExportCheckpoint rebuilds it when its size differs.
  InstantiatedIds instantiated_list_;
  int64_t step_number_ = 0;
  std::optional<CheckpointInfo> last_checkpoint_;

  // Live-only state.
  std::map<std::string, std::unique_ptr<Executor>> executors_;
  // The executors_ with an OnCheckpointing hook, in id order: a checkpoint calls only these (a
  // walk of every instantiated executor at every step was quadratic in a long chain; issue 27).
  std::map<std::string, Executor*> hooked_executors_;
  std::deque<Deferred> deferred_;
  std::deque<WorkflowEvent> buffered_;
  std::vector<CheckpointInfo> checkpoints_;
  Status observer_status_;
  bool ended_ = false;
  bool started_ = false;
  bool in_cycle_ = false;
  int64_t steps_in_cycle_ = 0;  // super-steps since the cycle began, across Pump calls
  EventStream* watcher_ = nullptr;

  // Per-step scratch.
  std::map<std::pair<std::string, std::string>, QueuedWrite> queued_writes_;
  std::map<std::string, std::vector<Outgoing>> outboxes_;  // by sender
  std::map<std::string, int> requests_this_step_;          // by port
  int64_t current_step_ = -1;
};

}  // namespace stepfault
