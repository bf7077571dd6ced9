#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs packages, then
#  1. Release build with warnings as errors: every test;
#  2. ASan+UBSan build: every test except the install, peer, smoke and tools
#     tests, the model checks and fuzzing (these two run no heist code built
#     with the sanitizers: SPIN's pan, and a fuzzer with its own ASan+UBSan build);
#  3. TSan build: the tests labelled `concurrency`.
# Build trees go to build-ci/ (fresh each run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)
out=build-ci
rm -rf "$out"

run_suite() {  # name, cmake args..., then -- ctest args...
  local name=$1; shift
  local cmake_args=() ctest_args=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ctest_args=("$@")
  echo "=== $name: configure and build"
  cmake -S . -B "$out/$name" -G Ninja -DHEIST_WERROR=ON "${cmake_args[@]}" >/dev/null
  cmake --build "$out/$name" -j "$jobs"
  echo "=== $name: test"
  ctest --test-dir "$out/$name" -j "$jobs" --output-on-failure "${ctest_args[@]}"
}

# The sanitizer builds compile at -O1 with line tables only (-g1): what the
# sanitizers' reports need (function, file and line of every frame), at a
# third of the compile time of RelWithDebInfo's -O2 -g (both sanitizers'
# manuals ask for -O1 or higher for a reasonable speed). One translation
# unit, cli/sim_command.cpp with ASan+UBSan on the 2-core VM while it ran
# other builds: 155 s at -O2 -g, 86 s at -O2 -g1, 51 s at -O1 -g1.
sanitizer_flags="-O1 -g1 -DNDEBUG"
# Both also check the heist::Context rule (HEIST_CHECK_CONTEXT; off in Release).
sanitized=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEIST_BUILD_PEERS=OFF -DHEIST_CHECK_CONTEXT=ON
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$sanitizer_flags" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$sanitizer_flags")

run_suite release -DCMAKE_BUILD_TYPE=Release
run_suite asan "${sanitized[@]}" -DHEIST_SANITIZE=address -- -LE "install|peers|smoke|tools|model|fuzz"
run_suite tsan "${sanitized[@]}" -DHEIST_SANITIZE=thread -- -L concurrency
echo "=== all suites passed"
