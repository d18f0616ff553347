/*
 * boolean.c — AllocatedBit and Boolean (bellpepper-core gadgets/boolean.rs)
 * and bellperson's sha256_ch / sha256_maj, on the builder of cuzk/csb.h.
 *
 * Every AllocatedBit operation allocates its result first and then enforces
 * one row; the Boolean functions fold constants and dispatch on polarity in
 * the order of the Rust match arms (porep-circuit.md §3.2), which decides
 * which operation (and, and_not, nor) a pair of bits becomes and hence the
 * exact rows. The linear combinations here have at most four terms, so they
 * live in small stack arrays that never grow (no allocation per bit).
 */
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/gadgets.h"

#define SMALL 8 /* terms a Boolean row can need, with room to spare */
#define LC_STACK(name)                                                                                       \
    cuzk_lc_term name##_t[SMALL];                                                                            \
    cuzk_lc name = {name##_t, 0, SMALL}

static const cuzk_fr *fr_bit(bool b)
{
    return b ? &CUZK_FR_ONE : &CUZK_FR_ZERO;
}

int cuzk_bool_lc_add(cuzk_lc *lc, cuzk_bool b, const cuzk_fr *coef)
{
    const cuzk_fr *c = coef ? coef : &CUZK_FR_ONE;
    cuzk_fr neg;
    switch (b.kind) {
    case CUZK_BOOL_CONST: return b.val ? cuzk_lc_add(lc, CUZK_VAR_ONE, c) : CUZK_OK;
    case CUZK_BOOL_IS: return cuzk_lc_add(lc, b.var, c);
    default:
        cuzk_fr_neg(&neg, c);
        if (cuzk_lc_add(lc, CUZK_VAR_ONE, c) != CUZK_OK)
            return CUZK_ENOMEM;
        return cuzk_lc_add(lc, b.var, &neg);
    }
}

static int new_bit(cuzk_csb *cs, bool value, cuzk_bool *out)
{
    out->kind = CUZK_BOOL_IS;
    out->val = (uint8_t)value;
    return cuzk_csb_alloc(cs, fr_bit(value), &out->var);
}

int cuzk_bit_alloc(cuzk_csb *cs, bool value, cuzk_bool *out)
{
    if (new_bit(cs, value, out) != CUZK_OK)
        return cuzk_csb_error(cs);
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    LC_STACK(a);
    LC_STACK(b);
    cuzk_lc_add_u64(&a, CUZK_VAR_ONE, 1);
    cuzk_lc_add_u64(&a, out->var, -1);
    cuzk_lc_add_u64(&b, out->var, 1);
    return cuzk_csb_enforce(cs, &a, &b, NULL);
}

int cuzk_bit_xor(cuzk_csb *cs, cuzk_bool x, cuzk_bool y, cuzk_bool *out)
{
    if (new_bit(cs, (x.kind == CUZK_BOOL_NOT ? !x.val : x.val) ^ (y.kind == CUZK_BOOL_NOT ? !y.val : y.val),
                out) != CUZK_OK)
        return cuzk_csb_error(cs);
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    /* (a + a) · b = a + b - r */
    LC_STACK(a);
    LC_STACK(b);
    LC_STACK(c);
    cuzk_lc_add_u64(&a, x.var, 1);
    cuzk_lc_add_u64(&a, x.var, 1);
    cuzk_lc_add_u64(&b, y.var, 1);
    cuzk_lc_add_u64(&c, x.var, 1);
    cuzk_lc_add_u64(&c, y.var, 1);
    cuzk_lc_add_u64(&c, out->var, -1);
    return cuzk_csb_enforce(cs, &a, &b, &c);
}

/* The three AND-like AllocatedBit operations: r = f(a) · g(b) where f, g are the identity or 1 - x. */
static int and_like(cuzk_csb *cs, cuzk_bool x, bool neg_x, cuzk_bool y, bool neg_y, cuzk_bool *out)
{
    bool vx = x.kind == CUZK_BOOL_NOT ? !x.val : x.val; /* the AllocatedBit's own value */
    bool vy = y.kind == CUZK_BOOL_NOT ? !y.val : y.val;
    if (new_bit(cs, (neg_x ? !vx : vx) && (neg_y ? !vy : vy), out) != CUZK_OK)
        return cuzk_csb_error(cs);
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    LC_STACK(a);
    LC_STACK(b);
    LC_STACK(c);
    if (neg_x)
        cuzk_lc_add_u64(&a, CUZK_VAR_ONE, 1);
    cuzk_lc_add_u64(&a, x.var, neg_x ? -1 : 1);
    if (neg_y)
        cuzk_lc_add_u64(&b, CUZK_VAR_ONE, 1);
    cuzk_lc_add_u64(&b, y.var, neg_y ? -1 : 1);
    cuzk_lc_add_u64(&c, out->var, 1);
    return cuzk_csb_enforce(cs, &a, &b, &c);
}

int cuzk_bit_and(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    return and_like(cs, a, false, b, false, out);
}

int cuzk_bit_and_not(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    return and_like(cs, a, false, b, true, out);
}

int cuzk_bit_nor(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    return and_like(cs, a, true, b, true, out);
}

static bool is_false(cuzk_bool b)
{
    return b.kind == CUZK_BOOL_CONST && !b.val;
}
static bool is_true(cuzk_bool b)
{
    return b.kind == CUZK_BOOL_CONST && b.val;
}

int cuzk_bool_xor(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    if (is_false(a)) {
        *out = b;
        return cuzk_csb_error(cs);
    }
    if (is_false(b)) {
        *out = a;
        return cuzk_csb_error(cs);
    }
    if (is_true(a)) {
        *out = cuzk_bool_not(b);
        return cuzk_csb_error(cs);
    }
    if (is_true(b)) {
        *out = cuzk_bool_not(a);
        return cuzk_csb_error(cs);
    }
    if (a.kind != b.kind) { /* a xor (not b) = not (a xor b), the Is operand first */
        cuzk_bool is = a.kind == CUZK_BOOL_IS ? a : b, not = a.kind == CUZK_BOOL_IS ? b : a;
        int rc = cuzk_bool_xor(cs, is, cuzk_bool_not(not ), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    /* Is/Is or Not/Not: xor of the underlying variables */
    return cuzk_bit_xor(cs, a, b, out);
}

int cuzk_bool_and(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    if (is_false(a) || is_false(b)) {
        *out = cuzk_bool_const(false);
        return cuzk_csb_error(cs);
    }
    if (is_true(a)) {
        *out = b;
        return cuzk_csb_error(cs);
    }
    if (is_true(b)) {
        *out = a;
        return cuzk_csb_error(cs);
    }
    if (a.kind == CUZK_BOOL_IS && b.kind == CUZK_BOOL_NOT)
        return cuzk_bit_and_not(cs, a, b, out);
    if (a.kind == CUZK_BOOL_NOT && b.kind == CUZK_BOOL_IS)
        return cuzk_bit_and_not(cs, b, a, out);
    if (a.kind == CUZK_BOOL_NOT)
        return cuzk_bit_nor(cs, a, b, out);
    return cuzk_bit_and(cs, a, b, out);
}

int cuzk_bool_sha256_ch(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out)
{
    bool value = (a.val && b.val) ^ (!a.val && c.val);
    int rc;
    if (cuzk_bool_is_const(a) && cuzk_bool_is_const(b) && cuzk_bool_is_const(c)) {
        *out = cuzk_bool_const(value);
        return cuzk_csb_error(cs);
    }
    if (is_false(a)) {
        *out = c;
        return cuzk_csb_error(cs);
    }
    if (is_false(b))
        return cuzk_bool_and(cs, cuzk_bool_not(a), c, out);
    if (is_false(c))
        return cuzk_bool_and(cs, a, b, out);
    if (is_true(c)) {
        rc = cuzk_bool_and(cs, a, cuzk_bool_not(b), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    if (is_true(b)) {
        rc = cuzk_bool_and(cs, cuzk_bool_not(a), cuzk_bool_not(c), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    /* a = true, or nothing constant: ch allocated, then (b - c) · a = ch - c */
    if (new_bit(cs, value, out) != CUZK_OK)
        return cuzk_csb_error(cs);
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    LC_STACK(la);
    LC_STACK(lb);
    LC_STACK(lc);
    cuzk_fr m1;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    cuzk_bool_lc_add(&la, b, NULL);
    cuzk_bool_lc_add(&la, c, &m1);
    cuzk_bool_lc_add(&lb, a, NULL);
    cuzk_lc_add_u64(&lc, out->var, 1);
    cuzk_bool_lc_add(&lc, c, &m1);
    return cuzk_csb_enforce(cs, &la, &lb, &lc);
}

int cuzk_bool_sha256_maj(cuzk_csb *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out)
{
    bool value = (a.val && b.val) ^ (a.val && c.val) ^ (b.val && c.val);
    int rc;
    if (cuzk_bool_is_const(a) && cuzk_bool_is_const(b) && cuzk_bool_is_const(c)) {
        *out = cuzk_bool_const(value);
        return cuzk_csb_error(cs);
    }
    if (is_false(a))
        return cuzk_bool_and(cs, b, c, out);
    if (is_false(b))
        return cuzk_bool_and(cs, a, c, out);
    if (is_false(c))
        return cuzk_bool_and(cs, a, b, out);
    if (is_true(c)) {
        rc = cuzk_bool_and(cs, cuzk_bool_not(a), cuzk_bool_not(b), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    if (is_true(b)) {
        rc = cuzk_bool_and(cs, cuzk_bool_not(a), cuzk_bool_not(c), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    if (is_true(a)) {
        rc = cuzk_bool_and(cs, cuzk_bool_not(b), cuzk_bool_not(c), out);
        *out = cuzk_bool_not(*out);
        return rc;
    }
    /* maj allocated first, then bc = b and c (its own row), then (2bc - b - c) · a = bc - maj */
    cuzk_bool maj, bc;
    if (new_bit(cs, value, &maj) != CUZK_OK)
        return cuzk_csb_error(cs);
    if (cuzk_bool_and(cs, b, c, &bc) != CUZK_OK)
        return cuzk_csb_error(cs);
    *out = maj;
    if (!csb_need_lc(cs))
        return cuzk_csb_enforce(cs, NULL, NULL, NULL);
    LC_STACK(la);
    LC_STACK(lb);
    LC_STACK(lc);
    cuzk_fr m1, two;
    cuzk_fr_neg(&m1, &CUZK_FR_ONE);
    cuzk_fr_from_u64(&two, 2);
    cuzk_bool_lc_add(&la, bc, &two);
    cuzk_bool_lc_add(&la, b, &m1);
    cuzk_bool_lc_add(&la, c, &m1);
    cuzk_bool_lc_add(&lb, a, NULL);
    cuzk_bool_lc_add(&lc, bc, NULL);
    cuzk_lc_add_u64(&lc, maj.var, -1);
    return cuzk_csb_enforce(cs, &la, &lb, &lc);
}
