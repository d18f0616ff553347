/*
 * fp12.c — the pairing tower Fp6 = Fp2[v]/(v^3 - xi) and Fp12 = Fp6[w]/(w^2 - v),
 * xi = 1 + u.
 *
 * Everything is built from Fp2 operations. Fp6 multiplication is Karatsuba
 * over the three Fp2 coefficients (6 Fp2 multiplications), squaring the
 * Chung–Hasan "SQR2" formula (2 multiplications and 3 squarings), inversion
 * the usual adjugate over the norm to Fp2. Fp12 multiplication is Karatsuba
 * over Fp6 (3 Fp6 multiplications) and squaring the complex method (2).
 *
 * The Miller loop multiplies by lines that have only three non-zero Fp2
 * coefficients (at 1, v and v w: "014" when the six Fp2 coefficients are
 * listed c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2); cuzk_fp12_mul_by_014 does
 * that in 13 Fp2 multiplications instead of 18.
 *
 * Frobenius: write a = sum_{i<6} a_i w^i with a_i in Fp2 (w^6 = xi, and
 * c0 = a_0 + a_2 v + a_4 v^2, c1 = a_1 + a_3 v + a_5 v^2). Then
 * a^(p^k) = sum conj^k(a_i) xi^(i (p^k - 1)/6) w^i; the factors for k = 1..3
 * are the table CUZK_FP12_FROB (see tower.h; the test recomputes them) and
 * larger powers are compositions.
 *
 * The final exponentiation works in the cyclotomic subgroup, where the
 * Granger–Scott squaring applies: viewing Fp12 as Fp4[w]/(w^3 - t) with
 * Fp4 = Fp2[t]/(t^2 - xi), t = w^3, an element A + B w + C w^2 squares to
 * (3A^2 - 2 conj(A)) + (3 t C^2 + 2 conj(B)) w + (3 B^2 - 2 conj(C)) w^2,
 * which needs only three Fp4 squarings (9 Fp2 squarings). The exponentiation
 * by |x| goes further: B' and C' do not involve A, so its 63 squarings carry
 * only (B, C) (6 Fp2 squarings each, in the spirit of Karabina's compressed
 * squaring) and A is recovered afterwards from the norm equations, for the six
 * powers a^(2^k) that |x| needs, with one batched inversion.
 */
#include "cuzk/pairing.h"

#include <string.h>

#include "tower.h"

const cuzk_fp6 CUZK_FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const cuzk_fp6 CUZK_FP6_ONE = {{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                  0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                                {{0}}},
                               {{{0}}, {{0}}},
                               {{{0}}, {{0}}}};
const cuzk_fp12 CUZK_FP12_ONE = {{{{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                                     0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
                                   {{0}}},
                                  {{{0}}, {{0}}},
                                  {{{0}}, {{0}}}},
                                 {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* xi^(i (p^k - 1) / 6), k = 1..3 (rows), i = 1..5 (columns); Montgomery form. */
const cuzk_fp2 CUZK_FP12_FROB[3][5] = {
    {
        {{{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee, 0x1ce393ea5daace4d,
           0x08f2220fb0fb66eb}},
         {{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0, 0x2e3813cbe5a0de89,
           0x110eefda88847faf}}},
        {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}},
         {{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2,
           0x18f0206554638741}}},
        {{{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d,
           0x0e2b7eedbbfd87d2}},
         {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d,
           0x0e2b7eedbbfd87d2}}},
        {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024, 0x14e4f04fe2db9068,
           0x14e56d3f1564853a}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181, 0x7525cf528d50fe95, 0x4a85ed50f4798a6b,
           0x171da0fd6cf8eebd}},
         {{0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2, 0xef517c3266341429, 0x0095ba654ed2226b,
           0x02e370eccc86f7dd}}},
    },
    {
        {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721, 0x47222a47bf7b5c04,
           0x0110f184e51c5f59}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b, 0x3636b76660701c6e,
           0x051ba4ab241b6160}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a, 0xef148d1ea0f4c069,
           0x040ab3263eff0206}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e, 0x03f97d6e83d050d2,
           0x18f0206554638741}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024, 0x14e4f04fe2db9068,
           0x14e56d3f1564853a}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
    },
    {
        {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9,
           0x0bd592fc7d825ec8}},
         {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d,
           0x0e2b7eedbbfd87d2}}},
        {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}},
         {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d,
           0x15f65ec3fa80e493}}},
        {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9,
           0x0bd592fc7d825ec8}},
         {{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9,
           0x0bd592fc7d825ec8}}},
        {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a, 0xef148d1ea0f4c069,
           0x040ab3263eff0206}},
         {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
           0x0000000000000000}}},
        {{{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7, 0x2da2596696cebc1d,
           0x0e2b7eedbbfd87d2}},
         {{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18, 0x1d794e4fac7cf0b9,
           0x0bd592fc7d825ec8}}},
    },
};

/* ---- Fp6 ----------------------------------------------------------------- */

void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_add(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_add(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_add(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2_sub(&r->c0, &a->c0, &b->c0);
    cuzk_fp2_sub(&r->c1, &a->c1, &b->c1);
    cuzk_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2_neg(&r->c0, &a->c0);
    cuzk_fp2_neg(&r->c1, &a->c1);
    cuzk_fp2_neg(&r->c2, &a->c2);
}

/* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
void cuzk_fp6_mul_by_v(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_mul_xi(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/*
 * Karatsuba over three coefficients: with t_i = a_i b_i,
 * c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)
 * c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
 * c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
 */
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    cuzk_fp2 t0, t1, t2, s, u, c0, c1, c2;
    cuzk_fp2_mul(&t0, &a->c0, &b->c0);
    cuzk_fp2_mul(&t1, &a->c1, &b->c1);
    cuzk_fp2_mul(&t2, &a->c2, &b->c2);

    cuzk_fp2_add(&s, &a->c1, &a->c2);
    cuzk_fp2_add(&u, &b->c1, &b->c2);
    cuzk_fp2_mul(&c0, &s, &u);
    cuzk_fp2_sub(&c0, &c0, &t1);
    cuzk_fp2_sub(&c0, &c0, &t2);
    cuzk_fp2_mul_xi(&c0, &c0);
    cuzk_fp2_add(&c0, &c0, &t0);

    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, &b->c0, &b->c1);
    cuzk_fp2_mul(&c1, &s, &u);
    cuzk_fp2_sub(&c1, &c1, &t0);
    cuzk_fp2_sub(&c1, &c1, &t1);
    cuzk_fp2_mul_xi(&s, &t2);
    cuzk_fp2_add(&c1, &c1, &s);

    cuzk_fp2_add(&s, &a->c0, &a->c2);
    cuzk_fp2_add(&u, &b->c0, &b->c2);
    cuzk_fp2_mul(&c2, &s, &u);
    cuzk_fp2_sub(&c2, &c2, &t0);
    cuzk_fp2_sub(&c2, &c2, &t2);
    cuzk_fp2_add(&r->c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

/*
 * Chung–Hasan SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2,
 * s3 = 2 a1 a2, s4 = a2^2; c0 = s0 + xi s3, c1 = s1 + xi s4,
 * c2 = s1 + s2 + s3 - s0 - s4.
 */
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 s0, s1, s2, s3, s4, t;
    cuzk_fp2_sqr(&s0, &a->c0);
    cuzk_fp2_mul(&s1, &a->c0, &a->c1);
    cuzk_fp2_dbl(&s1, &s1);
    cuzk_fp2_sub(&t, &a->c0, &a->c1);
    cuzk_fp2_add(&t, &t, &a->c2);
    cuzk_fp2_sqr(&s2, &t);
    cuzk_fp2_mul(&s3, &a->c1, &a->c2);
    cuzk_fp2_dbl(&s3, &s3);
    cuzk_fp2_sqr(&s4, &a->c2);

    cuzk_fp2_add(&r->c2, &s1, &s2);
    cuzk_fp2_add(&r->c2, &r->c2, &s3);
    cuzk_fp2_sub(&r->c2, &r->c2, &s0);
    cuzk_fp2_sub(&r->c2, &r->c2, &s4);
    cuzk_fp2_mul_xi(&t, &s3);
    cuzk_fp2_add(&r->c0, &s0, &t);
    cuzk_fp2_mul_xi(&t, &s4);
    cuzk_fp2_add(&r->c1, &s1, &t);
}

/*
 * 1/a = (t0 + t1 v + t2 v^2) / N with t0 = a0^2 - xi a1 a2,
 * t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2 and the norm
 * N = a0 t0 + xi (a2 t1 + a1 t2) in Fp2.
 */
bool cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a)
{
    cuzk_fp2 t0, t1, t2, s, n;
    cuzk_fp2_sqr(&t0, &a->c0);
    cuzk_fp2_mul(&s, &a->c1, &a->c2);
    cuzk_fp2_mul_xi(&s, &s);
    cuzk_fp2_sub(&t0, &t0, &s);

    cuzk_fp2_sqr(&t1, &a->c2);
    cuzk_fp2_mul_xi(&t1, &t1);
    cuzk_fp2_mul(&s, &a->c0, &a->c1);
    cuzk_fp2_sub(&t1, &t1, &s);

    cuzk_fp2_sqr(&t2, &a->c1);
    cuzk_fp2_mul(&s, &a->c0, &a->c2);
    cuzk_fp2_sub(&t2, &t2, &s);

    cuzk_fp2_mul(&n, &a->c2, &t1);
    cuzk_fp2_mul(&s, &a->c1, &t2);
    cuzk_fp2_add(&n, &n, &s);
    cuzk_fp2_mul_xi(&n, &n);
    cuzk_fp2_mul(&s, &a->c0, &t0);
    cuzk_fp2_add(&n, &n, &s);
    if (!cuzk_fp2_inv(&n, &n)) {
        *r = CUZK_FP6_ZERO;
        return false;
    }
    cuzk_fp2_mul(&r->c0, &t0, &n);
    cuzk_fp2_mul(&r->c1, &t1, &n);
    cuzk_fp2_mul(&r->c2, &t2, &n);
    return true;
}

/*
 * (a0 + a1 v + a2 v^2)(b0 + b1 v) = (a0 b0 + xi a2 b1) + (a0 b1 + a1 b0) v
 * + (a1 b1 + a2 b0) v^2, with Karatsuba for the two mixed terms.
 */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1)
{
    cuzk_fp2 t0, t1, s, u, c0, c1, c2;
    cuzk_fp2_mul(&t0, &a->c0, b0);
    cuzk_fp2_mul(&t1, &a->c1, b1);

    cuzk_fp2_add(&s, &a->c1, &a->c2);
    cuzk_fp2_mul(&c0, &s, b1);
    cuzk_fp2_sub(&c0, &c0, &t1);
    cuzk_fp2_mul_xi(&c0, &c0);
    cuzk_fp2_add(&c0, &c0, &t0);

    cuzk_fp2_add(&s, &a->c0, &a->c1);
    cuzk_fp2_add(&u, b0, b1);
    cuzk_fp2_mul(&c1, &s, &u);
    cuzk_fp2_sub(&c1, &c1, &t0);
    cuzk_fp2_sub(&c1, &c1, &t1);

    cuzk_fp2_add(&s, &a->c0, &a->c2);
    cuzk_fp2_mul(&c2, &s, b0);
    cuzk_fp2_sub(&c2, &c2, &t0);
    cuzk_fp2_add(&r->c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
}

/* (a0 + a1 v + a2 v^2)(b1 v) = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1)
{
    cuzk_fp2 c0;
    cuzk_fp2_mul(&c0, &a->c2, b1);
    cuzk_fp2_mul_xi(&c0, &c0);
    cuzk_fp2_mul(&r->c2, &a->c1, b1);
    cuzk_fp2_mul(&r->c1, &a->c0, b1);
    r->c0 = c0;
}

bool cuzk_fp6_is_zero(const cuzk_fp6 *a)
{
    return cuzk_fp2_is_zero(&a->c0) && cuzk_fp2_is_zero(&a->c1) && cuzk_fp2_is_zero(&a->c2);
}

bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

/* ---- Fp12 ---------------------------------------------------------------- */

void cuzk_fp12_one(cuzk_fp12 *r)
{
    *r = CUZK_FP12_ONE;
}

bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

bool cuzk_fp12_is_one(const cuzk_fp12 *a)
{
    return cuzk_fp12_eq(a, &CUZK_FP12_ONE);
}

/* Karatsuba: c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1, t_i = a_i b_i. */
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b)
{
    cuzk_fp6 t0, t1, s, u;
    cuzk_fp6_mul(&t0, &a->c0, &b->c0);
    cuzk_fp6_mul(&t1, &a->c1, &b->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_add(&u, &b->c0, &b->c1);
    cuzk_fp6_mul(&s, &s, &u);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_by_v(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}

/* Complex squaring: with t = a0 a1, c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2t. */
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp6 t, vt, s, u;
    cuzk_fp6_mul(&t, &a->c0, &a->c1);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_mul_by_v(&u, &a->c1);
    cuzk_fp6_add(&u, &u, &a->c0);
    cuzk_fp6_mul(&s, &s, &u);
    cuzk_fp6_mul_by_v(&vt, &t);
    cuzk_fp6_sub(&s, &s, &t);
    cuzk_fp6_sub(&r->c0, &s, &vt);
    cuzk_fp6_add(&r->c1, &t, &t);
}

/* 1/(a0 + a1 w) = (a0 - a1 w) / (a0^2 - v a1^2). */
bool cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp6 n, t;
    cuzk_fp6_sqr(&n, &a->c0);
    cuzk_fp6_sqr(&t, &a->c1);
    cuzk_fp6_mul_by_v(&t, &t);
    cuzk_fp6_sub(&n, &n, &t);
    if (!cuzk_fp6_inv(&n, &n)) {
        memset(r, 0, sizeof *r);
        return false;
    }
    cuzk_fp6_mul(&r->c0, &a->c0, &n);
    cuzk_fp6_mul(&t, &a->c1, &n);
    cuzk_fp6_neg(&r->c1, &t);
    return true;
}

void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    r->c0 = a->c0;
    cuzk_fp6_neg(&r->c1, &a->c1);
}

/* a^(p^k) for k = 1, 2, 3: conjugate the coefficients k times, scale a_i by the table. */
static void fp12_frobenius(cuzk_fp12 *r, const cuzk_fp12 *a, int k)
{
    /* the coefficient of w^i, i = 1..5, in tower order */
    cuzk_fp2 *rc[5] = {&r->c1.c0, &r->c0.c1, &r->c1.c1, &r->c0.c2, &r->c1.c2};
    const cuzk_fp2 *ac[6] = {&a->c0.c0, &a->c1.c0, &a->c0.c1, &a->c1.c1, &a->c0.c2, &a->c1.c2};
    const cuzk_fp2 *g = CUZK_FP12_FROB[k - 1];
    cuzk_fp2 t;
    if (k & 1) {
        cuzk_fp2_conj(&r->c0.c0, ac[0]);
        for (int i = 1; i < 6; i++) {
            cuzk_fp2_conj(&t, ac[i]);
            cuzk_fp2_mul(rc[i - 1], &t, &g[i - 1]);
        }
    } else {
        r->c0.c0 = *ac[0];
        for (int i = 1; i < 6; i++)
            cuzk_fp2_mul_fp(rc[i - 1], ac[i], &g[i - 1].c0); /* the factors lie in Fp */
    }
}

void cuzk_fp12_frobenius_map(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned n)
{
    n %= 12;
    if (n == 0) {
        *r = *a;
        return;
    }
    if (n == 6) {
        cuzk_fp12_conj(r, a);
        return;
    }
    cuzk_fp12 t = *a;
    for (; n >= 3; n -= 3)
        fp12_frobenius(&t, &t, 3);
    if (n)
        fp12_frobenius(&t, &t, (int)n);
    *r = t;
}

/* (x0 + x1 t)^2 in Fp4 = Fp2[t]/(t^2 - xi): r0 = x0^2 + xi x1^2, r1 = 2 x0 x1. */
static void fp4_sqr(cuzk_fp2 *r0, cuzk_fp2 *r1, const cuzk_fp2 *x0, const cuzk_fp2 *x1)
{
    cuzk_fp2 s0, s1, s;
    cuzk_fp2_sqr(&s0, x0);
    cuzk_fp2_sqr(&s1, x1);
    cuzk_fp2_add(&s, x0, x1);
    cuzk_fp2_sqr(&s, &s);
    cuzk_fp2_sub(&s, &s, &s0);
    cuzk_fp2_sub(r1, &s, &s1);
    cuzk_fp2_mul_xi(&s1, &s1);
    cuzk_fp2_add(r0, &s0, &s1);
}

/* r = 3 s - 2 x (sign = -1) or 3 s + 2 x (sign = +1). */
static void three_s_two_x(cuzk_fp2 *r, const cuzk_fp2 *s, const cuzk_fp2 *x, int sign)
{
    cuzk_fp2 t;
    if (sign < 0)
        cuzk_fp2_sub(&t, s, x);
    else
        cuzk_fp2_add(&t, s, x);
    cuzk_fp2_dbl(&t, &t);
    cuzk_fp2_add(r, &t, s);
}

/*
 * Granger–Scott (see the note at the top). The Fp4 pairs are
 * A = (a_0, a_3) = (c0.c0, c1.c1), B = (a_1, a_4) = (c1.c0, c0.c2),
 * C = (a_2, a_5) = (c0.c1, c1.c2).
 */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp2 A0, A1, B0, B1, C0, C1;
    fp4_sqr(&A0, &A1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&B0, &B1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&C0, &C1, &a->c0.c1, &a->c1.c2);
    cuzk_fp2_mul_xi(&C1, &C1); /* t C^2 = xi C1 + C0 t */

    three_s_two_x(&r->c0.c0, &A0, &a->c0.c0, -1);
    three_s_two_x(&r->c1.c1, &A1, &a->c1.c1, +1);
    three_s_two_x(&r->c1.c0, &C1, &a->c1.c0, +1);
    three_s_two_x(&r->c0.c2, &C0, &a->c0.c2, -1);
    three_s_two_x(&r->c0.c1, &B0, &a->c0.c1, -1);
    three_s_two_x(&r->c1.c2, &B1, &a->c1.c2, +1);
}

/*
 * Compressed squaring: B' and C' above depend on B and C only, so a chain of
 * squarings can carry just (B, C) = (b0, b1, c0, c1) and skip A: two Fp4
 * squarings (6 Fp2 squarings) per step instead of three.
 */
typedef struct {
    cuzk_fp2 b0, b1, c0, c1;
} cyc_compressed;

static void compressed_sqr(cyc_compressed *r, const cyc_compressed *a)
{
    cuzk_fp2 B0, B1, C0, C1;
    fp4_sqr(&B0, &B1, &a->b0, &a->b1);
    fp4_sqr(&C0, &C1, &a->c0, &a->c1);
    cuzk_fp2_mul_xi(&C1, &C1);
    three_s_two_x(&r->b0, &C1, &a->b0, +1);
    three_s_two_x(&r->b1, &C0, &a->b1, -1);
    three_s_two_x(&r->c0, &B0, &a->c0, -1);
    three_s_two_x(&r->c1, &B1, &a->c1, +1);
}

/*
 * Decompression recovers A = a0 + a3 t from B and C. For a cyclotomic f,
 * f conj(f) = 1 with conj(A + B w + C w^2) = conj(A) - conj(B) w + conj(C) w^2;
 * the coefficients of w and w^2 of that product give two linear equations in
 * (a0, a3) over Fp2:
 *   c0 a0 - xi c1 a3 = N(B)/2,   b1 a0 - b0 a3 = -N(C)/2,
 * with N(X) = x0^2 - xi x1^2. By Cramer's rule, with D = xi b1 c1 - b0 c0,
 *   a0 = -(b0 N(B) + xi c1 N(C)) / 2D,   a3 = -(c0 N(C) + b1 N(B)) / 2D.
 * decompress_prepare() returns the two numerators and 2D; the caller inverts
 * all denominators of a chain at once. D = 0 happens (f = 1 is an example) and
 * makes the caller fall back to uncompressed squaring.
 */
static void decompress_prepare(cuzk_fp2 *n0, cuzk_fp2 *n1, cuzk_fp2 *den, const cyc_compressed *z)
{
    cuzk_fp2 nb, nc, t;
    cuzk_fp2_sqr(&nb, &z->b0);
    cuzk_fp2_sqr(&t, &z->b1);
    cuzk_fp2_mul_xi(&t, &t);
    cuzk_fp2_sub(&nb, &nb, &t);
    cuzk_fp2_sqr(&nc, &z->c0);
    cuzk_fp2_sqr(&t, &z->c1);
    cuzk_fp2_mul_xi(&t, &t);
    cuzk_fp2_sub(&nc, &nc, &t);

    cuzk_fp2_mul(n0, &z->b0, &nb);
    cuzk_fp2_mul(&t, &z->c1, &nc);
    cuzk_fp2_mul_xi(&t, &t);
    cuzk_fp2_add(n0, n0, &t);
    cuzk_fp2_neg(n0, n0);

    cuzk_fp2_mul(n1, &z->c0, &nc);
    cuzk_fp2_mul(&t, &z->b1, &nb);
    cuzk_fp2_add(n1, n1, &t);
    cuzk_fp2_neg(n1, n1);

    cuzk_fp2_mul(den, &z->b1, &z->c1);
    cuzk_fp2_mul_xi(den, den);
    cuzk_fp2_mul(&t, &z->b0, &z->c0);
    cuzk_fp2_sub(den, den, &t);
    cuzk_fp2_dbl(den, den);
}

/* |x| = 0xd201000000010000 = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16. */
#define POW_X_TERMS 6
static const int POW_X_BITS[POW_X_TERMS] = {16, 48, 57, 60, 62, 63};

/* The same power by plain square-and-multiply with Granger–Scott squarings. */
static void pow_x_uncompressed(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    const uint64_t x = 0xd201000000010000ull;
    cuzk_fp12 acc = *a, base = *a;
    for (int bit = 62; bit >= 0; bit--) {
        cuzk_fp12_cyclotomic_sqr(&acc, &acc);
        if ((x >> bit) & 1)
            cuzk_fp12_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/*
 * a^|x| = prod over the six set bits k of a^(2^k): one chain of 63 compressed
 * squarings keeps the six powers, one batched inversion decompresses them,
 * five multiplications combine them.
 */
void cuzk_fp12_cyclotomic_pow_x(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cyc_compressed z = {a->c1.c0, a->c0.c2, a->c0.c1, a->c1.c2}, saved[POW_X_TERMS];
    cuzk_fp2 n0[POW_X_TERMS], n1[POW_X_TERMS], den[POW_X_TERMS], scratch[POW_X_TERMS];
    int k = 0;
    for (int i = 1; i <= 63; i++) {
        compressed_sqr(&z, &z);
        if (i == POW_X_BITS[k])
            saved[k++] = z;
    }
    for (k = 0; k < POW_X_TERMS; k++) {
        decompress_prepare(&n0[k], &n1[k], &den[k], &saved[k]);
        if (cuzk_fp2_is_zero(&den[k])) {
            pow_x_uncompressed(r, a);
            return;
        }
    }
    cuzk_fp2_batch_inv(den, den, POW_X_TERMS, scratch);
    cuzk_fp12 acc, t;
    for (k = 0; k < POW_X_TERMS; k++) {
        cuzk_fp12 *dst = k ? &t : &acc;
        cuzk_fp2_mul(&dst->c0.c0, &n0[k], &den[k]);
        cuzk_fp2_mul(&dst->c1.c1, &n1[k], &den[k]);
        dst->c1.c0 = saved[k].b0;
        dst->c0.c2 = saved[k].b1;
        dst->c0.c1 = saved[k].c0;
        dst->c1.c2 = saved[k].c1;
        if (k)
            cuzk_fp12_mul(&acc, &acc, &t);
    }
    *r = acc;
}

void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t n)
{
    cuzk_fp12 acc = CUZK_FP12_ONE, base = *a;
    bool started = false;
    for (size_t i = n; i-- > 0;)
        for (int bit = 63; bit >= 0; bit--) {
            if (started)
                cuzk_fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                if (started)
                    cuzk_fp12_mul(&acc, &acc, &base);
                else
                    acc = base;
                started = true;
            }
        }
    *r = acc;
}

/*
 * a (l0 + l1 v + l4 v w) with a = a0 + a1 w:
 * t0 = a0 (l0 + l1 v), t1 = a1 (l4 v),
 * c1 = (a0 + a1)(l0 + (l1 + l4) v) - t0 - t1, c0 = t0 + v t1.
 */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                          const cuzk_fp2 *l4)
{
    cuzk_fp6 t0, t1, s;
    cuzk_fp2 l14;
    cuzk_fp6_mul_by_01(&t0, &a->c0, l0, l1);
    cuzk_fp6_mul_by_1(&t1, &a->c1, l4);
    cuzk_fp2_add(&l14, l1, l4);
    cuzk_fp6_add(&s, &a->c0, &a->c1);
    cuzk_fp6_mul_by_01(&s, &s, l0, &l14);
    cuzk_fp6_sub(&s, &s, &t0);
    cuzk_fp6_sub(&r->c1, &s, &t1);
    cuzk_fp6_mul_by_v(&t1, &t1);
    cuzk_fp6_add(&r->c0, &t0, &t1);
}
