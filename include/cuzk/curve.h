/*
 * cuzk/curve.h — the groups G1 (E: y^2 = x^3 + 4 over Fp) and G2 (the twist
 * E': y^2 = x^3 + 4(1 + u) over Fp2) of BLS12-381.
 *
 * Representations (affine and Jacobian share blst's memory layout; XYZZ is
 * cuzk's own bucket layout, field order X, Y, ZZ, ZZZ):
 *   affine  (x, y)            identity = all-zero bytes (never on the curve)
 *   Jacobian (X, Y, Z)        x = X/Z^2, y = Y/Z^3, identity <=> Z = 0
 *   XYZZ    (X, Y, ZZ, ZZZ)   x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, identity <=> ZZ = 0
 * XYZZ is the bucket representation of Pippenger's method: adding an affine
 * point costs 8M + 2S and needs no inversion.
 *
 * All addition functions are complete: they handle the identity, P + P and
 * P + (-P). Outputs may alias inputs. Scalars for *_mul are plain integers
 * (little-endian 64-bit limbs, NOT Montgomery); *_mul_fr takes an Fr element.
 * Scalar multiplication is variable-time. batch_to_affine's output must not
 * overlap its input.
 *
 * G1 and G2 share one implementation (curve_impl.h instantiated twice), so
 * their functions have identical names apart from the prefix.
 */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include "cuzk/field.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { cuzk_fp x, y; } cuzk_g1_affine;
typedef struct { cuzk_fp X, Y, Z; } cuzk_g1;
typedef struct { cuzk_fp X, Y, ZZ, ZZZ; } cuzk_g1_xyzz;

typedef struct { cuzk_fp2 x, y; } cuzk_g2_affine;
typedef struct { cuzk_fp2 X, Y, Z; } cuzk_g2;
typedef struct { cuzk_fp2 X, Y, ZZ, ZZZ; } cuzk_g2_xyzz;

/* The standard generators (zcash / IETF). */
extern const cuzk_g1_affine CUZK_G1_GENERATOR;
extern const cuzk_g2_affine CUZK_G2_GENERATOR;

#define CUZK_DECLARE_CURVE(G, F)                                                              \
    void cuzk_##G##_set_identity(cuzk_##G *r);                                                     \
    bool cuzk_##G##_is_identity(const cuzk_##G *a);                                                \
    bool cuzk_##G##_affine_is_identity(const cuzk_##G##_affine *a);                                \
    void cuzk_##G##_from_affine(cuzk_##G *r, const cuzk_##G##_affine *a);                          \
    void cuzk_##G##_to_affine(cuzk_##G##_affine *r, const cuzk_##G *a);                            \
    /* n points with one inversion; scratch holds n field elements (caller owns). */              \
    void cuzk_##G##_batch_to_affine(cuzk_##G##_affine *out, const cuzk_##G *in, size_t n,          \
                                    F *scratch);                                                   \
    void cuzk_##G##_add(cuzk_##G *r, const cuzk_##G *a, const cuzk_##G *b);                        \
    void cuzk_##G##_add_affine(cuzk_##G *r, const cuzk_##G *a, const cuzk_##G##_affine *b);        \
    void cuzk_##G##_dbl(cuzk_##G *r, const cuzk_##G *a);                                           \
    void cuzk_##G##_neg(cuzk_##G *r, const cuzk_##G *a);                                           \
    void cuzk_##G##_affine_neg(cuzk_##G##_affine *r, const cuzk_##G##_affine *a);                  \
    bool cuzk_##G##_eq(const cuzk_##G *a, const cuzk_##G *b);                                      \
    bool cuzk_##G##_affine_eq(const cuzk_##G##_affine *a, const cuzk_##G##_affine *b);             \
    /* Curve equation holds (the identity counts as on the curve). */                             \
    bool cuzk_##G##_affine_on_curve(const cuzk_##G##_affine *a);                                   \
    bool cuzk_##G##_on_curve(const cuzk_##G *a);                                                   \
    /* In the prime-order subgroup (assumes on_curve). */                                          \
    bool cuzk_##G##_affine_in_group(const cuzk_##G##_affine *a);                                   \
    void cuzk_##G##_mul(cuzk_##G *r, const cuzk_##G *a, const uint64_t *k, size_t nlimbs);         \
    void cuzk_##G##_mul_fr(cuzk_##G *r, const cuzk_##G *a, const cuzk_fr *k);                      \
    void cuzk_##G##_xyzz_set_identity(cuzk_##G##_xyzz *r);                                         \
    bool cuzk_##G##_xyzz_is_identity(const cuzk_##G##_xyzz *a);                                    \
    void cuzk_##G##_xyzz_add_affine(cuzk_##G##_xyzz *r, const cuzk_##G##_xyzz *a,                  \
                                    const cuzk_##G##_affine *b);                                   \
    void cuzk_##G##_xyzz_sub_affine(cuzk_##G##_xyzz *r, const cuzk_##G##_xyzz *a,                  \
                                    const cuzk_##G##_affine *b);                                   \
    void cuzk_##G##_xyzz_add(cuzk_##G##_xyzz *r, const cuzk_##G##_xyzz *a,                         \
                             const cuzk_##G##_xyzz *b);                                            \
    void cuzk_##G##_xyzz_dbl(cuzk_##G##_xyzz *r, const cuzk_##G##_xyzz *a);                        \
    void cuzk_##G##_xyzz_to_jacobian(cuzk_##G *r, const cuzk_##G##_xyzz *a);

CUZK_DECLARE_CURVE(g1, cuzk_fp)
CUZK_DECLARE_CURVE(g2, cuzk_fp2)

/* G1's endomorphism (src/arith/g1_glv.c): for a canonical k < r (little-endian limbs), k = k2 mu + k1
 * with mu = z^2 (128 bits), 0 <= k1 < mu, and each half in non-adjacent form: bit i of pos[h] / neg[h]
 * is digit i (0 .. 159) of half h (0: k1, 1: k2) being +1 / -1. Then [k]P = [k1]P + [k2]psi(P) for P in
 * G1, psi(x, y) = (beta x, -y), beta = CUZK_G1_GLV_BETA (canonical limbs). */
void cuzk_g1_glv_recode(uint32_t pos[2][5], uint32_t neg[2][5], const uint64_t k[4]);
extern const uint64_t CUZK_G1_GLV_BETA[6];

#ifdef __cplusplus
}
#endif
#endif
