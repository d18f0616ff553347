/*
 * test_fp52_gmp.c — the FMA-based Montgomery product of src/arith/fp52.h (52-bit limbs, partial products
 * from double-precision fused multiply-adds rounded toward zero) against GMP: r = a·b·2^-416 mod p and
 * r < p, on edge values and fresh random operands every run; then the one partial product against exact
 * 128-bit arithmetic, edges included. Also checks that the host's rounding mode is restored.
 */
#include <fenv.h>
#include <gmp.h>
#include <string.h>

#include "arith/fp52.h"
#include "testutil.h"

static mpz_t P, RINV;

static void to_mpz(mpz_t z, const fp52_t *a)
{
    mpz_set_ui(z, 0);
    for (int i = FP52_LIMBS - 1; i >= 0; i--) {
        mpz_mul_2exp(z, z, 52);
        mpz_add_ui(z, z, (unsigned long)a->v[i]);
    }
}

static void from_mpz(fp52_t *a, const mpz_t z)
{
    mpz_t t;
    mpz_init_set(t, z);
    for (int i = 0; i < FP52_LIMBS; i++) {
        a->v[i] = (uint64_t)mpz_fdiv_ui(t, UINT64_C(1) << 52);
        mpz_fdiv_q_2exp(t, t, 52);
    }
    mpz_clear(t);
}

/* Edge values below p mixed into the random stream. */
static void pick(fp52_t *a, mpz_t z, int i)
{
    switch (i % 12) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_sub_ui(z, P, 1); break;
    case 3: mpz_sub_ui(z, P, 2); break;
    case 4: mpz_set_ui(z, 1), mpz_mul_2exp(z, z, 380); break;
    case 5: mpz_set_ui(z, 1), mpz_mul_2exp(z, z, 52), mpz_sub_ui(z, z, 1); break; /* one full limb */
    default: {
        uint64_t w[6];
        for (int k = 0; k < 6; k++)
            w[k] = test_rand64();
        mpz_import(z, 6, -1, 8, 0, 0, w);
        mpz_mod(z, z, P);
    }
    }
    from_mpz(a, z);
}

int main(void)
{
    test_rng_init("test_fp52_gmp");
    mpz_init_set_str(
        P, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
        16);
    mpz_init(RINV);
    fp52_t pp = {FP52_P_LIMBS};
    mpz_t zp;
    mpz_init(zp);
    to_mpz(zp, &pp);
    CHECK(mpz_cmp(zp, P) == 0, "FP52_P is not p");
    mpz_clear(zp);
    mpz_t R, t;
    mpz_inits(R, t, NULL);
    mpz_set_ui(R, 1);
    mpz_mul_2exp(R, R, 416);
    CHECK(mpz_invert(RINV, R, P) != 0, "2^416 is not invertible mod p");
    /* -p^-1 mod 2^52 */
    mpz_set_ui(t, 1);
    mpz_mul_2exp(t, t, 52);
    mpz_t inv;
    mpz_init(inv);
    mpz_invert(inv, P, t);
    mpz_sub(inv, t, inv);
    CHECK(mpz_get_ui(inv) == FP52_PINV, "FP52_PINV is not -p^-1 mod 2^52");

    mpz_t za, zb, want, got;
    mpz_inits(za, zb, want, got, NULL);
    int bad = 0, n = 200000;
    fesetround(FE_UPWARD); /* the product sets its own rounding and restores the caller's */
    for (int i = 0; i < n; i++) {
        fp52_t a, b, r;
        pick(&a, za, i);
        pick(&b, zb, i / 12 + 7 * i);
        fp52_mont_mul(&r, &a, &b);
        mpz_mul(want, za, zb);
        mpz_mul(want, want, RINV);
        mpz_mod(want, want, P);
        to_mpz(got, &r);
        int limbs_ok = 1;
        for (int k = 0; k < FP52_LIMBS; k++)
            limbs_ok &= r.v[k] <= FP52_MASK;
        if (mpz_cmp(got, want) != 0 || !limbs_ok) {
            if (bad++ < 5)
                gmp_fprintf(stderr, "a = %Zx\nb = %Zx\nwant %Zx\ngot  %Zx\n", za, zb, want, got);
        }
    }
    CHECK(fegetround() == FE_UPWARD, "the caller's rounding mode was not restored");
    fesetround(FE_TONEAREST);
    CHECK(bad == 0, "%d of %d products differ from GMP", bad, n);

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
    mpz_clears(za, zb, want, got, R, t, inv, P, RINV, NULL);
    return test_finish("test_fp52_gmp");
}
