/*
 * serialize.c — zcash/blst and snarkjs encodings of G1 and G2 points (the
 * layouts are documented in cuzk/serialize.h).
 *
 * Every zcash decoder runs the same steps in the same order, so a given bad
 * input always yields the same status: (1) flag bits against the form
 * (compression bit, sign bit, infinity bit with anything else set);
 * (2) the identity, accepted or rejected by flag; (3) each coordinate < p
 * with the flag bits stripped from byte 0; (4) on the curve (uncompressed) or
 * a square root exists (compressed), choosing the root the sign bit names;
 * (5) the subgroup check when requested. Steps 1-3 are byte checks; 4 costs
 * a few multiplications or one exponentiation; 5 costs a 64- or 128-bit
 * scalar multiplication (cuzk_g*_affine_in_group).
 *
 * Writers assume their input is a valid affine point (or the identity) and
 * always produce canonical bytes. Nothing here allocates.
 */
#include "cuzk/serialize.h"

#include <string.h>

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20

/* ---- shared helpers ----------------------------------------------------- */

/* Reads a 48-byte big-endian coordinate, stripping the flag bits when it
 * carries them (the first Fp of an encoding). */
static int read_fp_be(cuzk_fp *r, const uint8_t in[48], bool has_flags, const char *what, char *err,
                      size_t errlen)
{
    uint8_t b[48];
    memcpy(b, in, 48);
    if (has_flags)
        b[0] &= 0x1f;
    if (!cuzk_fp_from_be48(r, b))
        return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "%s is not less than the field modulus p", what);
    return CUZK_OK;
}

static bool all_zero(const uint8_t *in, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= in[i];
    return acc == 0;
}

/*
 * Step 1 for an n-byte encoding in the given form: returns CUZK_OK and sets
 * *inf when the flags are consistent.
 */
static int check_flags(const uint8_t *in, size_t n, bool compressed, const char *name, bool *inf, char *err,
                       size_t errlen)
{
    uint8_t b = in[0];
    if (compressed && !(b & FLAG_COMPRESSED))
        return cuzk_fail(err, errlen, CUZK_EFLAGS,
                         "%s: compression bit (0x80) clear in a %zu-byte compressed encoding", name, n);
    if (!compressed && (b & FLAG_COMPRESSED))
        return cuzk_fail(err, errlen, CUZK_EFLAGS,
                         "%s: compression bit (0x80) set in a %zu-byte uncompressed encoding", name, n);
    if (!compressed && (b & FLAG_SIGN))
        return cuzk_fail(err, errlen, CUZK_EFLAGS, "%s: sign bit (0x20) set in an uncompressed encoding",
                         name);
    *inf = (b & FLAG_INFINITY) != 0;
    if (*inf) {
        if (b & FLAG_SIGN)
            return cuzk_fail(err, errlen, CUZK_EFLAGS, "%s: infinity bit (0x40) together with the sign bit",
                             name);
        if ((b & 0x1f) || !all_zero(in + 1, n - 1))
            return cuzk_fail(err, errlen, CUZK_EFLAGS,
                             "%s: infinity bit (0x40) set but the remaining bits are not all zero", name);
    }
    return CUZK_OK;
}

static int reject_identity(unsigned flags, const char *name, char *err, size_t errlen)
{
    if (flags & CUZK_DECODE_REJECT_IDENTITY)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: point at infinity not allowed here", name);
    return CUZK_OK;
}

/* The start every decoder shares: the flag bits, then the identity, which is
 * zeroed into out (the in-memory identity) or refused. *done says whether the
 * caller should return rc now. */
static int decode_prologue(const uint8_t *in, size_t n, bool compressed, const char *name, unsigned flags,
                           void *out, size_t outsize, bool *done, char *err, size_t errlen)
{
    bool inf = false;
    int rc = check_flags(in, n, compressed, name, &inf, err, errlen);
    *done = rc != CUZK_OK || inf;
    if (rc != CUZK_OK || !inf)
        return rc;
    if ((rc = reject_identity(flags, name, err, errlen)))
        return rc;
    memset(out, 0, outsize);
    return CUZK_OK;
}

/* x < p for canonical limbs x. */
static bool fp_limbs_lt_p(const uint64_t x[6])
{
    for (int i = 5; i >= 0; i--)
        if (x[i] != CUZK_P[i])
            return x[i] < CUZK_P[i];
    return false;
}

static void write_fp_le(uint8_t out[48], const cuzk_fp *a, bool montgomery)
{
    uint64_t x[6];
    if (montgomery)
        memcpy(x, a->l, sizeof x);
    else
        cuzk_fp_to_canonical(x, a);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            out[8 * i + j] = (uint8_t)(x[i] >> (8 * j));
}

static int read_fp_le(cuzk_fp *r, const uint8_t in[48], bool montgomery, const char *what, char *err,
                      size_t errlen)
{
    uint64_t x[6];
    for (int i = 0; i < 6; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--)
            v = (v << 8) | in[8 * i + j];
        x[i] = v;
    }
    if (!fp_limbs_lt_p(x))
        return cuzk_fail(err, errlen, CUZK_ENONCANONICAL, "%s is not less than the field modulus p", what);
    if (montgomery)
        memcpy(r->l, x, sizeof x);
    else
        cuzk_fp_from_canonical(r, x);
    return CUZK_OK;
}

/* ---- G1 ----------------------------------------------------------------- */

static int g1_finish(cuzk_g1_affine *out, const cuzk_g1_affine *p, bool check_curve, unsigned flags,
                     const char *name, char *err, size_t errlen)
{
    /* (0, 0) is our in-memory identity but not a point: it only means infinity with the flag set */
    if (check_curve && (cuzk_g1_affine_is_identity(p) || !cuzk_g1_affine_on_curve(p)))
        return cuzk_fail(err, errlen, CUZK_ENOTONCURVE, "%s: (x, y) does not satisfy y^2 = x^3 + 4", name);
    if ((flags & CUZK_DECODE_CHECK_GROUP) && !cuzk_g1_affine_in_group(p))
        return cuzk_fail(err, errlen, CUZK_ENOTINGROUP,
                         "%s: point is on the curve but not in the r-order subgroup", name);
    *out = *p;
    return CUZK_OK;
}

void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *a)
{
    if (cuzk_g1_affine_is_identity(a)) {
        memset(out, 0, 96);
        out[0] = FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_be48(out, &a->x);
    cuzk_fp_to_be48(out + 48, &a->y);
}

void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *a)
{
    if (cuzk_g1_affine_is_identity(a)) {
        memset(out, 0, 48);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_be48(out, &a->x);
    out[0] |= FLAG_COMPRESSED | (cuzk_fp_is_lex_largest(&a->y) ? FLAG_SIGN : 0);
}

int cuzk_g1_deserialize(cuzk_g1_affine *out, const uint8_t in[96], unsigned flags, char *err, size_t errlen)
{
    static const char name[] = "g1 uncompressed";
    bool done;
    int rc = decode_prologue(in, 96, false, name, flags, out, sizeof *out, &done, err, errlen);
    if (done)
        return rc;
    cuzk_g1_affine p;
    if ((rc = read_fp_be(&p.x, in, true, "g1 uncompressed: x", err, errlen)) ||
        (rc = read_fp_be(&p.y, in + 48, false, "g1 uncompressed: y", err, errlen)))
        return rc;
    return g1_finish(out, &p, true, flags, name, err, errlen);
}

int cuzk_g1_uncompress(cuzk_g1_affine *out, const uint8_t in[48], unsigned flags, char *err, size_t errlen)
{
    static const char name[] = "g1 compressed";
    bool done;
    int rc = decode_prologue(in, 48, true, name, flags, out, sizeof *out, &done, err, errlen);
    if (done)
        return rc;
    cuzk_g1_affine p;
    if ((rc = read_fp_be(&p.x, in, true, "g1 compressed: x", err, errlen)))
        return rc;
    cuzk_fp rhs, b;
    cuzk_fp_sqr(&rhs, &p.x);
    cuzk_fp_mul(&rhs, &rhs, &p.x);
    cuzk_fp_dbl(&b, &CUZK_FP_ONE); /* b = 4 */
    cuzk_fp_dbl(&b, &b);
    cuzk_fp_add(&rhs, &rhs, &b);
    if (!cuzk_fp_sqrt(&p.y, &rhs))
        return cuzk_fail(err, errlen, CUZK_ENOSQRT, "%s: x^3 + 4 is not a square, no point has this x", name);
    if (cuzk_fp_is_lex_largest(&p.y) != ((in[0] & FLAG_SIGN) != 0))
        cuzk_fp_neg(&p.y, &p.y);
    return g1_finish(out, &p, false, flags, name, err, errlen);
}

int cuzk_g1_decode(cuzk_g1_affine *out, const uint8_t *in, size_t len, unsigned flags, char *err,
                   size_t errlen)
{
    if (len == 48)
        return cuzk_g1_uncompress(out, in, flags, err, errlen);
    if (len == 96)
        return cuzk_g1_deserialize(out, in, flags, err, errlen);
    return cuzk_fail(err, errlen, CUZK_EINVAL, "g1: encoding is %zu bytes, expected 48 (compressed) or 96",
                     len);
}

void cuzk_g1_to_snarkjs(uint8_t out[96], const cuzk_g1_affine *a, bool montgomery)
{
    write_fp_le(out, &a->x, montgomery);
    write_fp_le(out + 48, &a->y, montgomery);
}

int cuzk_g1_from_snarkjs(cuzk_g1_affine *out, const uint8_t in[96], bool montgomery, unsigned flags,
                         char *err, size_t errlen)
{
    static const char name[] = "g1 snarkjs";
    int rc;
    if (all_zero(in, 96)) {
        if ((rc = reject_identity(flags, name, err, errlen)))
            return rc;
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    cuzk_g1_affine p;
    if ((rc = read_fp_le(&p.x, in, montgomery, "g1 snarkjs: x", err, errlen)) ||
        (rc = read_fp_le(&p.y, in + 48, montgomery, "g1 snarkjs: y", err, errlen)))
        return rc;
    return g1_finish(out, &p, true, flags, name, err, errlen);
}

/* ---- G2 ----------------------------------------------------------------- */

static int g2_finish(cuzk_g2_affine *out, const cuzk_g2_affine *p, bool check_curve, unsigned flags,
                     const char *name, char *err, size_t errlen)
{
    /* (0, 0) is our in-memory identity but not a point: it only means infinity with the flag set */
    if (check_curve && (cuzk_g2_affine_is_identity(p) || !cuzk_g2_affine_on_curve(p)))
        return cuzk_fail(err, errlen, CUZK_ENOTONCURVE, "%s: (x, y) does not satisfy y^2 = x^3 + 4(1 + u)",
                         name);
    if ((flags & CUZK_DECODE_CHECK_GROUP) && !cuzk_g2_affine_in_group(p))
        return cuzk_fail(err, errlen, CUZK_ENOTINGROUP,
                         "%s: point is on the curve but not in the r-order subgroup", name);
    *out = *p;
    return CUZK_OK;
}

void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *a)
{
    if (cuzk_g2_affine_is_identity(a)) {
        memset(out, 0, 192);
        out[0] = FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_be48(out, &a->x.c1);
    cuzk_fp_to_be48(out + 48, &a->x.c0);
    cuzk_fp_to_be48(out + 96, &a->y.c1);
    cuzk_fp_to_be48(out + 144, &a->y.c0);
}

void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *a)
{
    if (cuzk_g2_affine_is_identity(a)) {
        memset(out, 0, 96);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    cuzk_fp_to_be48(out, &a->x.c1);
    cuzk_fp_to_be48(out + 48, &a->x.c0);
    out[0] |= FLAG_COMPRESSED | (cuzk_fp2_is_lex_largest(&a->y) ? FLAG_SIGN : 0);
}

int cuzk_g2_deserialize(cuzk_g2_affine *out, const uint8_t in[192], unsigned flags, char *err, size_t errlen)
{
    static const char name[] = "g2 uncompressed";
    bool done;
    int rc = decode_prologue(in, 192, false, name, flags, out, sizeof *out, &done, err, errlen);
    if (done)
        return rc;
    cuzk_g2_affine p;
    if ((rc = read_fp_be(&p.x.c1, in, true, "g2 uncompressed: x.c1", err, errlen)) ||
        (rc = read_fp_be(&p.x.c0, in + 48, false, "g2 uncompressed: x.c0", err, errlen)) ||
        (rc = read_fp_be(&p.y.c1, in + 96, false, "g2 uncompressed: y.c1", err, errlen)) ||
        (rc = read_fp_be(&p.y.c0, in + 144, false, "g2 uncompressed: y.c0", err, errlen)))
        return rc;
    return g2_finish(out, &p, true, flags, name, err, errlen);
}

int cuzk_g2_uncompress(cuzk_g2_affine *out, const uint8_t in[96], unsigned flags, char *err, size_t errlen)
{
    static const char name[] = "g2 compressed";
    bool done;
    int rc = decode_prologue(in, 96, true, name, flags, out, sizeof *out, &done, err, errlen);
    if (done)
        return rc;
    cuzk_g2_affine p;
    if ((rc = read_fp_be(&p.x.c1, in, true, "g2 compressed: x.c1", err, errlen)) ||
        (rc = read_fp_be(&p.x.c0, in + 48, false, "g2 compressed: x.c0", err, errlen)))
        return rc;
    cuzk_fp2 rhs, b;
    cuzk_fp2_sqr(&rhs, &p.x);
    cuzk_fp2_mul(&rhs, &rhs, &p.x);
    cuzk_fp2_mul_xi(&b, &CUZK_FP2_ONE); /* b' = 4(1 + u) */
    cuzk_fp2_dbl(&b, &b);
    cuzk_fp2_dbl(&b, &b);
    cuzk_fp2_add(&rhs, &rhs, &b);
    if (!cuzk_fp2_sqrt(&p.y, &rhs))
        return cuzk_fail(err, errlen, CUZK_ENOSQRT, "%s: x^3 + 4(1 + u) is not a square, no point has this x",
                         name);
    if (cuzk_fp2_is_lex_largest(&p.y) != ((in[0] & FLAG_SIGN) != 0))
        cuzk_fp2_neg(&p.y, &p.y);
    return g2_finish(out, &p, false, flags, name, err, errlen);
}

int cuzk_g2_decode(cuzk_g2_affine *out, const uint8_t *in, size_t len, unsigned flags, char *err,
                   size_t errlen)
{
    if (len == 96)
        return cuzk_g2_uncompress(out, in, flags, err, errlen);
    if (len == 192)
        return cuzk_g2_deserialize(out, in, flags, err, errlen);
    return cuzk_fail(err, errlen, CUZK_EINVAL, "g2: encoding is %zu bytes, expected 96 (compressed) or 192",
                     len);
}

void cuzk_g2_to_snarkjs(uint8_t out[192], const cuzk_g2_affine *a, bool montgomery)
{
    write_fp_le(out, &a->x.c0, montgomery);
    write_fp_le(out + 48, &a->x.c1, montgomery);
    write_fp_le(out + 96, &a->y.c0, montgomery);
    write_fp_le(out + 144, &a->y.c1, montgomery);
}

int cuzk_g2_from_snarkjs(cuzk_g2_affine *out, const uint8_t in[192], bool montgomery, unsigned flags,
                         char *err, size_t errlen)
{
    static const char name[] = "g2 snarkjs";
    int rc;
    if (all_zero(in, 192)) {
        if ((rc = reject_identity(flags, name, err, errlen)))
            return rc;
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    cuzk_g2_affine p;
    if ((rc = read_fp_le(&p.x.c0, in, montgomery, "g2 snarkjs: x.c0", err, errlen)) ||
        (rc = read_fp_le(&p.x.c1, in + 48, montgomery, "g2 snarkjs: x.c1", err, errlen)) ||
        (rc = read_fp_le(&p.y.c0, in + 96, montgomery, "g2 snarkjs: y.c0", err, errlen)) ||
        (rc = read_fp_le(&p.y.c1, in + 144, montgomery, "g2 snarkjs: y.c1", err, errlen)))
        return rc;
    return g2_finish(out, &p, true, flags, name, err, errlen);
}
