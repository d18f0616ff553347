/*
 * fr.cuh — the BLS12-381 scalar field Fr for CUDA kernels, and the pieces
 * fp.cuh builds Fp from: the carry-chain primitives and the word-serial
 * Montgomery product on N words (mont_mul_words).
 *
 * Representation. An element is eight 32-bit little-endian limbs of
 * x·2^256 mod r, fully reduced: byte for byte the host's cuzk_fr (four 64-bit
 * little-endian limbs of the same Montgomery value), so host arrays are
 * uploaded and read back unchanged. Every function returns a reduced value.
 *
 * Arithmetic. Multiplication is word-serial Montgomery (CIOS, one row per
 * word a_i: add a_i·b, then m·r with m chosen to clear the low word, then
 * shift one word) over 32-bit limbs, with the accumulator kept as the sum of
 * two nine-word numbers U + V: one takes the partial products with the
 * even-indexed words of b and r, whose (lo, hi) halves fall on the disjoint
 * word pairs (0,1), (2,3), ..., the other those with odd-indexed words, pairs
 * (1,2), (3,4), .... Each carry chain therefore adds whole 64-bit products,
 * which the compiler turns into one IMAD.WIDE.U32.X per product (carry in and
 * out); with the low and high halves in separate chains it needs two or three
 * instructions per product. The two parts trade roles every row so that the
 * shifted words already sit in the register pairs the next row adds into
 * (fp.cuh does the same). The sum stays below 2r between rows and below
 * 2r + 2^33·r < 2^288 inside one, so nine words hold each part. After m·r is
 * added the two low words sum to 0 or 2^32, and that carry enters the next
 * row's first chain. One conditional subtraction of r ends it. Squaring is
 * the product with itself (the NTT squares only while building tables).
 * m = (U0 + V0)·n0 with n0 = -r^-1 mod 2^32 read from constant memory: n0 is
 * 2^32 - 1, and when ptxas sees that value it makes m a negation and then
 * splits every m·r product into IMAD.X + IMAD.HI.U32.X. Measured on the H200
 * (docs/design/009-gpu-ntt.md, thirteenth session): 56.6 G products/s with
 * one, two or four products in flight a thread, against 49.1 with n0 as an
 * immediate (and 38.4 for separate low/high chains, 36.9 for plain C with
 * 64-bit intermediates).
 *
 * Carries. On the device the chains are PTX add.cc/addc/mad.lo.cc/madc.hi
 * instructions, one volatile asm statement each so that their order (and the
 * carry flag between them) is kept. The same functions compile for the host,
 * where a fr_carry variable plays the flag; the host path exists so that the
 * arithmetic and the kernels' index logic can be checked on a machine without
 * a GPU (tests/gpu/test_gpu_ntt.cu compares it against cuzk_fr_* as well).
 */
#ifndef CUZK_GPU_FR_CUH
#define CUZK_GPU_FR_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#define FR_FN static __host__ __device__ __forceinline__

/* Full unrolling of the fixed-length limb loops (the host compiler unrolls them itself). */
#ifdef __CUDA_ARCH__
#define FR_UNROLL _Pragma("unroll")
#else
#define FR_UNROLL
#endif

struct __align__(16) fr_s
{
    uint32_t v[8];
};
typedef struct fr_s fr_t;

/* The modulus r in 32-bit limbs, least significant first. */
#define FR_R0 0x00000001u
#define FR_R1 0xffffffffu
#define FR_R2 0xfffe5bfeu
#define FR_R3 0x53bda402u
#define FR_R4 0x09a1d805u
#define FR_R5 0x3339d808u
#define FR_R6 0x299d7d48u
#define FR_R7 0x73eda753u

/* The carry flag of the host path; unused on the device (the hardware flag). */
typedef struct {
    uint32_t c;
} fr_carry;

/* ---- carry-chain primitives --------------------------------------------- */

#ifdef __CUDA_ARCH__
#define FR_ASM2(op, a, b)                                                                                    \
    do {                                                                                                     \
        asm volatile(op " %0, %1, %2;" : "=r"(r_) : "r"(a), "r"(b));                                         \
    } while (0)
#define FR_ASM3(op, a, b, c)                                                                                 \
    do {                                                                                                     \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r_) : "r"(a), "r"(b), "r"(c));                             \
    } while (0)
#endif

/* r = a + b, carry out */
FR_FN uint32_t add_cc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("add.cc.u32", a, b);
#else
    uint64_t s = (uint64_t)a + b;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = a + b + carry, carry out */
FR_FN uint32_t addc_cc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("addc.cc.u32", a, b);
#else
    uint64_t s = (uint64_t)a + b + k->c;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = a + b + carry */
FR_FN uint32_t addc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("addc.u32", a, b);
#else
    r_ = a + b + k->c;
#endif
    return r_;
}

/* r = a - b, borrow out */
FR_FN uint32_t sub_cc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("sub.cc.u32", a, b);
#else
    k->c = a < b;
    r_ = a - b;
#endif
    return r_;
}

/* r = a - b - borrow, borrow out */
FR_FN uint32_t subc_cc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("subc.cc.u32", a, b);
#else
    uint64_t d = (uint64_t)a - b - k->c;
    k->c = (uint32_t)(d >> 63);
    r_ = (uint32_t)d;
#endif
    return r_;
}

/* r = a - b - borrow */
FR_FN uint32_t subc(fr_carry *k, uint32_t a, uint32_t b)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM2("subc.u32", a, b);
#else
    r_ = a - b - k->c;
#endif
    return r_;
}

/* r = lo(a·b) + c, carry out */
FR_FN uint32_t mad_lo_cc(fr_carry *k, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM3("mad.lo.cc.u32", a, b, c);
#else
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = lo(a·b) + c + carry, carry out */
FR_FN uint32_t madc_lo_cc(fr_carry *k, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM3("madc.lo.cc.u32", a, b, c);
#else
    uint64_t s = (uint64_t)(uint32_t)(a * b) + c + k->c;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = hi(a·b) + c, carry out */
FR_FN uint32_t mad_hi_cc(fr_carry *k, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM3("mad.hi.cc.u32", a, b, c);
#else
    uint64_t s = (((uint64_t)a * b) >> 32) + c;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = hi(a·b) + c + carry, carry out */
FR_FN uint32_t madc_hi_cc(fr_carry *k, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM3("madc.hi.cc.u32", a, b, c);
#else
    uint64_t s = (((uint64_t)a * b) >> 32) + c + k->c;
    k->c = (uint32_t)(s >> 32);
    r_ = (uint32_t)s;
#endif
    return r_;
}

/* r = hi(a·b) + c + carry */
FR_FN uint32_t madc_hi(fr_carry *k, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r_;
#ifdef __CUDA_ARCH__
    FR_ASM3("madc.hi.u32", a, b, c);
#else
    r_ = (uint32_t)(((uint64_t)a * b) >> 32) + c + k->c;
#endif
    return r_;
}

/* ---- elements ------------------------------------------------------------ */

FR_FN fr_t fr_zero(void)
{
    fr_t z = {{0, 0, 0, 0, 0, 0, 0, 0}};
    return z;
}

/* 1 in Montgomery form: 2^256 mod r. */
FR_FN fr_t fr_one(void)
{
    fr_t o = {{0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu,
               0x1824b159u}};
    return o;
}

FR_FN bool fr_is_equal(fr_t a, fr_t b)
{
    uint32_t d = 0;
    FR_UNROLL
    for (int i = 0; i < 8; i++)
        d |= a.v[i] ^ b.v[i];
    return d == 0;
}

/* t - r if t >= r, else t; t < 2r. */
FR_FN fr_t fr_reduce_once(const uint32_t t[8])
{
    fr_carry k = {0};
    uint32_t u[8];
    u[0] = sub_cc(&k, t[0], FR_R0);
    u[1] = subc_cc(&k, t[1], FR_R1);
    u[2] = subc_cc(&k, t[2], FR_R2);
    u[3] = subc_cc(&k, t[3], FR_R3);
    u[4] = subc_cc(&k, t[4], FR_R4);
    u[5] = subc_cc(&k, t[5], FR_R5);
    u[6] = subc_cc(&k, t[6], FR_R6);
    u[7] = subc_cc(&k, t[7], FR_R7);
    uint32_t keep = subc(&k, 0, 0); /* all ones when t < r */
    fr_t r;
    FR_UNROLL
    for (int i = 0; i < 8; i++)
        r.v[i] = (t[i] & keep) | (u[i] & ~keep);
    return r;
}

FR_FN fr_t fr_add(fr_t a, fr_t b)
{
    fr_carry k = {0};
    uint32_t t[8];
    t[0] = add_cc(&k, a.v[0], b.v[0]);
    t[1] = addc_cc(&k, a.v[1], b.v[1]);
    t[2] = addc_cc(&k, a.v[2], b.v[2]);
    t[3] = addc_cc(&k, a.v[3], b.v[3]);
    t[4] = addc_cc(&k, a.v[4], b.v[4]);
    t[5] = addc_cc(&k, a.v[5], b.v[5]);
    t[6] = addc_cc(&k, a.v[6], b.v[6]);
    t[7] = addc(&k, a.v[7], b.v[7]); /* a + b < 2r < 2^256 */
    return fr_reduce_once(t);
}

FR_FN fr_t fr_sub(fr_t a, fr_t b)
{
    fr_carry k = {0};
    uint32_t t[8];
    t[0] = sub_cc(&k, a.v[0], b.v[0]);
    t[1] = subc_cc(&k, a.v[1], b.v[1]);
    t[2] = subc_cc(&k, a.v[2], b.v[2]);
    t[3] = subc_cc(&k, a.v[3], b.v[3]);
    t[4] = subc_cc(&k, a.v[4], b.v[4]);
    t[5] = subc_cc(&k, a.v[5], b.v[5]);
    t[6] = subc_cc(&k, a.v[6], b.v[6]);
    t[7] = subc_cc(&k, a.v[7], b.v[7]);
    uint32_t m = subc(&k, 0, 0); /* all ones on borrow: add r back */
    fr_t r;
    r.v[0] = add_cc(&k, t[0], FR_R0 & m);
    r.v[1] = addc_cc(&k, t[1], FR_R1 & m);
    r.v[2] = addc_cc(&k, t[2], FR_R2 & m);
    r.v[3] = addc_cc(&k, t[3], FR_R3 & m);
    r.v[4] = addc_cc(&k, t[4], FR_R4 & m);
    r.v[5] = addc_cc(&k, t[5], FR_R5 & m);
    r.v[6] = addc_cc(&k, t[6], FR_R6 & m);
    r.v[7] = addc(&k, t[7], FR_R7 & m);
    return r;
}

/* ---- word-serial Montgomery rows, on N words (Fr here, Fp in fp.cuh) ----- */

/* Force-inlined in device code; plain inline on the host, where forcing every
 * product of a point operation inline made test programs take minutes to
 * compile (fp.cuh). */
#ifdef __CUDA_ARCH__
#define MONT_FN static __host__ __device__ __forceinline__
#else
#define MONT_FN static __host__ __device__ inline
#endif

/* u[0..N-1] += ai·(w0, w2, ..., w_{N-2}) as N/2 (lo, hi) pairs, the carry out
 * into u[N]; CIN: the chain takes the carry flag in (the previous row's). */
template <int N, bool CIN>
MONT_FN void mont_pairs_even(fr_carry *k, uint32_t u[], uint32_t ai, const uint32_t w[])
{
    u[0] = CIN ? madc_lo_cc(k, ai, w[0], u[0]) : mad_lo_cc(k, ai, w[0], u[0]);
    u[1] = madc_hi_cc(k, ai, w[0], u[1]);
    FR_UNROLL
    for (int j = 2; j < N; j += 2) {
        u[j] = madc_lo_cc(k, ai, w[j], u[j]);
        u[j + 1] = madc_hi_cc(k, ai, w[j], u[j + 1]);
    }
    u[N] = addc(k, u[N], 0);
}

/* v[1..N] += ai·(w1, w3, ..., w_{N-1})·2^32 as N/2 (lo, hi) pairs; no carry in or out. */
template <int N> MONT_FN void mont_pairs_odd(fr_carry *k, uint32_t v[], uint32_t ai, const uint32_t w[])
{
    v[1] = mad_lo_cc(k, ai, w[1], v[1]);
    v[2] = madc_hi_cc(k, ai, w[1], v[2]);
    FR_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
        v[j] = madc_lo_cc(k, ai, w[j], v[j]);
        v[j + 1] = madc_hi_cc(k, ai, w[j], v[j + 1]);
    }
    v[N - 1] = madc_lo_cc(k, ai, w[N - 1], v[N - 1]);
    v[N] = madc_hi(k, ai, w[N - 1], v[N]);
}

/* Both parts down one word. */
template <int N> MONT_FN void mont_shift(uint32_t u[], uint32_t v[])
{
    FR_UNROLL
    for (int j = 0; j < N; j++) {
        u[j] = u[j + 1];
        v[j] = v[j + 1];
    }
    u[N] = 0;
    v[N] = 0;
}

/* One reduction row: m = (U0 + V0)·n0 (n0 = -modulus^-1 mod 2^32) clears the
 * low word of U + V + m·modulus; then both parts move down one word. The
 * carry of the dropped words (0 or 1) is left in the flag for the next row's
 * first chain. */
template <int N>
MONT_FN void mont_redc_row(fr_carry *k, uint32_t u[], uint32_t v[], const uint32_t M[], uint32_t n0)
{
    uint32_t m = (u[0] + v[0]) * n0;
    mont_pairs_even<N, false>(k, u, m, M);
    mont_pairs_odd<N>(k, v, m, M);
    (void)add_cc(k, u[0], v[0]); /* 0 or 2^32 */
    mont_shift<N>(u, v);
}

/*
 * Even/odd Montgomery multiplication: t = U + V ≡ a·b·2^(-32N) modulo M, t
 * below 2M when a·b < M·2^(32N) (the caller subtracts M once). The
 * accumulator is the sum U + V of two (N+1)-word numbers: one takes the
 * partial products with even-indexed words of b and M, whose (lo, hi) halves
 * land on the word pairs 0-1, 2-3, ..., the other those with odd-indexed
 * words (pairs 1-2, 3-4, ...), so every chain adds whole 64-bit products and
 * compiles to one IMAD.WIDE.U32.X a product. The two trade roles every row:
 * after a row's shift by one word the array that took the even pairs holds
 * them at odd places, which is where the next row's odd pairs land, so each
 * IMAD.WIDE's addend is already a register pair (with fixed roles ptxas
 * re-paired them with moves: docs/design/013, twelfth session).
 *
 * MONT_FIRST_ROW_CHAIN (build-time, default 1 since its measurement; 0 builds
 * the earlier form for comparison): the first row a_0·b as the same chains
 * over zeroed accumulators instead of plain products. Counted
 * (bench/gpu/sass_cost.py): Fp product 568 -> 544 instructions, Fr 376 -> 360.
 * Measured on the H200 (bench/results/2026-12-05-ntt-dst-prefetch-engine.md):
 * 2^27 NTT -2.1 %, Fp mul +3.2 %, G1 XYZZ addition +3.9 %, G2 +9.4 %, MSM H
 * (bench-tree 27 2) -0.8 %; every device check passes with it.
 */
#ifndef MONT_FIRST_ROW_CHAIN
#define MONT_FIRST_ROW_CHAIN 1
#endif
template <int N>
MONT_FN void mont_mul_words(const uint32_t a[], const uint32_t b[], const uint32_t M[], uint32_t n0,
                            uint32_t t[])
{
    fr_carry k = {0};
    uint32_t u[N + 1], v[N + 1];
#if MONT_FIRST_ROW_CHAIN
    FR_UNROLL
    for (int j = 0; j <= N; j++) {
        u[j] = 0;
        v[j] = 0;
    }
    mont_pairs_even<N, false>(&k, u, a[0], b);
    mont_pairs_odd<N>(&k, v, a[0], b);
#else
    uint32_t a0 = a[0];
    FR_UNROLL
    for (int j = 0; j < N; j += 2) {
        u[j] = a0 * b[j];
        u[j + 1] = (uint32_t)(((uint64_t)a0 * b[j]) >> 32);
        v[j + 1] = a0 * b[j + 1];
        v[j + 2] = (uint32_t)(((uint64_t)a0 * b[j + 1]) >> 32);
    }
    u[N] = 0;
    v[0] = 0;
#endif
    mont_redc_row<N>(&k, u, v, M, n0);
    FR_UNROLL
    for (int i = 1; i < N; i++) {
        uint32_t *E = i & 1 ? v : u, *O = i & 1 ? u : v; /* the even pairs' array this row, the odd's */
        mont_pairs_even<N, true>(&k, E, a[i], b);
        mont_pairs_odd<N>(&k, O, a[i], b);
        mont_redc_row<N>(&k, E, O, M, n0);
    }
    t[0] = addc_cc(&k, u[0], v[0]); /* takes the last row's carry */
    FR_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j] = addc_cc(&k, u[j], v[j]);
    t[N - 1] = addc(&k, u[N - 1], v[N - 1]);
}

/* ---- product, then reduction (Karatsuba; fp.cuh's fp_mul_ka, fr_mul_ka) --- */

/* x = a·b for H-word a and b, as 2H words: row i adds a_i·b at word i, the
 * products whose (lo, hi) halves fall on even word pairs into one
 * accumulator and the others into a second (mont_mul_words' rows without the
 * reduction, the two trading roles every row), so every chain adds whole
 * 64-bit products; then the two are summed. After rows 0..i each accumulator
 * is below a·b's partial sum < 2^(32(i+H+1)), so the even chain's carry into
 * word i + H does not overflow and the odd chain, which ends at word i + H,
 * has none. H is even. */
template <int H> MONT_FN void mul_half(const uint32_t a[], const uint32_t b[], uint32_t x[])
{
    fr_carry k = {0};
    uint32_t e[2 * H], o[2 * H];
    FR_UNROLL
    for (int j = 0; j < 2 * H; j++) {
        e[j] = 0;
        o[j] = 0;
    }
    FR_UNROLL
    for (int i = 0; i < H; i++) {
        uint32_t *E = i & 1 ? o : e, *O = i & 1 ? e : o;
        mont_pairs_even<H, false>(&k, E + i, a[i], b);
        mont_pairs_odd<H>(&k, O + i, a[i], b);
    }
    x[0] = add_cc(&k, e[0], o[0]);
    FR_UNROLL
    for (int j = 1; j < 2 * H - 1; j++)
        x[j] = addc_cc(&k, e[j], o[j]);
    x[2 * H - 1] = addc(&k, e[2 * H - 1], o[2 * H - 1]);
}

/* |x - y| of H-word x and y, and the sign mask (all ones when x < y). */
template <int H> MONT_FN uint32_t absdiff_words(const uint32_t x[], const uint32_t y[], uint32_t d[])
{
    fr_carry k = {0};
    d[0] = sub_cc(&k, x[0], y[0]);
    FR_UNROLL
    for (int j = 1; j < H; j++)
        d[j] = subc_cc(&k, x[j], y[j]);
    uint32_t s = subc(&k, 0, 0);
    d[0] = add_cc(&k, d[0] ^ s, s & 1); /* two's complement negation when s */
    FR_UNROLL
    for (int j = 1; j < H - 1; j++)
        d[j] = addc_cc(&k, d[j] ^ s, 0);
    d[H - 1] = addc(&k, d[H - 1] ^ s, 0);
    return s;
}

/* t = a·b (2N words) for N-word a and b whose high halves are below 2^(16N - 1)
 * (so a0·b1 + a1·b0 < 2^(32N)), by one level of Karatsuba on H = N/2-word
 * halves, a = a0 + a1·2^(32H): z0 = a0·b0, z2 = a1·b1, q = |a0 - a1|·|b0 - b1|,
 * and the middle a0·b1 + a1·b0 = z0 + z2 -/+ q (minus when the two differences
 * have the same sign), computed modulo 2^(32N), where it fits. Three H × H
 * products are 3N^2/4 word products where the schoolbook a·b takes N^2, at
 * the cost of about 10N additions and masks and a larger live set: in the
 * MSM's kernels the registers, not the multiply pipe, decided, and the form
 * measured slower (docs/design/013, thirtieth session). */
template <int N> MONT_FN void karatsuba_words(const uint32_t a[], const uint32_t b[], uint32_t t[])
{
    const int H = N / 2;
    uint32_t da[H], db[H], z0[N], z2[N], q[N];
    uint32_t sa = absdiff_words<H>(a, a + H, da);
    uint32_t sb = absdiff_words<H>(b, b + H, db);
    mul_half<H>(a, b, z0);
    mul_half<H>(a + H, b + H, z2);
    mul_half<H>(da, db, q);
    uint32_t s = ~(sa ^ sb); /* all ones: subtract q */
    fr_carry k = {0};
    uint32_t w[N], m[N];
    w[0] = add_cc(&k, z0[0], z2[0]);
    FR_UNROLL
    for (int j = 1; j < N - 1; j++)
        w[j] = addc_cc(&k, z0[j], z2[j]);
    w[N - 1] = addc(&k, z0[N - 1], z2[N - 1]);
    (void)add_cc(&k, s & 1, 0xffffffffu); /* carry in = 1 when subtracting */
    FR_UNROLL
    for (int j = 0; j < N - 1; j++)
        m[j] = addc_cc(&k, w[j], q[j] ^ s);
    m[N - 1] = addc(&k, w[N - 1], q[N - 1] ^ s);
    /* t = z0 + m·2^(32H) + z2·2^(32N) */
    FR_UNROLL
    for (int j = 0; j < H; j++)
        t[j] = z0[j];
    t[H] = add_cc(&k, z0[H], m[0]);
    FR_UNROLL
    for (int j = H + 1; j < N; j++)
        t[j] = addc_cc(&k, z0[j], m[j - H]);
    FR_UNROLL
    for (int j = N; j < N + H; j++)
        t[j] = addc_cc(&k, z2[j - N], m[j - H]);
    FR_UNROLL
    for (int j = N + H; j < 2 * N - 1; j++)
        t[j] = addc_cc(&k, z2[j - N], 0);
    t[2 * N - 1] = addc(&k, z2[N - 1], 0);
}

/* A reduction row with no product before it: the previous row's carry c is
 * still pending, so m must count it, m = (U0 + V0 + c)·n0, and the flag is set
 * to c just before the chain that adds it. The new carry is returned as a
 * value: after m·M, U0 + V0 is 0 or 2^32, so it is 1 exactly when U0 != 0. */
template <int N>
MONT_FN uint32_t mont_redc_row_c(fr_carry *k, uint32_t u[], uint32_t v[], const uint32_t M[], uint32_t n0,
                                 uint32_t c)
{
    uint32_t m = (u[0] + v[0] + c) * n0;
    (void)add_cc(k, c, 0xffffffffu); /* flag = c */
    mont_pairs_even<N, true>(k, u, m, M);
    mont_pairs_odd<N>(k, v, m, M);
    c = u[0] != 0;
    mont_shift<N>(u, v);
    return c;
}

/* r = REDC(t) = t·2^(-32N) mod M up to one M, for a 2N-word t: the low N
 * words T_lo by N U + V rows (m·M only), the high N words T_hi added at the
 * end, r = T_hi + (T_lo + m·M)/2^(32N) <= T_hi + M. The caller bounds T_hi
 * and subtracts M as needed. */
template <int N>
MONT_FN void mont_redc_wide(const uint32_t t[], const uint32_t M[], uint32_t n0, uint32_t r[])
{
    fr_carry k = {0};
    uint32_t u[N + 1], v[N + 1];
    FR_UNROLL
    for (int j = 0; j < N; j++) {
        u[j] = t[j];
        v[j] = 0;
    }
    u[N] = 0;
    v[N] = 0;
    uint32_t c = 0;
    FR_UNROLL
    for (int i = 0; i < N; i++) /* u and v trade roles every row, as in mont_mul_words */
        c = mont_redc_row_c<N>(&k, i & 1 ? v : u, i & 1 ? u : v, M, n0, c);
    (void)add_cc(&k, c, 0xffffffffu);
    r[0] = addc_cc(&k, u[0], v[0]); /* takes the last row's carry */
    FR_UNROLL
    for (int j = 1; j < N - 1; j++)
        r[j] = addc_cc(&k, u[j], v[j]);
    r[N - 1] = addc(&k, u[N - 1], v[N - 1]);
    r[0] = add_cc(&k, r[0], t[N]); /* + T_hi */
    FR_UNROLL
    for (int j = 1; j < N - 1; j++)
        r[j] = addc_cc(&k, r[j], t[N + j]);
    r[N - 1] = addc(&k, r[N - 1], t[2 * N - 1]);
}

/* ---- Fr products ------------------------------------------------------- */

/* -r^-1 mod 2^32 for the reduction's m. Its value is 2^32 - 1, but the
 * kernels read it from constant memory: with the value known, ptxas compiles
 * m = (U0 + V0)·n0 to a negation and then splits every m·r product of the row
 * into IMAD.X + IMAD.HI.U32.X instead of one IMAD.WIDE.U32.X. */
#ifdef __CUDACC__
static __constant__ uint32_t fr_c_n0 = 0xffffffffu;
#endif
#ifdef __CUDA_ARCH__
#define FR_N0 fr_c_n0
#else
#define FR_N0 0xffffffffu
#endif

/* a·b·2^-256 mod r (a, b < r) with the words of r from the caller (rw = r). */
FR_FN fr_t fr_mul_rw(fr_t a, fr_t b, const uint32_t rw[8])
{
    uint32_t t[8];
    mont_mul_words<8>(a.v, b.v, rw, FR_N0, t);
    return fr_reduce_once(t);
}

/* a·b·2^-256 mod r (a, b < r) by karatsuba_words on eight words (a < r <
 * 2^255, so the halves' bound holds: three 4 × 4 products, 48 word products
 * where the schoolbook a·b takes 64), then mont_redc_wide (64 + 8):
 * T_hi < r^2/2^256 < r/2, so the sum is below 1.5r + 1 and one conditional
 * subtraction ends it. */
FR_FN fr_t fr_mul_ka(fr_t a, fr_t b)
{
    const uint32_t rw[8] = {FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7};
    uint32_t t[16], u[8];
    karatsuba_words<8>(a.v, b.v, t);
    mont_redc_wide<8>(t, rw, FR_N0, u);
    return fr_reduce_once(u);
}

/* FR_MUL_KARATSUBA (build-time, default 0): fr_mul as fr_mul_ka instead of
 * the word-serial product. */
#ifndef FR_MUL_KARATSUBA
#define FR_MUL_KARATSUBA 0
#endif

/* a·b·2^-256 mod r with the words of r as immediates. fr_mul_rw takes the
 * words (rw = r, whose low word 1 the reduction relies on) as arguments, for
 * callers that want them in registers. */
FR_FN fr_t fr_mul(fr_t a, fr_t b)
{
#if FR_MUL_KARATSUBA
    return fr_mul_ka(a, b);
#else
    const uint32_t rw[8] = {FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7};
    return fr_mul_rw(a, b, rw);
#endif
}

FR_FN fr_t fr_sqr(fr_t a)
{
    return fr_mul(a, a);
}

/* ---- memory -------------------------------------------------------------- */

/* 32-byte element as two 16-byte accesses (p is 32-byte aligned in practice, 16 required). */
FR_FN fr_t fr_load(const fr_t *p)
{
    const uint4 *q = (const uint4 *)p;
    uint4 lo = q[0], hi = q[1];
    fr_t r = {{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
    return r;
}

FR_FN void fr_store(fr_t *p, fr_t a)
{
    uint4 *q = (uint4 *)p;
    q[0] = make_uint4(a.v[0], a.v[1], a.v[2], a.v[3]);
    q[1] = make_uint4(a.v[4], a.v[5], a.v[6], a.v[7]);
}

#endif
