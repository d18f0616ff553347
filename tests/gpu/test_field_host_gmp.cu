/*
 * test_field_host_gmp.cu — the device's Fp and Fr products and squares (src/gpu/fp.cuh, fr.cuh; each
 * product in both forms, Karatsuba and word-serial) run on the host, against GMP. No device is used:
 * the field functions are __host__ __device__, and on the host their carry chains run on an emulated carry
 * flag, so this checks the word-level schedule (the rows, the accumulators' roles, the reduction's carries)
 * that the device executes, on fresh random inputs over each product's input range (Fp: below 2p; Fr: below
 * r), the range's edges (Fp: 0, 1, p - 1, p, 2p - 1; Fr: 0, 1, r - 1) and their squares; also the edges
 * of the Karatsuba halves (x = x0 + x1·2^(16·words): x0 = x1, x0 = x1 ± 1, x1 = 0, x0 = 0) and, in every
 * seventh random case, equal halves. test_gpu_ec and test_gpu_ntt check the same functions on the device
 * against the CPU library.
 *
 *   test_field_host_gmp [CASES]   (per field; default 100000; CUZK_TEST_SEED replays a run)
 */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/fp.cuh"
#include "gpu/fr.cuh"
extern "C" {
#include "testutil.h"
}

template <class T> static void to_mpz(mpz_t z, const T &a)
{
    mpz_import(z, sizeof a.v / 4, -1, 4, 0, 0, a.v);
}

template <class T> static T from_mpz(const mpz_t z)
{
    T a = {{0}};
    mpz_export(a.v, NULL, -1, 4, 0, 0, z);
    return a;
}

/* A random element below bound: words + 1 random words reduced by GMP. */
static void rand_below(mpz_t z, const mpz_t bound, int words)
{
    uint32_t w[13];
    for (int i = 0; i <= words; i++)
        w[i] = (uint32_t)test_rand64();
    mpz_import(z, words + 1, -1, 4, 0, 0, w);
    mpz_mod(z, z, bound);
}

struct fp_ops {
    typedef fp_t T;
    static const char *name() { return "fp"; }
    /* the build's fp_mul, the Karatsuba form, the word-serial form (also Fp2's, fp2.cuh) */
    static T mul(int form, T a, T b)
    {
        return form == 0 ? fp_mul(a, b) : form == 1 ? fp_mul_ka(a, b) : fp_mul_ws(a, b);
    }
    static T sqr(T a) { return fp_sqr(a); }
    static T modulus()
    {
        const uint32_t w[12] = FP_P_WORDS;
        T m;
        for (int i = 0; i < 12; i++)
            m.v[i] = w[i];
        return m;
    }
    static const int top = 2; /* inputs below 2p */
};

struct fr_ops {
    typedef fr_t T;
    static const char *name() { return "fr"; }
    static T mul(int form, T a, T b)
    {
        const uint32_t rw[8] = {FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7};
        return form == 0 ? fr_mul(a, b) : form == 1 ? fr_mul_ka(a, b) : fr_mul_rw(a, b, rw);
    }
    static T sqr(T a) { return fr_sqr(a); }
    static T modulus()
    {
        T m = {{FR_R0, FR_R1, FR_R2, FR_R3, FR_R4, FR_R5, FR_R6, FR_R7}};
        return m;
    }
    static const int top = 1; /* inputs below r */
};

/* cases random pairs plus every pair of edges; the product and the square of each, against GMP. */
template <class F> static void check_field(long cases)
{
    typedef typename F::T T;
    const int words = sizeof(T) / 4;
    mpz_t m, top, rinv, a, b, want, got, edge[10];
    mpz_inits(m, top, rinv, a, b, want, got, NULL);
    to_mpz(m, F::modulus());
    mpz_mul_ui(top, m, F::top);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 32 * words);
    mpz_invert(rinv, rinv, m); /* 2^-(32·words) mod m: the Montgomery factor */
    int edges = 0;
    for (int i = 0; i < 10; i++)
        mpz_init(edge[i]);
    mpz_set_ui(edge[edges++], 0);
    mpz_set_ui(edge[edges++], 1);
    mpz_sub_ui(edge[edges++], m, 1);
    if (F::top == 2) {
        mpz_set(edge[edges++], m);
        mpz_sub_ui(edge[edges++], top, 1);
    }
    /* the Karatsuba halves (x = x0 + x1·2^half): x0 = x1 (a zero difference), x0 = x1 ± 1 (a borrow through
     * every word), x1 = 0 with x0 at its largest, x0 = 0 with x1 large */
    const int half = 16 * words;
    mpz_t h;
    mpz_init(h);
    mpz_ui_pow_ui(h, 2, half - 3);
    mpz_sub_ui(h, h, 1);
    mpz_mul_2exp(edge[edges], h, half);
    mpz_add(edge[edges], edge[edges], h);
    edges++;
    mpz_add_ui(edge[edges], edge[edges - 1], 1);
    edges++;
    mpz_sub_ui(edge[edges], edge[edges - 2], 1);
    edges++;
    mpz_ui_pow_ui(edge[edges], 2, half);
    mpz_sub_ui(edge[edges], edge[edges], 1);
    edges++;
    mpz_mul_2exp(edge[edges++], h, half);
    mpz_clear(h);
    long wrong_mul = 0, wrong_sqr = 0, pairs = edges * edges;
    for (long c = 0; c < cases + pairs; c++) {
        if (c < pairs) {
            mpz_set(a, edge[c / edges]);
            mpz_set(b, edge[c % edges]);
        } else {
            rand_below(a, c % 3 ? m : top, words);
            rand_below(b, c % 5 ? m : top, words);
            if (c % 7 == 0) { /* equal Karatsuba halves: a = h·(1 + 2^half), h < 2^(half - 3) */
                mpz_tdiv_r_2exp(a, a, half - 3);
                mpz_mul_2exp(want, a, half);
                mpz_add(a, a, want);
            }
        }
        T x = from_mpz<T>(a), y = from_mpz<T>(b);
        mpz_mul(want, a, b);
        mpz_mul(want, want, rinv);
        mpz_mod(want, want, m);
        static const char *const form[3] = {"mul", "mul_ka", "mul_ws"};
        for (int f = 0; f < 3; f++) {
            to_mpz(got, F::mul(f, x, y));
            if (mpz_cmp(got, want) != 0 && wrong_mul++ < 5)
                gmp_fprintf(stderr, "%s_%s(%#Zx, %#Zx) = %#Zx, want %#Zx\n", F::name(), form[f], a, b, got,
                            want);
            CHECK(mpz_cmp(got, want) == 0, "%s_%s, case %ld", F::name(), form[f], c);
        }
        mpz_mul(want, a, a);
        mpz_mul(want, want, rinv);
        mpz_mod(want, want, m);
        to_mpz(got, F::sqr(x));
        if (mpz_cmp(got, want) != 0 && wrong_sqr++ < 5)
            gmp_fprintf(stderr, "%s_sqr(%#Zx) = %#Zx, want %#Zx\n", F::name(), a, got, want);
        CHECK(mpz_cmp(got, want) == 0, "%s_sqr, case %ld", F::name(), c);
    }
    for (int i = 0; i < 10; i++)
        mpz_clear(edge[i]);
    mpz_clears(m, top, rinv, a, b, want, got, NULL);
}

int main(int argc, char **argv)
{
    long cases = argc > 1 ? atol(argv[1]) : 100000;
    if (argc > 2 || cases < 1) {
        fprintf(stderr, "usage: test_field_host_gmp [CASES >= 1]\n");
        return 2;
    }
    test_rng_init("test_field_host_gmp");
    check_field<fp_ops>(cases);
    check_field<fr_ops>(cases);
    return test_finish("test_field_host_gmp");
}
