/*
 * test_gpu_msm.cu — the GPU MSM (cuzk/gpu_msm.h) against independent results,
 * and its benchmark. Needs a CUDA device; built only where nvcc exists and
 * not registered with ctest (CI has no GPU): scripts/gpu-check.sh runs it.
 *
 *   test_gpu_msm check            G1 and G2 against the CPU MSM (cuzk_g1_msm /
 *                                 cuzk_g2_msm) on fresh random inputs of many
 *                                 sizes and scalar shapes, every window width,
 *                                 identity and duplicate bases, bad arguments
 *   test_gpu_msm bench [LG...]    G1 MSM at 2^LG (default 20 24 26 27) with
 *                                 uniform scalars below 2^254, uniform below r
 *                                 (H's shape: the top window is a carry), a
 *                                 0/1-heavy witness shape and uniform with 1/16
 *                                 of the scalars equal; G1 as by default, then
 *                                 with XYZZ work items only; G2 at 2^24 (or the largest
 *                                 LG <= 24) below r and in the witness shape
 *                                 (B2's split: ones, tail); median of 5 after a
 *                                 warm-up; each size's last result checked
 *                                 against the closed form below
 *   test_gpu_msm bench-tree LG [PARTS]
 *                                 G1 at 2^LG - 1 scalars below r, c = 20, the
 *                                 tree's rounds cut into 1, 2, 3 and 4 parts
 *                                 (or PARTS only)
 *   test_gpu_msm bench-table LG   the witness shape (50/49/1) at 2^LG (G1) and
 *                                 2^min(LG, 24) (G2), the bases as they are and
 *                                 as group tables of k = 2, 3, 4
 *   test_gpu_msm bench-c LG [g2]  G1 (or G2) at 2^LG - 1 and 2^LG scalars below
 *                                 r: the library's window width, then every c
 *                                 from max(4, LG - 10) to 20 with work items and
 *                                 (G1, from 2^22 on) with the batch-affine tree
 *
 * Independent oracle at every size. The bases are P_i = [a + i]G for a random
 * a, made on the host by repeated addition (G1/G2 code of the CPU library, in
 * parallel chunks). Then sum k_i P_i = [sum k_i (a + i)]G, and the scalar sum
 * is O(n) field arithmetic: a check that costs one scalar multiplication
 * however large the MSM. Every run draws fresh inputs (CUZK_TEST_SEED replays).
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/curve.h"
#include "cuzk/gpu.h"
#include "cuzk/gpu_msm.h"
#include "cuzk/msm.h"
#include "cuzk/pool.h"
extern "C" {
#include "testutil.h"
}
#include "gputest.h"

static cudaStream_t g_stream;
static cuzk_pool *g_pool;

/* ---- the two groups behind one interface ------------------------------------- */

template <int G> struct grp;
template <> struct grp<1> {
    typedef cuzk_g1_affine A;
    typedef cuzk_g1 J;
    typedef cuzk_fp F;
    static const char *name() { return "G1"; }
    static const A &gen() { return CUZK_G1_GENERATOR; }
    static void from_affine(J *r, const A *a) { cuzk_g1_from_affine(r, a); }
    static void mul_fr(J *r, const J *a, const cuzk_fr *k) { cuzk_g1_mul_fr(r, a, k); }
    static void add_affine(J *r, const J *a, const A *b) { cuzk_g1_add_affine(r, a, b); }
    static void to_affine_n(A *o, const J *in, size_t n, F *s) { cuzk_g1_batch_to_affine(o, in, n, s); }
    static bool eq(const J *a, const J *b) { return cuzk_g1_eq(a, b); }
    static int cpu_msm(J *r, const A *b, const cuzk_fr *k, size_t n) { return cuzk_g1_msm(r, b, k, n, g_pool); }
    static int gpu_msm(J *r, const A *b, const cuzk_fr *k, size_t n, cuzk_gpu_msm *ws, unsigned c,
                       cuzk_gpu_msm_stats *st, char *err, size_t el)
    {
        return cuzk_gpu_g1_msm(r, b, k, n, ws, c, g_stream, st, err, el);
    }
    static int table(A *out, const A *b, size_t n, unsigned k) { return cuzk_g1_group_table(out, b, n, k, g_pool); }
    static int gpu_msm_table(J *r, const A *t, unsigned tk, const cuzk_fr *k, size_t n, cuzk_gpu_msm *ws,
                             unsigned c, cuzk_gpu_msm_stats *st, char *err, size_t el)
    {
        return cuzk_gpu_g1_msm_table(r, t, tk, k, n, ws, c, g_stream, st, err, el);
    }
    static const cuzk_gpu_group group = CUZK_GPU_G1;
};
template <> struct grp<2> {
    typedef cuzk_g2_affine A;
    typedef cuzk_g2 J;
    typedef cuzk_fp2 F;
    static const char *name() { return "G2"; }
    static const A &gen() { return CUZK_G2_GENERATOR; }
    static void from_affine(J *r, const A *a) { cuzk_g2_from_affine(r, a); }
    static void mul_fr(J *r, const J *a, const cuzk_fr *k) { cuzk_g2_mul_fr(r, a, k); }
    static void add_affine(J *r, const J *a, const A *b) { cuzk_g2_add_affine(r, a, b); }
    static void to_affine_n(A *o, const J *in, size_t n, F *s) { cuzk_g2_batch_to_affine(o, in, n, s); }
    static bool eq(const J *a, const J *b) { return cuzk_g2_eq(a, b); }
    static int cpu_msm(J *r, const A *b, const cuzk_fr *k, size_t n) { return cuzk_g2_msm(r, b, k, n, g_pool); }
    static int gpu_msm(J *r, const A *b, const cuzk_fr *k, size_t n, cuzk_gpu_msm *ws, unsigned c,
                       cuzk_gpu_msm_stats *st, char *err, size_t el)
    {
        return cuzk_gpu_g2_msm(r, b, k, n, ws, c, g_stream, st, err, el);
    }
    static int table(A *out, const A *b, size_t n, unsigned k) { return cuzk_g2_group_table(out, b, n, k, g_pool); }
    static int gpu_msm_table(J *r, const A *t, unsigned tk, const cuzk_fr *k, size_t n, cuzk_gpu_msm *ws,
                             unsigned c, cuzk_gpu_msm_stats *st, char *err, size_t el)
    {
        return cuzk_gpu_g2_msm_table(r, t, tk, k, n, ws, c, g_stream, st, err, el);
    }
    static const cuzk_gpu_group group = CUZK_GPU_G2;
};

/* ---- inputs --------------------------------------------------------------------- */

#define CHUNK 65536
#define MSM_BENCH_MAX_C 20 /* the library's widest window */

/* bases[i] = [a + i]G, chunk by chunk in parallel */
template <int G> struct prog_ctx {
    typename grp<G>::A *out;
    size_t n;
    cuzk_fr a;
};

template <int G> static void prog_task(void *vctx, size_t task, int worker)
{
    typedef grp<G> T;
    prog_ctx<G> *c = (prog_ctx<G> *)vctx;
    size_t lo = task * CHUNK, hi = lo + CHUNK < c->n ? lo + CHUNK : c->n;
    cuzk_fr e = c->a, step;
    /* e = a + lo */
    uint64_t lo_limbs[4] = {lo, 0, 0, 0};
    cuzk_fr_from_canonical(&step, lo_limbs);
    cuzk_fr_add(&e, &e, &step);
    typename T::J *jac = (typename T::J *)malloc((hi - lo) * sizeof(typename T::J));
    typename T::F *scr = (typename T::F *)malloc((hi - lo) * sizeof(typename T::F));
    if (!jac || !scr) {
        fprintf(stderr, "out of host memory\n");
        exit(2);
    }
    typename T::J g;
    T::from_affine(&g, &T::gen());
    T::mul_fr(&jac[0], &g, &e);
    for (size_t i = 1; i < hi - lo; i++)
        T::add_affine(&jac[i], &jac[i - 1], &T::gen());
    T::to_affine_n(c->out + lo, jac, hi - lo, scr);
    free(jac);
    free(scr);
}

template <int G> static void make_bases(typename grp<G>::A *out, size_t n, const cuzk_fr *a)
{
    prog_ctx<G> c = {out, n, *a};
    cuzk_pool_run(g_pool, (n + CHUNK - 1) / CHUNK, prog_task<G>, &c);
}

/* s = sum k_i (a + i), per chunk in parallel */
struct oracle_ctx {
    const cuzk_fr *k;
    size_t n;
    cuzk_fr a;
    cuzk_fr *part;
};

static void oracle_task(void *vctx, size_t task, int worker)
{
    oracle_ctx *c = (oracle_ctx *)vctx;
    size_t lo = task * CHUNK, hi = lo + CHUNK < c->n ? lo + CHUNK : c->n;
    cuzk_fr e = c->a, t, s = CUZK_FR_ZERO;
    uint64_t lo_limbs[4] = {lo, 0, 0, 0};
    cuzk_fr_from_canonical(&t, lo_limbs);
    cuzk_fr_add(&e, &e, &t);
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr_mul(&t, &c->k[i], &e);
        cuzk_fr_add(&s, &s, &t);
        cuzk_fr_add(&e, &e, &CUZK_FR_ONE);
    }
    c->part[task] = s;
}

template <int G> static void oracle(typename grp<G>::J *out, const cuzk_fr *k, size_t n, const cuzk_fr *a)
{
    size_t nt = (n + CHUNK - 1) / CHUNK;
    cuzk_fr *part = (cuzk_fr *)calloc(nt, sizeof(cuzk_fr));
    oracle_ctx c = {k, n, *a, part};
    cuzk_pool_run(g_pool, nt, oracle_task, &c);
    cuzk_fr s = CUZK_FR_ZERO;
    for (size_t i = 0; i < nt; i++)
        cuzk_fr_add(&s, &s, &part[i]);
    free(part);
    typename grp<G>::J g;
    grp<G>::from_affine(&g, &grp<G>::gen());
    grp<G>::mul_fr(out, &g, &s);
}

enum {
    SH_UNIFORM,
    SH_SPLIT,
    SH_TWOS,
    SH_ONES,
    SH_ZEROS,
    SH_SMALL_NEG,
    SH_PR_WITNESS,
    SH_FULL,
    SH_SKEW,
    SH_COUNT
};
static const char *shape_name[] = {"uniform",         "split 50/45/5", "all 2",
                                   "all 1",           "all 0",         "small/-1 mix",
                                   "witness 50/49/1", "uniform < r",   "uniform, 1/16 equal"};

/* Fresh random scalars of a shape. */
struct scal_ctx {
    cuzk_fr *k;
    size_t n;
    int shape;
    uint64_t seed;
};

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void scal_task(void *vctx, size_t task, int worker)
{
    scal_ctx *c = (scal_ctx *)vctx;
    size_t lo = task * CHUNK, hi = lo + CHUNK < c->n ? lo + CHUNK : c->n;
    uint64_t s = c->seed ^ (task * 0x632be59bd9b4e019ull);
    cuzk_fr two, minus_one;
    cuzk_fr_dbl(&two, &CUZK_FR_ONE);
    cuzk_fr_neg(&minus_one, &CUZK_FR_ONE);
    uint64_t s0 = c->seed, we[4] = {splitmix(&s0), splitmix(&s0), splitmix(&s0), splitmix(&s0) >> 2};
    cuzk_fr equal; /* SH_SKEW's repeated value: one per call, the same in every task */
    cuzk_fr_from_canonical(&equal, we);
    for (size_t i = lo; i < hi; i++) {
        uint64_t w[4] = {splitmix(&s), splitmix(&s), splitmix(&s), splitmix(&s) >> 2}; /* < 2^254 < r */
        uint64_t u = splitmix(&s) % 100;
        cuzk_fr *k = &c->k[i];
        switch (c->shape) {
        case SH_UNIFORM: cuzk_fr_from_canonical(k, w); break;
        case SH_SKEW: /* one key of every window holds 1/16 of the entries */
            if (i % 16 == 0)
                *k = equal;
            else
                cuzk_fr_from_canonical(k, w);
            break;
        case SH_FULL: /* below r through the top word, so bit 254 is set about half the time (H's scalars) */
            w[3] = splitmix(&s) % 0x73eda753299d7d48ull;
            cuzk_fr_from_canonical(k, w);
            break;
        case SH_SPLIT:
            if (u < 50)
                *k = CUZK_FR_ZERO;
            else if (u < 95)
                *k = CUZK_FR_ONE;
            else
                cuzk_fr_from_canonical(k, w);
            break;
        case SH_TWOS: *k = two; break;
        case SH_ONES: *k = CUZK_FR_ONE; break;
        case SH_ZEROS: *k = CUZK_FR_ZERO; break;
        case SH_SMALL_NEG:
            if (u < 40) {
                uint64_t v[4] = {w[0] & 0xfffff, 0, 0, 0};
                cuzk_fr_from_canonical(k, v);
            } else if (u < 70)
                *k = minus_one;
            else
                cuzk_fr_from_canonical(k, w);
            break;
        default: /* SH_PR_WITNESS */
            if (u < 50)
                *k = CUZK_FR_ZERO;
            else if (u < 99)
                *k = CUZK_FR_ONE;
            else
                cuzk_fr_from_canonical(k, w);
        }
    }
}

static void make_scalars(cuzk_fr *k, size_t n, int shape)
{
    scal_ctx c = {k, n, shape, test_rand64()};
    cuzk_pool_run(g_pool, (n + CHUNK - 1) / CHUNK, scal_task, &c);
}

/* ---- check ------------------------------------------------------------------------ */

template <int G>
static void check_one(cuzk_gpu_msm *ws, typename grp<G>::A *db, cuzk_fr *dk, const typename grp<G>::A *b,
                      const cuzk_fr *k, size_t n, unsigned c, const char *what, const cuzk_fr *prog_a)
{
    typedef grp<G> T;
    typename T::J got, want;
    char err[256] = "";
    memset(&got, 0xa5, sizeof got); /* poison */
    CUDA_OK(h2d(db, b, n * sizeof *b, g_stream));
    CUDA_OK(h2d(dk, k, n * sizeof *k, g_stream));
    int rc = T::gpu_msm(&got, db, dk, n, ws, c, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s %s n=%zu c=%u: rc %d %s", T::name(), what, n, c, rc, err);
    if (rc != CUZK_OK)
        return;
    if (prog_a) {
        oracle<G>(&want, k, n, prog_a);
        CHECK(T::eq(&got, &want), "%s %s n=%zu c=%u: differs from the closed form", T::name(), what, n, c);
    }
    if (n <= ((size_t)1 << 17)) {
        CHECK(T::cpu_msm(&want, b, k, n) == CUZK_OK, "cpu msm");
        bool ok = T::eq(&got, &want);
        CHECK(ok, "%s %s n=%zu c=%u: differs from the CPU MSM", T::name(), what, n, c);
        if (!ok) { /* what else fails on the same input: the same call again, then every window width */
            typename T::J again;
            cuzk_gpu_msm_stats st;
            rc = T::gpu_msm(&again, db, dk, n, ws, c, &st, err, sizeof err);
            fprintf(stderr, "  again: %s (tail %zu, c %u, W %u)\n",
                    rc                     ? err
                    : T::eq(&again, &want) ? "right"
                                           : "wrong",
                    st.n_tail, st.window, st.windows);
            for (unsigned w = 2; w <= 20; w++) {
                rc = T::gpu_msm(&again, db, dk, n, ws, w, &st, err, sizeof err);
                fprintf(stderr, "  c=%u: %s\n", w, rc ? err : T::eq(&again, &want) ? "right" : "wrong");
            }
        }
    }
}

static size_t largest(const size_t *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

/* Every shape at every size, window widths, identity and duplicate bases, k·P + (−k)·P. G1 only: tree_min
 * and tree_finish set the batch-affine tree's use (0: the workspace's defaults); lend: the tree's lists in
 * a lent region, poisoned first (and a region one byte too small is refused for the workspace's own). */
template <int G>
static void check_group(const size_t *sizes, size_t nsizes, size_t tree_min = 0, size_t tree_finish = 0,
                        bool lend = false, unsigned parts = 0)
{
    typedef grp<G> T;
    size_t nmax = largest(sizes, nsizes);
    char err[256] = "";
    cuzk_gpu_msm *ws = NULL;
    void *lent = NULL;
    size_t lent_bytes = lend ? cuzk_gpu_msm_lendable_bytes(T::group, nmax) : 0;
    CHECK(!lend || G == 2 || lent_bytes > nmax * 48, "G1 lendable bytes %zu for %zu points", lent_bytes,
          nmax);
    if (lent_bytes) {
        CUDA_OK(cudaMalloc(&lent, lent_bytes));
        CUDA_OK(cudaMemset(lent, 0xa5, lent_bytes));
    }
    int rc = cuzk_gpu_msm_new_lent(&ws, T::group, nmax, lent, lent_bytes, err, sizeof err);
    CHECK(rc == CUZK_OK, "workspace: %s", err);
    if (rc) {
        cudaFree(lent);
        return;
    }
    if (tree_min)
        cuzk_gpu_msm_set_tree(ws, tree_min, tree_finish);
    if (parts) /* every round cut, however small */
        cuzk_gpu_msm_set_tree_parts(ws, parts, 1);
    typename T::A *b = (typename T::A *)malloc(nmax * sizeof *b), *db;
    cuzk_fr *k = (cuzk_fr *)malloc(nmax * sizeof *k), *dk;
    CUDA_OK(cudaMalloc((void **)&db, nmax * sizeof *b));
    CUDA_OK(cudaMalloc((void **)&dk, nmax * sizeof *k));
    cuzk_fr a;
    test_rand_fr(&a);
    make_bases<G>(b, nmax, &a);

    for (size_t si = 0; si < nsizes; si++) {
        size_t n = sizes[si];
        for (int sh = 0; sh < SH_COUNT; sh++) {
            make_scalars(k, n, sh);
            check_one<G>(ws, db, dk, b, k, n, 0, shape_name[sh], &a);
        }
    }
    /* every window width on one size */
    size_t n = nmax < 3001 ? nmax : 3001;
    make_scalars(k, n, SH_UNIFORM);
    for (unsigned c = 2; c <= 20; c++)
        check_one<G>(ws, db, dk, b, k, n, c, "window sweep", &a);
    make_scalars(k, n, SH_SMALL_NEG);
    for (unsigned c = 2; c <= 20; c += 3)
        check_one<G>(ws, db, dk, b, k, n, c, "window sweep small/-1", &a);

    /* identity bases and duplicates: the CPU MSM is the reference */
    if (nmax >= 1000) {
        typename T::A *b2 = (typename T::A *)malloc(1000 * sizeof *b2);
        memcpy(b2, b, 1000 * sizeof *b2);
        for (size_t i = 0; i < 1000; i += 7)
            memset(&b2[i], 0, sizeof b2[i]);
        for (size_t i = 3; i < 1000; i += 5)
            b2[i] = b2[i - 2];
        for (int sh = 0; sh < SH_COUNT; sh++) {
            make_scalars(k, 1000, sh);
            check_one<G>(ws, db, dk, b2, k, 1000, 0, "identity+duplicate bases", NULL);
        }
        /* P twice with scalars k and -k: the sum is the identity */
        memcpy(b2, b, 1000 * sizeof *b2);
        for (size_t i = 1; i < 1000; i += 2)
            b2[i] = b2[i - 1];
        make_scalars(k, 1000, SH_UNIFORM);
        for (size_t i = 1; i < 1000; i += 2)
            cuzk_fr_neg(&k[i], &k[i - 1]);
        CUDA_OK(h2d(db, b2, 1000 * sizeof *b2, g_stream));
        CUDA_OK(h2d(dk, k, 1000 * sizeof *k, g_stream));
        typename T::J got, id;
        memset(&id, 0, sizeof id);
        rc = T::gpu_msm(&got, db, dk, 1000, ws, 0, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK && T::eq(&got, &id), "%s: k·P + (-k)·P is not the identity", T::name());
        free(b2);
    }
    /* bad arguments */
    typename T::J r;
    CHECK(T::gpu_msm(&r, db, dk, nmax + 1, ws, 0, NULL, err, sizeof err) == CUZK_EINVAL, "n > n_max");
    CHECK(T::gpu_msm(&r, db, dk, 10, ws, 1, NULL, err, sizeof err) == CUZK_EINVAL, "window 1");
    CHECK(T::gpu_msm(&r, db, dk, 10, ws, 21, NULL, err, sizeof err) == CUZK_EINVAL, "window 21");
    CHECK(T::gpu_msm(&r, db, dk, 0, ws, 0, NULL, err, sizeof err) == CUZK_OK, "n = 0");
    cuzk_gpu_msm *other = NULL;
    if (cuzk_gpu_msm_new(&other, G == 1 ? CUZK_GPU_G2 : CUZK_GPU_G1, 16, err, sizeof err) == CUZK_OK) {
        CHECK(T::gpu_msm(&r, db, dk, 10, other, 0, NULL, err, sizeof err) == CUZK_EINVAL, "wrong group");
        cuzk_gpu_msm_free(other);
    }
    CHECK(cuzk_gpu_msm_new(&other, T::group, 0, err, sizeof err) == CUZK_EINVAL, "n_max = 0");
    if (lent) { /* too small a region: the workspace allocates its own, and the region stays untouched */
        CUDA_OK(cudaMemset(lent, 0x3c, lent_bytes));
        rc = cuzk_gpu_msm_new_lent(&other, T::group, nmax, lent, lent_bytes - 1, err, sizeof err);
        CHECK(rc == CUZK_OK, "workspace with a short lent region: %s", err);
        if (rc == CUZK_OK) {
            cuzk_gpu_msm_set_tree(other, tree_min, tree_finish);
            size_t n1 = nmax < 4097 ? nmax : 4097;
            make_scalars(k, n1, SH_UNIFORM);
            check_one<G>(other, db, dk, b, k, n1, 0, "short lent region", &a);
            cuzk_gpu_msm_free(other);
            uint8_t *h = (uint8_t *)malloc(lent_bytes);
            CUDA_OK(cudaMemcpy(h, lent, lent_bytes, cudaMemcpyDeviceToHost));
            size_t touched = 0;
            for (size_t i = 0; i < lent_bytes; i++)
                touched += h[i] != 0x3c;
            CHECK(touched == 0, "a short lent region was written (%zu bytes)", touched);
            free(h);
        }
    }
    cuzk_gpu_msm_free(ws);
    cudaFree(lent);
    cudaFree(db);
    cudaFree(dk);
    free(b);
    free(k);
}

/* The ones' sum cut into several launches (cuzk_gpu_msm_set_ones_split): sizes above one launch's
 * threads, every shape the cut meets (all ones, about half, none), against the closed form. */
template <int G> static void check_ones_split(size_t n, const unsigned *splits, size_t nsplits)
{
    typedef grp<G> T;
    char err[256] = "";
    cuzk_gpu_msm *ws = NULL;
    int rc = cuzk_gpu_msm_new(&ws, T::group, n, err, sizeof err);
    CHECK(rc == CUZK_OK, "workspace: %s", err);
    if (rc)
        return;
    typename T::A *b = (typename T::A *)malloc(n * sizeof *b), *db;
    cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof *k), *dk, a;
    CUDA_OK(cudaMalloc((void **)&db, n * sizeof *b));
    CUDA_OK(cudaMalloc((void **)&dk, n * sizeof *k));
    test_rand_fr(&a);
    make_bases<G>(b, n, &a);
    static const int shapes[] = {SH_ONES, SH_PR_WITNESS, SH_SPLIT, SH_ZEROS};
    for (size_t si = 0; si < nsplits; si++) {
        cuzk_gpu_msm_set_ones_split(ws, splits[si]);
        for (size_t h = 0; h < sizeof shapes / sizeof shapes[0]; h++) {
            char what[64];
            snprintf(what, sizeof what, "%s, ones in %u launches", shape_name[shapes[h]], splits[si]);
            make_scalars(k, n, shapes[h]);
            check_one<G>(ws, db, dk, b, k, n, 0, what, &a);
        }
    }
    cuzk_gpu_msm_free(ws);
    cudaFree(db);
    cudaFree(dk);
    free(b);
    free(k);
}

/* The MSM over a group table (cuzk_gpu_g*_msm_table, docs/design/020): for every k, sizes that end in a
 * partial group, every scalar shape, against the closed form (and the CPU MSM up to 2^17): the ones' sum
 * from the groups' entries, the tail from the singletons, through the work items and (G1, tree_min = 1)
 * the batch-affine tree; the ones cut into 3 launches at one size, several windows at another; bad k and n
 * refused. The table is made on the host for each size (a partial last group differs from a longer
 * table's), and the device copy is poisoned past its end. */
template <int G> static void check_table(const size_t *sizes, size_t nsizes, size_t tree_min)
{
    typedef grp<G> T;
    size_t nmax = largest(sizes, nsizes);
    char err[256] = "";
    cuzk_gpu_msm *ws = NULL;
    int rc = cuzk_gpu_msm_new(&ws, T::group, nmax, err, sizeof err);
    CHECK(rc == CUZK_OK, "workspace: %s", err);
    if (rc)
        return;
    if (tree_min)
        cuzk_gpu_msm_set_tree(ws, tree_min, 0);
    size_t tmax = cuzk_group_table_len(nmax, CUZK_GROUP_TABLE_MAX_K); /* the longest: 15 entries for 4 */
    typename T::A *b = (typename T::A *)malloc(nmax * sizeof *b), *t = (typename T::A *)malloc(tmax * sizeof *t);
    typename T::A *dt;
    cuzk_fr *k = (cuzk_fr *)malloc(nmax * sizeof *k), *dk, a;
    CUDA_OK(cudaMalloc((void **)&dt, tmax * sizeof *t));
    CUDA_OK(cudaMalloc((void **)&dk, nmax * sizeof *k));
    test_rand_fr(&a);
    make_bases<G>(b, nmax, &a);
    for (unsigned tk = 2; tk <= CUZK_GROUP_TABLE_MAX_K; tk++)
        for (size_t si = 0; si < nsizes; si++) {
            size_t n = sizes[si], len = cuzk_group_table_len(n, tk);
            CHECK(T::table(t, b, n, tk) == CUZK_OK, "%s group table of %zu, k = %u", T::name(), n, tk);
            CUDA_OK(cudaMemset(dt, 0xa5, tmax * sizeof *t));
            CUDA_OK(h2d(dt, t, len * sizeof *t, g_stream));
            cuzk_gpu_msm_set_ones_split(ws, si == 1 ? 3 : 0);
            for (int sh = 0; sh < SH_COUNT; sh++) {
                make_scalars(k, n, sh);
                CUDA_OK(h2d(dk, k, n * sizeof *k, g_stream));
                unsigned c = si == 0 ? 2 + 2 * (unsigned)sh : 0; /* the smallest size: forced windows */
                typename T::J got, want;
                memset(&got, 0xa5, sizeof got);
                rc = T::gpu_msm_table(&got, dt, tk, dk, n, ws, c, NULL, err, sizeof err);
                CHECK(rc == CUZK_OK, "%s table k=%u %s n=%zu: rc %d %s", T::name(), tk, shape_name[sh], n, rc,
                      err);
                if (rc)
                    continue;
                oracle<G>(&want, k, n, &a);
                CHECK(T::eq(&got, &want), "%s table k=%u %s n=%zu c=%u: differs from the closed form",
                      T::name(), tk, shape_name[sh], n, c);
                if (n <= ((size_t)1 << 17)) {
                    CHECK(T::cpu_msm(&want, b, k, n) == CUZK_OK, "cpu msm");
                    CHECK(T::eq(&got, &want), "%s table k=%u %s n=%zu: differs from the CPU MSM", T::name(),
                          tk, shape_name[sh], n);
                }
            }
        }
    cuzk_gpu_msm_set_ones_split(ws, 0);
    typename T::J r;
    CHECK(T::gpu_msm_table(&r, dt, 1, dk, 10, ws, 0, NULL, err, sizeof err) == CUZK_EINVAL, "table k = 1");
    CHECK(T::gpu_msm_table(&r, dt, 5, dk, 10, ws, 0, NULL, err, sizeof err) == CUZK_EINVAL, "table k = 5");
    CHECK(T::gpu_msm_table(&r, dt, 2, dk, nmax + 1, ws, 0, NULL, err, sizeof err) == CUZK_EINVAL,
          "table n > n_max");
    cuzk_gpu_msm_free(ws);
    cudaFree(dt);
    cudaFree(dk);
    free(b);
    free(t);
    free(k);
}

static int cmd_check(void)
{
    static const size_t g1_sizes[] = {1, 2, 3, 17, 100, 1000, 4097, 16389, 65536, 131072};
    static const size_t g2_sizes[] = {1, 5, 100, 1000, 4099, 16384};
    double t0 = now_s();
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0]);
    printf("G1 checks done (%.1f s)\n", now_s() - t0);
    /* every G1 window by the batch-affine tree: to the end, and ended by XYZZ sums below 256 slots */
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], 1, 0);
    printf("G1 checks with the tree to the end done (%.1f s)\n", now_s() - t0);
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], 1, 256, true);
    printf("G1 checks with the tree ended early, its lists lent, done (%.1f s)\n", now_s() - t0);
    /* every round cut into batches over two streams: 3 parts (two on the caller's stream) to the end, 2
     * parts ended early with lent lists, 1 part (uncut) */
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], 1, 0, false, 3);
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], 1, 256, true, 2);
    check_group<1>(g1_sizes, sizeof g1_sizes / sizeof g1_sizes[0], 1, 0, false, 1);
    printf("G1 checks with the tree's rounds cut into 3, 2 and 1 parts done (%.1f s)\n", now_s() - t0);
    check_group<2>(g2_sizes, sizeof g2_sizes / sizeof g2_sizes[0]);
    printf("G2 checks done (%.1f s)\n", now_s() - t0);
    /* 600,001 ones take 5 grid-stride steps (3 launches of 2 steps, 5 of 1, or fewer launches than asked);
     * 300,007 take 3 */
    static const unsigned g1_splits[] = {1, 2, 3, 5, 64}, g2_splits[] = {2, 3};
    check_ones_split<1>(600001, g1_splits, sizeof g1_splits / sizeof g1_splits[0]);
    check_ones_split<2>(300007, g2_splits, sizeof g2_splits / sizeof g2_splits[0]);
    printf("ones' sums cut into launches done (%.1f s)\n", now_s() - t0);
    static const size_t table_g1[] = {7, 1001, 65537, 600001}, table_g2[] = {7, 1001, 65537};
    check_table<1>(table_g1, sizeof table_g1 / sizeof table_g1[0], 0);
    check_table<1>(table_g1, 3, 1); /* every window by the batch-affine tree */
    check_table<2>(table_g2, sizeof table_g2 / sizeof table_g2[0], 0);
    printf("MSMs over group tables done (%.1f s)\n", now_s() - t0);
    return test_finish("test_gpu_msm check");
}

/* ---- bench -------------------------------------------------------------------------- */

/* A benchmark's inputs at 2^lg: bases P_i = [a + i]G on the host and the device, room for the scalars,
 * and a workspace. Exits on failure (a benchmark has nothing to fall back to). */
template <int G> struct bench_in {
    size_t n;
    typename grp<G>::A *b, *db;
    cuzk_fr *k, *dk, a;
    cuzk_gpu_msm *ws;
    double s_bases; /* seconds to make the bases on the host */
};

template <int G> static void bench_in_make(bench_in<G> &in, unsigned lg)
{
    char err[256] = "";
    size_t n = in.n = (size_t)1 << lg;
    in.b = (typename grp<G>::A *)malloc(n * sizeof *in.b);
    in.k = (cuzk_fr *)malloc(n * sizeof *in.k);
    if (!in.b || !in.k) {
        fprintf(stderr, "out of host memory at 2^%u\n", lg);
        exit(2);
    }
    test_rand_fr(&in.a);
    double t0 = now_s();
    make_bases<G>(in.b, n, &in.a);
    in.s_bases = now_s() - t0;
    CUDA_OK(cudaMalloc((void **)&in.db, n * sizeof *in.b));
    CUDA_OK(cudaMalloc((void **)&in.dk, n * sizeof *in.k));
    CUDA_OK(h2d(in.db, in.b, n * sizeof *in.b, g_stream));
    in.ws = NULL;
    if (cuzk_gpu_msm_new(&in.ws, grp<G>::group, n, err, sizeof err) != CUZK_OK) {
        fprintf(stderr, "workspace at 2^%u: %s\n", lg, err);
        exit(2);
    }
}

template <int G> static void bench_in_free(bench_in<G> &in)
{
    cuzk_gpu_msm_free(in.ws);
    cudaFree(in.db);
    cudaFree(in.dk);
    free(in.b);
    free(in.k);
}

template <int G> static void bench_group(unsigned lg, const int *shapes, int nshapes)
{
    typedef grp<G> T;
    char err[256] = "";
    bench_in<G> in;
    bench_in_make<G>(in, lg);
    size_t n = in.n;
    typename T::A *db = in.db;
    cuzk_fr *k = in.k, *dk = in.dk, a = in.a;
    cuzk_gpu_msm *ws = in.ws;
    double t_gen = in.s_bases;
    printf("%s 2^%u: bases made in %.1f s (host), workspace %.2f GiB\n", T::name(), lg, t_gen,
           cuzk_gpu_msm_workspace_bytes(T::group, n) / 1073741824.0);
    for (int si = 0; si < nshapes; si++) {
        int sh = shapes[si];
        make_scalars(k, n, sh);
        CUDA_OK(h2d(dk, k, n * sizeof *k, g_stream));
        for (int tree = G == 1 ? 1 : 0; tree >= 0; tree--) {
            /* G1: the default (the batch-affine tree for windows of 2^25 entries and up), then items only */
            if (G == 1)
                cuzk_gpu_msm_set_tree(ws, tree ? 0 : SIZE_MAX, 0);
            typename T::J got, want;
            cuzk_gpu_msm_stats st;
            float tot[5], wall[5];
            int rc = T::gpu_msm(&got, db, dk, n, ws, 0, &st, err, sizeof err); /* warm-up */
            for (int r = 0; r < 5 && rc == CUZK_OK; r++) {
                double w0 = now_s();
                rc = T::gpu_msm(&got, db, dk, n, ws, 0, &st, err, sizeof err);
                wall[r] = (float)((now_s() - w0) * 1e3);
                tot[r] = st.ms_total;
            }
            CHECK(rc == CUZK_OK, "bench %s 2^%u: %s", T::name(), lg, err);
            if (rc)
                break;
            oracle<G>(&want, k, n, &a);
            CHECK(T::eq(&got, &want), "bench %s 2^%u %s: differs from the closed form", T::name(), lg,
                  shape_name[sh]);
            qsort(tot, 5, sizeof(float), cmp_float);
            qsort(wall, 5, sizeof(float), cmp_float);
            printf("| %s%s | 2^%u | %-16s | %9.1f | %9.1f | c=%u W=%u tail=%zu | classify %.1f ones %.1f "
                   "digits+sort "
                   "%.1f accumulate %.1f reduce %.1f |\n",
                   T::name(), G == 1 ? (tree ? " default" : " items") : "", lg, shape_name[sh], tot[2],
                   wall[2], st.window, st.windows, st.n_tail, st.ms_classify, st.ms_ones, st.ms_digits_sort,
                   st.ms_accumulate, st.ms_reduce);
            fflush(stdout);
        }
    }
    bench_in_free<G>(in);
}

static int cmd_bench(int argc, char **argv)
{
    unsigned lgs[8] = {20, 24, 26, 27};
    int nl = 4;
    if (argc > 0) {
        nl = 0;
        for (int i = 0; i < argc && nl < 8; i++)
            lgs[nl++] = (unsigned)atoi(argv[i]);
    }
    printf("| group | size | scalars | median ms (events) | median ms (wall) | shape | stages (ms, last run) |\n");
    printf("|---|---|---|---|---|---|---|\n");
    unsigned g2lg = 0;
    for (int i = 0; i < nl; i++) {
        if (lgs[i] < 10 || lgs[i] > 28) {
            fprintf(stderr, "bench: size 2^%u outside 2^10..2^28\n", lgs[i]);
            return 2;
        }
        int shapes[] = {SH_UNIFORM, SH_FULL, SH_PR_WITNESS, SH_SKEW};
        bench_group<1>(lgs[i], shapes, 4);
        if (lgs[i] <= 24 && lgs[i] > g2lg)
            g2lg = lgs[i];
    }
    if (g2lg) {
        int shapes[] = {SH_FULL, SH_PR_WITNESS}; /* the witness shape is B2's (split: ones, tail) */
        bench_group<2>(g2lg, shapes, 2);
    }
    return test_finish("test_gpu_msm bench");
}

/* One bench-c measurement: the median of 3 runs after a warm-up, checked against the closed form. */
template <int G>
static float bench_c_run(const typename grp<G>::A *db, const cuzk_fr *dk, size_t m, cuzk_gpu_msm *ws,
                         unsigned win, const typename grp<G>::J *want, cuzk_gpu_msm_stats *st)
{
    char err[256] = "";
    typename grp<G>::J got;
    float tot[3];
    int rc = grp<G>::gpu_msm(&got, db, dk, m, ws, win, st, err, sizeof err);
    for (int r = 0; r < 3 && rc == CUZK_OK; r++) {
        rc = grp<G>::gpu_msm(&got, db, dk, m, ws, win, st, err, sizeof err);
        tot[r] = st->ms_total;
    }
    CHECK(rc == CUZK_OK, "bench-c %s n = %zu, c = %u: %s", grp<G>::name(), m, win, err);
    if (rc)
        return -1;
    CHECK(grp<G>::eq(&got, want), "bench-c %s n = %zu, c = %u: differs from the closed form", grp<G>::name(),
          m, st->window);
    qsort(tot, 3, sizeof(float), cmp_float);
    return tot[1];
}

/* The window width at 2^lg - 1 and 2^lg scalars below r (H's shape): the library's choice, then every c
 * from max(4, lg - 10) to 20, each with the XYZZ work items and, for G1 from 2^22 entries on, with the
 * batch-affine tree (its default end), to set msm_pick_window and MSM_TREE_MIN by measurement. G2 has no
 * tree; its rows size B2's window (PoRep's n_b is just below 2^25). */
template <int G> static int cmd_bench_c(unsigned lg)
{
    bench_in<G> in;
    bench_in_make<G>(in, lg);
    size_t n = in.n;
    typename grp<G>::A *db = in.db;
    cuzk_fr *k = in.k, *dk = in.dk, a = in.a;
    cuzk_gpu_msm *ws = in.ws;
    make_scalars(k, n, SH_FULL);
    CUDA_OK(h2d(dk, k, n * sizeof *k, g_stream));
    printf("| group | n | c | windows | median ms: default / items / tree | digits+sort | accumulate | "
           "reduce |\n"
           "|---|---|---|---|---|---|---|---|\n");
    unsigned lo = lg > 14 ? lg - 10 : 4;
    for (size_t m = n - 1; m <= n; m++) {
        typename grp<G>::J want;
        oracle<G>(&want, k, m, &a);
        for (unsigned win = lo - 1; win <= MSM_BENCH_MAX_C; win++) {
            unsigned w = win < lo ? 0 : win; /* first the library's choice (window 0) */
            cuzk_gpu_msm_stats st;
            float t[3] = {-1, -1, -1};
            cuzk_gpu_msm_set_tree(ws, 0, 0); /* G2: no tree, no effect */
            if (w == 0)
                t[0] = bench_c_run<G>(db, dk, m, ws, 0, &want, &st);
            else {
                if (G == 1 && m >= ((size_t)1 << 22)) {
                    cuzk_gpu_msm_set_tree(ws, 1, (size_t)1 << 23);
                    t[2] = bench_c_run<G>(db, dk, m, ws, w, &want, &st);
                }
                cuzk_gpu_msm_set_tree(ws, SIZE_MAX, 0);
                t[1] = bench_c_run<G>(db, dk, m, ws, w, &want, &st);
            }
            char cell[3][16];
            for (int i = 0; i < 3; i++)
                if (t[i] < 0)
                    snprintf(cell[i], sizeof cell[i], "-");
                else
                    snprintf(cell[i], sizeof cell[i], "%.1f", t[i]);
            printf("| %s | %zu | %u%s | %u | %s / %s / %s | %.1f | %.1f | %.1f |\n", grp<G>::name(), m,
                   st.window, w ? "" : " (default)", st.windows, cell[0], cell[1], cell[2], st.ms_digits_sort,
                   st.ms_accumulate, st.ms_reduce);
            fflush(stdout);
        }
    }
    cuzk_gpu_msm_set_tree(ws, 0, 0);
    bench_in_free<G>(in);
    return test_finish("test_gpu_msm bench-c");
}

/* The tree's rounds cut into 1..4 parts (docs/design/020, tenth session): G1 at 2^lg - 1 scalars below r
 * (MSM H's shape), c = 20, the tree from its default size; median of 3 after a warm-up, each checked
 * against the closed form. */
static int cmd_bench_tree(unsigned lg, unsigned only_parts)
{
    bench_in<1> in;
    bench_in_make<1>(in, lg);
    size_t m = in.n - 1;
    make_scalars(in.k, in.n, SH_FULL);
    CUDA_OK(h2d(in.dk, in.k, in.n * sizeof *in.k, g_stream));
    grp<1>::J want;
    oracle<1>(&want, in.k, m, &in.a);
    printf("| n | c | parts | median ms | digits+sort | accumulate | reduce |\n|---|---|---|---|---|---|---|\n");
    for (unsigned parts = 1; parts <= 4; parts++) {
        if (only_parts && parts != only_parts)
            continue;
        cuzk_gpu_msm_set_tree_parts(in.ws, parts, 0);
        cuzk_gpu_msm_stats st;
        float t = bench_c_run<1>(in.db, in.dk, m, in.ws, 20, &want, &st);
        printf("| %zu | %u | %u | %.1f | %.1f | %.1f | %.1f |\n", m, st.window, parts, t, st.ms_digits_sort,
               st.ms_accumulate, st.ms_reduce);
        fflush(stdout);
    }
    cuzk_gpu_msm_set_tree_parts(in.ws, 0, 0);
    bench_in_free<1>(in);
    return test_finish("test_gpu_msm bench-tree");
}

/* The witness shape (50 % ones, 49 % zeros, 1 % other) with the bases as they are and as group tables of
 * k = 2, 3, 4 (docs/design/020, thirty-sixth session): G1 at 2^lg, G2 at 2^min(lg, 24); median of 5 after
 * a warm-up, each result checked against the closed form; the table's build on the host timed too. */
template <int G> static void bench_table_group(unsigned lg)
{
    typedef grp<G> T;
    char err[256] = "";
    bench_in<G> in;
    bench_in_make<G>(in, lg);
    size_t n = in.n;
    make_scalars(in.k, n, SH_PR_WITNESS);
    CUDA_OK(h2d(in.dk, in.k, n * sizeof *in.k, g_stream));
    typename T::J want;
    oracle<G>(&want, in.k, n, &in.a);
    size_t tmax = cuzk_group_table_len(n, CUZK_GROUP_TABLE_MAX_K);
    typename T::A *t = (typename T::A *)malloc(tmax * sizeof *t), *dt;
    if (!t) {
        fprintf(stderr, "out of host memory for the table at 2^%u\n", lg);
        exit(2);
    }
    CUDA_OK(cudaMalloc((void **)&dt, tmax * sizeof *t));
    for (unsigned tk = 0; tk <= CUZK_GROUP_TABLE_MAX_K; tk++) {
        if (tk == 1)
            continue;
        double build = 0;
        if (tk) {
            double t0 = now_s();
            CHECK(T::table(t, in.b, n, tk) == CUZK_OK, "group table");
            build = now_s() - t0;
            CUDA_OK(h2d(dt, t, cuzk_group_table_len(n, tk) * sizeof *t, g_stream));
        }
        typename T::J got;
        cuzk_gpu_msm_stats st;
        float tot[5], ones[5];
        int rc = CUZK_OK;
        for (int r = -1; r < 5 && rc == CUZK_OK; r++) { /* r = -1: the warm-up */
            rc = tk ? T::gpu_msm_table(&got, dt, tk, in.dk, n, in.ws, 0, &st, err, sizeof err)
                    : T::gpu_msm(&got, in.db, in.dk, n, in.ws, 0, &st, err, sizeof err);
            if (r >= 0)
                tot[r] = st.ms_total, ones[r] = st.ms_ones;
        }
        CHECK(rc == CUZK_OK, "bench-table %s 2^%u k=%u: %s", T::name(), lg, tk, err);
        if (rc)
            break;
        CHECK(T::eq(&got, &want), "bench-table %s 2^%u k=%u: differs from the closed form", T::name(), lg, tk);
        qsort(tot, 5, sizeof(float), cmp_float);
        qsort(ones, 5, sizeof(float), cmp_float);
        char kcell[16] = "bases", bcell[16] = "-";
        if (tk) {
            snprintf(kcell, sizeof kcell, "k = %u", tk);
            snprintf(bcell, sizeof bcell, "%.1f", build);
        }
        size_t entries = tk ? cuzk_group_table_len(n, tk) : n;
        printf("| %s | 2^%u | %s | %.2f | %.1f | %.1f | %zu | %.1f / %.1f / %.1f | %s |\n", T::name(), lg,
               kcell, (double)entries * sizeof *t / 1073741824.0, tot[2], ones[2], st.n_tail, st.ms_digits_sort,
               st.ms_accumulate, st.ms_reduce, bcell);
        fflush(stdout);
    }
    cudaFree(dt);
    free(t);
    bench_in_free<G>(in);
}

static int cmd_bench_table(unsigned lg)
{
    printf("| group | size | bases | GiB | median ms | ones ms | tail | digits+sort / accumulate / reduce | "
           "table build s (host) |\n|---|---|---|---|---|---|---|---|---|\n");
    bench_table_group<1>(lg);
    bench_table_group<2>(lg < 24 ? lg : 24);
    return test_finish("test_gpu_msm bench-table");
}

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "check";
    if (gpu_test_start("test_gpu_msm", &g_pool))
        return 2;
    /* the prover's priority, which the workspace's own streams have too */
    CUDA_OK(cudaStreamCreateWithPriority(&g_stream, cudaStreamNonBlocking, cuzk_gpu_work_priority()));
    int rc;
    if (strcmp(cmd, "check") == 0)
        rc = cmd_check();
    else if (strcmp(cmd, "bench") == 0)
        rc = cmd_bench(argc - 2, argv + 2);
    else if (strcmp(cmd, "bench-tree") == 0 &&
             (argc == 3 || (argc == 4 && atoi(argv[3]) >= 1 && atoi(argv[3]) <= 4)) && atoi(argv[2]) >= 23 &&
             atoi(argv[2]) <= 28)
        rc = cmd_bench_tree((unsigned)atoi(argv[2]), argc == 4 ? (unsigned)atoi(argv[3]) : 0);
    else if (strcmp(cmd, "bench-table") == 0 && argc == 3 && atoi(argv[2]) >= 12 && atoi(argv[2]) <= 26)
        rc = cmd_bench_table((unsigned)atoi(argv[2]));
    else if (strcmp(cmd, "bench-c") == 0 && (argc == 3 || (argc == 4 && strcmp(argv[3], "g2") == 0)) &&
             atoi(argv[2]) >= 12 && atoi(argv[2]) <= 28)
        rc = argc == 4 ? cmd_bench_c<2>((unsigned)atoi(argv[2])) : cmd_bench_c<1>((unsigned)atoi(argv[2]));
    else {
        fprintf(stderr, "usage: test_gpu_msm check | bench [LG...] | bench-tree LG (23..28) [PARTS (1..4)] | "
                        "bench-c LG (12..28) [g2] | bench-table LG (12..26)\n");
        rc = 2;
    }
    cudaStreamDestroy(g_stream);
    cuzk_pool_free(g_pool);
    return rc;
}
