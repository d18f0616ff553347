/*
 * g1.c — G1, the r-order subgroup of E(Fp): y^2 = x^3 + 4.
 *
 * The group law comes from curve_impl.h instantiated over Fp. What is
 * specific to G1 lives here: b = 4, the generator, and the subgroup check.
 *
 * Subgroup check (Scott, "A note on group membership tests for G1, G2 and GT
 * on BLS pairing-friendly curves", 2021): E has the endomorphism
 * phi(x, y) = (beta x, y) with beta a primitive cube root of unity in Fp; on
 * G1 it acts as multiplication by -x^2 (x the curve parameter), and for
 * BLS12-381 a point of E(Fp) lies in G1 exactly when phi(P) = -[x^2]P.
 * [x^2]P is two double-and-add chains over the sparse |x| (2 x 63 doublings,
 * 10 additions), about half the cost of the textbook test [r]P = O. beta is
 * the root whose eigenvalue is -x^2 (checked against the generator when it was
 * derived); tests compare this check with [r]P = O on random, torsion and
 * mixed points.
 */
#include "cuzk/curve.h"

#define CI_G g1
#define CI_F cuzk_fp
#define CI_FE(op) cuzk_fp_##op
#define CI_F_ONE CUZK_FP_ONE
#define CI_P cuzk_g1
#define CI_AFF cuzk_g1_affine
#define CI_XYZZ cuzk_g1_xyzz

/* r = 4a */
static inline void g1_mul_b(cuzk_fp *r, const cuzk_fp *a)
{
    cuzk_fp_dbl(r, a);
    cuzk_fp_dbl(r, r);
}
#define CI_MUL_B g1_mul_b

#include "curve_impl.h"

/* Montgomery form of the generator (prover-internals.md §3.3). */
const cuzk_g1_affine CUZK_G1_GENERATOR = {{{0x5cb38790fd530c16, 0x7817fc679976fff5, 0x154f95c7143ba1c1,
                                            0xf0ae6acdf3d0e747, 0xedce6ecc21dbf440, 0x120177419e0bfb75}},
                                          {{0xbaac93d50ce72271, 0x8c22631a7918fd8e, 0xdd595f13570725ce,
                                            0x51ac582950405194, 0x0e1c8c3fad0059c0, 0x0bbc3efc5008a26a}}};

/* beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * a primitive cube root of unity, in Montgomery form. */
static const cuzk_fp G1_BETA = {{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7,
                                 0xc26a2ff874fd029b, 0x3636b76660701c6e, 0x051ba4ab241b6160}};

static const uint64_t BLS_X_ABS = 0xd201000000010000; /* x = -BLS_X_ABS */

bool cuzk_g1_affine_in_group(const cuzk_g1_affine *a)
{
    if (cuzk_g1_affine_is_identity(a))
        return true;
    cuzk_g1 p, q, phi;
    cuzk_g1_from_affine(&p, a);
    ci_mul_u64(&q, &p, BLS_X_ABS);
    ci_mul_u64(&q, &q, BLS_X_ABS);
    cuzk_g1_neg(&q, &q);
    cuzk_fp_mul(&phi.X, &a->x, &G1_BETA);
    phi.Y = a->y;
    phi.Z = CUZK_FP_ONE;
    return cuzk_g1_eq(&phi, &q);
}
