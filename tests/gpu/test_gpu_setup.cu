/*
 * test_gpu_setup.cu — the setup's fixed-base multiplications on the GPU
 * (cuzk/gpu_setup.h) against the CPU's (cuzk_g1/g2_fixed_base_mul), and a
 * whole key made with the GPU accelerator against the CPU key for the same
 * toxic waste. Needs a CUDA device; run by scripts/gpu-check.sh.
 *
 *   test_gpu_setup check         fresh random scalars (plus 0, 1, -1, 2, duplicates) at sizes around
 *                                the chunk and block boundaries: every point byte-equal to the CPU's;
 *                                outputs poisoned first. Keys of random circuits (2^8, 2^12 domains):
 *                                byte-equal, and a proof under the GPU-made key verifies.
 *                                A bellperson-form key's conversion to the coset form (docs/design/022)
 *                                with its transforms on the GPU: byte-equal to the CPU's, 2^1 .. 2^12,
 *                                endomorphism-split and plain.
 *   test_gpu_setup bench [LG]    G1 and G2 fixed-base rates, and a 2^LG key (default 20) on both.
 *   test_gpu_setup bench-coset LG...  the conversion of a 2^LG key, GPU transforms (and CPU to 2^16).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_setup.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
#include "gputest.h"

static void scalars(cuzk_fr *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&k[i]);
    /* edge values where there is room: 0, 1, -1, 2, and a repeat */
    if (n > 0)
        k[0] = CUZK_FR_ZERO;
    if (n > 1)
        k[1] = CUZK_FR_ONE;
    if (n > 2)
        cuzk_fr_neg(&k[2], &CUZK_FR_ONE);
    if (n > 3)
        cuzk_fr_from_u64(&k[3], 2);
    if (n > 5)
        k[5] = k[4];
}

template <class A>
static void compare(const char *g, size_t n, const A *gpu, const A *cpu)
{
    size_t bad = 0, first = n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&gpu[i], &cpu[i], sizeof(A)) != 0) {
            if (first == n)
                first = i;
            bad++;
        }
    CHECK(bad == 0, "%s fixed-base n=%zu: %zu points differ from the CPU's, first at %zu", g, n, bad, first);
}

/* Every size against the CPU; with small_chunks, the sizes below 2^22 in chunks of 1000 points (setup.cu's
 * two host buffers each reused many times, the last chunk short). */
static void check_fixed_base(cuzk_pool *pool, bool small_chunks)
{
    char err[256];
    const size_t g1_sizes[] = {1, 2, 7, 4095, 4097, 100003, ((size_t)1 << 22) + 5};
    if (small_chunks)
        setenv("CUZK_GPU_SETUP_CHUNK", "1000", 1);
    printf("fixed-base against the CPU, %s\n", small_chunks ? "1000-point chunks" : "default chunks");
    for (size_t s = 0; s < sizeof g1_sizes / sizeof g1_sizes[0]; s++) {
        size_t n = g1_sizes[s];
        if (small_chunks && n > 200000)
            continue;
        cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof *k);
        cuzk_g1_affine *a = (cuzk_g1_affine *)malloc(n * sizeof *a), *b = (cuzk_g1_affine *)malloc(n * sizeof *b);
        scalars(k, n);
        memset(a, 0xa5, n * sizeof *a);
        int rc = cuzk_gpu_g1_fixed_base_mul(a, k, n, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "gpu g1 fixed-base n=%zu: %s", n, err);
        CHECK(cuzk_g1_fixed_base_mul(b, k, n, 0, pool, err, sizeof err) == CUZK_OK, "cpu g1: %s", err);
        if (rc == CUZK_OK)
            compare("G1", n, a, b);
        free(k), free(a), free(b);
    }
    const size_t g2_sizes[] = {1, 3, 4097, 30001};
    for (size_t s = 0; s < sizeof g2_sizes / sizeof g2_sizes[0]; s++) {
        size_t n = g2_sizes[s];
        cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof *k);
        cuzk_g2_affine *a = (cuzk_g2_affine *)malloc(n * sizeof *a), *b = (cuzk_g2_affine *)malloc(n * sizeof *b);
        scalars(k, n);
        memset(a, 0x5a, n * sizeof *a);
        int rc = cuzk_gpu_g2_fixed_base_mul(a, k, n, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "gpu g2 fixed-base n=%zu: %s", n, err);
        CHECK(cuzk_g2_fixed_base_mul(b, k, n, 0, pool, err, sizeof err) == CUZK_OK, "cpu g2: %s", err);
        if (rc == CUZK_OK)
            compare("G2", n, a, b);
        free(k), free(a), free(b);
    }
    unsetenv("CUZK_GPU_SETUP_CHUNK");
    /* n = 0 does nothing; missing arrays are refused */
    CHECK(cuzk_gpu_g1_fixed_base_mul(NULL, NULL, 0, pool, err, sizeof err) == CUZK_OK, "n = 0");
    CHECK(cuzk_gpu_g1_fixed_base_mul(NULL, NULL, 5, pool, err, sizeof err) == CUZK_EINVAL, "NULL arrays");
}

/* The accelerator cut across devices: every device present named once, then device 0 named three times
 * (three threads, three ranges, on one card), against the CPU, sizes below and above the range count; the
 * calling thread's current device is left as it was; a device the machine lacks is refused before any
 * work, naming it. */
static void check_split(cuzk_pool *pool)
{
    char err[256];
    int have = cuzk_gpu_device_count();
    cuzk_gpu_setup_devices all, zeros = {3, {0, 0, 0}}, none = {0, {0}}, bad = {2, {0, have}};
    cuzk_gpu_setup_devices_from_mask(&all, have >= 64 ? ~0ull : (1ull << have) - 1);
    CHECK(all.n == have && all.dev[all.n - 1] == have - 1, "from_mask: %d devices of %d", all.n, have);
    const cuzk_gpu_setup_devices *lists[] = {&all, &zeros, &none};
    const char *names[] = {"every device", "device 0 three times", "the current device"};
    const size_t sizes[] = {1, 2, 3, 4, 9001, 250007};
    for (int l = 0; l < 3; l++) {
        cuzk_setup_accel acc;
        cuzk_gpu_setup_accel_on(&acc, lists[l]);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof *k);
            cuzk_g1_affine *a = (cuzk_g1_affine *)malloc(n * sizeof *a), *b = (cuzk_g1_affine *)malloc(n * sizeof *b);
            cuzk_g2_affine *a2 = (cuzk_g2_affine *)malloc(n * sizeof *a2), *b2 = (cuzk_g2_affine *)malloc(n * sizeof *b2);
            scalars(k, n);
            memset(a, 0xa5, n * sizeof *a);
            memset(a2, 0x5a, n * sizeof *a2);
            cudaSetDevice(have - 1);
            int rc = acc.g1_fixed_base(acc.ctx, a, k, n, pool, err, sizeof err);
            CHECK(rc == CUZK_OK, "split g1 on %s, n=%zu: %s", names[l], n, err);
            int cur = -1;
            cudaGetDevice(&cur);
            CHECK(cur == have - 1, "split on %s: the thread's device became %d", names[l], cur);
            CHECK(cuzk_g1_fixed_base_mul(b, k, n, 0, pool, err, sizeof err) == CUZK_OK, "cpu g1: %s", err);
            if (rc == CUZK_OK)
                compare("G1 split", n, a, b);
            if (n < 100000) {
                rc = acc.g2_fixed_base(acc.ctx, a2, k, n, pool, err, sizeof err);
                CHECK(rc == CUZK_OK, "split g2 on %s, n=%zu: %s", names[l], n, err);
                CHECK(cuzk_g2_fixed_base_mul(b2, k, n, 0, pool, err, sizeof err) == CUZK_OK, "cpu g2: %s", err);
                if (rc == CUZK_OK)
                    compare("G2 split", n, a2, b2);
            }
            free(k), free(a), free(b), free(a2), free(b2);
        }
    }
    cudaSetDevice(0);
    cuzk_setup_accel acc;
    cuzk_gpu_setup_accel_on(&acc, &bad);
    cuzk_fr k[4];
    cuzk_g1_affine out[4];
    scalars(k, 4);
    char want[64];
    snprintf(want, sizeof want, "device %d does not exist", have);
    int rc = acc.g1_fixed_base(acc.ctx, out, k, 4, pool, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, want), "a missing device: %d '%s'", rc, err);
}

static bool same_key(const cuzk_groth16_params *x, const cuzk_groth16_params *y)
{
    const cuzk_groth16_vk *a = &x->vk, *b = &y->vk;
    bool ok = x->n_h == y->n_h && x->n_l == y->n_l && x->n_a == y->n_a && x->n_b == y->n_b && a->n_ic == b->n_ic;
    ok = ok && !memcmp(&a->alpha_g1, &b->alpha_g1, sizeof a->alpha_g1) &&
         !memcmp(&a->beta_g1, &b->beta_g1, sizeof a->beta_g1) && !memcmp(&a->delta_g1, &b->delta_g1, sizeof a->delta_g1) &&
         !memcmp(&a->beta_g2, &b->beta_g2, sizeof a->beta_g2) && !memcmp(&a->gamma_g2, &b->gamma_g2, sizeof a->gamma_g2) &&
         !memcmp(&a->delta_g2, &b->delta_g2, sizeof a->delta_g2);
    ok = ok && !memcmp(a->ic, b->ic, a->n_ic * sizeof *a->ic) && !memcmp(x->h, y->h, x->n_h * sizeof *x->h) &&
         !memcmp(x->l, y->l, x->n_l * sizeof *x->l) && !memcmp(x->a, y->a, x->n_a * sizeof *x->a) &&
         !memcmp(x->b_g1, y->b_g1, x->n_b * sizeof *x->b_g1) && !memcmp(x->b_g2, y->b_g2, x->n_b * sizeof *x->b_g2);
    return ok;
}

static void check_keys(cuzk_pool *pool)
{
    char err[256];
    const unsigned lgs[] = {8, 12};
    for (size_t t = 0; t < 2; t++) {
        size_t nc = ((size_t)1 << lgs[t]) - 3, ni = 3, na = nc + 5;
        cuzk_cs cs;
        cuzk_fr *z = (cuzk_fr *)malloc((ni + na) * sizeof *z);
        CHECK(cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS) == CUZK_OK, "cs_random");
        cuzk_groth16_toxic tw;
        CHECK(cuzk_groth16_toxic_random(&tw, (size_t)1 << lgs[t], err, sizeof err) == CUZK_OK, "toxic: %s", err);
        cuzk_groth16_params cpu, gpu;
        CHECK(cuzk_groth16_setup(&cpu, &cs, &tw, pool, err, sizeof err) == CUZK_OK, "cpu setup: %s", err);
        /* the first key on the current device, the second cut in two ranges on device 0 */
        cuzk_gpu_setup_devices two = {2, {0, 0}};
        cuzk_setup_accel on;
        cuzk_gpu_setup_accel_on(&on, &two);
        int rc = cuzk_groth16_setup_accel(&gpu, &cs, &tw, t == 0 ? cuzk_gpu_setup_accel() : &on, pool, err,
                                          sizeof err);
        CHECK(rc == CUZK_OK, "gpu setup 2^%u: %s", lgs[t], err);
        if (rc == CUZK_OK) {
            CHECK(same_key(&cpu, &gpu), "2^%u: the GPU-made key differs from the CPU's", lgs[t]);
            cuzk_groth16_proof pr;
            cuzk_fr r, s;
            test_rand_fr(&r), test_rand_fr(&s);
            CHECK(cuzk_groth16_prove(&pr, &gpu, &cs, z, &r, &s, pool, err, sizeof err) == CUZK_OK, "prove: %s",
                  err);
            cuzk_groth16_pvk pvk;
            CHECK(cuzk_groth16_prepare(&pvk, &gpu.vk, err, sizeof err) == CUZK_OK, "prepare: %s", err);
            CHECK(cuzk_groth16_verify(&pvk, z + 1, ni - 1, &pr, err, sizeof err) == CUZK_OK,
                  "2^%u: proof under the GPU-made key does not verify: %s", lgs[t], err);
            cuzk_groth16_params_free(&gpu);
        }
        cuzk_groth16_params_free(&cpu);
        cuzk_cs_free(&cs);
        free(z);
    }
}

/* A bellperson-form key of a random circuit whose domain is 2^lg, lg >= 1 (rows in (2^(lg-1), 2^lg], at most
 * ni inputs among them). */
static int random_key(cuzk_groth16_params *pk, cuzk_cs *cs, cuzk_fr **z, unsigned lg, size_t ni,
                      cuzk_pool *pool)
{
    char err[256];
    size_t half = (size_t)1 << (lg - 1), rows = half + 1 + test_rand64() % half;
    if (ni > rows - 1)
        ni = rows - 1;
    size_t nc = rows - ni, na = nc + test_rand64() % 7;
    *z = (cuzk_fr *)malloc((ni + na) * sizeof **z);
    if (cuzk_cs_random(cs, *z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS) != CUZK_OK)
        return -1;
    cuzk_groth16_toxic tw;
    unsigned dlg = 0;
    cuzk_groth16_domain_lg(&dlg, cs, err, sizeof err);
    if (cuzk_groth16_toxic_random(&tw, (size_t)1 << dlg, err, sizeof err) ||
        cuzk_groth16_setup_accel(pk, cs, &tw, cuzk_gpu_setup_accel(), pool, err, sizeof err)) {
        fprintf(stderr, "random_key: %s\n", err);
        return -1;
    }
    return 0;
}

/* The key's conversion to the coset form with its transforms on the GPU against the CPU's (every h and l
 * point byte-equal; outputs poisoned first), at domains 2^1 .. 2^12, in default and in 100-point chunks;
 * the converted key proves, and its proof verifies; bad sizes are refused. */
static void check_coset(cuzk_pool *pool)
{
    char err[256];
    cuzk_groth16_coset_opts gpu = {cuzk_gpu_coset_accel(), NULL, NULL, 0};
    for (int pass = 0; pass < 3; pass++) { /* default chunks, 100-point chunks, plain double-and-add */
        if (pass == 1)
            setenv("CUZK_GPU_SETUP_CHUNK", "100", 1);
        if (pass == 2) {
            unsetenv("CUZK_GPU_SETUP_CHUNK");
            setenv("CUZK_GPU_COSET_GLV", "0", 1);
        }
        for (unsigned lg = 1; lg <= 12; lg += pass ? 3 : 1) {
            cuzk_groth16_params a, b;
            cuzk_cs cs;
            cuzk_fr *z = NULL;
            size_t ni = lg == 1 ? 1 : 2 + test_rand64() % 3;
            if (random_key(&a, &cs, &z, lg, ni, pool)) {
                CHECK(0, "coset 2^%u: no key", lg);
                free(z);
                continue;
            }
            b = a; /* a second copy of h and l, the rest shared */
            b.h = (cuzk_g1_affine *)malloc((a.n_h + 1) * sizeof *b.h);
            b.l = (cuzk_g1_affine *)malloc((a.n_l + 1) * sizeof *b.l);
            memcpy(b.h, a.h, a.n_h * sizeof *b.h);
            memcpy(b.l, a.l, a.n_l * sizeof *b.l);
            int rc = cuzk_groth16_params_to_coset(&b, &cs, &gpu, pool, err, sizeof err);
            CHECK(rc == CUZK_OK, "coset 2^%u gpu: %s", lg, err);
            int rc2 = cuzk_groth16_params_to_coset(&a, &cs, NULL, pool, err, sizeof err);
            CHECK(rc2 == CUZK_OK, "coset 2^%u cpu: %s", lg, err);
            if (rc == CUZK_OK && rc2 == CUZK_OK) {
                CHECK(a.n_h == b.n_h && !memcmp(a.h, b.h, a.n_h * sizeof *a.h),
                      "coset 2^%u: h differs from the CPU's", lg);
                CHECK(a.n_l == b.n_l && !memcmp(a.l, b.l, a.n_l * sizeof *a.l),
                      "coset 2^%u: l differs from the CPU's", lg);
                cuzk_groth16_proof pr;
                cuzk_fr r, s;
                test_rand_fr(&r), test_rand_fr(&s);
                CHECK(cuzk_groth16_prove(&pr, &b, &cs, z, &r, &s, pool, err, sizeof err) == CUZK_OK,
                      "coset 2^%u: prove with the GPU-converted key: %s", lg, err);
            }
            free(b.h), free(b.l);
            cuzk_groth16_params_free(&a);
            cuzk_cs_free(&cs);
            free(z);
        }
    }
    unsetenv("CUZK_GPU_COSET_GLV");
    cuzk_g1_affine o[4];
    cuzk_fr one = CUZK_FR_ONE;
    CHECK(cuzk_gpu_g1_transform(o, o, 3, &one, &one, &one, pool, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "power of two"),
          "a transform of 3 points: '%s'", err);
}

/* The GPU accelerator with the time spent in its transforms summed (the rest of a conversion: the CPU
 * checks of each transform, C's transpose and the column sums). */
static int timed_transform(const void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                           const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool,
                           char *err, size_t errlen)
{
    double t = now_s();
    int rc = cuzk_gpu_g1_transform(out, src, n, c, step, root, pool, err, errlen);
    *(double *)ctx += now_s() - t;
    return rc;
}

/* The conversion of a 2^lg key: GPU transforms, then (below 2^17) the CPU's, timed. */
static void bench_coset(cuzk_pool *pool, unsigned lg)
{
    char err[256];
    cuzk_groth16_params a;
    cuzk_cs cs;
    cuzk_fr *z = NULL;
    if (random_key(&a, &cs, &z, lg, 3, pool)) {
        CHECK(0, "bench coset: no key");
        return;
    }
    cuzk_groth16_params b = a;
    b.h = (cuzk_g1_affine *)malloc((a.n_h + 1) * sizeof *b.h);
    b.l = (cuzk_g1_affine *)malloc((a.n_l + 1) * sizeof *b.l);
    memcpy(b.h, a.h, a.n_h * sizeof *b.h);
    memcpy(b.l, a.l, a.n_l * sizeof *b.l);
    double tt = 0, ttp = 0; /* seconds in the transforms (endomorphism split, plain) */
    cuzk_coset_accel acc = {"gpu (timed)", &tt, timed_transform},
                     accp = {"gpu (timed)", &ttp, timed_transform};
    cuzk_groth16_coset_opts gpu = {&acc, NULL, NULL, 0}, gpup = {&accp, NULL, NULL, 0};
    double tp = 0;
    if (lg <= 22) { /* plain double-and-add first, for comparison (its key is dropped) */
        cuzk_groth16_params c = b;
        c.h = (cuzk_g1_affine *)malloc((a.n_h + 1) * sizeof *c.h);
        c.l = (cuzk_g1_affine *)malloc((a.n_l + 1) * sizeof *c.l);
        memcpy(c.h, a.h, a.n_h * sizeof *c.h);
        memcpy(c.l, a.l, a.n_l * sizeof *c.l);
        setenv("CUZK_GPU_COSET_GLV", "0", 1);
        double t = now_s();
        CHECK(cuzk_groth16_params_to_coset(&c, &cs, &gpup, pool, err, sizeof err) == CUZK_OK, "gpu plain: %s",
              err);
        tp = now_s() - t;
        unsetenv("CUZK_GPU_COSET_GLV");
        free(c.h), free(c.l);
    }
    double t0 = now_s();
    CHECK(cuzk_groth16_params_to_coset(&b, &cs, &gpu, pool, err, sizeof err) == CUZK_OK, "gpu: %s", err);
    double t1 = now_s();
    printf("| coset conversion 2^%u | GPU, endomorphism %.2f s (transforms %.2f s) |", lg, t1 - t0, tt);
    if (lg <= 22)
        printf(" GPU, plain %.2f s (transforms %.2f s) |", tp, ttp);
    else
        printf(" GPU, plain not run |");
    if (lg <= 16) {
        CHECK(cuzk_groth16_params_to_coset(&a, &cs, NULL, pool, err, sizeof err) == CUZK_OK, "cpu: %s", err);
        double t2 = now_s();
        CHECK(!memcmp(a.h, b.h, a.n_h * sizeof *a.h) && !memcmp(a.l, b.l, a.n_l * sizeof *a.l),
              "bench coset: the keys differ");
        printf(" CPU %.2f s | %.1fx | %d host threads |\n", t2 - t1, (t2 - t1) / (t1 - t0),
               cuzk_pool_size(pool));
    } else {
        printf(" CPU not run | | %d host threads |\n", cuzk_pool_size(pool));
    }
    free(b.h), free(b.l);
    cuzk_groth16_params_free(&a);
    cuzk_cs_free(&cs);
    free(z);
}

static void bench(cuzk_pool *pool, unsigned lg)
{
    char err[256];
    size_t n = (size_t)1 << lg;
    cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof *k);
    cuzk_g1_affine *a = (cuzk_g1_affine *)malloc(n * sizeof *a);
    cuzk_g2_affine *b = (cuzk_g2_affine *)malloc(n * sizeof *b);
    scalars(k, n);
    double t0 = now_s();
    CHECK(cuzk_gpu_g1_fixed_base_mul(a, k, n, pool, err, sizeof err) == CUZK_OK, "g1: %s", err);
    double t1 = now_s();
    CHECK(cuzk_gpu_g2_fixed_base_mul(b, k, n, pool, err, sizeof err) == CUZK_OK, "g2: %s", err);
    double t2 = now_s();
    printf("| fixed-base 2^%u | G1 %.3f s (%.1f M points/s) | G2 %.3f s (%.1f M points/s) | %d host threads |\n", lg,
           t1 - t0, n / (t1 - t0) / 1e6, t2 - t1, n / (t2 - t1) / 1e6, cuzk_pool_size(pool));
    free(k), free(a), free(b);

    size_t nc = n - 3, ni = 3, na = nc;
    cuzk_cs cs;
    cuzk_fr *z = (cuzk_fr *)malloc((ni + na) * sizeof *z);
    CHECK(cuzk_cs_random(&cs, z, ni, na, nc, 7, CUZK_CS_RANDOM_BITS) == CUZK_OK, "cs_random");
    cuzk_groth16_toxic tw;
    CHECK(cuzk_groth16_toxic_random(&tw, n, err, sizeof err) == CUZK_OK, "toxic");
    cuzk_groth16_params g, c;
    t0 = now_s();
    CHECK(cuzk_groth16_setup_accel(&g, &cs, &tw, cuzk_gpu_setup_accel(), pool, err, sizeof err) == CUZK_OK,
          "gpu setup: %s", err);
    t1 = now_s();
    CHECK(cuzk_groth16_setup(&c, &cs, &tw, pool, err, sizeof err) == CUZK_OK, "cpu setup: %s", err);
    t2 = now_s();
    CHECK(same_key(&g, &c), "bench key 2^%u differs", lg);
    printf("| setup 2^%u random BITS circuit | GPU-accelerated %.2f s | CPU %.2f s | %.1fx |\n", lg, t1 - t0, t2 - t1,
           (t2 - t1) / (t1 - t0));
    cuzk_groth16_params_free(&g);
    cuzk_groth16_params_free(&c);
    cuzk_cs_free(&cs);
    free(z);
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "check";
    cuzk_pool *pool = NULL;
    if (gpu_test_start("test_gpu_setup", &pool))
        return 2;
    if (!strcmp(cmd, "check")) {
        check_fixed_base(pool, false);
        check_fixed_base(pool, true);
        check_split(pool);
        check_keys(pool);
        check_coset(pool);
    } else if (!strcmp(cmd, "bench")) {
        bench(pool, argc > 2 ? (unsigned)atoi(argv[2]) : 20);
    } else if (!strcmp(cmd, "bench-coset")) {
        for (int i = 2; i < argc; i++)
            bench_coset(pool, (unsigned)atoi(argv[i]));
    } else {
        fprintf(stderr, "usage: test_gpu_setup check | bench [LG] | bench-coset LG...\n");
        return 2;
    }
    cuzk_pool_free(pool);
    return test_finish("test_gpu_setup");
}
