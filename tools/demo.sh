#!/usr/bin/env bash
# Fresh Debian 12 to a first benchmark: installs packages, builds heist
# (Release: the CLI and the installable libraries), runs nqueens(13) with 2 workers and fib(35) with its statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target installable   # the CLI and the libraries: `cmake --install build` works after it
build/cli/heist bench nqueens --n 13 --workers 2 --repeat 3
echo
build/cli/heist bench fib --n 35 --workers 2 --repeat 3
