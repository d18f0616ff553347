/*
 * test_ntt.c — the CPU NTT against independent oracles, fresh random inputs
 * every run.
 *
 * Oracles: Horner evaluation of the coefficient vector at ω^i or g·ω^i (every
 * size up to 2^8 in full, spot checks up to 2^18), schoolbook polynomial
 * multiplication, a plain-loop bit reversal, and reference constants: the
 * bellperson values of prover-internals.md §3.2 and values printed by
 * ffjavascript 0.3.1 (snarkjs' field library). Small sizes also run with tiny
 * tuning parameters so that the fused multi-pass code is checked at sizes the
 * naive oracle can afford.
 *
 * `test_ntt bench [lg] [reps]` times transforms instead (best of reps).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/ntt.h"
#include "testutil.h"

static const char *conv_name(cuzk_ntt_convention c)
{
    return c == CUZK_NTT_BELLPERSON ? "bellperson" : "snarkjs";
}
static const char *order_name(int o)
{
    return o == CUZK_NTT_NN ? "NN" : o == CUZK_NTT_NR ? "NR" : "RN";
}

static size_t ref_rev(size_t v, unsigned lg)
{
    size_t r = 0;
    for (unsigned i = 0; i < lg; i++)
        r |= ((v >> i) & 1) << (lg - 1 - i);
    return r;
}

/* dst[p] = src[bitrev(p)] (dst != src). */
static void ref_permute(cuzk_fr *dst, const cuzk_fr *src, unsigned lg)
{
    for (size_t p = 0; p < (size_t)1 << lg; p++)
        dst[p] = src[ref_rev(p, lg)];
}

static void horner(cuzk_fr *out, const cuzk_fr *c, size_t n, const cuzk_fr *x)
{
    cuzk_fr acc = CUZK_FR_ZERO;
    for (size_t i = n; i-- > 0;) {
        cuzk_fr_mul(&acc, &acc, x);
        cuzk_fr_add(&acc, &acc, &c[i]);
    }
    *out = acc;
}

static void fr_pow_small(cuzk_fr *r, const cuzk_fr *a, uint64_t e)
{
    cuzk_fr_pow(r, a, &e, 1);
}

/* The i-th evaluation point: ω^i, times g on the coset. */
static void point(cuzk_fr *x, const cuzk_ntt_domain *d, size_t i, bool coset)
{
    fr_pow_small(x, &d->omega, i);
    if (coset)
        cuzk_fr_mul(x, x, &d->g);
}

static cuzk_fr *rand_vec(size_t n)
{
    cuzk_fr *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        test_rand_fr(&v[i]);
    return v;
}

static cuzk_fr *dup_vec(const cuzk_fr *v, size_t n)
{
    cuzk_fr *r = malloc(n * sizeof *r);
    if (!r) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(r, v, n * sizeof *r);
    return r;
}

static void fr_hex(char out[65], const cuzk_fr *a)
{
    uint8_t be[32];
    cuzk_fr_to_be32(be, a);
    hex_encode(out, be, 32);
}

/* Every direction, order and coset flag of one domain against Horner, all n points. */
static void check_full(const cuzk_ntt_domain *d, cuzk_pool *pool, const char *tag)
{
    size_t n = d->n;
    unsigned lg = d->lg;
    cuzk_fr *buf = malloc(n * sizeof *buf), *nat = malloc(n * sizeof *nat), *pts = malloc(n * sizeof *pts);
    for (int coset = 0; coset <= 1; coset++) {
        for (size_t i = 0; i < n; i++)
            point(&pts[i], d, i, coset);
        for (int order = CUZK_NTT_NN; order <= CUZK_NTT_RN; order++) {
            bool in_rev = order == CUZK_NTT_RN, out_rev = order == CUZK_NTT_NR;
            /* forward: coefficients -> evaluations */
            cuzk_fr *a = rand_vec(n);
            if (in_rev)
                ref_permute(buf, a, lg);
            else
                memcpy(buf, a, n * sizeof *buf);
            int rc = cuzk_ntt(d, buf, CUZK_NTT_FORWARD, order, coset, pool, NULL, 0);
            if (out_rev)
                ref_permute(nat, buf, lg);
            else
                memcpy(nat, buf, n * sizeof *nat);
            size_t bad = 0;
            for (size_t i = 0; i < n; i++) {
                cuzk_fr e;
                horner(&e, a, n, &pts[i]);
                bad += !cuzk_fr_eq(&e, &nat[i]);
            }
            CHECK(rc == CUZK_OK && bad == 0, "%s %s lg %u forward %s coset %d: %zu of %zu wrong", tag,
                  conv_name(d->conv), lg, order_name(order), coset, bad, n);
            /* inverse: evaluations -> coefficients, checked by evaluating them */
            cuzk_fr *y = a;
            if (in_rev)
                ref_permute(buf, y, lg);
            else
                memcpy(buf, y, n * sizeof *buf);
            rc = cuzk_ntt(d, buf, CUZK_NTT_INVERSE, order, coset, pool, NULL, 0);
            if (out_rev)
                ref_permute(nat, buf, lg);
            else
                memcpy(nat, buf, n * sizeof *nat);
            bad = 0;
            for (size_t i = 0; i < n; i++) {
                cuzk_fr e;
                horner(&e, nat, n, &pts[i]);
                bad += !cuzk_fr_eq(&e, &y[i]);
            }
            CHECK(rc == CUZK_OK && bad == 0, "%s %s lg %u inverse %s coset %d: %zu of %zu wrong", tag,
                  conv_name(d->conv), lg, order_name(order), coset, bad, n);
            free(a);
        }
    }
    free(buf);
    free(nat);
    free(pts);
}

static void test_naive_small(cuzk_pool *pool)
{
    static const unsigned tunes[][2] = {{2, 1}, {2, 2}, {3, 2}, {4, 3}, {5, 5}};
    for (int conv = 0; conv <= 1; conv++)
        for (unsigned lg = 0; lg <= 8; lg++) {
            cuzk_ntt_domain d;
            CHECK(cuzk_ntt_domain_init(&d, lg, conv, NULL, 0) == CUZK_OK, "init lg %u", lg);
            check_full(&d, NULL, "default");
            /* tiny blocks force several fused passes at naive-checkable sizes */
            for (size_t t = 0; t < sizeof tunes / sizeof tunes[0]; t++) {
                if (lg < 5 && t != 0)
                    continue;
                CHECK(cuzk_ntt_domain_tune(&d, tunes[t][0], tunes[t][1], NULL, 0) == CUZK_OK, "tune");
                char tag[32];
                snprintf(tag, sizeof tag, "tune %u/%u", tunes[t][0], tunes[t][1]);
                check_full(&d, t % 2 ? pool : NULL, tag);
            }
            cuzk_ntt_domain_release(&d);
        }
}

/* Larger sizes: a few random output positions against Horner, in O(n) each. */
static void test_spot(cuzk_pool *pool)
{
    /* {lg, lg_block, lg_radix}: the default split, and three passes over many blocks */
    const unsigned cases[][3] = {{12, 12, 8}, {13, 12, 8}, {14, 12, 8}, {16, 12, 8}, {18, 12, 8}, {16, 6, 4}};
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++)
        for (int conv = 0; conv <= 1; conv++) {
            unsigned lg = cases[ci][0];
            cuzk_ntt_domain d;
            cuzk_ntt_domain_init(&d, lg, conv, NULL, 0);
            cuzk_ntt_domain_tune(&d, cases[ci][1], cases[ci][2], NULL, 0);
            size_t n = d.n;
            int order = (int)(test_rand64() % 3);
            bool coset = test_rand64() & 1;
            cuzk_fr *a = rand_vec(n), *buf = malloc(n * sizeof *buf);
            if (order == CUZK_NTT_RN)
                ref_permute(buf, a, lg);
            else
                memcpy(buf, a, n * sizeof *buf);
            int rc = cuzk_ntt(&d, buf, CUZK_NTT_FORWARD, order, coset, pool, NULL, 0);
            int bad = 0;
            for (int s = 0; s < 4; s++) {
                size_t i = test_rand64() % n, p = order == CUZK_NTT_NR ? ref_rev(i, lg) : i;
                cuzk_fr x, e;
                point(&x, &d, i, coset);
                horner(&e, a, n, &x);
                bad += !cuzk_fr_eq(&e, &buf[p]);
            }
            CHECK(rc == CUZK_OK && bad == 0, "spot %s lg %u (block %u) forward %s coset %d", conv_name(conv),
                  lg, cases[ci][1], order_name(order), coset);
            /* inverse: the coefficients must evaluate back to a */
            if (order == CUZK_NTT_RN)
                ref_permute(buf, a, lg);
            else
                memcpy(buf, a, n * sizeof *buf);
            rc = cuzk_ntt(&d, buf, CUZK_NTT_INVERSE, order, coset, pool, NULL, 0);
            cuzk_fr *c = buf;
            cuzk_fr *nat = NULL;
            if (order == CUZK_NTT_NR) {
                nat = malloc(n * sizeof *nat);
                ref_permute(nat, buf, lg);
                c = nat;
            }
            bad = 0;
            for (int s = 0; s < 4; s++) {
                size_t i = test_rand64() % n;
                cuzk_fr x, e;
                point(&x, &d, i, coset);
                horner(&e, c, n, &x);
                bad += !cuzk_fr_eq(&e, &a[i]);
            }
            CHECK(rc == CUZK_OK && bad == 0, "spot %s lg %u (block %u) inverse %s coset %d", conv_name(conv),
                  lg, cases[ci][1], order_name(order), coset);
            free(nat);
            free(a);
            free(buf);
            cuzk_ntt_domain_release(&d);
        }
}

static void test_roundtrip(cuzk_pool *pool)
{
    unsigned lgs[] = {9 + (unsigned)(test_rand64() % 7), 16, 18};
    for (size_t li = 0; li < 3; li++) {
        unsigned lg = lgs[li];
        int conv = (int)(test_rand64() & 1);
        cuzk_ntt_domain d;
        cuzk_ntt_domain_init(&d, lg, conv, NULL, 0);
        cuzk_fr *a = rand_vec(d.n), *buf = malloc(d.n * sizeof *buf);
        for (int coset = 0; coset <= 1; coset++) {
            /* the permutation-free pipeline: NR forward, RN inverse */
            memcpy(buf, a, d.n * sizeof *buf);
            int rc = cuzk_ntt(&d, buf, CUZK_NTT_FORWARD, CUZK_NTT_NR, coset, pool, NULL, 0);
            rc |= cuzk_ntt(&d, buf, CUZK_NTT_INVERSE, CUZK_NTT_RN, coset, pool, NULL, 0);
            CHECK(rc == CUZK_OK && memcmp(a, buf, d.n * sizeof *buf) == 0, "%s lg %u NR then RN coset %d",
                  conv_name(conv), lg, coset);
            memcpy(buf, a, d.n * sizeof *buf);
            rc = cuzk_ntt(&d, buf, CUZK_NTT_INVERSE, CUZK_NTT_NN, coset, pool, NULL, 0);
            rc |= cuzk_ntt(&d, buf, CUZK_NTT_FORWARD, CUZK_NTT_NN, coset, pool, NULL, 0);
            CHECK(rc == CUZK_OK && memcmp(a, buf, d.n * sizeof *buf) == 0,
                  "%s lg %u NN inverse then forward coset %d", conv_name(conv), lg, coset);
        }
        free(a);
        free(buf);
        cuzk_ntt_domain_release(&d);
    }
}

static void test_threads_bitwise(void)
{
    cuzk_pool *pools[2] = {cuzk_pool_new(2), cuzk_pool_new(3)};
    const unsigned lgs[] = {13, 17};
    for (size_t li = 0; li < 2; li++) {
        cuzk_ntt_domain d;
        cuzk_ntt_domain_init(&d, lgs[li], (int)(test_rand64() & 1), NULL, 0);
        cuzk_fr *a = rand_vec(d.n), *st = malloc(d.n * sizeof *st), *mt = malloc(d.n * sizeof *mt);
        for (int dir = 0; dir <= 1; dir++)
            for (int order = 0; order <= 2; order++)
                for (int coset = 0; coset <= 1; coset++) {
                    memcpy(st, a, d.n * sizeof *st);
                    cuzk_ntt(&d, st, dir, order, coset, NULL, NULL, 0);
                    for (int p = 0; p < 2; p++) {
                        memcpy(mt, a, d.n * sizeof *mt);
                        cuzk_ntt(&d, mt, dir, order, coset, pools[p], NULL, 0);
                        CHECK(memcmp(st, mt, d.n * sizeof *st) == 0,
                              "lg %u dir %d %s coset %d: %d threads differ from 1", d.lg, dir,
                              order_name(order), coset, cuzk_pool_size(pools[p]));
                    }
                }
        free(a);
        free(st);
        free(mt);
        cuzk_ntt_domain_release(&d);
    }
    cuzk_pool_free(pools[0]);
    cuzk_pool_free(pools[1]);
}

/* ω_lg has order exactly 2^lg, and the domain's derived constants agree. */
static void test_roots(void)
{
    cuzk_fr minus_one, one = CUZK_FR_ONE, seven;
    cuzk_fr_neg(&minus_one, &one);
    cuzk_fr_from_u64(&seven, 7);
    for (int conv = 0; conv <= 1; conv++)
        for (unsigned lg = 0; lg <= CUZK_NTT_MAX_LG; lg++) {
            cuzk_ntt_domain d;
            int rc = cuzk_ntt_domain_init(&d, lg, conv, NULL, 0);
            cuzk_fr w = d.omega, t;
            for (unsigned i = 0; i + 1 < lg; i++)
                cuzk_fr_sqr(&w, &w);
            bool ok = lg == 0 ? cuzk_fr_is_one(&w) : cuzk_fr_eq(&w, &minus_one);
            cuzk_fr_sqr(&w, &w);
            ok &= lg == 0 || cuzk_fr_is_one(&w);
            CHECK(rc == CUZK_OK && ok, "%s omega_%u has order exactly 2^%u", conv_name(conv), lg, lg);
            cuzk_fr_mul(&t, &d.omega, &d.omega_inv);
            CHECK(cuzk_fr_is_one(&t), "omega * omega_inv, lg %u", lg);
            cuzk_fr nf;
            cuzk_fr_from_u64(&nf, d.n);
            cuzk_fr_mul(&t, &nf, &d.n_inv);
            CHECK(cuzk_fr_is_one(&t), "n * n_inv, lg %u", lg);
            cuzk_fr_mul(&t, &d.g, &d.g_inv);
            CHECK(cuzk_fr_is_one(&t), "g * g_inv, lg %u", lg);
            cuzk_fr gn;
            fr_pow_small(&gn, &d.g, d.n);
            cuzk_fr_sub(&gn, &gn, &one);
            cuzk_fr_mul(&t, &gn, &d.z_inv);
            CHECK(cuzk_fr_is_one(&t), "z_inv * (g^n - 1), lg %u", lg);
            if (conv == CUZK_NTT_BELLPERSON) {
                CHECK(cuzk_fr_eq(&d.g, &seven), "bellperson g = 7");
            } else {
                cuzk_fr_sqr(&t, &d.g);
                CHECK(cuzk_fr_eq(&t, &d.omega), "snarkjs g^2 = omega, lg %u", lg);
            }
            cuzk_fr r;
            rc = cuzk_ntt_root_of_unity(&r, lg, conv);
            CHECK(rc == CUZK_OK && cuzk_fr_eq(&r, &d.omega), "root_of_unity(%u) = domain omega", lg);
            cuzk_ntt_domain_release(&d);
        }
    /* the chain: ω_(k+1)^2 = ω_k up to k = 32 */
    for (int conv = 0; conv <= 1; conv++) {
        cuzk_fr prev, cur;
        cuzk_ntt_root_of_unity(&prev, 0, conv);
        CHECK(cuzk_fr_is_one(&prev), "omega_0 = 1");
        for (unsigned lg = 1; lg <= CUZK_NTT_TWO_ADICITY; lg++) {
            cuzk_ntt_root_of_unity(&cur, lg, conv);
            cuzk_fr sq;
            cuzk_fr_sqr(&sq, &cur);
            CHECK(cuzk_fr_eq(&sq, &prev), "%s omega_%u^2 = omega_%u", conv_name(conv), lg, lg - 1);
            prev = cur;
        }
    }
}

static void check_hex(const cuzk_fr *got, const char *want, const char *what)
{
    char h[65];
    fr_hex(h, got);
    CHECK(strcmp(h, want) == 0, "%s: got %s want %s", what, h, want);
}

/* prover-internals.md §3.2 (blstrs / sppark values). */
static void test_bellperson_constants(void)
{
    cuzk_ntt_domain d;
    cuzk_ntt_domain_init(&d, 27, CUZK_NTT_BELLPERSON, NULL, 0);
    check_hex(&d.omega, "23397a9300f8f98bece8ea224f31d25db94f1101b1d7a628e2d0a7869f0319ed", "omega_27");
    check_hex(&d.omega_inv, "20036a168c50c2fa2ada9adf927c68f8163305d2e07a8c5fbbb5c9fa2d30ae8d",
              "omega_27^-1");
    check_hex(&d.n_inv, "73eda744abe892e2ff8a2f01a266d7041f82a3588849db9f0034801f00000021", "2^-27");
    check_hex(&d.z_inv, "3cce2cbbce03d6bc82b2f0a62b7b100042289e15615b53f25f7d431bd40e5f31",
              "(7^(2^27) - 1)^-1");
    cuzk_ntt_domain_release(&d);
    cuzk_fr root;
    cuzk_ntt_root_of_unity(&root, 32, CUZK_NTT_BELLPERSON);
    check_hex(&root, "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b", "ROOT_OF_UNITY");
    const uint64_t root_mont[4] = {0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64,
                                   0x5bf3adda19e9b27b};
    CHECK(memcmp(root.l, root_mont, sizeof root_mont) == 0, "ROOT_OF_UNITY Montgomery limbs");
    cuzk_ntt_domain_init(&d, 10, CUZK_NTT_BELLPERSON, NULL, 0);
    const uint64_t g_mont[4] = {0x0000000efffffff1, 0x17e363d300189c0f, 0xff9c57876f8457b0,
                                0x351332208fc5a8c4};
    CHECK(memcmp(d.g.l, g_mont, sizeof g_mont) == 0, "g = 7 Montgomery limbs");
    cuzk_ntt_domain_release(&d);
}

/*
 * Printed by ffjavascript 0.3.1 (buildBls12381(true); Fr.nqr, Fr.w[k], and
 * Fr.fft / Fr.ifft of [1, 2, ..., 8]); canonical big-endian hex.
 */
static const struct {
    unsigned lg;
    const char *w;
} snarkjs_roots[] = {
    {1, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000"},
    {2, "00000000000000008d51ccce760304d0ec030002760300000001000000000000"},
    {3, "3f96405d25a31660a733b23a98ca5b22a032824078eaa4fe8dd702cb688bc087"},
    {8, "2e95da59a33dcbf232a732ae1a3b0aef752c84f3154125602cabadec2fe322b8"},
    {20, "3436287f5f686d91556c35f6537d6971870c46fac2f0fcbd20b53cbe41144dea"},
    {27, "350fe98d37b7a1144307987fe64cfc70ac96c38ff010ea74eb162203fd88f133"},
    {28, "2967385d5e3e768297ae418dd274a80a4d7f3c3aa71efc0caba2f51842f2a254"},
    {32, "0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"},
};
static const char *snarkjs_fft8[8] = {
    "0000000000000000000000000000000000000000000000000000000000000024",
    "365115eb3032e21e7f4f1feb02292dd2b0777fd497076365497feed718363e9a",
    "73eda753299d7d45fdf2a4ce3195c4c1a3b1a3f927f25bfefffbfffefffffffd",
    "365115eb3032e222e9dd865eb241545a108f7fe8471f63654987eed718363e9a",
    "73eda753299d7d483339d80809a1d80553bda402fffe5bfefffffffefffffffd",
    "3d9c9167f96a9b25495c51a9576083ab432e241ab8def899b6781127e7c9c15f",
    "000000000000000235473339d80c1343b00c0009d80c00000003fffffffffffc",
    "3d9c9167f96a9b29b3eab81d0778aa32a346242e68f6f899b6801127e7c9c15f",
};
static const char *snarkjs_ifft8[8] = {
    "39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000005",
    "163147176461030e3ce49204a2235046fee079062d1eaa9316d00224dcf9382c",
    "39f6d3a994cebea46045d26b3fd26e6b1fe05202bb00adff80007fff80000000",
    "163147176461030daf92c5362c204b7612dd7903b71baa9316cf0224dcf9382c",
    "39f6d3a994cebea4199cec0404d0ec02a9ded2017fff2dff7fffffff80000000",
    "5dbc603bc53c7a3a83a712d1dd818c8f40e02aff48e2b16be930fdda2306c7d4",
    "39f6d3a994cebea3d2f4059cc9cf699a33dd520044fdadff7fff7fff80000000",
    "5dbc603bc53c7a39f6554603677e87be54dd2afcd2dfb16be92ffdda2306c7d4",
};

static void test_snarkjs_constants(void)
{
    for (size_t i = 0; i < sizeof snarkjs_roots / sizeof snarkjs_roots[0]; i++) {
        cuzk_fr w;
        cuzk_ntt_root_of_unity(&w, snarkjs_roots[i].lg, CUZK_NTT_SNARKJS);
        char what[32];
        snprintf(what, sizeof what, "ffjavascript w[%u]", snarkjs_roots[i].lg);
        check_hex(&w, snarkjs_roots[i].w, what);
    }
    cuzk_ntt_domain d;
    cuzk_ntt_domain_init(&d, 3, CUZK_NTT_SNARKJS, NULL, 0);
    for (int dir = 0; dir <= 1; dir++) {
        cuzk_fr v[8];
        for (int i = 0; i < 8; i++)
            cuzk_fr_from_u64(&v[i], (uint64_t)i + 1);
        cuzk_ntt(&d, v, dir, CUZK_NTT_NN, false, NULL, NULL, 0);
        for (int i = 0; i < 8; i++) {
            char what[48];
            snprintf(what, sizeof what, "ffjavascript Fr.%s([1..8])[%d]", dir ? "ifft" : "fft", i);
            check_hex(&v[i], dir ? snarkjs_ifft8[i] : snarkjs_fft8[i], what);
        }
    }
    cuzk_ntt_domain_release(&d);
}

/* Product of two random polynomials through the NTT in three pipelines. */
static void test_polymul(cuzk_pool *pool)
{
    size_t degs[][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 0}, {0, 0}, {0, 0}, {4095, 300}};
    for (int i = 3; i < 6; i++) {
        degs[i][0] = test_rand64() % 300;
        degs[i][1] = test_rand64() % 300;
    }
    for (size_t t = 0; t < sizeof degs / sizeof degs[0]; t++)
        for (int pipe = 0; pipe < 3; pipe++) {
            size_t da = degs[t][0], db = degs[t][1], len = da + db + 1;
            unsigned lg = 0;
            while (((size_t)1 << lg) < len)
                lg++;
            int conv = (int)(test_rand64() & 1);
            cuzk_ntt_domain d;
            cuzk_ntt_domain_init(&d, lg, conv, NULL, 0);
            cuzk_fr *a = calloc(d.n, sizeof *a), *b = calloc(d.n, sizeof *b),
                    *want = calloc(d.n, sizeof *want);
            for (size_t i = 0; i <= da; i++)
                test_rand_fr(&a[i]);
            for (size_t i = 0; i <= db; i++)
                test_rand_fr(&b[i]);
            for (size_t i = 0; i <= da; i++)
                for (size_t j = 0; j <= db; j++) {
                    cuzk_fr p;
                    cuzk_fr_mul(&p, &a[i], &b[j]);
                    cuzk_fr_add(&want[i + j], &want[i + j], &p);
                }
            int fo = pipe == 0 ? CUZK_NTT_NN : CUZK_NTT_NR, io = pipe == 0 ? CUZK_NTT_NN : CUZK_NTT_RN;
            bool coset = pipe == 2;
            int rc = cuzk_ntt(&d, a, CUZK_NTT_FORWARD, fo, coset, pool, NULL, 0);
            rc |= cuzk_ntt(&d, b, CUZK_NTT_FORWARD, fo, coset, pool, NULL, 0);
            for (size_t i = 0; i < d.n; i++)
                cuzk_fr_mul(&a[i], &a[i], &b[i]);
            rc |= cuzk_ntt(&d, a, CUZK_NTT_INVERSE, io, coset, pool, NULL, 0);
            CHECK(rc == CUZK_OK && memcmp(a, want, d.n * sizeof *a) == 0,
                  "%s polymul deg %zu x %zu pipeline %d", conv_name(conv), da, db, pipe);
            free(a);
            free(b);
            free(want);
            cuzk_ntt_domain_release(&d);
        }
}

/* The Groth16 quotient: h = (A·B - C)/Z through coset evaluations, with C
 * chosen so that A·B - C vanishes on the domain. Checks A·B - C = h·Z at a
 * random point and h[n-1] = 0. */
/* The H quotient, twice: the textbook pipeline (a·b − c on the coset, seven transforms), checked at a
 * random point against A·B − C = h·Z from the coefficient forms, and the GPU prover's six-transform route
 * for a satisfied witness (c = a·b): s = A·B interpolated on the domain, d = the same on the coset,
 * h = (d − s)·z_inv, which must equal the first bit for bit. */
static void test_quotient(void)
{
    static const unsigned lgs[] = {1, 6, 11};
    for (size_t li = 0; li < sizeof lgs / sizeof lgs[0]; li++)
        for (int conv = 0; conv <= 1; conv++) {
            cuzk_ntt_domain d;
            cuzk_ntt_domain_init(&d, lgs[li], conv, NULL, 0);
            size_t n = d.n;
            cuzk_fr *a = rand_vec(n), *b = rand_vec(n), *c = malloc(n * sizeof *c);
            for (size_t i = 0; i < n; i++)
                cuzk_fr_mul(&c[i], &a[i], &b[i]);
            /* six transforms: s from a·b on the domain, d from the coset (a and b taken there in natural
             * order) */
            cuzk_fr *s6 = dup_vec(c, n), *a6 = dup_vec(a, n), *b6 = dup_vec(b, n);
            cuzk_ntt(&d, s6, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, NULL, NULL, 0);
            cuzk_ntt(&d, a6, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, NULL, NULL, 0);
            cuzk_ntt(&d, b6, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, NULL, NULL, 0);
            cuzk_ntt(&d, a6, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, NULL, NULL, 0);
            cuzk_ntt(&d, b6, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, NULL, NULL, 0);
            for (size_t i = 0; i < n; i++)
                cuzk_fr_mul(&a6[i], &a6[i], &b6[i]);
            cuzk_ntt(&d, a6, CUZK_NTT_INVERSE, CUZK_NTT_NN, true, NULL, NULL, 0);
            for (size_t i = 0; i < n; i++) {
                cuzk_fr_sub(&a6[i], &a6[i], &s6[i]);
                cuzk_fr_mul(&a6[i], &a6[i], &d.z_inv);
            }
            cuzk_fr *A = dup_vec(a, n), *B = dup_vec(b, n), *C = dup_vec(c, n);
            cuzk_ntt(&d, A, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, NULL, NULL, 0);
            cuzk_ntt(&d, B, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, NULL, NULL, 0);
            cuzk_ntt(&d, C, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, NULL, NULL, 0);
            /* the GPU order: coefficients bit-reversed, coset RN forward */
            memcpy(a, A, n * sizeof *a);
            memcpy(b, B, n * sizeof *b);
            memcpy(c, C, n * sizeof *c);
            cuzk_ntt_bit_reverse(a, d.lg, NULL, NULL, 0);
            cuzk_ntt_bit_reverse(b, d.lg, NULL, NULL, 0);
            cuzk_ntt_bit_reverse(c, d.lg, NULL, NULL, 0);
            cuzk_ntt(&d, a, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, NULL, NULL, 0);
            cuzk_ntt(&d, b, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, NULL, NULL, 0);
            cuzk_ntt(&d, c, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, NULL, NULL, 0);
            for (size_t i = 0; i < n; i++) {
                cuzk_fr_mul(&a[i], &a[i], &b[i]);
                cuzk_fr_sub(&a[i], &a[i], &c[i]);
                cuzk_fr_mul(&a[i], &a[i], &d.z_inv);
            }
            cuzk_ntt(&d, a, CUZK_NTT_INVERSE, CUZK_NTT_NN, true, NULL, NULL, 0);
            cuzk_fr tau, va, vb, vc, vh, zt, lhs, rhs;
            test_rand_fr(&tau);
            horner(&va, A, n, &tau);
            horner(&vb, B, n, &tau);
            horner(&vc, C, n, &tau);
            horner(&vh, a, n, &tau);
            fr_pow_small(&zt, &tau, n);
            cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
            cuzk_fr_mul(&lhs, &va, &vb);
            cuzk_fr_sub(&lhs, &lhs, &vc);
            cuzk_fr_mul(&rhs, &vh, &zt);
            CHECK(cuzk_fr_eq(&lhs, &rhs) && cuzk_fr_is_zero(&a[n - 1]), "%s lg %u quotient A·B - C = h·Z",
                  conv_name(conv), lgs[li]);
            CHECK(memcmp(a6, a, n * sizeof *a) == 0,
                  "%s lg %u: six-transform quotient differs from the textbook's", conv_name(conv), lgs[li]);
            free(a), free(b), free(c), free(A), free(B), free(C), free(s6), free(a6), free(b6);
            cuzk_ntt_domain_release(&d);
        }
}

static void test_edges(void)
{
    for (int conv = 0; conv <= 1; conv++) {
        cuzk_ntt_domain d;
        cuzk_ntt_domain_init(&d, 0, conv, NULL, 0);
        cuzk_fr x, x0;
        test_rand_fr(&x);
        x0 = x;
        for (int dir = 0; dir <= 1; dir++)
            for (int order = 0; order <= 2; order++)
                for (int coset = 0; coset <= 1; coset++) {
                    int rc = cuzk_ntt(&d, &x, dir, order, coset, NULL, NULL, 0);
                    CHECK(rc == CUZK_OK && cuzk_fr_eq(&x, &x0),
                          "size 1 is the identity (%s dir %d order %d coset %d)", conv_name(conv), dir, order,
                          coset);
                }
        cuzk_ntt_domain_release(&d);

        cuzk_ntt_domain_init(&d, 1, conv, NULL, 0);
        cuzk_fr v[2], a, b, s, t, half, two, gb;
        test_rand_fr(&a);
        test_rand_fr(&b);
        cuzk_fr_add(&s, &a, &b);
        cuzk_fr_sub(&t, &a, &b);
        cuzk_fr_from_u64(&two, 2);
        cuzk_fr_inv(&half, &two);
        for (int order = 0; order <= 2; order++) {
            v[0] = a, v[1] = b;
            cuzk_ntt(&d, v, CUZK_NTT_FORWARD, order, false, NULL, NULL, 0);
            CHECK(cuzk_fr_eq(&v[0], &s) && cuzk_fr_eq(&v[1], &t), "size 2 forward %s", order_name(order));
            v[0] = a, v[1] = b;
            cuzk_ntt(&d, v, CUZK_NTT_INVERSE, order, false, NULL, NULL, 0);
            cuzk_fr hs, ht;
            cuzk_fr_mul(&hs, &s, &half);
            cuzk_fr_mul(&ht, &t, &half);
            CHECK(cuzk_fr_eq(&v[0], &hs) && cuzk_fr_eq(&v[1], &ht), "size 2 inverse %s", order_name(order));
            v[0] = a, v[1] = b;
            cuzk_ntt(&d, v, CUZK_NTT_FORWARD, order, true, NULL, NULL, 0);
            cuzk_fr_mul(&gb, &b, &d.g);
            cuzk_fr e0, e1;
            cuzk_fr_add(&e0, &a, &gb);
            cuzk_fr_sub(&e1, &a, &gb);
            CHECK(cuzk_fr_eq(&v[0], &e0) && cuzk_fr_eq(&v[1], &e1), "size 2 coset forward %s",
                  order_name(order));
        }
        cuzk_ntt_domain_release(&d);
    }
}

static void test_bit_reverse(cuzk_pool *pool)
{
    for (unsigned lg = 0; lg <= 16; lg++) {
        size_t n = (size_t)1 << lg;
        cuzk_fr *a = rand_vec(n), *b = malloc(n * sizeof *b), *want = malloc(n * sizeof *want);
        memcpy(b, a, n * sizeof *b);
        ref_permute(want, a, lg);
        int rc = cuzk_ntt_bit_reverse(b, lg, lg % 2 ? pool : NULL, NULL, 0);
        CHECK(rc == CUZK_OK && memcmp(b, want, n * sizeof *b) == 0, "bit reversal lg %u", lg);
        cuzk_ntt_bit_reverse(b, lg, pool, NULL, 0);
        CHECK(memcmp(b, a, n * sizeof *b) == 0, "bit reversal is an involution, lg %u", lg);
        free(a);
        free(b);
        free(want);
    }
}

static void test_bad_args(void)
{
    cuzk_ntt_domain d, zero;
    memset(&zero, 0, sizeof zero);
    char err[128] = "";
    CHECK(cuzk_ntt_domain_init(&d, 29, CUZK_NTT_BELLPERSON, err, sizeof err) == CUZK_ERANGE && err[0],
          "lg 29 rejected (%s)", err);
    CHECK(cuzk_ntt_domain_init(&d, 40, CUZK_NTT_SNARKJS, NULL, 0) == CUZK_ERANGE, "lg 40 rejected");
    CHECK(cuzk_ntt_domain_init(&d, 4, (cuzk_ntt_convention)2, NULL, 0) == CUZK_EINVAL, "bad convention");
    CHECK(cuzk_ntt_domain_init(&d, 4, (cuzk_ntt_convention)-1, NULL, 0) == CUZK_EINVAL,
          "negative convention");
    CHECK(cuzk_ntt_domain_init(NULL, 4, CUZK_NTT_BELLPERSON, NULL, 0) == CUZK_EINVAL, "NULL domain");
    cuzk_ntt_domain *dp = (cuzk_ntt_domain *)&d;
    CHECK(cuzk_ntt_domain_new(&dp, 29, CUZK_NTT_BELLPERSON, NULL, 0) == CUZK_ERANGE && dp == NULL,
          "new lg 29 rejected, *out NULL");
    CHECK(cuzk_ntt_domain_new(NULL, 4, CUZK_NTT_BELLPERSON, NULL, 0) == CUZK_EINVAL, "new NULL out");
    cuzk_fr r;
    CHECK(cuzk_ntt_root_of_unity(&r, 33, CUZK_NTT_BELLPERSON) == CUZK_EINVAL, "root lg 33");
    CHECK(cuzk_ntt_root_of_unity(NULL, 3, CUZK_NTT_BELLPERSON) == CUZK_EINVAL, "root NULL");
    CHECK(cuzk_ntt_root_of_unity(&r, 3, (cuzk_ntt_convention)5) == CUZK_EINVAL, "root bad convention");

    CHECK(cuzk_ntt_domain_new(&dp, 4, CUZK_NTT_SNARKJS, NULL, 0) == CUZK_OK && dp, "new lg 4");
    cuzk_fr data[16] = {{{0}}};
    err[0] = 0;
    CHECK(cuzk_ntt(NULL, data, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, NULL, err, sizeof err) == CUZK_EINVAL &&
              err[0],
          "NULL domain rejected (%s)", err);
    CHECK(cuzk_ntt(dp, NULL, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, NULL, NULL, 0) == CUZK_EINVAL,
          "NULL data");
    CHECK(cuzk_ntt(&zero, data, CUZK_NTT_FORWARD, CUZK_NTT_NN, false, NULL, NULL, 0) == CUZK_EINVAL,
          "uninitialised domain");
    CHECK(cuzk_ntt(dp, data, (cuzk_ntt_dir)2, CUZK_NTT_NN, false, NULL, NULL, 0) == CUZK_EINVAL,
          "bad direction");
    CHECK(cuzk_ntt(dp, data, (cuzk_ntt_dir)-1, CUZK_NTT_NN, false, NULL, NULL, 0) == CUZK_EINVAL,
          "negative dir");
    err[0] = 0;
    CHECK(cuzk_ntt(dp, data, CUZK_NTT_FORWARD, (cuzk_ntt_order)3, false, NULL, err, sizeof err) ==
                  CUZK_EINVAL &&
              err[0],
          "bad order (%s)", err);
    CHECK(cuzk_ntt_bit_reverse(NULL, 3, NULL, NULL, 0) == CUZK_EINVAL, "bit_reverse NULL");
    CHECK(cuzk_ntt_bit_reverse(data, 29, NULL, NULL, 0) == CUZK_ERANGE, "bit_reverse lg 29");
    CHECK(cuzk_ntt_domain_tune(dp, 4, 5, NULL, 0) == CUZK_EINVAL, "tune radix > block");
    CHECK(cuzk_ntt_domain_tune(dp, 17, 8, NULL, 0) == CUZK_EINVAL, "tune block too large");
    CHECK(cuzk_ntt_domain_tune(dp, 12, 9, NULL, 0) == CUZK_EINVAL, "tune radix too large");
    CHECK(cuzk_ntt_domain_tune(dp, 0, 0, NULL, 0) == CUZK_EINVAL, "tune zero");
    CHECK(cuzk_ntt_domain_tune(dp, 1, 1, NULL, 0) == CUZK_EINVAL, "tune block below a tile");
    CHECK(cuzk_ntt_domain_tune(&zero, 12, 8, NULL, 0) == CUZK_EINVAL, "tune uninitialised");
    cuzk_fr g = CUZK_FR_ZERO, old = dp->g;
    CHECK(cuzk_ntt_domain_set_coset(dp, &g, NULL, 0) == CUZK_EINVAL, "coset shift 0");
    CHECK(cuzk_ntt_domain_set_coset(dp, &dp->omega, NULL, 0) == CUZK_EINVAL, "coset shift omega");
    CHECK(cuzk_ntt_domain_set_coset(dp, &CUZK_FR_ONE, NULL, 0) == CUZK_EINVAL, "coset shift 1");
    CHECK(cuzk_ntt_domain_set_coset(dp, NULL, NULL, 0) == CUZK_EINVAL, "coset shift NULL");
    CHECK(cuzk_ntt_domain_set_coset(&zero, &old, NULL, 0) == CUZK_EINVAL, "coset on uninitialised");
    CHECK(cuzk_fr_eq(&dp->g, &old), "failed set_coset leaves g alone");
    /* a valid override: ffjavascript's Fr.shift = 25 */
    cuzk_fr_from_u64(&g, 25);
    CHECK(cuzk_ntt_domain_set_coset(dp, &g, NULL, 0) == CUZK_OK && cuzk_fr_eq(&dp->g, &g), "coset shift 25");
    check_full(dp, NULL, "shift 25");
    cuzk_ntt_domain_free(dp);
    cuzk_ntt_domain_free(NULL);
    cuzk_ntt_domain_release(NULL);
}

static double clock_ms(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Best wall-clock time of reps runs, and the process CPU time of that run (on a
 * loaded machine wall time inflates; CPU time of a single thread does less). */
static void bench_one(const char *what, unsigned lg, int threads, int reps, cuzk_ntt_domain *d, cuzk_fr *x,
                      int dir, int order, int coset, cuzk_pool *pool)
{
    double best = 1e30, cpu = 0;
    for (int r = 0; r < reps; r++) {
        double w0 = clock_ms(CLOCK_MONOTONIC), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        if (dir < 0)
            cuzk_ntt_bit_reverse(x, lg, pool, NULL, 0);
        else
            cuzk_ntt(d, x, dir, order, coset, pool, NULL, 0);
        double w = clock_ms(CLOCK_MONOTONIC) - w0, c = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
        if (w < best)
            best = w, cpu = c;
    }
    printf("lg %u threads %d %-13s best of %d: wall %8.1f ms  cpu %8.1f ms\n", lg, threads, what, reps, best,
           cpu);
}

static int bench(int argc, char **argv)
{
    unsigned lg = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    unsigned lb = argc > 4 ? (unsigned)atoi(argv[4]) : 12, lr = argc > 5 ? (unsigned)atoi(argv[5]) : 8;
    cuzk_ntt_domain d;
    if (cuzk_ntt_domain_init(&d, lg, CUZK_NTT_BELLPERSON, NULL, 0) != CUZK_OK ||
        cuzk_ntt_domain_tune(&d, lb, lr, NULL, 0) != CUZK_OK) {
        fprintf(stderr, "bad bench parameters\n");
        return 2;
    }
    printf("block 2^%u, radix 2^%u\n", lb, lr);
    cuzk_fr *x = rand_vec(d.n);
    struct {
        const char *name;
        int dir, order, coset;
    } ops[] = {{"forward NR", 0, CUZK_NTT_NR, 0},   {"forward RN", 0, CUZK_NTT_RN, 0},
               {"forward NN", 0, CUZK_NTT_NN, 0},   {"inverse NN", 1, CUZK_NTT_NN, 0},
               {"coset fwd NN", 0, CUZK_NTT_NN, 1}, {"bit reversal", -1, 0, 0}};
    for (int th = 1; th <= 2; th++) {
        cuzk_pool *pool = th == 1 ? NULL : cuzk_pool_new(th);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            bench_one(ops[o].name, lg, th, reps, &d, x, ops[o].dir, ops[o].order, ops[o].coset, pool);
        cuzk_pool_free(pool);
    }
    free(x);
    cuzk_ntt_domain_release(&d);
    return 0;
}

int main(int argc, char **argv)
{
    test_rng_init("test_ntt");
    if (argc > 1 && strcmp(argv[1], "bench") == 0)
        return bench(argc, argv);
    cuzk_pool *pool = cuzk_pool_new(2);
    test_bad_args();
    test_roots();
    test_bellperson_constants();
    test_snarkjs_constants();
    test_edges();
    test_bit_reverse(pool);
    test_naive_small(pool);
    test_polymul(pool);
    test_quotient();
    test_spot(pool);
    test_roundtrip(pool);
    test_threads_bitwise();
    cuzk_pool_free(pool);
    return test_finish("test_ntt");
}
