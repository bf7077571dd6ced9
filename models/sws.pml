/*
 * SWS steal protocol (SWS §4; src/policy/sws_stealval.hpp,
 * src/policy/sws_state_machines.hpp): one owner and NTHIEVES thieves on one
 * queue, as a SPIN model. See models/README.md for what is checked.
 *
 * The stealval is ONE integer `word`, changed only by atomic additions
 * modulo 2^WBITS (MPI_SUM on MPI_UINT64_T): a thief's fetch-add of STEAL, the
 * owner's disable / republish+reset addends computed from its last read `rd`
 * exactly as SwsOwnerState does. Carries between fields are therefore
 * modelled, not assumed away. Field widths are scaled down:
 *   attempts ATT_BITS | epoch 2 | offered OFF_BITS | start START_BITS
 * and the steal-half block sequence is the C++ one (k = max(1, rem / 2)).
 *
 * Owner (SwsOwnerState): push at head while may_write(head), pop the newest
 * private task, release(n) for every n in 1..min(4, SLOTS, private tasks)
 * that can_release(n) accepts, acquire (disable, close the claims, take the
 * unclaimed rest back), observe (an MPI_NO_OP read), progress (read the
 * completion counters, retire epochs). Each owner operation is one atomic
 * step: its one access to the word or the counters, together with its
 * owner-local bookkeeping (which no other process can see).
 * Thief (SwsSteal): full mode fetch-adds at once; empty mode probes first;
 * claim_of/mode_after_fetch decide; the copy reads one slot per step; then
 * the completion add.
 *
 * Bounds (defaults): NTASKS = 5 tasks pushed in all, a ring of SLOTS = 4
 * slots, at most MAXREL = 3 releases (the owner could otherwise release and
 * acquire the same tasks forever), NTHIEVES = 2. The damping threshold T is
 * the model's kMaxBlocks = max_steals(SLOTS), as the C++ default is
 * kMaxBlocks = 20.
 *
 * Steps that change nothing are left out, so that the state graph has no
 * cycles and a livelock shows up as a deadlock: probes that show no block,
 * observes that show the word the owner already knows, progress calls that
 * retire nothing.
 *
 * Defines: -DNTHIEVES=3, -DSLOTS (<= 8), -DNTASKS, -DMAXREL, -DT;
 * -DMUTANT_NO_EPOCH_WAIT (may_write ignores unretired claimed blocks: ring
 * slots of an epoch are reused before its completion counter says the
 * copies finished; SPIN must find the overwrite), -DNO_WRITE_CHECK (drop the
 * owner-side inflight assertion, so that the thieves' version check alone
 * must catch the mutant).
 * Mutants of the other rules (each must fail; models/CMakeLists.txt):
 * -DMUTANT_NO_DAMPING (thieves never switch a target to empty mode: they
 * fetch-add on exhausted offers until the attempts field overflows),
 * -DMUTANT_NO_DISABLE (acquire's disable addend is 0: thieves keep claiming
 * blocks the owner takes back), -DMUTANT_RELEASE_LIVE (can_release without
 * "exhausted or disabled": the attempts reset erases live claims),
 * -DMUTANT_RETIRE_OPEN (progress retires an epoch that still has the live
 * offer, so later claims of it are never waited for).
 */

#ifndef NTHIEVES
#define NTHIEVES 2
#endif
#ifndef SLOTS
#define SLOTS 4
#endif
#ifndef NTASKS
#define NTASKS 5
#endif
#ifndef MAXREL
#define MAXREL 3
#endif

#if SLOTS > 8 || NTHIEVES < 2 || NTHIEVES > 3
#error "sws.pml: SLOTS <= 8 (START_BITS), NTHIEVES 2 or 3"
#endif

/* ---- the word: attempts | epoch | offered | start ---- */
#define START_BITS 3            /* ring slots <= 8 */
#define OFF_BITS   3            /* offered <= 7 (kMaxOffered of the model) */
#define ATT_BITS   3            /* attempts <= 7 */
#define OFF_SHIFT  START_BITS
#define EP_SHIFT   (START_BITS + OFF_BITS)
#define ATT_SHIFT  (EP_SHIFT + 2)
#define WBITS      (ATT_SHIFT + ATT_BITS)
#define WMASK      ((1 << WBITS) - 1)
#define LOWMASK    ((1 << ATT_SHIFT) - 1)      /* the owner's bits */
#define MAXOFF     ((1 << OFF_BITS) - 1)
#define ST(w)      ((w) & ((1 << START_BITS) - 1))
#define OFF(w)     (((w) >> OFF_SHIFT) & MAXOFF)
#define EP(w)      (((w) >> EP_SHIFT) & 3)
#define ATT(w)     ((w) >> ATT_SHIFT)
#define STEAL      (1 << ATT_SHIFT)            /* steal_addend() */
#define LOW(e, n, s) (((e) << EP_SHIFT) | ((n) << OFF_SHIFT) | (s))

#if SLOTS <= 3
#define KMAXBLOCKS SLOTS        /* max_steals(n) == n for n <= 3 */
#elif SLOTS == 4
#define KMAXBLOCKS 3            /* max_steals(4): 2,1,1 */
#else
#define KMAXBLOCKS 4            /* max_steals(5..8): e.g. 8: 4,2,1,1 */
#endif
#ifndef T
#define T          KMAXBLOCKS   /* damping threshold: kDefaultEmptyThreshold = kMaxBlocks */
#endif
#define DAMP_BOUND ((T > KMAXBLOCKS -> T : KMAXBLOCKS) + NTHIEVES)  /* attempts_bound(N) */
#define MAXBLK     ((SLOTS + 1) / 2)        /* largest block: max(1, offered / 2) */
#define MAXR       NTASKS                   /* owner's region deque */
#define FREE       2                        /* region tag kFree */
#define LIVE       0
#define DISABLED   1

int  word = 0;                   /* the stealval; starts as an empty live offer in epoch 0 */
byte completion[2];              /* cumulative completion counters (MPI_SUM) */
byte ring[SLOTS];                /* id of the task last written to each slot; ids are
                                    fresh per write, so the id is also the slot's version */
bool owner_done = false;
byte quit = 0;                   /* thieves that stopped after owner_done */

/* ghosts: checks only, the protocol never reads them */
byte taken[NTASKS];              /* times each task id was taken */
byte inflight[SLOTS];            /* claimed, completion not yet added */
bool g_claimed[NTASKS];          /* logical index claimed by a thief */
byte g_base = 0;                 /* logical index of the live offer's slot `start` */

/* scratch used only inside one d_step; not part of the state */
hidden byte k, t1, t2, cl_b, cl_e, pk, rtv;
hidden int pending, fetched, fold;

inline take(id) {
  taken[id]++;
  assert(taken[id] == 1)         /* exactly once */
}

/* res = prefix_tasks(off, blocks) */
inline prefix(off, blocks, res) {
  res = 0; pk = 0;
  do
  :: pk < blocks && res < off -> res = res + ((off - res) / 2 > 1 -> (off - res) / 2 : 1); pk++
  :: else -> break
  od
}

/* max_steals(n) for n <= 8: 1, 2, 3 blocks for n <= 3; 4: 2,1,1; 5..8: 4 blocks */
#define MS(n) ((n) <= 3 -> (n) : ((n) == 4 -> 3 : 4))

/* SwsOwnerState::check: only the owner changes the low bits; attempts only grow */
#define check(w) assert(((w) & LOWMASK) == (rd & LOWMASK) && ATT(w) >= ATT(rd))

/* ring_tail(): the first index a thief may still read: the first region of
   an unretired epoch, else the live offer's first unskipped task, else split */
inline ring_tail() {
  if
  :: phase == LIVE -> prefix(o_off, o_skip, t1); rtv = o_start + t1
  :: else -> rtv = split
  fi;
#ifdef MUTANT_NO_EPOCH_WAIT
  otail = rtv;
#endif
  k = 0;
  do
  :: k < nreg && rt[k] != FREE -> rtv = rb[k]; break
  :: k < nreg && rt[k] == FREE -> k++
  :: else -> break
  od;
  rtail = rtv
}
#ifndef MUTANT_NO_EPOCH_WAIT
#define may_write(i) ((i) >= split && (i) < rtail + SLOTS)
#else
/* mutant: claimed blocks of unretired epochs do not hold the ring tail back */
#define may_write(i) ((i) >= split && (i) < otail + SLOTS)
#endif

/* close_claims(att): blocks [skip, att) of the offer were claimed under o_ep */
inline close_claims(att) {
  prefix(o_off, o_skip, t1);
  prefix(o_off, att, t2);
  cl_b = o_start + t1; cl_e = o_start + t2;
  assert(cl_e >= cl_b);
  if
  :: cl_e > cl_b -> assert(nreg < MAXR); rb[nreg] = cl_b; re[nreg] = cl_e; rt[nreg] = o_ep; nreg++
  :: else
  fi;
  claimed[o_ep] = claimed[o_ep] + cl_e - cl_b;
  open[o_ep] = false
}

/* release(n): release_addend(n), the fetch-add, on_released(fetched);
   pre: can_release(n) */
inline release(nn) {
  if
  :: phase == LIVE -> close_claims(ATT(rd))
  :: else
  fi;
  e = (retired[1 - o_ep] -> 1 - o_ep : o_ep);
  open[e] = true; retired[e] = false;
  pending = (LOW(e, nn, split % SLOTS) - (rd & LOWMASK)) - (ATT(rd) << ATT_SHIFT);
  fetched = word; word = (word + pending) & WMASK;      /* MPI_Fetch_and_op(MPI_SUM) */
  check(fetched);
  rd = (fetched + pending) & WMASK;
  o_start = split; o_off = nn; o_ep = e; o_skip = ATT(rd);
  o_ms = MS(o_off);
  g_base = split;
  split = split + nn; phase = LIVE; budget--;
  prefix(o_off, o_skip, t1);     /* phantom-skipped blocks [0, skip): the owner's again */
  k = o_start;
  do
  :: k < o_start + t1 -> assert(!g_claimed[k]); take(ring[k % SLOTS]); k++
  :: else -> break
  od;
  if
  :: t1 > 0 -> assert(nreg < MAXR); rb[nreg] = o_start; re[nreg] = o_start + t1; rt[nreg] = FREE; nreg++
  :: else
  fi;
  e = 0;
  ring_tail()
}
/* progress() for epoch ee, whose completion counter read shows claimed[ee] */
#ifndef MUTANT_RETIRE_OPEN
#define retirable(ee) (!open[ee] && !retired[ee] && completion[ee] >= claimed[ee])
#else
#define retirable(ee) (!retired[ee] && completion[ee] >= claimed[ee])
#endif
inline retire(ee) {
  assert(completion[ee] == claimed[ee]);   /* completions never exceed claims */
  retired[ee] = true;
  k = 0;
  do
  :: k < nreg -> if :: rt[k] == ee -> rt[k] = FREE :: else fi; k++
  :: else -> break
  od;
  do                             /* pop free regions off the front */
  :: nreg > 0 && rt[0] == FREE ->
     k = 1;
     do
     :: k < nreg -> rb[k - 1] = rb[k]; re[k - 1] = re[k]; rt[k - 1] = rt[k]; k++
     :: else -> break
     od;
     nreg--; rb[nreg] = 0; re[nreg] = 0; rt[nreg] = 0
  :: else -> break
  od;
  ring_tail()
}

#ifndef MUTANT_RELEASE_LIVE
#define can_release(nn) (budget > 0 && head - split >= (nn) && (nn) <= SLOTS && (nn) <= MAXOFF && \
                         (phase == DISABLED || ATT(rd) >= o_ms))
#else
#define can_release(nn) (budget > 0 && head - split >= (nn) && (nn) <= SLOTS && (nn) <= MAXOFF)
#endif

proctype Owner() {
  byte phase = LIVE;
  int  rd = 0;                   /* read_: the word at an instant after the owner's last add */
  byte o_start, o_off, o_ep, o_skip, o_ms;  /* live offer; o_ms = max_steals(o_off) */
  byte split, head, pushed;      /* private tasks [split, head); logical index i in slot i % SLOTS */
  byte budget = MAXREL;
  byte claimed[2];               /* claimed_: cumulative tasks claimed per epoch */
  bool open[2], retired[2];
  byte rb[MAXR], re[MAXR], rt[MAXR]; /* regions_: [rb, re) is freed when epoch rt retires */
  byte nreg;
  byte rtail;                    /* ring_tail(), recomputed after every owner step */
#ifdef MUTANT_NO_EPOCH_WAIT
  byte otail;                    /* ring_tail() without the regions */
#endif
  byte e;

  d_step { open[0] = true; retired[1] = true; ring_tail() };
  do
  /* push a new task at head, if may_write(head) */
  :: d_step {
       pushed < NTASKS && may_write(head) ->
#ifndef NO_WRITE_CHECK
       assert(inflight[head % SLOTS] == 0);   /* never overwrite a slot of an unfinished steal */
#endif
       ring[head % SLOTS] = pushed;
       head++; pushed++
     }
  /* pop the newest private task and run it */
  :: d_step { head > split -> head--; take(ring[head % SLOTS]) }
  /* release the n oldest private tasks, any n the C++ accepts */
  :: d_step { can_release(1) -> release(1) }
  :: d_step { can_release(2) -> release(2) }
  :: d_step { can_release(3) -> release(3) }
  :: d_step { can_release(4) -> release(4) }
  /* acquire: disable_addend(), the fetch-add, on_disabled(fetched) */
  :: d_step {
       phase == LIVE ->
#ifndef MUTANT_NO_DISABLE
       pending = (EP(rd) < 2 -> (2 << EP_SHIFT) : 0);
#else
       pending = 0;
#endif
       fetched = word; word = (word + pending) & WMASK;
       check(fetched);
       rd = (fetched + pending) & WMASK;
       close_claims(ATT(fetched));
       split = cl_e;
       phase = DISABLED;
       k = cl_e;                 /* reclaimed [claimed.end, offer end): private again */
       do
       :: k < o_start + o_off -> assert(!g_claimed[k]); k++   /* never a claimed task */
       :: else -> break
       od;
       ring_tail()
     }
  /* observe(): an MPI_NO_OP read of the word, live or disabled; modelled
     when it shows a word other than rd (otherwise it changes nothing) */
  :: d_step { word != rd -> check(word); rd = word }
  /* progress(): read the completion counters (MPI_NO_OP), retire finished
     epochs. One step per epoch that retires: a progress() call that retires
     both is the two steps back to back, one whose reads show nothing new
     changes nothing and is left out. Both counters only grow, so reading
     them at different instants gives nothing else. */
  :: d_step { retirable(0) -> retire(0) }
  :: d_step { retirable(1) -> retire(1) }
  /* done: everything pushed and run or stolen, offer disabled, every claim retired */
  :: d_step {
       pushed == NTASKS && head == split && phase == DISABLED && rtail == split ->
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

/* SwsSteal's fetch_add step: MPI_Fetch_and_op(STEAL, MPI_SUM), claim_of(),
   mode_after_fetch(). The ghosts record the claimed logical indices and the
   version (task id) of each claimed slot. */
inline fetch_add() {
  fold = word; word = (word + STEAL) & WMASK;
  assert(ATT(word) == ATT(fold) + 1);                  /* no carry out of the attempts field */
  assert(ATT(word) <= DAMP_BOUND);                     /* the damping bound */
  if
  :: EP(fold) < 2 && ATT(fold) < MS(OFF(fold)) ->                 /* claim_of(fold).ok() */
     prefix(OFF(fold), ATT(fold), t1);
     c_off = t1;
     c_cnt = ((OFF(fold) - t1) / 2 > 1 -> (OFF(fold) - t1) / 2 : 1);
     c_ep = EP(fold); c_st = ST(fold);
     assert(c_st == g_base % SLOTS);
     k = 0;
     do
     :: k < c_cnt ->
        assert(!g_claimed[g_base + c_off + k]);       /* no block handed out twice */
        g_claimed[g_base + c_off + k] = true;
        vers[k] = ring[(c_st + c_off + k) % SLOTS];
        inflight[(c_st + c_off + k) % SLOTS]++;
        k++
     :: else -> break
     od;
     emode = false
  :: else ->
     c_cnt = 0;
#ifndef MUTANT_NO_DAMPING
     emode = !(EP(fold) < 2 && ATT(fold) < T)         /* mode_after_fetch() */
#else
     emode = false
#endif
  fi
}

proctype Thief() {
  bool emode = false;            /* damping: target in empty mode */
  bool worth = false;            /* the last probe showed a block */
  byte c_ep, c_st, c_off, c_cnt; /* the claim: epoch, start slot, block offset and count */
  byte j;                        /* slots copied */
  byte vers[MAXBLK];             /* ghost: version of each claimed slot at the claim */

  do
  :: owner_done && c_cnt == 0 -> break
  /* full mode: fetch-add at once */
  :: d_step { !owner_done && !emode && !worth && c_cnt == 0 -> fetch_add() }
  /* empty mode: probe first (MPI_NO_OP). Only probes that show a block are
     modelled: a probe that shows none changes nothing (it would be a
     self-loop), so a state where only such probes remain is a deadlock */
  :: d_step {
       !owner_done && emode && !worth && c_cnt == 0 &&
       EP(word) < 2 && ATT(word) < MS(OFF(word)) ->     /* worth_stealing() */
       worth = true
     }
  :: d_step { worth -> worth = false; fetch_add() }
  /* MPI_Get of the block, one slot per step: the owner may write in between */
  :: d_step { j < c_cnt -> assert(ring[(c_st + c_off + j) % SLOTS] == vers[j]); j++ }
  /* copy flushed: version of every slot unchanged since the claim; the tasks
     are the thief's; MPI_Accumulate(c_cnt, MPI_SUM) into completion[c_ep] */
  :: d_step {
       c_cnt > 0 && j == c_cnt ->
       j = 0;
       do
       :: j < c_cnt ->
          assert(ring[(c_st + c_off + j) % SLOTS] == vers[j]);  /* not overwritten while claimed */
          take(vers[j]);
          inflight[(c_st + c_off + j) % SLOTS]--;
          vers[j] = 0;
          j++
       :: else -> break
       od;
       completion[c_ep] = completion[c_ep] + c_cnt;
       c_ep = 0; c_st = 0; c_off = 0; c_cnt = 0; j = 0
     }
  od;
  quit++
}

init {
  atomic {
    run Owner();
    run Thief(); run Thief();
#if NTHIEVES >= 3
    run Thief();
#endif
  }
}

/* termination: every run ends with the owner done and every thief stopped */
ltl terminates { <> (owner_done && quit == NTHIEVES) }
