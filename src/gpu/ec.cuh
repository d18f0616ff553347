/*
 * ec.cuh — G1 and G2 point arithmetic of BLS12-381 for CUDA kernels (and the
 * host), written once over the coordinate field.
 *
 * Fields. f_add, f_sub, f_neg, f_dbl, f_mul, f_sqr, f_is_zero, f_eq are
 * overloaded for fp_t and fp2_t, and f_zero<F>(), f_one<F>() name the
 * constants, so each formula below serves G1 (F = fp_t) and G2 (F = fp2_t).
 * Both curves are y^2 = x^3 + b with a = 0; no formula here needs b.
 *
 * Points, byte for byte the host's types (include/cuzk/curve.h):
 *   ec_affine<F> (x, y)            identity = all-zero bytes
 *   ec_xyzz<F>   (X, Y, ZZ, ZZZ)   x = X/ZZ, y = Y/ZZZ, identity <=> ZZ = 0
 *   ec_jac<F>    (X, Y, Z)         x = X/Z^2, y = Y/Z^3, identity <=> Z = 0
 * g1_affine_t ... g2_jac_t are the six instances.
 *
 * Formulas (Explicit-Formulas Database, a = 0), the same as the host's
 * curve_impl.h step for step, so results are the host's bytes too:
 *   ec_xyzz_add_affine  madd-2008-s    8M + 2S
 *   ec_xyzz_add         add-2008-s    12M + 2S
 *   ec_xyzz_dbl         dbl-2008-s-1   6M + 3S
 *   doubling met inside a mixed addition: mdbl-2008-s-1 (4M + 2S, ZZ = ZZZ = 1)
 *   ec_xyzz_to_jac      (X ZZ^2, Y ZZZ^2, ZZZ)  2M + 2S
 * M and S are products and squares in F (an Fp2 product is 3 Fp products,
 * a square 2). None of the addition formulas is complete by itself, so the
 * additions test the identity on either side and, when the x coordinates
 * agree (P = 0), double (R = 0) or return the identity. These are point-level
 * branches taken on rare data; the field operations themselves never branch.
 * Doubling needs no test: ZZ = 0 stays 0 and neither curve has a point with
 * y = 0.
 *
 * Accumulating functions update their first argument in place (acc += b);
 * negations and the field wrappers return values.
 */
#ifndef CUZK_GPU_EC_CUH
#define CUZK_GPU_EC_CUH

#include "fp2.cuh"

/* Force-inlined on the device, plain inline on the host (see FP_FN). */
#ifdef __CUDA_ARCH__
#define EC_FN __host__ __device__ __forceinline__
#else
#define EC_FN __host__ __device__ inline
#endif

/* ---- one spelling of the field operations for both coordinate fields ----- */

static EC_FN fp_t f_add(fp_t a, fp_t b)
{
    return fp_add(a, b);
}
static EC_FN fp_t f_sub(fp_t a, fp_t b)
{
    return fp_sub(a, b);
}
static EC_FN fp_t f_neg(fp_t a)
{
    return fp_neg(a);
}
static EC_FN fp_t f_dbl(fp_t a)
{
    return fp_dbl(a);
}
/* EC_FP_MUL_KARATSUBA (build-time, default FP_MUL_KARATSUBA): the G1 formulas'
 * product is fp_mul (Karatsuba when FP_MUL_KARATSUBA is 1, fp.cuh) or, with 0,
 * the word-serial fp_mul_ws, whose smaller register footprint matters in the
 * kernels capped at 128 registers (k_ones, k_items: docs/design/013,
 * thirtieth session). */
#ifndef EC_FP_MUL_KARATSUBA
#define EC_FP_MUL_KARATSUBA FP_MUL_KARATSUBA
#endif
static EC_FN fp_t f_mul(fp_t a, fp_t b)
{
#if EC_FP_MUL_KARATSUBA
    return fp_mul(a, b);
#else
    return fp_mul_ws(a, b);
#endif
}
static EC_FN fp_t f_sqr(fp_t a)
{
    return fp_sqr(a);
}
static EC_FN bool f_is_zero(fp_t a)
{
    return fp_is_zero(a);
}
static EC_FN bool f_eq(fp_t a, fp_t b)
{
    return fp_eq(a, b);
}

static EC_FN fp2_t f_add(fp2_t a, fp2_t b)
{
    return fp2_add(a, b);
}
static EC_FN fp2_t f_sub(fp2_t a, fp2_t b)
{
    return fp2_sub(a, b);
}
static EC_FN fp2_t f_neg(fp2_t a)
{
    return fp2_neg(a);
}
static EC_FN fp2_t f_dbl(fp2_t a)
{
    return fp2_dbl(a);
}
static EC_FN fp2_t f_mul(fp2_t a, fp2_t b)
{
    return fp2_mul(a, b);
}
static EC_FN fp2_t f_sqr(fp2_t a)
{
    return fp2_sqr(a);
}
static EC_FN bool f_is_zero(fp2_t a)
{
    return fp2_is_zero(a);
}
static EC_FN bool f_eq(fp2_t a, fp2_t b)
{
    return fp2_eq(a, b);
}

template <class F> EC_FN F f_zero();
template <class F> EC_FN F f_one();
template <> EC_FN fp_t f_zero<fp_t>()
{
    return fp_zero();
}
template <> EC_FN fp_t f_one<fp_t>()
{
    return fp_one();
}
template <> EC_FN fp2_t f_zero<fp2_t>()
{
    return fp2_zero();
}
template <> EC_FN fp2_t f_one<fp2_t>()
{
    return fp2_one();
}

/* ---- point types --------------------------------------------------------- */

template <class F> struct ec_affine {
    F x, y;
};
template <class F> struct ec_xyzz {
    F X, Y, ZZ, ZZZ;
};
template <class F> struct ec_jac {
    F X, Y, Z;
};

typedef ec_affine<fp_t> g1_affine_t;
typedef ec_xyzz<fp_t> g1_xyzz_t;
typedef ec_jac<fp_t> g1_jac_t;
typedef ec_affine<fp2_t> g2_affine_t;
typedef ec_xyzz<fp2_t> g2_xyzz_t;
typedef ec_jac<fp2_t> g2_jac_t;

static_assert(sizeof(g1_affine_t) == 96 && sizeof(g1_xyzz_t) == 192 && sizeof(g1_jac_t) == 144,
              "G1 point layouts must match cuzk_g1_*");
static_assert(sizeof(g2_affine_t) == 192 && sizeof(g2_xyzz_t) == 384 && sizeof(g2_jac_t) == 288,
              "G2 point layouts must match cuzk_g2_*");

/* ---- predicates, identity, negation --------------------------------------- */

template <class F> EC_FN void ec_xyzz_set_identity(ec_xyzz<F> &r)
{
    r.X = f_zero<F>();
    r.Y = f_zero<F>();
    r.ZZ = f_zero<F>();
    r.ZZZ = f_zero<F>();
}

template <class F> EC_FN bool ec_xyzz_is_identity(const ec_xyzz<F> &a)
{
    return f_is_zero(a.ZZ);
}

template <class F> EC_FN bool ec_affine_is_identity(const ec_affine<F> &a)
{
    return f_is_zero(a.x) && f_is_zero(a.y);
}

/* -a; the identity (0, 0) maps to itself. */
template <class F> EC_FN ec_affine<F> ec_affine_neg(const ec_affine<F> &a)
{
    ec_affine<F> r = {a.x, f_neg(a.y)};
    return r;
}

template <class F> EC_FN ec_xyzz<F> ec_xyzz_neg(const ec_xyzz<F> &a)
{
    ec_xyzz<F> r = {a.X, f_neg(a.Y), a.ZZ, a.ZZZ};
    return r;
}

/* ---- doubling ------------------------------------------------------------ */

/* mdbl-2008-s-1: r = 2(x, y) for an affine point that is not the identity. */
template <class F> EC_FN void ec_xyzz_dbl_affine(ec_xyzz<F> &r, F x, F y)
{
    F u = f_dbl(y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(x, v);
    F m = f_sqr(x);
    m = f_add(m, f_dbl(m));
    F t = f_mul(w, y);
    F X3 = f_sub(f_sub(f_sqr(m), s), s);
    r.Y = f_sub(f_mul(m, f_sub(s, X3)), t);
    r.X = X3;
    r.ZZ = v;
    r.ZZZ = w;
}

/* dbl-2008-s-1: acc = 2·acc; ZZ = 0 stays 0. */
template <class F> EC_FN void ec_xyzz_dbl(ec_xyzz<F> &acc)
{
    F u = f_dbl(acc.Y);
    F v = f_sqr(u);
    F w = f_mul(u, v);
    F s = f_mul(acc.X, v);
    F m = f_sqr(acc.X);
    m = f_add(m, f_dbl(m));
    F t = f_mul(w, acc.Y);
    acc.ZZ = f_mul(v, acc.ZZ);
    acc.ZZZ = f_mul(w, acc.ZZZ);
    F X3 = f_sub(f_sub(f_sqr(m), s), s);
    acc.Y = f_sub(f_mul(m, f_sub(s, X3)), t);
    acc.X = X3;
}

/* ---- additions ----------------------------------------------------------- */

/* madd-2008-s: acc += (bx, by), an affine point that is not the identity. */
template <class F> EC_FN void ec_xyzz_madd(ec_xyzz<F> &acc, F bx, F by)
{
    if (f_is_zero(acc.ZZ)) {
        acc.X = bx;
        acc.Y = by;
        acc.ZZ = f_one<F>();
        acc.ZZZ = f_one<F>();
        return;
    }
    F P = f_sub(f_mul(bx, acc.ZZ), acc.X);
    F R = f_sub(f_mul(by, acc.ZZZ), acc.Y);
    if (f_is_zero(P)) {
        if (f_is_zero(R))
            ec_xyzz_dbl_affine(acc, bx, by);
        else
            ec_xyzz_set_identity(acc);
        return;
    }
    F PP = f_sqr(P);
    F PPP = f_mul(P, PP);
    F Q = f_mul(acc.X, PP);
    F t = f_mul(acc.Y, PPP);
    acc.ZZ = f_mul(acc.ZZ, PP);
    acc.ZZZ = f_mul(acc.ZZZ, PPP);
    F X3 = f_sub(f_sub(f_sub(f_sqr(R), PPP), Q), Q);
    acc.Y = f_sub(f_mul(R, f_sub(Q, X3)), t);
    acc.X = X3;
}

/* acc += b; complete (either side the identity, acc = b, acc = -b). */
template <class F> EC_FN void ec_xyzz_add_affine(ec_xyzz<F> &acc, const ec_affine<F> &b)
{
    if (ec_affine_is_identity(b))
        return;
    ec_xyzz_madd(acc, b.x, b.y);
}

/* acc -= b; complete. */
template <class F> EC_FN void ec_xyzz_sub_affine(ec_xyzz<F> &acc, const ec_affine<F> &b)
{
    if (ec_affine_is_identity(b))
        return;
    ec_xyzz_madd(acc, b.x, f_neg(b.y));
}

/* add-2008-s: acc += b; complete. */
template <class F> EC_FN void ec_xyzz_add(ec_xyzz<F> &acc, const ec_xyzz<F> &b)
{
    if (f_is_zero(acc.ZZ)) {
        acc = b;
        return;
    }
    if (f_is_zero(b.ZZ))
        return;
    F U1 = f_mul(acc.X, b.ZZ);
    F S1 = f_mul(acc.Y, b.ZZZ);
    F P = f_sub(f_mul(b.X, acc.ZZ), U1);
    F R = f_sub(f_mul(b.Y, acc.ZZZ), S1);
    if (f_is_zero(P)) {
        if (f_is_zero(R))
            ec_xyzz_dbl(acc);
        else
            ec_xyzz_set_identity(acc);
        return;
    }
    F PP = f_sqr(P);
    F PPP = f_mul(P, PP);
    F Q = f_mul(U1, PP);
    acc.ZZ = f_mul(f_mul(acc.ZZ, b.ZZ), PP);
    acc.ZZZ = f_mul(f_mul(acc.ZZZ, b.ZZZ), PPP);
    F X3 = f_sub(f_sub(f_sub(f_sqr(R), PPP), Q), Q);
    acc.Y = f_sub(f_mul(R, f_sub(Q, X3)), f_mul(S1, PPP));
    acc.X = X3;
}

/* ---- conversion and small multiples --------------------------------------- */

/* (X, Y, ZZ, ZZZ) -> (X ZZ^2, Y ZZZ^2, ZZZ): Z = ZZZ gives Z^2 = ZZ^3 and
 * Z^3 = ZZZ^3, so the affine point is kept; ZZ = 0 gives Z = 0. */
template <class F> EC_FN void ec_xyzz_to_jac(ec_jac<F> &r, const ec_xyzz<F> &a)
{
    r.X = f_mul(a.X, f_sqr(a.ZZ));
    r.Y = f_mul(a.Y, f_sqr(a.ZZZ));
    r.Z = a.ZZZ;
}

/* acc = k·acc by double-and-add from the top set bit of k (k = 0 gives the identity). */
template <class F> EC_FN void ec_xyzz_mul_small(ec_xyzz<F> &acc, uint32_t k)
{
    if (k == 0) {
        ec_xyzz_set_identity(acc);
        return;
    }
#ifdef __CUDA_ARCH__
    int top = 31 - __clz(k);
#else
    int top = 31 - __builtin_clz(k);
#endif
    const ec_xyzz<F> base = acc;
    for (int i = top - 1; i >= 0; i--) {
        ec_xyzz_dbl(acc);
        if ((k >> i) & 1)
            ec_xyzz_add(acc, base);
    }
}

#endif
