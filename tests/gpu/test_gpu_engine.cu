/*
 * test_gpu_engine.cu — the proving engine on its CUDA backend
 * (cuzk_engine_backend_gpu). Needs a CUDA device; run by scripts/gpu-check.sh.
 *
 *   test_gpu_engine [LG]   a random 0/1-heavy circuit of 2^LG - 2 rows (default 14), its key from
 *                          cuzk_groth16_setup; 4 jobs of 3 partitions through an engine with 2 GPU
 *                          workers per device and seeded r, s. Every delivered proof must equal the CPU
 *                          prover's bytes for the same (job, partition) r and s, and verify; a
 *                          cancelled job returns CUZK_ECANCELED; after the key is dropped the budget
 *                          holds nothing.
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
} witness;

static int synth(void *user, uint64_t job, uint32_t part, cuzk_fr *z, size_t n_z, char *err, size_t errlen)
{
    const witness *w = (const witness *)user;
    if (n_z != w->n_z)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "witness size %zu, expected %zu", n_z, w->n_z);
    memcpy(z, w->z, n_z * sizeof *z);
    return CUZK_OK;
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
    CHECK(cuzk_groth16_setup(&pk, &cs, NULL, pool, err, sizeof err) == CUZK_OK, "setup: %s", err);

    cuzk_engine_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.backend = be;
    cfg.gpu_workers = 2;
    cfg.rs_seed = test_rand64() | 1;
    cuzk_engine *e = NULL;
    int rc = cuzk_engine_new(&e, &cfg, err, sizeof err);
    CHECK(rc == CUZK_OK, "engine: %s", err);
    if (rc)
        return test_finish("test_gpu_engine");
    cuzk_engine_key *key = NULL;
    CHECK(cuzk_engine_key_new(e, &pk, &cs, &key, err, sizeof err) == CUZK_OK, "key: %s", err);
    witness w = {z, ni + na};

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
    printf("2^%u rows: 4 jobs x 3 partitions through the GPU engine in %.2f s (incl. the cancelled one)\n", lg,
           now_s() - t0);
    cuzk_engine_key_free(key);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.budget_used == 0, "budget after the key is dropped: %llu bytes", (unsigned long long)st.budget_used);
    cuzk_engine_free(e);
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    free(z);
    cuzk_pool_free(pool);
    return test_finish("test_gpu_engine");
}
