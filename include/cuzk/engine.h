/*
 * cuzk/engine.h — the proving engine: jobs of many partitions flowing through
 * synthesis, a bounded GPU queue, per-device workers and post-processing,
 * under one memory budget (docs/design/012-engine.md, docs/engine.md).
 *
 * A job is one circuit (a key: proving key + constraint system, shared by all
 * partitions) and N partitions. For partition p a synthesis worker asks the
 * job's callback for the witness z and, with host evaluation, evaluates
 * a = A·z, b = B·z, c = C·z into pooled buffers and checks a∘b = c (with
 * device evaluation the backend's device phase does both: config.eval), and
 * queues the partition. A GPU worker
 * (gw per device) runs the backend's three phases: `pre` outside the device
 * lock, `device` under it, then hands the partition to a post worker, which
 * runs the backend's `post` and verifies the proof with the key's verifying
 * key. The job's proofs are delivered in partition order once all verify.
 *
 * Threads (all created by cuzk_engine_new, sized by cuzk_engine_config):
 *   1 dispatcher      orders partitions and reserves their memory
 *   synth_workers     witness + a, b, c, one partition each
 *   eval_threads - 1  host evaluation only: the pool the synthesis workers share for a, b, c + check
 *   devices × gpu_workers   pre / device / hand-off, each with its own pool
 *   post_workers      post phase + verification + assembly
 *   1 reaper          frees surplus buffers, one at a time, off the hot path
 *
 * Order: the dispatcher always takes the next partition of the first job in
 * (priority CRITICAL > HIGH > NORMAL > LOW, then submission order), partitions
 * of a job in index order; the GPU queue hands out by the same key. Work
 * already dispatched is never preempted.
 *
 * Memory: one byte budget. A key reserves its bytes (proving key + matrices)
 * when registered; each partition reserves its working set when dispatched
 * and returns it in two phases: a, b, c plus the backend's device scratch
 * after the device phase, the witness after post. A partition larger than
 * the budget left by the keys is refused at submit, so admission never
 * deadlocks.
 *
 * Failure and cancellation: a failing partition (callback error, witness not
 * satisfying the constraints, backend error, proof not verifying) fails its
 * job only. A device the backend reports lost (CUZK_EDEVICE) is taken out of
 * service and its partitions move to the other devices; jobs fail for it
 * only when no device is left. A failed or cancelled job drops its undispatched partitions;
 * partitions in flight stop at the next phase boundary; every byte and
 * buffer comes back before cuzk_engine_await reports the outcome.
 *
 * Thread safety: every function may be called from any thread, except
 * cuzk_engine_free, which must not race with other calls on the engine.
 */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/field.h"
#include "cuzk/groth16.h"
#include "cuzk/pool.h"
#include "cuzk/timeline.h"
#include "cuzk/verify.h"
#include "cuzk/zpack.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    CUZK_PRIO_LOW = 0,
    CUZK_PRIO_NORMAL = 1,
    CUZK_PRIO_HIGH = 2,
    CUZK_PRIO_CRITICAL = 3,
} cuzk_engine_prio;

typedef struct cuzk_engine cuzk_engine;
typedef struct cuzk_engine_key cuzk_engine_key;

/* ---- backend interface ---------------------------------------------------------------- */

/* One partition as a backend sees it. The engine fills everything but `proof` and `pending`. */
typedef struct cuzk_engine_part {
    uint64_t job;
    uint32_t part, n_parts;
    int dev;    /* the device of the GPU worker that took it; pre, device and post all see the same */
    int worker; /* that worker's index on its device */
    const cuzk_groth16_params *pk;
    const cuzk_cs *cs;
    const cuzk_groth16_pvk *pvk; /* pk's prepared verifying key */
    const cuzk_fr *z; /* n_z = n_inputs + n_aux witness values (z[0] = 1); valid until post returns */
    size_t n_z;
    const uint64_t *density[3]; /* cs's density bitmaps (cuzk_cs_density), computed once per key */
    size_t density_pop[3];      /* their popcounts (over n_aux, n_inputs, n_aux bits), counted with them */
    const cuzk_zpack *zp; /* z packed for its upload (backend packed_z, device evaluation), valid in pre and
                             device only; NULL when not packed (packing off, or too many values other than
                             0 and 1 for its tail) */
    const cuzk_fr *a, *b, *c; /* n_abc = cs->n_constraints values each; valid in pre and device only.
                                 NULL when the device phase evaluates them (device evaluation, below) */
    size_t n_abc;
    bool check; /* device evaluation only: the device phase checks a∘b = c (CUZK_EUNSAT with the row) */
    uint64_t key_vram;   /* config.key_vram: device bytes for resident keys per device, 0 = what fits */
    unsigned key_tables; /* config.key_tables resolved: the largest k of a key's group tables, 0 = none */
    cuzk_fr r, s;        /* the proof's randomness */
    cuzk_groth16_proof proof; /* written by device or post */
    void *pending;            /* the backend's own state from pre/device to post (the backend frees it) */
    void *engine_;            /* internal */
} cuzk_engine_part;

/* A backend: where the proving math runs. The engine owns threads, queues, the device locks, memory
 * accounting and verification; the backend only computes. `ctx` is passed back to every call.
 *
 *   worker_new   per GPU worker, once, on the worker's thread: per-device state (device buffers,
 *                streams, host scratch) reused for every partition the worker runs. `dev` is the
 *                device's number (config.device_mask), as in the part's dev. `pool` (borrowed,
 *                config.gpu_threads threads) is the worker's CPU pool.
 *   part_bytes   host bytes one partition needs beyond its witness and a, b, c, held from dispatch
 *                until the device phase ends (an estimate the budget charges); device_eval tells
 *                whether a, b, c come from synthesis (false) or the device phase makes them (true).
 *   pre          CPU work before the lock (e.g. split-MSM bitmaps); optional.
 *   device       the kernels, under the device lock shared by the device's gpu_workers. Call
 *                cuzk_engine_stage around each kernel stage (KERNEL_START/KERNEL_END).
 *   post         CPU work after the lock (epilogue) on a post worker; fills p->proof if device did not;
 *                optional. It owns p->pending and frees it whatever its result. The engine then
 *                verifies p->proof.
 *   abandon      frees p->pending of a partition that will not reach post (failure, cancellation);
 *                optional.
 *   host_alloc / host_free   the engine's pooled partition buffers the device reads (a, b, c with host
 *                evaluation; with device evaluation the packed witness when packed_z, else z): pinned
 *                memory on a GPU backend; NULL = 64-byte aligned malloc, as for every other buffer (z
 *                when it is packed).
 *   key_free     the engine dropped its last reference to pk: free any per-key device state; optional.
 *   device_eval  the backend's device phase can evaluate a = A·z, b = B·z, c = C·z itself (from
 *                matrices it keeps next to the key) and check a∘b = c: with device evaluation on
 *                (cuzk_engine_config.eval) synthesis only writes z and the part's a, b, c are NULL.
 *   prefer_device_eval   device evaluation is the backend's default (CUZK_ENGINE_EVAL_AUTO).
 *   packed_z     with device evaluation, pre takes the witness packed as well (p->zp, cuzk/zpack.h): the
 *                synthesis worker packs it after the witness (on the eval_threads pool), into a pooled
 *                buffer of n_z / 8 × 3 bytes and a tail of n_z / 16 + 64 values, unless CUZK_ENGINE_NO_ZPACK.
 * Functions return CUZK_OK or a CUZK_E* code with a message in err. CUZK_EDEVICE from pre or device says
 * the device itself can no longer be used (the GPU backend: a CUDA error that leaves the device's context
 * unusable until the process restarts): the engine sends that device no more work and moves the
 * partition, with its synthesized buffers, to another device's workers; only when no device is left do
 * jobs fail (status CUZK_EDEVICE), and later submits are refused. */
typedef struct cuzk_engine_backend {
    const char *name;
    void *ctx;
    int n_devices; /* physical devices driven; 0 = virtual (the CPU backend: any count) */
    int (*worker_new)(void *ctx, int dev, int worker, cuzk_pool *pool, void **state, char *err,
                      size_t errlen);
    void (*worker_free)(void *ctx, void *state);
    uint64_t (*part_bytes)(void *ctx, const cuzk_groth16_params *pk, const cuzk_cs *cs, bool device_eval);
    int (*pre)(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen);
    int (*device)(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen);
    int (*post)(void *ctx, cuzk_engine_part *p, char *err, size_t errlen);
    void (*abandon)(void *ctx, cuzk_engine_part *p);
    void *(*host_alloc)(void *ctx, size_t bytes);
    void (*host_free)(void *ctx, void *ptr, size_t bytes);
    void (*key_free)(void *ctx, const cuzk_groth16_params *pk);
    bool device_eval, prefer_device_eval, packed_z;
} cuzk_engine_backend;

/* The CPU backend: pre does nothing; device runs cuzk_groth16_prove_ex as a whole on the worker's pool
 * (witness check and verification off: the engine does both), so on this backend the device "lock" covers
 * the whole prove, and devices are virtual lock domains; post does nothing. */
const cuzk_engine_backend *cuzk_engine_backend_cpu(void);

/* Backends call this from `device` around each kernel stage: end = false before, true after. */
void cuzk_engine_stage(cuzk_engine_part *p, const char *stage, bool end);
/* A kernel stage the device timed itself (e.g. with CUDA events), recorded after the fact from `device`:
 * KERNEL_START at start_us and KERNEL_END at end_us, CLOCK_MONOTONIC microseconds. The GPU backend
 * records its prover's stages (upload, eval, h, msm_h, ...) this way, nested in its "prove" stage. */
void cuzk_engine_stage_span(cuzk_engine_part *p, const char *stage, int64_t start_us, int64_t end_us);

/* ---- engine ------------------------------------------------------------------------------ */

enum {
    CUZK_ENGINE_NO_CHECK = 1u << 0, /* skip the a∘b = c check after synthesis (verification still guards) */
    CUZK_ENGINE_NO_ZPACK = 1u << 1, /* upload witnesses whole (no packing for a packed_z backend) */
};

/* Where a = A·z, b = B·z, c = C·z are evaluated and checked (cuzk_engine_config.eval). */
typedef enum {
    CUZK_ENGINE_EVAL_AUTO = 0,   /* the backend's preference (the GPU backend: device; the CPU: host) */
    CUZK_ENGINE_EVAL_HOST = 1,   /* by the synthesis worker, into pooled host buffers, before the GPU queue */
    CUZK_ENGINE_EVAL_DEVICE = 2, /* in the device phase (only z crosses to the device); CUZK_EINVAL at
                                    cuzk_engine_new when the backend cannot */
} cuzk_engine_eval;

/* Configuration; zero in any field means its default (docs/engine.md lists them). */
typedef struct {
    const cuzk_engine_backend *backend; /* NULL: the CPU backend */
    int devices;                        /* devices used (default: all of a physical backend; 1 on the CPU) */
    uint64_t device_mask;  /* which devices, by number: bit d = device d (default 0: the first `devices`);
                              `devices`, when also given, must equal its population. A physical backend's
                              numbers are its own (CUDA's, within CUDA_VISIBLE_DEVICES); the CPU backend's
                              devices are lock domains and take any numbers below 64 */
    int synth_workers;     /* synthesis threads, one partition each (default 2) */
    int gpu_workers;       /* GPU workers per device, sharing the device's lock (default 2) */
    int gpu_threads;       /* CPU threads in each GPU worker's pool (default: online CPUs) */
    int eval_threads;      /* host evaluation: threads of the one pool the synthesis workers share for a, b, c
                              and the check; device evaluation on a backend taking packed witnesses: for the
                              packing (default: online CPUs; two workers' runs take turns on it) */
    int post_workers;      /* post-processing threads (default 1) */
    int queue_depth;       /* bounded GPU queue of synthesized partitions (default devices × gw) */
    int pool_idle;         /* idle partition buffers kept (default 2 × (synth + queue + gpu + post)) */
    uint64_t budget;       /* bytes (default: 3/4 of physical memory) */
    uint64_t rs_seed;      /* 0: r, s from getrandom(); else cuzk_engine_rs(rs_seed, job, part) (tests) */
    unsigned flags;        /* CUZK_ENGINE_* */
    cuzk_engine_eval eval; /* where a, b, c are evaluated (default AUTO) */
    uint64_t key_vram;     /* GPU backend: device bytes its resident proving keys may take per device (default
                              0: as many as fit); a key beyond it, or one that does not fit beside its circuit
                              and the device's gpu_workers provers, is streamed from page-locked host memory
                              instead (and one that does not fit even so fails its partitions, saying so) */
    int key_tables; /* GPU backend: the largest k (2..4) of the group tables a wholly resident key's witness
                       vectors (l, a, b_g1, b_g2) are held as, so that the sums of the bases whose scalar is
                       one take one addition per group of k (docs/design/020): the largest k whose tables fit
                       beside everything else and leave 8 GiB of the device free is taken, none when even
                       k = 2 does not (default 0: none, as -1). Same proofs; made at the key's load */
    cuzk_timeline *timeline; /* borrowed, may be NULL; must outlive the engine */
} cuzk_engine_config;

/* Starts the engine's threads. cfg may be NULL (all defaults). CUZK_EINVAL for a bad setting. */
int cuzk_engine_new(cuzk_engine **out, const cuzk_engine_config *cfg, char *err, size_t errlen);

/* Cancels every unfinished job, waits until their partitions have left the pipeline, stops and joins
 * the threads and frees everything, remaining keys and unawaited results included. NULL is a no-op. */
void cuzk_engine_free(cuzk_engine *e);

/* The number of the slot-th device of c (0 <= slot < devices) by its device_mask, or the slot itself
 * when the mask is 0; -1 when there is no such device. */
int cuzk_engine_device_id(const cuzk_engine_config *c, int slot);

/* The devices an engine made from c drives, as a device_mask, before it is made: c's list, else the
 * first c->devices, else every device of a physical backend (device 0 of the CPU backend or of one with
 * none). The rule cuzk_engine_new applies; for work that must stay on the engine's devices (a setup). */
uint64_t cuzk_engine_device_set(const cuzk_engine_config *c);

/* The configuration in effect, defaults resolved. */
void cuzk_engine_get_config(const cuzk_engine *e, cuzk_engine_config *out);

/* Microseconds since the engine's epoch (its timeline's, if it has one). */
int64_t cuzk_engine_now(const cuzk_engine *e);

/* Registers a circuit: borrows pk and cs, which must stay valid until cuzk_engine_key_free returns.
 * Prepares pk's verifying key and reserves the key's bytes from the budget now; fails with CUZK_ERANGE
 * when they do not fit beside what is reserved (register keys before loading the engine with work) or
 * would leave less than the working set of a job already submitted. */
int cuzk_engine_key_new(cuzk_engine *e, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                        cuzk_engine_key **out, char *err, size_t errlen);

/* Drops the caller's reference: blocks until no unfinished job uses the key, returns its bytes to the
 * budget and frees it. NULL is a no-op. */
void cuzk_engine_key_free(cuzk_engine_key *key);

/* Bytes the budget charges for one partition of the key's circuit (witness, a, b, c, backend scratch). */
uint64_t cuzk_engine_key_part_bytes(const cuzk_engine_key *key);

/* Fills z (n_z values) with the witness of partition `part`, z[0] = 1. Called on a synthesis thread,
 * possibly for several partitions at once; returns CUZK_OK or a code (the job then fails with it). */
typedef int (*cuzk_engine_synth_fn)(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z,
                                    char *err, size_t errlen);

typedef struct {
    cuzk_engine_key *key;
    uint32_t n_parts; /* >= 1 */
    cuzk_engine_prio prio;
    cuzk_engine_synth_fn synth;
    void *user; /* borrowed until the job is finished */
} cuzk_engine_job;

/* Queues a job; *id receives its id (unique, increasing, never 0). CUZK_ERANGE when one partition would
 * not fit in the budget beside the keys; CUZK_EINVAL for a bad description or an engine shutting down. */
int cuzk_engine_submit(cuzk_engine *e, const cuzk_engine_job *job, uint64_t *id, char *err, size_t errlen);

/* Asks a job to stop: CUZK_OK if it was running; CUZK_EINVAL if unknown, finished, or already stopping (a
 * cancel or a failed partition came first, and its outcome stands while its partitions drain). */
int cuzk_engine_cancel(cuzk_engine *e, uint64_t id);

/* What cuzk_engine_await hands out. Times are cuzk_engine_now() values. */
typedef struct {
    int status;                 /* CUZK_OK, CUZK_ECANCELED, or the code that failed the job */
    int failed_part;            /* the partition that failed it, or -1 */
    char error[256];            /* message when status != CUZK_OK */
    cuzk_groth16_proof *proofs; /* status CUZK_OK: n_proofs verified proofs in partition order (owned) */
    size_t n_proofs;
    int64_t t_submit, t_start, t_done;                  /* t_start: first partition dispatched (-1 never) */
    int64_t synth_us, device_us, lock_wait_us, post_us; /* sums over partitions; synth_us from taking the
                                                           partition's buffers to its randomness */
    int64_t pack_us; /* the part of synth_us spent packing witnesses (packed_z backends) */
} cuzk_engine_result;

/* Waits until the job is finished and every byte it held is back, moves its outcome into *out (free it
 * with cuzk_engine_result_free) and forgets the job. Returns out->status; CUZK_EINVAL (with err) for an
 * unknown id or one another thread is already awaiting. Every submitted job should be awaited. */
int cuzk_engine_await(cuzk_engine *e, uint64_t id, cuzk_engine_result *out, char *err, size_t errlen);

void cuzk_engine_result_free(cuzk_engine_result *r);

/* A snapshot of the engine's counters. */
typedef struct {
    uint64_t budget_total, budget_used, budget_keys, budget_peak; /* bytes; used includes keys */
    uint64_t jobs_unfinished;                                     /* submitted, not finished */
    uint64_t parts_in_flight;                                     /* dispatched, not finished */
    uint64_t parts_done, parts_failed, parts_dropped; /* proved; failed; stopped by failure/cancel */
    uint64_t parts_unpacked; /* with packing on: witnesses sent whole (tail too small, or no buffer) */
    uint64_t buf_allocs, buf_reuses, buf_frees; /* partition buffers allocated, taken from the pool, freed */
    uint64_t buf_live, buf_live_bytes;          /* allocated now (in use or idle) */
    uint64_t buf_pinned_bytes;                  /* of those, from the backend's host_alloc (page-locked) */
    uint64_t devices_lost;  /* devices taken out of service (a backend phase returned CUZK_EDEVICE there), as
                               a device_mask: bit d = device d */
    uint64_t parts_moved;   /* partitions moved to another device after theirs was lost */
    int devices_usable;     /* the engine's devices not lost; 0: every job fails, submits are refused */
    char device_error[256]; /* the last loss: which device, in which phase, the backend's message ("" none) */
} cuzk_engine_stats;

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *out);

/* The deterministic r, s of partition `part` of job `job` under seed (rs_seed != 0): a splitmix64 stream
 * from (seed, job, part), 64 bytes, each half reduced mod r. For tests that re-prove independently. */
void cuzk_engine_rs(uint64_t seed, uint64_t job, uint32_t part, cuzk_fr *r, cuzk_fr *s);

/* Name of a priority ("normal"), and its parse (CUZK_EINVAL for an unknown name). */
const char *cuzk_engine_prio_name(cuzk_engine_prio p);
int cuzk_engine_prio_parse(const char *name, cuzk_engine_prio *out);

/* A device list such as "1,3" or "0-3,6" (numbers 0..63, each named once) as a device_mask;
 * CUZK_EINVAL, *mask untouched, for anything else. */
int cuzk_engine_device_list_parse(const char *list, uint64_t *mask);
/* The inverse: "1,3", "0-3,6" (runs of three or more as ranges) into out, truncated to len. */
void cuzk_engine_device_list_format(uint64_t mask, char *out, size_t len);

#ifdef __cplusplus
}
#endif
#endif
