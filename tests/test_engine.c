/*
 * test_engine.c — the proving engine (cuzk/engine.h) and its TIMELINE writer
 * (cuzk/timeline.h), on the CPU backend and on a test backend that wraps it.
 *
 * Circuit: a random satisfiable circuit (cuzk_cs_random) with a key from
 * cuzk_groth16_setup and fresh toxic waste; every partition's witness is the
 * circuit's own witness, corrupted on request.
 *
 * Oracles: the independent CPU prover and verifier. Every delivered proof is
 * verified here again with cuzk_groth16_verify and compared, bit for bit,
 * with cuzk_groth16_prove_ex run directly on the same witness and the r, s
 * the engine's seeded mode documents (cuzk_engine_rs), which also shows the
 * proofs are assembled in partition order. Order of dispatch is read from
 * the synthesis callbacks themselves (one synthesis slot at a time), against
 * a list written out by hand from the rule (priority, then age, then index).
 *
 * Scenarios: proofs; ordering by priority, age and index with one worker and
 * with the budget as the limit; cancellation of a pending job, of one in
 * synthesis and of one in the device phase; failures (callback error,
 * z[0] != 1, a witness breaking a constraint caught by the check and, with
 * the check off, by verification, a device error); admission and argument
 * errors; per-device lock exclusivity and device pinning through
 * pre/device/post; a TIMELINE file checked by a small parser of its own
 * (exact key order, balanced START/END per lane, one outcome per job); and a
 * soak of 200 proofs with flat RSS and bounded buffer allocations. After
 * every scenario the budget holds exactly the key bytes, nothing is in
 * flight, and freeing the key brings it to zero.
 *
 * Evaluation place (cuzk_engine_config.eval): cancellation and failures run
 * with host and with device evaluation (the CPU backend's prover then
 * evaluates and checks in the device phase); the test backend records what
 * each device phase was handed (a, b, c or none, a check or not). Device
 * evaluation gives the same proof bytes as host evaluation, holds witness
 * buffers only, charges 3 · n_constraints · 32 bytes less per partition, and
 * names the same broken row as the naive loop of testutil; the resolution of
 * AUTO and the refusals of a bad place are checked on the CPU backend and on
 * test backends with and without device_eval / prefer_device_eval.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cs.h"
#include "cuzk/engine.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/timeline.h"
#include "cuzk/verify.h"
#include "testutil.h"

/* ---- the circuit ---------------------------------------------------------------------------- */

enum { NI = 3, NA = 40, NC = 60 }; /* 63 rows with the input rows: domain 64 */

static cuzk_cs CS;
static cuzk_fr *Z;
static cuzk_groth16_params PK;
static cuzk_groth16_pvk PVK;

static bool circuit_init(void)
{
    Z = malloc((NI + NA) * sizeof *Z);
    if (!Z || cuzk_cs_random(&CS, Z, NI, NA, NC, test_rand64(), CUZK_CS_RANDOM_BITS) != CUZK_OK)
        return false;
    unsigned lg;
    char err[256] = "";
    cuzk_groth16_toxic tw;
    if (cuzk_groth16_domain_lg(&lg, &CS, err, sizeof err) != CUZK_OK ||
        cuzk_groth16_toxic_random(&tw, (size_t)1 << lg, err, sizeof err) != CUZK_OK ||
        cuzk_groth16_setup(&PK, &CS, &tw, NULL, err, sizeof err) != CUZK_OK ||
        cuzk_groth16_prepare(&PVK, &PK.vk, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "test circuit: %s\n", err);
        return false;
    }
    return true;
}

/* ---- gates: a test holds a callback or a device phase until it says go -------------------------- */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int entered;
    bool open;
} gate;

static void gate_init(gate *g)
{
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->entered = 0;
    g->open = false;
}

static void gate_destroy(gate *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

static void deadline(struct timespec *t, int seconds)
{
    clock_gettime(CLOCK_REALTIME, t);
    t->tv_sec += seconds;
}

/* Called by the engine's thread: announces itself and waits for the gate to open (at most 60 s). */
static void gate_pass(gate *g)
{
    struct timespec t;
    deadline(&t, 60);
    pthread_mutex_lock(&g->mu);
    g->entered++;
    pthread_cond_broadcast(&g->cv);
    while (!g->open && pthread_cond_timedwait(&g->cv, &g->mu, &t) == 0)
        ;
    pthread_mutex_unlock(&g->mu);
}

/* Test thread: waits until n threads have entered (false after 30 s). */
static bool gate_wait_entered(gate *g, int n)
{
    struct timespec t;
    deadline(&t, 30);
    pthread_mutex_lock(&g->mu);
    while (g->entered < n && pthread_cond_timedwait(&g->cv, &g->mu, &t) == 0)
        ;
    bool ok = g->entered >= n;
    pthread_mutex_unlock(&g->mu);
    return ok;
}

static void gate_open(gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* ---- the synthesis callback ------------------------------------------------------------------------ */

enum { LOG_MAX = 256 };

/* Order in which callbacks ran: (tag, part). */
static struct {
    pthread_mutex_t mu;
    int n;
    int tag[LOG_MAX], part[LOG_MAX];
} LOG = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void log_reset(void)
{
    pthread_mutex_lock(&LOG.mu);
    LOG.n = 0;
    pthread_mutex_unlock(&LOG.mu);
}

/* What one job's callback does. Parts: -1 = none. */
typedef struct {
    int tag;
    int fail_part;  /* return CUZK_EIO with a message */
    int unsat_part; /* corrupt one aux value */
    int one_part;   /* z[0] = 2 */
    int block_part; /* wait on gate */
    gate *gate;
    atomic_int calls;
} synth_ctx;

static void synth_ctx_init(synth_ctx *c, int tag)
{
    memset(c, 0, sizeof *c);
    c->tag = tag;
    c->fail_part = c->unsat_part = c->one_part = c->block_part = -1;
}

/* The corruption of unsat_part: the last aux value plus one. */
static void unsat_witness(cuzk_fr *z)
{
    cuzk_fr_add(&z[NI + NA - 1], &z[NI + NA - 1], &z[0]);
}

static int synth_cb(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err, size_t errlen)
{
    synth_ctx *c = user;
    atomic_fetch_add(&c->calls, 1);
    pthread_mutex_lock(&LOG.mu);
    if (LOG.n < LOG_MAX) {
        LOG.tag[LOG.n] = c->tag;
        LOG.part[LOG.n] = (int)part;
        LOG.n++;
    }
    pthread_mutex_unlock(&LOG.mu);
    if (n_z != NI + NA)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "callback: n_z %zu", n_z);
    if ((int)part == c->block_part && c->gate)
        gate_pass(c->gate);
    if ((int)part == c->fail_part)
        return cuzk_fail(err, errlen, CUZK_EIO, "callback refuses partition %u of job %llu", part,
                         (unsigned long long)job);
    memcpy(z, Z, n_z * sizeof *z);
    if ((int)part == c->unsat_part)
        unsat_witness(z);
    if ((int)part == c->one_part)
        cuzk_fr_add(&z[0], &z[0], &z[0]);
    return CUZK_OK;
}

/* ---- the test backend: the CPU backend plus checks and injected faults ------------------------------ */

typedef struct {
    int dev, worker;
    uint64_t job;
    uint32_t part;
} tb_pending;

enum { TB_DEVS = 4 };

typedef struct {
    const cuzk_engine_backend *cpu;
    atomic_int in_device[TB_DEVS];
    atomic_int max_in_device[TB_DEVS];
    atomic_int device_calls[TB_DEVS];
    atomic_int mismatches; /* a phase saw another device/worker than pre */
    atomic_int abandons, posts, pres;
    atomic_int workers_live;
    atomic_ullong worker_devs; /* bit d: a worker was made for device d */
    /* what the device phase was handed: a, b, c from synthesis, none (device evaluation), a check asked */
    atomic_int abc_given, abc_none, checks;
    /* what pre was handed with device evaluation: a packed witness that unpacks to z, one that does not,
     * none (tb_pre checks each against z) */
    atomic_int zp_good, zp_bad, zp_none;
    /* where the buffers handed over live: in memory from host_alloc (pinned) or not; host_free of memory
     * host_alloc did not give; pinned allocations not freed yet */
    atomic_int z_pinned, z_plain, zp_plain, abc_plain, foreign_frees, pinned_live;
    /* faults hit the partition fail_part of a job of fail_nparts partitions (0: none); same for blocks */
    uint32_t fail_nparts, block_nparts;
    int fail_part, block_part;
    int block_dev;          /* >= 0: the first device phase on this device waits on gate */
    atomic_int block_taken; /* that phase has begun */
    gate *gate;
    int sleep_us;
    /* budget seen from inside the phases of a job of probe_nparts partitions (0: not probing) */
    cuzk_engine *eng;
    uint32_t probe_nparts;
    uint64_t used_in_device, used_in_post;
    bool span; /* around the CPU prove an "outer" stage, then "inner" over the middle of its time
                * (cuzk_engine_stage_span) */
    /* device loss: each device of lose_mask reports CUZK_EDEVICE from its lose_at-th phase of the kind
     * (pre when lose_in_pre, else device) and from every phase after, as a GPU does after a fatal error */
    uint64_t lose_mask;
    int lose_at;
    bool lose_in_pre;
    atomic_int lose_calls[TB_DEVS]; /* phases of that kind seen per device */
    atomic_int lost_returns;        /* phases that returned CUZK_EDEVICE */
    atomic_int lost_in_device;      /* of those, device phases (their pre had run: the engine abandons it) */
} tb_ctx;

/* The test backend's pinned memory: plain aligned memory, each block listed so that a buffer handed to a
 * phase can be told pinned or not (one list for every scenario; they run one after the other). */
enum { TB_PINNED_MAX = 256 };
static struct {
    pthread_mutex_t mu;
    const char *p[TB_PINNED_MAX];
    size_t bytes[TB_PINNED_MAX];
} tb_pinned = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void *tb_host_alloc(void *ctx, size_t bytes)
{
    tb_ctx *t = ctx;
    size_t round = (bytes + 63) / 64 * 64;
    char *p = aligned_alloc(64, round ? round : 64);
    if (!p)
        return NULL;
    pthread_mutex_lock(&tb_pinned.mu);
    int i = 0;
    while (i < TB_PINNED_MAX && tb_pinned.p[i])
        i++;
    if (i < TB_PINNED_MAX)
        tb_pinned.p[i] = p, tb_pinned.bytes[i] = bytes;
    pthread_mutex_unlock(&tb_pinned.mu);
    if (i == TB_PINNED_MAX) { /* more blocks than the list holds: refused, as an allocation that failed */
        free(p);
        return NULL;
    }
    atomic_fetch_add(&t->pinned_live, 1);
    return p;
}

static void tb_host_free(void *ctx, void *ptr, size_t bytes)
{
    tb_ctx *t = ctx;
    pthread_mutex_lock(&tb_pinned.mu);
    int i = 0;
    while (i < TB_PINNED_MAX && (tb_pinned.p[i] != ptr || tb_pinned.bytes[i] != bytes))
        i++;
    if (i < TB_PINNED_MAX)
        tb_pinned.p[i] = NULL;
    pthread_mutex_unlock(&tb_pinned.mu);
    if (i == TB_PINNED_MAX) {
        atomic_fetch_add(&t->foreign_frees, 1); /* not ours, or freed with another size: leaked, not freed */
        return;
    }
    atomic_fetch_sub(&t->pinned_live, 1);
    free(ptr);
}

/* [p, p + bytes) lies inside one block of tb_host_alloc's */
static bool tb_is_pinned(const void *p, size_t bytes)
{
    const char *c = p;
    bool in = false;
    pthread_mutex_lock(&tb_pinned.mu);
    for (int i = 0; i < TB_PINNED_MAX && !in; i++)
        in = tb_pinned.p[i] && c >= tb_pinned.p[i] && c + bytes <= tb_pinned.p[i] + tb_pinned.bytes[i];
    pthread_mutex_unlock(&tb_pinned.mu);
    return in;
}

static uint64_t tb_used(tb_ctx *t, const cuzk_engine_part *p)
{
    if (!t->eng || p->n_parts != t->probe_nparts)
        return 0;
    cuzk_engine_stats st;
    cuzk_engine_get_stats(t->eng, &st);
    return st.budget_used;
}

static int tb_worker_new(void *ctx, int dev, int worker, cuzk_pool *pool, void **state, char *err,
                         size_t errlen)
{
    tb_ctx *t = ctx;
    atomic_fetch_add(&t->workers_live, 1);
    if (dev >= 0 && dev < 64)
        atomic_fetch_or(&t->worker_devs, 1ull << dev);
    return t->cpu->worker_new(NULL, dev, worker, pool, state, err, errlen);
}

static void tb_worker_free(void *ctx, void *state)
{
    tb_ctx *t = ctx;
    atomic_fetch_sub(&t->workers_live, 1);
}

static uint64_t tb_part_bytes(void *ctx, const cuzk_groth16_params *pk, const cuzk_cs *cs, bool device_eval)
{
    tb_ctx *t = ctx;
    return t->cpu->part_bytes(NULL, pk, cs, device_eval);
}

/* The device loss of tb_ctx for a phase of p (in_pre: the pre phase): CUZK_EDEVICE once p's device is lost.
 */
static int tb_lose(tb_ctx *t, const cuzk_engine_part *p, bool in_pre, char *err, size_t errlen)
{
    int d = p->dev;
    if (d < 0 || d >= TB_DEVS || !(t->lose_mask >> d & 1))
        return CUZK_OK;
    bool lost = atomic_load(&t->lose_calls[d]) >= t->lose_at; /* lost already: every phase says so */
    if (!lost && in_pre == t->lose_in_pre)
        lost = atomic_fetch_add(&t->lose_calls[d], 1) + 1 >= t->lose_at;
    if (!lost)
        return CUZK_OK;
    atomic_fetch_add(&t->lost_returns, 1);
    if (!in_pre)
        atomic_fetch_add(&t->lost_in_device, 1);
    return cuzk_fail(err, errlen, CUZK_EDEVICE, "tb: device %d fell off the bus", d);
}

static int tb_pre(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    tb_ctx *t = ctx;
    int lost = tb_lose(t, p, true, err, errlen);
    if (lost != CUZK_OK)
        return lost;
    tb_pending *q = malloc(sizeof *q);
    if (!q)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "tb: out of memory");
    *q = (tb_pending){.dev = p->dev, .worker = p->worker, .job = p->job, .part = p->part};
    p->pending = q;
    atomic_fetch_add(&t->pres, 1);
    atomic_fetch_add(tb_is_pinned(p->z, p->n_z * sizeof *p->z) ? &t->z_pinned : &t->z_plain, 1);
    if (p->zp && !tb_is_pinned(p->zp->ones, cuzk_zpack_used(p->zp)))
        atomic_fetch_add(&t->zp_plain, 1);
    if (p->a) /* host evaluation: never packed */
        atomic_fetch_add(p->zp ? &t->zp_bad : &t->zp_none, 1);
    else if (!p->zp)
        atomic_fetch_add(&t->zp_none, 1);
    else {
        cuzk_fr *back = malloc(p->n_z * sizeof *back);
        if (!back)
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "tb: out of memory");
        memset(back, 0xa5, p->n_z * sizeof *back);
        cuzk_zpack_unpack(p->zp, back);
        bool same = p->zp->n == p->n_z && !memcmp(back, p->z, p->n_z * sizeof *back);
        atomic_fetch_add(same ? &t->zp_good : &t->zp_bad, 1);
        free(back);
    }
    return CUZK_OK;
}

static void tb_check(tb_ctx *t, const cuzk_engine_part *p)
{
    const tb_pending *q = p->pending;
    if (!q || q->dev != p->dev || q->worker != p->worker || q->job != p->job || q->part != p->part)
        atomic_fetch_add(&t->mismatches, 1);
}

static int tb_device(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    tb_ctx *t = ctx;
    tb_check(t, p);
    int d = p->dev;
    if (d < 0 || d >= TB_DEVS)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "tb: device %d", d);
    int now = atomic_fetch_add(&t->in_device[d], 1) + 1;
    int prev = atomic_load(&t->max_in_device[d]);
    while (now > prev && !atomic_compare_exchange_weak(&t->max_in_device[d], &prev, now))
        ;
    atomic_fetch_add(&t->device_calls[d], 1);
    atomic_fetch_add(p->a && p->b && p->c ? &t->abc_given : &t->abc_none, 1);
    if (p->a && p->b && p->c &&
        !(tb_is_pinned(p->a, p->n_abc * sizeof *p->a) && tb_is_pinned(p->b, p->n_abc * sizeof *p->b) &&
          tb_is_pinned(p->c, p->n_abc * sizeof *p->c)))
        atomic_fetch_add(&t->abc_plain, 1);
    if (p->check)
        atomic_fetch_add(&t->checks, 1);
    int rc = CUZK_OK;
    if (p->n_parts == t->block_nparts && (int)p->part == t->block_part && t->gate)
        gate_pass(t->gate);
    if (d == t->block_dev && t->gate && atomic_exchange(&t->block_taken, 1) == 0)
        gate_pass(t->gate);
    if (p->n_parts == t->fail_nparts && (int)p->part == t->fail_part)
        rc = cuzk_fail(err, errlen, CUZK_EIO, "tb: injected device failure");
    else
        rc = tb_lose(t, p, false, err, errlen);
    if (rc == CUZK_OK) {
        if (t->span) /* a bracket recorded before t0 and after t1, so that "inner" lies inside it whatever
                      * the scheduler does (the backend's own "prove" starts after t0, by an unbounded delay)
                      */
            cuzk_engine_stage(p, "outer", false);
        int64_t t0 = cuzk_timeline_clock_us();
        rc = t->cpu->device(NULL, state, p, err, errlen);
        int64_t t1 = cuzk_timeline_clock_us(), q = (t1 - t0) / 4; /* the middle half */
        if (t->span) {
            cuzk_engine_stage(p, "outer", true);
            cuzk_engine_stage_span(p, "inner", t0 + q, t1 - q);
        }
    }
    if (tb_used(t, p))
        t->used_in_device = tb_used(t, p);
    if (t->sleep_us)
        usleep((useconds_t)t->sleep_us);
    atomic_fetch_sub(&t->in_device[d], 1);
    return rc;
}

static int tb_post(void *ctx, cuzk_engine_part *p, char *err, size_t errlen)
{
    tb_ctx *t = ctx;
    tb_check(t, p);
    if (tb_used(t, p))
        t->used_in_post = tb_used(t, p);
    free(p->pending);
    p->pending = NULL;
    atomic_fetch_add(&t->posts, 1);
    return CUZK_OK;
}

static void tb_abandon(void *ctx, cuzk_engine_part *p)
{
    tb_ctx *t = ctx;
    free(p->pending);
    p->pending = NULL;
    atomic_fetch_add(&t->abandons, 1);
}

static cuzk_engine_backend tb_backend(tb_ctx *t)
{
    memset(t, 0, sizeof *t);
    t->cpu = cuzk_engine_backend_cpu();
    t->fail_part = t->block_part = t->block_dev = -1;
    return (cuzk_engine_backend){
        .name = "test",
        .ctx = t,
        .n_devices = TB_DEVS,
        .worker_new = tb_worker_new,
        .worker_free = tb_worker_free,
        .part_bytes = tb_part_bytes,
        .pre = tb_pre,
        .device = tb_device,
        .post = tb_post,
        .abandon = tb_abandon,
        .host_alloc = tb_host_alloc,
        .host_free = tb_host_free,
        .device_eval = t->cpu->device_eval, /* the device phase is the CPU backend's */
        .packed_z = true,                   /* pre checks the packing, the CPU backend reads z */
    };
}

/* ---- helpers ------------------------------------------------------------------------------------------ */

static const uint64_t SEED = 0x5eed5eed12345678ull;

static cuzk_engine_config small_config(void)
{
    cuzk_engine_config c;
    memset(&c, 0, sizeof c);
    c.synth_workers = 2;
    c.gpu_workers = 2;
    c.gpu_threads = 1;
    c.post_workers = 1;
    c.rs_seed = SEED;
    c.budget = 1ull << 30;
    return c;
}

static cuzk_engine *engine_up(const cuzk_engine_config *c, cuzk_engine_key **key, const char *what)
{
    cuzk_engine *e = NULL;
    char err[256] = "";
    int rc = cuzk_engine_new(&e, c, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: engine_new: %s", what, err);
    if (rc != CUZK_OK)
        return NULL;
    rc = cuzk_engine_key_new(e, &PK, &CS, key, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: key_new: %s", what, err);
    if (rc != CUZK_OK) {
        cuzk_engine_free(e);
        return NULL;
    }
    return e;
}

static uint64_t submit(cuzk_engine *e, cuzk_engine_key *k, uint32_t n, cuzk_engine_prio prio, synth_ctx *c,
                       const char *what)
{
    cuzk_engine_job j = {.key = k, .n_parts = n, .prio = prio, .synth = synth_cb, .user = c};
    uint64_t id = 0;
    char err[256] = "";
    int rc = cuzk_engine_submit(e, &j, &id, err, sizeof err);
    CHECK(rc == CUZK_OK && id != 0, "%s: submit: %s", what, err);
    return id;
}

/* The proof of partition part of job id, made directly by the CPU prover with the engine's r, s. */
static bool direct_proof(uint8_t out[CUZK_GROTH16_PROOF_SIZE], uint64_t id, uint32_t part)
{
    cuzk_fr r, s;
    cuzk_engine_rs(SEED, id, part, &r, &s);
    cuzk_groth16_proof p;
    char err[256] = "";
    if (cuzk_groth16_prove(&p, &PK, &CS, Z, &r, &s, NULL, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "direct prove: %s\n", err);
        return false;
    }
    cuzk_groth16_proof_to_bytes(out, &p);
    return true;
}

/* Awaits a job that must succeed; checks every proof independently and, if out is not NULL, writes the
 * n proofs' bytes there. */
static void await_ok_bytes(cuzk_engine *e, uint64_t id, uint32_t n, bool compare,
                           uint8_t (*out)[CUZK_GROTH16_PROOF_SIZE], const char *what)
{
    cuzk_engine_result r;
    char err[256] = "";
    int rc = cuzk_engine_await(e, id, &r, err, sizeof err);
    CHECK(rc == CUZK_OK && r.status == CUZK_OK, "%s: job %llu: status %d: %s", what, (unsigned long long)id,
          rc, err);
    if (rc != CUZK_OK)
        return;
    CHECK(r.n_proofs == n && r.proofs, "%s: %zu proofs, expected %u", what, r.n_proofs, n);
    CHECK(r.t_submit <= r.t_start && r.t_start <= r.t_done, "%s: times %lld %lld %lld", what,
          (long long)r.t_submit, (long long)r.t_start, (long long)r.t_done);
    for (uint32_t p = 0; p < r.n_proofs && p < n; p++) {
        rc = cuzk_groth16_verify(&PVK, Z + 1, NI - 1, &r.proofs[p], err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: job %llu part %u: proof does not verify: %s", what, (unsigned long long)id,
              p, err);
        uint8_t got[CUZK_GROTH16_PROOF_SIZE], want[CUZK_GROTH16_PROOF_SIZE];
        cuzk_groth16_proof_to_bytes(got, &r.proofs[p]);
        if (compare)
            CHECK(direct_proof(want, id, p) && !memcmp(got, want, sizeof got),
                  "%s: job %llu part %u: proof differs from the direct prover's", what,
                  (unsigned long long)id, p);
        if (out)
            memcpy(out[p], got, sizeof got);
    }
    cuzk_engine_result_free(&r);
}

static void await_ok(cuzk_engine *e, uint64_t id, uint32_t n, bool compare, const char *what)
{
    await_ok_bytes(e, id, n, compare, NULL, what);
}

/* Awaits a job that must end with status; returns the result's failed partition and, if msg is not NULL,
 * copies its message there. */
static int await_status_msg(cuzk_engine *e, uint64_t id, int status, const char *needle, char *msg,
                            size_t msglen, const char *what)
{
    cuzk_engine_result r;
    char err[256] = "";
    int rc = cuzk_engine_await(e, id, &r, err, sizeof err);
    CHECK(rc == status && r.status == status, "%s: job %llu: status %d (%s), expected %d", what,
          (unsigned long long)id, rc, r.error, status);
    CHECK(!r.proofs && r.n_proofs == 0, "%s: a failed job hands out proofs", what);
    if (needle)
        CHECK(strstr(r.error, needle) != NULL, "%s: message '%s' lacks '%s'", what, r.error, needle);
    CHECK(!strcmp(err, r.error), "%s: err '%s' differs from the result's '%s'", what, err, r.error);
    if (msg)
        snprintf(msg, msglen, "%s", r.error);
    int part = r.failed_part;
    cuzk_engine_result_free(&r);
    return part;
}

static int await_status(cuzk_engine *e, uint64_t id, int status, const char *needle, const char *what)
{
    return await_status_msg(e, id, status, needle, NULL, 0, what);
}

/* After a scenario: nothing in flight, the budget holds the key only, then (key freed) nothing. */
static void drained(cuzk_engine *e, cuzk_engine_key *k, const char *what)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.parts_in_flight == 0 && st.jobs_unfinished == 0,
          "%s: %llu partitions, %llu jobs still in flight", what, (unsigned long long)st.parts_in_flight,
          (unsigned long long)st.jobs_unfinished);
    CHECK(st.budget_used == st.budget_keys && st.budget_keys > 0, "%s: budget %llu used, keys %llu", what,
          (unsigned long long)st.budget_used, (unsigned long long)st.budget_keys);
    cuzk_engine_key_free(k);
    cuzk_engine_get_stats(e, &st);
    CHECK(st.budget_used == 0 && st.budget_keys == 0, "%s: budget %llu after the key was freed", what,
          (unsigned long long)st.budget_used);
}

/* ---- evaluation place: host (synthesis) or device (the backend's device phase) ------------------------ */

static const char *eval_what(cuzk_engine_eval ev, const char *host, const char *device)
{
    return ev == CUZK_ENGINE_EVAL_DEVICE ? device : host;
}

static void tb_freed(tb_ctx *t, const char *what);

/* What the test backend's device phase was handed over a scenario: with host evaluation a, b, c always
 * and never a check; with device evaluation never a, b, c and a check exactly when `check`. Called after
 * cuzk_engine_free (tb_freed). */
static void tb_saw(tb_ctx *t, cuzk_engine_eval ev, bool check, const char *what)
{
    tb_freed(t, what);
    int given = atomic_load(&t->abc_given), none = atomic_load(&t->abc_none),
        checks = atomic_load(&t->checks);
    if (ev == CUZK_ENGINE_EVAL_DEVICE)
        CHECK(given == 0 && none > 0 && checks == (check ? none : 0),
              "%s: device phases with a, b, c %d, without %d, asked to check %d (device evaluation%s)", what,
              given, none, checks, check ? "" : ", no check");
    else
        CHECK(given > 0 && none == 0 && checks == 0,
              "%s: device phases with a, b, c %d, without %d, asked to check %d (host evaluation)", what,
              given, none, checks);
    /* every witness packed for pre with device evaluation (43 values fit the tail), none with host's */
    int good = atomic_load(&t->zp_good), bad = atomic_load(&t->zp_bad), unpacked = atomic_load(&t->zp_none),
        pres = atomic_load(&t->pres);
    bool dev = ev == CUZK_ENGINE_EVAL_DEVICE;
    CHECK(bad == 0 && good + unpacked == pres && (dev ? unpacked == 0 && good > 0 : good == 0),
          "%s: pre saw %d packed witnesses that unpack to z, %d that do not, %d unpacked, of %d", what, good,
          bad, unpacked, pres);
    /* pinned: what the device reads (a, b, c; the packing), and z only when it is not packed */
    int zpin = atomic_load(&t->z_pinned), zplain = atomic_load(&t->z_plain);
    CHECK((dev ? zplain == pres && zpin == 0 : zpin == pres && zplain == 0) &&
              atomic_load(&t->zp_plain) == 0 && atomic_load(&t->abc_plain) == 0,
          "%s: pre saw z pinned %d times, plain %d, of %d (%s); packings plain %d, device a, b, c plain %d",
          what, zpin, zplain, pres, dev ? "packed: plain" : "pinned", atomic_load(&t->zp_plain),
          atomic_load(&t->abc_plain));
}

/* After cuzk_engine_free: every pinned buffer went back through host_free, none of another origin did. */
static void tb_freed(tb_ctx *t, const char *what)
{
    CHECK(atomic_load(&t->pinned_live) == 0 && atomic_load(&t->foreign_frees) == 0,
          "%s: %d pinned buffers left, %d frees of memory host_alloc did not give", what,
          atomic_load(&t->pinned_live), atomic_load(&t->foreign_frees));
}

/* The constraint the corrupted witness (unsat_witness) breaks first, by the naive loop of testutil. */
static int64_t unsat_row(void)
{
    cuzk_fr z[NI + NA];
    memcpy(z, Z, sizeof z);
    unsat_witness(z);
    return test_naive_first_failure(&CS, z);
}

/* The row a failure message names ("... does not satisfy constraint N ..."), or -1. */
static int64_t named_row(const char *msg)
{
    static const char KEY[] = "does not satisfy constraint ";
    const char *p = strstr(msg, KEY);
    if (!p)
        return -1;
    p += sizeof KEY - 1;
    char *end;
    long long row = strtoll(p, &end, 10);
    return end == p || row < 0 ? -1 : (int64_t)row;
}

/* ---- scenarios ------------------------------------------------------------------------------------------
 */

static void test_proofs(void)
{
    const char *what = "proofs";
    cuzk_engine_config c = small_config();
    c.gpu_threads = 2;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;
    synth_ctx sc[3];
    uint64_t ids[3];
    for (int i = 0; i < 3; i++) {
        synth_ctx_init(&sc[i], i);
        ids[i] = submit(e, k, 3, CUZK_PRIO_NORMAL, &sc[i], what);
        CHECK(i == 0 || ids[i] > ids[i - 1], "%s: ids not increasing", what);
    }
    for (int i = 0; i < 3; i++)
        await_ok(e, ids[i], 3, true, what);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.parts_done == 9 && st.parts_failed == 0 && st.parts_dropped == 0, "%s: done %llu failed %llu",
          what, (unsigned long long)st.parts_done, (unsigned long long)st.parts_failed);
    CHECK(st.budget_peak >= st.budget_keys + cuzk_engine_key_part_bytes(k), "%s: peak %llu", what,
          (unsigned long long)st.budget_peak);
    /* an awaited job is forgotten; a second await and a cancel both refuse it */
    cuzk_engine_result r;
    char err[256] = "";
    CHECK(cuzk_engine_await(e, ids[0], &r, err, sizeof err) == CUZK_EINVAL && strstr(err, "no job"),
          "%s: second await: %s", what, err);
    CHECK(cuzk_engine_cancel(e, ids[1]) == CUZK_EINVAL, "%s: cancel of a finished job accepted", what);
    drained(e, k, what);
    cuzk_engine_free(e);
}

/* Jobs submitted while a blocker holds the only synthesis slot, in this order. */
static const struct {
    int tag;
    cuzk_engine_prio prio;
    uint32_t n;
} ORDER_JOBS[] = {
    {1, CUZK_PRIO_LOW, 2},      {2, CUZK_PRIO_NORMAL, 2}, {3, CUZK_PRIO_HIGH, 1}, {4, CUZK_PRIO_NORMAL, 2},
    {5, CUZK_PRIO_CRITICAL, 1}, {6, CUZK_PRIO_LOW, 1},    {7, CUZK_PRIO_HIGH, 2},
};
/* ... and the dispatch order the rule gives: priority, then age, then partition index. */
static const int ORDER_WANT[][2] = {{0, 0}, {5, 0}, {3, 0}, {7, 0}, {7, 1}, {2, 0},
                                    {2, 1}, {4, 0}, {4, 1}, {1, 0}, {1, 1}, {6, 0}};

static void order_scenario(bool by_budget)
{
    const char *what =
        by_budget ? "order (budget-limited, 3 synthesis workers)" : "order (1 synthesis worker)";
    enum { NJ = sizeof ORDER_JOBS / sizeof ORDER_JOBS[0] };
    cuzk_engine_config c = small_config();
    c.synth_workers = by_budget ? 3 : 1;
    c.gpu_workers = 1;
    c.queue_depth = 1;
    /* deliveries are checked in order too: keep the rest of the pipeline one-at-a-time */
    cuzk_engine_key *k;
    cuzk_engine *e = NULL;
    if (by_budget) {
        /* find the bytes of the key and of one partition with a roomy engine first */
        cuzk_engine *probe = engine_up(&c, &k, what);
        if (!probe)
            return;
        cuzk_engine_stats st;
        cuzk_engine_get_stats(probe, &st);
        c.budget = st.budget_keys + cuzk_engine_key_part_bytes(k) + cuzk_engine_key_part_bytes(k) / 2;
        cuzk_engine_key_free(k);
        cuzk_engine_free(probe);
    }
    e = engine_up(&c, &k, what);
    if (!e)
        return;
    log_reset();
    gate g;
    gate_init(&g);
    synth_ctx blocker, sc[NJ];
    synth_ctx_init(&blocker, 0);
    blocker.block_part = 0;
    blocker.gate = &g;
    uint64_t bid = submit(e, k, 1, CUZK_PRIO_LOW, &blocker, what);
    CHECK(gate_wait_entered(&g, 1), "%s: blocker never reached its callback", what);
    uint64_t ids[NJ];
    for (int i = 0; i < NJ; i++) {
        synth_ctx_init(&sc[i], ORDER_JOBS[i].tag);
        ids[i] = submit(e, k, ORDER_JOBS[i].n, ORDER_JOBS[i].prio, &sc[i], what);
    }
    gate_open(&g);
    await_ok(e, bid, 1, false, what);
    for (int i = 0; i < NJ; i++)
        await_ok(e, ids[i], ORDER_JOBS[i].n, false, what);
    enum { NW = sizeof ORDER_WANT / sizeof ORDER_WANT[0] };
    pthread_mutex_lock(&LOG.mu);
    CHECK(LOG.n == NW, "%s: %d callbacks, expected %d", what, LOG.n, (int)NW);
    for (int i = 0; i < NW && i < LOG.n; i++)
        CHECK(LOG.tag[i] == ORDER_WANT[i][0] && LOG.part[i] == ORDER_WANT[i][1],
              "%s: position %d: job tag %d part %d, expected tag %d part %d", what, i, LOG.tag[i],
              LOG.part[i], ORDER_WANT[i][0], ORDER_WANT[i][1]);
    pthread_mutex_unlock(&LOG.mu);
    if (by_budget) {
        cuzk_engine_stats st;
        cuzk_engine_get_stats(e, &st);
        CHECK(
            st.budget_peak <= c.budget && st.budget_peak < st.budget_keys + 2 * cuzk_engine_key_part_bytes(k),
            "%s: peak %llu: more than one partition was in flight", what, (unsigned long long)st.budget_peak);
    }
    drained(e, k, what);
    cuzk_engine_free(e);
    gate_destroy(&g);
}

static void test_cancel(cuzk_engine_eval ev)
{
    const char *what = eval_what(ev, "cancel", "cancel (device evaluation)");
    cuzk_engine_config c = small_config();
    c.eval = ev;
    c.synth_workers = 1;
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    c.backend = &be;
    c.devices = 2;
    c.gpu_workers = 1;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;

    /* pending: never reaches synthesis */
    gate g1;
    gate_init(&g1);
    synth_ctx blocker, x;
    synth_ctx_init(&blocker, 0);
    blocker.block_part = 0;
    blocker.gate = &g1;
    synth_ctx_init(&x, 1);
    uint64_t bid = submit(e, k, 1, CUZK_PRIO_NORMAL, &blocker, what);
    CHECK(gate_wait_entered(&g1, 1), "%s: blocker never started", what);
    uint64_t xid = submit(e, k, 3, CUZK_PRIO_NORMAL, &x, what);
    CHECK(cuzk_engine_cancel(e, xid) == CUZK_OK, "%s: cancel of a pending job refused", what);
    CHECK(cuzk_engine_cancel(e, xid) == CUZK_EINVAL, "%s: second cancel accepted", what);
    CHECK(cuzk_engine_cancel(e, 999999) == CUZK_EINVAL, "%s: cancel of an unknown job accepted", what);
    gate_open(&g1);
    await_status(e, xid, CUZK_ECANCELED, "cancelled", what);
    await_ok(e, bid, 1, true, what);
    CHECK(atomic_load(&x.calls) == 0, "%s: a cancelled pending job was synthesized %d times", what,
          atomic_load(&x.calls));

    /* in synthesis: the running partition stops at the boundary, the others are never dispatched */
    gate g2;
    gate_init(&g2);
    synth_ctx y;
    synth_ctx_init(&y, 2);
    y.block_part = 0;
    y.gate = &g2;
    uint64_t yid = submit(e, k, 3, CUZK_PRIO_NORMAL, &y, what);
    CHECK(gate_wait_entered(&g2, 1), "%s: job never reached synthesis", what);
    CHECK(cuzk_engine_cancel(e, yid) == CUZK_OK, "%s: cancel in synthesis refused", what);
    gate_open(&g2);
    CHECK(await_status(e, yid, CUZK_ECANCELED, NULL, what) == -1, "%s: failed_part set", what);
    CHECK(atomic_load(&y.calls) == 1, "%s: %d partitions synthesized after cancel", what,
          atomic_load(&y.calls));

    /* in the device phase, with another job proving on the other device meanwhile */
    gate g3;
    gate_init(&g3);
    synth_ctx w, other;
    synth_ctx_init(&w, 3);
    synth_ctx_init(&other, 4);
    int abandons0 = atomic_load(&tb.abandons);
    tb.gate = &g3;
    tb.block_part = 1;
    tb.block_nparts = 3; /* the only job of 3 partitions from here on */
    uint64_t wid = submit(e, k, 3, CUZK_PRIO_NORMAL, &w, what);
    CHECK(gate_wait_entered(&g3, 1), "%s: job never reached the device", what);
    uint64_t oid = submit(e, k, 2, CUZK_PRIO_NORMAL, &other, what);
    await_ok(e, oid, 2, true, what); /* the other device keeps proving */
    CHECK(cuzk_engine_cancel(e, wid) == CUZK_OK, "%s: cancel in the device phase refused", what);
    gate_open(&g3);
    await_status(e, wid, CUZK_ECANCELED, NULL, what);
    CHECK(atomic_load(&tb.abandons) > abandons0, "%s: the backend never abandoned the cancelled partition",
          what);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.parts_dropped >= 5, "%s: %llu partitions dropped", what, (unsigned long long)st.parts_dropped);
    drained(e, k, what);
    cuzk_engine_free(e);
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: %d worker states not freed", what,
          atomic_load(&tb.workers_live));
    tb_saw(&tb, ev, true, what);
    gate_destroy(&g1);
    gate_destroy(&g2);
    gate_destroy(&g3);
}

static void test_failures(cuzk_engine_eval ev)
{
    const char *what = eval_what(ev, "failures", "failures (device evaluation)");
    cuzk_engine_config c = small_config();
    c.eval = ev;
    c.eval_threads = 3; /* host evaluation: the first failing row must survive a parallel check */
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    c.backend = &be;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;
    synth_ctx f, u, o, good1, good2;
    synth_ctx_init(&f, 1);
    f.fail_part = 1;
    synth_ctx_init(&u, 2);
    u.unsat_part = 2;
    synth_ctx_init(&o, 3);
    o.one_part = 0;
    synth_ctx_init(&good1, 4);
    synth_ctx_init(&good2, 5);
    uint64_t fid = submit(e, k, 3, CUZK_PRIO_NORMAL, &f, what);
    uint64_t g1 = submit(e, k, 2, CUZK_PRIO_NORMAL, &good1, what);
    uint64_t uid = submit(e, k, 4, CUZK_PRIO_NORMAL, &u, what);
    uint64_t oid = submit(e, k, 2, CUZK_PRIO_NORMAL, &o, what);
    uint64_t g2 = submit(e, k, 2, CUZK_PRIO_HIGH, &good2, what);
    CHECK(await_status(e, fid, CUZK_EIO, "callback refuses partition 1", what) == 1,
          "%s: failed_part of the callback error", what);
    /* caught by synthesis (host evaluation) or by the device phase (device evaluation): either way the
     * message names the first broken row, found here by the naive loop */
    char msg[256] = "";
    CHECK(await_status_msg(e, uid, CUZK_EUNSAT, "partition 2: ", msg, sizeof msg, what) == 2,
          "%s: failed_part of the unsatisfied witness", what);
    int64_t row = unsat_row();
    CHECK(row >= 0 && named_row(msg) == row, "%s: message '%s' should name constraint %lld", what, msg,
          (long long)row);
    CHECK(await_status(e, oid, CUZK_EINVAL, "z[0]", what) == 0, "%s: failed_part of z[0]", what);
    await_ok(e, g1, 2, true, what); /* neighbours of the failing jobs */
    await_ok(e, g2, 2, true, what);

    /* device error: fails the job, the backend abandons the partition's state */
    synth_ctx d;
    synth_ctx_init(&d, 6);
    int ab0 = atomic_load(&tb.abandons);
    tb.fail_nparts = 2; /* every earlier job has been awaited: this is the only one */
    tb.fail_part = 0;
    uint64_t did = submit(e, k, 2, CUZK_PRIO_NORMAL, &d, what);
    CHECK(await_status(e, did, CUZK_EIO, "injected device failure", what) == 0, "%s: device part", what);
    CHECK(atomic_load(&tb.abandons) > ab0, "%s: device failure not abandoned", what);
    CHECK(atomic_load(&tb.mismatches) == 0, "%s: a partition changed device between phases", what);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.parts_failed == 4, "%s: %llu partitions failed, expected 4", what,
          (unsigned long long)st.parts_failed);

    /* two-phase release, seen by the backend of a lone partition: the whole working set during the device
     * phase, only the witness (n_z values) in post */
    synth_ctx lone;
    synth_ctx_init(&lone, 8);
    tb.eng = e;
    tb.probe_nparts = 1;
    await_ok(e, submit(e, k, 1, CUZK_PRIO_NORMAL, &lone, what), 1, true, what);
    tb.eng = NULL;
    uint64_t zb = (NI + NA) * sizeof(cuzk_fr);
    CHECK(tb.used_in_device == st.budget_keys + cuzk_engine_key_part_bytes(k) &&
              tb.used_in_post == st.budget_keys + zb,
          "%s: budget %llu in the device phase, %llu in post; expected %llu and %llu", what,
          (unsigned long long)tb.used_in_device, (unsigned long long)tb.used_in_post,
          (unsigned long long)(st.budget_keys + cuzk_engine_key_part_bytes(k)),
          (unsigned long long)(st.budget_keys + zb));
    drained(e, k, what);
    cuzk_engine_free(e);
    tb_saw(&tb, ev, true, what);

    /* with the check off, the unsatisfied witness is proved and caught by verification; a neighbour job
     * is unaffected */
    what = eval_what(ev, "failures (no check)", "failures (no check, device evaluation)");
    c = small_config();
    c.eval = ev;
    c.flags = CUZK_ENGINE_NO_CHECK;
    be = tb_backend(&tb);
    c.backend = &be;
    e = engine_up(&c, &k, what);
    if (!e)
        return;
    synth_ctx v, good3;
    synth_ctx_init(&v, 7);
    v.unsat_part = 1;
    synth_ctx_init(&good3, 9);
    uint64_t vid = submit(e, k, 2, CUZK_PRIO_NORMAL, &v, what);
    uint64_t g3 = submit(e, k, 2, CUZK_PRIO_NORMAL, &good3, what);
    CHECK(await_status(e, vid, CUZK_EVERIFY, "partition 1: verification", what) == 1, "%s: verify part",
          what);
    await_ok(e, g3, 2, true, what);
    drained(e, k, what);
    cuzk_engine_free(e);
    tb_saw(&tb, ev, false, what);
}

/* The evaluation place in effect for a configuration; -1 when cuzk_engine_new refuses it (err says why). */
static int eval_resolved(const cuzk_engine_config *c, char *err, size_t errlen)
{
    cuzk_engine *e = NULL;
    if (errlen)
        err[0] = 0;
    if (cuzk_engine_new(&e, c, err, errlen) != CUZK_OK) {
        CHECK(!e, "evaluation place: a refused engine was handed out");
        return -1;
    }
    cuzk_engine_config eff;
    cuzk_engine_get_config(e, &eff);
    cuzk_engine_free(e);
    return (int)eff.eval;
}

static void test_eval_config(void)
{
    const char *what = "evaluation place";
    char err[256] = "";
    cuzk_engine_config c = small_config();
    int got = eval_resolved(&c, err, sizeof err);
    CHECK(got == CUZK_ENGINE_EVAL_HOST, "%s: auto on the CPU backend resolved to %d: %s", what, got, err);
    c.eval = CUZK_ENGINE_EVAL_HOST;
    CHECK((got = eval_resolved(&c, err, sizeof err)) == CUZK_ENGINE_EVAL_HOST, "%s: host became %d", what,
          got);
    c.eval = CUZK_ENGINE_EVAL_DEVICE;
    CHECK((got = eval_resolved(&c, err, sizeof err)) == CUZK_ENGINE_EVAL_DEVICE,
          "%s: device on the CPU backend became %d: %s", what, got, err);

    /* a backend whose device phase cannot evaluate: device refused, its preference alone means nothing */
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    be.device_eval = false;
    be.prefer_device_eval = true;
    c.backend = &be;
    CHECK(eval_resolved(&c, err, sizeof err) == -1 && strstr(err, "'test'") && strstr(err, "evaluate"),
          "%s: device evaluation on a backend that cannot: '%s'", what, err);
    c.eval = CUZK_ENGINE_EVAL_AUTO;
    CHECK((got = eval_resolved(&c, err, sizeof err)) == CUZK_ENGINE_EVAL_HOST,
          "%s: auto on a backend that cannot evaluate became %d: %s", what, got, err);
    be.device_eval = true;
    CHECK((got = eval_resolved(&c, err, sizeof err)) == CUZK_ENGINE_EVAL_DEVICE,
          "%s: auto on a backend that prefers device evaluation became %d: %s", what, got, err);
    be.prefer_device_eval = false;
    CHECK((got = eval_resolved(&c, err, sizeof err)) == CUZK_ENGINE_EVAL_HOST,
          "%s: auto on a backend that can but does not prefer became %d: %s", what, got, err);
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: worker states leaked", what);

    /* evaluation threads: 0 = every online CPU, negative or above 4096 refused */
    c = small_config();
    c.eval_threads = -1;
    CHECK(eval_resolved(&c, err, sizeof err) == -1 && strstr(err, "eval_threads is -1"),
          "%s: -1 evaluation threads: '%s'", what, err);
    c.eval_threads = 4097;
    CHECK(eval_resolved(&c, err, sizeof err) == -1 && strstr(err, "eval threads <= 4096"),
          "%s: 4097 evaluation threads: '%s'", what, err);

    /* out of range */
    c = small_config();
    c.eval = (cuzk_engine_eval)3;
    CHECK(eval_resolved(&c, err, sizeof err) == -1 && strstr(err, "evaluation place 3"),
          "%s: place 3 accepted or unexplained: '%s'", what, err);
    c.eval = (cuzk_engine_eval)-1;
    CHECK(eval_resolved(&c, err, sizeof err) == -1 && strstr(err, "evaluation place -1"),
          "%s: place -1 accepted or unexplained: '%s'", what, err);

    /* the budget: device evaluation charges a partition no a, b, c (3 rows of n_constraints values); the
     * CPU backend's own estimate is the same either way, and so is the key */
    uint64_t part[2] = {0, 0}, keys[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        c = small_config();
        c.eval = i ? CUZK_ENGINE_EVAL_DEVICE : CUZK_ENGINE_EVAL_HOST;
        cuzk_engine_key *k;
        cuzk_engine *e = engine_up(&c, &k, what);
        if (!e)
            return;
        cuzk_engine_stats st;
        cuzk_engine_get_stats(e, &st);
        part[i] = cuzk_engine_key_part_bytes(k);
        keys[i] = st.budget_keys;
        drained(e, k, what);
        cuzk_engine_free(e);
    }
    uint64_t abc = 3 * (uint64_t)CS.n_constraints * sizeof(cuzk_fr);
    CHECK(part[0] > part[1] && part[0] - part[1] == abc && keys[0] == keys[1],
          "%s: partition %llu bytes (host), %llu (device), expected %llu less; keys %llu and %llu", what,
          (unsigned long long)part[0], (unsigned long long)part[1], (unsigned long long)abc,
          (unsigned long long)keys[0], (unsigned long long)keys[1]);
}

enum { EP_JOBS = 3, EP_PARTS = 3 };

/* Three jobs of three partitions on a fresh engine evaluating at ev: their ids and proof bytes (each proof
 * verified and compared with the direct prover's by await_ok_bytes). */
static void eval_proofs_run(cuzk_engine_eval ev, int eval_threads, uint64_t ids[EP_JOBS],
                            uint8_t out[EP_JOBS][EP_PARTS][CUZK_GROTH16_PROOF_SIZE], const char *what)
{
    cuzk_engine_config c = small_config();
    c.gpu_threads = 2;
    c.eval = ev;
    c.eval_threads = eval_threads;
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    c.backend = &be;
    c.devices = 2;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;
    cuzk_engine_config eff;
    cuzk_engine_get_config(e, &eff);
    CHECK(eff.eval == ev, "%s: place %d in effect, %d asked", what, (int)eff.eval, (int)ev);
    CHECK(eff.eval_threads == eval_threads || (!eval_threads && eff.eval_threads >= 1),
          "%s: %d evaluation threads in effect, %d asked", what, eff.eval_threads, eval_threads);
    synth_ctx sc[EP_JOBS];
    for (int i = 0; i < EP_JOBS; i++) {
        synth_ctx_init(&sc[i], i);
        ids[i] = submit(e, k, EP_PARTS, CUZK_PRIO_NORMAL, &sc[i], what);
    }
    for (int i = 0; i < EP_JOBS; i++)
        await_ok_bytes(e, ids[i], EP_PARTS, true, out[i], what);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.parts_done == EP_JOBS * EP_PARTS && st.parts_failed == 0, "%s: done %llu failed %llu", what,
          (unsigned long long)st.parts_done, (unsigned long long)st.parts_failed);
    /* partition buffers: witnesses and their packings only with device evaluation (so many of each as
     * the bytes say), a‖b‖c buffers too with host evaluation */
    uint64_t zb = (NI + NA) * sizeof(cuzk_fr),
             pb = cuzk_zpack_bytes(NI + NA, cuzk_zpack_default_cap(NI + NA));
    uint64_t extra = st.buf_live_bytes - st.buf_live * zb, packs = extra / (pb - zb);
    if (ev == CUZK_ENGINE_EVAL_DEVICE)
        CHECK(st.buf_live > 0 && st.buf_live_bytes >= st.buf_live * zb && extra % (pb - zb) == 0 &&
                  packs > 0 && packs < st.buf_live,
              "%s: %llu buffers of %llu bytes, expected only witness buffers of %llu and packings of %llu",
              what, (unsigned long long)st.buf_live, (unsigned long long)st.buf_live_bytes,
              (unsigned long long)zb, (unsigned long long)pb);
    else
        CHECK(st.buf_live_bytes > st.buf_live * zb, "%s: %llu buffers of %llu bytes: no a‖b‖c buffer", what,
              (unsigned long long)st.buf_live, (unsigned long long)st.buf_live_bytes);
    /* page-locked: the packings alone with device evaluation (packed), every buffer with host evaluation */
    uint64_t want_pinned = ev == CUZK_ENGINE_EVAL_DEVICE ? packs * pb : st.buf_live_bytes;
    CHECK(st.buf_pinned_bytes == want_pinned, "%s: %llu bytes pinned of %llu, expected %llu", what,
          (unsigned long long)st.buf_pinned_bytes, (unsigned long long)st.buf_live_bytes,
          (unsigned long long)want_pinned);
    drained(e, k, what);
    cuzk_engine_free(e);
    tb_saw(&tb, ev, true, what);
}

/* A witness the packing's tail cannot hold: uniform values, so it crosses whole. */
typedef struct {
    const cuzk_fr *z;
    size_t n;
} whole_witness;

static int synth_whole(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err,
                       size_t errlen)
{
    const whole_witness *w = user;
    if (n_z != w->n)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "callback: n_z %zu", n_z);
    memcpy(z, w->z, n_z * sizeof *z);
    return CUZK_OK;
}

/* The test backend's pre saw n witnesses, none packed, each in pinned memory or each not (z_pinned), and
 * the engine counted `counted` as sent whole. */
static void saw_unpacked(tb_ctx *t, cuzk_engine *e, int n, uint64_t counted, bool z_pinned, const char *what)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(atomic_load(&t->zp_none) == n && atomic_load(&t->zp_good) + atomic_load(&t->zp_bad) == 0 &&
              st.parts_unpacked == counted,
          "%s: pre saw %d unpacked witnesses of %d (%llu counted unpacked, %llu expected)", what,
          atomic_load(&t->zp_none), n, (unsigned long long)st.parts_unpacked, (unsigned long long)counted);
    CHECK(atomic_load(z_pinned ? &t->z_pinned : &t->z_plain) == n,
          "%s: z pinned in %d of %d partitions, plain in %d (expected %s)", what, atomic_load(&t->z_pinned),
          n, atomic_load(&t->z_plain), z_pinned ? "pinned" : "plain");
}

/* Packing with device evaluation: off with CUZK_ENGINE_NO_ZPACK (pre sees no packing, the proofs are the
 * same); a witness with more values other than 0 and 1 than its tail holds goes whole, counted in
 * parts_unpacked, and proves; the budget comes back whole either way. */
static void test_pack(void)
{
    const char *what = "packing off";
    cuzk_engine_config c = small_config();
    c.eval = CUZK_ENGINE_EVAL_DEVICE;
    c.flags = CUZK_ENGINE_NO_ZPACK;
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    c.backend = &be;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (e) {
        synth_ctx x;
        synth_ctx_init(&x, 1);
        await_ok(e, submit(e, k, 3, CUZK_PRIO_NORMAL, &x, what), 3, true, what);
        saw_unpacked(&tb, e, 3, 0, true, what); /* nothing packs: z is what the device reads */
        drained(e, k, what);
        cuzk_engine_free(e);
        tb_freed(&tb, what);
    }

    what = "packing, a tail too small";
    enum { UA = 400, UC = 420 };
    cuzk_cs cs;
    cuzk_groth16_params pk;
    memset(&cs, 0, sizeof cs);
    cuzk_fr *z = malloc((NI + UA) * sizeof *z);
    char err[256] = "";
    cuzk_groth16_toxic tw;
    unsigned lg;
    int rc = z && cuzk_cs_random(&cs, z, NI, UA, UC, test_rand64(), CUZK_CS_RANDOM_UNIFORM) == CUZK_OK
                 ? CUZK_OK
                 : CUZK_ENOMEM;
    if (rc == CUZK_OK && (rc = cuzk_groth16_domain_lg(&lg, &cs, err, sizeof err)) == CUZK_OK &&
        (rc = cuzk_groth16_toxic_random(&tw, (size_t)1 << lg, err, sizeof err)) == CUZK_OK)
        rc = cuzk_groth16_setup(&pk, &cs, &tw, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: circuit: %s", what, err);
    c.flags = 0;
    be = tb_backend(&tb);
    bool made = rc == CUZK_OK;
    if (made && (rc = cuzk_engine_new(&e, &c, err, sizeof err)) == CUZK_OK) {
        if ((rc = cuzk_engine_key_new(e, &pk, &cs, &k, err, sizeof err)) == CUZK_OK) {
            whole_witness w = {z, NI + UA};
            cuzk_engine_job j = {
                .key = k, .n_parts = 2, .prio = CUZK_PRIO_NORMAL, .synth = synth_whole, .user = &w};
            uint64_t id = 0;
            cuzk_engine_result r;
            rc = cuzk_engine_submit(e, &j, &id, err, sizeof err);
            if (rc == CUZK_OK)
                rc = cuzk_engine_await(e, id, &r, err, sizeof err);
            CHECK(rc == CUZK_OK && r.status == CUZK_OK && r.n_proofs == 2, "%s: %d %s", what, rc, err);
            if (rc == CUZK_OK) {
                CHECK(r.pack_us >= 0 && r.pack_us <= r.synth_us, "%s: packing %lld us of synthesis %lld us",
                      what, (long long)r.pack_us, (long long)r.synth_us);
                cuzk_engine_result_free(&r);
            }
            saw_unpacked(&tb, e, 2, 2, false, what); /* packing on: z plain, copied whole */
            /* the pool hands out the kind asked for: the small circuit's witness fits the idle packing
             * buffer (pinned, smaller than this circuit's z) and still takes plain memory */
            cuzk_engine_key *k2 = NULL;
            rc = cuzk_engine_key_new(e, &PK, &CS, &k2, err, sizeof err);
            CHECK(rc == CUZK_OK, "%s: second key: %s", what, err);
            if (rc == CUZK_OK) {
                synth_ctx x;
                synth_ctx_init(&x, 1);
                await_ok(e, submit(e, k2, 1, CUZK_PRIO_NORMAL, &x, what), 1, true, what);
                CHECK(atomic_load(&tb.z_pinned) == 0 && atomic_load(&tb.z_plain) == 3,
                      "%s: then a small circuit's z: pinned %d, plain %d of 3", what,
                      atomic_load(&tb.z_pinned), atomic_load(&tb.z_plain));
                cuzk_engine_key_free(k2);
            }
            drained(e, k, what);
        }
        cuzk_engine_free(e);
        tb_freed(&tb, what);
    }
    CHECK(!made || rc == CUZK_OK, "%s: %s", what, err);
    if (made)
        cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    free(z);
}

/* The same jobs with the same rs_seed, evaluated on the host and on the device: the same proofs. */
static void test_eval_proofs(void)
{
    static uint8_t host[EP_JOBS][EP_PARTS][CUZK_GROTH16_PROOF_SIZE],
        dev[EP_JOBS][EP_PARTS][CUZK_GROTH16_PROOF_SIZE], host3[EP_JOBS][EP_PARTS][CUZK_GROTH16_PROOF_SIZE];
    uint64_t host_ids[EP_JOBS] = {0}, dev_ids[EP_JOBS] = {0}, host3_ids[EP_JOBS] = {0};
    memset(host, 0, sizeof host);
    memset(dev, 0xff, sizeof dev);
    memset(host3, 0x5a, sizeof host3);
    eval_proofs_run(CUZK_ENGINE_EVAL_HOST, 1, host_ids, host, "proofs (host evaluation, 1 thread)");
    eval_proofs_run(CUZK_ENGINE_EVAL_DEVICE, 0, dev_ids, dev, "proofs (device evaluation)");
    eval_proofs_run(CUZK_ENGINE_EVAL_HOST, 3, host3_ids, host3, "proofs (host evaluation, 3 threads)");
    for (int i = 0; i < EP_JOBS; i++) {
        CHECK(host_ids[i] == dev_ids[i] && host_ids[i] == host3_ids[i],
              "proofs: job %d has ids %llu / %llu / %llu on the three engines", i,
              (unsigned long long)host_ids[i], (unsigned long long)dev_ids[i],
              (unsigned long long)host3_ids[i]);
        for (int p = 0; p < EP_PARTS; p++) {
            CHECK(!memcmp(host[i][p], dev[i][p], CUZK_GROTH16_PROOF_SIZE),
                  "proofs: job %d part %d: device evaluation gives other bytes than host evaluation", i, p);
            CHECK(!memcmp(host[i][p], host3[i][p], CUZK_GROTH16_PROOF_SIZE),
                  "proofs: job %d part %d: a 3-thread evaluation pool gives other bytes than 1 thread", i, p);
        }
    }
}

static void test_admission(void)
{
    const char *what = "admission";
    char err[256] = "";
    cuzk_engine *e = NULL;
    cuzk_engine_config c = small_config();
    c.synth_workers = -1;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e, "%s: negative workers accepted",
          what);
    /* key_tables: 2..4, -1 (none) or 0 (the default: none); resolved in the configuration */
    static const int bad_tables[] = {1, 5, -2, 100, INT32_MIN};
    for (size_t i = 0; i < sizeof bad_tables / sizeof bad_tables[0]; i++) {
        c = small_config();
        c.key_tables = bad_tables[i];
        CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, "key_tables"),
              "%s: key_tables %d accepted: %s", what, bad_tables[i], err);
    }
    static const int good_tables[][2] = {{0, -1}, {-1, -1}, {2, 2}, {3, 3}, {4, 4}};
    for (size_t i = 0; i < sizeof good_tables / sizeof good_tables[0]; i++) {
        c = small_config();
        c.key_tables = good_tables[i][0];
        int rc = cuzk_engine_new(&e, &c, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: key_tables %d refused: %s", what, good_tables[i][0], err);
        if (rc == CUZK_OK) {
            cuzk_engine_config got;
            cuzk_engine_get_config(e, &got);
            CHECK(got.key_tables == good_tables[i][1], "%s: key_tables %d resolved to %d, not %d", what,
                  good_tables[i][0], got.key_tables, good_tables[i][1]);
            cuzk_engine_free(e);
            e = NULL;
        }
    }
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    c = small_config();
    c.backend = &be;
    c.devices = TB_DEVS + 1;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && strstr(err, "devices"),
          "%s: more devices than the backend has: %s", what, err);

    /* measure, then build an engine whose budget holds the key and half a partition */
    cuzk_engine_key *k;
    c = small_config();
    e = engine_up(&c, &k, what);
    if (!e)
        return;
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    uint64_t key_bytes = st.budget_keys, part = cuzk_engine_key_part_bytes(k);
    CHECK(part > 3 * NC * sizeof(cuzk_fr), "%s: partition bytes %llu", what, (unsigned long long)part);

    synth_ctx sc;
    synth_ctx_init(&sc, 1);
    uint64_t id = 0;
    cuzk_engine_job j = {.key = k, .n_parts = 0, .synth = synth_cb, .user = &sc};
    CHECK(cuzk_engine_submit(e, &j, &id, err, sizeof err) == CUZK_EINVAL && id == 0, "%s: 0 partitions",
          what);
    j.n_parts = 1;
    j.prio = (cuzk_engine_prio)7;
    CHECK(cuzk_engine_submit(e, &j, &id, err, sizeof err) == CUZK_EINVAL, "%s: priority 7 accepted", what);
    j.prio = CUZK_PRIO_NORMAL;
    j.synth = NULL;
    CHECK(cuzk_engine_submit(e, &j, &id, err, sizeof err) == CUZK_EINVAL, "%s: no callback accepted", what);
    cuzk_engine_result r;
    CHECK(cuzk_engine_await(e, 12345, &r, err, sizeof err) == CUZK_EINVAL, "%s: await of an unknown job",
          what);
    cuzk_engine_key_free(k);
    cuzk_engine_free(e);

    c.budget = key_bytes + part / 2;
    e = engine_up(&c, &k, what);
    if (!e)
        return;
    j.key = k;
    j.synth = synth_cb;
    CHECK(cuzk_engine_submit(e, &j, &id, err, sizeof err) == CUZK_ERANGE && strstr(err, "budget"),
          "%s: a partition larger than the budget accepted: %s", what, err);
    cuzk_engine_free(e); /* the key still registered: freed with the engine (LeakSanitizer checks) */

    c.budget = key_bytes / 2;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_OK, "%s: engine: %s", what, err);
    CHECK(cuzk_engine_key_new(e, &PK, &CS, &k, err, sizeof err) == CUZK_ERANGE && !k,
          "%s: a key larger than the budget accepted: %s", what, err);
    cuzk_engine_free(e);

    /* a second key may not squeeze out a submitted job's partition */
    c.budget = 2 * key_bytes + part / 2;
    e = engine_up(&c, &k, what);
    if (!e)
        return;
    gate g;
    gate_init(&g);
    synth_ctx b;
    synth_ctx_init(&b, 2);
    b.block_part = 0;
    b.gate = &g;
    uint64_t bid = submit(e, k, 1, CUZK_PRIO_NORMAL, &b, what);
    CHECK(gate_wait_entered(&g, 1), "%s: blocker never started", what);
    cuzk_engine_key *k2 = NULL;
    CHECK(cuzk_engine_key_new(e, &PK, &CS, &k2, err, sizeof err) == CUZK_ERANGE && !k2,
          "%s: a key that leaves no room for a submitted partition accepted: %s", what, err);
    gate_open(&g);
    await_ok(e, bid, 1, true, what);
    drained(e, k, what);
    cuzk_engine_free(e);
    gate_destroy(&g);
}

static void test_devices(void)
{
    const char *what = "devices";
    cuzk_engine_config c = small_config();
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    tb.sleep_us = 3000;
    c.backend = &be;
    c.devices = 2;
    c.gpu_workers = 2;
    c.synth_workers = 3;
    c.queue_depth = 4;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;
    synth_ctx sc[4];
    uint64_t ids[4];
    for (int i = 0; i < 4; i++) {
        synth_ctx_init(&sc[i], i);
        ids[i] = submit(e, k, 4, CUZK_PRIO_NORMAL, &sc[i], what);
    }
    for (int i = 0; i < 4; i++)
        await_ok(e, ids[i], 4, true, what);
    for (int d = 0; d < 2; d++) {
        CHECK(atomic_load(&tb.max_in_device[d]) == 1, "%s: device %d ran %d device phases at once", what, d,
              atomic_load(&tb.max_in_device[d]));
        CHECK(atomic_load(&tb.device_calls[d]) > 0, "%s: device %d never used", what, d);
    }
    CHECK(atomic_load(&tb.device_calls[2]) == 0 && atomic_load(&tb.device_calls[3]) == 0,
          "%s: an unconfigured device was used", what);
    CHECK(atomic_load(&tb.mismatches) == 0, "%s: %d partitions changed device or worker between phases", what,
          atomic_load(&tb.mismatches));
    CHECK(atomic_load(&tb.pres) == 16 && atomic_load(&tb.posts) == 16, "%s: %d pre, %d post", what,
          atomic_load(&tb.pres), atomic_load(&tb.posts));
    drained(e, k, what);
    cuzk_engine_free(e);
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: worker states leaked", what);
}

/* No device waits on another: while device 0's first device phase is held (a kernel that does not end),
 * device 1's worker takes every other partition of the job and proves it, so the job's partitions are all
 * done but the held one. One lock, queue or worker shared across devices would stop device 1 too. */
static void test_devices_independent(void)
{
    const char *what = "devices independent";
    enum { PARTS = 6 };
    cuzk_engine_config c = small_config();
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    gate g;
    gate_init(&g);
    tb.gate = &g;
    tb.block_dev = 0;
    c.backend = &be;
    c.devices = 2;
    c.gpu_workers = 1;
    c.synth_workers = 2;
    c.queue_depth = 2;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e) {
        gate_destroy(&g);
        return;
    }
    synth_ctx sc;
    synth_ctx_init(&sc, 0);
    uint64_t id = submit(e, k, PARTS, CUZK_PRIO_NORMAL, &sc, what);
    CHECK(gate_wait_entered(&g, 1), "%s: device 0 never began a device phase", what);
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int done1 = 0;
    for (;;) { /* device 1 proves the other PARTS - 1 partitions, or 30 s pass */
        done1 = atomic_load(&tb.posts);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (done1 >= PARTS - 1 || now.tv_sec - t0.tv_sec > 30)
            break;
        usleep(2000);
    }
    CHECK(done1 == PARTS - 1, "%s: %d of the other %d partitions finished while device 0 was held", what,
          done1, PARTS - 1);
    CHECK(atomic_load(&tb.device_calls[1]) == PARTS - 1 && atomic_load(&tb.in_device[0]) == 1,
          "%s: device 1 ran %d device phases, device 0 holds %d", what, atomic_load(&tb.device_calls[1]),
          atomic_load(&tb.in_device[0]));
    gate_open(&g);
    await_ok(e, id, PARTS, true, what);
    CHECK(atomic_load(&tb.device_calls[0]) == 1, "%s: device 0 ran %d device phases", what,
          atomic_load(&tb.device_calls[0]));
    drained(e, k, what);
    cuzk_engine_free(e);
    gate_destroy(&g);
}

/* ---- a device lost (the backend's CUZK_EDEVICE) ------------------------------------------------------ */

typedef struct {
    atomic_int lost[TB_DEVS]; /* DEVICE_LOST events per device */
    atomic_int bad;           /* one on another lane, without a partition, or of no phase */
} lost_sink_ctx;

static void lost_sink(void *ctx, const cuzk_timeline_event *ev)
{
    lost_sink_ctx *c = ctx;
    if (ev->ev != CUZK_TL_DEVICE_LOST)
        return;
    char lane[16];
    snprintf(lane, sizeof lane, "gpu%d.", ev->dev);
    if (ev->dev < 0 || ev->dev >= TB_DEVS || ev->part < 0 || strncmp(ev->lane, lane, strlen(lane)) ||
        (strcmp(ev->stage, "pre") && strcmp(ev->stage, "device")))
        atomic_fetch_add(&c->bad, 1);
    else
        atomic_fetch_add(&c->lost[ev->dev], 1);
}

enum { LOST_PARTS = 4, LOST_GW = 2 };

/* An engine of `devices` devices (2 GPU workers each) on the test backend tb (be: the caller's), whose
 * devices of lose_mask are lost at their lose_at-th phase (pre when in_pre, else device), writing to tl;
 * jobs jobs of LOST_PARTS partitions submitted (ids, their witnesses sc). When every device is to be lost
 * (all_lost) a submit may come after the loss: then it must be refused with CUZK_EDEVICE and the reason,
 * and its id is 0 (never the first: nothing can be lost before there is work). NULL after a failed CHECK. */
static cuzk_engine *lost_engine(tb_ctx *tb, cuzk_engine_backend *be, int devices, uint64_t lose_mask,
                                int lose_at, bool in_pre, cuzk_timeline *tl, cuzk_engine_key **k, int jobs,
                                synth_ctx *sc, uint64_t *ids, bool all_lost, const char *what)
{
    cuzk_engine_config c = small_config();
    *be = tb_backend(tb);
    tb->lose_mask = lose_mask;
    tb->lose_at = lose_at;
    tb->lose_in_pre = in_pre;
    tb->sleep_us = 1500;
    c.backend = be;
    c.devices = devices;
    c.gpu_workers = LOST_GW;
    c.synth_workers = 3;
    c.queue_depth = 2;
    c.timeline = tl;
    cuzk_engine *e = engine_up(&c, k, what);
    for (int i = 0; e && i < jobs; i++) {
        synth_ctx_init(&sc[i], i);
        if (!all_lost || i == 0) {
            ids[i] = submit(e, *k, LOST_PARTS, CUZK_PRIO_NORMAL, &sc[i], what);
            continue;
        }
        cuzk_engine_job j = {.key = *k, .n_parts = LOST_PARTS, .synth = synth_cb, .user = &sc[i]};
        char err[256] = "";
        int rc = cuzk_engine_submit(e, &j, &ids[i], err, sizeof err);
        CHECK(rc == CUZK_OK || (rc == CUZK_EDEVICE && !ids[i] && strstr(err, "no usable device left")),
              "%s: submit %d: %d %s", what, i, rc, err);
    }
    return e;
}

/* One of two devices is lost mid-run (at its second device phase, or its first pre; whichever phase of its
 * workers finds it lost first reports it): the engine sends it no more work and its partitions move to the
 * other device, so every job still delivers proofs equal to the direct prover's; a partition moved out of
 * its device phase has its pre's state abandoned and runs pre again elsewhere; the stats and one
 * DEVICE_LOST event say which device; the budget comes back whole. */
static void device_lost_moves(bool in_pre)
{
    const char *what = in_pre ? "device lost in pre" : "device lost in the device phase";
    enum { JOBS = 4, PARTS = LOST_PARTS, GW = LOST_GW };
    lost_sink_ctx ls = {0};
    cuzk_timeline *tl = NULL;
    char err[256] = "";
    CHECK(cuzk_timeline_new(&tl, NULL, lost_sink, &ls, err, sizeof err) == CUZK_OK, "%s: timeline: %s", what,
          err);
    tb_ctx tb;
    cuzk_engine_backend be;
    cuzk_engine_key *k;
    synth_ctx sc[JOBS];
    uint64_t ids[JOBS];
    cuzk_engine *e =
        lost_engine(&tb, &be, 2, 1u << 1, in_pre ? 1 : 2, in_pre, tl, &k, JOBS, sc, ids, false, what);
    if (!e) {
        cuzk_timeline_close(tl, NULL, 0);
        return;
    }
    for (int i = 0; i < JOBS; i++)
        await_ok(e, ids[i], PARTS, true, what);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    int returned = atomic_load(&tb.lost_returns), abandons = atomic_load(&tb.abandons);
    CHECK(st.devices_lost == 1u << 1 && st.devices_usable == 1, "%s: devices lost %#llx, usable %d", what,
          (unsigned long long)st.devices_lost, st.devices_usable);
    /* every phase that found the device lost moved its partition: no more than the workers that were busy
     * there when it was lost */
    CHECK(returned >= 1 && returned <= GW && st.parts_moved == (uint64_t)returned,
          "%s: %d phases reported the loss, %llu partitions moved", what, returned,
          (unsigned long long)st.parts_moved);
    CHECK(st.parts_done == JOBS * PARTS && st.parts_failed == 0, "%s: %llu partitions done, %llu failed",
          what, (unsigned long long)st.parts_done, (unsigned long long)st.parts_failed);
    /* a partition lost in its device phase had run pre there: abandoned, then pre again elsewhere */
    int pres = atomic_load(&tb.pres), posts = atomic_load(&tb.posts),
        in_dev = atomic_load(&tb.lost_in_device);
    CHECK(posts == JOBS * PARTS && pres == JOBS * PARTS + in_dev && abandons == in_dev &&
              (!in_pre || !in_dev),
          "%s: %d pre, %d post, %d abandoned (%d moved, %d of them out of the device phase)", what, pres,
          posts, abandons, returned, in_dev);
    int dev1 = atomic_load(&tb.device_calls[1]);
    CHECK(in_pre ? dev1 == 0 : dev1 >= tb.lose_at && dev1 <= tb.lose_at + GW - 1,
          "%s: device 1 ran %d device phases (lost at its phase %d)", what, dev1, tb.lose_at);
    CHECK(atomic_load(&tb.mismatches) == 0, "%s: %d phases saw another device or worker than their pre", what,
          atomic_load(&tb.mismatches));
    /* Then one-partition jobs one at a time, each queued while every worker waits for work, the lost
     * device's too: the queued partition must reach a worker of device 0 (a wake-up that reached only one
     * waiting worker could wake a lost one, which leaves it, and the job would wait forever). */
    for (int i = 0; i < 12; i++) {
        synth_ctx one;
        synth_ctx_init(&one, i);
        uint64_t id = submit(e, k, 1, CUZK_PRIO_NORMAL, &one, what);
        struct timespec t0, now;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            usleep(1000);
            cuzk_engine_get_stats(e, &st);
            clock_gettime(CLOCK_MONOTONIC, &now);
        } while (st.jobs_unfinished && now.tv_sec - t0.tv_sec < 20);
        if (st.jobs_unfinished) { /* it would never finish: report and stop here rather than hang */
            CHECK(0, "%s: a one-partition job queued after the loss was not proved in 20 s", what);
            exit(test_finish("test_engine"));
        }
        await_ok(e, id, 1, true, what);
    }
    drained(e, k, what);
    cuzk_engine_free(e);
    CHECK(cuzk_timeline_close(tl, err, sizeof err) == CUZK_OK, "%s: timeline close: %s", what, err);
    CHECK(atomic_load(&ls.lost[1]) == 1 && atomic_load(&ls.lost[0]) == 0 && atomic_load(&ls.bad) == 0,
          "%s: DEVICE_LOST events: device 0 %d, device 1 %d, malformed %d", what, atomic_load(&ls.lost[0]),
          atomic_load(&ls.lost[1]), atomic_load(&ls.bad));
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: worker states leaked", what);
    tb_freed(&tb, what);
}

/* Every device is lost (one device at its second device phase; two devices at their first): every job fails
 * with CUZK_EDEVICE and a message naming the lost device, nothing hangs, a later submit is refused the
 * same way, and the budget comes back whole. */
static void device_lost_all(int devices)
{
    char what[64];
    snprintf(what, sizeof what, "all of %d device%s lost", devices, devices == 1 ? "" : "s");
    enum { JOBS = 3, PARTS = LOST_PARTS };
    tb_ctx tb;
    cuzk_engine_backend be;
    cuzk_engine_key *k;
    synth_ctx sc[JOBS];
    uint64_t ids[JOBS];
    cuzk_engine *e = lost_engine(&tb, &be, devices, (1u << devices) - 1, devices == 1 ? 2 : 1, false, NULL,
                                 &k, JOBS, sc, ids, true, what);
    if (!e)
        return;
    char msg[256] = "";
    for (int i = 0; i < JOBS; i++) {
        if (!ids[i])
            continue; /* refused at submit, after the loss (lost_engine checked the reason) */
        await_status_msg(e, ids[i], CUZK_EDEVICE, "no usable device left", msg, sizeof msg, what);
        CHECK(strstr(msg, "device ") && strstr(msg, " lost in the ") && strstr(msg, "fell off the bus"),
              "%s: job %d's message '%s' does not say what was lost", what, i, msg);
    }
    cuzk_engine_job j = {
        .key = k, .n_parts = 1, .prio = CUZK_PRIO_CRITICAL, .synth = synth_cb, .user = &sc[0]};
    uint64_t id = 1;
    char err[256] = "";
    int rc = cuzk_engine_submit(e, &j, &id, err, sizeof err);
    CHECK(rc == CUZK_EDEVICE && id == 0 && strstr(err, "no usable device left") && strstr(err, "fell off"),
          "%s: a submit after the loss: %d '%s'", what, rc, err);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.devices_usable == 0 && st.devices_lost == (uint64_t)tb.lose_mask && st.parts_done <= PARTS &&
              st.parts_moved <= (uint64_t)(2 * devices),
          "%s: usable %d, lost %#llx, %llu partitions done, %llu moved", what, st.devices_usable,
          (unsigned long long)st.devices_lost, (unsigned long long)st.parts_done,
          (unsigned long long)st.parts_moved);
    drained(e, k, what);
    cuzk_engine_free(e);
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: worker states leaked", what);
    tb_freed(&tb, what);
}

static void test_device_lost(void)
{
    device_lost_moves(false);
    device_lost_moves(true);
    device_lost_all(1);
    device_lost_all(2);
}

/* Configurations drawn from edge values (zeros for defaults, ones, negatives, too many, budgets below a
 * partition and at the limit, unknown evaluation places and flags): each is refused with a message, or
 * makes an engine that proves two small jobs (every proof verified) or fails them with a message, and
 * returns its whole budget; none crashes or hangs. */
static int64_t pick_i(const int64_t *v, size_t n)
{
    return v[test_rand64() % n];
}
#define PICK(arr) pick_i(arr, sizeof arr / sizeof arr[0])

static void test_random_configs(void)
{
    static const int64_t counts[] = {0, 1, 2, 3, -1, 64, 65, INT32_MIN};
    static const int64_t threads[] = {0, 1, 2, 4, -1, -7};
    static const int64_t evals[] = {0, 1, 2, 3, -1};
    static const int64_t flags[] = {0, 1, 2, 0xff};
    int made = 0, proved = 0, refused_cfg = 0, refused_job = 0;
    for (int i = 0; i < 160; i++) {
        char what[64];
        snprintf(what, sizeof what, "random config %d", i);
        cuzk_engine_config c = small_config(); /* a good one, then one to three fields at an edge */
        uint64_t budgets[] = {0, 1, 1u << 16, 1u << 20, 1ull << 30, UINT64_MAX};
        for (int f = 0, nf = 1 + (int)(test_rand64() % 3); f < nf; f++) {
            switch (test_rand64() % 14) {
            case 0: c.devices = (int)PICK(counts); break;
            case 1: {
                uint64_t r = test_rand64() % 4;
                c.device_mask = r == 0 ? 0 : r == 1 ? (test_rand64() & 0xf) : r == 2 ? 1ull << 63 : 0xaull;
                break;
            }
            case 2: c.synth_workers = (int)PICK(threads); break;
            case 3: c.gpu_workers = (int)PICK(threads); break;
            case 4: c.gpu_threads = (int)PICK(threads); break;
            case 5: c.eval_threads = (int)PICK(threads); break;
            case 6: c.post_workers = (int)PICK(threads); break;
            case 7: c.queue_depth = (int)PICK(counts); break;
            case 8: c.pool_idle = (int)PICK(threads); break;
            case 9:
            case 10: c.budget = budgets[test_rand64() % 6]; break;
            case 11: c.eval = (cuzk_engine_eval)PICK(evals); break;
            case 12: c.flags = (unsigned)PICK(flags); break;
            default: c.key_vram = test_rand64() % 2 ? 1 : UINT64_MAX; break;
            }
        }
        cuzk_engine *e = NULL;
        char err[256] = "";
        if (cuzk_engine_new(&e, &c, err, sizeof err) != CUZK_OK) {
            CHECK(e == NULL && err[0], "%s: refused without a message or left an engine", what);
            refused_cfg++;
            continue;
        }
        made++;
        cuzk_engine_config got;
        cuzk_engine_get_config(e, &got);
        CHECK(cuzk_engine_device_set(&c) == got.device_mask, "%s: device set %#llx before, %#llx made", what,
              (unsigned long long)cuzk_engine_device_set(&c), (unsigned long long)got.device_mask);
        cuzk_engine_key *k = NULL;
        if (cuzk_engine_key_new(e, &PK, &CS, &k, err, sizeof err) != CUZK_OK) {
            CHECK(err[0], "%s: key refused without a message", what);
            refused_cfg++;
            cuzk_engine_free(e);
            continue;
        }
        synth_ctx sc[2];
        uint64_t ids[2] = {0, 0};
        for (int j = 0; j < 2; j++) {
            synth_ctx_init(&sc[j], j);
            cuzk_engine_job job = {
                .key = k, .n_parts = 2, .prio = CUZK_PRIO_NORMAL, .synth = synth_cb, .user = &sc[j]};
            err[0] = '\0';
            if (cuzk_engine_submit(e, &job, &ids[j], err, sizeof err) != CUZK_OK) {
                CHECK(ids[j] == 0 && err[0], "%s: job refused without a message", what);
                refused_job++;
            }
        }
        for (int j = 0; j < 2; j++) {
            if (!ids[j])
                continue;
            cuzk_engine_result res;
            int rc = cuzk_engine_await(e, ids[j], &res, err, sizeof err);
            if (rc == CUZK_OK) {
                CHECK(res.n_proofs == 2, "%s: %zu proofs", what, res.n_proofs);
                for (size_t p = 0; p < res.n_proofs; p++)
                    CHECK(cuzk_groth16_verify(&PVK, Z + 1, NI - 1, &res.proofs[p], err, sizeof err) ==
                              CUZK_OK,
                          "%s: a proof does not verify: %s", what, err);
                proved++;
            } else {
                CHECK(res.error[0], "%s: job failed (%d) without a message", what, rc);
            }
            cuzk_engine_result_free(&res);
        }
        drained(e, k, what);
        cuzk_engine_free(e);
    }
    printf("random configs: %d engines made (%d jobs proved, %d refused), %d configs or keys refused\n", made,
           proved, refused_job, refused_cfg);
    CHECK(made > 10 && proved > 10 && refused_cfg > 10,
          "random configs: too few of each outcome (%d, %d, %d)", made, proved, refused_cfg);
}

/* Devices picked by number (config.device_mask): only those get workers and partitions, each under its
 * own lock; the part, the lanes and every TIMELINE event name the device by its number; a list that
 * disagrees with the count, or names a device the backend lacks, is refused. */
typedef struct {
    atomic_int events, bad_dev, bad_lane;
} mask_sink_ctx;

static void mask_sink(void *ctx, const cuzk_timeline_event *ev)
{
    mask_sink_ctx *m = ctx;
    atomic_fetch_add(&m->events, 1);
    if (ev->dev == -1)
        return;
    if (ev->dev != 1 && ev->dev != 3)
        atomic_fetch_add(&m->bad_dev, 1);
    char want[32];
    snprintf(want, sizeof want, "gpu%d.", (int)ev->dev);
    if (strncmp(ev->lane, want, strlen(want)) != 0)
        atomic_fetch_add(&m->bad_lane, 1);
}

/* Device lists: parsed against the bits they name, refused when malformed, and printed back. */
static void test_device_list(void)
{
    const char *what = "device list";
    static const struct {
        const char *s;
        uint64_t mask; /* 0: refused */
        const char *printed;
    } cases[] = {
        {"0", 1, "0"},
        {"1,3", 0xa, "1,3"},
        {"3,1", 0xa, "1,3"},
        {"0-3", 0xf, "0-3"},
        {"0-1", 3, "0,1"},
        {"2-2,5", 0x24, "2,5"},
        {"0-3,6,8-10", 0x74f, "0-3,6,8-10"},
        {"63", 1ull << 63, "63"},
        {"0-63", ~0ull, "0-63"},
        {"007", 0x80, "7"},
        {"", 0, NULL},
        {"64", 0, NULL},
        {"100", 0, NULL},
        {"1,1", 0, NULL},
        {"0-2,2", 0, NULL},
        {"3-1", 0, NULL},
        {"1,", 0, NULL},
        {",1", 0, NULL},
        {"1-", 0, NULL},
        {"-1", 0, NULL},
        {"1 ,3", 0, NULL},
        {"a", 0, NULL},
        {"1;3", 0, NULL},
        {"99999999999999999999", 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t m = 0x5a5a;
        int rc = cuzk_engine_device_list_parse(cases[i].s, &m);
        if (!cases[i].mask) {
            CHECK(rc == CUZK_EINVAL && m == 0x5a5a, "%s: '%s' accepted (mask %#llx)", what, cases[i].s,
                  (unsigned long long)m);
            continue;
        }
        CHECK(rc == CUZK_OK && m == cases[i].mask, "%s: '%s' gave rc %d, mask %#llx", what, cases[i].s, rc,
              (unsigned long long)m);
        char buf[256];
        cuzk_engine_device_list_format(cases[i].mask, buf, sizeof buf);
        CHECK(!strcmp(buf, cases[i].printed), "%s: %#llx printed '%s'", what,
              (unsigned long long)cases[i].mask, buf);
    }
    CHECK(cuzk_engine_device_list_parse(NULL, &(uint64_t){0}) == CUZK_EINVAL, "%s: NULL accepted", what);
    /* random masks print to a list that parses back to them; truncation leaves a terminated prefix */
    uint64_t x = 0x1234567890abcdefull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t mask = i % 3 == 0 ? x : i % 3 == 1 ? x & (x >> 1) : x | (x >> 2);
        if (!mask)
            continue;
        char buf[256], small[8];
        cuzk_engine_device_list_format(mask, buf, sizeof buf);
        uint64_t back = 0;
        CHECK(cuzk_engine_device_list_parse(buf, &back) == CUZK_OK && back == mask,
              "%s: %#llx -> '%s' -> %#llx", what, (unsigned long long)mask, buf, (unsigned long long)back);
        cuzk_engine_device_list_format(mask, small, sizeof small);
        CHECK(strlen(small) < sizeof small && !strncmp(small, buf, strlen(small)),
              "%s: truncated '%s' of '%s'", what, small, buf);
    }
}

static void test_device_mask(void)
{
    const char *what = "device mask";
    char err[256] = "";
    cuzk_engine *e = NULL;
    tb_ctx tb;
    cuzk_engine_backend be = tb_backend(&tb);
    cuzk_engine_config c = small_config();
    c.backend = &be;
    c.device_mask = 1ull << TB_DEVS | 1;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, "device 4"),
          "%s: a device the backend lacks: %s", what, err);
    c.device_mask = (1ull << (TB_DEVS + 1)) - 1; /* more devices than the backend has, too: named by number */
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, "device 4"),
          "%s: devices 0..4 of 4: %s", what, err);
    c.device_mask = 1ull << 63;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, "device 63"),
          "%s: device 63 of 4: %s", what, err);
    c.device_mask = 0xa;
    c.devices = 3;
    CHECK(cuzk_engine_new(&e, &c, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, "names 2"),
          "%s: a count that disagrees with the list: %s", what, err);
    CHECK(atomic_load(&tb.worker_devs) == 0, "%s: workers made by a refused engine", what);

    /* the set an engine will drive, known before it is made: the list, else the first `devices`, else all */
    cuzk_engine_config d = c;
    int made = 0;
    for (int n = 0; n <= TB_DEVS; n++)
        for (uint64_t m = 0; m < 1u << TB_DEVS; m += 5) {
            d.devices = n;
            d.device_mask = m;
            if (cuzk_engine_new(&e, &d, err, sizeof err) != CUZK_OK)
                continue;
            cuzk_engine_config got;
            cuzk_engine_get_config(e, &got);
            CHECK(cuzk_engine_device_set(&d) == got.device_mask &&
                      (m || got.device_mask == (1ull << got.devices) - 1),
                  "%s: %d devices, list %#llx: set %#llx, engine %#llx", what, n, (unsigned long long)m,
                  (unsigned long long)cuzk_engine_device_set(&d), (unsigned long long)got.device_mask);
            cuzk_engine_free(e);
            e = NULL;
            made++;
        }
    CHECK(made == 11, "%s: %d of the 11 consistent count/list pairs made an engine", what, made);
    atomic_store(&tb.worker_devs, 0); /* the engines above made workers */

    mask_sink_ctx ms;
    memset(&ms, 0, sizeof ms);
    cuzk_timeline *tl = NULL;
    CHECK(cuzk_timeline_new(&tl, NULL, mask_sink, &ms, err, sizeof err) == CUZK_OK, "%s: timeline: %s", what,
          err);
    if (!tl)
        return;
    c = small_config();
    c.backend = &be;
    c.timeline = tl;
    c.device_mask = 0xa; /* devices 1 and 3 */
    c.synth_workers = 3;
    tb.sleep_us = 3000;
    cuzk_engine_key *k;
    e = engine_up(&c, &k, what);
    if (e) {
        cuzk_engine_config got;
        cuzk_engine_get_config(e, &got);
        CHECK(got.devices == 2 && got.device_mask == 0xa && got.queue_depth == 4,
              "%s: resolved %d devices, "
              "mask %#llx, queue %d",
              what, got.devices, (unsigned long long)got.device_mask, got.queue_depth);
        CHECK(cuzk_engine_device_id(&got, 0) == 1 && cuzk_engine_device_id(&got, 1) == 3 &&
                  cuzk_engine_device_id(&got, 2) == -1,
              "%s: device ids %d %d %d", what, cuzk_engine_device_id(&got, 0), cuzk_engine_device_id(&got, 1),
              cuzk_engine_device_id(&got, 2));
        CHECK(atomic_load(&tb.worker_devs) == 0xa, "%s: workers made for devices %#llx", what,
              (unsigned long long)atomic_load(&tb.worker_devs));
        synth_ctx sc[4];
        uint64_t ids[4];
        for (int i = 0; i < 4; i++) {
            synth_ctx_init(&sc[i], 10 + i);
            ids[i] = submit(e, k, 3, CUZK_PRIO_NORMAL, &sc[i], what);
        }
        for (int i = 0; i < 4; i++)
            await_ok(e, ids[i], 3, true, what);
        CHECK(atomic_load(&tb.device_calls[0]) == 0 && atomic_load(&tb.device_calls[2]) == 0,
              "%s: a device outside the list ran %d + %d partitions", what, atomic_load(&tb.device_calls[0]),
              atomic_load(&tb.device_calls[2]));
        CHECK(atomic_load(&tb.device_calls[1]) > 0 && atomic_load(&tb.device_calls[3]) > 0 &&
                  atomic_load(&tb.device_calls[1]) + atomic_load(&tb.device_calls[3]) == 12,
              "%s: devices 1 and 3 ran %d + %d of 12 partitions", what, atomic_load(&tb.device_calls[1]),
              atomic_load(&tb.device_calls[3]));
        CHECK(atomic_load(&tb.max_in_device[1]) == 1 && atomic_load(&tb.max_in_device[3]) == 1,
              "%s: %d and %d device phases at once on one device", what, atomic_load(&tb.max_in_device[1]),
              atomic_load(&tb.max_in_device[3]));
        CHECK(atomic_load(&tb.mismatches) == 0, "%s: %d partitions changed device between phases", what,
              atomic_load(&tb.mismatches));
        drained(e, k, what);
        cuzk_engine_free(e);
    }
    CHECK(cuzk_timeline_close(tl, err, sizeof err) == CUZK_OK, "%s: close: %s", what, err);
    CHECK(atomic_load(&ms.events) > 0 && atomic_load(&ms.bad_dev) == 0 && atomic_load(&ms.bad_lane) == 0,
          "%s: %d events, %d on another device, %d on a lane of another device", what,
          atomic_load(&ms.events), atomic_load(&ms.bad_dev), atomic_load(&ms.bad_lane));
    CHECK(atomic_load(&tb.workers_live) == 0, "%s: worker states leaked", what);
}

/* ---- TIMELINE -------------------------------------------------------------------------------------------
 */

static const char *const EV[] = {"JOB_SUBMIT", "JOB_START", "SYNTH_START",    "SYNTH_END",
                                 "GPU_QUEUE",  "LOCK_WAIT", "LOCK_ACQ",       "KERNEL_START",
                                 "KERNEL_END", "LOCK_REL",  "FINALIZE_START", "FINALIZE_END",
                                 "DELIVER",    "JOB_FAIL",  "JOB_CANCEL"};
enum { NEV = sizeof EV / sizeof EV[0] };

typedef struct {
    long long t;
    int ev;
    unsigned long long job;
    int part, dev;
    char lane[32], stage[32];
} tl_line;

/* Parses one line in the exact format; false if anything differs. */
static bool tl_parse(const char *s, tl_line *out)
{
    char ev[32];
    int n = 0;
    if (sscanf(
            s,
            "{\"t_us\":%lld,\"ev\":\"%31[A-Z_]\",\"job\":%llu,\"part\":%d,\"lane\":\"%31[^\"]\",\"dev\":%d,"
            "\"stage\":\"%n",
            &out->t, ev, &out->job, &out->part, out->lane, &out->dev, &n) != 6 ||
        !n)
        return false;
    const char *st = s + n, *q = strchr(st, '"');
    if (!q || (size_t)(q - st) >= sizeof out->stage || strcmp(q, "\"}\n") != 0)
        return false;
    memcpy(out->stage, st, (size_t)(q - st));
    out->stage[q - st] = 0;
    for (out->ev = 0; out->ev < NEV && strcmp(EV[out->ev], ev); out->ev++)
        ;
    /* the numbers must be written the canonical way: re-print and compare */
    char again[256];
    snprintf(again, sizeof again,
             "{\"t_us\":%lld,\"ev\":\"%s\",\"job\":%llu,\"part\":%d,\"lane\":\"%s\",\"dev\":%d,\"stage\":\"%"
             "s\"}\n",
             out->t, ev, out->job, out->part, out->lane, out->dev, out->stage);
    return out->ev < NEV && !strcmp(again, s);
}

enum { MAX_LANES = 32 };

typedef struct {
    char name[32];
    int open[NEV]; /* START-kind events open on this lane */
    unsigned long long job;
    int part;
} lane_state;

static int sink_count;
static void count_sink(void *ctx, const cuzk_timeline_event *ev)
{
    (void)ctx;
    (void)ev;
    sink_count++; /* called under the writer's mutex */
}

/* The small configuration on the test backend (tb, be: the caller's), writing to tl. */
static cuzk_engine_config timeline_config(cuzk_timeline *tl, tb_ctx *tb, cuzk_engine_backend *be)
{
    cuzk_engine_config c = small_config();
    c.timeline = tl;
    *be = tb_backend(tb);
    c.backend = be;
    return c;
}

/* A device-timed stage (cuzk_engine_stage_span) is recorded as a KERNEL pair of its own, on the worker's
 * lane, with the times given: inside the "outer" stage the test backend records around the times it
 * measured, and after that stage's END. */
typedef struct {
    int n_inner, n_prove, n_outer, bad;
    int64_t outer_start[8][4], outer_end[8][4], inner_start[8][4];
} span_sink_ctx;

static void span_sink(void *ctx, const cuzk_timeline_event *ev)
{
    span_sink_ctx *c = ctx;
    if (ev->ev != CUZK_TL_KERNEL_START && ev->ev != CUZK_TL_KERNEL_END)
        return;
    if (ev->job >= 8 || ev->part < 0 || ev->part >= 4 || strncmp(ev->lane, "gpu", 3)) {
        c->bad++;
        return;
    }
    bool start = ev->ev == CUZK_TL_KERNEL_START;
    if (!strcmp(ev->stage, "prove")) {
        c->n_prove += !start;
    } else if (!strcmp(ev->stage, "outer")) {
        if (start)
            c->outer_start[ev->job][ev->part] = ev->t_us;
        else {
            c->outer_end[ev->job][ev->part] = ev->t_us;
            c->n_outer++;
        }
    } else if (!strcmp(ev->stage, "inner")) {
        if (start)
            c->inner_start[ev->job][ev->part] = ev->t_us;
        else {
            /* the pair arrives after outer's END, and lies inside outer */
            int64_t s = c->inner_start[ev->job][ev->part];
            if (!c->outer_end[ev->job][ev->part] || s < c->outer_start[ev->job][ev->part] || ev->t_us < s ||
                ev->t_us > c->outer_end[ev->job][ev->part])
                c->bad++;
            c->n_inner++;
        }
    } else
        c->bad++;
}

static void test_stage_span(void)
{
    const char *what = "stage span";
    cuzk_timeline *tl = NULL;
    char err[256] = "";
    span_sink_ctx sc;
    memset(&sc, 0, sizeof sc);
    CHECK(cuzk_timeline_new(&tl, NULL, span_sink, &sc, err, sizeof err) == CUZK_OK, "%s: new: %s", what, err);
    if (!tl)
        return;
    tb_ctx tb;
    cuzk_engine_backend be;
    cuzk_engine_config c = timeline_config(tl, &tb, &be);
    tb.span = true;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (e) {
        synth_ctx s1, s2;
        synth_ctx_init(&s1, 1);
        synth_ctx_init(&s2, 2);
        uint64_t a = submit(e, k, 3, CUZK_PRIO_NORMAL, &s1, what);
        uint64_t b = submit(e, k, 2, CUZK_PRIO_NORMAL, &s2, what);
        await_ok(e, a, 3, false, what);
        await_ok(e, b, 2, false, what);
        drained(e, k, what);
        cuzk_engine_free(e);
    }
    CHECK(cuzk_timeline_close(tl, err, sizeof err) == CUZK_OK, "%s: close: %s", what, err);
    CHECK(sc.n_prove == 5 && sc.n_outer == 5 && sc.n_inner == 5 && sc.bad == 0,
          "%s: %d prove, %d outer, %d inner stages, %d misplaced", what, sc.n_prove, sc.n_outer, sc.n_inner,
          sc.bad);
}

static void test_timeline(void)
{
    const char *what = "timeline";
    char path[] = "/tmp/cuzk_test_engine_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "%s: mkstemp", what);
    if (fd < 0)
        return;
    close(fd);
    unlink(path); /* the writer creates it atomically */
    cuzk_timeline *tl = NULL;
    char err[256] = "";
    sink_count = 0;
    CHECK(cuzk_timeline_new(&tl, path, count_sink, NULL, err, sizeof err) == CUZK_OK, "%s: new: %s", what,
          err);
    if (!tl)
        return;
    tb_ctx tb;
    cuzk_engine_backend be;
    cuzk_engine_config c = timeline_config(tl, &tb, &be);
    c.devices = 2;
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e) {
        cuzk_timeline_close(tl, NULL, 0);
        return;
    }
    gate g;
    gate_init(&g);
    synth_ctx ok1, ok2, bad, canc;
    synth_ctx_init(&ok1, 1);
    synth_ctx_init(&ok2, 2);
    synth_ctx_init(&bad, 3);
    bad.unsat_part = 1;
    synth_ctx_init(&canc, 4);
    canc.block_part = 0;
    canc.gate = &g;
    uint64_t a = submit(e, k, 3, CUZK_PRIO_NORMAL, &ok1, what);
    uint64_t b = submit(e, k, 2, CUZK_PRIO_HIGH, &bad, what);
    uint64_t cc = submit(e, k, 2, CUZK_PRIO_NORMAL, &canc, what);
    uint64_t d = submit(e, k, 2, CUZK_PRIO_LOW, &ok2, what);
    CHECK(gate_wait_entered(&g, 1), "%s: blocker never started", what);
    cuzk_engine_cancel(e, cc);
    gate_open(&g);
    await_ok(e, a, 3, false, what);
    await_status(e, b, CUZK_EUNSAT, NULL, what);
    await_status(e, cc, CUZK_ECANCELED, NULL, what);
    await_ok(e, d, 2, false, what);
    drained(e, k, what);
    cuzk_engine_free(e);
    gate_destroy(&g);
    CHECK(cuzk_timeline_close(tl, err, sizeof err) == CUZK_OK, "%s: close: %s", what, err);

    size_t len;
    char *text = test_read_file(path, &len);
    CHECK(text != NULL, "%s: %s not written", what, path);
    char tmp[sizeof path + 32];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0, "%s: temporary file left behind", what);
    if (!text)
        return;
    lane_state lanes[MAX_LANES];
    int n_lanes = 0, n_lines = 0, bad_lines = 0, unbalanced = 0;
    int outcome[8] = {0}, submitted[8] = {0}, kernels = 0;
    long long last_t = -1;
    static const int PAIRS[][2] = {{2, 3}, {6, 9}, {7, 8}, {10, 11}}; /* SYNTH, LOCK, KERNEL, FINALIZE */
    for (char *line = text; *line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        char save = nl[1];
        nl[1] = 0;
        tl_line l;
        n_lines++;
        if (!tl_parse(line, &l)) {
            bad_lines++;
            fprintf(stderr, "bad timeline line %d: %s", n_lines, line);
        } else {
            if (l.t < last_t)
                bad_lines++;
            last_t = l.t;
            bool job_level = l.ev == 0 || l.ev == 1 || l.ev >= 12;
            if (job_level) {
                if (strcmp(l.lane, "-") || l.dev != -1 || (l.part != -1 && l.ev != 13) || l.job >= 8)
                    bad_lines++;
                else if (l.ev == 0)
                    submitted[l.job]++;
                else if (l.ev >= 12)
                    outcome[l.job]++;
                if (l.ev == 12 && (l.job == b || l.job == cc))
                    bad_lines++;
            } else {
                int li = 0;
                while (li < n_lanes && strcmp(lanes[li].name, l.lane))
                    li++;
                if (li == n_lanes && n_lanes < MAX_LANES) {
                    memset(&lanes[n_lanes], 0, sizeof lanes[0]);
                    snprintf(lanes[n_lanes].name, sizeof lanes[0].name, "%s", l.lane);
                    n_lanes++;
                }
                if (li == MAX_LANES)
                    continue;
                bool gpu = !strncmp(l.lane, "gpu", 3), synth = !strncmp(l.lane, "synth.", 6),
                     post = !strncmp(l.lane, "post.", 5);
                bool where_ok =
                    ((l.ev == 2 || l.ev == 3 || l.ev == 4) && synth && l.dev == -1) ||
                    (l.ev >= 5 && l.ev <= 9 && gpu && l.dev >= 0 && l.dev < 2 && l.lane[3] == '0' + l.dev) ||
                    ((l.ev == 10 || l.ev == 11) && post && l.dev == -1);
                if (!where_ok || l.part < 0)
                    bad_lines++;
                if (l.ev == 7) {
                    kernels++;
                    if (strcmp(l.stage, "prove"))
                        bad_lines++;
                }
                lane_state *ls = &lanes[li];
                for (int p = 0; p < 4; p++) {
                    if (l.ev == PAIRS[p][0]) {
                        if (ls->open[p]++)
                            unbalanced++;
                        if (p == 0 || p == 1) {
                            ls->job = l.job;
                            ls->part = l.part;
                        }
                    } else if (l.ev == PAIRS[p][1]) {
                        if (--ls->open[p] != 0)
                            unbalanced++;
                        if ((p == 0 || p == 1) && (ls->job != l.job || ls->part != l.part))
                            unbalanced++;
                    }
                }
                /* kernels only while the lock is held */
                if ((l.ev == 7 || l.ev == 8) && !ls->open[1])
                    unbalanced++;
            }
        }
        nl[1] = save;
        line = nl + 1;
    }
    for (int i = 0; i < n_lanes; i++)
        for (int p = 0; p < 4; p++)
            if (lanes[i].open[p])
                unbalanced++;
    CHECK(n_lines > 30 && n_lines == sink_count, "%s: %d lines, the sink saw %d", what, n_lines, sink_count);
    CHECK(bad_lines == 0, "%s: %d malformed or misplaced lines", what, bad_lines);
    CHECK(unbalanced == 0, "%s: %d unbalanced START/END pairs", what, unbalanced);
    CHECK(kernels >= 3 + 2, "%s: %d kernel stages, expected at least the 5 delivered partitions", what,
          kernels);
    for (uint64_t id = 1; id < 8; id++) {
        bool ours = id == a || id == b || id == cc || id == d;
        CHECK(submitted[id] == (ours ? 1 : 0) && outcome[id] == (ours ? 1 : 0),
              "%s: job %llu: %d submits, %d outcomes", what, (unsigned long long)id, submitted[id],
              outcome[id]);
    }
    free(text);
    unlink(path);

    /* an unwritable destination fails at once and leaves nothing */
    CHECK(cuzk_timeline_new(&tl, "/nonexistent-dir/x.jsonl", NULL, NULL, err, sizeof err) == CUZK_EIO && !tl,
          "%s: unwritable path accepted", what);
}

/* ---- soak -----------------------------------------------------------------------------------------------
 */

#if defined(__SANITIZE_ADDRESS__)
/* from the sanitizer runtime (sanitizer/allocator_interface.h, not always installed) */
size_t __sanitizer_get_current_allocated_bytes(void);
/* Under ASan freed memory waits in a quarantine of up to 256 MiB, so RSS grows by design; the allocator's
 * count of live heap bytes is what must stay flat there. */
static long rss_kib(void)
{
    return (long)(__sanitizer_get_current_allocated_bytes() / 1024);
}
#define RSS_WHAT "live heap (ASan)"
#else
#define RSS_WHAT "RSS"
static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, res = 0;
    if (!f)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
        res = -1;
    fclose(f);
    return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}
#endif

static void test_soak(void)
{
    const char *what = "soak";
    enum { N = 200, WINDOW = 8, WARM = 50 };
    cuzk_engine_config c = small_config();
    c.rs_seed = 0; /* random r, s as in production */
    cuzk_engine_key *k;
    cuzk_engine *e = engine_up(&c, &k, what);
    if (!e)
        return;
    synth_ctx sc;
    synth_ctx_init(&sc, 1);
    uint64_t ids[N];
    long rss_warm = 0;
    int done = 0, ok = 0;
    for (int i = 0; i < N; i++) {
        ids[i] = submit(e, k, 1, (cuzk_engine_prio)(i % 4), &sc, what);
        /* keep WINDOW jobs in flight; drain at the end */
        while (done <= i && (i + 1 - done >= WINDOW || i == N - 1)) {
            cuzk_engine_result r;
            char err[256] = "";
            if (cuzk_engine_await(e, ids[done], &r, err, sizeof err) == CUZK_OK && r.n_proofs == 1 &&
                cuzk_groth16_verify(&PVK, Z + 1, NI - 1, &r.proofs[0], NULL, 0) == CUZK_OK)
                ok++;
            else
                fprintf(stderr, "soak: job %llu: %s\n", (unsigned long long)ids[done], err);
            cuzk_engine_result_free(&r);
            if (++done == WARM)
                rss_warm = rss_kib();
        }
    }
    long rss_end = rss_kib();
    CHECK(ok == N, "%s: %d of %d proofs delivered and verified", what, ok, N);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    cuzk_engine_config eff;
    cuzk_engine_get_config(e, &eff);
    /* at most WINDOW partitions are ever in flight, two buffers each: allocations stop there */
    CHECK(st.buf_allocs <= 2 * WINDOW, "%s: %llu buffers allocated over %d proofs (pool keeps %d)", what,
          (unsigned long long)st.buf_allocs, N, eff.pool_idle);
    CHECK(st.buf_reuses >= 2 * N - st.buf_allocs, "%s: %llu reuses", what, (unsigned long long)st.buf_reuses);
    long growth = rss_end - rss_warm;
    printf("soak: %d proofs, %s %ld KiB after %d, %ld KiB at the end (%+ld KiB); buffers: %llu allocated, "
           "%llu reused\n",
           N, RSS_WHAT, rss_warm, WARM, rss_end, growth, (unsigned long long)st.buf_allocs,
           (unsigned long long)st.buf_reuses);
    CHECK(rss_warm > 0 && growth < 4096, "%s: %s grew by %ld KiB over %d proofs", what, RSS_WHAT, growth,
          N - WARM);
    drained(e, k, what);
    cuzk_engine_free(e);
}

int main(void)
{
    test_rng_init("test_engine");
    if (!circuit_init()) {
        CHECK(0, "cannot build the test circuit");
        return test_finish("test_engine");
    }
    test_proofs();
    test_eval_config();
    test_eval_proofs();
    test_pack();
    order_scenario(false);
    order_scenario(true);
    test_cancel(CUZK_ENGINE_EVAL_HOST);
    test_cancel(CUZK_ENGINE_EVAL_DEVICE);
    test_failures(CUZK_ENGINE_EVAL_HOST);
    test_failures(CUZK_ENGINE_EVAL_DEVICE);
    test_admission();
    test_devices();
    test_devices_independent();
    test_device_lost();
    test_random_configs();
    test_device_list();
    test_device_mask();
    test_timeline();
    test_stage_span();
    test_soak();
    cuzk_groth16_params_free(&PK);
    cuzk_cs_free(&CS);
    free(Z);
    return test_finish("test_engine");
}
