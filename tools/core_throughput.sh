#!/usr/bin/env bash
# How much slower one core computes when N cores compute at once: runs N
# independent copies of a one-worker `heist bench` (separate processes, no
# shared data), copy i pinned to the i-th CPU this process may use, and
# prints one JSON line per N with each copy's median time. Divide by the N=1 time: the machine's own
# slowdown (shared cores, turbo, memory, neighbours in a VM), which no
# scheduler can win back. Parallel efficiency measured on such a machine
# reads best next to it (docs/results/many-cores.md).
#   tools/core_throughput.sh HEIST "1 2 4 8 16" uts --tree T1 --repeat 5
set -euo pipefail
heist=${1:?heist binary}
counts=${2:?copy counts, e.g. "1 2 4 8 16"}
shift 2
# The CPUs this process may use (a container's cpuset need not start at 0).
read -r -a cpus <<< "$(python3 -c 'import os; print(*sorted(os.sched_getaffinity(0)))')"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $counts; do
  [ "$n" -le ${#cpus[@]} ] || { echo "core_throughput: $n copies, ${#cpus[@]} CPUs" >&2; exit 2; }
  for ((i = 0; i < n; i++)); do
    taskset -c "${cpus[i]}" "$heist" bench "$@" --workers 1 --no-spawn-probe --json > "$tmp/$i.json" &
  done
  wait
  python3 - "$tmp" "$n" "$*" <<'EOF'
import json, statistics, sys
folder, n, app = sys.argv[1], int(sys.argv[2]), sys.argv[3]
times = [json.loads(open(f"{folder}/{i}.json").read().splitlines()[-1])["time_s"] for i in range(n)]
print(json.dumps({"app": app, "copies": n, "median_s": statistics.median(times), "max_s": max(times),
                  "times_s": times}))
EOF
done
