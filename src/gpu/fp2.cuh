/*
 * fp2.cuh — Fp2 = Fp[u]/(u^2 + 1) for CUDA kernels (and the host), on fp.cuh.
 *
 * An element c0 + c1·u is two fp_t, byte for byte the host's cuzk_fp2. Every
 * function takes and returns values and returns reduced coordinates, so the
 * bytes equal cuzk_fp2_* results whatever formula either side uses.
 *
 * Multiplication is Karatsuba, 3 Fp products:
 *   c0 = a0 b0 - a1 b1,  c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1;
 * squaring 2 products: c0 = (a0 + a1)(a0 - a1), c1 = (2 a0) a1.
 * The sums fed to the products are left unreduced (fp_add_lazy, below 2p),
 * which they accept; that saves the conditional subtraction of each.
 *
 * The Fp products are fp.cuh's word-serial fp_mul_ws, not fp_mul's Karatsuba
 * form: counted with bench/gpu/sass_cost.py on one G2 XYZZ addition, the
 * Karatsuba form cuts its multiply-pipe cost 27054 -> 24079 slots but, at the
 * 255-register cap, triples the stack frame (144 -> 432 bytes) and the moves
 * (729 -> 2880) (docs/design/013, thirtieth session).
 */
#ifndef CUZK_GPU_FP2_CUH
#define CUZK_GPU_FP2_CUH

#include "fp.cuh"

struct fp2_s {
    fp_t c0, c1;
};
typedef struct fp2_s fp2_t;

FP_FN fp2_t fp2_zero(void)
{
    fp2_t r = {fp_zero(), fp_zero()};
    return r;
}

FP_FN fp2_t fp2_one(void)
{
    fp2_t r = {fp_one(), fp_zero()};
    return r;
}

FP_FN bool fp2_is_zero(fp2_t a)
{
    uint32_t d = 0;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        d |= a.c0.v[i] | a.c1.v[i];
    return d == 0;
}

FP_FN bool fp2_eq(fp2_t a, fp2_t b)
{
    uint32_t d = 0;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        d |= (a.c0.v[i] ^ b.c0.v[i]) | (a.c1.v[i] ^ b.c1.v[i]);
    return d == 0;
}

FP_FN fp2_t fp2_add(fp2_t a, fp2_t b)
{
    fp2_t r = {fp_add(a.c0, b.c0), fp_add(a.c1, b.c1)};
    return r;
}

FP_FN fp2_t fp2_sub(fp2_t a, fp2_t b)
{
    fp2_t r = {fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1)};
    return r;
}

FP_FN fp2_t fp2_neg(fp2_t a)
{
    fp2_t r = {fp_neg(a.c0), fp_neg(a.c1)};
    return r;
}

FP_FN fp2_t fp2_dbl(fp2_t a)
{
    fp2_t r = {fp_dbl(a.c0), fp_dbl(a.c1)};
    return r;
}

FP_FN fp2_t fp2_mul(fp2_t a, fp2_t b)
{
    fp_t t0 = fp_mul_ws(a.c0, b.c0);
    fp_t t1 = fp_mul_ws(a.c1, b.c1);
    fp_t t2 = fp_mul_ws(fp_add_lazy(a.c0, a.c1), fp_add_lazy(b.c0, b.c1));
    fp2_t r;
    r.c0 = fp_sub(t0, t1);
    r.c1 = fp_sub(fp_sub(t2, t0), t1);
    return r;
}

FP_FN fp2_t fp2_sqr(fp2_t a)
{
    fp2_t r;
    r.c0 = fp_mul_ws(fp_add_lazy(a.c0, a.c1), fp_sub(a.c0, a.c1));
    r.c1 = fp_mul_ws(fp_add_lazy(a.c0, a.c0), a.c1);
    return r;
}

FP_FN fp2_t fp2_load(const fp2_t *p)
{
    fp2_t r = {fp_load(&p->c0), fp_load(&p->c1)};
    return r;
}

FP_FN void fp2_store(fp2_t *p, fp2_t a)
{
    fp_store(&p->c0, a.c0);
    fp_store(&p->c1, a.c1);
}

#endif
