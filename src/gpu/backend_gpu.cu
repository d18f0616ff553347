/*
 * backend_gpu.cu — the engine's CUDA backend (cuzk/engine.h, cuzk/gpu_prove.h).
 *
 * Device state lives at two levels. Per (proving key, device): the resident
 * key (cuzk_gpu_pk, uploaded on the first partition of that key on that
 * device) and, with device evaluation, its circuit; both kept in the
 * backend's table until the engine drops the key (key_free). Per GPU worker:
 * its device, its CPU pool and one cuzk_gpu_prover, bound to the key of the
 * partition in hand (cuzk_gpu_prover_bind) and made for the largest shape of
 * the keys planned on its device, so several circuits share a device's
 * provers instead of bringing their own (a full PoRep prover is ≈ 32 GiB).
 * At a key's first load on a device its vectors are planned (key_fit.h): all
 * resident when they fit beside its circuit, the provers' growth to its shape
 * and what earlier plans promised to provers not yet made, and within
 * key_vram; else the most bytes of them that do, the rest streamed from
 * page-locked host memory (cuzk_gpu_pk_load_mixed); else refused with the
 * sizes. A device left with no key frees its workers' provers. The table's
 * lock is taken to find, add or drop an entry and to read or set a loaded
 * key's sizes, never around a load: a key's first load on a device (its plan,
 * the uploads) and every prover bind hold that device's load lock, so devices
 * load their keys side by side while two loads on one device (two workers,
 * two keys) plan one after the other against what the other left.
 *
 * Phases: `pre` (outside the device lock), with device evaluation, loads what
 * is missing and copies the partition's z into the worker's prover, packed
 * when synthesis packed it (cuzk_gpu_prover_put_zpack: ≈ 90 MB instead of
 * 4.17 GB for a PoRep partition, expanded on the device), so with two GPU
 * workers the copy of one partition runs beside the kernels of the other,
 * and with one it is short. `device` runs
 * cuzk_gpu_groth16_prove with the verification off (the engine verifies),
 * marking one kernel stage "prove", and then records the prover's own
 * device stages (upload, eval, h, msm_h, msm_l, msm_a, msm_b1, msm_b2, from
 * its CUDA events) as kernel stages nested in it. With device evaluation (the default:
 * device_eval and prefer_device_eval are set) the part's a, b, c are NULL:
 * the circuit's matrices are made resident beside the key (cuzk_gpu_cs,
 * loaded with it on the device's first partition) and only z crosses; the
 * device checks the witness when the engine asks (p->check). With host
 * evaluation it hands the prover the a, b, c that synthesis computed
 * (opts.abc, witness check already done), uploaded from the engine's buffers
 * as they are. Partition buffers are pinned (cudaHostAlloc, portable), so the uploads
 * run at full PCIe speed.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/engine.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/setup.h"
#include "cuzk/timeline.h"
#define GPU_MODULE "gpu backend"
#include "gpu/cuda_check.cuh"
#include "gpu/key_fit.h"

#define GPU_MAX_WORKERS 64 /* GPU workers per device */
#define GPU_MAX_DEVICES 64 /* device numbers 0..63 (cuzk_engine_config.device_mask) */
#define KEY_FIT_RESERVE ((uint64_t)512 << 20) /* device bytes a key's plan leaves free (key_fit.h) */
/* what a plan with group tables leaves free beyond that: tables are a speed-up, never worth a device on
 * the edge of its memory (on the H200, 143,771 MiB, a peak within 130 GiB) */
#define KEY_TABLE_HEADROOM ((uint64_t)8 << 30)

typedef struct key_entry {
    const cuzk_groth16_params *pk;
    int dev;
    cuzk_gpu_pk *gpk;
    size_t resident;                           /* gpk's device bytes (its resident vectors) */
    bool whole;                                /* every vector resident (else some are streamed) */
    unsigned table_k;                          /* its witness vectors held as group tables of k; 0: not */
    cuzk_gpu_cs *gcs;                          /* device evaluation only */
    struct key_entry *next;
} key_entry;

typedef struct gpu_worker {
    int dev, worker;
    cuzk_pool *pool;
    cuzk_gpu_prover *pr; /* the worker's prover, bound to one key at a time (device load lock) */
    uint64_t bound;      /* the device's prover target (prover_target) at its last bind: what plans counted */
    struct gpu_worker *next;
} gpu_worker;

typedef struct {
    pthread_mutex_t lock;                  /* the table: entries and their gpk / resident / whole, workers */
    pthread_mutex_t load[GPU_MAX_DEVICES]; /* per device: first loads, plans, prover binds, shape and nz */
    key_entry *keys;
    gpu_worker *workers;
    cuzk_gpu_shape shape[GPU_MAX_DEVICES]; /* what the device's provers are made for: the largest lengths of
                                              the keys planned there, n_z the longest witness (device
                                              evaluation) */
} gpu_ctx;

static gpu_ctx g_ctx; /* its mutexes are made with the backend (cuzk_engine_backend_gpu) */

/* Device bytes of the keys resident on dev, and how many are streamed there. */
static uint64_t keys_on(int dev, unsigned *streamed)
{
    uint64_t bytes = 0;
    *streamed = 0;
    pthread_mutex_lock(&g_ctx.lock);
    for (const key_entry *e = g_ctx.keys; e; e = e->next)
        if (e->dev == dev && e->gpk) {
            bytes += e->resident;
            *streamed += !e->whole;
        }
    pthread_mutex_unlock(&g_ctx.lock);
    return bytes;
}

/* Device bytes each prover on dev is planned to hold: its buffers for the device's shape (0 before any
 * plan there). The caller holds the device's load lock. */
static uint64_t prover_target(int dev)
{
    const cuzk_gpu_shape *s = &g_ctx.shape[dev];
    if (!s->n_h && !s->n_l && !s->n_a && !s->n_b && !s->n_z && !s->stage_bytes)
        return 0;
    return cuzk_gpu_prover_bytes_shape(s);
}

static int gpu_worker_new(void *ctx, int dev, int worker, cuzk_pool *pool, void **state, char *err,
                          size_t errlen)
{
    if (dev < 0 || dev >= GPU_MAX_DEVICES)
        return cuzk_fail(err, errlen, CUZK_EINVAL, GPU_MODULE ": device %d outside 0..%d", dev,
                         GPU_MAX_DEVICES - 1);
    CU(cudaSetDevice(dev), "cudaSetDevice");
    gpu_worker *w = (gpu_worker *)calloc(1, sizeof *w);
    if (!w)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    w->dev = dev, w->worker = worker, w->pool = pool;
    pthread_mutex_lock(&g_ctx.lock);
    w->next = g_ctx.workers;
    g_ctx.workers = w;
    pthread_mutex_unlock(&g_ctx.lock);
    *state = w;
    return CUZK_OK;
}

static void gpu_worker_free(void *ctx, void *state)
{
    gpu_worker *w = (gpu_worker *)state;
    pthread_mutex_lock(&g_ctx.load[w->dev]);
    pthread_mutex_lock(&g_ctx.lock);
    for (gpu_worker **pp = &g_ctx.workers; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    pthread_mutex_unlock(&g_ctx.lock);
    pthread_mutex_unlock(&g_ctx.load[w->dev]);
    if (w->pr) {
        cudaSetDevice(w->dev);
        cuzk_gpu_prover_free(w->pr);
    }
    free(w);
}

static uint64_t gpu_part_bytes(void *ctx, const cuzk_groth16_params *pk, const cuzk_cs *cs, bool device_eval)
{
    if (device_eval) /* nothing on the host beyond the witness: evaluation and gathers run on the device */
        return 0;
    unsigned lg = 0;
    if (cuzk_groth16_domain_lg(&lg, cs, NULL, 0) != CUZK_OK)
        lg = 31;
    uint64_t m = (uint64_t)1 << lg, n = cs->n_inputs + cs->n_aux;
    /* the host side of cuzk_gpu_groth16_prove: a, b, c, the gathered A/B scalars, density bitmaps */
    return 3 * m * sizeof(cuzk_fr) + (uint64_t)(pk->n_a + pk->n_b) * sizeof(cuzk_fr) + 3 * (n / 8 + 64);
}

/* The entry of (pk, dev), created when missing; NULL when out of memory. */
static key_entry *entry_of(gpu_ctx *c, const cuzk_groth16_params *pk, int dev)
{
    pthread_mutex_lock(&c->lock);
    key_entry *e = c->keys;
    while (e && !(e->pk == pk && e->dev == dev))
        e = e->next;
    if (!e && (e = (key_entry *)calloc(1, sizeof *e))) {
        e->pk = pk, e->dev = dev;
        e->next = c->keys;
        c->keys = e;
    }
    pthread_mutex_unlock(&c->lock);
    return e;
}

/* The partition's failure when the key fits not even wholly streamed: what to change first (the message
 * may be cut at the engine's 256 bytes), then the sizes. */
static int refuse(const key_entry *e, const key_fit_in *in, char *err, size_t errlen)
{
    const double G = 1073741824.0;
    unsigned streamed;
    uint64_t on = keys_on(e->dev, &streamed);
    char others[64] = "", advice[128];
    if (on || streamed)
        snprintf(others, sizeof others, "; other keys %.2f GiB", on / G);
    unsigned fit = key_fit_workers(in);
    if (fit)
        snprintf(advice, sizeof advice,
                 "it fits with %u (--gpu-workers %u; cuzkd: gpus.gpu_workers_per_device)", fit, fit);
    else
        snprintf(advice, sizeof advice,
                 "not even with one: use host evaluation or other devices (--device-ids)");
    return cuzk_fail(
        err, errlen, CUZK_ENOMEM,
        "device %d: no room for this key with %u GPU worker%s (%.2f GiB free%s); %s. It needs "
        "%.2f GiB resident or %.2f streamed (key %.2f, circuit %.2f, prover growth %.2f + staging "
        "%.2f each)",
        e->dev, in->workers, in->workers == 1 ? "" : "s", in->free / G, others, advice,
        key_fit_need(in, KEY_FIT_ALL) / G, key_fit_need(in, 0) / G, key_fit_resident(in, KEY_FIT_ALL) / G,
        in->circuit / G, in->prover / G, 2.0 * key_fit_stage(in, 0) / G);
}

/* Which of e's key's vectors stay resident on its device (the caller holds the device's load lock, at the
 * key's first load there: once per key and device, not per proof, so the device's free memory is read here).
 * CUZK_GPU_FREE_BYTES, when set, stands for a smaller device (tests). CUZK_ENOMEM, with the sizes, when
 * the key fits not even wholly streamed. *shape: the device's prover shape with this key's lengths. */
static int plan_key(const key_entry *e, const cuzk_engine_part *p, bool dev_eval, key_fit_in *in,
                    unsigned *mask, cuzk_gpu_shape *shape, char *err, size_t errlen)
{
    size_t free_b = 0, total_b = 0;
    CU(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    const char *limit = getenv("CUZK_GPU_FREE_BYTES");
    if (limit && *limit) {
        char *end = NULL;
        unsigned long long v = strtoull(limit, &end, 10);
        if (*end || limit[0] == '-')
            return cuzk_fail(err, errlen, CUZK_EINVAL, GPU_MODULE ": CUZK_GPU_FREE_BYTES '%s' is not a byte count",
                             limit);
        if (v < free_b)
            free_b = (size_t)v;
    }
    unsigned streamed;
    uint64_t on = keys_on(e->dev, &streamed);
    const cuzk_groth16_params *pk = e->pk;
    /* The device's workers share provers across keys, each made for the largest shape planned there: this
     * key adds the provers' growth to that shape, and what earlier plans counted for provers not yet made
     * (a worker that has not proved since) is not free. */
    uint64_t old = prover_target(e->dev), promised = 0;
    unsigned workers = 0;
    pthread_mutex_lock(&g_ctx.lock);
    for (const gpu_worker *w = g_ctx.workers; w; w = w->next)
        if (w->dev == e->dev) {
            workers++;
            promised += w->bound < old ? old - w->bound : 0;
        }
    pthread_mutex_unlock(&g_ctx.lock);
    const cuzk_gpu_shape *cur = &g_ctx.shape[e->dev];
    size_t nz = dev_eval ? p->n_z : 0;
    cuzk_gpu_shape mine = {pk->n_h, pk->n_l, pk->n_a, pk->n_b, nz, 0, cuzk_groth16_domain_size(pk)};
    *shape = cuzk_gpu_shape_max(*cur, mine);
    /* staging buffers: key_fit counts two a worker for the vectors this key streams, in full (the
     * provers' own may already be as large: conservative); the caller adds them to the shape */
    uint64_t grown = cuzk_gpu_prover_bytes_shape(shape);
    memset(in, 0, sizeof *in);
    in->free = free_b > promised ? free_b - promised : 0;
    size_t vec[KEY_FIT_VECTORS];
    cuzk_gpu_pk_vector_bytes(pk, vec);
    for (int i = 0; i < KEY_FIT_VECTORS; i++)
        in->vec[i] = vec[i];
    in->circuit = dev_eval ? cuzk_gpu_cs_bytes(p->cs) : 0;
    in->prover = grown > old ? grown - old : 0;
    in->stage_cap = CUZK_GPU_STAGE_BYTES;
    in->stage_min = sizeof(cuzk_g2_affine);
    in->reserve = KEY_FIT_RESERVE;
    in->workers = workers ? workers : 1;
    in->resident_cap = !p->key_vram ? UINT64_MAX : on >= p->key_vram ? 0 : p->key_vram - on;
    for (unsigned k = 2; k <= KEY_FIT_TABLE_MAX_K; k++) {
        cuzk_gpu_pk_table_bytes(pk, k, vec);
        for (int i = 0; i < KEY_FIT_VECTORS; i++)
            in->table[k][i] = vec[i];
    }
    in->table_headroom = KEY_TABLE_HEADROOM;
    if (key_fit_plan(in, mask) != KEY_FIT_NONE)
        return CUZK_OK;
    return refuse(e, in, err, errlen);
}

/* The resident key (loaded once per device, under the device's load lock), the resident circuit when cs is
 * given (device evaluation; same), and this worker's prover bound to e's key (made, or grown to the
 * device's shape, under the same lock, so plans see what the provers hold). */
static int entry_prover(key_entry *e, gpu_worker *w, const cuzk_engine_part *p, bool dev_eval,
                        cuzk_gpu_pk **gpk, cuzk_gpu_cs **gcs, cuzk_gpu_prover **out, char *err, size_t errlen)
{
    if (w->worker < 0 || w->worker >= GPU_MAX_WORKERS)
        return cuzk_fail(err, errlen, CUZK_EINVAL, GPU_MODULE ": worker %d outside 0..%d", w->worker,
                         GPU_MAX_WORKERS - 1);
    int rc = CUZK_OK;
    pthread_mutex_lock(&g_ctx.load[e->dev]);
    if (!e->gpk) {
        /* resident when it fits within key_vram and beside what the device must still hold (key_fit.h),
         * else streamed from the host; refused when even that does not fit */
        key_fit_in in;
        unsigned mask = 0;
        cuzk_gpu_pk *gpk_new = NULL;
        cuzk_gpu_shape shape;
        unsigned table_k = 0;
        rc = plan_key(e, p, dev_eval, &in, &mask, &shape, err, errlen);
        if (rc == CUZK_OK && mask == KEY_FIT_ALL && p->key_tables)
            table_k = key_fit_tables(&in, p->key_tables);
        if (table_k) { /* tables where they fit; the plain key when they could not be made after all (no
                        * device memory, no host memory for a chunk), unless the device itself failed */
            rc = cuzk_gpu_pk_load_tables(&gpk_new, e->pk, table_k, w->pool, err, errlen);
            if (rc != CUZK_OK && rc != CUZK_EDEVICE)
                table_k = 0, rc = CUZK_OK, err[0] = 0;
            else if (rc == CUZK_OK)
                for (int i = 0; i < KEY_FIT_VECTORS; i++)
                    in.vec[i] = in.table[table_k][i]; /* what e->resident counts */
        }
        if (rc == CUZK_OK && !gpk_new) {
            rc = cuzk_gpu_pk_load_mixed(&gpk_new, e->pk, mask, 0, err, errlen);
            if (rc == CUZK_ENOMEM && mask) { /* the plan's resident part did not fit after all */
                mask = 0;
                rc = key_fit_fits(&in, 0) ? cuzk_gpu_pk_load_streamed(&gpk_new, e->pk, 0, err, errlen)
                                          : refuse(e, &in, err, errlen);
            }
        }
        if (rc == CUZK_OK) {
            if (mask != KEY_FIT_ALL) { /* the provers' staging buffers, as the loader sized them */
                size_t st = cuzk_gpu_stage_bytes(e->pk, mask);
                shape.stage_bytes = st > shape.stage_bytes ? st : shape.stage_bytes;
            }
            g_ctx.shape[e->dev] = shape;
            pthread_mutex_lock(&g_ctx.lock);
            e->gpk = gpk_new;
            e->resident = key_fit_resident(&in, mask);
            e->whole = mask == KEY_FIT_ALL;
            e->table_k = table_k;
            pthread_mutex_unlock(&g_ctx.lock);
        }
    }
    if (rc == CUZK_OK && dev_eval && !e->gcs)
        rc = cuzk_gpu_cs_load(&e->gcs, p->cs, p->density, err, errlen);
    if (rc == CUZK_OK) { /* no allocation unless the device's shape grew since this worker's last bind: then
                          * it grows to it at once, so that it holds what plans count for it */
        rc = cuzk_gpu_prover_bind(&w->pr, e->gpk, &g_ctx.shape[e->dev], err, errlen);
        w->bound = rc == CUZK_OK ? prover_target(e->dev) : 0; /* a failed bind leaves the prover empty */
    }
    *gpk = e->gpk;
    *gcs = dev_eval ? e->gcs : NULL;
    *out = w->pr;
    pthread_mutex_unlock(&g_ctx.load[e->dev]);
    return rc;
}

/* This worker's key, circuit and prover for p (loaded on first use). */
static int worker_prover(gpu_worker *w, cuzk_engine_part *p, cuzk_gpu_pk **gpk, cuzk_gpu_cs **gcs,
                         cuzk_gpu_prover **pr, char *err, size_t errlen)
{
    CU(cudaSetDevice(w->dev), "cudaSetDevice");
    key_entry *e = entry_of(&g_ctx, p->pk, w->dev);
    if (!e)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, GPU_MODULE ": out of host memory");
    bool dev_eval = !p->a; /* the engine left the evaluation to the device phase */
    return entry_prover(e, w, p, dev_eval, gpk, gcs, pr, err, errlen);
}

/* Before the lock, with device evaluation: the key's first load and the z upload into this worker's
 * prover, beside the kernels another worker runs under the lock. */
static int gpu_pre(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    if (p->a)
        return CUZK_OK; /* host evaluation: a, b, c go up in the device phase */
    cuzk_gpu_pk *gpk = NULL;
    cuzk_gpu_cs *gcs = NULL;
    cuzk_gpu_prover *pr = NULL;
    int rc = worker_prover((gpu_worker *)state, p, &gpk, &gcs, &pr, err, errlen);
    return rc ? rc : cuzk_gpu_prover_put_zpack(pr, p->z, p->n_z, p->zp, err, errlen);
}

/* The prover's device stages (CUDA events) as kernel stages nested in "prove", so the TIMELINE report
 * gives each its p50/p95: upload .. msm_b1 one after the other from the device's start, msm_b2 beside
 * them. They are placed by the host time the prover saw the device finish (t.end_us), and kept within
 * the call (t0 .. t1). The host's own share of the call goes beside them: host_pre from the call's start
 * to the device's (shape checks, density counts), host_post from the device's end to the return (the
 * epilogue). */
static void device_stages(cuzk_engine_part *p, const cuzk_gpu_prover *pr, int64_t t0, int64_t t1)
{
    cuzk_gpu_prove_times t;
    cuzk_gpu_prover_times(pr, &t);
    int64_t start = t.end_us - (int64_t)(t.total * 1000.0f);
    if (start < t0)
        start = t0;
    if (start > t0)
        cuzk_engine_stage_span(p, "host_pre", t0, start);
    if (t1 > t.end_us && t.end_us >= t0)
        cuzk_engine_stage_span(p, "host_post", t.end_us, t1);
    const struct {
        const char *name;
        float ms;
    } seq[] = {{"upload", t.upload}, {"eval", t.eval},   {"h", t.h},          {"msm_h", t.msm_h},
               {"msm_l", t.msm_l},   {"msm_a", t.msm_a}, {"msm_b1", t.msm_b1}};
    double at = (double)start;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        if (seq[i].ms <= 0)
            continue;
        double end = at + seq[i].ms * 1000.0;
        cuzk_engine_stage_span(p, seq[i].name, (int64_t)at, (int64_t)end);
        at = end;
    }
    if (t.msm_b2 > 0) {
        double b2 = (double)start + t.b2_start * 1000.0;
        cuzk_engine_stage_span(p, "msm_b2", (int64_t)b2, (int64_t)(b2 + t.msm_b2 * 1000.0));
    }
}

static int gpu_device(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    cuzk_gpu_pk *gpk = NULL;
    cuzk_gpu_cs *gcs = NULL;
    cuzk_gpu_prover *pr = NULL;
    gpu_worker *w = (gpu_worker *)state;
    bool dev_eval = !p->a;
    int rc = worker_prover(w, p, &gpk, &gcs, &pr, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    cuzk_prove_opts opts = {};
    opts.flags = CUZK_PROVE_NO_VERIFY;
    opts.pvk = p->pvk;
    if (!dev_eval || !p->check)
        opts.flags |= CUZK_PROVE_NO_CHECK; /* synthesis checked already, or the engine was told not to */
    if (p->a && p->b && p->c && p->n_abc == p->cs->n_constraints) { /* synthesis evaluated them already */
        opts.abc[0] = p->a, opts.abc[1] = p->b, opts.abc[2] = p->c;
    }
    for (int i = 0; i < 3; i++)
        opts.density[i] = p->density[i], opts.density_pop[i] = p->density_pop[i]; /* the key's, once */
    opts.density_counted = true;
    cuzk_engine_stage(p, "prove", false);
    int64_t t0 = cuzk_timeline_clock_us();
    rc = cuzk_gpu_groth16_prove(&p->proof, p->pk, gpk, pr, gcs, p->cs, p->z, &p->r, &p->s, &opts, w->pool,
                                err, errlen);
    int64_t t1 = cuzk_timeline_clock_us();
    cuzk_engine_stage(p, "prove", true);
    if (rc == CUZK_OK)
        device_stages(p, pr, t0, t1);
    return rc;
}

static void *gpu_host_alloc(void *ctx, size_t bytes)
{
    void *p = NULL;
    size_t n = bytes ? bytes : 1;
    /* portable: the engine's pool hands a buffer to whichever device's worker takes the next partition */
    cudaError_t e = cudaHostAlloc(&p, n, cudaHostAllocPortable);
    if (e == cudaSuccess)
        return p;
    cudaGetLastError();
    /* The calling thread's device may be one the engine lost (a fatal error fails every call made through
     * its context, this one included); portable memory can be made through any other device's. */
    for (int d = 0; cuda_error_is_fatal(e) && d < cuzk_gpu_device_count(); d++) {
        if (cudaSetDevice(d) == cudaSuccess && cudaHostAlloc(&p, n, cudaHostAllocPortable) == cudaSuccess)
            return p;
        cudaGetLastError();
    }
    return NULL;
}

static void gpu_host_free(void *ctx, void *ptr, size_t bytes)
{
    if (ptr)
        cudaFreeHost(ptr);
}

static bool device_has_keys(int dev) /* the caller holds the table lock */
{
    for (const key_entry *e = g_ctx.keys; e; e = e->next)
        if (e->dev == dev)
            return true;
    return false;
}

/* Drops pk's entries (their keys and circuits); a device left with no key also frees its workers' provers
 * and forgets its shape, so the next key there is planned and its provers made from nothing: no worker can
 * be using its prover then (a partition in flight on a device keeps its key's entry there). */
static void gpu_key_free(void *ctx, const cuzk_groth16_params *pk)
{
    bool had[GPU_MAX_DEVICES] = {false};
    pthread_mutex_lock(&g_ctx.lock);
    key_entry **pp = &g_ctx.keys;
    while (*pp) {
        key_entry *e = *pp;
        if (e->pk != pk) {
            pp = &e->next;
            continue;
        }
        *pp = e->next;
        had[e->dev] = true;
        cudaSetDevice(e->dev);
        cuzk_gpu_pk_free(e->gpk);
        cuzk_gpu_cs_free(e->gcs);
        free(e);
    }
    pthread_mutex_unlock(&g_ctx.lock);
    for (int d = 0; d < GPU_MAX_DEVICES; d++) {
        if (!had[d])
            continue;
        pthread_mutex_lock(&g_ctx.load[d]); /* the load lock first, as entry_prover takes them */
        pthread_mutex_lock(&g_ctx.lock);
        if (!device_has_keys(d)) {
            cudaSetDevice(d);
            for (gpu_worker *w = g_ctx.workers; w; w = w->next)
                if (w->dev == d) {
                    cuzk_gpu_prover_free(w->pr);
                    w->pr = NULL, w->bound = 0;
                }
            g_ctx.shape[d] = (cuzk_gpu_shape){0, 0, 0, 0, 0, 0, 0};
        }
        pthread_mutex_unlock(&g_ctx.lock);
        pthread_mutex_unlock(&g_ctx.load[d]);
    }
}

extern "C" void cuzk_engine_backend_gpu_keys(int dev, uint64_t *resident_bytes, unsigned *streamed)
{
    *resident_bytes = keys_on(dev, streamed);
}

extern "C" unsigned cuzk_engine_backend_gpu_tables(int dev)
{
    unsigned k = 0;
    pthread_mutex_lock(&g_ctx.lock);
    for (const key_entry *e = g_ctx.keys; e; e = e->next)
        if (e->dev == dev && e->gpk && e->table_k > k)
            k = e->table_k;
    pthread_mutex_unlock(&g_ctx.lock);
    return k;
}

extern "C" const cuzk_engine_backend *cuzk_engine_backend_gpu(void)
{
    static cuzk_engine_backend b;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    static int n_dev;
    pthread_once(&once, [] {
        pthread_mutex_init(&g_ctx.lock, NULL);
        for (int d = 0; d < GPU_MAX_DEVICES; d++)
            pthread_mutex_init(&g_ctx.load[d], NULL);
        n_dev = cuzk_gpu_device_count();
        if (n_dev > GPU_MAX_DEVICES)
            n_dev = GPU_MAX_DEVICES;
        b.name = "gpu";
        b.ctx = &g_ctx;
        b.n_devices = n_dev;
        b.worker_new = gpu_worker_new;
        b.worker_free = gpu_worker_free;
        b.part_bytes = gpu_part_bytes;
        b.pre = gpu_pre;
        b.device = gpu_device;
        b.host_alloc = gpu_host_alloc;
        b.host_free = gpu_host_free;
        b.key_free = gpu_key_free;
        b.device_eval = true;
        b.prefer_device_eval = true;
        b.packed_z = true;
    });
    return n_dev > 0 ? &b : NULL;
}
