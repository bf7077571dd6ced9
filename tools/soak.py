#!/usr/bin/env python3
"""Exactly-once soak of heist: many runs of the soak driver
(tests/soak/soak_driver.cpp), each with ranks, workers, spawn policy, steal
protocol, queue sizes, progress mode, RMA delay injection and random task
DAGs drawn from that run's seed. Every run must exit 0 within its timeout:
every task ran once, every output arrived, every dependency order held.

  tools/soak.py --build build --runs 1000           # 1000 runs (the load test)
  tools/soak.py --build build --hours 8 --log soak.jsonl
  tools/soak.py --build build --replay 1234567      # one run again, from its seed

A share of the runs (--differential-share) runs the differential test of
the exception contract instead (tests/stress/differential.cpp, target
heist_differential): a block of its seeds, drawn from the run's seed, under
every policy x 1, 2, 4 workers, on 1 or 2 ranks, compared with its
sequential interpreter.

Each run's seed is drawn from --seed (default: the time) and printed, with
the exact command, when the run fails or hangs; --replay SEED repeats that
configuration exactly (the DAGs and options are a pure function of the
seed; the interleaving is not, so replay a failure a few times).
--log appends one JSON line per run (seed, command, status, seconds).
Exit status: 0 if every run passed, 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time


def draw_config(seed, args):
    """The ranks and the driver arguments of one run, from its seed alone."""
    r = random.Random(seed)
    ranks = r.choice([1, 2, 2, 3, 4, 4]) if args.max_ranks > 1 else 1
    ranks = min(ranks, args.max_ranks)
    workers = r.randint(1, max(1, min(args.max_workers, args.max_threads // ranks)))
    policy = r.choice(["help-first", "work-first", "bounded", "bounded", "slaw"])
    opts = ["--workers", str(workers), "--policy", policy, "--seed", str(r.randint(0, 2**40))]
    if policy == "bounded":
        if r.random() < 0.5:
            opts += ["--queue-bound", str(r.choice([1, 2, 8, 40, 200]))]
        if r.random() < 0.3:
            opts += ["--queue-demand", "off"]
    if policy == "slaw" and r.random() < 0.5:
        opts += ["--slaw-s", str(r.choice([2, 16, 64])), "--slaw-f", str(r.choice([1, 8, 40])),
                 "--slaw-int", str(r.choice([1, 4, 16]))]
    opts += ["--chunk", r.choice(["1", "2", "half", "hcs", "hcs:2,node=half", "hcs:1,process=2"])]
    opts += ["--victim", r.choice(["random", "hvs", "hvs", "success-only"])]
    deque = r.choice([2, 16, 1024])
    opts += ["--deque-tasks", str(deque), "--deque-max-tasks", str(r.choice([deque, 64 * deque, 1 << 22]))]
    opts += ["--task-input-bytes", str(r.choice([32, 80, 80, 200]))]
    if ranks > 1:
        protocol = r.choice(["sws", "sdc"])
        opts += ["--protocol", protocol]
        if protocol == "sws" and r.random() < 0.3:
            opts += ["--sws-empty-threshold", str(r.choice([1, 3, 20, 100]))]
        opts += ["--public-queue-slots", str(r.choice([2, 8, 64, 4096])),
                 "--inbox-slots", str(r.choice([1, 4, 64, 1024])),
                 "--mailbox-slots", str(r.choice([16, 64, 1024])),
                 "--poll-interval", str(r.choice([1, 4, 32, 256]))]
        # Balancing between ranks: steals (parallel or one worker at a time),
        # or Chameleon pushes (never with success-only, which steals by request).
        if "success-only" not in opts and r.random() < 0.25:
            opts += ["--balance", "push"]
            if r.random() < 0.5:
                opts += ["--push-min-tasks", str(r.choice([1, 2, 8])), "--push-interval-us", str(r.choice([50, 500]))]
        elif r.random() < 0.3:
            opts += ["--remote-steal", "sequential"]
        if r.random() < 0.3:  # virtual nodes: ranks 2 by 2, with a delay across them
            opts += ["--ranks-per-node", str(r.choice([1, 2])), "--inter-node-delay-us", str(r.choice([0, 5, 30]))]
        if r.random() < 0.4:
            opts += ["--rma-delay-us", str(r.randint(1, 40))]
        progress = r.choice(["poll", "poll", "thread", "none"])
        opts += ["--progress", progress]
        if progress == "thread" and r.random() < 0.5:
            opts += ["--progress-interval-us", str(r.choice([10, 100, 1000]))]
        if r.random() < 0.2:
            opts += ["--mpi-threads", "serialized"]
    else:
        opts += ["--mpi", "off"]
    opts += ["--soak-seed", str(seed), "--dags", str(r.randint(2, 6)), "--nodes", str(r.randint(20, args.max_nodes)),
             "--depth", str(r.randint(2, 10)), "--fanout", str(r.randint(1, 6)),
             "--work-ns", str(r.choice([0, 2000, 20000]))]
    # Drawn from its own generator, after everything else, so that every
    # earlier run seed still replays the configuration it named.
    extra = random.Random(seed * 7919 + 17)
    if extra.random() < args.help_depth_share:  # waiters past it do not steal (2026-11-26 hangs)
        opts += ["--max-help-depth", str(extra.choice([1, 2, 4]))]
    # What waiters take (the default, auto, floors them between processes
    # only): from a generator of its own, for the same reason.
    waiters = random.Random(seed * 7919 + 29)
    if waiters.random() < args.waiter_steals_share:
        opts += ["--waiter-steals", waiters.choice(["deeper", "any"])]
    # Success-only answers of a few tasks, so that answer areas fill to
    # their last slot (rma/answer_slots.hpp): a generator of its own too.
    answers = random.Random(seed * 7919 + 41)
    if ranks > 1 and "success-only" in opts and answers.random() < 0.5:
        opts += ["--answer-max-tasks", str(answers.choice([1, 2, 8]))]
    # Suspending waits under the policies whose waits help (a generator of
    # its own as well): the waiter's fiber moves aside and resumes, maybe on
    # another worker (Worker::await_by_suspending).
    suspend = random.Random(seed * 7919 + 53)
    if policy != "work-first" and suspend.random() < 0.3:
        opts += ["--suspend-waits", "on"]
    return ranks, opts


def differential_config(seed, args):
    """A run of the differential test, or None: drawn from a generator of its
    own, so that every other run seed still replays the DAG run it named."""
    r = random.Random(seed * 7919 + 67)
    if r.random() >= args.differential_share or not os.access(args.differential, os.X_OK):
        return None
    ranks = r.choice([1, 2]) if args.max_ranks > 1 else 1
    first = r.randint(1, 2**31)
    return ranks, [args.differential, "--seeds", f"{first}:{first + args.differential_seeds - 1}"]


def command(seed, args):
    differential = differential_config(seed, args)
    if differential is not None:
        ranks, driver = differential
    else:
        ranks, opts = draw_config(seed, args)
        driver = [args.driver] + opts
    if ranks == 1:
        return ranks, driver
    return ranks, [args.mpiexec, "-n", str(ranks)] + args.mpiexec_flags + driver


def mpiexec_flags(mpiexec):
    """Open MPI refuses more ranks than cores without --oversubscribe; MPICH's Hydra allows it."""
    try:
        version = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except OSError:
        return []
    return ["--oversubscribe"] if "Open MPI" in version or "OpenRTE" in version else []


def run_one(seed, args):
    ranks, cmd = command(seed, args)
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")  # MPI keeps its allocations until exit
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        output, _ = proc.communicate(timeout=args.timeout)
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        status = f"hang (killed after {args.timeout:g} s)"
    return ranks, cmd, status, time.monotonic() - start, output


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="build tree (driver: BUILD/tests/soak/heist_soak_driver)")
    ap.add_argument("--driver", help="the soak driver executable (overrides --build)")
    ap.add_argument("--mpiexec", default=shutil.which("mpiexec") or "mpiexec")
    ap.add_argument("--runs", type=int, help="number of runs (default 20 unless --hours)")
    ap.add_argument("--hours", type=float, help="run until this much time has passed")
    ap.add_argument("--seed", type=int, help="master seed (default: from the clock)")
    ap.add_argument("--replay", type=int, help="run the configuration of this run seed once")
    ap.add_argument("--max-ranks", type=int, default=4)
    ap.add_argument("--max-workers", type=int, default=3)
    ap.add_argument("--max-threads", type=int, default=8, help="ranks x workers at most")
    ap.add_argument("--max-nodes", type=int, default=400, help="largest DAG drawn")
    ap.add_argument("--help-depth-share", type=float, default=0.15,
                    help="share of runs with a small --max-help-depth (1, 2 or 4)")
    ap.add_argument("--waiter-steals-share", type=float, default=0.3,
                    help="share of runs with --waiter-steals deeper or any (else the default, auto)")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a run counts as a hang")
    ap.add_argument("--differential", help="the differential test (default: BUILD/tests/heist_differential)")
    ap.add_argument("--differential-share", type=float, default=0.2,
                    help="share of runs that run the differential test instead (0 for none)")
    ap.add_argument("--differential-seeds", type=int, default=8, help="its seeds per run")
    ap.add_argument("--log", help="append one JSON line per run to this file")
    ap.add_argument("--stop-on-failure", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="print failures and the summary only")
    args = ap.parse_args()
    args.driver = args.driver or os.path.join(args.build, "tests", "soak", "heist_soak_driver")
    args.differential = args.differential or os.path.join(args.build, "tests", "heist_differential")
    if args.differential_share > 0 and not os.access(args.differential, os.X_OK):
        print(f"soak: no differential test at {args.differential}: DAG runs only", flush=True)
    if not os.access(args.driver, os.X_OK) and args.differential_share < 1:
        sys.exit(f"soak: no driver at {args.driver} (build the target heist_soak_driver)")

    args.mpiexec_flags = mpiexec_flags(args.mpiexec) if args.max_ranks > 1 else []
    master = args.seed if args.seed is not None else time.time_ns() % (2**31)
    if args.replay is not None:
        seeds = iter([args.replay])
    else:
        rng = random.Random(master)
        seeds = (rng.randint(0, 2**31) for _ in iter(int, 1))
    runs = 1 if args.replay is not None else args.runs if args.runs is not None else (None if args.hours else 20)
    deadline = time.monotonic() + args.hours * 3600 if args.hours else None
    print(f"soak: master seed {master}; driver {args.driver}", flush=True)
    log = open(args.log, "a") if args.log else None
    done = failed = 0
    started = time.monotonic()
    for seed in seeds:
        if runs is not None and done >= runs:
            break
        if deadline is not None and time.monotonic() >= deadline:
            break
        ranks, cmd, status, seconds, output = run_one(seed, args)
        done += 1
        if log:
            log.write(json.dumps({"run": done, "seed": seed, "ranks": ranks, "status": status,
                                  "seconds": round(seconds, 3), "command": cmd}) + "\n")
            log.flush()
        if status != "ok":
            failed += 1
            print(output.rstrip())
            print(f"soak: run {done} seed {seed} FAILED ({status}) after {seconds:.1f} s\n"
                  f"  command: {' '.join(cmd)}\n  replay:  {sys.argv[0]} --driver {args.driver} --replay {seed}"
                  f" --max-ranks {args.max_ranks} --max-workers {args.max_workers} --max-threads {args.max_threads}"
                  f" --max-nodes {args.max_nodes}",
                  flush=True)
            if args.stop_on_failure:
                break
        elif not args.quiet:
            # The driver's summary: steals, moves between ranks, bulk reports.
            summary = next((line for line in output.splitlines()
                            if line.startswith("soak: seed") or line.startswith("differential:")), "")
            detail = summary[summary.rfind("(") :] if "(" in summary else ""
            print(f"soak: run {done} seed {seed}: ok, {ranks} rank(s), {seconds:.2f} s {detail}", flush=True)
    elapsed = time.monotonic() - started
    print(f"soak: {done} runs, {failed} failed or hung, {elapsed:.0f} s (master seed {master})", flush=True)
    sys.exit(0 if failed == 0 and done > 0 else 1)


if __name__ == "__main__":
    main()
