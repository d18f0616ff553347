/*
 * fr.c — the scalar field Fr of BLS12-381, r = 0x73eda753…00000001 (255 bits).
 *
 * Montgomery form with R = 2^256 over four limbs (mont.h with n = 4), the
 * layout of blst_fr and of the GPU's fr_t. r - 1 = 2^32 * t with t odd, and 7
 * generates Fr*, so 7^t is a primitive 2^32-th root of unity: it drives
 * Tonelli–Shanks here and every NTT domain (ntt.c).
 *
 * Multiplication takes the MULX/ADX path of fp_asm.h when it is active, and
 * addition and subtraction its ADD/ADC code when it is compiled in;
 * inversion is the variable-time divstep GCD of mont.h followed by one
 * multiplication by R^3, as in fp.c, with Fermat's a^(r-2) kept as
 * cuzk_fr_inv_fermat() for the tests.
 */
#include "cuzk/field.h"

#include <string.h>

#include "mont.h"
#include "fp_asm.h"

#define N 4

const uint64_t CUZK_R[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                            0x73eda753299d7d48};
static const uint64_t R_INV = 0xfffffffeffffffff;
static const uint64_t R2[4] = {0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f,
                               0x0748d9d99f59ff11};
static const uint64_t R3[4] = {0xc62c1807439b73af, 0x1b3e0d188cf06990, 0x73d13c71c7b5f418,
                               0x6e2a5bb9c8db33e9};
const cuzk_fr CUZK_FR_ZERO = {{0}};
const cuzk_fr CUZK_FR_ONE = {{0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5,
                              0x1824b159acc5056f}};
#define TWO_ADICITY 32

void cuzk_fr_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    arith_fr_add(r->l, a->l, b->l);
}
void cuzk_fr_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b)
{
    arith_fr_sub(r->l, a->l, b->l);
}
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a)
{
    arith_fr_neg(r->l, a->l);
}
void cuzk_fr_dbl(cuzk_fr *r, const cuzk_fr *a)
{
    arith_fr_dbl(r->l, a->l);
}

/* Explicit paths for the tests (fp_asm.h). */
void cuzk_fr_add_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    mont_add(r, a, b, CUZK_R, N);
}
void cuzk_fr_sub_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    mont_sub(r, a, b, CUZK_R, N);
}
void cuzk_fr_neg_portable(uint64_t r[4], const uint64_t a[4])
{
    mont_neg(r, a, CUZK_R, N);
}
void cuzk_fr_dbl_portable(uint64_t r[4], const uint64_t a[4])
{
    mont_add(r, a, a, CUZK_R, N);
}

void cuzk_fr_add_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    arith_fr_add(r, a, b);
}
void cuzk_fr_sub_asm(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    arith_fr_sub(r, a, b);
}
void cuzk_fr_neg_asm(uint64_t r[4], const uint64_t a[4])
{
    arith_fr_neg(r, a);
}
void cuzk_fr_dbl_asm(uint64_t r[4], const uint64_t a[4])
{
    arith_fr_dbl(r, a);
}
/* The portable product, out of line so that the assembly path's frame stays small. */
void cuzk_fr_mul_portable(uint64_t r[4], const uint64_t a[4], const uint64_t b[4])
{
    mont_mul(r, a, b, CUZK_R, R_INV, N);
}

static inline __attribute__((always_inline)) void fr_mul_raw(uint64_t *r, const uint64_t *a,
                                                             const uint64_t *b)
{
#if CUZK_FP_HAVE_ASM
    if (arith_use_adx()) {
        fr_mul_asm(r, a, b);
        return;
    }
#endif
    cuzk_fr_mul_portable(r, a, b);
}

void cuzk_fr_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b) { fr_mul_raw(r->l, a->l, b->l); }
void cuzk_fr_sqr(cuzk_fr *r, const cuzk_fr *a) { fr_mul_raw(r->l, a->l, a->l); }

MONT_DEFINE_POW(cuzk_fr_pow, cuzk_fr, cuzk_fr_mul, CUZK_FR_ONE)

bool cuzk_fr_is_zero(const cuzk_fr *a) { return mont_is_zero(a->l, N); }
bool cuzk_fr_is_one(const cuzk_fr *a) { return memcmp(a, &CUZK_FR_ONE, sizeof *a) == 0; }
bool cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b) { return memcmp(a, b, sizeof *a) == 0; }

bool cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a)
{
    if (cuzk_fr_is_zero(a)) {
        *r = CUZK_FR_ZERO;
        return false;
    }
    /* t = (aR)^-1: 5 limbs of 62 bits hold ±2r; under 600 divsteps (10 rounds) always suffice */
    uint64_t t[N];
    if (!mont_inv(t, a->l, CUZK_R, N, 5, 14, arith_divsteps62()))
        return cuzk_fr_inv_fermat(r, a);
    fr_mul_raw(r->l, t, R3);
    return true;
}

bool cuzk_fr_inv_fermat(cuzk_fr *r, const cuzk_fr *a)
{
    if (cuzk_fr_is_zero(a)) {
        *r = CUZK_FR_ZERO;
        return false;
    }
    uint64_t e[N];
    limbs_sub_small(e, CUZK_R, 2, N);
    cuzk_fr_pow(r, a, e, N);
    return true;
}

MONT_DEFINE_BATCH_INV(cuzk_fr_batch_inv, cuzk_fr, cuzk_fr_mul, cuzk_fr_inv, cuzk_fr_is_zero, CUZK_FR_ONE)

int cuzk_fr_legendre(const cuzk_fr *a)
{
    if (cuzk_fr_is_zero(a))
        return 0;
    uint64_t e[N];
    cuzk_fr t;
    limbs_shr(e, CUZK_R, 1, N);
    cuzk_fr_pow(&t, a, e, N);
    return cuzk_fr_is_one(&t) ? 1 : -1;
}

/* Tonelli–Shanks with z = 7^t, a primitive 2^32-th root of unity. */
bool cuzk_fr_sqrt(cuzk_fr *r, const cuzk_fr *a)
{
    if (cuzk_fr_is_zero(a)) {
        *r = CUZK_FR_ZERO;
        return true;
    }
    if (cuzk_fr_legendre(a) != 1)
        return false;
    uint64_t t[N], e[N];
    limbs_shr(t, CUZK_R, TWO_ADICITY, N); /* t = (r-1)/2^32; the low 32 bits of r-1 are 0 */
    limbs_add_small(e, t, 1, N);
    limbs_shr(e, e, 1, N); /* (t+1)/2 */
    cuzk_fr z, x, b, seven;
    cuzk_fr_from_u64(&seven, 7);
    cuzk_fr_pow(&z, &seven, t, N);
    cuzk_fr_pow(&x, a, e, N); /* candidate root */
    cuzk_fr_pow(&b, a, t, N); /* a^t, of order dividing 2^(m-1) */
    int m = TWO_ADICITY;
    while (!cuzk_fr_is_one(&b)) {
        int i = 0;
        cuzk_fr b2 = b;
        while (!cuzk_fr_is_one(&b2)) {
            cuzk_fr_sqr(&b2, &b2);
            i++;
        }
        cuzk_fr g = z;
        for (int j = 0; j < m - i - 1; j++)
            cuzk_fr_sqr(&g, &g);
        cuzk_fr_mul(&x, &x, &g);
        cuzk_fr_sqr(&z, &g);
        cuzk_fr_mul(&b, &b, &z);
        m = i;
    }
    *r = x;
    return true;
}

void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v)
{
    uint64_t x[N] = {v};
    mont_mul(r->l, x, R2, CUZK_R, R_INV, N);
}

bool cuzk_fr_from_canonical(cuzk_fr *r, const uint64_t x[4])
{
    if (!mont_lt(x, CUZK_R, N))
        return false;
    mont_mul(r->l, x, R2, CUZK_R, R_INV, N);
    return true;
}

void cuzk_fr_to_canonical(uint64_t x[4], const cuzk_fr *a)
{
    static const uint64_t one[N] = {1};
    mont_mul(x, a->l, one, CUZK_R, R_INV, N);
}

static void le32_to_limbs(uint64_t x[4], const uint8_t in[32])
{
    for (int i = 0; i < N; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--)
            v = (v << 8) | in[i * 8 + j];
        x[i] = v;
    }
}

bool cuzk_fr_from_le32(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t x[N];
    le32_to_limbs(x, in);
    return cuzk_fr_from_canonical(r, x);
}

void cuzk_fr_to_le32(uint8_t out[32], const cuzk_fr *a)
{
    uint64_t x[N];
    cuzk_fr_to_canonical(x, a);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 8; j++)
            out[i * 8 + j] = (uint8_t)(x[i] >> (8 * j));
}

bool cuzk_fr_from_be32(cuzk_fr *r, const uint8_t in[32])
{
    uint8_t le[32];
    for (int i = 0; i < 32; i++)
        le[i] = in[31 - i];
    return cuzk_fr_from_le32(r, le);
}

void cuzk_fr_to_be32(uint8_t out[32], const cuzk_fr *a)
{
    uint8_t le[32];
    cuzk_fr_to_le32(le, a);
    for (int i = 0; i < 32; i++)
        out[i] = le[31 - i];
}

/* x < 2^256 < 3r: subtract r at most twice. Multiplying the raw limbs by R2
 * would also work (mont_mul accepts any a < 2^256 when b < r) but two
 * subtractions keep the intent obvious. */
void cuzk_fr_from_le32_reduce(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t x[N];
    le32_to_limbs(x, in);
    while (!mont_lt(x, CUZK_R, N)) {
        uint64_t br = 0;
        for (int i = 0; i < N; i++)
            x[i] = mont_sbb(x[i], CUZK_R[i], &br);
    }
    mont_mul(r->l, x, R2, CUZK_R, R_INV, N);
}
