#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs packages, then
#  1. Release build with warnings as errors: every test;
#  2. ASan+UBSan build (Clang): every test except the install, peer, smoke, tools and
#     Slurm tests, the model checks, the layer checks and fuzzing (these three
#     run no heist code built with the sanitizers: SPIN's pan, scripts over
#     the sources, and a fuzzer with its own ASan+UBSan build);
#  3. TSan build (Clang): the tests labelled `concurrency` (it builds only what they run);
#  4. Release build against MPICH (beside OpenMPI, HEIST_MPI_FLAVOUR=mpich):
#     only what the multi-rank tests need (target heist-mpi-tests), then the
#     tests labelled `mpi` (under MPICH's Hydra), `slurm` (srun --mpi=pmi2)
#     and `install` (the README's MPI examples against the installed MPICH build).
# The Release build runs the Slurm test with OpenMPI (srun --mpi=pmix).
# Build trees go to build-ci/ (fresh each run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
jobs=$(nproc)
out=build-ci
rm -rf "$out"
# ccache: the MPICH build compiles again only the translation units that
# see MPI (the rma layer, the soak driver, stealbench); every other object
# comes from the Release build's compile of the same source with the same flags.
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# run_suite NAME [--target T]... [--tested-only] CMAKE_ARGS... [-- CTEST_ARGS...]
# --tested-only: build just what the selected tests run (tools/test_targets.py).
run_suite() {
  local name=$1; shift
  local targets=() cmake_args=() ctest_args=() tested_only=0 t
  while [ "${1:-}" = "--target" ]; do targets+=(--target "$2"); shift 2; done
  [ "${1:-}" = "--tested-only" ] && { tested_only=1; shift; }
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do cmake_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  ctest_args=("$@")
  echo "=== $name: configure and build"
  cmake -S . -B "$out/$name" -G Ninja -DHEIST_WERROR=ON -DHEIST_TEST_PER_CASE=OFF "${launcher[@]}" "${cmake_args[@]}" >/dev/null
  if [ "$tested_only" = 1 ]; then
    local selected
    selected=$(tools/test_targets.py "$out/$name" "${ctest_args[@]}")  # fails the run if it fails
    for t in $selected; do targets+=(--target "$t"); done
  fi
  cmake --build "$out/$name" -j "$jobs" "${targets[@]}"
  echo "=== $name: test"
  ctest --test-dir "$out/$name" -j "$jobs" --output-on-failure "${ctest_args[@]}"
}

# The sanitizer builds use Clang, the sanitizers' home compiler, which
# compiles this code base in less CPU time than GCC; at -O1 with line tables
# only (-g1): what the sanitizers' reports need (function, file and line of
# every frame) at a fraction of the compile time of -O2 -g (both sanitizers'
# manuals ask for -O1 or higher for a reasonable speed). The Release and
# MPICH builds stay with GCC, the compiler heist's figures are measured with.
sanitizer_flags="-O1 -g1 -DNDEBUG"
# Both also check the heist::Context rule (HEIST_CHECK_CONTEXT; off in Release).
# Every stage runs each GoogleTest binary as one test (HEIST_TEST_PER_CASE=OFF):
# a process per test case costs more than most cases (a developer's build
# keeps one test per case, for ctest -R).
sanitized=(-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 -DCMAKE_BUILD_TYPE=RelWithDebInfo
  -DHEIST_BUILD_PEERS=OFF -DHEIST_CHECK_CONTEXT=ON
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$sanitizer_flags" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$sanitizer_flags")

run_suite release -DCMAKE_BUILD_TYPE=Release
run_suite asan "${sanitized[@]}" -DHEIST_SANITIZE=address -- -LE "install|peers|smoke|tools|model|fuzz|slurm|layers"
run_suite tsan --tested-only "${sanitized[@]}" -DHEIST_SANITIZE=thread -- -L concurrency
run_suite mpich --target heist-mpi-tests -DCMAKE_BUILD_TYPE=Release -DHEIST_MPI_FLAVOUR=mpich \
  -DHEIST_BUILD_PEERS=OFF -- -L "mpi|slurm|install"
echo "=== all suites passed"
