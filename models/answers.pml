/*
 * Success-only answers through answer areas (src/rma/answer_slots.hpp,
 * MailboxBalance in src/rma/mailbox_balance.cpp): NT thief processes and
 * one victim rank V; the area each thief's window keeps for V, its answer
 * word, and each thief's requests at V, NREQ each, one open at a time.
 *
 *   thief t: post request r (requests[t] at V); a poll finds answer word r
 *      (it blocks until then: a poll that finds the old word changes
 *      nothing); read the area's slots one by one; only then may request
 *      r + 1 go out (requested_ is cleared after the read).
 *   V: a poll answers every open request in one round: the puts of all the
 *      round's areas (issued together, they land in any order), one flush
 *      for the round, then each thief's answer word (a lazy flush: each
 *      lands some time later, in any order).
 *
 * Ghost check: every slot holds the number of the answer that wrote it;
 * a thief asserts that each slot it reads holds answer r (no stale slot,
 * no slot of a later answer written while it reads), and V that the word
 * it replaces holds the previous answer (answer numbers never skip). Each
 * answer is taken once (delivered[t].r[r]).
 *
 * Mutants, each a rule of answer_slots.hpp broken:
 *   -DMUTANT_NO_FLUSH     the answer words go out with the puts, no flush
 *                         between: one may land before a slot (a torn read);
 *   -DMUTANT_EARLY_CLEAR  a thief posts its next request before reading the
 *                         area: V's next answer overwrites slots it still reads.
 */
#ifndef NREQ
#define NREQ 3
#endif
#define NT 2              /* the victim's choices below list two thieves' slots and words */

typedef Area { byte slot[2] };     /* the answer that wrote each of its two task slots */
typedef Count { byte r[NREQ + 1] };
Area area[NT];          /* thief t's area for V */
byte word[NT];          /* thief t's answer word for V: answers V sent there */
byte requests[NT];      /* V's requests[t]: requests thief t posted */
Count delivered[NT];
bool victim_done = false;
byte thieves_done = 0;

active proctype victim() {
  byte answered[NT];
  byte t;
  byte served;          /* answers sent in all */
  byte round;           /* bit t: thief t is answered in this round */
  byte pending;         /* bit 2t + i: slot i of thief t's area not landed */
  byte words;           /* bit t: thief t's answer word not landed */
  do
  :: served == NT * NREQ -> break
  :: requests[0] > answered[0] || requests[1] > answered[1] ->
     /* a poll that finds requests open: every one of them, one round */
     atomic {
       round = 0; pending = 0;
       t = 0;
       do
       :: t < NT ->
          if
          :: requests[t] > answered[t] -> answered[t]++; served++; round = round | (1 << t);
                                          pending = pending | (3 << (2 * t))
          :: else -> skip
          fi;
          t++
       :: else -> break
       od
     }
     words = round;
     do
     :: pending != 0 ->           /* one put lands, any of them */
        if
        :: (pending & 1) -> t = 0
        :: (pending & 2) -> t = 1
        :: (pending & 4) -> t = 2
        :: (pending & 8) -> t = 3
        fi;
        area[t / 2].slot[t % 2] = answered[t / 2];
        pending = pending & ~(1 << t)
#ifdef MUTANT_NO_FLUSH
     :: words != 0 ->             /* an answer word lands, flush or not */
#else
     :: pending == 0 && words != 0 ->  /* after the flush: an answer word lands */
#endif
        if
        :: (words & 1) -> t = 0
        :: (words & 2) -> t = 1
        fi;
        assert(word[t] == answered[t] - 1);
        word[t] = answered[t];
        words = words & ~(1 << t)
     :: pending == 0 && words == 0 -> break
     od
  od;
  victim_done = true
}

proctype thief(byte t) {
  byte r = 1;
  requests[t] = 1;                /* request 1 posted */
  do
  :: r > NREQ -> break
  :: else ->
     (word[t] == r);              /* a poll finds answer r */
#ifdef MUTANT_EARLY_CLEAR
     if
     :: r < NREQ -> requests[t] = r + 1
     :: else -> skip
     fi;
#endif
     assert(area[t].slot[0] == r);
     assert(area[t].slot[1] == r);
     delivered[t].r[r]++;
     assert(delivered[t].r[r] == 1);
#ifndef MUTANT_EARLY_CLEAR
     if
     :: r < NREQ -> requests[t] = r + 1   /* requested_ cleared: the next request */
     :: else -> skip
     fi;
#endif
     r++
  od;
  thieves_done++
}

init {
  byte t = 0;
  atomic {
    do
    :: t < NT -> run thief(t); t++
    :: else -> break
    od
  }
}

ltl terminates { <> (victim_done && thieves_done == NT) }
