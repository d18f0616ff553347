/*
 * curve_impl.h — the group law of a short Weierstrass curve y^2 = x^3 + b
 * (a = 0), written once and instantiated for G1 (over Fp) and G2 (over Fp2).
 *
 * The including file (g1.c, g2.c) defines, before including this header:
 *   CI_G      the name token (g1 or g2), pasted into the public names
 *   CI_F      the coordinate field type (cuzk_fp, cuzk_fp2)
 *   CI_FE(op) the field function for op (cuzk_fp_##op, cuzk_fp2_##op)
 *   CI_F_ONE  the field's Montgomery one
 *   CI_P, CI_AFF, CI_XYZZ  the Jacobian, affine and XYZZ point types
 *   CI_MUL_B(r, a)  r = b * a for the curve constant b
 * and then adds what is specific to the curve (constants, generator, the
 * subgroup check) after the include.
 *
 * Formulas (Explicit-Formulas Database, a = 0):
 *   Jacobian: add-2007-bl (11M + 5S), madd-2007-bl (7M + 4S), dbl-2009-l
 *             (2M + 5S).
 *   XYZZ:     add-2008-s (12M + 2S), madd-2008-s (8M + 2S), dbl-2008-s-1
 *             (6M + 3S) and mdbl-2008-s-1 for a doubling met inside a mixed
 *             addition.
 * None of these formulas is complete by itself: with an identity input they
 * return garbage, and for P + P they return Z = 0 (a false identity) because
 * H = U2 - U1 vanishes. Every addition therefore tests for the identity on
 * either side first and, when the x coordinates match, doubles (same y) or
 * returns the identity (opposite y). Doubling needs no test: Z = 0 (ZZ = 0)
 * stays 0, and neither curve has a point of order 2 (y = 0). The tests are
 * data-dependent branches; nothing here is constant-time.
 *
 * Scalar multiplication uses a width-5 signed (Booth) window: digits in
 * [-16, 16] read straight from the bits, most significant first, so any
 * number of limbs works without a recoding buffer, with a 16-entry Jacobian
 * table [1..16]P on the stack.
 */
#ifndef CUZK_CURVE_IMPL_H
#define CUZK_CURVE_IMPL_H

#include <string.h>

#include "cuzk/curve.h"

#define CI_CAT_(a, b) a##b
#define CI_CAT(a, b) CI_CAT_(a, b)
#define CI_FN(name) CI_CAT(CI_CAT(cuzk_, CI_G), CI_CAT(_, name))

typedef CI_F fe;
typedef CI_P pt;
typedef CI_AFF aff;
typedef CI_XYZZ xyzz;

#define fe_add CI_FE(add)
#define fe_sub CI_FE(sub)
#define fe_dbl CI_FE(dbl)
#define fe_neg CI_FE(neg)
#define fe_mul CI_FE(mul)
#define fe_sqr CI_FE(sqr)
#define fe_inv CI_FE(inv)
#define fe_is_zero CI_FE(is_zero)
#define fe_eq CI_FE(eq)

#define CI_WINDOW 5

/* ---- Jacobian ----------------------------------------------------------- */

void CI_FN(set_identity)(pt *r)
{
    memset(r, 0, sizeof *r);
}

bool CI_FN(is_identity)(const pt *a)
{
    return fe_is_zero(&a->Z);
}

bool CI_FN(affine_is_identity)(const aff *a)
{
    return fe_is_zero(&a->x) && fe_is_zero(&a->y);
}

void CI_FN(from_affine)(pt *r, const aff *a)
{
    if (CI_FN(affine_is_identity)(a)) {
        memset(r, 0, sizeof *r);
        return;
    }
    r->X = a->x;
    r->Y = a->y;
    r->Z = CI_F_ONE;
}

void CI_FN(to_affine)(aff *r, const pt *a)
{
    fe zi, zi2;
    if (!fe_inv(&zi, &a->Z)) {
        memset(r, 0, sizeof *r);
        return;
    }
    fe_sqr(&zi2, &zi);
    fe_mul(&r->x, &a->X, &zi2);
    fe_mul(&zi2, &zi2, &zi);
    fe_mul(&r->y, &a->Y, &zi2);
}

void CI_FN(batch_to_affine)(aff *out, const pt *in, size_t n, fe *scratch)
{
    fe acc = CI_F_ONE;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!fe_is_zero(&in[i].Z))
            fe_mul(&acc, &acc, &in[i].Z);
    }
    fe_inv(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (fe_is_zero(&in[i].Z)) {
            memset(&out[i], 0, sizeof out[i]);
            continue;
        }
        fe zi, zi2;
        fe_mul(&zi, &acc, &scratch[i]);
        fe_mul(&acc, &acc, &in[i].Z);
        fe_sqr(&zi2, &zi);
        fe_mul(&out[i].x, &in[i].X, &zi2);
        fe_mul(&zi2, &zi2, &zi);
        fe_mul(&out[i].y, &in[i].Y, &zi2);
    }
}

/* dbl-2009-l; Z = 0 stays Z = 0, so the identity needs no special case. */
void CI_FN(dbl)(pt *r, const pt *a)
{
    fe A, B, C, D, E, F, t;
    fe_sqr(&A, &a->X);
    fe_sqr(&B, &a->Y);
    fe_sqr(&C, &B);
    fe_add(&D, &a->X, &B);
    fe_sqr(&D, &D);
    fe_sub(&D, &D, &A);
    fe_sub(&D, &D, &C);
    fe_dbl(&D, &D);
    fe_dbl(&E, &A);
    fe_add(&E, &E, &A);
    fe_sqr(&F, &E);
    fe_mul(&r->Z, &a->Y, &a->Z);
    fe_dbl(&r->Z, &r->Z);
    fe_dbl(&t, &D);
    fe_sub(&r->X, &F, &t);
    fe_sub(&t, &D, &r->X);
    fe_mul(&t, &E, &t);
    fe_dbl(&C, &C);
    fe_dbl(&C, &C);
    fe_dbl(&C, &C);
    fe_sub(&r->Y, &t, &C);
}

/* add-2007-bl with the identity and equal-x cases handled first. */
void CI_FN(add)(pt *r, const pt *a, const pt *b)
{
    if (fe_is_zero(&a->Z)) {
        *r = *b;
        return;
    }
    if (fe_is_zero(&b->Z)) {
        *r = *a;
        return;
    }
    fe z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    fe_sqr(&z1z1, &a->Z);
    fe_sqr(&z2z2, &b->Z);
    fe_mul(&u1, &a->X, &z2z2);
    fe_mul(&u2, &b->X, &z1z1);
    fe_mul(&s1, &a->Y, &b->Z);
    fe_mul(&s1, &s1, &z2z2);
    fe_mul(&s2, &b->Y, &a->Z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr))
            CI_FN(dbl)(r, a);
        else
            CI_FN(set_identity)(r);
        return;
    }
    fe_dbl(&rr, &rr);
    fe_dbl(&i, &h);
    fe_sqr(&i, &i);
    fe_mul(&j, &h, &i);
    fe_mul(&v, &u1, &i);
    /* Z3 = ((Z1 + Z2)^2 - Z1Z1 - Z2Z2) * H, computed before r may overwrite a or b */
    fe_add(&t, &a->Z, &b->Z);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&t, &t, &z2z2);
    fe_mul(&r->Z, &t, &h);
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &j);
    fe_sub(&t, &t, &v);
    fe_sub(&r->X, &t, &v);
    fe_sub(&t, &v, &r->X);
    fe_mul(&t, &rr, &t);
    fe_mul(&s1, &s1, &j);
    fe_dbl(&s1, &s1);
    fe_sub(&r->Y, &t, &s1);
}

/* madd-2007-bl (b has Z = 1) with the same special cases as add. */
void CI_FN(add_affine)(pt *r, const pt *a, const aff *b)
{
    if (CI_FN(affine_is_identity)(b)) {
        *r = *a;
        return;
    }
    if (fe_is_zero(&a->Z)) {
        CI_FN(from_affine)(r, b);
        return;
    }
    fe z1z1, u2, s2, h, hh, i, j, rr, v, t;
    fe_sqr(&z1z1, &a->Z);
    fe_mul(&u2, &b->x, &z1z1);
    fe_mul(&s2, &b->y, &a->Z);
    fe_mul(&s2, &s2, &z1z1);
    fe_sub(&h, &u2, &a->X);
    fe_sub(&rr, &s2, &a->Y);
    if (fe_is_zero(&h)) {
        if (fe_is_zero(&rr))
            CI_FN(dbl)(r, a);
        else
            CI_FN(set_identity)(r);
        return;
    }
    fe_dbl(&rr, &rr);
    fe_sqr(&hh, &h);
    fe_dbl(&i, &hh);
    fe_dbl(&i, &i);
    fe_mul(&j, &h, &i);
    fe_mul(&v, &a->X, &i);
    fe_mul(&s2, &a->Y, &j); /* s2 reused as Y1 * J */
    fe_add(&t, &a->Z, &h);
    fe_sqr(&t, &t);
    fe_sub(&t, &t, &z1z1);
    fe_sub(&r->Z, &t, &hh);
    fe_sqr(&t, &rr);
    fe_sub(&t, &t, &j);
    fe_sub(&t, &t, &v);
    fe_sub(&r->X, &t, &v);
    fe_sub(&t, &v, &r->X);
    fe_mul(&t, &rr, &t);
    fe_dbl(&s2, &s2);
    fe_sub(&r->Y, &t, &s2);
}

void CI_FN(neg)(pt *r, const pt *a)
{
    r->X = a->X;
    fe_neg(&r->Y, &a->Y);
    r->Z = a->Z;
}

void CI_FN(affine_neg)(aff *r, const aff *a)
{
    r->x = a->x;
    fe_neg(&r->y, &a->y); /* the identity (0, 0) maps to itself */
}

bool CI_FN(eq)(const pt *a, const pt *b)
{
    bool ia = fe_is_zero(&a->Z), ib = fe_is_zero(&b->Z);
    if (ia || ib)
        return ia && ib;
    fe z1z1, z2z2, l, r;
    fe_sqr(&z1z1, &a->Z);
    fe_sqr(&z2z2, &b->Z);
    fe_mul(&l, &a->X, &z2z2);
    fe_mul(&r, &b->X, &z1z1);
    if (!fe_eq(&l, &r))
        return false;
    fe_mul(&z1z1, &z1z1, &a->Z);
    fe_mul(&z2z2, &z2z2, &b->Z);
    fe_mul(&l, &a->Y, &z2z2);
    fe_mul(&r, &b->Y, &z1z1);
    return fe_eq(&l, &r);
}

bool CI_FN(affine_eq)(const aff *a, const aff *b)
{
    return fe_eq(&a->x, &b->x) && fe_eq(&a->y, &b->y);
}

bool CI_FN(affine_on_curve)(const aff *a)
{
    if (CI_FN(affine_is_identity)(a))
        return true;
    fe l, r, t;
    fe_sqr(&l, &a->y);
    fe_sqr(&r, &a->x);
    fe_mul(&r, &r, &a->x);
    CI_MUL_B(&t, &CI_F_ONE);
    fe_add(&r, &r, &t);
    return fe_eq(&l, &r);
}

/* Y^2 = X^3 + b Z^6 */
bool CI_FN(on_curve)(const pt *a)
{
    if (fe_is_zero(&a->Z))
        return true;
    fe l, r, z2, z6;
    fe_sqr(&l, &a->Y);
    fe_sqr(&r, &a->X);
    fe_mul(&r, &r, &a->X);
    fe_sqr(&z2, &a->Z);
    fe_sqr(&z6, &z2);
    fe_mul(&z6, &z6, &z2);
    CI_MUL_B(&z6, &z6);
    fe_add(&r, &r, &z6);
    return fe_eq(&l, &r);
}

/* Bit i of the little-endian integer k (zero past the end). */
static inline unsigned ci_bit(const uint64_t *k, size_t nbits, size_t i)
{
    return i < nbits ? (unsigned)(k[i / 64] >> (i % 64)) & 1 : 0;
}

/* Booth digit of window i: bits [w*i - 1, w*i + w - 1] give a value in [-2^(w-1), 2^(w-1)]. */
static inline int ci_booth_digit(const uint64_t *k, size_t nbits, size_t i)
{
    size_t base = CI_WINDOW * i;
    int t = base ? (int)ci_bit(k, nbits, base - 1) : 0;
    for (int j = 0; j < CI_WINDOW; j++)
        t += (int)ci_bit(k, nbits, base + j) << j;
    return t - ((int)ci_bit(k, nbits, base + CI_WINDOW - 1) << CI_WINDOW);
}

void CI_FN(mul)(pt *r, const pt *a, const uint64_t *k, size_t nlimbs)
{
    size_t top = nlimbs;
    while (top > 0 && k[top - 1] == 0)
        top--;
    if (top == 0 || fe_is_zero(&a->Z)) {
        CI_FN(set_identity)(r);
        return;
    }
    size_t nbits = 64 * top - (size_t)__builtin_clzll(k[top - 1]);
    size_t nwin = nbits / CI_WINDOW + 1; /* the top window's sign bit is then zero */

    enum { TABLE = 1 << (CI_WINDOW - 1) };
    pt tab[TABLE]; /* tab[j] = (j + 1) a */
    tab[0] = *a;
    CI_FN(dbl)(&tab[1], a);
    for (int j = 2; j < TABLE; j++) {
        if (j & 1)
            CI_FN(dbl)(&tab[j], &tab[j / 2]);
        else
            CI_FN(add)(&tab[j], &tab[j - 1], a);
    }

    pt acc, t;
    CI_FN(set_identity)(&acc);
    for (size_t i = nwin; i-- > 0;) {
        if (!fe_is_zero(&acc.Z))
            for (int j = 0; j < CI_WINDOW; j++)
                CI_FN(dbl)(&acc, &acc);
        int d = ci_booth_digit(k, nbits, i);
        if (d > 0) {
            CI_FN(add)(&acc, &acc, &tab[d - 1]);
        } else if (d < 0) {
            CI_FN(neg)(&t, &tab[-d - 1]);
            CI_FN(add)(&acc, &acc, &t);
        }
    }
    *r = acc;
}

void CI_FN(mul_fr)(pt *r, const pt *a, const cuzk_fr *k)
{
    uint64_t s[4];
    cuzk_fr_to_canonical(s, k);
    CI_FN(mul)(r, a, s, 4);
}

/* r = [k]a for a 64-bit k by plain double-and-add: cheap for the sparse
 * curve parameter |x| used by the subgroup checks. */
static void ci_mul_u64(pt *r, const pt *a, uint64_t k)
{
    pt acc;
    CI_FN(set_identity)(&acc);
    for (int i = 63; i >= 0; i--) {
        CI_FN(dbl)(&acc, &acc);
        if ((k >> i) & 1)
            CI_FN(add)(&acc, &acc, a);
    }
    *r = acc;
}

/* ---- XYZZ --------------------------------------------------------------- */

void CI_FN(xyzz_set_identity)(xyzz *r)
{
    memset(r, 0, sizeof *r);
}

bool CI_FN(xyzz_is_identity)(const xyzz *a)
{
    return fe_is_zero(&a->ZZ);
}

/* mdbl-2008-s-1: r = 2(x, y) for an affine point (ZZ = ZZZ = 1). */
static void ci_xyzz_dbl_affine(xyzz *r, const fe *x, const fe *y)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, x, &v);
    fe_sqr(&m, x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);
    fe_mul(&t, &w, y); /* before r->Y may overwrite y */
    r->ZZ = v;
    r->ZZZ = w;
    fe_sqr(&r->X, &m);
    fe_sub(&r->X, &r->X, &s);
    fe_sub(&r->X, &r->X, &s);
    fe_sub(&s, &s, &r->X);
    fe_mul(&s, &m, &s);
    fe_sub(&r->Y, &s, &t);
}

/* dbl-2008-s-1; ZZ = 0 stays 0. */
void CI_FN(xyzz_dbl)(xyzz *r, const xyzz *a)
{
    fe u, v, w, s, m, t;
    fe_dbl(&u, &a->Y);
    fe_sqr(&v, &u);
    fe_mul(&w, &u, &v);
    fe_mul(&s, &a->X, &v);
    fe_sqr(&m, &a->X);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);
    fe_mul(&t, &w, &a->Y);
    fe_mul(&r->ZZ, &v, &a->ZZ);
    fe_mul(&r->ZZZ, &w, &a->ZZZ);
    fe_sqr(&r->X, &m);
    fe_sub(&r->X, &r->X, &s);
    fe_sub(&r->X, &r->X, &s);
    fe_sub(&s, &s, &r->X);
    fe_mul(&s, &m, &s);
    fe_sub(&r->Y, &s, &t);
}

/* madd-2008-s for (bx, by) affine and not the identity. */
static void ci_xyzz_madd(xyzz *r, const xyzz *a, const fe *bx, const fe *by)
{
    if (fe_is_zero(&a->ZZ)) {
        r->X = *bx;
        r->Y = *by;
        r->ZZ = CI_F_ONE;
        r->ZZZ = CI_F_ONE;
        return;
    }
    fe p, rr, pp, ppp, q, t;
    fe_mul(&p, bx, &a->ZZ);
    fe_sub(&p, &p, &a->X);
    fe_mul(&rr, by, &a->ZZZ);
    fe_sub(&rr, &rr, &a->Y);
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&rr))
            ci_xyzz_dbl_affine(r, bx, by);
        else
            CI_FN(xyzz_set_identity)(r);
        return;
    }
    fe_sqr(&pp, &p);
    fe_mul(&ppp, &p, &pp);
    fe_mul(&q, &a->X, &pp);
    fe_mul(&t, &a->Y, &ppp);
    fe_mul(&r->ZZ, &a->ZZ, &pp);
    fe_mul(&r->ZZZ, &a->ZZZ, &ppp);
    fe_sqr(&r->X, &rr);
    fe_sub(&r->X, &r->X, &ppp);
    fe_sub(&r->X, &r->X, &q);
    fe_sub(&r->X, &r->X, &q);
    fe_sub(&q, &q, &r->X);
    fe_mul(&q, &rr, &q);
    fe_sub(&r->Y, &q, &t);
}

void CI_FN(xyzz_add_affine)(xyzz *r, const xyzz *a, const aff *b)
{
    if (CI_FN(affine_is_identity)(b)) {
        *r = *a;
        return;
    }
    ci_xyzz_madd(r, a, &b->x, &b->y);
}

void CI_FN(xyzz_sub_affine)(xyzz *r, const xyzz *a, const aff *b)
{
    if (CI_FN(affine_is_identity)(b)) {
        *r = *a;
        return;
    }
    fe ny;
    fe_neg(&ny, &b->y);
    ci_xyzz_madd(r, a, &b->x, &ny);
}

/* add-2008-s with the identity and equal-x cases handled first. */
void CI_FN(xyzz_add)(xyzz *r, const xyzz *a, const xyzz *b)
{
    if (fe_is_zero(&a->ZZ)) {
        *r = *b;
        return;
    }
    if (fe_is_zero(&b->ZZ)) {
        *r = *a;
        return;
    }
    fe u1, u2, s1, s2, p, rr, pp, ppp, q, t;
    fe_mul(&u1, &a->X, &b->ZZ);
    fe_mul(&u2, &b->X, &a->ZZ);
    fe_mul(&s1, &a->Y, &b->ZZZ);
    fe_mul(&s2, &b->Y, &a->ZZZ);
    fe_sub(&p, &u2, &u1);
    fe_sub(&rr, &s2, &s1);
    if (fe_is_zero(&p)) {
        if (fe_is_zero(&rr))
            CI_FN(xyzz_dbl)(r, a);
        else
            CI_FN(xyzz_set_identity)(r);
        return;
    }
    fe_sqr(&pp, &p);
    fe_mul(&ppp, &p, &pp);
    fe_mul(&q, &u1, &pp);
    fe_mul(&t, &a->ZZ, &b->ZZ);
    fe_mul(&r->ZZ, &t, &pp);
    fe_mul(&t, &a->ZZZ, &b->ZZZ);
    fe_mul(&r->ZZZ, &t, &ppp);
    fe_sqr(&r->X, &rr);
    fe_sub(&r->X, &r->X, &ppp);
    fe_sub(&r->X, &r->X, &q);
    fe_sub(&r->X, &r->X, &q);
    fe_sub(&q, &q, &r->X);
    fe_mul(&q, &rr, &q);
    fe_mul(&s1, &s1, &ppp);
    fe_sub(&r->Y, &q, &s1);
}

/* (X, Y, ZZ, ZZZ) -> (X ZZ^2, Y ZZZ^2, ZZZ): with Z = ZZZ, Z^2 = ZZ^3 and Z^3 = ZZZ^3, so
 * X ZZ^2 / Z^2 = X / ZZ and Y ZZZ^2 / Z^3 = Y / ZZZ. ZZ = 0 gives Z = 0. */
void CI_FN(xyzz_to_jacobian)(pt *r, const xyzz *a)
{
    fe t;
    fe_sqr(&t, &a->ZZ);
    fe_mul(&r->X, &a->X, &t);
    fe_sqr(&t, &a->ZZZ);
    fe_mul(&r->Y, &a->Y, &t);
    r->Z = a->ZZZ;
}

#endif
