/*
 * test_field_gmp.c — Fp, Fr and Fp2 arithmetic cross-checked against GMP on
 * fresh random inputs (and edge values) every run.
 *
 * GMP works on plain integers, so each check converts our Montgomery values
 * to canonical limbs and compares with mpz results mod p (or r). Fp2 is
 * checked by expanding (a0 + a1 u)(b0 + b1 u) with u^2 = -1 in GMP.
 */
#include <gmp.h>
#include <string.h>

#include "cuzk/field.h"
#include "testutil.h"

static mpz_t P, R;

static void to_mpz(mpz_t z, const uint64_t *limbs, int n) { mpz_import(z, n, -1, 8, 0, 0, limbs); }

static void fp_mpz(mpz_t z, const cuzk_fp *a)
{
    uint64_t x[6];
    cuzk_fp_to_canonical(x, a);
    to_mpz(z, x, 6);
}

static void fr_mpz(mpz_t z, const cuzk_fr *a)
{
    uint64_t x[4];
    cuzk_fr_to_canonical(x, a);
    to_mpz(z, x, 4);
}

/* Edge values mixed into the random stream: 0, 1, 2, m-1, m-2, (m-1)/2, (m+1)/2. */
static void pick_fp(cuzk_fp *r, int i)
{
    uint64_t x[6];
    mpz_t z;
    mpz_init(z);
    switch (i % 16) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_sub_ui(z, P, 1); break;
    case 3: mpz_sub_ui(z, P, 2); break;
    case 4: mpz_fdiv_q_2exp(z, P, 1); break;
    case 5: mpz_fdiv_q_2exp(z, P, 1); mpz_add_ui(z, z, 1); break;
    default: test_rand_fp(r); mpz_clear(z); return;
    }
    memset(x, 0, sizeof x);
    mpz_export(x, NULL, -1, 8, 0, 0, z);
    cuzk_fp_from_canonical(r, x);
    mpz_clear(z);
}

static void pick_fr(cuzk_fr *r, int i)
{
    uint64_t x[4];
    mpz_t z;
    mpz_init(z);
    switch (i % 16) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_sub_ui(z, R, 1); break;
    case 3: mpz_sub_ui(z, R, 2); break;
    case 4: mpz_fdiv_q_2exp(z, R, 1); break;
    default: test_rand_fr(r); mpz_clear(z); return;
    }
    memset(x, 0, sizeof x);
    mpz_export(x, NULL, -1, 8, 0, 0, z);
    cuzk_fr_from_canonical(r, x);
    mpz_clear(z);
}

#define ITER 3000

static void check_fp(void)
{
    mpz_t a, b, got, want;
    mpz_inits(a, b, got, want, NULL);
    for (int i = 0; i < ITER; i++) {
        cuzk_fp x, y, z;
        pick_fp(&x, i);
        pick_fp(&y, i / 16 + 7 * i);
        fp_mpz(a, &x);
        fp_mpz(b, &y);

        cuzk_fp_add(&z, &x, &y);
        fp_mpz(got, &z);
        mpz_add(want, a, b);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp add case %d", i);

        cuzk_fp_sub(&z, &x, &y);
        fp_mpz(got, &z);
        mpz_sub(want, a, b);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp sub case %d", i);

        cuzk_fp_mul(&z, &x, &y);
        fp_mpz(got, &z);
        mpz_mul(want, a, b);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp mul case %d", i);

        cuzk_fp_sqr(&z, &x);
        fp_mpz(got, &z);
        mpz_mul(want, a, a);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp sqr case %d", i);

        cuzk_fp_neg(&z, &x);
        fp_mpz(got, &z);
        mpz_neg(want, a);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp neg case %d", i);

        uint32_t c = (uint32_t)test_rand64();
        cuzk_fp_mul_small(&z, &x, c);
        fp_mpz(got, &z);
        mpz_mul_ui(want, a, c);
        mpz_mod(want, want, P);
        CHECK(mpz_cmp(got, want) == 0, "fp mul_small case %d", i);

        if (i % 10 == 0) {
            bool ok = cuzk_fp_inv(&z, &x);
            CHECK(ok == (mpz_sgn(a) != 0), "fp inv status case %d", i);
            if (ok) {
                fp_mpz(got, &z);
                mpz_invert(want, a, P);
                CHECK(mpz_cmp(got, want) == 0, "fp inv case %d", i);
            }
            int leg = cuzk_fp_legendre(&x);
            CHECK(leg == mpz_legendre(a, P), "fp legendre case %d", i);
            ok = cuzk_fp_sqrt(&z, &x);
            CHECK(ok == (leg >= 0), "fp sqrt existence case %d", i);
            if (ok) {
                fp_mpz(got, &z);
                mpz_mul(want, got, got);
                mpz_mod(want, want, P);
                CHECK(mpz_cmp(want, a) == 0, "fp sqrt case %d", i);
            }
            uint64_t e[3] = {test_rand64(), test_rand64(), test_rand64()};
            cuzk_fp_pow(&z, &x, e, 3);
            fp_mpz(got, &z);
            mpz_t ez;
            mpz_init(ez);
            to_mpz(ez, e, 3);
            mpz_powm(want, a, ez, P);
            mpz_clear(ez);
            CHECK(mpz_cmp(got, want) == 0, "fp pow case %d", i);

            uint8_t be[48];
            cuzk_fp_to_be48(be, &x);
            mpz_import(want, 48, 1, 1, 0, 0, be);
            CHECK(mpz_cmp(want, a) == 0, "fp to_be48 case %d", i);
            CHECK(cuzk_fp_from_be48(&z, be) && cuzk_fp_eq(&z, &x), "fp be48 round trip %d", i);
            mpz_fdiv_q_2exp(want, P, 1);
            CHECK(cuzk_fp_is_lex_largest(&x) == (mpz_cmp(a, want) > 0), "fp lex-largest case %d", i);
        }
    }
    /* Encodings >= p are rejected: p itself, p + small, 2^384 - 1. */
    uint8_t be[48];
    uint64_t x[6];
    memcpy(x, CUZK_P, sizeof x);
    for (int k = 0; k < 3; k++) {
        cuzk_fp z;
        CHECK(!cuzk_fp_from_canonical(&z, x), "fp accepted non-canonical value (k=%d)", k);
        x[0] += 1 + (uint64_t)k;
    }
    memset(be, 0xff, sizeof be);
    cuzk_fp z;
    CHECK(!cuzk_fp_from_be48(&z, be), "fp accepted all-ones encoding");
    mpz_clears(a, b, got, want, NULL);
}

static void check_fr(void)
{
    mpz_t a, b, got, want;
    mpz_inits(a, b, got, want, NULL);
    for (int i = 0; i < ITER; i++) {
        cuzk_fr x, y, z;
        pick_fr(&x, i);
        pick_fr(&y, i / 16 + 5 * i);
        fr_mpz(a, &x);
        fr_mpz(b, &y);

        cuzk_fr_add(&z, &x, &y);
        fr_mpz(got, &z);
        mpz_add(want, a, b);
        mpz_mod(want, want, R);
        CHECK(mpz_cmp(got, want) == 0, "fr add case %d", i);

        cuzk_fr_sub(&z, &x, &y);
        fr_mpz(got, &z);
        mpz_sub(want, a, b);
        mpz_mod(want, want, R);
        CHECK(mpz_cmp(got, want) == 0, "fr sub case %d", i);

        cuzk_fr_mul(&z, &x, &y);
        fr_mpz(got, &z);
        mpz_mul(want, a, b);
        mpz_mod(want, want, R);
        CHECK(mpz_cmp(got, want) == 0, "fr mul case %d", i);

        cuzk_fr_sqr(&z, &x);
        fr_mpz(got, &z);
        mpz_mul(want, a, a);
        mpz_mod(want, want, R);
        CHECK(mpz_cmp(got, want) == 0, "fr sqr case %d", i);

        cuzk_fr_neg(&z, &x);
        fr_mpz(got, &z);
        mpz_neg(want, a);
        mpz_mod(want, want, R);
        CHECK(mpz_cmp(got, want) == 0, "fr neg case %d", i);

        if (i % 10 == 0) {
            bool ok = cuzk_fr_inv(&z, &x);
            CHECK(ok == (mpz_sgn(a) != 0), "fr inv status case %d", i);
            if (ok) {
                fr_mpz(got, &z);
                mpz_invert(want, a, R);
                CHECK(mpz_cmp(got, want) == 0, "fr inv case %d", i);
            }
            int leg = cuzk_fr_legendre(&x);
            CHECK(leg == mpz_legendre(a, R), "fr legendre case %d", i);
            ok = cuzk_fr_sqrt(&z, &x);
            CHECK(ok == (leg >= 0), "fr sqrt existence case %d", i);
            if (ok) {
                fr_mpz(got, &z);
                mpz_mul(want, got, got);
                mpz_mod(want, want, R);
                CHECK(mpz_cmp(want, a) == 0, "fr sqrt case %d", i);
            }
            uint8_t le[32], raw[32];
            cuzk_fr_to_le32(le, &x);
            mpz_import(want, 32, -1, 1, 0, 0, le);
            CHECK(mpz_cmp(want, a) == 0, "fr to_le32 case %d", i);
            CHECK(cuzk_fr_from_le32(&z, le) && cuzk_fr_eq(&z, &x), "fr le32 round trip %d", i);
            test_rand_bytes(raw, 32);
            cuzk_fr_from_le32_reduce(&z, raw);
            fr_mpz(got, &z);
            mpz_import(want, 32, -1, 1, 0, 0, raw);
            mpz_mod(want, want, R);
            CHECK(mpz_cmp(got, want) == 0, "fr from_le32_reduce case %d", i);
        }
    }
    mpz_clears(a, b, got, want, NULL);
}

static void check_fp2(void)
{
    mpz_t a0, a1, b0, b1, t, w0, w1, g0, g1;
    mpz_inits(a0, a1, b0, b1, t, w0, w1, g0, g1, NULL);
    for (int i = 0; i < 500; i++) {
        cuzk_fp2 x, y, z;
        test_rand_fp2(&x);
        test_rand_fp2(&y);
        if (i == 0)
            x.c1 = CUZK_FP_ZERO;
        fp_mpz(a0, &x.c0), fp_mpz(a1, &x.c1), fp_mpz(b0, &y.c0), fp_mpz(b1, &y.c1);

        cuzk_fp2_mul(&z, &x, &y);
        fp_mpz(g0, &z.c0), fp_mpz(g1, &z.c1);
        mpz_mul(w0, a0, b0), mpz_submul(w0, a1, b1), mpz_mod(w0, w0, P);
        mpz_mul(w1, a0, b1), mpz_addmul(w1, a1, b0), mpz_mod(w1, w1, P);
        CHECK(mpz_cmp(g0, w0) == 0 && mpz_cmp(g1, w1) == 0, "fp2 mul case %d", i);

        cuzk_fp2_sqr(&z, &x);
        fp_mpz(g0, &z.c0), fp_mpz(g1, &z.c1);
        mpz_mul(w0, a0, a0), mpz_submul(w0, a1, a1), mpz_mod(w0, w0, P);
        mpz_mul(w1, a0, a1), mpz_mul_ui(w1, w1, 2), mpz_mod(w1, w1, P);
        CHECK(mpz_cmp(g0, w0) == 0 && mpz_cmp(g1, w1) == 0, "fp2 sqr case %d", i);

        cuzk_fp2_mul_xi(&z, &x);
        fp_mpz(g0, &z.c0), fp_mpz(g1, &z.c1);
        mpz_sub(w0, a0, a1), mpz_mod(w0, w0, P);
        mpz_add(w1, a0, a1), mpz_mod(w1, w1, P);
        CHECK(mpz_cmp(g0, w0) == 0 && mpz_cmp(g1, w1) == 0, "fp2 mul_xi case %d", i);

        cuzk_fp2 inv, prod;
        CHECK(cuzk_fp2_inv(&inv, &x), "fp2 inv failed case %d", i);
        cuzk_fp2_mul(&prod, &inv, &x);
        CHECK(cuzk_fp2_is_one(&prod), "fp2 inv case %d", i);

        if (i % 5 == 0) {
            /* A square always has a root; its root squares back. */
            cuzk_fp2 sq, rt, chk;
            cuzk_fp2_sqr(&sq, &x);
            bool ok = cuzk_fp2_sqrt(&rt, &sq);
            cuzk_fp2_sqr(&chk, &rt);
            CHECK(ok && cuzk_fp2_eq(&chk, &sq), "fp2 sqrt of a square case %d", i);
            /* Norm is a residue in Fp iff x is a square in Fp2. */
            mpz_mul(t, a0, a0), mpz_addmul(t, a1, a1), mpz_mod(t, t, P);
            bool is_sq = mpz_legendre(t, P) >= 0;
            ok = cuzk_fp2_sqrt(&rt, &x);
            CHECK(ok == is_sq, "fp2 sqrt existence case %d", i);
            if (ok) {
                cuzk_fp2_sqr(&chk, &rt);
                CHECK(cuzk_fp2_eq(&chk, &x), "fp2 sqrt case %d", i);
            }
        }
    }
    cuzk_fp2 zero = CUZK_FP2_ZERO, r;
    CHECK(!cuzk_fp2_inv(&r, &zero), "fp2 inv of zero must fail");
    mpz_clears(a0, a1, b0, b1, t, w0, w1, g0, g1, NULL);
}

static void check_batch_inv(void)
{
    enum { N = 67 };
    cuzk_fp in[N], out[N], scratch[N];
    cuzk_fr rin[N], rout[N], rscr[N];
    cuzk_fp2 qin[N], qout[N], qscr[N];
    for (int i = 0; i < N; i++) {
        test_rand_fp(&in[i]);
        test_rand_fr(&rin[i]);
        test_rand_fp2(&qin[i]);
    }
    in[3] = CUZK_FP_ZERO, in[N - 1] = CUZK_FP_ZERO, rin[0] = CUZK_FR_ZERO, qin[10] = CUZK_FP2_ZERO;
    cuzk_fp_batch_inv(out, in, N, scratch);
    cuzk_fr_batch_inv(rout, rin, N, rscr);
    cuzk_fp2_batch_inv(qout, qin, N, qscr);
    for (int i = 0; i < N; i++) {
        cuzk_fp a;
        cuzk_fr b;
        cuzk_fp2 c;
        cuzk_fp_inv(&a, &in[i]);
        cuzk_fr_inv(&b, &rin[i]);
        cuzk_fp2_inv(&c, &qin[i]);
        CHECK(cuzk_fp_eq(&a, &out[i]), "fp batch inv element %d", i);
        CHECK(cuzk_fr_eq(&b, &rout[i]), "fr batch inv element %d", i);
        CHECK(cuzk_fp2_eq(&c, &qout[i]), "fp2 batch inv element %d", i);
    }
    /* In-place use (out == in). */
    cuzk_fp_batch_inv(in, in, N, scratch);
    CHECK(memcmp(in, out, sizeof in) == 0, "fp batch inv in place");
}

int main(void)
{
    test_rng_init("test_field_gmp");
    mpz_init_set_str(P, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
    mpz_init_set_str(R, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", 16);
    uint64_t pl[6];
    memset(pl, 0, sizeof pl);
    mpz_export(pl, NULL, -1, 8, 0, 0, P);
    CHECK(memcmp(pl, CUZK_P, sizeof pl) == 0, "CUZK_P differs from the reference modulus");
    check_fp();
    check_fr();
    check_fp2();
    check_batch_inv();
    mpz_clears(P, R, NULL);
    return test_finish("test_field_gmp");
}
