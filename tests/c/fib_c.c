/* fib_c - a C11 program on the C API (heist.h), HotSLAW style: Fibonacci by
 * put, put, wait, checked against an iterative computation; then fence
 * ordering, all_is_empty, single-step execute/steal, and the error paths.
 *
 *   fib_c WORKERS [N [POLICY]]     (N defaults to 25, POLICY to bounded)
 *
 * Exits 0 when every check passes, 1 otherwise (each failure is printed). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heist/heist.h"

static heist_taskq_t* q;
static int failures;

#define CHECK(cond)                                                   \
  do {                                                                \
    if (!(cond)) {                                                    \
      fprintf(stderr, "fib_c:%d: check failed: %s\n", __LINE__, #cond); \
      ++failures;                                                     \
    }                                                                 \
  } while (0)

/* ------------------------------------------------------------------ fib */

static void fib(void* in, void* out) {
  const int n = *(const int*)in;
  long* result = (long*)out;
  if (n < 2) {
    *result = n;
    return;
  }
  int n1 = n - 1, n2 = n - 2;
  long a = -1, b = -1;
  heist_taskq_put(q, fib, &n1, &a);
  heist_taskq_put(q, fib, &n2, &b);
  heist_taskq_wait(q);
  *result = a + b;
}

static long fib_iter(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

/* ------------------------------------------------------------------ fence */

enum { GENERATIONS = 3, PER_GEN = 60 };
typedef struct {
  int gen;
  int idx;
} gen_in;

static atomic_long seq;
static long gen_start[GENERATIONS][PER_GEN];
static long gen_end[GENERATIONS][PER_GEN];

static void gen_task(void* in, void* out) {
  (void)out;
  gen_in g;
  memcpy(&g, in, sizeof g);
  gen_start[g.gen][g.idx] = atomic_fetch_add(&seq, 1);
  volatile unsigned h = (unsigned)g.idx;
  for (int i = 0; i < 200; ++i) h = h * 31u + 7u;
  gen_end[g.gen][g.idx] = atomic_fetch_add(&seq, 1);
}

/* ------------------------------------------------------------------ sum */

static atomic_long sum;
static void add_task(void* in, void* out) {
  (void)out;
  atomic_fetch_add(&sum, *(const int*)in);
}

static void not_registered(void* in, void* out) {
  (void)in;
  (void)out;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: fib_c WORKERS [N [POLICY]]\n");
    return 2;
  }
  if (strcmp(argv[1], "env-error") == 0) {
    /* fib_c env-error TEXT, run with a bad HEIST_* variable: the
     * allocation fails, and its message holds TEXT. */
    q = heist_taskq_all_alloc(1, fib, sizeof(int), sizeof(long));
    printf("heist_taskq_all_alloc: %s, heist_last_error: %s\n", q == NULL ? "NULL" : "a queue", heist_last_error());
    return q == NULL && argc > 2 && strstr(heist_last_error(), argv[2]) != NULL ? 0 : 1;
  }
  const int workers = atoi(argv[1]);
  int n = argc > 2 ? atoi(argv[2]) : 25;
  const char* policy = argc > 3 ? argv[3] : "bounded";
  /* Puts from the thread that made the runtime are queued under help-first,
   * and under the policies that steal continuations (that thread's stack
   * never moves, so its children run on fibers); inline runs them at once. */
  const int help_first = strcmp(policy, "help-first") == 0 || strcmp(policy, "work-first") == 0 ||
                         strcmp(policy, "adaptive") == 0;
  const int inline_child = strcmp(policy, "inline") == 0;

  /* Configuration errors before allocation. */
  CHECK(heist_taskq_set_workers(-1) < 0);
  CHECK(strlen(heist_last_error()) > 0);
  CHECK(heist_taskq_set_policy("foo") < 0);
  CHECK(heist_taskq_set_chunk("0") < 0);
  CHECK(heist_taskq_set_queue_bound(0) < 0);
  CHECK(heist_taskq_execute(NULL) < 0); /* no runtime yet */

  CHECK(heist_taskq_set_workers(workers) == 0);
  CHECK(heist_taskq_set_policy(policy) == 0);
  CHECK(heist_taskq_set_queue_bound(40) == 0);
  CHECK(heist_taskq_set_chunk("half") == 0);

  /* heist_taskq_all_alloc reads each size as a size_t (heist.h). */
  q = heist_taskq_all_alloc(3, fib, sizeof(int), sizeof(long), gen_task, sizeof(gen_in), (size_t)0, add_task,
                            sizeof(int), (size_t)0);
  if (q == NULL) {
    fprintf(stderr, "fib_c: heist_taskq_all_alloc failed: %s\n", heist_last_error());
    return 1;
  }
  CHECK(heist_taskq_set_workers(2) < 0); /* too late */
  CHECK(heist_taskq_all_alloc(1, fib, sizeof(int), sizeof(long)) == NULL);
  CHECK(heist_taskq_all_is_empty(q) == 1);

  /* fib */
  long result = -1;
  CHECK(heist_taskq_put(q, fib, &n, &result) == 0);
  heist_taskq_wait(q);
  if (result != fib_iter(n)) {
    fprintf(stderr, "fib_c: fib(%d) = %ld, expected %ld\n", n, result, fib_iter(n));
    ++failures;
  }
  CHECK(heist_taskq_all_is_empty(q) == 1);

  /* fence: generation g + 1 starts after generation g completed. */
  for (int g = 0; g < GENERATIONS; ++g) {
    for (int i = 0; i < PER_GEN; ++i) {
      gen_in in = {g, i};
      CHECK(heist_taskq_put(q, gen_task, &in, NULL) == 0);
    }
    heist_taskq_fence(q);
  }
  heist_taskq_wait(q);
  for (int g = 0; g + 1 < GENERATIONS; ++g) {
    long max_end = -1, min_next = -1;
    for (int i = 0; i < PER_GEN; ++i) {
      if (gen_end[g][i] > max_end) max_end = gen_end[g][i];
      if (min_next < 0 || gen_start[g + 1][i] < min_next) min_next = gen_start[g + 1][i];
    }
    if (!(max_end < min_next)) {
      fprintf(stderr, "fib_c: generation %d started (tick %ld) before generation %d ended (tick %ld)\n", g + 1,
              min_next, g, max_end);
      ++failures;
    }
  }
  CHECK(atomic_load(&seq) == 2L * GENERATIONS * PER_GEN);

  /* Single steps: put 20 tasks and run what was queued one by one (other
   * workers may steal some). Help-first queues all 20; bounded queues at
   * least the first (the private queue is empty); inline none. */
  long expected_sum = 0;
  for (int i = 1; i <= 20; ++i) {
    CHECK(heist_taskq_put(q, add_task, &i, NULL) == 0);
    expected_sum += i;
  }
  CHECK(heist_taskq_all_is_empty(q) == (inline_child ? 1 : 0));
  int executed = 0, r;
  while ((r = heist_taskq_execute(q)) == 1) ++executed;
  CHECK(r == 0);
  CHECK(executed <= 20);
  const int stolen = heist_taskq_steal(q);
  CHECK(stolen >= 0);
  if (workers == 1) {
    if (help_first) CHECK(executed == 20);
    else if (inline_child) CHECK(executed == 0);
    else CHECK(executed >= 1);
    CHECK(stolen == 0);
    CHECK(heist_taskq_all_is_empty(q) == 1);
  }
  while (heist_taskq_execute(q) == 1) {
  }
  heist_taskq_wait(q);
  CHECK(atomic_load(&sum) == expected_sum);
  CHECK(heist_taskq_all_is_empty(q) == 1);

  /* Error path: a function that was not registered. */
  int x = 1;
  CHECK(heist_taskq_put(q, not_registered, &x, NULL) == -1);
  CHECK(strlen(heist_last_error()) > 0);
  CHECK(strstr(heist_last_error(), "not registered") != NULL);
  CHECK(heist_taskq_put(NULL, fib, &x, &result) == -1);

  heist_taskq_free(q);
  if (failures != 0) {
    fprintf(stderr, "fib_c: %d check(s) failed\n", failures);
    return 1;
  }
  printf("fib_c: workers=%d policy=%s fib(%d)=%ld ok\n", workers, policy, n, result);
  return 0;
}
