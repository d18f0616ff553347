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
 *                                 key is refused. Each also with device evaluation
 *                                 (cuzk_gpu_cs): the matrices in all three coefficient
 *                                 forms (plain, u8 and u16 indices), PoRep-shaped
 *                                 circuits whose packed checks take the long-row
 *                                 kernel; the same bytes, the same refused row.
 *                                 snarkjs convention: the committed circom fixtures'
 *                                 zkeys and random circuits' zkeys (cuzk_zkey_setup):
 *                                 GPU proof bytes and public values equal the CPU's,
 *                                 a broken witness fails verification on both
 *   test_gpu_prove bench LG       one circuit of 2^LG - 64 rows (Groth16-like
 *                                 0/1-heavy witness): device stage times, median of 5,
 *                                 host evaluation then device evaluation
 *   test_gpu_prove bench-porep LG the PoRep-shaped circuit at scale 2^(LG-27) (27: one
 *                                 full partition), key made on the GPU: device stage
 *                                 times with device evaluation, median of 3: every
 *                                 place of B2, the last with the ones' sums cut
 *                                 into 4, 8, 16 and 1 launches and without the
 *                                 batch-affine tree, then the key streamed, then
 *                                 h, l, b_g1 resident and a, b_g2 streamed
 *   test_gpu_prove bench-porep LG quick   only the default place of B2 (and the
 *                                 cuts), then streamed wholly and in part
 *   test_gpu_prove bench-porep LG forms   the key in bellperson's form, then in the
 *                                 coset form (docs/design/021), median of 5 each
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/cs.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_prove.h"
#include "cuzk/gpu_setup.h"
#include "cuzk/pool.h"
#include "cuzk/porep_synth.h"
#include "cuzk/prove.h"
#include "cuzk/serialize.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/verify.h"
#include "cuzk/zkey_setup.h"
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
    cuzk_gpu_cs *gcs; /* the same circuit resident for device evaluation */
    cuzk_gpu_prover *pr;
} circuit;

/* The form of the keys circuit_load makes: bellperson's, or the coset form (cuzk/groth16.h). */
static bool g_h_coset;

/* Key, resident key, resident circuit and prover for c->cs (c->z set); setup on the GPU when gpu_setup. */
static bool circuit_load(circuit *c, bool gpu_setup)
{
    char err[256] = "";
    cuzk_groth16_toxic tw;
    size_t n = c->cs.n_constraints + c->cs.n_inputs, m = 1;
    while (m < n)
        m *= 2;
    int rc = cuzk_groth16_toxic_random(&tw, m, err, sizeof err);
    cuzk_groth16_setup_opts so = {gpu_setup ? cuzk_gpu_setup_accel() : NULL, g_h_coset};
    if (rc == CUZK_OK)
        rc = cuzk_groth16_setup_ex(&c->pk, &c->cs, &tw, &so, g_pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "setup: %s", err);
    if (rc)
        return false;
    rc = cuzk_gpu_pk_load(&c->gpk, &c->pk, err, sizeof err);
    CHECK(rc == CUZK_OK, "gpu pk load: %s", err);
    if (rc)
        return false;
    rc = cuzk_gpu_cs_load(&c->gcs, &c->cs, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "gpu cs load: %s", err);
    if (rc)
        return false;
    rc = cuzk_gpu_prover_new(&c->pr, c->gpk, err, sizeof err);
    CHECK(rc == CUZK_OK, "gpu prover: %s", err);
    return rc == CUZK_OK;
}

/* A random circuit; compact = convert its matrices to the compact form (u8 or u16 indices where the
 * distinct coefficients allow), so that device evaluation sees every form. */
static bool circuit_make(circuit *c, size_t ni, size_t na, size_t nc, cuzk_cs_shape shape, bool compact)
{
    memset(c, 0, sizeof *c);
    c->z = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    int rc = cuzk_cs_random(&c->cs, c->z, ni, na, nc, test_rand64(), shape);
    CHECK(rc == CUZK_OK, "cs_random %zu/%zu/%zu: %d", ni, na, nc, rc);
    if (rc)
        return false;
    if (compact && cuzk_cs_compact(&c->cs) != CUZK_OK)
        return false;
    return circuit_load(c, false);
}

/* The PoRep-shaped circuit at scale 2^-k and partition part's witness. */
static bool circuit_porep(circuit *c, unsigned k, uint32_t part, bool gpu_setup)
{
    char err[256] = "";
    memset(c, 0, sizeof *c);
    cuzk_porep_shape sh;
    int rc = cuzk_porep_shape_scale(&sh, k, test_rand64());
    if (rc == CUZK_OK)
        rc = cuzk_porep_synth_cs(&c->cs, &sh, g_pool, err, sizeof err);
    if (rc == CUZK_OK && !(c->z = (cuzk_fr *)malloc((sh.inputs + sh.aux) * sizeof(cuzk_fr))))
        rc = CUZK_ENOMEM;
    if (rc == CUZK_OK)
        rc = cuzk_porep_synth_witness(c->z, &sh, part, g_pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "porep-shaped circuit 2^-%u: %s", k, err);
    return rc == CUZK_OK && circuit_load(c, gpu_setup);
}

static void circuit_free(circuit *c)
{
    cuzk_gpu_prover_free(c->pr);
    cuzk_gpu_cs_free(c->gcs);
    cuzk_gpu_pk_free(c->gpk);
    cuzk_groth16_params_free(&c->pk);
    cuzk_cs_free(&c->cs);
    free(c->z);
}

static bool proof_eq(const cuzk_groth16_proof *a, const cuzk_groth16_proof *b)
{
    return cuzk_g1_affine_eq(&a->a, &b->a) && cuzk_g2_affine_eq(&a->b, &b->b) && cuzk_g1_affine_eq(&a->c, &b->c);
}

/* CPU vs GPU (host evaluation, then device evaluation) on one loaded circuit; a broken witness refused. */
static void check_loaded(circuit &c, const char *what)
{
    char err[256] = "";
    size_t ni = c.cs.n_inputs, na = c.cs.n_aux, nc = c.cs.n_constraints;
    for (int round = 0; round < 6; round++) {
        const cuzk_gpu_cs *gcs = round % 2 ? c.gcs : NULL;
        cuzk_fr r, s;
        if (round >= 4) {
            r = CUZK_FR_ZERO;
            s = CUZK_FR_ZERO;
        } else {
            test_rand_fr(&r);
            test_rand_fr(&s);
        }
        cuzk_groth16_proof cpu, gpu;
        memset(&gpu, 0x5a, sizeof gpu); /* poison */
        /* every place of B2 (none, after H, from the evaluation) with either evaluation over the 6 rounds */
        cuzk_gpu_prover_set_overlap(c.pr, (cuzk_gpu_overlap)(round % 3));
        /* rounds 1, 2 and 5: every G1 window by the batch-affine tree (lists in the prover's b and c), to
         * the end or ended by XYZZ sums below 64 slots; the others: the default (no tree at these sizes) */
        cuzk_gpu_prover_set_tree(c.pr, round == 1 || round == 2 || round == 5 ? 1 : 0, round == 2 ? 64 : 0);
        /* rounds 3 to 5: the ones' sums cut into 3 launches (a cut only above 135,168 entries) */
        cuzk_gpu_prover_set_ones_split(c.pr, round >= 3 ? 3 : 0);
        int rc1 = cuzk_groth16_prove_ex(&cpu, &c.pk, &c.cs, c.z, &r, &s, NULL, g_pool, err, sizeof err);
        CHECK(rc1 == CUZK_OK, "cpu prove %zu rows: %s", nc, err);
        int rc2 = cuzk_gpu_groth16_prove(&gpu, &c.pk, c.gpk, c.pr, gcs, &c.cs, c.z, &r, &s, NULL, g_pool, err,
                                         sizeof err);
        CHECK(rc2 == CUZK_OK, "gpu prove %s (%s evaluation): %s", what, gcs ? "device" : "host", err);
        if (rc1 == CUZK_OK && rc2 == CUZK_OK) {
            uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            cuzk_groth16_proof_to_bytes(bg, &gpu);
            CHECK(memcmp(bc, bg, sizeof bc) == 0 && proof_eq(&cpu, &gpu),
                  "gpu proof bytes differ from the cpu's (%s, %zu inputs, %zu aux, %zu rows, %s evaluation, "
                  "B2 overlap %d, round %d)",
                  what, ni, na, nc, gcs ? "device" : "host", round % 3, round);
            /* independent verification of the GPU proof */
            cuzk_groth16_pvk pvk;
            int v = cuzk_groth16_prepare(&pvk, &c.pk.vk, err, sizeof err);
            if (v == CUZK_OK) {
                v = cuzk_groth16_verify(&pvk, c.z + 1, ni - 1, &gpu, err, sizeof err);
            CHECK(v == CUZK_OK, "gpu proof does not verify: %s", err);
            }
        }
    }
    cuzk_gpu_prover_set_overlap(c.pr, CUZK_GPU_OVERLAP_AFTER_H);
    cuzk_gpu_prover_set_tree(c.pr, 0, 0);
    cuzk_gpu_prover_set_ones_split(c.pr, 0);
    /* a broken witness is refused with the row, by either evaluation; the last variable and a random one */
    if (nc > 3) {
        cuzk_fr *z2 = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
        for (int t = 0; t < 4; t++) {
            memcpy(z2, c.z, (ni + na) * sizeof(cuzk_fr));
            size_t v = t < 2 ? ni + na - 1 : ni + (size_t)(test_rand64() % na);
            cuzk_fr_add(&z2[v], &z2[v], &CUZK_FR_ONE);
            int64_t want = cuzk_cs_check(&c.cs, z2, g_pool);
            cuzk_groth16_proof gpu;
            const cuzk_gpu_cs *gcs = t % 2 ? c.gcs : NULL;
            int rc = cuzk_gpu_groth16_prove(&gpu, &c.pk, c.gpk, c.pr, gcs, &c.cs, z2, NULL, NULL, NULL,
                                            g_pool, err, sizeof err);
            if (want >= 0) {
                char row[64];
                snprintf(row, sizeof row, "constraint %lld ", (long long)want);
                CHECK(rc == CUZK_EUNSAT && strstr(err, row),
                      "%s, broken witness (%s evaluation): rc %d, %s (want row %lld)", what,
                      gcs ? "device" : "host", rc, err, (long long)want);
            }
        }
        free(z2);
    }
}

static void check_circuit(size_t ni, size_t na, size_t nc, cuzk_cs_shape shape, bool compact)
{
    circuit c;
    char what[96];
    snprintf(what, sizeof what, "random circuit, shape %d, %s form", (int)shape,
             compact ? "compact" : "plain");
    if (circuit_make(&c, ni, na, nc, shape, compact))
        check_loaded(c, what);
    circuit_free(&c);
}

/* snarkjs convention: CPU and GPU proofs of w under zk, equal bytes and public values; a broken
 * witness is refused by the verification on both (the zkey has no C matrix to check against). */
static void check_zkey(const cuzk_snarkjs_zkey *zk, const cuzk_fr *w, size_t n_w, const char *what,
                       bool constrained)
{
    char err[256] = "";
    cuzk_gpu_pk *gpk = NULL;
    cuzk_gpu_prover *pr = NULL;
    int rc = cuzk_gpu_zkey_load(&gpk, zk, g_pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: gpu zkey load: %s", what, err);
    if (rc == CUZK_OK) {
        rc = cuzk_gpu_prover_new(&pr, gpk, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: gpu prover: %s", what, err);
    }
    size_t np = zk->n_public + 1;
    cuzk_fr *pub_c = (cuzk_fr *)calloc(np, sizeof(cuzk_fr)), *pub_g = (cuzk_fr *)calloc(np, sizeof(cuzk_fr));
    for (int round = 0; rc == CUZK_OK && round < 3; round++) {
        cuzk_fr r = CUZK_FR_ZERO, s = CUZK_FR_ZERO;
        if (round < 2) {
            test_rand_fr(&r);
            test_rand_fr(&s);
        }
        cuzk_groth16_proof cpu, gpu;
        memset(&gpu, 0x5a, sizeof gpu);
        memset(pub_g, 0x5a, np * sizeof(cuzk_fr));
        cuzk_gpu_prover_set_overlap(pr, (cuzk_gpu_overlap)(round % 3));
        int rc1 = cuzk_groth16_prove_zkey_ex(&cpu, pub_c, zk, w, n_w, &r, &s, NULL, g_pool, err, sizeof err);
        CHECK(rc1 == CUZK_OK, "%s: cpu prove: %s", what, err);
        int rc2 = cuzk_gpu_groth16_prove_zkey(&gpu, pub_g, zk, gpk, pr, w, n_w, &r, &s, NULL, g_pool, err,
                                              sizeof err);
        CHECK(rc2 == CUZK_OK, "%s: gpu prove: %s", what, err);
        if (rc1 == CUZK_OK && rc2 == CUZK_OK) {
            uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            cuzk_groth16_proof_to_bytes(bg, &gpu);
            CHECK(memcmp(bc, bg, sizeof bc) == 0,
                  "%s: gpu zkey proof bytes differ from the cpu's (B2 overlap %d, round %d)", what, round % 3,
                  round);
            CHECK(memcmp(pub_c, pub_g, zk->n_public * sizeof(cuzk_fr)) == 0, "%s: public values differ",
                  what);
        }
    }
    if (rc == CUZK_OK && n_w > (size_t)zk->n_public + 2) {
        cuzk_fr *w2 = (cuzk_fr *)malloc(n_w * sizeof(cuzk_fr));
        memcpy(w2, w, n_w * sizeof(cuzk_fr));
        cuzk_fr_add(&w2[n_w - 1], &w2[n_w - 1], &CUZK_FR_ONE);
        cuzk_groth16_proof p;
        int rc1 =
            cuzk_groth16_prove_zkey_ex(&p, NULL, zk, w2, n_w, NULL, NULL, NULL, g_pool, err, sizeof err);
        int rc2 = cuzk_gpu_groth16_prove_zkey(&p, NULL, zk, gpk, pr, w2, n_w, NULL, NULL, NULL, g_pool, err,
                                              sizeof err);
        /* the last variable is in some constraint of a random circuit; a fixture's may be unconstrained */
        CHECK(rc1 == rc2 && (!constrained || rc2 == CUZK_EVERIFY),
              "%s: broken witness: cpu rc %d, gpu rc %d (%s)", what, rc1, rc2, err);
        rc2 = cuzk_gpu_groth16_prove_zkey(&p, NULL, zk, gpk, pr, w2, n_w - 1, NULL, NULL, NULL, g_pool, err,
                                          sizeof err);
        CHECK(rc2 == CUZK_EINVAL, "%s: a witness one value short: rc %d", what, rc2);
        free(w2);
    }
    free(pub_c);
    free(pub_g);
    cuzk_gpu_prover_free(pr);
    cuzk_gpu_pk_free(gpk);
}

static void check_zkey_fixture(const char *name)
{
    char zp[256], wp[256], err[256] = "";
    snprintf(zp, sizeof zp, "tests/fixtures/%s/circuit.zkey", name);
    snprintf(wp, sizeof wp, "tests/fixtures/%s/witness.wtns", name);
    cuzk_snarkjs_zkey *zk = NULL;
    cuzk_snarkjs_wtns *wt = NULL;
    int rc = cuzk_snarkjs_zkey_open(zp, &zk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: %s", zp, err);
    if (rc == CUZK_OK) {
        rc = cuzk_snarkjs_wtns_open(wp, &wt, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: %s", wp, err);
    }
    if (rc == CUZK_OK)
        check_zkey(zk, wt->values, wt->n, name, false);
    cuzk_snarkjs_wtns_free(wt);
    cuzk_snarkjs_zkey_free(zk);
}

static void check_zkey_random(size_t ni, size_t na, size_t nc)
{
    char err[256] = "", path[96], what[96];
    snprintf(path, sizeof path, "/tmp/test_gpu_prove.%d.zkey", (int)getpid());
    snprintf(what, sizeof what, "random zkey %zu/%zu/%zu", ni, na, nc);
    cuzk_cs cs;
    cuzk_fr *z = (cuzk_fr *)malloc((ni + na) * sizeof(cuzk_fr));
    int rc = cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS);
    unsigned lg = 0;
    cuzk_groth16_toxic tw;
    if (rc == CUZK_OK)
        rc = cuzk_zkey_domain_lg(&lg, &cs, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_groth16_toxic_random(&tw, (size_t)1 << lg, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_zkey_setup_write(path, &cs, &tw, g_pool, err, sizeof err);
    cuzk_snarkjs_zkey *zk = NULL;
    if (rc == CUZK_OK)
        rc = cuzk_snarkjs_zkey_open(path, &zk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: %s", what, err);
    if (rc == CUZK_OK)
        check_zkey(zk, z, ni + na, what, true);
    cuzk_snarkjs_zkey_free(zk);
    unlink(path);
    cuzk_cs_free(&cs);
    free(z);
}

/* A streamed key (bases page-locked on the host, staged through stage_bytes buffers: 0 = default, small =
 * many segments and a short last one), wholly or in part (the vectors of `resident` on the device,
 * cuzk_gpu_pk_load_mixed), proves the CPU's bytes with host and with device evaluation. */
/* Two proofs with the key spk as loaded (rc: its load's status), host then device evaluation, each
 * byte-identical to the CPU's with the same r, s; how is what the messages call the key. spk is freed. */
static void check_key(circuit &c, cuzk_gpu_pk *spk, int rc, const char *err_in, const char *what,
                      const char *how)
{
    char err[256] = "";
    cuzk_gpu_prover *spr = NULL;
    CHECK(rc == CUZK_OK, "%s: %s: %s", what, how, err_in);
    if (rc == CUZK_OK) {
        rc = cuzk_gpu_prover_new(&spr, spk, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: prover for a %s: %s", what, how, err);
    }
    for (int round = 0; rc == CUZK_OK && round < 2; round++) {
        cuzk_fr r, s;
        test_rand_fr(&r);
        test_rand_fr(&s);
        cuzk_groth16_proof cpu, gpu;
        memset(&gpu, 0x5a, sizeof gpu);
        int rc1 = cuzk_groth16_prove_ex(&cpu, &c.pk, &c.cs, c.z, &r, &s, NULL, g_pool, err, sizeof err);
        CHECK(rc1 == CUZK_OK, "%s: cpu prove: %s", what, err);
        int rc2 = cuzk_gpu_groth16_prove(&gpu, &c.pk, spk, spr, round ? c.gcs : NULL, &c.cs, c.z, &r, &s,
                                         NULL, g_pool, err, sizeof err);
        CHECK(rc2 == CUZK_OK, "%s: gpu prove with a %s: %s", what, how, err);
        if (rc1 == CUZK_OK && rc2 == CUZK_OK) {
            uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(bc, &cpu);
            cuzk_groth16_proof_to_bytes(bg, &gpu);
            CHECK(memcmp(bc, bg, sizeof bc) == 0, "%s: %s, %s evaluation: proof bytes differ from the cpu's",
                  what, how, round ? "device" : "host");
        }
    }
    cuzk_gpu_prover_free(spr);
    cuzk_gpu_pk_free(spk);
}

static void check_streamed(circuit &c, size_t stage_bytes, const char *what, unsigned resident = 0)
{
    char err[256] = "", how[96];
    cuzk_gpu_pk *spk = NULL;
    int rc = resident ? cuzk_gpu_pk_load_mixed(&spk, &c.pk, resident, stage_bytes, err, sizeof err)
                      : cuzk_gpu_pk_load_streamed(&spk, &c.pk, stage_bytes, err, sizeof err);
    snprintf(how, sizeof how, "streamed key (resident 0x%x, staging %zu bytes)", resident, stage_bytes);
    check_key(c, spk, rc, err, what, how);
}

/* The key with its witness vectors as group tables of k (cuzk_gpu_pk_load_tables) proves the CPU's bytes
 * with host and with device evaluation. */
static void check_tables(circuit &c, unsigned k, const char *what, cuzk_pool *pool = g_pool)
{
    char err[256] = "", how[80];
    cuzk_gpu_pk *tpk = NULL;
    int rc = cuzk_gpu_pk_load_tables(&tpk, &c.pk, k, pool, err, sizeof err);
    snprintf(how, sizeof how, "key with group tables of k = %u (%s)", k, pool ? "pool" : "one thread");
    check_key(c, tpk, rc, err, what, how);
}

/* A device-evaluation proof from the host witness z_dev against the CPU's proof of z_cpu (random r, s):
 * CUZK_OK when both succeed with the same bytes, else the GPU's code (CUZK_ERANGE for different bytes). */
static int prove_vs_cpu(circuit &c, const cuzk_fr *z_dev, const cuzk_fr *z_cpu, char *err, size_t errlen)
{
    cuzk_fr r, s;
    test_rand_fr(&r);
    test_rand_fr(&s);
    cuzk_groth16_proof cpu, gpu;
    memset(&gpu, 0x5a, sizeof gpu);
    int rc = cuzk_gpu_groth16_prove(&gpu, &c.pk, c.gpk, c.pr, c.gcs, &c.cs, z_dev, &r, &s, NULL, g_pool, err,
                                    errlen);
    if (rc != CUZK_OK)
        return rc;
    if ((rc = cuzk_groth16_prove_ex(&cpu, &c.pk, &c.cs, z_cpu, &r, &s, NULL, g_pool, err, errlen)) != CUZK_OK)
        return rc;
    uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(bc, &cpu);
    cuzk_groth16_proof_to_bytes(bg, &gpu);
    return memcmp(bc, bg, sizeof bc) ? CUZK_ERANGE : CUZK_OK;
}

/* cuzk_gpu_prover_put_z: the next device-evaluation proof from the same pointer uses the copy made
 * before it (shown by changing the host values in between, which the contract forbids), one proof only;
 * any other pointer is copied as usual. */
static void check_put_z(circuit &c)
{
    char err[256] = "";
    size_t n = c.cs.n_inputs + c.cs.n_aux;
    cuzk_fr *zb = (cuzk_fr *)malloc(n * sizeof(cuzk_fr)), *bad = (cuzk_fr *)malloc(n * sizeof(cuzk_fr));
    memcpy(bad, c.z, n * sizeof(cuzk_fr));
    for (size_t v = n - 1; v >= c.cs.n_inputs; v--) { /* a variable some constraint reads */
        cuzk_fr_add(&bad[v], &bad[v], &CUZK_FR_ONE);
        if (cuzk_cs_check(&c.cs, bad, g_pool) >= 0)
            break;
        bad[v] = c.z[v];
    }
    CHECK(cuzk_cs_check(&c.cs, bad, g_pool) >= 0, "no broken witness found");
    int rc = cuzk_gpu_prover_put_z(c.pr, c.z, n, err, sizeof err);
    CHECK(rc == CUZK_OK, "put_z: %s", err);
    rc = prove_vs_cpu(c, c.z, c.z, err, sizeof err);
    CHECK(rc == CUZK_OK, "put_z, then a proof of the same witness: rc %d %s", rc, err);
    CHECK(cuzk_gpu_prover_put_z(c.pr, bad, n, err, sizeof err) == CUZK_OK, "put_z: %s", err);
    rc = prove_vs_cpu(c, c.z, c.z, err, sizeof err);
    CHECK(rc == CUZK_OK, "put_z of another pointer, then a proof: rc %d %s (the put copy was used)", rc, err);
    memcpy(zb, c.z, n * sizeof(cuzk_fr));
    CHECK(cuzk_gpu_prover_put_z(c.pr, zb, n, err, sizeof err) == CUZK_OK, "put_z: %s", err);
    memcpy(zb, bad, n * sizeof(cuzk_fr)); /* after the copy: the proof must not read these */
    rc = prove_vs_cpu(c, zb, c.z, err, sizeof err);
    CHECK(rc == CUZK_OK, "put_z, values changed after: rc %d %s (the witness was copied again)", rc, err);
    rc = prove_vs_cpu(c, zb, c.z, err, sizeof err);
    CHECK(rc == CUZK_EUNSAT, "the proof after the put one copies again: rc %d, want CUZK_EUNSAT", rc);
    CHECK(cuzk_gpu_prover_put_z(c.pr, bad, n, err, sizeof err) == CUZK_OK, "put_z: %s", err);
    rc = prove_vs_cpu(c, bad, bad, err, sizeof err);
    CHECK(rc == CUZK_EUNSAT, "put_z of a broken witness: rc %d, want CUZK_EUNSAT", rc);
    CHECK(cuzk_gpu_prover_put_z(c.pr, NULL, n, err, sizeof err) == CUZK_EINVAL, "put_z of no witness");
    free(zb);
    free(bad);
}

/* z's packing (cuzk/zpack.h) in a fresh 64-byte aligned buffer with a tail of cap values (the caller
 * frees *buf); false when z does not fit. */
static bool pack_z(cuzk_zpack *zp, void **buf, const cuzk_fr *z, size_t n, size_t cap)
{
    char err[256] = "";
    size_t bytes = cuzk_zpack_bytes(n, cap);
    *buf = aligned_alloc(64, (bytes + 63) / 64 * 64);
    int rc = cuzk_zpack_init(zp, *buf, bytes, n, cap, err, sizeof err);
    CHECK(rc == CUZK_OK, "zpack init: %s", err);
    return rc == CUZK_OK && cuzk_zpack_make(zp, z, g_pool);
}

/* cuzk_gpu_prover_put_zpack: the device expands the packing into the witness the proof then uses (the
 * CPU's proof bytes; a packed broken witness is caught; the host values changed after the put are not
 * read); a packing of another length is refused. */
static void check_put_zpack(circuit &c, const char *what)
{
    char err[256] = "";
    size_t n = c.cs.n_inputs + c.cs.n_aux;
    cuzk_fr *zb = (cuzk_fr *)malloc(n * sizeof(cuzk_fr)), *bad = (cuzk_fr *)malloc(n * sizeof(cuzk_fr));
    memcpy(bad, c.z, n * sizeof(cuzk_fr));
    for (size_t v = n - 1; v >= c.cs.n_inputs; v--) { /* a value some constraint reads, made other */
        cuzk_fr_add(&bad[v], &bad[v], &CUZK_FR_ONE);
        cuzk_fr_add(&bad[v], &bad[v], &CUZK_FR_ONE);
        if (cuzk_cs_check(&c.cs, bad, g_pool) >= 0)
            break;
        bad[v] = c.z[v];
    }
    CHECK(cuzk_cs_check(&c.cs, bad, g_pool) >= 0, "%s: no broken witness found", what);
    cuzk_zpack zp, zbad;
    void *buf = NULL, *bufbad = NULL;
    bool ok = pack_z(&zp, &buf, c.z, n, n) && pack_z(&zbad, &bufbad, bad, n, n);
    CHECK(ok, "%s: packed", what);
    if (ok) {
        printf("%s: %zu values, %zu neither 0 nor 1, %zu bytes packed (%.1f %% of z)\n", what, n, zp.n_other,
               cuzk_zpack_used(&zp), 100.0 * cuzk_zpack_used(&zp) / (n * sizeof(cuzk_fr)));
        int rc = cuzk_gpu_prover_put_zpack(c.pr, c.z, n, &zp, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: put_zpack: %s", what, err);
        rc = prove_vs_cpu(c, c.z, c.z, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: put_zpack, then a proof: rc %d %s", what, rc, err);
        CHECK(cuzk_gpu_prover_put_zpack(c.pr, bad, n, &zbad, err, sizeof err) == CUZK_OK, "put_zpack: %s",
              err);
        rc = prove_vs_cpu(c, bad, bad, err, sizeof err);
        CHECK(rc == CUZK_EUNSAT, "%s: put_zpack of a broken witness: rc %d, want CUZK_EUNSAT", what, rc);
        memcpy(zb, c.z, n * sizeof(cuzk_fr));
        CHECK(cuzk_gpu_prover_put_zpack(c.pr, zb, n, &zp, err, sizeof err) == CUZK_OK, "put_zpack: %s", err);
        memcpy(zb, bad, n * sizeof(cuzk_fr)); /* after the put: the proof must not read these */
        rc = prove_vs_cpu(c, zb, c.z, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: put_zpack, host values changed after: rc %d %s", what, rc, err);
        CHECK(cuzk_gpu_prover_put_zpack(c.pr, c.z, n - 1, &zp, err, sizeof err) == CUZK_EINVAL &&
                  strstr(err, "packed witness"),
              "%s: a packing of another length is refused: %s", what, err);
    }
    free(buf);
    free(bufbad);
    free(zb);
    free(bad);
}

/* c's proof through the key gpk and the prover pr, with host or device evaluation (random r, s): CUZK_OK when
 * it has the CPU's bytes, else the GPU's code (CUZK_ERANGE for different bytes). */
static int prove_with(circuit &c, const cuzk_gpu_pk *gpk, cuzk_gpu_prover *pr, bool dev_eval, char *err,
                      size_t errlen)
{
    cuzk_fr r, s;
    test_rand_fr(&r);
    test_rand_fr(&s);
    cuzk_groth16_proof cpu, gpu;
    memset(&gpu, 0x5a, sizeof gpu);
    int rc = cuzk_gpu_groth16_prove(&gpu, &c.pk, gpk, pr, dev_eval ? c.gcs : NULL, &c.cs, c.z, &r, &s, NULL,
                                    g_pool, err, errlen);
    if (rc != CUZK_OK)
        return rc;
    if ((rc = cuzk_groth16_prove_ex(&cpu, &c.pk, &c.cs, c.z, &r, &s, NULL, g_pool, err, errlen)) != CUZK_OK)
        return rc;
    uint8_t bc[CUZK_GROTH16_PROOF_SIZE], bg[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(bc, &cpu);
    cuzk_groth16_proof_to_bytes(bg, &gpu);
    return memcmp(bc, bg, sizeof bc) ? CUZK_ERANGE : CUZK_OK;
}

static size_t device_free(void)
{
    size_t f = 0, t = 0;
    CUDA_OK(cudaDeviceSynchronize()); /* stream-ordered frees (the NTT's tables) given back first */
    CUDA_OK(cudaMemGetInfo(&f, &t));
    return f;
}

/* One prover for several keys (cuzk_gpu_prover_bind): small, big (it grows), small again (no allocation),
 * big in part streamed (staging buffers added), big resident again (no allocation), each proof the CPU's
 * bytes with host and device evaluation; a bind told to expect a shape makes room for it at once; a
 * prover bound to one key refuses another's proof. */
static void check_bind(void)
{
    char err[256] = "";
    circuit small, big;
    memset(&small, 0, sizeof small);
    memset(&big, 0, sizeof big);
    if (!circuit_make(&small, 9, 1000, 1100, CUZK_CS_RANDOM_BITS, true) ||
        !circuit_make(&big, 17, 4000, 4070, CUZK_CS_RANDOM_UNIFORM, false)) {
        circuit_free(&small);
        circuit_free(&big);
        return;
    }
    cuzk_gpu_pk *part = NULL;
    int rc = cuzk_gpu_pk_load_mixed(&part, &big.pk, CUZK_GPU_PK_H | CUZK_GPU_PK_B1, 192 * 37, err, sizeof err);
    CHECK(rc == CUZK_OK, "bind: a key in part: %s", err);
    cuzk_gpu_prover *pr = NULL;
    static const struct {
        int key; /* 0 small, 1 big, 2 big in part */
        int alloc; /* 1: the bind allocates, 0: it must not, -1: either */
    } steps[] = {{0, 1}, {1, 1}, {0, 0}, {1, 0}, {2, -1}, {1, 0}, {0, 0}, {2, 0}};
    for (size_t i = 0; rc == CUZK_OK && i < sizeof steps / sizeof steps[0]; i++) {
        circuit &c = steps[i].key ? big : small;
        const cuzk_gpu_pk *gpk = steps[i].key == 0 ? small.gpk : steps[i].key == 1 ? big.gpk : part;
        size_t before = device_free();
        rc = cuzk_gpu_prover_bind(&pr, gpk, NULL, err, sizeof err);
        size_t after = device_free();
        CHECK(rc == CUZK_OK, "bind step %zu: %s", i, err);
        if (steps[i].alloc == 0)
            CHECK(after == before, "bind step %zu (key %d) allocated %lld bytes", i, steps[i].key,
                  (long long)before - (long long)after);
        else if (steps[i].alloc == 1)
            CHECK(after < before, "bind step %zu (key %d) did not allocate", i, steps[i].key);
        for (int dev = 0; rc == CUZK_OK && dev < 2; dev++) {
            int pr_rc = prove_with(c, gpk, pr, dev == 1, err, sizeof err);
            CHECK(pr_rc == CUZK_OK, "bind step %zu (key %d), %s evaluation: rc %d %s", i, steps[i].key,
                  dev ? "device" : "host", pr_rc, err);
        }
    }
    if (rc == CUZK_OK) { /* bound to big's key in part: a proof through big's resident key is refused */
        cuzk_groth16_proof p;
        rc = cuzk_gpu_groth16_prove(&p, &big.pk, big.gpk, pr, NULL, &big.cs, big.z, NULL, NULL, NULL, g_pool, err,
                                    sizeof err);
        CHECK(rc == CUZK_EINVAL, "a prover bound to another key was accepted (rc %d)", rc);
    }
    cuzk_gpu_prover_free(pr);
    pr = NULL;
    /* made for big's shape from the start: binding small then big allocates once */
    cuzk_gpu_shape room = {big.pk.n_h,
                           big.pk.n_l,
                           big.pk.n_a,
                           big.pk.n_b,
                           big.cs.n_inputs + big.cs.n_aux,
                           0,
                           cuzk_groth16_domain_size(&big.pk)};
    rc = cuzk_gpu_prover_bind(&pr, small.gpk, &room, err, sizeof err);
    CHECK(rc == CUZK_OK, "bind with room: %s", err);
    size_t before = device_free();
    if (rc == CUZK_OK && (rc = cuzk_gpu_prover_bind(&pr, big.gpk, NULL, err, sizeof err)) == CUZK_OK)
        CHECK(device_free() == before && prove_with(big, big.gpk, pr, true, err, sizeof err) == CUZK_OK,
              "a prover made with room for big: bound to it without allocating, and proves it: %s", err);
    CHECK(cuzk_gpu_prover_bind(&pr, NULL, NULL, err, sizeof err) == CUZK_EINVAL, "bind to no key");
    cuzk_gpu_prover_free(pr);
    cuzk_gpu_pk_free(part);
    circuit_free(&small);
    circuit_free(&big);
    printf("one prover, several keys: bound and proved in turn\n");
}

static int cmd_check(void)
{
    double t0 = now_s();
    static const size_t sizes[][3] = {{2, 3, 4},      {3, 40, 50},      {5, 300, 250},  {9, 1000, 1100},
                                      {17, 4000, 4070}, {4, 20000, 16300}, {33, 60000, 65400}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int sh = 0; sh < 2; sh++)
            check_circuit(sizes[i][0], sizes[i][1], sizes[i][2],
                          sh ? CUZK_CS_RANDOM_BITS : CUZK_CS_RANDOM_UNIFORM, i % 2 == 1);
    /* compact forms: u8 indices (0/1 circuits, few coefficients) and u16 (uniform, below 65536 values) */
    check_circuit(3, 500, 600, CUZK_CS_RANDOM_BITS, true);
    check_circuit(3, 3000, 2000, CUZK_CS_RANDOM_UNIFORM, true);
    /* keys in the coset form: H over m points of A·B on the coset, against the CPU's proof with the same
     * key (itself the textbook proof: test_prove); streamed too (its h has m points) */
    g_h_coset = true;
    check_circuit(2, 3, 4, CUZK_CS_RANDOM_UNIFORM, false);
    check_circuit(9, 1000, 1100, CUZK_CS_RANDOM_BITS, false);
    check_circuit(33, 60000, 65400, CUZK_CS_RANDOM_BITS, true);
    {
        circuit c;
        if (circuit_make(&c, 9, 1000, 1100, CUZK_CS_RANDOM_UNIFORM, false)) {
            check_streamed(c, 192 * 37, "coset form, streamed 9/1000/1100");
            check_streamed(c, 0, "coset form, h streamed", CUZK_GPU_PK_ALL & ~CUZK_GPU_PK_H);
        }
        circuit_free(&c);
    }
    g_h_coset = false;
    printf("proof checks done (%.1f s)\n", now_s() - t0);
    /* streamed keys: one segment, several with a short last one, one point per G2 segment */
    {
        circuit c;
        if (circuit_make(&c, 9, 1000, 1100, CUZK_CS_RANDOM_UNIFORM, false)) {
            check_streamed(c, 0, "streamed 9/1000/1100");
            check_streamed(c, 192 * 37, "streamed 9/1000/1100");
            check_streamed(c, 192, "streamed 9/1000/1100");
            /* in part: each vector alone streamed, each alone resident, and two mixes (the 80 GB plan's
             * h + l + b_g1 among them), with the default staging and with many segments */
            for (unsigned v = 0; v < 5; v++) {
                check_streamed(c, 0, "in part 9/1000/1100", CUZK_GPU_PK_ALL & ~(1u << v));
                check_streamed(c, 192 * 37, "in part 9/1000/1100", 1u << v);
            }
            check_streamed(c, 0, "in part 9/1000/1100", CUZK_GPU_PK_H | CUZK_GPU_PK_L | CUZK_GPU_PK_B1);
            check_streamed(c, 96 * 5, "in part 9/1000/1100", CUZK_GPU_PK_A | CUZK_GPU_PK_B2);
            check_streamed(c, 0, "in part 9/1000/1100 (all resident)", CUZK_GPU_PK_ALL);
        }
        circuit_free(&c);
        if (circuit_make(&c, 33, 60000, 65400, CUZK_CS_RANDOM_BITS, true))
            check_streamed(c, (size_t)1 << 20, "streamed 33/60000/65400");
        circuit_free(&c);
        circuit bad;
        if (circuit_make(&bad, 2, 3, 4, CUZK_CS_RANDOM_UNIFORM, false)) {
            cuzk_gpu_pk *spk = NULL;
            char err[256] = "";
            CHECK(cuzk_gpu_pk_load_streamed(&spk, &bad.pk, 100, err, sizeof err) == CUZK_EINVAL && !spk,
                  "a staging buffer smaller than one G2 point is refused");
            CHECK(cuzk_gpu_pk_load_streamed(&spk, NULL, 0, err, sizeof err) == CUZK_EINVAL && !spk,
                  "a streamed key without a key is refused");
            CHECK(cuzk_gpu_pk_load_mixed(&spk, &bad.pk, 32, 0, err, sizeof err) == CUZK_EINVAL && !spk,
                  "a key with an unknown vector bit is refused");
            CHECK(cuzk_gpu_pk_load_mixed(&spk, &bad.pk, CUZK_GPU_PK_H, 191, err, sizeof err) == CUZK_EINVAL &&
                      !spk,
                  "a key in part with a staging buffer smaller than one G2 point is refused");
        }
        circuit_free(&bad);
    }
    printf("streamed-key checks done (%.1f s)\n", now_s() - t0);
    /* group tables (docs/design/020): every k, sizes whose last group is partial (1000 = 3·333 + 1, 60000
     * and 4000 partial at k = 4 or 3), both forms of H, compact matrices; bad arguments refused */
    {
        circuit c;
        if (circuit_make(&c, 9, 1000, 1100, CUZK_CS_RANDOM_UNIFORM, false))
            for (unsigned k = 2; k <= 4; k++)
                check_tables(c, k, "tables 9/1000/1100");
        circuit_free(&c);
        if (circuit_make(&c, 17, 4001, 4070, CUZK_CS_RANDOM_BITS, true))
            for (unsigned k = 2; k <= 4; k++)
                check_tables(c, k, "tables 17/4001/4070");
        circuit_free(&c);
        g_h_coset = true;
        if (circuit_make(&c, 33, 60000, 65400, CUZK_CS_RANDOM_BITS, true))
            check_tables(c, 3, "tables, coset form, 33/60000/65400");
        circuit_free(&c);
        g_h_coset = false;
        if (circuit_make(&c, 2, 3, 4, CUZK_CS_RANDOM_UNIFORM, false)) {
            char err[256] = "";
            for (unsigned k : {0u, 1u, 5u}) {
                cuzk_gpu_pk *tpk = (cuzk_gpu_pk *)&c; /* must be reset */
                CHECK(cuzk_gpu_pk_load_tables(&tpk, &c.pk, k, g_pool, err, sizeof err) == CUZK_EINVAL && !tpk,
                      "tables of k = %u were not refused", k);
            }
            check_tables(c, 4, "tables 2/3/4 (fewer bases than one group)");
            check_tables(c, 2, "tables 2/3/4 without a pool", NULL); /* gpu_threads = 1 gives none */
        }
        circuit_free(&c);
    }
    printf("group-table checks done (%.1f s)\n", now_s() - t0);
    check_bind();
    {
        circuit c;
        if (circuit_make(&c, 9, 1000, 1100, CUZK_CS_RANDOM_BITS, true)) {
            check_put_z(c);
            check_put_zpack(c, "random bits");
        }
        circuit_free(&c);
    }
    /* PoRep-shaped: long packed-check rows (the warp-per-row kernel), u8 indices, partitions 0 and 7 */
    for (unsigned k = 16; k >= 13; k -= 3) {
        circuit c;
        char what[64];
        snprintf(what, sizeof what, "porep-shaped 2^-%u", k);
        if (circuit_porep(&c, k, k == 16 ? 0 : 7, false))
            check_loaded(c, what);
        circuit_free(&c);
    }
    {
        /* 2^-8 (≈ 509 K rows, key made on the GPU): L and A have ≈ 509 K scalars, about half of them ones,
         * so rounds 3-5 cut their ones' sums with work in both launches (one steps over 135,168 entries) */
        circuit c;
        if (circuit_porep(&c, 8, 3, true)) {
            check_loaded(c, "porep-shaped 2^-8");
            check_put_zpack(c, "porep-shaped 2^-8");
            check_tables(c, 3, "porep-shaped 2^-8"); /* the witness's own ones and runs */
        }
        circuit_free(&c);
    }
    printf("porep-shaped checks done (%.1f s)\n", now_s() - t0);
    /* snarkjs convention */
    static const char *fixtures[] = {"bits", "mixer", "mulchain"};
    for (int i = 0; i < 3; i++)
        check_zkey_fixture(fixtures[i]);
    check_zkey_random(2, 30, 40);
    check_zkey_random(4, 3000, 4000);
    check_zkey_random(3, 70000, 60000);
    printf("zkey checks done (%.1f s)\n", now_s() - t0);

    /* a prover made for another key */
    circuit a, b;
    char err[256] = "";
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    if (circuit_make(&a, 2, 10, 12, CUZK_CS_RANDOM_UNIFORM, false) &&
        circuit_make(&b, 2, 10, 13, CUZK_CS_RANDOM_UNIFORM, false)) {
        cuzk_groth16_proof p;
        int rc = cuzk_gpu_groth16_prove(&p, &a.pk, a.gpk, b.pr, NULL, &a.cs, a.z, NULL, NULL, NULL, g_pool,
                                        err, sizeof err);
        CHECK(rc == CUZK_EINVAL, "a prover of another key was accepted (rc %d)", rc);
        /* a resident circuit of another shape */
        rc = cuzk_gpu_groth16_prove(&p, &a.pk, a.gpk, a.pr, b.gcs, &a.cs, a.z, NULL, NULL, NULL, g_pool, err,
                                    sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, "device circuit"), "a circuit of another shape: rc %d, %s", rc,
              err);
    }
    circuit_free(&a);
    circuit_free(&b);
    return test_finish("test_gpu_prove check");
}

/* Median device stage times of `runs` proofs of c (after one warm-up), printed as one table row. */
static int bench_rows(circuit &c, const cuzk_gpu_cs *gcs, int runs, const char *label)
{
    enum { N = 11 };
    float v[N][5];
    char err[256] = "";
    cuzk_groth16_proof p;
    cuzk_prove_opts opts = {};
    int rc = cuzk_gpu_groth16_prove(&p, &c.pk, c.gpk, c.pr, gcs, &c.cs, c.z, NULL, NULL, &opts, g_pool, err,
                                    sizeof err);
    for (int i = 0; i < runs && rc == CUZK_OK; i++) {
        double w0 = now_s();
        rc = cuzk_gpu_groth16_prove(&p, &c.pk, c.gpk, c.pr, gcs, &c.cs, c.z, NULL, NULL, &opts, g_pool, err,
                                    sizeof err);
        cuzk_gpu_prove_times t;
        cuzk_gpu_prover_times(c.pr, &t);
        float row[N] = {(float)((now_s() - w0) * 1e3),
                        t.total,
                        t.upload,
                        t.eval,
                        t.h,
                        t.msm_h,
                        t.msm_l,
                        t.msm_a,
                        t.msm_b1,
                        t.msm_b2,
                        0};
        for (int k = 0; k < N; k++)
            v[k][i] = row[k];
    }
    CHECK(rc == CUZK_OK, "bench prove (%s): %s", label, err);
    if (rc != CUZK_OK)
        return rc;
    for (int k = 0; k < N - 1; k++)
        qsort(v[k], (size_t)runs, sizeof(float), cmp_float);
    int mid = runs / 2;
    printf("| %s | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n", label,
           gcs ? "device" : "host", v[0][mid], v[1][mid], v[2][mid], v[3][mid], v[4][mid], v[5][mid],
           v[6][mid], v[7][mid], v[8][mid], v[9][mid]);
    fflush(stdout);
    return CUZK_OK;
}

static void bench_header(void)
{
    printf(
        "| circuit | evaluation | wall ms (host work + device + verify) | device ms | upload | eval+check | "
        "H (NTTs) | MSM H | MSM L | MSM A | MSM B1 | MSM B2 "
        "|\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
}

static int cmd_bench(unsigned lg)
{
    size_t nc = ((size_t)1 << lg) - 64, ni = 8, na = nc;
    circuit c;
    double t0 = now_s();
    if (!circuit_make(&c, ni, na, nc, CUZK_CS_RANDOM_BITS, true)) {
        circuit_free(&c);
        return test_finish("test_gpu_prove bench");
    }
    printf("2^%u: circuit + setup + upload %.1f s (host); key on device %.2f GiB, circuit %.2f GiB, prover "
           "buffers "
           "%.2f GiB\n",
           lg, now_s() - t0, cuzk_gpu_pk_bytes(&c.pk) / 1073741824.0, cuzk_gpu_cs_bytes(&c.cs) / 1073741824.0,
           cuzk_gpu_prover_bytes(&c.pk) / 1073741824.0);
    char label[32];
    snprintf(label, sizeof label, "random 2^%u-64", lg);
    bench_header();
    if (bench_rows(c, NULL, 5, label) == CUZK_OK)
        bench_rows(c, c.gcs, 5, label);
    circuit_free(&c);
    return test_finish("test_gpu_prove bench");
}

/* The witness's trip to the device, whole (put_z) and packed (cuzk_zpack_make on the test's pool, then
 * put_zpack), three times each; a checked, verified proof then reads the last copy. */
static void bench_put_z(circuit &c)
{
    char err[256] = "";
    size_t n = c.cs.n_inputs + c.cs.n_aux, cap = cuzk_zpack_default_cap(n), bytes = cuzk_zpack_bytes(n, cap);
    void *buf = NULL, *zpin = NULL; /* page-locked, as the engine's: the packing and a copy of z */
    if (cudaHostAlloc(&buf, bytes, cudaHostAllocPortable) != cudaSuccess ||
        cudaHostAlloc(&zpin, n * sizeof(cuzk_fr), cudaHostAllocPortable) != cudaSuccess) {
        CHECK(false, "page-locked buffers of %zu and %zu bytes for the witness", bytes, n * sizeof(cuzk_fr));
        cudaFreeHost(buf);
        return;
    }
    memcpy(zpin, c.z, n * sizeof(cuzk_fr));
    cuzk_zpack zp;
    int rc = cuzk_zpack_init(&zp, buf, bytes, n, cap, err, sizeof err);
    CHECK(rc == CUZK_OK, "zpack init: %s", err);
    double whole = 1e9, pack = 1e9, packed = 1e9;
    bool fits = false;
    for (int i = 0; rc == CUZK_OK && i < 3; i++) {
        double t0 = now_s();
        rc = cuzk_gpu_prover_put_z(c.pr, (const cuzk_fr *)zpin, n, err, sizeof err);
        double t1 = now_s();
        fits = cuzk_zpack_make(&zp, c.z, g_pool);
        double t2 = now_s();
        if (rc == CUZK_OK && fits)
            rc = cuzk_gpu_prover_put_zpack(c.pr, c.z, n, &zp, err, sizeof err);
        double t3 = now_s();
        whole = fmin(whole, t1 - t0), pack = fmin(pack, t2 - t1), packed = fmin(packed, t3 - t2);
    }
    CHECK(rc == CUZK_OK && fits, "put_z / put_zpack (%zu of %zu values in the tail): %s", zp.n_other, n, err);
    if (rc == CUZK_OK && fits) {
        printf("witness to the device (%zu values, %.2f GB, page-locked): whole %.1f ms; packed %.1f MB (%zu "
               "others, %.2f %%): pack %.1f ms on %d threads, put %.1f ms (best of 3)\n",
               n, n * 32e-9, whole * 1e3, cuzk_zpack_used(&zp) / 1e6, zp.n_other, 100.0 * zp.n_other / n,
               pack * 1e3, cuzk_pool_size(g_pool), packed * 1e3);
        cuzk_groth16_proof p;
        cuzk_prove_opts opts = {}; /* the witness checked on the device, the proof verified */
        rc = cuzk_gpu_groth16_prove(&p, &c.pk, c.gpk, c.pr, c.gcs, &c.cs, c.z, NULL, NULL, &opts, g_pool, err,
                                    sizeof err);
        CHECK(rc == CUZK_OK, "a checked and verified proof from the packed put: %s", err);
    }
    cudaFreeHost(buf);
    cudaFreeHost(zpin);
}

/* One partition with the key in bellperson's form, then (the first key and its prover freed) in the coset
 * form, same circuit and witness: the A/B of docs/design/021. */
static int cmd_bench_porep_forms(unsigned lg)
{
    circuit c;
    double t0 = now_s();
    if (!circuit_porep(&c, 27 - lg, 3, true)) {
        circuit_free(&c);
        return test_finish("test_gpu_prove bench-porep forms");
    }
    printf("porep-shaped 2^%d scale: circuit + witness + GPU setup + upload %.1f s\n", (int)lg - 27,
           now_s() - t0);
    bench_put_z(c);
    bench_header();
    for (int f = 0; f < 2; f++) {
        char label[64];
        snprintf(label, sizeof label, "porep 2^%d, %s form", (int)lg - 27, f ? "coset" : "bellperson");
        if (f) {
            cuzk_gpu_prover_free(c.pr);
            cuzk_gpu_pk_free(c.gpk);
            cuzk_groth16_params_free(&c.pk);
            cuzk_gpu_cs_free(c.gcs);
            c.pr = NULL, c.gpk = NULL, c.gcs = NULL;
            g_h_coset = true;
            double t1 = now_s();
            bool ok = circuit_load(&c, true);
            g_h_coset = false;
            if (!ok)
                break;
            printf("coset-form key made and loaded in %.1f s\n", now_s() - t1);
            bench_put_z(c);
        }
        if (bench_rows(c, c.gcs, 5, label) != CUZK_OK)
            break;
    }
    circuit_free(&c);
    return test_finish("test_gpu_prove bench-porep forms");
}

/* The coset-form key as it is, then with its witness vectors as group tables of k = 2 and 3
 * (cuzk_gpu_pk_load_tables; docs/design/020, thirty-seventh session): median of 5 each, and each table's
 * build and upload time. */
static int cmd_bench_porep_tables(unsigned lg)
{
    circuit c;
    double t0 = now_s();
    g_h_coset = true;
    bool ok = circuit_porep(&c, 27 - lg, 3, true);
    g_h_coset = false;
    if (!ok) {
        circuit_free(&c);
        return test_finish("test_gpu_prove bench-porep tables");
    }
    printf("porep-shaped 2^%d scale, coset form: circuit + witness + GPU setup + upload %.1f s\n", (int)lg - 27,
           now_s() - t0);
    bench_put_z(c);
    bench_header();
    char label[64];
    snprintf(label, sizeof label, "porep 2^%d, coset form, bases", (int)lg - 27);
    int rc = bench_rows(c, c.gcs, 5, label);
    for (unsigned k = 2; k <= 3 && rc == CUZK_OK; k++) {
        char err[256] = "";
        cuzk_gpu_prover_free(c.pr);
        cuzk_gpu_pk_free(c.gpk);
        c.pr = NULL, c.gpk = NULL;
        double t1 = now_s();
        rc = cuzk_gpu_pk_load_tables(&c.gpk, &c.pk, k, g_pool, err, sizeof err);
        double t2 = now_s();
        if (rc == CUZK_OK)
            rc = cuzk_gpu_prover_new(&c.pr, c.gpk, err, sizeof err);
        CHECK(rc == CUZK_OK, "tables of k = %u: %s", k, err);
        if (rc)
            break;
        size_t b[5], sum = 0;
        cuzk_gpu_pk_table_bytes(&c.pk, k, b);
        for (int i = 0; i < 5; i++)
            sum += b[i];
        printf("tables of k = %u: made and uploaded in %.1f s (%d threads); key on device %.2f GiB\n", k, t2 - t1,
               cuzk_pool_size(g_pool), sum / 1073741824.0);
        snprintf(label, sizeof label, "porep 2^%d, coset form, tables k = %u", (int)lg - 27, k);
        rc = bench_rows(c, c.gcs, 5, label);
    }
    circuit_free(&c);
    return test_finish("test_gpu_prove bench-porep tables");
}

static int cmd_bench_porep(unsigned lg, bool quick)
{
    circuit c;
    double t0 = now_s();
    if (!circuit_porep(&c, 27 - lg, 3, true)) {
        circuit_free(&c);
        return test_finish("test_gpu_prove bench-porep");
    }
    printf(
        "porep-shaped 2^%d scale (%zu rows, %zu aux): circuit + witness + GPU setup + upload %.1f s; key on "
        "device %.2f GiB, circuit %.2f GiB, prover buffers %.2f GiB\n",
        (int)lg - 27, c.cs.n_constraints, c.cs.n_aux, now_s() - t0, cuzk_gpu_pk_bytes(&c.pk) / 1073741824.0,
        cuzk_gpu_cs_bytes(&c.cs) / 1073741824.0, cuzk_gpu_prover_bytes(&c.pk) / 1073741824.0);
    bench_put_z(c);
    char label[32];
    snprintf(label, sizeof label, "porep 2^%d", (int)lg - 27);
    bench_header();
    /* B2 after B1, after H's MSM (the default), from the evaluation on */
    static const char *const where[3] = {"B2 after B1", "B2 after H", "B2 from eval"};
    for (int o = quick ? CUZK_GPU_OVERLAP_EVAL : 0; o < 3; o++) {
        char l2[64];
        snprintf(l2, sizeof l2, "%s, %s", label, where[o]);
        cuzk_gpu_prover_set_overlap(c.pr, (cuzk_gpu_overlap)o);
        if (bench_rows(c, c.gcs, 3, l2) != CUZK_OK)
            break;
    }
    /* the last place with the ones' sums cut into short launches (B2's blocks leave the SMs sooner) */
    static const unsigned splits[] = {4, 8, 16, 1};
    for (size_t i = 0; i < sizeof splits / sizeof splits[0]; i++) {
        char l2[96];
        snprintf(l2, sizeof l2, "%s, %s, ones in %u launch%s", label, where[2], splits[i],
                 splits[i] > 1 ? "es" : "");
        cuzk_gpu_prover_set_ones_split(c.pr, splits[i]);
        if (bench_rows(c, c.gcs, 3, l2) != CUZK_OK)
            break;
    }
    cuzk_gpu_prover_set_ones_split(c.pr, 0);
    /* the last place again without the batch-affine tree (G1 windows by the XYZZ work items) */
    if (!quick) {
        char l2[64];
        snprintf(l2, sizeof l2, "%s, %s, no tree", label, where[2]);
        cuzk_gpu_prover_set_tree(c.pr, SIZE_MAX, 0);
        bench_rows(c, c.gcs, 3, l2);
        cuzk_gpu_prover_set_tree(c.pr, 0, 0);
    }
    /* the same partition with the key streamed from page-locked host memory (the resident key and its
     * prover freed first) */
    cuzk_gpu_prover_free(c.pr);
    cuzk_gpu_pk_free(c.gpk);
    c.pr = NULL, c.gpk = NULL;
    char err[256] = "";
    double t1 = now_s();
    int rc = cuzk_gpu_pk_load_streamed(&c.gpk, &c.pk, 0, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_gpu_prover_new(&c.pr, c.gpk, err, sizeof err);
    CHECK(rc == CUZK_OK, "streamed key: %s", err);
    if (rc == CUZK_OK) {
        printf("streamed key: page-locked and prover made in %.1f s\n", now_s() - t1);
        char l2[64];
        snprintf(l2, sizeof l2, "%s, key streamed", label);
        bench_rows(c, c.gcs, 3, l2);
    }
    /* in part, as an 80 GB card's plan has it with one worker (docs/engine.md): h, l, b_g1 resident */
    cuzk_gpu_prover_free(c.pr);
    cuzk_gpu_pk_free(c.gpk);
    c.pr = NULL, c.gpk = NULL;
    rc = cuzk_gpu_pk_load_mixed(&c.gpk, &c.pk, CUZK_GPU_PK_H | CUZK_GPU_PK_L | CUZK_GPU_PK_B1, 0, err,
                                sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_gpu_prover_new(&c.pr, c.gpk, err, sizeof err);
    CHECK(rc == CUZK_OK, "key in part: %s", err);
    if (rc == CUZK_OK) {
        char l2[96];
        snprintf(l2, sizeof l2, "%s, h l b1 resident, a b2 streamed", label);
        bench_rows(c, c.gcs, 3, l2);
    }
    circuit_free(&c);
    return test_finish("test_gpu_prove bench-porep");
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
    else if (strcmp(cmd, "bench-porep") == 0 && argc > 2 && atoi(argv[2]) >= 11 && atoi(argv[2]) <= 27 &&
             argc > 3 && strcmp(argv[3], "forms") == 0)
        rc = cmd_bench_porep_forms((unsigned)atoi(argv[2]));
    else if (strcmp(cmd, "bench-porep") == 0 && argc > 2 && atoi(argv[2]) >= 11 && atoi(argv[2]) <= 27 &&
             argc > 3 && strcmp(argv[3], "tables") == 0)
        rc = cmd_bench_porep_tables((unsigned)atoi(argv[2]));
    else if (strcmp(cmd, "bench-porep") == 0 && argc > 2 && atoi(argv[2]) >= 11 && atoi(argv[2]) <= 27 &&
             (argc < 4 || strcmp(argv[3], "quick") == 0))
        rc = cmd_bench_porep((unsigned)atoi(argv[2]), argc > 3);
    else {
        fprintf(
            stderr,
            "usage: test_gpu_prove check | bench LG (10..27) | bench-porep LG (11..27) [quick | forms | tables]\n");
        rc = 2;
    }
    cuzk_pool_free(g_pool);
    return rc;
}
