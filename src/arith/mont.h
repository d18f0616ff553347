/*
 * mont.h — portable multi-limb Montgomery arithmetic, shared by Fp (6 limbs)
 * and Fr (4 limbs).
 *
 * Each helper is an always-inline function taking the limb count n as a
 * parameter; the callers in fp.c and fr.c pass a compile-time constant, so the
 * compiler fully unrolls every loop and the two fields get specialised code
 * from one source. Products use unsigned __int128.
 *
 * Both moduli leave the top bit of their top limb clear (p < 2^381,
 * r < 2^255), which allows the "no final carry" Montgomery loop: the running
 * accumulator never needs an extra limb, and a sum of two reduced values never
 * overflows n limbs. Inputs are assumed reduced (< m); outputs are reduced.
 */
#ifndef CUZK_MONT_H
#define CUZK_MONT_H

#include <stdbool.h>
#include <stdint.h>

typedef unsigned __int128 u128;

#define MONT_INLINE static inline __attribute__((always_inline))
#define MONT_MAXN 6

MONT_INLINE uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    u128 t = (u128)a + b + *carry;
    *carry = (uint64_t)(t >> 64);
    return (uint64_t)t;
}

MONT_INLINE uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    u128 t = (u128)a - b - *borrow;
    *borrow = (uint64_t)(t >> 64) & 1;
    return (uint64_t)t;
}

/* r = t - m if t >= m else t (t < 2m). */
MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *m, int n)
{
    uint64_t s[MONT_MAXN], br = 0;
    for (int i = 0; i < n; i++)
        s[i] = mont_sbb(t[i], m[i], &br);
    uint64_t keep_t = (uint64_t)0 - br; /* borrow => t < m => keep t */
    for (int i = 0; i < n; i++)
        r[i] = (t[i] & keep_t) | (s[i] & ~keep_t);
}

MONT_INLINE void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    uint64_t t[MONT_MAXN], c = 0;
    for (int i = 0; i < n; i++)
        t[i] = mont_adc(a[i], b[i], &c);
    mont_reduce_once(r, t, m, n);
}

MONT_INLINE void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, int n)
{
    uint64_t t[MONT_MAXN], br = 0, c = 0;
    for (int i = 0; i < n; i++)
        t[i] = mont_sbb(a[i], b[i], &br);
    uint64_t mask = (uint64_t)0 - br;
    for (int i = 0; i < n; i++)
        r[i] = mont_adc(t[i], m[i] & mask, &c);
}

MONT_INLINE bool mont_is_zero(const uint64_t *a, int n)
{
    uint64_t acc = 0;
    for (int i = 0; i < n; i++)
        acc |= a[i];
    return acc == 0;
}

MONT_INLINE void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, int n)
{
    uint64_t mask = mont_is_zero(a, n) ? 0 : ~(uint64_t)0, br = 0;
    for (int i = 0; i < n; i++)
        r[i] = mont_sbb(m[i], a[i], &br) & mask;
}

/* a < b as plain integers. */
MONT_INLINE bool mont_lt(const uint64_t *a, const uint64_t *b, int n)
{
    uint64_t br = 0;
    for (int i = 0; i < n; i++)
        (void)mont_sbb(a[i], b[i], &br);
    return br != 0;
}

/*
 * r = a * b / 2^(64n) mod m, coarsely integrated operand scanning with the
 * no-final-carry shortcut (valid because m's top bit is clear).
 */
MONT_INLINE void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m,
                          uint64_t minv, int n)
{
    uint64_t t[MONT_MAXN] = {0};
    for (int i = 0; i < n; i++) {
        u128 x = (u128)a[0] * b[i] + t[0];
        uint64_t hi_a = (uint64_t)(x >> 64);
        t[0] = (uint64_t)x;
        uint64_t q = t[0] * minv;
        u128 y = (u128)q * m[0] + t[0];
        uint64_t hi_c = (uint64_t)(y >> 64);
        for (int j = 1; j < n; j++) {
            x = (u128)a[j] * b[i] + t[j] + hi_a;
            hi_a = (uint64_t)(x >> 64);
            y = (u128)q * m[j] + (uint64_t)x + hi_c;
            hi_c = (uint64_t)(y >> 64);
            t[j - 1] = (uint64_t)y;
        }
        t[n - 1] = hi_c + hi_a;
    }
    mont_reduce_once(r, t, m, n);
}

/* r = a^e (square-and-multiply, most significant bit first); one = Montgomery 1. */
#define MONT_DEFINE_POW(name, type, mulfn, one)                                                     \
    void name(type *r, const type *a, const uint64_t *e, size_t n)                                  \
    {                                                                                               \
        type acc = one, base = *a;                                                                  \
        for (size_t i = n; i-- > 0;)                                                                \
            for (int bit = 63; bit >= 0; bit--) {                                                   \
                mulfn(&acc, &acc, &acc);                                                            \
                if ((e[i] >> bit) & 1)                                                              \
                    mulfn(&acc, &acc, &base);                                                       \
            }                                                                                       \
        *r = acc;                                                                                   \
    }

/* Montgomery's simultaneous inversion: one inversion and 3(n-1) multiplications. */
#define MONT_DEFINE_BATCH_INV(name, type, mulfn, invfn, iszero, one)                                \
    void name(type *out, const type *in, size_t n, type *scratch)                                   \
    {                                                                                               \
        type acc = one;                                                                             \
        for (size_t i = 0; i < n; i++) {                                                            \
            scratch[i] = acc;                                                                       \
            if (!iszero(&in[i]))                                                                    \
                mulfn(&acc, &acc, &in[i]);                                                          \
        }                                                                                           \
        invfn(&acc, &acc);                                                                          \
        for (size_t i = n; i-- > 0;) {                                                              \
            if (iszero(&in[i])) {                                                                   \
                memset(&out[i], 0, sizeof(type));                                                   \
                continue;                                                                           \
            }                                                                                       \
            type t;                                                                                 \
            mulfn(&t, &acc, &scratch[i]);                                                           \
            mulfn(&acc, &acc, &in[i]);                                                              \
            out[i] = t;                                                                             \
        }                                                                                           \
    }

/* Small limb-vector helpers for deriving exponents from a modulus. */
MONT_INLINE void limbs_sub_small(uint64_t *r, const uint64_t *a, uint64_t v, int n)
{
    uint64_t br = 0;
    for (int i = 0; i < n; i++)
        r[i] = mont_sbb(a[i], i == 0 ? v : 0, &br);
}

MONT_INLINE void limbs_add_small(uint64_t *r, const uint64_t *a, uint64_t v, int n)
{
    uint64_t c = 0;
    for (int i = 0; i < n; i++)
        r[i] = mont_adc(a[i], i == 0 ? v : 0, &c);
}

MONT_INLINE void limbs_shr(uint64_t *r, const uint64_t *a, unsigned s, int n)
{
    for (int i = 0; i < n; i++)
        r[i] = (a[i] >> s) | (i + 1 < n && s ? a[i + 1] << (64 - s) : 0);
}

#endif
