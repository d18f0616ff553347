/*
 * test_gpu_ec.cu — the device field and curve arithmetic (src/gpu/fp.cuh,
 * fp2.cuh, ec.cuh) against the CPU library, and its throughput on the GPU.
 * Built where nvcc exists; not registered with ctest (CI has no GPU).
 *
 *   test_gpu_ec --host-only   the host path of every function against
 *                             cuzk_fp_*, cuzk_fp2_*, cuzk_g1_* and cuzk_g2_*
 *                             (no GPU needed); exit 0 when all agree
 *   test_gpu_ec [--no-bench]  the same host checks, then the same comparisons
 *                             in kernels (2^16 field pairs, 2^14 point
 *                             inputs per curve), then the benchmark; exit 2
 *                             when there is no CUDA device
 *
 * One operation table per type (fp_ops, fp2_ops, pt_ops) runs on the host
 * path and in the kernels, and one checker compares either output with the
 * CPU library, so both paths answer the same questions. Inputs are fresh
 * random values every run (CUZK_TEST_SEED replays one), with the edge cases
 * first: 0, 1, p - 1, Montgomery 1 and -1, word-boundary values, operands in
 * [p, 2p) for the products; the identity on either side, P + P, P + (-P),
 * XYZZ points with ZZ = 1 and with ZZ = 0 but junk X, Y, affine (0, y) and
 * (x, 0) (not the identity), scalars 0, 1, 2, 2^31, 2^32 - 1. Points are
 * random multiples of the generators walked into many (cuzk_g*_mul_fr,
 * cuzk_g*_add, cuzk_g*_batch_to_affine); XYZZ inputs are those points scaled
 * by a random lambda (X = x lambda^2, Y = y lambda^3).
 * Field results must be the host's bytes; point results too, as both sides
 * use the same formulas, except the scalar multiple, which is compared as a
 * point with cuzk_g*_mul. Device outputs are poisoned before each kernel.
 *
 * The benchmark (median of 5 CUDA-event-timed launches after one warm-up,
 * one full wave of threads at the kernel's occupancy) prints Fp mul/s,
 * Fp sqr/s, Fp2 mul/s and G1/G2 xyzz_add_affine/s; each kernel's result is
 * checked on a few threads against the CPU.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/gpu.h"
#include "gpu/ec.cuh"
#include "cuda_ok.h"
#include "h2d.cuh"
extern "C" {
#include "testutil.h"
}

static_assert(sizeof(fp_t) == sizeof(cuzk_fp) && sizeof(fp2_t) == sizeof(cuzk_fp2), "field layouts");
static_assert(sizeof(g1_affine_t) == sizeof(cuzk_g1_affine) && sizeof(g1_xyzz_t) == sizeof(cuzk_g1_xyzz) &&
                  sizeof(g1_jac_t) == sizeof(cuzk_g1),
              "G1 layouts");
static_assert(sizeof(g2_affine_t) == sizeof(cuzk_g2_affine) && sizeof(g2_xyzz_t) == sizeof(cuzk_g2_xyzz) &&
                  sizeof(g2_jac_t) == sizeof(cuzk_g2),
              "G2 layouts");

/* Same bytes, other type. */
template <class D, class S> static D as(const S &s)
{
    static_assert(sizeof(D) == sizeof(S), "same size");
    D d;
    memcpy(&d, &s, sizeof d);
    return d;
}

template <class A, class B> static bool same(const A &a, const B &b)
{
    static_assert(sizeof(A) == sizeof(B), "same size");
    return memcmp(&a, &b, sizeof a) == 0;
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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Per-operation mismatch counters with the first failing index. */
typedef struct {
    const char *name;
    long bad, first;
} tally;

static void tally_init(tally *t, const char *const *names, int nops)
{
    for (int k = 0; k < nops; k++) {
        t[k].name = names[k];
        t[k].bad = 0;
        t[k].first = -1;
    }
}

static void tally_add(tally *t, bool ok, long i)
{
    if (!ok && t->bad++ == 0)
        t->first = i;
}

static void tally_report(const char *what, const tally *t, int nops, long n)
{
    printf("%s: %ld inputs, mismatches", what, n);
    for (int k = 0; k < nops; k++)
        printf(" %s %ld", t[k].name, t[k].bad);
    printf("\n");
    for (int k = 0; k < nops; k++)
        CHECK(t[k].bad == 0, "%s: %s wrong on %ld of %ld inputs (first at %ld)", what, t[k].name, t[k].bad, n,
              t[k].first);
}

/* ================================ Fp ====================================== */

typedef struct {
    fp_t a, b, a2, b2; /* a2 = a + p, b2 = b + p as integers (in [p, 2p)) */
} fp_in;

typedef struct {
    fp_t add, sub, neg, dbl, mul, sqr, mul_lazy, mul_half, sqr_lazy;
    uint32_t is_zero, eq_ab, eq_aa, pad;
} fp_out;

static __host__ __device__ void fp_ops(const fp_in &in, fp_out &o)
{
    o.add = fp_add(in.a, in.b);
    o.sub = fp_sub(in.a, in.b);
    o.neg = fp_neg(in.a);
    o.dbl = fp_dbl(in.a);
    o.mul = fp_mul(in.a, in.b);
    o.sqr = fp_sqr(in.a);
    o.mul_lazy = fp_mul(in.a2, in.b2);
    o.mul_half = fp_mul(in.a2, in.b);
    o.sqr_lazy = fp_sqr(in.a2);
    o.is_zero = fp_is_zero(in.a);
    o.eq_ab = fp_eq(in.a, in.b);
    o.eq_aa = fp_eq(in.a, in.a);
    o.pad = 0;
}

/* x + p as an integer, computed on 64-bit limbs (independent of fp.cuh). */
static cuzk_fp plus_p(const cuzk_fp &x)
{
    cuzk_fp r;
    unsigned __int128 c = 0;
    for (int i = 0; i < 6; i++) {
        c += (unsigned __int128)x.l[i] + CUZK_P[i];
        r.l[i] = (uint64_t)c;
        c >>= 64;
    }
    return r;
}

#define FP_NEDGE 12
/* Edge values as raw Montgomery words: 0, 1, 2, p-1, p-2, R, R-1, p-R (-1), 2^380, 2^64-1, p-2^32, (p-1)/2.
 */
static cuzk_fp fp_edge(int k)
{
    cuzk_fp a;
    memset(&a, 0, sizeof a);
    switch (k) {
    case 1: a.l[0] = 1; break;
    case 2: a.l[0] = 2; break;
    case 3:
        memcpy(a.l, CUZK_P, sizeof a.l);
        a.l[0] -= 1;
        break;
    case 4:
        memcpy(a.l, CUZK_P, sizeof a.l);
        a.l[0] -= 2;
        break;
    case 5: a = CUZK_FP_ONE; break;
    case 6:
        a = CUZK_FP_ONE;
        a.l[0] -= 1;
        break;
    case 7: cuzk_fp_neg(&a, &CUZK_FP_ONE); break;
    case 8: a.l[5] = (uint64_t)1 << 60; break;
    case 9: a.l[0] = ~(uint64_t)0; break;
    case 10:
        memcpy(a.l, CUZK_P, sizeof a.l);
        a.l[0] -= (uint64_t)1 << 32;
        break;
    case 11:
        for (int i = 0; i < 6; i++)
            a.l[i] = (CUZK_P[i] >> 1) | (i < 5 ? CUZK_P[i + 1] << 63 : 0);
        break;
    default: break;
    }
    return a;
}

static void fp_inputs(fp_in *in, long n)
{
    for (long i = 0; i < n; i++) {
        cuzk_fp a, b;
        if (i < FP_NEDGE * FP_NEDGE) {
            a = fp_edge((int)(i / FP_NEDGE));
            b = fp_edge((int)(i % FP_NEDGE));
        } else {
            test_rand_fp(&a);
            if (i % 16 == 0)
                b = a; /* equal operands: eq true, sub zero */
            else
                test_rand_fp(&b);
        }
        in[i].a = as<fp_t>(a);
        in[i].b = as<fp_t>(b);
        in[i].a2 = as<fp_t>(plus_p(a));
        in[i].b2 = as<fp_t>(plus_p(b));
    }
}

static void fp_check(const char *what, const fp_in *in, const fp_out *out, long n)
{
    static const char *const names[12] = {"add",     "sub",       "neg",     "dbl",     "mul",     "sqr",
                                          "mul<2p>", "mul<2p,p>", "sqr<2p>", "is_zero", "eq(a,b)", "eq(a,a)"};
    tally t[12];
    tally_init(t, names, 12);
    for (long i = 0; i < n; i++) {
        cuzk_fp a = as<cuzk_fp>(in[i].a), b = as<cuzk_fp>(in[i].b), w;
        const fp_out &o = out[i];
        cuzk_fp_add(&w, &a, &b);
        tally_add(&t[0], same(o.add, w), i);
        cuzk_fp_sub(&w, &a, &b);
        tally_add(&t[1], same(o.sub, w), i);
        cuzk_fp_neg(&w, &a);
        tally_add(&t[2], same(o.neg, w), i);
        cuzk_fp_dbl(&w, &a);
        tally_add(&t[3], same(o.dbl, w), i);
        cuzk_fp_mul(&w, &a, &b);
        tally_add(&t[4], same(o.mul, w), i);
        tally_add(&t[6], same(o.mul_lazy, w), i);
        tally_add(&t[7], same(o.mul_half, w), i);
        cuzk_fp_sqr(&w, &a);
        tally_add(&t[5], same(o.sqr, w), i);
        tally_add(&t[8], same(o.sqr_lazy, w), i);
        tally_add(&t[9], o.is_zero == (uint32_t)cuzk_fp_is_zero(&a), i);
        tally_add(&t[10], o.eq_ab == (uint32_t)cuzk_fp_eq(&a, &b), i);
        tally_add(&t[11], o.eq_aa == 1u, i);
    }
    tally_report(what, t, 12, n);
}

/* ================================ Fp2 ===================================== */

typedef struct {
    fp2_t a, b;
} fp2_in;

typedef struct {
    fp2_t add, sub, neg, dbl, mul, sqr;
    uint32_t is_zero, eq_ab, eq_aa, pad;
} fp2_out;

static __host__ __device__ void fp2_ops(const fp2_in &in, fp2_out &o)
{
    o.add = fp2_add(in.a, in.b);
    o.sub = fp2_sub(in.a, in.b);
    o.neg = fp2_neg(in.a);
    o.dbl = fp2_dbl(in.a);
    o.mul = fp2_mul(in.a, in.b);
    o.sqr = fp2_sqr(in.a);
    o.is_zero = fp2_is_zero(in.a);
    o.eq_ab = fp2_eq(in.a, in.b);
    o.eq_aa = fp2_eq(in.a, in.a);
    o.pad = 0;
}

#define FP2_NEDGE 16
/* Coordinates from {0, 1, -1, p - 1 raw}: 0, 1, u, -1, -u, 1 + u, ... */
static cuzk_fp2 fp2_edge(int k)
{
    static const int pick[4] = {0, 5, 7, 3};
    cuzk_fp2 a;
    a.c0 = fp_edge(pick[k & 3]);
    a.c1 = fp_edge(pick[k >> 2]);
    return a;
}

static void fp2_inputs(fp2_in *in, long n)
{
    for (long i = 0; i < n; i++) {
        cuzk_fp2 a, b;
        if (i < FP2_NEDGE * FP2_NEDGE) {
            a = fp2_edge((int)(i / FP2_NEDGE));
            b = fp2_edge((int)(i % FP2_NEDGE));
        } else {
            test_rand_fp2(&a);
            if (i % 16 == 0)
                b = a;
            else if (i % 16 == 1) {
                b = a; /* equal in one coordinate only */
                test_rand_fp(&b.c1);
            } else
                test_rand_fp2(&b);
        }
        in[i].a = as<fp2_t>(a);
        in[i].b = as<fp2_t>(b);
    }
}

static void fp2_check(const char *what, const fp2_in *in, const fp2_out *out, long n)
{
    static const char *const names[9] = {"add", "sub",     "neg",     "dbl",    "mul",
                                         "sqr", "is_zero", "eq(a,b)", "eq(a,a)"};
    tally t[9];
    tally_init(t, names, 9);
    for (long i = 0; i < n; i++) {
        cuzk_fp2 a = as<cuzk_fp2>(in[i].a), b = as<cuzk_fp2>(in[i].b), w;
        const fp2_out &o = out[i];
        cuzk_fp2_add(&w, &a, &b);
        tally_add(&t[0], same(o.add, w), i);
        cuzk_fp2_sub(&w, &a, &b);
        tally_add(&t[1], same(o.sub, w), i);
        cuzk_fp2_neg(&w, &a);
        tally_add(&t[2], same(o.neg, w), i);
        cuzk_fp2_dbl(&w, &a);
        tally_add(&t[3], same(o.dbl, w), i);
        cuzk_fp2_mul(&w, &a, &b);
        tally_add(&t[4], same(o.mul, w), i);
        cuzk_fp2_sqr(&w, &a);
        tally_add(&t[5], same(o.sqr, w), i);
        tally_add(&t[6], o.is_zero == (uint32_t)cuzk_fp2_is_zero(&a), i);
        tally_add(&t[7], o.eq_ab == (uint32_t)cuzk_fp2_eq(&a, &b), i);
        tally_add(&t[8], o.eq_aa == 1u, i);
    }
    tally_report(what, t, 9, n);
}

/* =============================== curves =================================== */

/* The CPU library's types and functions for the curve over F. */
template <class F> struct hc;
#define HOST_CURVE(F_, FE, G, NAME, ONE)                                                                     \
    template <> struct hc<F_> {                                                                              \
        typedef cuzk_##FE fe;                                                                                \
        typedef cuzk_##G##_affine aff;                                                                       \
        typedef cuzk_##G jac;                                                                                \
        typedef cuzk_##G##_xyzz xyzz;                                                                        \
        static const char *name() { return NAME; }                                                           \
        static const aff &generator() { return CUZK_##ONE##_GENERATOR; }                                     \
        static void fe_rand(fe *r) { test_rand_##FE(r); }                                                    \
        static bool fe_is_zero(const fe *a) { return cuzk_##FE##_is_zero(a); }                               \
        static void fe_mul(fe *r, const fe *a, const fe *b) { cuzk_##FE##_mul(r, a, b); }                    \
        static void fe_sqr(fe *r, const fe *a) { cuzk_##FE##_sqr(r, a); }                                    \
        static void fe_neg(fe *r, const fe *a) { cuzk_##FE##_neg(r, a); }                                    \
        static void from_affine(jac *r, const aff *a) { cuzk_##G##_from_affine(r, a); }                      \
        static void add(jac *r, const jac *a, const jac *b) { cuzk_##G##_add(r, a, b); }                     \
        static void neg(jac *r, const jac *a) { cuzk_##G##_neg(r, a); }                                      \
        static bool eq(const jac *a, const jac *b) { return cuzk_##G##_eq(a, b); }                           \
        static void mul_fr(jac *r, const jac *a, const cuzk_fr *k) { cuzk_##G##_mul_fr(r, a, k); }           \
        static void mul(jac *r, const jac *a, uint64_t k) { cuzk_##G##_mul(r, a, &k, 1); }                   \
        static void batch_to_affine(aff *o, const jac *in, size_t n, fe *s)                                  \
        {                                                                                                    \
            cuzk_##G##_batch_to_affine(o, in, n, s);                                                         \
        }                                                                                                    \
        static void affine_neg(aff *r, const aff *a) { cuzk_##G##_affine_neg(r, a); }                        \
        static bool affine_is_identity(const aff *a) { return cuzk_##G##_affine_is_identity(a); }            \
        static bool affine_on_curve(const aff *a) { return cuzk_##G##_affine_on_curve(a); }                  \
        static void xyzz_set_identity(xyzz *r) { cuzk_##G##_xyzz_set_identity(r); }                          \
        static bool xyzz_is_identity(const xyzz *a) { return cuzk_##G##_xyzz_is_identity(a); }               \
        static void xyzz_add_affine(xyzz *r, const xyzz *a, const aff *b)                                    \
        {                                                                                                    \
            cuzk_##G##_xyzz_add_affine(r, a, b);                                                             \
        }                                                                                                    \
        static void xyzz_sub_affine(xyzz *r, const xyzz *a, const aff *b)                                    \
        {                                                                                                    \
            cuzk_##G##_xyzz_sub_affine(r, a, b);                                                             \
        }                                                                                                    \
        static void xyzz_add(xyzz *r, const xyzz *a, const xyzz *b) { cuzk_##G##_xyzz_add(r, a, b); }        \
        static void xyzz_dbl(xyzz *r, const xyzz *a) { cuzk_##G##_xyzz_dbl(r, a); }                          \
        static void xyzz_to_jac(jac *r, const xyzz *a) { cuzk_##G##_xyzz_to_jacobian(r, a); }                \
    };
HOST_CURVE(fp_t, fp, g1, "G1", G1)
HOST_CURVE(fp2_t, fp2, g2, "G2", G2)

template <class F> struct pt_in {
    ec_xyzz<F> acc, c;
    ec_affine<F> b;
    uint32_t k, pad[3];
};

template <class F> struct pt_out {
    ec_xyzz<F> add_affine, sub_affine, add, dbl, neg, mul_small, ident, chain3, chain1;
    ec_jac<F> jac;
    ec_affine<F> aneg;
    uint32_t is_identity, affine_is_identity, pad[2];
};

/* One out-of-line copy of each point operation keeps the test kernels small
 * enough to compile in reasonable time (the API itself inlines everything). */
template <class F>
static __host__ __device__ __noinline__ void op_add_affine(ec_xyzz<F> &a, const ec_affine<F> &b)
{
    ec_xyzz_add_affine(a, b);
}
template <class F>
static __host__ __device__ __noinline__ void op_sub_affine(ec_xyzz<F> &a, const ec_affine<F> &b)
{
    ec_xyzz_sub_affine(a, b);
}
template <class F> static __host__ __device__ __noinline__ void op_add(ec_xyzz<F> &a, const ec_xyzz<F> &b)
{
    ec_xyzz_add(a, b);
}
template <class F> static __host__ __device__ __noinline__ void op_dbl(ec_xyzz<F> &a)
{
    ec_xyzz_dbl(a);
}
template <class F> static __host__ __device__ __noinline__ void op_mul_small(ec_xyzz<F> &a, uint32_t k)
{
    ec_xyzz_mul_small(a, k);
}

template <class F> static __host__ __device__ void pt_ops(const pt_in<F> &in, pt_out<F> &o)
{
    ec_xyzz<F> t = in.acc;
    op_add_affine(t, in.b);
    o.add_affine = t;
    t = in.acc;
    op_sub_affine(t, in.b);
    o.sub_affine = t;
    t = in.acc;
    op_add(t, in.c);
    o.add = t;
    t = in.acc;
    op_dbl(t);
    o.dbl = t;
    o.neg = ec_xyzz_neg(in.acc);
    t = in.acc;
    op_mul_small(t, in.k);
    o.mul_small = t;
    t = in.acc;
    ec_xyzz_set_identity(t);
    o.ident = t;
    /* the same affine point again and again: 0 + b, b + b, 2b + b, then 3b - b - b */
    ec_xyzz_set_identity(t);
    for (int r = 0; r < 3; r++)
        op_add_affine(t, in.b);
    o.chain3 = t;
    for (int r = 0; r < 2; r++)
        op_sub_affine(t, in.b);
    o.chain1 = t;
    ec_jac<F> j;
    ec_xyzz_to_jac(j, in.acc);
    o.jac = j;
    o.aneg = ec_affine_neg(in.b);
    o.is_identity = ec_xyzz_is_identity(in.acc);
    o.affine_is_identity = ec_affine_is_identity(in.b);
    o.pad[0] = o.pad[1] = 0;
}

/* n random affine points (none the identity): a random multiple of the
 * generator, then a walk adding one of 8 random multiples at each step. */
template <class F> static void rand_points(typename hc<F>::aff *out, long n)
{
    typedef hc<F> H;
    typename H::jac g, step[8], cur;
    H::from_affine(&g, &H::generator());
    for (int j = 0; j < 8; j++) {
        cuzk_fr s;
        test_rand_fr(&s);
        H::mul_fr(&step[j], &g, &s);
    }
    cuzk_fr s;
    test_rand_fr(&s);
    H::mul_fr(&cur, &g, &s);
    typename H::jac *tmp = (typename H::jac *)xmalloc(n * sizeof *tmp);
    typename H::fe *scratch = (typename H::fe *)xmalloc(n * sizeof *scratch);
    for (long i = 0; i < n; i++) {
        tmp[i] = cur;
        H::add(&cur, &cur, &step[test_rand64() & 7]);
    }
    H::batch_to_affine(out, tmp, n, scratch);
    free(tmp);
    free(scratch);
}

/* (x lambda^2, y lambda^3, lambda^2, lambda^3) for a random nonzero lambda (1 if unit); identity -> zeros. */
template <class F> static typename hc<F>::xyzz scaled(const typename hc<F>::aff &p, bool unit)
{
    typedef hc<F> H;
    typename H::xyzz r;
    memset(&r, 0, sizeof r);
    if (H::affine_is_identity(&p))
        return r;
    if (unit) {
        r.X = p.x;
        r.Y = p.y;
        r.ZZ = as<typename H::fe>(f_one<F>());
        r.ZZZ = r.ZZ;
        return r;
    }
    typename H::fe l;
    do
        H::fe_rand(&l);
    while (H::fe_is_zero(&l));
    H::fe_sqr(&r.ZZ, &l);
    H::fe_mul(&r.ZZZ, &r.ZZ, &l);
    H::fe_mul(&r.X, &p.x, &r.ZZ);
    H::fe_mul(&r.Y, &p.y, &r.ZZZ);
    return r;
}

#define PT_NEDGE 15

/* Inputs for the point operations; the first PT_NEDGE are the edge cases. */
template <class F> static void pt_inputs(pt_in<F> *in, long n)
{
    typedef hc<F> H;
    typedef typename H::aff aff;
    typedef typename H::xyzz xyzz;
    aff *p = (aff *)xmalloc(3 * n * sizeof *p);
    rand_points<F>(p, 3 * n);
    for (long i = 0; i < n; i++) {
        aff b = p[3 * i], pa = p[3 * i + 1], pc = p[3 * i + 2], zero, nb;
        memset(&zero, 0, sizeof zero);
        H::affine_neg(&nb, &b);
        xyzz acc = scaled<F>(pa, false), c = scaled<F>(pc, false);
        uint32_t k = (uint32_t)test_rand64() >> (test_rand64() % 32); /* random bit length */
        switch (i < PT_NEDGE ? i : -1) {
        case 0: memset(&acc, 0, sizeof acc); break; /* identity + b, identity + c */
        case 1: memset(&b, 0, sizeof b); break;     /* acc + identity */
        case 2:                                     /* identity + identity */
            memset(&acc, 0, sizeof acc);
            memset(&b, 0, sizeof b);
            memset(&c, 0, sizeof c);
            break;
        case 3: /* P + P (both additions double), P - P */
            acc = scaled<F>(b, false);
            c = scaled<F>(b, false);
            break;
        case 4: /* P + (-P), and -P - P */
            acc = scaled<F>(nb, false);
            c = scaled<F>(b, false);
            break;
        case 5: /* ZZ = ZZZ = 1, and acc + identity */
            acc = scaled<F>(pa, true);
            memset(&c, 0, sizeof c);
            break;
        case 6: /* ZZ = ZZZ = 0 with junk X, Y: still the identity */
            memset(&acc.ZZ, 0, sizeof acc.ZZ);
            memset(&acc.ZZZ, 0, sizeof acc.ZZZ);
            break;
        case 7: k = 0; break;
        case 8: k = 1; break;
        case 9: k = 2; break;
        case 10: k = 0xffffffffu; break;
        case 11: k = 0x80000000u; break;
        case 12: /* identity times k */
            memset(&acc, 0, sizeof acc);
            k = 0x12345u;
            break;
        case 13: /* (0, y): not the identity (the predicate must look at both coordinates) */
            memset(&b.x, 0, sizeof b.x);
            break;
        case 14: /* (x, 0): not the identity either */ memset(&b.y, 0, sizeof b.y); break;
        default: break;
        }
        in[i].acc = as<ec_xyzz<F>>(acc);
        in[i].c = as<ec_xyzz<F>>(c);
        in[i].b = as<ec_affine<F>>(b);
        in[i].k = k;
        in[i].pad[0] = in[i].pad[1] = in[i].pad[2] = 0;
    }
    free(p);
}

template <class F> static void pt_check(const char *what, const pt_in<F> *in, const pt_out<F> *out, long n)
{
    typedef hc<F> H;
    typedef typename H::xyzz xyzz;
    static const char *const names[13] = {
        "add_affine",        "sub_affine", "add",      "dbl",    "neg",        "mul_small",
        "set_identity",      "chain+3b",   "chain-2b", "to_jac", "affine_neg", "is_identity",
        "affine_is_identity"};
    tally t[13];
    tally_init(t, names, 13);
    for (long i = 0; i < n; i++) {
        const pt_out<F> &o = out[i];
        xyzz acc = as<xyzz>(in[i].acc), c = as<xyzz>(in[i].c), w;
        typename H::aff b = as<typename H::aff>(in[i].b), nb;
        typename H::jac j, jw;
        H::xyzz_add_affine(&w, &acc, &b);
        tally_add(&t[0], same(o.add_affine, w), i);
        H::xyzz_sub_affine(&w, &acc, &b);
        tally_add(&t[1], same(o.sub_affine, w), i);
        H::xyzz_add(&w, &acc, &c);
        tally_add(&t[2], same(o.add, w), i);
        H::xyzz_dbl(&w, &acc);
        tally_add(&t[3], same(o.dbl, w), i);
        w = acc;
        H::fe_neg(&w.Y, &acc.Y);
        tally_add(&t[4], same(o.neg, w), i);
        /* k·acc as a point, against the CPU's windowed multiplication of the Jacobian form */
        H::xyzz_to_jac(&j, &acc);
        H::mul(&jw, &j, in[i].k);
        typename H::jac got;
        xyzz m = as<xyzz>(o.mul_small);
        H::xyzz_to_jac(&got, &m);
        tally_add(&t[5], H::eq(&got, &jw), i);
        H::xyzz_set_identity(&w);
        tally_add(&t[6], same(o.ident, w), i);
        H::xyzz_set_identity(&w);
        for (int r = 0; r < 3; r++)
            H::xyzz_add_affine(&w, &w, &b);
        tally_add(&t[7], same(o.chain3, w), i);
        H::xyzz_sub_affine(&w, &w, &b);
        H::xyzz_sub_affine(&w, &w, &b);
        tally_add(&t[8], same(o.chain1, w), i);
        H::xyzz_to_jac(&jw, &acc);
        tally_add(&t[9], same(o.jac, jw), i);
        H::affine_neg(&nb, &b);
        tally_add(&t[10], same(o.aneg, nb), i);
        tally_add(&t[11], o.is_identity == (uint32_t)H::xyzz_is_identity(&acc), i);
        tally_add(&t[12], o.affine_is_identity == (uint32_t)H::affine_is_identity(&b), i);
    }
    tally_report(what, t, 13, n);
}

/* ============================ host path =================================== */

#define HOST_FP 20000
#define HOST_FP2 8000
#define HOST_G1 768
#define HOST_G2 256

template <class IN, class OUT>
static void host_run(void (*ops)(const IN &, OUT &), const IN *in, OUT *out, long n)
{
    memset(out, 0x5a, n * sizeof *out);
    for (long i = 0; i < n; i++)
        ops(in[i], out[i]);
}

template <class F> static void host_points(long n)
{
    pt_in<F> *in = (pt_in<F> *)xmalloc(n * sizeof *in);
    pt_out<F> *out = (pt_out<F> *)xmalloc(n * sizeof *out);
    pt_inputs<F>(in, n);
    double t0 = now_s();
    host_run(pt_ops<F>, in, out, n);
    double t1 = now_s();
    char what[64];
    snprintf(what, sizeof what, "%s (host path, %.2f s)", hc<F>::name(), t1 - t0);
    pt_check<F>(what, in, out, n);
    free(in);
    free(out);
}

static void host_checks(void)
{
    CHECK(same(fp_zero(), CUZK_FP_ZERO) && same(f_zero<fp_t>(), CUZK_FP_ZERO),
          "fp_zero differs from CUZK_FP_ZERO");
    CHECK(same(fp_one(), CUZK_FP_ONE) && same(f_one<fp_t>(), CUZK_FP_ONE), "fp_one differs from CUZK_FP_ONE");
    CHECK(same(fp2_zero(), CUZK_FP2_ZERO) && same(f_zero<fp2_t>(), CUZK_FP2_ZERO), "fp2_zero differs");
    CHECK(same(fp2_one(), CUZK_FP2_ONE) && same(f_one<fp2_t>(), CUZK_FP2_ONE), "fp2_one differs");

    fp_in *a = (fp_in *)xmalloc(HOST_FP * sizeof *a);
    fp_out *ao = (fp_out *)xmalloc(HOST_FP * sizeof *ao);
    fp_inputs(a, HOST_FP);
    host_run(fp_ops, a, ao, HOST_FP);
    fp_check("Fp (host path)", a, ao, HOST_FP);
    free(a);
    free(ao);

    fp2_in *b = (fp2_in *)xmalloc(HOST_FP2 * sizeof *b);
    fp2_out *bo = (fp2_out *)xmalloc(HOST_FP2 * sizeof *bo);
    fp2_inputs(b, HOST_FP2);
    host_run(fp2_ops, b, bo, HOST_FP2);
    fp2_check("Fp2 (host path)", b, bo, HOST_FP2);
    free(b);
    free(bo);

    host_points<fp_t>(HOST_G1);
    host_points<fp2_t>(HOST_G2);
}

/* ============================ device path ================================= */

static cudaStream_t g_stream;

__global__ void k_fp(const fp_in *in, fp_out *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        fp_ops(in[i], out[i]);
}

__global__ void k_fp2(const fp2_in *in, fp2_out *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        fp2_ops(in[i], out[i]);
}

template <class F> __global__ void k_pt(const pt_in<F> *in, pt_out<F> *out, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pt_ops<F>(in[i], out[i]);
}

/* Uploads in, poisons the device and host outputs, runs kernel over n elements, downloads out. */
template <class IN, class OUT>
static void device_run(void (*kernel)(const IN *, OUT *, unsigned), const IN *in, OUT *out, unsigned n,
                       unsigned block, double *ms)
{
    IN *din;
    OUT *dout;
    CUDA_OK(cudaMalloc((void **)&din, n * sizeof *din));
    CUDA_OK(cudaMalloc((void **)&dout, n * sizeof *dout));
    CUDA_OK(h2d(din, in, n * sizeof *din, g_stream));
    CUDA_OK(cudaMemset(dout, 0xff, n * sizeof *dout));
    memset(out, 0x5a, n * sizeof *out);
    double t0 = now_s();
    kernel<<<(n + block - 1) / block, block, 0, g_stream>>>(din, dout, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(g_stream));
    *ms = (now_s() - t0) * 1e3;
    CUDA_OK(cudaMemcpy(out, dout, n * sizeof *out, cudaMemcpyDeviceToHost));
    cudaFree(din);
    cudaFree(dout);
}

template <class F> static void device_points(unsigned n)
{
    pt_in<F> *in = (pt_in<F> *)xmalloc(n * sizeof *in);
    pt_out<F> *out = (pt_out<F> *)xmalloc(n * sizeof *out);
    pt_inputs<F>(in, n);
    double ms;
    device_run(k_pt<F>, in, out, n, 128, &ms);
    char what[64];
    snprintf(what, sizeof what, "%s (device, kernel %.1f ms)", hc<F>::name(), ms);
    pt_check<F>(what, in, out, n);
    free(in);
    free(out);
}

static void device_checks(void)
{
    const unsigned nf = 1u << 16, np = 1u << 14;
    double ms;
    fp_in *a = (fp_in *)xmalloc(nf * sizeof *a);
    fp_out *ao = (fp_out *)xmalloc(nf * sizeof *ao);
    fp_inputs(a, nf);
    device_run(k_fp, a, ao, nf, 256, &ms);
    fp_check("Fp (device)", a, ao, nf);
    free(a);
    free(ao);

    fp2_in *b = (fp2_in *)xmalloc(nf * sizeof *b);
    fp2_out *bo = (fp2_out *)xmalloc(nf * sizeof *bo);
    fp2_inputs(b, nf);
    device_run(k_fp2, b, bo, nf, 256, &ms);
    fp2_check("Fp2 (device)", b, bo, nf);
    free(b);
    free(bo);

    device_points<fp_t>(np);
    device_points<fp2_t>(np);
}

/* ============================== benchmark ================================= */

#define BENCH_WARM 1
#define BENCH_RUNS 5

/* CH independent product chains per thread: x_c <- x_c·y, x_0 = io[2i], x_c = x_(c-1) + y; stores the sum. */
template <class F, int CH> __global__ void k_rate_mul(F *io, unsigned iters, const uint32_t *)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    F y = io[2 * i + 1], x[CH];
    x[0] = io[2 * i];
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[c] = f_add(x[c - 1], y);
    for (unsigned k = 0; k < iters; k++)
#pragma unroll
        for (int c = 0; c < CH; c++)
            x[c] = f_mul(x[c], y);
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[0] = f_add(x[0], x[c]);
    io[2 * i] = x[0];
}

/* As k_rate_mul<fp_t, CH> with p's words loaded from memory into registers (fp_mul_pw). */
template <int CH> __global__ void k_rate_mul_pw(fp_t *io, unsigned iters, const uint32_t *pw)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t P[12];
#pragma unroll
    for (int j = 0; j < 12; j++)
        P[j] = pw[j];
    fp_t y = io[2 * i + 1], x[CH];
    x[0] = io[2 * i];
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[c] = f_add(x[c - 1], y);
    for (unsigned k = 0; k < iters; k++)
#pragma unroll
        for (int c = 0; c < CH; c++)
            x[c] = fp_mul_pw(x[c], y, P);
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[0] = f_add(x[0], x[c]);
    io[2 * i] = x[0];
}

/* As k_rate_mul with x_c <- x_c^2. */
template <class F, int CH> __global__ void k_rate_sqr(F *io, unsigned iters, const uint32_t *)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    F y = io[2 * i + 1], x[CH];
    x[0] = io[2 * i];
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[c] = f_add(x[c - 1], y);
    for (unsigned k = 0; k < iters; k++)
#pragma unroll
        for (int c = 0; c < CH; c++)
            x[c] = f_sqr(x[c]);
#pragma unroll
    for (int c = 1; c < CH; c++)
        x[0] = f_add(x[0], x[c]);
    io[2 * i] = x[0];
}

/* acc <- acc + b, iters times, one chain per thread. */
template <class F> __global__ void k_rate_madd(ec_xyzz<F> *acc, const ec_affine<F> *b, unsigned iters)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    ec_xyzz<F> a = acc[i];
    ec_affine<F> q = b[i];
    for (unsigned k = 0; k < iters; k++)
        ec_xyzz_add_affine(a, q);
    acc[i] = a;
}

static int cmp_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* One full wave at the kernel's occupancy; prints the kernel's registers and spills. */
static unsigned wave_threads(const void *kernel, unsigned block, const char *name)
{
    int sms = 0, per_sm = 0;
    cudaFuncAttributes fa;
    CUDA_OK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, (int)block, 0));
    CUDA_OK(cudaFuncGetAttributes(&fa, kernel));
    printf("  %s: %d registers, %zu bytes local, %d blocks of %u per SM x %d SMs\n", name, fa.numRegs,
           (size_t)fa.localSizeBytes, per_sm, block, sms);
    CHECK(per_sm > 0, "%s cannot run a block of %u threads", name, block);
    return (unsigned)(per_sm > 0 ? per_sm : 1) * block * (unsigned)sms;
}

/* Median of BENCH_RUNS launches (after BENCH_WARM) of launch(), in ms. */
template <class L> static float time_median(L launch)
{
    cudaEvent_t a, b;
    CUDA_OK(cudaEventCreate(&a));
    CUDA_OK(cudaEventCreate(&b));
    float ms[BENCH_RUNS];
    for (int r = 0; r < BENCH_WARM + BENCH_RUNS; r++) {
        CUDA_OK(cudaEventRecord(a, g_stream));
        launch();
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaEventRecord(b, g_stream));
        CUDA_OK(cudaEventSynchronize(b));
        if (r >= BENCH_WARM)
            CUDA_OK(cudaEventElapsedTime(&ms[r - BENCH_WARM], a, b));
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    qsort(ms, BENCH_RUNS, sizeof ms[0], cmp_float);
    return ms[BENCH_RUNS / 2];
}

/* Host mirror of the field kernels' result for thread i: (sum of the chains' starts) transformed. */
template <class F> struct hf;
template <> struct hf<fp_t> {
    typedef cuzk_fp fe;
    static void rand(fe *r) { test_rand_fp(r); }
    static void add(fe *r, const fe *a, const fe *b) { cuzk_fp_add(r, a, b); }
    static void mul(fe *r, const fe *a, const fe *b) { cuzk_fp_mul(r, a, b); }
    static void sqr(fe *r, const fe *a) { cuzk_fp_sqr(r, a); }
    static void pow(fe *r, const fe *a, uint64_t e) { cuzk_fp_pow(r, a, &e, 1); }
};
template <> struct hf<fp2_t> {
    typedef cuzk_fp2 fe;
    static void rand(fe *r) { test_rand_fp2(r); }
    static void add(fe *r, const fe *a, const fe *b) { cuzk_fp2_add(r, a, b); }
    static void mul(fe *r, const fe *a, const fe *b) { cuzk_fp2_mul(r, a, b); }
    static void sqr(fe *r, const fe *a) { cuzk_fp2_sqr(r, a); }
    static void pow(fe *r, const fe *a, uint64_t e) { cuzk_fp2_pow(r, a, &e, 1); }
};

/* Field rate: Fp or Fp2, product or square, CH chains; checks three threads' results on the CPU. */
template <class F, int CH, bool SQR>
static void bench_field(const char *name, void (*kernel)(F *, unsigned, const uint32_t *), unsigned iters,
                        const uint32_t *dpw)
{
    typedef hf<F> H;
    typedef typename H::fe fe;
    unsigned threads = wave_threads((const void *)kernel, 256, name);
    size_t n = 2 * (size_t)threads;
    fe *h = (fe *)xmalloc(n * sizeof *h), *got = (fe *)xmalloc(n * sizeof *got);
    for (size_t i = 0; i < n; i++)
        H::rand(&h[i]);
    F *d;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(F)));
    CUDA_OK(h2d(d, h, n * sizeof(F), g_stream));
    float ms = time_median([&] { kernel<<<threads / 256, 256, 0, g_stream>>>(d, iters, dpw); });
    /* the timed runs worked on their own outputs; one more run on the inputs for the check */
    CUDA_OK(h2d(d, h, n * sizeof(F), g_stream));
    kernel<<<threads / 256, 256, 0, g_stream>>>(d, iters, dpw);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(g_stream));
    memset(got, 0x5a, n * sizeof *got);
    CUDA_OK(cudaMemcpy(got, d, n * sizeof(F), cudaMemcpyDeviceToHost));
    long bad = 0;
    const size_t probe[3] = {0, threads / 2 + 1, threads - 1};
    for (int p = 0; p < 3; p++) {
        size_t i = probe[p];
        fe x = h[2 * i], y = h[2 * i + 1], sum = x, want, t;
        for (int c = 1; c < CH; c++) {
            H::add(&x, &x, &y);
            H::add(&sum, &sum, &x);
        }
        if (SQR) {
            /* each chain squared iters times: sum over chains of start^(2^iters) */
            x = h[2 * i];
            memset(&want, 0, sizeof want);
            for (int c = 0; c < CH; c++) {
                t = x;
                for (unsigned k = 0; k < iters; k++)
                    H::sqr(&t, &t);
                H::add(&want, &want, &t);
                H::add(&x, &x, &y);
            }
        } else {
            H::pow(&t, &y, iters);
            H::mul(&want, &sum, &t);
        }
        bad += memcmp(&got[2 * i], &want, sizeof want) != 0;
    }
    CHECK(bad == 0, "%s benchmark kernel: %ld of 3 checked threads differ from the CPU", name, bad);
    double kms = ms, ops = (double)threads * CH * iters;
    printf("bench %-24s %8.2f G/s  (%u threads x %d chains x %u, median %.3f ms of kernel)\n", name,
           ops / (kms * 1e-3) / 1e9, threads, CH, iters, kms);
    cudaFree(d);
    free(h);
    free(got);
}

/* Point rate: G1 or G2 xyzz_add_affine, one chain per thread; checks three threads on the CPU. */
template <class F> static void bench_madd(const char *name, unsigned iters)
{
    typedef hc<F> H;
    void (*kernel)(ec_xyzz<F> *, const ec_affine<F> *, unsigned) = k_rate_madd<F>;
    unsigned threads = wave_threads((const void *)kernel, 128, name);
    typename H::aff *pts = (typename H::aff *)xmalloc(2 * (size_t)threads * sizeof *pts);
    rand_points<F>(pts, 2 * (long)threads);
    typename H::xyzz *acc = (typename H::xyzz *)xmalloc(threads * sizeof *acc),
                     *got = (typename H::xyzz *)xmalloc(threads * sizeof *got);
    typename H::aff *b = (typename H::aff *)xmalloc(threads * sizeof *b);
    for (unsigned i = 0; i < threads; i++) {
        acc[i] = scaled<F>(pts[2 * i], false);
        b[i] = pts[2 * i + 1];
    }
    ec_xyzz<F> *dacc;
    ec_affine<F> *db;
    CUDA_OK(cudaMalloc((void **)&dacc, threads * sizeof *dacc));
    CUDA_OK(cudaMalloc((void **)&db, threads * sizeof *db));
    CUDA_OK(h2d(db, b, threads * sizeof *db, g_stream));
    CUDA_OK(h2d(dacc, acc, threads * sizeof *dacc, g_stream));
    float ms = time_median([&] { kernel<<<threads / 128, 128, 0, g_stream>>>(dacc, db, iters); });
    /* the timed runs kept adding; one more run from the inputs for the check */
    CUDA_OK(h2d(dacc, acc, threads * sizeof *dacc, g_stream));
    kernel<<<threads / 128, 128, 0, g_stream>>>(dacc, db, iters);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaStreamSynchronize(g_stream));
    memset(got, 0x5a, threads * sizeof *got);
    CUDA_OK(cudaMemcpy(got, dacc, threads * sizeof *got, cudaMemcpyDeviceToHost));
    long bad = 0;
    const unsigned probe[3] = {0, threads / 2 + 1, threads - 1};
    for (int p = 0; p < 3; p++) {
        unsigned i = probe[p];
        typename H::jac a, q, want, g;
        H::xyzz_to_jac(&a, &acc[i]);
        H::from_affine(&q, &b[i]);
        H::mul(&q, &q, iters);
        H::add(&want, &a, &q);
        H::xyzz_to_jac(&g, &got[i]);
        bad += !H::eq(&g, &want);
    }
    CHECK(bad == 0, "%s benchmark kernel: %ld of 3 checked threads differ from the CPU", name, bad);
    double kms = ms, ops = (double)threads * iters;
    printf("bench %-24s %8.3f G/s  (%u threads x %u, median %.3f ms of kernel)\n", name,
           ops / (kms * 1e-3) / 1e9, threads, iters, kms);
    cudaFree(dacc);
    cudaFree(db);
    free(pts);
    free(acc);
    free(got);
    free(b);
}

static void bench(void)
{
    printf("benchmark: median of %d launches after %d warm-up, one full wave of threads\n", BENCH_RUNS,
           BENCH_WARM);
    const uint32_t pw[12] = FP_P_WORDS;
    uint32_t *dpw;
    CUDA_OK(cudaMalloc((void **)&dpw, sizeof pw));
    CUDA_OK(h2d(dpw, pw, sizeof pw, g_stream));
    bench_field<fp_t, 2, false>("Fp mul", k_rate_mul<fp_t, 2>, 4096, dpw);
    bench_field<fp_t, 2, false>("Fp mul (p in registers)", k_rate_mul_pw<2>, 4096, dpw);
    bench_field<fp_t, 2, true>("Fp sqr", k_rate_sqr<fp_t, 2>, 4096, dpw);
    bench_field<fp2_t, 2, false>("Fp2 mul", k_rate_mul<fp2_t, 2>, 1024, dpw);
    bench_field<fp2_t, 2, true>("Fp2 sqr", k_rate_sqr<fp2_t, 2>, 1024, dpw);
    cudaFree(dpw);
    bench_madd<fp_t>("G1 xyzz_add_affine", 1024);
    bench_madd<fp2_t>("G2 xyzz_add_affine", 256);
}

int main(int argc, char **argv)
{
    bool host_only = false, do_bench = true;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--host-only") == 0)
            host_only = true;
        else if (strcmp(argv[i], "--no-bench") == 0)
            do_bench = false;
        else {
            fprintf(stderr, "usage: test_gpu_ec [--host-only | --no-bench]\n");
            return 2;
        }
    }
    char desc[256];
    if (!host_only &&
        (cuzk_gpu_device_count() < 1 || cuzk_gpu_device_describe(0, desc, sizeof desc) != CUZK_OK)) {
        fprintf(stderr, "test_gpu_ec: no CUDA device; run with --host-only to check the host path alone\n");
        return 2;
    }
    test_rng_init("test_gpu_ec");
    double t0 = now_s();
    host_checks();
    printf("host path: %.2f s\n", now_s() - t0);
    if (host_only)
        return test_finish("test_gpu_ec --host-only");
    printf("device 0: %s\n", desc);
    CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    device_checks();
    if (do_bench)
        bench();
    cudaStreamDestroy(g_stream);
    return test_finish("test_gpu_ec");
}
