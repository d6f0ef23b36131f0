// The engine side of the differential trace (normalized_trace.h). The line format mirrors
// maf/Runner/Trace.cs and CheckpointNormalizer.cs member for member: a change to one is a change
// to both (docs/engine-semantics.md §11 is the contract).
#include "scenarios/json/normalized_trace.h"

#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>

#include "engine/checkpoint_manager.h"
#include "engine/run.h"
#include "engine/stores/memory_store.h"
#include "scenarios/effect_store.h"
#include "scenarios/json/json_scenario_internal.h"

namespace stepfault::scenarios {
namespace {

// Sorts by canonical text: the trace's multisets.
Json Sorted(std::vector<Json> items) {
  std::sort(items.begin(), items.end(),
            [](const Json& a, const Json& b) { return a.dump() < b.dump(); });
  Json out = Json::array();
  for (Json& j : items) out.push_back(std::move(j));
  return out;
}

// A message as the trace shows it: a wrapped response as the response it carries, as
// maf/Runner/Trace.cs MessageJson shows MAF's ExternalResponse.
Json TraceMessage(const Message& m) {
  std::optional<Message> inner = UnwrapResponse(m);
  return MessageToJson(inner ? *inner : m);
}

Json RequestJson(const std::string& id, const std::string& port, const Json& message) {
  return Json{{"request", id}, {"port", port}, {"message", message}};
}

class Tracer {
 public:
  // `committed`: every checkpoint the modes' runs committed, in commit order (shared by the run's
  // and the restore's tracers). Names come from it, not from the store's index, because a store
  // that observes restores prunes the abandoned timeline (engine/store_prune.h).
  Tracer(const JsonScenarioDef& def, std::string mode, std::vector<CheckpointInfo>* committed)
      : def_(def), committed_(committed) {
    lines_.push_back(Json{{"line", "begin"}, {"mode", std::move(mode)}});
  }

  void Add(const WorkflowEvent& e) {
    switch (e.kind) {
      case EventKind::kWorkflowStarted:
        return;  // the first step line marks the start
      case EventKind::kSuperStepStarted:
        Close();
        group_ = Group{};
        group_->step = e.step;
        return;
      case EventKind::kSuperStepCompleted: {
        Group& g = Current();
        if (e.checkpoint) {
          g.checkpoint = e.checkpoint->checkpoint_id;
          committed_->push_back(*e.checkpoint);
        }
        g.pending_messages = e.has_pending_messages;
        g.pending_requests = e.has_pending_requests;
        g.completed_step = true;
        Close();
        return;
      }
      default:
        break;
    }
    Group& g = Current();
    const Json message = e.message ? TraceMessage(*e.message) : Json();
    switch (e.kind) {
      case EventKind::kExecutorInvoked:
        g.invoked.push_back(Json{{"executor", e.executor_id}, {"message", message}});
        break;
      case EventKind::kExecutorCompleted:
        g.completed.push_back(e.executor_id);
        break;
      case EventKind::kExecutorFailed:
        g.failed.push_back(e.executor_id);
        break;
      case EventKind::kWorkflowError:
        ++g.errors;
        break;
      case EventKind::kWorkflowOutput:
        g.outputs.push_back(Json{{"executor", e.executor_id}, {"message", message}});
        break;
      case EventKind::kRequestInfo:
        cycle_requests_.push_back({e.request_id, e.executor_id, e.message.value_or(Message{})});
        g.requests.push_back(RequestJson(e.request_id, e.executor_id, message));
        break;
      default:
        break;
    }
  }

  // The scripted answers to this cycle's requests, in name order.
  std::vector<ExternalResponse> Answerable() {
    Close();
    std::vector<PendingRequest> requests = std::move(cycle_requests_);
    cycle_requests_.clear();
    std::sort(requests.begin(), requests.end(),
              [&](const PendingRequest& a, const PendingRequest& b) {
                return NameOf(a.request_id) < NameOf(b.request_id);
              });
    std::vector<ExternalResponse> out;
    for (const PendingRequest& r : requests) {
      const JsonExecutorDef* port = def_.Find(r.port_id);
      if (port == nullptr || port->kind != JsonExecutorKind::kRequestPort) continue;
      if (auto m = ScriptedResponse(*port, r.data)) out.push_back({r.request_id, r.port_id, *m});
    }
    return out;
  }

  void Halt(RunStatus status, const std::vector<ExternalResponse>& answers) {
    Close();
    Json responses = Json::array();
    for (const ExternalResponse& a : answers) {
      responses.push_back(RequestJson(NameOf(a.request_id), a.port_id, TraceMessage(a.data)));
    }
    const char* name = status == RunStatus::kIdle              ? "idle"
                       : status == RunStatus::kPendingRequests ? "pending_requests"
                       : status == RunStatus::kEnded           ? "ended"
                                                               : "running";
    lines_.push_back(Json{{"line", "halt"}, {"status", name}, {"responses", responses}});
  }

  // Appends one line per committed checkpoint from `from` on.
  Status Finish(CheckpointManager& manager, int from) {
    Close();
    const std::vector<CheckpointInfo>& infos = *committed_;
    for (size_t i = 0; i < infos.size(); ++i) names_[infos[i].checkpoint_id] = i;
    for (size_t i = from; i < infos.size(); ++i) {
      SF_ASSIGN_OR_RETURN(std::shared_ptr<const Checkpoint> c, manager.Lookup(infos[i]));
      lines_.push_back(CheckpointLine(*c, i));
    }
    // Step lines name checkpoints by ordinal too.
    for (Json& line : lines_) {
      if (line.contains("checkpoint") && line["checkpoint"].is_string()) {
        line["checkpoint"] = CheckpointName(line["checkpoint"].get<std::string>());
      }
    }
    return Status::Ok();
  }

  std::vector<Json> lines() && { return std::move(lines_); }

 private:
  struct Group {
    int64_t step = -1;
    std::vector<Json> invoked, completed, failed, outputs, requests;
    int errors = 0;
    std::optional<std::string> checkpoint;
    bool completed_step = false;
    bool pending_messages = false, pending_requests = false;
  };

  Group& Current() {
    if (!group_) group_ = Group{};
    return *group_;
  }

  void Close() {
    if (!group_) return;
    Group g = std::move(*group_);
    group_.reset();
    if (g.step < 0 && g.requests.empty() && g.outputs.empty()) return;
    Json line{{"line", g.step < 0 ? "prologue" : "step"},
              {"step", g.step},
              {"invoked", Sorted(g.invoked)},
              {"completed", Sorted(g.completed)},
              {"failed", Sorted(g.failed)},
              {"errors", g.errors},
              {"outputs", Sorted(g.outputs)},
              {"requests", NameRequests(g.requests)},
              {"checkpoint", g.checkpoint ? Json(*g.checkpoint) : Json()},
              {"pending_messages", g.completed_step ? Json(g.pending_messages) : Json()},
              {"pending_requests", g.completed_step ? Json(g.pending_requests) : Json()}};
    lines_.push_back(std::move(line));
  }

  // Named in (port, message) order, then sorted with their names.
  Json NameRequests(std::vector<Json> requests) {
    std::stable_sort(requests.begin(), requests.end(), [](const Json& a, const Json& b) {
      return Json{{"port", a["port"]}, {"message", a["message"]}}.dump() <
             Json{{"port", b["port"]}, {"message", b["message"]}}.dump();
    });
    for (Json& r : requests) r["request"] = NameOf(r["request"].get<std::string>());
    // Requests equal but for their id keep a defined order: by name.
    return Sorted(std::move(requests));
  }

  std::string NameOf(const std::string& raw) {
    auto [it, added] = request_names_.try_emplace(raw, "");
    if (added) it->second = "r" + std::to_string(request_names_.size());
    return it->second;
  }

  Json CheckpointName(const std::string& id) const {
    auto it = names_.find(id);
    return it == names_.end() ? Json("?" + id) : Json("cp" + std::to_string(it->second));
  }

  // The trace's name of an engine scope (docs/engine-semantics.md 11.2), as maf-runner names MAF's:
  // a private scope by its executor ("executor:c" -> "c"), a shared one by its name prefixed with
  // '@' ("shared:tally" -> "@tally"; MAF also records whichever executor touched it first).
  static std::string StateScopeName(const std::string& scope) {
    for (const auto& [prefix, replacement] : {std::pair{"executor:", ""}, {"shared:", "@"}}) {
      if (scope.rfind(prefix, 0) == 0) return replacement + scope.substr(std::strlen(prefix));
    }
    return "?" + scope;
  }

  static Json EnvelopeJson(const Envelope& e) {
    return Json{{"from", e.source_id}, {"message", TraceMessage(e.message)}};
  }

  Json CheckpointLine(const Checkpoint& c, size_t ordinal) {
    Json queued = Json::object();
    for (const auto& [receiver, list] : *c.queued) {
      std::vector<Json> items;
      for (const Envelope& e : list) items.push_back(EnvelopeJson(e));
      queued[receiver] = Sorted(std::move(items));
    }
    Json fan_in = Json::object();
    // Two barriers may have the same sources: the n-th barrier of a source list in EdgeId order
    // is the n-th fan-in edge of that list in the file (both sides number edges in document
    // order; maf/Runner/CheckpointNormalizer.cs does the same).
    std::map<std::vector<std::string>, int> seen;
    for (const auto& [edge_id, s] : c.edge_state) {
      (void)edge_id;
      std::string sink = "?";
      int nth = seen[s->sources]++;
      for (const JsonEdgeDef& e : def_.edges) {
        if (e.kind == EdgeKind::kFanIn && e.sources == s->sources && nth-- == 0) {
          sink = e.sinks[0];
          break;
        }
      }
      std::vector<std::string> sources = s->sources;
      std::sort(sources.begin(), sources.end());
      std::string key = sink + "<-";
      for (size_t i = 0; i < sources.size(); ++i) key += (i ? "," : "") + sources[i];
      std::vector<Json> unseen(s->unseen.begin(), s->unseen.end());
      std::vector<Json> pending;
      for (const Envelope& e : s->pending) pending.push_back(EnvelopeJson(e));
      fan_in[key] = Json{{"unseen", Sorted(std::move(unseen))}, {"pending", Sorted(pending)}};
    }
    Json state = Json::object();
    for (const auto& [scope, kv] : c.state) {
      for (const auto& [k, v] : kv) state[StateScopeName(scope) + "||" + k] = *v;
    }
    const std::vector<std::string> ids = c.instantiated.Sorted();
    std::vector<Json> instantiated(ids.begin(), ids.end());
    std::vector<Json> pending;
    for (const PendingRequest& r : c.outstanding) {
      pending.push_back(RequestJson(r.request_id, r.port_id, TraceMessage(r.data)));
    }
    return Json{{"line", "checkpoint"},
                {"name", "cp" + std::to_string(ordinal)},
                {"step", c.step_number},
                {"parent", c.parent ? CheckpointName(c.parent->checkpoint_id) : Json()},
                {"instantiated", Sorted(std::move(instantiated))},
                {"queued", queued},
                {"fan_in", fan_in},
                {"state", state},
                {"pending", NameRequests(std::move(pending))}};
  }

  const JsonScenarioDef& def_;
  std::vector<CheckpointInfo>* committed_;
  std::vector<Json> lines_;
  std::optional<Group> group_;
  std::vector<PendingRequest> cycle_requests_;
  std::map<std::string, std::string> request_names_;
  std::map<std::string, size_t> names_;  // checkpoint id -> ordinal
};

void Drive(StreamingRun& run, Tracer& tracer) {
  while (true) {
    {
      Result<EventStream> stream = run.Watch();
      SF_CHECK(stream.ok());
      while (std::optional<WorkflowEvent> e = stream->Next()) tracer.Add(*e);
    }
    std::vector<ExternalResponse> answers = tracer.Answerable();
    tracer.Halt(run.status(), answers);
    if (answers.empty() || run.status() == RunStatus::kEnded) return;
    for (ExternalResponse& a : answers) {
      // A refused response shows in the next cycle's WorkflowError; nothing to do here.
      (void)run.SendResponse(std::move(a));
    }
  }
}

// A private directory for effects.db and fail-once markers, removed when done.
class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "stepfault-diff-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Session {
  JsonScenarioDef def;
  TempDir dir;
  std::unique_ptr<EffectStore> effects;
  JsonRuntime runtime;
  MemoryCheckpointStore store;
  std::unique_ptr<StoreCheckpointManager> manager;
  RunOptions options;
};

Status Open(const std::string& text, const std::string& source, const EngineProfile& profile,
            Session* s) {
  SF_ASSIGN_OR_RETURN(s->def, ParseJsonScenarioDef(text, source));
  if (s->dir.path().empty()) return Status::IOError("cannot create a temporary directory");
  EffectStoreOptions eo;
  eo.durable_env = PosixEnv();
  SF_ASSIGN_OR_RETURN(s->effects, EffectStore::Open(JoinPath(s->dir.path(), "effects.db"), eo));
  s->runtime = JsonRuntime{s->effects.get(), PosixEnv(), s->dir.path()};
  StoreCheckpointOptions so;
  so.full_every = 1;            // MAF writes full checkpoints only,
  so.topology_records = false;  // each with the workflow's topology inline
  s->manager = std::make_unique<StoreCheckpointManager>(&s->store, so);
  s->options.profile = profile;
  s->options.checkpoints = s->manager.get();
  s->options.seed = 1;
  s->options.max_steps_per_cycle = s->def.max_steps;
  return Status::Ok();
}

}  // namespace

std::string TraceMode::ToString() const {
  switch (kind) {
    case kRun:
      return "run";
    case kRestore:
      return "restore:" + std::to_string(checkpoint);
    case kResume:
      return "resume:" + std::to_string(checkpoint);
  }
  return "";
}

Result<TraceMode> TraceMode::Parse(const std::string& text) {
  if (text == "run") return TraceMode{};
  for (auto [prefix, kind] : {std::pair{"restore:", kRestore}, std::pair{"resume:", kResume}}) {
    const std::string p = prefix;
    if (text.rfind(p, 0) != 0) continue;
    const std::string n = text.substr(p.size());
    if (!n.empty() && n.size() < 7 && std::all_of(n.begin(), n.end(), ::isdigit)) {
      return TraceMode{kind, std::stoi(n)};
    }
  }
  return Status::InvalidArgument("mode '" + text +
                                 "': expected run, restore:N or resume:N (N a checkpoint ordinal)");
}

Result<std::vector<Json>> EngineNormalizedTrace(const std::string& scenario_text,
                                                const std::string& source_name, TraceMode mode,
                                                const EngineProfile& profile) {
  Session s;
  SF_RETURN_IF_ERROR(Open(scenario_text, source_name, profile, &s));
  SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> workflow,
                      JsonScenarioSpec(s.def, &s.runtime).Build());
  SF_ASSIGN_OR_RETURN(std::unique_ptr<StreamingRun> run,
                      StreamingRun::Start(workflow, s.def.input, s.options));
  std::vector<CheckpointInfo> infos;
  Tracer first(s.def, "run", &infos);
  Drive(*run, first);
  if (mode.kind == TraceMode::kRun) {
    SF_RETURN_IF_ERROR(first.Finish(*s.manager, 0));
    return std::move(first).lines();
  }
  if (mode.checkpoint < 0 || mode.checkpoint >= static_cast<int>(infos.size())) {
    return Status::InvalidArgument(mode.ToString() + ": the run wrote checkpoints 0.." +
                                   std::to_string(static_cast<int>(infos.size()) - 1));
  }
  const int from = static_cast<int>(infos.size());
  const CheckpointInfo target = infos[mode.checkpoint];
  Tracer second(s.def, mode.ToString(), &infos);
  std::unique_ptr<StreamingRun> resumed;
  StreamingRun* driven = run.get();
  if (mode.kind == TraceMode::kRestore) {
    SF_RETURN_IF_ERROR(run->Restore(target));
  } else {
    SF_ASSIGN_OR_RETURN(std::shared_ptr<Workflow> fresh,
                        JsonScenarioSpec(s.def, &s.runtime).Build());
    SF_ASSIGN_OR_RETURN(resumed, StreamingRun::Resume(fresh, target, s.options));
    driven = resumed.get();
  }
  Drive(*driven, second);
  SF_RETURN_IF_ERROR(second.Finish(*s.manager, from));
  return std::move(second).lines();
}

Result<int> EngineCheckpointCount(const std::string& scenario_text, const std::string& source_name,
                                  const EngineProfile& profile) {
  SF_ASSIGN_OR_RETURN(std::vector<Json> lines,
                      EngineNormalizedTrace(scenario_text, source_name, TraceMode{}, profile));
  return static_cast<int>(std::count_if(lines.begin(), lines.end(),
                                        [](const Json& l) { return l["line"] == "checkpoint"; }));
}

}  // namespace stepfault::scenarios
