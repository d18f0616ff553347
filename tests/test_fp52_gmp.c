/*
 * test_fp52_gmp.c — the FMA-based Montgomery products of src/arith/fp52.h (52-bit limbs, partial products
 * from double-precision fused multiply-adds rounded toward zero) against GMP, for Fp (8 limbs) and Fr
 * (5 limbs): r = a·b·2^(-52 n) mod m and r < m, on edge values and fresh random operands every run; the
 * limbs and -m^-1 mod 2^52 of both moduli; then the one partial product against exact 128-bit
 * arithmetic, edges included. Also checks that the caller's rounding mode is restored.
 */
#include <fenv.h>
#include <gmp.h>
#include <string.h>

#include "arith/fp52.h"
#include "testutil.h"

typedef struct {
    const char *name, *hex; /* the modulus */
    int n;                  /* limbs; R = 2^(52 n) */
    uint64_t limbs[FP52_LIMBS], minv;
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
} field;

static void mul_p(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fp52_t x, y, z;
    memcpy(x.v, a, sizeof x.v);
    memcpy(y.v, b, sizeof y.v);
    fp52_mont_mul(&z, &x, &y);
    memcpy(r, z.v, sizeof z.v);
}

static void mul_r(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    fr52_t x, y, z;
    memcpy(x.v, a, sizeof x.v);
    memcpy(y.v, b, sizeof y.v);
    fr52_mont_mul(&z, &x, &y);
    memcpy(r, z.v, sizeof z.v);
}

static void to_mpz(mpz_t z, const uint64_t *a, int n)
{
    mpz_set_ui(z, 0);
    for (int i = n - 1; i >= 0; i--) {
        mpz_mul_2exp(z, z, 52);
        mpz_add_ui(z, z, (unsigned long)a[i]);
    }
}

static void from_mpz(uint64_t *a, int n, const mpz_t z)
{
    mpz_t t;
    mpz_init_set(t, z);
    for (int i = 0; i < n; i++) {
        a[i] = (uint64_t)mpz_fdiv_ui(t, UINT64_C(1) << 52);
        mpz_fdiv_q_2exp(t, t, 52);
    }
    mpz_clear(t);
}

/* Edge values below m mixed into the random stream. */
static void pick(uint64_t *a, mpz_t z, const mpz_t m, int n, int i)
{
    switch (i % 12) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_sub_ui(z, m, 1); break;
    case 3: mpz_sub_ui(z, m, 2); break;
    case 4: mpz_set_ui(z, 1), mpz_mul_2exp(z, z, mpz_sizeinbase(m, 2) - 1); break;
    case 5: mpz_set_ui(z, 1), mpz_mul_2exp(z, z, 52), mpz_sub_ui(z, z, 1); break; /* one full limb */
    default: {
        uint64_t w[6];
        for (int k = 0; k < 6; k++)
            w[k] = test_rand64();
        mpz_import(z, 6, -1, 8, 0, 0, w);
        mpz_mod(z, z, m);
    }
    }
    from_mpz(a, n, z);
}

static void check_field(const field *f, int count)
{
    mpz_t m, z, rinv, two52, minv, za, zb, want, got;
    mpz_inits(m, z, rinv, two52, minv, za, zb, want, got, NULL);
    mpz_set_str(m, f->hex, 16);
    to_mpz(z, f->limbs, f->n);
    CHECK(mpz_cmp(z, m) == 0, "%s: the limbs are not the modulus", f->name);
    mpz_set_ui(z, 1);
    mpz_mul_2exp(z, z, 52 * f->n);
    CHECK(mpz_invert(rinv, z, m) != 0, "%s: R is not invertible", f->name);
    mpz_set_ui(two52, 1);
    mpz_mul_2exp(two52, two52, 52);
    mpz_invert(minv, m, two52);
    mpz_sub(minv, two52, minv);
    CHECK(mpz_get_ui(minv) == f->minv, "%s: minv is not -m^-1 mod 2^52", f->name);

    int bad = 0;
    fesetround(FE_UPWARD); /* the product sets its own rounding and restores the caller's */
    for (int i = 0; i < count; i++) {
        uint64_t a[FP52_LIMBS], b[FP52_LIMBS], r[FP52_LIMBS];
        pick(a, za, m, f->n, i);
        pick(b, zb, m, f->n, i / 12 + 7 * i);
        f->mul(r, a, b);
        mpz_mul(want, za, zb);
        mpz_mul(want, want, rinv);
        mpz_mod(want, want, m);
        to_mpz(got, r, f->n);
        int limbs_ok = 1;
        for (int k = 0; k < f->n; k++)
            limbs_ok &= r[k] <= FP52_MASK;
        if ((mpz_cmp(got, want) != 0 || !limbs_ok) && bad++ < 5)
            gmp_fprintf(stderr, "%s: a = %Zx\nb = %Zx\nwant %Zx\ngot  %Zx\n", f->name, za, zb, want, got);
    }
    CHECK(fegetround() == FE_UPWARD, "%s: the caller's rounding mode was not restored", f->name);
    fesetround(FE_TONEAREST);
    CHECK(bad == 0, "%s: %d of %d products differ from GMP", f->name, bad, count);
    mpz_clears(m, z, rinv, two52, minv, za, zb, want, got, NULL);
}

int main(void)
{
    test_rng_init("test_fp52_gmp");
    const field fields[] = {
        {"Fp",
         "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
         FP52_LIMBS, FP52_P_LIMBS, FP52_PINV, mul_p},
        {"Fr", "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", FR52_LIMBS, FR52_R_LIMBS,
         FR52_RINV, mul_r},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        check_field(&fields[i], 200000);

    /* the partial product alone, against 128-bit integers */
    static const uint64_t edge[] = {
        0, 1, 2, FP52_MASK, FP52_MASK - 1, UINT64_C(1) << 51, (UINT64_C(1) << 51) + 1};
    int pbad = 0;
    fesetround(FE_TOWARDZERO);
    for (int i = 0; i < 100000; i++) {
        uint64_t a = i < 49 ? edge[i % 7] : test_rand64() & FP52_MASK;
        uint64_t b = i < 49 ? edge[i / 7] : test_rand64() & FP52_MASK;
        uint64_t hi, lo;
        fp52_mul_parts(a, b, &hi, &lo);
        unsigned __int128 ab = (unsigned __int128)a * b;
        pbad += hi - FP52_HI_BITS != (uint64_t)(ab >> 52) ||
                lo - FP52_LO_BITS != (uint64_t)ab % (UINT64_C(1) << 52);
    }
    fesetround(FE_TONEAREST);
    CHECK(pbad == 0, "%d partial products differ from 128-bit integers", pbad);
    return test_finish("test_fp52_gmp");
}
