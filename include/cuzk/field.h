/*
 * cuzk/field.h — the BLS12-381 base field Fp, scalar field Fr and the
 * quadratic extension Fp2 = Fp[u]/(u^2 + 1).
 *
 * Elements are kept in Montgomery form with 64-bit little-endian limbs
 * (Fp: x * 2^384 mod p in 6 limbs; Fr: x * 2^256 mod r in 4 limbs), the same
 * byte layout blst and the GPU code use, so arrays can be handed to a GPU as
 * they are. Every value a function returns is fully reduced (< modulus).
 *
 * Conventions (blst style): the output comes first, outputs may alias inputs,
 * nothing allocates, nothing fails except where an int is returned. The
 * functions are not constant-time unless stated; cuzk proves with public
 * circuits and keeps r, s in process memory only.
 *
 * The fast path: on x86-64 with BMI2+ADX, Fp/Fr multiplication can use
 * MULX/ADCX/ADOX code selected by the single build switch CUZK_ASM; results
 * are bit-identical to the portable __int128 code.
 */
#ifndef CUZK_FIELD_H
#define CUZK_FIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { uint64_t l[6]; } cuzk_fp;
typedef struct { uint64_t l[4]; } cuzk_fr;
typedef struct { cuzk_fp c0, c1; } cuzk_fp2;

/* ---- Fp ------------------------------------------------------------------ */

extern const cuzk_fp CUZK_FP_ZERO, CUZK_FP_ONE; /* ONE is R mod p */
extern const uint64_t CUZK_P[6];                /* the modulus, canonical limbs */

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a);
void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b);
void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a);
/* r = a * small constant (c < 2^32); cheaper than a full multiplication. */
void cuzk_fp_mul_small(cuzk_fp *r, const cuzk_fp *a, uint32_t c);
/* r = a^e where e is n little-endian 64-bit limbs (plain integer, not Montgomery). */
void cuzk_fp_pow(cuzk_fp *r, const cuzk_fp *a, const uint64_t *e, size_t n);
/* r = 1/a; returns false (and r = 0) when a = 0. */
bool cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a);
/* Montgomery's trick over n elements: out[i] = 1/in[i], zeros map to zero.
 * out may equal in. scratch must hold n elements (caller owns it). */
void cuzk_fp_batch_inv(cuzk_fp *out, const cuzk_fp *in, size_t n, cuzk_fp *scratch);
/* r = a square root of a; returns false when a is a non-residue (r untouched). */
bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a);
/* Legendre symbol: 1 residue, -1 non-residue, 0 for zero. */
int cuzk_fp_legendre(const cuzk_fp *a);
bool cuzk_fp_is_zero(const cuzk_fp *a);
bool cuzk_fp_is_one(const cuzk_fp *a);
bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b);
/* True iff canonical(a) > (p-1)/2: the serialization sign convention. */
bool cuzk_fp_is_lex_largest(const cuzk_fp *a);
void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v);
/* Canonical limbs <-> Montgomery. from_canonical returns false if x >= p. */
bool cuzk_fp_from_canonical(cuzk_fp *r, const uint64_t x[6]);
void cuzk_fp_to_canonical(uint64_t x[6], const cuzk_fp *a);
/* 48 big-endian bytes <-> element. from_be48 returns false if the value >= p
 * (the top three bits are NOT masked: callers strip flag bits first). */
bool cuzk_fp_from_be48(cuzk_fp *r, const uint8_t in[48]);
void cuzk_fp_to_be48(uint8_t out[48], const cuzk_fp *a);

/* ---- Fr ------------------------------------------------------------------ */

extern const cuzk_fr CUZK_FR_ZERO, CUZK_FR_ONE;
extern const uint64_t CUZK_R[4];

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t *e, size_t n);
bool cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a);
void cuzk_fr_batch_inv(cuzk_fr *out, const cuzk_fr *in, size_t n, cuzk_fr *scratch);
bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a);
int cuzk_fr_legendre(const cuzk_fr *a);
bool cuzk_fr_is_zero(const cuzk_fr *a);
bool cuzk_fr_is_one(const cuzk_fr *a);
bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v);
bool cuzk_fr_from_canonical(cuzk_fr *r, const uint64_t x[4]);
void cuzk_fr_to_canonical(uint64_t x[4], const cuzk_fr *a);
/* 32 bytes little-endian (blstrs to_repr, snarkjs) and big-endian. */
bool cuzk_fr_from_le32(cuzk_fr *r, const uint8_t in[32]);
void cuzk_fr_to_le32(uint8_t out[32], const cuzk_fr *a);
bool cuzk_fr_from_be32(cuzk_fr *r, const uint8_t in[32]);
void cuzk_fr_to_be32(uint8_t out[32], const cuzk_fr *a);
/* A uniform element of Fr from cuzk_random_bytes (rejection sampling of
 * 255-bit strings); returns CUZK_OK or CUZK_EIO. */
int cuzk_fr_random(cuzk_fr *r);
/* Any 256-bit little-endian integer reduced mod r (never fails). */
void cuzk_fr_from_le32_reduce(cuzk_fr *r, const uint8_t in[32]);

/* ---- Fp2 ----------------------------------------------------------------- */

extern const cuzk_fp2 CUZK_FP2_ZERO, CUZK_FP2_ONE;

void cuzk_fp2_add(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sub(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_neg(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_dbl(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_conj(cuzk_fp2 *r, const cuzk_fp2 *a); /* = Frobenius a^p */
void cuzk_fp2_mul(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp2 *b);
void cuzk_fp2_sqr(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_mul_fp(cuzk_fp2 *r, const cuzk_fp2 *a, const cuzk_fp *b);
/* r = a * (1 + u), the non-residue of the Fp6 tower and the twist. */
void cuzk_fp2_mul_xi(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_pow(cuzk_fp2 *r, const cuzk_fp2 *a, const uint64_t *e, size_t n);
bool cuzk_fp2_inv(cuzk_fp2 *r, const cuzk_fp2 *a);
void cuzk_fp2_batch_inv(cuzk_fp2 *out, const cuzk_fp2 *in, size_t n, cuzk_fp2 *scratch);
bool cuzk_fp2_sqrt(cuzk_fp2 *r, const cuzk_fp2 *a);
bool cuzk_fp2_is_zero(const cuzk_fp2 *a);
bool cuzk_fp2_is_one(const cuzk_fp2 *a);
bool cuzk_fp2_eq(const cuzk_fp2 *a, const cuzk_fp2 *b);
/* Serialization sign: c1 > (p-1)/2 if c1 != 0, else c0 > (p-1)/2. */
bool cuzk_fp2_is_lex_largest(const cuzk_fp2 *a);

#ifdef __cplusplus
}
#endif
#endif
