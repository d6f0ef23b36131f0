// The comparison and the drivers of the differential (differential.h).
#include "properties/differential/differential.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "reports/shell_quote.h"
#include "scenarios/json/normalized_trace.h"

namespace stepfault::properties {
namespace {

std::string LineWhere(size_t i, const Json& line) {
  std::string w = "line " + std::to_string(i + 1) + " (" + line.value("line", "?");
  if (line.contains("step") && line["step"].is_number()) {
    w += " " + std::to_string(line["step"].get<int64_t>());
  }
  return w + ")";
}

int64_t StepOf(const Json& maf, const Json& engine) {
  for (const Json* l : {&maf, &engine}) {
    if (l->is_object() && l->contains("step") && (*l)["step"].is_number()) {
      return (*l)["step"].get<int64_t>();
    }
  }
  return -1;
}

void Add(std::vector<TraceDifference>* out, std::string kind, std::string where, Json maf,
         Json engine, int64_t step = -1) {
  out->push_back({std::move(kind), std::move(where), std::move(maf), std::move(engine), step, ""});
}

// fan-in-rounds-by-thread-timing's step (ModeFacts::fan_in_order_step), from the engine's trace:
// a barrier "sink<-a,b" of a checkpoint line names its sources; what each source sent in a step
// is its outputs there (a JSON executor yields everything it sends, and a fan-in edge has no
// condition); what it still had buffered is the barrier's pending list at the checkpoint before.
int64_t FanInOrderStep(const std::vector<Json>& engine) {
  std::map<std::string, Json> checkpoints;
  for (const Json& l : engine) {
    if (l.value("line", "") == "checkpoint") checkpoints[l.value("name", "")] = l;
  }
  Json before;  // the checkpoint line of the step before, once there is one
  for (const Json& l : engine) {
    if (l.value("line", "") != "step" || !l.contains("step") || !l["step"].is_number()) continue;
    std::map<std::string, int> sent;
    if (l.contains("outputs") && l["outputs"].is_array()) {
      for (const Json& o : l["outputs"]) {
        if (o.is_object()) ++sent[o.value("executor", "")];
      }
    }
    auto cp = l.contains("checkpoint") && l["checkpoint"].is_string()
                  ? checkpoints.find(l["checkpoint"].get<std::string>())
                  : checkpoints.end();
    // The barriers are those of this step's checkpoint (every barrier is in every checkpoint).
    const Json* barriers =
        cp != checkpoints.end() && cp->second.contains("fan_in") ? &cp->second["fan_in"] : nullptr;
    if (barriers != nullptr && barriers->is_object()) {
      for (const auto& [name, state] : barriers->items()) {
        const size_t arrow = name.find("<-");
        if (arrow == std::string::npos) continue;
        std::map<std::string, int> buffered;
        if (before.is_object() && before.contains("fan_in") && before["fan_in"].contains(name)) {
          for (const Json& p : before["fan_in"][name].value("pending", Json::array())) {
            if (p.is_object()) ++buffered[p.value("from", "")];
          }
        }
        int senders = 0;
        bool repeated = false;
        std::stringstream sources(name.substr(arrow + 2));
        for (std::string src; std::getline(sources, src, ',');) {
          auto it = sent.find(src);
          if (it == sent.end()) continue;
          ++senders;
          repeated |= it->second + buffered[src] >= 2;
        }
        if (senders >= 2 && repeated) return l["step"].get<int64_t>();
      }
    }
    if (cp != checkpoints.end()) before = cp->second;
  }
  return -1;
}

// The checkpoint line named `name` in `lines`, or null.
Json CheckpointNamed(const std::vector<Json>& lines, const std::string& name) {
  for (const Json& l : lines) {
    if (l.value("line", "") == "checkpoint" && l.value("name", "") == name) return l;
  }
  return Json();
}

// N for a trace of mode restore:N or resume:N (its begin line), else -1.
int RestoredCheckpoint(const std::vector<Json>& trace) {
  if (trace.empty()) return -1;
  auto mode = scenarios::TraceMode::Parse(trace.front().value("mode", ""));
  return mode.ok() && mode->kind != scenarios::TraceMode::kRun ? mode->checkpoint : -1;
}

// receiver-order-by-thread-timing's step (ModeFacts::receiver_order_step): the first step at
// which the traces differ, if both invoked the same messages there and some step up to it
// delivered one receiver messages from two or more senders (the order then travels on: a
// pass-through forwards in the order it was invoked). The queue a step delivers is the checkpoint
// of the step before (in the mode, or for a restore/resume's first step the run's checkpoint it
// starts from).
int64_t ReceiverOrderStep(const std::vector<Json>& maf, const std::vector<Json>& engine,
                          const std::vector<Json>& engine_run) {
  auto steps = [](const std::vector<Json>& lines) {
    std::vector<const Json*> out;
    for (const Json& l : lines) {
      if (l.value("line", "") == "step" && l.contains("step") && l["step"].is_number()) {
        out.push_back(&l);
      }
    }
    return out;
  };
  // True when the checkpoint named `name` queued messages from two or more senders to one
  // receiver.
  auto multi_sender = [&](const std::string& name) {
    Json cp = CheckpointNamed(engine, name);
    if (cp.is_null()) cp = CheckpointNamed(engine_run, name);
    if (!cp.is_object() || !cp.contains("queued") || !cp["queued"].is_object()) return false;
    for (const auto& [receiver, list] : cp["queued"].items()) {
      std::set<std::string> senders;
      for (const Json& q : list) senders.insert(q.value("from", ""));
      if (senders.size() >= 2) return true;
    }
    return false;
  };
  const std::vector<const Json*> m = steps(maf), e = steps(engine);
  std::string previous;  // the checkpoint the next step delivers from
  bool raced = false;    // some step so far delivered one receiver several senders' messages
  if (const int n = RestoredCheckpoint(engine); n >= 0) {
    previous = "cp" + std::to_string(n);
    // A restore or resume from cpN carries the order of every run step before it: the queue it
    // restores is in each side's own order.
    for (int k = 0; k < n && !raced; ++k) raced = multi_sender("cp" + std::to_string(k));
  }
  for (size_t i = 0; i < std::min(m.size(), e.size()); ++i) {
    const Json& ms = *m[i];
    const Json& es = *e[i];
    raced = raced || multi_sender(previous);
    if (ms != es) {
      const bool same_deliveries = ms.value("step", -1) == es.value("step", -2) &&
                                   ms.value("invoked", Json()) == es.value("invoked", Json());
      return same_deliveries && raced ? es["step"].get<int64_t>() : -1;
    }
    if (es.contains("checkpoint") && es["checkpoint"].is_string()) {
      previous = es["checkpoint"].get<std::string>();
    }
  }
  return -1;
}

// True when `engine`'s mode is restore:N or resume:N and checkpoint cpN of the run was taken at or
// after the run's first fan-in order race.
bool InheritsFanInOrderRace(const std::vector<Json>& engine, const std::vector<Json>& engine_run) {
  const int n = RestoredCheckpoint(engine);
  if (n < 0) return false;
  const int64_t race = FanInOrderStep(engine_run);
  const Json cp = CheckpointNamed(engine_run, "cp" + std::to_string(n));
  return race >= 0 && cp.is_object() && cp.contains("step") && cp["step"].is_number() &&
         cp["step"].get<int64_t>() >= race;
}

// The first step with a WorkflowError, no failed executor and no checkpoint: the step ran, but
// publishing its state updates failed, so no checkpoint was written; -1 when there is none.
int64_t UnpublishedStep(const std::vector<Json>& lines) {
  for (const Json& l : lines) {
    if (l.value("line", "") != "step" || !l.contains("step") || !l["step"].is_number()) continue;
    const bool failed = l.contains("failed") && l["failed"].is_array() && !l["failed"].empty();
    if (l.value("errors", 0) > 0 && !failed && l.contains("checkpoint") &&
        l["checkpoint"].is_null()) {
      return l["step"].get<int64_t>();
    }
  }
  return -1;
}

bool HasErrorLine(const std::vector<Json>& lines, const std::string& text) {
  return std::any_of(lines.begin(), lines.end(), [&](const Json& l) {
    return l.value("line", "") == "error" && l.value("message", "").find(text) != std::string::npos;
  });
}

// The first step after a halt that sent two or more responses; -1 when there is none.
int64_t StepAfterResponses(const std::vector<Json>& lines) {
  bool answered = false;
  for (const Json& l : lines) {
    const std::string kind = l.value("line", "");
    if (kind == "halt" && l.contains("responses") && l["responses"].is_array()) {
      answered = answered || l["responses"].size() >= 2;
    } else if (answered && kind == "step" && l.contains("step") && l["step"].is_number()) {
      return l["step"].get<int64_t>();
    }
  }
  return -1;
}

ModeFacts FactsOf(const std::vector<Json>& maf, const std::vector<Json>& engine,
                  const std::vector<Json>& engine_run, MafExecution execution) {
  ModeFacts f;
  f.execution = execution;
  f.maf_after_responses_step = StepAfterResponses(maf);
  // A restore or resume starts from MAF's own fresh run of the workflow, untraced here: when that
  // run answered several requests at one halt, its steps and checkpoints were thread timing.
  f.maf_run_shorter_after_responses =
      RestoredCheckpoint(engine) >= 0 && StepAfterResponses(engine_run) >= 0;
  if (maf.size() == 2 && maf[1].value("line", "") == "halt") {
    f.maf_halt_only_status = maf[1].value("status", "");
  }
  f.fan_in_order_inherited = InheritsFanInOrderRace(engine, engine_run);
  f.engine_refused_ended_run = HasErrorLine(engine, "has ended");
  f.maf_refused_restore_queued_updates = HasErrorLine(maf, "while there are queued updates");
  f.maf_unpublished_step = UnpublishedStep(maf);
  f.engine_unpublished_step = UnpublishedStep(engine);
  f.fan_in_order_step = FanInOrderStep(engine);
  f.receiver_order_step = ReceiverOrderStep(maf, engine, engine_run);
  const Json emptied{{"type", ""}, {"body", Json::object()}};
  for (const Json& l : maf) {
    if (l.value("line", "") != "step" || !l.contains("invoked")) continue;
    if (l.contains("failed") && l["failed"].is_array() && !l["failed"].empty()) {
      f.maf_failed_step = true;
    }
    for (const Json& i : l["invoked"]) {
      if (i.is_object() && i.contains("message") && i["message"] == emptied) {
        const int64_t step = l["step"].get<int64_t>();
        if (f.maf_emptied_message_step < 0 || step < f.maf_emptied_message_step) {
          f.maf_emptied_message_step = step;
        }
      }
    }
  }
  return f;
}

// Every member name of either object, sorted.
std::set<std::string> KeysOfEither(const Json& a, const Json& b) {
  std::set<std::string> keys;
  for (const auto& [k, v] : a.items()) keys.insert(k);
  for (const auto& [k, v] : b.items()) keys.insert(k);
  return keys;
}

// Field by field; members that are objects keyed by receiver, barrier or state key compare key by
// key, so a deviation can claim one key (one port's own state) and no more.
void CompareLines(const std::string& prefix, const std::string& where, const Json& maf,
                  const Json& engine, std::vector<TraceDifference>* out) {
  const int64_t step = StepOf(maf, engine);
  for (const std::string& k : KeysOfEither(maf, engine)) {
    const Json m = maf.contains(k) ? maf[k] : Json();
    const Json e = engine.contains(k) ? engine[k] : Json();
    if (m == e) continue;
    if ((k == "queued" || k == "fan_in" || k == "state") && m.is_object() && e.is_object()) {
      for (const std::string& s : KeysOfEither(m, e)) {
        const Json ms = m.contains(s) ? m[s] : Json();
        const Json es = e.contains(s) ? e[s] : Json();
        if (ms != es) Add(out, prefix + "." + k, where + "/" + s, ms, es, step);
      }
      continue;
    }
    Add(out, prefix + "." + k, where, m, e, step);
  }
}

bool IsPortState(const TraceDifference& d, const ModeFacts&) {
  return d.kind == "checkpoint.state" && d.engine.is_null() && d.where.size() > 24 &&
         d.where.ends_with("||WrappedRequestsStateKey");
}

bool StateConflictRunsOn(const TraceDifference& d, const ModeFacts& f) {
  if (f.maf_refused_restore_queued_updates) return true;
  const int64_t s = f.maf_unpublished_step;
  if (s < 0 || s != f.engine_unpublished_step) return false;
  return d.step > s || (d.kind.starts_with("halt.") && d.step >= s);
}

bool FailedStepEndsRun(const TraceDifference& d, const ModeFacts& f) {
  if (f.execution != MafExecution::kLockstep) return false;
  if (f.engine_refused_ended_run) return true;
  return f.maf_failed_step && d.kind == "halt.status" && d.maf == "idle" && d.engine == "ended";
}

// The first entry of Deviations() that claims `d`, into d->deviation.
void Classify(TraceDifference* d, const ModeFacts& facts) {
  for (const Deviation& dev : Deviations()) {
    if (dev.matches(*d, facts)) {
      d->deviation = dev.name;
      return;
    }
  }
}

// The deviations of MAF's OffThread execution only (Deviations() lists them last).
std::vector<Deviation> OffThreadDeviations() {
  return {
      {"offthread-restore-of-ended-run-is-inert",
       "OffThread only: a failed step ends the run on both sides (so failed-step-ends-run does "
       "not apply), but a live restore on the ended run differs: MAF 1.28 OffThread accepts "
       "RestoreCheckpointAsync, runs nothing and reports the run ended, where the engine refuses "
       "the restore (\"the run ... has ended\"; resume a fresh run instead)",
       "claims the differences of a restore mode the engine refused with \"the run ... has ended\" "
       "when MAF's trace of it is only a halt with status ended (OffThread only); a restore MAF "
       "ran, or any Lockstep mode, stays with the other entries",
       [](const TraceDifference&, const ModeFacts& f) {
         return f.execution == MafExecution::kOffThread && f.engine_refused_ended_run &&
                f.maf_halt_only_status == "ended";
       }},
      {"offthread-idle-resume-never-halts",
       "OffThread only, MAF 1.28: a run resumed from a checkpoint that leaves nothing to do (no "
       "queued message, no pending request) never halts, so WatchStreamAsync never ends; "
       "maf-runner then records the status MAF reports (NotStarted) instead of waiting. The "
       "engine, like Lockstep, halts such a resume idle at once",
       "claims a halt.status difference MAF NotStarted / engine idle in a resume mode whose MAF "
       "trace is only that halt (OffThread only)",
       [](const TraceDifference& d, const ModeFacts& f) {
         return f.execution == MafExecution::kOffThread && d.kind == "halt.status" &&
                f.maf_halt_only_status == "NotStarted" && d.maf == "NotStarted" &&
                d.engine == "idle";
       }},
      {"offthread-responses-split-by-timing",
       "OffThread only: the run's super-steps run on a background thread while the host sends "
       "its answers one SendResponseAsync at a time, so when the host answers two or more "
       "requests at one halt, thread timing decides whether they are delivered in one step or "
       "the first one starts a step before the next arrives; the engine (and Lockstep) deliver "
       "every answer of a halt in the next step",
       "claims every difference of a mode at or after the first step after a halt at which the "
       "host sent MAF two or more responses, and every difference of a restore or resume (or a "
       "mode one side's run lacks) when the engine's run answered two or more requests at one "
       "halt: MAF's fresh run the mode starts from may have taken other steps and checkpoints "
       "(OffThread only); differences before, or after single responses, stay undocumented",
       [](const TraceDifference& d, const ModeFacts& f) {
         if (f.execution != MafExecution::kOffThread) return false;
         if (f.maf_run_shorter_after_responses) return true;
         return f.maf_after_responses_step >= 0 && d.step >= f.maf_after_responses_step;
       }},
  };
}

}  // namespace

const char* ExecutionName(MafExecution e) {
  return e == MafExecution::kOffThread ? "offthread" : "lockstep";
}

Result<MafExecution> ParseExecution(const std::string& text) {
  if (text == "lockstep") return MafExecution::kLockstep;
  if (text == "offthread") return MafExecution::kOffThread;
  return Status::InvalidArgument("unknown execution '" + text +
                                 "': expected lockstep or offthread");
}

const std::vector<Deviation>& Deviations() {
  static const std::vector<Deviation> kDeviations = [] {
    std::vector<Deviation> all = {
        {"port-bookkeeping-state",
         "MAF's RequestPort executor keeps its own state entry "
         "(\"<port>||WrappedRequestsStateKey\") "
         "in the checkpoint's state data once it is instantiated; Stepfault's port keeps its "
         "pending requests only in the checkpoint's outstanding-request list, which both compare",
         "claims a checkpoint.state difference whose key is <port>||WrappedRequestsStateKey and "
         "that the engine lacks; any other state difference stays undocumented",
         IsPortState},
        {"maf-state-conflict-runs-on",
         "MAF 1.28 bug: when a step's state publish fails (two executors wrote one key of a shared "
         "scope: \"exactly one update\" conflict) MAF reports a WorkflowError, writes no "
         "checkpoint and runs on, but the failed updates stay queued, so every later step fails "
         "its publish the same way (no checkpoint is ever written again) and a live restore on "
         "that run throws (\"cannot import state while there are queued updates\"). The engine "
         "ends the run at the conflict (state-conflict error), which a fresh resume recovers from",
         "claims the differences after the step both sides failed to publish (same step, a "
         "WorkflowError, no failed executor, no checkpoint) and the halt after it, and every "
         "difference of a restore mode MAF refused because updates were still queued; the "
         "conflict step itself is compared in full",
         StateConflictRunsOn},
        {"receiver-order-by-thread-timing",
         "MAF runs a step's senders concurrently and queues each message when it is sent, so "
         "a receiver with messages from two or more senders in one step gets them in an order "
         "thread timing decides; the engine delivers them by sender id, then emission order. "
         "The multiset comparison hides the order itself, but a receiver whose result depends "
         "on it (a counter, a first-writer-wins effect) shows it in what it sends",
         "claims every difference of a mode at or after the first step at which the two traces "
         "differ although both invoked the same messages, when that step or an earlier one "
         "delivered one receiver messages queued from two or more senders (the engine's "
         "checkpoint before the step); a first difference in what was invoked, or one with a "
         "single sender per receiver all along, stays undocumented",
         [](const TraceDifference& d, const ModeFacts& f) {
           return f.receiver_order_step >= 0 && d.step >= f.receiver_order_step;
         }},
        {"failed-step-ends-run",
         "Lockstep only: a step whose handler fails ends the engine's run (status ended, modelled "
         "on MAF's OffThread mode, where MAF ends the run too; README deliberate deviations); MAF "
         "in Lockstep mode halts the run idle after the failed step, and a live restore on that "
         "handle works, where the engine refuses it (resume a fresh run instead)",
         "claims a halt.status difference MAF idle / engine ended in a mode where a MAF step has a "
         "failed executor, and every difference of a restore mode the engine refused with \"the "
         "run ... has ended\" (Lockstep only); a fresh resume after the failure is compared in "
         "full",
         FailedStepEndsRun},
        {"maf-restored-message-emptied",
         "MAF 1.28 bug: a message a fan-in barrier released (and one sent on from it) is queued "
         "as a PortableValue inside a PortableValue; a JSON checkpoint keeps both wrappers and, "
         "restored or resumed from it, MAF delivers a default-constructed message (type \"\", "
         "body {}), so the receiver runs on nothing (compare #5307). The engine delivers the "
         "message it checkpointed",
         "claims every difference of a mode at or after the first step in which MAF invoked an "
         "executor with an emptied message {\"type\": \"\", \"body\": {}}, and halts after "
         "it: the mode diverges from there on; differences before that step stay undocumented",
         [](const TraceDifference& d, const ModeFacts& f) {
           return f.maf_emptied_message_step >= 0 && d.step >= f.maf_emptied_message_step;
         }},
        {"fan-in-rounds-by-thread-timing",
         "MAF runs a step's receivers concurrently and routes each message when it is sent, so "
         "when two or more sources of a fan-in barrier send to it in one step and one of them "
         "sends twice (or while a message of its own is still buffered), which messages make up "
         "a round depends on thread timing: a second message can open the next round or join "
         "this one. The engine routes after the step, by sender id and then emission order, one "
         "of the orders MAF can take",
         "claims every difference of a mode at or after the first step of the engine's trace in "
         "which such a barrier got its messages (its checkpoint and everything after it), and "
         "every difference of a restore or resume from a checkpoint taken at or after that step "
         "of the run: the runs may diverge from there on; differences before stay undocumented",
         [](const TraceDifference& d, const ModeFacts& f) {
           return f.fan_in_order_inherited ||
                  (f.fan_in_order_step >= 0 && d.step >= f.fan_in_order_step);
         }},
    };
    for (Deviation& d : OffThreadDeviations()) all.push_back(std::move(d));
    return all;
  }();
  return kDeviations;
}

std::vector<TraceDifference> CompareTraces(const std::vector<Json>& maf,
                                           const std::vector<Json>& engine,
                                           const std::vector<Json>& engine_run,
                                           MafExecution execution) {
  std::vector<TraceDifference> out;
  std::vector<Json> maf_events, engine_events;
  std::map<std::string, Json> maf_cps, engine_cps;
  for (const Json& l : maf) {
    if (l.value("line", "") == "checkpoint")
      maf_cps[l.value("name", "")] = l;
    else
      maf_events.push_back(l);
  }
  for (const Json& l : engine) {
    if (l.value("line", "") == "checkpoint")
      engine_cps[l.value("name", "")] = l;
    else
      engine_events.push_back(l);
  }
  const size_t common = std::min(maf_events.size(), engine_events.size());
  for (size_t i = 0; i < common; ++i) {
    const Json& m = maf_events[i];
    const Json& e = engine_events[i];
    if (m.value("line", "") != e.value("line", "")) {
      Add(&out, "event order", LineWhere(i, m), m, e, StepOf(m, e));
      break;  // the rest is misaligned: one difference says it
    }
    CompareLines(m.value("line", "?"), LineWhere(i, m), m, e, &out);
  }
  for (size_t i = common; i < maf_events.size(); ++i) {
    Add(&out, "line missing in engine", LineWhere(i, maf_events[i]), maf_events[i], Json(),
        StepOf(maf_events[i], Json()));
  }
  for (size_t i = common; i < engine_events.size(); ++i) {
    Add(&out, "line missing in MAF", LineWhere(i, engine_events[i]), Json(), engine_events[i],
        StepOf(Json(), engine_events[i]));
  }
  std::set<std::string> names;
  for (const auto& [n, l] : maf_cps) names.insert(n);
  for (const auto& [n, l] : engine_cps) names.insert(n);
  for (const std::string& n : names) {
    auto m = maf_cps.find(n);
    auto e = engine_cps.find(n);
    if (m == maf_cps.end()) {
      Add(&out, "checkpoint missing in MAF", n, Json(), e->second, StepOf(Json(), e->second));
    } else if (e == engine_cps.end()) {
      Add(&out, "checkpoint missing in engine", n, m->second, Json(), StepOf(m->second, Json()));
    } else {
      CompareLines("checkpoint", n, m->second, e->second, &out);
    }
  }
  // A line without a step of its own (a halt, or a halt only one side has) belongs to the latest
  // step before it on either side.
  for (TraceDifference& d : out) {
    if (d.step >= 0 || !d.where.starts_with("line ")) continue;
    const size_t line = std::stoul(d.where.substr(5));  // "line N (...)", N from 1
    int64_t last_step = -1;
    for (const std::vector<Json>* events : {&maf_events, &engine_events}) {
      for (size_t i = 0; i + 1 < line && i < events->size(); ++i) {
        const Json& l = (*events)[i];
        if (l.contains("step") && l["step"].is_number()) {
          last_step = std::max(last_step, l["step"].get<int64_t>());
        }
      }
    }
    d.step = last_step;
  }
  const ModeFacts facts = FactsOf(maf, engine, engine_run, execution);
  for (TraceDifference& d : out) Classify(&d, facts);
  return out;
}

std::vector<std::pair<std::string, std::vector<Json>>> SplitModes(const std::vector<Json>& lines) {
  std::vector<std::pair<std::string, std::vector<Json>>> out;
  for (const Json& l : lines) {
    if (l.value("line", "") == "begin") out.push_back({l.value("mode", "?"), {}});
    if (!out.empty()) out.back().second.push_back(l);
  }
  return out;
}

Result<std::vector<Json>> RunMaf(const std::string& maf_runner, const std::string& scenario_file,
                                 const std::vector<std::string>& args) {
  std::error_code ec;
  if (!std::filesystem::exists(maf_runner, ec)) {
    return Status::NotFound(
        "maf-runner not found at " + maf_runner +
        "; build it with `dotnet build maf -c Release` (needs the .NET 10 SDK)");
  }
  const std::string err = (std::filesystem::temp_directory_path() /
                           ("stepfault-maf-" + std::to_string(::getpid()) + ".err"))
                              .string();
  std::vector<std::string> words{maf_runner, scenario_file};
  words.insert(words.end(), args.begin(), args.end());
  const std::string command = reports::ShellJoin(words) + " 2>" + reports::ShellQuote(err);
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return Status::Internal("cannot start " + maf_runner);
  std::string text;
  char buf[1 << 16];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) text.append(buf, n);
  const int rc = ::pclose(pipe);
  std::ifstream ef(err);
  std::stringstream stderr_text;
  stderr_text << ef.rdbuf();
  std::filesystem::remove(err, ec);
  if (rc != 0) {
    return Status::Internal("maf-runner failed (status " + std::to_string(WEXITSTATUS(rc)) +
                            ") on " + scenario_file + ": " + stderr_text.str());
  }
  std::vector<Json> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    Json j = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Status::Internal("maf-runner printed a non-JSON line: " + line);
    lines.push_back(std::move(j));
  }
  return lines;
}

Result<std::vector<Json>> EngineModeTrace(const std::string& scenario_text,
                                          const std::string& source_name,
                                          const scenarios::TraceMode& mode) {
  auto lines = scenarios::EngineNormalizedTrace(scenario_text, source_name, mode,
                                                EngineProfile::MafCompat());
  if (lines.ok() || mode.kind == scenarios::TraceMode::kRun) return lines;
  // The run itself must parse and run: only then is a refused restore or resume a trace.
  SF_RETURN_IF_ERROR(
      scenarios::EngineNormalizedTrace(scenario_text, source_name, {}, EngineProfile::MafCompat())
          .status());
  return std::vector<Json>{Json{{"line", "begin"}, {"mode", mode.ToString()}},
                           Json{{"line", "error"}, {"message", lines.status().message()}}};
}

Result<std::vector<std::pair<std::string, std::vector<Json>>>> EngineAllModes(
    const std::string& scenario_text, const std::string& source_name) {
  std::vector<std::pair<std::string, std::vector<Json>>> out;
  SF_ASSIGN_OR_RETURN(std::vector<Json> run, EngineModeTrace(scenario_text, source_name, {}));
  const int count = static_cast<int>(std::count_if(
      run.begin(), run.end(), [](const Json& l) { return l["line"] == "checkpoint"; }));
  out.push_back({"run", std::move(run)});
  for (int n = 0; n < count; ++n) {
    for (auto kind : {scenarios::TraceMode::kRestore, scenarios::TraceMode::kResume}) {
      const scenarios::TraceMode mode{kind, n};
      SF_ASSIGN_OR_RETURN(std::vector<Json> lines,
                          EngineModeTrace(scenario_text, source_name, mode));
      out.push_back({mode.ToString(), std::move(lines)});
    }
  }
  return out;
}

WorkflowComparison CompareWorkflow(const std::string& maf_runner, const std::string& file,
                                   const std::string& text, MafExecution execution) {
  WorkflowComparison w;
  w.file = file;
  w.execution = execution;
  Json doc = Json::parse(text, nullptr, false);
  w.name = doc.is_object() ? doc.value("name", file) : file;
  Result<std::vector<Json>> maf =
      RunMaf(maf_runner, file, {"--all", "--execution", ExecutionName(execution)});
  if (!maf.ok()) {
    w.error = maf.status().message();
    return w;
  }
  auto engine = EngineAllModes(text, file);
  if (!engine.ok()) {
    w.error = "engine: " + engine.status().message();
    return w;
  }
  const auto maf_modes = SplitModes(*maf);
  std::map<std::string, std::vector<Json>> by_mode(engine->begin(), engine->end());
  const std::vector<Json> engine_run = by_mode.count("run") ? by_mode["run"] : std::vector<Json>{};
  // A mode one side lacks: the runs wrote different numbers of checkpoints.
  ModeFacts missing_mode;
  missing_mode.execution = execution;
  missing_mode.maf_run_shorter_after_responses = StepAfterResponses(engine_run) >= 0;
  std::set<std::string> seen;
  for (const auto& [mode, lines] : maf_modes) {
    if (mode == "run") {
      w.checkpoints = static_cast<int>(std::count_if(
          lines.begin(), lines.end(), [](const Json& l) { return l["line"] == "checkpoint"; }));
    }
    ++w.modes;
    seen.insert(mode);
    auto it = by_mode.find(mode);
    if (it == by_mode.end()) {
      TraceDifference d{"mode missing in engine", mode, lines.front(), Json(), -1, ""};
      Classify(&d, missing_mode);
      w.differences.push_back({mode, std::move(d)});
      continue;
    }
    for (TraceDifference& d : CompareTraces(lines, it->second, engine_run, execution)) {
      w.differences.push_back({mode, std::move(d)});
    }
  }
  for (const auto& [mode, lines] : *engine) {
    if (seen.count(mode) == 0) {
      TraceDifference d{"mode missing in MAF", mode, Json(), lines.front(), -1, ""};
      Classify(&d, missing_mode);
      w.differences.push_back({mode, std::move(d)});
    }
  }
  return w;
}

}  // namespace stepfault::properties
