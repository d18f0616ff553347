/*
 * test_json.c — the strict JSON reader/writer, the decimal conversions and
 * the snarkjs JSON files.
 *
 * Reader: a document using every construct parses to the expected tree;
 * a list of malformed documents (unterminated strings, trailing commas, bad
 * escapes, lone surrogates, bad UTF-8, leading zeros, duplicate keys, bare
 * words, trailing data, ...) is rejected with CUZK_EINVAL; nesting at the cap
 * parses and one level deeper is CUZK_ERANGE (also 100000 levels: no
 * recursion); the size and value caps hold. Every prefix of every fixture
 * JSON file is rejected by both the JSON reader and the snarkjs reader, and
 * random byte corruptions never crash (ASan builds make "never crash" mean
 * "no out-of-bounds access"): every buffer is an exact-size heap copy.
 *
 * Decimals, with two oracles that share no code with the library: Horner's
 * rule in the field (value = value * 10 + digit, cuzk_fr/cuzk_fp arithmetic)
 * for random digit strings, and snarkjs itself: the moduli as snarkjs printed
 * them in expected.txt, public.json against the binary witness, and the vk
 * coordinates in verification_key.json against the binary zkey header.
 *
 * Writer: for each fixture, proof.json and public.json written from the
 * parsed structs equal the committed snarkjs files byte for byte; the
 * identity and empty arrays come out in snarkjs's (bfj's) layout and read
 * back; misuse of the writer is reported.
 *
 * snarkjs readers: strict handling of z, nPublic, protocol, curve, values
 * >= p, points off the curve or outside the subgroup, wrong shapes.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/json.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "testutil.h"

#define FIXTURES CUZK_VECTOR_DIR "/../fixtures"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };
static const char *const JSON_FILES[] = {"verification_key.json", "proof.json", "public.json"};

/* Exact-size heap copy (no NUL after it), so ASan sees any read past the end. */
static char *exact(const char *s, size_t n)
{
    char *c = malloc(n ? n : 1);
    memcpy(c, s, n);
    return c;
}

static int parse_exact(const char *s, size_t n, const cuzk_json_limits *lim, cuzk_json_doc **doc, char *err,
                       size_t errlen)
{
    char *c = exact(s, n);
    int rc = cuzk_json_parse(c, n, lim, doc, err, errlen);
    free(c);
    return rc;
}

static bool msg_has(const char *err, const char *needle)
{
    bool ok = strstr(err, needle) != NULL;
    if (!ok)
        printf("  message was: %s\n", err);
    return ok;
}

/* Replaces the first occurrence of old in s (returns a new string, NULL if absent). */
static char *replace(const char *s, const char *old, const char *new)
{
    const char *at = strstr(s, old);
    if (!at)
        return NULL;
    size_t a = (size_t)(at - s), lo = strlen(old), ln = strlen(new), ls = strlen(s);
    char *r = malloc(ls - lo + ln + 1);
    memcpy(r, s, a);
    memcpy(r + a, new, ln);
    memcpy(r + a + ln, at + lo, ls - a - lo + 1);
    return r;
}

/* ---- reader ------------------------------------------------------------------------- */

static void test_valid(void)
{
    const char *doc =
        " {\"a\" : [1, -2.5e+3, 0, -0, 1E-7, \"x\\u00e9\\ud83d\\ude00\\n\\\"\\\\\\/\\b\\f\\r\\t\", true, "
        "false, null],\r\n\t\"b\":{}, \"c\": [], \"\": \"\\u0000z\", \"d\xc3\xa9\": \"\xe2\x82\xac\"} ";
    char err[256] = "";
    cuzk_json_doc *d = NULL;
    int rc = parse_exact(doc, strlen(doc), NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_OK, "valid document rejected: %s", err);
    if (rc)
        return;
    const cuzk_json_value *r = cuzk_json_root(d);
    CHECK(r->type == CUZK_JSON_OBJECT && r->n == 5, "root: type %d n %zu", r->type, r->n);
    const char *keys[5] = {"a", "b", "c", "", "d\xc3\xa9"};
    for (size_t i = 0; i < 5 && i < r->n; i++)
        CHECK(r->items[i].key && !strcmp(r->items[i].key, keys[i]), "key %zu", i);
    const cuzk_json_value *a = cuzk_json_member(r, "a");
    CHECK(a && a->type == CUZK_JSON_ARRAY && a->n == 9, "a: array of 9");
    if (a && a->n == 9) {
        const char *nums[5] = {"1", "-2.5e+3", "0", "-0", "1E-7"};
        for (int i = 0; i < 5; i++)
            CHECK(a->items[i].type == CUZK_JSON_NUMBER && !strcmp(a->items[i].str, nums[i]), "number %d", i);
        const cuzk_json_value *s = &a->items[5];
        const char want[] = "x\xc3\xa9\xf0\x9f\x98\x80\n\"\\/\b\f\r\t";
        CHECK(s->type == CUZK_JSON_STRING && s->len == sizeof want - 1 && !memcmp(s->str, want, s->len),
              "escapes decoded (len %zu)", s->len);
        CHECK(a->items[6].type == CUZK_JSON_TRUE && a->items[7].type == CUZK_JSON_FALSE &&
                  a->items[8].type == CUZK_JSON_NULL,
              "literals");
        CHECK(a->items[0].key == NULL, "array element has no key");
        CHECK(a->items[1].offset == 12, "offset of -2.5e+3 is %zu", a->items[1].offset);
    }
    const cuzk_json_value *b = cuzk_json_member(r, "b"), *c = cuzk_json_member(r, "c");
    CHECK(b && b->type == CUZK_JSON_OBJECT && b->n == 0, "b: empty object");
    CHECK(c && c->type == CUZK_JSON_ARRAY && c->n == 0, "c: empty array");
    const cuzk_json_value *e = cuzk_json_member(r, "");
    CHECK(e && e->len == 2 && e->str[0] == 0 && e->str[1] == 'z', "\\u0000 kept inside a string");
    CHECK(cuzk_json_member(r, "zz") == NULL && cuzk_json_member(a, "a") == NULL, "absent members");
    uint64_t u = 0;
    CHECK(cuzk_json_u64(&a->items[0], &u) == CUZK_OK && u == 1, "u64 of 1");
    CHECK(cuzk_json_u64(&a->items[1], &u) != CUZK_OK, "u64 of -2.5e+3");
    CHECK(cuzk_json_u64(&a->items[5], &u) != CUZK_OK, "u64 of a string");
    cuzk_json_free(d);

    const char *scalars[] = {"0", "\"\"", "true", "null", " [ ] ", "18446744073709551615"};
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++) {
        rc = parse_exact(scalars[i], strlen(scalars[i]), NULL, &d, err, sizeof err);
        CHECK(rc == CUZK_OK, "'%s' rejected: %s", scalars[i], err);
        if (!rc && i == 5) {
            CHECK(cuzk_json_u64(cuzk_json_root(d), &u) == CUZK_OK && u == UINT64_MAX, "u64 max");
        }
        if (!rc)
            cuzk_json_free(d);
    }
    rc = parse_exact("18446744073709551616", 20, NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_json_u64(cuzk_json_root(d), &u) == CUZK_ERANGE, "u64 overflow");
    if (!rc)
        cuzk_json_free(d);
}

static void test_malformed(void)
{
    static const struct {
        const char *text;
        const char *msg;
    } bad[] = {
        {"", "empty input"},
        {"   ", "expected a value"},
        {"[", "expected a value"},
        {"[1", "expected ',' or ']'"},
        {"[1,]", "trailing comma"},
        {"[1,,2]", "expected a value"},
        {"{\"a\":1,}", "trailing comma"},
        {"{\"a\" 1}", "expected ':'"},
        {"{a:1}", "expected a string key"},
        {"{\"a\":}", "expected a value"},
        {"{\"a\":1", "expected ',' or '}'"},
        {"{\"a\":1]", "expected ',' or '}'"},
        {"[1}", "expected ',' or ']'"},
        {"'x'", "unexpected character"},
        {"\"abc", "unterminated string"},
        {"\"abc\\", "unterminated string"},
        {"\"\\x\"", "bad escape"},
        {"\"\\u12x4\"", "bad hex digit"},
        {"\"\\u12", "unterminated \\u escape"},
        {"\"\\ud800\"", "not followed by a low one"},
        {"\"\\ud800\\u0041\"", "not followed by a low one"},
        {"\"\\udc00\"", "lone low surrogate"},
        {"\"a\tb\"", "control character"},
        {"\"a\nb\"", "control character"},
        {"\"\xff\"", "invalid UTF-8"},
        {"\"\xc0\xaf\"", "invalid UTF-8"},
        {"\"\xed\xa0\x80\"", "invalid UTF-8"},
        {"\"\xe2\x82\"", "invalid UTF-8"},
        {"\"\xf4\x90\x80\x80\"", "invalid UTF-8"},
        {"01", "leading zero"},
        {"-01", "leading zero"},
        {"1.", "after '.'"},
        {".5", "unexpected character"},
        {"-", "expected a digit"},
        {"+1", "unexpected character"},
        {"1e", "exponent"},
        {"1e+", "exponent"},
        {"[1 2]", "expected ',' or ']'"},
        {"tru", "unexpected character"},
        {"nul", "unexpected character"},
        {"True", "unexpected character"},
        {"NaN", "unexpected character"},
        {"Infinity", "unexpected character"},
        {"[1]]", "after the JSON value"},
        {"[1] x", "after the JSON value"},
        {"1 2", "after the JSON value"},
        {"\xef\xbb\xbf[]", "unexpected byte 0xef"},
        {"/* c */ 1", "unexpected character"},
        {"{\"a\":1,\"a\":2}", "duplicate key \"a\""},
        {"{\"b\":{\"x\":1},\"c\":{\"y\":1,\"z\":[],\"y\":2}}", "duplicate key \"y\""},
    };
    char err[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        cuzk_json_doc *d = (cuzk_json_doc *)&err; /* must be reset to NULL */
        err[0] = 0;
        int rc = parse_exact(bad[i].text, strlen(bad[i].text), NULL, &d, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && d == NULL, "malformed #%zu accepted (%d)", i, rc);
        CHECK(msg_has(err, bad[i].msg), "malformed #%zu: message lacks \"%s\"", i, bad[i].msg);
        CHECK(strncmp(err, "json: line ", 11) == 0, "malformed #%zu: message has no position", i);
    }
    /* position in the message */
    cuzk_json_doc *d;
    int rc = parse_exact("{\n \"a\": [1,\n  2,]\n}", 19, NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "line 3, column 5 (byte 16)"), "error position");

    /* a duplicate key among many members (the sorted path), reported at the later occurrence */
    char big[4096];
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof big - n, "{");
    for (int k = 0; k < 100; k++)
        n += (size_t)snprintf(big + n, sizeof big - n, "%s\"k%d\":%d", k ? "," : "", k == 77 ? 13 : k, k);
    n += (size_t)snprintf(big + n, sizeof big - n, "}");
    rc = parse_exact(big, n, NULL, &d, err, sizeof err);
    const char *second = strstr(strstr(big, "\"k13\"") + 1, "\"k13\"");
    char want[64];
    /* the position reported is that of the second member's value */
    snprintf(want, sizeof want, "(byte %zu): duplicate key \"k13\"", (size_t)(second - big) + 6);
    CHECK(rc == CUZK_EINVAL && msg_has(err, want), "duplicate among 100 keys (%d)", rc);
    big[strstr(big, "\"k13\":77") - big + 2] = 'x'; /* the second k13 becomes kx3: all distinct */
    rc = parse_exact(big, n, NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_json_root(d)->n == 100, "100 distinct keys rejected: %s", err);
    if (!rc)
        cuzk_json_free(d);
}

static void test_limits(void)
{
    char err[256];
    cuzk_json_doc *d;
    enum { DEEP = 100000 };
    char *s = malloc(2 * DEEP);
    for (unsigned depth = CUZK_JSON_DEFAULT_MAX_DEPTH; depth <= CUZK_JSON_DEFAULT_MAX_DEPTH + 1; depth++) {
        memset(s, '[', depth);
        memset(s + depth, ']', depth);
        int rc = parse_exact(s, 2 * depth, NULL, &d, err, sizeof err);
        if (depth == CUZK_JSON_DEFAULT_MAX_DEPTH) {
            CHECK(rc == CUZK_OK, "depth %u rejected: %s", depth, err);
            if (!rc) {
                const cuzk_json_value *v = cuzk_json_root(d);
                unsigned k = 1;
                while (v->n == 1) {
                    v = &v->items[0];
                    k++;
                }
                CHECK(k == depth && v->n == 0, "depth %u rebuilt as %u", depth, k);
                cuzk_json_free(d);
            }
        } else {
            CHECK(rc == CUZK_ERANGE && msg_has(err, "nesting deeper than 64"), "depth %u accepted (%d)",
                  depth, rc);
        }
    }
    memset(s, '[', DEEP);
    memset(s + DEEP, ']', DEEP);
    int rc = parse_exact(s, 2 * DEEP, NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_ERANGE, "depth %d accepted (%d)", DEEP, rc);
    cuzk_json_limits lim = {.max_depth = DEEP};
    rc = parse_exact(s, 2 * DEEP, &lim, &d, err, sizeof err);
    CHECK(rc == CUZK_ERANGE, "depth %d accepted beyond the hard cap (%d)", DEEP, rc);
    /* open brackets only: each must fail quickly and cleanly */
    rc = parse_exact(s, DEEP, NULL, &d, err, sizeof err);
    CHECK(rc == CUZK_ERANGE, "unclosed %d brackets (%d)", DEEP, rc);
    free(s);

    lim = (cuzk_json_limits){.max_bytes = 10};
    rc = parse_exact("[1,2,3,4,5]", 11, &lim, &d, err, sizeof err);
    CHECK(rc == CUZK_ERANGE && msg_has(err, "exceeds the limit of 10"), "size limit (%d)", rc);
    lim = (cuzk_json_limits){.max_values = 5};
    rc = parse_exact("[1,2,3,4]", 9, &lim, &d, err, sizeof err);
    CHECK(rc == CUZK_OK, "5 values under a limit of 5: %s", err);
    if (!rc)
        cuzk_json_free(d);
    rc = parse_exact("[1,2,3,4,5]", 11, &lim, &d, err, sizeof err);
    CHECK(rc == CUZK_ERANGE && msg_has(err, "more than 5 values"), "value limit (%d)", rc);
}

/* Every strict prefix of every fixture file fails; random corruptions never crash. */
static void test_truncations_and_noise(void)
{
    char err[256];
    for (int c = 0; c < NCIRCUITS; c++) {
        for (int f = 0; f < 3; f++) {
            size_t len = 0;
            char *text = test_read_fixture(CIRCUITS[c], JSON_FILES[f], &len);
            if (!text)
                continue;
            size_t fails = 0;
            for (size_t cut = 0; cut < len; cut++) {
                cuzk_json_doc *d = NULL;
                char *p = exact(text, cut);
                int rc = cuzk_json_parse(p, cut, NULL, &d, err, sizeof err);
                cuzk_groth16_vk vk;
                cuzk_groth16_proof pr;
                cuzk_fr *pub = NULL;
                size_t npub;
                int rc2 = f == 0   ? cuzk_snarkjs_vk_parse(p, cut, &vk, err, sizeof err)
                          : f == 1 ? cuzk_snarkjs_proof_parse(p, cut, &pr, err, sizeof err)
                                   : cuzk_snarkjs_public_parse(p, cut, &pub, &npub, err, sizeof err);
                fails += rc != CUZK_OK && rc2 != CUZK_OK;
                if (!rc)
                    cuzk_json_free(d);
                if (!rc2 && f == 0)
                    cuzk_groth16_vk_free(&vk);
                free(pub);
                free(p);
            }
            CHECK(fails == len, "%s/%s: %zu of %zu prefixes rejected", CIRCUITS[c], JSON_FILES[f], fails,
                  len);
            /* the whole file parses */
            cuzk_json_doc *d = NULL;
            int rc = parse_exact(text, len, NULL, &d, err, sizeof err);
            CHECK(rc == CUZK_OK, "%s/%s: %s", CIRCUITS[c], JSON_FILES[f], err);
            cuzk_json_free(d);
            /* random corruptions: any result, no crash, no leak */
            for (int it = 0; it < 200; it++) {
                char *p = exact(text, len);
                int flips = 1 + (int)(test_rand64() % 3);
                for (int k = 0; k < flips; k++) {
                    size_t at = test_rand64() % len;
                    uint64_t r = test_rand64();
                    static const char pick[] = "[]{},:\"\\0123456789-eE. \nabtu";
                    p[at] = r & 1 ? (char)(r >> 8) : pick[(r >> 8) % (sizeof pick - 1)];
                }
                cuzk_groth16_vk vk;
                cuzk_groth16_proof pr;
                cuzk_fr *pub = NULL;
                size_t npub;
                if (f == 0 && cuzk_snarkjs_vk_parse(p, len, &vk, err, sizeof err) == CUZK_OK)
                    cuzk_groth16_vk_free(&vk);
                if (f == 1)
                    cuzk_snarkjs_proof_parse(p, len, &pr, err, sizeof err);
                if (f == 2)
                    cuzk_snarkjs_public_parse(p, len, &pub, &npub, err, sizeof err);
                free(pub);
                free(p);
            }
            free(text);
        }
    }
}

/* ---- decimals ----------------------------------------------------------------------- */

/* The decimal moduli as snarkjs printed them (expected.txt "zkey.header n8q q n8r r ..."). */
static bool moduli_from_snarkjs(char q[128], char r[128])
{
    size_t len;
    char *t = test_read_fixture("bits", "expected.txt", &len);
    if (!t)
        return false;
    char *h = strstr(t, "\nzkey.header ");
    bool ok = h && sscanf(h, "\nzkey.header %*s %127s %*s %127s", q, r) == 2;
    free(t);
    CHECK(ok, "expected.txt: no zkey.header line");
    return ok;
}

/* Horner's rule in Fr / Fp: the reference value of a digit string (reduced). */
static void horner_fr(cuzk_fr *v, const char *s, size_t n)
{
    cuzk_fr ten, d;
    cuzk_fr_from_u64(&ten, 10);
    *v = CUZK_FR_ZERO;
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_mul(v, v, &ten);
        cuzk_fr_from_u64(&d, (uint64_t)(s[i] - '0'));
        cuzk_fr_add(v, v, &d);
    }
}

static void horner_fp(cuzk_fp *v, const char *s, size_t n)
{
    cuzk_fp ten, d;
    cuzk_fp_from_u64(&ten, 10);
    *v = CUZK_FP_ZERO;
    for (size_t i = 0; i < n; i++) {
        cuzk_fp_mul(v, v, &ten);
        cuzk_fp_from_u64(&d, (uint64_t)(s[i] - '0'));
        cuzk_fp_add(v, v, &d);
    }
}

/* a >= b for canonical decimal strings */
static bool dec_ge(const char *a, size_t na, const char *b)
{
    size_t nb = strlen(b);
    if (na != nb)
        return na > nb;
    return memcmp(a, b, na) >= 0;
}

static void test_decimal(void)
{
    char q[128], r[128], err[256];
    if (!moduli_from_snarkjs(q, r))
        return;
    CHECK(strlen(q) == 115 && strlen(r) == 77, "moduli have %zu and %zu digits", strlen(q), strlen(r));

    /* random digit strings of every length up to one digit past the modulus */
    for (int it = 0; it < 3000; it++) {
        bool fp = it % 2;
        size_t maxd = fp ? 116 : 78;
        size_t n = 1 + test_rand64() % maxd;
        char s[128];
        s[0] = (char)('1' + test_rand64() % 9);
        for (size_t i = 1; i < n; i++)
            s[i] = (char)('0' + test_rand64() % 10);
        if (it % 7 == 0 && n == strlen(fp ? q : r)) /* near the modulus: copy a prefix of it */
            memcpy(s, fp ? q : r, n - 1);
        if (n == 1 && it % 3 == 0)
            s[0] = '0';
        char *c = exact(s, n);
        bool over = dec_ge(s, n, fp ? q : r);
        int rc;
        bool same;
        if (fp) {
            cuzk_fp v = CUZK_FP_ONE, w;
            rc = cuzk_fp_from_decimal(&v, c, n, err, sizeof err);
            horner_fp(&w, s, n);
            same = rc ? cuzk_fp_eq(&v, &CUZK_FP_ONE) : cuzk_fp_eq(&v, &w);
            if (!rc) {
                char out[CUZK_FP_DECIMAL_SIZE];
                size_t k = cuzk_fp_to_decimal(out, &v);
                CHECK(k == n && !memcmp(out, s, n) && out[n] == 0, "Fp decimal round trip of %.*s", (int)n,
                      s);
            }
        } else {
            cuzk_fr v = CUZK_FR_ONE, w;
            rc = cuzk_fr_from_decimal(&v, c, n, err, sizeof err);
            horner_fr(&w, s, n);
            same = rc ? cuzk_fr_eq(&v, &CUZK_FR_ONE) : cuzk_fr_eq(&v, &w);
            if (!rc) {
                char out[CUZK_FR_DECIMAL_SIZE];
                size_t k = cuzk_fr_to_decimal(out, &v);
                CHECK(k == n && !memcmp(out, s, n) && out[n] == 0, "Fr decimal round trip of %.*s", (int)n,
                      s);
            }
        }
        CHECK(rc == (over ? CUZK_ENONCANONICAL : CUZK_OK), "%s %.*s: rc %d, expected %s", fp ? "Fp" : "Fr",
              (int)n, s, rc, over ? "too large" : "ok");
        CHECK(same, "%s %.*s: value differs from Horner (or output touched on failure)", fp ? "Fp" : "Fr",
              (int)n, s);
        free(c);
    }
    /* random elements printed, then read back by Horner */
    for (int it = 0; it < 200; it++) {
        cuzk_fr a, w;
        test_rand_fr(&a);
        char out[CUZK_FR_DECIMAL_SIZE];
        size_t k = cuzk_fr_to_decimal(out, &a);
        horner_fr(&w, out, k);
        CHECK(cuzk_fr_eq(&a, &w) && (k == 1 || out[0] != '0') && !dec_ge(out, k, r), "Fr to_decimal %s", out);
        cuzk_fp b, x;
        test_rand_fp(&b);
        char outp[CUZK_FP_DECIMAL_SIZE];
        k = cuzk_fp_to_decimal(outp, &b);
        horner_fp(&x, outp, k);
        CHECK(cuzk_fp_eq(&b, &x) && (k == 1 || outp[0] != '0') && !dec_ge(outp, k, q), "Fp to_decimal %s",
              outp);
    }
    /* edges: modulus - 1 is the largest accepted value, the modulus the smallest rejected */
    char m1[128];
    strcpy(m1, r);
    m1[strlen(m1) - 1]--; /* r ends in 3, q in 7: no borrow */
    cuzk_fr v;
    CHECK(cuzk_fr_from_decimal(&v, m1, strlen(m1), err, sizeof err) == CUZK_OK, "r - 1 rejected: %s", err);
    cuzk_fr minus1;
    cuzk_fr_neg(&minus1, &CUZK_FR_ONE);
    CHECK(cuzk_fr_eq(&v, &minus1), "r - 1 is not -1");
    CHECK(cuzk_fr_from_decimal(&v, r, strlen(r), err, sizeof err) == CUZK_ENONCANONICAL &&
              msg_has(err, "not below the modulus"),
          "r accepted");
    strcpy(m1, q);
    m1[strlen(m1) - 1]--;
    cuzk_fp vp, minus1p;
    CHECK(cuzk_fp_from_decimal(&vp, m1, strlen(m1), err, sizeof err) == CUZK_OK, "p - 1 rejected: %s", err);
    cuzk_fp_neg(&minus1p, &CUZK_FP_ONE);
    CHECK(cuzk_fp_eq(&vp, &minus1p), "p - 1 is not -1");
    CHECK(cuzk_fp_from_decimal(&vp, q, strlen(q), err, sizeof err) == CUZK_ENONCANONICAL, "p accepted");
    char huge[300];
    memset(huge, '9', sizeof huge);
    CHECK(cuzk_fp_from_decimal(&vp, huge, sizeof huge, err, sizeof err) == CUZK_ENONCANONICAL, "300 nines");
    CHECK(cuzk_fp_from_decimal(&vp, "0", 1, err, sizeof err) == CUZK_OK && cuzk_fp_is_zero(&vp), "0");
    char zero[CUZK_FP_DECIMAL_SIZE];
    CHECK(cuzk_fp_to_decimal(zero, &CUZK_FP_ZERO) == 1 && !strcmp(zero, "0"), "0 printed as %s", zero);
    static const struct {
        const char *s;
        const char *msg;
    } bad[] = {{"", "empty"},
               {"00", "leading zero"},
               {"01", "leading zero"},
               {"-1", "not a decimal"},
               {"+1", "not a decimal"},
               {" 1", "not a decimal"},
               {"1 ", "not a decimal"},
               {"1a", "not a decimal"},
               {"0x1", "not a decimal"},
               {"1.0", "not a decimal"},
               {"1e3", "not a decimal"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char *c = exact(bad[i].s, strlen(bad[i].s));
        CHECK(cuzk_fr_from_decimal(&v, c, strlen(bad[i].s), err, sizeof err) == CUZK_EINVAL &&
                  msg_has(err, bad[i].msg),
              "Fr '%s' accepted", bad[i].s);
        CHECK(cuzk_fp_from_decimal(&vp, c, strlen(bad[i].s), err, sizeof err) == CUZK_EINVAL,
              "Fp '%s' accepted", bad[i].s);
        free(c);
    }
    CHECK(cuzk_fr_from_decimal(&v,
                               "12\0"
                               "3",
                               4, err, sizeof err) == CUZK_EINVAL,
          "embedded NUL accepted");
}

/* snarkjs as the oracle: public.json vs the binary witness, vk coordinates vs the binary zkey. */
static void test_decimal_vs_snarkjs_binaries(void)
{
    char path[512], err[256];
    for (int c = 0; c < NCIRCUITS; c++) {
        snprintf(path, sizeof path, "%s/%s/public.json", FIXTURES, CIRCUITS[c]);
        cuzk_fr *pub = NULL;
        size_t n = 0;
        int rc = cuzk_snarkjs_public_read(path, &pub, &n, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: %s", CIRCUITS[c], err);
        snprintf(path, sizeof path, "%s/%s/witness.wtns", FIXTURES, CIRCUITS[c]);
        cuzk_snarkjs_wtns *w = NULL;
        rc = cuzk_snarkjs_wtns_open(path, &w, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: wtns: %s", CIRCUITS[c], err);
        if (w && pub) {
            CHECK(n >= 1 && n + 1 <= w->n, "%s: %zu public values", CIRCUITS[c], n);
            for (size_t i = 0; i < n && i + 1 < w->n; i++)
                CHECK(cuzk_fr_eq(&pub[i], &w->values[i + 1]), "%s: public[%zu] != witness[%zu]", CIRCUITS[c],
                      i, i + 1);
        }
        cuzk_snarkjs_wtns_free(w);
        free(pub);

        snprintf(path, sizeof path, "%s/%s/verification_key.json", FIXTURES, CIRCUITS[c]);
        cuzk_groth16_vk vk;
        rc = cuzk_snarkjs_vk_read(path, &vk, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: %s", CIRCUITS[c], err);
        snprintf(path, sizeof path, "%s/%s/circuit.zkey", FIXTURES, CIRCUITS[c]);
        cuzk_snarkjs_zkey *z = NULL;
        int rz = cuzk_snarkjs_zkey_open(path, &z, err, sizeof err);
        CHECK(rz == CUZK_OK, "%s: zkey: %s", CIRCUITS[c], err);
        if (!rc && !rz) {
            CHECK(!memcmp(&vk.alpha_g1, &z->alpha1, sizeof vk.alpha_g1), "%s: alpha", CIRCUITS[c]);
            CHECK(!memcmp(&vk.delta_g2, &z->delta2, sizeof vk.delta_g2), "%s: delta", CIRCUITS[c]);
            CHECK(vk.n_ic == z->n_public + 1, "%s: IC count", CIRCUITS[c]);
        }
        if (!rc)
            cuzk_groth16_vk_free(&vk);
        cuzk_snarkjs_zkey_free(z);
    }
}

/* ---- writer ------------------------------------------------------------------------- */

static void test_writer_matches_snarkjs(void)
{
    char err[256];
    for (int c = 0; c < NCIRCUITS; c++) {
        size_t len;
        char *text = test_read_fixture(CIRCUITS[c], "proof.json", &len);
        if (!text)
            continue;
        cuzk_groth16_proof p;
        int rc = cuzk_snarkjs_proof_parse(text, len, &p, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: proof.json: %s", CIRCUITS[c], err);
        char *out = NULL;
        size_t olen = 0;
        if (!rc) {
            rc = cuzk_snarkjs_proof_format(&p, &out, &olen, err, sizeof err);
            CHECK(rc == CUZK_OK && olen == len && !memcmp(out, text, len),
                  "%s: written proof.json differs from snarkjs's (%zu vs %zu bytes)", CIRCUITS[c], olen, len);
            free(out);
        }
        free(text);

        text = test_read_fixture(CIRCUITS[c], "public.json", &len);
        if (!text)
            continue;
        cuzk_fr *pub = NULL;
        size_t n = 0;
        rc = cuzk_snarkjs_public_parse(text, len, &pub, &n, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: public.json: %s", CIRCUITS[c], err);
        if (!rc) {
            rc = cuzk_snarkjs_public_format(pub, n, &out, &olen, err, sizeof err);
            CHECK(rc == CUZK_OK && olen == len && !memcmp(out, text, len),
                  "%s: written public.json differs from snarkjs's", CIRCUITS[c]);
            free(out);
        }
        free(pub);
        free(text);
    }

    /* identity points and an empty public list, in bfj's layout, and back */
    cuzk_groth16_proof z;
    memset(&z, 0, sizeof z);
    char *out;
    size_t olen;
    int rc = cuzk_snarkjs_proof_format(&z, &out, &olen, err, sizeof err);
    const char *want =
        "{\n \"pi_a\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ],\n \"pi_b\": [\n  [\n   \"0\",\n   "
        "\"0\"\n  ],\n  [\n   \"1\",\n   \"0\"\n  ],\n  [\n   \"0\",\n   \"0\"\n  ]\n ],\n "
        "\"pi_c\": [\n  \"0\",\n  \"1\",\n  \"0\"\n ],\n \"protocol\": \"groth16\",\n \"curve\": "
        "\"bls12381\"\n}";
    CHECK(rc == CUZK_OK && !strcmp(out, want), "identity proof.json:\n%s", rc ? err : out);
    if (!rc) {
        cuzk_groth16_proof back;
        memset(&back, 0xaa, sizeof back);
        rc = cuzk_snarkjs_proof_parse(out, olen, &back, err, sizeof err);
        CHECK(rc == CUZK_OK && !memcmp(&back, &z, sizeof z), "identity proof read back: %s", err);
        free(out);
    }
    rc = cuzk_snarkjs_public_format(NULL, 0, &out, &olen, err, sizeof err);
    CHECK(rc == CUZK_OK && !strcmp(out, "[\n]"), "empty public.json");
    if (!rc) {
        cuzk_fr *pub = (cuzk_fr *)&z;
        size_t n = 7;
        rc = cuzk_snarkjs_public_parse(out, olen, &pub, &n, err, sizeof err);
        CHECK(rc == CUZK_OK && n == 0 && pub == NULL, "empty public.json read back");
        free(out);
    }
    /* a point off the curve is refused */
    z.a.x = CUZK_FP_ONE;
    rc = cuzk_snarkjs_proof_format(&z, &out, &olen, err, sizeof err);
    CHECK(rc == CUZK_ENOTONCURVE, "off-curve proof formatted (%d)", rc);

    /* writer misuse and escaping */
    cuzk_json_writer w;
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_array(&w);
    cuzk_json_write_key(&w, "k");
    cuzk_json_write_end_array(&w);
    CHECK(cuzk_json_writer_finish(&w, &out, &olen, err, sizeof err) == CUZK_EINVAL, "key inside an array");
    cuzk_json_writer_free(&w);
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_object(&w);
    cuzk_json_write_u64(&w, 1);
    cuzk_json_write_end_object(&w);
    CHECK(cuzk_json_writer_finish(&w, &out, &olen, err, sizeof err) == CUZK_EINVAL, "member without a key");
    cuzk_json_writer_free(&w);
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_object(&w);
    CHECK(cuzk_json_writer_finish(&w, &out, &olen, err, sizeof err) == CUZK_EINVAL, "unclosed object");
    cuzk_json_writer_free(&w);
    cuzk_json_writer_init(&w);
    for (int i = 0; i <= CUZK_JSON_WRITER_MAX_DEPTH; i++)
        cuzk_json_write_begin_array(&w);
    CHECK(cuzk_json_writer_finish(&w, &out, &olen, err, sizeof err) == CUZK_ERANGE, "writer depth");
    cuzk_json_writer_free(&w);
    cuzk_json_writer_init(&w);
    cuzk_json_write_begin_object(&w);
    cuzk_json_write_key(&w, "a\"b");
    cuzk_json_write_string(&w, "x\n\x01\\/\xc3\xa9", 7);
    cuzk_json_write_key(&w, "n");
    cuzk_json_write_u64(&w, 18446744073709551615ull);
    cuzk_json_write_end_object(&w);
    rc = cuzk_json_writer_finish(&w, &out, &olen, err, sizeof err);
    const char *esc = "{\n \"a\\\"b\": \"x\\n\\u0001\\\\/\xc3\xa9\",\n \"n\": 18446744073709551615\n}";
    CHECK(rc == CUZK_OK && !strcmp(out, esc), "escaped output:\n%s", rc ? err : out);
    if (!rc) {
        cuzk_json_doc *d;
        rc = cuzk_json_parse(out, olen, NULL, &d, err, sizeof err);
        const cuzk_json_value *a = rc ? NULL : cuzk_json_member(cuzk_json_root(d), "a\"b");
        CHECK(a && a->len == 7 && !memcmp(a->str, "x\n\x01\\/\xc3\xa9", 7), "escaped output read back");
        if (!rc)
            cuzk_json_free(d);
        free(out);
    }
    cuzk_json_writer_free(&w);
}

/* ---- snarkjs readers: strictness ----------------------------------------------------- */

static int vk_text(const char *t, char *err, size_t errlen)
{
    cuzk_groth16_vk vk;
    char *c = exact(t, strlen(t));
    int rc = cuzk_snarkjs_vk_parse(c, strlen(t), &vk, err, errlen);
    free(c);
    if (!rc)
        cuzk_groth16_vk_free(&vk);
    return rc;
}

static int proof_text(const char *t, cuzk_groth16_proof *p, char *err, size_t errlen)
{
    char *c = exact(t, strlen(t));
    int rc = cuzk_snarkjs_proof_parse(c, strlen(t), p, err, errlen);
    free(c);
    return rc;
}

static void test_snarkjs_strict(void)
{
    char err[256];
    size_t len;
    char *vk = test_read_fixture("bits", "verification_key.json", &len);
    char *pf = test_read_fixture("bits", "proof.json", &len);
    if (!vk || !pf) {
        free(vk);
        free(pf);
        return;
    }
    CHECK(vk_text(vk, err, sizeof err) == CUZK_OK, "bits vk: %s", err);
    /* x of vk_alpha_1 and its line, to edit */
    const char *ax = "192836533446091068659289498814963050915763283157812176674824270251134730729396957573456"
                     "1816352922937500031972090888";
    CHECK(strstr(vk, ax) != NULL, "bits vk: alpha x not found (fixture changed?)");
    char q[128], r[128];
    if (!moduli_from_snarkjs(q, r) || !strstr(vk, ax)) {
        free(vk);
        free(pf);
        return;
    }
    static const struct {
        const char *old, *new;
        int rc;
        const char *msg;
    } edits[] = {
        {"\"protocol\": \"groth16\"", "\"protocol\": \"plonk\"", CUZK_ERANGE, "protocol"},
        {"\"protocol\": \"groth16\",", "", CUZK_EINVAL, "protocol: missing"},
        {"\"curve\": \"bls12381\"", "\"curve\": \"bn128\"", CUZK_ERANGE, "curve"},
        {"\"curve\": \"bls12381\"", "\"curve\": 1", CUZK_EINVAL, "curve"},
        {"\"curve\": \"bls12381\"", "\"curve\": \"BLS12-381\"", CUZK_OK, NULL},
        {"\"curve\": \"bls12381\"", "\"curve\": \"bls12381xx\"", CUZK_ERANGE, "curve"},
        {"\"nPublic\": 2", "\"nPublic\": 3", CUZK_EINVAL, "nPublic is 3 but IC has 3 points"},
        {"\"nPublic\": 2", "\"nPublic\": \"2\"", CUZK_EINVAL, "nPublic"},
        {"\"nPublic\": 2", "\"nPublic\": -1", CUZK_EINVAL, "nPublic"},
        {"\"nPublic\": 2", "\"nPublic\": 2.0", CUZK_EINVAL, "nPublic"},
        {"\"IC\"", "\"ic\"", CUZK_EINVAL, "IC: missing"},
        {"\"vk_alpha_1\"", "\"vk_alpha_one\"", CUZK_EINVAL, "vk_alpha_1"},
        {"\"vk_alphabeta_12\"", "\"vk_alphabeta_12_unused\"", CUZK_OK, NULL},
        {"\"1\"\n ],\n \"vk_beta_2\"", "\"2\"\n ],\n \"vk_beta_2\"", CUZK_EINVAL, "vk_alpha_1: z must be 1"},
        {"\"1\"\n ],\n \"vk_beta_2\"", "\"0\"\n ],\n \"vk_beta_2\"", CUZK_OK, NULL}, /* identity alpha */
        {"\"1\"\n ],\n \"vk_beta_2\"", "1\n ],\n \"vk_beta_2\"", CUZK_EINVAL,
         "vk_alpha_1.z: expected a decimal string"},
        {"\"1\"\n ],\n \"vk_beta_2\"", "\"01\"\n ],\n \"vk_beta_2\"", CUZK_EINVAL, "leading zero"},
        {"\",\n  \"1\"\n ],\n \"vk_beta_2\"", "\"\n ],\n \"vk_beta_2\"", CUZK_EINVAL,
         "vk_alpha_1: expected a G1 point"},
        {"[\n   \"1\",\n   \"0\"\n  ]\n ],\n \"vk_gamma_2\"",
         "[\n   \"1\",\n   \"1\"\n  ]\n ],\n \"vk_gamma_2\"", CUZK_EINVAL, "vk_beta_2: z must be 1"},
        {"[\n   \"1\",\n   \"0\"\n  ]\n ],\n \"vk_gamma_2\"", "[\n   \"1\"\n  ]\n ],\n \"vk_gamma_2\"",
         CUZK_EINVAL, "vk_beta_2.z: expected an Fp2 value"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char *t = replace(vk, edits[i].old, edits[i].new);
        CHECK(t != NULL, "edit %zu: pattern not found", i);
        if (!t)
            continue;
        err[0] = 0;
        int rc = vk_text(t, err, sizeof err);
        CHECK(rc == edits[i].rc, "vk edit %zu: rc %d, expected %d (%s)", i, rc, edits[i].rc, err);
        if (edits[i].msg)
            CHECK(msg_has(err, edits[i].msg) && msg_has(err, "verification_key.json: "),
                  "vk edit %zu message", i);
        free(t);
    }
    /* coordinates: = p, off the curve, outside the subgroup */
    char *t = replace(vk, ax, q);
    CHECK(vk_text(t, err, sizeof err) == CUZK_ENONCANONICAL && msg_has(err, "vk_alpha_1.x: Fp:"), "x = p");
    free(t);
    char ax2[128];
    strcpy(ax2, ax);
    ax2[strlen(ax2) - 1] = ax2[strlen(ax2) - 1] == '9' ? '8' : ax2[strlen(ax2) - 1] + 1;
    t = replace(vk, ax, ax2);
    CHECK(vk_text(t, err, sizeof err) == CUZK_ENOTONCURVE && msg_has(err, "vk_alpha_1: not on the curve"),
          "alpha off the curve");
    free(t);
    cuzk_g1_affine og;
    for (;;) {
        cuzk_fp x, rhs, four;
        test_rand_fp(&x);
        cuzk_fp_sqr(&rhs, &x);
        cuzk_fp_mul(&rhs, &rhs, &x);
        cuzk_fp_from_u64(&four, 4);
        cuzk_fp_add(&rhs, &rhs, &four);
        og.x = x;
        if (cuzk_fp_sqrt(&og.y, &rhs) && !cuzk_g1_affine_in_group(&og))
            break;
    }
    char ox[CUZK_FP_DECIMAL_SIZE], oy[CUZK_FP_DECIMAL_SIZE], pt[400], old[400];
    cuzk_fp_to_decimal(ox, &og.x);
    cuzk_fp_to_decimal(oy, &og.y);
    const char *ay = "322211617080686323086825805293438769592566401264233940536347186367398402162815193988532"
                     "8038557364997747220167880956";
    snprintf(old, sizeof old, "\"%s\",\n  \"%s\"", ax, ay);
    snprintf(pt, sizeof pt, "\"%s\",\n  \"%s\"", ox, oy);
    t = replace(vk, old, pt);
    CHECK(t && vk_text(t, err, sizeof err) == CUZK_ENOTINGROUP &&
              msg_has(err, "vk_alpha_1: not in the r-order"),
          "alpha outside G1");
    free(t);
    /* IC entry as the identity is accepted */
    const char *ic0 = "[\n   "
                      "\"949820023599840718856401331770901652326614126062963470400119925761820907179148053105"
                      "49520417115950043791042466630\",\n   "
                      "\"105017116209352137567820186171158184376835842166211018851917765774551744633439579149"
                      "9559116989893979353949532647601\",\n   \"1\"\n  ]";
    t = replace(vk, ic0, "[\"0\", \"1\", \"0\"]");
    CHECK(t != NULL, "IC[0] pattern not found");
    if (t) {
        cuzk_groth16_vk v;
        int rc = cuzk_snarkjs_vk_parse(t, strlen(t), &v, err, sizeof err);
        CHECK(rc == CUZK_OK && cuzk_g1_affine_is_identity(&v.ic[0]) && v.n_ic == 3, "IC[0] identity: %s",
              err);
        if (!rc)
            cuzk_groth16_vk_free(&v);
        free(t);
    }
    /* a top level that is not an object, and a missing file */
    CHECK(vk_text("[]", err, sizeof err) == CUZK_EINVAL && msg_has(err, "expected an object, found array"),
          "vk: array at the top");
    cuzk_groth16_vk v;
    CHECK(cuzk_snarkjs_vk_read("/nonexistent/verification_key.json", &v, err, sizeof err) == CUZK_EIO,
          "no file");

    /* proof.json: protocol and curve optional, checked when present; shapes */
    cuzk_groth16_proof p0, p1;
    CHECK(proof_text(pf, &p0, err, sizeof err) == CUZK_OK, "bits proof: %s", err);
    static const struct {
        const char *old, *new;
        int rc;
    } pedits[] = {
        {",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"", "", CUZK_OK},
        {"\"protocol\": \"groth16\"", "\"protocol\": \"fflonk\"", CUZK_ERANGE},
        {"\"curve\": \"bls12381\"", "\"curve\": \"bn254\"", CUZK_ERANGE},
        {"\"pi_a\"", "\"pi_x\"", CUZK_EINVAL},
        {"\"pi_b\": [", "\"pi_b\": [[\"1\",\"0\"],", CUZK_EINVAL},
        {"\"pi_c\": [", "\"pi_c\": {\"x\": [", CUZK_EINVAL},
        {"\n}", ",\n \"extra\": {\"ignored\": [1, 2]}\n}", CUZK_OK},
    };
    for (size_t i = 0; i < sizeof pedits / sizeof *pedits; i++) {
        t = replace(pf, pedits[i].old, pedits[i].new);
        CHECK(t != NULL, "proof edit %zu: pattern not found", i);
        if (!t)
            continue;
        memset(&p1, 0, sizeof p1);
        int rc = proof_text(t, &p1, err, sizeof err);
        CHECK(rc == pedits[i].rc, "proof edit %zu: rc %d, expected %d (%s)", i, rc, pedits[i].rc, err);
        if (rc == CUZK_OK)
            CHECK(!memcmp(&p0, &p1, sizeof p0), "proof edit %zu changed the points", i);
        free(t);
    }
    /* public.json: strings only, below r */
    static const struct {
        const char *text;
        int rc;
    } pubs[] = {{"[\"1\", \"2\"]", CUZK_OK},
                {"[1, 2]", CUZK_EINVAL},
                {"{}", CUZK_EINVAL},
                {"[\"-1\"]", CUZK_EINVAL},
                {"[[\"1\"]]", CUZK_EINVAL},
                {"[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]",
                 CUZK_ENONCANONICAL}};
    for (size_t i = 0; i < sizeof pubs / sizeof *pubs; i++) {
        cuzk_fr *pub = NULL;
        size_t n;
        char *c = exact(pubs[i].text, strlen(pubs[i].text));
        int rc = cuzk_snarkjs_public_parse(c, strlen(pubs[i].text), &pub, &n, err, sizeof err);
        CHECK(rc == pubs[i].rc, "public #%zu: rc %d, expected %d (%s)", i, rc, pubs[i].rc, err);
        CHECK(rc != CUZK_OK || (n == 2 && cuzk_fr_eq(&pub[0], &CUZK_FR_ONE)), "public #%zu values", i);
        free(pub);
        free(c);
    }
    free(vk);
    free(pf);
}

int main(void)
{
    test_rng_init("test_json");
    test_valid();
    test_malformed();
    test_limits();
    test_decimal();
    test_decimal_vs_snarkjs_binaries();
    test_writer_matches_snarkjs();
    test_snarkjs_strict();
    test_truncations_and_noise();
    return test_finish("test_json");
}
