/*
 * SDC steal protocol, Scioto's "split queues, deferred copies, aborting
 * steals" (SWS §3, §3.1; src/policy/sdc_queue_state.hpp): one owner and
 * NTHIEVES thieves on one queue, as a SPIN model. See models/README.md.
 *
 * Window words: lock (0 free, else holder id: owner 1, thieves 2..),
 * tail, split, itail; a ring of SLOTS task slots. Logical indices never wrap
 * (slot = index % SLOTS), as in the C++.
 *
 * Thief (SdcSteal): (1) lock CAS; if busy, poll tail and split without the
 * lock until the lock frees (retry) or the public part shows empty (abort);
 * (2) read tail and split; (3) put tail := tail + n; (4) unlock CAS; (5) copy
 * the n slots, one per step; (6) itail += n. Chunk: any n in
 * 1..available (on_meta clamps whatever the chunk policy returns), or steal
 * half, max(1, available / 2), with -DSTEAL_HALF.
 * Owner (SdcOwnerState): push (only while head < vtail + SLOTS), pop,
 * release without the lock (tail read == split: ceil(local / 2) tasks, then
 * write split), publish_all without the lock (every private task, at any
 * time: SdcQueue's release), acquire under its own lock (lock CAS, read tail, move split
 * down by ceil((shared - local) / 2), write split, unlock), progress (read
 * itail, then tail; vtail := tail when equal).
 *
 * Bounds: NTASKS tasks pushed in all, SLOTS ring slots, at most MAXREL
 * releases and publish_alls together (release and acquire could otherwise
 * trade the same tasks forever).
 *
 * Defines: -DNTHIEVES=3 (default 2), -DSLOTS, -DNTASKS, -DMAXREL,
 * -DSTEAL_HALF; mutants (SPIN must find a violation):
 *   -DMUTANT_NO_ITAIL   the owner reuses slots below tail without checking
 *                       itail (may_push reads tail instead of vtail): slots
 *                       of steals still copying get overwritten;
 *   -DMUTANT_ACQUIRE_NO_LOCK  acquire moves split down without the lock:
 *                       a thief under the lock claims tasks the owner took back.
 * -DNO_WRITE_CHECK drops the owner-side inflight assertion, so that the
 * thieves' version check alone must catch MUTANT_NO_ITAIL.
 */

#ifndef NTHIEVES
#define NTHIEVES 2
#endif
#ifndef SLOTS
#define SLOTS 4
#endif
#ifndef NTASKS
#define NTASKS 8
#endif
#ifndef MAXREL
#define MAXREL 4
#endif
#define MAXBLK   SLOTS
#define OWNER_ID 1

byte lock = 0;                   /* window words */
byte tail = 0;
byte split = 0;
byte itail = 0;
byte ring[SLOTS];                /* id of the task last written to each slot; ids are
                                    fresh per write, so the id is also the slot's version */
bool owner_done = false;
byte quit = 0;

/* ghosts: checks only */
byte taken[NTASKS];
byte inflight[SLOTS];            /* claimed (tail moved past it), itail not yet added */

hidden byte k;                   /* scratch inside one d_step */

inline take(id) {
  taken[id]++;
  assert(taken[id] == 1)         /* exactly once */
}

/* owner states between its communications */
#define O_IDLE      0
#define O_REL_WRITE 1            /* release: split_ moved up, window split not yet written */
#define O_ACQ_READ  2            /* acquire: holds the lock, tail not yet read */
#define O_ACQ_WRITE 3            /* acquire: split_ moved down, not yet written */
#define O_ACQ_UNLOCK 4
#define O_PROG      5            /* progress: itail read, tail not yet */

proctype Owner() {
  byte st = O_IDLE;
  byte head, split_, vtail, pushed, it;
  byte budget = MAXREL;

/* SdcOwnerState::check_tail */
#define check_tail(t) assert((t) >= vtail && (t) <= split_)

  do
  /* push: only while may_push() */
  :: d_step {
#ifndef MUTANT_NO_ITAIL
       st == O_IDLE && pushed < NTASKS && head < vtail + SLOTS ->
#else
       st == O_IDLE && pushed < NTASKS && head < tail + SLOTS ->   /* mutant: tail, not vtail */
#endif
#ifndef NO_WRITE_CHECK
       assert(inflight[head % SLOTS] == 0);   /* never overwrite a slot of an unfinished steal */
#endif
       ring[head % SLOTS] = pushed;
       head++; pushed++
     }
  /* pop the newest private task */
  :: d_step { st == O_IDLE && head > split_ -> head--; take(ring[head % SLOTS]) }
  /* release(tail read): modelled when the read tail equals split_ and there
     are private tasks (otherwise it returns 0 and changes nothing) */
  :: d_step {
       st == O_IDLE && budget > 0 && head > split_ && tail == split_ ->
       check_tail(tail);
       split_ = split_ + (head - split_ + 1) / 2;
       budget--;
       st = O_REL_WRITE
     }
  /* publish_all(tail read): every private task, at any time (what SdcQueue
     does: the workers' deques are its private parts) */
  :: d_step {
       st == O_IDLE && budget > 0 && head > split_ ->
       check_tail(tail);
       split_ = head;
       budget--;
       st = O_REL_WRITE
     }
  :: d_step { st == O_REL_WRITE -> split = split_; st = O_IDLE }   /* MPI_REPLACE, after the slots */
  /* acquire: lock CAS (a failed CAS is retried: modelled as waiting for the
     lock); started only when the public part exceeds the private one now */
  :: d_step {
       st == O_IDLE && split_ - tail > head - split_ &&
#ifndef MUTANT_ACQUIRE_NO_LOCK
       lock == 0 -> lock = OWNER_ID;
#else
       true ->
#endif
       st = O_ACQ_READ
     }
  :: d_step {
       st == O_ACQ_READ ->
       check_tail(tail);         /* stable: the owner holds the lock */
       if
       :: split_ - tail > head - split_ -> split_ = split_ - (split_ - tail - (head - split_) + 1) / 2
       :: else
       fi;
       st = O_ACQ_WRITE
     }
  :: d_step { st == O_ACQ_WRITE -> split = split_; st = O_ACQ_UNLOCK }
  :: d_step {
       st == O_ACQ_UNLOCK ->
#ifndef MUTANT_ACQUIRE_NO_LOCK
       assert(lock == OWNER_ID); lock = 0;
#endif
       st = O_IDLE
     }
  /* progress: itail first, then tail. Modelled when itail equals tail and
     is beyond vtail at the first read: otherwise the two reads cannot be
     equal (tail only grows) and progress changes nothing */
  :: d_step { st == O_IDLE && itail == tail && tail > vtail -> it = itail; st = O_PROG }
  :: d_step {
       st == O_PROG ->
       check_tail(tail);
       assert(it <= tail);
       if
       :: it == tail -> vtail = tail
       :: else
       fi;
       it = 0; st = O_IDLE
     }
  /* done: everything pushed, nothing private or public, every steal finished */
  :: d_step {
       st == O_IDLE && pushed == NTASKS && head == split_ && vtail == split_ ->
       k = 0;
       do
       :: k < NTASKS -> assert(taken[k] == 1); k++   /* every task ran exactly once */
       :: else -> break
       od;
       owner_done = true
     };
     break
  od
}

/* thief states */
#define T_IDLE   0
#define T_WAIT   1               /* lock CAS failed: polling tail and split */
#define T_LOCKED 2               /* holds the lock: read tail and split */
#define T_PUT    3               /* put tail := first + cnt */
#define T_UNLOCK 4
#define T_COPY   5               /* copy slot j of [first, first + cnt) */
#define T_DONE   6               /* itail += cnt */

proctype Thief(byte id) {
  byte st = T_IDLE;
  byte first, cnt, j;
  byte vers[MAXBLK];             /* ghost: version of each claimed slot at the claim */

  do
  :: st == T_IDLE && owner_done -> break
  /* (1) lock CAS. An attempt is modelled when the window shows public
     tasks: one that starts at an empty public part locks, reads and unlocks
     and changes nothing */
  :: d_step {
       st == T_IDLE && !owner_done && tail < split ->
       if
       :: lock == 0 -> lock = id; st = T_LOCKED
       :: else -> st = T_WAIT
       fi
     }
  /* lock busy: poll tail and split (no lock); empty -> abort, else retry
     the CAS once the lock is free (polls that change nothing are not steps) */
  :: d_step { st == T_WAIT && tail >= split -> st = T_IDLE }
  :: d_step { st == T_WAIT && tail < split && lock == 0 -> lock = id; st = T_LOCKED }
  /* (2) read tail and split under the lock (one read of both words; tail
     is stable under the lock, split only grows meanwhile); the chunk */
#ifdef STEAL_HALF
  :: d_step {
       st == T_LOCKED ->
       assert(tail <= split);
       first = tail;
       cnt = (split - tail == 0 -> 0 : ((split - tail) / 2 > 1 -> (split - tail) / 2 : 1));
       st = (cnt == 0 -> T_UNLOCK : T_PUT)
     }
#else
  :: atomic {
       st == T_LOCKED ->
       assert(tail <= split);
       first = tail; cnt = 0;
       do
       :: cnt < split - tail -> cnt++
       :: cnt > 0 -> break
       :: split == tail -> break
       od;
       st = (cnt == 0 -> T_UNLOCK : T_PUT)
     }
#endif
  /* (3) tail := first + cnt; the claim: record the slots' versions */
  :: d_step {
       st == T_PUT ->
       tail = first + cnt;
       k = 0;
       do
       :: k < cnt -> vers[k] = ring[(first + k) % SLOTS]; inflight[(first + k) % SLOTS]++; k++
       :: else -> break
       od;
       st = T_UNLOCK
     }
  /* (4) unlock CAS: must be ours */
  :: d_step {
       st == T_UNLOCK ->
       assert(lock == id); lock = 0;
       j = 0;
       st = (cnt == 0 -> T_IDLE : T_COPY)
     }
  /* (5) MPI_Get, one slot per step: the owner may write in between */
  :: d_step {
       st == T_COPY ->
       assert(ring[(first + j) % SLOTS] == vers[j]);     /* not overwritten while claimed */
       j++;
       st = (j == cnt -> T_DONE : T_COPY)
     }
  /* (6) copy flushed; itail += cnt (MPI_SUM) */
  :: d_step {
       st == T_DONE ->
       k = 0;
       do
       :: k < cnt ->
          assert(ring[(first + k) % SLOTS] == vers[k]);  /* still the claimed task */
          take(vers[k]);
          inflight[(first + k) % SLOTS]--;
          vers[k] = 0;
          k++
       :: else -> break
       od;
       itail = itail + cnt;
       first = 0; cnt = 0; j = 0;
       st = T_IDLE
     }
  od;
  quit++
}

init {
  atomic {
    run Owner();
    run Thief(2); run Thief(3);
#if NTHIEVES >= 3
    run Thief(4);
#endif
  }
}

/* termination: every run ends with the owner done and every thief stopped */
ltl terminates { <> (owner_done && quit == NTHIEVES) }
