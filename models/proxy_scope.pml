/*
 * Proxy finish scopes inside one process (src/sched/proxy_scope.hpp,
 * docs/design/continuations.md §6): W workers, one finish scope S owned by
 * worker 0, asyncs stolen between the workers. See models/README.md.
 *
 * Counting. A scope has an owner-only `local` and an atomic `remote`; it is
 * pending while local + remote != 0. A task counts in one scope (its IEF,
 * which for an async is also its completion scope):
 *  - enroll (spawn): +1 on `local` if the spawner counts the scope locally
 *    (owns it and it is not a sealed proxy), else an atomic +1 on `remote`;
 *  - complete: -1 likewise; an atomic -1 that leaves `remote` at K (the
 *    runtime's kWaiting) on a sealed proxy drains it: the proxy completes
 *    its parent once (the same step, by the same worker) and is freed;
 *  - run: a worker runs a task of a scope it does not count locally under a
 *    new proxy (owner: itself, parent: that scope, local = 1 for the task
 *    itself); the task's children enroll in the proxy, and the task
 *    completes the proxy;
 *  - seal: a worker with an empty queue seals all its open proxies before it
 *    steals: one atomic remote += local + K, local = 0; the seal itself
 *    drains the proxy when that leaves K;
 *  - a task's body may stop in the middle (a wait that found the queue
 *    empty: the worker seals) and spawn more children afterwards, which then
 *    enroll in a sealed proxy (atomically, on `remote`).
 * Worker 0 runs S's root task, then runs and steals until its queue is empty
 * and S is not pending; it then ends the run.
 *
 * Checks: when worker 0 sees S drained, no task is outstanding (spawned and
 * not completed), none is queued or running, and every proxy has drained
 * (assertions); a proxy drains exactly once and completes its parent once
 * (the counters never go below their floor: asserted); no deadlock (invalid
 * end state); every run ends (LTL).
 *
 * Bounds: W workers (3), the root spawns up to MAXCH children and each task
 * MAXCH while its depth < MAXD; a task may pause once between spawns.
 *
 * -DREPORTS: the proxies are foreign proxies (ForeignProxy, the same
 * file), as when every steal crosses processes: a worker runs a task of a
 * scope it does not count locally under its open proxy of that scope if it
 * has one (which then counts one more task: adopted + 1, local + 1), else
 * under a new one (adopted = 1); the RMW that drains a sealed proxy does
 * not complete the parent but owes a report, which the draining worker
 * sends in a later step of its own (Executor::send_reports, at a poll or
 * search step): the parent completes `adopted` tasks in one step
 * (Joins::complete(scope, n) at the origin). Checks as above, and no report
 * is still owed when S has drained.
 * -DMUTANT_REPORT_ONE (with -DREPORTS): a report completes one task of the
 * parent whatever it adopted. SPIN must find a run where S never drains.
 *
 * -DMUTANT_SEALED_LOCAL: a sealed proxy's owner keeps counting it with
 * `local` (the fold into remote is ignored afterwards). SPIN must find a run
 * where a proxy never drains, so S never does (an invalid end state).
 * -DMUTANT_PROXY_FORGETS_TASK: a proxy does not count the task that opened
 * it. SPIN must find S drained while a task is outstanding (an assertion).
 * Bigger: -DMAXD=3 -DNS=16 (15 tasks).
 */

#ifndef W
#define W 3
#endif
#ifndef MAXCH
#define MAXCH 2
#endif
#ifndef MAXD
#define MAXD 2
#endif
#define K 64                     /* kWaiting */
#ifndef NS
#define NS 8                     /* scopes: 0 is S, 1..NS-1 proxies (a task opens at most one: 7 tasks) */
#endif
#define QCAP 6

/* scope state */
short loc[NS];                   /* owner-only count */
short rem[NS];                   /* atomic count */
byte own[NS];                    /* owner worker */
bool sealed[NS];
bool live[NS];                   /* a proxy in use (S: always) */
byte parent[NS];
byte drains[NS];                 /* ghost: times this proxy drained */
byte nopen[W];                   /* proxies a worker opened and has not sealed */
byte adopted[NS];                /* REPORTS: tasks of its parent a proxy counts */
bool owed[NS];                   /* REPORTS: drained, its report not sent yet */
byte owed_by[NS];                /* REPORTS: the worker that drained it (sends the report) */
byte nowed[W];                   /* REPORTS: reports a worker owes */
hidden byte n;

/* queues: a task is 1 + depth + 4 * scope */
byte q[W * QCAP];
byte qlen[W];
#define DEPTH(t) (((t) - 1) & 3)
#define SCOPE(t) (((t) - 1) >> 2)
#define TASK(s, d) (1 + (d) + 4 * (s))

/* ghosts */
byte outstanding = 0;            /* tasks spawned (the root included) and not completed */
byte running = 0;
bool finished = false;           /* worker 0 saw S drained */

hidden byte k, x, s, p, c;

#ifdef MUTANT_SEALED_LOCAL
#define COUNTS_LOCALLY(sc) (own[sc] == me)
#else
#define COUNTS_LOCALLY(sc) (own[sc] == me && !sealed[sc])
#endif

/* A sealed proxy `c` drained, on worker `me`: it completes its parent in
   the same step (c = the parent; the loop below goes on), or, REPORTS, owes
   a report (c = NS: nothing more now). */
inline drained(c) {
  drains[c]++; assert(drains[c] == 1);
#ifdef REPORTS
  owed[c] = true; owed_by[c] = me; nowed[me]++;
  c = NS
#else
  live[c] = false;
  c = parent[c]
#endif
}

/* -n on scope `c`, by worker `me`; a drained sealed proxy completes its
   parent (one task) in the same step, or owes its report (REPORTS). */
inline complete(c, n) {
  do
  :: c == NS -> break
  :: c < NS && COUNTS_LOCALLY(c) -> loc[c] = loc[c] - n; break
  :: c < NS && !COUNTS_LOCALLY(c) ->
     rem[c] = rem[c] - n;
     if
     :: c != 0 && sealed[c] && rem[c] == K ->
        assert(live[c] && loc[c] == 0);
        drained(c);
        n = 1
     :: else -> break
     fi
  od
}

inline enroll(c) {
  if
  :: COUNTS_LOCALLY(c) -> loc[c]++
  :: else -> rem[c]++
  fi
}

inline seal_all() {
  k = 1;
  do
  :: k < NS ->
     if
     :: live[k] && own[k] == me && !sealed[k] ->
        sealed[k] = true;
        rem[k] = rem[k] + loc[k] + K; loc[k] = 0;
        if
        :: rem[k] == K ->
           c = k;
           drained(c);
           n = 1;
           complete(c, n)
        :: else
        fi
     :: else
     fi;
     k++
  :: else -> break
  od;
  nopen[me] = 0
}

/* the scope task `cur` runs under: its own if counted locally, else a new proxy */
inline start() {
  running++;
  s = SCOPE(cur);
  if
  :: COUNTS_LOCALLY(s) -> cs = s
  :: else ->
#ifdef REPORTS
     /* this worker's open proxy of s, if any */
     p = 1;
     do
     :: p < NS && !(live[p] && !owed[p] && own[p] == me && !sealed[p] && parent[p] == s) -> p++
     :: else -> break
     od;
     if
     :: p < NS -> loc[p]++; adopted[p]++; cs = p
     :: else ->
#endif
     p = 1;
     do
     :: p < NS && live[p] -> p++
     :: else -> break
     od;
     assert(p < NS);
     live[p] = true; own[p] = me; sealed[p] = false; parent[p] = s;
#ifdef MUTANT_PROXY_FORGETS_TASK
     loc[p] = 0;
#else
     loc[p] = 1;
#endif
     rem[p] = 0; drains[p] = 0; nopen[me]++; adopted[p] = 1; owed[p] = false;
     /* the task is counted in the proxy now; its count in s is the proxy's */
     cs = p
#ifdef REPORTS
     fi
#endif
  fi;
  nch = 0; paused = false
}

proctype Worker(byte me) {
  byte cur = 0;                  /* the running task */
  byte cs = 0;                   /* the scope it counts in (S or a proxy) */
  byte nch = 0;                  /* children spawned so far */
  bool paused = false;           /* it paused once (a wait) */

  if
  :: me == 0 -> atomic { cur = TASK(0, 0); outstanding++; loc[0] = 1; start() }
  :: else
  fi;
  do
  /* the running task spawns a child */
  :: atomic {
       cur != 0 && DEPTH(cur) < MAXD && nch < MAXCH && qlen[me] < QCAP ->
       enroll(cs);
       q[me * QCAP + qlen[me]] = TASK(cs, DEPTH(cur) + 1); qlen[me]++;
       outstanding++; nch++
     }
  /* the running task waits with nothing queued: the worker seals */
  :: atomic {
       cur != 0 && !paused && qlen[me] == 0 ->
       paused = true;
       seal_all()
     }
  /* the running task ends */
  :: atomic {
       cur != 0 ->
       c = cs; n = 1;
       complete(c, n);
       outstanding--; running--; cur = 0
     }
#ifdef REPORTS
  /* send a report this worker owes: its parent completes every task the
     proxy adopted (or one, the mutant) */
  :: atomic {
       nowed[me] > 0 ->
       x = 1;
       do
       :: x < NS && !(owed[x] && owed_by[x] == me) -> x++
       :: else -> break
       od;
       owed[x] = false; live[x] = false; nowed[me]--;
       c = parent[x];
#ifdef MUTANT_REPORT_ONE
       n = 1;
#else
       n = adopted[x];
#endif
       complete(c, n)
     }
#endif
  /* pop the newest own task */
  :: atomic {
       cur == 0 && qlen[me] > 0 ->
       qlen[me]--; cur = q[me * QCAP + qlen[me]]; q[me * QCAP + qlen[me]] = 0;
       start()
     }
  /* out of tasks: seal the open proxies (before any steal) */
  :: atomic {
       cur == 0 && qlen[me] == 0 && nopen[me] > 0 ->
       seal_all()
     }
  /* out of tasks, nothing open: steal the oldest task of another worker */
  :: atomic {
       cur == 0 && qlen[me] == 0 && nopen[me] == 0 && (qlen[(me + 1) % W] > 0 || qlen[(me + 2) % W] > 0) ->
       if
       :: qlen[(me + 1) % W] > 0 -> x = (me + 1) % W
       :: qlen[(me + 2) % W] > 0 -> x = (me + 2) % W
       fi;
       cur = q[x * QCAP];
       k = 1;
       do
       :: k < qlen[x] -> q[x * QCAP + k - 1] = q[x * QCAP + k]; k++
       :: else -> break
       od;
       qlen[x]--; q[x * QCAP + qlen[x]] = 0;
       start()
     }
  /* worker 0: S drained */
  :: atomic {
       me == 0 && cur == 0 && qlen[me] == 0 && nopen[me] == 0 && loc[0] + rem[0] == 0 && !finished ->
       assert(outstanding == 0 && running == 0);
       k = 0;
       do
       :: k < W -> assert(qlen[k] == 0); k++
       :: else -> break
       od;
       k = 1;
       do
       :: k < NS -> assert(!live[k] && !owed[k]); k++
       :: else -> break
       od;
       finished = true
     }
  :: finished && cur == 0 -> break
  od
}

init {
  atomic {
    own[0] = 0; live[0] = true;
    byte i = 0;
    do
    :: i < W -> run Worker(i); i++
    :: else -> break
    od
  }
}

ltl terminates { <> finished }
