/*
 * Distributed termination of the SPMD task-pool mode (the rma layer of docs/architecture.md,
 * "Termination"; SWS §2.1): R ranks each seed tasks, then all ranks run
 * and steal until the global pool is empty. See models/README.md.
 *
 * Finish counting. Rank r's counter F[r] counts the outstanding tasks it
 * created: its seeds and, transitively, their descendants. A task carries
 * the counter it reports to (its target: rank and counter id; id 0 is F of
 * that rank, ids 1..MAXF are frames, below).
 *  - spawn: the running task's child is counted BEFORE the parent completes
 *    (+1 on the counter the child reports to) and pushed on the running
 *    rank's queue;
 *  - a task run on its target rank completes with a local -1 on its target
 *    counter, and its children report to the same counter;
 *  - a task run on another rank (it migrated: stolen) gets a frame on the
 *    running rank; its children report to that frame, and its completion
 *    message goes to its target only once its body finished and the frame
 *    dropped to 0 (its escaping descendants are done);
 *  - a completion message (channel msg[x]) is applied by its receiver x:
 *    -1 on the named counter (which may complete a frame in turn).
 * Detection: when F[r] reaches 0, rank r adds 1 to the global counter D
 * exactly once; an idle rank terminates when it reads D == R. (F[r] == 0 is
 * stable: only a task counted in F[r], running on r, adds to F[r].)
 *
 * Checks: no rank terminates while a task is outstanding (created, its
 * completion not yet applied), a task is queued or running, or a message is
 * in flight; D is added to once per rank and never exceeds R; no deadlock
 * (invalid end state); every run ends with all ranks terminated (LTL).
 *
 * Bounds: R ranks (2; 3 with -DR=3), SEEDS seeds per rank, each task spawns
 * up to MAXCH children while its depth < MAXD. Steals take the oldest queued
 * task of another rank atomically (the steal protocols are sws.pml and
 * sdc.pml); a thief runs what it stole (so a task cannot bounce between
 * queues forever), and steals only when idle with an empty queue.
 *
 * -DMUTANT_QUEUE_EMPTY: a rank reports (D += 1) when its queue is empty and
 * it runs nothing, instead of when F[r] == 0. SPIN must find a rank that
 * terminates with work outstanding.
 */

#ifndef R
#define R 2
#endif
#ifndef SEEDS
#define SEEDS 2
#endif
#ifndef MAXCH
#define MAXCH 2
#endif
#ifndef MAXD
#define MAXD 3
#endif
#define MAXF 3                   /* frames per rank (counter ids 1..3) */
#define QCAP 8                   /* queue slots per rank, messages per channel */

/* a task descriptor: 0 none, else 1 + depth + 4 * counter id + 16 * target rank */
#define DESC(tr, tc, d) (1 + (d) + 4 * (tc) + 16 * (tr))
#define DEPTH(x)  (((x) - 1) & 3)
#define TC(x)     ((((x) - 1) >> 2) & 3)
#define TR(x)     (((x) - 1) >> 4)

byte F[R];                       /* finish counters: rank r's outstanding tasks */
byte D = 0;                      /* ranks whose F reached 0 */
byte q[R * QCAP];                /* queues: rank r's tasks q[r*QCAP .. r*QCAP + qlen[r]) */
byte qlen[R];
chan msg[R] = [QCAP] of { byte };/* completion messages: the counter id to decrement */
byte nterm = 0;                  /* ranks that terminated */

/* ghosts */
byte outstanding = 0;            /* created tasks whose completion is not applied yet */
byte running = 0;                /* ranks running a task */
byte ndone[R];                   /* D additions by each rank */

hidden byte k, x;

/* -1 on this rank's counter c (0: F[me]; f >= 1: frame f). A frame that
   reaches 0 after its task's body finished completes that task: a message
   to its target rank (always another rank: frames exist for migrated tasks) */
inline dec_local(c) {
  if
  :: c == 0 -> assert(F[me] > 0); F[me]--
  :: else ->
     assert(fbusy[c - 1] && fc[c - 1] > 0);
     fc[c - 1]--;
     if
     :: fc[c - 1] == 0 && fbody[c - 1] ->
        assert(TR(ftgt[c - 1]) != me && nfull(msg[TR(ftgt[c - 1])]));
        msg[TR(ftgt[c - 1])]!TC(ftgt[c - 1]);
        fbusy[c - 1] = false; fbody[c - 1] = false; ftgt[c - 1] = 0
     :: else
     fi
  fi
}

/* start running task `cur`: a migrated task gets a frame */
inline start() {
  running++;
  if
  :: TR(cur) != me ->
     k = 0;
     do
     :: k < MAXF && fbusy[k] -> k++
     :: else -> break
     od;
     assert(k < MAXF);
     fbusy[k] = true; fc[k] = 0; fbody[k] = false; ftgt[k] = DESC(TR(cur), TC(cur), 0);
     cf = k + 1
  :: else -> cf = 0
  fi
}

proctype Rank(byte me) {
  byte cur = 0;                  /* the running task's descriptor */
  byte nch = 0;                  /* children it spawned so far */
  byte cf = 0;                   /* its frame (1..MAXF) if it migrated, else 0 */
  byte fc[MAXF];                 /* frame counters: outstanding children */
  bool fbusy[MAXF];              /* frame in use */
  bool fbody[MAXF];              /* the frame's task finished its body */
  byte ftgt[MAXF];               /* the frame's task's target, as DESC(tr, tc, 0) */
  bool reported = false;

  do
  /* pop the newest task of the own queue */
  :: d_step {
       cur == 0 && qlen[me] > 0 ->
       qlen[me]--; cur = q[me * QCAP + qlen[me]]; q[me * QCAP + qlen[me]] = 0;
       start()
     }
  /* idle with an empty queue: steal the oldest task of another rank */
  :: d_step {
       cur == 0 && qlen[me] == 0 && qlen[(me + 1) % R] > 0 ->
       x = (me + 1) % R;
       cur = q[x * QCAP];
       k = 1;
       do
       :: k < qlen[x] -> q[x * QCAP + k - 1] = q[x * QCAP + k]; k++
       :: else -> break
       od;
       qlen[x]--; q[x * QCAP + qlen[x]] = 0;
       start()
     }
#if R >= 3
  :: d_step {
       cur == 0 && qlen[me] == 0 && qlen[(me + 2) % R] > 0 ->
       x = (me + 2) % R;
       cur = q[x * QCAP];
       k = 1;
       do
       :: k < qlen[x] -> q[x * QCAP + k - 1] = q[x * QCAP + k]; k++
       :: else -> break
       od;
       qlen[x]--; q[x * QCAP + qlen[x]] = 0;
       start()
     }
#endif
  /* spawn a child: counted before the parent completes, pushed locally */
  :: d_step {
       cur != 0 && nch < MAXCH && DEPTH(cur) < MAXD ->
       assert(qlen[me] < QCAP);
       if
       :: cf != 0 -> fc[cf - 1]++; q[me * QCAP + qlen[me]] = DESC(me, cf, DEPTH(cur) + 1)
       :: else ->                /* TR(cur) == me: the same counter as the parent */
          if
          :: TC(cur) == 0 -> assert(F[me] > 0 && !reported); F[me]++   /* F[me] == 0 is stable */
          :: else -> assert(fbusy[TC(cur) - 1] && fc[TC(cur) - 1] > 0); fc[TC(cur) - 1]++
          fi;
          q[me * QCAP + qlen[me]] = DESC(me, TC(cur), DEPTH(cur) + 1)
       fi;
       qlen[me]++; nch++; outstanding++
     }
  /* the running task's body finishes */
  :: d_step {
       cur != 0 ->
       if
       :: cf != 0 ->             /* migrated: completes when its frame is empty */
          fbody[cf - 1] = true;
          if
          :: fc[cf - 1] == 0 ->
             assert(nfull(msg[TR(cur)]));
             msg[TR(cur)]!TC(cur);
             fbusy[cf - 1] = false; fbody[cf - 1] = false; ftgt[cf - 1] = 0
          :: else
          fi
       :: else -> dec_local(TC(cur)); outstanding--
       fi;
       running--;
       cur = 0; nch = 0; cf = 0
     }
  /* a completion message: -1 on the named counter */
  :: d_step { nempty(msg[me]) -> msg[me]?x; dec_local(x); outstanding-- }
  /* detection */
#ifndef MUTANT_QUEUE_EMPTY
  :: d_step { F[me] == 0 && !reported -> reported = true; D++; assert(D <= R); ndone[me]++ }
#else
  :: d_step { cur == 0 && qlen[me] == 0 && !reported -> reported = true; D++; assert(D <= R); ndone[me]++ }
#endif
  :: d_step {
       cur == 0 && D == R ->
       assert(outstanding == 0 && running == 0);          /* no task outstanding or running */
       k = 0;
       do
       :: k < R -> assert(qlen[k] == 0 && len(msg[k]) == 0 && ndone[k] == 1); k++
       :: else -> break
       od;
       nterm++
     };
     break
  od;
  /* terminated: nothing may arrive any more */
  assert(len(msg[me]) == 0 && F[me] == 0)
}

init {
  d_step {
    k = 0;
    do
    :: k < R ->
       x = 0;
       do
       :: x < SEEDS -> q[k * QCAP + x] = DESC(k, 0, 0); x++
       :: else -> break
       od;
       qlen[k] = SEEDS; F[k] = SEEDS; outstanding = outstanding + SEEDS;
       k++
    :: else -> break
    od
  };
  atomic {
    run Rank(0); run Rank(1);
#if R >= 3
    run Rank(2);
#endif
  }
}

ltl terminates { <> (nterm == R) }
