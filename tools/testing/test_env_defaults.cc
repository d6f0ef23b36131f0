// Linked into every test binary: points STEPFAULT_SOURCE_DIR and STEPFAULT_BIN_DIR at this build's
// source tree and binaries unless the caller already set them; tests read them (and every other
// setting of their environment) through test_env.h. CTest runs each GoogleTest case as
// its own test (gtest_discover_tests), which can pass the tests only one environment variable
// (RC_PARAMS); and __FILE__ is no way to find the sources, since ccache makes it relative.
// In the sanitized build it also lets black-box tests LD_PRELOAD the (unsanitized) recorder into
// the sanitized stepfault binary: ASan otherwise insists on being first in the library list.
// Thread-safety: runs during static initialisation, before any test.
#include <cstdlib>

namespace {

const bool kDefaultsSet = [] {
  setenv("STEPFAULT_SOURCE_DIR", STEPFAULT_SOURCE_DIR_DEFAULT, /*overwrite=*/0);
  setenv("STEPFAULT_BIN_DIR", STEPFAULT_BIN_DIR_DEFAULT, /*overwrite=*/0);
#if defined(STEPFAULT_SANITIZED)
  setenv("ASAN_OPTIONS", "verify_asan_link_order=0", /*overwrite=*/0);
#endif
  return true;
}();

}  // namespace
