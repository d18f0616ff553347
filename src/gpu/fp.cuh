/*
 * fp.cuh — the BLS12-381 base field Fp for CUDA kernels (and, through the
 * same code, on the host).
 *
 * Representation. An element is twelve 32-bit little-endian limbs of
 * x·2^384 mod p, fully reduced: byte for byte the host's cuzk_fp (six 64-bit
 * little-endian limbs of the same Montgomery value), so host arrays of
 * elements and points are uploaded and read back unchanged. Every function
 * takes and returns values and every result is reduced. fp_mul and fp_sqr
 * also accept operands below 2p (not only below p): fp2.cuh feeds them
 * unreduced sums from fp_add_lazy. p < 2^381 leaves three spare bits, which
 * is what makes that, and the bounds below, work.
 *
 * Multiplication (fp_mul) is the word-serial form below (fp_mul_ws,
 * fp_mul_pw; Fp2 uses it either way) or, built with FP_MUL_KARATSUBA=1, one
 * level of Karatsuba on six-word halves (fp_mul_ka: three 6 x 6 products,
 * then fp_sqr's reduction). The word-serial form is fr.cuh's scheme on
 * twelve words: word-serial
 * Montgomery (CIOS, one row per word a_i: add a_i·b, then m·p with m chosen
 * to clear the low word, then drop that word), the accumulator kept as the
 * sum U + V of two thirteen-word numbers. U takes the partial products with
 * the even-indexed words of b and p, whose (lo, hi) halves fall on the
 * disjoint word pairs (0,1), (2,3), ..., and V those with the odd-indexed
 * words, pairs (1,2), (3,4), ...; each carry chain then adds whole 64-bit
 * products (IMAD.WIDE.U32.X on sm_90). Unlike r, p's low word is not 1:
 * -p^-1 mod 2^32 = 0xfffcfffd, so m = (U0 + V0)·0xfffcfffd, one extra
 * multiplication per row. After m·p is added U0 + V0 is 0 or 2^32; that
 * carry is the carry-in of the next row's first chain. Bounds: with a, b < 2p
 * the sum stays below b + p < 3p between rows and below 3p·(2^32 + 1) < 2^415
 * inside one, so thirteen words hold each part; the result is below
 * 4p^2/2^384 + p < 1.5p, and one conditional subtraction of p ends it.
 *
 * Squaring (fp_sqr) computes the 24-word square first and reduces after
 * (separated operand scanning): the 66 products a_i·a_j with i < j once, into
 * two accumulators by the parity of i + j (so again every chain adds whole
 * 64-bit products), then doubled, then the 12 squares a_i^2 added on the even
 * pairs: 78 word products against fp_mul's 144 for the same step. The low
 * twelve words T_lo are reduced by the same U + V rows (m·p only), and the
 * high twelve T_hi are added at the end: REDC(T) = T_hi + (T_lo + M·p)/2^384,
 * where the second term is at most p and T_hi < 4p^2/2^384 < p/2. With no
 * product chain between two reduction rows, the carry of the dropped words
 * must reach m before the next chain runs: it is carried as a value
 * (U0 != 0 after the row) and put back into the flag just before the chain.
 *
 * Carries. The chains are fr.cuh's primitives (add_cc, madc_lo_cc, ... with
 * an fr_carry standing for the flag on the host): PTX add.cc/addc/mad.lo.cc/
 * madc.hi in one volatile asm statement each on the device, 64-bit C on the
 * host; fp_mul's rows are fr.cuh's mont_mul_words<12>, the same code as Fr's
 * product on eight words. No field function branches on data: reductions
 * select with masks.
 */
#ifndef CUZK_GPU_FP_CUH
#define CUZK_GPU_FP_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "fr.cuh"

/* Force-inlined in device code, where every call must become straight-line
 * code; plain inline on the host, whose path exists for testing: forcing the
 * hundreds of products of a point operation inline there made the host
 * compiler take minutes per test program. */
#ifdef __CUDA_ARCH__
#define FP_FN static __host__ __device__ __forceinline__
#else
#define FP_FN static __host__ __device__ inline
#endif
#define FP_UNROLL FR_UNROLL

struct __align__(16) fp_s
{
    uint32_t v[12];
};
typedef struct fp_s fp_t;

/* The modulus p in 32-bit limbs, least significant first. */
#define FP_P_WORDS                                                                                           \
    {                                                                                                        \
        0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u, 0xf38512bfu,           \
            0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau                                  \
    }
/* -p^-1 mod 2^32 */
#define FP_N0 0xfffcfffdu

/* ---- elements ------------------------------------------------------------ */

FP_FN fp_t fp_zero(void)
{
    fp_t z = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
    return z;
}

/* 1 in Montgomery form: 2^384 mod p. */
FP_FN fp_t fp_one(void)
{
    fp_t o = {{0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u, 0x70525745u,
               0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u}};
    return o;
}

FP_FN bool fp_is_zero(fp_t a)
{
    uint32_t d = 0;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        d |= a.v[i];
    return d == 0;
}

FP_FN bool fp_eq(fp_t a, fp_t b)
{
    uint32_t d = 0;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        d |= a.v[i] ^ b.v[i];
    return d == 0;
}

/* t - p if t >= p, else t; t < 2p. */
FP_FN fp_t fp_reduce_once(const uint32_t t[12])
{
    const uint32_t P[12] = FP_P_WORDS;
    fr_carry k = {0};
    uint32_t u[12];
    u[0] = sub_cc(&k, t[0], P[0]);
    FP_UNROLL
    for (int i = 1; i < 12; i++)
        u[i] = subc_cc(&k, t[i], P[i]);
    uint32_t keep = subc(&k, 0, 0); /* all ones when t < p */
    fp_t r;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        r.v[i] = (t[i] & keep) | (u[i] & ~keep);
    return r;
}

/* a + b as an integer, NOT reduced: below 2p for a, b < p. Only fp_mul and
 * fp_sqr accept the result (as operands below 2p). */
FP_FN fp_t fp_add_lazy(fp_t a, fp_t b)
{
    fr_carry k = {0};
    fp_t r;
    r.v[0] = add_cc(&k, a.v[0], b.v[0]);
    FP_UNROLL
    for (int i = 1; i < 11; i++)
        r.v[i] = addc_cc(&k, a.v[i], b.v[i]);
    r.v[11] = addc(&k, a.v[11], b.v[11]); /* < 2^382: no carry out */
    return r;
}

FP_FN fp_t fp_add(fp_t a, fp_t b)
{
    fp_t t = fp_add_lazy(a, b);
    return fp_reduce_once(t.v);
}

/* 2a by a one-bit shift (no carry chain), then one conditional subtraction. */
FP_FN fp_t fp_dbl(fp_t a)
{
    uint32_t t[12];
    t[0] = a.v[0] << 1;
    FP_UNROLL
    for (int i = 1; i < 12; i++) {
#ifdef __CUDA_ARCH__
        t[i] = __funnelshift_l(a.v[i - 1], a.v[i], 1);
#else
        t[i] = (a.v[i] << 1) | (a.v[i - 1] >> 31);
#endif
    }
    return fp_reduce_once(t);
}

FP_FN fp_t fp_sub(fp_t a, fp_t b)
{
    const uint32_t P[12] = FP_P_WORDS;
    fr_carry k = {0};
    uint32_t t[12];
    t[0] = sub_cc(&k, a.v[0], b.v[0]);
    FP_UNROLL
    for (int i = 1; i < 12; i++)
        t[i] = subc_cc(&k, a.v[i], b.v[i]);
    uint32_t m = subc(&k, 0, 0); /* all ones on borrow: add p back */
    fp_t r;
    r.v[0] = add_cc(&k, t[0], P[0] & m);
    FP_UNROLL
    for (int i = 1; i < 11; i++)
        r.v[i] = addc_cc(&k, t[i], P[i] & m);
    r.v[11] = addc(&k, t[11], P[11] & m);
    return r;
}

/* p - a, and 0 for a = 0 (masked, no branch). */
FP_FN fp_t fp_neg(fp_t a)
{
    const uint32_t P[12] = FP_P_WORDS;
    uint32_t nz = 0;
    FP_UNROLL
    for (int i = 0; i < 12; i++)
        nz |= a.v[i];
    uint32_t mask = 0u - (uint32_t)(nz != 0);
    fr_carry k = {0};
    fp_t r;
    r.v[0] = sub_cc(&k, P[0], a.v[0]) & mask;
    FP_UNROLL
    for (int i = 1; i < 11; i++)
        r.v[i] = subc_cc(&k, P[i], a.v[i]) & mask;
    r.v[11] = subc(&k, P[11], a.v[11]) & mask;
    return r;
}

/* ---- multiplication ------------------------------------------------------ */

/* a·b·2^-384 mod p for a, b < 2p, with p's words from the caller: P = p,
 * for a kernel that keeps them in registers (loaded from memory, so that
 * ptxas cannot fold them into immediates). The result is below p: fr.cuh's
 * mont_mul_words on twelve words (the accumulators trade roles every row, so
 * no register moves re-pair them: 808 instructions a product in a chain kernel
 * with fixed roles, 568 now; docs/design/013, twelfth session), then one
 * conditional subtraction. */
FP_FN fp_t fp_mul_pw(fp_t a, fp_t b, const uint32_t P[12])
{
    uint32_t t[12];
    mont_mul_words<12>(a.v, b.v, P, FP_N0, t);
    return fp_reduce_once(t);
}

/* x[2i+1..] += a_i·(a_j : j = i+1, i+3, ... or i+2, i+4, ..., up to 11): one
 * row of the off-diagonal products, all of one parity of i + j, pairs at
 * words (i+j, i+j+1). After rows 0..i the accumulator is below 2^(32(i+13)),
 * so the chain's carry lands in word i+12 without overflowing it. */
FP_FN void fp_sqr_row(fr_carry *k, uint32_t x[24], const uint32_t a[12], int i, int j0)
{
    if (j0 > 11)
        return;
    int j = j0;
    x[i + j] = mad_lo_cc(k, a[i], a[j], x[i + j]);
    x[i + j + 1] = madc_hi_cc(k, a[i], a[j], x[i + j + 1]);
    FP_UNROLL
    for (j = j0 + 2; j < 12; j += 2) {
        x[i + j] = madc_lo_cc(k, a[i], a[j], x[i + j]);
        x[i + j + 1] = madc_hi_cc(k, a[i], a[j], x[i + j + 1]);
    }
    if (i + j - 2 + 1 < i + 12) /* the last pair ended at word i+11: carry into i+12 */
        x[i + 12] = addc(k, x[i + 12], 0);
}

/* REDC(t) = t·2^-384 mod p for a 24-word t below 4p^2 (a product or square of
 * operands below 2p): fr.cuh's mont_redc_wide, T_hi + (T_lo + M·p)/2^384 <
 * p/2 + p + 1, then one conditional subtraction; the result is below p. */
FP_FN fp_t fp_redc_wide(const uint32_t t[24])
{
    const uint32_t P[12] = FP_P_WORDS;
    uint32_t r[12];
    mont_redc_wide<12>(t, P, FP_N0, r);
    return fp_reduce_once(r);
}

/* a^2·2^-384 mod p for a < 2p; the result is below p. */
FP_FN fp_t fp_sqr(fp_t a)
{
    fr_carry k = {0};
    uint32_t e[24], o[24];
    FP_UNROLL
    for (int j = 0; j < 24; j++) {
        e[j] = 0;
        o[j] = 0;
    }
    FP_UNROLL
    for (int i = 0; i < 11; i++) {
        fp_sqr_row(&k, o, a.v, i, i + 1);
        fp_sqr_row(&k, e, a.v, i, i + 2);
    }
    /* t = 2(e + o) + sum a_i^2 2^(64 i) < 2^768 */
    uint32_t s[24], t[24];
    s[0] = add_cc(&k, e[0], o[0]);
    FP_UNROLL
    for (int j = 1; j < 23; j++)
        s[j] = addc_cc(&k, e[j], o[j]);
    s[23] = addc(&k, e[23], o[23]);
    t[0] = s[0] << 1;
    FP_UNROLL
    for (int j = 1; j < 24; j++) {
#ifdef __CUDA_ARCH__
        t[j] = __funnelshift_l(s[j - 1], s[j], 1);
#else
        t[j] = (s[j] << 1) | (s[j - 1] >> 31);
#endif
    }
    t[0] = mad_lo_cc(&k, a.v[0], a.v[0], t[0]);
    t[1] = madc_hi_cc(&k, a.v[0], a.v[0], t[1]);
    FP_UNROLL
    for (int i = 1; i < 11; i++) {
        t[2 * i] = madc_lo_cc(&k, a.v[i], a.v[i], t[2 * i]);
        t[2 * i + 1] = madc_hi_cc(&k, a.v[i], a.v[i], t[2 * i + 1]);
    }
    t[22] = madc_lo_cc(&k, a.v[11], a.v[11], t[22]);
    t[23] = madc_hi(&k, a.v[11], a.v[11], t[23]);
    return fp_redc_wide(t);
}

/* a·b·2^-384 mod p for a, b < 2p: fr.cuh's karatsuba_words on twelve words
 * (a < 2p < 2^382, so the halves' bound holds: three 6 × 6 products, 108 word
 * products where the schoolbook a·b takes 144), then fp_sqr's reduction
 * (144 + 12): 264 multiplications against the word-serial form's 300. */
FP_FN fp_t fp_mul_ka(fp_t a, fp_t b)
{
    uint32_t t[24];
    karatsuba_words<12>(a.v, b.v, t);
    return fp_redc_wide(t);
}

/* The word-serial product with p's words as immediates. */
FP_FN fp_t fp_mul_ws(fp_t a, fp_t b)
{
    const uint32_t P[12] = FP_P_WORDS;
    return fp_mul_pw(a, b, P);
}

/* FP_MUL_KARATSUBA (build-time, default 0): fp_mul is fp_mul_ka, else
 * fp_mul_ws. Fp2's products use fp_mul_ws either way (fp2.cuh). Measured on
 * the H100 (docs/design/013, thirtieth session): fewer multiply slots, more
 * registers, one block an SM fewer in the tree's kernels, and a 2^27 MSM
 * 37 % slower, so it is off. */
#ifndef FP_MUL_KARATSUBA
#define FP_MUL_KARATSUBA 0
#endif

/* a·b·2^-384 mod p for a, b < 2p; the result is below p. */
FP_FN fp_t fp_mul(fp_t a, fp_t b)
{
#if FP_MUL_KARATSUBA
    return fp_mul_ka(a, b);
#else
    return fp_mul_ws(a, b);
#endif
}

/* ---- memory -------------------------------------------------------------- */

/* 48-byte element as three 16-byte accesses (p must be 16-byte aligned). */
FP_FN fp_t fp_load(const fp_t *p)
{
    const uint4 *q = (const uint4 *)p;
    uint4 a = q[0], b = q[1], c = q[2];
    fp_t r = {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w}};
    return r;
}

FP_FN void fp_store(fp_t *p, fp_t a)
{
    uint4 *q = (uint4 *)p;
    q[0] = make_uint4(a.v[0], a.v[1], a.v[2], a.v[3]);
    q[1] = make_uint4(a.v[4], a.v[5], a.v[6], a.v[7]);
    q[2] = make_uint4(a.v[8], a.v[9], a.v[10], a.v[11]);
}

#endif
