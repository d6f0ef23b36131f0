// One super-step: advance external deliveries, run every receiver, route, publish state, commit
// the checkpoint, report completion (docs/engine-semantics.md §1.2-1.5).
#include <algorithm>
#include <exception>

#include "engine/probe_points.h"
#include "engine/random.h"
#include "engine/run.h"
#include "engine/run_internal.h"

namespace stepfault {
Executor* StreamingRun::Instantiate(const std::string& id) {
  auto it = executors_.find(id);
  if (it != executors_.end()) return it->second.get();
  const ExecutorBinding* b = workflow_->FindBinding(id);
  SF_CHECK(b != nullptr);
  std::unique_ptr<Executor> ex = b->factory();
  SF_CHECK(ex != nullptr && ex->id() == id);
  Executor* raw = ex.get();
  executors_.emplace(id, std::move(ex));
  if (raw->HasCheckpointingHook()) hooked_executors_.emplace(id, raw);
  if (instantiated_ids_.insert(id).second) {
    if (instantiated_list_.size() + 1 == instantiated_ids_.size()) {
      // In step with the set before this id: add it, not rebuild the list from the set at the
      // next checkpoint (issue 27: that was a walk of every id at every step that instantiates
      // one). A set a checkpoint shares is not copied: the id goes in a new layer over it.
      instantiated_list_.Add(id);
    } else {
      instantiated_list_ = InstantiatedIds();
    }
  }
  return raw;
}

void StreamingRun::Enqueue(const std::string& receiver, Envelope envelope) {
  Instantiate(receiver);  // MAF instantiates the target while routing
  std::vector<Envelope>& q = next_queue_.Mutable()[receiver];
  SF_CHECK(q.size() < 10'000'000);  // bounded queue
  q.push_back(std::move(envelope));
}

Status StreamingRun::RouteFrom(const std::string& sender, const Message& message,
                               const std::optional<std::string>& target) {
  try {
    RouteUnchecked(sender, message, target);
  } catch (const std::exception& e) {
    // MAF evaluates conditions and assigners inside SendMessage, so a throwing one fails the
    // sender.
    return Status::HandlerFailed("an edge condition or assigner for a message from '" + sender +
                                 "' threw: " + e.what());
  }
  return Status::Ok();
}

void StreamingRun::RouteUnchecked(const std::string& sender, const Message& message,
                                  const std::optional<std::string>& target) {
  // MAF's CanHandle: a wrapped response only by a handler that names its type.
  auto accepts_type = [&](const std::string& sink, const std::string& type) {
    const ExecutorBinding* b = workflow_->FindBinding(sink);
    for (const std::string& t : b->input_types) {
      if (t == type || (t == "*" && type != kWrappedResponseType)) return true;
    }
    return false;
  };
  auto accepts = [&](const std::string& sink) { return accepts_type(sink, message.type); };
  for (const Edge* edge : workflow_->OutgoingEdges(sender)) {
    switch (edge->kind) {
      case EdgeKind::kDirect: {
        const std::string& sink = edge->sinks[0];
        if (target && *target != sink) break;
        if (edge->condition && !edge->condition(message)) break;
        if (!accepts(sink)) break;
        Enqueue(sink, Envelope{message, sender, target, ""});
        break;
      }
      case EdgeKind::kFanOut: {
        std::vector<size_t> chosen;
        if (edge->assigner) {
          chosen = edge->assigner(message, edge->sinks.size());
        } else {
          for (size_t i = 0; i < edge->sinks.size(); ++i) chosen.push_back(i);
        }
        for (size_t i : chosen) {
          if (i >= edge->sinks.size()) continue;
          const std::string& sink = edge->sinks[i];
          if (target && *target != sink) continue;
          if (!accepts(sink)) continue;
          Enqueue(sink, Envelope{message, sender, target, ""});
        }
        break;
      }
      case EdgeKind::kFanIn: {
        const std::string& sink = edge->sinks[0];
        if (target && *target != sink) break;  // targeted elsewhere: dropped, not buffered
        std::shared_ptr<FanInState>& state = fan_in_[edge->id];
        if (!state) {
          state = std::make_shared<FanInState>(FanInState{edge->sources, edge->sources, {}});
        } else if (state.use_count() > 1 && !options_.profile.fan_in_aliasing) {
          // Copy on write: a checkpoint shares this buffer, so this step changes a copy of it.
          // The fan-in-aliasing hazard writes through to the checkpoint's object instead (MAF
          // before #6574). use_count() == 1 means nothing else can reach the object at all.
          state = std::make_shared<FanInState>(*state);
        }
        state->pending.push_back(Envelope{message, sender, target, ""});
        state->unseen.erase(std::remove(state->unseen.begin(), state->unseen.end(), sender),
                            state->unseen.end());
        if (!state->unseen.empty()) break;
        // Release: grouped by source in first-appearance order.
        std::vector<std::string> order;
        for (const Envelope& e : state->pending) {
          if (std::find(order.begin(), order.end(), e.source_id) == order.end()) {
            order.push_back(e.source_id);
          }
        }
        std::vector<Envelope> released;
        for (const std::string& s : order) {
          for (const Envelope& e : state->pending) {
            if (e.source_id == s) released.push_back(e);
          }
        }
        state->pending.clear();
        state->unseen = state->sources;
        // Each released message by its own type (MAF FanInEdgeRunner filters every envelope).
        for (Envelope& e : released) {
          if (accepts_type(sink, e.message.type)) Enqueue(sink, std::move(e));
        }
        break;
      }
    }
  }
}

void StreamingRun::Advance() {
  // Deliveries queued before this step, in FIFO order.
  std::deque<Deferred> deliveries;
  deliveries.swap(deferred_);
  for (Deferred& d : deliveries) {
    if (!d.is_response) {
      Enqueue(workflow_->start_id(), Envelope{std::move(d.input), "", std::nullopt, ""});
      continue;
    }
    const ExternalResponse& r = d.response;
    auto it = std::find_if(outstanding_.begin(), outstanding_.end(),
                           [&](const PendingRequest& p) { return p.request_id == r.request_id; });
    Status rejection;
    if (it == outstanding_.end()) {
      rejection = Status::NotFound("no pending request with id '" + r.request_id +
                                   "' (unknown, already answered, or from a superseded timeline)");
    } else if (it->port_id != r.port_id) {
      rejection = Status::InvalidArgument("response for request '" + r.request_id +
                                          "' names port '" + r.port_id +
                                          "' but the request came from port '" + it->port_id + "'");
    } else if (r.data.type != workflow_->ports().at(it->port_id).response_type) {
      rejection = Status::InvalidArgument("response for request '" + r.request_id + "' has type '" +
                                          r.data.type + "'; port '" + it->port_id + "' expects '" +
                                          workflow_->ports().at(it->port_id).response_type + "'");
    }
    if (!rejection.ok()) {
      WorkflowEvent e{EventKind::kWorkflowError};
      e.step = step_number_;
      e.executor_id = r.port_id;
      e.request_id = r.request_id;
      e.error_kind = ErrorKind::kResponseRejected;
      e.error = std::move(rejection);
      Emit(std::move(e));
      continue;  // the request (if any) stays pending
    }
    const std::string port = it->port_id;
    outstanding_.erase(it);
    Enqueue(port, Envelope{r.data, "", std::nullopt, r.request_id});
  }
}

bool StreamingRun::Publish(int64_t step) {
  for (const auto& [key, write] : queued_writes_) {
    if (write.by_writer.size() > 1) {
      std::string writers;
      for (const auto& [w, v] : write.by_writer) writers += (writers.empty() ? "" : ", ") + w;
      EndWithError(
          ErrorKind::kStateConflict,
          Status::FailedPrecondition("expected exactly one update for key '" + key.second +
                                     "' of scope '" + key.first + "' in step " +
                                     std::to_string(step) + ", got updates from " + writers),
          step);
      queued_writes_.clear();
      return false;
    }
  }
  for (auto& [key, write] : queued_writes_) {
    std::optional<Json>& value = write.by_writer.begin()->second;
    // Copy on write (state_map.h): the first write to a scope a checkpoint shares copies that
    // scope alone; every other scope stays shared with the checkpoints.
    if (value && options_.profile.cow_scope_shared_too_long) {
      state_.SetSharedInPlace(key.first, key.second, SharedJson(std::move(*value)));
    } else if (value) {
      state_.Set(key.first, key.second, SharedJson(std::move(*value)));
    } else {
      state_.Erase(key.first, key.second);
    }
  }
  queued_writes_.clear();
  return true;
}

Checkpoint StreamingRun::ExportCheckpoint() {
  Checkpoint c;
  c.session_id = session_id_;
  c.step_number = current_step_;
  c.workflow = workflow_->shared_signature();
  if (instantiated_list_.size() != instantiated_ids_.size()) {
    instantiated_list_ = InstantiatedIds(
        std::vector<std::string>(instantiated_ids_.begin(), instantiated_ids_.end()));
  }
  // Shared, not copied: the instantiated set and the queues are the run's very objects; the run
  // never writes them while shared (Instantiate adds a layer over a shared set, RunStep routes
  // into a fresh queue map, Advance copies a shared one before queueing input).
  c.instantiated = instantiated_list_;
  c.queued = next_queue_;
  c.outstanding = outstanding_;
  // Copy on write: the state (one pointer, state_map.h) and the fan-in buffers are shared with
  // the checkpoint, not copied. The run never writes a shared object (Publish copies a shared
  // scope before writing it; RouteUnchecked copies a shared buffer before changing it), except
  // under the fan-in-aliasing hazard.
  c.state = state_;
  for (const auto& [id, s] : fan_in_) {
    if (options_.profile.fan_in_state_not_checkpointed) break;
    c.edge_state[id] = s;
  }
  if (!options_.profile.parent_link_empty) c.parent = last_checkpoint_;
  return c;
}

bool StreamingRun::CommitCheckpoint(int64_t step) {
  for (auto& [id, ex] : hooked_executors_) {
    StepContext ctx(this, id);
    Status s = ex->OnCheckpointing(ctx);
    if (!s.ok()) {
      EndWithError(ErrorKind::kHandlerFailed, s.WithContext("OnCheckpointing of '" + id + "'"),
                   step);
      return false;
    }
  }
  if (!Publish(step)) return false;
  // Every fan-in edge is exported at every checkpoint, fresh ones included.
  for (const Edge* e : workflow_->fan_in_edges()) {
    std::shared_ptr<FanInState>& s = fan_in_[e->id];
    if (!s) s = std::make_shared<FanInState>(FanInState{e->sources, e->sources, {}});
  }
  Checkpoint c = ExportCheckpoint();
  probe_->Hit(points::kCheckpointCommitBefore);
  // c is this run's fresh export: hand it over rather than copy it again.
  Result<CheckpointInfo> info = options_.checkpoints->CommitOwned(std::move(c));
  if (!info.ok()) {
    EndWithError(
        ErrorKind::kCheckpointFailed,
        info.status().WithContext("committing the checkpoint of step " + std::to_string(step)),
        step);
    return false;
  }
  last_checkpoint_ = *info;
  checkpoints_.push_back(std::move(*info));
  probe_->Hit(points::kCheckpointCommitAfter);
  return true;
}

bool StreamingRun::RunStep() {
  Advance();
  // The queues this step delivers: read only (a checkpoint may hold the very map); routing
  // fills a fresh one.
  SharedValue<QueueMap> current = std::move(next_queue_);
  next_queue_.Reset();
  if (current.empty()) return false;

  const int64_t step = step_number_;
  current_step_ = step;
  requests_this_step_.clear();
  WorkflowEvent started{EventKind::kSuperStepStarted};
  started.step = step;
  Emit(std::move(started));

  // Receivers run in a seeded order; nothing observable but the trace's interleaving depends on it.
  std::vector<std::string> order;
  for (const auto& [receiver, q] : current) order.push_back(receiver);
  Rng rng(DeriveSeed(options_.seed, "scheduler|" + session_id_ + "|" + std::to_string(step)));
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Uniform(i)]);

  std::optional<Status> failure;
  for (const std::string& receiver : order) {
    Executor* ex = Instantiate(receiver);
    StepContext ctx(this, receiver);
    ex->OnDeliveryStarting(ctx);
    for (const Envelope& env : current->at(receiver)) {
      WorkflowEvent invoked{EventKind::kExecutorInvoked};
      invoked.step = step;
      invoked.executor_id = receiver;
      invoked.message = env.message;
      Emit(std::move(invoked));
      if (!env.request_id.empty() && options_.profile.port_response_sent_wrapped) {
        // MAF's RequestPort sends the ExternalResponse object before the data it carries.
        outboxes_[receiver].push_back(
            Outgoing{receiver, WrapResponse(env.request_id, receiver, env.message), std::nullopt});
      }
      Status s;
      try {
        s = ex->Handle(env.message, ctx);
      } catch (const std::exception& e) {
        s = Status::HandlerFailed(std::string("handler threw: ") + e.what());
      }
      WorkflowEvent done{s.ok() ? EventKind::kExecutorCompleted : EventKind::kExecutorFailed};
      done.step = step;
      done.executor_id = receiver;
      done.error = s;
      Emit(std::move(done));
      if (!s.ok()) {
        if (!failure) failure = s.WithContext("executor '" + receiver + "'");
        break;  // the rest of this receiver's queue is not delivered
      }
    }
    ex->OnDeliveryFinished(ctx);
  }

  // Canonical routing: by sender id, then emission order.
  std::map<std::string, std::vector<Outgoing>> outboxes;
  outboxes.swap(outboxes_);
  for (const auto& [sender, list] : outboxes) {
    for (const Outgoing& o : list) {
      Status routed = RouteFrom(sender, o.message, o.target);
      if (!routed.ok() && !failure) failure = routed;
    }
  }
  if (failure) {
    queued_writes_.clear();
    EndWithError(ErrorKind::kHandlerFailed, *failure, step);
    return true;
  }
  probe_->Hit(points::kStepHandlersAfter);
  if (options_.checkpoints != nullptr) {
    if (!CommitCheckpoint(step)) return true;
  } else if (!Publish(step)) {
    return true;
  }
  WorkflowEvent completed{EventKind::kSuperStepCompleted};
  completed.step = step;
  completed.checkpoint = options_.checkpoints != nullptr ? last_checkpoint_ : std::nullopt;
  completed.has_pending_messages = HasWork();
  completed.has_pending_requests = !outstanding_.empty();
  Emit(std::move(completed));
  step_number_ = step + 1;
  return true;
}

}  // namespace stepfault
