// Test helpers shared by the scheduler and strategy tests (faults/actor_scheduler_test.cc,
// faults/schedule_strategies_test.cc): a world of actors appending letters to files, and a loop
// that runs an explorer (DfsExplorer or BoundedExplorer) over it to its end.
// Thread-safety: a world is used by one scheduler run.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "engine/status.h"
#include "faults/actor_scheduler.h"
#include "faults/sim_fs.h"

namespace stepfault::faults {

// Actors each append their letter `steps` times (one fs.write each, a scheduling point) to one
// shared file or to their own file; the files exist before the actors start.
struct AppendWorld {
  SimFs fs;
  YieldingHook hook;
  AppendWorld() {
    SF_CHECK(fs.CreateDirIfMissing("/w").ok());
    for (const char* name : {"/w/shared", "/w/a", "/w/b", "/w/c"}) {
      SF_CHECK(fs.OpenFile(name, /*create=*/true, /*exclusive=*/true).ok());
    }
    fs.SetHook(&hook);
  }
  void AddActors(ActorScheduler& s, int actors, int steps, bool shared_file) {
    for (int a = 0; a < actors; ++a) {
      const std::string letter(1, static_cast<char>('a' + a));
      s.AddActor(letter, [this, letter, steps, shared_file] {
        auto file = fs.OpenFile(shared_file ? "/w/shared" : "/w/" + letter, false, false);
        SF_CHECK(file.ok());
        for (int i = 0; i < steps; ++i) SF_CHECK((*file)->Append(letter).ok());
      });
    }
  }
  std::string Shared() { return *fs.ReadFile("/w/shared"); }
};

// Runs the depth-first explorer to its end over `actors` actors appending `steps` letters each;
// returns the set of final file contents and the runs taken.
template <typename Explorer>
inline std::set<std::string> ExploreAppends(bool shared_file, uint64_t* runs, Explorer* dfs) {
  std::set<std::string> outcomes;
  while (true) {
    AppendWorld w;
    ActorScheduler* current = nullptr;
    ScheduleStrategy* strategy =
        dfs->BeginRun([&] { return w.fs.Digest() + current->PositionsKey(); });
    if (strategy == nullptr) break;
    ActorScheduler run(strategy, {});
    current = &run;
    w.AddActors(run, 2, 3, shared_file);
    run.Run();
    outcomes.insert(w.Shared() + "|" + *w.fs.ReadFile("/w/a") + "|" + *w.fs.ReadFile("/w/b"));
    dfs->EndRun();
  }
  *runs = dfs->runs();
  return outcomes;
}

}  // namespace stepfault::faults
