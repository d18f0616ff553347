/*
 * snarkjs_wtns.c — the .wtns witness reader.
 *
 * Layout (iden3 snarkjs, src/wtns_utils.js; magic "wtns", versions 1 and 2):
 *   section 1, header: u32 n8 | prime (n8 bytes) | u32 nWitness
 *   section 2, values: nWitness x n8 bytes, plain (non-Montgomery) LE
 * The prime is the scalar field r (witness values live in Fr). The value
 * section is size-checked against nWitness before anything is allocated, so
 * the allocation is always backed by file bytes; each value must be below r.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/snarkjs.h"
#include "groth16/snarkjs_files.h"

static int decode(cuzk_snarkjs_wtns *w, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    snarkjs_container c;
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_container_parse(&c, data, len, "wtns", 2, err, errlen)))
        return rc;
    w->version = c.version;
    if ((rc = snarkjs_require(&c, 1, "header", &cur, err, errlen)))
        return rc;
    uint64_t size = cur.left;
    if ((rc = snarkjs_read_prime_r(&cur, "wtns", "section 1 (header)", err, errlen)))
        return rc;
    const uint8_t *p = snarkjs_take(&cur, 4);
    if (!p || cur.left != 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "wtns: section 1 (header) has %llu bytes, expected 40",
                         (unsigned long long)size);
    w->n = snarkjs_le32(p);
    if (w->n == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "wtns: witness has no values (index 0 must be the constant 1)");
    if ((rc = snarkjs_require(&c, 2, "values", &cur, err, errlen)) ||
        (rc = snarkjs_expect_size(&c, 2, "values", cur.left, 0, w->n, 32, err, errlen)))
        return rc;
    w->values = malloc((size_t)w->n * sizeof *w->values);
    if (!w->values)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "wtns: out of memory for %u values", w->n);
    for (uint32_t i = 0; i < w->n; i++)
        if (!cuzk_fr_from_le32(&w->values[i], snarkjs_take(&cur, 32)))
            return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "wtns: value %u is not below r", i);
    return CUZK_OK;
}

int cuzk_snarkjs_wtns_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_wtns **out, char *err,
                                  size_t errlen)
{
    *out = NULL;
    cuzk_snarkjs_wtns *w = calloc(1, sizeof *w);
    if (!w)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "wtns: out of memory");
    int rc = decode(w, data, len, err, errlen);
    if (rc) {
        cuzk_snarkjs_wtns_free(w);
        return rc;
    }
    *out = w;
    return CUZK_OK;
}

int cuzk_snarkjs_wtns_open(const char *path, cuzk_snarkjs_wtns **out, char *err, size_t errlen)
{
    *out = NULL;
    snarkjs_image im;
    int rc = snarkjs_image_map(&im, path, "wtns", err, errlen);
    if (rc)
        return rc;
    rc = cuzk_snarkjs_wtns_from_buffer(im.data, im.len, out, err, errlen);
    snarkjs_image_release(&im);
    return rc;
}

void cuzk_snarkjs_wtns_free(cuzk_snarkjs_wtns *w)
{
    if (!w)
        return;
    free(w->values);
    free(w);
}
