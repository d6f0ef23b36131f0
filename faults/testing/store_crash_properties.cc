// CheckStoreCrashProperties (see store_crash_properties.h).
#include "faults/testing/store_crash_properties.h"

#include <optional>

#include "faults/injector.h"
#include "faults/sim_fs.h"

namespace stepfault::testing {
namespace {

constexpr char kDir[] = "/store";
constexpr char kSession[] = "crash-properties";

// The i-th checkpoint's bytes: distinct, deterministic, a JSON document like a real checkpoint.
std::string Payload(int i, size_t bytes) {
  std::string body = "{\"checkpoint\":" + std::to_string(i) + ",\"fill\":\"";
  while (body.size() + 2 < bytes) body.push_back(static_cast<char>('a' + (body.size() + i) % 26));
  return body + "\"}";
}

struct Committed {
  CheckpointInfo info;
  std::string bytes;
};

// What the workload got done before it died (or finished).
struct Progress {
  std::vector<Committed> committed;
  std::optional<std::string> in_flight;  // bytes of the Commit that had started
  std::string error;                     // a failure that is not a death
};

Progress RunWorkload(const EnvStoreOpener& open, faults::SimFs& fs,
                     const CrashPropertyOptions& options) {
  Progress p;
  try {
    auto store = open(&fs, kDir);
    if (!store.ok()) {
      p.error = "open: " + store.status().ToString();
      return p;
    }
    std::optional<CheckpointInfo> parent;
    for (int i = 0; i < options.checkpoints; ++i) {
      p.in_flight = Payload(i, options.payload_bytes);
      auto info = (*store)->Commit(kSession, *p.in_flight, parent);
      if (!info.ok()) {
        p.error = "commit " + std::to_string(i) + ": " + info.status().ToString();
        return p;
      }
      p.committed.push_back({*info, *p.in_flight});
      p.in_flight.reset();
      parent = *info;
    }
  } catch (const faults::CrashSignal&) {
    // The death: what was committed so far is in p.
  }
  return p;
}

// Checks rules 1-3 on the reopened store; appends to `out` prefixed with `where`.
void CheckReopened(const EnvStoreOpener& open, faults::SimFs& world, const Progress& before,
                   const std::string& where, std::vector<std::string>* out) {
  auto store = open(&world, kDir);
  if (!store.ok()) {
    out->push_back(where + ": reopening failed: " + store.status().ToString());
    return;
  }
  auto index = (*store)->Index(kSession);
  if (!index.ok()) {
    out->push_back(where + ": Index failed: " + index.status().ToString());
    return;
  }
  const size_t n = before.committed.size();
  if (index->size() < n || index->size() > n + 1) {
    out->push_back(where + ": Index lists " + std::to_string(index->size()) + " entries; " +
                   std::to_string(n) + " were committed (at most one more may be in flight)");
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const Committed& c = before.committed[i];
    if ((*index)[i].info != c.info) {
      out->push_back(where + ": entry " + std::to_string(i) + " is " + (*index)[i].info.ToString() +
                     ", committed was " + c.info.ToString());
      continue;
    }
    auto bytes = (*store)->Retrieve(c.info);
    if (!bytes.ok() || *bytes != c.bytes) {
      out->push_back(where + ": committed checkpoint " + c.info.ToString() + " " +
                     (bytes.ok() ? "came back with other bytes" : bytes.status().ToString()));
    }
  }
  if (index->size() == n + 1) {
    const CheckpointInfo extra = index->back().info;
    auto bytes = (*store)->Retrieve(extra);
    const bool exact = bytes.ok() && before.in_flight && *bytes == *before.in_flight;
    const bool typed = !bytes.ok() && (bytes.status().code() == StatusCode::kCorruption ||
                                       bytes.status().code() == StatusCode::kNotFound);
    if (!exact && !typed) {
      out->push_back(where + ": the entry in flight " + extra.ToString() + " " +
                     (bytes.ok() ? "returned bytes that were never committed"
                                 : "gave an untyped error: " + bytes.status().ToString()));
    }
  }
  const std::string fresh = "{\"after\":\"" + where + "\"}";
  std::optional<CheckpointInfo> parent;
  if (!index->empty()) parent = index->back().info;
  auto info = (*store)->Commit(kSession, fresh, parent);
  auto back = info.ok() ? (*store)->Retrieve(*info) : Result<std::string>(info.status());
  if (!back.ok() || *back != fresh) {
    out->push_back(where + ": a commit after recovery " +
                   (back.ok() ? "read back other bytes" : "failed: " + back.status().ToString()));
  }
}

}  // namespace

CrashPropertyResult CheckStoreCrashProperties(const EnvStoreOpener& open,
                                              const CrashPropertyOptions& options) {
  CrashPropertyResult result;
  std::vector<faults::Window> windows;
  {
    faults::SimFs fs;
    SF_CHECK(fs.CreateDirIfMissing(kDir).ok());
    SF_CHECK(fs.SyncDir("/").ok());
    faults::Injector recorder;
    fs.SetHook(&recorder);
    const Progress clean = RunWorkload(open, fs, options);
    fs.SetHook(nullptr);
    if (!clean.error.empty() || static_cast<int>(clean.committed.size()) != options.checkpoints) {
      result.failures.push_back("the fault-free workload failed: " + clean.error);
      return result;
    }
    for (const faults::Window& w : recorder.hits()) {
      if (w.point.starts_with("fs.")) windows.push_back(w);
    }
  }
  result.windows = static_cast<int>(windows.size());
  const faults::FaultAction deaths[] = {
      faults::FaultAction::Of(faults::FaultActionKind::kCrash),
      faults::FaultAction::Of(faults::FaultActionKind::kPowerLoss)};
  for (const faults::Window& w : windows) {
    for (const faults::FaultAction& action : deaths) {
      auto fault = faults::FaultAtWindow(action, w);
      SF_CHECK(fault.ok());
      const std::string where = fault->Print();
      faults::SimFs fs;
      SF_CHECK(fs.CreateDirIfMissing(kDir).ok());
      SF_CHECK(fs.SyncDir("/").ok());
      faults::Injector injector(*fault, &fs);
      fs.SetHook(&injector);
      const Progress before = RunWorkload(open, fs, options);
      fs.SetHook(nullptr);
      if (!injector.fired()) {
        result.failures.push_back(where + ": the window was not reached again (nondeterminism)");
        continue;
      }
      std::unique_ptr<faults::SimFs> world =
          fs.CrashClone(faults::DeathKindOf(action), options.seed);
      CheckReopened(open, *world, before, where, &result.failures);
      ++result.states_checked;
    }
  }
  return result;
}

}  // namespace stepfault::testing
