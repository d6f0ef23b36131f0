// The benchmark workflows and StepHarness.
#include "tools/bench/harness.h"

#include <algorithm>
#include <cstdio>

#include "engine/random.h"
#include "tools/bench/bench_common.h"

namespace stepfault::bench {

namespace {

// The in-memory manager without CommitOwned: the run's export is deep-copied on every commit.
class CopyingManager final : public CheckpointManager {
 public:
  Result<CheckpointInfo> Commit(const Checkpoint& checkpoint) override {
    return inner_.Commit(checkpoint);
  }
  Result<std::shared_ptr<const Checkpoint>> Lookup(const CheckpointInfo& info) override {
    return inner_.Lookup(info);
  }
  Result<std::vector<CheckpointInfo>> Index(const std::string& session_id) override {
    return inner_.Index(session_id);
  }
  bool NotifyRestored(const CheckpointInfo& info, Status* observer_status) override {
    return inner_.NotifyRestored(info, observer_status);
  }

 private:
  InMemoryCheckpointManager inner_{7};
};

// Rewrites the executor's private "blob" with a fresh slice for this step.
void WriteState(WorkflowContext& ctx, size_t bytes, uint64_t id_hash, bool static_state) {
  // Static: written in the warm-up only (every executor has run by step 2 of the fan-in and by
  // step width-1 of a ring; StepHarness warms up at least that many steps).
  if (static_state && ctx.step_number() >= kStaticStateSteps) return;
  const uint64_t salt = id_hash ^ Mix64(static_cast<uint64_t>(ctx.step_number()));
  ctx.QueueStateUpdate("blob", Json(std::string(PoolSlice(bytes, salt))));
}

Message Msg(const char* type) { return Message{type, Json::object()}; }

// The fan-in hub: answers every step's deliveries with one Go, and writes its state once per step.
class Hub final : public Executor {
 public:
  Hub(size_t bytes, bool static_state)
      : Executor("hub", "BenchHub", {"Start", "Kick", "Part"}),
        bytes_(bytes),
        static_state_(static_state),
        id_hash_(Hash64("hub")) {}
  Status Handle(const Message& m, WorkflowContext& ctx) override {
    if (m.type == "Start") ctx.SendMessage(Msg("Kick"));
    return Status::Ok();
  }
  void OnDeliveryFinished(WorkflowContext& ctx) override {
    WriteState(ctx, bytes_, id_hash_, static_state_);
    ctx.SendMessage(Msg("Go"));
  }

 private:
  size_t bytes_;
  bool static_state_;
  uint64_t id_hash_;
};

ExecutorBinding StatefulForwarder(const std::string& id, std::vector<std::string> types,
                                  const char* out_type, size_t bytes, bool static_state) {
  const uint64_t id_hash = Hash64(id);
  return FunctionExecutor(
      id, "BenchNode", std::move(types),
      [bytes, id_hash, out_type, static_state](const Message&, WorkflowContext& ctx) {
        WriteState(ctx, bytes, id_hash, static_state);
        ctx.SendMessage(Msg(out_type));
        return Status::Ok();
      });
}

}  // namespace

int StatefulExecutors(const StepConfig& config) {
  return config.shape == Shape::kLinear ? config.width : config.width + 1;
}

size_t TotalStateBytes(const StepConfig& config) {
  return static_cast<size_t>(StatefulExecutors(config)) * config.state_bytes;
}

std::shared_ptr<Workflow> BuildWorkflow(const StepConfig& config) {
  SF_CHECK(config.width >= 1);
  SF_CHECK(!config.static_state || config.shape == Shape::kFanIn);  // see kStaticStateSteps
  Result<std::shared_ptr<Workflow>> wf = Status::Internal("unbuilt");
  if (config.shape == Shape::kLinear) {
    auto id = [](int i) { return "e" + std::to_string(i); };
    WorkflowBuilder b(StatefulForwarder(id(0), {"Start", "Token"}, "Token", config.state_bytes,
                                        config.static_state));
    for (int i = 1; i < config.width; ++i) {
      b.AddExecutor(
          StatefulForwarder(id(i), {"Token"}, "Token", config.state_bytes, config.static_state));
    }
    for (int i = 0; i < config.width; ++i) b.AddEdge(id(i), id((i + 1) % config.width));
    wf = b.Build();
  } else {
    const size_t bytes = config.state_bytes;
    const bool static_state = config.static_state;
    WorkflowBuilder b(
        ExecutorBinding{"hub", "BenchHub", {"Start", "Kick", "Part"}, [bytes, static_state] {
                          return std::make_unique<Hub>(bytes, static_state);
                        }});
    std::vector<std::string> workers;
    for (int i = 0; i < config.width; ++i) {
      char id[16];
      std::snprintf(id, sizeof(id), "w%03d", i);
      workers.push_back(id);
      b.AddExecutor(StatefulForwarder(id, {"Go"}, "Part", bytes, static_state));
    }
    b.AddFanOutEdge("hub", workers);
    b.AddEdge("hub", "hub", [](const Message& m) { return m.type == "Kick"; });
    b.AddFanInBarrierEdge(workers, "hub");
    wf = b.Build();
  }
  SF_CHECK(wf.ok());
  return *wf;
}

StepHarness::StepHarness(const Mode& mode, StepConfig config, int warm_steps)
    : mode_(mode),
      config_(config),
      // A ring carries every executor's state only once the token has gone round once.
      warm_steps_(config.shape == Shape::kLinear ? std::max(warm_steps, config.width) : warm_steps),
      workflow_(BuildWorkflow(config)) {
  const size_t per_step = TotalStateBytes(config) + 1;
  max_steps_ = std::max<int64_t>(
      8, std::min<int64_t>(kMaxStepsPerRun, static_cast<int64_t>(kRetainedBytesBudget / per_step)));
  Reset();
}

StepHarness::~StepHarness() { TearDown(); }

void StepHarness::FreeRun() {
  stream_.reset();
  run_.reset();  // gives the workflow back
  manager_.reset();
  store_.reset();
}

void StepHarness::TearDown() {
  FreeRun();
  if (!dir_.empty()) RemoveScratchDir(dir_);
  dir_.clear();
}

void StepHarness::Reset() {
  TearDown();
  switch (mode_.manager) {
    case ManagerKind::kNone:
      break;
    case ManagerKind::kInMemory:
      manager_ = std::make_unique<InMemoryCheckpointManager>(7);
      break;
    case ManagerKind::kInMemoryCopying:
      manager_ = std::make_unique<CopyingManager>();
      break;
    case ManagerKind::kStore:
      SF_CHECK(mode_.factory != nullptr);
      dir_ = mode_.on_disk ? MakeScratchDir(mode_.name) : std::string();
      store_ = mode_.factory(mode_.on_disk ? dir_ : "/bench/" + mode_.name);
      SF_CHECK(store_ != nullptr);
      manager_ = std::make_unique<StoreCheckpointManager>(store_.get(),
                                                          StoreCheckpointOptions{mode_.full_every});
      break;
  }
  RunOptions options;
  options.checkpoints = manager_.get();
  options.seed = 42;
  options.session_id = "bench";
  Result<std::unique_ptr<StreamingRun>> run =
      StreamingRun::Start(workflow_, Message{"Start", Json::object()}, options);
  SF_CHECK(run.ok());
  run_ = std::move(run).value();
  Result<EventStream> stream = run_->Watch();
  SF_CHECK(stream.ok());
  stream_.emplace(std::move(stream).value());
  steps_ = 0;
  for (int i = 0; i < warm_steps_; ++i) Step();
}

void StepHarness::Step() {
  // Bounded: a step of the widest workflow emits a few hundred events.
  for (int i = 0; i < 1'000'000; ++i) {
    std::optional<WorkflowEvent> e = stream_->Next();
    SF_CHECK(e.has_value());  // the benchmark workflows never halt
    if (e->kind == EventKind::kWorkflowError || e->kind == EventKind::kExecutorFailed) {
      std::fprintf(stderr, "stepfault-bench: the run failed in step %lld: %s\n",
                   static_cast<long long>(e->step), e->error.ToString().c_str());
      SF_CHECK(false);
    }
    if (e->kind == EventKind::kSuperStepCompleted) {
      ++steps_;
      return;
    }
  }
  SF_CHECK(false);
}

bool StepHarness::Exhausted() const { return steps_ >= max_steps_; }

size_t StepHarness::LastCheckpointBytes() {
  if (manager_ == nullptr || !run_->last_checkpoint()) return 0;
  // Through the manager, so a store mode decodes what it stored: a benchmark of a store that
  // loses or mangles state must not report a number.
  Result<std::shared_ptr<const Checkpoint>> c = manager_->Lookup(*run_->last_checkpoint());
  SF_CHECK(c.ok());
  SF_CHECK((*c)->step_number + 1 == run_->next_step_number());
  // Every executor holds state once the ring went round once / the workers ran (step 1).
  const bool all_written = config_.shape == Shape::kLinear ? steps_ >= config_.width : steps_ >= 2;
  if (all_written) {
    size_t state_bytes = 0;
    for (const auto& [scope, values] : (*c)->state) {
      for (const auto& [key, value] : values)
        state_bytes += value->get_ref<const std::string&>().size();
    }
    SF_CHECK(state_bytes == TotalStateBytes(config_));
  }
  return EncodeCheckpoint(**c).size();
}

}  // namespace stepfault::bench

namespace stepfault::bench {

double StepHarness::StoredBytesPerStep() {
  const size_t full = LastCheckpointBytes();  // checks what the manager resolves, first
  if (store_ == nullptr || full == 0) return static_cast<double>(full);
  // Amortised over one cycle of a full snapshot and full_every - 1 deltas, from the mean sizes of
  // the full and the delta checkpoints this run stored (a run is reset before it completes a
  // cycle of 128 when the state is large, so a plain mean would overweight the first snapshot).
  double full_bytes = 0, delta_bytes = 0;
  int fulls = 0, deltas = 0;
  const std::vector<CheckpointInfo>& all = run_->checkpoints();
  for (size_t i = 0; i < all.size(); ++i) {
    Result<std::string> stored = store_->Retrieve(all[i]);
    SF_CHECK(stored.ok());
    Result<std::optional<std::string>> base = CheckpointDeltaBase(*stored);
    SF_CHECK(base.ok());
    // Static state: the warm-up's deltas carry the first writes, not the steady state.
    if (*base && config_.static_state && i <= static_cast<size_t>(kStaticStateSteps)) continue;
    (*base ? delta_bytes : full_bytes) += static_cast<double>(stored->size());
    ++(*base ? deltas : fulls);
  }
  SF_CHECK(fulls > 0);
  if (deltas == 0) return full_bytes / fulls;
  // The full snapshot of the steady state is the last checkpoint encoded in full (the run's
  // first snapshot may predate some executors' first write).
  const double k = mode_.full_every;
  return (static_cast<double>(full) + (k - 1) * (delta_bytes / deltas)) / k;
}

}  // namespace stepfault::bench
