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

/* -1 on scope `c`, by worker `me`; a drained sealed proxy completes its
   parent in the same step (one level: proxies of proxies chain through the
   loop). */
inline complete(c) {
  do
  :: COUNTS_LOCALLY(c) -> loc[c]--; break
  :: else ->
     rem[c]--;
     if
     :: c != 0 && sealed[c] && rem[c] == K ->
        assert(live[c] && loc[c] == 0);
        drains[c]++; assert(drains[c] == 1);
        live[c] = false;
        c = parent[c]            /* and complete the parent */
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
           drains[k]++; assert(drains[k] == 1);
           live[k] = false;
           c = parent[k];
           complete(c)
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
     rem[p] = 0; drains[p] = 0; nopen[me]++;
     /* the task is counted in the proxy now; its count in s is the proxy's */
     cs = p
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
       c = cs;
       complete(c);
       outstanding--; running--; cur = 0
     }
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
       :: k < NS -> assert(!live[k]); k++
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
