/*
 * test_pairing.c — the optimal ate pairing against @noble/curves
 * (tests/vectors/pairing.txt) and against the defining properties, on fresh
 * random points and scalars every run:
 *
 * - pair / pair_gen: cuzk_pairing equals noble's output bit for bit;
 * - pair_exact: the Miller loop raised to (p^12 - 1)/r by plain
 *   square-and-multiply (a 4314-bit exponent built here, independent of the
 *   final-exponentiation chain) equals noble's exact pairing, and
 *   cuzk_final_exp(f) = f^((p^12 - 1)/r)^3 for random f;
 * - bilinearity e([a]P, [b]Q) = e(P, Q)^(ab) = e([ab]P, Q), non-degeneracy
 *   and order r of e(G1, G2), e(O, Q) = e(P, O) = 1;
 * - multi-Miller loop = product of single loops (also across the internal
 *   chunk size and with identity pairs), prepared loop = plain loop;
 * - pairing_check on e(aP, Q) e(-P, aQ) (true) and perturbed (false).
 * Points in the vector file are decoded here from their uncompressed bytes
 * with cuzk_fp_from_be48, independently of the library's decoders.
 */
#include <string.h>

#include "cuzk/curve.h"
#include "cuzk/pairing.h"
#include "testutil.h"

/* ---- helpers ------------------------------------------------------------- */

static bool parse_fp12(cuzk_fp12 *r, char **tok)
{
    cuzk_fp *f = (cuzk_fp *)r;
    for (int i = 0; i < 12; i++)
        if (!hex_fp(&f[i], tok[i]))
            return false;
    return true;
}

/* Uncompressed zcash G1 (96 bytes); 0x40 flag = identity. */
static bool decode_g1(cuzk_g1_affine *r, const char *hex)
{
    uint8_t b[96];
    if (!hex_decode(b, 96, hex) || (b[0] & 0x80))
        return false;
    if (b[0] & 0x40) {
        memset(r, 0, sizeof *r);
        return true;
    }
    return cuzk_fp_from_be48(&r->x, b) && cuzk_fp_from_be48(&r->y, b + 48);
}

/* Uncompressed zcash G2 (192 bytes): x.c1 x.c0 y.c1 y.c0. */
static bool decode_g2(cuzk_g2_affine *r, const char *hex)
{
    uint8_t b[192];
    if (!hex_decode(b, 192, hex) || (b[0] & 0x80))
        return false;
    if (b[0] & 0x40) {
        memset(r, 0, sizeof *r);
        return true;
    }
    return cuzk_fp_from_be48(&r->x.c1, b) && cuzk_fp_from_be48(&r->x.c0, b + 48) &&
           cuzk_fp_from_be48(&r->y.c1, b + 96) && cuzk_fp_from_be48(&r->y.c0, b + 144);
}

static void g1_mul(cuzk_g1_affine *r, const cuzk_g1_affine *a, const cuzk_fr *k)
{
    cuzk_g1 t;
    cuzk_g1_from_affine(&t, a);
    cuzk_g1_mul_fr(&t, &t, k);
    cuzk_g1_to_affine(r, &t);
}

static void g2_mul(cuzk_g2_affine *r, const cuzk_g2_affine *a, const cuzk_fr *k)
{
    cuzk_g2 t;
    cuzk_g2_from_affine(&t, a);
    cuzk_g2_mul_fr(&t, &t, k);
    cuzk_g2_to_affine(r, &t);
}

static void rand_g1(cuzk_g1_affine *r)
{
    cuzk_fr k;
    test_rand_fr(&k);
    g1_mul(r, &CUZK_G1_GENERATOR, &k);
}

static void rand_g2(cuzk_g2_affine *r)
{
    cuzk_fr k;
    test_rand_fr(&k);
    g2_mul(r, &CUZK_G2_GENERATOR, &k);
}

static void rand_fp12(cuzk_fp12 *r)
{
    cuzk_fp2 *c = (cuzk_fp2 *)r;
    for (int i = 0; i < 6; i++)
        test_rand_fp2(&c[i]);
}

/* ---- the exact final exponent (p^12 - 1)/r as a plain integer ------------ */

#define BIG 73 /* p^12 < 2^4572 */

static uint64_t final_exponent[BIG];
static size_t final_exponent_len;

static void big_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, int nb)
{
    uint64_t t[BIG] = {0};
    for (int j = 0; j < nb; j++) {
        unsigned __int128 c = 0;
        for (int i = 0; i + j < BIG; i++) {
            c += (unsigned __int128)a[i] * b[j] + t[i + j];
            t[i + j] = (uint64_t)c;
            c >>= 64;
        }
    }
    memcpy(r, t, sizeof t);
}

/* q = n / d by shift and subtract (n, q: BIG limbs; d: 4 limbs). */
static void big_div(uint64_t *q, const uint64_t *n, const uint64_t *d)
{
    uint64_t rem[5] = {0};
    memset(q, 0, BIG * sizeof *q);
    for (int bit = BIG * 64 - 1; bit >= 0; bit--) {
        for (int i = 4; i > 0; i--)
            rem[i] = (rem[i] << 1) | (rem[i - 1] >> 63);
        rem[0] = (rem[0] << 1) | ((n[bit / 64] >> (bit % 64)) & 1);
        uint64_t diff[5], br = 0;
        for (int i = 0; i < 5; i++) {
            uint64_t di = i < 4 ? d[i] : 0;
            unsigned __int128 t = (unsigned __int128)rem[i] - di - br;
            diff[i] = (uint64_t)t;
            br = (uint64_t)(t >> 64) & 1;
        }
        if (!br) {
            memcpy(rem, diff, sizeof rem);
            q[bit / 64] |= (uint64_t)1 << (bit % 64);
        }
    }
    CHECK(rem[0] == 0 && rem[1] == 0 && rem[2] == 0 && rem[3] == 0 && rem[4] == 0,
          "r does not divide p^12 - 1");
}

static void init_final_exponent(void)
{
    uint64_t n[BIG] = {1};
    for (int i = 0; i < 12; i++)
        big_mul(n, n, CUZK_P, 6);
    for (int i = 0; i < BIG; i++) /* n -= 1 (n > 0, low limb may borrow) */
        if (n[i]--)
            break;
    big_div(final_exponent, n, CUZK_R);
    final_exponent_len = BIG;
    while (final_exponent_len && !final_exponent[final_exponent_len - 1])
        final_exponent_len--;
}

static void naive_final_exp(cuzk_fp12 *r, const cuzk_fp12 *f)
{
    cuzk_fp12_pow(r, f, final_exponent, final_exponent_len);
}

static void cube(cuzk_fp12 *r, const cuzk_fp12 *a)
{
    cuzk_fp12 t;
    cuzk_fp12_sqr(&t, a);
    cuzk_fp12_mul(r, &t, a);
}

/* ---- vectors ------------------------------------------------------------- */

static void test_vectors(void)
{
    vec_file v;
    if (!vec_open(&v, "pairing.txt"))
        return;
    int npair = 0, nexact = 0, ngen = 0;
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        cuzk_g1_affine P = CUZK_G1_GENERATOR;
        cuzk_g2_affine Q = CUZK_G2_GENERATOR;
        cuzk_fp12 want, got, f;
        bool ok;
        if (!strcmp(op, "pair_gen"))
            ok = v.ntok == 13 && parse_fp12(&want, v.tok + 1);
        else if (!strcmp(op, "pair") || !strcmp(op, "pair_exact"))
            ok = v.ntok == 15 && decode_g1(&P, v.tok[1]) && decode_g2(&Q, v.tok[2]) &&
                 parse_fp12(&want, v.tok + 3);
        else
            ok = false;
        if (!ok) {
            CHECK(false, "pairing.txt:%d: malformed line or unknown op %s", v.lineno, op);
            continue;
        }
        CHECK(cuzk_g1_affine_on_curve(&P) && cuzk_g2_affine_on_curve(&Q),
              "pairing.txt:%d: points not on the curves", v.lineno);
        if (!strcmp(op, "pair_exact")) {
            nexact++;
            cuzk_miller_loop(&f, &P, &Q);
            naive_final_exp(&got, &f);
            CHECK(cuzk_fp12_eq(&got, &want), "pairing.txt:%d: ML^((p^12-1)/r) != noble exact", v.lineno);
            cube(&want, &want);
            cuzk_pairing(&got, &P, &Q);
            CHECK(cuzk_fp12_eq(&got, &want), "pairing.txt:%d: pairing != exact^3", v.lineno);
        } else {
            op[4] == '_' ? ngen++ : npair++;
            cuzk_pairing(&got, &P, &Q);
            CHECK(cuzk_fp12_eq(&got, &want), "pairing.txt:%d: %s", v.lineno, op);
        }
    }
    vec_close(&v);
    CHECK(npair >= 12 && nexact >= 4 && ngen == 1, "pairing.txt: %d pair, %d pair_exact, %d pair_gen", npair,
          nexact, ngen);
}

/* ---- properties ---------------------------------------------------------- */

static void test_final_exp(void)
{
    for (int round = 0; round < 2; round++) {
        cuzk_fp12 f, got, want;
        rand_fp12(&f);
        naive_final_exp(&want, &f);
        cube(&want, &want);
        got = f;
        cuzk_final_exp(&got, &got);
        CHECK(cuzk_fp12_eq(&got, &want), "final_exp(f) != f^(3 (p^12-1)/r) for random f");
    }
}

static void test_bilinearity(void)
{
    for (int round = 0; round < 3; round++) {
        cuzk_g1_affine P, aP, abP;
        cuzk_g2_affine Q, bQ;
        cuzk_fr a, b, ab;
        uint64_t ab_int[4];
        cuzk_fp12 e, lhs, rhs1, rhs2;
        if (round == 0) {
            P = CUZK_G1_GENERATOR;
            Q = CUZK_G2_GENERATOR;
        } else {
            rand_g1(&P);
            rand_g2(&Q);
        }
        test_rand_fr(&a);
        test_rand_fr(&b);
        cuzk_fr_mul(&ab, &a, &b);
        cuzk_fr_to_canonical(ab_int, &ab);
        g1_mul(&aP, &P, &a);
        g2_mul(&bQ, &Q, &b);
        g1_mul(&abP, &P, &ab);

        cuzk_pairing(&e, &P, &Q);
        cuzk_pairing(&lhs, &aP, &bQ);
        cuzk_fp12_pow(&rhs1, &e, ab_int, 4);
        cuzk_pairing(&rhs2, &abP, &Q);
        CHECK(cuzk_fp12_eq(&lhs, &rhs1), "e([a]P, [b]Q) != e(P, Q)^(ab)");
        CHECK(cuzk_fp12_eq(&lhs, &rhs2), "e([a]P, [b]Q) != e([ab]P, Q)");
        CHECK(!cuzk_fp12_is_one(&e), "e(P, Q) = 1 for non-identity P, Q");
    }

    cuzk_fp12 g, t;
    cuzk_pairing(&g, &CUZK_G1_GENERATOR, &CUZK_G2_GENERATOR);
    CHECK(!cuzk_fp12_is_one(&g), "e(G1, G2) = 1");
    cuzk_fp12_pow(&t, &g, CUZK_R, 4);
    CHECK(cuzk_fp12_is_one(&t), "e(G1, G2)^r != 1");

    /* e(-P, Q) = e(P, -Q) = conj(e(P, Q)) */
    cuzk_g1_affine nP;
    cuzk_g2_affine nQ;
    cuzk_fp12 x, y;
    cuzk_g1_affine_neg(&nP, &CUZK_G1_GENERATOR);
    cuzk_g2_affine_neg(&nQ, &CUZK_G2_GENERATOR);
    cuzk_pairing(&x, &nP, &CUZK_G2_GENERATOR);
    cuzk_pairing(&y, &CUZK_G1_GENERATOR, &nQ);
    cuzk_fp12_conj(&t, &g);
    CHECK(cuzk_fp12_eq(&x, &t) && cuzk_fp12_eq(&y, &t), "e(-P, Q), e(P, -Q) != conj e(P, Q)");
}

static void test_identity(void)
{
    cuzk_g1_affine O1, P;
    cuzk_g2_affine O2, Q;
    cuzk_fp12 e;
    memset(&O1, 0, sizeof O1);
    memset(&O2, 0, sizeof O2);
    rand_g1(&P);
    rand_g2(&Q);
    cuzk_pairing(&e, &O1, &Q);
    CHECK(cuzk_fp12_is_one(&e), "e(O, Q) != 1");
    cuzk_pairing(&e, &P, &O2);
    CHECK(cuzk_fp12_is_one(&e), "e(P, O) != 1");
    cuzk_pairing(&e, &O1, &O2);
    CHECK(cuzk_fp12_is_one(&e), "e(O, O) != 1");
    cuzk_miller_loop_n(&e, &P, &Q, 0);
    CHECK(cuzk_fp12_is_one(&e), "empty multi-Miller loop != 1");
    CHECK(cuzk_pairing_check(&P, &Q, 0), "empty pairing check must hold");
}

static void test_multi(void)
{
    enum { N = 19 };
    cuzk_g1_affine P[N];
    cuzk_g2_affine Q[N];
    for (int i = 0; i < N; i++) {
        rand_g1(&P[i]);
        rand_g2(&Q[i]);
    }
    memset(&P[3], 0, sizeof P[3]); /* identity pairs contribute 1 */
    memset(&Q[10], 0, sizeof Q[10]);
    const size_t ns[] = {1, 2, 3, 8, 9, N};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        size_t n = ns[t];
        cuzk_fp12 multi, prod = CUZK_FP12_ONE, f;
        for (size_t i = 0; i < n; i++) {
            cuzk_miller_loop(&f, &P[i], &Q[i]);
            cuzk_fp12_mul(&prod, &prod, &f);
        }
        cuzk_miller_loop_n(&multi, P, Q, n);
        CHECK(cuzk_fp12_eq(&multi, &prod), "miller_loop_n(%zu) != product of single loops", n);
    }

    /* after the final exponentiation: equals the product of pairings */
    cuzk_fp12 multi, prod = CUZK_FP12_ONE, e;
    for (int i = 0; i < 4; i++) {
        cuzk_pairing(&e, &P[i], &Q[i]);
        cuzk_fp12_mul(&prod, &prod, &e);
    }
    cuzk_miller_loop_n(&multi, P, Q, 4);
    cuzk_final_exp(&multi, &multi);
    CHECK(cuzk_fp12_eq(&multi, &prod), "final_exp(miller_loop_n) != product of pairings");
}

static void test_prepared(void)
{
    enum { N = 4 };
    static cuzk_g2_prepared prep[N];
    const cuzk_g2_prepared *pp[N];
    cuzk_g1_affine P[N];
    cuzk_g2_affine Q[N];
    for (int i = 0; i < N; i++) {
        rand_g1(&P[i]);
        rand_g2(&Q[i]);
    }
    memset(&Q[1], 0, sizeof Q[1]);
    memset(&P[2], 0, sizeof P[2]);
    for (int i = 0; i < N; i++) {
        cuzk_g2_prepare(&prep[i], &Q[i]);
        pp[i] = &prep[i];
    }
    /* offset 1 starts with the identity pair, so the first line lands on a later pair */
    for (size_t off = 0; off < 2; off++)
        for (size_t n = 1; off + n <= N; n++) {
            cuzk_fp12 a, b;
            cuzk_miller_loop_prepared_n(&a, P + off, pp + off, n);
            cuzk_miller_loop_n(&b, P + off, Q + off, n);
            CHECK(cuzk_fp12_eq(&a, &b), "prepared Miller loop (offset %zu, n = %zu) != plain", off, n);
        }
}

static void test_check(void)
{
    for (int round = 0; round < 3; round++) {
        cuzk_g1_affine P[3];
        cuzk_g2_affine Q[3];
        cuzk_fr a, one;
        rand_g1(&P[0]);
        rand_g2(&Q[0]);
        test_rand_fr(&a);
        /* e(aP, Q) e(-P, aQ) = 1 */
        cuzk_g1_affine base = P[0];
        cuzk_g2_affine qb = Q[0];
        g1_mul(&P[0], &base, &a);
        Q[0] = qb;
        cuzk_g1_affine_neg(&P[1], &base);
        g2_mul(&Q[1], &qb, &a);
        CHECK(cuzk_pairing_check(P, Q, 2), "e(aP, Q) e(-P, aQ) != 1");

        /* an identity pair does not change the verdict */
        memset(&P[2], 0, sizeof P[2]);
        rand_g2(&Q[2]);
        CHECK(cuzk_pairing_check(P, Q, 3), "identity pair changed a true check");

        /* perturb: ((a + 1) P, Q) */
        cuzk_fr_from_u64(&one, 1);
        cuzk_fr_add(&a, &a, &one);
        g1_mul(&P[0], &base, &a);
        CHECK(!cuzk_pairing_check(P, Q, 2), "perturbed check still holds");
        /* or a non-identity third pair */
        cuzk_fr_sub(&a, &a, &one);
        g1_mul(&P[0], &base, &a);
        rand_g1(&P[2]);
        CHECK(!cuzk_pairing_check(P, Q, 3), "extra random pair still passes");
    }
}

int main(void)
{
    test_rng_init("test_pairing");
    init_final_exponent();
    test_vectors();
    test_final_exp();
    test_bilinearity();
    test_identity();
    test_multi();
    test_prepared();
    test_check();
    return test_finish("test_pairing");
}
