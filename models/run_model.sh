#!/usr/bin/env bash
# Model-checks one SPIN model exhaustively and compares the outcome with an
# expectation. Usage:
#   models/run_model.sh MODEL.pml [expect_pass|expect_fail] [-DNAME[=VALUE]...]
# The -D options go to spin's preprocessor (model bounds, mutant switches).
# Runs, in a temporary directory (spin and pan write their files to the cwd):
#   1. safety: assertions and invalid end states (deadlocks), pan compiled
#      with -DSAFETY, never claims ignored;
#   2. liveness: each `ltl NAME { ... }` of the model, pan compiled without
#      -DSAFETY and run with -a (acceptance cycles).
# Every search is exhaustive (no bitstate hashing); a search that hits the
# depth limit or runs out of memory counts as a failure to check.
# Prints each run's "states, stored" line and "errors: N". Exit status 0 iff
# the outcome matches: expect_pass -> every run has 0 errors; expect_fail ->
# some run reports errors > 0 (the model CAN fail: mutants). Stops at the
# first error found. Environment: SPIN (default spin), CC (default cc),
# PAN_MEMLIM_MB (default 4096), PAN_DEPTH (default 200000), PAN_HASH (log2
# of the hash table slots, default 24), PAN_CFLAGS (extra, e.g. -DCOLLAPSE to
# halve memory at twice the time), PAN_OPT (pan's optimisation level,
# default -O2, and -O0 for expect_fail: a mutant's search stops at its first
# violation, so compiling pan is most of its time), RUN_LTL=0 (safety search only),
# EXPECT_VIOLATION (expect_fail only: an extended regex pan's error line must
# match, so a mutant fails for the intended reason).
set -euo pipefail

usage() { echo "usage: $0 MODEL.pml [expect_pass|expect_fail] [-DNAME[=VALUE]...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
model=$(realpath "$1"); shift
expect=expect_pass
if [ $# -ge 1 ] && [[ $1 != -* ]]; then expect=$1; shift; fi
[[ $expect == expect_pass || $expect == expect_fail ]] || usage
for d in "$@"; do [[ $d == -D* ]] || usage; done
[ -f "$model" ] || { echo "no such model: $model" >&2; exit 2; }

spin=${SPIN:-spin}
cc=${CC:-cc}
memlim=${PAN_MEMLIM_MB:-4096}
depth=${PAN_DEPTH:-200000}
hash=${PAN_HASH:-24}
extra=${PAN_CFLAGS:-}
if [ "$expect" = expect_fail ]; then opt=${PAN_OPT:--O0}; else opt=${PAN_OPT:--O2}; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/heist-model.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$model" "$work/" && cd "$work"
model=$(basename "$model")
defs="$*"

echo "model: $model $* ($expect)"
"$spin" -a "$@" "$model" >spin.log 2>&1 || { cat spin.log; echo "spin -a failed"; exit 2; }

total_errors=0
incomplete=0
violations=""
# run NAME CFLAGS -- PANFLAGS
run() {
  local name=$1 cflags=$2 panflags=$3 start end ms out errors
  # shellcheck disable=SC2086
  "$cc" "$opt" -w $cflags $extra -DMEMLIM="$memlim" -o "pan_$name" pan.c || { echo "cc failed"; exit 2; }
  start=$(date +%s%N)
  # shellcheck disable=SC2086
  out=$("./pan_$name" -m"$depth" -w"$hash" -n $panflags 2>&1) || true
  end=$(date +%s%N)
  errors=$(sed -n 's/.*errors: \([0-9][0-9]*\).*/\1/p' <<<"$out" | tail -1)
  [ -n "$errors" ] || { echo "$out"; echo "[$name] pan printed no error count"; exit 2; }
  printf '[%s] %s\n' "$name" "$(grep -m1 'states, stored' <<<"$out" | sed 's/^ *//')"
  ms=$(((end - start) / 1000000))
  printf '[%s] errors: %s  (%d.%03d s, %s MB)\n' "$name" "$errors" $((ms / 1000)) $((ms % 1000)) \
    "$(sed -n 's/^ *\([0-9.]*\)[[:space:]]*total actual memory usage.*/\1/p' <<<"$out" | head -1)"
  if grep -q 'max search depth too small\|out of memory\|pan: reached -DMEMLIM' <<<"$out"; then
    echo "[$name] search incomplete:"; grep 'depth too small\|memory\|MEMLIM' <<<"$out" | head -3
    incomplete=1
  fi
  if [ "$errors" -gt 0 ]; then
    violations+=$(grep -m3 'pan:[0-9]*: \|acceptance cycle' <<<"$out" || true)$'\n'
    grep -m3 'pan:[0-9]*: \|acceptance cycle' <<<"$out" | sed "s/^/[$name] /" || true
    echo "[$name] replay: spin -a $defs $model; cc $cflags -o pan pan.c; ./pan $panflags; spin -t -p -g $defs $model"
  fi
  total_errors=$((total_errors + errors))
}

run safety "-DSAFETY -DNOCLAIM" ""
if [ "$total_errors" -eq 0 ] && [ "${RUN_LTL:-1}" != 0 ]; then
  # shellcheck disable=SC2013  # formula names are identifiers
  for ltl in $(sed -n 's/^ltl[[:space:]]\+\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$model"); do
    run "ltl_$ltl" "-DNOFAIR" "-a -N $ltl"
    [ "$total_errors" -eq 0 ] || break
  done
fi

if [ "$expect" = expect_pass ]; then
  [ "$incomplete" -eq 0 ] && [ "$total_errors" -eq 0 ] && { echo "PASS: no errors, as expected"; exit 0; }
  echo "FAIL: expected no errors"; exit 1
else
  [ "$total_errors" -gt 0 ] || { echo "FAIL: expected a violation, the search found none"; exit 1; }
  if [ -n "${EXPECT_VIOLATION:-}" ] && ! grep -Eq -- "$EXPECT_VIOLATION" <<<"$violations"; then
    echo "FAIL: the violation does not match /$EXPECT_VIOLATION/"; exit 1
  fi
  echo "PASS: violation found, as expected"; exit 0
fi
