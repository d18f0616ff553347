/*
 * test_gpu_prove.cu — whole-proof GPU proving (cuzk/gpu_prove.h) against the
 * CPU prover, and a timing of the device stages. Needs a CUDA device; run by
 * scripts/gpu-check.sh, not by ctest.
 *
 *   test_gpu_prove check          random satisfiable circuits (both shapes of
 *                                 cuzk_cs_random, several sizes, a fresh key from
 *                                 cuzk_groth16_setup each): the GPU proof's bytes
 *                                 equal the CPU proof's for the same r and s, it
 *                                 verifies, r = s = 0 too; a broken witness is
 *                                 refused with its row; a prover made for another
 *                                 key is refused
 *   test_gpu_prove bench LG       one circuit of 2^LG - 64 rows (Groth16-like
 *                                 0/1-heavy witness): device stage times, median of 5
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/cs.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/pool.h"
#include "cuzk/prove.h"
#include "cuzk/serialize.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
extern "C" {
#include "testutil.h"
}
#include "gputest.h"

static cuzk_pool *g_pool;

typedef struct {
    cuzk_cs cs;
    cuzk_fr *z;
    cuzk_groth16_params pk;
    cuzk_gpu_pk *gpk;
    cuzk_gpu_prover *pr;
} circuit;

static bool circuit_make(circuit *c, size_t ni, size_t na, size_t nc, cuzk_cs_shape shape)
{
    char err[256] = "";
    memset(c, 0, sizeof *c);
    c->z = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    int rc = cuzk_cs_random(&c->cs, c->z, ni, na, nc, test_rand64(), shape);
    CHECK(rc == CUZK_OK, "cs_random %zu/%zu/%zu: %d", ni, na, nc, rc);
    if (rc)
        return false;
    rc = cuzk_groth16_setup(&c->pk, &c->cs, NULL, g_pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "setup: %s", err);
    if (rc)
        return false;
    rc = cuzk_gpu_pk_load(&c->gpk, &c->pk, err, sizeof err);
    CHECK(rc == CUZK_OK, "gpu pk load: %s", err);
    if (rc)
        return false;
    rc = cuzk_gpu_prover_new(&c->pr, c->gpk, err, sizeof err);
    CHECK(rc == CUZK_OK, "gpu prover: %s", err);
    return rc == CUZK_OK;
}

static void circuit_free(circuit *c)
{
    cuzk_gpu_prover_free(c->pr);
    cuzk_gpu_pk_free(c->gpk);
    cuzk_groth16_params_free(&c->pk);
    cuzk_cs_free(&c->cs);
    free(c->z);
}

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    return cuzk_g1_affine_eq(&a->a, &b->a) && cuzk_g2_affine_eq(&a->b, &b->b) && cuzk_g1_affine_eq(&a->c, &b->c);
}

static void check_circuit(size_t ni, size_t na, size_t nc, cuzk_cs_shape shape)
{
    circuit c;
    char err[256] = "";
    if (!circuit_make(&c, ni, na, nc, shape)) {
        circuit_free(&c);
        return;
    }
    for (int round = 0; round < 3; round++) {
        cuzk_fr r, s;
        if (round == 2) {
            r = CUZK_FR_ZERO;
            s = CUZK_FR_ZERO;
        } else {
            test_rand_fr(&r);
            test_rand_fr(&s);
        }
        cuzk_groth16_proof cpu, gpu;
        memset(&gpu, 0x5a, sizeof gpu); /* poison */
        int rc1 = cuzk_groth16_prove_ex(&cpu, &c.pk, &c.cs, c.z, &r, &s, NULL, g_pool, err, sizeof err);
        CHECK(rc1 == CUZK_OK, "cpu prove %zu rows: %s", nc, err);
        int rc2 = cuzk_gpu_groth16_prove(&gpu, &c.pk, c.gpk, c.pr, &c.cs, c.z, &r, &s, NULL, g_pool, err,
                                         sizeof err);
        CHECK(rc2 == CUZK_OK, "gpu prove %zu rows (shape %d): %s", nc, (int)shape, err);
        if (rc1 == CUZK_OK && rc2 == CUZK_OK) {
            uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            cuzk_groth16_proof_to_bytes(bg, &gpu);
            CHECK(memcmp(bc, bg, sizeof bc) == 0 && proof_eq(&cpu, &gpu),
                  "gpu proof bytes differ from the cpu's (%zu inputs, %zu aux, %zu rows, shape %d, round %d)", ni,
                  na, nc, (int)shape, round);
            /* independent verification of the GPU proof */
            cuzk_groth16_pvk pvk;
            int v = cuzk_groth16_prepare(&pvk, &c.pk.vk, err, sizeof err);
            if (v == CUZK_OK) {
                v = cuzk_groth16_verify(&pvk, c.z + 1, ni - 1, &gpu, err, sizeof err);
            CHECK(v == CUZK_OK, "gpu proof does not verify: %s", err);
            }
        }
    }
    /* a broken witness is refused with the row */
    if (nc > 3) {
        cuzk_fr *z2 = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
        memcpy(z2, c.z, (ni + na) * sizeof(cuzk_fr));
        cuzk_fr_add(&z2[ni + na - 1], &z2[ni + na - 1], &CUZK_FR_ONE);
        int64_t want = cuzk_cs_check(&c.cs, z2, g_pool);
        cuzk_groth16_proof gpu;
        int rc = cuzk_gpu_groth16_prove(&gpu, &c.pk, c.gpk, c.pr, &c.cs, z2, NULL, NULL, NULL, g_pool, err,
                                        sizeof err);
        if (want >= 0) {
            char row[64];
            snprintf(row, sizeof row, "constraint %lld ", (long long)want);
            CHECK(rc == CUZK_EUNSAT && strstr(err, row), "broken witness: rc %d, %s (want row %lld)", rc, err,
                  (long long)want);
        }
        free(z2);
    }
    circuit_free(&c);
}

static int cmd_check(void)
{
    double t0 = now_s();
    static const size_t sizes[][3] = {{2, 3, 4},      {3, 40, 50},      {5, 300, 250},  {9, 1000, 1100},
                                      {17, 4000, 4070}, {4, 20000, 16300}, {33, 60000, 65400}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int sh = 0; sh < 2; sh++)
            check_circuit(sizes[i][0], sizes[i][1], sizes[i][2], sh ? CUZK_CS_RANDOM_BITS : CUZK_CS_RANDOM_UNIFORM);
    printf("proof checks done (%.1f s)\n", now_s() - t0);

    /* a prover made for another key */
    circuit a, b;
    char err[256] = "";
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (circuit_make(&a, 2, 10, 12, CUZK_CS_RANDOM_UNIFORM) && circuit_make(&b, 2, 10, 12, CUZK_CS_RANDOM_UNIFORM)) {
        cuzk_groth16_proof p;
        int rc = cuzk_gpu_groth16_prove(&p, &a.pk, a.gpk, b.pr, &a.cs, a.z, NULL, NULL, NULL, g_pool, err,
                                        sizeof err);
        CHECK(rc == CUZK_EINVAL, "a prover of another key was accepted (rc %d)", rc);
    }
    circuit_free(&a);
    circuit_free(&b);
    return test_finish("test_gpu_prove check");
}

static int cmd_bench(unsigned lg)
{
    size_t nc = ((size_t)1 << lg) - 64, ni = 8, na = nc;
    circuit c;
    char err[256] = "";
    double t0 = now_s();
    if (!circuit_make(&c, ni, na, nc, CUZK_CS_RANDOM_BITS)) {
        circuit_free(&c);
        return test_finish("test_gpu_prove bench");
    }
    printf("2^%u: circuit + setup + upload %.1f s (host); key on device %.2f GiB, prover buffers %.2f GiB\n", lg,
           now_s() - t0, cuzk_gpu_pk_bytes(&c.pk) / 1073741824.0, cuzk_gpu_prover_bytes(&c.pk) / 1073741824.0);
    float tot[5], h[5], mh[5], ml[5], ma[5], mb1[5], mb2[5], up[5], wall[5];
    cuzk_groth16_proof p;
    cuzk_prove_opts opts = {0};
    int rc = cuzk_gpu_groth16_prove(&p, &c.pk, c.gpk, c.pr, &c.cs, c.z, NULL, NULL, &opts, g_pool, err, sizeof err);
    for (int i = 0; i < 5 && rc == CUZK_OK; i++) {
        double w0 = now_s();
        rc = cuzk_gpu_groth16_prove(&p, &c.pk, c.gpk, c.pr, &c.cs, c.z, NULL, NULL, &opts, g_pool, err, sizeof err);
        wall[i] = (float)((now_s() - w0) * 1e3);
        cuzk_gpu_prove_times t;
        cuzk_gpu_prover_times(c.pr, &t);
        tot[i] = t.total, h[i] = t.h, mh[i] = t.msm_h, ml[i] = t.msm_l, ma[i] = t.msm_a, mb1[i] = t.msm_b1,
        mb2[i] = t.msm_b2, up[i] = t.upload;
    }
    CHECK(rc == CUZK_OK, "bench prove: %s", err);
    if (rc == CUZK_OK) {
        float *all[] = {wall, tot, up, h, mh, ml, ma, mb1, mb2};
        for (int k = 0; k < 9; k++)
            qsort(all[k], 5, sizeof(float), cmp_float);
        printf("| rows | wall ms (host eval+check+device+verify) | device ms | upload | H (NTTs) | MSM H | MSM L | "
               "MSM A | MSM B1 | MSM B2 |\n|---|---|---|---|---|---|---|---|---|---|\n");
        printf("| 2^%u-64 | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", lg, wall[2], tot[2],
               up[2], h[2], mh[2], ml[2], ma[2], mb1[2], mb2[2]);
    }
    circuit_free(&c);
    return test_finish("test_gpu_prove bench");
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "check";
    if (gpu_test_start("test_gpu_prove", &g_pool))
        return 2;
    int rc;
    if (strcmp(cmd, "check") == 0)
        rc = cmd_check();
    else if (strcmp(cmd, "bench") == 0 && argc > 2 && atoi(argv[2]) >= 10 && atoi(argv[2]) <= 27)
        rc = cmd_bench((unsigned)atoi(argv[2]));
    else {
        fprintf(stderr, "usage: test_gpu_prove check | bench LG (10..27)\n");
        rc = 2;
    }
    cuzk_pool_free(g_pool);
    return rc;
}
