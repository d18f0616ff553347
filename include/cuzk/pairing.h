/*
 * cuzk/pairing.h — the pairing tower Fp6/Fp12 and the optimal ate pairing
 * e: G1 x G2 -> GT of BLS12-381.
 *
 * Tower: Fp6 = Fp2[v]/(v^3 - (1 + u)), Fp12 = Fp6[w]/(w^2 - v). An Fp12
 * element c0 + c1 w with c_i = c_i0 + c_i1 v + c_i2 v^2 is stored in that
 * order, which is also the order of the 12 Fp coefficients in the test
 * vectors. Elements are Montgomery Fp coefficients like everything in
 * field.h; the same conventions apply (output first, outputs may alias
 * inputs, no allocation, not constant-time).
 *
 * Pairing: the Miller loop runs over |x| = 0xd201000000010000 and conjugates
 * at the end because x < 0. cuzk_final_exp raises to 3 (p^12 - 1) / r (the
 * standard BLS12 hard-part chain; the same exponent as @noble/curves), so
 * cuzk_pairing(P, Q) equals noble's pairing output bit for bit and is the cube
 * of the "exact" reduced pairing. Since gcd(3, r) = 1 this is still a
 * non-degenerate bilinear pairing, and every check of the form "product of
 * pairings = 1" is unaffected.
 *
 * Inputs must be valid group elements: P in G1, Q in G2 (on the curve and in
 * the r-order subgroups); the caller checks points that come from outside.
 * The identity (all-zero affine point) is allowed and pairs to 1.
 */
#ifndef CUZK_PAIRING_H
#define CUZK_PAIRING_H

#include "cuzk/curve.h"
#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    cuzk_fp2 c0, c1, c2;
} cuzk_fp6;
typedef struct {
    cuzk_fp6 c0, c1;
} cuzk_fp12;

/* ---- Fp6 ----------------------------------------------------------------- */

extern const cuzk_fp6 CUZK_FP6_ZERO, CUZK_FP6_ONE;

/* r = a + b, r = a - b, r = -a (coefficient-wise). */
void cuzk_fp6_add(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sub(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_neg(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * b (Karatsuba, 6 Fp2 mul) and r = a^2 (Chung–Hasan, 5 Fp2 mul/sqr). */
void cuzk_fp6_mul(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp6 *b);
void cuzk_fp6_sqr(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = 1/a; returns false (and r = 0) when a = 0. */
bool cuzk_fp6_inv(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * v, multiplication by the non-residue of Fp12 over Fp6. */
void cuzk_fp6_mul_by_v(cuzk_fp6 *r, const cuzk_fp6 *a);
/* r = a * (b0 + b1 v): the sparse product of the Miller loop (5 Fp2 mul). */
void cuzk_fp6_mul_by_01(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b0, const cuzk_fp2 *b1);
/* r = a * (b1 v) (3 Fp2 mul). */
void cuzk_fp6_mul_by_1(cuzk_fp6 *r, const cuzk_fp6 *a, const cuzk_fp2 *b1);
/* Comparisons (elements are always fully reduced, so equality is bytewise). */
bool cuzk_fp6_is_zero(const cuzk_fp6 *a);
bool cuzk_fp6_eq(const cuzk_fp6 *a, const cuzk_fp6 *b);

/* ---- Fp12 ---------------------------------------------------------------- */

extern const cuzk_fp12 CUZK_FP12_ONE;

/* r = 1; a == b; a == 1. */
void cuzk_fp12_one(cuzk_fp12 *r);
bool cuzk_fp12_eq(const cuzk_fp12 *a, const cuzk_fp12 *b);
bool cuzk_fp12_is_one(const cuzk_fp12 *a);
/* r = a * b (Karatsuba over Fp6) and r = a^2 (complex squaring). */
void cuzk_fp12_mul(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp12 *b);
void cuzk_fp12_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = 1/a; returns false (and r = 0) when a = 0. */
bool cuzk_fp12_inv(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = c0 - c1 w = a^(p^6); the inverse on the cyclotomic subgroup (e.g. GT). */
void cuzk_fp12_conj(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^(p^n) for any n (reduced mod 12). */
void cuzk_fp12_frobenius_map(cuzk_fp12 *r, const cuzk_fp12 *a, unsigned n);
/* r = a^2 for a in the cyclotomic subgroup (a^(p^4 - p^2 + 1) = 1), Granger–Scott; wrong otherwise. */
void cuzk_fp12_cyclotomic_sqr(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^|x|, |x| = 0xd201000000010000, for a in the cyclotomic subgroup. */
void cuzk_fp12_cyclotomic_pow_x(cuzk_fp12 *r, const cuzk_fp12 *a);
/* r = a^e, e a plain integer in n little-endian 64-bit limbs (square-and-multiply). */
void cuzk_fp12_pow(cuzk_fp12 *r, const cuzk_fp12 *a, const uint64_t *e, size_t n);
/* r = a * (l0 + l1 v + l4 v w): multiplication by a Miller-loop line (13 Fp2 mul). */
void cuzk_fp12_mul_by_014(cuzk_fp12 *r, const cuzk_fp12 *a, const cuzk_fp2 *l0, const cuzk_fp2 *l1,
                          const cuzk_fp2 *l4);

/* ---- Pairing ------------------------------------------------------------- */

/* Lines of one Miller loop over |x|: 63 doublings and 5 additions. */
#define CUZK_PAIRING_LINES 68

/*
 * A G2 point with its Miller-loop lines precomputed (fixed verifying-key
 * points). Line k evaluated at P = (xP, yP) is
 * coeff[k][0] + (coeff[k][1] * xP) v + (coeff[k][2] * yP) v w.
 * About 20 KB; caller-owned, no allocation.
 */
typedef struct {
    cuzk_fp2 coeff[CUZK_PAIRING_LINES][3];
    bool is_identity;
} cuzk_g2_prepared;

/* Precomputes the lines of Q (Q in G2, may be the identity). */
void cuzk_g2_prepare(cuzk_g2_prepared *prep, const cuzk_g2_affine *Q);
/* out = the Miller loop f_{x,Q}(P) (conjugated for x < 0), before the final exponentiation. */
void cuzk_miller_loop(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q);
/* out = prod_i miller_loop(P[i], Q[i]) sharing the Fp12 squarings; identity pairs contribute 1. */
void cuzk_miller_loop_n(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n);
/* Same as cuzk_miller_loop_n with prepared G2 points (borrowed, read only). */
void cuzk_miller_loop_prepared_n(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_prepared *const Q[],
                                 size_t n);
/* out = f^(3 (p^12 - 1) / r): easy part (p^6 - 1)(p^2 + 1), then the hard part by exponentiations by x. */
void cuzk_final_exp(cuzk_fp12 *out, const cuzk_fp12 *f);
/* out = e(P, Q) = final_exp(miller_loop(P, Q)); matches @noble/curves' pairing. */
void cuzk_pairing(cuzk_fp12 *out, const cuzk_g1_affine *P, const cuzk_g2_affine *Q);
/* True iff prod_i e(P[i], Q[i]) = 1 (one shared Miller loop, one final exponentiation). */
bool cuzk_pairing_check(const cuzk_g1_affine *P, const cuzk_g2_affine *Q, size_t n);

#ifdef __cplusplus
}
#endif
#endif
