/*
 * fp.c — the base field Fp of BLS12-381, p = 0x1a0111ea…ffffaaab (381 bits).
 *
 * Montgomery form with R = 2^384 over six 64-bit limbs; the arithmetic is the
 * shared code in mont.h specialised for n = 6. Multiplication and squaring go
 * through fp_mul_raw(), the one place where the optional x86-64 MULX/ADX code
 * (fp_asm.h, switch CUZK_ASM) replaces the portable loop; addition,
 * subtraction, negation and doubling go through the inline arith_fp_* of
 * fp_asm.h, which take its ADD/ADC code under the same build switch.
 *
 * Square roots use p = 3 (mod 4): sqrt(a) = a^((p+1)/4), checked by squaring.
 * Inversion runs the variable-time binary GCD of mont.h (Bernstein–Yang
 * divsteps) on the Montgomery value aR as a plain integer, which yields
 * (aR)^-1; one Montgomery multiplication by R^3 turns that into a^-1 R.
 * Fermat's a^(p-2) stays as cuzk_fp_inv_fermat(), the reference the tests
 * compare against. Hot paths that invert many elements use
 * cuzk_fp_batch_inv().
 */
#include "cuzk/field.h"

#include <string.h>

#include "mont.h"
#include "fp_asm.h"

#define N 6

const uint64_t CUZK_P[6] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                            0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static const uint64_t P_INV = 0x89f3fffcfffcfffd; /* -p^-1 mod 2^64 */
static const uint64_t R2[6] = {0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5,
                               0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa};
static const uint64_t R3[6] = {0xed48ac6bd94ca1e0, 0x315f831e03a7adf8, 0x9a53352a615e29dd,
                               0x34c04e5e921e1761, 0x2512d43565724728, 0x0aa6346091755d4d};
const cuzk_fp CUZK_FP_ZERO = {{0}};
const cuzk_fp CUZK_FP_ONE = {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba,
                              0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}};

/* Portable products, out of line so that the assembly path's frame stays small. */
void cuzk_fp_mul_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    mont_mul(r, a, b, CUZK_P, P_INV, N);
}

void cuzk_fp_sqr_portable(uint64_t r[6], const uint64_t a[6]) { mont_mul(r, a, a, CUZK_P, P_INV, N); }

static inline __attribute__((always_inline)) void fp_mul_raw(uint64_t *r, const uint64_t *a,
                                                             const uint64_t *b)
{
#if CUZK_FP_HAVE_ASM
    if (arith_use_adx()) {
        fp_mul_asm(r, a, b);
        return;
    }
#endif
    cuzk_fp_mul_portable(r, a, b);
}

static inline __attribute__((always_inline)) void fp_sqr_raw(uint64_t *r, const uint64_t *a)
{
#if CUZK_FP_HAVE_ASM
    if (arith_use_adx()) {
        fp_sqr_asm(r, a);
        return;
    }
#endif
    cuzk_fp_sqr_portable(r, a);
}

void cuzk_fp_add(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    arith_fp_add(r->l, a->l, b->l);
}
void cuzk_fp_sub(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b)
{
    arith_fp_sub(r->l, a->l, b->l);
}
void cuzk_fp_neg(cuzk_fp *r, const cuzk_fp *a)
{
    arith_fp_neg(r->l, a->l);
}
void cuzk_fp_dbl(cuzk_fp *r, const cuzk_fp *a)
{
    arith_fp_dbl(r->l, a->l);
}

/* Explicit paths for the tests (fp_asm.h). */
void cuzk_fp_add_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    mont_add(r, a, b, CUZK_P, N);
}
void cuzk_fp_sub_portable(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    mont_sub(r, a, b, CUZK_P, N);
}
void cuzk_fp_neg_portable(uint64_t r[6], const uint64_t a[6])
{
    mont_neg(r, a, CUZK_P, N);
}
void cuzk_fp_dbl_portable(uint64_t r[6], const uint64_t a[6])
{
    mont_add(r, a, a, CUZK_P, N);
}

void cuzk_fp_add_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    arith_fp_add(r, a, b);
}
void cuzk_fp_sub_asm(uint64_t r[6], const uint64_t a[6], const uint64_t b[6])
{
    arith_fp_sub(r, a, b);
}
void cuzk_fp_neg_asm(uint64_t r[6], const uint64_t a[6])
{
    arith_fp_neg(r, a);
}
void cuzk_fp_dbl_asm(uint64_t r[6], const uint64_t a[6])
{
    arith_fp_dbl(r, a);
}
void cuzk_fp_mul(cuzk_fp *r, const cuzk_fp *a, const cuzk_fp *b) { fp_mul_raw(r->l, a->l, b->l); }
void cuzk_fp_sqr(cuzk_fp *r, const cuzk_fp *a) { fp_sqr_raw(r->l, a->l); }

void cuzk_fp_mul_small(cuzk_fp *r, const cuzk_fp *a, uint32_t c)
{
    cuzk_fp acc = CUZK_FP_ZERO, base = *a;
    for (; c; c >>= 1) {
        if (c & 1)
            cuzk_fp_add(&acc, &acc, &base);
        cuzk_fp_dbl(&base, &base);
    }
    *r = acc;
}

MONT_DEFINE_POW(cuzk_fp_pow, cuzk_fp, cuzk_fp_mul, CUZK_FP_ONE)

bool cuzk_fp_is_zero(const cuzk_fp *a) { return mont_is_zero(a->l, N); }
bool cuzk_fp_is_one(const cuzk_fp *a) { return memcmp(a, &CUZK_FP_ONE, sizeof *a) == 0; }
bool cuzk_fp_eq(const cuzk_fp *a, const cuzk_fp *b) { return memcmp(a, b, sizeof *a) == 0; }

bool cuzk_fp_inv(cuzk_fp *r, const cuzk_fp *a)
{
    if (cuzk_fp_is_zero(a)) {
        *r = CUZK_FP_ZERO;
        return false;
    }
    /* t = (aR)^-1: 7 limbs of 62 bits hold ±2p; under 900 divsteps (15 rounds) always suffice */
    uint64_t t[N];
    if (!mont_inv(t, a->l, CUZK_P, N, 7, 20, arith_divsteps62()))
        return cuzk_fp_inv_fermat(r, a);
    fp_mul_raw(r->l, t, R3);
    return true;
}

bool cuzk_fp_inv_fermat(cuzk_fp *r, const cuzk_fp *a)
{
    if (cuzk_fp_is_zero(a)) {
        *r = CUZK_FP_ZERO;
        return false;
    }
    uint64_t e[N];
    limbs_sub_small(e, CUZK_P, 2, N);
    cuzk_fp_pow(r, a, e, N);
    return true;
}

MONT_DEFINE_BATCH_INV(cuzk_fp_batch_inv, cuzk_fp, cuzk_fp_mul, cuzk_fp_inv, cuzk_fp_is_zero, CUZK_FP_ONE)

int cuzk_fp_legendre(const cuzk_fp *a)
{
    if (cuzk_fp_is_zero(a))
        return 0;
    uint64_t e[N];
    cuzk_fp t;
    limbs_shr(e, CUZK_P, 1, N); /* (p-1)/2, p odd */
    cuzk_fp_pow(&t, a, e, N);
    return cuzk_fp_is_one(&t) ? 1 : -1;
}

bool cuzk_fp_sqrt(cuzk_fp *r, const cuzk_fp *a)
{
    uint64_t e[N];
    cuzk_fp s, chk;
    limbs_add_small(e, CUZK_P, 1, N);
    limbs_shr(e, e, 2, N); /* (p+1)/4 */
    cuzk_fp_pow(&s, a, e, N);
    cuzk_fp_sqr(&chk, &s);
    if (!cuzk_fp_eq(&chk, a))
        return false;
    *r = s;
    return true;
}

void cuzk_fp_from_u64(cuzk_fp *r, uint64_t v)
{
    uint64_t x[N] = {v};
    fp_mul_raw(r->l, x, R2); /* v < p always */
}

bool cuzk_fp_from_canonical(cuzk_fp *r, const uint64_t x[6])
{
    if (!mont_lt(x, CUZK_P, N))
        return false;
    fp_mul_raw(r->l, x, R2);
    return true;
}

void cuzk_fp_to_canonical(uint64_t x[6], const cuzk_fp *a)
{
    static const uint64_t one[N] = {1};
    fp_mul_raw(x, a->l, one);
}

bool cuzk_fp_is_lex_largest(const cuzk_fp *a)
{
    uint64_t x[N], half[N];
    cuzk_fp_to_canonical(x, a);
    limbs_shr(half, CUZK_P, 1, N); /* (p-1)/2 */
    return mont_lt(half, x, N);
}

bool cuzk_fp_from_be48(cuzk_fp *r, const uint8_t in[48])
{
    uint64_t x[N];
    for (int i = 0; i < N; i++) {
        uint64_t v = 0;
        for (int j = 0; j < 8; j++)
            v = (v << 8) | in[(N - 1 - i) * 8 + j];
        x[i] = v;
    }
    return cuzk_fp_from_canonical(r, x);
}

void cuzk_fp_to_be48(uint8_t out[48], const cuzk_fp *a)
{
    uint64_t x[N];
    cuzk_fp_to_canonical(x, a);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 8; j++)
            out[(N - 1 - i) * 8 + j] = (uint8_t)(x[i] >> (56 - 8 * j));
}
