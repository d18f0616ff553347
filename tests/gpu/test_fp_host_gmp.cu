/*
 * test_fp_host_gmp.cu — the device's Fp product and square (src/gpu/fp.cuh) run on the host, against GMP.
 * No device is used: fp.cuh's functions are __host__ __device__, and on the host its carry chains run on an
 * emulated carry flag, so this checks the word-level schedule (the rows, the accumulators' roles, the
 * reduction's carries) that the device executes, on fresh random inputs below 2p (the products' input
 * range), their edges (0, 1, p - 1, p, 2p - 1) and their squares. test_gpu_ec checks the same functions
 * on the device against the CPU library.
 *
 *   test_fp_host_gmp [CASES]   (default 100000; CUZK_TEST_SEED replays a run)
 */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/fp.cuh"
extern "C" {
#include "testutil.h"
}

static void to_mpz(mpz_t z, const fp_t &a)
{
    mpz_import(z, 12, -1, 4, 0, 0, a.v);
}

static fp_t from_mpz(const mpz_t z)
{
    fp_t a = {{0}};
    mpz_export(a.v, NULL, -1, 4, 0, 0, z);
    return a;
}

/* A random element below bound: 13 random words (416 bits) reduced by GMP. */
static void rand_below(mpz_t z, const mpz_t bound)
{
    uint32_t w[13];
    for (int i = 0; i < 13; i++)
        w[i] = (uint32_t)test_rand64();
    mpz_import(z, 13, -1, 4, 0, 0, w);
    mpz_mod(z, z, bound);
}

int main(int argc, char **argv)
{
    long cases = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2 || cases < 1) {
        fprintf(stderr, "usage: test_fp_host_gmp [CASES >= 1]\n");
        return 2;
    }
    test_rng_init("test_fp_host_gmp");
    const uint32_t pw[12] = FP_P_WORDS;
    fp_t pf;
    for (int i = 0; i < 12; i++)
        pf.v[i] = pw[i];
    mpz_t p, two_p, rinv, a, b, want, got;
    mpz_inits(p, two_p, rinv, a, b, want, got, NULL);
    to_mpz(p, pf);
    mpz_mul_ui(two_p, p, 2);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 384);
    mpz_invert(rinv, rinv, p); /* 2^-384 mod p: the Montgomery factor */

    /* edges of the input range, each with every other edge and with random elements */
    mpz_t edge[5];
    for (int i = 0; i < 5; i++)
        mpz_init(edge[i]);
    mpz_set_ui(edge[1], 1);
    mpz_sub_ui(edge[2], p, 1);
    mpz_set(edge[3], p);
    mpz_sub_ui(edge[4], two_p, 1);
    long wrong_mul = 0, wrong_sqr = 0;
    for (long c = 0; c < cases + 25; c++) {
        if (c < 25) {
            mpz_set(a, edge[c / 5]);
            mpz_set(b, edge[c % 5]);
        } else {
            rand_below(a, c % 3 ? p : two_p);
            rand_below(b, c % 5 ? p : two_p);
        }
        fp_t x = from_mpz(a), y = from_mpz(b);
        mpz_mul(want, a, b);
        mpz_mul(want, want, rinv);
        mpz_mod(want, want, p);
        to_mpz(got, fp_mul(x, y));
        if (mpz_cmp(got, want) != 0 && wrong_mul++ < 5)
            gmp_fprintf(stderr, "fp_mul(%#Zx, %#Zx) = %#Zx, want %#Zx\n", a, b, got, want);
        CHECK(mpz_cmp(got, want) == 0, "fp_mul, case %ld", c);
        mpz_mul(want, a, a);
        mpz_mul(want, want, rinv);
        mpz_mod(want, want, p);
        to_mpz(got, fp_sqr(x));
        if (mpz_cmp(got, want) != 0 && wrong_sqr++ < 5)
            gmp_fprintf(stderr, "fp_sqr(%#Zx) = %#Zx, want %#Zx\n", a, got, want);
        CHECK(mpz_cmp(got, want) == 0, "fp_sqr, case %ld", c);
    }
    for (int i = 0; i < 5; i++)
        mpz_clear(edge[i]);
    mpz_clears(p, two_p, rinv, a, b, want, got, NULL);
    return test_finish("test_fp_host_gmp");
}
