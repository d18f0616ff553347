/*
 * test_gpu_ntt.cu — device Fr arithmetic and the GPU NTT against the CPU
 * library, and the GPU NTT benchmark. Needs a CUDA device (except `host`);
 * built only where nvcc exists and not registered with ctest (CI has no GPU):
 * scripts/gpu-check.sh runs it on the device machine.
 *
 *   test_gpu_ntt check [LG...]  field kernel on 2^20 random pairs plus edge
 *                               cases; every mode of both conventions at
 *                               2^1..2^20; at each LG (default 24 27) a few
 *                               modes against the CPU and round trips of all
 *   test_gpu_ntt host           fr.cuh's host path against cuzk_fr_* (no GPU)
 *   test_gpu_ntt bench [LG...]  Fr multiplication rate, then transform times
 *                               (default 20 24 27; median of 15 after 3 warm-ups,
 *                               CUDA events) and pinned copy times at the largest
 *   test_gpu_ntt once LG        one forward NR, forward NN coset and inverse NN
 *                               coset at 2^LG, nothing else (for a profiler)
 *
 * Every run draws fresh random inputs (CUZK_TEST_SEED replays one). Device
 * outputs are poisoned before each kernel, every element is compared with
 * the CPU result, and guard zones around the device vector catch stray
 * writes.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/gpu.h"
#include "cuzk/gpu_ntt.h"
#include "cuzk/ntt.h"
#include "cuzk/pool.h"
#include "gpu/fr.cuh"
#include "h2d.cuh"
extern "C" {
#include "testutil.h"
}
#include "gputest.h"
#include "ntt_extras_ref.h"

#define GUARD 1024 /* elements of guard zone on each side of the device vector */

static cudaStream_t g_stream;
static cuzk_pool *g_pool;

static const char *order_name(int o)
{
    return o == CUZK_NTT_NN ? "NN" : o == CUZK_NTT_NR ? "NR" : "RN";
}

/* ---- random vectors, generated in parallel from per-chunk streams -------- */

typedef struct {
    cuzk_fr *v;
    size_t n;
    uint64_t seed;
} fill_ctx;

#define FILL_CHUNK 65536

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static bool below_r(const cuzk_fr *a)
{
    for (int i = 3; i >= 0; i--)
        if (a->l[i] != CUZK_R[i])
            return a->l[i] < CUZK_R[i];
    return false;
}

static void fill_task(void *c, size_t task, int worker)
{
    const fill_ctx *fc = (const fill_ctx *)c;
    uint64_t s = fc->seed ^ (task * 0xd1b54a32d192ed03ull);
    size_t end = (task + 1) * FILL_CHUNK < fc->n ? (task + 1) * FILL_CHUNK : fc->n;
    for (size_t i = task * FILL_CHUNK; i < end; i++) {
        cuzk_fr *a = &fc->v[i];
        do {
            for (int k = 0; k < 4; k++)
                a->l[k] = splitmix(&s);
            a->l[3] &= 0x7fffffffffffffffull;
        } while (!below_r(a));
    }
}

/* n uniform elements below r (any value below r is a Montgomery form). */
static void rand_fill(cuzk_fr *v, size_t n)
{
    fill_ctx fc = {v, n, test_rand64()};
    cuzk_pool_run(g_pool, (n + FILL_CHUNK - 1) / FILL_CHUNK, fill_task, &fc);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", n);
        exit(2);
    }
    return p;
}

/* ---- field arithmetic ---------------------------------------------------- */

static void check_mul_variants(void); /* the benchmark's alternatives, below */

__global__ void k_field(const fr_t *a, const fr_t *b, fr_t *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = fr_load(&a[i]), y = fr_load(&b[i]);
    fr_store(&out[4 * i + 0], fr_add(x, y));
    fr_store(&out[4 * i + 1], fr_sub(x, y));
    fr_store(&out[4 * i + 2], fr_mul(x, y));
    fr_store(&out[4 * i + 3], fr_sqr(x));
}

/* Edge values: 0, 1, r - 1, r - 2, 2, Montgomery 1 (R mod r), R mod r - 1, 2^254. */
static void edge_value(cuzk_fr *a, int k)
{
    memset(a, 0, sizeof *a);
    switch (k) {
    case 1: a->l[0] = 1; break;
    case 2:
        memcpy(a->l, CUZK_R, sizeof a->l);
        a->l[0] -= 1;
        break;
    case 3:
        memcpy(a->l, CUZK_R, sizeof a->l);
        a->l[0] -= 2;
        break;
    case 4: a->l[0] = 2; break;
    case 5: *a = CUZK_FR_ONE; break;
    case 6:
        *a = CUZK_FR_ONE;
        a->l[0] -= 1;
        break;
    case 7: a->l[3] = (uint64_t)1 << 62; break;
    default: break;
    }
}
#define NEDGE 8

static void expect_ops(cuzk_fr out[4], const cuzk_fr *a, const cuzk_fr *b)
{
    cuzk_fr_add(&out[0], a, b);
    cuzk_fr_sub(&out[1], a, b);
    cuzk_fr_mul(&out[2], a, b);
    cuzk_fr_sqr(&out[3], a);
}

static void check_field_host(void)
{
    static const char *names[4] = {"add", "sub", "mul", "sqr"};
    long bad[4] = {0, 0, 0, 0};
    const int n = 200000;
    for (int i = 0; i < n; i++) {
        cuzk_fr a, b, want[4];
        if (i < NEDGE * NEDGE) {
            edge_value(&a, i / NEDGE);
            edge_value(&b, i % NEDGE);
        } else {
            test_rand_fr(&a);
            test_rand_fr(&b);
        }
        expect_ops(want, &a, &b);
        fr_t x, y, got[4];
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        got[0] = fr_add(x, y);
        got[1] = fr_sub(x, y);
        got[2] = fr_mul(x, y);
        got[3] = fr_sqr(x);
        for (int k = 0; k < 4; k++)
            bad[k] += memcmp(&got[k], &want[k], sizeof want[k]) != 0;
    }
    fr_t one = fr_one();
    CHECK(memcmp(&one, &CUZK_FR_ONE, sizeof one) == 0, "fr_one differs from CUZK_FR_ONE");
    for (int k = 0; k < 4; k++)
        CHECK(bad[k] == 0, "host path: %s wrong on %ld of %d pairs", names[k], bad[k], n);
    printf("field (host path): %d pairs, add/sub/mul/sqr mismatches %ld/%ld/%ld/%ld\n", n, bad[0], bad[1],
           bad[2], bad[3]);
}

static void check_field_device(void)
{
    static const char *names[4] = {"add", "sub", "mul", "sqr"};
    const unsigned n = 1u << 20;
    cuzk_fr *a = (cuzk_fr *)xmalloc(n * sizeof *a), *b = (cuzk_fr *)xmalloc(n * sizeof *b);
    cuzk_fr *out = (cuzk_fr *)xmalloc(4 * (size_t)n * sizeof *out);
    rand_fill(a, n);
    rand_fill(b, n);
    for (int i = 0; i < NEDGE * NEDGE; i++) {
        edge_value(&a[i], i / NEDGE);
        edge_value(&b[i], i % NEDGE);
    }
    fr_t *da, *db, *dout;
    CUDA_OK(cudaMalloc((void **)&da, n * sizeof(fr_t)));
    CUDA_OK(cudaMalloc((void **)&db, n * sizeof(fr_t)));
    CUDA_OK(cudaMalloc((void **)&dout, 4 * (size_t)n * sizeof(fr_t)));
    CUDA_OK(h2d(da, a, n * sizeof(fr_t), g_stream));
    CUDA_OK(h2d(db, b, n * sizeof(fr_t), g_stream));
    CUDA_OK(cudaMemset(dout, 0xff, 4 * (size_t)n * sizeof(fr_t)));
    memset(out, 0x5a, 4 * (size_t)n * sizeof *out);
    k_field<<<(n + 255) / 256, 256, 0, g_stream>>>(da, db, dout, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(g_stream));
    CUDA_OK(cudaMemcpy(out, dout, 4 * (size_t)n * sizeof(fr_t), cudaMemcpyDeviceToHost));
    long bad[4] = {0, 0, 0, 0};
    long first[4] = {-1, -1, -1, -1};
    for (unsigned i = 0; i < n; i++) {
        cuzk_fr want[4];
        expect_ops(want, &a[i], &b[i]);
        for (int k = 0; k < 4; k++)
            if (memcmp(&out[4 * (size_t)i + k], &want[k], sizeof want[k]) != 0) {
                if (bad[k]++ == 0)
                    first[k] = i;
            }
    }
    for (int k = 0; k < 4; k++)
        CHECK(bad[k] == 0, "device %s wrong on %ld of %u pairs (first at %ld)", names[k], bad[k], n,
              first[k]);
    printf("field (device): %u pairs (%d edge pairs), add/sub/mul/sqr mismatches %ld/%ld/%ld/%ld\n", n,
           NEDGE * NEDGE, bad[0], bad[1], bad[2], bad[3]);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    free(a);
    free(b);
    free(out);
}

/* ---- NTT against the CPU ------------------------------------------------- */

typedef struct {
    fr_t *base; /* GUARD + cap + GUARD elements */
    size_t cap;
    cuzk_fr *guard_ref; /* the guard pattern */
} dev_vec;

static void dev_vec_init(dev_vec *v, size_t cap)
{
    v->cap = cap;
    CUDA_OK(cudaMalloc((void **)&v->base, (cap + 2 * GUARD) * sizeof(fr_t)));
    v->guard_ref = (cuzk_fr *)xmalloc(GUARD * sizeof(cuzk_fr));
    memset(v->guard_ref, 0xa5, GUARD * sizeof(cuzk_fr));
}

static cuzk_fr *dev_data(dev_vec *v)
{
    return (cuzk_fr *)(v->base + GUARD);
}

/* Writes the guard pattern just outside [0, n). */
static void guards_set(dev_vec *v, size_t n)
{
    CUDA_OK(h2d(v->base, v->guard_ref, GUARD * sizeof(fr_t), g_stream));
    CUDA_OK(h2d(v->base + GUARD + n, v->guard_ref, GUARD * sizeof(fr_t), g_stream));
}

static bool guards_intact(dev_vec *v, size_t n)
{
    cuzk_fr tmp[GUARD];
    bool ok = true;
    CUDA_OK(cudaMemcpy(tmp, v->base, sizeof tmp, cudaMemcpyDeviceToHost));
    ok &= memcmp(tmp, v->guard_ref, sizeof tmp) == 0;
    CUDA_OK(cudaMemcpy(tmp, v->base + GUARD + n, sizeof tmp, cudaMemcpyDeviceToHost));
    ok &= memcmp(tmp, v->guard_ref, sizeof tmp) == 0;
    return ok;
}

/* Runs the GPU transform on the device vector and waits; false on any error. */
static bool gpu_run(dev_vec *v, const cuzk_ntt_domain *d, cuzk_ntt_dir dir, cuzk_ntt_order ord, bool coset)
{
    char err[256] = "";
    int rc = cuzk_gpu_ntt(dev_data(v), d->lg, dir, ord, coset, d, g_stream, err, sizeof err);
    CHECK(rc == CUZK_OK, "cuzk_gpu_ntt 2^%u: %d %s", d->lg, rc, err);
    cudaError_t e = cudaStreamSynchronize(g_stream);
    CHECK(e == cudaSuccess, "transform 2^%u: %s", d->lg, cudaGetErrorString(e));
    return rc == CUZK_OK && e == cudaSuccess;
}

/* Uploads in, transforms on the GPU, downloads into got (poisoned first). */
static bool gpu_transform(dev_vec *v, const cuzk_ntt_domain *d, const cuzk_fr *in, cuzk_fr *got,
                          cuzk_ntt_dir dir, cuzk_ntt_order ord, bool coset)
{
    size_t n = d->n;
    guards_set(v, n);
    CUDA_OK(h2d(dev_data(v), in, n * sizeof(cuzk_fr), g_stream));
    bool ok = gpu_run(v, d, dir, ord, coset);
    memset(got, 0xff, n * sizeof(cuzk_fr));
    CUDA_OK(cudaMemcpy(got, dev_data(v), n * sizeof(cuzk_fr), cudaMemcpyDeviceToHost));
    bool guards = guards_intact(v, n);
    CHECK(guards, "2^%u %s %s%s: write outside the vector", d->lg, dir ? "inverse" : "forward",
          order_name(ord), coset ? " coset" : "");
    return ok && guards;
}

static size_t count_diff(const cuzk_fr *a, const cuzk_fr *b, size_t n, size_t *first)
{
    size_t bad = 0;
    *first = n;
    for (size_t i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof a[i]) != 0 && bad++ == 0)
            *first = i;
    return bad;
}

/* One mode at one size against cuzk_ntt; returns the number of wrong elements. */
static size_t check_mode(dev_vec *v, const cuzk_ntt_domain *d, cuzk_fr *in, cuzk_fr *ref, cuzk_fr *got,
                         cuzk_ntt_dir dir, cuzk_ntt_order ord, bool coset)
{
    size_t n = d->n, first;
    char err[256] = "";
    rand_fill(in, n);
    memcpy(ref, in, n * sizeof *ref);
    int rc = cuzk_ntt(d, ref, dir, ord, coset, g_pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "cpu ntt: %s", err);
    gpu_transform(v, d, in, got, dir, ord, coset);
    size_t bad = count_diff(got, ref, n, &first);
    CHECK(bad == 0, "%s 2^%u %s %s%s: %zu of %zu elements differ from the CPU (first at %zu)",
          d->conv == CUZK_NTT_BELLPERSON ? "bellperson" : "snarkjs", d->lg, dir ? "inverse" : "forward",
          order_name(ord), coset ? " coset" : "", bad, n, first);
    return bad;
}

static void check_small(dev_vec *v)
{
    const unsigned maxlg = 20;
    size_t cap = (size_t)1 << maxlg;
    cuzk_fr *in = (cuzk_fr *)xmalloc(cap * sizeof *in), *ref = (cuzk_fr *)xmalloc(cap * sizeof *ref),
            *got = (cuzk_fr *)xmalloc(cap * sizeof *got);
    double t0 = now_s();
    long runs = 0, failed = 0;
    for (int conv = 0; conv < 2; conv++)
        for (unsigned lg = 1; lg <= maxlg; lg++) {
            cuzk_ntt_domain d;
            char err[256];
            if (cuzk_ntt_domain_init(&d, lg, (cuzk_ntt_convention)conv, err, sizeof err) != CUZK_OK) {
                CHECK(0, "domain 2^%u: %s", lg, err);
                continue;
            }
            for (int mode = 0; mode < 12; mode++) {
                cuzk_ntt_dir dir = (cuzk_ntt_dir)(mode & 1);
                cuzk_ntt_order ord = (cuzk_ntt_order)((mode >> 1) % 3);
                bool coset = mode >= 6;
                failed += check_mode(v, &d, in, ref, got, dir, ord, coset) != 0;
                runs++;
            }
            cuzk_ntt_domain_release(&d);
        }
    printf("ntt 2^1..2^%u, both conventions, 12 modes: %ld transforms, %ld differ from the CPU (%.1f s)\n",
           maxlg, runs, failed, now_s() - t0);
    free(in);
    free(ref);
    free(got);
}

/* At 2^lg: a few modes against the CPU, then GPU round trips of every pairing. */
static void check_large(dev_vec *v, unsigned lg)
{
    size_t n = (size_t)1 << lg;
    cuzk_fr *in = (cuzk_fr *)xmalloc(n * sizeof *in), *ref = (cuzk_fr *)xmalloc(n * sizeof *ref),
            *got = (cuzk_fr *)xmalloc(n * sizeof *got);
    static const struct {
        int conv, dir, ord, coset;
    } modes[] = {
        {CUZK_NTT_BELLPERSON, CUZK_NTT_FORWARD, CUZK_NTT_NR, 0},
        {CUZK_NTT_BELLPERSON, CUZK_NTT_INVERSE, CUZK_NTT_NN, 1},
        {CUZK_NTT_BELLPERSON, CUZK_NTT_INVERSE, CUZK_NTT_RN, 0},
        {CUZK_NTT_SNARKJS, CUZK_NTT_FORWARD, CUZK_NTT_NN, 1},
    };
    int nmodes = lg >= 27 ? 2 : 4;
    for (int i = 0; i < nmodes; i++) {
        cuzk_ntt_domain d;
        char err[256];
        if (cuzk_ntt_domain_init(&d, lg, (cuzk_ntt_convention)modes[i].conv, err, sizeof err) != CUZK_OK) {
            CHECK(0, "domain 2^%u: %s", lg, err);
            continue;
        }
        double t0 = now_s();
        size_t bad = check_mode(v, &d, in, ref, got, (cuzk_ntt_dir)modes[i].dir, (cuzk_ntt_order)modes[i].ord,
                                modes[i].coset);
        printf("ntt 2^%u %s %s %s%s vs CPU: %zu of %zu differ (%.1f s)\n", lg,
               modes[i].conv ? "snarkjs" : "bellperson", modes[i].dir ? "inverse" : "forward",
               order_name(modes[i].ord), modes[i].coset ? " coset" : "", bad, n, now_s() - t0);
        cuzk_ntt_domain_release(&d);
    }
    /* Round trips: forward then the inverse of the matching layout gives the input back. */
    static const struct {
        int fwd, inv;
    } pairs[] = {{CUZK_NTT_NR, CUZK_NTT_RN}, {CUZK_NTT_RN, CUZK_NTT_NR}, {CUZK_NTT_NN, CUZK_NTT_NN}};
    cuzk_ntt_domain d;
    char err[256];
    if (cuzk_ntt_domain_init(&d, lg, CUZK_NTT_BELLPERSON, err, sizeof err) == CUZK_OK) {
        rand_fill(in, n);
        for (int coset = 0; coset < 2; coset++)
            for (int p = 0; p < 3; p++) {
                guards_set(v, n);
                CUDA_OK(h2d(dev_data(v), in, n * sizeof(cuzk_fr), g_stream));
                gpu_run(v, &d, CUZK_NTT_FORWARD, (cuzk_ntt_order)pairs[p].fwd, coset);
                gpu_run(v, &d, CUZK_NTT_INVERSE, (cuzk_ntt_order)pairs[p].inv, coset);
                memset(got, 0xff, n * sizeof *got);
                CUDA_OK(cudaMemcpy(got, dev_data(v), n * sizeof(cuzk_fr), cudaMemcpyDeviceToHost));
                size_t first, bad = count_diff(got, in, n, &first);
                bool guards = guards_intact(v, n);
                CHECK(bad == 0 && guards, "round trip 2^%u %s/%s%s: %zu differ (first %zu), guards %s", lg,
                      order_name(pairs[p].fwd), order_name(pairs[p].inv), coset ? " coset" : "", bad, first,
                      guards ? "intact" : "overwritten");
                printf("round trip 2^%u forward %s, inverse %s%s: %zu differ\n", lg, order_name(pairs[p].fwd),
                       order_name(pairs[p].inv), coset ? " coset" : "", bad);
            }
        cuzk_ntt_domain_release(&d);
    }
    free(in);
    free(ref);
    free(got);
}

/* Bad arguments are refused with their status. */
static void check_errors(dev_vec *v)
{
    cuzk_ntt_domain d;
    char err[256];
    if (cuzk_ntt_domain_init(&d, 10, CUZK_NTT_BELLPERSON, err, sizeof err) != CUZK_OK)
        return;
    cuzk_fr *x = dev_data(v);
    CHECK(cuzk_gpu_ntt(NULL, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "NULL data accepted");
    CHECK(cuzk_gpu_ntt(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, NULL, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "NULL domain accepted");
    CHECK(cuzk_gpu_ntt(x, 11, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "size/domain mismatch accepted");
    CHECK(cuzk_gpu_ntt(x, 29, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, g_stream, err, sizeof err) ==
              CUZK_ERANGE,
          "2^29 accepted");
    CHECK(cuzk_gpu_ntt(x, 10, (cuzk_ntt_dir)7, CUZK_NTT_NN, false, &d, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "bad direction accepted");
    CHECK(cuzk_gpu_ntt(x, 10, CUZK_NTT_FORWARD, (cuzk_ntt_order)7, false, &d, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "bad order accepted");
    CHECK(cuzk_gpu_ntt(x + 1, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, g_stream, err, sizeof err) ==
              CUZK_OK,
          "32-byte aligned offset refused: %s", err);
    CHECK(cuzk_gpu_ntt((cuzk_fr *)((char *)x + 16), 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, g_stream,
                       err, sizeof err) == CUZK_EINVAL,
          "misaligned data accepted");
    cuzk_gpu_ntt_extra ex = {NULL, NULL, NULL, x + 1024, NULL};
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, &d, &ex, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "sub with the NR order accepted");
    ex.sub = x;
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, &d, &ex, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "sub equal to the data accepted");
    cuzk_gpu_ntt_extra ex2 = {NULL, (const cuzk_fr *)((const char *)x + 2048 * 32 + 16), NULL, NULL, NULL};
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, &d, &ex2, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "misaligned mul accepted");
    /* dst: anywhere but over the data (except the data itself: in place) or over sub */
    cuzk_gpu_ntt_extra ex3 = {NULL, NULL, NULL, NULL, x + 512};
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, &ex3, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "dst overlapping the data accepted");
    ex3.dst = (cuzk_fr *)((char *)x + 1024 * 32 + 16);
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, &ex3, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "misaligned dst accepted");
    ex3.dst = x + 2048;
    ex3.sub = x + 2048 + 1023;
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, &ex3, g_stream, err, sizeof err) ==
              CUZK_EINVAL,
          "dst overlapping sub accepted");
    ex3.sub = x + 1024;
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, &ex3, g_stream, err, sizeof err) ==
              CUZK_OK,
          "dst beside the data and sub refused: %s", err);
    ex3.dst = x;
    CHECK(cuzk_gpu_ntt_ex(x, 10, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, &d, &ex3, g_stream, err, sizeof err) ==
              CUZK_OK,
          "dst equal to the data (in place) refused: %s", err);
    CUDA_OK(cudaStreamSynchronize(g_stream));
    cuzk_ntt_domain_release(&d);
}

/*
 * The extras (cuzk_gpu_ntt_extra) on the device at 2^lg, every mode of both conventions, each extra on or
 * off at random (sub only for NN): d_data = T(src ⊙ mul)·scale − sub[rev(i)] against the CPU.
 */
static void check_extras(dev_vec *v, unsigned lg)
{
    size_t n = (size_t)1 << lg;
    cuzk_fr *host = (cuzk_fr *)xmalloc(5 * n * sizeof *host), *want = host + 4 * n, scale;
    fr_t *dev = NULL;
    CUDA_OK(cudaMalloc((void **)&dev, (4 * n + 2 * GUARD) * sizeof(fr_t))); /* src, mul, sub, dst in guards */
    const cuzk_fr *dsrc = (const cuzk_fr *)dev, *dmul = dsrc + n, *dsub = dsrc + 2 * n;
    cuzk_fr *ddst = (cuzk_fr *)dev + 3 * n + GUARD;
    const cuzk_ntt_order orders[] = {CUZK_NTT_NN, CUZK_NTT_NR, CUZK_NTT_RN};
    const cuzk_ntt_convention convs[] = {CUZK_NTT_BELLPERSON, CUZK_NTT_SNARKJS};
    for (unsigned cv = 0; cv < 2; cv++) {
        char err[256] = "";
        cuzk_ntt_domain d;
        if (cuzk_ntt_domain_init(&d, lg, convs[cv], err, sizeof err) != CUZK_OK) {
            CHECK(0, "domain 2^%u: %s", lg, err);
            continue;
        }
        for (int dir = 0; dir < 2; dir++)
            for (int o = 0; o < 3; o++)
                for (int coset = 0; coset < 2; coset++) {
                    rand_fill(host, 4 * n); /* x, src, mul, sub */
                    rand_fill(&scale, 1);
                    ntt_extras_pick pk = ntt_extras_draw(orders[o], n, &scale);
                    cuzk_gpu_ntt_extra ex = ntt_extras_of(pk, dsrc, dmul, &scale, dsub, ddst);
                    cuzk_ntt_dir dr = dir ? CUZK_NTT_INVERSE : CUZK_NTT_FORWARD;
                    int rc = ntt_extras_want(want, &d, dr, orders[o], coset, pk, host, host + n, host + 2 * n,
                                             &scale, host + 3 * n, g_pool, err, sizeof err);
                    CHECK(rc == CUZK_OK, "cpu ntt: %s", err);
                    guards_set(v, n);
                    CUDA_OK(h2d(dev_data(v), host, n * sizeof(cuzk_fr), g_stream));
                    CUDA_OK(h2d(dev, host + n, 3 * n * sizeof(cuzk_fr), g_stream));
                    CUDA_OK(cudaMemsetAsync(ddst - GUARD, 0xa5, (n + 2 * GUARD) * sizeof(cuzk_fr), g_stream));
                    if (pk.alias != NTT_ALIAS_NONE) /* host: x, src, mul, sub */
                        CUDA_OK(h2d(ddst, host + (pk.alias == NTT_ALIAS_MUL ? 2 : 1) * n, n * sizeof(cuzk_fr),
                                    g_stream));
                    rc = cuzk_gpu_ntt_ex(dev_data(v), lg, dr, orders[o], coset, &d, &ex, g_stream, err,
                                         sizeof err);
                    CHECK(rc == CUZK_OK, "cuzk_gpu_ntt_ex 2^%u: %s", lg, err);
                    CUDA_OK(cudaStreamSynchronize(g_stream));
                    memset(host, 0xff, n * sizeof *host);
                    CUDA_OK(cudaMemcpy(host, pk.dst ? ddst : dev_data(v), n * sizeof *host,
                                       cudaMemcpyDeviceToHost));
                    size_t first, bad = count_diff(host, want, n, &first);
                    cuzk_fr g[2 * GUARD];
                    CUDA_OK(cudaMemcpy(g, ddst - GUARD, GUARD * sizeof *g, cudaMemcpyDeviceToHost));
                    CUDA_OK(cudaMemcpy(g + GUARD, ddst + n, GUARD * sizeof *g, cudaMemcpyDeviceToHost));
                    bool dst_guards = memcmp(g, v->guard_ref, sizeof g / 2) == 0 &&
                                      memcmp(g + GUARD, v->guard_ref, sizeof g / 2) == 0;
                    CHECK(bad == 0 && guards_intact(v, n) && dst_guards,
                          "extras (src %d mul %d scale %d sub %d dst %d, %s in dst) 2^%u conv %u dir %d "
                          "order %s coset %d: %zu of %zu differ (first at %zu), or a guard was written",
                          pk.src, pk.mul, pk.scale, pk.sub, pk.dst, ntt_alias_name(pk.alias), lg, cv, dir,
                          order_name(orders[o]), coset, bad, n, first);
                }
        cuzk_ntt_domain_release(&d);
    }
    cudaFree(dev);
    free(host);
}

static int cmd_check(int argc, char **argv)
{
    unsigned large[8], nlarge = 0;
    for (int i = 0; i < argc && nlarge < 8; i++)
        large[nlarge++] = (unsigned)atoi(argv[i]);
    if (argc == 0) {
        large[nlarge++] = 24;
        large[nlarge++] = 27;
    }
    size_t cap = (size_t)1 << 20;
    for (unsigned i = 0; i < nlarge; i++)
        if (large[i] >= 1 && large[i] <= CUZK_NTT_MAX_LG && ((size_t)1 << large[i]) > cap)
            cap = (size_t)1 << large[i];
    dev_vec v;
    dev_vec_init(&v, cap);
    check_field_host();
    check_mul_variants();
    check_field_device();
    check_errors(&v);
    check_small(&v);
    for (unsigned lg = 1; lg <= 20; lg += lg < 8 ? 1 : 4) /* 1..8, 12, 16, 20 */
        for (int k = 0; k < 3; k++)
            check_extras(&v, lg);
    for (unsigned i = 0; i < nlarge; i++)
        if (large[i] >= 1 && large[i] <= CUZK_NTT_MAX_LG)
            check_large(&v, large[i]);
    cudaFree(v.base);
    free(v.guard_ref);
    return test_finish("test_gpu_ntt");
}

/* ---- benchmark ----------------------------------------------------------- */

/*
 * Multiplication variants for the rate benchmark. fr_mul (fr.cuh) is the one
 * the NTT uses; the others are the alternatives it was chosen against, kept
 * so that the comparison can be rerun: the same CIOS with the low and high
 * halves of the partial products in separate carry chains, and plain C with
 * 64-bit intermediates. "r from a kernel parameter" is fr_mul_rw with the
 * words of r read from the parameter bank instead of immediates (whether the
 * reduction's products then fuse into IMAD.WIDE as the a·b products do).
 */
/*
 * One reduction step on the nine-word accumulator t (< 2^288): add m·r with
 * m = -t0 so that the low word vanishes, then shift down one word. With
 * r0 = 1 and r1 = 2^32 - 1: lo(m·r0) = m, hi(m·r0) = 0, lo(m·r1) = t0.
 */
static __host__ __device__ __forceinline__ void rows_reduce(fr_carry *k, uint32_t t[9])
{
    uint32_t m = 0u - t[0];
    (void)add_cc(k, t[0], m); /* 0, carry = (t0 != 0) */
    t[1] = addc_cc(k, t[1], t[0]);
    t[2] = madc_lo_cc(k, m, FR_R2, t[2]);
    t[3] = madc_lo_cc(k, m, FR_R3, t[3]);
    t[4] = madc_lo_cc(k, m, FR_R4, t[4]);
    t[5] = madc_lo_cc(k, m, FR_R5, t[5]);
    t[6] = madc_lo_cc(k, m, FR_R6, t[6]);
    t[7] = madc_lo_cc(k, m, FR_R7, t[7]);
    t[8] = addc(k, t[8], 0);
    t[2] = mad_hi_cc(k, m, FR_R1, t[2]);
    t[3] = madc_hi_cc(k, m, FR_R2, t[3]);
    t[4] = madc_hi_cc(k, m, FR_R3, t[4]);
    t[5] = madc_hi_cc(k, m, FR_R4, t[5]);
    t[6] = madc_hi_cc(k, m, FR_R5, t[6]);
    t[7] = madc_hi_cc(k, m, FR_R6, t[7]);
    t[8] = madc_hi(k, m, FR_R7, t[8]);
    FR_UNROLL
    for (int i = 0; i < 8; i++)
        t[i] = t[i + 1];
    t[8] = 0;
}

/* t += ai·b over the nine words (t[8] = 0 on entry). */
static __host__ __device__ __forceinline__ void rows_add(fr_carry *k, uint32_t t[9], uint32_t ai,
                                                         const uint32_t b[8])
{
    t[0] = mad_lo_cc(k, ai, b[0], t[0]);
    FR_UNROLL
    for (int j = 1; j < 8; j++)
        t[j] = madc_lo_cc(k, ai, b[j], t[j]);
    t[8] = addc(k, 0, 0);
    t[1] = mad_hi_cc(k, ai, b[0], t[1]);
    FR_UNROLL
    for (int j = 1; j < 7; j++)
        t[j + 1] = madc_hi_cc(k, ai, b[j], t[j + 1]);
    t[8] = madc_hi(k, ai, b[7], t[8]);
}

static __host__ __device__ __forceinline__ fr_t mul_rows(fr_t a, fr_t b)
{
    fr_carry k = {0};
    uint32_t t[9];
    FR_UNROLL
    for (int j = 0; j < 8; j++)
        t[j] = a.v[0] * b.v[j];
    t[1] = mad_hi_cc(&k, a.v[0], b.v[0], t[1]);
    FR_UNROLL
    for (int j = 1; j < 7; j++)
        t[j + 1] = madc_hi_cc(&k, a.v[0], b.v[j], t[j + 1]);
    t[8] = madc_hi(&k, a.v[0], b.v[7], 0);
    rows_reduce(&k, t);
    FR_UNROLL
    for (int i = 1; i < 8; i++) {
        rows_add(&k, t, a.v[i], b.v);
        rows_reduce(&k, t);
    }
    return fr_reduce_once(t);
}

/*
 * The same product written in plain C with 64-bit intermediates (word-serial
 * CIOS, each step a·b + t + carry < 2^64), left to the compiler's own carry
 * handling.
 */
static __host__ __device__ __forceinline__ fr_t mul_c64(fr_t a, fr_t b)
{
    const uint32_t r[8] = {FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7};
    uint32_t t[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    FR_UNROLL
    for (int i = 0; i < 8; i++) {
        uint64_t c = 0;
        FR_UNROLL
        for (int j = 0; j < 8; j++) {
            uint64_t s = (uint64_t)a.v[j] * b.v[i] + t[j] + c;
            t[j] = (uint32_t)s;
            c = s >> 32;
        }
        uint64_t s = (uint64_t)t[8] + c;
        t[8] = (uint32_t)s;
        t[9] = (uint32_t)(s >> 32);
        uint32_t m = 0u - t[0];
        c = ((uint64_t)m * r[0] + t[0]) >> 32;
        FR_UNROLL
        for (int j = 1; j < 8; j++) {
            s = (uint64_t)m * r[j] + t[j] + c;
            t[j - 1] = (uint32_t)s;
            c = s >> 32;
        }
        s = (uint64_t)t[8] + c;
        t[7] = (uint32_t)s;
        t[8] = t[9] + (uint32_t)(s >> 32);
    }
    return fr_reduce_once(t);
}

typedef struct {
    uint32_t r[8];
} rwords;

template <int V> static __device__ __forceinline__ fr_t mul_variant(fr_t x, fr_t y, const uint32_t *rw)
{
    return V == 0 ? fr_mul(x, y) : V == 1 ? mul_rows(x, y) : V == 2 ? mul_c64(x, y) : fr_mul_rw(x, y, rw);
}

/* CHAINS independent products per thread and iteration: the latency the multiplication needs hidden. */
template <int V, int CHAINS> __global__ void k_mulrate(fr_t *io, unsigned iters, rwords rp)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t rw[8];
    for (int k = 0; k < 8; k++)
        rw[k] = rp.r[k];
    fr_t y = fr_load(&io[2 * i + 1]), x[CHAINS];
    x[0] = fr_load(&io[2 * i]);
    for (int c = 1; c < CHAINS; c++)
        x[c] = fr_add(x[c - 1], y);
    for (unsigned k = 0; k < iters; k++)
        for (int c = 0; c < CHAINS; c++)
            x[c] = mul_variant<V>(x[c], y, rw);
    for (int c = 1; c < CHAINS; c++)
        x[0] = fr_add(x[0], x[c]);
    fr_store(&io[2 * i], x[0]);
}

/* Host-path check of the benchmark's variants against cuzk_fr_mul. */
static void check_mul_variants(void)
{
    const uint32_t rw[8] = {FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7};
    long bad = 0;
    for (int i = 0; i < 20000; i++) {
        cuzk_fr a, b, want;
        test_rand_fr(&a);
        test_rand_fr(&b);
        cuzk_fr_mul(&want, &a, &b);
        fr_t x, y, got[3];
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        got[0] = mul_rows(x, y);
        got[1] = mul_c64(x, y);
        got[2] = fr_mul_rw(x, y, rw);
        for (int k = 0; k < 3; k++)
            bad += memcmp(&got[k], &want, sizeof want) != 0;
    }
    CHECK(bad == 0, "benchmark multiplication variants wrong on %ld products", bad);
}

typedef void (*mulrate_fn)(fr_t *, unsigned, rwords);

static void bench_mulrate(void)
{
    static const struct {
        mulrate_fn fn;
        int chains;
        const char *name;
    } runs[] = {
        {k_mulrate<0, 2>, 2, "fr_mul (even/odd pairs, the NTT's)"},
        {k_mulrate<1, 2>, 2, "low/high chains"},
        {k_mulrate<2, 2>, 2, "plain C 64-bit"},
        {k_mulrate<3, 2>, 2, "fr_mul_rw, r from a kernel parameter"},
        {k_mulrate<0, 1>, 1, "fr_mul"},
        {k_mulrate<0, 4>, 4, "fr_mul"},
    };
    int sms = 0;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    unsigned threads = (unsigned)sms * 2048, iters = 512;
    size_t n = 2 * (size_t)threads;
    cuzk_fr *h = (cuzk_fr *)xmalloc(n * sizeof *h);
    rand_fill(h, n);
    fr_t *d;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(fr_t)));
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    rwords rp = {{FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7}};
    for (size_t v = 0; v < sizeof runs / sizeof runs[0]; v++) {
        CUDA_OK(h2d(d, h, n * sizeof(fr_t), g_stream));
        float ms[7];
        for (int r = 0; r < 8; r++) {
            CUDA_OK(cudaEventRecord(a, g_stream));
            runs[v].fn<<<threads / 256, 256, 0, g_stream>>>(d, iters, rp);
            CUDA_OK(cudaGetLastError());
            CUDA_OK(cudaEventRecord(b, g_stream));
            CUDA_OK(cudaEventSynchronize(b));
            if (r > 0)
                CUDA_OK(cudaEventElapsedTime(&ms[r - 1], a, b));
        }
        qsort(ms, 7, sizeof ms[0], cmp_float);
        double muls = (double)runs[v].chains * iters * threads;
        printf("fr_mul rate, %s, %d chain%s/thread: %.1f G mul/s (%u threads x %u, median %.3f ms)\n",
               runs[v].name, runs[v].chains, runs[v].chains > 1 ? "s" : "", muls / (ms[3] * 1e-3) / 1e9,
               threads, iters, ms[3]);
    }
    cudaFree(d);
    free(h);
}

typedef struct {
    cuzk_ntt_dir dir;
    cuzk_ntt_order ord;
    bool coset;
    const char *name;
    bool dst; /* out of place (cuzk_gpu_ntt_extra's dst): for NN, the permutation in the last pass */
} variant;

static const variant variants[] = {
    {CUZK_NTT_FORWARD, CUZK_NTT_NR, false, "fwd NR", false},
    {CUZK_NTT_FORWARD, CUZK_NTT_RN, false, "fwd RN", false},
    {CUZK_NTT_FORWARD, CUZK_NTT_NN, false, "fwd NN", false},
    {CUZK_NTT_INVERSE, CUZK_NTT_NR, false, "inv NR", false},
    {CUZK_NTT_INVERSE, CUZK_NTT_RN, false, "inv RN", false},
    {CUZK_NTT_INVERSE, CUZK_NTT_NN, false, "inv NN", false},
    {CUZK_NTT_FORWARD, CUZK_NTT_NR, true, "fwd NR coset", false},
    {CUZK_NTT_FORWARD, CUZK_NTT_NN, true, "fwd NN coset", false},
    {CUZK_NTT_INVERSE, CUZK_NTT_RN, true, "inv RN coset", false},
    {CUZK_NTT_INVERSE, CUZK_NTT_NN, true, "inv NN coset", false},
    {CUZK_NTT_FORWARD, CUZK_NTT_NN, false, "fwd NN dst", true},
    {CUZK_NTT_INVERSE, CUZK_NTT_NN, true, "inv NN coset dst", true},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])
#define BENCH_WARM 3
#define BENCH_RUNS 15

static float median_of(float *ms, int n, float *lo, float *hi)
{
    qsort(ms, n, sizeof ms[0], cmp_float);
    *lo = ms[0];
    *hi = ms[n - 1];
    return ms[n / 2];
}

static int cmd_bench(int argc, char **argv)
{
    unsigned lgs[8], nlg = 0;
    for (int i = 0; i < argc && nlg < 8; i++)
        lgs[nlg++] = (unsigned)atoi(argv[i]);
    if (argc == 0) {
        lgs[nlg++] = 20;
        lgs[nlg++] = 24;
        lgs[nlg++] = 27;
    }
    bench_mulrate();
    unsigned maxlg = 0;
    for (unsigned i = 0; i < nlg; i++)
        maxlg = lgs[i] > maxlg && lgs[i] <= CUZK_NTT_MAX_LG ? lgs[i] : maxlg;
    size_t cap = (size_t)1 << maxlg;
    cuzk_fr *h;
    CUDA_OK(cudaMallocHost((void **)&h, cap * sizeof *h));
    rand_fill(h, cap);
    fr_t *d, *d2;
    CUDA_OK(cudaMalloc((void **)&d, cap * sizeof(fr_t)));
    CUDA_OK(cudaMalloc((void **)&d2, cap * sizeof(fr_t)));
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    char table[8192];
    size_t tl = 0;
    tl += snprintf(table + tl, sizeof table - tl,
                   "| size | variant | median ms | min ms | max ms | G butterflies/s "
                   "|\n|---|---|---:|---:|---:|---:|\n");
    for (unsigned li = 0; li < nlg; li++) {
        unsigned lg = lgs[li];
        if (lg < 1 || lg > CUZK_NTT_MAX_LG)
            continue;
        size_t n = (size_t)1 << lg;
        cuzk_ntt_domain dom;
        char err[256];
        if (cuzk_ntt_domain_init(&dom, lg, CUZK_NTT_BELLPERSON, err, sizeof err) != CUZK_OK) {
            fprintf(stderr, "domain: %s\n", err);
            return 1;
        }
        CUDA_OK(h2d(d, h, n * sizeof(fr_t), g_stream));
        for (size_t vi = 0; vi < NVARIANTS; vi++) {
            const variant *var = &variants[vi];
            float ms[BENCH_RUNS];
            for (int r = 0; r < BENCH_WARM + BENCH_RUNS; r++) {
                CUDA_OK(cudaEventRecord(a, g_stream));
                cuzk_gpu_ntt_extra ex = {NULL, NULL, NULL, NULL, (cuzk_fr *)d2};
                int rc = cuzk_gpu_ntt_ex((cuzk_fr *)d, lg, var->dir, var->ord, var->coset, &dom,
                                         var->dst ? &ex : NULL, g_stream, err, sizeof err);
                if (rc != CUZK_OK) {
                    fprintf(stderr, "cuzk_gpu_ntt: %s\n", err);
                    return 1;
                }
                CUDA_OK(cudaEventRecord(b, g_stream));
                CUDA_OK(cudaEventSynchronize(b));
                if (r >= BENCH_WARM)
                    CUDA_OK(cudaEventElapsedTime(&ms[r - BENCH_WARM], a, b));
            }
            printf("bench 2^%u %-16s runs(ms):", lg, var->name);
            for (int r = 0; r < BENCH_RUNS; r++)
                printf(" %.3f", ms[r]);
            printf("\n");
            float lo, hi, med = median_of(ms, BENCH_RUNS, &lo, &hi);
            double bfly = (double)(n / 2) * lg;
            tl += snprintf(table + tl, sizeof table - tl, "| 2^%u | %s | %.3f | %.3f | %.3f | %.1f |\n", lg,
                           var->name, med, lo, hi, bfly / (med * 1e-3) / 1e9);
        }
        cuzk_ntt_domain_release(&dom);
    }
    /* Pinned copies at the largest size, for context. */
    float h2d[5], d2h[5], lo, hi;
    for (int r = 0; r < 6; r++) {
        float t1, t2;
        CUDA_OK(cudaEventRecord(a, g_stream));
        CUDA_OK(cudaMemcpyAsync(d, h, cap * sizeof(fr_t), cudaMemcpyHostToDevice, g_stream));
        CUDA_OK(cudaEventRecord(b, g_stream));
        CUDA_OK(cudaEventSynchronize(b));
        CUDA_OK(cudaEventElapsedTime(&t1, a, b));
        CUDA_OK(cudaEventRecord(a, g_stream));
        CUDA_OK(cudaMemcpyAsync(h, d, cap * sizeof(fr_t), cudaMemcpyDeviceToHost, g_stream));
        CUDA_OK(cudaEventRecord(b, g_stream));
        CUDA_OK(cudaEventSynchronize(b));
        CUDA_OK(cudaEventElapsedTime(&t2, a, b));
        if (r > 0) {
            h2d[r - 1] = t1;
            d2h[r - 1] = t2;
        }
    }
    float mh = median_of(h2d, 5, &lo, &hi), md = median_of(d2h, 5, &lo, &hi);
    double gb = cap * sizeof(fr_t) / 1e9;
    tl += snprintf(table + tl, sizeof table - tl,
                   "| 2^%u | H2D pinned (%.2f GB) | %.3f | | | %.1f GB/s |\n| 2^%u | D2H pinned | %.3f | | | "
                   "%.1f GB/s |\n",
                   maxlg, gb, mh, gb / (mh * 1e-3), maxlg, md, gb / (md * 1e-3));
    printf("\n%s", table);
    cudaFree(d);
    cudaFree(d2);
    cudaFreeHost(h);
    return 0;
}

/* A few single transforms on random data, for running under a profiler. */
static int cmd_once(int argc, char **argv)
{
    unsigned lg = argc > 0 ? (unsigned)atoi(argv[0]) : 24;
    if (lg < 1 || lg > CUZK_NTT_MAX_LG)
        return 2;
    size_t n = (size_t)1 << lg;
    cuzk_fr *h = (cuzk_fr *)xmalloc(n * sizeof *h);
    rand_fill(h, n);
    fr_t *d;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(fr_t)));
    CUDA_OK(h2d(d, h, n * sizeof(fr_t), g_stream));
    cuzk_ntt_domain dom;
    char err[256];
    if (cuzk_ntt_domain_init(&dom, lg, CUZK_NTT_BELLPERSON, err, sizeof err) != CUZK_OK)
        return 2;
    int rc =
        cuzk_gpu_ntt((cuzk_fr *)d, lg, CUZK_NTT_FORWARD, CUZK_NTT_NR, false, &dom, g_stream, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_gpu_ntt((cuzk_fr *)d, lg, CUZK_NTT_FORWARD, CUZK_NTT_NN, true, &dom, g_stream, err,
                          sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_gpu_ntt((cuzk_fr *)d, lg, CUZK_NTT_INVERSE, CUZK_NTT_NN, true, &dom, g_stream, err,
                          sizeof err);
    CUDA_OK(cudaStreamSynchronize(g_stream));
    if (rc != CUZK_OK)
        fprintf(stderr, "cuzk_gpu_ntt: %s\n", err);
    cuzk_ntt_domain_release(&dom);
    cudaFree(d);
    free(h);
    return rc == CUZK_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "check";
    test_rng_init("test_gpu_ntt");
    g_pool = cuzk_pool_new(0);
    if (!g_pool) {
        fprintf(stderr, "cannot start the thread pool\n");
        return 2;
    }
    if (strcmp(cmd, "host") == 0) {
        check_field_host();
        check_mul_variants();
        return test_finish("test_gpu_ntt host");
    }
    char desc[256];
    if (cuzk_gpu_device_count() < 1 || cuzk_gpu_device_describe(0, desc, sizeof desc) != CUZK_OK) {
        fprintf(stderr, "test_gpu_ntt: no CUDA device\n");
        return 2;
    }
    printf("device 0: %s; host threads: %d\n", desc, cuzk_pool_size(g_pool));
    CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    int rc;
    if (strcmp(cmd, "check") == 0)
        rc = cmd_check(argc - 2, argv + 2);
    else if (strcmp(cmd, "bench") == 0)
        rc = cmd_bench(argc - 2, argv + 2);
    else if (strcmp(cmd, "once") == 0)
        rc = cmd_once(argc - 2, argv + 2);
    else {
        fprintf(stderr, "usage: test_gpu_ntt check [LG...] | bench [LG...] | once LG | host\n");
        rc = 2;
    }
    cudaStreamDestroy(g_stream);
    cuzk_pool_free(g_pool);
    return rc;
}
