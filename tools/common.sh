# Shared by tools/run and tools/test: install what is missing, configure and build.
# Sourced, not executed. Every function is idempotent: a second call does no work that is done.

STEPFAULT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ccache keys on paths relative to the checkout, so worktrees and clean clones share the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$STEPFAULT_ROOT}"
STEPFAULT_PACKAGES=(cmake ninja-build g++ libgtest-dev libgmock-dev librapidcheck-dev libsqlite3-dev
                    nlohmann-json3-dev libbenchmark-dev libcli11-dev libfmt-dev ccache sqlite3)
# Only tools/fuzz/run needs these: clang and its libFuzzer + sanitizer runtimes.
STEPFAULT_FUZZ_PACKAGES=(clang libclang-rt-14-dev)

# stepfault_install PKG...: apt-get install only the packages that are not installed yet.
stepfault_install() {
  local missing=()
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$pkg")
    fi
  done
  if [ ${#missing[@]} -eq 0 ]; then return 0; fi
  echo "stepfault: installing missing packages: ${missing[*]}" >&2
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null; then
    $sudo apt-get update >/dev/null
    $sudo apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

# stepfault_build PRESET: configure (first time only) and build into the preset's directory.
stepfault_build() {
  local preset="$1"
  local dir="$STEPFAULT_ROOT/build"
  case "$preset" in
    release) dir="$STEPFAULT_ROOT/build" ;;
    *) dir="$STEPFAULT_ROOT/build-$preset" ;;
  esac
  cd "$STEPFAULT_ROOT"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake --preset "$preset" >/dev/null
  fi
  cmake --build "$dir" --parallel "$(nproc)"
}

# stepfault_check_consumer: install the Release build into build/install, then configure, build and
# run examples/consumer (a separate CMake project using find_package(Stepfault)) against it.
stepfault_check_consumer() {
  local build="$STEPFAULT_ROOT/build"
  cmake --install "$build" --prefix "$build/install" >/dev/null
  if [ ! -f "$build/consumer/build.ninja" ]; then
    cmake -S "$STEPFAULT_ROOT/examples/consumer" -B "$build/consumer" -G Ninja \
      -DCMAKE_PREFIX_PATH="$build/install" -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build/consumer" --parallel "$(nproc)"
  (cd "$build/consumer" && ctest --output-on-failure --parallel "$(nproc)")
}
