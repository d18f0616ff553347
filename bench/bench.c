/*
 * bench.c — benchmarks of the arithmetic and the CPU kernels, one named entry
 * per operation: fields (Fp, Fr, Fp2), curve operations (G1, G2), the
 * pairing, G1 MSM at 2^16 and 2^20 points (the planner's choice, and the
 * XYZZ bucket method forced as the baseline of the affine one) and the Fr NTT
 * at 2^20, the last two on one thread and on all threads.
 *
 * Usage: bench [--list] [--reps N] [--ms T] [--cpu C] [NAME_OR_PREFIX ...]
 * With no names every entry runs. A name selects the entry of that name or,
 * when no entry has that name, every entry it begins: "fp" runs every Fp
 * entry, "fp_mul" only the Fp multiplication. --cpu pins to CPU C (default:
 * the last allowed CPU); the "all threads" entries run unpinned.
 *
 * Method: each entry is a dependent chain (the result of one operation is an
 * input of the next), so the figure is a latency, the cost a caller sees when
 * it waits for the result. An entry's run(n) performs n operations; the
 * harness grows n until one repetition takes about --ms milliseconds (200 by
 * default), runs one untimed warm-up repetition and --reps timed ones (7 by
 * default) on CLOCK_MONOTONIC, and prints the best and the median time per
 * operation. An operation slower than the target runs once per repetition,
 * without a separate warm-up, and the slowest entries cap their repetitions.
 * The machine this was written on is a shared virtual machine whose speed
 * drifts by ±30%: compare figures taken in the same run, or alternate the
 * variants (CUZK_NO_ASM=1 selects the portable field code).
 *
 * Adding an entry: write setup/run/teardown functions (setup and teardown are
 * optional; state lives in statics, and release_all() frees what setups
 * allocated) and add a line to the table.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/pairing.h"
#include "cuzk/pool.h"
#include "arith/fp_asm.h"

typedef struct {
    const char *name;
    const char *what;
    int (*setup)(void); /* returns 0 when the entry can run */
    void (*run)(uint64_t n);
    void (*teardown)(void);
    int all_threads; /* run unpinned */
    int max_reps;    /* cap on timed repetitions for slow entries (0: no cap) */
} bench_entry;

/* Results are stored here so that no chain can be optimized away. */
static volatile uint64_t bench_sink;

/* ---- inputs ---------------------------------------------------------------- */

static uint64_t rng_state = 0x243f6a8885a308d3; /* fixed seed: every run sees the same inputs */

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9;
    z = (z ^ (z >> 27)) * 0x94d049bb133111eb;
    return z ^ (z >> 31);
}

static void rand_fp(cuzk_fp *r)
{
    uint64_t x[6];
    do {
        for (int i = 0; i < 6; i++)
            x[i] = rng_next();
        x[5] &= 0x1fffffffffffffff;
    } while (!cuzk_fp_from_canonical(r, x));
}

static void rand_fr(cuzk_fr *r)
{
    uint64_t x[4];
    do {
        for (int i = 0; i < 4; i++)
            x[i] = rng_next();
        x[3] &= 0x7fffffffffffffff;
    } while (!cuzk_fr_from_canonical(r, x));
}

/* ---- field entries ------------------------------------------------------------ */

static cuzk_fp fa, fb;
static cuzk_fr ra, rb;
static cuzk_fp2 f2a, f2b;

static int setup_field(void)
{
    rand_fp(&fa);
    rand_fp(&fb);
    rand_fr(&ra);
    rand_fr(&rb);
    rand_fp(&f2a.c0);
    rand_fp(&f2a.c1);
    rand_fp(&f2b.c0);
    rand_fp(&f2b.c1);
    return 0;
}

static void run_fp_mul(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_mul(&a, &a, &fb);
    bench_sink = a.l[0];
}

static void run_fp_sqr(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_sqr(&a, &a);
    bench_sink = a.l[0];
}

static void run_fp_add(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_add(&a, &a, &fb);
    bench_sink = a.l[0];
}

static void run_fp_inv(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_inv(&a, &a);
    bench_sink = a.l[0];
}

static void run_fp_inv_fermat(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_inv_fermat(&a, &a);
    bench_sink = a.l[0];
}

static void run_fp_mul_portable(uint64_t n)
{
    cuzk_fp a = fa;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp_mul_portable(a.l, a.l, fb.l);
    bench_sink = a.l[0];
}

static void run_fr_mul(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fr_mul(&a, &a, &rb);
    bench_sink = a.l[0];
}

static void run_fr_sqr(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fr_sqr(&a, &a);
    bench_sink = a.l[0];
}

static void run_fr_inv(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fr_inv(&a, &a);
    bench_sink = a.l[0];
}

static void run_fr_inv_fermat(uint64_t n)
{
    cuzk_fr a = ra;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fr_inv_fermat(&a, &a);
    bench_sink = a.l[0];
}

static void run_fp2_mul(uint64_t n)
{
    cuzk_fp2 a = f2a;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp2_mul(&a, &a, &f2b);
    bench_sink = a.c0.l[0];
}

static void run_fp2_sqr(uint64_t n)
{
    cuzk_fp2 a = f2a;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp2_sqr(&a, &a);
    bench_sink = a.c0.l[0];
}

static void run_fp2_inv(uint64_t n)
{
    cuzk_fp2 a = f2a;
    for (uint64_t i = 0; i < n; i++)
        cuzk_fp2_inv(&a, &a);
    bench_sink = a.c0.l[0];
}

/* ---- curve entries ------------------------------------------------------------ */

static cuzk_g1 g1p;
static cuzk_g1_affine g1q[8];
static cuzk_g2 g2p;
static cuzk_g2_affine g2q[8];

static void rand_scalar(uint64_t k[4])
{
    for (int i = 0; i < 4; i++)
        k[i] = rng_next();
    k[3] &= 0x7fffffffffffffff;
}

static int setup_curve(void)
{
    cuzk_g1 t1;
    cuzk_g2 t2, g2;
    cuzk_g1 g1;
    cuzk_g1_from_affine(&g1, &CUZK_G1_GENERATOR);
    cuzk_g2_from_affine(&g2, &CUZK_G2_GENERATOR);
    for (int i = 0; i < 8; i++) {
        uint64_t k[4];
        rand_scalar(k);
        cuzk_g1_mul(&t1, &g1, k, 4);
        cuzk_g1_to_affine(&g1q[i], &t1);
        rand_scalar(k);
        cuzk_g2_mul(&t2, &g2, k, 4);
        cuzk_g2_to_affine(&g2q[i], &t2);
    }
    uint64_t k[4];
    rand_scalar(k);
    cuzk_g1_mul(&g1p, &g1, k, 4); /* Jacobian, Z != 1 */
    rand_scalar(k);
    cuzk_g2_mul(&g2p, &g2, k, 4);
    return 0;
}

static void run_g1_add_affine(uint64_t n)
{
    cuzk_g1 p = g1p;
    for (uint64_t i = 0; i < n; i++)
        cuzk_g1_add_affine(&p, &p, &g1q[i & 7]);
    bench_sink = p.X.l[0];
}

static void run_g1_add(uint64_t n)
{
    cuzk_g1 p = g1p, q;
    cuzk_g1_from_affine(&q, &g1q[0]);
    cuzk_g1_dbl(&q, &q); /* Z != 1 */
    for (uint64_t i = 0; i < n; i++)
        cuzk_g1_add(&p, &p, &q);
    bench_sink = p.X.l[0];
}

static void run_g1_dbl(uint64_t n)
{
    cuzk_g1 p = g1p;
    for (uint64_t i = 0; i < n; i++)
        cuzk_g1_dbl(&p, &p);
    bench_sink = p.X.l[0];
}

static void run_g2_add_affine(uint64_t n)
{
    cuzk_g2 p = g2p;
    for (uint64_t i = 0; i < n; i++)
        cuzk_g2_add_affine(&p, &p, &g2q[i & 7]);
    bench_sink = p.X.c0.l[0];
}

static void run_g2_add(uint64_t n)
{
    cuzk_g2 p = g2p, q;
    cuzk_g2_from_affine(&q, &g2q[0]);
    cuzk_g2_dbl(&q, &q);
    for (uint64_t i = 0; i < n; i++)
        cuzk_g2_add(&p, &p, &q);
    bench_sink = p.X.c0.l[0];
}

static void run_g2_dbl(uint64_t n)
{
    cuzk_g2 p = g2p;
    for (uint64_t i = 0; i < n; i++)
        cuzk_g2_dbl(&p, &p);
    bench_sink = p.X.c0.l[0];
}

static void run_g1_mul(uint64_t n)
{
    cuzk_g1 p = g1p;
    uint64_t k[4];
    rand_scalar(k);
    for (uint64_t i = 0; i < n; i++) {
        k[0] ^= p.X.l[0];
        cuzk_g1_mul(&p, &p, k, 4);
    }
    bench_sink = p.X.l[0];
}

/* ---- pairing ---------------------------------------------------------------------- */

static void run_pairing(uint64_t n)
{
    cuzk_fp12 f;
    unsigned pick = 0;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_pairing(&f, &g1q[pick & 7], &g2q[(pick >> 3) & 7]);
        pick = (unsigned)f.c0.c0.c0.l[0];
    }
    bench_sink = pick;
}

static void run_miller_loop(uint64_t n)
{
    cuzk_fp12 f;
    unsigned pick = 0;
    for (uint64_t i = 0; i < n; i++) {
        cuzk_miller_loop(&f, &g1q[pick & 7], &g2q[(pick >> 3) & 7]);
        pick = (unsigned)f.c0.c0.c0.l[0];
    }
    bench_sink = pick;
}

static void run_final_exp(uint64_t n)
{
    cuzk_fp12 f;
    cuzk_miller_loop(&f, &g1q[0], &g2q[0]);
    for (uint64_t i = 0; i < n; i++)
        cuzk_final_exp(&f, &f);
    bench_sink = f.c0.c0.c0.l[0];
}

/* ---- MSM and NTT ------------------------------------------------------------------ */

/* Points P_i = P_{i-1} + Q_(i mod 8) (random Q), scalars uniform below r. */
static cuzk_g1_affine *msm_bases;
static cuzk_fr *msm_scalars;
static uint64_t (*msm_canon)[4]; /* the same scalars as canonical limbs */
static size_t msm_n;
static cuzk_pool *pool_all;

static void free_msm(void)
{
    free(msm_bases);
    free(msm_scalars);
    free(msm_canon);
    msm_bases = NULL;
    msm_scalars = NULL;
    msm_canon = NULL;
    msm_n = 0;
}

static int setup_msm(size_t n)
{
    if (msm_n == n)
        return 0;
    free_msm();
    setup_curve();
    cuzk_g1 *jac = malloc(n * sizeof *jac);
    cuzk_fp *scratch = malloc(n * sizeof *scratch);
    msm_bases = malloc(n * sizeof *msm_bases);
    msm_scalars = malloc(n * sizeof *msm_scalars);
    msm_canon = malloc(n * sizeof *msm_canon);
    if (!jac || !scratch || !msm_bases || !msm_scalars || !msm_canon) {
        free(jac);
        free(scratch);
        free_msm();
        return -1;
    }
    cuzk_g1_from_affine(&jac[0], &g1q[0]);
    for (size_t i = 1; i < n; i++)
        cuzk_g1_add_affine(&jac[i], &jac[i - 1], &g1q[i & 7]);
    cuzk_g1_batch_to_affine(msm_bases, jac, n, scratch);
    for (size_t i = 0; i < n; i++) {
        rand_fr(&msm_scalars[i]);
        cuzk_fr_to_canonical(msm_canon[i], &msm_scalars[i]);
    }
    free(jac);
    free(scratch);
    msm_n = n;
    return 0;
}

static int setup_msm16(void)
{
    return setup_msm((size_t)1 << 16);
}
static int setup_msm20(void)
{
    return setup_msm((size_t)1 << 20);
}

static int setup_pool(void)
{
    if (!pool_all)
        pool_all = cuzk_pool_new(0);
    return pool_all ? 0 : -1;
}

static int setup_msm16_all(void)
{
    return setup_pool() || setup_msm16();
}
static int setup_msm20_all(void)
{
    return setup_pool() || setup_msm20();
}

static void run_msm(uint64_t n, cuzk_pool *pool)
{
    cuzk_g1 out;
    cuzk_g1_set_identity(&out);
    for (uint64_t i = 0; i < n; i++) {
        if (cuzk_g1_msm(&out, msm_bases, msm_scalars, msm_n, pool) != CUZK_OK) {
            fprintf(stderr, "bench: cuzk_g1_msm failed\n");
            exit(1);
        }
        msm_scalars[0].l[0] ^= out.X.l[0] & 0xff; /* chain: the next input depends on this result */
    }
    bench_sink = out.X.l[0];
}

static void run_msm_1(uint64_t n)
{
    run_msm(n, NULL);
}
static void run_msm_all(uint64_t n)
{
    run_msm(n, pool_all);
}

/* The XYZZ bucket method forced, with its own planned window (canonical scalars). */
static void run_msm_xyzz(uint64_t n, cuzk_pool *pool)
{
    cuzk_g1 out;
    cuzk_g1_set_identity(&out);
    for (uint64_t i = 0; i < n; i++) {
        if (cuzk_g1_msm_tuned_buckets(&out, msm_bases, (const uint64_t(*)[4])msm_canon, msm_n, 0, 0,
                                      CUZK_MSM_BUCKETS_XYZZ, pool) != CUZK_OK) {
            fprintf(stderr, "bench: cuzk_g1_msm_tuned_buckets failed\n");
            exit(1);
        }
        msm_canon[0][0] ^= out.X.l[0] & 0xff;
    }
    bench_sink = out.X.l[0];
}

/* Group tables (cuzk_g1_group_table) of the 2^16 MSM bases, one thread: a key's load-time cost. */
static cuzk_g1_affine *gt_out;

static int setup_gt(void)
{
    if (setup_msm16())
        return -1;
    free(gt_out);
    gt_out = malloc(cuzk_group_table_len(msm_n, CUZK_GROUP_TABLE_MAX_K) * sizeof *gt_out);
    return gt_out ? 0 : -1;
}

static void run_gt(uint64_t n, unsigned k)
{
    for (uint64_t i = 0; i < n; i++) {
        if (cuzk_g1_group_table(gt_out, msm_bases, msm_n, k, NULL) != CUZK_OK) {
            fprintf(stderr, "bench: cuzk_g1_group_table failed\n");
            exit(1);
        }
        bench_sink ^= gt_out[i % msm_n].x.l[0];
    }
}

static void run_gt2(uint64_t n)
{
    run_gt(n, 2);
}
static void run_gt3(uint64_t n)
{
    run_gt(n, 3);
}
static void run_gt4(uint64_t n)
{
    run_gt(n, 4);
}

static void run_msm_xyzz_1(uint64_t n)
{
    run_msm_xyzz(n, NULL);
}
static void run_msm_xyzz_all(uint64_t n)
{
    run_msm_xyzz(n, pool_all);
}

static cuzk_ntt_domain ntt_dom;
static cuzk_fr *ntt_data;

static int setup_ntt20(void)
{
    if (ntt_data)
        return 0;
    char err[256];
    if (cuzk_ntt_domain_init(&ntt_dom, 20, CUZK_NTT_BELLPERSON, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "bench: %s\n", err);
        return -1;
    }
    ntt_data = malloc(((size_t)1 << 20) * sizeof *ntt_data);
    if (!ntt_data)
        return -1;
    for (size_t i = 0; i < ((size_t)1 << 20); i++)
        rand_fr(&ntt_data[i]);
    return 0;
}

static int setup_ntt20_all(void)
{
    return setup_pool() || setup_ntt20();
}

static void run_ntt(uint64_t n, cuzk_pool *pool)
{
    char err[256];
    for (uint64_t i = 0; i < n; i++)
        if (cuzk_ntt(&ntt_dom, ntt_data, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, pool, err, sizeof err) !=
            CUZK_OK) {
            fprintf(stderr, "bench: %s\n", err);
            exit(1);
        }
    bench_sink = ntt_data[0].l[0];
}

static void run_ntt_1(uint64_t n)
{
    run_ntt(n, NULL);
}
static void run_ntt_all(uint64_t n)
{
    run_ntt(n, pool_all);
}

static void release_all(void)
{
    free_msm();
    free(gt_out);
    gt_out = NULL;
    free(ntt_data);
    ntt_data = NULL;
    cuzk_ntt_domain_release(&ntt_dom);
    cuzk_pool_free(pool_all);
    pool_all = NULL;
}

/* ---- the table ------------------------------------------------------------------ */

static const bench_entry entries[] = {
    {"fp_mul", "Fp Montgomery multiplication", setup_field, run_fp_mul, NULL, 0, 0},
    {"fp_sqr", "Fp squaring", setup_field, run_fp_sqr, NULL, 0, 0},
    {"fp_add", "Fp addition", setup_field, run_fp_add, NULL, 0, 0},
    {"fp_inv", "Fp inversion (divstep GCD)", setup_field, run_fp_inv, NULL, 0, 0},
    {"fp_inv_fermat", "Fp inversion a^(p-2) (reference)", setup_field, run_fp_inv_fermat, NULL, 0, 0},
    {"fp_mul_portable", "Fp multiplication, portable C forced", setup_field, run_fp_mul_portable, NULL, 0, 0},
    {"fr_mul", "Fr Montgomery multiplication", setup_field, run_fr_mul, NULL, 0, 0},
    {"fr_sqr", "Fr squaring", setup_field, run_fr_sqr, NULL, 0, 0},
    {"fr_inv", "Fr inversion (divstep GCD)", setup_field, run_fr_inv, NULL, 0, 0},
    {"fr_inv_fermat", "Fr inversion a^(r-2) (reference)", setup_field, run_fr_inv_fermat, NULL, 0, 0},
    {"fp2_mul", "Fp2 multiplication (Karatsuba)", setup_field, run_fp2_mul, NULL, 0, 0},
    {"fp2_sqr", "Fp2 squaring", setup_field, run_fp2_sqr, NULL, 0, 0},
    {"fp2_inv", "Fp2 inversion", setup_field, run_fp2_inv, NULL, 0, 0},
    {"g1_add_affine", "G1 mixed addition, Jacobian + affine", setup_curve, run_g1_add_affine, NULL, 0, 0},
    {"g1_add", "G1 addition, Jacobian + Jacobian", setup_curve, run_g1_add, NULL, 0, 0},
    {"g1_dbl", "G1 doubling", setup_curve, run_g1_dbl, NULL, 0, 0},
    {"g1_mul", "G1 scalar multiplication, 255-bit scalar", setup_curve, run_g1_mul, NULL, 0, 0},
    {"g2_add_affine", "G2 mixed addition, Jacobian + affine", setup_curve, run_g2_add_affine, NULL, 0, 0},
    {"g2_add", "G2 addition, Jacobian + Jacobian", setup_curve, run_g2_add, NULL, 0, 0},
    {"g2_dbl", "G2 doubling", setup_curve, run_g2_dbl, NULL, 0, 0},
    {"pairing", "pairing: Miller loop + final exponentiation", setup_curve, run_pairing, NULL, 0, 0},
    {"pairing_miller", "Miller loop alone", setup_curve, run_miller_loop, NULL, 0, 0},
    {"pairing_final_exp", "final exponentiation alone", setup_curve, run_final_exp, NULL, 0, 0},
    {"msm_g1_2^16_1t", "G1 MSM 2^16 points, 1 thread", setup_msm16, run_msm_1, NULL, 0, 5},
    {"msm_g1_2^16_all", "G1 MSM 2^16 points, all threads", setup_msm16_all, run_msm_all, NULL, 1, 5},
    {"msm_g1_2^20_1t", "G1 MSM 2^20 points, 1 thread", setup_msm20, run_msm_1, NULL, 0, 3},
    {"msm_g1_2^20_all", "G1 MSM 2^20 points, all threads", setup_msm20_all, run_msm_all, NULL, 1, 3},
    {"msm_g1_xyzz_2^16_1t", "G1 MSM 2^16, XYZZ buckets forced, 1 thread", setup_msm16, run_msm_xyzz_1, NULL,
     0, 5},
    {"msm_g1_xyzz_2^16_all", "G1 MSM 2^16, XYZZ buckets forced, all threads", setup_msm16_all,
     run_msm_xyzz_all, NULL, 1, 5},
    {"msm_g1_xyzz_2^20_1t", "G1 MSM 2^20, XYZZ buckets forced, 1 thread", setup_msm20, run_msm_xyzz_1, NULL,
     0, 3},
    {"msm_g1_xyzz_2^20_all", "G1 MSM 2^20, XYZZ buckets forced, all threads", setup_msm20_all,
     run_msm_xyzz_all, free_msm, 1, 3},
    {"group_table_g1_k2_2^16_1t", "G1 group table of 2^16 bases, k = 2, 1 thread", setup_gt, run_gt2, NULL, 0,
     5},
    {"group_table_g1_k3_2^16_1t", "G1 group table of 2^16 bases, k = 3, 1 thread", setup_gt, run_gt3, NULL, 0,
     5},
    {"group_table_g1_k4_2^16_1t", "G1 group table of 2^16 bases, k = 4, 1 thread", setup_gt, run_gt4, NULL, 0,
     5},
    {"ntt_2^20_1t", "Fr NTT 2^20, forward, 1 thread", setup_ntt20, run_ntt_1, NULL, 0, 5},
    {"ntt_2^20_all", "Fr NTT 2^20, forward, all threads", setup_ntt20_all, run_ntt_all, NULL, 1, 5},
};
#define NENTRIES (sizeof entries / sizeof entries[0])

/* ---- harness -------------------------------------------------------------------- */

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double time_run(const bench_entry *e, uint64_t n)
{
    double t0 = now_ns();
    e->run(n);
    return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void print_time(double ns)
{
    if (ns < 1e4)
        printf(" %10.2f ns", ns);
    else if (ns < 1e7)
        printf(" %10.2f us", ns / 1e3);
    else
        printf(" %10.2f ms", ns / 1e6);
}

static void run_entry(const bench_entry *e, int reps, double target_ns)
{
    if (e->setup && e->setup() != 0) {
        printf("%-21s skipped (setup failed)\n", e->name);
        return;
    }
    uint64_t n = 1;
    double t = time_run(e, n);
    while (t < target_ns / 2 && n < ((uint64_t)1 << 40)) {
        n *= t > 0 ? (t * 4 < target_ns ? 4 : 2) : 2;
        t = time_run(e, n);
    }
    double per[64];
    if (reps > 64)
        reps = 64;
    if (e->max_reps && reps > e->max_reps)
        reps = e->max_reps;
    if (t < 2 * target_ns) /* a slow entry's calibration run was its warm-up */
        time_run(e, n);
    for (int i = 0; i < reps; i++)
        per[i] = time_run(e, n) / (double)n;
    qsort(per, reps, sizeof per[0], cmp_double);
    printf("%-21s", e->name);
    print_time(per[0]);
    print_time(per[reps / 2]);
    printf("   n=%-10llu %s\n", (unsigned long long)n, e->what);
    fflush(stdout);
    if (e->teardown)
        e->teardown();
}

/* A name selects the entry it equals; a name that equals no entry selects every entry it begins. */
static int selected(const char *name, const char *const *names, int nnames)
{
    if (nnames == 0)
        return 1;
    for (int i = 0; i < nnames; i++) {
        int exact = 0;
        for (size_t k = 0; k < NENTRIES; k++)
            exact |= !strcmp(entries[k].name, names[i]);
        if (exact ? !strcmp(name, names[i]) : !strncmp(name, names[i], strlen(names[i])))
            return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int reps = 7, cpu = -1;
    double target_ms = 200;
    const char *names[64];
    int nnames = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--list")) {
            for (size_t k = 0; k < NENTRIES; k++)
                printf("%-21s %s\n", entries[k].name, entries[k].what);
            return 0;
        } else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--ms") && i + 1 < argc) {
            target_ms = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
            cpu = atoi(argv[++i]);
        } else if (argv[i][0] != '-' && nnames < 64) {
            names[nnames++] = argv[i];
        } else {
            fprintf(stderr, "usage: %s [--list] [--reps N] [--ms T] [--cpu C] [NAME_OR_PREFIX ...]\n",
                    argv[0]);
            return 2;
        }
    }
    if (reps < 1)
        reps = 1;

    cpu_set_t all, one;
    int have_mask = sched_getaffinity(0, sizeof all, &all) == 0;
    if (have_mask && cpu < 0)
        for (int c = CPU_SETSIZE - 1; c >= 0 && cpu < 0; c--)
            if (CPU_ISSET(c, &all))
                cpu = c;
    CPU_ZERO(&one);
    if (cpu >= 0)
        CPU_SET(cpu, &one);

    printf("# field code: %s (compiled in: %s, cpu adx+bmi2: %s)\n",
           cuzk_arith_asm_active() ? "x86-64 MULX/ADX" : "portable C",
           cuzk_arith_asm_compiled() ? "yes" : "no", cuzk_arith_cpu_has_adx() ? "yes" : "no");
    printf("# pinned to cpu %d; %d reps of ~%.0f ms after 1 warm-up\n", cpu, reps, target_ms);
    printf("%-21s %13s %13s\n", "# name", "best/op", "median/op");
    int ran = 0;
    for (size_t i = 0; i < NENTRIES; i++) {
        const bench_entry *e = &entries[i];
        if (!selected(e->name, names, nnames))
            continue;
        if (have_mask && cpu >= 0)
            sched_setaffinity(0, sizeof(cpu_set_t), e->all_threads ? &all : &one);
        run_entry(e, reps, target_ms * 1e6);
        ran++;
    }
    release_all();
    if (!ran) {
        fprintf(stderr, "no entry matches; try --list\n");
        return 2;
    }
    return 0;
}
