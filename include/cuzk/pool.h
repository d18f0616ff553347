/*
 * cuzk/pool.h — a fixed-size pthread pool running blocking parallel-for loops.
 *
 * A pool of n threads is the caller plus n - 1 workers. cuzk_pool_run() hands
 * out task indices 0..ntasks-1 dynamically (an atomic counter, so uneven tasks
 * balance themselves) and returns when all have finished. The worker id passed
 * to the task function is in [0, n) and stable for the duration of the call,
 * so tasks can index per-thread scratch. A run issued from inside a task
 * executes serially on that thread (no deadlock on nesting); runs from
 * different threads are serialised.
 *
 * Every multi-threaded routine in cuzk takes a `cuzk_pool *`; NULL means
 * single-threaded on the calling thread.
 */
#ifndef CUZK_POOL_H
#define CUZK_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_pool cuzk_pool;
typedef void (*cuzk_task_fn)(void *ctx, size_t task, int worker);

/* nthreads <= 0 means one per online CPU. Returns NULL on failure. */
cuzk_pool *cuzk_pool_new(int nthreads);
void cuzk_pool_free(cuzk_pool *pool);
/* Number of threads (1 for a NULL pool). */
int cuzk_pool_size(const cuzk_pool *pool);
void cuzk_pool_run(cuzk_pool *pool, size_t ntasks, cuzk_task_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
