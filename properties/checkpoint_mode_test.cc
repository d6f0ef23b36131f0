// Goal: both checkpoint modes are explored (issue 15: every store mode is explored like the
// others): approval and fan-in declare the `checkpoints` parameter and a `checkpoints=full`
// variant, and their hosts honour it over every durable store (file, SQLite in each journal mode):
// with `full` every stored checkpoint is a full snapshot (MAF's mode), with the default
// `incremental` the store holds deltas. Method: the declared variants are read from the registry;
// then the fault-free run of each (scenario, store, mode) is run through the life runner, and after
// its last life the durable checkpoints are read from the world's bytes (ReadDurableCheckpoints,
// the oracles' reader), never through the host's store, and their deltas counted.
#include <gtest/gtest.h>

#include <memory>

#include "properties/explorer.h"
#include "properties/life_runner.h"
#include "properties/seam_scenario_test_util.h"
#include "scenarios/durable_checkpoints.h"
#include "scenarios/params.h"
#include "scenarios/registry.h"

namespace stepfault::properties {
namespace {

std::shared_ptr<const scenarios::Scenario> Builtin(const std::string& name) {
  auto s = scenarios::FindScenario(name);
  SF_CHECK(s != nullptr);
  return s;
}

TEST(CheckpointModeTest, ApprovalAndFanInDeclareAFullCheckpointVariant) {
  for (const char* name : {"approval", "fan-in"}) {
    auto s = Builtin(name);
    EXPECT_EQ(s->default_params().value(scenarios::kCheckpointModeParam, std::string()),
              "incremental")
        << name;
    int full = 0;
    for (const Json& v : s->Variants()) {
      full += v.value(scenarios::kCheckpointModeParam, std::string()) == "full" ? 1 : 0;
    }
    EXPECT_EQ(full, 1) << name;
  }
}

struct Stored {
  int checkpoints = 0;
  int deltas = 0;
};

// The fault-free run of `name` with `mode` over `store`; what its checkpoint store holds at the
// end.
Stored FaultFreeRun(const std::string& name, const std::string& store, const std::string& mode) {
  auto stored = std::make_shared<Stored>();
  testing::SeamScenario reading(Builtin(name), nullptr, [stored](scenarios::HostEnv& env) {
    auto read = scenarios::ReadDurableCheckpoints(env, "checkpoints");
    SF_CHECK(read.ok());
    *stored = Stored{};
    for (const scenarios::DurableCheckpoint& c : read->items) {
      stored->checkpoints += c.intact ? 1 : 0;
      stored->deltas += c.intact && c.delta_base.has_value() ? 1 : 0;
    }
  });
  RunConfig config;
  config.checkpoint_store = store;
  config.params = reading.default_params();
  config.params[scenarios::kCheckpointModeParam] = mode;
  Execution ex = RunPlan(reading, faults::Plan{}, config);
  EXPECT_TRUE(ex.violations.empty()) << name << " " << store << " " << mode;
  EXPECT_TRUE(ex.lives.back().report.completed) << name << " " << store << " " << mode;
  return *stored;
}

TEST(CheckpointModeTest, TheHostsStoreFullCheckpointsOnlyInFullModeOverEveryStore) {
  for (const char* name : {"approval", "fan-in"}) {
    for (const std::string& store : CheckpointStoreNames()) {
      const Stored full = FaultFreeRun(name, store, "full");
      EXPECT_GE(full.checkpoints, 2) << name << " " << store;
      EXPECT_EQ(full.deltas, 0) << name << " " << store;
      const Stored incremental = FaultFreeRun(name, store, "incremental");
      EXPECT_GE(incremental.deltas, 1) << name << " " << store;
    }
  }
}

}  // namespace
}  // namespace stepfault::properties
