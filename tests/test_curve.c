/*
 * test_curve.c — G1 and G2 point arithmetic (cuzk/curve.h).
 *
 * The tests live in curve_tests.h, written once and included here for each
 * group. They check the formulas against the @noble/curves vectors
 * (tests/vectors/g1.txt, g2.txt: add, dbl, neg, mul, msm, enc, notsub,
 * offcurve), against naive double-and-add and the textbook subgroup test
 * [r]P = O, and against the group axioms on fresh random points every run:
 * associativity, commutativity, inverses, doubling, the agreement of the
 * Jacobian, mixed and XYZZ formulas including their exceptional cases,
 * scalar-multiplication identities, batch conversion to affine, curve
 * membership of corrupted points, and subgroup membership of random curve
 * points and of points of small order built from the cofactor's factors.
 * G1's endomorphism split (cuzk_g1_glv_recode) against cuzk_g1_mul_fr.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/curve.h"
#include "cuzk/serialize.h"
#include "testutil.h"

/* ---- small multi-limb integer helpers (little-endian 64-bit limbs) ------ */

/* r[0..na+nb) = a * b; r must not overlap a or b. */
static void big_mul(uint64_t *r, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    memset(r, 0, (na + nb) * sizeof *r);
    for (size_t i = 0; i < na; i++) {
        unsigned __int128 c = 0;
        for (size_t j = 0; j < nb; j++) {
            c += (unsigned __int128)a[i] * b[j] + r[i + j];
            r[i + j] = (uint64_t)c;
            c >>= 64;
        }
        r[i + nb] = (uint64_t)c;
    }
}

/* r = a + b over n limbs (carry out dropped). */
static void big_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    unsigned __int128 c = 0;
    for (size_t i = 0; i < n; i++) {
        c += (unsigned __int128)a[i] + b[i];
        r[i] = (uint64_t)c;
        c >>= 64;
    }
}

/* q = a / d, returns a mod d. */
static uint64_t big_div_small(uint64_t *q, const uint64_t *a, size_t n, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
        rem = (rem << 64) | a[i];
        q[i] = (uint64_t)(rem / d);
        rem %= d;
    }
    return (uint64_t)rem;
}

/* ---- G1 ----------------------------------------------------------------- */

static void g1_set_b(cuzk_fp *b)
{
    cuzk_fp_from_u64(b, 4);
}

/* The i-th 96-hex-digit field element of a longer hex string. */
static bool hex_fp_at(cuzk_fp *r, const char *hex, size_t i)
{
    char buf[97];
    if (strlen(hex) < 96 * (i + 1))
        return false;
    memcpy(buf, hex + 96 * i, 96);
    buf[96] = 0;
    return hex_fp(r, buf);
}

static bool g1_parse_raw(cuzk_g1_affine *r, const char *hex)
{
    return strlen(hex) == 192 && hex_fp_at(&r->x, hex, 0) && hex_fp_at(&r->y, hex, 1);
}

/* h1 = (x - 1)^2 / 3 = 3 * 11^2 * 10177^2 * 859267^2 * 52437899^2; the test checks each divides h1. */
static const uint64_t g1_primes[] = {3, 11, 10177, 859267, 52437899};

#define T_G g1
#define T_F cuzk_fp
#define T_FE(op) cuzk_fp_##op
#define T_P cuzk_g1
#define T_AFF cuzk_g1_affine
#define T_XYZZ cuzk_g1_xyzz
#define T_GEN CUZK_G1_GENERATOR
#define T_VEC "g1.txt"
#define T_ENC 96
#define T_DESER cuzk_g1_deserialize
#define T_RAND_FE test_rand_fp
#define T_SET_B g1_set_b
#define T_PARSE_RAW g1_parse_raw
#define T_COFACTOR "396c8c005555e1568c00aaab0000aaab" /* prover-internals.md §3.3 */
#define T_PRIMES g1_primes
#define T_ITER 64
#include "curve_tests.h"

/* ---- G2 ----------------------------------------------------------------- */

static void g2_set_b(cuzk_fp2 *b)
{
    cuzk_fp_from_u64(&b->c0, 4);
    cuzk_fp_from_u64(&b->c1, 4);
}

/* Uncompressed G2 order: x.c1, x.c0, y.c1, y.c0. */
static bool g2_parse_raw(cuzk_g2_affine *r, const char *hex)
{
    return strlen(hex) == 384 && hex_fp_at(&r->x.c1, hex, 0) && hex_fp_at(&r->x.c0, hex, 1) &&
           hex_fp_at(&r->y.c1, hex, 2) && hex_fp_at(&r->y.c0, hex, 3);
}

/* Small prime factors of h2 (the rest of h2 is a 448-bit cofactor); the test checks each divides h2. */
static const uint64_t g2_primes[] = {13, 23, 2713, 11953, 262069};

#define T_G g2
#define T_F cuzk_fp2
#define T_FE(op) cuzk_fp2_##op
#define T_P cuzk_g2
#define T_AFF cuzk_g2_affine
#define T_XYZZ cuzk_g2_xyzz
#define T_GEN CUZK_G2_GENERATOR
#define T_VEC "g2.txt"
#define T_ENC 192
#define T_DESER cuzk_g2_deserialize
#define T_RAND_FE test_rand_fp2
#define T_SET_B g2_set_b
#define T_PARSE_RAW g2_parse_raw
#define T_COFACTOR                                                                                           \
    "05d543a95414e7f1091d50792876a202cd91de4547085abaa68a205b2e5a7ddfa628f1cb4d9e82ef21537e293a6691ae1616ec" \
    "6e7"                                                                                                    \
    "86f0c70cf1c38e31c7238e5" /* prover-internals.md §3.3 */
#define T_PRIMES g2_primes
#define T_ITER 32
#include "curve_tests.h"

/* ---- G1's endomorphism (cuzk_g1_glv_recode) ------------------------------- */

/* [k1]P + [k2]psi(P) by a joint double-and-add over the recoded digits, checking the digits' form. */
static void glv_mul(cuzk_g1 *out, const cuzk_g1 *p, uint32_t pos[2][5], uint32_t neg[2][5], bool *form_ok)
{
    cuzk_fp beta;
    cuzk_fp_from_canonical(&beta, CUZK_G1_GLV_BETA);
    cuzk_g1 q[2][2]; /* [half][sign]: P, -P, psi(P), -psi(P) */
    q[0][0] = *p;
    cuzk_g1_neg(&q[0][1], p);
    q[1][1] = *p; /* -psi(P) = (beta x, y) */
    cuzk_fp_mul(&q[1][1].X, &p->X, &beta);
    cuzk_g1_neg(&q[1][0], &q[1][1]);
    cuzk_g1_set_identity(out);
    for (int i = 159; i >= 0; i--) {
        cuzk_g1 t;
        cuzk_g1_dbl(&t, out);
        *out = t;
        for (int h = 0; h < 2; h++) {
            uint32_t m = 1u << (i & 31), w = (uint32_t)i >> 5;
            bool pi = pos[h][w] & m, ni = neg[h][w] & m;
            bool next = i < 159 && ((pos[h][(i + 1) >> 5] | neg[h][(i + 1) >> 5]) >> ((i + 1) & 31) & 1);
            if ((pi && ni) || ((pi || ni) && (next || i > 129)))
                *form_ok = false; /* both signs, adjacent digits, or a digit beyond a 128-bit half's NAF */
            if (pi || ni) {
                cuzk_g1_add(&t, out, &q[h][ni]);
                *out = t;
            }
        }
    }
}

/* r = a - b over n limbs (a >= b). */
static void big_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned __int128 d = (unsigned __int128)a[i] - b[i] - borrow;
        r[i] = (uint64_t)d;
        borrow = (uint64_t)(d >> 64) & 1;
    }
}

/* For random points and scalars, and the edges 0, 1, 2, mu - 1, mu, mu + 1, 2 mu, r - 1, r - mu: the
 * recoded halves give [k]P (cuzk_g1_mul_fr, the oracle), in non-adjacent form. */
static void test_glv(void)
{
    static const uint64_t mu[4] = {0x0000000100000000ull, 0xac45a4010001a402ull, 0, 0};
    uint64_t edges[9][4];
    memset(edges, 0, sizeof edges);
    edges[1][0] = 1, edges[2][0] = 2;
    memcpy(edges[3], mu, sizeof mu), edges[3][0]--;
    memcpy(edges[4], mu, sizeof mu);
    memcpy(edges[5], mu, sizeof mu), edges[5][0]++;
    big_add(edges[6], mu, mu, 4);
    memcpy(edges[7], CUZK_R, sizeof edges[7]), edges[7][0]--;
    memcpy(edges[8], CUZK_R, sizeof edges[8]);
    big_sub(edges[8], edges[8], mu, 4);
    int bad = 0, bad_form = 0;
    for (int it = 0; it < 9 + 60; it++) {
        cuzk_fr k;
        uint64_t kc[4];
        if (it < 9) {
            memcpy(kc, edges[it], sizeof kc);
            cuzk_fr_from_canonical(&k, kc);
        } else {
            test_rand_fr(&k);
            cuzk_fr_to_canonical(kc, &k);
        }
        uint32_t pos[2][5], neg[2][5];
        cuzk_g1_glv_recode(pos, neg, kc);
        cuzk_g1 p, want, got;
        g1_rand_point(&p);
        cuzk_g1_mul_fr(&want, &p, &k);
        bool form_ok = true;
        glv_mul(&got, &p, pos, neg, &form_ok);
        bad += !cuzk_g1_eq(&got, &want);
        bad_form += !form_ok;
    }
    CHECK(bad == 0 && bad_form == 0, "glv: %d of 69 scalars give another point, %d digit strings malformed",
          bad, bad_form);
}

int main(void)
{
    test_rng_init("test_curve");
    g1_run_all();
    g2_run_all();
    test_glv();
    return test_finish("test_curve");
}
