/*
 * engine.c — the proving engine of cuzk/engine.h (docs/design/012-engine.md).
 *
 * Shape. One engine mutex `mu` guards every shared structure: the job list,
 * the pending list, the three queues, the budget counters, the buffer pool
 * and the statistics. Work moves between threads as `slot`s (one partition
 * in flight), each holding its buffers and its still-reserved bytes:
 *
 *   submit ─► pending jobs ─► dispatcher ─► synth_q ─► synth workers ─► gpu_q (bounded)
 *         ─► GPU workers (pre; device lock: device) ─► post_q ─► post workers ─► job->proofs[]
 *
 * Nothing slow runs under `mu`: callbacks, evaluation, backend phases,
 * verification, allocation and freeing all happen with it released. The
 * per-device locks are separate and are only taken by GPU workers around
 * the backend's device phase; `mu` is never acquired while waiting on one
 * (a device lock holder may take `mu` briefly, never the reverse).
 *
 * Ordering. Jobs with undispatched partitions sit on `pending`, sorted by
 * (priority desc, id asc); a job's partitions leave it in index order, so
 * the head of the list gives the next partition. The dispatcher moves one
 * partition at a time, and only when a synthesis worker is idle and the
 * budget has room for the partition's whole working set; it re-reads the
 * head after every wait, so a later, more urgent job goes first. The GPU
 * queue is small and hands out its minimum by the same key.
 *
 * Memory. `used` counts key bytes (reserved at key registration) and the
 * working sets of dispatched partitions. A slot's bytes come back in two
 * steps: res1 (a, b, c and the backend's scratch) after the device phase,
 * res2 (the witness) when the partition leaves post. Partition buffers are
 * pooled: a slot takes the smallest idle buffer that fits and returns it; at
 * most cfg.pool_idle stay idle, the surplus goes to the reaper thread, which
 * frees one buffer at a time (and trims the heap), so no worker ever pays for
 * a large free.
 *
 * Failure. The first failure of a job records its status and drops its
 * undispatched partitions; every thread checks the job's state at each phase
 * boundary and drops a slot of a job that is no longer active (returning its
 * buffers and bytes, and letting the backend abandon its pending state). A
 * job is finished when it is no longer active and has nothing in flight;
 * only then does await return, so the budget is whole again by then.
 */
#include "cuzk/engine.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "groth16/prove_common.h" /* prove_first_unsat: the host evaluation's check */

#define ENGINE_ERRLEN 256
#define LANE_LEN 32
#define BUF_ALIGN 64

enum { J_ACTIVE, J_DONE, J_FAILED, J_CANCELLED };

typedef struct job job;
typedef struct gpu_worker gpu_worker;

/* A partition buffer: cap bytes at p. */
typedef struct buf {
    struct buf *next;
    size_t cap;
    void *p;
    bool pinned; /* from the backend's host_alloc (the device reads it); else plain aligned memory */
} buf;

/* One partition in flight. */
typedef struct slot {
    struct slot *next;
    job *job;
    cuzk_engine_part p;
    buf *zbuf, *abcbuf, *packbuf;
    cuzk_zpack zp;       /* in packbuf when the witness is packed (p.zp) */
    uint64_t res1, res2; /* bytes still reserved */
    gpu_worker *gw;      /* during the device phase: where kernel events go */
} slot;

struct job {
    job *prev, *next; /* all jobs not yet awaited */
    job *pnext;       /* pending list */
    bool in_pending, finished, awaited, started;
    uint64_t id;
    cuzk_engine_prio prio;
    cuzk_engine_key *key;
    cuzk_engine_synth_fn synth;
    void *user;
    uint32_t n_parts, next_part, in_flight, n_done;
    int state;
    int status, failed_part;
    char error[ENGINE_ERRLEN];
    cuzk_groth16_proof *proofs;
    int64_t t_submit, t_start, t_done;
    int64_t synth_us, pack_us, device_us, lock_wait_us, post_us;
};

struct cuzk_engine_key {
    cuzk_engine *e;
    cuzk_engine_key *next;
    const cuzk_groth16_params *pk;
    const cuzk_cs *cs;
    cuzk_groth16_pvk pvk;
    uint64_t *density[3];  /* cs's a_aux, b_input, b_aux bitmaps, scanned once here for every proof */
    size_t density_pop[3]; /* and their popcounts, so that no partition counts them under a device lock */
    uint64_t key_bytes, ws1, ws2;
    size_t n_z, n_abc;
    uint32_t jobs; /* unfinished jobs using it */
};

typedef struct {
    cuzk_engine *e;
    int idx;
    char lane[LANE_LEN];
    pthread_t th;
} synth_worker;

struct gpu_worker {
    cuzk_engine *e;
    int dev;  /* the device's number (config.device_mask): what the backend, the lanes and TIMELINE see */
    int slot; /* the device's place among the engine's devices: its lock */
    int idx;
    char lane[LANE_LEN];
    cuzk_pool *pool;
    void *state;
    pthread_t th;
};

typedef struct {
    cuzk_engine *e;
    int idx;
    char lane[LANE_LEN];
    pthread_t th;
} post_worker;

struct cuzk_engine {
    cuzk_engine_config cfg;
    const cuzk_engine_backend *be;
    cuzk_timeline *tl;
    struct timespec epoch;

    pthread_mutex_t mu;
    pthread_cond_t dispatch_cv, synth_cv, gpu_cv, space_cv, post_cv, done_cv, reap_cv, ready_cv;
    bool stop, closing;

    uint64_t next_id;
    job *jobs, *pending;
    cuzk_engine_key *keys;

    slot *synth_q, *synth_q_tail;
    int synth_q_len, synth_idle;
    slot **gpu_q;
    int gpu_q_len;
    slot *post_q, *post_q_tail;
    slot *free_slots;

    buf *idle, *reap_q;
    int n_idle;

    uint64_t total, used, keys_bytes, peak;
    cuzk_engine_stats st;

    /* startup of the GPU workers */
    int n_ready, init_rc;
    char init_err[ENGINE_ERRLEN];

    pthread_mutex_t *dev_lock;
    char lost_msg[ENGINE_ERRLEN]; /* the last loss, quoted by what fails for want of a device */
    pthread_t dispatcher, reaper;
    bool dispatcher_up, reaper_up;
    synth_worker *synth;
    cuzk_pool *eval_pool; /* host evaluation: a, b, c and the check, shared by the synthesis workers; with
                             packing: the packing */
    bool pack;            /* witnesses packed for the backend (packed_z, device evaluation, not NO_ZPACK) */
    gpu_worker *gpu;
    post_worker *post;
    int n_synth_up, n_gpu_up, n_post_up;
};

/* ---- small helpers ------------------------------------------------------------------------ */

static int64_t now_us(const cuzk_engine *e)
{
    if (e->tl)
        return cuzk_timeline_now(e->tl);
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - e->epoch.tv_sec) * 1000000 + (t.tv_nsec - e->epoch.tv_nsec) / 1000;
}

int64_t cuzk_engine_now(const cuzk_engine *e)
{
    return now_us(e);
}

static void emit(cuzk_engine *e, cuzk_tl_ev ev, uint64_t job, int32_t part, const char *lane, int32_t dev,
                 const char *stage)
{
    cuzk_timeline_emit(e->tl, ev, job, part, lane, dev, stage);
}

static const char *const PRIO_NAMES[] = {"low", "normal", "high", "critical"};

const char *cuzk_engine_prio_name(cuzk_engine_prio p)
{
    return (unsigned)p <= CUZK_PRIO_CRITICAL ? PRIO_NAMES[p] : "unknown";
}

int cuzk_engine_prio_parse(const char *name, cuzk_engine_prio *out)
{
    for (int i = 0; name && i <= CUZK_PRIO_CRITICAL; i++)
        if (!strcmp(name, PRIO_NAMES[i])) {
            *out = (cuzk_engine_prio)i;
            return CUZK_OK;
        }
    return CUZK_EINVAL;
}

/* The mask of devices 0 .. n - 1 (n <= 64). */
static uint64_t first_devices(int n)
{
    return n >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1;
}

/* One device number 0..63 at *s, moving *s past it; -1 when there is none. */
static int device_number(const char **s)
{
    if (**s < '0' || **s > '9')
        return -1;
    int v = 0;
    while (**s >= '0' && **s <= '9') {
        v = v * 10 + (*(*s)++ - '0');
        if (v > 63)
            return -1;
    }
    return v;
}

int cuzk_engine_device_list_parse(const char *list, uint64_t *mask)
{
    uint64_t m = 0;
    const char *s = list;
    if (!s || !*s)
        return CUZK_EINVAL;
    for (;;) {
        int lo = device_number(&s), hi = lo;
        if (lo < 0)
            return CUZK_EINVAL;
        if (*s == '-') {
            s++;
            if ((hi = device_number(&s)) < lo)
                return CUZK_EINVAL;
        }
        for (int d = lo; d <= hi; d++) {
            if (m >> d & 1)
                return CUZK_EINVAL; /* named twice */
            m |= (uint64_t)1 << d;
        }
        if (!*s)
            break;
        if (*s++ != ',')
            return CUZK_EINVAL;
    }
    *mask = m;
    return CUZK_OK;
}

void cuzk_engine_device_list_format(uint64_t mask, char *out, size_t len)
{
    size_t at = 0;
    if (len)
        out[0] = 0;
    for (int d = 0; d < 64; d++) {
        if (!(mask >> d & 1))
            continue;
        int hi = d;
        while (hi < 63 && (mask >> (hi + 1) & 1))
            hi++;
        if (hi == d + 1) /* a pair is written as two numbers */
            hi = d;
        char *dst = at < len ? out + at : NULL;
        size_t room = at < len ? len - at : 0;
        int n = hi > d ? snprintf(dst, room, "%s%d-%d", at ? "," : "", d, hi)
                       : snprintf(dst, room, "%s%d", at ? "," : "", d);
        at += n > 0 ? (size_t)n : 0;
        d = hi;
    }
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void cuzk_engine_rs(uint64_t seed, uint64_t job, uint32_t part, cuzk_fr *r, cuzk_fr *s)
{
    uint64_t x = seed;
    x = splitmix64(&x) ^ job;
    x = splitmix64(&x) ^ part;
    uint8_t bytes[64];
    for (int i = 0; i < 8; i++) {
        uint64_t v = splitmix64(&x);
        for (int k = 0; k < 8; k++)
            bytes[8 * i + k] = (uint8_t)(v >> (8 * k));
    }
    cuzk_fr_from_le32_reduce(r, bytes);
    cuzk_fr_from_le32_reduce(s, bytes + 32);
}

/* ---- budget (under mu) ------------------------------------------------------------------------ */

static void budget_take(cuzk_engine *e, uint64_t n)
{
    e->used += n;
    if (e->used > e->peak)
        e->peak = e->used;
}

static void budget_give(cuzk_engine *e, uint64_t n)
{
    e->used -= n;
    if (n)
        pthread_cond_signal(&e->dispatch_cv);
}

/* The largest partition of any unfinished job (what the budget must keep room for beside the keys). */
static uint64_t max_unfinished_part(const cuzk_engine *e)
{
    uint64_t m = 0;
    for (const job *j = e->jobs; j; j = j->next)
        if (!j->finished && j->key->ws1 + j->key->ws2 > m)
            m = j->key->ws1 + j->key->ws2;
    return m;
}

/* ---- buffer pool -------------------------------------------------------------------------------- */

/* pinned: memory the device reads (the backend's host_alloc, page-locked on a GPU); otherwise, or on a
 * backend without one, 64-byte aligned malloc */
static void *host_alloc(cuzk_engine *e, size_t n, bool pinned)
{
    if (pinned && e->be->host_alloc)
        return e->be->host_alloc(e->be->ctx, n);
    return aligned_alloc(BUF_ALIGN, (n + BUF_ALIGN - 1) / BUF_ALIGN * BUF_ALIGN);
}

static void buf_free_mem(cuzk_engine *e, buf *b)
{
    if (b->pinned && e->be->host_free)
        e->be->host_free(e->be->ctx, b->p, b->cap);
    else
        free(b->p);
}

/* A buffer of at least need bytes, pinned or not: the smallest idle one of that kind that fits, else a new
 * one. Called without mu. */
static buf *buf_get(cuzk_engine *e, size_t need, bool pinned)
{
    if (need < BUF_ALIGN)
        need = BUF_ALIGN;
    pinned = pinned && e->be->host_alloc;
    pthread_mutex_lock(&e->mu);
    buf **best = NULL;
    for (buf **b = &e->idle; *b; b = &(*b)->next)
        if ((*b)->pinned == pinned && (*b)->cap >= need && (!best || (*b)->cap < (*best)->cap))
            best = b;
    if (best) {
        buf *b = *best;
        *best = b->next;
        e->n_idle--;
        e->st.buf_reuses++;
        pthread_mutex_unlock(&e->mu);
        return b;
    }
    pthread_mutex_unlock(&e->mu);
    buf *b = malloc(sizeof *b);
    void *p = b ? host_alloc(e, need, pinned) : NULL;
    if (!p) {
        free(b);
        return NULL;
    }
    b->p = p;
    b->cap = need;
    b->pinned = pinned;
    b->next = NULL;
    pthread_mutex_lock(&e->mu);
    e->st.buf_allocs++;
    e->st.buf_live++;
    e->st.buf_live_bytes += need;
    if (pinned)
        e->st.buf_pinned_bytes += need;
    pthread_mutex_unlock(&e->mu);
    return b;
}

/* Returns a buffer to the pool (under mu); beyond pool_idle idle buffers the smallest goes to the reaper. */
static void buf_put_locked(cuzk_engine *e, buf *b)
{
    if (!b)
        return;
    b->next = e->idle;
    e->idle = b;
    e->n_idle++;
    if (e->n_idle <= e->cfg.pool_idle)
        return;
    buf **small = &e->idle;
    for (buf **q = &e->idle; *q; q = &(*q)->next)
        if ((*q)->cap < (*small)->cap)
            small = q;
    buf *v = *small;
    *small = v->next;
    e->n_idle--;
    v->next = e->reap_q;
    e->reap_q = v;
    pthread_cond_signal(&e->reap_cv);
}

static void *reaper_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->reap_q && !e->stop)
            pthread_cond_wait(&e->reap_cv, &e->mu);
        if (!e->reap_q)
            break;
        buf *b = e->reap_q;
        e->reap_q = b->next;
        pthread_mutex_unlock(&e->mu);
        buf_free_mem(e, b);
        size_t cap = b->cap;
        bool pinned = b->pinned;
        free(b);
        pthread_mutex_lock(&e->mu);
        e->st.buf_frees++;
        e->st.buf_live--;
        e->st.buf_live_bytes -= cap;
        if (pinned)
            e->st.buf_pinned_bytes -= cap;
        if (!e->reap_q) {
#if defined(__GLIBC__)
            pthread_mutex_unlock(&e->mu);
            malloc_trim(0);
            pthread_mutex_lock(&e->mu);
#endif
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- jobs (under mu) ------------------------------------------------------------------------------ */

static void pending_remove(cuzk_engine *e, job *j)
{
    if (!j->in_pending)
        return;
    for (job **p = &e->pending; *p; p = &(*p)->pnext)
        if (*p == j) {
            *p = j->pnext;
            break;
        }
    j->in_pending = false;
    j->pnext = NULL;
}

static void pending_insert(cuzk_engine *e, job *j)
{
    job **p = &e->pending;
    while (*p && (*p)->prio >= j->prio)
        p = &(*p)->pnext;
    j->pnext = *p;
    *p = j;
    j->in_pending = true;
}

static job *job_find(cuzk_engine *e, uint64_t id)
{
    for (job *j = e->jobs; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

/* The job is over once it is no longer active and nothing of it is in flight. */
static void job_maybe_finish(cuzk_engine *e, job *j)
{
    if (j->finished || j->state == J_ACTIVE || j->in_flight)
        return;
    j->finished = true;
    j->t_done = now_us(e);
    pending_remove(e, j);
    if (j->state == J_DONE)
        emit(e, CUZK_TL_DELIVER, j->id, -1, "-", -1, "");
    else if (j->state == J_CANCELLED)
        emit(e, CUZK_TL_JOB_CANCEL, j->id, -1, "-", -1, "");
    else
        emit(e, CUZK_TL_JOB_FAIL, j->id, j->failed_part, "-", -1, "");
    j->key->jobs--;
    e->st.jobs_unfinished--;
    pthread_cond_broadcast(&e->done_cv);
}

/* Ends an active job with a status; its undispatched partitions are dropped. */
static void job_stop(cuzk_engine *e, job *j, int state, int status, int part, const char *msg)
{
    if (j->state != J_ACTIVE)
        return;
    j->state = state;
    j->status = status;
    j->failed_part = part;
    snprintf(j->error, sizeof j->error, "%s", msg);
    e->st.parts_dropped += j->n_parts - j->next_part;
    j->next_part = j->n_parts;
    pending_remove(e, j);
    /* threads blocked on this job's behalf re-check its state */
    pthread_cond_broadcast(&e->space_cv);
    pthread_cond_signal(&e->dispatch_cv);
    job_maybe_finish(e, j);
}

static void job_fail(cuzk_engine *e, job *j, int status, uint32_t part, const char *msg)
{
    e->st.parts_failed++;
    job_stop(e, j, J_FAILED, status, (int)part, msg);
}

/* ---- slots ------------------------------------------------------------------------------------------- */

static slot *slot_get(cuzk_engine *e)
{
    slot *s = e->free_slots;
    if (s)
        e->free_slots = s->next;
    else if (!(s = malloc(sizeof *s)))
        return NULL;
    memset(s, 0, sizeof *s);
    s->p.engine_ = s;
    return s;
}

/* Returns everything a slot still holds (under mu) and retires it. */
static void slot_release(cuzk_engine *e, slot *s)
{
    job *j = s->job;
    buf_put_locked(e, s->abcbuf);
    buf_put_locked(e, s->packbuf);
    buf_put_locked(e, s->zbuf);
    budget_give(e, s->res1 + s->res2);
    j->in_flight--;
    s->next = e->free_slots;
    e->free_slots = s;
    e->st.parts_in_flight--;
    job_maybe_finish(e, j);
}

/* Drops a slot whose job stopped (or that failed): the backend abandons its state first, outside mu. */
static void slot_drop(cuzk_engine *e, slot *s, bool counted)
{
    if (s->p.pending && e->be->abandon)
        e->be->abandon(e->be->ctx, &s->p);
    s->p.pending = NULL;
    pthread_mutex_lock(&e->mu);
    if (!counted)
        e->st.parts_dropped++;
    slot_release(e, s);
    pthread_mutex_unlock(&e->mu);
}

/* Records a failure of slot s and drops it. */
static void slot_fail(cuzk_engine *e, slot *s, int rc, const char *what, const char *err)
{
    char msg[ENGINE_ERRLEN];
    snprintf(msg, sizeof msg, "partition %u: %s: %s", s->p.part, what, err[0] ? err : cuzk_strerror(rc));
    if (s->p.pending && e->be->abandon)
        e->be->abandon(e->be->ctx, &s->p);
    s->p.pending = NULL;
    pthread_mutex_lock(&e->mu);
    job *j = s->job;
    if (j->state == J_ACTIVE)
        job_fail(e, j, rc, s->p.part, msg);
    else
        e->st.parts_dropped++;
    slot_release(e, s);
    pthread_mutex_unlock(&e->mu);
}

static bool job_active(cuzk_engine *e, job *j)
{
    pthread_mutex_lock(&e->mu);
    bool a = j->state == J_ACTIVE;
    pthread_mutex_unlock(&e->mu);
    return a;
}

/* ---- dispatcher ------------------------------------------------------------------------------------- */

static void *dispatcher_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->stop) {
        job *j = e->pending;
        if (!j || e->synth_idle <= e->synth_q_len) {
            pthread_cond_wait(&e->dispatch_cv, &e->mu);
            continue;
        }
        uint64_t need = j->key->ws1 + j->key->ws2;
        if (e->used + need > e->total) {
            pthread_cond_wait(&e->dispatch_cv, &e->mu);
            continue;
        }
        slot *s = slot_get(e);
        if (!s) {
            job_fail(e, j, CUZK_ENOMEM, j->next_part, "engine: out of memory for a partition slot");
            continue;
        }
        budget_take(e, need);
        s->job = j;
        s->res1 = j->key->ws1;
        s->res2 = j->key->ws2;
        s->p.job = j->id;
        s->p.part = j->next_part++;
        s->p.n_parts = j->n_parts;
        s->p.pk = j->key->pk;
        s->p.cs = j->key->cs;
        s->p.pvk = &j->key->pvk;
        for (int i = 0; i < 3; i++)
            s->p.density[i] = j->key->density[i], s->p.density_pop[i] = j->key->density_pop[i];
        s->p.n_z = j->key->n_z;
        s->p.n_abc = j->key->n_abc;
        s->p.dev = -1;
        s->p.worker = -1;
        j->in_flight++;
        e->st.parts_in_flight++;
        if (j->next_part == j->n_parts)
            pending_remove(e, j);
        if (!j->started) {
            j->started = true;
            j->t_start = now_us(e);
            emit(e, CUZK_TL_JOB_START, j->id, -1, "-", -1, "");
        }
        if (e->synth_q_tail)
            e->synth_q_tail->next = s;
        else
            e->synth_q = s;
        e->synth_q_tail = s;
        e->synth_q_len++;
        pthread_cond_signal(&e->synth_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- synthesis ------------------------------------------------------------------------------------- */

/* The witness packed into the slot's packing buffer for the backend (e->pack): p.zp when it fits the tail,
 * else the buffer goes back and the witness crosses whole (as it does when no buffer could be had). */
static void synth_pack(cuzk_engine *e, slot *s, const cuzk_fr *z, size_t n)
{
    size_t cap = cuzk_zpack_default_cap(n);
    if (s->packbuf && cuzk_zpack_init(&s->zp, s->packbuf->p, s->packbuf->cap, n, cap, NULL, 0) == CUZK_OK &&
        cuzk_zpack_make(&s->zp, z, e->eval_pool)) {
        s->p.zp = &s->zp;
        return;
    }
    pthread_mutex_lock(&e->mu);
    buf_put_locked(e, s->packbuf);
    s->packbuf = NULL;
    e->st.parts_unpacked++;
    pthread_mutex_unlock(&e->mu);
}

/* Witness, a/b/c, check, r and s for one partition; then onto the GPU queue (blocking while it is full). */
static void synth_one(synth_worker *w, slot *s)
{
    cuzk_engine *e = w->e;
    job *j = s->job;
    cuzk_engine_key *k = j->key;
    if (!job_active(e, j)) {
        slot_drop(e, s, false);
        return;
    }
    char err[ENGINE_ERRLEN] = "";
    int rc = CUZK_OK;
    const char *what = "synthesis";
    bool dev_eval = e->cfg.eval == CUZK_ENGINE_EVAL_DEVICE; /* a, b, c made in the device phase */
    /* the span covers the buffers too: a first use allocates them (page-locked on a GPU backend) */
    emit(e, CUZK_TL_SYNTH_START, j->id, (int32_t)s->p.part, w->lane, -1, "");
    int64_t t0 = now_us(e), tp = 0;
    /* Pinned memory is what the device reads. With packing that is the packing, not z: z is then plain
     * memory, copied whole only for a witness that does not pack. Page-locking a full witness (4.17 GB at
     * full scale) holds the CUDA driver for seconds, and a GPU worker's calls wait behind it (the
     * TIMELINE's host_pre); about 13 times less is pinned this way. */
    s->zbuf = buf_get(e, k->n_z * sizeof(cuzk_fr), !e->pack);
    if (e->pack) /* with the witness's, before any device work of this partition; none: the witness goes whole
                  */
        s->packbuf = buf_get(e, cuzk_zpack_bytes(k->n_z, cuzk_zpack_default_cap(k->n_z)), true);
    if (!dev_eval)
        s->abcbuf = buf_get(e, 3 * k->n_abc * sizeof(cuzk_fr), true);
    if (!s->zbuf || (!dev_eval && !s->abcbuf)) {
        rc = cuzk_fail(err, sizeof err, CUZK_ENOMEM, "out of memory for the partition buffers");
        what = "engine";
    }
    cuzk_fr *z = s->zbuf ? s->zbuf->p : NULL, *a = NULL, *b = NULL, *c = NULL;
    if (!dev_eval && s->abcbuf)
        a = s->abcbuf->p, b = a + k->n_abc, c = b + k->n_abc;
    if (rc == CUZK_OK)
        rc = j->synth(j->user, j->id, s->p.part, z, k->n_z, err, sizeof err);
    if (rc > 0)
        rc = CUZK_EINVAL;
    if (rc == CUZK_OK) {
        cuzk_fr one;
        cuzk_fr_from_u64(&one, 1);
        if (!cuzk_fr_eq(&z[0], &one)) {
            rc = cuzk_fail(err, sizeof err, CUZK_EINVAL, "z[0] is not 1");
        } else if (e->pack) {
            tp = now_us(e);
            synth_pack(e, s, z, k->n_z);
            tp = now_us(e) - tp;
        } else if (!dev_eval) {
            what = "witness";
            cuzk_cs_eval(k->cs, z, a, b, c, e->eval_pool);
            int64_t bad = (e->cfg.flags & CUZK_ENGINE_NO_CHECK)
                              ? -1
                              : prove_first_unsat(a, b, c, k->n_abc, e->eval_pool);
            if (bad >= 0)
                rc = cuzk_fail(err, sizeof err, CUZK_EUNSAT, "does not satisfy constraint %lld",
                               (long long)bad);
        }
    }
    if (rc == CUZK_OK) {
        what = "randomness";
        if (e->cfg.rs_seed)
            cuzk_engine_rs(e->cfg.rs_seed, j->id, s->p.part, &s->p.r, &s->p.s);
        else if (cuzk_fr_random(&s->p.r) != CUZK_OK || cuzk_fr_random(&s->p.s) != CUZK_OK)
            rc = cuzk_fail(err, sizeof err, CUZK_EIO, "getrandom failed");
    }
    int64_t t1 = now_us(e);
    emit(e, CUZK_TL_SYNTH_END, j->id, (int32_t)s->p.part, w->lane, -1, "");
    if (rc != CUZK_OK) {
        pthread_mutex_lock(&e->mu);
        j->synth_us += t1 - t0;
        pthread_mutex_unlock(&e->mu);
        slot_fail(e, s, rc, what, err);
        return;
    }
    pthread_mutex_lock(&e->mu);
    j->pack_us += tp;
    pthread_mutex_unlock(&e->mu);
    s->p.z = z;
    s->p.a = a;
    s->p.b = b;
    s->p.c = c;
    s->p.check = dev_eval && !(e->cfg.flags & CUZK_ENGINE_NO_CHECK);
    s->p.key_vram = e->cfg.key_vram;
    s->p.key_tables = e->cfg.key_tables > 0 ? (unsigned)e->cfg.key_tables : 0;
    pthread_mutex_lock(&e->mu);
    j->synth_us += t1 - t0;
    while (j->state == J_ACTIVE && e->gpu_q_len >= e->cfg.queue_depth)
        pthread_cond_wait(&e->space_cv, &e->mu);
    if (j->state != J_ACTIVE) {
        e->st.parts_dropped++;
        slot_release(e, s);
        pthread_mutex_unlock(&e->mu);
        return;
    }
    e->gpu_q[e->gpu_q_len++] = s;
    emit(e, CUZK_TL_GPU_QUEUE, j->id, (int32_t)s->p.part, w->lane, -1, "");
    /* every waiting GPU worker: a signal could wake only a lost device's worker, which does not take it */
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_mutex_unlock(&e->mu);
}

static void *synth_main(void *arg)
{
    synth_worker *w = arg;
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->synth_q && !e->stop)
            pthread_cond_wait(&e->synth_cv, &e->mu);
        if (!e->synth_q)
            break;
        slot *s = e->synth_q;
        e->synth_q = s->next;
        if (!e->synth_q)
            e->synth_q_tail = NULL;
        e->synth_q_len--;
        e->synth_idle--;
        s->next = NULL;
        pthread_mutex_unlock(&e->mu);
        synth_one(w, s);
        pthread_mutex_lock(&e->mu);
        e->synth_idle++;
        pthread_cond_signal(&e->dispatch_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- GPU workers -------------------------------------------------------------------------------------- */

void cuzk_engine_stage(cuzk_engine_part *p, const char *stage, bool end)
{
    slot *s = p->engine_;
    if (!s || !s->gw)
        return;
    gpu_worker *w = s->gw;
    emit(w->e, end ? CUZK_TL_KERNEL_END : CUZK_TL_KERNEL_START, p->job, (int32_t)p->part, w->lane, w->dev,
         stage);
}

void cuzk_engine_stage_span(cuzk_engine_part *p, const char *stage, int64_t start_us, int64_t end_us)
{
    slot *s = p->engine_;
    if (!s || !s->gw || end_us < start_us)
        return;
    gpu_worker *w = s->gw;
    cuzk_timeline_emit_at(w->e->tl, start_us, CUZK_TL_KERNEL_START, p->job, (int32_t)p->part, w->lane, w->dev,
                          stage);
    cuzk_timeline_emit_at(w->e->tl, end_us, CUZK_TL_KERNEL_END, p->job, (int32_t)p->part, w->lane, w->dev,
                          stage);
}

/* Takes the queued partition with the smallest (priority, job, partition) key (under mu). */
static slot *gpu_q_pop(cuzk_engine *e)
{
    int best = 0;
    for (int i = 1; i < e->gpu_q_len; i++) {
        const slot *x = e->gpu_q[i], *y = e->gpu_q[best];
        if (x->job->prio > y->job->prio ||
            (x->job->prio == y->job->prio &&
             (x->p.job < y->p.job || (x->p.job == y->p.job && x->p.part < y->p.part))))
            best = i;
    }
    slot *s = e->gpu_q[best];
    e->gpu_q[best] = e->gpu_q[--e->gpu_q_len];
    return s;
}

/* Whether device number dev is out of service (under mu): st.devices_lost is the one record of it. */
static bool dev_is_lost(const cuzk_engine *e, int dev)
{
    return e->st.devices_lost >> dev & 1;
}

/* The engine's devices still in service (under mu); each device has its own number, so this is the count
 * less the lost ones. */
static int devices_usable(const cuzk_engine *e)
{
    return e->cfg.devices - __builtin_popcountll(e->st.devices_lost);
}

/* Whether w takes partitions from the GPU queue: its device is in service, or none is (then its workers
 * only drop what is left there, every job having failed). */
static bool worker_serves(const cuzk_engine *e, const gpu_worker *w)
{
    return !dev_is_lost(e, w->dev) || devices_usable(e) == 0;
}

/* No device is left (under mu): every active job fails, now and at submit, since nothing could prove it. The
 * partitions in flight stop at their next phase boundary; those on the GPU queue are dropped by the lost
 * devices' workers, which serve the queue for that alone. */
static void no_device_left(cuzk_engine *e)
{
    char msg[ENGINE_ERRLEN];
    snprintf(msg, sizeof msg, "no usable device left (%.200s)", e->lost_msg);
    for (job *j = e->jobs; j; j = j->next)
        job_stop(e, j, J_FAILED, CUZK_EDEVICE, -1, msg);
    pthread_cond_broadcast(&e->gpu_cv);
}

/* A backend phase of s on w's device returned CUZK_EDEVICE. The device takes no more work (its workers stop
 * taking partitions), and s, whose buffers the device only read, goes back on the GPU queue for the other
 * devices; with none left its job and every other fail. */
static void device_lost(gpu_worker *w, slot *s, const char *phase, const char *err)
{
    cuzk_engine *e = w->e;
    if (s->p.pending && e->be->abandon)
        e->be->abandon(e->be->ctx, &s->p);
    s->p.pending = NULL;
    pthread_mutex_lock(&e->mu);
    if (!dev_is_lost(e, w->dev)) {
        e->st.devices_lost |= 1ull << w->dev;
        snprintf(e->lost_msg, sizeof e->lost_msg, "device %d lost in the %s phase: %.200s", w->dev, phase,
                 err[0] ? err : cuzk_strerror(CUZK_EDEVICE));
        emit(e, CUZK_TL_DEVICE_LOST, s->p.job, (int32_t)s->p.part, w->lane, w->dev, phase);
        if (devices_usable(e) == 0)
            no_device_left(e);
        pthread_cond_broadcast(&e->gpu_cv); /* the device's idle workers see it */
    }
    job *j = s->job;
    if (j->state == J_ACTIVE && devices_usable(e) > 0) {
        s->p.dev = s->p.worker = -1;
        memset(&s->p.proof, 0, sizeof s->p.proof);
        e->gpu_q[e->gpu_q_len++] = s; /* room: the queue holds queue_depth plus one per GPU worker */
        e->st.parts_moved++;
        emit(e, CUZK_TL_GPU_QUEUE, j->id, (int32_t)s->p.part, w->lane, -1, "");
        pthread_cond_broadcast(&e->gpu_cv);
        pthread_mutex_unlock(&e->mu);
        return;
    }
    if (j->state == J_ACTIVE) { /* none left to move it to; no_device_left stopped every job then, so this
                                   only guards the rule that a job is never left waiting on nothing */
        char msg[ENGINE_ERRLEN];
        snprintf(msg, sizeof msg, "partition %u: no usable device left (%.200s)", s->p.part, e->lost_msg);
        job_fail(e, j, CUZK_EDEVICE, s->p.part, msg);
    } else {
        e->st.parts_dropped++; /* its job failed for want of a device (no_device_left), or had stopped */
    }
    slot_release(e, s);
    pthread_mutex_unlock(&e->mu);
}

static void gpu_one(gpu_worker *w, slot *s)
{
    cuzk_engine *e = w->e;
    const cuzk_engine_backend *be = e->be;
    job *j = s->job;
    char err[ENGINE_ERRLEN] = "";
    s->p.dev = w->dev;
    s->p.worker = w->idx;
    if (!job_active(e, j)) {
        slot_drop(e, s, false);
        return;
    }
    if (be->pre) {
        int rc = be->pre(be->ctx, w->state, &s->p, err, sizeof err);
        if (rc == CUZK_EDEVICE) {
            device_lost(w, s, "pre", err);
            return;
        }
        if (rc != CUZK_OK) {
            slot_fail(e, s, rc, "pre-processing", err);
            return;
        }
        if (!job_active(e, j)) {
            slot_drop(e, s, false);
            return;
        }
    }
    pthread_mutex_t *lock = &e->dev_lock[w->slot];
    emit(e, CUZK_TL_LOCK_WAIT, j->id, (int32_t)s->p.part, w->lane, w->dev, "");
    int64_t t0 = now_us(e);
    pthread_mutex_lock(lock);
    int64_t t1 = now_us(e);
    emit(e, CUZK_TL_LOCK_ACQ, j->id, (int32_t)s->p.part, w->lane, w->dev, "");
    s->gw = w;
    int rc = be->device(be->ctx, w->state, &s->p, err, sizeof err);
    s->gw = NULL;
    emit(e, CUZK_TL_LOCK_REL, j->id, (int32_t)s->p.part, w->lane, w->dev, "");
    pthread_mutex_unlock(lock);
    int64_t t2 = now_us(e);
    pthread_mutex_lock(&e->mu);
    j->lock_wait_us += t1 - t0;
    j->device_us += t2 - t1;
    pthread_mutex_unlock(&e->mu);
    if (rc == CUZK_EDEVICE) {
        device_lost(w, s, "device", err);
        return;
    }
    if (rc != CUZK_OK) {
        slot_fail(e, s, rc, "device", err);
        return;
    }
    /* first release: a, b, c, the packed witness and the device scratch are no longer needed */
    s->p.a = s->p.b = s->p.c = NULL;
    s->p.zp = NULL;
    pthread_mutex_lock(&e->mu);
    buf_put_locked(e, s->abcbuf);
    buf_put_locked(e, s->packbuf);
    s->abcbuf = s->packbuf = NULL;
    budget_give(e, s->res1);
    s->res1 = 0;
    if (j->state != J_ACTIVE) {
        pthread_mutex_unlock(&e->mu);
        slot_drop(e, s, false);
        return;
    }
    if (e->post_q_tail)
        e->post_q_tail->next = s;
    else
        e->post_q = s;
    e->post_q_tail = s;
    pthread_cond_signal(&e->post_cv);
    pthread_mutex_unlock(&e->mu);
}

static void *gpu_main(void *arg)
{
    gpu_worker *w = arg;
    cuzk_engine *e = w->e;
    char err[ENGINE_ERRLEN] = "";
    int rc = CUZK_OK;
    w->pool = e->cfg.gpu_threads > 1 ? cuzk_pool_new(e->cfg.gpu_threads) : NULL;
    if (e->cfg.gpu_threads > 1 && !w->pool)
        rc = cuzk_fail(err, sizeof err, CUZK_ENOMEM, "engine: cannot start a pool of %d threads",
                       e->cfg.gpu_threads);
    if (rc == CUZK_OK && e->be->worker_new)
        rc = e->be->worker_new(e->be->ctx, w->dev, w->idx, w->pool, &w->state, err, sizeof err);
    pthread_mutex_lock(&e->mu);
    if (rc != CUZK_OK && e->init_rc == CUZK_OK) {
        e->init_rc = rc;
        snprintf(e->init_err, sizeof e->init_err, "engine: %s worker %d on device %d: %s", e->be->name,
                 w->idx, w->dev, err);
    }
    e->n_ready++;
    pthread_cond_broadcast(&e->ready_cv);
    if (rc != CUZK_OK) {
        pthread_mutex_unlock(&e->mu);
        cuzk_pool_free(w->pool);
        w->pool = NULL;
        return NULL;
    }
    for (;;) {
        while (!e->stop && !(e->gpu_q_len && worker_serves(e, w)))
            pthread_cond_wait(&e->gpu_cv, &e->mu);
        if (!e->gpu_q_len || !worker_serves(e, w))
            break;
        slot *s = gpu_q_pop(e);
        pthread_cond_broadcast(&e->space_cv);
        pthread_mutex_unlock(&e->mu);
        gpu_one(w, s);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    if (e->be->worker_free)
        e->be->worker_free(e->be->ctx, w->state);
    cuzk_pool_free(w->pool);
    w->pool = NULL;
    return NULL;
}

/* ---- post-processing ---------------------------------------------------------------------------------- */

static void post_one(post_worker *w, slot *s)
{
    cuzk_engine *e = w->e;
    const cuzk_engine_backend *be = e->be;
    job *j = s->job;
    if (!job_active(e, j)) {
        slot_drop(e, s, false);
        return;
    }
    char err[ENGINE_ERRLEN] = "";
    const char *what = "post-processing";
    emit(e, CUZK_TL_FINALIZE_START, j->id, (int32_t)s->p.part, w->lane, -1, "");
    int64_t t0 = now_us(e);
    int rc = be->post ? be->post(be->ctx, &s->p, err, sizeof err) : CUZK_OK;
    s->p.pending = NULL; /* post consumed it, whatever its result */
    if (rc == CUZK_OK) {
        what = "verification";
        const cuzk_cs *cs = j->key->cs;
        rc = cuzk_groth16_verify(&j->key->pvk, s->p.z + 1, cs->n_inputs - 1, &s->p.proof, err, sizeof err);
        if (rc != CUZK_OK && rc != CUZK_EVERIFY)
            rc = CUZK_EVERIFY;
    }
    int64_t t1 = now_us(e);
    emit(e, CUZK_TL_FINALIZE_END, j->id, (int32_t)s->p.part, w->lane, -1, "");
    if (rc != CUZK_OK) {
        pthread_mutex_lock(&e->mu);
        j->post_us += t1 - t0;
        pthread_mutex_unlock(&e->mu);
        slot_fail(e, s, rc, what, err);
        return;
    }
    pthread_mutex_lock(&e->mu);
    j->post_us += t1 - t0;
    if (j->state != J_ACTIVE) {
        e->st.parts_dropped++;
    } else {
        j->proofs[s->p.part] = s->p.proof;
        e->st.parts_done++;
        if (++j->n_done == j->n_parts)
            j->state = J_DONE;
    }
    slot_release(e, s);
    pthread_mutex_unlock(&e->mu);
}

static void *post_main(void *arg)
{
    post_worker *w = arg;
    cuzk_engine *e = w->e;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        while (!e->post_q && !e->stop)
            pthread_cond_wait(&e->post_cv, &e->mu);
        if (!e->post_q)
            break;
        slot *s = e->post_q;
        e->post_q = s->next;
        if (!e->post_q)
            e->post_q_tail = NULL;
        s->next = NULL;
        pthread_mutex_unlock(&e->mu);
        post_one(w, s);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------------------------------------
 */

static int resolve_config(cuzk_engine_config *c, const cuzk_engine_config *in, char *err, size_t errlen)
{
    if (in)
        *c = *in;
    else
        memset(c, 0, sizeof *c);
    if (!c->backend)
        c->backend = cuzk_engine_backend_cpu();
    const cuzk_engine_backend *be = c->backend;
    if (!be->device)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: backend '%s' has no device phase",
                         be->name ? be->name : "?");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    const struct {
        const char *name;
        int v;
    } counts[] = {{"devices", c->devices},           {"synth_workers", c->synth_workers},
                  {"gpu_workers", c->gpu_workers},   {"gpu_threads", c->gpu_threads},
                  {"eval_threads", c->eval_threads}, {"post_workers", c->post_workers},
                  {"queue_depth", c->queue_depth},   {"pool_idle", c->pool_idle}};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (counts[i].v < 0)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: %s is %d; it must be 0 (the default) or more",
                             counts[i].name, counts[i].v);
    int listed = __builtin_popcountll(c->device_mask);
    if (c->device_mask && c->devices && c->devices != listed)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: %d devices requested but the device list names %d (give one or the other)",
                         c->devices, listed);
    if (!c->devices)
        c->devices = c->device_mask ? listed : be->n_devices > 0 ? be->n_devices : 1;
    /* a listed device the backend lacks, by its number; then too many devices by count */
    if (be->n_devices > 0 && be->n_devices < 64 && c->device_mask >> be->n_devices) {
        int top = 63 - __builtin_clzll(c->device_mask);
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: device %d requested, backend '%s' has 0..%d", top,
                         be->name ? be->name : "?", be->n_devices - 1);
    }
    if (be->n_devices > 0 && c->devices > be->n_devices)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: %d devices requested, backend '%s' has %d",
                         c->devices, be->name ? be->name : "?", be->n_devices);
    if (!c->synth_workers)
        c->synth_workers = 2;
    if (!c->gpu_workers)
        c->gpu_workers = 2;
    if (!c->gpu_threads)
        c->gpu_threads = (int)ncpu;
    if (!c->eval_threads)
        c->eval_threads = (int)ncpu;
    if (!c->post_workers)
        c->post_workers = 1;
    if (c->devices > 64 || c->synth_workers > 1024 || c->gpu_workers > 64 || c->gpu_threads > 4096 ||
        c->eval_threads > 4096 || c->post_workers > 1024)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: setting out of range (devices <= 64, synth <= 1024, gpu workers <= 64, "
                         "threads <= 4096, eval threads <= 4096, post <= 1024)");
    if (!c->device_mask)
        c->device_mask = first_devices(c->devices);
    if (!c->queue_depth)
        c->queue_depth = c->devices * c->gpu_workers;
    if (c->queue_depth > 65536)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: queue depth %d above 65536", c->queue_depth);
    if (!c->pool_idle)
        c->pool_idle =
            2 * (c->synth_workers + c->queue_depth + c->devices * c->gpu_workers + c->post_workers);
    if (!c->key_tables) /* off until the prover's use is measured on a device (docs/design/020) */
        c->key_tables = -1;
    if (c->key_tables != -1 && (c->key_tables < 2 || c->key_tables > 4))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: key_tables is %d; it must be 2, 3 or 4 (the largest k), -1 (none) or 0 "
                         "(the default: none)",
                         c->key_tables);
    if ((int)c->eval < CUZK_ENGINE_EVAL_AUTO || (int)c->eval > CUZK_ENGINE_EVAL_DEVICE)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: evaluation place %d is not auto, host or device",
                         (int)c->eval);
    if (c->eval == CUZK_ENGINE_EVAL_DEVICE && !be->device_eval)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: backend '%s' cannot evaluate a, b, c on its device (use host evaluation)",
                         be->name ? be->name : "?");
    if (c->eval == CUZK_ENGINE_EVAL_AUTO)
        c->eval = be->device_eval && be->prefer_device_eval ? CUZK_ENGINE_EVAL_DEVICE : CUZK_ENGINE_EVAL_HOST;
    if (!c->budget) {
        long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
        c->budget = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz / 4 * 3 : (uint64_t)1 << 32;
    }
    return CUZK_OK;
}

/* The key's own memory: the backend's proving key and the density bitmaps (its budget is the caller's). */
static void key_release(cuzk_engine *e, cuzk_engine_key *k)
{
    if (e->be->key_free)
        e->be->key_free(e->be->ctx, k->pk);
    for (int i = 0; i < 3; i++)
        free(k->density[i]);
    free(k);
}

/* Stops every thread that was started and frees the engine (no job may be unfinished). */
static void engine_teardown(cuzk_engine *e)
{
    pthread_mutex_lock(&e->mu);
    e->stop = true;
    pthread_cond_broadcast(&e->dispatch_cv);
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_cond_broadcast(&e->post_cv);
    pthread_cond_broadcast(&e->space_cv);
    pthread_mutex_unlock(&e->mu);
    if (e->dispatcher_up)
        pthread_join(e->dispatcher, NULL);
    for (int i = 0; i < e->n_synth_up; i++)
        pthread_join(e->synth[i].th, NULL);
    for (int i = 0; i < e->n_gpu_up; i++)
        pthread_join(e->gpu[i].th, NULL);
    for (int i = 0; i < e->n_post_up; i++)
        pthread_join(e->post[i].th, NULL);
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->reap_cv);
    pthread_mutex_unlock(&e->mu);
    if (e->reaper_up)
        pthread_join(e->reaper, NULL);
    while (e->jobs) {
        job *j = e->jobs;
        e->jobs = j->next;
        free(j->proofs);
        free(j);
    }
    while (e->keys) {
        cuzk_engine_key *k = e->keys;
        e->keys = k->next;
        key_release(e, k);
    }
    for (buf *lists[2] = {e->idle, e->reap_q}, **l = lists; l < lists + 2; l++)
        while (*l) {
            buf *b = *l;
            *l = b->next;
            buf_free_mem(e, b);
            free(b);
        }
    while (e->free_slots) {
        slot *s = e->free_slots;
        e->free_slots = s->next;
        free(s);
    }
    for (int d = 0; e->dev_lock && d < e->cfg.devices; d++)
        pthread_mutex_destroy(&e->dev_lock[d]);
    free(e->dev_lock);
    cuzk_pool_free(e->eval_pool);
    free(e->gpu_q);
    free(e->synth);
    free(e->gpu);
    free(e->post);
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->gpu_cv,  &e->space_cv,
                             &e->post_cv,     &e->done_cv,  &e->reap_cv, &e->ready_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_destroy(cvs[i]);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

int cuzk_engine_new(cuzk_engine **out, const cuzk_engine_config *cfg, char *err, size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: no output pointer");
    *out = NULL;
    cuzk_engine_config c;
    int rc = resolve_config(&c, cfg, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    cuzk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: out of memory");
    e->cfg = c;
    e->be = c.backend;
    e->tl = c.timeline;
    clock_gettime(CLOCK_MONOTONIC, &e->epoch);
    e->total = c.budget;
    e->next_id = 1;
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_t *cvs[] = {&e->dispatch_cv, &e->synth_cv, &e->gpu_cv,  &e->space_cv,
                             &e->post_cv,     &e->done_cv,  &e->reap_cv, &e->ready_cv};
    for (size_t i = 0; i < sizeof cvs / sizeof cvs[0]; i++)
        pthread_cond_init(cvs[i], NULL);
    int n_gpu = c.devices * c.gpu_workers;
    /* a partition whose device was lost goes back on the queue, so it holds one more per GPU worker */
    e->gpu_q = calloc((size_t)c.queue_depth + (size_t)n_gpu, sizeof *e->gpu_q);
    e->dev_lock = calloc((size_t)c.devices, sizeof *e->dev_lock);
    e->synth = calloc((size_t)c.synth_workers, sizeof *e->synth);
    e->gpu = calloc((size_t)n_gpu, sizeof *e->gpu);
    e->post = calloc((size_t)c.post_workers, sizeof *e->post);
    if (!e->gpu_q || !e->dev_lock || !e->synth || !e->gpu || !e->post) {
        free(e->dev_lock);
        e->dev_lock = NULL;
        engine_teardown(e);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: out of memory");
    }
    for (int d = 0; d < c.devices; d++)
        pthread_mutex_init(&e->dev_lock[d], NULL);
    e->synth_idle = c.synth_workers;
    e->pack = c.eval == CUZK_ENGINE_EVAL_DEVICE && e->be->packed_z && !(c.flags & CUZK_ENGINE_NO_ZPACK);
    if ((c.eval == CUZK_ENGINE_EVAL_HOST || e->pack) && c.eval_threads > 1 &&
        !(e->eval_pool = cuzk_pool_new(c.eval_threads))) {
        engine_teardown(e);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: cannot start the evaluation pool of %d threads",
                         c.eval_threads);
    }

    rc = CUZK_OK;
    if (pthread_create(&e->reaper, NULL, reaper_main, e) == 0)
        e->reaper_up = true;
    else
        rc = CUZK_ENOMEM;
    for (int i = 0; rc == CUZK_OK && i < n_gpu; i++) {
        gpu_worker *w = &e->gpu[i];
        w->e = e;
        w->slot = i / c.gpu_workers;
        w->dev = cuzk_engine_device_id(&c, w->slot);
        w->idx = i % c.gpu_workers;
        snprintf(w->lane, sizeof w->lane, "gpu%d.%d", w->dev, w->idx);
        if (pthread_create(&w->th, NULL, gpu_main, w) != 0)
            rc = CUZK_ENOMEM;
        else
            e->n_gpu_up++;
    }
    pthread_mutex_lock(&e->mu);
    while (e->n_ready < e->n_gpu_up)
        pthread_cond_wait(&e->ready_cv, &e->mu);
    pthread_mutex_unlock(&e->mu);
    if (rc == CUZK_OK && e->init_rc != CUZK_OK) {
        rc = cuzk_fail(err, errlen, e->init_rc, "%s", e->init_err);
        engine_teardown(e);
        return rc;
    }
    for (int i = 0; rc == CUZK_OK && i < c.synth_workers; i++) {
        synth_worker *w = &e->synth[i];
        w->e = e;
        w->idx = i;
        snprintf(w->lane, sizeof w->lane, "synth.%d", i);
        if (pthread_create(&w->th, NULL, synth_main, w) != 0)
            rc = CUZK_ENOMEM;
        else
            e->n_synth_up++;
    }
    for (int i = 0; rc == CUZK_OK && i < c.post_workers; i++) {
        post_worker *w = &e->post[i];
        w->e = e;
        w->idx = i;
        snprintf(w->lane, sizeof w->lane, "post.%d", i);
        if (pthread_create(&w->th, NULL, post_main, w) != 0)
            rc = CUZK_ENOMEM;
        else
            e->n_post_up++;
    }
    if (rc == CUZK_OK) {
        if (pthread_create(&e->dispatcher, NULL, dispatcher_main, e) == 0)
            e->dispatcher_up = true;
        else
            rc = CUZK_ENOMEM;
    }
    if (rc != CUZK_OK) {
        engine_teardown(e);
        return cuzk_fail(err, errlen, rc, "engine: cannot start its threads");
    }
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_free(cuzk_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->closing = true;
    for (job *j = e->jobs; j; j = j->next)
        job_stop(e, j, J_CANCELLED, CUZK_ECANCELED, -1, "cancelled: the engine is shutting down");
    for (;;) {
        bool busy = false;
        for (job *j = e->jobs; j && !busy; j = j->next)
            busy = !j->finished;
        if (!busy)
            break;
        pthread_cond_wait(&e->done_cv, &e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    engine_teardown(e);
}

int cuzk_engine_device_id(const cuzk_engine_config *c, int slot)
{
    uint64_t m = c->device_mask ? c->device_mask : first_devices(c->devices);
    for (int id = 0; id < 64; id++)
        if ((m >> id & 1) && slot-- == 0)
            return id;
    return -1;
}

uint64_t cuzk_engine_device_set(const cuzk_engine_config *c)
{
    if (c->device_mask)
        return c->device_mask;
    const cuzk_engine_backend *be = c->backend ? c->backend : cuzk_engine_backend_cpu();
    int n = c->devices > 0 ? c->devices : be->n_devices > 0 ? be->n_devices : 1;
    return first_devices(n);
}

void cuzk_engine_get_config(const cuzk_engine *e, cuzk_engine_config *out)
{
    *out = e->cfg;
}

/* ---- keys ---------------------------------------------------------------------------------------------- */

int cuzk_engine_key_new(cuzk_engine *e, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                        cuzk_engine_key **out, char *err, size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: no output pointer");
    *out = NULL;
    if (!e || !pk || !cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: key needs an engine, a proving key and a circuit");
    /* the coset form's l covers every variable */
    size_t want_l = cs->n_inputs + cs->n_aux - cuzk_groth16_l_first(pk, cs->n_inputs);
    if (cs->n_inputs < 1 || pk->vk.n_ic != cs->n_inputs || pk->n_l != want_l || cs->n_constraints < 1)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: key and circuit disagree (ic %zu vs %zu inputs, l %zu vs %zu %s, %zu rows)",
                         pk->vk.n_ic, cs->n_inputs, pk->n_l, want_l,
                         pk->h_coset ? "variables (coset form)" : "aux", cs->n_constraints);
    cuzk_engine_key *k = calloc(1, sizeof *k);
    if (!k)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: out of memory");
    int rc = cuzk_groth16_prepare(&k->pvk, &pk->vk, err, errlen);
    if (rc != CUZK_OK) {
        free(k);
        return rc;
    }
    size_t words_aux = (cs->n_aux + 63) / 64 + 1, words_in = (cs->n_inputs + 63) / 64 + 1;
    k->density[0] = calloc(words_aux, sizeof(uint64_t));
    k->density[1] = calloc(words_in, sizeof(uint64_t));
    k->density[2] = calloc(words_aux, sizeof(uint64_t));
    /* once per key, on a pool of its own (a full PoRep circuit: ≈ 5 s on one thread); serial without one */
    cuzk_pool *dpool = cuzk_pool_new(e->cfg.eval_threads);
    rc = k->density[0] && k->density[1] && k->density[2]
             ? cuzk_cs_density_pool(cs, k->density[0], k->density[1], k->density[2], dpool)
             : CUZK_ENOMEM;
    cuzk_pool_free(dpool);
    if (rc != CUZK_OK) {
        for (int i = 0; i < 3; i++)
            free(k->density[i]);
        free(k);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: out of memory for the key's density bitmaps");
    }
    size_t bits[3] = {cs->n_aux, cs->n_inputs, cs->n_aux};
    for (int i = 0; i < 3; i++)
        k->density_pop[i] = cuzk_cs_density_count(k->density[i], bits[i]);
    k->e = e;
    k->pk = pk;
    k->cs = cs;
    k->n_z = cs->n_inputs + cs->n_aux;
    k->n_abc = cs->n_constraints;
    k->key_bytes = (uint64_t)(pk->vk.n_ic + pk->n_h + pk->n_l + pk->n_a + pk->n_b) * sizeof(cuzk_g1_affine) +
                   (uint64_t)pk->n_b * sizeof(cuzk_g2_affine) + (uint64_t)cuzk_cs_bytes(cs) + sizeof *k +
                   (uint64_t)(2 * words_aux + words_in) * sizeof(uint64_t);
    k->ws2 = (uint64_t)k->n_z * sizeof(cuzk_fr);
    bool dev_eval = e->cfg.eval == CUZK_ENGINE_EVAL_DEVICE;
    k->ws1 = (dev_eval ? 0 : 3 * (uint64_t)k->n_abc * sizeof(cuzk_fr)) +
             (e->pack ? cuzk_zpack_bytes(k->n_z, cuzk_zpack_default_cap(k->n_z)) : 0) +
             (e->be->part_bytes ? e->be->part_bytes(e->be->ctx, pk, cs, dev_eval) : 0);
    pthread_mutex_lock(&e->mu);
    uint64_t keep = max_unfinished_part(e);
    if (e->closing) {
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "engine: shutting down");
    } else if (e->used + k->key_bytes > e->total) {
        rc = cuzk_fail(err, errlen, CUZK_ERANGE,
                       "engine: key needs %llu bytes, the budget has %llu of %llu free",
                       (unsigned long long)k->key_bytes, (unsigned long long)(e->total - e->used),
                       (unsigned long long)e->total);
    } else if (e->keys_bytes + k->key_bytes + keep > e->total) {
        rc = cuzk_fail(
            err, errlen, CUZK_ERANGE,
            "engine: key of %llu bytes would leave less than the %llu-byte partition of a submitted "
            "job in the budget of %llu",
            (unsigned long long)k->key_bytes, (unsigned long long)keep, (unsigned long long)e->total);
    }
    if (rc != CUZK_OK) {
        pthread_mutex_unlock(&e->mu);
        for (int i = 0; i < 3; i++)
            free(k->density[i]);
        free(k);
        return rc;
    }
    budget_take(e, k->key_bytes);
    e->keys_bytes += k->key_bytes;
    k->next = e->keys;
    e->keys = k;
    pthread_mutex_unlock(&e->mu);
    *out = k;
    return CUZK_OK;
}

void cuzk_engine_key_free(cuzk_engine_key *k)
{
    if (!k)
        return;
    cuzk_engine *e = k->e;
    pthread_mutex_lock(&e->mu);
    while (k->jobs)
        pthread_cond_wait(&e->done_cv, &e->mu);
    for (cuzk_engine_key **p = &e->keys; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    e->keys_bytes -= k->key_bytes;
    budget_give(e, k->key_bytes);
    pthread_mutex_unlock(&e->mu);
    key_release(e, k);
}

uint64_t cuzk_engine_key_part_bytes(const cuzk_engine_key *k)
{
    return k ? k->ws1 + k->ws2 : 0;
}

/* ---- jobs: submit, cancel, await ------------------------------------------------------------------------
 */

int cuzk_engine_submit(cuzk_engine *e, const cuzk_engine_job *d, uint64_t *id, char *err, size_t errlen)
{
    if (id)
        *id = 0;
    if (!e || !d || !id)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: submit needs an engine, a job and an id pointer");
    if (!d->key || d->key->e != e)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "engine: the job's key is not registered with this engine");
    if (!d->synth)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: the job has no synthesis callback");
    if (d->n_parts < 1 || d->n_parts > (1u << 20))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: %u partitions (1 to %u)", d->n_parts, 1u << 20);
    if ((unsigned)d->prio > CUZK_PRIO_CRITICAL)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: priority %d out of range", (int)d->prio);
    job *j = calloc(1, sizeof *j);
    cuzk_groth16_proof *proofs = j ? calloc(d->n_parts, sizeof *proofs) : NULL;
    if (!proofs) {
        free(j);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "engine: out of memory for a job of %u partitions",
                         d->n_parts);
    }
    j->proofs = proofs;
    j->key = d->key;
    j->prio = d->prio;
    j->synth = d->synth;
    j->user = d->user;
    j->n_parts = d->n_parts;
    j->state = J_ACTIVE;
    j->failed_part = -1;
    j->t_start = -1;
    uint64_t need = d->key->ws1 + d->key->ws2;
    pthread_mutex_lock(&e->mu);
    int rc = CUZK_OK;
    if (e->closing)
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "engine: shutting down");
    else if (devices_usable(e) == 0)
        rc = cuzk_fail(err, errlen, CUZK_EDEVICE, "engine: no usable device left (%.200s)", e->lost_msg);
    else if (need > e->total - e->keys_bytes)
        rc = cuzk_fail(err, errlen, CUZK_ERANGE,
                       "engine: one partition needs %llu bytes, the budget has %llu beside the keys",
                       (unsigned long long)need, (unsigned long long)(e->total - e->keys_bytes));
    if (rc != CUZK_OK) {
        pthread_mutex_unlock(&e->mu);
        free(proofs);
        free(j);
        return rc;
    }
    j->id = e->next_id++;
    j->t_submit = now_us(e);
    j->next = e->jobs;
    if (e->jobs)
        e->jobs->prev = j;
    e->jobs = j;
    pending_insert(e, j);
    d->key->jobs++;
    e->st.jobs_unfinished++;
    emit(e, CUZK_TL_JOB_SUBMIT, j->id, -1, "-", -1, "");
    pthread_cond_signal(&e->dispatch_cv);
    *id = j->id;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

int cuzk_engine_cancel(cuzk_engine *e, uint64_t id)
{
    if (!e)
        return CUZK_EINVAL;
    pthread_mutex_lock(&e->mu);
    job *j = job_find(e, id);
    int rc = CUZK_EINVAL;
    if (j && j->state == J_ACTIVE) {
        job_stop(e, j, J_CANCELLED, CUZK_ECANCELED, -1, "cancelled");
        rc = CUZK_OK;
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_await(cuzk_engine *e, uint64_t id, cuzk_engine_result *out, char *err, size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: no result pointer");
    memset(out, 0, sizeof *out);
    out->failed_part = -1;
    if (!e)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "engine: no engine");
    pthread_mutex_lock(&e->mu);
    job *j = job_find(e, id);
    if (!j || j->awaited) {
        pthread_mutex_unlock(&e->mu);
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         j ? "engine: job %llu is already awaited" : "engine: no job %llu",
                         (unsigned long long)id);
    }
    j->awaited = true;
    while (!j->finished)
        pthread_cond_wait(&e->done_cv, &e->mu);
    if (j->prev)
        j->prev->next = j->next;
    else
        e->jobs = j->next;
    if (j->next)
        j->next->prev = j->prev;
    pthread_mutex_unlock(&e->mu);

    out->status = j->state == J_DONE ? CUZK_OK : j->status;
    out->failed_part = j->failed_part;
    if (out->status != CUZK_OK) {
        snprintf(out->error, sizeof out->error, "%s", j->error);
        free(j->proofs);
    } else {
        out->proofs = j->proofs;
        out->n_proofs = j->n_parts;
    }
    out->t_submit = j->t_submit;
    out->t_start = j->t_start;
    out->t_done = j->t_done;
    out->synth_us = j->synth_us;
    out->pack_us = j->pack_us;
    out->device_us = j->device_us;
    out->lock_wait_us = j->lock_wait_us;
    out->post_us = j->post_us;
    int status = out->status;
    free(j);
    if (status != CUZK_OK)
        cuzk_fail(err, errlen, status, "%s", out->error);
    return status;
}

void cuzk_engine_result_free(cuzk_engine_result *r)
{
    if (!r)
        return;
    free(r->proofs);
    r->proofs = NULL;
    r->n_proofs = 0;
}

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *out)
{
    pthread_mutex_lock(&e->mu);
    *out = e->st;
    out->budget_total = e->total;
    out->budget_used = e->used;
    out->budget_keys = e->keys_bytes;
    out->budget_peak = e->peak;
    out->devices_usable = devices_usable(e);
    snprintf(out->device_error, sizeof out->device_error, "%s", e->lost_msg);
    pthread_mutex_unlock(&e->mu);
}
