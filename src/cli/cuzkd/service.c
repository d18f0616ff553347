/*
 * service.c — the cuzk.v1 ProvingEngine calls on top of the engine.
 *
 * Threads. The server's loop thread runs every handler; nothing there waits
 * for proving, loading or parsing. Each accepted proof gets a job thread,
 * which (1) makes sure the job's circuit is loaded (loading it if needed:
 * one load at a time daemon-wide, others wait), (2) decodes the witnesses,
 * (3) submits to the engine, (4) blocks in cuzk_engine_await and (5) stores
 * the outcome. After (3) and (5) it hands a task to the loop
 * (rpc_server_post, an eventfd wake-up) that answers the calls waiting on
 * the job: SubmitProof after (3), Prove and AwaitProof after (5). PreloadSRS
 * gets a helper thread of the same kind. The number of job threads is
 * bounded by limits.max_jobs (unfinished jobs).
 *
 * State. The job table, the circuit table and the counters are guarded by
 * svc->mu; calls (rpc_call pointers) are touched only on the loop thread.
 * Waiters (AwaitProof calls, with their deadline) live on a loop-only list;
 * the loop's tick answers TIMEOUT when a deadline passes, prunes results
 * older than limits.results_ttl (or beyond limits.max_results) and drives
 * the shutdown drain.
 *
 * Circuits. [circuits.<id>] entries are bellperson .params keys with the
 * circom .r1cs they were made for; "synth-porep-<LG>" names the synthetic
 * PoRep-shaped circuit at scale 2^-(27 - LG) (cuzk/porep_synth.h), built on
 * first use with a fresh key from cuzk_groth16_setup (not a ceremony). A
 * loaded circuit is an engine key: its bytes are reserved in the engine's
 * budget, so loading what does not fit fails with RESOURCE_EXHAUSTED.
 * EvictSRS frees a key only when no unfinished job holds the circuit.
 *
 * Shutdown. cuzkd_service_shutdown stops new work (UNAVAILABLE), lets
 * queued and running jobs finish for limits.drain_timeout, then cancels the
 * rest: their waiting callers get UNAVAILABLE with a message saying the
 * daemon is shutting down. When no job and no helper thread is left, the
 * server is stopped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cs.h"
#include "cuzk/engine.h"
#include "cuzk/params.h"
#include "cuzk/porep_synth.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/verify.h"
#include "cuzk/v1/proving.pb-c.h"
#include "daemon.h"
#ifdef CUZK_HAVE_GPU
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/gpu_setup.h"
#endif

#define METHOD_PREFIX "/cuzk.v1.ProvingEngine/"
#define MAX_PARTS 1024
#define SYNTH_PREFIX "synth-porep-"

typedef enum { CK_FILE, CK_SYNTH } circ_kind;

typedef struct circuit {
    char id[64];
    circ_kind kind;
    char *params_path, *r1cs_path; /* CK_FILE, resolved against srs.param_cache */
    cuzk_porep_shape shape;        /* CK_SYNTH */
    unsigned scale;
    bool loaded, loading;
    cuzk_groth16_params pk;
    cuzk_cs cs;
    cuzk_engine_key *key;
    uint64_t bytes, load_ms;
    int refs; /* unfinished jobs holding the circuit */
    struct circuit *next;
} circuit;

typedef enum { JS_PREP, JS_QUEUED, JS_DONE } jstate;

typedef struct job {
    struct cuzkd_service *svc;
    char id[128];
    uint64_t seq;
    int kind; /* Cuzk__V1__ProofKind */
    circuit *circ;
    cuzk_engine_prio prio;
    uint32_t n_parts;
    ProtobufCMessage *req; /* the decoded request, until the witnesses are parsed */
    Cuzk__V1__SubmitProofRequest *sub;
    cuzk_snarkjs_wtns **wtns;
    uint64_t input_bytes;
    /* svc->mu */
    jstate state;
    bool cancel_req, shutdown_cancel, prep_failed, delivered;
    uint64_t eid;
    atomic_uint parts_started;
    /* loop thread */
    rpc_call *submit_call; /* SubmitProof (answered after the engine took it) or Prove (after the result) */
    bool is_prove;
    /* result (written before the "finished" task, read after) */
    int rstatus; /* Cuzk__V1__AwaitProofResponse__Status */
    int rpc_code;
    char error[400];
    uint8_t *proof;
    size_t proof_len;
    uint32_t n_proofs;
    uint64_t queue_ms, load_ms, synth_ms, gpu_ms, total_ms;
    int64_t t_accept, t_done; /* ms, monotonic */
    struct job *next;
} job;

typedef struct waiter {
    rpc_call *call;
    job *j;
    int64_t deadline; /* 0: none */
    struct waiter *next;
} waiter;

typedef struct preload {
    struct cuzkd_service *svc;
    rpc_call *call;
    circuit *c;
    bool already;
    int rpc_code;
    char error[400];
    uint64_t ms;
    struct preload *next;
} preload;

/* Counters are kept per kind in slots 0..6: the Filecoin kinds (and UNSPECIFIED) as they are, then
 * GROTH16_CIRCUIT and SYNTH_POREP. */
#define N_SLOTS 7
static const int SLOT_KIND[N_SLOTS] = {
    0, 1, 2, 3, 4, CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT, CUZK__V1__PROOF_KIND__SYNTH_POREP};

static int kind_slot(int kind)
{
    for (int i = 0; i < N_SLOTS; i++)
        if (SLOT_KIND[i] == kind)
            return i;
    return 0;
}

typedef struct {
    uint64_t completed, failed, cancelled;
} kind_count;

struct cuzkd_service {
    const cuzkd_config *cfg;
    rpc_server *srv;
    cuzk_engine *engine;
    const char *backend_name;
    int64_t t_start;
    pthread_mutex_t mu;
    pthread_cond_t cond; /* circuit loads finished, threads exited */
    pthread_mutex_t load_mu;
    circuit *circuits;
    job *jobs;
    uint64_t next_seq;
    int unfinished, threads_live;
    uint64_t input_bytes;
    kind_count counts[N_SLOTS];
    uint64_t total_completed, total_failed, total_cancelled, parts_completed;
    uint64_t dur_count, dur_sum_ms;
    uint64_t calls_by_method[8];
    /* loop thread */
    waiter *waiters;
    preload *preloads;
    bool draining, immediate, cancelled_all, stopped;
    int64_t drain_deadline;
    uint64_t devices_lost_seen; /* the engine's lost devices already logged */
    int exit_status;            /* what main returns: 3 after every device was lost, else 0 */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *kind_name(int kind)
{
    const ProtobufCEnumValue *v =
        protobuf_c_enum_descriptor_get_value(&cuzk__v1__proof_kind__descriptor, kind);
    return v ? v->name : "UNKNOWN";
}

/* ---- replies ------------------------------------------------------------------------------ */

static void reply_msg(rpc_call *call, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        rpc_call_reply(call, RPC_RESOURCE_EXHAUSTED, "out of memory for the response", NULL, 0);
        return;
    }
    protobuf_c_message_pack(m, buf);
    rpc_call_reply(call, RPC_OK, NULL, buf, n);
    free(buf);
}

static void reply_err(rpc_call *call, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void reply_err(rpc_call *call, int code, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    LOG_INFO("%s: %s: %s", rpc_call_peer(call), rpc_status_name(code), msg);
    rpc_call_reply(call, code, msg, NULL, 0);
}

static int code_of(int cuzk_rc)
{
    switch (cuzk_rc) {
    case CUZK_ERANGE:
    case CUZK_ENOMEM: return RPC_RESOURCE_EXHAUSTED;
    case CUZK_EIO: return RPC_FAILED_PRECONDITION;
    case CUZK_ECANCELED: return RPC_CANCELLED;
    case CUZK_EDEVICE: return RPC_UNAVAILABLE;
    default: return RPC_INVALID_ARGUMENT;
    }
}

/* ---- circuits ----------------------------------------------------------------------------- */

/* The circuit called id (registered, or a valid synth-porep-<LG>, created on first mention); NULL with
 * code/err if there is none. svc->mu held. */
static circuit *circuit_find(cuzkd_service *svc, const char *id, int *code, char *err, size_t errlen)
{
    if (strlen(id) >= sizeof svc->circuits->id) {
        *code = RPC_NOT_FOUND;
        snprintf(err, errlen, "circuit id of %zu bytes: ids have at most %zu", strlen(id),
                 sizeof svc->circuits->id - 1);
        return NULL;
    }
    for (circuit *c = svc->circuits; c; c = c->next)
        if (!strcmp(c->id, id))
            return c;
    if (strncmp(id, SYNTH_PREFIX, strlen(SYNTH_PREFIX)) != 0) {
        *code = RPC_NOT_FOUND;
        snprintf(err, errlen,
                 "circuit '%s' is not registered (config [circuits.<id>]; synthetic ones are "
                 "synth-porep-<LG>)",
                 id);
        return NULL;
    }
    const char *d = id + strlen(SYNTH_PREFIX);
    char *end;
    long lg = strtol(d, &end, 10);
    if (!d[0] || *end || lg < 11 || lg > (long)svc->cfg->synth_max_scale) {
        *code = RPC_NOT_FOUND;
        snprintf(err, errlen, "circuit '%s': synthetic circuits are synth-porep-11 .. synth-porep-%u", id,
                 svc->cfg->synth_max_scale);
        return NULL;
    }
    char canon[sizeof svc->circuits->id];
    snprintf(canon, sizeof canon, "%s%ld", SYNTH_PREFIX, lg);
    if (strcmp(canon, id) != 0) { /* one spelling a circuit: "synth-porep-011" would load a second key */
        *code = RPC_NOT_FOUND;
        snprintf(err, errlen, "circuit '%s': synthetic circuits are spelled %s", id, canon);
        return NULL;
    }
    circuit *c = calloc(1, sizeof *c);
    if (!c) {
        *code = RPC_RESOURCE_EXHAUSTED;
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(c->id, sizeof c->id, "%s", id);
    c->kind = CK_SYNTH;
    c->scale = (unsigned)lg;
    c->next = svc->circuits;
    svc->circuits = c;
    return c;
}

/* A synthetic circuit's key: with the GPU backend, its fixed-base points on the engine's devices (beside
 * whatever they prove: the setup takes no device lock, and its chunks are small), else, or if that fails
 * (a device short of memory), on the CPU. The key's bytes are the same either way. */
static int synth_setup(cuzkd_service *svc, circuit *c, cuzk_pool *pool, char *err, size_t errlen)
{
#ifdef CUZK_HAVE_GPU
    cuzk_engine_config ec;
    cuzk_engine_get_config(svc->engine, &ec);
    if (ec.backend == cuzk_engine_backend_gpu()) {
        cuzk_gpu_setup_devices devs;
        cuzk_setup_accel on;
        cuzk_gpu_setup_accel_mask(&on, &devs, ec.device_mask);
        char gerr[256] = "";
        int rc = cuzk_groth16_setup_accel(&c->pk, &c->cs, NULL, &on, pool, gerr, sizeof gerr);
        if (rc == CUZK_OK)
            return rc;
        LOG_WARN("circuit %s: the key's setup on the GPU failed (%s); making it on the CPU", c->id, gerr);
    }
#else
    (void)svc;
#endif
    return cuzk_groth16_setup(&c->pk, &c->cs, NULL, pool, err, errlen);
}

static int circuit_build(cuzkd_service *svc, circuit *c, char *err, size_t errlen)
{
    cuzk_pool *pool = cuzk_pool_new(svc->cfg->gpu_threads);
    if (!pool)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "cannot start a thread pool");
    int rc;
    if (c->kind == CK_FILE) {
        rc = cuzk_params_read(c->params_path, &c->pk, CUZK_PARAMS_CHECK_CURVE, pool, err, errlen);
        if (rc == CUZK_OK) {
            cuzk_snarkjs_r1cs *r1cs = NULL;
            rc = cuzk_snarkjs_r1cs_open(c->r1cs_path, &r1cs, err, errlen);
            if (rc == CUZK_OK)
                rc = cuzk_cs_from_snarkjs(&c->cs, r1cs, err, errlen);
            cuzk_snarkjs_r1cs_free(r1cs);
            if (rc == CUZK_OK)
                rc = cuzk_cs_compact(&c->cs);
        }
    } else {
        /* the same library calls cuzk-bench's porep workload makes */
        rc = cuzk_porep_shape_scale(&c->shape, 27 - c->scale, svc->cfg->synth_seed);
        if (rc == CUZK_OK)
            rc = cuzk_porep_synth_check(&c->shape, err, errlen);
        if (rc == CUZK_OK)
            rc = cuzk_porep_synth_cs(&c->cs, &c->shape, pool, err, errlen);
        if (rc == CUZK_OK)
            rc = synth_setup(svc, c, pool, err, errlen);
    }
    cuzk_pool_free(pool);
    if (rc == CUZK_OK) {
        cuzk_engine_stats before, after;
        cuzk_engine_get_stats(svc->engine, &before);
        rc = cuzk_engine_key_new(svc->engine, &c->pk, &c->cs, &c->key, err, errlen);
        cuzk_engine_get_stats(svc->engine, &after);
        c->bytes = after.budget_keys - before.budget_keys;
    }
    if (rc != CUZK_OK) {
        cuzk_groth16_params_free(&c->pk);
        cuzk_cs_free(&c->cs);
    }
    return rc;
}

/* Makes sure c is loaded; *load_ms gets the time this call spent loading (0 if it was loaded). Returns
 * CUZK_OK or the load's code with err. Any thread but the loop's. */
static int circuit_ensure(cuzkd_service *svc, circuit *c, bool *already, uint64_t *load_ms, char *err,
                          size_t errlen)
{
    *load_ms = 0;
    pthread_mutex_lock(&svc->mu);
    while (c->loading)
        pthread_cond_wait(&svc->cond, &svc->mu);
    *already = c->loaded;
    if (c->loaded) {
        pthread_mutex_unlock(&svc->mu);
        return CUZK_OK;
    }
    c->loading = true;
    pthread_mutex_unlock(&svc->mu);
    int64_t t0 = now_ms();
    LOG_INFO("circuit %s: loading", c->id);
    pthread_mutex_lock(&svc->load_mu);
    int rc = circuit_build(svc, c, err, errlen);
    pthread_mutex_unlock(&svc->load_mu);
    *load_ms = (uint64_t)(now_ms() - t0);
    if (rc == CUZK_OK) {
        LOG_INFO("circuit %s: loaded in %" PRIu64 " ms (%zu constraints, %zu variables, %" PRIu64
                 " bytes, key in %s form)",
                 c->id, *load_ms, c->cs.n_constraints, c->cs.n_inputs + c->cs.n_aux, c->bytes,
                 c->pk.h_coset ? "the coset" : "bellperson's");
        if (c->kind == CK_FILE && !c->pk.h_coset)
            LOG_INFO("circuit %s: `cuzk coset-key %s %s KEY.coset` converts its key once; registered with "
                     "KEY.coset it proves the same proofs with two NTTs fewer a partition (docs/design/022)",
                     c->id, c->params_path, c->r1cs_path);
    } else
        LOG_WARN("circuit %s: cannot load: %s", c->id, err);
    pthread_mutex_lock(&svc->mu);
    c->loading = false;
    c->loaded = rc == CUZK_OK;
    if (c->loaded)
        c->load_ms = *load_ms;
    pthread_cond_broadcast(&svc->cond);
    pthread_mutex_unlock(&svc->mu);
    return rc;
}

static void circuit_unload(circuit *c)
{
    cuzk_engine_key_free(c->key);
    c->key = NULL;
    cuzk_groth16_params_free(&c->pk);
    cuzk_cs_free(&c->cs);
    c->loaded = false;
}

/* ---- threads ------------------------------------------------------------------------------ */

static int spawn(cuzkd_service *svc, void *(*fn)(void *), void *arg)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_t t;
    pthread_mutex_lock(&svc->mu);
    svc->threads_live++;
    pthread_mutex_unlock(&svc->mu);
    int rc = pthread_create(&t, &at, fn, arg);
    pthread_attr_destroy(&at);
    if (rc != 0) {
        pthread_mutex_lock(&svc->mu);
        svc->threads_live--;
        pthread_cond_broadcast(&svc->cond);
        pthread_mutex_unlock(&svc->mu);
    }
    return rc;
}

static void thread_done(cuzkd_service *svc)
{
    pthread_mutex_lock(&svc->mu);
    svc->threads_live--;
    pthread_cond_broadcast(&svc->cond);
    pthread_mutex_unlock(&svc->mu);
}

/* ---- jobs: the job thread ----------------------------------------------------------------- */

static int synth_wtns(void *user, uint64_t eid, uint32_t part, cuzk_fr *z, size_t n_z, char *err,
                      size_t errlen)
{
    job *j = user;
    atomic_fetch_add(&j->parts_started, 1);
    const cuzk_snarkjs_wtns *w = j->wtns[part];
    if (w->n != n_z)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "witness %u has %u values, the circuit %zu", part, w->n,
                         n_z);
    memcpy(z, w->values, n_z * sizeof *z);
    return CUZK_OK;
}

static int synth_porep(void *user, uint64_t eid, uint32_t part, cuzk_fr *z, size_t n_z, char *err,
                       size_t errlen)
{
    job *j = user;
    atomic_fetch_add(&j->parts_started, 1);
    return cuzk_porep_synth_witness(z, &j->circ->shape, part % CUZK_POREP_PARTITIONS, NULL, err, errlen);
}

static void job_free_inputs(job *j)
{
    if (j->req)
        protobuf_c_message_free_unpacked(j->req, NULL);
    j->req = NULL;
    j->sub = NULL;
    if (j->wtns)
        for (uint32_t i = 0; i < j->n_parts; i++)
            cuzk_snarkjs_wtns_free(j->wtns[i]);
    free(j->wtns);
    j->wtns = NULL;
}

static void task_submitted(void *arg);
static void task_finished(void *arg);

static void job_post(job *j, rpc_task_fn fn)
{
    while (rpc_server_post(j->svc->srv, fn, j) != 0)
        usleep(1000); /* out of memory for a task: the loop frees some soon */
}

/* Prepares and submits; returns false (with rpc_code/error) when the job could not be submitted. */
static bool job_prepare(job *j)
{
    cuzkd_service *svc = j->svc;
    char err[400] = "";
    bool already;
    int rc = circuit_ensure(svc, j->circ, &already, &j->load_ms, err, sizeof err);
    if (rc != CUZK_OK) {
        j->rpc_code = code_of(rc) == RPC_INVALID_ARGUMENT ? RPC_FAILED_PRECONDITION : code_of(rc);
        snprintf(j->error, sizeof j->error, "circuit %s cannot be loaded: %s", j->circ->id, err);
        return false;
    }
    size_t n_z = j->circ->cs.n_inputs + j->circ->cs.n_aux;
    cuzk_engine_synth_fn fn = synth_porep;
    if (j->kind == CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT) {
        fn = synth_wtns;
        j->wtns = calloc(j->n_parts, sizeof *j->wtns);
        if (!j->wtns) {
            j->rpc_code = RPC_RESOURCE_EXHAUSTED;
            snprintf(j->error, sizeof j->error, "out of memory");
            return false;
        }
        for (uint32_t i = 0; i < j->n_parts; i++) {
            const ProtobufCBinaryData *b =
                j->sub->n_vanilla_proofs ? &j->sub->vanilla_proofs[i] : &j->sub->vanilla_proof;
            rc = cuzk_snarkjs_wtns_from_buffer(b->data, b->len, &j->wtns[i], err, sizeof err);
            if (rc != CUZK_OK) {
                j->rpc_code = code_of(rc);
                snprintf(j->error, sizeof j->error, "witness %u of %u is not a usable .wtns: %s", i,
                         j->n_parts, err);
                return false;
            }
            if (j->wtns[i]->n != n_z) {
                j->rpc_code = RPC_INVALID_ARGUMENT;
                snprintf(j->error, sizeof j->error,
                         "witness %u has %u values but circuit %s has %zu variables: a witness of another "
                         "circuit?",
                         i, j->wtns[i]->n, j->circ->id, n_z);
                return false;
            }
        }
    }
    if (j->req)
        protobuf_c_message_free_unpacked(j->req, NULL);
    j->req = NULL;
    j->sub = NULL;
    pthread_mutex_lock(&svc->mu);
    bool cancelled = j->cancel_req;
    pthread_mutex_unlock(&svc->mu);
    if (cancelled)
        return true; /* answered as submitted, then finished as cancelled */
    cuzk_engine_job ej = {
        .key = j->circ->key, .n_parts = j->n_parts, .prio = j->prio, .synth = fn, .user = j};
    uint64_t eid;
    rc = cuzk_engine_submit(svc->engine, &ej, &eid, err, sizeof err);
    if (rc != CUZK_OK) {
        j->rpc_code = rc == CUZK_EINVAL && strstr(err, "shutting down") ? RPC_UNAVAILABLE : code_of(rc);
        snprintf(j->error, sizeof j->error, "the engine refused the job: %s", err);
        return false;
    }
    pthread_mutex_lock(&svc->mu);
    j->eid = eid;
    j->state = JS_QUEUED;
    if (j->cancel_req)
        cuzk_engine_cancel(svc->engine, eid);
    pthread_mutex_unlock(&svc->mu);
    return true;
}

static void *job_main(void *arg)
{
    job *j = arg;
    cuzkd_service *svc = j->svc;
    if (!job_prepare(j)) {
        job_free_inputs(j);
        pthread_mutex_lock(&svc->mu);
        j->prep_failed = true;
        j->state = JS_DONE;
        j->circ->refs--;
        svc->unfinished--;
        svc->input_bytes -= j->input_bytes;
        pthread_mutex_unlock(&svc->mu);
        job_post(j, task_finished);
        thread_done(svc);
        return NULL;
    }
    job_post(j, task_submitted);
    cuzk_engine_result r;
    memset(&r, 0, sizeof r);
    int rc;
    char err[300] = "";
    if (j->state == JS_QUEUED) {
        rc = cuzk_engine_await(svc->engine, j->eid, &r, err, sizeof err);
    } else {
        rc = CUZK_ECANCELED; /* cancelled before it reached the engine */
        r.status = rc;
        r.failed_part = -1;
        r.t_start = -1;
    }
    job_free_inputs(j);
    if (rc == CUZK_OK) {
        j->proof_len = r.n_proofs * CUZK_GROTH16_PROOF_SIZE;
        j->proof = malloc(j->proof_len ? j->proof_len : 1);
        if (j->proof) {
            for (size_t i = 0; i < r.n_proofs; i++)
                cuzk_groth16_proof_to_bytes(j->proof + i * CUZK_GROTH16_PROOF_SIZE, &r.proofs[i]);
            j->n_proofs = (uint32_t)r.n_proofs;
            j->rstatus = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
        } else {
            j->proof_len = 0;
            rc = CUZK_ENOMEM;
            j->rstatus = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
            snprintf(j->error, sizeof j->error, "out of memory for the proof bytes");
        }
    } else if (rc == CUZK_ECANCELED) {
        j->rstatus = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
        snprintf(j->error, sizeof j->error, "cancelled");
    } else {
        j->rstatus = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED;
        if (r.failed_part >= 0)
            snprintf(j->error, sizeof j->error, "partition %d: %s", r.failed_part,
                     r.error[0] ? r.error : cuzk_strerror(rc));
        else
            snprintf(j->error, sizeof j->error, "%s",
                     r.error[0] ? r.error
                     : err[0]   ? err
                                : cuzk_strerror(rc));
    }
    if (r.t_start >= 0)
        j->queue_ms = (uint64_t)(r.t_start - r.t_submit) / 1000;
    j->synth_ms = (uint64_t)r.synth_us / 1000;
    j->gpu_ms = (uint64_t)r.device_us / 1000;
    cuzk_engine_result_free(&r);
    pthread_mutex_lock(&svc->mu);
    j->t_done = now_ms();
    j->total_ms = (uint64_t)(j->t_done - j->t_accept);
    j->state = JS_DONE;
    j->circ->refs--;
    svc->unfinished--;
    svc->input_bytes -= j->input_bytes;
    kind_count *kc = &svc->counts[kind_slot(j->kind)];
    if (j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        kc->completed++;
        svc->total_completed++;
        svc->parts_completed += j->n_proofs;
        svc->dur_count++;
        svc->dur_sum_ms += j->total_ms;
    } else if (j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED) {
        kc->cancelled++;
        svc->total_cancelled++;
    } else {
        kc->failed++;
        svc->total_failed++;
    }
    pthread_mutex_unlock(&svc->mu);
    LOG_INFO("job %s: %s in %" PRIu64 " ms (%u partitions; queue %" PRIu64 " ms, synthesis %" PRIu64
             " ms, prove %" PRIu64 " ms)%s%s",
             j->id,
             j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED   ? "completed"
             : j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED ? "cancelled"
                                                                               : "FAILED",
             j->total_ms, j->n_parts, j->queue_ms, j->synth_ms, j->gpu_ms,
             j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED ? ": " : "",
             j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED ? j->error : "");
    job_post(j, task_finished);
    thread_done(svc);
    return NULL;
}

/* ---- jobs: the loop's side ---------------------------------------------------------------- */

static void fill_result(const job *j, Cuzk__V1__AwaitProofResponse *r)
{
    r->job_id = (char *)j->id;
    r->status = j->rstatus;
    if (j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        r->proof.data = j->proof;
        r->proof.len = j->proof_len;
        r->num_partitions = j->n_proofs;
    } else {
        r->error_message = (char *)j->error;
    }
    r->queue_wait_ms = j->queue_ms;
    r->srs_load_ms = j->load_ms;
    r->synthesis_ms = j->synth_ms;
    r->gpu_compute_ms = j->gpu_ms;
    r->total_ms = j->total_ms;
}

static bool shutdown_victim(const job *j)
{
    return j->shutdown_cancel && j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED;
}

/* Answers an AwaitProof call (prove = false) or a Prove call with the finished job j. */
static void answer_result(rpc_call *call, const job *j, bool prove)
{
    if (shutdown_victim(j)) {
        reply_err(call, RPC_UNAVAILABLE, "cuzkd is shutting down: job %s was cancelled before it finished",
                  j->id);
        return;
    }
    Cuzk__V1__AwaitProofResponse r = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    fill_result(j, &r);
    if (prove) {
        Cuzk__V1__ProveResponse pr = CUZK__V1__PROVE_RESPONSE__INIT;
        pr.result = &r;
        reply_msg(call, &pr.base);
    } else {
        reply_msg(call, &r.base);
    }
}

static void job_unlink_free(cuzkd_service *svc, job *j)
{
    for (job **pp = &svc->jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    job_free_inputs(j);
    free(j->proof);
    free(j);
}

static void task_submitted(void *arg)
{
    job *j = arg;
    cuzkd_service *svc = j->svc;
    if (!j->submit_call || j->is_prove)
        return;
    pthread_mutex_lock(&svc->mu);
    uint32_t pos = 0;
    for (job *o = svc->jobs; o; o = o->next)
        if (o != j && o->state != JS_DONE && o->seq < j->seq && atomic_load(&o->parts_started) == 0)
            pos++;
    pthread_mutex_unlock(&svc->mu);
    Cuzk__V1__SubmitProofResponse r = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    r.job_id = j->id;
    r.queue_position = pos;
    reply_msg(j->submit_call, &r.base);
    j->submit_call = NULL;
}

static void task_finished(void *arg)
{
    job *j = arg;
    cuzkd_service *svc = j->svc;
    if (j->submit_call) {
        if (j->prep_failed)
            reply_err(j->submit_call, j->rpc_code, "%s", j->error);
        else
            answer_result(j->submit_call, j, true);
        j->submit_call = NULL;
    }
    for (waiter **pp = &svc->waiters; *pp;) {
        waiter *w = *pp;
        if (w->j != j) {
            pp = &w->next;
            continue;
        }
        *pp = w->next;
        if (j->prep_failed)
            reply_err(w->call, RPC_NOT_FOUND, "job %s was refused: %s", j->id, j->error);
        else
            answer_result(w->call, j, false);
        free(w);
    }
    pthread_mutex_lock(&svc->mu);
    if (j->prep_failed)
        job_unlink_free(svc, j);
    else
        j->delivered = true;
    pthread_mutex_unlock(&svc->mu);
}

/* ---- handlers ----------------------------------------------------------------------------- */

static bool id_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 127)
        return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return false;
    return true;
}

/* SubmitProof (prove = false) and Prove. Takes ownership of msg (the unpacked request). */
static void start_job(cuzkd_service *svc, rpc_call *call, ProtobufCMessage *msg,
                      Cuzk__V1__SubmitProofRequest *sub, bool prove)
{
    const cuzkd_config *cfg = svc->cfg;
    int kind = sub->proof_kind;
    int code = RPC_OK;
    char err[400] = "";
    uint32_t n_parts = 1;
    uint64_t in_bytes = 0;
    circuit *c = NULL;
    char synth_id[64] = ""; /* a synthetic job's circuit: synth-porep-<scale> */
    if (svc->draining) {
        code = RPC_UNAVAILABLE;
        snprintf(err, sizeof err, "cuzkd is shutting down and takes no new work");
    } else if (kind >= CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT &&
               kind <= CUZK__V1__PROOF_KIND__WINNING_POST) {
        code = RPC_UNIMPLEMENTED;
        snprintf(
            err, sizeof err,
            "%s proofs need the Filecoin circuits, which cuzkd does not have yet; it proves GROTH16_CIRCUIT "
            "(registered circuits) and SYNTH_POREP (synthetic PoRep-shaped) jobs",
            kind_name(kind));
    } else if (kind != CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT && kind != CUZK__V1__PROOF_KIND__SYNTH_POREP) {
        code = RPC_INVALID_ARGUMENT;
        snprintf(err, sizeof err, "unknown proof kind %d", kind);
    } else if (sub->request_id[0] && !id_ok(sub->request_id)) {
        code = RPC_INVALID_ARGUMENT;
        snprintf(err, sizeof err, "request_id must be 1 to 127 printable ASCII characters without spaces");
    } else if (kind == CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT) {
        n_parts = sub->n_vanilla_proofs ? (uint32_t)sub->n_vanilla_proofs : sub->vanilla_proof.len ? 1 : 0;
        if (!sub->circuit_id[0]) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(err, sizeof err,
                     "GROTH16_CIRCUIT needs circuit_id (a circuit registered in the config)");
        } else if (n_parts == 0) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(
                err, sizeof err,
                "GROTH16_CIRCUIT needs a witness: a snarkjs .wtns in vanilla_proof, or one per partition in "
                "vanilla_proofs");
        } else if (n_parts > MAX_PARTS) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(err, sizeof err, "%u witnesses: at most %d partitions per job", n_parts, MAX_PARTS);
        } else if (!strncmp(sub->circuit_id, SYNTH_PREFIX, strlen(SYNTH_PREFIX))) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(err, sizeof err, "circuit %s is synthetic: use the SYNTH_POREP kind", sub->circuit_id);
        }
        for (uint32_t i = 0; code == RPC_OK && i < n_parts; i++)
            in_bytes += 2 * (sub->n_vanilla_proofs ? sub->vanilla_proofs[i].len : sub->vanilla_proof.len);
    } else {
        unsigned scale = sub->porep_scale ? sub->porep_scale : cfg->synth_default_scale;
        n_parts = sub->num_partitions ? sub->num_partitions : CUZK_POREP_PARTITIONS;
        if (scale < 11 || scale > cfg->synth_max_scale) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(err, sizeof err, "porep_scale %u is outside 11..%u (synthetic.max_scale)", scale,
                     cfg->synth_max_scale);
        } else if (n_parts > MAX_PARTS) {
            code = RPC_INVALID_ARGUMENT;
            snprintf(err, sizeof err, "num_partitions %u: at most %d", n_parts, MAX_PARTS);
        } else {
            snprintf(synth_id, sizeof synth_id, "%s%u", SYNTH_PREFIX, scale);
        }
    }
    job *j = NULL;
    if (code == RPC_OK) {
        pthread_mutex_lock(&svc->mu);
        c = circuit_find(svc, kind == CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT ? sub->circuit_id : synth_id,
                         &code, err, sizeof err);
        if (c) {
            bool dup = false;
            if (sub->request_id[0])
                for (job *o = svc->jobs; o && !dup; o = o->next)
                    dup = !strcmp(o->id, sub->request_id);
            if (dup) {
                code = RPC_ALREADY_EXISTS;
                snprintf(err, sizeof err, "a job with request_id '%s' exists (queued, running or finished)",
                         sub->request_id);
            } else if (svc->unfinished >= cfg->max_jobs) {
                code = RPC_RESOURCE_EXHAUSTED;
                snprintf(err, sizeof err, "%d unfinished jobs: the limit (limits.max_jobs); retry later",
                         svc->unfinished);
            } else if (svc->input_bytes + in_bytes > cfg->max_input_bytes) {
                code = RPC_RESOURCE_EXHAUSTED;
                snprintf(err, sizeof err,
                         "queued witnesses would hold %" PRIu64
                         " bytes, above limits.max_input_bytes %" PRIu64 "; retry later",
                         svc->input_bytes + in_bytes, cfg->max_input_bytes);
            } else if (!(j = calloc(1, sizeof *j))) {
                code = RPC_RESOURCE_EXHAUSTED;
                snprintf(err, sizeof err, "out of memory");
            } else {
                j->svc = svc;
                j->seq = ++svc->next_seq;
                if (sub->request_id[0])
                    snprintf(j->id, sizeof j->id, "%s", sub->request_id);
                else
                    snprintf(j->id, sizeof j->id, "job-%" PRIu64, j->seq);
                j->kind = kind;
                j->circ = c;
                j->n_parts = n_parts;
                j->prio = sub->priority >= 1 && sub->priority <= 4 ? (cuzk_engine_prio)(sub->priority - 1)
                                                                   : CUZK_PRIO_NORMAL;
                j->req = msg;
                j->sub = sub;
                j->input_bytes = in_bytes;
                j->state = JS_PREP;
                j->t_accept = now_ms();
                j->submit_call = call;
                j->is_prove = prove;
                j->next = svc->jobs;
                svc->jobs = j;
                svc->unfinished++;
                svc->input_bytes += in_bytes;
                c->refs++;
            }
        }
        pthread_mutex_unlock(&svc->mu);
    }
    if (code != RPC_OK) {
        protobuf_c_message_free_unpacked(msg, NULL);
        reply_err(call, code, "%s", err);
        return;
    }
    LOG_INFO("job %s: accepted from %s (%s, circuit %s, %u partition%s, priority %s)", j->id,
             rpc_call_peer(call), kind_name(kind), c->id, n_parts, n_parts == 1 ? "" : "s",
             cuzk_engine_prio_name(j->prio));
    if (spawn(svc, job_main, j) != 0) {
        pthread_mutex_lock(&svc->mu);
        svc->unfinished--;
        svc->input_bytes -= in_bytes;
        c->refs--;
        job_unlink_free(svc, j);
        pthread_mutex_unlock(&svc->mu);
        reply_err(call, RPC_RESOURCE_EXHAUSTED, "cannot start a thread for the job");
    }
}

static job *job_find(cuzkd_service *svc, const char *id)
{
    for (job *j = svc->jobs; j; j = j->next)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

static void h_await(cuzkd_service *svc, rpc_call *call, Cuzk__V1__AwaitProofRequest *rq)
{
    pthread_mutex_lock(&svc->mu);
    job *j = job_find(svc, rq->job_id);
    bool done = j && j->state == JS_DONE && j->delivered;
    pthread_mutex_unlock(&svc->mu);
    if (!j)
        return reply_err(call, RPC_NOT_FOUND, "no job '%s' (unknown, or its result expired)", rq->job_id);
    if (done)
        return answer_result(call, j, false);
    waiter *w = calloc(1, sizeof *w);
    if (!w)
        return reply_err(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    w->call = call;
    w->j = j;
    w->deadline =
        rq->timeout_ms ? now_ms() + (int64_t)(rq->timeout_ms > 864000000 ? 864000000 : rq->timeout_ms) : 0;
    w->next = svc->waiters;
    svc->waiters = w;
}

static void h_cancel(cuzkd_service *svc, rpc_call *call, Cuzk__V1__CancelProofRequest *rq)
{
    Cuzk__V1__CancelProofResponse r = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    pthread_mutex_lock(&svc->mu);
    job *j = job_find(svc, rq->job_id);
    if (j && j->state != JS_DONE && !j->cancel_req) {
        j->cancel_req = true;
        r.cancelled = true;
        r.was_running = atomic_load(&j->parts_started) > 0;
        if (j->state == JS_QUEUED)
            cuzk_engine_cancel(svc->engine, j->eid);
    }
    pthread_mutex_unlock(&svc->mu);
    if (!j)
        return reply_err(call, RPC_NOT_FOUND, "no job '%s' (unknown, or its result expired)", rq->job_id);
    if (r.cancelled)
        LOG_INFO("job %s: cancel requested by %s (%s)", j->id, rpc_call_peer(call),
                 r.was_running ? "running" : "queued");
    reply_msg(call, &r.base);
}

static void gpu_status(Cuzk__V1__GetStatusResponse *r, Cuzk__V1__GPUStatus *g, Cuzk__V1__GPUStatus **gp,
                       char names[][128], int max)
{
    r->n_gpus = 0;
#ifdef CUZK_HAVE_GPU
    int n = cuzk_gpu_device_count();
    for (int i = 0; i < n && i < max; i++) {
        cuzk__v1__gpustatus__init(&g[i]);
        g[i].ordinal = (uint32_t)i;
        if (cuzk_gpu_device_describe(i, names[i], 128) != CUZK_OK)
            snprintf(names[i], 128, "device %d", i);
        /* "NAME, sm_XY, N MiB" */
        const char *mib = strrchr(names[i], ',');
        unsigned long long m = 0;
        if (mib && sscanf(mib + 1, " %llu MiB", &m) == 1)
            g[i].vram_total_bytes = (uint64_t)m << 20;
        g[i].name = names[i];
        gp[i] = &g[i];
        r->n_gpus++;
    }
#else
    (void)g;
    (void)names;
    (void)max;
#endif
    r->gpus = gp;
}

static void h_status(cuzkd_service *svc, rpc_call *call)
{
    Cuzk__V1__GetStatusResponse r = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    enum { MAXG = 16, MAXS = 256, MAXQ = 8 };
    Cuzk__V1__GPUStatus g[MAXG], *gp[MAXG];
    char gnames[MAXG][128];
    gpu_status(&r, g, gp, gnames, MAXG);
    Cuzk__V1__SRSStatus s[MAXS], *sp[MAXS];
    Cuzk__V1__QueueStatus q[MAXQ], *qp[MAXQ];
    static const int kinds[] = {CUZK__V1__PROOF_KIND__GROTH16_CIRCUIT, CUZK__V1__PROOF_KIND__SYNTH_POREP};
    cuzk_engine_stats st;
    cuzk_engine_get_stats(svc->engine, &st);
    pthread_mutex_lock(&svc->mu);
    size_t ns = 0;
    for (circuit *c = svc->circuits; c && ns < MAXS; c = c->next)
        if (c->loaded) {
            cuzk__v1__srsstatus__init(&s[ns]);
            s[ns].circuit_id = c->id;
            s[ns].tier = CUZK__V1__SRSSTATUS__TIER__HOT;
            s[ns].size_bytes = c->bytes;
            s[ns].ref_count = (uint32_t)c->refs;
            sp[ns] = &s[ns];
            ns++;
        }
    for (size_t k = 0; k < 2; k++) {
        cuzk__v1__queue_status__init(&q[k]);
        q[k].proof_kind = (char *)kind_name(kinds[k]);
        for (job *j = svc->jobs; j; j = j->next) {
            if (j->kind != kinds[k] || j->state == JS_DONE)
                continue;
            unsigned started = atomic_load(&j->parts_started);
            if (started)
                q[k].in_progress++;
            else
                q[k].pending++;
            q[k].partitions_in_flight += started;
            q[k].partitions_pending += j->n_parts - (started < j->n_parts ? started : j->n_parts);
        }
        qp[k] = &q[k];
    }
    r.total_proofs_completed = svc->total_completed;
    r.total_proofs_failed = svc->total_failed;
    r.total_proofs_cancelled = svc->total_cancelled;
    r.partitions_completed = svc->parts_completed;
    uint32_t kept = 0;
    for (job *j = svc->jobs; j; j = j->next)
        kept += j->state == JS_DONE;
    r.results_retained = kept;
    pthread_mutex_unlock(&svc->mu);
    r.n_loaded_srs = ns;
    r.loaded_srs = sp;
    r.n_queues = 2;
    r.queues = qp;
    r.uptime_seconds = (uint64_t)(now_ms() - svc->t_start) / 1000;
    r.memory_used_bytes = st.budget_used;
    r.pinned_memory_bytes = st.buf_pinned_bytes; /* page-locked partition buffers (a GPU backend's) */
    r.pinned_memory_limit_bytes = r.memory_limit_bytes = st.budget_total;
    r.memory_keys_bytes = st.budget_keys;
    r.partitions_in_flight = st.parts_in_flight;
    r.version = CUZK_VERSION;
    r.backend = (char *)svc->backend_name;
    reply_msg(call, &r.base);
}

/* ---- text builders (metrics, /status) ------------------------------------------------------ */

typedef struct {
    char *s;
    size_t n, cap;
    bool oom;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if (b->s && b->n + (size_t)k < b->cap) {
            b->n += (size_t)k;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = true;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

static char *metrics_text(cuzkd_service *svc, size_t *len)
{
    sbuf b = {0};
    cuzk_engine_stats st;
    cuzk_engine_get_stats(svc->engine, &st);
    rpc_server_stats rs;
    rpc_server_get_stats(svc->srv, &rs);
    pthread_mutex_lock(&svc->mu);
    unsigned pending = 0, running = 0;
    for (job *j = svc->jobs; j; j = j->next)
        if (j->state != JS_DONE) {
            if (atomic_load(&j->parts_started))
                running++;
            else
                pending++;
        }
#define METRIC(name, type, help) sb_printf(&b, "# HELP " name " " help "\n# TYPE " name " " type "\n")
    METRIC("cuzk_proofs_completed_total", "counter", "Jobs whose proofs were delivered (all verified).");
    sb_printf(&b, "cuzk_proofs_completed_total %" PRIu64 "\n", svc->total_completed);
    METRIC("cuzk_proofs_failed_total", "counter", "Jobs that failed.");
    sb_printf(&b, "cuzk_proofs_failed_total %" PRIu64 "\n", svc->total_failed);
    METRIC("cuzk_proofs_cancelled_total", "counter", "Jobs cancelled (CancelProof or shutdown).");
    sb_printf(&b, "cuzk_proofs_cancelled_total %" PRIu64 "\n", svc->total_cancelled);
    METRIC("cuzk_proofs_completed", "counter", "Completed jobs by proof kind.");
    for (int k = 0; k < N_SLOTS; k++)
        if (svc->counts[k].completed)
            sb_printf(&b, "cuzk_proofs_completed{proof_kind=\"%s\"} %" PRIu64 "\n", kind_name(SLOT_KIND[k]),
                      svc->counts[k].completed);
    METRIC("cuzk_proofs_failed", "counter", "Failed jobs by proof kind.");
    for (int k = 0; k < N_SLOTS; k++)
        if (svc->counts[k].failed)
            sb_printf(&b, "cuzk_proofs_failed{proof_kind=\"%s\"} %" PRIu64 "\n", kind_name(SLOT_KIND[k]),
                      svc->counts[k].failed);
    METRIC("cuzk_partitions_completed_total", "counter", "Partition proofs delivered.");
    sb_printf(&b, "cuzk_partitions_completed_total %" PRIu64 "\n", svc->parts_completed);
    METRIC("cuzk_proof_duration_seconds", "summary", "Accept-to-delivery time of completed jobs.");
    sb_printf(&b, "cuzk_proof_duration_seconds_count %" PRIu64 "\ncuzk_proof_duration_seconds_sum %.3f\n",
              svc->dur_count, (double)svc->dur_sum_ms / 1000.0);
    METRIC("cuzk_queue_depth", "gauge", "Jobs accepted whose partitions have not started.");
    sb_printf(&b, "cuzk_queue_depth %u\n", pending);
    METRIC("cuzk_running_jobs", "gauge", "Jobs with partitions in the pipeline.");
    sb_printf(&b, "cuzk_running_jobs %u\n", running);
    METRIC("cuzk_partitions_in_flight", "gauge", "Partitions dispatched and not finished.");
    sb_printf(&b, "cuzk_partitions_in_flight %" PRIu64 "\n", st.parts_in_flight);
    METRIC("cuzk_witnesses_unpacked_total", "counter",
           "Witnesses uploaded whole although packing is on (too many values other than 0 and 1).");
    sb_printf(&b, "cuzk_witnesses_unpacked_total %" PRIu64 "\n", st.parts_unpacked);
    METRIC("cuzk_memory_budget_bytes", "gauge", "The engine's memory budget.");
    sb_printf(&b, "cuzk_memory_budget_bytes %" PRIu64 "\n", st.budget_total);
    METRIC("cuzk_memory_used_bytes", "gauge", "Bytes reserved from the budget (keys included).");
    sb_printf(&b, "cuzk_memory_used_bytes %" PRIu64 "\n", st.budget_used);
    METRIC("cuzk_memory_pinned_bytes", "gauge",
           "Page-locked partition buffers allocated now (in use or pooled).");
    sb_printf(&b, "cuzk_memory_pinned_bytes %" PRIu64 "\n", st.buf_pinned_bytes);
    METRIC("cuzk_memory_keys_bytes", "gauge", "Bytes reserved by loaded circuits.");
    sb_printf(&b, "cuzk_memory_keys_bytes %" PRIu64 "\n", st.budget_keys);
    METRIC("cuzk_srs_loaded_bytes", "gauge", "Loaded circuits (proving key and constraints), by id.");
    for (circuit *c = svc->circuits; c; c = c->next)
        if (c->loaded)
            sb_printf(&b, "cuzk_srs_loaded_bytes{circuit_id=\"%s\"} %" PRIu64 "\n", c->id, c->bytes);
    pthread_mutex_unlock(&svc->mu);
    cuzk_engine_config ec;
    cuzk_engine_get_config(svc->engine, &ec);
    METRIC("cuzk_gpu_workers", "gauge", "GPU workers (devices x workers per device).");
    sb_printf(&b, "cuzk_gpu_workers %d\n", ec.devices * ec.gpu_workers);
    METRIC("cuzk_devices_usable", "gauge", "The engine's devices in service (not lost to a fatal error).");
    sb_printf(&b, "cuzk_devices_usable %d\n", st.devices_usable);
    METRIC("cuzk_device_lost", "gauge", "1 for each device taken out of service after a fatal error.");
    for (int d = 0; d < 64; d++)
        if (st.devices_lost >> d & 1)
            sb_printf(&b, "cuzk_device_lost{device=\"%d\"} 1\n", d);
    METRIC("cuzk_partitions_moved_total", "counter",
           "Partitions moved to another device after theirs was lost.");
    sb_printf(&b, "cuzk_partitions_moved_total %" PRIu64 "\n", st.parts_moved);
#ifdef CUZK_HAVE_GPU
    if (ec.backend == cuzk_engine_backend_gpu() && ec.devices <= 64) {
        uint64_t res[64];
        unsigned streamed[64];
        for (int i = 0; i < ec.devices; i++)
            cuzk_engine_backend_gpu_keys(cuzk_engine_device_id(&ec, i), &res[i], &streamed[i]);
        METRIC("cuzk_gpu_key_resident_bytes", "gauge",
               "Device bytes of the proving keys resident on a device.");
        for (int i = 0; i < ec.devices; i++)
            sb_printf(&b, "cuzk_gpu_key_resident_bytes{device=\"%d\"} %" PRIu64 "\n",
                      cuzk_engine_device_id(&ec, i), res[i]);
        METRIC("cuzk_gpu_keys_streamed", "gauge",
               "Proving keys streamed from host memory on a device, wholly or in part (over key_vram, or not "
               "fitting): slower.");
        for (int i = 0; i < ec.devices; i++)
            sb_printf(&b, "cuzk_gpu_keys_streamed{device=\"%d\"} %u\n", cuzk_engine_device_id(&ec, i),
                      streamed[i]);
        METRIC("cuzk_gpu_key_tables_k", "gauge",
               "The largest k of the group tables the keys resident on a device hold (engine.key_tables); 0: "
               "none.");
        for (int i = 0; i < ec.devices; i++)
            sb_printf(&b, "cuzk_gpu_key_tables_k{device=\"%d\"} %u\n", cuzk_engine_device_id(&ec, i),
                      cuzk_engine_backend_gpu_tables(cuzk_engine_device_id(&ec, i)));
    }
#endif
    METRIC("cuzk_grpc_calls_total", "counter", "gRPC calls received.");
    sb_printf(&b, "cuzk_grpc_calls_total %" PRIu64 "\n", rs.calls);
    METRIC("cuzk_grpc_deadlines_exceeded_total", "counter",
           "Calls answered DEADLINE_EXCEEDED because the client's grpc-timeout passed first.");
    sb_printf(&b, "cuzk_grpc_deadlines_exceeded_total %" PRIu64 "\n", rs.deadlines_exceeded);
    METRIC("cuzk_connections_open", "gauge", "Open client connections.");
    sb_printf(&b, "cuzk_connections_open %" PRIu64 "\n", rs.connections_open);
    METRIC("cuzk_connections_idle_closed_total", "counter",
           "Connections closed by limits.idle_timeout (silent or stalled peers).");
    sb_printf(&b, "cuzk_connections_idle_closed_total %" PRIu64 "\n", rs.connections_idle_closed);
    METRIC("cuzk_protocol_errors_total", "counter", "Connections or frames rejected as malformed.");
    sb_printf(&b, "cuzk_protocol_errors_total %" PRIu64 "\n", rs.protocol_errors);
    METRIC("cuzk_uptime_seconds", "gauge", "Seconds since the daemon started.");
    sb_printf(&b, "cuzk_uptime_seconds %" PRId64 "\n", (now_ms() - svc->t_start) / 1000);
#undef METRIC
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.n;
    return b.s;
}

static void json_str(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            sb_printf(b, "\\%c", ch);
        else if (ch < 0x20)
            sb_printf(b, "\\u%04x", ch);
        else
            sb_printf(b, "%c", ch);
    }
    sb_printf(b, "\"");
}

static char *status_json(cuzkd_service *svc, size_t *len)
{
    sbuf b = {0};
    cuzk_engine_stats st;
    cuzk_engine_get_stats(svc->engine, &st);
    int64_t now = now_ms();
    sb_printf(&b, "{\"version\":\"%s\",\"backend\":\"%s\",\"uptime_seconds\":%" PRId64 ",", CUZK_VERSION,
              svc->backend_name, (now - svc->t_start) / 1000);
    sb_printf(&b,
              "\"memory\":{\"total\":%" PRIu64 ",\"used\":%" PRIu64 ",\"keys\":%" PRIu64
              ",\"available\":%" PRIu64 ",\"peak\":%" PRIu64 "},",
              st.budget_total, st.budget_used, st.budget_keys, st.budget_total - st.budget_used,
              st.budget_peak);
    pthread_mutex_lock(&svc->mu);
    sb_printf(&b, "\"jobs\":[");
    bool first = true;
    for (job *j = svc->jobs; j; j = j->next) {
        sb_printf(&b, "%s{\"job_id\":", first ? "" : ",");
        json_str(&b, j->id);
        const char *state =
            j->state == JS_DONE
                ? (j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED   ? "completed"
                   : j->rstatus == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED ? "cancelled"
                                                                                     : "failed")
            : atomic_load(&j->parts_started) ? "running"
                                             : "pending";
        sb_printf(&b, ",\"proof_kind\":\"%s\",\"circuit_id\":", kind_name(j->kind));
        json_str(&b, j->circ->id);
        sb_printf(
            &b, ",\"state\":\"%s\",\"partitions\":%u,\"partitions_started\":%u,\"age_seconds\":%" PRId64 "}",
            state, j->n_parts, atomic_load(&j->parts_started), (now - j->t_accept) / 1000);
        first = false;
    }
    sb_printf(&b, "],\"circuits\":[");
    first = true;
    for (circuit *c = svc->circuits; c; c = c->next) {
        sb_printf(&b, "%s{\"circuit_id\":", first ? "" : ",");
        json_str(&b, c->id);
        sb_printf(&b,
                  ",\"loaded\":%s,\"loading\":%s,\"bytes\":%" PRIu64 ",\"ref_count\":%d,\"evictable\":%s}",
                  c->loaded ? "true" : "false", c->loading ? "true" : "false", c->bytes, c->refs,
                  c->loaded && !c->refs ? "true" : "false");
        first = false;
    }
    sb_printf(&b,
              "],\"counters\":{\"completed\":%" PRIu64 ",\"failed\":%" PRIu64 ",\"cancelled\":%" PRIu64
              ",\"partitions_completed\":%" PRIu64 ",\"partitions_in_flight\":%" PRIu64
              "},\"devices_usable\":%d,\"devices_lost\":[",
              svc->total_completed, svc->total_failed, svc->total_cancelled, svc->parts_completed,
              st.parts_in_flight, st.devices_usable);
    for (int d = 0, n = 0; d < 64; d++)
        if (st.devices_lost >> d & 1)
            sb_printf(&b, "%s%d", n++ ? "," : "", d);
    sb_printf(&b, "],\"device_error\":");
    json_str(&b, st.device_error);
    sb_printf(&b, ",\"draining\":%s}\n", svc->draining ? "true" : "false");
    pthread_mutex_unlock(&svc->mu);
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    *len = b.n;
    return b.s;
}

static void h_metrics(cuzkd_service *svc, rpc_call *call)
{
    size_t len = 0;
    char *t = metrics_text(svc, &len);
    if (!t)
        return reply_err(call, RPC_RESOURCE_EXHAUSTED, "out of memory");
    Cuzk__V1__GetMetricsResponse r = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    r.prometheus_text = t;
    reply_msg(call, &r.base);
    free(t);
}

int cuzkd_service_http(void *ctx, const char *path, char **body, size_t *len, const char **ctype)
{
    cuzkd_service *svc = ctx;
    *body = NULL;
    if (!strcmp(path, "/metrics")) {
        *ctype = "text/plain; version=0.0.4";
        *body = metrics_text(svc, len);
        return 200;
    }
    if (!strcmp(path, "/status")) {
        *ctype = "application/json";
        *body = status_json(svc, len);
        return 200;
    }
    return 404;
}

/* ---- PreloadSRS / EvictSRS ---------------------------------------------------------------- */

static void task_preloaded(void *arg)
{
    preload *p = arg;
    cuzkd_service *svc = p->svc;
    for (preload **pp = &svc->preloads; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    if (p->call) {
        if (p->rpc_code != RPC_OK) {
            reply_err(p->call, p->rpc_code, "%s", p->error);
        } else {
            Cuzk__V1__PreloadSrsResponse r = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
            r.already_loaded = p->already;
            r.load_time_ms = p->ms;
            reply_msg(p->call, &r.base);
        }
    }
    free(p);
}

static void *preload_main(void *arg)
{
    preload *p = arg;
    char err[300] = "";
    int rc = circuit_ensure(p->svc, p->c, &p->already, &p->ms, err, sizeof err);
    if (rc != CUZK_OK) {
        p->rpc_code = code_of(rc) == RPC_INVALID_ARGUMENT ? RPC_FAILED_PRECONDITION : code_of(rc);
        snprintf(p->error, sizeof p->error, "circuit %s cannot be loaded: %s", p->c->id, err);
    }
    pthread_mutex_lock(&p->svc->mu);
    p->c->refs--;
    pthread_mutex_unlock(&p->svc->mu);
    cuzkd_service *svc = p->svc;
    while (rpc_server_post(svc->srv, task_preloaded, p) != 0)
        usleep(1000);
    thread_done(svc);
    return NULL;
}

static void h_preload(cuzkd_service *svc, rpc_call *call, Cuzk__V1__PreloadSrsRequest *rq)
{
    if (svc->draining)
        return reply_err(call, RPC_UNAVAILABLE, "cuzkd is shutting down");
    int code = RPC_OK;
    char err[300];
    pthread_mutex_lock(&svc->mu);
    circuit *c = circuit_find(svc, rq->circuit_id, &code, err, sizeof err);
    bool loaded = c && c->loaded;
    if (c && !loaded)
        c->refs++; /* held while loading: EvictSRS waits its turn */
    pthread_mutex_unlock(&svc->mu);
    if (!c)
        return reply_err(call, code, "%s", err);
    if (loaded) {
        Cuzk__V1__PreloadSrsResponse r = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
        r.already_loaded = true;
        return reply_msg(call, &r.base);
    }
    preload *p = calloc(1, sizeof *p);
    if (p) {
        p->svc = svc;
        p->c = c;
        p->call = call;
        p->next = svc->preloads;
        svc->preloads = p; /* the thread's answer comes back through the loop, after this returns */
    }
    if (!p || spawn(svc, preload_main, p) != 0) {
        if (p) {
            svc->preloads = p->next;
            free(p);
        }
        pthread_mutex_lock(&svc->mu);
        c->refs--;
        pthread_mutex_unlock(&svc->mu);
        return reply_err(call, RPC_RESOURCE_EXHAUSTED, "cannot start the load");
    }
}

static void h_evict(cuzkd_service *svc, rpc_call *call, Cuzk__V1__EvictSrsRequest *rq)
{
    int code = RPC_OK;
    char err[300];
    Cuzk__V1__EvictSrsResponse r = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    pthread_mutex_lock(&svc->mu);
    circuit *c = circuit_find(svc, rq->circuit_id, &code, err, sizeof err);
    if (c && (c->refs > 0 || c->loading)) {
        code = RPC_FAILED_PRECONDITION;
        snprintf(err, sizeof err,
                 "circuit %s is in use (%d unfinished job%s or a load in progress); evict it later", c->id,
                 c->refs, c->refs == 1 ? "" : "s");
    } else if (c && c->loaded) {
        r.was_loaded = true;
        r.freed_bytes = c->bytes;
        circuit_unload(c); /* no unfinished job holds the key: cuzk_engine_key_free does not wait */
        c->bytes = 0;
    }
    pthread_mutex_unlock(&svc->mu);
    if (code != RPC_OK)
        return reply_err(call, code, "%s", err);
    if (r.was_loaded)
        LOG_INFO("circuit %s: evicted (%" PRIu64 " bytes freed)", c->id, r.freed_bytes);
    reply_msg(call, &r.base);
}

/* ---- dispatch ----------------------------------------------------------------------------- */

void cuzkd_service_handle(void *ctx, rpc_call *call, const char *method, const uint8_t *msg, size_t len)
{
    cuzkd_service *svc = ctx;
    if (strncmp(method, METHOD_PREFIX, strlen(METHOD_PREFIX)) != 0)
        return reply_err(call, RPC_UNIMPLEMENTED, "unknown service in method '%s'", method);
    const char *name = method + strlen(METHOD_PREFIX);
    static const struct {
        const char *name;
        const ProtobufCMessageDescriptor *req;
    } M[] = {
        {"SubmitProof", &cuzk__v1__submit_proof_request__descriptor},
        {"AwaitProof", &cuzk__v1__await_proof_request__descriptor},
        {"Prove", &cuzk__v1__prove_request__descriptor},
        {"CancelProof", &cuzk__v1__cancel_proof_request__descriptor},
        {"GetStatus", &cuzk__v1__get_status_request__descriptor},
        {"GetMetrics", &cuzk__v1__get_metrics_request__descriptor},
        {"PreloadSRS", &cuzk__v1__preload_srs_request__descriptor},
        {"EvictSRS", &cuzk__v1__evict_srs_request__descriptor},
    };
    int m = 0;
    for (; m < 8; m++)
        if (!strcmp(name, M[m].name))
            break;
    if (m == 8)
        return reply_err(call, RPC_UNIMPLEMENTED, "unknown method '%s'", method);
    ProtobufCMessage *rq = protobuf_c_message_unpack(M[m].req, NULL, len, msg);
    if (!rq)
        return reply_err(call, RPC_INVALID_ARGUMENT,
                         "cannot decode %s (%zu bytes): truncated or malformed protobuf",
                         M[m].req->short_name, len);
    svc->calls_by_method[m]++;
    LOG_DEBUG("%s: %s (%zu bytes)", rpc_call_peer(call), name, len);
    switch (m) {
    case 0: start_job(svc, call, rq, (Cuzk__V1__SubmitProofRequest *)rq, false); return; /* takes rq */
    case 2: {
        Cuzk__V1__ProveRequest *p = (Cuzk__V1__ProveRequest *)rq;
        if (!p->submit) {
            reply_err(call, RPC_INVALID_ARGUMENT, "ProveRequest has no submit message");
            break;
        }
        start_job(svc, call, rq, p->submit, true);
        return;
    }
    case 1: h_await(svc, call, (Cuzk__V1__AwaitProofRequest *)rq); break;
    case 3: h_cancel(svc, call, (Cuzk__V1__CancelProofRequest *)rq); break;
    case 4: h_status(svc, call); break;
    case 5: h_metrics(svc, call); break;
    case 6: h_preload(svc, call, (Cuzk__V1__PreloadSrsRequest *)rq); break;
    case 7: h_evict(svc, call, (Cuzk__V1__EvictSrsRequest *)rq); break;
    }
    protobuf_c_message_free_unpacked(rq, NULL);
}

void cuzkd_service_closed(void *ctx, rpc_call *call)
{
    cuzkd_service *svc = ctx;
    for (waiter **pp = &svc->waiters; *pp; pp = &(*pp)->next)
        if ((*pp)->call == call) {
            waiter *w = *pp;
            *pp = w->next;
            free(w);
            return;
        }
    for (preload *p = svc->preloads; p; p = p->next)
        if (p->call == call) {
            p->call = NULL;
            return;
        }
    for (job *j = svc->jobs; j; j = j->next) /* the loop alone writes submit_call */
        if (j->submit_call == call) {
            LOG_INFO(
                "job %s: the call ended before the answer (the client left, or its grpc-timeout passed); "
                "the job goes on (AwaitProof can fetch it)",
                j->id);
            j->submit_call = NULL;
            return;
        }
}

void cuzkd_service_rpc_log(void *ctx, rpc_log_level level, const char *msg)
{
    cuzkd_log(level, "%s", msg);
}

/* ---- tick: timeouts, result expiry, drain -------------------------------------------------- */

static void cancel_all(cuzkd_service *svc)
{
    pthread_mutex_lock(&svc->mu);
    int n = 0;
    for (job *j = svc->jobs; j; j = j->next)
        if (j->state != JS_DONE) {
            j->cancel_req = true;
            j->shutdown_cancel = true;
            if (j->state == JS_QUEUED)
                cuzk_engine_cancel(svc->engine, j->eid);
            n++;
        }
    pthread_mutex_unlock(&svc->mu);
    if (n)
        LOG_WARN("shutdown: cancelling %d unfinished job%s", n, n == 1 ? "" : "s");
}

/* A device the engine took out of service is logged once; with none left the daemon can prove nothing
 * until a new process starts the devices afresh (a GPU's fatal error lasts as long as the process), so
 * unless engine.exit_on_device_lost = false it drains (every job has failed by then) and exits with
 * status 3, for its supervisor to restart it. */
static void check_devices(cuzkd_service *svc)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(svc->engine, &st);
    if (st.devices_lost == svc->devices_lost_seen)
        return;
    uint64_t fresh = st.devices_lost & ~svc->devices_lost_seen;
    svc->devices_lost_seen = st.devices_lost;
    for (int d = 0; d < 64; d++)
        if (fresh >> d & 1)
            LOG_ERROR("device %d is out of service: its partitions move to the other devices (%s)", d,
                      st.device_error);
    if (st.devices_usable > 0 || svc->draining)
        return;
    if (svc->cfg->stay_without_device) {
        LOG_ERROR("no usable device left: every job fails and new ones are refused until the daemon restarts "
                  "(engine.exit_on_device_lost = false)");
        return;
    }
    LOG_ERROR(
        "no usable device left: shutting down, exit status 3, for a restart to start the devices afresh");
    svc->exit_status = 3;
    cuzkd_service_shutdown(svc, false);
}

int cuzkd_service_exit_status(const cuzkd_service *svc)
{
    return svc ? svc->exit_status : 0;
}

int cuzkd_service_tick(void *ctx)
{
    cuzkd_service *svc = ctx;
    check_devices(svc);
    int64_t now = now_ms(), next = now + 1000;
    for (waiter **pp = &svc->waiters; *pp;) {
        waiter *w = *pp;
        if (w->deadline && w->deadline <= now) {
            *pp = w->next;
            Cuzk__V1__AwaitProofResponse r = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
            r.job_id = w->j->id;
            r.status = CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT;
            r.error_message = "timeout_ms passed before the job finished";
            reply_msg(w->call, &r.base);
            free(w);
            continue;
        }
        if (w->deadline && w->deadline < next)
            next = w->deadline;
        pp = &w->next;
    }
    /* results: past their time, or the oldest beyond the count limit */
    pthread_mutex_lock(&svc->mu);
    /* the list is newest first: the first max_results finished jobs are kept (if young enough) */
    int seen = 0;
    for (job **pp = &svc->jobs; *pp;) {
        job *j = *pp;
        if (j->state == JS_DONE && j->delivered &&
            (++seen > svc->cfg->max_results || now - j->t_done >= (int64_t)svc->cfg->results_ttl_s * 1000)) {
            *pp = j->next;
            job_free_inputs(j);
            free(j->proof);
            free(j);
            continue;
        }
        pp = &j->next;
    }
    /* drain */
    if (svc->draining && !svc->stopped) {
        if (!svc->cancelled_all && (svc->immediate || now >= svc->drain_deadline)) {
            svc->cancelled_all = true;
            pthread_mutex_unlock(&svc->mu);
            cancel_all(svc);
            pthread_mutex_lock(&svc->mu);
        }
        /* a finished job's answer is a task still queued on this loop until task_finished has run: the
         * server must not stop (closing its call) before that */
        bool answered = true;
        for (job *j = svc->jobs; j && answered; j = j->next)
            answered = j->state != JS_DONE || j->delivered;
        bool idle = svc->unfinished == 0 && svc->threads_live == 0 && answered;
        pthread_mutex_unlock(&svc->mu);
        if (idle && !svc->waiters && !svc->preloads) {
            LOG_INFO("shutdown: no work left; closing connections");
            svc->stopped = true;
            rpc_server_stop(svc->srv, 2000);
            return 100;
        }
        if (!svc->cancelled_all && svc->drain_deadline < next)
            next = svc->drain_deadline;
        int64_t t = next - now;
        return (int)(t < 50 ? 50 : t);
    }
    pthread_mutex_unlock(&svc->mu);
    int64_t t = next - now;
    return (int)(t < 1 ? 1 : t);
}

void cuzkd_service_shutdown(cuzkd_service *svc, bool immediate)
{
    if (svc->draining) {
        if (!immediate || svc->immediate)
            return;
        LOG_WARN("second stop signal: cancelling the remaining work now");
        svc->immediate = true;
        return;
    }
    svc->draining = true;
    svc->immediate = immediate;
    svc->drain_deadline = now_ms() + (int64_t)svc->cfg->drain_timeout_s * 1000;
    rpc_server_close_listeners(svc->srv);
    pthread_mutex_lock(&svc->mu);
    int n = svc->unfinished;
    pthread_mutex_unlock(&svc->mu);
    if (immediate || svc->cfg->drain_timeout_s == 0)
        LOG_INFO("shutdown: no new work; cancelling %d unfinished job%s", n, n == 1 ? "" : "s");
    else
        LOG_INFO("shutdown: no new work; %d unfinished job%s get up to %d s to finish", n, n == 1 ? "" : "s",
                 svc->cfg->drain_timeout_s);
}

/* ---- lifetime ----------------------------------------------------------------------------- */

static uint64_t auto_budget(const cuzkd_config *cfg)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t total = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (uint64_t)256 << 30;
    return total > cfg->safety_margin ? total - cfg->safety_margin : 0;
}

int cuzkd_service_new(cuzkd_service **out, const cuzkd_config *cfg, char *err, size_t errlen)
{
    *out = NULL;
    cuzkd_service *svc = calloc(1, sizeof *svc);
    if (!svc)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "out of memory");
    svc->cfg = cfg;
    svc->t_start = now_ms();
    pthread_mutex_init(&svc->mu, NULL);
    pthread_mutex_init(&svc->load_mu, NULL);
    pthread_cond_init(&svc->cond, NULL);
    cuzk_engine_config ec = {0};
    ec.devices = cfg->devices;
    ec.device_mask = cfg->device_mask;
    ec.synth_workers = cfg->synth_workers;
    ec.gpu_workers = cfg->gpu_workers;
    ec.gpu_threads = cfg->gpu_threads;
    ec.eval_threads = cfg->eval_threads;
    ec.post_workers = cfg->post_workers;
    ec.queue_depth = cfg->queue_depth;
    ec.key_vram = cfg->key_vram;
    ec.key_tables = cfg->key_tables;
    ec.flags = cfg->no_zpack ? CUZK_ENGINE_NO_ZPACK : 0;
    ec.budget = cfg->budget ? cfg->budget : auto_budget(cfg);
    ec.eval = !strcmp(cfg->eval, "host")     ? CUZK_ENGINE_EVAL_HOST
              : !strcmp(cfg->eval, "device") ? CUZK_ENGINE_EVAL_DEVICE
                                             : CUZK_ENGINE_EVAL_AUTO;
    int rc = CUZK_OK;
    if (!ec.budget)
        rc = cuzk_fail(err, errlen, CUZK_EINVAL,
                       "memory.total_budget = auto leaves nothing after safety_margin");
    ec.backend = cuzk_engine_backend_cpu();
#ifdef CUZK_HAVE_GPU
    if (strcmp(cfg->backend, "cpu") != 0 && cuzk_gpu_device_count() > 0)
        ec.backend = cuzk_engine_backend_gpu();
    else if (!strcmp(cfg->backend, "gpu"))
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "engine.backend = gpu: no CUDA device is present");
#else
    if (!strcmp(cfg->backend, "gpu"))
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "engine.backend = gpu: this build has no CUDA backend");
#endif
    if (rc == CUZK_OK)
        rc = cuzk_engine_new(&svc->engine, &ec, err, errlen);
    if (rc != CUZK_OK) {
        cuzkd_service_free(svc);
        return rc;
    }
    svc->backend_name = ec.backend->name;
    for (int i = 0; i < cfg->n_circuits; i++) {
        circuit *c = calloc(1, sizeof *c);
        if (!c || !(c->params_path = cuzkd_config_path(cfg, cfg->circuits[i].params)) ||
            !(c->r1cs_path = cuzkd_config_path(cfg, cfg->circuits[i].r1cs))) {
            if (c) {
                free(c->params_path);
                free(c);
            }
            cuzkd_service_free(svc);
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "out of memory");
        }
        snprintf(c->id, sizeof c->id, "%s", cfg->circuits[i].id);
        c->kind = CK_FILE;
        c->next = svc->circuits;
        svc->circuits = c;
    }
    cuzk_engine_config got;
    cuzk_engine_get_config(svc->engine, &got);
    char ids[256];
    cuzk_engine_device_list_format(got.device_mask, ids, sizeof ids);
    LOG_INFO(
        "engine: %s backend, %d device%s (%s) x %d GPU worker%s, %d synthesis worker%s, %d post worker%s, "
        "%s evaluation, budget %" PRIu64 " MiB",
        got.backend->name, got.devices, got.devices == 1 ? "" : "s", ids, got.gpu_workers,
        got.gpu_workers == 1 ? "" : "s", got.synth_workers, got.synth_workers == 1 ? "" : "s",
        got.post_workers, got.post_workers == 1 ? "" : "s",
        got.eval == CUZK_ENGINE_EVAL_DEVICE ? "device" : "host", got.budget >> 20);
    /* [srs] preload: before the first connection */
    for (int i = 0; i < cfg->n_preload; i++) {
        int code;
        char e[300];
        pthread_mutex_lock(&svc->mu);
        circuit *c = circuit_find(svc, cfg->preload[i], &code, e, sizeof e);
        pthread_mutex_unlock(&svc->mu);
        bool already;
        uint64_t ms;
        if (!c || circuit_ensure(svc, c, &already, &ms, e, sizeof e) != CUZK_OK) {
            cuzkd_service_free(svc);
            return cuzk_fail(err, errlen, CUZK_EINVAL, "srs.preload %s: %s", cfg->preload[i], e);
        }
    }
    *out = svc;
    return CUZK_OK;
}

void cuzkd_service_attach(cuzkd_service *svc, rpc_server *srv)
{
    svc->srv = srv;
}

void cuzkd_service_quiesce(cuzkd_service *svc)
{
    if (!svc)
        return;
    if (svc->engine)
        cancel_all(svc);
    pthread_mutex_lock(&svc->mu);
    while (svc->threads_live > 0)
        pthread_cond_wait(&svc->cond, &svc->mu);
    pthread_mutex_unlock(&svc->mu);
}

void cuzkd_service_free(cuzkd_service *svc)
{
    if (!svc)
        return;
    cuzkd_service_quiesce(svc);
    while (svc->waiters) {
        waiter *w = svc->waiters;
        svc->waiters = w->next;
        free(w);
    }
    while (svc->preloads) {
        preload *p = svc->preloads;
        svc->preloads = p->next;
        free(p);
    }
    while (svc->jobs) {
        job *j = svc->jobs;
        svc->jobs = j->next;
        job_free_inputs(j);
        free(j->proof);
        free(j);
    }
    while (svc->circuits) {
        circuit *c = svc->circuits;
        svc->circuits = c->next;
        if (c->loaded)
            circuit_unload(c);
        free(c->params_path);
        free(c->r1cs_path);
        free(c);
    }
    cuzk_engine_free(svc->engine);
    pthread_cond_destroy(&svc->cond);
    pthread_mutex_destroy(&svc->load_mu);
    pthread_mutex_destroy(&svc->mu);
    free(svc);
}
