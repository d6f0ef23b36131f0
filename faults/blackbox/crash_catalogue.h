// The crash model's self-check: the conformance catalogue of black-box crash states
// (testdata/crash_catalogue.txt, whose header describes the text form, embedded in the library at
// build time), its reader, a compact rendering of states, and the check that a crash-state builder
// produces EXACTLY the states an entry lists at every window (every listed state produced, nothing
// else). The builder is a parameter, so the catalogue judges the real builder, the builder with a
// hazard of CrashModelOptions switched on (the mutants blackbox:NAME of `stepfault mutants`), a
// deliberately broken stand-in (crash_state_conformance_test.cc) or a real recording
// (crash_state_recorded_test.cc). A disagreement is a violation of INV-BB-MODEL.
// `stepfault blackbox conformance [--hazard NAME]` runs it. Thread-safety: values.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"

namespace stepfault::faults::blackbox {

// The catalogue's text as the build embedded it (the file above, byte for byte).
std::string_view CrashCatalogueText();

// A VALUE of the catalogue ("o*100+n*412", "A+\0*1+C", "" for no bytes) as bytes.
Result<std::string> ParseValue(const std::string& text);
// The catalogue's form of `bytes` for messages: pieces joined by '+', runs of 4 or more (and NUL
// bytes) as C*N, everything else literal. ParseValue(RenderValue(b)) == b.
std::string RenderValue(const std::string& bytes);
// "{a=x b/}": the paths, types and bytes of a state (its notes are not part of it).
std::string RenderState(const CrashState& s);
// A state as a comparable key: exact, unlike the rendering (which is only for messages).
std::string StateKey(const CrashState& s);

struct ExpectedWindow {
  std::string id;  // "fs.write[log]#1"
  int line = 0;
  std::vector<CrashState> crash, powerloss, reorder;
};

struct CatalogueEntry {
  std::string name;
  int line = 0;
  bool program = false;  // testdata/crash_programs.c has a mode of this name
  // The persistence model the entry's states hold under (`model NAME`; default posix).
  PersistenceModel model = PersistenceModel::kPosix;
  CrashState initial;
  std::string trace_text = kTraceHeader;
  std::vector<ExpectedWindow> windows;
};

// Reads a catalogue; kInvalidArgument naming the line for a malformed one.
Result<std::vector<CatalogueEntry>> ParseCatalogue(std::string_view text);

// BuildCrashState's shape: the code under test, or a deliberately broken stand-in. `model` is the
// entry's persistence model.
using CrashBuilder = std::function<CrashState(const CrashState& initial, const Trace& trace,
                                              size_t upto_record, CrashKind kind, uint64_t seed,
                                              int64_t kept_sectors, PersistenceModel model)>;
// BuildCrashState with `options` under each entry's model (the defaults: the real crash model).
CrashBuilder BuilderWith(const CrashModelOptions& options);

// Tearings and seeds tried per power loss and reorder: more than any entry's sectors, so every k
// the builder can choose is produced.
inline constexpr int64_t kMaxKeptSectors = 8;
inline constexpr uint64_t kCatalogueSeeds = 16;

struct CatalogueDisagreement {
  std::string entry;    // the entry's name
  std::string message;  // "NAME (catalogue line N) at W powerloss: unexpected state {...}"
};

// Every way `builder` disagrees with `entry` on `trace` (empty: it conforms), in window order.
// `trace` is the entry's own trace, or a recording of the entry's program; `initial` its snapshot.
std::vector<CatalogueDisagreement> Disagreements(const CatalogueEntry& entry,
                                                 const CrashState& initial, const Trace& trace,
                                                 const CrashBuilder& builder);

struct CatalogueRun {
  int64_t entries = 0, windows = 0;
  int64_t states = 0;  // catalogued states compared (crash, power loss and reorder, every window)
  std::vector<CatalogueDisagreement> disagreements;  // in catalogue order
};

// Runs every entry of `entries` on its own trace through `builder`. kInvalidArgument when an
// entry's trace does not parse.
Result<CatalogueRun> RunCatalogue(const std::vector<CatalogueEntry>& entries,
                                  const CrashBuilder& builder);

}  // namespace stepfault::faults::blackbox
