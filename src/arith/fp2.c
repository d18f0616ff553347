/*
 * fp2.c — Fp2 = Fp[u]/(u^2 + 1), the field of G2 coordinates and the bottom
 * of the pairing tower.
 *
 * Multiplication is Karatsuba (3 Fp multiplications), squaring the complex
 * method (2). Inversion goes through the norm: 1/(a + bu) = (a - bu)/(a^2 + b^2).
 * Square roots use the p = 3 (mod 4) algorithm of Adj and Rodríguez-Henríquez
 * ("Square root computation over even extension fields", alg. 9): one
 * exponentiation by (p-3)/4, one by (p-1)/2, and a final check.
 */
#include "cuzk/field.h"

#include <string.h>

#include "mont.h"

const cuzk_fp2 CUZK_FP2_ZERO = {{{0}}, {{0}}};
const cuzk_fp2 CUZK_FP2_ONE = {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                               {{0}}};

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp_add(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp_sub(&r->c1, &a->c1, &b->c1);
}

void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp_neg(&r->c0, &a->c0);
    cuzk_fp_neg(&r->c1, &a->c1);
}

void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp_dbl(&r->c0, &a->c0);
    cuzk_fp_dbl(&r->c1, &a->c1);
}

void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    r->c0 = a->c0;
    cuzk_fp_neg(&r->c1, &a->c1);
}

void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b)
{
    cuzk_fp t0, t1, s0, s1;
    cuzk_fp_mul(&t0, &a->c0, &b->c0);
    cuzk_fp_mul(&t1, &a->c1, &b->c1);
    cuzk_fp_add(&s0, &a->c0, &a->c1);
    cuzk_fp_add(&s1, &b->c0, &b->c1);
    cuzk_fp_mul(&s0, &s0, &s1);
    cuzk_fp_sub(&r->c0, &t0, &t1);
    cuzk_fp_sub(&s0, &s0, &t0);
    cuzk_fp_sub(&r->c1, &s0, &t1);
}

void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp s, d, m;
    cuzk_fp_add(&s, &a->c0, &a->c1);
    cuzk_fp_sub(&d, &a->c0, &a->c1);
    cuzk_fp_mul(&m, &a->c0, &a->c1);
    cuzk_fp_mul(&r->c0, &s, &d);
    cuzk_fp_dbl(&r->c1, &m);
}

void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b)
{
    cuzk_fp_mul(&r->c0, &a->c0, b);
    cuzk_fp_mul(&r->c1, &a->c1, b);
}

/* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
void cuzk_fp2_mul_xi(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp t;
    cuzk_fp_sub(&t, &a->c0, &a->c1);
    cuzk_fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

MONT_DEFINE_POW(cuzk_fp2_pow, cuzk_fp2, cuzk_fp2_mul, CUZK_FP2_ONE)

bool cuzk_fp2_is_zero(const cuzk_fp2 *a) { return cuzk_fp_is_zero(&a->c0) && cuzk_fp_is_zero(&a->c1); }
bool cuzk_fp2_is_one(const cuzk_fp2 *a) { return cuzk_fp_is_one(&a->c0) && cuzk_fp_is_zero(&a->c1); }
bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b) { return memcmp(a, b, sizeof *a) == 0; }

bool cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp n, t;
    cuzk_fp_sqr(&n, &a->c0);
    cuzk_fp_sqr(&t, &a->c1);
    cuzk_fp_add(&n, &n, &t);
    if (!cuzk_fp_inv(&n, &n)) {
        *r = CUZK_FP2_ZERO;
        return false;
    }
    cuzk_fp_mul(&r->c0, &a->c0, &n);
    cuzk_fp_mul(&t, &a->c1, &n);
    cuzk_fp_neg(&r->c1, &t);
    return true;
}

MONT_DEFINE_BATCH_INV(cuzk_fp2_batch_inv, cuzk_fp2, cuzk_fp2_mul, cuzk_fp2_inv, cuzk_fp2_is_zero,
                      CUZK_FP2_ONE)

bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    if (cuzk_fp2_is_zero(a)) {
        *r = CUZK_FP2_ZERO;
        return true;
    }
    uint64_t e1[6], e2[6];
    limbs_shr(e1, CUZK_P, 2, 6); /* (p-3)/4: p = 3 mod 4 */
    limbs_shr(e2, CUZK_P, 1, 6); /* (p-1)/2 */
    cuzk_fp2 a1, x0, alpha, x, chk, minus_one;
    cuzk_fp2_pow(&a1, a, e1, 6);
    cuzk_fp2_mul(&x0, &a1, a);
    cuzk_fp2_mul(&alpha, &a1, &x0);
    cuzk_fp2_neg(&minus_one, &CUZK_FP2_ONE);
    if (cuzk_fp2_eq(&alpha, &minus_one)) {
        /* x = u * x0 */
        cuzk_fp t;
        cuzk_fp_neg(&t, &x0.c1);
        x.c1 = x0.c0;
        x.c0 = t;
    } else {
        cuzk_fp2 b;
        cuzk_fp2_add(&b, &alpha, &CUZK_FP2_ONE);
        cuzk_fp2_pow(&b, &b, e2, 6);
        cuzk_fp2_mul(&x, &b, &x0);
    }
    cuzk_fp2_sqr(&chk, &x);
    if (!cuzk_fp2_eq(&chk, a))
        return false;
    *r = x;
    return true;
}

bool cuzk_fp2_is_lex_largest(const cuzk_fp2 *a)
{
    if (!cuzk_fp_is_zero(&a->c1))
        return cuzk_fp_is_lex_largest(&a->c1);
    return cuzk_fp_is_lex_largest(&a->c0);
}
