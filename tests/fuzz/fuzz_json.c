/*
 * fuzz_json.c — libFuzzer target for the JSON reader (cuzk/json.h) and the
 * snarkjs verification_key.json / proof.json / public.json readers built on it
 * (cuzk/snarkjs_json.h).
 *
 * Every input goes to the plain parser twice (default limits, then tight
 * ones) and to the three snarkjs readers; seed with the JSON files of
 * tests/fixtures/bits.
 * The text is copied into an exact-size heap buffer with no terminating NUL,
 * so AddressSanitizer sees any read past the end. A parsed tree is walked in
 * full: every value's shape is checked against the header's contract, every
 * number goes through cuzk_json_u64 and every string through the decimal
 * field-element readers. Properties checked besides memory safety:
 *   - a failure comes with a message, a success with a document;
 *   - tight limits never accept what the defaults reject as malformed;
 *   - accepted numbers and decimals are canonical: printing the value again
 *     gives back the literal;
 *   - proof.json and public.json round-trip: what the formatter writes, the
 *     reader reads back as the same values.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/json.h"
#include "cuzk/snarkjs_json.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

static void check_decimal(const cuzk_json_value *v)
{
    cuzk_fp p;
    cuzk_fr r;
    if (cuzk_fp_from_decimal(&p, v->str, v->len, NULL, 0) == CUZK_OK) {
        char buf[CUZK_FP_DECIMAL_SIZE];
        size_t n = cuzk_fp_to_decimal(buf, &p);
        require(n == v->len && memcmp(buf, v->str, n) == 0);
    }
    if (cuzk_fr_from_decimal(&r, v->str, v->len, NULL, 0) == CUZK_OK) {
        char buf[CUZK_FR_DECIMAL_SIZE];
        size_t n = cuzk_fr_to_decimal(buf, &r);
        require(n == v->len && memcmp(buf, v->str, n) == 0);
    }
}

/* Checks one value and everything below it; depth is bounded by the parser's limit. */
static void walk(const cuzk_json_value *v, int in_object)
{
    require(in_object ? v->key != NULL && v->key[v->key_len] == 0 : v->key == NULL);
    switch (v->type) {
    case CUZK_JSON_NUMBER: {
        require(v->str && v->len > 0 && v->str[v->len] == 0);
        uint64_t u;
        if (cuzk_json_u64(v, &u) == CUZK_OK) {
            char buf[24];
            int n = snprintf(buf, sizeof buf, "%" PRIu64, u);
            require((size_t)n == v->len && memcmp(buf, v->str, v->len) == 0);
        }
        break;
    }
    case CUZK_JSON_STRING:
        require(v->str && v->str[v->len] == 0);
        check_decimal(v);
        break;
    case CUZK_JSON_ARRAY:
    case CUZK_JSON_OBJECT:
        require(v->n == 0 || v->items != NULL);
        for (size_t i = 0; i < v->n; i++)
            walk(&v->items[i], v->type == CUZK_JSON_OBJECT);
        if (v->type == CUZK_JSON_OBJECT)
            for (size_t i = 0; i < v->n; i++)
                if (strlen(v->items[i].key) == v->items[i].key_len)
                    require(cuzk_json_member(v, v->items[i].key) != NULL);
        break;
    default: require(v->str == NULL && v->n == 0); break;
    }
    require(cuzk_json_type_name(v->type) != NULL);
}

static void run_parse(const char *t, size_t n)
{
    char err[256] = "";
    cuzk_json_doc *doc = NULL;
    int rc = cuzk_json_parse(t, n, NULL, &doc, err, sizeof err);
    require((rc == CUZK_OK) == (doc != NULL) && (rc == CUZK_OK || err[0]));
    if (doc)
        walk(cuzk_json_root(doc), 0);
    cuzk_json_free(doc);

    cuzk_json_limits tight = {256, 4, 32};
    cuzk_json_doc *small = NULL;
    err[0] = 0;
    int rc2 = cuzk_json_parse(t, n, &tight, &small, err, sizeof err);
    require((rc2 == CUZK_OK) == (small != NULL) && (rc2 == CUZK_OK || err[0]));
    require(rc2 != CUZK_OK || rc == CUZK_OK);
    cuzk_json_free(small);
}

static void run_vk(const char *t, size_t n)
{
    char err[256] = "";
    cuzk_groth16_vk vk;
    int rc = cuzk_snarkjs_vk_parse(t, n, &vk, err, sizeof err);
    require(rc == CUZK_OK || err[0]);
    if (rc == CUZK_OK)
        require(vk.n_ic >= 1 && vk.ic != NULL);
    cuzk_groth16_vk_free(&vk);
}

static void run_proof(const char *t, size_t n)
{
    char err[256] = "";
    cuzk_groth16_proof pr;
    int rc = cuzk_snarkjs_proof_parse(t, n, &pr, err, sizeof err);
    require(rc == CUZK_OK || err[0]);
    if (rc != CUZK_OK)
        return;
    char *text = NULL;
    size_t len = 0;
    require(cuzk_snarkjs_proof_format(&pr, &text, &len, err, sizeof err) == CUZK_OK);
    cuzk_groth16_proof back;
    require(cuzk_snarkjs_proof_parse(text, len, &back, err, sizeof err) == CUZK_OK);
    require(memcmp(&back, &pr, sizeof pr) == 0);
    free(text);
}

static void run_public(const char *t, size_t n)
{
    char err[256] = "";
    cuzk_fr *xs = NULL;
    size_t cnt = 0;
    int rc = cuzk_snarkjs_public_parse(t, n, &xs, &cnt, err, sizeof err);
    require(rc == CUZK_OK || err[0]);
    if (rc != CUZK_OK) {
        free(xs);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    require(cuzk_snarkjs_public_format(xs, cnt, &text, &len, err, sizeof err) == CUZK_OK);
    cuzk_fr *back = NULL;
    size_t cnt2 = 0;
    require(cuzk_snarkjs_public_parse(text, len, &back, &cnt2, err, sizeof err) == CUZK_OK);
    require(cnt2 == cnt && (cnt == 0 || memcmp(back, xs, cnt * sizeof *xs) == 0));
    free(back);
    free(text);
    free(xs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    run_parse(copy, size);
    run_vk(copy, size);
    run_proof(copy, size);
    run_public(copy, size);
    free(copy);
    return 0;
}
