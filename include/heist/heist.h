/* heist — work-stealing task runtime. The C API, after HotSLAW's task
 * library (HotSLAW Figure 1): a task is a function `void f(void* in, void* out)`
 * registered with its input and output sizes; put copies the input into the
 * task and the output is written by the time wait returns.
 *
 *   heist_taskq_t* q = heist_taskq_all_alloc(1, fib, sizeof(int), sizeof(long));
 *   heist_taskq_put(q, fib, &n, &result);
 *   heist_taskq_wait(q);
 *   heist_taskq_free(q);
 *
 * All calls are made from the thread that called heist_taskq_all_alloc or
 * from inside a task. Functions returning int return a negative value on
 * error, with the reason in heist_last_error().
 */
#ifndef HEIST_H
#define HEIST_H

#include "heist/detail/mpi_link.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct heist_taskq heist_taskq_t;
typedef void (*heist_task_fn)(void* in, void* out);

/* Configuration, before heist_taskq_all_alloc (afterwards: -1). Defaults
 * come from the HEIST_* environment variables. */
int heist_taskq_set_workers(int workers);
int heist_taskq_set_policy(const char* policy); /* help-first|inline|bounded|slaw|work-first|adaptive */
int heist_taskq_set_queue_bound(int bound);
int heist_taskq_set_chunk(const char* chunk); /* "K" or "half" */

/* Start the runtime and register nfunc task functions, given as nfunc
 * triples (heist_task_fn func, size_t input_size, size_t output_size): pass
 * sizeof(...) or a size_t, not a plain int (variadic arguments are not
 * converted). Returns NULL on error (bad arguments, a runtime already running,
 * an invalid, empty or unknown HEIST_* variable), the reason in heist_last_error(). */
heist_taskq_t* heist_taskq_all_alloc(int nfunc, ...);

/* Create a task of a registered function; `in` (input_size bytes) is copied.
 * The task may run inline (bounded queues). 0 on success; a task that ran
 * inline and failed (a C++ function that threw) makes it return -1, its
 * message in heist_last_error(). */
int heist_taskq_put(heist_taskq_t* q, heist_task_fn func, void* in, void* out);

/* Run one task from the caller's own queue: 1 if one ran, 0 if empty. */
int heist_taskq_execute(heist_taskq_t* q);

/* One steal attempt from another worker: the number of tasks taken. */
int heist_taskq_steal(heist_taskq_t* q);

/* Wait until every task the caller put has completed (executing and
 * stealing meanwhile). 0 when all of them succeeded: their outputs are
 * written. -1 when one failed (a C++ function that threw, wherever it ran):
 * every one has still completed, and heist_last_error() holds the failure's
 * message (the first recorded, when several failed). */
int heist_taskq_wait(heist_taskq_t* q);

/* Tasks put after the fence start only after those put before it complete.
 * 0, or -1 with the reason in heist_last_error(). */
int heist_taskq_fence(heist_taskq_t* q);

/* 1 if no task exists anywhere (queued, waiting or running), else 0. */
int heist_taskq_all_is_empty(heist_taskq_t* q);

/* Stop the runtime. */
void heist_taskq_free(heist_taskq_t* q);

/* The message of the last error on this thread ("" if none). */
const char* heist_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HEIST_H */
