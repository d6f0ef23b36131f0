# Shared by tools/run and tools/test: install what is missing, configure and build.
# Sourced, not executed. Every function is idempotent: a second call does no work that is done.

STEPFAULT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# ccache keys on paths relative to the checkout, so worktrees and clean clones share the cache.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$STEPFAULT_ROOT}"
STEPFAULT_PACKAGES=(cmake ninja-build g++ libgtest-dev libgmock-dev librapidcheck-dev libsqlite3-dev
                    nlohmann-json3-dev libbenchmark-dev libcli11-dev libfmt-dev libxxhash-dev
                    libjemalloc-dev ccache sqlite3)
# The sanitizer tree (tools/test --asan, tools/fuzz/run) needs these: clang and its libFuzzer and
# sanitizer runtimes.
STEPFAULT_CLANG_PACKAGES=(clang libclang-rt-14-dev)

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

# stepfault_build PRESET [TARGET...]: configure (first time only) and build into the preset's
# directory: everything, or only the given targets and what they need.
stepfault_build() {
  local preset="$1"
  shift
  local dir="$STEPFAULT_ROOT/build"
  case "$preset" in
    release) dir="$STEPFAULT_ROOT/build" ;;
    *) dir="$STEPFAULT_ROOT/build-$preset" ;;
  esac
  cd "$STEPFAULT_ROOT"
  if [ ! -f "$dir/build.ninja" ]; then
    cmake --preset "$preset" >/dev/null
  fi
  if [ $# -gt 0 ]; then
    cmake --build "$dir" --parallel "$(nproc)" --target "$@"
  else
    cmake --build "$dir" --parallel "$(nproc)"
  fi
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

# The .NET solution in maf/ runs the real Microsoft Agent Framework (maf-demo320, maf-runner, maf-bench and
# their xunit tests). Without `dotnet` on PATH every .NET step says so and is skipped, never silently, and
# the C++ tests that need a maf/ program skip with the same reason; with it, STEPFAULT_REQUIRE_DOTNET=1
# makes those tests fail instead of skipping.
STEPFAULT_MAF_SOLUTION="$STEPFAULT_ROOT/maf/Stepfault.Maf.slnx"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
export DOTNET_GENERATE_ASPNET_CERTIFICATE=0

# stepfault_have_dotnet: 0 when the .NET SDK is on PATH; otherwise prints what is skipped and returns 1.
stepfault_have_dotnet() {
  if command -v dotnet >/dev/null 2>&1; then return 0; fi
  echo "stepfault: SKIPPED the .NET solution (maf/): dotnet is not on PATH, so real MAF (maf-demo320," \
       "maf-runner, maf-bench), its tests, the differential and the maf-demo320 exploration do not run" >&2
  return 1
}

# stepfault_dotnet_build: restore in locked mode (the committed packages.lock.json files are the only
# versions taken; after changing maf/Directory.Packages.props run `dotnet restore maf/Stepfault.Maf.slnx
# --force-evaluate` once and commit the lock files) and build Release into maf/artifacts/.
stepfault_dotnet_build() {
  stepfault_have_dotnet || return 0
  export STEPFAULT_REQUIRE_DOTNET=1
  dotnet restore "$STEPFAULT_MAF_SOLUTION" --locked-mode -v q >&2
  dotnet build "$STEPFAULT_MAF_SOLUTION" -c Release --no-restore -v q -nologo -clp:ErrorsOnly >&2
}

# stepfault_dotnet_test: the xunit tests of maf/ (after stepfault_dotnet_build).
stepfault_dotnet_test() {
  stepfault_have_dotnet || return 0
  dotnet test "$STEPFAULT_MAF_SOLUTION" -c Release --no-build -v q -nologo
}
