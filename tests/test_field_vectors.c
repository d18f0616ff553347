/*
 * test_field_vectors.c — Fp, Fr and Fp2 against the @noble/curves vectors in
 * tests/vectors/{fp,fr,fp2}.txt, plus the constants of consts.txt.
 *
 * Square roots are compared up to sign (x^2 = a and x = ±expected), since
 * the two libraries may pick different roots; existence must agree exactly.
 * Every line of every file is consumed: an unknown op is a failure, so a
 * regenerated file with new ops cannot be silently skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/field.h"
#include "testutil.h"

static int ops_seen;

/* ---- Fp and Fr share one driver through a small vtable. ---------------------- */

typedef struct {
    const char *file;
    size_t elem, limbs;
    bool (*parse)(void *r, const char *hex);
    void (*add)(void *, const void *, const void *);
    void (*sub)(void *, const void *, const void *);
    void (*mul)(void *, const void *, const void *);
    void (*sqr)(void *, const void *);
    void (*neg)(void *, const void *);
    bool (*inv)(void *, const void *);
    bool (*sqrt)(void *, const void *);
    int (*legendre)(const void *);
    void (*pow)(void *, const void *, const uint64_t *, size_t);
} field_ops;

#define CAST2(f) ((void (*)(void *, const void *))(f))
#define CAST3(f) ((void (*)(void *, const void *, const void *))(f))

static bool parse_fp(void *r, const char *h) { return hex_fp(r, h); }
static bool parse_fr(void *r, const char *h) { return hex_fr(r, h); }

static const field_ops FP_OPS = {
    "fp.txt", sizeof(cuzk_fp), 6, parse_fp, CAST3(cuzk_fp_add), CAST3(cuzk_fp_sub), CAST3(cuzk_fp_mul),
    CAST2(cuzk_fp_sqr), CAST2(cuzk_fp_neg), (bool (*)(void *, const void *))cuzk_fp_inv,
    (bool (*)(void *, const void *))cuzk_fp_sqrt, (int (*)(const void *))cuzk_fp_legendre,
    (void (*)(void *, const void *, const uint64_t *, size_t))cuzk_fp_pow};
static const field_ops FR_OPS = {
    "fr.txt", sizeof(cuzk_fr), 4, parse_fr, CAST3(cuzk_fr_add), CAST3(cuzk_fr_sub), CAST3(cuzk_fr_mul),
    CAST2(cuzk_fr_sqr), CAST2(cuzk_fr_neg), (bool (*)(void *, const void *))cuzk_fr_inv,
    (bool (*)(void *, const void *))cuzk_fr_sqrt, (int (*)(const void *))cuzk_fr_legendre,
    (void (*)(void *, const void *, const uint64_t *, size_t))cuzk_fr_pow};

static void run_prime_field(const field_ops *f)
{
    vec_file v;
    if (!vec_open(&v, f->file))
        return;
    uint8_t a[48], b[48], want[48], got[48], neg[48];
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        bool ok = true;
        ok &= v.ntok >= 3 && f->parse(a, v.tok[1]);
        if (!ok) {
            CHECK(false, "%s:%d: malformed line", f->file, v.lineno);
            continue;
        }
        ops_seen++;
        if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul")) {
            ok = v.ntok == 4 && f->parse(b, v.tok[2]) && f->parse(want, v.tok[3]);
            if (ok)
                (op[0] == 'a' ? f->add : op[0] == 's' ? f->sub : f->mul)(got, a, b);
            CHECK(ok && !memcmp(got, want, f->elem), "%s:%d: %s", f->file, v.lineno, op);
        } else if (!strcmp(op, "sqr") || !strcmp(op, "neg") || !strcmp(op, "inv")) {
            ok = v.ntok == 3 && f->parse(want, v.tok[2]);
            if (ok && op[0] == 's')
                f->sqr(got, a);
            else if (ok && op[0] == 'n')
                f->neg(got, a);
            else if (ok)
                ok = f->inv(got, a);
            CHECK(ok && !memcmp(got, want, f->elem), "%s:%d: %s", f->file, v.lineno, op);
        } else if (!strcmp(op, "pow")) {
            uint64_t e[6];
            ok = v.ntok == 4 && hex_limbs(e, f->limbs, v.tok[2]) && f->parse(want, v.tok[3]);
            if (ok)
                f->pow(got, a, e, f->limbs);
            CHECK(ok && !memcmp(got, want, f->elem), "%s:%d: pow", f->file, v.lineno);
        } else if (!strcmp(op, "sqrt")) {
            bool has = f->sqrt(got, a);
            if (!strcmp(v.tok[2], "none")) {
                CHECK(!has, "%s:%d: sqrt of a non-residue succeeded", f->file, v.lineno);
            } else {
                ok = f->parse(want, v.tok[2]);
                f->neg(neg, want);
                CHECK(ok && has && (!memcmp(got, want, f->elem) || !memcmp(got, neg, f->elem)),
                      "%s:%d: sqrt", f->file, v.lineno);
            }
        } else if (!strcmp(op, "legendre")) {
            int k = atoi(v.tok[2]);
            CHECK(f->legendre(a) == k, "%s:%d: legendre", f->file, v.lineno);
        } else {
            CHECK(false, "%s:%d: unknown op %s", f->file, v.lineno, op);
        }
    }
    vec_close(&v);
}

/* ---- Fp2 ------------------------------------------------------------------------ */

static bool tok_fp2(cuzk_fp2 *r, vec_file *v, int i) { return i + 1 < v->ntok && hex_fp2(r, v->tok[i], v->tok[i + 1]); }

static void run_fp2(void)
{
    vec_file v;
    if (!vec_open(&v, "fp2.txt"))
        return;
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        cuzk_fp2 a, b, want, got, neg;
        if (!tok_fp2(&a, &v, 1)) {
            CHECK(false, "fp2.txt:%d: malformed line", v.lineno);
            continue;
        }
        ops_seen++;
        bool ok;
        if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul")) {
            ok = v.ntok == 7 && tok_fp2(&b, &v, 3) && tok_fp2(&want, &v, 5);
            if (op[0] == 'a')
                cuzk_fp2_add(&got, &a, &b);
            else if (op[0] == 's')
                cuzk_fp2_sub(&got, &a, &b);
            else
                cuzk_fp2_mul(&got, &a, &b);
            CHECK(ok && cuzk_fp2_eq(&got, &want), "fp2.txt:%d: %s", v.lineno, op);
        } else if (!strcmp(op, "sqrt") && v.ntok == 4) {
            CHECK(!strcmp(v.tok[3], "none") && !cuzk_fp2_sqrt(&got, &a), "fp2.txt:%d: sqrt of non-square",
                  v.lineno);
        } else {
            ok = v.ntok == 5 && tok_fp2(&want, &v, 3);
            if (!strcmp(op, "sqr"))
                cuzk_fp2_sqr(&got, &a);
            else if (!strcmp(op, "neg"))
                cuzk_fp2_neg(&got, &a);
            else if (!strcmp(op, "frob"))
                cuzk_fp2_conj(&got, &a);
            else if (!strcmp(op, "inv"))
                ok &= cuzk_fp2_inv(&got, &a);
            else if (!strcmp(op, "sqrt")) {
                ok &= cuzk_fp2_sqrt(&got, &a);
                cuzk_fp2_neg(&neg, &want);
                if (cuzk_fp2_eq(&got, &neg))
                    got = want;
            } else {
                CHECK(false, "fp2.txt:%d: unknown op %s", v.lineno, op);
                continue;
            }
            CHECK(ok && cuzk_fp2_eq(&got, &want), "fp2.txt:%d: %s", v.lineno, op);
        }
    }
    vec_close(&v);
}

/* ---- consts.txt: the constants the library hard-codes ----------------------------- */

static void run_consts(void)
{
    vec_file v;
    if (!vec_open(&v, "consts.txt"))
        return;
    int checked = 0;
    while (vec_next(&v)) {
        const char *name = v.tok[0];
        uint64_t x[6];
        if (!strcmp(name, "fp_modulus")) {
            CHECK(hex_limbs(x, 6, v.tok[1]) && !memcmp(x, CUZK_P, sizeof x), "p differs from consts.txt");
            checked++;
        } else if (!strcmp(name, "fr_modulus")) {
            CHECK(hex_limbs(x, 4, v.tok[1]) && !memcmp(x, CUZK_R, 32), "r differs from consts.txt");
            checked++;
        } else if (!strcmp(name, "fp_mont_r")) {
            CHECK(hex_limbs(x, 6, v.tok[1]) && !memcmp(x, CUZK_FP_ONE.l, sizeof x), "Fp R mod p differs");
            checked++;
        } else if (!strcmp(name, "fr_mont_r")) {
            CHECK(hex_limbs(x, 4, v.tok[1]) && !memcmp(x, CUZK_FR_ONE.l, 32), "Fr R mod r differs");
            checked++;
        }
    }
    CHECK(checked == 4, "consts.txt: expected 4 known constants, found %d", checked);
    vec_close(&v);
}

int main(void)
{
    test_rng_init("test_field_vectors");
    run_prime_field(&FP_OPS);
    run_prime_field(&FR_OPS);
    run_fp2();
    run_consts();
    CHECK(ops_seen > 3000, "only %d vector cases were read", ops_seen);
    printf("test_field_vectors: %d vector cases\n", ops_seen);
    return test_finish("test_field_vectors");
}
