// Test helpers over the crash-state catalogue (crash_catalogue.h, the product's self-check): the
// embedded catalogue read or the test failed, a trace parsed or the test failed, disagreements as
// one message. Test-only; thread-safety: values.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "faults/blackbox/crash_catalogue.h"
#include "faults/blackbox/crash_state.h"
#include "faults/blackbox/trace.h"

namespace stepfault::faults::blackbox::testing {

// The catalogue the library embeds (the same text `stepfault blackbox conformance` reads).
inline std::vector<CatalogueEntry> Catalogue() {
  Result<std::vector<CatalogueEntry>> entries = ParseCatalogue(CrashCatalogueText());
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  return entries.ok() ? *entries : std::vector<CatalogueEntry>{};
}

inline Trace ParseOrFail(const std::string& text) {
  Result<Trace> t = ParseTrace(text);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Trace{};
}

inline std::string Join(const std::vector<CatalogueDisagreement>& d) {
  std::string out;
  for (const CatalogueDisagreement& x : d) out += x.message + "\n";
  return out;
}

}  // namespace stepfault::faults::blackbox::testing
