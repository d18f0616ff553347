/*
 * g2.c — G2, the r-order subgroup of the sextic twist
 * E'(Fp2): y^2 = x^3 + 4(1 + u).
 *
 * The group law comes from curve_impl.h instantiated over Fp2. What is
 * specific to G2 lives here: b' = 4(1 + u), the generator, and the subgroup
 * check.
 *
 * Subgroup check (Scott, "A note on group membership tests for G1, G2 and GT
 * on BLS pairing-friendly curves", 2021): the untwist-Frobenius-twist map
 * psi(x, y) = (conj(x) c1, conj(y) c2), with c1 = 1/(1+u)^((p-1)/3) and
 * c2 = 1/(1+u)^((p-1)/2), acts on G2 as multiplication by p, which equals the
 * curve parameter x modulo r; for BLS12-381 a point of E'(Fp2) lies in G2
 * exactly when psi(P) = [x]P = -[|x|]P. That costs one 64-bit double-and-add
 * chain instead of a 255-bit multiplication. c1 happens to be purely
 * imaginary (c1 = k u), so conj(x0 + x1 u) k u = k x1 + k x0 u. Tests compare
 * the check with [r]P = O on random, torsion and mixed points.
 */
#include "cuzk/curve.h"

#define CI_G g2
#define CI_F cuzk_fp2
#define CI_FE(op) cuzk_fp2_##op
#define CI_F_ONE CUZK_FP2_ONE
#define CI_P cuzk_g2
#define CI_AFF cuzk_g2_affine
#define CI_XYZZ cuzk_g2_xyzz

/* r = 4(1 + u) a */
static inline void g2_mul_b(cuzk_fp2 *r, const cuzk_fp2 *a)
{
    cuzk_fp2_mul_xi(r, a);
    cuzk_fp2_dbl(r, r);
    cuzk_fp2_dbl(r, r);
}
#define CI_MUL_B g2_mul_b

#include "curve_impl.h"

/* Montgomery form of the generator (prover-internals.md §3.3; c0 first in memory). */
const cuzk_g2_affine CUZK_G2_GENERATOR = {{{{0xf5f28fa202940a10, 0xb3f5fb2687b4961a, 0xa1a893b53e2ae580,
                                             0x9894999d1a3caee9, 0x6f67b7631863366b, 0x058191924350bcd7}},
                                           {{0xa5a9c0759e23f606, 0xaaa0c59dbccd60c3, 0x3bb17e18e2867806,
                                             0x1b1ab6cc8541b367, 0xc2b6ed0ef2158547, 0x11922a097360edf3}}},
                                          {{{0x4c730af860494c4a, 0x597cfa1f5e369c5a, 0xe7e6856caa0a635a,
                                             0xbbefb5e96e0d495f, 0x07d3a975f0ef25a2, 0x0083fd8e7e80dae5}},
                                           {{0xadc0fc92df64b05d, 0x18aa270a2b1461dc, 0x86adac6a3be4eba0,
                                             0x79495c4ec93da33a, 0xe7175850a43ccaed, 0x0b2bc2a163de1bf2}}}};

/* psi constants in Montgomery form: c1 = k u with
 * k = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad,
 * c2 = 0x135203e6…121bdea2 + 0x06af0e04…ede3cc09 u. */
static const cuzk_fp PSI_C1_K = {{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c,
                                  0xa20d1b8c7e881024, 0x14e4f04fe2db9068, 0x14e56d3f1564853a}};
static const cuzk_fp2 PSI_C2 = {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732,
                                  0x92ad2afd19103e18, 0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
                                {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1,
                                  0xd1ca2087da74d4a7, 0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}}};

static const uint64_t BLS_X_ABS = 0xd201000000010000; /* x = -BLS_X_ABS */

bool cuzk_g2_affine_in_group(const cuzk_g2_affine *a)
{
    if (cuzk_g2_affine_is_identity(a))
        return true;
    cuzk_g2 p, q, psi;
    cuzk_g2_from_affine(&p, a);
    ci_mul_u64(&q, &p, BLS_X_ABS);
    cuzk_g2_neg(&q, &q);
    cuzk_fp_mul(&psi.X.c0, &a->x.c1, &PSI_C1_K);
    cuzk_fp_mul(&psi.X.c1, &a->x.c0, &PSI_C1_K);
    cuzk_fp2_conj(&psi.Y, &a->y);
    cuzk_fp2_mul(&psi.Y, &psi.Y, &PSI_C2);
    psi.Z = CUZK_FP2_ONE;
    return cuzk_g2_eq(&psi, &q);
}
