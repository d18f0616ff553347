/*
 * test_zkey_write.c — the .zkey writer of cuzk/zkey_setup.h.
 *
 * Oracles:
 * - snarkjs: the committed fixtures' circuit.zkey files were made by snarkjs
 *   0.7.6 (`groth16 setup` + beacon). A key written here for the same .r1cs
 *   must have the same section ids and sizes, the same header counts and
 *   primes, a section 4 (coefficients: order, matrix, row, signal and the
 *   v·R² encoding) equal byte for byte, and the identity in exactly the same
 *   places of every point section. (snarkjs's own prover and verifier are run
 *   on written keys by tests/cli/test_cli_zkey.sh.)
 * - The toxic waste, by another route than the writer's: the Lagrange values
 *   here are the inverse NTT of the powers of tau (cuzk/ntt.h, tested against
 *   its own oracles), over the domain of size m for the rows and 2m for H, and
 *   the points are [k]G by the generic scalar multiplication, not the
 *   fixed-base tables. Every point of every section must equal its
 *   expectation, and the verifying key built here from the toxic waste must
 *   accept proofs that cuzk's snarkjs-convention prover (bit-exact with
 *   snarkjs's, test_prove.c) makes with the written key, and reject them when
 *   a public input changes.
 * Also: random satisfiable circuits (with rows filling the domain exactly and
 * one row more) prove and verify; the bytes do not depend on the thread
 * count; cuzk_zkey_size and cuzk_zkey_domain_lg agree with the file and with
 * snarkjs's rule; bad toxic waste, malformed circuits, a failing sink and
 * unwritable paths give errors, and cuzk_zkey_setup_write then leaves nothing
 * behind (an existing file stays as it was).
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/cs.h"
#include "cuzk/ntt.h"
#include "cuzk/prove.h"
#include "cuzk/serialize.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/verify.h"
#include "cuzk/zkey_setup.h"
#include "testutil.h"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
static char TMPDIR_PATH[] = "/tmp/cuzk-test-zkey-XXXXXX";
static cuzk_pool *POOL2, *POOL3;

/* ---- helpers ----------------------------------------------------------------------------- */

static void random_toxic(cuzk_groth16_toxic *tw)
{
    cuzk_fr *v[5] = {&tw->tau, &tw->alpha, &tw->beta, &tw->gamma, &tw->delta};
    for (int i = 0; i < 5; i++)
        do
            test_rand_fr(v[i]);
        while (cuzk_fr_is_zero(v[i]));
}

static void g1_of(cuzk_g1_affine *out, const cuzk_fr *k)
{
    cuzk_g1 p;
    cuzk_g1_from_affine(&p, &CUZK_G1_GENERATOR);
    cuzk_g1_mul_fr(&p, &p, k);
    cuzk_g1_to_affine(out, &p);
}

static void g2_of(cuzk_g2_affine *out, const cuzk_fr *k)
{
    cuzk_g2 p;
    cuzk_g2_from_affine(&p, &CUZK_G2_GENERATOR);
    cuzk_g2_mul_fr(&p, &p, k);
    cuzk_g2_to_affine(out, &p);
}

/* L_k(tau) for k < 2^lg: the inverse NTT (ω from 5) of 1, tau, tau^2, ... */
static cuzk_fr *lagrange_by_ntt(unsigned lg, const cuzk_fr *tau)
{
    size_t n = (size_t)1 << lg;
    cuzk_fr *d = malloc(n * sizeof *d);
    d[0] = CUZK_FR_ONE;
    for (size_t j = 1; j < n; j++)
        cuzk_fr_mul(&d[j], &d[j - 1], tau);
    cuzk_ntt_domain dom;
    char err[256] = "";
    int rc = cuzk_ntt_domain_init(&dom, lg, CUZK_NTT_SNARKJS, err, sizeof err);
    CHECK(rc == CUZK_OK, "ntt domain 2^%u: %s", lg, err);
    rc = cuzk_ntt(&dom, d, CUZK_NTT_INVERSE, CUZK_NTT_NN, false, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "inverse ntt 2^%u: %s", lg, err);
    cuzk_ntt_domain_release(&dom);
    return d;
}

/* Everything a key for cs under tw should contain, computed here. */
typedef struct {
    size_t nin, nv, m;
    unsigned lg;
    cuzk_fr *u, *v, *lc, *h; /* lc: (beta u + alpha v + w) / gamma (inputs) or / delta */
    cuzk_groth16_vk vk;
} expected_key;

static void expected_build(expected_key *e, const cuzk_cs *cs, const cuzk_groth16_toxic *tw)
{
    memset(e, 0, sizeof *e);
    e->nin = cs->n_inputs;
    e->nv = cs->n_inputs + cs->n_aux;
    size_t rows = cs->n_constraints + cs->n_inputs;
    e->lg = 1; /* snarkjs: 2^(log2(rows - 1) + 1) */
    while (((size_t)1 << e->lg) < rows)
        e->lg++;
    e->m = (size_t)1 << e->lg;
    cuzk_fr *lag = lagrange_by_ntt(e->lg, &tw->tau), *lag2 = lagrange_by_ntt(e->lg + 1, &tw->tau);
    cuzk_fr *w = calloc(e->nv, sizeof *w);
    e->u = calloc(e->nv, sizeof *e->u);
    e->v = calloc(e->nv, sizeof *e->v);
    e->lc = calloc(e->nv, sizeof *e->lc);
    e->h = calloc(e->m, sizeof *e->h);
    const cuzk_csr *M[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_fr *out[3] = {e->u, e->v, w}, t;
    for (int k = 0; k < 3; k++)
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t q = M[k]->row[j]; q < M[k]->row[j + 1]; q++) {
                cuzk_fr_mul(&t, &M[k]->val[q], &lag[j]);
                cuzk_fr_add(&out[k][M[k]->col[q]], &out[k][M[k]->col[q]], &t);
            }
    for (size_t s = 0; s < e->nin; s++)
        cuzk_fr_add(&e->u[s], &e->u[s], &lag[cs->n_constraints + s]);
    cuzk_fr ginv, dinv;
    cuzk_fr_inv(&ginv, &tw->gamma);
    cuzk_fr_inv(&dinv, &tw->delta);
    for (size_t i = 0; i < e->nv; i++) {
        cuzk_fr_mul(&e->lc[i], &tw->beta, &e->u[i]);
        cuzk_fr_mul(&t, &tw->alpha, &e->v[i]);
        cuzk_fr_add(&e->lc[i], &e->lc[i], &t);
        cuzk_fr_add(&e->lc[i], &e->lc[i], &w[i]);
        cuzk_fr_mul(&e->lc[i], &e->lc[i], i < e->nin ? &ginv : &dinv);
    }
    for (size_t i = 0; i < e->m; i++)
        cuzk_fr_mul(&e->h[i], &lag2[2 * i + 1], &dinv);
    g1_of(&e->vk.alpha_g1, &tw->alpha);
    g1_of(&e->vk.beta_g1, &tw->beta);
    g1_of(&e->vk.delta_g1, &tw->delta);
    g2_of(&e->vk.beta_g2, &tw->beta);
    g2_of(&e->vk.gamma_g2, &tw->gamma);
    g2_of(&e->vk.delta_g2, &tw->delta);
    e->vk.n_ic = e->nin;
    e->vk.ic = malloc(e->nin * sizeof *e->vk.ic);
    for (size_t i = 0; i < e->nin; i++)
        g1_of(&e->vk.ic[i], &e->lc[i]);
    free(lag);
    free(lag2);
    free(w);
}

static void expected_free(expected_key *e)
{
    free(e->u);
    free(e->v);
    free(e->lc);
    free(e->h);
    cuzk_groth16_vk_free(&e->vk);
}

/* Counts mismatching points of a G1 section against [k_i]G (first one reported). */
static void check_g1_section(const char *what, const cuzk_snarkjs_points *pts, const cuzk_fr *k, size_t n)
{
    CHECK(pts->count == n, "%s: %zu points, expected %zu", what, pts->count, n);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n && i < pts->count; i++) {
        cuzk_g1_affine got, want;
        char err[256] = "";
        int rc = cuzk_snarkjs_points_g1(pts, i, CUZK_DECODE_CHECK_GROUP, &got, err, sizeof err);
        g1_of(&want, &k[i]);
        if (rc != CUZK_OK || !cuzk_g1_affine_eq(&got, &want)) {
            if (!bad++)
                first = i;
        }
    }
    CHECK(bad == 0, "%s: %zu of %zu points differ from the toxic waste's, first %zu", what, bad, n, first);
}

static void check_g2_section(const char *what, const cuzk_snarkjs_points *pts, const cuzk_fr *k, size_t n)
{
    CHECK(pts->count == n, "%s: %zu points, expected %zu", what, pts->count, n);
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n && i < pts->count; i++) {
        cuzk_g2_affine got, want;
        char err[256] = "";
        int rc = cuzk_snarkjs_points_g2(pts, i, CUZK_DECODE_CHECK_GROUP, &got, err, sizeof err);
        g2_of(&want, &k[i]);
        if (rc != CUZK_OK || !cuzk_g2_affine_eq(&got, &want)) {
            if (!bad++)
                first = i;
        }
    }
    CHECK(bad == 0, "%s: %zu of %zu points differ from the toxic waste's, first %zu", what, bad, n, first);
}

/* Every point and header value of zk against e. */
static void check_key_points(const char *name, const cuzk_snarkjs_zkey *zk, const expected_key *e)
{
    char what[128];
    CHECK(zk->n_vars == e->nv && zk->n_public == e->nin - 1 && zk->domain_size == e->m,
          "%s: header nVars %u nPublic %u domainSize %u, expected %zu %zu %zu", name, zk->n_vars,
          zk->n_public, zk->domain_size, e->nv, e->nin - 1, e->m);
    CHECK(cuzk_g1_affine_eq(&zk->alpha1, &e->vk.alpha_g1) && cuzk_g1_affine_eq(&zk->beta1, &e->vk.beta_g1) &&
              cuzk_g1_affine_eq(&zk->delta1, &e->vk.delta_g1),
          "%s: alpha1, beta1 or delta1 differs", name);
    CHECK(cuzk_g2_affine_eq(&zk->beta2, &e->vk.beta_g2) && cuzk_g2_affine_eq(&zk->gamma2, &e->vk.gamma_g2) &&
              cuzk_g2_affine_eq(&zk->delta2, &e->vk.delta_g2),
          "%s: beta2, gamma2 or delta2 differs", name);
    if (zk->n_vars != e->nv || zk->domain_size != e->m)
        return;
    snprintf(what, sizeof what, "%s: IC", name);
    check_g1_section(what, &zk->ic, e->lc, e->nin);
    snprintf(what, sizeof what, "%s: A", name);
    check_g1_section(what, &zk->a, e->u, e->nv);
    snprintf(what, sizeof what, "%s: B1", name);
    check_g1_section(what, &zk->b1, e->v, e->nv);
    snprintf(what, sizeof what, "%s: B2", name);
    check_g2_section(what, &zk->b2, e->v, e->nv);
    snprintf(what, sizeof what, "%s: C", name);
    check_g1_section(what, &zk->c, e->lc + e->nin, e->nv - e->nin);
    snprintf(what, sizeof what, "%s: H", name);
    check_g1_section(what, &zk->h, e->h, e->m);
}

/* Proves with zk and witness z (the circuit cs checks the witness first), verifies against the vk built
 * from the toxic waste, and checks that a changed public input is rejected. */
static void check_prove_verify(const char *name, const cuzk_snarkjs_zkey *zk, const cuzk_cs *cs,
                               const cuzk_fr *z, size_t nz, const expected_key *e)
{
    char err[256] = "";
    cuzk_groth16_proof proof;
    cuzk_prove_opts o = {.flags = CUZK_PROVE_NO_VERIFY, .cs = cs};
    size_t npub = e->nin - 1;
    cuzk_fr *pub = malloc((npub ? npub : 1) * sizeof *pub);
    int rc = cuzk_groth16_prove_zkey_ex(&proof, pub, zk, z, nz, NULL, NULL, &o, POOL2, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prove with the written key: %s", name, err);
    if (rc == CUZK_OK) {
        cuzk_groth16_pvk pvk;
        rc = cuzk_groth16_prepare(&pvk, &e->vk, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: prepare the expected vk: %s", name, err);
        rc = cuzk_groth16_verify(&pvk, pub, npub, &proof, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: the proof does not verify against the toxic waste's vk: %s", name, err);
        for (size_t i = 0; i < npub; i++) {
            cuzk_fr saved = pub[i];
            cuzk_fr_add(&pub[i], &pub[i], &CUZK_FR_ONE);
            rc = cuzk_groth16_verify(&pvk, pub, npub, &proof, err, sizeof err);
            CHECK(rc == CUZK_EVERIFY, "%s: public input %zu + 1 still verifies (rc %d)", name, i, rc);
            pub[i] = saved;
        }
        /* The prover's own check against the zkey's vk agrees. */
        rc = cuzk_groth16_prove_zkey(&proof, NULL, zk, z, nz, NULL, NULL, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: prove with its built-in verification: %s", name, err);
    }
    free(pub);
}

/* ---- a sink into memory ------------------------------------------------------------------ */

typedef struct {
    uint8_t *p;
    size_t len, cap;
    size_t fail_at; /* refuse the call that would pass this many bytes (SIZE_MAX: never) */
    int calls;
} mem_sink;

static int mem_write(void *ctx, const void *buf, size_t len)
{
    mem_sink *s = ctx;
    s->calls++;
    if (s->len + len > s->fail_at)
        return -1;
    if (s->len + len > s->cap) {
        s->cap = (s->len + len) * 2;
        s->p = realloc(s->p, s->cap);
    }
    memcpy(s->p + s->len, buf, len);
    s->len += len;
    return 0;
}

/* ---- fixtures ---------------------------------------------------------------------------- */

static bool load_cs(cuzk_cs *cs, const char *name)
{
    char path[512], err[256] = "";
    snprintf(path, sizeof path, "%s/%s/circuit.r1cs", TEST_FIXTURE_DIR, name);
    cuzk_snarkjs_r1cs *r1cs = NULL;
    int rc = cuzk_snarkjs_r1cs_open(path, &r1cs, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_cs_from_snarkjs(cs, r1cs, err, sizeof err);
    cuzk_snarkjs_r1cs_free(r1cs);
    CHECK(rc == CUZK_OK, "%s: r1cs: %s", name, err);
    return rc == CUZK_OK;
}

static bool zero_bytes(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return false;
    return true;
}

static uint64_t le_u(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; k--)
        v = v << 8 | p[k];
    return v;
}

/* Structure against snarkjs's key for the same circuit. */
static void check_against_snarkjs(const char *name, const cuzk_snarkjs_zkey *ours, const uint8_t *img,
                                  size_t len)
{
    char path[512], err[256] = "";
    snprintf(path, sizeof path, "%s/%s/circuit.zkey", TEST_FIXTURE_DIR, name);
    cuzk_snarkjs_zkey *ref = NULL;
    int rc = cuzk_snarkjs_zkey_open(path, &ref, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: fixture zkey: %s", name, err);
    if (rc)
        return;
    CHECK(ours->version == ref->version && ours->n_vars == ref->n_vars && ours->n_public == ref->n_public &&
              ours->domain_size == ref->domain_size,
          "%s: version/nVars/nPublic/domainSize %u/%u/%u/%u, snarkjs %u/%u/%u/%u", name, ours->version,
          ours->n_vars, ours->n_public, ours->domain_size, ref->version, ref->n_vars, ref->n_public,
          ref->domain_size);
    CHECK(ours->n_coefs == ref->n_coefs &&
              !memcmp(ours->coefs, ref->coefs, (size_t)ours->n_coefs * CUZK_ZKEY_COEF_SIZE),
          "%s: section 4 differs from snarkjs's (%u vs %u entries)", name, ours->n_coefs, ref->n_coefs);
    CHECK(len >= 12 && ref->image_len >= 12 && !memcmp(img, ref->image, 12), "%s: container header differs",
          name);
    /* Sections in the same order with the same sizes (section 10, the MPC transcript, aside); section 1
     * and section 2 up to its points (sizes, primes, counts) equal byte for byte. */
    size_t pa = 12, pb = 12;
    uint32_t na = le_u(img + 8, 4), nb = le_u(ref->image + 8, 4);
    bool same = na == nb;
    for (uint32_t i = 0; same && i < na; i++) {
        uint64_t sa = le_u(img + pa + 4, 8), sb = le_u(ref->image + pb + 4, 8);
        uint32_t ida = le_u(img + pa, 4), idb = le_u(ref->image + pb, 4);
        bool payload = ida == 1 || ida == 2;
        same =
            ida == idb && (sa == sb || ida == 10) &&
            (!payload || !memcmp(img + pa + 12, ref->image + pb + 12, ida == 1 ? 4 : 4 + 48 + 4 + 32 + 12));
        pa += 12 + sa;
        pb += 12 + sb;
    }
    CHECK(same, "%s: section ids, sizes or header fields differ from snarkjs's", name);
    /* Identity points in the same places. */
    const cuzk_snarkjs_points *a[6] = {&ours->ic, &ours->a, &ours->b1, &ours->b2, &ours->c, &ours->h};
    const cuzk_snarkjs_points *b[6] = {&ref->ic, &ref->a, &ref->b1, &ref->b2, &ref->c, &ref->h};
    for (int s = 0; s < 6; s++) {
        size_t diff = 0, zeros = 0;
        for (size_t i = 0; i < a[s]->count && i < b[s]->count; i++) {
            bool za = zero_bytes(a[s]->data + i * a[s]->stride, a[s]->stride);
            bool zb = zero_bytes(b[s]->data + i * b[s]->stride, b[s]->stride);
            diff += za != zb;
            zeros += zb;
        }
        CHECK(diff == 0, "%s: section %u has the identity in %zu other places than snarkjs's (%zu there)",
              name, a[s]->section, diff, zeros);
    }
    cuzk_snarkjs_zkey_free(ref);
}

static void check_fixture(const char *name)
{
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    if (!load_cs(&cs, name))
        return;
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    char path[600], err[256] = "";
    snprintf(path, sizeof path, "%s/%s.zkey", TMPDIR_PATH, name);
    int rc = cuzk_zkey_setup_write(path, &cs, &tw, POOL3, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: setup_write: %s", name, err);
    size_t len = 0;
    uint8_t *img = test_read_file(path, &len);
    CHECK(img && len == cuzk_zkey_size(&cs), "%s: file has %zu bytes, cuzk_zkey_size says %llu", name, len,
          (unsigned long long)cuzk_zkey_size(&cs));

    /* The same toxic waste on one thread, into memory: the same bytes. */
    mem_sink ms = {.fail_at = SIZE_MAX};
    rc = cuzk_zkey_setup(&cs, &tw, mem_write, &ms, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && img && ms.len == len && !memcmp(ms.p, img, len),
          "%s: one thread into memory gives other bytes than three threads into a file", name);
    free(ms.p);

    cuzk_snarkjs_zkey *zk = NULL;
    rc = cuzk_snarkjs_zkey_open(path, &zk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: our reader refuses the written key: %s", name, err);
    if (rc == CUZK_OK) {
        rc = cuzk_snarkjs_zkey_check_points(zk, CUZK_DECODE_CHECK_GROUP, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: point check: %s", name, err);
        check_against_snarkjs(name, zk, img, len);
        expected_key e;
        expected_build(&e, &cs, &tw);
        check_key_points(name, zk, &e);
        snprintf(path, sizeof path, "%s/%s/witness.wtns", TEST_FIXTURE_DIR, name);
        cuzk_snarkjs_wtns *wt = NULL;
        rc = cuzk_snarkjs_wtns_open(path, &wt, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: witness: %s", name, err);
        if (rc == CUZK_OK)
            check_prove_verify(name, zk, &cs, wt->values, wt->n, &e);
        cuzk_snarkjs_wtns_free(wt);
        expected_free(&e);
    }
    cuzk_snarkjs_zkey_free(zk);
    free(img);
    cuzk_cs_free(&cs);
}

/* ---- random circuits ---------------------------------------------------------------------- */

static void check_random(size_t nin, size_t naux, size_t nc)
{
    char name[96], err[256] = "";
    snprintf(name, sizeof name, "random %zu inputs %zu aux %zu constraints", nin, naux, nc);
    cuzk_cs cs;
    size_t nv = nin + naux;
    cuzk_fr *z = malloc(nv * sizeof *z);
    int rc = cuzk_cs_random(&cs, z, nin, naux, nc, test_rand64(), CUZK_CS_RANDOM_UNIFORM);
    CHECK(rc == CUZK_OK, "%s: cuzk_cs_random %d", name, rc);
    if (rc) {
        free(z);
        return;
    }
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    mem_sink ms = {.fail_at = SIZE_MAX};
    rc = cuzk_zkey_setup(&cs, &tw, mem_write, &ms, POOL2, err, sizeof err);
    CHECK(rc == CUZK_OK && ms.len == cuzk_zkey_size(&cs), "%s: setup: %s (%zu bytes)", name, err, ms.len);
    cuzk_snarkjs_zkey *zk = NULL;
    if (rc == CUZK_OK) {
        rc = cuzk_snarkjs_zkey_from_buffer(ms.p, ms.len, &zk, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: our reader refuses the key: %s", name, err);
    }
    if (zk) {
        expected_key e;
        expected_build(&e, &cs, &tw);
        check_key_points(name, zk, &e);
        check_prove_verify(name, zk, &cs, z, nv, &e);
        expected_free(&e);
    }
    cuzk_snarkjs_zkey_free(zk);
    free(ms.p);
    free(z);
    cuzk_cs_free(&cs);
}

/* ---- sizes and errors --------------------------------------------------------------------- */

static void check_domain(void)
{
    static const struct {
        size_t nin, nc;
        unsigned lg;
    } cases[] = {{1, 0, 1},  {1, 1, 1},  {2, 0, 1},     {3, 1, 2},
                 {3, 29, 5}, {3, 30, 6}, {1, 1023, 10}, {2, 1023, 11}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_cs cs;
        memset(&cs, 0, sizeof cs);
        cs.n_inputs = cases[i].nin;
        cs.n_constraints = cases[i].nc;
        unsigned lg = 0;
        char err[256] = "";
        int rc = cuzk_zkey_domain_lg(&lg, &cs, err, sizeof err);
        CHECK(rc == CUZK_OK && lg == cases[i].lg,
              "domain of %zu constraints + %zu inputs: 2^%u, expected 2^%u (%s)", cases[i].nc, cases[i].nin,
              lg, cases[i].lg, err);
    }
    cuzk_cs big;
    memset(&big, 0, sizeof big);
    big.n_inputs = 1;
    big.n_constraints = (size_t)1 << CUZK_NTT_MAX_LG;
    unsigned lg;
    CHECK(cuzk_zkey_domain_lg(&lg, &big, NULL, 0) == CUZK_ERANGE, "a domain above 2^%d is refused",
          CUZK_NTT_MAX_LG);
    CHECK(cuzk_zkey_size(&big) == 0, "cuzk_zkey_size of a circuit too large is 0");
    big.n_inputs = 0;
    big.n_constraints = 1;
    CHECK(cuzk_zkey_domain_lg(&lg, &big, NULL, 0) == CUZK_EINVAL, "a circuit without inputs is refused");
}

/* Names in TMPDIR_PATH other than keep (NULL: any name counts). */
static int other_files(const char *keep)
{
    DIR *d = opendir(TMPDIR_PATH);
    int n = 0;
    struct dirent *ent;
    while (d && (ent = readdir(d)))
        if (strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..") && (!keep || strcmp(ent->d_name, keep)))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void check_errors(void)
{
    cuzk_cs cs;
    memset(&cs, 0, sizeof cs);
    if (!load_cs(&cs, "bits"))
        return;
    char err[256], path[600];
    cuzk_groth16_toxic good, bad;
    random_toxic(&good);
    test_dir_clear(TMPDIR_PATH);

    /* Bad toxic waste: each value zero, tau in the 2m-domain (ω_2m itself lies outside the m-domain), tau
     * = 1. */
    unsigned lg = 0;
    cuzk_zkey_domain_lg(&lg, &cs, NULL, 0);
    snprintf(path, sizeof path, "%s/key.zkey", TMPDIR_PATH);
    FILE *f = fopen(path, "wb");
    fputs("previous contents", f);
    fclose(f);
    for (int i = 0; i < 7; i++) {
        bad = good;
        cuzk_fr *v[5] = {&bad.tau, &bad.alpha, &bad.beta, &bad.gamma, &bad.delta};
        if (i < 5)
            *v[i] = CUZK_FR_ZERO;
        else if (i == 5)
            cuzk_ntt_root_of_unity(&bad.tau, lg + 1, CUZK_NTT_SNARKJS);
        else
            bad.tau = CUZK_FR_ONE;
        mem_sink ms = {.fail_at = SIZE_MAX};
        err[0] = 0;
        int rc = cuzk_zkey_setup(&cs, &bad, mem_write, &ms, NULL, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && ms.calls == 0 && err[0],
              "bad toxic waste %d: rc %d, %d sink calls, \"%s\"", i, rc, ms.calls, err);
        free(ms.p);
        rc = cuzk_zkey_setup_write(path, &cs, &bad, NULL, err, sizeof err);
        size_t len = 0;
        char *text = test_read_file(path, &len);
        CHECK(rc == CUZK_EINVAL && text && !strcmp(text, "previous contents") && other_files("key.zkey") == 0,
              "bad toxic waste %d: the existing file must stay and no temporary file remain (rc %d)", i, rc);
        free(text);
    }

    /* A sink that fails: the first call, inside the header, inside the points, at the last byte. */
    uint64_t total = cuzk_zkey_size(&cs);
    size_t fails[] = {0, 11, 12 + 16 + 976, (size_t)total / 2, (size_t)total - 1};
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        mem_sink ms = {.fail_at = fails[i]};
        err[0] = 0;
        int rc = cuzk_zkey_setup(&cs, &good, mem_write, &ms, NULL, err, sizeof err);
        CHECK(rc == CUZK_EIO && strstr(err, "output failed") && ms.len <= fails[i],
              "sink failing at %zu: rc %d \"%s\"", fails[i], rc, err);
        free(ms.p);
    }
    CHECK(cuzk_zkey_setup(&cs, &good, NULL, NULL, NULL, err, sizeof err) == CUZK_EINVAL, "no sink: EINVAL");

    /* Unwritable destinations: a missing directory, a directory, an empty path. */
    test_dir_clear(TMPDIR_PATH);
    snprintf(path, sizeof path, "%s/no/such/dir/key.zkey", TMPDIR_PATH);
    int rc = cuzk_zkey_setup_write(path, &cs, &good, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "cannot create") && other_files(NULL) == 0,
          "missing directory: rc %d \"%s\"", rc, err);
    snprintf(path, sizeof path, "%s/adir", TMPDIR_PATH);
    mkdir(path, 0755);
    rc = cuzk_zkey_setup_write(path, &cs, &good, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && other_files("adir") == 0, "a directory as the output: rc %d \"%s\"", rc, err);
    rmdir(path);
    CHECK(cuzk_zkey_setup_write("", &cs, &good, NULL, err, sizeof err) == CUZK_EINVAL, "empty path: EINVAL");

    /* Malformed circuits, refused before any output. */
    struct {
        const char *what;
        int kind;
    } mal[] = {{"term past the variables", 0},
               {"decreasing row offsets", 1},
               {"nnz beyond the rows", 2},
               {"no inputs", 3}};
    for (size_t i = 0; i < sizeof mal / sizeof mal[0]; i++) {
        uint32_t col0 = cs.a.col[0];
        uint64_t row1 = cs.b.row[1], nnz = cs.c.nnz;
        size_t nin = cs.n_inputs;
        if (mal[i].kind == 0)
            cs.a.col[0] = (uint32_t)(cs.n_inputs + cs.n_aux);
        else if (mal[i].kind == 1)
            cs.b.row[1] = cs.b.row[2] + 1;
        else if (mal[i].kind == 2)
            cs.c.nnz = nnz + 1;
        else
            cs.n_inputs = 0;
        mem_sink ms = {.fail_at = SIZE_MAX};
        rc = cuzk_zkey_setup(&cs, &good, mem_write, &ms, NULL, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && ms.calls == 0, "malformed circuit (%s): rc %d, %d sink calls", mal[i].what,
              rc, ms.calls);
        free(ms.p);
        cs.a.col[0] = col0;
        cs.b.row[1] = row1;
        cs.c.nnz = nnz;
        cs.n_inputs = nin;
    }
    CHECK(cuzk_zkey_setup(NULL, &good, mem_write, NULL, NULL, err, sizeof err) == CUZK_EINVAL,
          "no circuit: EINVAL");
    test_dir_clear(TMPDIR_PATH);
    cuzk_cs_free(&cs);
}

int main(void)
{
    test_rng_init("test_zkey_write");
    if (!mkdtemp(TMPDIR_PATH)) {
        perror("mkdtemp");
        return 1;
    }
    POOL2 = cuzk_pool_new(2);
    POOL3 = cuzk_pool_new(3);
    for (size_t i = 0; i < sizeof CIRCUITS / sizeof CIRCUITS[0]; i++)
        check_fixture(CIRCUITS[i]);
    check_random(1, 5, 6);     /* no public signal: 6 + 1 rows, domain 8 */
    check_random(3, 40, 29);   /* 32 rows: the domain exactly full */
    check_random(3, 40, 30);   /* 33 rows: domain 64 */
    check_random(5, 300, 200); /* several public signals, more variables than rows */
    check_domain();
    check_errors();
    test_dir_clear(TMPDIR_PATH);
    rmdir(TMPDIR_PATH);
    cuzk_pool_free(POOL2);
    cuzk_pool_free(POOL3);
    return test_finish("test_zkey_write");
}
