/*
 * snarkjs_json.c — verification_key.json, proof.json and public.json to and
 * from cuzk's Groth16 structs (formats in cuzk/snarkjs_json.h).
 *
 * Reading goes text -> cuzk_json tree -> structs. Each point is decoded by
 * one routine per group that insists on the exact shape ([x, y, z] of decimal
 * strings, Fp2 values as pairs), reads every coordinate with the strict
 * decimal reader, accepts z = 1 (affine) and z = 0 (identity) only, and then
 * checks the curve equation and subgroup membership: a proof or a key from a
 * file is untrusted input. Error messages are built outward, so a failure
 * reads "verification_key.json: IC[1]: y: Fp: ... is not below the modulus".
 *
 * Writing goes through cuzk_json_writer, whose layout is the one snarkjs's
 * command line produces (bfj with an indent of one space). The key order of
 * proof.json is snarkjs's: pi_a, pi_b, pi_c, protocol, curve. Decimal strings
 * are canonical, so for the same points the bytes equal snarkjs's.
 */
#include "cuzk/snarkjs_json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/json.h"
#include "cuzk/outfile.h"

#define PROTOCOL "groth16"
#define CURVE "bls12381"

/* ---- files ------------------------------------------------------------------------- */

static int read_file(const char *path, char **out, size_t *len, char *err, size_t errlen)
{
    const size_t max = CUZK_JSON_DEFAULT_MAX_BYTES;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_fail(err, errlen, CUZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int rc = CUZK_OK;
    while (n <= max) {
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            char *b = realloc(buf, ncap);
            if (!b) {
                rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "%s: out of memory", path);
                break;
            }
            buf = b;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f))
                rc = cuzk_fail(err, errlen, CUZK_EIO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (!rc && n > max)
        rc = cuzk_fail(err, errlen, CUZK_ERANGE, "%s: larger than the limit of %zu bytes", path, max);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    *len = n;
    return CUZK_OK;
}

/* Writes text to path atomically (cuzk/outfile.h): the old file or the whole new one, never a part. */
static int write_file(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
    cuzk_outfile f;
    int rc = cuzk_outfile_open(&f, path, 0, NULL, err, errlen);
    if (rc == CUZK_OK) {
        cuzk_outfile_write(&f, text, len); /* a failure is reported by the commit */
        rc = cuzk_outfile_commit(&f, NULL, err, errlen);
    }
    return rc;
}

/* ---- reading values ---------------------------------------------------------------- */

/* Context of a read: the file label for messages and the message buffer. */
typedef struct {
    const char *file;
    char *err;
    size_t errlen;
} ctx;

static int bad(const ctx *c, int code, const char *what, const char *msg)
{
    return cuzk_fail(c->err, c->errlen, code, "%s: %s: %s", c->file, what, msg);
}

static int read_fp(const ctx *c, const cuzk_json_value *v, const char *what, cuzk_fp *out)
{
    char m[200];
    if (!v || v->type != CUZK_JSON_STRING) {
        snprintf(m, sizeof m, "expected a decimal string, found %s",
                 v ? cuzk_json_type_name(v->type) : "nothing");
        return bad(c, CUZK_EINVAL, what, m);
    }
    int rc = cuzk_fp_from_decimal(out, v->str, v->len, m, sizeof m);
    return rc ? bad(c, rc, what, m) : CUZK_OK;
}

static int read_fp2(const ctx *c, const cuzk_json_value *v, const char *what, cuzk_fp2 *out)
{
    if (!v || v->type != CUZK_JSON_ARRAY || v->n != 2)
        return bad(c, CUZK_EINVAL, what, "expected an Fp2 value [c0, c1]");
    char w[128];
    snprintf(w, sizeof w, "%s[0]", what);
    int rc = read_fp(c, &v->items[0], w, &out->c0);
    if (rc)
        return rc;
    snprintf(w, sizeof w, "%s[1]", what);
    return read_fp(c, &v->items[1], w, &out->c1);
}

static int read_g1(const ctx *c, const cuzk_json_value *v, const char *what, cuzk_g1_affine *out)
{
    if (!v || v->type != CUZK_JSON_ARRAY || v->n != 3)
        return bad(c, CUZK_EINVAL, what, "expected a G1 point [x, y, z]");
    char w[96];
    cuzk_fp x, y, z;
    int rc;
    const char *names[3] = {"x", "y", "z"};
    cuzk_fp *dst[3] = {&x, &y, &z};
    for (int i = 0; i < 3; i++) {
        snprintf(w, sizeof w, "%s.%s", what, names[i]);
        if ((rc = read_fp(c, &v->items[i], w, dst[i])))
            return rc;
    }
    /* z = 1: affine; z = 0: the identity; anything else is not snarkjs's form */
    bool identity = cuzk_fp_is_zero(&z);
    if (!identity && !cuzk_fp_is_one(&z))
        return bad(c, CUZK_EINVAL, what, "z must be 1 (affine) or 0 (identity)");
    cuzk_g1_affine p = {x, y};
    if (identity)
        memset(&p, 0, sizeof p);
    else if (!cuzk_g1_affine_on_curve(&p) || cuzk_g1_affine_is_identity(&p))
        return bad(c, CUZK_ENOTONCURVE, what, "not on the curve");
    else if (!cuzk_g1_affine_in_group(&p))
        return bad(c, CUZK_ENOTINGROUP, what, "not in the r-order subgroup");
    *out = p;
    return CUZK_OK;
}

static int read_g2(const ctx *c, const cuzk_json_value *v, const char *what, cuzk_g2_affine *out)
{
    if (!v || v->type != CUZK_JSON_ARRAY || v->n != 3)
        return bad(c, CUZK_EINVAL, what, "expected a G2 point [[x0, x1], [y0, y1], [z0, z1]]");
    char w[96];
    cuzk_fp2 x, y, z;
    int rc;
    const char *names[3] = {"x", "y", "z"};
    cuzk_fp2 *dst[3] = {&x, &y, &z};
    for (int i = 0; i < 3; i++) {
        snprintf(w, sizeof w, "%s.%s", what, names[i]);
        if ((rc = read_fp2(c, &v->items[i], w, dst[i])))
            return rc;
    }
    /* z = 1: affine; z = 0: the identity; anything else is not snarkjs's form */
    bool identity = cuzk_fp2_is_zero(&z);
    if (!identity && !cuzk_fp2_is_one(&z))
        return bad(c, CUZK_EINVAL, what, "z must be 1 (affine) or 0 (identity)");
    cuzk_g2_affine p = {x, y};
    if (identity)
        memset(&p, 0, sizeof p);
    else if (!cuzk_g2_affine_on_curve(&p) || cuzk_g2_affine_is_identity(&p))
        return bad(c, CUZK_ENOTONCURVE, what, "not on the curve");
    else if (!cuzk_g2_affine_in_group(&p))
        return bad(c, CUZK_ENOTINGROUP, what, "not in the r-order subgroup");
    *out = p;
    return CUZK_OK;
}

/* "bls12381", "BLS12-381", "bls12_381", ...: letters and digits only, case ignored (snarkjs's rule). */
static bool is_our_curve(const cuzk_json_value *v)
{
    char norm[16];
    size_t k = 0;
    for (size_t i = 0; i < v->len; i++) {
        unsigned char ch = (unsigned char)v->str[i];
        if (!isalnum(ch) || ch >= 0x80)
            continue;
        if (k + 1 >= sizeof norm)
            return false;
        norm[k++] = (char)tolower(ch);
    }
    norm[k] = 0;
    return strcmp(norm, CURVE) == 0;
}

/* protocol and curve: required in a vk, checked only when present in a proof. */
static int check_protocol_curve(const ctx *c, const cuzk_json_value *root, bool required)
{
    const cuzk_json_value *p = cuzk_json_member(root, "protocol");
    const cuzk_json_value *cv = cuzk_json_member(root, "curve");
    if (!p && required)
        return bad(c, CUZK_EINVAL, "protocol", "missing");
    if (p && (p->type != CUZK_JSON_STRING || p->len != strlen(PROTOCOL) || memcmp(p->str, PROTOCOL, p->len)))
        return bad(c, p->type == CUZK_JSON_STRING ? CUZK_ERANGE : CUZK_EINVAL, "protocol",
                   "only \"" PROTOCOL "\" is supported");
    if (!cv && required)
        return bad(c, CUZK_EINVAL, "curve", "missing");
    if (cv && (cv->type != CUZK_JSON_STRING || !is_our_curve(cv)))
        return bad(c, cv->type == CUZK_JSON_STRING ? CUZK_ERANGE : CUZK_EINVAL, "curve",
                   "only \"" CURVE "\" is supported");
    return CUZK_OK;
}

static int parse_doc(const ctx *c, const char *text, size_t len, cuzk_json_doc **doc, cuzk_json_type want)
{
    char m[256];
    int rc = cuzk_json_parse(text, len, NULL, doc, m, sizeof m);
    if (rc)
        return cuzk_fail(c->err, c->errlen, rc, "%s: %s", c->file, m);
    const cuzk_json_value *root = cuzk_json_root(*doc);
    if (root->type != want) {
        snprintf(m, sizeof m, "expected an %s, found %s", cuzk_json_type_name(want),
                 cuzk_json_type_name(root->type));
        cuzk_json_free(*doc);
        *doc = NULL;
        return bad(c, CUZK_EINVAL, "top level", m);
    }
    return CUZK_OK;
}

/* ---- verification_key.json ------------------------------------------------------------ */

static int vk_from_json(const ctx *c, const cuzk_json_value *root, cuzk_groth16_vk *vk)
{
    int rc = check_protocol_curve(c, root, true);
    if (rc)
        return rc;
    uint64_t n_public;
    const cuzk_json_value *np = cuzk_json_member(root, "nPublic");
    if (!np)
        return bad(c, CUZK_EINVAL, "nPublic", "missing");
    if (cuzk_json_u64(np, &n_public))
        return bad(c, CUZK_EINVAL, "nPublic", "expected a non-negative integer");
    const cuzk_json_value *ic = cuzk_json_member(root, "IC");
    if (!ic || ic->type != CUZK_JSON_ARRAY)
        return bad(c, CUZK_EINVAL, "IC", ic ? "expected an array of G1 points" : "missing");
    if (ic->n == 0 || n_public != ic->n - 1) {
        char m[128];
        snprintf(m, sizeof m, "nPublic is %llu but IC has %zu points (expected nPublic + 1)",
                 (unsigned long long)n_public, ic->n);
        return bad(c, CUZK_EINVAL, "IC", m);
    }
    if ((rc = read_g1(c, cuzk_json_member(root, "vk_alpha_1"), "vk_alpha_1", &vk->alpha_g1)) ||
        (rc = read_g2(c, cuzk_json_member(root, "vk_beta_2"), "vk_beta_2", &vk->beta_g2)) ||
        (rc = read_g2(c, cuzk_json_member(root, "vk_gamma_2"), "vk_gamma_2", &vk->gamma_g2)) ||
        (rc = read_g2(c, cuzk_json_member(root, "vk_delta_2"), "vk_delta_2", &vk->delta_g2)))
        return rc;
    vk->ic = malloc(ic->n * sizeof *vk->ic);
    if (!vk->ic)
        return cuzk_fail(c->err, c->errlen, CUZK_ENOMEM, "%s: out of memory", c->file);
    vk->n_ic = ic->n;
    for (size_t i = 0; i < ic->n; i++) {
        char w[32];
        snprintf(w, sizeof w, "IC[%zu]", i);
        if ((rc = read_g1(c, &ic->items[i], w, &vk->ic[i])))
            return rc;
    }
    return CUZK_OK;
}

static int vk_parse(const char *file, const char *text, size_t len, cuzk_groth16_vk *out, char *err,
                    size_t errlen)
{
    ctx c = {file, err, errlen};
    memset(out, 0, sizeof *out);
    cuzk_json_doc *doc;
    int rc = parse_doc(&c, text, len, &doc, CUZK_JSON_OBJECT);
    if (rc)
        return rc;
    rc = vk_from_json(&c, cuzk_json_root(doc), out);
    cuzk_json_free(doc);
    if (rc)
        cuzk_groth16_vk_free(out);
    return rc;
}

int cuzk_snarkjs_vk_parse(const char *text, size_t len, cuzk_groth16_vk *out, char *err, size_t errlen)
{
    return vk_parse("verification_key.json", text, len, out, err, errlen);
}

int cuzk_snarkjs_vk_read(const char *path, cuzk_groth16_vk *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = read_file(path, &text, &len, err, errlen);
    if (rc)
        return rc;
    rc = vk_parse(path, text, len, out, err, errlen);
    free(text);
    return rc;
}

/* ---- proof.json ----------------------------------------------------------------------- */

static int proof_parse(const char *file, const char *text, size_t len, cuzk_groth16_proof *out, char *err,
                       size_t errlen)
{
    ctx c = {file, err, errlen};
    cuzk_json_doc *doc;
    int rc = parse_doc(&c, text, len, &doc, CUZK_JSON_OBJECT);
    if (rc)
        return rc;
    const cuzk_json_value *root = cuzk_json_root(doc);
    cuzk_groth16_proof p;
    if (!(rc = check_protocol_curve(&c, root, false)) &&
        !(rc = read_g1(&c, cuzk_json_member(root, "pi_a"), "pi_a", &p.a)) &&
        !(rc = read_g2(&c, cuzk_json_member(root, "pi_b"), "pi_b", &p.b)) &&
        !(rc = read_g1(&c, cuzk_json_member(root, "pi_c"), "pi_c", &p.c)))
        *out = p;
    cuzk_json_free(doc);
    return rc;
}

int cuzk_snarkjs_proof_parse(const char *text, size_t len, cuzk_groth16_proof *out, char *err, size_t errlen)
{
    return proof_parse("proof.json", text, len, out, err, errlen);
}

int cuzk_snarkjs_proof_read(const char *path, cuzk_groth16_proof *out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = read_file(path, &text, &len, err, errlen);
    if (rc)
        return rc;
    rc = proof_parse(path, text, len, out, err, errlen);
    free(text);
    return rc;
}

static void put_fp(cuzk_json_writer *w, const cuzk_fp *a)
{
    char d[CUZK_FP_DECIMAL_SIZE];
    size_t n = cuzk_fp_to_decimal(d, a);
    cuzk_json_write_string(w, d, n);
}

static void put_fp2(cuzk_json_writer *w, const cuzk_fp2 *a)
{
    cuzk_json_write_begin_array(w);
    put_fp(w, &a->c0);
    put_fp(w, &a->c1);
    cuzk_json_write_end_array(w);
}

static void put_g1(cuzk_json_writer *w, const cuzk_g1_affine *a)
{
    bool inf = cuzk_g1_affine_is_identity(a);
    cuzk_json_write_begin_array(w);
    put_fp(w, &a->x);
    put_fp(w, inf ? &CUZK_FP_ONE : &a->y);
    put_fp(w, inf ? &CUZK_FP_ZERO : &CUZK_FP_ONE);
    cuzk_json_write_end_array(w);
}

static void put_g2(cuzk_json_writer *w, const cuzk_g2_affine *a)
{
    bool inf = cuzk_g2_affine_is_identity(a);
    cuzk_json_write_begin_array(w);
    put_fp2(w, &a->x);
    put_fp2(w, inf ? &CUZK_FP2_ONE : &a->y);
    put_fp2(w, inf ? &CUZK_FP2_ZERO : &CUZK_FP2_ONE);
    cuzk_json_write_end_array(w);
}

int cuzk_snarkjs_proof_format(const cuzk_groth16_proof *proof, char **out, size_t *len, char *err,
                              size_t errlen)
{
    if (!cuzk_g1_affine_on_curve(&proof->a) || !cuzk_g2_affine_on_curve(&proof->b) ||
        !cuzk_g1_affine_on_curve(&proof->c))
        return cuzk_fail(err, errlen, CUZK_ENOTONCURVE, "proof.json: a proof point is not on the curve");
    cuzk_json_writer w;
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_object(&w);
    cuzk_json_write_key(&w, "pi_a");
    put_g1(&w, &proof->a);
    cuzk_json_write_key(&w, "pi_b");
    put_g2(&w, &proof->b);
    cuzk_json_write_key(&w, "pi_c");
    put_g1(&w, &proof->c);
    cuzk_json_write_key(&w, "protocol");
    cuzk_json_write_string(&w, PROTOCOL, strlen(PROTOCOL));
    cuzk_json_write_key(&w, "curve");
    cuzk_json_write_string(&w, CURVE, strlen(CURVE));
    cuzk_json_write_end_object(&w);
    int rc = cuzk_json_writer_finish(&w, out, len, err, errlen);
    cuzk_json_writer_free(&w);
    return rc;
}

int cuzk_snarkjs_proof_write(const char *path, const cuzk_groth16_proof *proof, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = cuzk_snarkjs_proof_format(proof, &text, &len, err, errlen);
    if (rc)
        return rc;
    rc = write_file(path, text, len, err, errlen);
    free(text);
    return rc;
}

/* ---- public.json ---------------------------------------------------------------------- */

static int public_parse(const char *file, const char *text, size_t len, cuzk_fr **out, size_t *n, char *err,
                        size_t errlen)
{
    ctx c = {file, err, errlen};
    *out = NULL;
    *n = 0;
    cuzk_json_doc *doc;
    int rc = parse_doc(&c, text, len, &doc, CUZK_JSON_ARRAY);
    if (rc)
        return rc;
    const cuzk_json_value *root = cuzk_json_root(doc);
    cuzk_fr *v = NULL;
    if (root->n && !(v = malloc(root->n * sizeof *v)))
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "%s: out of memory", file);
    for (size_t i = 0; !rc && i < root->n; i++) {
        const cuzk_json_value *e = &root->items[i];
        char w[32], m[200];
        snprintf(w, sizeof w, "[%zu]", i);
        if (e->type != CUZK_JSON_STRING) {
            snprintf(m, sizeof m, "expected a decimal string, found %s", cuzk_json_type_name(e->type));
            rc = bad(&c, CUZK_EINVAL, w, m);
        } else if ((rc = cuzk_fr_from_decimal(&v[i], e->str, e->len, m, sizeof m))) {
            rc = bad(&c, rc, w, m);
        }
    }
    if (rc) {
        free(v);
    } else {
        *out = v;
        *n = root->n;
    }
    cuzk_json_free(doc);
    return rc;
}

int cuzk_snarkjs_public_parse(const char *text, size_t len, cuzk_fr **out, size_t *n, char *err,
                              size_t errlen)
{
    return public_parse("public.json", text, len, out, n, err, errlen);
}

int cuzk_snarkjs_public_read(const char *path, cuzk_fr **out, size_t *n, char *err, size_t errlen)
{
    char *text;
    size_t len;
    *out = NULL;
    *n = 0;
    int rc = read_file(path, &text, &len, err, errlen);
    if (rc)
        return rc;
    rc = public_parse(path, text, len, out, n, err, errlen);
    free(text);
    return rc;
}

int cuzk_snarkjs_public_format(const cuzk_fr *in, size_t n, char **out, size_t *len, char *err, size_t errlen)
{
    cuzk_json_writer w;
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_array(&w);
    for (size_t i = 0; i < n; i++) {
        char d[CUZK_FR_DECIMAL_SIZE];
        size_t k = cuzk_fr_to_decimal(d, &in[i]);
        cuzk_json_write_string(&w, d, k);
    }
    cuzk_json_write_end_array(&w);
    int rc = cuzk_json_writer_finish(&w, out, len, err, errlen);
    cuzk_json_writer_free(&w);
    return rc;
}

int cuzk_snarkjs_public_write(const char *path, const cuzk_fr *in, size_t n, char *err, size_t errlen)
{
    char *text;
    size_t len;
    int rc = cuzk_snarkjs_public_format(in, n, &text, &len, err, errlen);
    if (rc)
        return rc;
    rc = write_file(path, text, len, err, errlen);
    free(text);
    return rc;
}
