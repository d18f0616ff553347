/*
 * pairing.c — the optimal ate pairing of BLS12-381: Miller loop (single,
 * multi, prepared) and final exponentiation.
 *
 * Miller loop. For x = -0xd201000000010000 the optimal ate pairing is
 * f_{x,Q}(P) raised to the final exponent. We run the loop over |x| and
 * conjugate at the end (f_{-n} and 1/f_n agree up to a vertical line, which
 * the final exponentiation kills, and 1/f = conj(f) after it). Starting from
 * T = Q, every bit below the top one doubles T and multiplies f by the tangent
 * line; the five set bits (62, 60, 57, 48, 16) add Q and multiply by the chord:
 * 63 doublings and 5 additions, 68 lines. Q in G2 has order r > |x|, so T never
 * meets Q, -Q or the identity on the way and the formulas need no special
 * cases.
 *
 * T lives in homogeneous projective coordinates (x = X/Z, y = Y/Z) on the
 * twist E': y^2 = x^3 + 4 xi. Through the untwisting map
 * psi(x, y) = (x / w^2, y / w^3) a line on E' becomes, after multiplying by
 * w^3 and by factors in Fp2 (both lie in proper subfields and vanish in the
 * final exponentiation), the sparse element
 *     l0 + (l1 * xP) v + (l4 * yP) v w      (w^2 = v, w^3 = v w),
 * with l0, l1, l4 in Fp2 depending only on T and Q. Those three Fp2 values
 * are what cuzk_g2_prepared stores per line; evaluating at P costs four Fp
 * multiplications and the product with f goes through cuzk_fp12_mul_by_014.
 *
 *   doubling (B = Y^2, C = Z^2, J = X^2, H = 2YZ, E = 3 b' C, F = 3E, b' = 4 xi):
 *     X3 = 2XY (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H
 *     line: l0 = E - B, l1 = 3J, l4 = -H
 *   mixed addition with Q = (x2, y2) (theta = Y - y2 Z, lambda = X - x2 Z):
 *     E = lambda^3, H = E + Z theta^2 - 2 X lambda^2,
 *     X3 = lambda H, Y3 = theta (X lambda^2 - H) - Y E, Z3 = Z E
 *     line: l0 = theta x2 - lambda y2, l1 = -theta, l4 = lambda
 * (the doubling is the usual projective one with every coordinate scaled by 4
 * so that no halving is needed).
 *
 * A multi-pairing runs the pairs side by side so the 62 squarings of f are
 * shared. The unprepared version keeps each pair's T on the stack, so it works
 * through the pairs in chunks of ML_CHUNK and multiplies the chunk results.
 *
 * Final exponentiation by 3 (p^12 - 1)/r. Easy part: m = f^((p^6 - 1)(p^2 + 1))
 * = frob2(g) g with g = conj(f) / f; m is then in the cyclotomic subgroup.
 * Hard part: 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3, an
 * identity in x that holds because p and r are polynomials in x; it costs five
 * exponentiations by x (cyclotomic squarings; x < 0 means a conjugation after
 * each), three Frobenius maps and a few multiplications. The factor 3 makes the
 * result the cube of the exact reduced pairing; it is the exponent
 * @noble/curves uses too, so results match it bit for bit.
 */
#include "cuzk/pairing.h"

#include <string.h>

#define X_ABS 0xd201000000010000ull
#define ML_CHUNK 8

typedef struct {
    cuzk_fp2 X, Y, Z;
} g2_proj;

static void fp2_mul_12(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 t4;
    cuzk_fp2_dbl(&t4, a);
    cuzk_fp2_dbl(&t4, &t4);
    cuzk_fp2_dbl(r, &t4);
    cuzk_fp2_add(r, r, &t4);
}

static void fp2_mul_3(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2 t;
    cuzk_fp2_dbl(&t, a);
    cuzk_fp2_add(r, &t, a);
}

/* T = 2T and the tangent line at T (formulas in the note above). */
static void dbl_step(g2_proj *T, cuzk_fp2 l[3])
{
    cuzk_fp2 B, C, J, H, M, E, F, t;
    cuzk_fp2_sqr(&J, &T->X);
    cuzk_fp2_sqr(&B, &T->Y);
    cuzk_fp2_sqr(&C, &T->Z);
    cuzk_fp2_add(&H, &T->Y, &T->Z);
    cuzk_fp2_sqr(&H, &H);
    cuzk_fp2_sub(&H, &H, &B);
    cuzk_fp2_sub(&H, &H, &C);
    cuzk_fp2_add(&M, &T->X, &T->Y);
    cuzk_fp2_sqr(&M, &M);
    cuzk_fp2_sub(&M, &M, &J);
    cuzk_fp2_sub(&M, &M, &B);
    cuzk_fp2_mul_xi(&E, &C);
    fp2_mul_12(&E, &E);
    fp2_mul_3(&F, &E);

    cuzk_fp2_sub(&l[0], &E, &B);
    fp2_mul_3(&l[1], &J);
    cuzk_fp2_neg(&l[2], &H);

    cuzk_fp2_sub(&t, &B, &F);
    cuzk_fp2_mul(&T->X, &M, &t);
    cuzk_fp2_add(&t, &B, &F);
    cuzk_fp2_sqr(&t, &t);
    cuzk_fp2_sqr(&E, &E);
    fp2_mul_12(&E, &E);
    cuzk_fp2_sub(&T->Y, &t, &E);
    cuzk_fp2_mul(&T->Z, &B, &H);
    cuzk_fp2_dbl(&T->Z, &T->Z);
    cuzk_fp2_dbl(&T->Z, &T->Z);
}

/* T = T + Q and the chord through T and Q (formulas in the note above). */
static void add_step(g2_proj *T, const cuzk_g2_affine *Q, cuzk_fp2 l[3])
{
    cuzk_fp2 theta, lambda, C, D, E, F, G, H, t;
    cuzk_fp2_mul(&t, &Q->y, &T->Z);
    cuzk_fp2_sub(&theta, &T->Y, &t);
    cuzk_fp2_mul(&t, &Q->x, &T->Z);
    cuzk_fp2_sub(&lambda, &T->X, &t);
    cuzk_fp2_sqr(&C, &theta);
    cuzk_fp2_sqr(&D, &lambda);
    cuzk_fp2_mul(&E, &lambda, &D);
    cuzk_fp2_mul(&F, &T->Z, &C);
    cuzk_fp2_mul(&G, &T->X, &D);
    cuzk_fp2_add(&H, &E, &F);
    cuzk_fp2_sub(&H, &H, &G);
    cuzk_fp2_sub(&H, &H, &G);

    cuzk_fp2_mul(&T->X, &lambda, &H);
    cuzk_fp2_sub(&t, &G, &H);
    cuzk_fp2_mul(&t, &t, &theta);
    cuzk_fp2_mul(&G, &T->Y, &E);
    cuzk_fp2_sub(&T->Y, &t, &G);
    cuzk_fp2_mul(&T->Z, &T->Z, &E);

    cuzk_fp2_mul(&t, &theta, &Q->x);
    cuzk_fp2_mul(&G, &lambda, &Q->y);
    cuzk_fp2_sub(&l[0], &t, &G);
    cuzk_fp2_neg(&l[1], &theta);
    l[2] = lambda;
}

/* f = f * line(P) for the line c[0] + (c[1] xP) v + (c[2] yP) v w; f_is_one lets the line replace f. */
static void line_mul(cuzk_fp12 *f, const cuzk_fp2 c[3], const cuzk_g1_affine *P, bool f_is_one)
{
    cuzk_fp2 l1, l4;
    cuzk_fp2_mul_fp(&l1, &c[1], &P->x);
    cuzk_fp2_mul_fp(&l4, &c[2], &P->y);
    if (f_is_one) {
        memset(f, 0, sizeof *f);
        f->c0.c0 = c[0];
        f->c0.c1 = l1;
        f->c1.c1 = l4;
        return;
    }
    cuzk_fp12_mul_by_014(f, f, &c[0], &l1, &l4);
}

/* Miller loop over up to ML_CHUNK pairs with no identities; n >= 1. */
static void miller_chunk(cuzk_fp12 *f, const cuzk_g1_affine *const *P, const cuzk_g2_affine *const *Q,
                         size_t n)
{
    g2_proj T[ML_CHUNK];
    cuzk_fp2 l[3];
    bool one = true;
    for (size_t i = 0; i < n; i++) {
        T[i].X = Q[i]->x;
        T[i].Y = Q[i]->y;
        T[i].Z = CUZK_FP2_ONE;
    }
    *f = CUZK_FP12_ONE;
    for (int bit = 62; bit >= 0; bit--) {
        if (!one)
            cuzk_fp12_sqr(f, f);
        for (size_t i = 0; i < n; i++) {
            dbl_step(&T[i], l);
            line_mul(f, l, P[i], one);
            one = false;
        }
        if ((X_ABS >> bit) & 1)
            for (size_t i = 0; i < n; i++) {
                add_step(&T[i], Q[i], l);
                line_mul(f, l, P[i], false);
            }
    }
}

void cuzk_miller_loop_n(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    const cuzk_g1_affine *ps[ML_CHUNK];
    const cuzk_g2_affine *qs[ML_CHUNK];
    cuzk_fp12 acc = CUZK_FP12_ONE, f;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (cuzk_g1_affine_is_identity(&P[i]) || cuzk_g2_affine_is_identity(&Q[i]))
            continue;
        ps[k] = &P[i];
        qs[k] = &Q[i];
        if (++k == ML_CHUNK) {
            miller_chunk(&f, ps, qs, k);
            cuzk_fp12_mul(&acc, &acc, &f);
            k = 0;
        }
    }
    if (k) {
        miller_chunk(&f, ps, qs, k);
        cuzk_fp12_mul(&acc, &acc, &f);
    }
    cuzk_fp12_conj(out, &acc);
}

void cuzk_miller_loop(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q)
{
    cuzk_miller_loop_n(out, P, Q, 1);
}

void cuzk_g2_prepare(cuzk_g2_prepared *prep, const cuzk_g2_affine *Q)
{
    memset(prep, 0, sizeof *prep);
    prep->is_identity = cuzk_g2_affine_is_identity(Q);
    if (prep->is_identity)
        return;
    g2_proj T = {Q->x, Q->y, CUZK_FP2_ONE};
    int k = 0;
    for (int bit = 62; bit >= 0; bit--) {
        dbl_step(&T, prep->coeff[k++]);
        if ((X_ABS >> bit) & 1)
            add_step(&T, Q, prep->coeff[k++]);
    }
}

void cuzk_miller_loop_prepared_n(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_prepared *const Q[],
                                 size_t n)
{
    cuzk_fp12 f = CUZK_FP12_ONE;
    bool one = true;
    int k = 0;
    for (int bit = 62; bit >= 0; bit--) {
        if (!one)
            cuzk_fp12_sqr(&f, &f);
        for (size_t i = 0; i < n; i++) {
            if (Q[i]->is_identity || cuzk_g1_affine_is_identity(&P[i]))
                continue;
            line_mul(&f, Q[i]->coeff[k], &P[i], one);
            one = false;
        }
        k++;
        if ((X_ABS >> bit) & 1) {
            for (size_t i = 0; i < n; i++) {
                if (Q[i]->is_identity || cuzk_g1_affine_is_identity(&P[i]))
                    continue;
                line_mul(&f, Q[i]->coeff[k], &P[i], false);
            }
            k++;
        }
    }
    cuzk_fp12_conj(out, &f);
}

/* r = a^x = conj(a^|x|) for a in the cyclotomic subgroup. */
static void cyclotomic_pow_minus_x(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12_cyclotomic_pow_x(r, a);
    cuzk_fp12_conj(r, r);
}

void cuzk_final_exp(cuzk_fp12 *out, const cuzk_fp12 *f)
{
    cuzk_fp12 m, a, b, c, t;

    /* easy part: m = f^((p^6 - 1)(p^2 + 1)) */
    cuzk_fp12_inv(&t, f);
    cuzk_fp12_conj(&m, f);
    cuzk_fp12_mul(&m, &m, &t);
    cuzk_fp12_frobenius_map(&t, &m, 2);
    cuzk_fp12_mul(&m, &m, &t);

    /* a = m^((x - 1)^2) */
    cyclotomic_pow_minus_x(&a, &m);
    cuzk_fp12_conj(&t, &m);
    cuzk_fp12_mul(&a, &a, &t);
    cyclotomic_pow_minus_x(&t, &a);
    cuzk_fp12_conj(&a, &a);
    cuzk_fp12_mul(&a, &t, &a);

    /* b = a^(x + p) */
    cyclotomic_pow_minus_x(&b, &a);
    cuzk_fp12_frobenius_map(&t, &a, 1);
    cuzk_fp12_mul(&b, &b, &t);

    /* c = b^(x^2 + p^2 - 1) */
    cyclotomic_pow_minus_x(&c, &b);
    cyclotomic_pow_minus_x(&c, &c);
    cuzk_fp12_frobenius_map(&t, &b, 2);
    cuzk_fp12_mul(&c, &c, &t);
    cuzk_fp12_conj(&t, &b);
    cuzk_fp12_mul(&c, &c, &t);

    /* out = c * m^3 */
    cuzk_fp12_cyclotomic_sqr(&t, &m);
    cuzk_fp12_mul(&t, &t, &m);
    cuzk_fp12_mul(out, &c, &t);
}

void cuzk_pairing(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q)
{
    cuzk_fp12 f;
    cuzk_miller_loop(&f, P, Q);
    cuzk_final_exp(out, &f);
}

bool cuzk_pairing_check(const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n)
{
    cuzk_fp12 f;
    cuzk_miller_loop_n(&f, P, Q, n);
    cuzk_final_exp(&f, &f);
    return cuzk_fp12_is_one(&f);
}
