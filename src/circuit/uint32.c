/*
 * uint32.c — UInt32 words, MultiEq and addmany (bellperson 0.27
 * gadgets/uint32.rs and multieq.rs), porep-circuit.md §3.3.
 *
 * A word is 32 Booleans, least significant first; rotations and shifts only
 * re-index them. addmany is where SHA-256 spends its constraints: the sum of
 * 2..10 words is allocated as bitlen(n·(2^32-1)) result bits holding the
 * full, unreduced sum (carries included, which is what the witness must
 * contain), and the equality "sum of operand bits = sum of result bits" is
 * not enforced on its own but handed to a MultiEq, which shifts it by the
 * bits already used and adds it to one pending row, flushing that row
 * (lhs · ONE = rhs) before an equality that would reach 254 bits. So each
 * flush row lands right after the result-bit rows of the addmany that did
 * not fit, and the last one when the owner calls cuzk_multieq_finish.
 *
 * Without RECORD or CHECK no linear combination is built: the result bits
 * and the flush rows are still allocated and counted in the same order.
 */
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/gadgets.h"

#define CAPACITY 254 /* Fr::CAPACITY */

cuzk_u32 cuzk_u32_const(uint32_t x)
{
    cuzk_u32 w;
    for (int i = 0; i < 32; i++)
        w.b[i] = cuzk_bool_const((x >> i) & 1);
    return w;
}

uint32_t cuzk_u32_value(const cuzk_u32 *w)
{
    uint32_t x = 0;
    for (int i = 0; i < 32; i++)
        x |= (uint32_t)(w->b[i].val & 1) << i;
    return x;
}

bool cuzk_u32_is_const(const cuzk_u32 *w)
{
    for (int i = 0; i < 32; i++)
        if (!cuzk_bool_is_const(w->b[i]))
            return false;
    return true;
}

void cuzk_u32_from_bits_be(cuzk_u32 *w, const cuzk_bool bits[32])
{
    for (int i = 0; i < 32; i++)
        w->b[i] = bits[31 - i];
}

void cuzk_u32_into_bits_be(cuzk_bool bits[32], const cuzk_u32 *w)
{
    for (int i = 0; i < 32; i++)
        bits[i] = w->b[31 - i];
}

void cuzk_u32_rotr(cuzk_u32 *r, const cuzk_u32 *w, unsigned n)
{
    for (unsigned i = 0; i < 32; i++)
        r->b[i] = w->b[(i + n) % 32];
}

void cuzk_u32_shr(cuzk_u32 *r, const cuzk_u32 *w, unsigned n)
{
    n %= 32;
    for (unsigned i = 0; i < 32; i++)
        r->b[i] = i + n < 32 ? w->b[i + n] : cuzk_bool_const(false);
}

int cuzk_u32_xor(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b)
{
    cuzk_u32 t;
    for (int i = 0; i < 32; i++)
        cuzk_bool_xor(cs, a->b[i], b->b[i], &t.b[i]);
    *r = t;
    return cuzk_csb_error(cs);
}

int cuzk_u32_sha256_ch(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    cuzk_u32 t;
    for (int i = 0; i < 32; i++)
        cuzk_bool_sha256_ch(cs, a->b[i], b->b[i], c->b[i], &t.b[i]);
    *r = t;
    return cuzk_csb_error(cs);
}

int cuzk_u32_sha256_maj(cuzk_csb *cs, cuzk_u32 *r, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c)
{
    cuzk_u32 t;
    for (int i = 0; i < 32; i++)
        cuzk_bool_sha256_maj(cs, a->b[i], b->b[i], c->b[i], &t.b[i]);
    *r = t;
    return cuzk_csb_error(cs);
}

/* ---- MultiEq ---------------------------------------------------------------------------------------- */

void cuzk_multieq_init(cuzk_multieq *me, cuzk_csb *cs)
{
    me->cs = cs;
    cuzk_lc_init(&me->lhs);
    cuzk_lc_init(&me->rhs);
    me->bits = 0;
}

static int multieq_flush(cuzk_multieq *me)
{
    int rc;
    if (csb_need_lc(me->cs)) {
        cuzk_lc_term one_t = {CUZK_VAR_ONE, CUZK_FR_ONE};
        cuzk_lc one = {&one_t, 1, 1};
        rc = cuzk_csb_enforce(me->cs, &me->lhs, &one, &me->rhs);
    } else {
        rc = cuzk_csb_enforce(me->cs, NULL, NULL, NULL);
    }
    cuzk_lc_clear(&me->lhs);
    cuzk_lc_clear(&me->rhs);
    me->bits = 0;
    return rc;
}

int cuzk_multieq_enforce_equal(cuzk_multieq *me, unsigned nbits, const cuzk_lc *lhs, const cuzk_lc *rhs)
{
    cuzk_csb *cs = me->cs;
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (nbits >= CAPACITY)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    if (CAPACITY <= me->bits + nbits)
        multieq_flush(me);
    if (csb_need_lc(cs)) {
        cuzk_fr coef;
        csb_fr_pow2(&coef, me->bits);
        if (lhs && cuzk_lc_add_lc(&me->lhs, lhs, &coef) != CUZK_OK)
            return cuzk_csb_note(cs, CUZK_ENOMEM);
        if (rhs && cuzk_lc_add_lc(&me->rhs, rhs, &coef) != CUZK_OK)
            return cuzk_csb_note(cs, CUZK_ENOMEM);
    }
    me->bits += nbits;
    return cuzk_csb_error(cs);
}

int cuzk_multieq_finish(cuzk_multieq *me)
{
    if (me->bits > 0 && cuzk_csb_error(me->cs) == CUZK_OK)
        multieq_flush(me);
    cuzk_multieq_free(me);
    return cuzk_csb_error(me->cs);
}

void cuzk_multieq_free(cuzk_multieq *me)
{
    cuzk_lc_free(&me->lhs);
    cuzk_lc_free(&me->rhs);
    me->bits = 0;
}

/* ---- addmany ------------------------------------------------------------------------------------------ */

static unsigned bitlen(uint64_t x)
{
    unsigned n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
}

int cuzk_u32_addmany(cuzk_csb *cs, cuzk_multieq *me, const cuzk_u32 *ops, size_t n, cuzk_u32 *out)
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (n < 2 || n > 10 || !ops || !out || !me || me->cs != cs)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    uint64_t sum = 0;
    bool all_const = true;
    for (size_t k = 0; k < n; k++) {
        sum += cuzk_u32_value(&ops[k]);
        all_const = all_const && cuzk_u32_is_const(&ops[k]);
    }
    if (all_const) {
        *out = cuzk_u32_const((uint32_t)sum);
        return CUZK_OK;
    }
    bool need_lc = csb_need_lc(cs);
    cuzk_lc lhs = {0}, rhs = {0};
    cuzk_fr pow[36];
    unsigned nbits = bitlen((uint64_t)n * 0xffffffffu);
    if (need_lc) {
        pow[0] = CUZK_FR_ONE;
        for (unsigned i = 1; i < nbits; i++)
            cuzk_fr_dbl(&pow[i], &pow[i - 1]);
        int rc = CUZK_OK;
        for (size_t k = 0; k < n && rc == CUZK_OK; k++)
            for (int i = 0; i < 32 && rc == CUZK_OK; i++) {
                cuzk_bool b = ops[k].b[i];
                if (b.kind == CUZK_BOOL_CONST) {
                    if (b.val)
                        rc = csb_lc_push(&lhs, CUZK_VAR_ONE, &pow[i]);
                } else if (b.kind == CUZK_BOOL_IS) {
                    rc = csb_lc_push(&lhs, b.var, &pow[i]);
                } else {
                    cuzk_fr neg;
                    cuzk_fr_neg(&neg, &pow[i]);
                    rc = csb_lc_push(&lhs, CUZK_VAR_ONE, &pow[i]);
                    if (rc == CUZK_OK)
                        rc = csb_lc_push(&lhs, b.var, &neg);
                }
            }
        if (rc != CUZK_OK) {
            cuzk_lc_free(&lhs);
            return cuzk_csb_note(cs, rc);
        }
        csb_lc_normalize(&lhs);
    }
    cuzk_bool bits[36];
    for (unsigned i = 0; i < nbits; i++) {
        cuzk_bit_alloc(cs, (sum >> i) & 1, &bits[i]);
        if (need_lc && csb_lc_push(&rhs, bits[i].var, &pow[i]) != CUZK_OK)
            cuzk_csb_note(cs, CUZK_ENOMEM);
    }
    if (need_lc)
        csb_lc_normalize(&rhs);
    cuzk_multieq_enforce_equal(me, nbits, need_lc ? &lhs : NULL, need_lc ? &rhs : NULL);
    cuzk_lc_free(&lhs);
    cuzk_lc_free(&rhs);
    memcpy(out->b, bits, sizeof out->b);
    return cuzk_csb_error(cs);
}
