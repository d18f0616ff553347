/*
 * test_verify.c — Groth16 verification and the 192-byte proof encoding.
 *
 * Oracles:
 * - snarkjs: each tests/fixtures/<circuit>/proof.json was written by
 *   `snarkjs groth16 prove` and accepted by `snarkjs groth16 verify` at
 *   generation time, so it must verify here against verification_key.json and
 *   public.json; every tampering (each input + 1, A and C swapped, -A, 2B,
 *   another circuit's proof) must fail with CUZK_EVERIFY.
 * - The zkey: the vk read from verification_key.json must equal the one in
 *   circuit.zkey (decoded by the committed .zkey reader, binary Montgomery
 *   form, so a second path from snarkjs to cuzk), and the proof must verify
 *   under the zkey's vk as well.
 * - vk_alphabeta_12, the e(alpha, beta) snarkjs computed with its own pairing
 *   (ffjavascript's wasm code), must equal cuzk's e(alpha, beta) bit for bit:
 *   both use the final exponent 3 (p^12 - 1) / r (cuzk/pairing.h) and the same
 *   Fp12 tower, which this comparison confirms.
 * - Algebra: a synthetic instance from random toxic waste, all in the
 *   exponent: alpha, beta, gamma, delta, u_i (IC = [u_i] G1), inputs x_i, a, b
 *   random, c = (a b - alpha beta - (u_0 + sum x_i u_i) gamma) / delta. It
 *   must verify; perturbing any one element (proof point, vk point, IC point,
 *   input) must not.
 * Re-randomisation (A / r1, r1 B + r1 r2 delta, C + r2 A) of a snarkjs proof
 * gives a new valid proof, also after a proof.json round trip; applying only
 * part of it does not.
 * Batch verification: valid batches pass; one bad proof fails the batch; two
 * bad proofs whose errors cancel in an unweighted sum (C_1 + T, C_2 - T) fail
 * too, which only random weights achieve.
 * Malformed input: wrong input counts (exact message), points off the curve
 * and on the curve outside the subgroup (G1 and G2), an empty key.
 * Bytes: round trip, identity rejected for A, B and C, bad flag bits,
 * non-canonical x, truncated and over-long concatenations.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/json.h"
#include "cuzk/serialize.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"
#include "testutil.h"

#define FIXTURES CUZK_VECTOR_DIR "/../fixtures"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };

typedef struct {
    const char *name;
    cuzk_groth16_vk vk;
    cuzk_groth16_proof proof;
    cuzk_fr *pub;
    size_t n_pub;
    bool ok;
} fixture;

static fixture FX[NCIRCUITS];

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void path_of(char *out, size_t n, const char *circuit, const char *file)
{
    snprintf(out, n, "%s/%s/%s", FIXTURES, circuit, file);
}

static bool msg_has(const char *err, const char *needle)
{
    bool ok = strstr(err, needle) != NULL;
    if (!ok)
        printf("  message was: %s\n", err);
    return ok;
}

static void g1_mul_gen(cuzk_g1_affine *out, const cuzk_fr *k)
{
    cuzk_g1 t;
    cuzk_g1_from_affine(&t, &CUZK_G1_GENERATOR);
    cuzk_g1_mul_fr(&t, &t, k);
    cuzk_g1_to_affine(out, &t);
}

static void g2_mul_gen(cuzk_g2_affine *out, const cuzk_fr *k)
{
    cuzk_g2 t;
    cuzk_g2_from_affine(&t, &CUZK_G2_GENERATOR);
    cuzk_g2_mul_fr(&t, &t, k);
    cuzk_g2_to_affine(out, &t);
}

static void g1_add_aff(cuzk_g1_affine *r, const cuzk_g1_affine *a, const cuzk_g1_affine *b)
{
    cuzk_g1 t;
    cuzk_g1_from_affine(&t, a);
    cuzk_g1_add_affine(&t, &t, b);
    cuzk_g1_to_affine(r, &t);
}

static void g2_add_aff(cuzk_g2_affine *r, const cuzk_g2_affine *a, const cuzk_g2_affine *b)
{
    cuzk_g2 t;
    cuzk_g2_from_affine(&t, a);
    cuzk_g2_add_affine(&t, &t, b);
    cuzk_g2_to_affine(r, &t);
}

/* A point of E(Fp) outside G1 (the cofactor is huge, so a random curve point almost never is in G1). */
static void g1_off_group(cuzk_g1_affine *p)
{
    for (;;) {
        cuzk_fp x, rhs, four, y;
        test_rand_fp(&x);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_from_u64(&four, 4);
        cuzk_fp_add(&rhs, &rhs, &four);
        if (!cuzk_fp_sqrt(&y, &rhs))
            continue;
        p->x = x;
        p->y = y;
        if (cuzk_g1_affine_on_curve(p) && !cuzk_g1_affine_in_group(p))
            return;
    }
}

static void g2_off_group(cuzk_g2_affine *p)
{
    for (;;) {
        cuzk_fp2 x, rhs, b, y;
        test_rand_fp2(&x);
        cuzk_fp2_sqr(&rhs, &x);
        cuzk_fp2_mul(&rhs, &rhs, &x);
        cuzk_fp_from_u64(&b.c0, 4);
        cuzk_fp_from_u64(&b.c1, 4);
        cuzk_fp2_add(&rhs, &rhs, &b);
        if (!cuzk_fp2_sqrt(&y, &rhs))
            continue;
        p->x = x;
        p->y = y;
        if (cuzk_g2_affine_on_curve(p) && !cuzk_g2_affine_in_group(p))
            return;
    }
}

/* ---- fixtures ---------------------------------------------------------------------------- */

static void load_fixture(fixture *f, const char *name)
{
    char path[512], err[256] = "";
    f->name = name;
    path_of(path, sizeof path, name, "verification_key.json");
    int rc = cuzk_snarkjs_vk_read(path, &f->vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: vk read: %s", name, err);
    path_of(path, sizeof path, name, "proof.json");
    int rc2 = cuzk_snarkjs_proof_read(path, &f->proof, err, sizeof err);
    CHECK(rc2 == CUZK_OK, "%s: proof read: %s", name, err);
    path_of(path, sizeof path, name, "public.json");
    int rc3 = cuzk_snarkjs_public_read(path, &f->pub, &f->n_pub, err, sizeof err);
    CHECK(rc3 == CUZK_OK, "%s: public read: %s", name, err);
    f->ok = !rc && !rc2 && !rc3;
}

/* The vk inside circuit.zkey, through the binary reader. */
static bool zkey_vk(const char *name, cuzk_groth16_vk *vk, uint32_t *n_public)
{
    char path[512], err[256] = "";
    path_of(path, sizeof path, name, "circuit.zkey");
    cuzk_snarkjs_zkey *z = NULL;
    int rc = cuzk_snarkjs_zkey_open(path, &z, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: zkey open: %s", name, err);
    if (rc)
        return false;
    memset(vk, 0, sizeof *vk);
    vk->alpha_g1 = z->alpha1;
    vk->beta_g1 = z->beta1;
    vk->delta_g1 = z->delta1;
    vk->beta_g2 = z->beta2;
    vk->gamma_g2 = z->gamma2;
    vk->delta_g2 = z->delta2;
    vk->n_ic = z->ic.count;
    vk->ic = calloc(vk->n_ic, sizeof *vk->ic);
    bool ok = true;
    for (size_t i = 0; i < vk->n_ic; i++) {
        rc = cuzk_snarkjs_points_g1(&z->ic, i, CUZK_DECODE_CHECK_GROUP, &vk->ic[i], err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: zkey IC[%zu]: %s", name, i, err);
        ok &= rc == CUZK_OK;
    }
    *n_public = z->n_public;
    cuzk_snarkjs_zkey_free(z);
    return ok;
}

static void test_fixture_vk_matches_zkey(const fixture *f)
{
    cuzk_groth16_vk zvk;
    uint32_t n_public = 0;
    if (!zkey_vk(f->name, &zvk, &n_public)) {
        cuzk_groth16_vk_free(&zvk);
        return;
    }
    CHECK(f->vk.n_ic == (size_t)n_public + 1, "%s: IC count %zu, zkey nPublic %u", f->name, f->vk.n_ic,
          n_public);
    CHECK(f->n_pub == n_public, "%s: public.json has %zu values, zkey nPublic %u", f->name, f->n_pub,
          n_public);
    CHECK(cuzk_g1_affine_eq(&f->vk.alpha_g1, &zvk.alpha_g1), "%s: alpha differs from the zkey", f->name);
    CHECK(cuzk_g2_affine_eq(&f->vk.beta_g2, &zvk.beta_g2), "%s: beta differs from the zkey", f->name);
    CHECK(cuzk_g2_affine_eq(&f->vk.gamma_g2, &zvk.gamma_g2), "%s: gamma differs from the zkey", f->name);
    CHECK(cuzk_g2_affine_eq(&f->vk.delta_g2, &zvk.delta_g2), "%s: delta differs from the zkey", f->name);
    for (size_t i = 0; i < f->vk.n_ic && i < zvk.n_ic; i++)
        CHECK(cuzk_g1_affine_eq(&f->vk.ic[i], &zvk.ic[i]), "%s: IC[%zu] differs from the zkey", f->name, i);
    /* the proof verifies under the zkey's own vk too */
    static cuzk_groth16_pvk pvk;
    char err[256] = "";
    int rc = cuzk_groth16_prepare(&pvk, &zvk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prepare zkey vk: %s", f->name, err);
    if (!rc) {
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &f->proof, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: proof under the zkey vk: %d %s", f->name, rc, err);
    }
    cuzk_groth16_vk_free(&zvk);
}

/* vk_alphabeta_12 (snarkjs's e(alpha, beta)) equals the prepared key's e(alpha, beta). */
static void test_alphabeta(const fixture *f, const cuzk_groth16_pvk *pvk)
{
    char path[512], err[256] = "";
    path_of(path, sizeof path, f->name, "verification_key.json");
    FILE *fp = fopen(path, "rb");
    CHECK(fp != NULL, "open %s", path);
    if (!fp)
        return;
    char *text = malloc(1 << 20);
    size_t len = fread(text, 1, 1 << 20, fp);
    fclose(fp);
    cuzk_json_doc *doc = NULL;
    int rc = cuzk_json_parse(text, len, NULL, &doc, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: json: %s", f->name, err);
    const cuzk_json_value *ab = rc ? NULL : cuzk_json_member(cuzk_json_root(doc), "vk_alphabeta_12");
    CHECK(ab && ab->type == CUZK_JSON_ARRAY && ab->n == 2, "%s: vk_alphabeta_12 shape", f->name);
    if (ab && ab->n == 2) {
        cuzk_fp12 e;
        cuzk_fp6 *half[2] = {&e.c0, &e.c1};
        bool ok = true;
        for (int i = 0; i < 2 && ok; i++) {
            const cuzk_json_value *h = &ab->items[i];
            cuzk_fp2 *c[3] = {&half[i]->c0, &half[i]->c1, &half[i]->c2};
            ok = h->type == CUZK_JSON_ARRAY && h->n == 3;
            for (int j = 0; j < 3 && ok; j++) {
                const cuzk_json_value *q = &h->items[j];
                ok = q->type == CUZK_JSON_ARRAY && q->n == 2 &&
                     !cuzk_fp_from_decimal(&c[j]->c0, q->items[0].str, q->items[0].len, NULL, 0) &&
                     !cuzk_fp_from_decimal(&c[j]->c1, q->items[1].str, q->items[1].len, NULL, 0);
            }
        }
        CHECK(ok, "%s: vk_alphabeta_12 decode", f->name);
        if (ok)
            CHECK(cuzk_fp12_eq(&e, &pvk->alpha_beta), "%s: vk_alphabeta_12 != e(alpha, beta)", f->name);
    }
    cuzk_json_free(doc);
    free(text);
}

static void test_fixture_verify(fixture *f, const fixture *other)
{
    static cuzk_groth16_pvk pvk;
    char err[256] = "";
    int rc = cuzk_groth16_prepare(&pvk, &f->vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prepare: %s", f->name, err);
    if (rc)
        return;
    test_alphabeta(f, &pvk);

    /* timing: the best of several runs (the machine is shared) */
    double best = 1e9;
    for (int k = 0; k < 10; k++) {
        double t0 = now_ms();
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &f->proof, err, sizeof err);
        double t1 = now_ms();
        best = t1 - t0 < best ? t1 - t0 : best;
        CHECK(rc == CUZK_OK, "%s: snarkjs proof does not verify: %d %s", f->name, rc, err);
    }
    printf("  %s: %zu public inputs, verify %.2f ms (best of 10)\n", f->name, f->n_pub, best);

    /* each public input + 1 */
    for (size_t i = 0; i < f->n_pub; i++) {
        cuzk_fr save = f->pub[i];
        cuzk_fr_add(&f->pub[i], &f->pub[i], &CUZK_FR_ONE);
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &f->proof, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: input %zu + 1 accepted (%d)", f->name, i, rc);
        f->pub[i] = save;
    }
    cuzk_groth16_proof t = f->proof;
    t.a = f->proof.c;
    t.c = f->proof.a;
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: A and C swapped accepted (%d)", f->name, rc);
    t = f->proof;
    cuzk_g1_affine_neg(&t.a, &t.a);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: -A accepted (%d)", f->name, rc);
    t = f->proof;
    g2_add_aff(&t.b, &t.b, &t.b);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: 2B accepted (%d)", f->name, rc);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &other->proof, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: %s's proof accepted (%d)", f->name, other->name, rc);
    t = f->proof;
    memset(&t.c, 0, sizeof t.c);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: identity C accepted (%d)", f->name, rc);

    /* wrong input counts */
    cuzk_fr *more = calloc(f->n_pub + 1, sizeof *more);
    memcpy(more, f->pub, f->n_pub * sizeof *more);
    rc = cuzk_groth16_verify(&pvk, more, f->n_pub + 1, &f->proof, err, sizeof err);
    char want[96];
    snprintf(want, sizeof want, "verify: %zu public inputs but the key expects %zu", f->n_pub + 1, f->n_pub);
    CHECK(rc == CUZK_EINVAL && msg_has(err, want), "%s: one input too many (%d)", f->name, rc);
    if (f->n_pub > 0) {
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub - 1, &f->proof, err, sizeof err);
        snprintf(want, sizeof want, "verify: %zu public inputs but the key expects %zu", f->n_pub - 1,
                 f->n_pub);
        CHECK(rc == CUZK_EINVAL && msg_has(err, want), "%s: one input too few (%d)", f->name, rc);
    }
    free(more);

    /* points off the curve, and on the curve outside the subgroup */
    t = f->proof;
    cuzk_fp_add(&t.a.y, &t.a.y, &CUZK_FP_ONE);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof A is not on the curve"), "%s: A off the curve (%d)",
          f->name, rc);
    t = f->proof;
    cuzk_fp_add(&t.b.x.c1, &t.b.x.c1, &CUZK_FP_ONE);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof B is not on the curve"), "%s: B off the curve (%d)",
          f->name, rc);
    t = f->proof;
    g1_off_group(&t.c);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof C is not in the r-order subgroup"), "%s: C off G1 (%d)",
          f->name, rc);
    t = f->proof;
    g2_off_group(&t.b);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof B is not in the r-order subgroup"), "%s: B off G2 (%d)",
          f->name, rc);

    /* the proof survives the bellperson byte encoding */
    uint8_t bytes[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(bytes, &f->proof);
    cuzk_groth16_proof back;
    rc = cuzk_groth16_proof_from_bytes(&back, bytes, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: from_bytes: %s", f->name, err);
    CHECK(!rc && !memcmp(&back, &f->proof, sizeof back), "%s: bytes round trip", f->name);
    rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &back, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: decoded proof does not verify (%d)", f->name, rc);

    /* re-randomised (A / r1, r1 B + r1 r2 delta, C + r2 A): a new valid proof, also after proof.json */
    {
        cuzk_fr r1, r2, r1i, rr;
        test_rand_fr(&r1);
        test_rand_fr(&r2);
        cuzk_fr_inv(&r1i, &r1);
        cuzk_fr_mul(&rr, &r1, &r2);
        cuzk_g1 ja, jc, jt;
        cuzk_g2 jb, jd;
        cuzk_g1_from_affine(&ja, &f->proof.a);
        cuzk_g1_mul_fr(&ja, &ja, &r1i);
        cuzk_g2_from_affine(&jb, &f->proof.b);
        cuzk_g2_mul_fr(&jb, &jb, &r1);
        cuzk_g2_from_affine(&jd, &f->vk.delta_g2);
        cuzk_g2_mul_fr(&jd, &jd, &rr);
        cuzk_g2_add(&jb, &jb, &jd);
        cuzk_g1_from_affine(&jt, &f->proof.a);
        cuzk_g1_mul_fr(&jt, &jt, &r2);
        cuzk_g1_from_affine(&jc, &f->proof.c);
        cuzk_g1_add(&jc, &jc, &jt);
        cuzk_g1_to_affine(&t.a, &ja);
        cuzk_g2_to_affine(&t.b, &jb);
        cuzk_g1_to_affine(&t.c, &jc);
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: re-randomised proof rejected (%d)", f->name, rc);
        char *json = NULL;
        size_t jlen = 0;
        rc = cuzk_snarkjs_proof_format(&t, &json, &jlen, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: format: %s", f->name, err);
        if (!rc) {
            memset(&back, 0, sizeof back);
            rc = cuzk_snarkjs_proof_parse(json, jlen, &back, err, sizeof err);
            CHECK(rc == CUZK_OK && !memcmp(&back, &t, sizeof t), "%s: proof.json round trip: %s", f->name,
                  err);
            rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &back, err, sizeof err);
            CHECK(rc == CUZK_OK, "%s: re-randomised proof after proof.json rejected (%d)", f->name, rc);
            free(json);
        }
        t.c = f->proof.c; /* r2 applied to B but not to C */
        rc = cuzk_groth16_verify(&pvk, f->pub, f->n_pub, &t, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: half re-randomised proof accepted (%d)", f->name, rc);
    }

    /* batch of one, and the proof twice */
    rc = cuzk_groth16_verify_batch(&pvk, f->pub, f->n_pub, &f->proof, 1, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: batch of one: %d %s", f->name, rc, err);
    cuzk_groth16_proof two[2] = {f->proof, f->proof};
    cuzk_fr *in2 = calloc(2 * f->n_pub + 1, sizeof *in2);
    memcpy(in2, f->pub, f->n_pub * sizeof *in2);
    memcpy(in2 + f->n_pub, f->pub, f->n_pub * sizeof *in2);
    rc = cuzk_groth16_verify_batch(&pvk, in2, f->n_pub, two, 2, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: batch of two copies: %d %s", f->name, rc, err);
    two[1] = other->proof;
    rc = cuzk_groth16_verify_batch(&pvk, in2, f->n_pub, two, 2, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "%s: batch with a foreign proof accepted (%d)", f->name, rc);
    free(in2);
}

/* ---- synthetic instance ----------------------------------------------------------------- */

typedef struct {
    cuzk_fr alpha, beta, gamma, delta, u[4];
    size_t n_in;
    cuzk_groth16_vk vk;
} toxic;

static void toxic_new(toxic *t, size_t n_in)
{
    t->n_in = n_in;
    test_rand_fr(&t->alpha);
    test_rand_fr(&t->beta);
    test_rand_fr(&t->gamma);
    test_rand_fr(&t->delta);
    memset(&t->vk, 0, sizeof t->vk);
    g1_mul_gen(&t->vk.alpha_g1, &t->alpha);
    g2_mul_gen(&t->vk.beta_g2, &t->beta);
    g2_mul_gen(&t->vk.gamma_g2, &t->gamma);
    g2_mul_gen(&t->vk.delta_g2, &t->delta);
    g1_mul_gen(&t->vk.beta_g1, &t->beta);
    g1_mul_gen(&t->vk.delta_g1, &t->delta);
    t->vk.n_ic = n_in + 1;
    t->vk.ic = calloc(n_in + 1, sizeof *t->vk.ic);
    for (size_t i = 0; i <= n_in; i++) {
        test_rand_fr(&t->u[i]);
        g1_mul_gen(&t->vk.ic[i], &t->u[i]);
    }
}

/* A proof for inputs x: random a, b; c = (a b - alpha beta - (u_0 + sum x_i u_i) gamma) / delta. */
static void toxic_prove(const toxic *t, const cuzk_fr *x, cuzk_groth16_proof *p)
{
    cuzk_fr a, b, c, s, w, dinv;
    test_rand_fr(&a);
    test_rand_fr(&b);
    s = t->u[0];
    for (size_t i = 0; i < t->n_in; i++) {
        cuzk_fr_mul(&w, &x[i], &t->u[i + 1]);
        cuzk_fr_add(&s, &s, &w);
    }
    cuzk_fr_mul(&c, &a, &b);
    cuzk_fr_mul(&w, &t->alpha, &t->beta);
    cuzk_fr_sub(&c, &c, &w);
    cuzk_fr_mul(&w, &s, &t->gamma);
    cuzk_fr_sub(&c, &c, &w);
    cuzk_fr_inv(&dinv, &t->delta);
    cuzk_fr_mul(&c, &c, &dinv);
    g1_mul_gen(&p->a, &a);
    g2_mul_gen(&p->b, &b);
    g1_mul_gen(&p->c, &c);
}

static int verify_with(const cuzk_groth16_vk *vk, const cuzk_fr *x, size_t n, const cuzk_groth16_proof *p)
{
    static cuzk_groth16_pvk pvk;
    char err[256] = "";
    int rc = cuzk_groth16_prepare(&pvk, vk, err, sizeof err);
    if (rc) {
        printf("  prepare: %s\n", err);
        return rc;
    }
    return cuzk_groth16_verify(&pvk, x, n, p, err, sizeof err);
}

static void test_synthetic(size_t n_in)
{
    toxic t;
    toxic_new(&t, n_in);
    cuzk_fr x[3];
    for (size_t i = 0; i < n_in; i++)
        test_rand_fr(&x[i]);
    cuzk_groth16_proof p;
    toxic_prove(&t, x, &p);
    int rc = verify_with(&t.vk, x, n_in, &p);
    CHECK(rc == CUZK_OK, "synthetic (%zu inputs): valid proof rejected (%d)", n_in, rc);

    cuzk_g1_affine g1 = CUZK_G1_GENERATOR;
    cuzk_g2_affine g2 = CUZK_G2_GENERATOR;
    cuzk_groth16_proof q = p;
    g1_add_aff(&q.a, &q.a, &g1);
    CHECK(verify_with(&t.vk, x, n_in, &q) == CUZK_EVERIFY, "synthetic: A + G accepted");
    q = p;
    g2_add_aff(&q.b, &q.b, &g2);
    CHECK(verify_with(&t.vk, x, n_in, &q) == CUZK_EVERIFY, "synthetic: B + G accepted");
    q = p;
    g1_add_aff(&q.c, &q.c, &g1);
    CHECK(verify_with(&t.vk, x, n_in, &q) == CUZK_EVERIFY, "synthetic: C + G accepted");
    for (size_t i = 0; i < n_in; i++) {
        cuzk_fr save = x[i];
        cuzk_fr_add(&x[i], &x[i], &CUZK_FR_ONE);
        CHECK(verify_with(&t.vk, x, n_in, &p) == CUZK_EVERIFY, "synthetic: input %zu + 1 accepted", i);
        x[i] = save;
    }
    cuzk_groth16_vk v = t.vk;
    g1_add_aff(&v.alpha_g1, &v.alpha_g1, &g1);
    CHECK(verify_with(&v, x, n_in, &p) == CUZK_EVERIFY, "synthetic: alpha + G accepted");
    v = t.vk;
    g2_add_aff(&v.beta_g2, &v.beta_g2, &g2);
    CHECK(verify_with(&v, x, n_in, &p) == CUZK_EVERIFY, "synthetic: beta + G accepted");
    v = t.vk;
    g2_add_aff(&v.gamma_g2, &v.gamma_g2, &g2);
    CHECK(verify_with(&v, x, n_in, &p) == CUZK_EVERIFY, "synthetic: gamma + G accepted");
    v = t.vk;
    g2_add_aff(&v.delta_g2, &v.delta_g2, &g2);
    CHECK(verify_with(&v, x, n_in, &p) == CUZK_EVERIFY, "synthetic: delta + G accepted");
    cuzk_g1_affine ic[4];
    for (size_t i = 0; i <= n_in; i++) {
        v = t.vk;
        memcpy(ic, t.vk.ic, (n_in + 1) * sizeof *ic);
        g1_add_aff(&ic[i], &ic[i], &g1);
        v.ic = ic;
        CHECK(verify_with(&v, x, n_in, &p) == CUZK_EVERIFY, "synthetic: IC[%zu] + G accepted", i);
    }
    /* a zero input is handled (the IC term drops out) */
    if (n_in > 0) {
        cuzk_fr z[3];
        memcpy(z, x, n_in * sizeof *z);
        z[0] = CUZK_FR_ZERO;
        toxic_prove(&t, z, &q);
        CHECK(verify_with(&t.vk, z, n_in, &q) == CUZK_OK, "synthetic: proof with a zero input rejected");
    }
    /* identity A and B with c = -(alpha beta + IC gamma)/delta: allowed by verify (the math holds) */
    {
        cuzk_fr s = t.u[0], w, c, dinv;
        for (size_t i = 0; i < n_in; i++) {
            cuzk_fr_mul(&w, &x[i], &t.u[i + 1]);
            cuzk_fr_add(&s, &s, &w);
        }
        cuzk_fr_mul(&c, &t.alpha, &t.beta);
        cuzk_fr_mul(&w, &s, &t.gamma);
        cuzk_fr_add(&c, &c, &w);
        cuzk_fr_neg(&c, &c);
        cuzk_fr_inv(&dinv, &t.delta);
        cuzk_fr_mul(&c, &c, &dinv);
        memset(&q, 0, sizeof q);
        g1_mul_gen(&q.c, &c);
        CHECK(verify_with(&t.vk, x, n_in, &q) == CUZK_OK,
              "synthetic: identity A, B proof rejected by verify");
        uint8_t bytes[CUZK_GROTH16_PROOF_SIZE];
        cuzk_groth16_proof_to_bytes(bytes, &q);
        char err[256] = "";
        int rc2 = cuzk_groth16_proof_from_bytes(&q, bytes, err, sizeof err);
        CHECK(rc2 == CUZK_EINVAL && msg_has(err, "proof: A"), "synthetic: identity A decoded from bytes (%d)",
              rc2);
    }
    cuzk_groth16_vk_free(&t.vk);
}

static void test_batch(void)
{
    enum { N = 6, NIN = 2 };
    toxic t;
    toxic_new(&t, NIN);
    cuzk_fr x[N * NIN];
    cuzk_groth16_proof p[N];
    for (size_t j = 0; j < N; j++) {
        for (size_t i = 0; i < NIN; i++)
            test_rand_fr(&x[j * NIN + i]);
        toxic_prove(&t, &x[j * NIN], &p[j]);
    }
    static cuzk_groth16_pvk pvk;
    char err[256] = "";
    int rc = cuzk_groth16_prepare(&pvk, &t.vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "batch prepare: %s", err);
    double best = 1e9;
    for (int k = 0; k < 5; k++) {
        double t0 = now_ms();
        rc = cuzk_groth16_verify_batch(&pvk, x, NIN, p, N, err, sizeof err);
        double t1 = now_ms();
        best = t1 - t0 < best ? t1 - t0 : best;
        CHECK(rc == CUZK_OK, "batch of %d valid proofs rejected: %s", N, err);
    }
    printf("  batch of %d proofs (%d inputs): %.2f ms (best of 5)\n", N, NIN, best);
    for (size_t j = 0; j < N; j++)
        CHECK(cuzk_groth16_verify(&pvk, &x[j * NIN], NIN, &p[j], err, sizeof err) == CUZK_OK,
              "batch member %zu rejected alone", j);

    size_t bad = test_rand64() % N;
    cuzk_fr save = x[bad * NIN + 1];
    cuzk_fr_add(&x[bad * NIN + 1], &x[bad * NIN + 1], &CUZK_FR_ONE);
    rc = cuzk_groth16_verify_batch(&pvk, x, NIN, p, N, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "batch with a wrong input in proof %zu accepted (%d)", bad, rc);
    x[bad * NIN + 1] = save;

    /* C_1 + T and C_2 - T: each wrong, their unweighted sum right */
    cuzk_fr k;
    test_rand_fr(&k);
    cuzk_g1_affine T, negT;
    g1_mul_gen(&T, &k);
    cuzk_g1_affine_neg(&negT, &T);
    cuzk_groth16_proof q[N];
    memcpy(q, p, sizeof q);
    g1_add_aff(&q[1].c, &q[1].c, &T);
    g1_add_aff(&q[3].c, &q[3].c, &negT);
    rc = cuzk_groth16_verify_batch(&pvk, x, NIN, q, N, err, sizeof err);
    CHECK(rc == CUZK_EVERIFY, "batch with cancelling errors accepted (%d)", rc);

    rc = cuzk_groth16_verify_batch(&pvk, x, NIN + 1, p, N, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "3 public inputs but the key expects 2"),
          "batch input count (%d)", rc);
    rc = cuzk_groth16_verify_batch(&pvk, x, NIN, p, 0, err, sizeof err);
    CHECK(rc == CUZK_EINVAL, "empty batch accepted (%d)", rc);
    memcpy(q, p, sizeof q);
    cuzk_fp_add(&q[4].a.x, &q[4].a.x, &CUZK_FP_ONE);
    rc = cuzk_groth16_verify_batch(&pvk, x, NIN, q, N, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof 4 A is not on the curve"), "batch bad point (%d)", rc);
    cuzk_groth16_vk_free(&t.vk);
}

static void test_prepare_errors(void)
{
    toxic t;
    toxic_new(&t, 1);
    static cuzk_groth16_pvk pvk;
    char err[256] = "";
    cuzk_groth16_vk v = t.vk;
    v.n_ic = 0;
    CHECK(cuzk_groth16_prepare(&pvk, &v, err, sizeof err) == CUZK_EINVAL, "vk without IC accepted");
    v = t.vk;
    cuzk_fp_add(&v.gamma_g2.y.c0, &v.gamma_g2.y.c0, &CUZK_FP_ONE);
    CHECK(cuzk_groth16_prepare(&pvk, &v, err, sizeof err) == CUZK_EINVAL && msg_has(err, "key gamma"),
          "vk gamma off the curve accepted");
    v = t.vk;
    cuzk_g1_affine ic[2] = {t.vk.ic[0], t.vk.ic[1]};
    g1_off_group(&ic[1]);
    v.ic = ic;
    CHECK(cuzk_groth16_prepare(&pvk, &v, err, sizeof err) == CUZK_EINVAL && msg_has(err, "key IC[1]"),
          "vk IC outside G1 accepted");
    cuzk_groth16_vk_free(&t.vk);
}

/* ---- bytes ------------------------------------------------------------------------------ */

static void test_bytes(void)
{
    toxic t;
    toxic_new(&t, 1);
    cuzk_fr x;
    test_rand_fr(&x);
    cuzk_groth16_proof p, q;
    toxic_prove(&t, &x, &p);
    uint8_t b[3 * CUZK_GROTH16_PROOF_SIZE], c[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(b, &p);
    char err[256] = "";
    int rc = cuzk_groth16_proof_from_bytes(&q, b, err, sizeof err);
    CHECK(rc == CUZK_OK && !memcmp(&p, &q, sizeof p), "bytes round trip: %s", err);
    /* the three parts are the compressed encodings */
    uint8_t e[96];
    cuzk_g1_compress(e, &p.a);
    CHECK(!memcmp(b, e, 48), "bytes: A is not at 0..48");
    cuzk_g2_compress(e, &p.b);
    CHECK(!memcmp(b + 48, e, 96), "bytes: B is not at 48..144");
    cuzk_g1_compress(e, &p.c);
    CHECK(!memcmp(b + 144, e, 48), "bytes: C is not at 144..192");

    /* identity in each position */
    static const struct {
        size_t off, len;
        const char *name;
    } part[3] = {{0, 48, "A"}, {48, 96, "B"}, {144, 48, "C"}};
    for (int k = 0; k < 3; k++) {
        memcpy(c, b, sizeof c);
        memset(c + part[k].off, 0, part[k].len);
        c[part[k].off] = 0xc0;
        q = p;
        rc = cuzk_groth16_proof_from_bytes(&q, c, err, sizeof err);
        char want[16];
        snprintf(want, sizeof want, "proof: %s", part[k].name);
        CHECK(rc == CUZK_EINVAL && msg_has(err, want), "bytes: identity %s accepted (%d)", part[k].name, rc);
        CHECK(!memcmp(&q, &p, sizeof q), "bytes: output touched on failure");
        /* compression bit cleared */
        memcpy(c, b, sizeof c);
        c[part[k].off] &= 0x7f;
        rc = cuzk_groth16_proof_from_bytes(&q, c, err, sizeof err);
        CHECK(rc == CUZK_EFLAGS, "bytes: %s without the compression bit (%d)", part[k].name, rc);
        /* infinity bit with a non-zero x */
        memcpy(c, b, sizeof c);
        c[part[k].off] |= 0x40;
        rc = cuzk_groth16_proof_from_bytes(&q, c, err, sizeof err);
        CHECK(rc == CUZK_EFLAGS, "bytes: %s infinity bit with data (%d)", part[k].name, rc);
        /* x >= p: all ones under the flags */
        memcpy(c, b, sizeof c);
        memset(c + part[k].off, 0xff, part[k].len);
        c[part[k].off] = 0x9f;
        rc = cuzk_groth16_proof_from_bytes(&q, c, err, sizeof err);
        CHECK(rc == CUZK_ENONCANONICAL, "bytes: %s with x >= p (%d)", part[k].name, rc);
    }
    /* one random bit flip anywhere: either rejected or a different proof that does not verify */
    static cuzk_groth16_pvk pvk;
    cuzk_groth16_prepare(&pvk, &t.vk, err, sizeof err);
    for (int it = 0; it < 8; it++) {
        memcpy(c, b, sizeof c);
        size_t bit = test_rand64() % (8 * sizeof c);
        c[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        rc = cuzk_groth16_proof_from_bytes(&q, c, err, sizeof err);
        if (rc == CUZK_OK)
            rc = cuzk_groth16_verify(&pvk, &x, 1, &q, err, sizeof err);
        CHECK(rc != CUZK_OK, "bytes: bit %zu flipped and still valid", bit);
    }

    /* concatenations */
    cuzk_groth16_proof many[3];
    size_t n = 99;
    memcpy(b + 192, b, 192);
    memcpy(b + 384, b, 192);
    rc = cuzk_groth16_proofs_from_bytes(many, 3, b, sizeof b, &n, err, sizeof err);
    CHECK(rc == CUZK_OK && n == 3 && !memcmp(&many[2], &p, sizeof p), "bytes: three proofs: %s", err);
    size_t bad_len[] = {0, 1, 47, 191, 193, 383, 575};
    for (size_t i = 0; i < sizeof bad_len / sizeof *bad_len; i++) {
        uint8_t *h = malloc(bad_len[i] ? bad_len[i] : 1);
        memcpy(h, b, bad_len[i]);
        rc = cuzk_groth16_proofs_from_bytes(many, 3, h, bad_len[i], &n, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && n == 0, "bytes: %zu bytes accepted (%d)", bad_len[i], rc);
        free(h);
    }
    rc = cuzk_groth16_proofs_from_bytes(many, 2, b, sizeof b, &n, err, sizeof err);
    CHECK(rc == CUZK_ERANGE, "bytes: three proofs into room for two (%d)", rc);
    memset(b + 192 + 144, 0, 48);
    b[192 + 144] = 0xc0;
    rc = cuzk_groth16_proofs_from_bytes(many, 3, b, sizeof b, &n, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "proof 1 of 3: proof: C"), "bytes: identity in proof 1 (%d)", rc);
    cuzk_groth16_vk_free(&t.vk);
}

int main(void)
{
    test_rng_init("test_verify");
    for (int i = 0; i < NCIRCUITS; i++)
        load_fixture(&FX[i], CIRCUITS[i]);
    for (int i = 0; i < NCIRCUITS; i++) {
        if (!FX[i].ok || !FX[(i + 1) % NCIRCUITS].ok)
            continue;
        test_fixture_verify(&FX[i], &FX[(i + 1) % NCIRCUITS]);
        test_fixture_vk_matches_zkey(&FX[i]);
    }
    for (size_t n = 0; n <= 3; n++)
        test_synthetic(n);
    test_batch();
    test_prepare_errors();
    test_bytes();
    for (int i = 0; i < NCIRCUITS; i++) {
        cuzk_groth16_vk_free(&FX[i].vk);
        free(FX[i].pub);
    }
    return test_finish("test_verify");
}
