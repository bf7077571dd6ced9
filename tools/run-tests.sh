#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs packages, then
#  1. Release build with warnings as errors: every test;
#  2. ASan+UBSan build: every test except the install, peer, smoke and tools tests;
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

run_suite release -DCMAKE_BUILD_TYPE=Release
run_suite asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEIST_SANITIZE=address -DHEIST_BUILD_PEERS=OFF \
  -- -LE "install|peers|smoke|tools"
run_suite tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEIST_SANITIZE=thread -DHEIST_BUILD_PEERS=OFF \
  -- -L concurrency
echo "=== all suites passed"
