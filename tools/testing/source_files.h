// The one walk of our C++ and C sources that the hygiene tests share (HygieneTest.* in
// engine/determinism_test.cc, PointRegistry.EveryHitInTheSourcesNamesARegisteredConstant,
// FunctionLength.* in tools/testing/function_length_test.cc): every *.cc, *.h and *.c below the
// named top-level folders of the source tree, node_modules left out, sorted by path so that what a
// test lists comes out in one order.
// Header-only, like test_env.h. Thread-safety: test-only; call from the test's thread.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "tools/testing/test_env.h"

namespace stepfault::test_env {

struct SourceFile {
  std::filesystem::path path;  // absolute
  std::string relative;        // from the source root, e.g. "engine/checkpoint.cc"
  std::string folder;          // the top-level folder it was found under, e.g. "engine"
  bool test = false;           // its name has "_test." in it (a test source)
};

// The sources below `folders` of SourceDir() (a folder that does not exist is skipped).
inline std::vector<SourceFile> SourceFiles(std::initializer_list<const char*> folders) {
  namespace fs = std::filesystem;
  const fs::path root(SourceDir());
  std::vector<SourceFile> files;
  for (const char* folder : folders) {
    if (!fs::exists(root / folder)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / folder)) {
      const fs::path ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".c")) continue;
      if (entry.path().string().find("/node_modules/") != std::string::npos) continue;
      files.push_back(
          SourceFile{.path = entry.path(),
                     .relative = fs::relative(entry.path(), root).generic_string(),
                     .folder = folder,
                     .test = entry.path().filename().string().find("_test.") != std::string::npos});
    }
  }
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.relative < b.relative; });
  return files;
}

// The bytes of a file ("" when it cannot be read).
inline std::string ReadSource(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace stepfault::test_env
