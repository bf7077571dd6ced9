#!/usr/bin/env bash
# Measures the "Real, many cores" table of the scale targets on a borrowed many-core x86-64
# machine, from a bundle made here by tools/portable_bundle.sh:
#   tools/portable_bundle.sh build BUNDLE
#   (on the borrowed machine, as root, in a copy of this repository)
#   tar -C / --skip-old-files -xzf BUNDLE/runtime.tgz && ldconfig
#   tools/many_cores.sh BUNDLE OUT [SECONDS [APP ...]]
# then, on any machine with a build:
#   tools/sim_validate.py --build build --from OUT/val --markdown table.md
# What it runs, for each APP (default: UTS T1L, nqueens(15), fib(40), UTS
# T3L, the sizes of docs/results/many-cores.md): heist's default flags on 1,
# 2, 4, 8 ... workers of one process up to all cores and on one rank x 1
# worker per core (Open MPI from the bundle), help-first on all cores for
# comparison, and the app's one-worker calibration (tools/sim_validate.py
# --measure-only), after the machine's own slowdown with all cores busy
# (tools/core_throughput.sh, 1 and all-cores copies) and one steal between
# two ranks (heist bench stealbench). Then, while SECONDS (default 420) are not spent, the
# oneTBB and OpenMP peers on all cores. Every result is written to OUT as
# soon as it exists, so a run cut short keeps what it did.
set -uo pipefail
bundle=${1:?bundle folder}
out=${2:?output folder}
budget=${3:-420}
shift $(($# < 3 ? $# : 3))
apps=("$@")
[ ${#apps[@]} -gt 0 ] || apps=("uts --tree T1L" "nqueens --n 15" "fib --n 40" "uts --tree T3L")
start=$SECONDS
heist="$bundle/build/cli/heist"
mpirun="/usr/bin/orterun --allow-run-as-root --oversubscribe --bind-to none"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
log="$out/run.log"
say() { echo "[many_cores +$((SECONDS - start))s] $*" | tee -a "$log"; }

{ nproc; grep -m1 "model name" /proc/cpuinfo; grep -c ^processor /proc/cpuinfo; } | tee -a "$log"
"$heist" info >> "$log" 2>&1 || { say "heist does not run here"; exit 2; }
cores=$(nproc)
workers=1
for ((w = 2; w < cores; w *= 2)); do workers+=",$w"; done
[ "$cores" -gt 1 ] && workers+=",$cores"

# The ranks only if Open MPI starts here (a failure must not cost the threads' table).
ranks=""
if $mpirun -n 2 "$heist" bench fib --n 24 --workers 1 --warmup-s 0 --json >> "$log" 2>&1; then
  ranks=$cores
else
  say "orterun failed: no ranks row"
fi

# The machine's own per-core slowdown with every core busy (independent
# one-worker copies), which tools/sim_validate.py --from hands to the simulator.
mkdir -p "$out/val"
copies=1
[ "$cores" -gt 1 ] && copies+=" $cores"
for app in "${apps[@]}"; do
  # shellcheck disable=SC2086
  tools/core_throughput.sh "$heist" "$copies" $app --repeat 1 >> "$out/val/throughput.jsonl" 2>> "$log" ||
    say "core_throughput $app failed"
done
# One round trip between two cores of this machine, for the simulator's --latency-us.
if [ -n "$ranks" ]; then
  $mpirun -n 2 "$heist" bench stealbench --protocol sws --steals 2000 --repeat 3 --json 2>> "$log" | tail -1 \
    > "$out/val/stealbench.json" || say "stealbench failed"
  [ -s "$out/val/stealbench.json" ] || rm -f "$out/val/stealbench.json"
fi
say "measuring on $cores cores: workers $workers, ranks ${ranks:-none}"
timeout $((budget - (SECONDS - start))) python3 tools/sim_validate.py --build "$bundle/build" \
  --repeat 3 --calibrate-repeat 1 --workers "$workers" --ranks "$ranks" \
  --compare-policy help-first --mpirun "$mpirun" --apps "${apps[@]}" \
  --measure-only --save "$out/val" 2>> "$log"
say "sim_validate exit $?"

# The peers on every core, as long as time is left (one JSON line each);
# OpenMP's task per fib call takes minutes at fib(40), so not that one.
for app in "${apps[@]}"; do
  for peer in tbb omp; do
    [ "$peer/${app%% *}" = omp/fib ] && continue
    [ $((SECONDS - start)) -lt $((budget - 30)) ] || { say "out of time before: $peer $app"; exit 0; }
    # shellcheck disable=SC2086
    timeout 60 "$bundle/build/bench/peers/heist-peer-$peer" $app --workers "$cores" --repeat 3 --json \
      >> "$out/peers.jsonl" 2>> "$log" || say "peer $peer $app failed"
  done
done
say "done"
