/*
 * snarkjs_r1cs.c — circom's .r1cs reader and the witness check.
 *
 * Layout (iden3 r1csfile, src/r1csfile.js; magic "r1cs", version 1):
 *   section 1, header: u32 n8 | prime (n8 bytes) | u32 nWires | u32 nPubOut |
 *                      u32 nPubIn | u32 nPrvIn | u64 nLabels | u32 nConstraints
 *   section 2, constraints: nConstraints times the three linear combinations
 *                      A, B, C; each is u32 nTerms then nTerms x {u32 wire,
 *                      coefficient n8 bytes, plain (non-Montgomery) LE}
 *   section 3, wire -> label map: nWires x u64 (optional here; size-checked)
 *   sections 4 and 5: custom gates, a PLONK-only extension: rejected.
 *
 * Decoding is two passes over section 2. The first pass only walks the
 * lengths: it proves that every LC header and every run of terms lies inside
 * the section and counts the terms per matrix. Only then are the CSR arrays
 * allocated, with sizes the file has backed with bytes (36 per term, 12 per
 * constraint), so a forged count cannot make us allocate gigabytes from a
 * kilobyte file. The second pass range-checks wires (< nWires) and
 * coefficients (< r) and converts coefficients to Montgomery form.
 *
 * The check evaluates each row's three dot products with Fr multiplications;
 * it is a validation tool (run once before proving), not the prover's path.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/snarkjs.h"
#include "groth16/snarkjs_files.h"

#define TERM_SIZE 36 /* u32 wire + 32-byte coefficient */

static const char *const MATRIX_NAME[3] = {"A", "B", "C"};

static int read_header(cuzk_snarkjs_r1cs *r, const snarkjs_container *c, char *err, size_t errlen)
{
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_require(c, 1, "header", &cur, err, errlen)))
        return rc;
    uint64_t size = cur.left;
    if ((rc = snarkjs_read_prime_r(&cur, "r1cs", "section 1 (header)", err, errlen)))
        return rc;
    const uint8_t *p = snarkjs_take(&cur, 28);
    if (!p || cur.left != 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "r1cs: section 1 (header) has %llu bytes, expected 64",
                         (unsigned long long)size);
    r->n_wires = snarkjs_le32(p);
    r->n_pub_out = snarkjs_le32(p + 4);
    r->n_pub_in = snarkjs_le32(p + 8);
    r->n_prv_in = snarkjs_le32(p + 12);
    r->n_labels = snarkjs_le64(p + 16);
    r->n_constraints = snarkjs_le32(p + 24);
    uint64_t named = 1ull + r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (named > r->n_wires)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "r1cs: 1 + %u outputs + %u public inputs + %u private inputs exceeds %u wires",
                         r->n_pub_out, r->n_pub_in, r->n_prv_in, r->n_wires);
    return CUZK_OK;
}

/* Pass 1: bounds of every LC; counts terms per matrix. */
static int count_terms(const cuzk_snarkjs_r1cs *r, snarkjs_cursor cur, uint64_t nnz[3], char *err,
                       size_t errlen)
{
    /* Each constraint needs at least its three u32 term counts. */
    if ((uint64_t)r->n_constraints > cur.left / 12)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "r1cs: %u constraints need at least %llu bytes but section 2 (constraints) has %llu",
                         r->n_constraints, 12ull * r->n_constraints, (unsigned long long)cur.left);
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            const uint8_t *p = snarkjs_take(&cur, 4);
            if (!p)
                return cuzk_fail(err, errlen, CUZK_EINVAL,
                                 "r1cs: section 2 (constraints) ends inside constraint %u (%s term count)", i,
                                 MATRIX_NAME[m]);
            uint32_t n = snarkjs_le32(p);
            if (!snarkjs_take(&cur, (uint64_t)n * TERM_SIZE))
                return cuzk_fail(err, errlen, CUZK_EINVAL,
                                 "r1cs: constraint %u: %s has %u terms (%llu bytes) but section 2 "
                                 "(constraints) has only %llu bytes left",
                                 i, MATRIX_NAME[m], n, (unsigned long long)n * TERM_SIZE,
                                 (unsigned long long)cur.left);
            nnz[m] += n;
        }
    }
    if (cur.left != 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "r1cs: section 2 (constraints) has %llu bytes left after %u constraints",
                         (unsigned long long)cur.left, r->n_constraints);
    return CUZK_OK;
}

static int alloc_matrix(cuzk_snarkjs_matrix *mx, uint32_t rows, uint64_t nnz)
{
    mx->nnz = nnz;
    mx->row = malloc(((size_t)rows + 1) * sizeof *mx->row);
    /* Never malloc(0): an empty matrix still gets valid (unused) arrays. */
    mx->col = malloc((size_t)(nnz ? nnz : 1) * sizeof *mx->col);
    mx->val = malloc((size_t)(nnz ? nnz : 1) * sizeof *mx->val);
    return mx->row && mx->col && mx->val ? CUZK_OK : CUZK_ENOMEM;
}

/* Pass 2: fill CSR arrays; wire and coefficient range checks. */
static int fill_terms(cuzk_snarkjs_r1cs *r, snarkjs_cursor cur, char *err, size_t errlen)
{
    cuzk_snarkjs_matrix *mx[3] = {&r->a, &r->b, &r->c};
    uint64_t k[3] = {0, 0, 0};
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            mx[m]->row[i] = k[m];
            uint32_t n = snarkjs_le32(snarkjs_take(&cur, 4));
            const uint8_t *t = snarkjs_take(&cur, (uint64_t)n * TERM_SIZE);
            for (uint32_t j = 0; j < n; j++, t += TERM_SIZE) {
                uint32_t wire = snarkjs_le32(t);
                if (wire >= r->n_wires)
                    return cuzk_fail(err, errlen, CUZK_EINVAL,
                                     "r1cs: constraint %u, %s term %u: wire %u out of range (%u wires)", i,
                                     MATRIX_NAME[m], j, wire, r->n_wires);
                if (!cuzk_fr_from_le32(&mx[m]->val[k[m]], t + 4))
                    return cuzk_fail(err, errlen, CUZK_ENONCANONICAL,
                                     "r1cs: constraint %u, %s term %u: coefficient is not below r", i,
                                     MATRIX_NAME[m], j);
                mx[m]->col[k[m]++] = wire;
            }
        }
    }
    for (int m = 0; m < 3; m++)
        mx[m]->row[r->n_constraints] = k[m];
    return CUZK_OK;
}

static int decode(cuzk_snarkjs_r1cs *r, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    snarkjs_container c;
    int rc;
    if ((rc = snarkjs_container_parse(&c, data, len, "r1cs", 1, err, errlen)))
        return rc;
    r->version = c.version;
    if (snarkjs_find(&c, 4) || snarkjs_find(&c, 5))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "r1cs: has custom gates (sections 4/5), a PLONK-only feature Groth16 cannot prove");
    if ((rc = read_header(r, &c, err, errlen)))
        return rc;
    const snarkjs_section *map = snarkjs_find(&c, 3);
    if (map &&
        (rc = snarkjs_expect_size(&c, 3, "wire-to-label map", map->size, 0, r->n_wires, 8, err, errlen)))
        return rc;
    snarkjs_cursor cur;
    if ((rc = snarkjs_require(&c, 2, "constraints", &cur, err, errlen)))
        return rc;
    uint64_t nnz[3] = {0, 0, 0};
    if ((rc = count_terms(r, cur, nnz, err, errlen)))
        return rc;
    if (alloc_matrix(&r->a, r->n_constraints, nnz[0]) || alloc_matrix(&r->b, r->n_constraints, nnz[1]) ||
        alloc_matrix(&r->c, r->n_constraints, nnz[2]))
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "r1cs: out of memory for %llu terms",
                         (unsigned long long)(nnz[0] + nnz[1] + nnz[2]));
    return fill_terms(r, cur, err, errlen);
}

static int finish(cuzk_snarkjs_r1cs *r, int rc, cuzk_snarkjs_r1cs **out)
{
    if (rc) {
        cuzk_snarkjs_r1cs_free(r);
        return rc;
    }
    *out = r;
    return CUZK_OK;
}

int cuzk_snarkjs_r1cs_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_r1cs **out, char *err,
                                  size_t errlen)
{
    *out = NULL;
    cuzk_snarkjs_r1cs *r = calloc(1, sizeof *r);
    if (!r)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "r1cs: out of memory");
    return finish(r, decode(r, data, len, err, errlen), out);
}

int cuzk_snarkjs_r1cs_open(const char *path, cuzk_snarkjs_r1cs **out, char *err, size_t errlen)
{
    *out = NULL;
    snarkjs_image im;
    int rc = snarkjs_image_map(&im, path, "r1cs", err, errlen);
    if (rc)
        return rc;
    rc = cuzk_snarkjs_r1cs_from_buffer(im.data, im.len, out, err, errlen);
    snarkjs_image_release(&im);
    return rc;
}

void cuzk_snarkjs_r1cs_free(cuzk_snarkjs_r1cs *r)
{
    if (!r)
        return;
    cuzk_snarkjs_matrix *mx[3] = {&r->a, &r->b, &r->c};
    for (int m = 0; m < 3; m++) {
        free(mx[m]->row);
        free(mx[m]->col);
        free(mx[m]->val);
    }
    free(r);
}

int cuzk_snarkjs_r1cs_unused(const cuzk_snarkjs_r1cs *r, uint64_t *n_public, uint64_t *n_private,
                             uint32_t *first)
{
    *n_public = *n_private = 0;
    *first = 0;
    uint64_t *used = calloc((size_t)r->n_wires / 64 + 1, sizeof *used);
    if (!used)
        return CUZK_ENOMEM;
    const cuzk_snarkjs_matrix *mx[3] = {&r->a, &r->b, &r->c};
    for (int m = 0; m < 3; m++)
        for (uint64_t k = 0; k < mx[m]->nnz; k++)
            if (!cuzk_fr_is_zero(&mx[m]->val[k]))
                used[mx[m]->col[k] / 64] |= 1ull << (mx[m]->col[k] % 64);
    uint64_t n_pub = (uint64_t)r->n_pub_out + r->n_pub_in;
    for (uint64_t i = 1; i < r->n_wires; i++) {
        if (used[i / 64] >> (i % 64) & 1)
            continue;
        if (!*first)
            *first = (uint32_t)i;
        if (i <= n_pub)
            ++*n_public;
        else
            ++*n_private;
    }
    free(used);
    return CUZK_OK;
}

static void row_dot(cuzk_fr *acc, const cuzk_snarkjs_matrix *mx, uint32_t i, const cuzk_fr *w)
{
    cuzk_fr t;
    *acc = CUZK_FR_ZERO;
    for (uint64_t k = mx->row[i]; k < mx->row[i + 1]; k++) {
        cuzk_fr_mul(&t, &mx->val[k], &w[mx->col[k]]);
        cuzk_fr_add(acc, acc, &t);
    }
}

int64_t cuzk_snarkjs_r1cs_check(const cuzk_snarkjs_r1cs *r, const cuzk_fr *w, size_t n)
{
    if (n < r->n_wires)
        return CUZK_SNARKJS_WITNESS_SHORT;
    cuzk_fr a, b, c;
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        row_dot(&a, &r->a, i, w);
        row_dot(&b, &r->b, i, w);
        row_dot(&c, &r->c, i, w);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            return i;
    }
    return -1;
}
