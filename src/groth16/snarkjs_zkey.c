/*
 * snarkjs_zkey.c — the Groth16 .zkey reader.
 *
 * Layout (iden3 snarkjs, src/zkey_utils.js writeHeader/writeZKey/readZKey;
 * magic "zkey"; snarkjs writes version 1 and its prover, src/groth16_prove.js,
 * accepts up to 2 with the same layout, so both are accepted here). Points are
 * affine, each Fq coordinate 48 bytes LE in Montgomery form (x·2^384 mod q);
 * G1 = x ‖ y (96 B), G2 = x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1 (192 B); the point at
 * infinity is all zero bytes.
 *   1  protocol: u32 (1 = Groth16, 2 = PLONK, 10 = FFLONK)
 *   2  Groth16 header: u32 n8q | q | u32 n8r | r | u32 nVars | u32 nPublic |
 *      u32 domainSize | alpha1 | beta1 | beta2 | gamma2 | delta1 | delta2
 *      (G1, G1, G2, G2, G1, G2: 4+48+4+32+12+3*96+3*192 = 964 bytes)
 *   3  IC: nPublic + 1 G1
 *   4  coefficients: u32 n, then n x {u32 matrix, u32 constraint, u32 signal,
 *      32-byte value}; value = v·R^2 mod r (R = 2^256), matrix 0 = A, 1 = B
 *   5  A: nVars G1          6  B1: nVars G1          7  B2: nVars G2
 *   8  C: nVars - nPublic - 1 G1 (signals nPublic+1 ..)
 *   9  H: domainSize G1 (odd-index Lagrange points of the 2n domain)
 *   10 contributions (MPC transcript): not needed to prove, left unparsed
 *
 * What is checked where. Open validates the structure completely (every
 * section size against the header counts, with the arithmetic in u64 and
 * every count < 2^32, so products cannot wrap) and every coefficient entry
 * (matrix, row < domainSize, signal < nVars, value < r), and fully decodes the
 * six header points (canonical, on the curve, in the subgroup, not the
 * identity). The bulk point sections stay as raw bytes in the mapped file:
 * a prover streams them to a GPU as they are, and decoding 10^8 points at
 * open would cost seconds. Accessors decode single points strictly, and
 * cuzk_snarkjs_zkey_check_points validates them all when a caller wants it.
 *
 * Coefficient values: a cuzk_fr with limbs L stands for L·R^-1. The file holds
 * L = v·R^2, so the element v needs limbs v·R = L·R^-1, which is exactly
 * what cuzk_fr_to_canonical computes from limbs L.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/serialize.h"
#include "cuzk/snarkjs.h"
#include "groth16/snarkjs_files.h"

typedef struct {
    cuzk_snarkjs_zkey pub; /* first, so a public pointer converts back */
    snarkjs_image im;
} zkey_impl;

#define HEADER_SIZE (4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192)

static const char *section_name(uint32_t id)
{
    switch (id) {
    case CUZK_ZKEY_SEC_PROTOCOL: return "protocol";
    case CUZK_ZKEY_SEC_HEADER: return "Groth16 header";
    case CUZK_ZKEY_SEC_IC: return "IC points";
    case CUZK_ZKEY_SEC_COEFS: return "coefficients";
    case CUZK_ZKEY_SEC_A: return "A points";
    case CUZK_ZKEY_SEC_B1: return "B1 points";
    case CUZK_ZKEY_SEC_B2: return "B2 points";
    case CUZK_ZKEY_SEC_C: return "C points";
    case CUZK_ZKEY_SEC_H: return "H points";
    case CUZK_ZKEY_SEC_CONTRIB: return "contributions";
    default: return "unknown";
    }
}

static int read_protocol(const snarkjs_container *c, char *err, size_t errlen)
{
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_require(c, 1, "protocol", &cur, err, errlen)) ||
        (rc = snarkjs_expect_size(c, 1, "protocol", cur.left, 0, 1, 4, err, errlen)))
        return rc;
    uint32_t proto = snarkjs_le32(cur.p);
    if (proto == 1)
        return CUZK_OK;
    const char *name = proto == 2 ? "PLONK" : proto == 10 ? "FFLONK" : "unknown";
    return cuzk_fail(err, errlen, CUZK_ERANGE,
                     "zkey: protocol %u (%s) is not Groth16 (1); only Groth16 keys are "
                     "supported",
                     proto, name);
}

static int header_g1(cuzk_g1_affine *out, const uint8_t *p, const char *name, char *err, size_t errlen)
{
    char inner[160] = "";
    int rc = cuzk_g1_from_snarkjs(out, p, true, CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY, inner,
                                  sizeof inner);
    if (rc)
        return cuzk_fail(err, errlen, rc, "zkey: section 2 (Groth16 header) %s: %s", name, inner);
    return CUZK_OK;
}

static int header_g2(cuzk_g2_affine *out, const uint8_t *p, const char *name, char *err, size_t errlen)
{
    char inner[160] = "";
    int rc = cuzk_g2_from_snarkjs(out, p, true, CUZK_DECODE_CHECK_GROUP | CUZK_DECODE_REJECT_IDENTITY, inner,
                                  sizeof inner);
    if (rc)
        return cuzk_fail(err, errlen, rc, "zkey: section 2 (Groth16 header) %s: %s", name, inner);
    return CUZK_OK;
}

static int read_header(cuzk_snarkjs_zkey *z, const snarkjs_container *c, char *err, size_t errlen)
{
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_require(c, 2, "Groth16 header", &cur, err, errlen)))
        return rc;
    if (cur.left >= 4 && (z->n8q = snarkjs_le32(cur.p)) != 48)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "zkey: base field elements are %u bytes, expected 48 (BLS12-381)", z->n8q);
    if (cur.left != HEADER_SIZE)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zkey: section 2 (Groth16 header) has %llu bytes, expected %d",
                         (unsigned long long)cur.left, HEADER_SIZE);
    const uint8_t *p = cur.p + 4;
    char hex[104];
    if (!snarkjs_bytes_eq_limbs(p, CUZK_P, 6)) {
        snarkjs_hex_le(hex, p, 48);
        return cuzk_fail(err, errlen, CUZK_ERANGE, "zkey: base field prime %s is not BLS12-381's p", hex);
    }
    memcpy(z->q, CUZK_P, sizeof z->q);
    p += 48;
    if ((z->n8r = snarkjs_le32(p)) != 32)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "zkey: scalar field elements are %u bytes, expected 32 (BLS12-381)", z->n8r);
    if (!snarkjs_bytes_eq_limbs(p + 4, CUZK_R, 4)) {
        snarkjs_hex_le(hex, p + 4, 32);
        return cuzk_fail(err, errlen, CUZK_ERANGE, "zkey: scalar field prime %s is not BLS12-381's r", hex);
    }
    memcpy(z->r, CUZK_R, sizeof z->r);
    p += 36;
    z->n_vars = snarkjs_le32(p);
    z->n_public = snarkjs_le32(p + 4);
    z->domain_size = snarkjs_le32(p + 8);
    p += 12;
    if ((uint64_t)z->n_public + 1 > z->n_vars)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey: nPublic %u + 1 exceeds nVars %u", z->n_public,
                         z->n_vars);
    uint32_t d = z->domain_size;
    if (d == 0 || (d & (d - 1)) != 0 || (uint64_t)d < (uint64_t)z->n_public + 1)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zkey: domainSize %u is not a power of two holding the %llu input rows", d,
                         (unsigned long long)z->n_public + 1);
    if ((rc = header_g1(&z->alpha1, p, "alpha1", err, errlen)) ||
        (rc = header_g1(&z->beta1, p + 96, "beta1", err, errlen)) ||
        (rc = header_g2(&z->beta2, p + 192, "beta2", err, errlen)) ||
        (rc = header_g2(&z->gamma2, p + 384, "gamma2", err, errlen)) ||
        (rc = header_g1(&z->delta1, p + 576, "delta1", err, errlen)) ||
        (rc = header_g2(&z->delta2, p + 672, "delta2", err, errlen)))
        return rc;
    return CUZK_OK;
}

static int points_section(cuzk_snarkjs_points *pts, const snarkjs_container *c, uint32_t id, uint64_t count,
                          uint32_t stride, char *err, size_t errlen)
{
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_require(c, id, section_name(id), &cur, err, errlen)) ||
        (rc = snarkjs_expect_size(c, id, section_name(id), cur.left, 0, count, stride, err, errlen)))
        return rc;
    pts->data = cur.p;
    pts->offset = (uint64_t)(cur.p - c->data);
    pts->count = (size_t)count;
    pts->stride = stride;
    pts->section = id;
    return CUZK_OK;
}

/* True iff the 32 little-endian bytes encode an integer below r. */
static bool below_r(const uint8_t *b)
{
    for (int i = 3; i >= 0; i--) {
        uint64_t v = snarkjs_le64(b + 8 * i);
        if (v != CUZK_R[i])
            return v < CUZK_R[i];
    }
    return false;
}

static int read_coefs(cuzk_snarkjs_zkey *z, const snarkjs_container *c, char *err, size_t errlen)
{
    snarkjs_cursor cur;
    int rc;
    if ((rc = snarkjs_require(c, 4, "coefficients", &cur, err, errlen)))
        return rc;
    if (cur.left < 4)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zkey: section 4 (coefficients) has %llu bytes, too short "
                         "for its count",
                         (unsigned long long)cur.left);
    z->n_coefs = snarkjs_le32(cur.p);
    if ((rc = snarkjs_expect_size(c, 4, "coefficients", cur.left, 4, z->n_coefs, CUZK_ZKEY_COEF_SIZE, err,
                                  errlen)))
        return rc;
    z->coefs = cur.p + 4;
    z->coefs_offset = (uint64_t)(z->coefs - c->data);
    const uint8_t *e = z->coefs;
    for (uint32_t k = 0; k < z->n_coefs; k++, e += CUZK_ZKEY_COEF_SIZE) {
        uint32_t m = snarkjs_le32(e), row = snarkjs_le32(e + 4), sig = snarkjs_le32(e + 8);
        if (m > 1)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "zkey: coefficient %u: matrix %u is neither A (0) nor B (1)", k, m);
        if (row >= z->domain_size)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "zkey: coefficient %u: constraint %u out of range (domainSize %u)", k, row,
                             z->domain_size);
        if (sig >= z->n_vars)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "zkey: coefficient %u: signal %u out of range (nVars %u)", k, sig, z->n_vars);
        if (!below_r(e + 12))
            return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "zkey: coefficient %u: value is not below r",
                             k);
    }
    return CUZK_OK;
}

static int decode(cuzk_snarkjs_zkey *z, const uint8_t *data, size_t len, char *err, size_t errlen)
{
    snarkjs_container c;
    int rc;
    if ((rc = snarkjs_container_parse(&c, data, len, "zkey", 2, err, errlen)))
        return rc;
    z->version = c.version;
    z->image = data;
    z->image_len = len;
    if ((rc = read_protocol(&c, err, errlen)) || (rc = read_header(z, &c, err, errlen)))
        return rc;
    uint64_t nv = z->n_vars, np = z->n_public;
    /* Sizes first (constant time), then the linear scan of the coefficients. */
    if ((rc = points_section(&z->ic, &c, CUZK_ZKEY_SEC_IC, np + 1, 96, err, errlen)) ||
        (rc = points_section(&z->a, &c, CUZK_ZKEY_SEC_A, nv, 96, err, errlen)) ||
        (rc = points_section(&z->b1, &c, CUZK_ZKEY_SEC_B1, nv, 96, err, errlen)) ||
        (rc = points_section(&z->b2, &c, CUZK_ZKEY_SEC_B2, nv, 192, err, errlen)) ||
        (rc = points_section(&z->c, &c, CUZK_ZKEY_SEC_C, nv - np - 1, 96, err, errlen)) ||
        (rc = points_section(&z->h, &c, CUZK_ZKEY_SEC_H, z->domain_size, 96, err, errlen)) ||
        (rc = read_coefs(z, &c, err, errlen)))
        return rc;
    return CUZK_OK;
}

static int finish(zkey_impl *zi, int rc, cuzk_snarkjs_zkey **out)
{
    if (rc) {
        cuzk_snarkjs_zkey_free(&zi->pub);
        return rc;
    }
    *out = &zi->pub;
    return CUZK_OK;
}

int cuzk_snarkjs_zkey_from_buffer(const uint8_t *data, size_t len, cuzk_snarkjs_zkey **out, char *err,
                                  size_t errlen)
{
    *out = NULL;
    zkey_impl *zi = calloc(1, sizeof *zi);
    if (!zi)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "zkey: out of memory");
    return finish(zi, decode(&zi->pub, data, len, err, errlen), out);
}

int cuzk_snarkjs_zkey_open(const char *path, cuzk_snarkjs_zkey **out, char *err, size_t errlen)
{
    *out = NULL;
    zkey_impl *zi = calloc(1, sizeof *zi);
    if (!zi)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "zkey: out of memory");
    int rc = snarkjs_image_map(&zi->im, path, "zkey", err, errlen);
    if (rc) {
        free(zi);
        return rc;
    }
    return finish(zi, decode(&zi->pub, zi->im.data, zi->im.len, err, errlen), out);
}

void cuzk_snarkjs_zkey_free(cuzk_snarkjs_zkey *z)
{
    if (!z)
        return;
    zkey_impl *zi = (zkey_impl *)z;
    snarkjs_image_release(&zi->im);
    free(zi);
}

static int point_at(const cuzk_snarkjs_points *pts, size_t i, uint32_t stride, const uint8_t **p, char *err,
                    size_t errlen)
{
    if (pts->stride != stride)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey: section %u (%s) holds %s points, not %s",
                         pts->section, section_name(pts->section), pts->stride == 96 ? "G1" : "G2",
                         stride == 96 ? "G1" : "G2");
    if (i >= pts->count)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "zkey: section %u (%s): point %zu out of range (%zu points)", pts->section,
                         section_name(pts->section), i, pts->count);
    *p = pts->data + i * stride;
    return CUZK_OK;
}

int cuzk_snarkjs_points_g1(const cuzk_snarkjs_points *pts, size_t i, unsigned flags, cuzk_g1_affine *out,
                           char *err, size_t errlen)
{
    const uint8_t *p = NULL;
    char inner[160] = "";
    int rc = point_at(pts, i, 96, &p, err, errlen);
    if (rc)
        return rc;
    if ((rc = cuzk_g1_from_snarkjs(out, p, true, flags, inner, sizeof inner)))
        return cuzk_fail(err, errlen, rc, "zkey: section %u (%s) point %zu: %s", pts->section,
                         section_name(pts->section), i, inner);
    return CUZK_OK;
}

int cuzk_snarkjs_points_g2(const cuzk_snarkjs_points *pts, size_t i, unsigned flags, cuzk_g2_affine *out,
                           char *err, size_t errlen)
{
    const uint8_t *p = NULL;
    char inner[160] = "";
    int rc = point_at(pts, i, 192, &p, err, errlen);
    if (rc)
        return rc;
    if ((rc = cuzk_g2_from_snarkjs(out, p, true, flags, inner, sizeof inner)))
        return cuzk_fail(err, errlen, rc, "zkey: section %u (%s) point %zu: %s", pts->section,
                         section_name(pts->section), i, inner);
    return CUZK_OK;
}

int cuzk_snarkjs_zkey_coef(const cuzk_snarkjs_zkey *z, size_t k, cuzk_snarkjs_coef *out)
{
    if (k >= z->n_coefs)
        return CUZK_ERANGE;
    const uint8_t *e = z->coefs + k * CUZK_ZKEY_COEF_SIZE;
    out->matrix = snarkjs_le32(e);
    out->constraint = snarkjs_le32(e + 4);
    out->signal = snarkjs_le32(e + 8);
    cuzk_fr stored;
    for (int i = 0; i < 4; i++)
        stored.l[i] = snarkjs_le64(e + 12 + 8 * i);
    cuzk_fr_to_canonical(out->value.l, &stored);
    return CUZK_OK;
}

int cuzk_snarkjs_zkey_check_points(const cuzk_snarkjs_zkey *z, unsigned flags, char *err, size_t errlen)
{
    const cuzk_snarkjs_points *g1[] = {&z->ic, &z->a, &z->b1, &z->c, &z->h};
    cuzk_g1_affine p1;
    cuzk_g2_affine p2;
    int rc;
    for (size_t s = 0; s < sizeof g1 / sizeof g1[0]; s++)
        for (size_t i = 0; i < g1[s]->count; i++)
            if ((rc = cuzk_snarkjs_points_g1(g1[s], i, flags, &p1, err, errlen)))
                return rc;
    for (size_t i = 0; i < z->b2.count; i++)
        if ((rc = cuzk_snarkjs_points_g2(&z->b2, i, flags, &p2, err, errlen)))
            return rc;
    return CUZK_OK;
}
