/*
 * sha256_gadget.c — the SHA-256 gadget (bellperson 0.27 gadgets/sha256.rs),
 * porep-circuit.md §3.4.
 *
 * The compression function follows the Rust code step by step, because the
 * order of the Boolean operations and additions fixes the variables and rows:
 * the message schedule first (w16..w63, each two xors per sigma and a
 * 4-operand addmany), then 64 rounds in which the new a and e are kept
 * "deferred" as the list of words still to be added: e' = addmany(t1 + [d])
 * (6 words) and a' = addmany(t1 + [S0, maj]) (7 words) are only computed at
 * the start of the round that needs them, and the last round's lists absorb
 * H0 and H4 (8 and 7 words). All additions of one call share one MultiEq,
 * flushed at the end. Round 0 starts from the concrete state words, so a
 * constant IV costs nothing until it meets a variable.
 *
 * The hash pads with constant bits (1, zeros, the 64-bit big-endian length),
 * so a message's last block is partly or wholly constant and the constant
 * folding of the Boolean gadgets removes most of its work; an all-constant
 * message costs no constraint at all.
 */
#include <stdlib.h>
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/gadgets.h"
#include "cuzk/sha256.h"

void cuzk_sha256_gadget_iv(cuzk_u32 iv[8])
{
    for (int i = 0; i < 8; i++)
        iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
}

/* The state word "a" or "e" between rounds: concrete, or the words still to be added. */
typedef struct {
    bool deferred;
    cuzk_u32 w[8];
    size_t n;
} maybe_word;

static void maybe_compute(cuzk_csb *cs, cuzk_multieq *me, maybe_word *m, const cuzk_u32 *extra, cuzk_u32 *out)
{
    if (!m->deferred) {
        *out = m->w[0];
        return;
    }
    cuzk_u32 ops[9];
    memcpy(ops, m->w, m->n * sizeof *ops);
    size_t n = m->n;
    if (extra)
        ops[n++] = *extra;
    cuzk_u32_addmany(cs, me, ops, n, out);
}

/* x = rotr(v, r0) xor rotr(v, r1) xor (rotr or shr)(v, r2), in that order */
static void sigma(cuzk_csb *cs, cuzk_u32 *x, const cuzk_u32 *v, unsigned r0, unsigned r1, unsigned r2,
                  bool shift)
{
    cuzk_u32 t, u;
    cuzk_u32_rotr(x, v, r0);
    cuzk_u32_rotr(&t, v, r1);
    cuzk_u32_xor(cs, x, x, &t);
    if (shift)
        cuzk_u32_shr(&u, v, r2);
    else
        cuzk_u32_rotr(&u, v, r2);
    cuzk_u32_xor(cs, x, x, &u);
}

int cuzk_sha256_compression_gadget(cuzk_csb *cs, const cuzk_bool input[512], const cuzk_u32 cur_in[8],
                                   cuzk_u32 out[8])
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if (!input || !cur_in || !out)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    cuzk_u32 cur[8];
    memcpy(cur, cur_in, sizeof cur);
    cuzk_u32 *w = malloc(64 * sizeof *w);
    if (!w)
        return cuzk_csb_note(cs, CUZK_ENOMEM);
    for (int i = 0; i < 16; i++)
        cuzk_u32_from_bits_be(&w[i], input + 32 * i);
    cuzk_multieq me;
    cuzk_multieq_init(&me, cs);
    for (int i = 16; i < 64; i++) {
        cuzk_u32 ops[4];
        ops[0] = w[i - 16];
        sigma(cs, &ops[1], &w[i - 15], 7, 18, 3, true);
        ops[2] = w[i - 7];
        sigma(cs, &ops[3], &w[i - 2], 17, 19, 10, true);
        cuzk_u32_addmany(cs, &me, ops, 4, &w[i]);
    }
    maybe_word a = {.deferred = false, .n = 1}, e = {.deferred = false, .n = 1};
    a.w[0] = cur[0];
    e.w[0] = cur[4];
    cuzk_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64 && !cuzk_csb_error(cs); i++) {
        cuzk_u32 new_e, new_a, s1, ch, s0, maj;
        maybe_compute(cs, &me, &e, NULL, &new_e);
        sigma(cs, &s1, &new_e, 6, 11, 25, false);
        cuzk_u32_sha256_ch(cs, &ch, &new_e, &f, &g);
        maybe_compute(cs, &me, &a, NULL, &new_a);
        sigma(cs, &s0, &new_a, 2, 13, 22, false);
        cuzk_u32_sha256_maj(cs, &maj, &new_a, &b, &c);
        /* temp1 = [h, S1, ch, K_i, w_i] */
        cuzk_u32 t1[5] = {h, s1, ch, cuzk_u32_const(CUZK_SHA256_K[i]), w[i]};
        h = g;
        g = f;
        f = new_e;
        e.deferred = true;
        memcpy(e.w, t1, sizeof t1);
        e.w[5] = d;
        e.n = 6;
        d = c;
        c = b;
        b = new_a;
        a.deferred = true;
        memcpy(a.w, t1, sizeof t1);
        a.w[5] = s0;
        a.w[6] = maj;
        a.n = 7;
    }
    free(w);
    cuzk_u32 res[8], pair[2];
    maybe_compute(cs, &me, &a, &cur[0], &res[0]);
    const cuzk_u32 *mid[3] = {&b, &c, &d};
    for (int k = 0; k < 3; k++) {
        pair[0] = cur[1 + k];
        pair[1] = *mid[k];
        cuzk_u32_addmany(cs, &me, pair, 2, &res[1 + k]);
    }
    maybe_compute(cs, &me, &e, &cur[4], &res[4]);
    const cuzk_u32 *tail[3] = {&f, &g, &h};
    for (int k = 0; k < 3; k++) {
        pair[0] = cur[5 + k];
        pair[1] = *tail[k];
        cuzk_u32_addmany(cs, &me, pair, 2, &res[5 + k]);
    }
    int rc = cuzk_multieq_finish(&me);
    if (rc == CUZK_OK)
        memcpy(out, res, sizeof res);
    return rc;
}

int cuzk_sha256_gadget(cuzk_csb *cs, const cuzk_bool *bits, size_t nbits, cuzk_bool out[256])
{
    if (cuzk_csb_error(cs))
        return cuzk_csb_error(cs);
    if ((nbits % 8) != 0 || (nbits && !bits) || !out)
        return cuzk_csb_note(cs, CUZK_EINVAL);
    size_t padded = (nbits + 1 + 64 + 511) / 512 * 512;
    cuzk_bool *p = malloc(padded * sizeof *p);
    if (!p)
        return cuzk_csb_note(cs, CUZK_ENOMEM);
    if (nbits)
        memcpy(p, bits, nbits * sizeof *p);
    p[nbits] = cuzk_bool_const(true);
    for (size_t i = nbits + 1; i < padded - 64; i++)
        p[i] = cuzk_bool_const(false);
    uint64_t len = (uint64_t)nbits;
    for (int i = 0; i < 64; i++)
        p[padded - 64 + i] = cuzk_bool_const((len >> (63 - i)) & 1);
    cuzk_u32 cur[8];
    cuzk_sha256_gadget_iv(cur);
    for (size_t blk = 0; blk < padded / 512 && !cuzk_csb_error(cs); blk++)
        cuzk_sha256_compression_gadget(cs, p + 512 * blk, cur, cur);
    free(p);
    for (int i = 0; i < 8; i++)
        cuzk_u32_into_bits_be(out + 32 * i, &cur[i]);
    return cuzk_csb_error(cs);
}
