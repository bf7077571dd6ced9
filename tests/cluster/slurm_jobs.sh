#!/usr/bin/env bash
# heist under a real Slurm (tools/cluster/heist-slurm runs this inside a
# one-machine cluster of 2 nodes, SLURM_CONF set):
#   1. srun: fib on 2 ranks, one per Slurm node; verified result, both ranks
#      ran tasks, one heist node per Slurm node in the per-worker rows;
#   2. sbatch: docs/cluster.md's batch script as written (MPICH: with its
#      one documented change, --mpi=pmi2), submitted with --wait; its JSON
#      report is checked the same way;
#   3. a failing rank under srun --kill-on-bad-exit=1 ends the job, non-zero,
#      with heist's message naming the rank: exit() inside a task, and a rank
#      killed by SIGKILL while every rank is busy (no hang);
#   4. MPICH only: --mpi=pmix, which Debian's MPICH does not speak, starts
#      every task as a world of one rank; heist refuses to run such copies.
#
#   slurm_jobs.sh FLAVOUR HEIST_CLI FAULT_DRIVER PYTHON SOURCE_DIR
# FLAVOUR: openmpi (srun --mpi=pmix) or mpich (srun --mpi=pmi2).
set -euo pipefail
[ $# -eq 5 ] || { echo "usage: slurm_jobs.sh openmpi|mpich HEIST_CLI FAULT_DRIVER PYTHON SOURCE_DIR" >&2; exit 2; }
flavour=$1 heist=$2 fault=$3 python=$4 src=$5
case $flavour in
  openmpi) plugin=pmix ;;
  mpich) plugin=pmi2 ;;
  *) echo "slurm_jobs.sh: FLAVOUR is openmpi or mpich, not '$flavour'" >&2; exit 2 ;;
esac
[ -n "${SLURM_CONF:-}" ] || { echo "slurm_jobs.sh: run me under tools/cluster/heist-slurm run" >&2; exit 2; }
if [ "$flavour" = openmpi ]; then
  # To OpenMPI the Slurm nodes are different nodes, so its shared-memory
  # transports (btl vader, osc rdma) are off between them; Debian's OpenMPI
  # then has TCP, whose osc pt2pt needs --mpi-threads serialized, or UCX,
  # which finds the shared memory itself: UCX, as on an InfiniBand cluster
  # (docs/cluster.md). With no RDMA device pml ucx must be told to take any.
  export OMPI_MCA_pml=ucx OMPI_MCA_osc=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any
fi
check_json=("$python" "$src/tests/cli/check_bench_json.py")
expect_failure=("$python" "$src/tests/mpi/expect_failure.py" --timeout 60)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
step() { echo "=== slurm ($flavour, --mpi=$plugin): $*"; }

step "srun: fib(39), cutoff 25, on 2 nodes x 1 rank"
# Each task's stdout in a file of its own (%t): srun's merged stream may
# interleave the report with other tasks' output; stderr apart, so what the
# MPI library prints at exit cannot follow the report.
srun --mpi=$plugin --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1 --output="$work/fib-%t.out" \
  --error="$work/fib-%t.err" \
  "$heist" bench fib --n 39 --cutoff 25 --workers 1 --policy help-first --json
"${check_json[@]}" --expect-ranks 2 --expect-nodes 2 --expect-result 63245986 --expect-tasks 3193 \
  --expect-work-leaves-rank0 1 -- cat "$work/fib-0.out"

step "sbatch: docs/cluster.md's batch script"
"$python" "$src/tools/readme_examples.py" "$src/docs/cluster.md" --out "$work/examples" >/dev/null
script=$work/examples/heist-uts.sbatch
[ -f "$script" ] || { echo "FAIL: docs/cluster.md has no <!-- example: heist-uts.sbatch --> block" >&2; exit 1; }
[ "$flavour" = mpich ] && sed -i 's/--mpi=pmix/--mpi=pmi2/' "$script"
mkdir -p "$work/job"
# The script calls `heist`: the build's, through PATH (sbatch passes the environment on).
PATH=$(dirname "$heist"):$PATH sbatch --wait --chdir="$work/job" "$script" >"$work/sbatch.out" ||
  { echo "FAIL: the batch job failed"; cat "$work/sbatch.out" "$work"/job/* 2>/dev/null; exit 1; }
shopt -s nullglob
reports=("$work"/job/uts-*-0.json)
[ ${#reports[@]} -eq 1 ] || { echo "FAIL: expected one uts-JOBID-0.json, found: $(ls "$work/job")"; exit 1; }
"${check_json[@]}" --expect-ranks 2 --expect-nodes 2 -- cat "${reports[0]}"

# failing_step NAME SRUN_REGEX TASK_REGEX SRUN_ARGS...: srun must fail, saying
# SRUN_REGEX, and some task's stderr must match TASK_REGEX (which names the
# rank where it matters; a task killed by --kill-on-bad-exit before it wrote
# has nothing to say). The tasks' stderr goes to files (%t): slurmstepd opens
# a file for the task, so what a rank writes just before it dies is on disk;
# through srun's forwarded stream it is lost when the step is torn down first.
failing_step() {
  local name=$1 srun_regex=$2 task_regex=$3
  shift 3
  "${expect_failure[@]}" --regex "$srun_regex" -- srun --error="$work/$name-%t.err" "$@"
  cat "$work/$name"-*.err | grep -q -- "$task_regex" ||
    { echo "FAIL: no task's stderr matches /$task_regex/:"; cat "$work/$name"-*.err; exit 1; }
}

step "a rank that exits inside a task ends the job, naming it"
failing_step exit "task 1: (Exited with exit code|Killed)" "heist: rank 1: the process exits inside a distributed region" \
  --mpi=$plugin --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1 \
  "$fault" --workers 1 --fault-rank 1 exit

step "a rank killed by SIGKILL ends the job, naming it"
failing_step kill "task 1: Killed" "rank 1 kills itself" \
  --mpi=$plugin --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1 \
  "$fault" --workers 1 --kill-rank-after-ms 1:300 hold --hold-s 50

if [ "$flavour" = mpich ]; then
  step "MPICH under --mpi=pmix (a protocol it does not speak): refused, not run twice"
  failing_step pmix "task [01]: (Exited with exit code|Killed)" "srun started 2 tasks, but MPI sees a world of 1 rank" \
    --mpi=pmix --nodes=2 --ntasks-per-node=1 --kill-on-bad-exit=1 "$heist" bench fib --n 20 --workers 1
fi
echo "=== slurm ($flavour): all passed"
