/*
 * test_msm.c — Pippenger MSM and bitmap sums (cuzk/msm.h) for G1 and G2
 * against independent oracles, on fresh random inputs every run.
 *
 * Oracles: the naive sum of [k_i]P_i built from cuzk_g*_mul and Jacobian
 * additions; for large inputs the discrete logs of the bases (P_i = [a_i]G,
 * so the MSM must equal [sum k_i a_i]G, computed in Fr); the msm lines of
 * tests/vectors/g1.txt and g2.txt (produced by another implementation);
 * Jacobian additions one by one for the bitmap sums. The digit recoding is
 * checked on its own by rebuilding every scalar from its digits.
 *
 * Both bucket methods (XYZZ, affine batches) are run on every input that
 * reaches them through the planner, and forced on purpose-built inputs that
 * drive the affine method through each of its paths: an addition, P + P and
 * P + (-P) inside a batch, a bucket already in the batch (the pending list),
 * a full pending list (the XYZZ overflow buckets), the short last batch, and
 * identity bases; those are checked against plain double-and-add
 * (T(dbl_add_msm)), and one fixed 777-point G1 input against the result of
 * @noble/curves (test_noble_case).
 *
 * The group-generic checks are written once, below the #else, and compiled
 * twice by including this file into itself with TG = g1 and TG = g2.
 *
 * CUZK_MSM_BENCH=<log2 n> turns the executable into a benchmark instead
 * (result still checked): the MSM of 2^log2n random points and scalars with
 * the automatic plan on each thread count of CUZK_MSM_BENCH_THREADS (default
 * "1,2"); on the first thread count also each bucket method forced, with the
 * planner's window for it and with the windows of CUZK_MSM_BENCH_C (e.g.
 * "12,13,14"); then the batch-affine sum against the XYZZ sum. G1 unless
 * CUZK_MSM_BENCH_GROUP=g2; CUZK_MSM_BENCH_REPS timed runs each (default 2,
 * the best is reported). CUZK_MSM_BENCH_ALT=<rounds> (at most 64) instead
 * runs the XYZZ and the affine bucket methods alternately on each thread
 * count and reports the best and median of each: the steadier comparison on
 * a shared machine.
 */
#ifndef TEST_MSM_GENERIC

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/msm.h"
#include "testutil.h"

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(x) #x
#define STR(x) STR_(x)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        abort();
    }
    return p;
}

/* ---- scalars ------------------------------------------------------------- */

enum { D_RANDOM, D_ZERO, D_ONE, D_SMALL, D_WITNESS, D_RM1, D_EDGE, D_COUNT };
static const char *dist_name[D_COUNT] = {"random", "zero", "one", "small", "witness", "r-1", "edge"};

static void fr_r_minus(cuzk_fr *r, uint64_t v)
{
    cuzk_fr t;
    cuzk_fr_from_u64(&t, v);
    cuzk_fr_neg(r, &t);
}

static void rand_scalar(cuzk_fr *k, int dist)
{
    switch (dist) {
    case D_ZERO: *k = CUZK_FR_ZERO; break;
    case D_ONE: *k = CUZK_FR_ONE; break;
    case D_SMALL: cuzk_fr_from_u64(k, test_rand64() & 0xffff); break;
    case D_RM1: fr_r_minus(k, 1); break;
    case D_WITNESS: {
        uint64_t u = test_rand64() % 20;
        if (u < 9)
            *k = CUZK_FR_ZERO;
        else if (u < 18)
            *k = CUZK_FR_ONE;
        else
            test_rand_fr(k);
        break;
    }
    case D_EDGE: {
        uint64_t u = test_rand64() % 8;
        if (u == 0)
            *k = CUZK_FR_ZERO;
        else if (u == 1)
            *k = CUZK_FR_ONE;
        else if (u == 2)
            fr_r_minus(k, 1 + (test_rand64() & 3));
        else if (u == 3) {
            /* (r - 1) / 2 and neighbours: the signed-digit carry boundary near the top */
            cuzk_fr two, half;
            cuzk_fr_from_u64(&two, 2);
            cuzk_fr_inv(&half, &two);
            fr_r_minus(k, 1);
            cuzk_fr_mul(k, k, &half);
        } else if (u == 4) {
            uint64_t x[4] = {test_rand64(), 0, 0, 0};
            cuzk_fr_from_canonical(k, x);
        } else
            test_rand_fr(k);
        break;
    }
    default: test_rand_fr(k); break;
    }
}

/* ---- digit recoding ------------------------------------------------------ */

/* Rebuilds sum d_j 2^(cj) from the top digit down in 320-bit two's complement
 * (digits may be negative, partial sums never leave (-2^300, 2^300)). */
static void rebuild(uint64_t out[5], const int32_t *d, size_t nd, unsigned c)
{
    uint64_t acc[5] = {0};
    for (size_t j = nd; j-- > 0;) {
        for (unsigned s = 0; s < c; s++) { /* acc <<= 1, one bit at a time (c <= 16) */
            for (int i = 4; i > 0; i--)
                acc[i] = (acc[i] << 1) | (acc[i - 1] >> 63);
            acc[0] <<= 1;
        }
        uint64_t add[5], fill = d[j] < 0 ? ~(uint64_t)0 : 0;
        add[0] = (uint64_t)(int64_t)d[j];
        for (int i = 1; i < 5; i++)
            add[i] = fill;
        unsigned __int128 carry = 0;
        for (int i = 0; i < 5; i++) {
            carry += (unsigned __int128)acc[i] + add[i];
            acc[i] = (uint64_t)carry;
            carry >>= 64;
        }
    }
    memcpy(out, acc, sizeof acc);
}

static void check_recode_one(const uint64_t k[4], const char *what)
{
    for (unsigned c = 1; c <= CUZK_MSM_MAX_WINDOW; c++) {
        int32_t d[256];
        size_t nd = cuzk_msm_recode(d, k, c);
        CHECK(nd == cuzk_msm_ndigits(c) && nd * c >= 256, "recode %s c=%u: %zu digits", what, c, nd);
        int32_t half = 1 << (c - 1);
        bool in_range = true;
        for (size_t j = 0; j < nd; j++)
            in_range &= d[j] >= -half && d[j] <= half;
        CHECK(in_range, "recode %s c=%u: digit out of [-2^(c-1), 2^(c-1)]", what, c);
        uint64_t back[5];
        rebuild(back, d, nd, c);
        CHECK(memcmp(back, k, 32) == 0 && back[4] == 0, "recode %s c=%u: digits do not rebuild the scalar",
              what, c);
    }
}

static void test_recode(void)
{
    uint64_t k[4];
    static const uint64_t fixed[][4] = {
        {0, 0, 0, 0},
        {1, 0, 0, 0},
        {~0ull, ~0ull, ~0ull, ~0ull >> 1}, /* 2^255 - 1 */
        {0, 0, 0, 1ull << 62},
        {0x7fff7fff7fff7fffull, 0x7fff7fff7fff7fffull, 0x7fff7fff7fff7fffull, 0x7fff7fff7fff7fffull},
        {0x5555555555555555ull, 0x5555555555555555ull, 0x5555555555555555ull, 0x5555555555555555ull},
        {0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull, 0xaaaaaaaaaaaaaaaaull, 0x2aaaaaaaaaaaaaaaull},
        {0xffffffff00000000ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull,
         0x73eda753299d7d48ull}, /* r-1 */
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_recode_one(fixed[i], "fixed");
    /* Windows of 0111..1 pass carries along: every c, every position. */
    for (unsigned c = 1; c <= CUZK_MSM_MAX_WINDOW; c++) {
        memset(k, 0, sizeof k);
        for (unsigned pos = 0; pos + c <= 255; pos += c)
            for (unsigned b = 0; b + 1 < c; b++)
                k[(pos + b) / 64] |= 1ull << ((pos + b) % 64);
        k[0] |= 1ull << (c - 1);
        k[3] &= ~0ull >> 1;
        check_recode_one(k, "carry chain");
    }
    for (int i = 0; i < 300; i++) {
        cuzk_fr f;
        test_rand_fr(&f);
        cuzk_fr_to_canonical(k, &f);
        if (i % 3 == 1) /* sparse bits: long runs of zero windows */
            for (int l = 0; l < 4; l++)
                k[l] &= test_rand64() & test_rand64() & test_rand64();
        if (i % 3 == 2) /* dense bits: long runs of all-one windows */
            for (int l = 0; l < 4; l++)
                k[l] |= test_rand64() | test_rand64() | test_rand64();
        k[3] &= ~0ull >> 1;
        check_recode_one(k, "random");
    }
    int32_t d[256];
    uint64_t big[4] = {0, 0, 0, 1ull << 63};
    CHECK(cuzk_msm_recode(d, big, 8) == 0, "recode accepted k >= 2^255");
    CHECK(cuzk_msm_recode(d, fixed[1], 0) == 0 && cuzk_msm_recode(d, fixed[1], 17) == 0,
          "recode accepted a bad window");
}

static void test_window_rule(void)
{
    unsigned prev = 0;
    for (int lg = 0; lg <= 27; lg++) {
        size_t n = (size_t)1 << lg;
        unsigned c = cuzk_g1_msm_window(n, 1);
        CHECK(c >= 1 && c <= CUZK_MSM_MAX_WINDOW, "window %u for 2^%d", c, lg);
        CHECK(lg < 4 || c >= prev, "window shrinks from %u to %u at 2^%d (1 thread)", prev, c, lg);
        prev = c;
        for (int t = 1; t <= 256; t *= 2) {
            unsigned c1 = cuzk_g1_msm_window(n, t), c2 = cuzk_g2_msm_window(n, t);
            cuzk_msm_buckets m1 = cuzk_g1_msm_buckets(n, t), m2 = cuzk_g2_msm_buckets(n, t);
            CHECK(c1 >= 1 && c1 <= CUZK_MSM_MAX_WINDOW && c2 >= 1 && c2 <= CUZK_MSM_MAX_WINDOW,
                  "window %u / %u for 2^%d, %d threads", c1, c2, lg, t);
            CHECK((m1 == CUZK_MSM_BUCKETS_XYZZ || m1 == CUZK_MSM_BUCKETS_AFFINE) &&
                      (m2 == CUZK_MSM_BUCKETS_XYZZ || m2 == CUZK_MSM_BUCKETS_AFFINE),
                  "bucket method %d / %d for 2^%d, %d threads", m1, m2, lg, t);
            /* an affine bucket also holds an XYZZ overflow bucket and a flag byte */
            size_t b1 = m1 == CUZK_MSM_BUCKETS_AFFINE ? sizeof(cuzk_g1_affine) + sizeof(cuzk_g1_xyzz) + 1
                                                      : sizeof(cuzk_g1_xyzz);
            size_t b2 = m2 == CUZK_MSM_BUCKETS_AFFINE ? sizeof(cuzk_g2_affine) + sizeof(cuzk_g2_xyzz) + 1
                                                      : sizeof(cuzk_g2_xyzz);
            CHECK((size_t)t * ((size_t)1 << (c1 - 1)) * b1 <= (size_t)512 << 20 &&
                      (size_t)t * ((size_t)1 << (c2 - 1)) * b2 <= (size_t)512 << 20,
                  "buckets over 512 MiB for 2^%d, %d threads", lg, t);
        }
    }
    CHECK(cuzk_g1_msm_window(0, 1) >= 1, "window for n = 0");
}

/* Comma-separated unsigned list from the environment (def if unset). */
static int env_list(const char *name, const char *def, unsigned *out, int max)
{
    const char *p = getenv(name);
    if (!p || !*p)
        p = def;
    int n = 0;
    while (*p && n < max) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        out[n++] = (unsigned)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

/* Best wall-clock and best process CPU time of reps runs of stmt. */
typedef struct {
    double wall, cpu;
} bench_time;

#define BENCH_TIME(bt, reps, stmt)                                                                           \
    do {                                                                                                     \
        (bt).wall = (bt).cpu = 1e30;                                                                         \
        for (int r_ = 0; r_ < (reps); r_++) {                                                                \
            double w0_ = now_s();                                                                            \
            clock_t c0_ = clock();                                                                           \
            stmt;                                                                                            \
            double w_ = now_s() - w0_, c_ = (double)(clock() - c0_) / CLOCKS_PER_SEC;                        \
            (bt).wall = w_ < (bt).wall ? w_ : (bt).wall;                                                     \
            (bt).cpu = c_ < (bt).cpu ? c_ : (bt).cpu;                                                        \
        }                                                                                                    \
    } while (0)

/* ---- the group-generic tests --------------------------------------------- */

#define TEST_MSM_GENERIC
#define TG g1
#define TF fp
#define TGEN CUZK_G1_GENERATOR
#include __FILE__
#undef TG
#undef TF
#undef TGEN
#define TG g2
#define TF fp2
#define TGEN CUZK_G2_GENERATOR
#include __FILE__
#undef TG
#undef TF
#undef TGEN

/* ---- one fixed G1 input against @noble/curves ----------------------------- */

/* splitmix64 from a fixed state: the same sequence as the generator script in
 * docs/design/017-cpu-msm-batch-affine.md. */
static uint64_t noble_state;

static uint64_t noble_next(void)
{
    uint64_t z = (noble_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Four outputs as one little-endian 256-bit integer, reduced mod r. */
static void noble_next_fr(cuzk_fr *r)
{
    uint8_t b[32];
    for (int l = 0; l < 4; l++) {
        uint64_t v = noble_next();
        for (int i = 0; i < 8; i++)
            b[8 * l + i] = (uint8_t)(v >> (8 * i));
    }
    cuzk_fr_from_le32_reduce(r, b);
}

/* sum [k_i][a_i]G over 777 points with a_i, k_i drawn alternately from the
 * sequence; then a_5 = a_3, a_6 = -a_3, k_0 = 0, k_1 = 1, k_2 = r - 1,
 * k_7 = k_8. The expected affine point is @noble/curves 2.4.0's (its
 * Point.multiply sum and its pippenger() agreed). */
static void test_noble_case(void)
{
    enum { N = 777 };
    static const char want_x[] =
        "0e252db6575a6f6362fc81902bb2b1aee2b88a0cbb4972cf5a078778b512e1a887ab1cebd4b302fd2df2f"
        "17e70ce3cba";
    static const char want_y[] =
        "15a00a2b3b76751e00c57b43ae3b39531489c40112949d1e573e374e6c45cfe5194bcc13024cc7682de03"
        "4adb309bddc";
    cuzk_fr *a = xmalloc(N * sizeof *a), *k = xmalloc(N * sizeof *k);
    cuzk_g1_affine *p = xmalloc(N * sizeof *p);
    uint64_t(*kc)[4] = xmalloc(N * sizeof *kc);
    noble_state = 0x6d736d2d6e6f626cull;
    for (int i = 0; i < N; i++) {
        noble_next_fr(&a[i]);
        noble_next_fr(&k[i]);
    }
    a[5] = a[3];
    cuzk_fr_neg(&a[6], &a[3]);
    k[0] = CUZK_FR_ZERO;
    k[1] = CUZK_FR_ONE;
    fr_r_minus(&k[2], 1);
    k[7] = k[8];
    for (int i = 0; i < N; i++) {
        cuzk_g1 t;
        cuzk_g1_from_affine(&t, &CUZK_G1_GENERATOR);
        cuzk_g1_mul_fr(&t, &t, &a[i]);
        cuzk_g1_to_affine(&p[i], &t);
        cuzk_fr_to_canonical(kc[i], &k[i]);
    }
    cuzk_g1_affine wa;
    cuzk_g1 want, got;
    CHECK(hex_fp(&wa.x, want_x) && hex_fp(&wa.y, want_y) && cuzk_g1_affine_on_curve(&wa),
          "noble point decodes");
    cuzk_g1_from_affine(&want, &wa);
    int rc = cuzk_g1_msm(&got, p, k, N, NULL);
    CHECK(rc == CUZK_OK && cuzk_g1_eq(&got, &want), "g1 msm (auto plan) differs from @noble/curves");
    cuzk_pool *pool = cuzk_pool_new(2);
    CHECK(pool != NULL, "pool of 2");
    static const unsigned cs[] = {0, 1, 4, 9, 13};
    for (int m = CUZK_MSM_BUCKETS_XYZZ; m <= CUZK_MSM_BUCKETS_AFFINE; m++)
        for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
            for (int pi = 0; pi < (m == CUZK_MSM_BUCKETS_AFFINE ? 2 : 1); pi++) {
                rc = cuzk_g1_msm_tuned_buckets(&got, p, (const uint64_t(*)[4])kc, N, cs[ci], 0,
                                               (cuzk_msm_buckets)m, pi ? pool : NULL);
                CHECK(rc == CUZK_OK && cuzk_g1_eq(&got, &want),
                      "g1 msm buckets %d c=%u pool=%d differs from @noble/curves", m, cs[ci], pi ? 2 : 1);
            }
    cuzk_pool_free(pool);
    free(a);
    free(k);
    free(p);
    free(kc);
}

int main(void)
{
    test_rng_init("test_msm");
    const char *b = getenv("CUZK_MSM_BENCH");
    if (b && *b) {
        const char *g = getenv("CUZK_MSM_BENCH_GROUP");
        if (g && strcmp(g, "g2") == 0)
            g2_bench(atoi(b));
        else
            g1_bench(atoi(b));
        return test_finish("test_msm bench");
    }
    double t0 = now_s();
    test_recode();
    test_window_rule();
    printf("  recoding: %.1f s\n", now_s() - t0);
    g1_run_all();
    g2_run_all();
    t0 = now_s();
    test_noble_case();
    printf("  g1 @noble/curves case: %.1f s\n", now_s() - t0);
    return test_finish("test_msm");
}

#else /* TEST_MSM_GENERIC: one group, TG = g1 or g2 over TF = fp or fp2 */

#define PT CAT(cuzk_, TG)
#define AFF CAT(PT, _affine)
#define FE CAT(cuzk_, TF)
#define GOP(name) CAT(CAT(PT, _), name)
#define FOP(name) CAT(CAT(FE, _), name)
#define T(name) CAT(CAT(TG, _), name)
#define IS_G2 (sizeof(FE) == sizeof(cuzk_fp2))
#define GEN TGEN

/* A random point [a]G with its discrete log a. */
static void T(rand_point)(AFF *p, cuzk_fr *a)
{
    PT j;
    test_rand_fr(a);
    GOP(from_affine)(&j, &GEN);
    GOP(mul_fr)(&j, &j, a);
    GOP(to_affine)(p, &j);
}

/* n points P_i = [a + i s]G (one addition each, one batch conversion). */
static void T(progression)(AFF *out, cuzk_fr *dl, size_t n)
{
    if (n == 0)
        return;
    AFF step;
    cuzk_fr s;
    T(rand_point)(&out[0], &dl[0]);
    T(rand_point)(&step, &s);
    PT *jac = xmalloc(n * sizeof *jac);
    FE *scratch = xmalloc(n * sizeof *scratch);
    GOP(from_affine)(&jac[0], &out[0]);
    for (size_t i = 1; i < n; i++) {
        GOP(add_affine)(&jac[i], &jac[i - 1], &step);
        cuzk_fr_add(&dl[i], &dl[i - 1], &s);
    }
    GOP(batch_to_affine)(out, jac, n, scratch);
    free(jac);
    free(scratch);
}

/* [sum k_i dl_i]G. */
static void T(dl_oracle)(PT *out, const cuzk_fr *dl, const cuzk_fr *k, size_t n)
{
    cuzk_fr acc = CUZK_FR_ZERO, t;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(&t, &dl[i], &k[i]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    GOP(from_affine)(out, &GEN);
    GOP(mul_fr)(out, out, &acc);
}

/* sum [k_i]P_i by scalar multiplications and Jacobian additions. */
static void T(naive_msm)(PT *out, const AFF *p, const cuzk_fr *k, size_t n)
{
    GOP(set_identity)(out);
    for (size_t i = 0; i < n; i++) {
        PT t;
        GOP(from_affine)(&t, &p[i]);
        GOP(mul_fr)(&t, &t, &k[i]);
        GOP(add)(out, out, &t);
    }
}

/* Independent random bases; for n >= 4 some are replaced by the identity,
 * duplicates or negations of others when `special` is set. */
static void T(rand_bases)(AFF *p, size_t n, bool special)
{
    cuzk_fr a;
    for (size_t i = 0; i < n; i++) {
        uint64_t u = special && i >= 2 ? test_rand64() % 8 : 7;
        if (u == 0)
            memset(&p[i], 0, sizeof p[i]);
        else if (u == 1)
            p[i] = p[test_rand64() % i];
        else if (u == 2)
            GOP(affine_neg)(&p[i], &p[test_rand64() % i]);
        else
            T(rand_point)(&p[i], &a);
    }
}

/* Runs the Fr and the canonical-limb entry points and compares with want. */
static void T(check_msm)(const AFF *p, const cuzk_fr *k, size_t n, cuzk_pool *pool, const PT *want,
                         const char *what)
{
    PT got;
    int rc = GOP(msm)(&got, p, k, n, pool);
    CHECK(rc == CUZK_OK && GOP(eq)(&got, want), "%s msm %s n=%zu pool=%d: rc %d, wrong sum", STR(TG), what, n,
          cuzk_pool_size(pool), rc);
    uint64_t(*kc)[4] = xmalloc((n ? n : 1) * sizeof *kc);
    for (size_t i = 0; i < n; i++)
        cuzk_fr_to_canonical(kc[i], &k[i]);
    rc = GOP(msm_u64)(&got, p, (const uint64_t(*)[4])kc, n, pool);
    CHECK(rc == CUZK_OK && GOP(eq)(&got, want), "%s msm_u64 %s n=%zu pool=%d: rc %d, wrong sum", STR(TG),
          what, n, cuzk_pool_size(pool), rc);
    free(kc);
}

/* ---- bucket methods ------------------------------------------------------- */

/* sum [k_i]P_i with plain double-and-add over the 255 bits of each canonical
 * scalar (Jacobian doubling and mixed addition): no windows, no buckets. */
static void T(dbl_add_msm)(PT *out, const AFF *p, const cuzk_fr *k, size_t n)
{
    GOP(set_identity)(out);
    for (size_t i = 0; i < n; i++) {
        uint64_t kc[4];
        cuzk_fr_to_canonical(kc, &k[i]);
        PT t;
        GOP(set_identity)(&t);
        for (int bit = 254; bit >= 0; bit--) {
            GOP(dbl)(&t, &t);
            if ((kc[bit / 64] >> (bit % 64)) & 1)
                GOP(add_affine)(&t, &t, &p[i]);
        }
        GOP(add)(out, out, &t);
    }
}

/* Forced (method, window) pairs on one input, single thread and then the
 * npools pools (the second with 3 point ranges per window); every run has
 * several tasks per worker, so per-worker state must come back clean. */
static void T(check_methods)(const AFF *p, const cuzk_fr *k, size_t n, const unsigned *cs, size_t ncs,
                             cuzk_pool *const *pools, int npools, const PT *want, const char *what)
{
    uint64_t(*kc)[4] = xmalloc((n ? n : 1) * sizeof *kc);
    for (size_t i = 0; i < n; i++)
        cuzk_fr_to_canonical(kc[i], &k[i]);
    for (int m = CUZK_MSM_BUCKETS_XYZZ; m <= CUZK_MSM_BUCKETS_AFFINE; m++)
        for (size_t ci = 0; ci < ncs; ci++)
            for (int pi = 0; pi <= npools; pi++) {
                if (pi && m == CUZK_MSM_BUCKETS_XYZZ)
                    continue; /* the XYZZ method's threading is covered by T(test_threads) */
                PT got;
                cuzk_pool *pool = pi ? pools[pi - 1] : NULL;
                int rc = GOP(msm_tuned_buckets)(&got, p, (const uint64_t(*)[4])kc, n, cs[ci], pi == 2 ? 3 : 0,
                                                (cuzk_msm_buckets)m, pool);
                CHECK(rc == CUZK_OK && GOP(eq)(&got, want),
                      "%s msm %s n=%zu %s c=%u threads=%d: rc %d, wrong sum", STR(TG), what, n,
                      m == CUZK_MSM_BUCKETS_AFFINE ? "affine" : "xyzz", cs[ci], cuzk_pool_size(pool), rc);
            }
    free(kc);
}

/* Inputs that drive the affine buckets through every path, against
 * double-and-add. Windows: 1 and 2 (one or two buckets: every base after the
 * first waits or overflows), 5 (batches of 8), 10 and 13 (batches of 256:
 * n around 256 and 512 fills the batch and the pending list exactly). */
static void T(test_buckets)(void)
{
    static const unsigned cs[] = {1, 2, 5, 10, 13};
    static const size_t sizes[] = {1, 2, 3, 17, 255, 256, 257, 511, 512, 513, 1000};
    size_t nmax = 1000, nsizes = sizeof sizes / sizeof sizes[0];
    bool g2 = IS_G2;
    cuzk_pool *pools[2] = {cuzk_pool_new(2), cuzk_pool_new(3)};
    CHECK(pools[0] && pools[1], "pools of 2 and 3");
    AFF *p = xmalloc(nmax * sizeof *p), *pick = xmalloc(4 * sizeof *pick), q;
    cuzk_fr *k = xmalloc(nmax * sizeof *k), a;
    PT want, t;
    T(rand_point)(&q, &a);
    pick[0] = q;
    GOP(affine_neg)(&pick[1], &q);
    GOP(from_affine)(&t, &q);
    GOP(dbl)(&t, &t);
    GOP(to_affine)(&pick[2], &t);
    memset(&pick[3], 0, sizeof pick[3]);

    for (size_t si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        if (g2 && n > 300 && n != 513)
            continue; /* G2 shares the code: the sizes that fill a batch and the pending list suffice */
        int shape = (int)(si % 6);
        const char *what = "";
        switch (shape) {
        case 0: /* distinct bases, random scalars: mostly plain additions */
            T(rand_bases)(p, n, false);
            for (size_t i = 0; i < n; i++)
                test_rand_fr(&k[i]);
            what = "random";
            break;
        case 1: /* one base: equal digits meet as P + P, then 2P + P, ... */
            for (size_t i = 0; i < n; i++) {
                p[i] = q;
                test_rand_fr(&k[i]);
            }
            what = "duplicate bases";
            break;
        case 2: /* one scalar for all: one bucket per window, the pending list fills and overflows */
            T(rand_bases)(p, n, true);
            test_rand_fr(&k[0]);
            for (size_t i = 1; i < n; i++)
                k[i] = k[0];
            what = "all-equal scalars";
            break;
        case 3: /* {Q, -Q, 2Q, O} with scalars from {0, 1, r-1, k}: cancellations, doublings, identities */
            test_rand_fr(&a);
            for (size_t i = 0; i < n; i++) {
                p[i] = pick[test_rand64() % 4];
                uint64_t u = test_rand64() % 4;
                if (u == 0)
                    k[i] = CUZK_FR_ZERO;
                else if (u == 1)
                    k[i] = CUZK_FR_ONE;
                else if (u == 2)
                    fr_r_minus(&k[i], 1);
                else
                    k[i] = a;
            }
            what = "{Q,-Q,2Q,O} x {0,1,r-1,k}";
            break;
        case 4: /* P, -P with equal scalars: every addition in the batch cancels, the sum is O */
            for (size_t i = 0; i + 1 < n; i += 2) {
                T(rand_point)(&p[i], &a);
                GOP(affine_neg)(&p[i + 1], &p[i]);
                test_rand_fr(&k[i]);
                k[i + 1] = k[i];
            }
            if (n % 2) {
                T(rand_point)(&p[n - 1], &a);
                test_rand_fr(&k[n - 1]);
            }
            what = "P, -P pairs";
            break;
        default: /* one base and its negation, one scalar: the cancelling pairs share one bucket */
            test_rand_fr(&a);
            for (size_t i = 0; i < n; i++) {
                p[i] = i % 3 == 2 ? pick[1] : q;
                k[i] = a;
            }
            what = "Q, Q, -Q, one scalar";
            break;
        }
        T(dbl_add_msm)(&want, p, k, n);
        /* c = 1 and 2 (a batch of one: an inversion per addition) only up to 257 points, c = 13 only
         * where n fills its batches: below that its 4096-bucket reduction is all the time */
        unsigned use[5];
        size_t nuse = 0;
        for (size_t ci = 0; ci < sizeof cs / sizeof cs[0]; ci++)
            if ((cs[ci] > 2 || n <= 257) && (cs[ci] < 13 || (n >= 255 && (!g2 || n == 513))))
                use[nuse++] = cs[ci];
        T(check_methods)(p, k, n, use, nuse, pools, 2, &want, what);
    }

    /* The two pair cases as the only input of a window's bucket. */
    cuzk_fr two[2];
    AFF pp[2] = {q, q};
    test_rand_fr(&two[0]);
    two[1] = two[0];
    T(dbl_add_msm)(&want, pp, two, 2);
    T(check_methods)(pp, two, 2, cs, 4, pools, 2, &want, "[P, P]");
    pp[1] = pick[1];
    GOP(set_identity)(&want);
    T(check_methods)(pp, two, 2, cs, 4, pools, 2, &want, "[P, -P]");
    free(p);
    free(pick);
    free(k);
    cuzk_pool_free(pools[0]);
    cuzk_pool_free(pools[1]);
}

/* Sizes 0..nmax, then a few random larger sizes, scalars of every shape. */
static void T(test_sizes)(size_t nmax, size_t nrand, size_t randmax)
{
    size_t cap = nmax > randmax ? nmax : randmax;
    AFF *p = xmalloc(cap * sizeof *p);
    cuzk_fr *k = xmalloc(cap * sizeof *k);
    PT want;
    for (size_t n = 0; n <= nmax + nrand; n++) {
        size_t m = n <= nmax ? n : nmax + 1 + (size_t)(test_rand64() % (randmax - nmax));
        int dist = (int)(n % D_COUNT);
        T(rand_bases)(p, m, n % 3 == 0);
        for (size_t i = 0; i < m; i++)
            rand_scalar(&k[i], dist);
        T(naive_msm)(&want, p, k, m);
        T(check_msm)(p, k, m, NULL, &want, dist_name[dist]);
    }
    free(p);
    free(k);
}

/* All-equal bases, identity bases, P and -P with equal and unequal scalars. */
static void T(test_special)(void)
{
    enum { N = 40 };
    AFF p[N], q;
    cuzk_fr k[N], a;
    PT want, got;
    T(rand_point)(&q, &a);
    for (int i = 0; i < N; i++) {
        p[i] = q;
        rand_scalar(&k[i], D_EDGE);
    }
    T(naive_msm)(&want, p, k, N);
    T(check_msm)(p, k, N, NULL, &want, "duplicates");

    memset(p, 0, sizeof p);
    for (int i = 0; i < N; i++)
        test_rand_fr(&k[i]);
    GOP(set_identity)(&want);
    T(check_msm)(p, k, N, NULL, &want, "identity bases");

    for (int i = 0; i < N; i += 2) {
        T(rand_point)(&p[i], &a);
        GOP(affine_neg)(&p[i + 1], &p[i]);
        test_rand_fr(&k[i]);
        k[i + 1] = k[i];
    }
    T(check_msm)(p, k, N, NULL, &want, "P and -P cancel");
    for (int i = 1; i < N; i += 4)
        test_rand_fr(&k[i]);
    T(naive_msm)(&want, p, k, N);
    T(check_msm)(p, k, N, NULL, &want, "P and -P");

    for (int i = 0; i < N; i++)
        fr_r_minus(&k[i], 1);
    T(naive_msm)(&want, p, k, N);
    T(check_msm)(p, k, N, NULL, &want, "all r-1");

    /* Canonical scalars of any 256-bit value, reduced mod r by the entry point. */
    uint64_t kc[N][4];
    for (int i = 0; i < N; i++) {
        for (int l = 0; l < 4; l++)
            kc[i][l] = test_rand64();
        if (i % 4 == 0)
            kc[i][3] |= 1ull << 63;
        if (i % 4 == 1)
            kc[i][0] = kc[i][1] = kc[i][2] = kc[i][3] = ~0ull;
    }
    T(rand_bases)(p, N, true);
    GOP(set_identity)(&want);
    for (int i = 0; i < N; i++) {
        PT t;
        GOP(from_affine)(&t, &p[i]);
        GOP(mul)(&t, &t, kc[i], 4);
        GOP(add)(&want, &want, &t);
    }
    int rc = GOP(msm_u64)(&got, p, (const uint64_t(*)[4])kc, N, NULL);
    CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "%s msm_u64 with 256-bit scalars", STR(TG));

    CHECK(GOP(msm)(NULL, p, k, N, NULL) == CUZK_EINVAL, "%s msm NULL out", STR(TG));
    CHECK(GOP(msm)(&got, NULL, k, N, NULL) == CUZK_EINVAL, "%s msm NULL bases", STR(TG));
    CHECK(GOP(msm_tuned)(&got, p, (const uint64_t(*)[4])kc, N, CUZK_MSM_MAX_WINDOW + 1, 0, NULL) ==
              CUZK_EINVAL,
          "%s msm window too large", STR(TG));
    CHECK(GOP(msm_tuned_buckets)(&got, p, (const uint64_t(*)[4])kc, N, 0, 0, (cuzk_msm_buckets)3, NULL) ==
                  CUZK_EINVAL &&
              GOP(msm_tuned_buckets)(&got, p, (const uint64_t(*)[4])kc, N, 0, 0, (cuzk_msm_buckets)-1,
                                     NULL) == CUZK_EINVAL,
          "%s msm unknown bucket method", STR(TG));
    CHECK(GOP(msm_tuned_buckets)(NULL, p, (const uint64_t(*)[4])kc, N, 0, 0, CUZK_MSM_BUCKETS_AFFINE, NULL) ==
                  CUZK_EINVAL &&
              GOP(msm_tuned_buckets)(&got, NULL, (const uint64_t(*)[4])kc, N, 0, 0, CUZK_MSM_BUCKETS_AFFINE,
                                     NULL) == CUZK_EINVAL,
          "%s msm affine NULL arguments", STR(TG));
    rc = GOP(msm)(&got, NULL, NULL, 0, NULL);
    CHECK(rc == CUZK_OK && GOP(is_identity)(&got), "%s msm n = 0", STR(TG));
}

/* Every window size on one input. */
static void T(test_windows)(size_t n, unsigned cstep)
{
    AFF *p = xmalloc(n * sizeof *p);
    cuzk_fr *k = xmalloc(n * sizeof *k);
    uint64_t(*kc)[4] = xmalloc(n * sizeof *kc);
    T(rand_bases)(p, n, true);
    for (size_t i = 0; i < n; i++) {
        rand_scalar(&k[i], i % 2 ? D_RANDOM : D_EDGE);
        cuzk_fr_to_canonical(kc[i], &k[i]);
    }
    PT want, got;
    T(naive_msm)(&want, p, k, n);
    for (unsigned c = 1; c <= CUZK_MSM_MAX_WINDOW; c += cstep) {
        int rc = GOP(msm_tuned)(&got, p, (const uint64_t(*)[4])kc, n, c, 0, NULL);
        CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "%s msm window c=%u n=%zu", STR(TG), c, n);
        for (int m = CUZK_MSM_BUCKETS_XYZZ; m <= CUZK_MSM_BUCKETS_AFFINE && c <= 11; m++) {
            rc =
                GOP(msm_tuned_buckets)(&got, p, (const uint64_t(*)[4])kc, n, c, 0, (cuzk_msm_buckets)m, NULL);
            CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "%s msm window c=%u n=%zu buckets %d", STR(TG), c, n,
                  m);
        }
    }
    free(p);
    free(k);
    free(kc);
}

/* Pools of 1, 2, 3 and 7 threads agree with the discrete-log oracle and with NULL. */
static void T(test_threads)(const size_t *sizes, size_t nsizes, size_t split_max)
{
    static const int nthreads[] = {1, 2, 3, 7};
    cuzk_pool *pools[4];
    for (int t = 0; t < 4; t++) {
        pools[t] = cuzk_pool_new(nthreads[t]);
        CHECK(pools[t] != NULL, "pool of %d", nthreads[t]);
    }
    for (size_t s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        AFF *p = xmalloc(n * sizeof *p);
        cuzk_fr *dl = xmalloc(n * sizeof *dl), *k = xmalloc(n * sizeof *k);
        T(progression)(p, dl, n);
        int dist = s % 2 ? D_WITNESS : D_RANDOM;
        for (size_t i = 0; i < n; i++)
            rand_scalar(&k[i], dist);
        PT want, st;
        T(dl_oracle)(&want, dl, k, n);
        T(check_msm)(p, k, n, NULL, &want, dist_name[dist]);
        int rc = GOP(msm)(&st, p, k, n, NULL);
        uint64_t(*kc)[4] = xmalloc(n * sizeof *kc);
        for (size_t i = 0; i < n; i++)
            cuzk_fr_to_canonical(kc[i], &k[i]);
        for (int t = 0; t < 4; t++) {
            if (!pools[t])
                continue;
            PT mt;
            int rct = GOP(msm)(&mt, p, k, n, pools[t]);
            CHECK(rc == CUZK_OK && rct == CUZK_OK && GOP(eq)(&mt, &st) && GOP(eq)(&mt, &want),
                  "%s msm n=%zu: %d threads differ from 1", STR(TG), n, nthreads[t]);
            /* Point ranges split across windows, as on hosts with many threads. */
            static const size_t splits[] = {2, 3, 7, 64};
            for (int sp = 0; sp < 4 && n <= split_max; sp++) {
                rct = GOP(msm_tuned)(&mt, p, (const uint64_t(*)[4])kc, n, 0, splits[sp], pools[t]);
                CHECK(rct == CUZK_OK && GOP(eq)(&mt, &want), "%s msm n=%zu, %zu ranges, %d threads", STR(TG),
                      n, splits[sp], nthreads[t]);
            }
        }
        free(kc);
        free(p);
        free(dl);
        free(k);
    }
    for (int t = 0; t < 4; t++)
        cuzk_pool_free(pools[t]);
}

static void T(test_vectors)(void)
{
    vec_file v;
    if (!vec_open(&v, IS_G2 ? "g2.txt" : "g1.txt"))
        return;
    int count = 0;
    size_t pt_bytes = IS_G2 ? 192 : 96;
    while (vec_next(&v)) {
        if (strcmp(v.tok[0], "msm") != 0)
            continue;
        size_t n = strtoul(v.tok[1], NULL, 16); /* counts are hex */
        if (v.ntok != (int)(2 * n + 3)) {
            CHECK(false, "%s:%d: msm line has %d tokens", v.path, v.lineno, v.ntok);
            continue;
        }
        AFF *p = xmalloc((n + 1) * sizeof *p);
        cuzk_fr *k = xmalloc((n ? n : 1) * sizeof *k);
        bool ok = true;
        for (size_t i = 0; i <= n && ok; i++) {
            const char *h = v.tok[i < n ? 2 + i : 2 + 2 * n];
            uint8_t b[192];
            ok = hex_decode(b, pt_bytes, h);
            if (!ok)
                break;
            if (b[0] & 0x40) { /* infinity flag: the identity */
                memset(&p[i], 0, sizeof p[i]);
                continue;
            }
            b[0] &= 0x1f;
            /* zcash order: Fp2 coordinates as c1 then c0 */
            FE *co[2] = {&p[i].x, &p[i].y};
            for (int c = 0; c < 2 && ok; c++) {
                cuzk_fp *limb = (cuzk_fp *)co[c];
                const uint8_t *src = b + (size_t)c * pt_bytes / 2;
                if (IS_G2)
                    ok = cuzk_fp_from_be48(&limb[1], src) && cuzk_fp_from_be48(&limb[0], src + 48);
                else
                    ok = cuzk_fp_from_be48(&limb[0], src);
            }
            ok = ok && GOP(affine_on_curve)(&p[i]);
        }
        for (size_t i = 0; i < n && ok; i++)
            ok = hex_fr(&k[i], v.tok[2 + n + i]);
        CHECK(ok, "%s:%d: cannot decode msm line", v.path, v.lineno);
        if (ok) {
            PT want;
            GOP(from_affine)(&want, &p[n]);
            T(check_msm)(p, k, n, NULL, &want, "vector");
            static const unsigned vcs[] = {1, 3, 9};
            T(check_methods)(p, k, n, vcs, 3, NULL, 0, &want, "vector");
            count++;
        }
        free(p);
        free(k);
    }
    vec_close(&v);
    CHECK(count > 0, "no msm lines in the %s vectors", STR(TG));
}

/* ---- bitmap sums ----------------------------------------------------------- */

static void T(naive_sum)(PT *out, const AFF *p, const uint64_t *bitmap, size_t n)
{
    GOP(set_identity)(out);
    for (size_t i = 0; i < n; i++)
        if (!bitmap || ((bitmap[i / 64] >> (i % 64)) & 1))
            GOP(add_affine)(out, out, &p[i]);
}

static void T(check_sum)(const AFF *p, const uint64_t *bitmap, size_t n, cuzk_pool *pool, const char *what)
{
    PT want, got, got2;
    T(naive_sum)(&want, p, bitmap, n);
    int rc = GOP(sum)(&got, p, bitmap, n, pool);
    int rc2 = GOP(sum_xyzz)(&got2, p, bitmap, n, pool);
    CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "%s sum %s n=%zu pool=%d: rc %d, wrong sum", STR(TG), what,
          n, cuzk_pool_size(pool), rc);
    CHECK(rc2 == CUZK_OK && GOP(eq)(&got2, &want), "%s sum_xyzz %s n=%zu pool=%d: rc %d, wrong sum", STR(TG),
          what, n, cuzk_pool_size(pool), rc2);
}

static uint64_t *T(rand_bitmap)(size_t n, unsigned density_percent)
{
    size_t words = (n + 63) / 64;
    uint64_t *bm = xmalloc((words ? words : 1) * sizeof *bm);
    for (size_t w = 0; w < words; w++) {
        bm[w] = 0;
        for (int b = 0; b < 64; b++)
            if (test_rand64() % 100 < density_percent)
                bm[w] |= 1ull << b;
    }
    return bm;
}

static void T(test_sums)(size_t nlarge)
{
    /* The three two-point cases and the empty sum. */
    AFF two[3], q, nq;
    cuzk_fr a;
    T(rand_point)(&q, &a);
    GOP(affine_neg)(&nq, &q);
    two[0] = q, two[1] = q;
    T(check_sum)(two, NULL, 2, NULL, "[P, P]");
    two[1] = nq;
    T(check_sum)(two, NULL, 2, NULL, "[P, -P]");
    memset(&two[0], 0, sizeof two[0]);
    two[1] = q;
    T(check_sum)(two, NULL, 2, NULL, "[O, P]");
    T(check_sum)(two, NULL, 0, NULL, "empty");

    /* Long lists drawn from {Q, -Q, 2Q, O}: the tree meets P + P, P + (-P) and
     * identities in every round. */
    size_t sizes[] = {1, 2, 3, 63, 64, 65, 257, 600, 2000};
    AFF pool4[4];
    pool4[0] = q, pool4[1] = nq;
    PT dq;
    GOP(from_affine)(&dq, &q);
    GOP(dbl)(&dq, &dq);
    GOP(to_affine)(&pool4[2], &dq);
    memset(&pool4[3], 0, sizeof pool4[3]);
    AFF *p = xmalloc(nlarge * sizeof *p);
    cuzk_fr *dl = xmalloc(nlarge * sizeof *dl);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        for (size_t i = 0; i < n; i++)
            p[i] = pool4[test_rand64() % 4];
        T(check_sum)(p, NULL, n, NULL, "{Q,-Q,2Q,O}");
        uint64_t *bm = T(rand_bitmap)(n, 50);
        T(check_sum)(p, bm, n, NULL, "{Q,-Q,2Q,O} bitmap");
        free(bm);
        for (size_t i = 0; i < n; i++)
            p[i] = q;
        T(check_sum)(p, NULL, n, NULL, "all equal");
        for (size_t i = 0; i < n; i++)
            p[i] = i % 2 ? nq : q;
        T(check_sum)(p, NULL, n, NULL, "alternating P, -P");
    }

    /* Distinct points, bitmaps of several densities, several pools. */
    T(progression)(p, dl, nlarge);
    for (size_t i = 0; i < nlarge; i += 97)
        memset(&p[i], 0, sizeof p[i]);
    static const int nthreads[] = {1, 2, 3, 7};
    static const unsigned density[] = {0, 3, 50, 97, 100};
    for (int t = 0; t < 4; t++) {
        cuzk_pool *pool = cuzk_pool_new(nthreads[t]);
        CHECK(pool != NULL, "pool of %d", nthreads[t]);
        for (int d = 0; d < 5; d++) {
            size_t n = d == 4 ? nlarge : 1 + (size_t)(test_rand64() % nlarge);
            uint64_t *bm = T(rand_bitmap)(n, density[d]);
            T(check_sum)(p, bm, n, pool, "distinct");
            free(bm);
        }
        T(check_sum)(p, NULL, nlarge, pool, "distinct, no bitmap");
        cuzk_pool_free(pool);
    }
    free(p);
    free(dl);
}

/* ---- group tables ------------------------------------------------------------ */

/* cuzk_*_group_table on n bases (special ones among them: identities, duplicates and negations, so that
 * groups meet P + P and P + (-P)) for every k, against sums made here: every entry against the plain
 * Jacobian sum of its bases, the singletons against the bases themselves, a sample of entries of a
 * progression against its discrete logs, and a whole 0/1 sum read from the table against GOP(sum). */
static void T(check_group_table)(size_t n, unsigned k, cuzk_pool *pool)
{
    size_t per = ((size_t)1 << k) - 1, len = cuzk_group_table_len(n, k), groups = (n + k - 1) / k;
    CHECK(len == groups * per, "%s group table len(%zu, %u) = %zu", STR(TG), n, k, len);
    AFF *p = xmalloc((n ? n : 1) * sizeof *p), *t = xmalloc((len ? len : 1) * sizeof *t);
    cuzk_fr *dl = xmalloc((n ? n : 1) * sizeof *dl);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 0)
            T(rand_bases)(p, n, true);
        else
            T(progression)(p, dl, n);
        memset(t, 0xa5, (len ? len : 1) * sizeof *t); /* poison */
        int rc = GOP(group_table)(t, p, n, k, pool);
        CHECK(rc == CUZK_OK, "%s group table n=%zu k=%u: rc %d", STR(TG), n, k, rc);
        size_t bad = 0;
        for (size_t g = 0; g < groups; g++)
            for (size_t m = 1; m <= per; m++) {
                PT want, got;
                GOP(set_identity)(&want);
                for (unsigned j = 0; j < k; j++)
                    if (m >> j & 1 && g * k + j < n)
                        GOP(add_affine)(&want, &want, &p[g * k + j]);
                GOP(from_affine)(&got, &t[g * per + m - 1]);
                bad += !GOP(eq)(&got, &want);
            }
        CHECK(bad == 0, "%s group table n=%zu k=%u pass %d: %zu entries wrong", STR(TG), n, k, pass, bad);
        for (size_t i = 0; i < n; i++)
            bad += !GOP(affine_eq)(&t[cuzk_group_table_entry(i, k)], &p[i]);
        CHECK(bad == 0, "%s group table n=%zu k=%u: %zu singletons differ from their bases", STR(TG), n, k,
              bad);
        if (pass == 1) /* entries of a progression: [sum of the logs]G */
            for (int s = 0; s < 8 && groups; s++) {
                size_t g = (size_t)(test_rand64() % groups), m = 1 + (size_t)(test_rand64() % per);
                cuzk_fr sum = CUZK_FR_ZERO;
                for (unsigned j = 0; j < k; j++)
                    if (m >> j & 1 && g * k + j < n)
                        cuzk_fr_add(&sum, &sum, &dl[g * k + j]);
                PT want, got;
                GOP(from_affine)(&want, &GEN);
                GOP(mul_fr)(&want, &want, &sum);
                GOP(from_affine)(&got, &t[g * per + m - 1]);
                CHECK(GOP(eq)(&got, &want),
                      "%s group table n=%zu k=%u: entry (%zu, %zu) is not its logs' sum", STR(TG), n, k, g,
                      m);
            }
        /* a 0/1 sum read from the table, one entry a group with a one */
        uint64_t *bm = T(rand_bitmap)(n, 50);
        PT want, got;
        GOP(set_identity)(&got);
        for (size_t g = 0; g < groups; g++) {
            size_t m = 0;
            for (unsigned j = 0; j < k && g * k + j < n; j++)
                m |= (size_t)(bm[(g * k + j) / 64] >> ((g * k + j) % 64) & 1) << j;
            if (m)
                GOP(add_affine)(&got, &got, &t[g * per + m - 1]);
        }
        rc = GOP(sum)(&want, p, bm, n, NULL);
        CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "%s group table n=%zu k=%u: a 0/1 sum differs", STR(TG),
              n, k);
        free(bm);
    }
    free(p);
    free(t);
    free(dl);
}

static void T(test_group_tables)(void)
{
    bool g2 = IS_G2;
    cuzk_pool *pool = cuzk_pool_new(3);
    CHECK(pool != NULL, "pool of 3");
    /* 4097 and 6145 points: past one task's 2048 groups at k = 2 and 3 */
    static const size_t g1_sizes[] = {1, 2, 3, 4, 5, 7, 100, 4097, 6145},
                        g2_sizes[] = {1, 2, 5, 7, 100, 4097};
    const size_t *sizes = g2 ? g2_sizes : g1_sizes;
    size_t nsizes = g2 ? sizeof g2_sizes / sizeof g2_sizes[0] : sizeof g1_sizes / sizeof g1_sizes[0];
    for (unsigned k = 2; k <= CUZK_GROUP_TABLE_MAX_K; k++)
        for (size_t s = 0; s < nsizes; s++) {
            if (sizes[s] > 1000 && k == 4)
                continue; /* the large sizes are there for the task boundary, which k = 2 and 3 cross */
            T(check_group_table)(sizes[s], k, s % 2 ? pool : NULL);
        }
    AFF p[4], t[8];
    T(rand_bases)(p, 4, false);
    CHECK(GOP(group_table)(t, p, 4, 1, NULL) == CUZK_EINVAL, "%s group table k = 1 refused", STR(TG));
    CHECK(GOP(group_table)(t, p, 4, 5, NULL) == CUZK_EINVAL, "%s group table k = 5 refused", STR(TG));
    CHECK(GOP(group_table)(NULL, p, 4, 2, NULL) == CUZK_EINVAL, "%s group table without out refused",
          STR(TG));
    CHECK(GOP(group_table)(NULL, NULL, 0, 2, NULL) == CUZK_OK, "%s group table of nothing", STR(TG));
    CHECK(cuzk_group_table_len(10, 1) == 0 && cuzk_group_table_len(10, 5) == 0 &&
              cuzk_group_table_len(0, 3) == 0 && cuzk_group_table_len(5, 2) == 9 &&
              cuzk_group_table_len(6, 3) == 14,
          "group table lengths");
    CHECK(cuzk_group_table_entry(0, 2) == 0 && cuzk_group_table_entry(1, 2) == 1 &&
              cuzk_group_table_entry(2, 2) == 3 && cuzk_group_table_entry(5, 3) == 10 &&
              cuzk_group_table_entry(7, 4) == 22,
          "group table singleton entries");
    cuzk_pool_free(pool);
}

static int T(cmp_double)(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The two bucket methods (each with the planner's window for it) run
 * alternately rounds times, so that the machine's drift hits both alike;
 * prints the best and the median wall and process CPU time of each. */
static void T(bench_alt)(const AFF *p, const uint64_t (*kc)[4], int lg, const PT *want, cuzk_pool *pool,
                         unsigned rounds)
{
    size_t n = (size_t)1 << lg;
    double wall[2][64], cpu[2][64];
    for (unsigned r = 0; r < rounds; r++)
        for (int m = 0; m < 2; m++) {
            PT got;
            double w0 = now_s();
            clock_t c0 = clock();
            int rc = GOP(msm_tuned_buckets)(&got, p, kc, n, 0, 0,
                                            m ? CUZK_MSM_BUCKETS_AFFINE : CUZK_MSM_BUCKETS_XYZZ, pool);
            cpu[m][r] = (double)(clock() - c0) / CLOCKS_PER_SEC;
            wall[m][r] = now_s() - w0;
            CHECK(rc == CUZK_OK && GOP(eq)(&got, want), "bench alternating msm result");
        }
    for (int m = 0; m < 2; m++) {
        qsort(wall[m], rounds, sizeof(double), T(cmp_double));
        qsort(cpu[m], rounds, sizeof(double), T(cmp_double));
        printf("  %s_msm  2^%d  threads %3d  %-6s  wall best %9.1f median %9.1f ms  cpu best %9.1f median "
               "%9.1f ms\n",
               STR(TG), lg, cuzk_pool_size(pool), m ? "affine" : "xyzz", wall[m][0] * 1e3,
               wall[m][rounds / 2] * 1e3, cpu[m][0] * 1e3, cpu[m][rounds / 2] * 1e3);
    }
    printf("  %s_msm  2^%d  threads %3d  xyzz / affine: wall best %.2f, cpu best %.2f, cpu median %.2f "
           "(%u alternating rounds)\n",
           STR(TG), lg, cuzk_pool_size(pool), wall[0][0] / wall[1][0], cpu[0][0] / cpu[1][0],
           cpu[0][rounds / 2] / cpu[1][rounds / 2], rounds);
}

/* Benchmark mode (see the top of the file); prints best-of-reps timings. */
static void T(bench)(int lg)
{
    size_t n = (size_t)1 << lg;
    unsigned threads[16], cs[16], reps1;
    int nt = env_list("CUZK_MSM_BENCH_THREADS", "1,2", threads, 16);
    int nc = env_list("CUZK_MSM_BENCH_C", "", cs, 16);
    int reps = env_list("CUZK_MSM_BENCH_REPS", "2", &reps1, 1) ? (int)reps1 : 2;
    AFF *p = xmalloc(n * sizeof *p);
    cuzk_fr *dl = xmalloc(n * sizeof *dl), *k = xmalloc(n * sizeof *k);
    uint64_t(*kc)[4] = xmalloc(n * sizeof *kc);
    double t0 = now_s();
    T(progression)(p, dl, n);
    for (size_t i = 0; i < n; i++) {
        test_rand_fr(&k[i]);
        cuzk_fr_to_canonical(kc[i], &k[i]);
    }
    PT want, got, s1, s2;
    T(dl_oracle)(&want, dl, k, n);
    printf("%s MSM benchmark, n = 2^%d (inputs %.1f s); best of %d, wall and process CPU time\n", STR(TG), lg,
           now_s() - t0, reps);
    unsigned alt = 0;
    env_list("CUZK_MSM_BENCH_ALT", "0", &alt, 1);
    for (int ti = 0; ti < nt && alt; ti++) {
        cuzk_pool *pool = threads[ti] > 1 ? cuzk_pool_new((int)threads[ti]) : NULL;
        T(bench_alt)(p, (const uint64_t(*)[4])kc, lg, &want, pool, alt < 64 ? alt : 64);
        cuzk_pool_free(pool);
    }
    for (int ti = 0; ti < nt && !alt; ti++) {
        cuzk_pool *pool = threads[ti] > 1 ? cuzk_pool_new((int)threads[ti]) : NULL;
        bench_time bt;
        int rc = 0;
        BENCH_TIME(bt, reps, rc |= GOP(msm)(&got, p, k, n, pool));
        CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "bench msm result");
        static const char *mname[] = {"auto", "xyzz", "affine"};
        printf("  %s_msm  2^%d  threads %3u  c %2u %-6s auto  wall %9.1f ms  cpu %9.1f ms  %6.2f us/point\n",
               STR(TG), lg, threads[ti], GOP(msm_window)(n, (int)threads[ti]),
               mname[GOP(msm_buckets)(n, (int)threads[ti])], bt.wall * 1e3, bt.cpu * 1e3,
               bt.wall * 1e6 / (double)n);
        for (int m = CUZK_MSM_BUCKETS_XYZZ; m <= CUZK_MSM_BUCKETS_AFFINE; m++)
            for (int ci = -1; ci < nc && ti == 0; ci++) {
                unsigned c = ci < 0 ? 0 : cs[ci]; /* 0: the planner's window for this method */
                BENCH_TIME(bt, reps,
                           rc |= GOP(msm_tuned_buckets)(&got, p, (const uint64_t(*)[4])kc, n, c, 0,
                                                        (cuzk_msm_buckets)m, pool));
                CHECK(rc == CUZK_OK && GOP(eq)(&got, &want), "bench msm %s c=%u result", mname[m], c);
                char cl[16] = "-";
                if (c)
                    snprintf(cl, sizeof cl, "%u", c);
                printf("  %s_msm  2^%d  threads %3u  c %2s %-6s       wall %9.1f ms  cpu %9.1f ms  %6.2f "
                       "us/point\n",
                       STR(TG), lg, threads[ti], cl, mname[m], bt.wall * 1e3, bt.cpu * 1e3,
                       bt.wall * 1e6 / (double)n);
            }
        bench_time bs, bx;
        BENCH_TIME(bs, reps, rc |= GOP(sum)(&s1, p, NULL, n, pool));
        BENCH_TIME(bx, reps, rc |= GOP(sum_xyzz)(&s2, p, NULL, n, pool));
        CHECK(rc == CUZK_OK && GOP(eq)(&s1, &s2), "bench sum results");
        printf("  %s_sum  2^%d  threads %3u  batch-affine  wall %7.1f ms  cpu %7.1f ms  %5.0f ns/point\n",
               STR(TG), lg, threads[ti], bs.wall * 1e3, bs.cpu * 1e3, bs.cpu * 1e9 / (double)n);
        printf("  %s_sum  2^%d  threads %3u  XYZZ          wall %7.1f ms  cpu %7.1f ms  %5.0f ns/point\n",
               STR(TG), lg, threads[ti], bx.wall * 1e3, bx.cpu * 1e3, bx.cpu * 1e9 / (double)n);
        cuzk_pool_free(pool);
    }
    free(p);
    free(dl);
    free(k);
    free(kc);
}

static void T(run_all)(void)
{
    double t0 = now_s();
    bool g2 = IS_G2;
    T(test_sizes)(g2 ? 24 : 70, g2 ? 2 : 4, g2 ? 300 : 2000);
    T(test_special)();
    printf("  %s sizes and special inputs: %.1f s\n", STR(TG), now_s() - t0);
    t0 = now_s();
    T(test_windows)(g2 ? 60 : 200, g2 ? 3 : 1);
    printf("  %s forced windows: %.1f s\n", STR(TG), now_s() - t0);
    t0 = now_s();
    T(test_buckets)();
    printf("  %s bucket methods: %.1f s\n", STR(TG), now_s() - t0);
    t0 = now_s();
    static const size_t g1_sizes[] = {1, 100, 3000, 20000}, g2_sizes[] = {1, 50, 1500};
    if (g2)
        T(test_threads)(g2_sizes, 3, 50);
    else
        T(test_threads)(g1_sizes, 4, 3000);
    printf("  %s threads: %.1f s\n", STR(TG), now_s() - t0);
    t0 = now_s();
    T(test_vectors)();
    T(test_sums)(g2 ? 5000 : 40000);
    printf("  %s vectors and sums: %.1f s\n", STR(TG), now_s() - t0);
    t0 = now_s();
    T(test_group_tables)();
    printf("  %s group tables: %.1f s\n", STR(TG), now_s() - t0);
}

#undef PT
#undef AFF
#undef FE
#undef GOP
#undef FOP
#undef T
#undef IS_G2
#undef GEN

#endif
