/*
 * test_gpu_engine.cu — the proving engine on its CUDA backend
 * (cuzk_engine_backend_gpu). Needs a CUDA device; run by scripts/gpu-check.sh.
 *
 *   test_gpu_engine [LG]   a random 0/1-heavy circuit of 2^LG - 2 rows (default 14), its key from
 *                          cuzk_groth16_setup; 4 jobs of 3 partitions through an engine with 2 GPU
 *                          workers per device and seeded r, s. Every delivered proof must equal the CPU
 *                          prover's bytes for the same (job, partition) r and s, and verify; a
 *                          cancelled job returns CUZK_ECANCELED; a job whose partition 1 has a
 *                          broken witness fails with CUZK_EUNSAT naming the row while the others
 *                          deliver; after the key is dropped the budget holds nothing. All of it
 *                          three times: with a, b, c evaluated by synthesis on the host, then on
 *                          the device (the backend's default, checked through
 *                          cuzk_engine_get_config), then on the device with key_vram one byte short
 *                          of the key (in part streamed: the vectors within key_vram resident; checked
 *                          through cuzk_engine_backend_gpu_keys); then with key_tables 2, 3, 4 (the
 *                          whole key with its witness vectors as group tables of that k: checked
 *                          through cuzk_engine_backend_gpu_tables and the resident bytes), and with
 *                          key_tables 4 under the short key_vram (streamed in part: no tables).
 *                          Last, a device with no room for the key even streamed
 *                          (CUZK_GPU_FREE_BYTES=1 MiB): the job fails with CUZK_ENOMEM and the sizes,
 *                          nothing stays loaded, and the same engine proves once the limit is lifted.
 *                          Then devices by number and two keys on one engine. Last (it leaves the
 *                          device unusable for the rest of the process): a real fatal device error, a
 *                          kernel storing to an invalid address launched on device 0 inside a device
 *                          phase, must come out of the GPU backend as CUZK_EDEVICE: with one device
 *                          every job fails with "no usable device left" and the CUDA error's name,
 *                          later submits are refused, and the engine still shuts down; with two, the
 *                          partitions move to device 1 if its context outlived device 0's (printed).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/engine.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
extern "C" {
#include "testutil.h"
}
#include "gputest.h"

typedef struct {
    const cuzk_fr *z;
    size_t n_z;
    int64_t bad_part; /* this partition gets a broken witness (-1: none) */
} witness;

static int synth(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err, size_t errlen)
{
    const witness *w = (const witness *)user;
    if (n_z != w->n_z)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "witness size %zu, expected %zu", n_z, w->n_z);
    memcpy(z, w->z, n_z * sizeof *z);
    if ((int64_t)part == w->bad_part)
        cuzk_fr_add(&z[n_z - 1], &z[n_z - 1], &CUZK_FR_ONE);
    return CUZK_OK;
}

/* An engine on the GPU backend with 2 GPU workers, seeded r and s, the given evaluation place,
 * key_vram and devices (device_mask, 0: all) (cfg: its configuration); NULL after a failed CHECK. */
static cuzk_engine *new_engine(const cuzk_engine_backend *be, cuzk_engine_config *cfg, cuzk_engine_eval eval,
                               uint64_t key_vram, uint64_t device_mask = 0, int key_tables = 0)
{
    char err[256] = "";
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = be;
    cfg->gpu_workers = 2;
    cfg->rs_seed = test_rand64() | 1;
    cfg->eval = eval;
    cfg->key_vram = key_vram;
    cfg->device_mask = device_mask;
    cfg->key_tables = key_tables;
    cuzk_engine *e = NULL;
    int rc = cuzk_engine_new(&e, cfg, err, sizeof err);
    CHECK(rc == CUZK_OK, "engine: %s", err);
    return rc == CUZK_OK ? e : NULL;
}

/* An engine (new_engine, automatic evaluation, the devices of mask) with pk registered as *key, and *job: n_parts
 * partitions of w's witness for it; NULL after a failed CHECK. */
static cuzk_engine *engine_with_job(const cuzk_engine_backend *be, cuzk_engine_config *cfg, uint64_t mask,
                                    cuzk_groth16_params &pk, cuzk_cs &cs, witness *w, uint32_t n_parts,
                                    cuzk_engine_key **key, cuzk_engine_job *job)
{
    char err[256] = "";
    cuzk_engine *e = new_engine(be, cfg, CUZK_ENGINE_EVAL_AUTO, 0, mask);
    if (!e)
        return NULL;
    *key = NULL;
    CHECK(cuzk_engine_key_new(e, &pk, &cs, key, err, sizeof err) == CUZK_OK, "key: %s", err);
    memset(job, 0, sizeof *job);
    job->key = *key, job->n_parts = n_parts, job->prio = CUZK_PRIO_NORMAL, job->synth = synth, job->user = w;
    return e;
}

static void run_place(cuzk_engine_eval place, const cuzk_engine_backend *be, cuzk_groth16_params &pk,
                      cuzk_cs &cs, const cuzk_fr *z, size_t ni, size_t na, cuzk_pool *pool, unsigned lg,
                      uint64_t key_vram, int key_tables = 0)
{
    const char *pname = place == CUZK_ENGINE_EVAL_HOST ? "host"
                        : key_vram                     ? "device, streamed key,"
                        : key_tables > 0               ? "device, key with group tables,"
                                                       : "device";
    char err[256] = "";
    cuzk_engine_config cfg;
    /* AUTO must mean device */
    cuzk_engine *e =
        new_engine(be, &cfg, place == CUZK_ENGINE_EVAL_DEVICE ? CUZK_ENGINE_EVAL_AUTO : place, key_vram, 0,
                   key_tables);
    if (!e)
        return;
    int rc;
    cuzk_engine_config got;
    cuzk_engine_get_config(e, &got);
    CHECK(got.eval == place, "evaluation place %d, want %d", (int)got.eval, (int)place);
    cuzk_engine_key *key = NULL;
    CHECK(cuzk_engine_key_new(e, &pk, &cs, &key, err, sizeof err) == CUZK_OK, "key: %s", err);
    witness w = {z, ni + na, -1};

    uint64_t ids[5];
    double t0 = now_s();
    for (int j = 0; j < 5; j++) {
        cuzk_engine_job job;
        memset(&job, 0, sizeof job);
        job.key = key, job.n_parts = 3, job.prio = CUZK_PRIO_NORMAL, job.synth = synth, job.user = &w;
        CHECK(cuzk_engine_submit(e, &job, &ids[j], err, sizeof err) == CUZK_OK, "submit %d: %s", j, err);
    }
    int cancel_rc = cuzk_engine_cancel(e, ids[4]);
    cuzk_groth16_pvk pvk;
    CHECK(cuzk_groth16_prepare(&pvk, &pk.vk, err, sizeof err) == CUZK_OK, "prepare: %s", err);
    for (int j = 0; j < 5; j++) {
        cuzk_engine_result res;
        rc = cuzk_engine_await(e, ids[j], &res, err, sizeof err);
        if (j == 4) {
            /* cancelled early: either it was stopped, or it had already finished */
            CHECK(rc == CUZK_ECANCELED || (cancel_rc != CUZK_OK && rc == CUZK_OK), "cancelled job: rc %d", rc);
            cuzk_engine_result_free(&res);
            continue;
        }
        CHECK(rc == CUZK_OK && res.n_proofs == 3, "job %d: rc %d %s", j, rc, res.error);
        for (size_t p = 0; rc == CUZK_OK && p < res.n_proofs; p++) {
            cuzk_fr r, s;
            cuzk_engine_rs(cfg.rs_seed, ids[j], (uint32_t)p, &r, &s);
            cuzk_groth16_proof cpu;
            int rc2 = cuzk_groth16_prove_ex(&cpu, &pk, &cs, z, &r, &s, NULL, pool, err, sizeof err);
            uint8_t bg[CUZK_GROTH16_PROOF_SIZE], bc[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bg, &res.proofs[p]);
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            CHECK(rc2 == CUZK_OK && memcmp(bg, bc, sizeof bg) == 0, "job %d partition %zu: GPU bytes != CPU bytes",
                  j, p);
            CHECK(cuzk_groth16_verify(&pvk, z + 1, ni - 1, &res.proofs[p], err, sizeof err) == CUZK_OK,
                  "job %d partition %zu does not verify: %s", j, p, err);
        }
        cuzk_engine_result_free(&res);
    }
    uint64_t resident = 0;
    unsigned streamed = 0;
    cuzk_engine_backend_gpu_keys(0, &resident, &streamed);
    /* under a key_vram below the key: the vectors that fit within it resident (at least one, here), the
     * rest streamed; with key_tables, the whole key with its tables of that k (a small key has room) */
    size_t tb[5], whole = 0;
    cuzk_gpu_pk_table_bytes(&pk, key_tables > 0 ? (unsigned)key_tables : 0, tb);
    for (int i = 0; i < 5; i++)
        whole += tb[i];
    CHECK(key_vram ? resident > 0 && resident <= key_vram && streamed == 1 : resident == whole && streamed == 0,
          "%s evaluation, key_vram %llu: %llu resident bytes (whole: %zu), %u streamed keys", pname,
          (unsigned long long)key_vram, (unsigned long long)resident, whole, streamed);
    unsigned tk = cuzk_engine_backend_gpu_tables(0), want_k = key_tables > 0 && !key_vram ? (unsigned)key_tables : 0;
    CHECK(tk == want_k, "%s evaluation: group tables of k = %u on device 0, expected %u", pname, tk, want_k);
    printf("2^%u rows, %s evaluation: 4 jobs x 3 partitions through the GPU engine in %.2f s (incl. the "
           "cancelled one)\n",
           lg, pname, now_s() - t0);
    /* a broken witness in partition 1: that job fails with the row, a good job beside it delivers */
    witness bad = {z, ni + na, 1};
    cuzk_fr *z2 = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    memcpy(z2, z, (ni + na) * sizeof(cuzk_fr));
    cuzk_fr_add(&z2[ni + na - 1], &z2[ni + na - 1], &CUZK_FR_ONE);
    int64_t want = cuzk_cs_check(&cs, z2, pool);
    free(z2);
    uint64_t id_bad = 0, id_good = 0;
    cuzk_engine_job job;
    memset(&job, 0, sizeof job);
    job.key = key, job.n_parts = 3, job.prio = CUZK_PRIO_NORMAL, job.synth = synth, job.user = &bad;
    CHECK(cuzk_engine_submit(e, &job, &id_bad, err, sizeof err) == CUZK_OK, "submit bad: %s", err);
    job.user = &w;
    CHECK(cuzk_engine_submit(e, &job, &id_good, err, sizeof err) == CUZK_OK, "submit good: %s", err);
    cuzk_engine_result res;
    rc = cuzk_engine_await(e, id_bad, &res, err, sizeof err);
    char row[64];
    snprintf(row, sizeof row, "constraint %lld", (long long)want);
    CHECK(want >= 0 && rc == CUZK_EUNSAT && res.failed_part == 1 && strstr(res.error, row),
          "%s evaluation, broken witness: rc %d, partition %d, \"%s\" (want row %lld)", pname, rc,
          res.failed_part, res.error, (long long)want);
    cuzk_engine_result_free(&res);
    rc = cuzk_engine_await(e, id_good, &res, err, sizeof err);
    CHECK(rc == CUZK_OK && res.n_proofs == 3, "%s evaluation, job beside the broken one: rc %d %s", pname, rc,
          res.error);
    cuzk_engine_result_free(&res);

    cuzk_engine_key_free(key);
    cuzk_engine_backend_gpu_keys(0, &resident, &streamed);
    CHECK(resident == 0 && streamed == 0, "after the key is dropped: %llu resident bytes, %u streamed keys",
          (unsigned long long)resident, streamed);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.budget_used == 0, "budget after the key is dropped: %llu bytes", (unsigned long long)st.budget_used);
    cuzk_engine_free(e);
}

/* A device too small for the key even streamed (CUZK_GPU_FREE_BYTES stands for its free memory): the job
 * fails with CUZK_ENOMEM and a message that gives the sizes and what to change, nothing stays loaded, the
 * budget returns to zero; the same engine then proves once the limit is lifted. */
static void run_no_room(const cuzk_engine_backend *be, cuzk_groth16_params &pk, cuzk_cs &cs, const cuzk_fr *z,
                        size_t ni, size_t na)
{
    char err[256] = "";
    cuzk_engine_config cfg;
    witness w = {z, ni + na, -1};
    cuzk_engine_key *key;
    cuzk_engine_job job;
    cuzk_engine *e = engine_with_job(be, &cfg, 0, pk, cs, &w, 2, &key, &job);
    if (!e)
        return;
    int rc;
    setenv("CUZK_GPU_FREE_BYTES", "1048576", 1);
    uint64_t id = 0;
    CHECK(cuzk_engine_submit(e, &job, &id, err, sizeof err) == CUZK_OK, "submit: %s", err);
    cuzk_engine_result res;
    rc = cuzk_engine_await(e, id, &res, err, sizeof err);
    CHECK(rc == CUZK_ENOMEM && strstr(res.error, "GiB free") && strstr(res.error, "not even with one") &&
              strstr(res.error, "host evaluation"),
          "a device with 1 MiB free: rc %d, \"%s\"", rc, res.error);
    cuzk_engine_result_free(&res);
    uint64_t resident = 0;
    unsigned streamed = 0;
    cuzk_engine_backend_gpu_keys(0, &resident, &streamed);
    CHECK(resident == 0 && streamed == 0, "after no room: %llu resident bytes, %u streamed keys",
          (unsigned long long)resident, streamed);
    unsetenv("CUZK_GPU_FREE_BYTES");
    CHECK(cuzk_engine_submit(e, &job, &id, err, sizeof err) == CUZK_OK, "submit: %s", err);
    rc = cuzk_engine_await(e, id, &res, err, sizeof err);
    CHECK(rc == CUZK_OK && res.n_proofs == 2, "after the limit is lifted: rc %d %s", rc, res.error);
    cuzk_engine_result_free(&res);
    cuzk_engine_key_free(key);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.budget_used == 0, "budget after no room: %llu bytes", (unsigned long long)st.budget_used);
    cuzk_engine_free(e);
    printf("a device with no room for the key: the job refused with \"no room\", then proved\n");
}

/* Two circuits of one shape on one device: jobs of both, interleaved, prove (GPU bytes = CPU bytes, the
 * engine verifying every proof) through the same two provers, each rebound per partition. The second key
 * is planned with the device's free memory capped (CUZK_GPU_FREE_BYTES) at its key, its circuit, the
 * reserve and one prover of margin: enough when the provers are shared (they need not grow), too little
 * for two more provers of its own, so it must end up whole (not streamed). */
static void run_two_keys(const cuzk_engine_backend *be, cuzk_groth16_params &pk, cuzk_cs &cs, const cuzk_fr *z,
                         size_t ni, size_t na, cuzk_pool *pool)
{
    char err[256] = "";
    size_t nc = cs.n_constraints;
    cuzk_cs cs2;
    cuzk_fr *z2 = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    cuzk_groth16_params pk2;
    memset(&pk2, 0, sizeof pk2);
    bool ok = cuzk_cs_random(&cs2, z2, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS) == CUZK_OK &&
              cuzk_cs_compact(&cs2) == CUZK_OK &&
              cuzk_groth16_setup(&pk2, &cs2, NULL, pool, err, sizeof err) == CUZK_OK;
    CHECK(ok, "second circuit: %s", err);
    cuzk_engine_config cfg;
    /* device 0 only: the capped plan below assumes both keys' partitions ran there */
    cuzk_engine *e = ok ? new_engine(be, &cfg, CUZK_ENGINE_EVAL_AUTO, 0, 1) : NULL;
    if (!e) {
        free(z2);
        return;
    }
    cuzk_engine_key *k1 = NULL, *k2 = NULL;
    CHECK(cuzk_engine_key_new(e, &pk, &cs, &k1, err, sizeof err) == CUZK_OK, "key 1: %s", err);
    CHECK(cuzk_engine_key_new(e, &pk2, &cs2, &k2, err, sizeof err) == CUZK_OK, "key 2: %s", err);
    witness w1 = {z, ni + na, -1}, w2 = {z2, ni + na, -1};
    cuzk_engine_job job;
    memset(&job, 0, sizeof job);
    job.n_parts = 4, job.prio = CUZK_PRIO_NORMAL, job.synth = synth;
    uint64_t id = 0;
    job.key = k1, job.user = &w1;
    CHECK(cuzk_engine_submit(e, &job, &id, err, sizeof err) == CUZK_OK, "submit 1: %s", err);
    cuzk_engine_result res;
    CHECK(cuzk_engine_await(e, id, &res, err, sizeof err) == CUZK_OK, "key 1 alone: %s", res.error);
    cuzk_engine_result_free(&res);
    char cap[32];
    uint64_t free_cap = cuzk_gpu_pk_bytes(&pk2) + cuzk_gpu_cs_bytes(&cs2) + ((uint64_t)512 << 20) +
                        cuzk_gpu_prover_bytes(&pk) + (ni + na) * sizeof(cuzk_fr) + ((uint64_t)1 << 20);
    snprintf(cap, sizeof cap, "%llu", (unsigned long long)free_cap);
    setenv("CUZK_GPU_FREE_BYTES", cap, 1);
    uint64_t ids[6];
    for (int j = 0; j < 6; j++) {
        job.key = j % 2 ? k2 : k1, job.user = j % 2 ? &w2 : &w1;
        CHECK(cuzk_engine_submit(e, &job, &ids[j], err, sizeof err) == CUZK_OK, "submit %d: %s", j, err);
    }
    size_t same = 0, total = 0;
    for (int j = 0; j < 6; j++) {
        int rc = cuzk_engine_await(e, ids[j], &res, err, sizeof err);
        CHECK(rc == CUZK_OK && res.n_proofs == 4, "two keys, job %d (key %d): rc %d %s", j, 1 + j % 2, rc,
              res.error);
        for (size_t p = 0; rc == CUZK_OK && p < res.n_proofs; p++) {
            cuzk_fr r, s;
            cuzk_engine_rs(cfg.rs_seed, ids[j], (uint32_t)p, &r, &s);
            cuzk_groth16_proof cpu;
            int rc2 = cuzk_groth16_prove_ex(&cpu, j % 2 ? &pk2 : &pk, j % 2 ? &cs2 : &cs, j % 2 ? z2 : z, &r, &s,
                                            NULL, pool, err, sizeof err);
            uint8_t bg[CUZK_GROTH16_PROOF_SIZE], bc[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bg, &res.proofs[p]);
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            same += rc2 == CUZK_OK && memcmp(bg, bc, sizeof bg) == 0;
            total++;
        }
        cuzk_engine_result_free(&res);
    }
    unsetenv("CUZK_GPU_FREE_BYTES");
    CHECK(total == 24 && same == total, "two keys: %zu of %zu proofs equal the CPU's", same, total);
    uint64_t resident = 0;
    unsigned streamed = 0;
    cuzk_engine_backend_gpu_keys(0, &resident, &streamed);
    CHECK(resident == cuzk_gpu_pk_bytes(&pk) + cuzk_gpu_pk_bytes(&pk2) && streamed == 0,
          "two keys sharing provers, the second planned in %llu free bytes: %llu resident bytes, %u streamed",
          (unsigned long long)free_cap, (unsigned long long)resident, streamed);
    cuzk_engine_key_free(k1);
    cuzk_engine_key_free(k2);
    cuzk_engine_backend_gpu_keys(0, &resident, &streamed);
    CHECK(resident == 0 && streamed == 0, "after both keys: %llu resident bytes", (unsigned long long)resident);
    cuzk_engine_free(e);
    cuzk_groth16_params_free(&pk2);
    cuzk_cs_free(&cs2);
    free(z2);
    printf("two circuits on one device through shared provers: %zu proofs equal the CPU's\n", same);
}

/* Devices picked by number: the last device alone proves, its key lands there (and on no other device),
 * and a device number beyond the machine's is refused with its number. */
static void run_device_ids(const cuzk_engine_backend *be, cuzk_groth16_params &pk, cuzk_cs &cs, const cuzk_fr *z,
                           size_t ni, size_t na)
{
    char err[256] = "";
    int last = be->n_devices - 1;
    cuzk_engine_config cfg;
    witness w = {z, ni + na, -1};
    cuzk_engine_key *key;
    cuzk_engine_job job;
    cuzk_engine *e = engine_with_job(be, &cfg, (uint64_t)1 << last, pk, cs, &w, 3, &key, &job);
    if (!e)
        return;
    uint64_t id = 0;
    CHECK(cuzk_engine_submit(e, &job, &id, err, sizeof err) == CUZK_OK, "submit: %s", err);
    cuzk_engine_result res;
    int rc = cuzk_engine_await(e, id, &res, err, sizeof err);
    CHECK(rc == CUZK_OK && res.n_proofs == 3, "device %d alone: rc %d %s", last, rc, res.error);
    cuzk_engine_result_free(&res);
    for (int d = 0; d <= last; d++) {
        uint64_t resident = 0;
        unsigned streamed = 0;
        cuzk_engine_backend_gpu_keys(d, &resident, &streamed);
        CHECK((d == last) == (resident + streamed > 0), "device %d of the list {%d}: %llu resident bytes, %u streamed",
              d, last, (unsigned long long)resident, streamed);
    }
    cuzk_engine_key_free(key);
    cuzk_engine_free(e);
    if (be->n_devices < 64) {
        memset(&cfg, 0, sizeof cfg);
        cfg.backend = be;
        cfg.device_mask = (uint64_t)1 << be->n_devices | 1;
        char want[64];
        snprintf(want, sizeof want, "device %d requested", be->n_devices);
        e = NULL;
        CHECK(cuzk_engine_new(&e, &cfg, err, sizeof err) == CUZK_EINVAL && !e && strstr(err, want),
              "a device beyond the machine's: %s", err);
    }
    printf("devices by number: device %d alone proved; device %d refused\n", last, be->n_devices);
}

/* ---- a fatal device error ----------------------------------------------------------------- */

static __global__ void k_fault(int *p)
{
    *(volatile int *)p = 1; /* p is no device address: cudaErrorIllegalAddress, which no later call clears */
}

static struct {
    const cuzk_engine_backend *real;
    int armed;        /* the next device phase on device 0 faults first */
    cudaError_t seen; /* what the synchronisation after the faulting kernel returned */
} fault = {NULL, 0, cudaSuccess};

static int fault_device(void *ctx, void *state, cuzk_engine_part *p, char *err, size_t errlen)
{
    if (p->dev == 0 && __atomic_exchange_n(&fault.armed, 0, __ATOMIC_SEQ_CST)) {
        cudaSetDevice(0);
        k_fault<<<1, 1>>>((int *)(uintptr_t)64);
        fault.seen = cudaDeviceSynchronize();
    }
    return fault.real->device(ctx, state, p, err, errlen); /* the backend meets the error in its own calls */
}

/* Whether a submit or a job failed for the fault's loss: no device left, the runtime's error named. */
static bool lost_to_fault(int rc, const char *msg)
{
    return rc == CUZK_EDEVICE && strstr(msg, "no usable device left") &&
           strstr(msg, "cudaErrorIllegalAddress");
}

static void run_device_fault(const cuzk_engine_backend *be, cuzk_groth16_params &pk, cuzk_cs &cs,
                             const cuzk_fr *z, size_t ni, size_t na)
{
    enum { JOBS = 3, PARTS = 3 };
    cuzk_engine_backend fb = *be;
    fault.real = be;
    fault.armed = 1;
    fb.device = fault_device;
    bool two = be->n_devices >= 2;
    cuzk_engine_config cfg;
    cuzk_engine_key *key = NULL;
    cuzk_engine_job job;
    witness w = {z, ni + na, -1};
    cuzk_engine *e = engine_with_job(&fb, &cfg, two ? 3 : 1, pk, cs, &w, PARTS, &key, &job);
    if (!e)
        return;
    char err[256] = "";
    uint64_t ids[JOBS];
    int delivered = 0, lost = 0;
    for (int j = 0; j < JOBS; j++) {
        /* the loss may come before the last submit, which is then refused for it */
        int rc = cuzk_engine_submit(e, &job, &ids[j], err, sizeof err);
        if (lost_to_fault(rc, err))
            lost++, ids[j] = 0;
        else
            CHECK(rc == CUZK_OK, "fault: submit %d: %s", j, err);
    }
    for (int j = 0; j < JOBS; j++) {
        if (!ids[j])
            continue;
        cuzk_engine_result res;
        int rc = cuzk_engine_await(e, ids[j], &res, err, sizeof err);
        if (rc == CUZK_OK)
            delivered++;
        else if (lost_to_fault(rc, res.error))
            lost++;
        else
            CHECK(0, "fault: job %d: status %d: %s", j, rc, res.error);
        cuzk_engine_result_free(&res);
    }
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(fault.seen == cudaErrorIllegalAddress, "fault: the faulting kernel's synchronisation returned %s",
          cudaGetErrorName(fault.seen));
    CHECK(st.devices_lost & 1, "fault: device 0 not taken out of service (lost %#llx: %s)",
          (unsigned long long)st.devices_lost, st.device_error);
    if (!two) {
        CHECK(lost == JOBS && st.devices_usable == 0,
              "fault: one device: %d jobs failed for the loss, %d delivered", lost, delivered);
        uint64_t id = 1;
        int rc = cuzk_engine_submit(e, &job, &id, err, sizeof err);
        CHECK(rc == CUZK_EDEVICE && id == 0 && strstr(err, "no usable device left"),
              "fault: a later submit: %d %s", rc, err);
    } else {
        CHECK(delivered + lost == JOBS, "fault: two devices: %d delivered, %d failed for the loss", delivered,
              lost);
    }
    printf("fatal device error: %s -> %s; %d of %d jobs delivered%s\n", cudaGetErrorName(fault.seen),
           st.device_error, delivered, JOBS,
           two ? (delivered == JOBS ? " (device 1's context outlived device 0's)"
                                    : " (device 1 failed too: the error reached the whole process)")
               : "");
    cuzk_engine_key_free(key);
    cuzk_engine_free(
        e); /* frees what it can on a context that fails every call: must neither hang nor crash */
}

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 14;
    if (lg < 4 || lg > 24) {
        fprintf(stderr, "usage: test_gpu_engine [LG 4..24]\n");
        return 2;
    }
    test_rng_init("test_gpu_engine");
    const cuzk_engine_backend *be = cuzk_engine_backend_gpu();
    if (!be) {
        fprintf(stderr, "test_gpu_engine: no CUDA device\n");
        return 2;
    }
    char err[256] = "";
    size_t nc = ((size_t)1 << lg) - 2, ni = 2, na = nc;
    cuzk_cs cs;
    cuzk_fr *z = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    cuzk_groth16_params pk;
    memset(&pk, 0, sizeof pk);
    cuzk_pool *pool = cuzk_pool_new(0);
    CHECK(cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS) == CUZK_OK, "cs_random");
    CHECK(cuzk_cs_compact(&cs) == CUZK_OK, "compact");
    CHECK(cuzk_groth16_setup(&pk, &cs, NULL, pool, err, sizeof err) == CUZK_OK, "setup: %s", err);
    run_place(CUZK_ENGINE_EVAL_HOST, be, pk, cs, z, ni, na, pool, lg, 0);
    run_place(CUZK_ENGINE_EVAL_DEVICE, be, pk, cs, z, ni, na, pool, lg, 0);
    /* resident keys capped below this one's size: the backend streams it */
    run_place(CUZK_ENGINE_EVAL_DEVICE, be, pk, cs, z, ni, na, pool, lg, cuzk_gpu_pk_bytes(&pk) - 1);
    /* the key with group tables (key_tables; docs/design/020): every k, and with a key_vram below the key
     * (then streamed in part, no tables) */
    for (int k = 2; k <= 4; k++)
        run_place(CUZK_ENGINE_EVAL_DEVICE, be, pk, cs, z, ni, na, pool, lg, 0, k);
    run_place(CUZK_ENGINE_EVAL_DEVICE, be, pk, cs, z, ni, na, pool, lg, cuzk_gpu_pk_bytes(&pk) - 1, 4);
    run_no_room(be, pk, cs, z, ni, na);
    run_device_ids(be, pk, cs, z, ni, na);
    run_two_keys(be, pk, cs, z, ni, na, pool);
    run_device_fault(be, pk, cs, z, ni, na); /* last: the device is unusable after it */
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    free(z);
    cuzk_pool_free(pool);
    return test_finish("test_gpu_engine");
}
