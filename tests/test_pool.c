/*
 * test_pool.c — the thread pool runs every task exactly once, with worker
 * ids in range, for many pool sizes and task counts, including nested runs.
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "cuzk/pool.h"
#include "testutil.h"

typedef struct {
    atomic_int *hits;
    int nthreads;
    atomic_int bad_worker;
    cuzk_pool *pool;
} ctx_t;

static void count_task(void *c, size_t t, int w)
{
    ctx_t *x = c;
    atomic_fetch_add(&x->hits[t], 1);
    if (w < 0 || w >= x->nthreads)
        atomic_fetch_add(&x->bad_worker, 1);
}

static void nested_task(void *c, size_t t, int w)
{
    ctx_t *x = c;
    cuzk_pool_run(x->pool, 3, count_task, c); /* runs inline */
    (void)t, (void)w;
}

int main(void)
{
    test_rng_init("test_pool");
    const int sizes[] = {1, 2, 3, 8};
    for (int s = 0; s < 4; s++) {
        cuzk_pool *p = cuzk_pool_new(sizes[s]);
        CHECK(p != NULL, "pool_new(%d)", sizes[s]);
        CHECK(cuzk_pool_size(p) == sizes[s], "pool size %d", sizes[s]);
        for (int rep = 0; rep < 50; rep++) {
            size_t n = (size_t)(test_rand64() % 1000);
            atomic_int *hits = calloc(n + 1, sizeof *hits);
            ctx_t c = {hits, sizes[s], 0, p};
            cuzk_pool_run(p, n, count_task, &c);
            int ok = 1;
            for (size_t i = 0; i < n; i++)
                ok &= hits[i] == 1;
            CHECK(ok && hits[n] == 0, "every task exactly once (threads %d, n %zu)", sizes[s], n);
            CHECK(c.bad_worker == 0, "worker ids in range");
            free(hits);
        }
        atomic_int hits[3] = {0};
        ctx_t c = {hits, sizes[s], 0, p};
        cuzk_pool_run(p, 5, nested_task, &c);
        CHECK(hits[0] == 5 && hits[1] == 5 && hits[2] == 5, "nested runs execute inline");
        cuzk_pool_free(p);
    }
    CHECK(cuzk_pool_size(NULL) == 1, "NULL pool has one thread");
    return test_finish("test_pool");
}
