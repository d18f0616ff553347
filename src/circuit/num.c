/*
 * num.c — field-element gadgets: AllocatedNum alloc/inputize/to_bits_le
 * (bellpepper-core num.rs), packing (storage-proofs-core pack_bits,
 * bellperson multipack::pack_into_inputs), equal and pick, the Merkle
 * insertion gadgets (storage-proofs-core insertion.rs) and the SHA-256
 * Merkle node; porep-circuit.md §3.5 and §3.7.
 *
 * to_bits_le is the non-strict decomposition used everywhere in the Filecoin
 * circuits: 255 bits of the canonical value without a range check, then one
 * row with empty A and B whose C is sum 2^i b_i - v. insert_8 computes
 * nor(b0, b1) and and(b0, b1) once and reuses them in its 20 picks, in the
 * exact order of the Rust code, because that order is the variable order.
 */
#include <stdlib.h>
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/gadgets.h"

#define CAPACITY 254
#define NUM_BITS 255

int cuzk_num_alloc(cuzk_csb *cs, const cuzk_fr *value, cuzk_num *out)
{
    out->val = value ? *value : CUZK_FR_ZERO;
    return cuzk_csb_alloc(cs, &out->val, &out->var);
}

static int row_x_one_y(cuzk_csb *cs, const cuzk_lc *x, cuzk_var y)
{
    cuzk_lc_term one_t = {CUZK_VAR_ONE, CUZK_FR_ONE}, y_t = {y, CUZK_FR_ONE};
    cuzk_lc one = {&one_t, 1, 1}, ly = {&y_t, 1, 1};
    return cuzk_csb_enforce(cs, x, &one, &ly);
}

static int row_var_one_var(cuzk_csb *cs, cuzk_var x, cuzk_var y)
{
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    cuzk_lc_term x_t = {x, CUZK_FR_ONE};
    cuzk_lc lx = {&x_t, 1, 1};
    return row_x_one_y(cs, &lx, y);
}

int cuzk_num_inputize(cuzk_csb *cs, const cuzk_num *n)
{
    cuzk_var in;
    if (cuzk_csb_alloc_input(cs, &n->val, &in) != CUZK_OK)
        return cuzk_csb_error(cs);
    return row_var_one_var(cs, in, n->var);
}

int cuzk_num_equal(cuzk_csb *cs, const cuzk_num *a, const cuzk_num *b)
{
    return row_var_one_var(cs, a->var, b->var);
}

int cuzk_num_to_bits_le(cuzk_csb *cs, const cuzk_num *n, cuzk_bool bits[255])
{
    uint64_t x[4];
    cuzk_fr_to_canonical(x, &n->val);
    for (int i = 0; i < NUM_BITS; i++)
        cuzk_bit_alloc(cs, (x[i / 64] >> (i % 64)) & 1, &bits[i]);
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    cuzk_lc c = {0};
    cuzk_fr p = CUZK_FR_ONE, m1;
    int rc = CUZK_OK;
    for (int i = 0; i < NUM_BITS && rc == CUZK_OK; i++) {
        rc = csb_lc_push(&c, bits[i].var, &p);
        cuzk_fr_dbl(&p, &p);
    }
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    if (rc == CUZK_OK)
        rc = csb_lc_push(&c, n->var, &m1);
    if (rc == CUZK_OK) {
        csb_lc_normalize(&c);
        rc = cuzk_csb_enforce(cs, NULL, NULL, &c);
    }
    cuzk_lc_free(&c);
    return cuzk_csb_note(cs, rc);
}

/* lc = sum 2^i bits[i] (Boolean lcs), and its value. */
static int bits_lc(cuzk_lc *lc, const cuzk_bool *bits, size_t n, bool need_lc, cuzk_fr *value)
{
    uint8_t le[32] = {0};
    cuzk_fr p = CUZK_FR_ONE, neg;
    int rc = CUZK_OK;
    for (size_t i = 0; i < n; i++) {
        cuzk_bool b = bits[i];
        if (b.val)
            le[i / 8] |= (uint8_t)(1u << (i % 8));
        if (need_lc && rc == CUZK_OK) {
            if (b.kind == CUZK_BOOL_IS) {
                rc = csb_lc_push(lc, b.var, &p);
            } else if (b.kind == CUZK_BOOL_NOT) {
                cuzk_fr_neg(&neg, &p);
                rc = csb_lc_push(lc, CUZK_VAR_ONE, &p);
                if (rc == CUZK_OK)
                    rc = csb_lc_push(lc, b.var, &neg);
            } else if (b.val) {
                rc = csb_lc_push(lc, CUZK_VAR_ONE, &p);
            }
            cuzk_fr_dbl(&p, &p);
        }
    }
    if (need_lc)
        csb_lc_normalize(lc);
    cuzk_fr_from_le32_reduce(value, le);
    return rc;
}

int cuzk_pack_bits(cuzk_csb *cs, const cuzk_bool *bits, size_t n, cuzk_num *out)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if ((n && !bits) || !out)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    if (n > CAPACITY)
        n = CAPACITY;
    bool need_lc = csb_need_lc(cs);
    cuzk_lc lc = {0};
    cuzk_fr value;
    int rc = bits_lc(&lc, bits, n, need_lc, &value);
    if (rc == CUZK_OK)
        rc = cuzk_num_alloc(cs, &value, out);
    if (rc == CUZK_OK)
        rc = need_lc ? row_x_one_y(cs, &lc, out->var) : cuzk_csb_enforce(cs, NULL, NULL, NULL);
    cuzk_lc_free(&lc);
    return cuzk_csb_note(cs, rc);
}

int cuzk_pack_into_inputs(cuzk_csb *cs, const cuzk_bool *bits, size_t n)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (n && !bits)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    bool need_lc = csb_need_lc(cs);
    for (size_t at = 0; at < n && !cuzk_csb_error(cs); at += CAPACITY) {
        size_t k = n - at < CAPACITY ? n - at : CAPACITY;
        cuzk_lc lc = {0};
        cuzk_fr value;
        cuzk_var in;
        int rc = bits_lc(&lc, bits + at, k, need_lc, &value);
        if (rc == CUZK_OK)
            rc = cuzk_csb_alloc_input(cs, &value, &in);
        if (rc == CUZK_OK)
            rc = need_lc ? row_x_one_y(cs, &lc, in) : cuzk_csb_enforce(cs, NULL, NULL, NULL);
        cuzk_lc_free(&lc);
        cuzk_csb_note(cs, rc);
    }
    return cuzk_csb_error(cs);
}

int cuzk_num_pick(cuzk_csb *cs, cuzk_bool cond, const cuzk_num *a_in, const cuzk_num *b_in, cuzk_num *out)
{
    cuzk_num r, ca = *a_in, cb = *b_in; /* out may alias a or b */
    const cuzk_num *a = &ca, *b = &cb;
    if (cuzk_num_alloc(cs, cond.val ? &a->val : &b->val, &r) != CUZK_OK)
        return cuzk_csb_error(cs);
    *out = r;
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    /* (b - a) · cond = b - c */
    cuzk_lc_term ta[4], tb[4], tc[4];
    cuzk_lc la = {ta, 0, 4}, lb = {tb, 0, 4}, lc = {tc, 0, 4};
    cuzk_lc_add_u64(&la, b->var, 1);
    cuzk_lc_add_u64(&la, a->var, -1);
    cuzk_bool_lc_add(&lb, cond, NULL);
    cuzk_lc_add_u64(&lc, b->var, 1);
    cuzk_lc_add_u64(&lc, r.var, -1);
    return cuzk_csb_enforce(cs, &la, &lb, &lc);
}

int cuzk_insert_2(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[1], const cuzk_bool bits[1],
                  cuzk_num out[2])
{
    cuzk_num_pick(cs, bits[0], &sib[0], el, &out[0]);
    cuzk_num_pick(cs, bits[0], el, &sib[0], &out[1]);
    return cuzk_csb_error(cs);
}

int cuzk_insert_4(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[3], const cuzk_bool bits[2],
                  cuzk_num out[4])
{
    const cuzk_num *a = el, *b = &sib[0], *c = &sib[1], *d = &sib[2];
    cuzk_bool b0 = bits[0], b1 = bits[1];
    cuzk_num t;
    cuzk_num_pick(cs, b0, b, a, &t);
    cuzk_num_pick(cs, b1, b, &t, &out[0]);
    cuzk_num_pick(cs, b0, a, b, &t);
    cuzk_num_pick(cs, b1, c, &t, &out[1]);
    cuzk_num_pick(cs, b0, d, a, &t);
    cuzk_num_pick(cs, b1, &t, c, &out[2]);
    cuzk_num_pick(cs, b0, a, d, &t);
    cuzk_num_pick(cs, b1, &t, d, &out[3]);
    return cuzk_csb_error(cs);
}

int cuzk_insert_8(cuzk_csb *cs, const cuzk_num *el, const cuzk_num sib[7], const cuzk_bool bits[3],
                  cuzk_num out[8])
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (bits[0].kind != CUZK_BOOL_IS || bits[1].kind != CUZK_BOOL_IS)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    const cuzk_num *a = el, *b = &sib[0], *c = &sib[1], *d = &sib[2], *e = &sib[3], *f = &sib[4],
                   *g = &sib[5], *h = &sib[6];
    cuzk_bool b0 = bits[0], b1 = bits[1], b2 = bits[2], nor, and;
    cuzk_bit_nor(cs, b0, b1, &nor);
    cuzk_bit_and(cs, b0, b1, &and);
    cuzk_num t;
    /* p0 = pick(b2, b, pick(nor, a, b)) */
    cuzk_num_pick(cs, nor, a, b, &t);
    cuzk_num_pick(cs, b2, b, &t, &out[0]);
    /* p1 = pick(b2, c, pick(b1, c, pick(b0, a, b))) */
    cuzk_num_pick(cs, b0, a, b, &t);
    cuzk_num_pick(cs, b1, c, &t, &t);
    cuzk_num_pick(cs, b2, c, &t, &out[1]);
    /* p2 = pick(b2, d, pick(b1, pick(b0, d, a), c)) */
    cuzk_num_pick(cs, b0, d, a, &t);
    cuzk_num_pick(cs, b1, &t, c, &t);
    cuzk_num_pick(cs, b2, d, &t, &out[2]);
    /* p3 = pick(b2, e, pick(and, a, d)) */
    cuzk_num_pick(cs, and, a, d, &t);
    cuzk_num_pick(cs, b2, e, &t, &out[3]);
    /* p4 = pick(b2, pick(nor, a, f), e) */
    cuzk_num_pick(cs, nor, a, f, &t);
    cuzk_num_pick(cs, b2, &t, e, &out[4]);
    /* p5 = pick(b2, pick(b1, g, pick(b0, a, f)), f) */
    cuzk_num_pick(cs, b0, a, f, &t);
    cuzk_num_pick(cs, b1, g, &t, &t);
    cuzk_num_pick(cs, b2, &t, f, &out[5]);
    /* p6 = pick(b2, pick(b1, pick(b0, h, a), g), g) */
    cuzk_num_pick(cs, b0, h, a, &t);
    cuzk_num_pick(cs, b1, &t, g, &t);
    cuzk_num_pick(cs, b2, &t, g, &out[6]);
    /* p7 = pick(b2, pick(and, a, h), h) */
    cuzk_num_pick(cs, and, a, h, &t);
    cuzk_num_pick(cs, b2, &t, h, &out[7]);
    return cuzk_csb_error(cs);
}

int cuzk_sha256_node_gadget(cuzk_csb *cs, const cuzk_num *leaves, size_t n, cuzk_num *out)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (n == 0 || !leaves || !out || n > (SIZE_MAX / 256) / sizeof(cuzk_bool))
        return cuzk_csb_note(cs, CUZK_EINVAL);
    cuzk_bool *msg = malloc(n * 256 * sizeof *msg), le[256], digest[256];
    if (!msg)
        return cuzk_csb_note(cs, CUZK_ENOMEM);
    for (size_t k = 0; k < n; k++) {
        cuzk_num_to_bits_le(cs, &leaves[k], le);
        le[255] = cuzk_bool_const(false);
        for (int i = 0; i < 256; i++) /* reverse the bits inside each byte */
            msg[256 * k + i] = le[(i & ~7) + 7 - (i & 7)];
    }
    cuzk_sha256_gadget(cs, msg, n * 256, digest);
    free(msg);
    for (int i = 0; i < 256; i++)
        le[i] = digest[(i & ~7) + 7 - (i & 7)];
    return cuzk_pack_bits(cs, le, CAPACITY, out);
}
