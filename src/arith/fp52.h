/*
 * fp52.h — Montgomery products on BLS12-381's Fp (and Fr) whose partial products come from double-precision
 * fused multiply-adds (docs/design/009, tenth session: the FP64 route). Plain C, so that the same code runs
 * on the host, where it is checked against GMP (tests/test_fp52_gmp.c), and on the device, where
 * bench/gpu/fp52_rate.cu measures its rate against fp.cuh's product (and checks it against the host's).
 * Not used by the library: measured at 0.99× (Fp) and 1.11× (Fr) the IMAD products, below the 1.2× rule
 * (docs/design/009, eleventh session).
 *
 * Representation: x = sum x[i]·2^(52 i), i < 8 for Fp (416 bits, R = 2^416) and i < 5 for Fr (260 bits,
 * R = 2^260), each limb below 2^52; a product of two values below the modulus is below it.
 *
 * One 52 × 52 product, a and b exact doubles (below 2^52):
 *   h = fma(a, b, 2^104), rounded toward zero: a·b + 2^104 lies in [2^104, 2^105), whose unit in the
 *       last place is 2^52, so h's mantissa bits are floor(a·b / 2^52);
 *   s = (2^104 + 2^52) − h, exact (an integer multiple of 2^52 below 2^104 in magnitude);
 *   l = fma(a, b, s) = (a·b mod 2^52) + 2^52, exact, in [2^52, 2^53), so l's mantissa bits are the low
 *       half.
 * Both halves are read as integers from the doubles' bit patterns less a constant (the exponent is the
 * same for every product), and summed into 64-bit columns: three FP64 operations and two integer
 * additions a partial product, 128 partial products (a·b and m·p) a Montgomery product in Fp, 50 in Fr.
 */
#ifndef CUZK_ARITH_FP52_H
#define CUZK_ARITH_FP52_H

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#ifdef __CUDACC__
#define FP52_FN static __host__ __device__ __forceinline__
#else
#define FP52_FN static inline
#endif

#define FP52_LIMBS 8
#define FP52_MASK ((UINT64_C(1) << 52) - 1)

typedef struct {
    uint64_t v[FP52_LIMBS];
} fp52_t;

/* p in 52-bit limbs, least significant first (an initializer, so that host and device code each keep
 * their own copy), and -p^-1 mod 2^52. */
#define FP52_P_LIMBS                                                                                         \
    {                                                                                                        \
        0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL, 0x12bf6730d2a0fULL, 0x764774b84f385ULL,  \
            0x1ba7b6434bacdULL, 0x1ea397fe69a4bULL, 0x1a011ULL                                               \
    }
#define FP52_PINV UINT64_C(0x3fffcfffcfffd)

/* Fr (the scalar field) the same way: 5 limbs (260 bits), R = 2^260. */
#define FR52_LIMBS 5
typedef struct {
    uint64_t v[FR52_LIMBS];
} fr52_t;
#define FR52_R_LIMBS                                                                                         \
    {                                                                                                        \
        0xfffff00000001ULL, 0x2fffe5bfefffULL, 0x9a1d80553bda4ULL, 0x7d483339d8080ULL, 0x73eda753299dULL     \
    }
#define FR52_RINV UINT64_C(0xffffeffffffff)

FP52_FN uint64_t fp52_bits(double d)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(d);
#else
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
#endif
}

/* a < 2^52 as a double, exactly: 2^52 + a has a's bits as its mantissa. */
FP52_FN double fp52_double(uint64_t a)
{
    uint64_t u = a | UINT64_C(0x4330000000000000);
    double d;
#ifdef __CUDA_ARCH__
    d = __longlong_as_double((long long)u);
#else
    memcpy(&d, &u, sizeof d);
#endif
    return d - 0x1p52;
}

/* The two halves of a·b (a, b < 2^52) as the bits of two doubles: floor(a·b / 2^52) = *hi − FP52_HI_BITS,
 * a·b mod 2^52 = *lo − FP52_LO_BITS. On the host the caller has set rounding toward zero (fesetround). */
#define FP52_HI_BITS UINT64_C(0x4670000000000000) /* the bits of 2^104 */
#define FP52_LO_BITS UINT64_C(0x4330000000000000) /* the bits of 2^52 */
FP52_FN void fp52_mul_parts(uint64_t a, uint64_t b, uint64_t *hi, uint64_t *lo)
{
    double da = fp52_double(a), db = fp52_double(b);
#ifdef __CUDA_ARCH__
    double h = __fma_rz(da, db, 0x1p104);
#else
    double h = fma(da, db, 0x1p104);
#endif
    double s = (0x1p104 + 0x1p52) - h;
    double l = fma(da, db, s);
    *hi = fp52_bits(h);
    *lo = fp52_bits(l);
}

/* r = a·b·2^(-52 n) mod m for a, b < m, on n <= 8 limbs; m's limbs in M, minv = -m^-1 mod 2^52, and
 * 4m < 2^(52 n). Columns are sums modulo 2^64 (the biases come off once a column); every true column
 * value stays below 2^58. r may be a or b. On the host, rounding toward zero for the duration (the
 * device's __fma_rz gives it to the one rounded product). */
FP52_FN void mont52_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *M, uint64_t minv,
                        int n)
{
#ifndef __CUDA_ARCH__
    int mode = fegetround();
    fesetround(FE_TOWARDZERO);
#endif
    uint64_t t[2 * FP52_LIMBS];
    for (int k = 0; k < 2 * n; k++)
        t[k] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t hi, lo;
            fp52_mul_parts(a[i], b[j], &hi, &lo);
            t[i + j] += lo;
            t[i + j + 1] += hi;
        }
    /* column k got one low half from each i + j = k and one high half from each i + j = k - 1 */
    for (int k = 0; k < 2 * n; k++) {
        uint64_t lo_n = k < n ? k + 1 : 2 * n - 1 - k;
        uint64_t hi_n = k == 0 ? 0 : k <= n ? k : 2 * n - k;
        t[k] -= lo_n * FP52_LO_BITS + hi_n * FP52_HI_BITS;
    }
    /* word by word: q·m makes column i a multiple of 2^52, whose carry moves up */
    for (int i = 0; i < n; i++) {
        uint64_t q = (t[i] & FP52_MASK) * minv & FP52_MASK;
        for (int j = 0; j < n; j++) {
            uint64_t hi, lo;
            fp52_mul_parts(q, M[j], &hi, &lo);
            t[i + j] += lo - FP52_LO_BITS;
            t[i + j + 1] += hi - FP52_HI_BITS;
        }
        t[i + 1] += t[i] >> 52;
    }
#ifndef __CUDA_ARCH__
    fesetround(mode);
#endif
    /* the upper half in 52-bit limbs (below 2m), then one conditional subtraction of m */
    uint64_t x[FP52_LIMBS], d[FP52_LIMBS], c = 0, borrow = 0;
    for (int k = 0; k < n; k++) {
        uint64_t s = t[n + k] + c;
        x[k] = s & FP52_MASK;
        c = s >> 52;
    }
    for (int k = 0; k < n; k++) {
        uint64_t s = x[k] - M[k] - borrow;
        d[k] = s & FP52_MASK;
        borrow = s >> 63; /* x[k] < 2^52: a negative difference wraps to the top */
    }
    int ge = c || !borrow; /* x + c·2^(52 n) >= m */
    for (int k = 0; k < n; k++)
        r[k] = ge ? d[k] : x[k];
}

/* Fp: r = a·b·2^-416 mod p for a, b < p. */
FP52_FN void fp52_mont_mul(fp52_t *r, const fp52_t *a, const fp52_t *b)
{
    const uint64_t P[FP52_LIMBS] = FP52_P_LIMBS;
    mont52_mul(r->v, a->v, b->v, P, FP52_PINV, FP52_LIMBS);
}

/* Fr: r = a·b·2^-260 mod r for a, b < r. */
FP52_FN void fr52_mont_mul(fr52_t *r, const fr52_t *a, const fr52_t *b)
{
    const uint64_t R[FR52_LIMBS] = FR52_R_LIMBS;
    mont52_mul(r->v, a->v, b->v, R, FR52_RINV, FR52_LIMBS);
}

#endif
