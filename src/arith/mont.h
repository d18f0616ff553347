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

/*
 * Carry and borrow in and out are 0 or 1. They are plain 64-bit comparisons:
 * gcc 12 compiles the __int128 form of the same thing into register pairs
 * that it zeroes, adds and spills limb by limb.
 */
MONT_INLINE uint64_t mont_adc(uint64_t a, uint64_t b, uint64_t *carry)
{
    uint64_t s = a + *carry, c = s < a;
    s += b;
    *carry = c + (s < b);
    return s;
}

MONT_INLINE uint64_t mont_sbb(uint64_t a, uint64_t b, uint64_t *borrow)
{
    uint64_t d = a - b, br = a < b;
    uint64_t e = d - *borrow;
    *borrow = br + (d < *borrow);
    return e;
}

/*
 * r = t - m if t >= m else t (t < 2m). The subtraction is undone by adding m
 * back under the borrow mask rather than by selecting between t and t - m:
 * gcc's SLP vectorizer turns a select over two limb arrays into SSE code that
 * reads the limbs back through the stack just after storing them (a
 * store-to-load forwarding stall), while a carry chain stays scalar.
 */
MONT_INLINE void mont_reduce_once(uint64_t *r, const uint64_t *t, const uint64_t *m, int n)
{
    uint64_t s[MONT_MAXN], br = 0, c = 0;
    for (int i = 0; i < n; i++)
        s[i] = mont_sbb(t[i], m[i], &br);
    uint64_t mask = (uint64_t)0 - br; /* borrow => t < m => add m back */
    for (int i = 0; i < n; i++)
        r[i] = mont_adc(s[i], m[i] & mask, &c);
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

/*
 * Inversion modulo an odd m by Bernstein–Yang divsteps ("safegcd"), variable
 * time. f = m and g = x shrink together; every divstep looks only at the low
 * bit of g, so 62 of them are computed on the low word alone and returned as
 * a matrix T = [u v; q r] with 2^62·(f', g') = T·(f, g) and |u| + |v| ≤ 2^62,
 * |q| + |r| ≤ 2^62. The matrix is then applied to the full f, g and to the
 * cofactors d, e, which keep d·x ≡ f and e·x ≡ g (mod m): their division by
 * 2^62 becomes exact after adding the multiple of m that clears the low 62
 * bits. When g reaches 0, f = ±1 and x^-1 = ±d. δ follows the "half-delta"
 * variant (δ starts at 1/2, kept doubled as an odd integer).
 *
 * Numbers are signed, in 62-bit limbs (limb i weighs 2^(62i), limbs below the
 * top in [0, 2^62), the top limb signed), so a limb times a matrix entry plus
 * a carry fits an __int128. Ranges: |f|, |g| ≤ m; d, e stay in (-2m, m)
 * because a negative cofactor is first lifted by m (folded into the multiple
 * of m) and that multiple is taken in (-2^62, 0].
 */
#define MONT_M62 (((uint64_t)1 << 62) - 1)
#define MONT_MAXN62 7

typedef __int128 i128;

/* 62-bit limbs from n 64-bit limbs; the value must be below 2^(62*n62 - 1). */
MONT_INLINE void s62_from_u64(int64_t *out, const uint64_t *in, int n, int n62)
{
    u128 acc = 0;
    int bits = 0, j = 0;
    for (int i = 0; i < n62; i++) {
        if (bits < 62 && j < n) {
            acc |= (u128)in[j++] << bits;
            bits += 64;
        }
        out[i] = (int64_t)((uint64_t)acc & MONT_M62);
        acc >>= 62;
        bits -= 62;
    }
}

/* n 64-bit limbs from a normalized, nonnegative 62-bit-limb value below 2^(64n). */
MONT_INLINE void s62_to_u64(uint64_t *out, const int64_t *in, int n, int n62)
{
    u128 acc = 0;
    int bits = 0, j = 0;
    for (int i = 0; i < n; i++) {
        while (bits < 64 && j < n62) {
            acc |= (u128)(uint64_t)in[j++] << bits;
            bits += 62;
        }
        out[i] = (uint64_t)acc;
        acc >>= 64;
        bits = bits > 64 ? bits - 64 : 0;
    }
}

/* a = k·a + c·m with carries renormalized (k = ±1, c small). */
MONT_INLINE void s62_scale_add(int64_t *a, int64_t k, int64_t c, const int64_t *m, int n62)
{
    int64_t carry = 0;
    for (int i = 0; i < n62 - 1; i++) {
        int64_t v = k * a[i] + c * m[i] + carry;
        a[i] = (int64_t)((uint64_t)v & MONT_M62);
        carry = v >> 62;
    }
    a[n62 - 1] = k * a[n62 - 1] + c * m[n62 - 1] + carry;
}

/* a >= b for nonnegative normalized values. */
MONT_INLINE bool s62_geq(const int64_t *a, const int64_t *b, int n62)
{
    for (int i = n62 - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] > b[i];
    return true;
}

/* A 62-divstep kernel: mont_divsteps62 or a drop-in replacement (fp_asm.h). */
typedef int64_t (*mont_divsteps_fn)(int64_t delta, uint64_t f, uint64_t g, int64_t t[4]);

/* 62 divsteps on the low bits of f (odd) and g with doubled δ; fills t = T and returns the new δ. */
MONT_INLINE int64_t mont_divsteps62(int64_t delta, uint64_t f, uint64_t g, int64_t t[4])
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    for (int i = 0; i < 62; i++) {
        uint64_t odd = (uint64_t)0 - (g & 1);
        uint64_t swap = odd & (uint64_t)((-delta) >> 63); /* δ > 0 and g odd */
        delta = (int64_t)(((uint64_t)delta ^ swap) - swap) + 2;
        uint64_t x = (f ^ swap) - swap, xu = (u ^ swap) - swap, xv = (v ^ swap) - swap;
        f ^= (f ^ g) & swap;
        u ^= (u ^ q) & swap;
        v ^= (v ^ r) & swap;
        g += x & odd;
        q += xu & odd;
        r += xv & odd;
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    t[0] = (int64_t)u;
    t[1] = (int64_t)v;
    t[2] = (int64_t)q;
    t[3] = (int64_t)r;
    return delta;
}

/* (f, g) = T·(f, g) / 2^62, exact; both have len limbs. */
MONT_INLINE void mont_update_fg62(int64_t *f, int64_t *g, const int64_t t[4], int len)
{
    i128 cf = (i128)t[0] * f[0] + (i128)t[1] * g[0];
    i128 cg = (i128)t[2] * f[0] + (i128)t[3] * g[0];
    cf >>= 62;
    cg >>= 62;
    for (int i = 1; i < len; i++) {
        cf += (i128)t[0] * f[i] + (i128)t[1] * g[i];
        cg += (i128)t[2] * f[i] + (i128)t[3] * g[i];
        f[i - 1] = (int64_t)((uint64_t)cf & MONT_M62);
        g[i - 1] = (int64_t)((uint64_t)cg & MONT_M62);
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
}

/* (d, e) = (T·(d, e) + (md, me)·m) / 2^62 with md, me chosen to make it exact. */
MONT_INLINE void mont_update_de62(int64_t *d, int64_t *e, const int64_t t[4], const int64_t *m,
                                  uint64_t minv, int n62)
{
    int64_t sd = d[n62 - 1] >> 63, se = e[n62 - 1] >> 63;
    int64_t md = (t[0] & sd) + (t[1] & se), me = (t[2] & sd) + (t[3] & se);
    i128 cd = (i128)t[0] * d[0] + (i128)t[1] * e[0];
    i128 ce = (i128)t[2] * d[0] + (i128)t[3] * e[0];
    md -= (int64_t)((minv * (uint64_t)cd + (uint64_t)md) & MONT_M62);
    me -= (int64_t)((minv * (uint64_t)ce + (uint64_t)me) & MONT_M62);
    cd += (i128)m[0] * md;
    ce += (i128)m[0] * me;
    cd >>= 62;
    ce >>= 62;
    for (int i = 1; i < n62; i++) {
        cd += (i128)t[0] * d[i] + (i128)t[1] * e[i] + (i128)m[i] * md;
        ce += (i128)t[2] * d[i] + (i128)t[3] * e[i] + (i128)m[i] * me;
        d[i - 1] = (int64_t)((uint64_t)cd & MONT_M62);
        e[i - 1] = (int64_t)((uint64_t)ce & MONT_M62);
        cd >>= 62;
        ce >>= 62;
    }
    d[n62 - 1] = (int64_t)cd;
    e[n62 - 1] = (int64_t)ce;
}

/*
 * r = x^-1 mod m for 0 < x < m, gcd(x, m) = 1 (plain integers, n limbs);
 * 62·n62 must exceed bits(m) + 1. Variable time. divsteps is
 * mont_divsteps62 or a drop-in replacement with the same contract. Returns
 * false only if g has not reached 0 after maxbatches rounds of 62 divsteps,
 * which the termination bound rules out for a correct kernel (about 2.3
 * divsteps per bit of m suffice); callers then fall back to Fermat.
 */
MONT_INLINE bool mont_inv(uint64_t *r, const uint64_t *x, const uint64_t *m, int n, int n62,
                          int maxbatches, mont_divsteps_fn divsteps)
{
    int64_t f[MONT_MAXN62], g[MONT_MAXN62], d[MONT_MAXN62] = {0}, e[MONT_MAXN62] = {0}, mm[MONT_MAXN62];
    s62_from_u64(mm, m, n, n62);
    s62_from_u64(g, x, n, n62);
    for (int i = 0; i < n62; i++)
        f[i] = mm[i];
    e[0] = 1;
    uint64_t minv = (uint64_t)mm[0]; /* m^-1 mod 2^62 by Newton: 3, 6, ..., 96 correct bits */
    for (int i = 0; i < 5; i++)
        minv *= 2 - (uint64_t)mm[0] * minv;
    minv &= MONT_M62;
    int64_t delta = 1;
    int len = n62; /* f and g shrink: drop top limbs that are only sign */
    for (int batch = 0;; batch++) {
        if (batch == maxbatches)
            return false;
        int64_t t[4];
        delta = divsteps(delta, (uint64_t)f[0], (uint64_t)g[0], t);
        mont_update_de62(d, e, t, mm, minv, n62);
        mont_update_fg62(f, g, t, len);
        int64_t any = 0;
        for (int i = 0; i < len; i++)
            any |= g[i];
        if (!any)
            break;
        int64_t ft = f[len - 1], gt = g[len - 1];
        if (len > 1 && (ft == 0 || ft == -1) && (gt == 0 || gt == -1)) {
            f[len - 2] += (int64_t)((uint64_t)ft << 62);
            g[len - 2] += (int64_t)((uint64_t)gt << 62);
            len--;
        }
    }
    /* f = ±1 and d·x ≡ f: x^-1 = sign(f)·d with d in (-2m, m) */
    s62_scale_add(d, f[len - 1] < 0 ? -1 : 1, 0, mm, n62);
    while (d[n62 - 1] < 0)
        s62_scale_add(d, 1, 1, mm, n62);
    while (s62_geq(d, mm, n62))
        s62_scale_add(d, 1, -1, mm, n62);
    s62_to_u64(r, d, n, n62);
    return true;
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
