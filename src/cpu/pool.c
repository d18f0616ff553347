/*
 * pool.c — the parallel-for thread pool of cuzk/pool.h.
 *
 * One job at a time: run() publishes (fn, ctx, ntasks), bumps a generation
 * counter and wakes the workers; everyone, the caller included, pulls task
 * indices from an atomic counter until they run out. The caller then waits for
 * the workers to check out (`busy` reaches 0) before returning, so no worker
 * can still touch ctx afterwards. A thread-local flag detects nested runs,
 * which execute inline.
 */
#include "cuzk/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

struct cuzk_pool {
    int n;
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t wake, done;
    pthread_mutex_t run_mu; /* serialises concurrent run() callers */
    uint64_t gen;
    int busy;
    bool stop;
    cuzk_task_fn fn;
    void *ctx;
    size_t ntasks;
    atomic_size_t next;
};

typedef struct {
    cuzk_pool *pool;
    int id;
} worker_arg;

static _Thread_local bool in_task;

static void drain(cuzk_pool *p, int id)
{
    size_t t;
    in_task = true;
    while ((t = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed)) < p->ntasks)
        p->fn(p->ctx, t, id);
    in_task = false;
}

static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    cuzk_pool *p = wa->pool;
    int id = wa->id;
    free(wa);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stop && p->gen == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->stop)
            break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        drain(p, id);
        pthread_mutex_lock(&p->mu);
        if (--p->busy == 0)
            pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cuzk_pool *cuzk_pool_new(int nthreads)
{
    if (nthreads <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = c > 0 ? (int)c : 1;
    }
    cuzk_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->n = nthreads;
    p->threads = calloc((size_t)nthreads, sizeof *p->threads);
    if (!p->threads) {
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->run_mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    for (int i = 1; i < nthreads; i++) {
        worker_arg *wa = malloc(sizeof *wa);
        if (!wa || (wa->pool = p, wa->id = i, pthread_create(&p->threads[i], NULL, worker_main, wa))) {
            free(wa);
            p->n = i; /* free() joins the ones already started */
            cuzk_pool_free(p);
            return NULL;
        }
    }
    return p;
}

void cuzk_pool_free(cuzk_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i < p->n; i++)
        pthread_join(p->threads[i], NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_mutex_destroy(&p->run_mu);
    pthread_cond_destroy(&p->wake);
    pthread_cond_destroy(&p->done);
    free(p->threads);
    free(p);
}

int cuzk_pool_size(const cuzk_pool *p) { return p ? p->n : 1; }

void cuzk_pool_run(cuzk_pool *p, size_t ntasks, cuzk_task_fn fn, void *ctx)
{
    if (ntasks == 0)
        return;
    if (!p || p->n == 1 || ntasks == 1 || in_task) {
        for (size_t t = 0; t < ntasks; t++)
            fn(ctx, t, 0);
        return;
    }
    pthread_mutex_lock(&p->run_mu);
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->ntasks = ntasks;
    atomic_store(&p->next, 0);
    p->busy = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    drain(p, 0);
    pthread_mutex_lock(&p->mu);
    while (p->busy > 0)
        pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->run_mu);
}
