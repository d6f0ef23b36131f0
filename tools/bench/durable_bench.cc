// RunDurableStep: a durable store's step, its parts and its limit, interleaved (durable_bench.h).
#include "tools/bench/durable_bench.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/crc32c.h"
#include "tools/bench/bench_common.h"
#include "tools/bench/limits.h"

namespace stepfault::bench {
namespace {

// Wall and thread CPU seconds summed over samples, and each sample's wall time.
struct Spent {
  double wall = 0;
  double cpu = 0;
  std::vector<double> walls;
  void Add(double wall_s, double cpu_s) {
    wall += wall_s;
    cpu += cpu_s;
    walls.push_back(wall_s);
  }
};

template <typename Fn>
void TimeInto(Spent* into, Fn fn) {
  const double wall = WallSeconds(), cpu = ThreadCpuSeconds();
  fn();
  const double cpu_s = ThreadCpuSeconds() - cpu;
  into->Add(WallSeconds() - wall, cpu_s);
}

// Times every Commit of the store it wraps (its validation, encoding, syscalls and fsyncs).
class CommitTimingStore final : public ForwardingCheckpointStore {
 public:
  CommitTimingStore(std::unique_ptr<CheckpointStore> inner, Spent* sink)
      : ForwardingCheckpointStore(std::move(inner)), sink_(sink) {}
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view bytes,
                                const std::optional<CheckpointInfo>& parent) override {
    Result<CheckpointInfo> info = Status::Internal("not committed");
    TimeInto(sink_, [&] { info = ForwardingCheckpointStore::Commit(session_id, bytes, parent); });
    return info;
  }
  // The manager hands a checkpoint over as parts: timed and forwarded as they are, so the store
  // gets them unjoined (the default would join them here, inside the timed commit).
  Result<CheckpointInfo> CommitParts(const std::string& session_id,
                                     std::span<const std::string_view> parts,
                                     const std::optional<CheckpointInfo>& parent) override {
    Result<CheckpointInfo> info = Status::Internal("not committed");
    TimeInto(sink_, [&] { info = ForwardCommitParts(session_id, parts, parent); });
    return info;
  }

 private:
  Spent* sink_;
};

// Accepts every commit and keeps nothing: what a checkpointed step costs without any store.
class DiscardingStore final : public CheckpointStore {
 public:
  Result<CheckpointInfo> Commit(const std::string& session_id, std::string_view,
                                const std::optional<CheckpointInfo>&) override {
    return CheckpointInfo{session_id, "discarded-" + std::to_string(++seq_)};
  }
  Result<CheckpointInfo> CommitParts(const std::string& session_id,
                                     std::span<const std::string_view>,
                                     const std::optional<CheckpointInfo>&) override {
    return CheckpointInfo{session_id, "discarded-" + std::to_string(++seq_)};
  }
  Result<std::string> Retrieve(const CheckpointInfo& info) override {
    return Status::NotFound("the discarding store keeps nothing (" + info.ToString() + ")");
  }
  Result<std::vector<StoreEntry>> Index(const std::string&,
                                        const std::optional<CheckpointInfo>&) override {
    return std::vector<StoreEntry>();
  }

 private:
  uint64_t seq_ = 0;
};

void ResetIfExhausted(StepHarness* h) {
  if (h->Exhausted()) h->Reset();
}

}  // namespace

void RunDurableStep(benchmark::State& state, const Mode& mode, const StepConfig& config) {
  SF_CHECK(mode.on_disk && mode.factory != nullptr);
  Spent commit;  // filled by the store's wrapper, warm-up steps included; see commit_in_steps
  Mode timed = mode;
  timed.factory = [inner = mode.factory, &commit](const std::string& dir) {
    return std::make_unique<CommitTimingStore>(inner(dir), &commit);
  };
  StepHarness store(timed, config);
  StepHarness engine(Mode{"none", ManagerKind::kNone, nullptr, LimitKind::kNone, false}, config);
  StepHarness encoded(Mode{"discard", ManagerKind::kStore,
                           [](const std::string&) { return std::make_unique<DiscardingStore>(); },
                           LimitKind::kNone, false, mode.full_every},
                      config);
  const size_t checkpoint_bytes = store.LastCheckpointBytes();  // also checks what was stored
  LimitOp limit(mode.limit, checkpoint_bytes);
  limit.Run();  // creates the files and warms the path, untimed

  Spent step, limit_spent, engine_spent, encoded_spent, commit_in_steps, crc_spent, closes;
  size_t final_checkpoint_bytes = 0;
  double stored_bytes_per_step = 0;
  int64_t n = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ResetIfExhausted(&store);
    ResetIfExhausted(&engine);
    ResetIfExhausted(&encoded);
    limit.Maintain();
    TimeInto(&engine_spent, [&] { engine.Step(); });
    TimeInto(&encoded_spent, [&] { encoded.Step(); });
    TimeInto(&crc_spent, [&] { benchmark::DoNotOptimize(Crc32c(limit.buffer())); });
    const bool limit_first = n % 2 == 1;
    if (limit_first) TimeInto(&limit_spent, [&] { limit.Run(); });
    const Spent commit_before{commit.wall, commit.cpu, {}};
    state.ResumeTiming();
    TimeInto(&step, [&] { store.Step(); });
    // Closing the store is part of what its commits cost, timed with them: SQLite's close copies
    // the WAL written since the last automatic checkpoint into the database, work an untimed close
    // would hide (each run or repetition ends with up to a checkpoint interval of it).
    const bool last = n + 1 == static_cast<int64_t>(state.max_iterations);
    if (last || store.Exhausted()) {
      state.PauseTiming();
      if (last) {  // what the closed store can no longer tell
        final_checkpoint_bytes = store.LastCheckpointBytes();
        stored_bytes_per_step = store.StoredBytesPerStep();
      }
      state.ResumeTiming();
      TimeInto(&closes, [&] { store.FreeRun(); });
    }
    state.PauseTiming();
    commit_in_steps.Add(commit.wall - commit_before.wall, commit.cpu - commit_before.cpu);
    if (!limit_first) TimeInto(&limit_spent, [&] { limit.Run(); });
    state.ResumeTiming();
    ++n;
  }
  if (n == 0) return;
  const double per_ns = 1e9 / static_cast<double>(n);
  state.counters["limit_ns"] = limit_spent.wall * per_ns;
  state.counters["limit_cpu_ns"] = limit_spent.cpu * per_ns;
  state.counters["ratio"] = limit_spent.wall > 0 ? (step.wall + closes.wall) / limit_spent.wall : 0;
  state.counters["close_ns"] = closes.wall * per_ns;  // per step; in the reported time and ratio
  state.counters["step_cpu_ns"] = step.cpu * per_ns;
  state.counters["engine_ns"] = engine_spent.wall * per_ns;
  state.counters["encode_ns"] = (encoded_spent.wall - engine_spent.wall) * per_ns;
  state.counters["commit_ns"] = commit_in_steps.wall * per_ns;
  state.counters["commit_cpu_ns"] = commit_in_steps.cpu * per_ns;
  state.counters["outside_commit_ns"] = (step.wall - commit_in_steps.wall) * per_ns;
  // Medians: the typical step, without the occasional expensive one (a WAL checkpoint).
  state.counters["step_median_ns"] = Median(step.walls) * 1e9;
  state.counters["commit_median_ns"] = Median(commit_in_steps.walls) * 1e9;
  state.counters["limit_median_ns"] = Median(limit_spent.walls) * 1e9;
  state.counters["commit_max_ns"] =
      *std::max_element(commit_in_steps.walls.begin(), commit_in_steps.walls.end()) * 1e9;
  state.counters["crc_pass_ns"] = crc_spent.wall * per_ns;
  state.counters["state_bytes"] = static_cast<double>(TotalStateBytes(config));
  state.counters["checkpoint_bytes"] = static_cast<double>(final_checkpoint_bytes);
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(checkpoint_bytes) * static_cast<double>(n), benchmark::Counter::kIsRate);
  state.counters["stored_bytes_per_step"] = stored_bytes_per_step;
}

}  // namespace stepfault::bench
