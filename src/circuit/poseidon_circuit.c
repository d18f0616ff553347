/*
 * poseidon_circuit.c — neptune 11's "legacy" Poseidon gadget (circuit.rs),
 * variable for variable and row for row.
 *
 * The state is an array of width elements, each either an allocated variable
 * or a "number": a linear combination with its value. Element 0 starts as the
 * number tag·ONE, elements 1.. are the preimage variables. The gadget walks
 * the optimized representation of poseidon.c (compressed constants, the
 * pre-sparse matrix, the sparse factors):
 *
 * - Round 0: element 0 is a known constant, so its S-box is computed here
 *   ((tag + k)^5 + k', a number c·ONE) and costs nothing. Every other element
 *   l gets three rows with the round key k folded into the linear
 *   combinations: (l + k)·(l + k) = l2, l2·l2 = l4, (l + k)·l4 = r - k'.
 * - Later full rounds, every element, and partial rounds, element 0 only: a
 *   number is first made a variable ("ensure allocated": lc·ONE = v), then
 *   l·l = l2, l2·l2 = l4, l·l4 = r - k' (no k' in the very last round).
 * - After each round the linear layer is applied to the linear combinations
 *   only (no rows): the pre-sparse matrix after the last full round of the
 *   first half, the sparse factor of the round during the partial rounds
 *   (new[0] = Σ w_hat[i]·el[i], new[j] = el[j] + v_rest[j-1]·el[0]), the MDS
 *   matrix otherwise. In the partial rounds the numbers therefore keep every
 *   variable they ever touched, which is why their rows are long.
 * - The result is element 1, made a variable.
 *
 * Each allocation immediately precedes its row, as in neptune. Values follow
 * the same walk when the builder keeps values. When the builder neither
 * records nor checks rows (the witness-only path), the linear combinations
 * are not built at all: rows are enforced empty (they are only counted) and
 * only the values are carried.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"

typedef struct {
    bool alloc;   /* a variable (var) rather than a number (lc) */
    cuzk_var var; /* when alloc */
    cuzk_lc lc;   /* when a number (and linear combinations are kept) */
    cuzk_fr val;  /* the value (when values are kept) */
} elt;

typedef struct {
    cuzk_csb *cs;
    const cuzk_poseidon_tables *tb;
    bool lcs, vals; /* keep linear combinations / values */
    int err;
    unsigned round;   /* rounds done */
    const cuzk_fr *k; /* next compressed constant */
    elt *el, *nx;     /* width each */
    cuzk_lc a, b, c;  /* row scratch */
} walk;

static void fail(walk *w, int rc)
{
    if (rc != CUZK_OK && w->err == CUZK_OK)
        w->err = rc;
}

static void alloc_var(walk *w, const cuzk_fr *value, cuzk_var *out)
{
    fail(w, cuzk_csb_alloc(w->cs, w->vals ? value : NULL, out));
}

static void enforce(walk *w)
{
    if (w->lcs)
        fail(w, cuzk_csb_enforce(w->cs, &w->a, &w->b, &w->c));
    else
        fail(w, cuzk_csb_enforce(w->cs, NULL, NULL, NULL));
}

/* lc = Σ coef·var for the given terms (only when linear combinations are kept). */
static void set_lc(walk *w, cuzk_lc *lc, cuzk_var v1, const cuzk_fr *c1, cuzk_var v2, const cuzk_fr *c2)
{
    if (!w->lcs)
        return;
    cuzk_lc_clear(lc);
    if (c1)
        fail(w, cuzk_lc_add(lc, v1, c1));
    if (c2)
        fail(w, cuzk_lc_add(lc, v2, c2));
}

/* A number becomes a variable: v = lc value, lc·ONE = v. */
static void ensure_allocated(walk *w, elt *e)
{
    if (e->alloc)
        return;
    cuzk_var v;
    alloc_var(w, &e->val, &v);
    if (w->lcs) {
        fail(w, cuzk_lc_copy(&w->a, &e->lc));
        set_lc(w, &w->b, CUZK_VAR_ONE, &CUZK_FR_ONE, 0, NULL);
        set_lc(w, &w->c, v, &CUZK_FR_ONE, 0, NULL);
    }
    enforce(w);
    e->alloc = true;
    e->var = v;
    if (w->lcs)
        cuzk_lc_clear(&e->lc);
}

/* x·x = x2 for a variable x; returns x2. */
static cuzk_var square(walk *w, cuzk_var x, const cuzk_fr *xv, cuzk_fr *x2v)
{
    cuzk_var x2;
    if (w->vals)
        cuzk_fr_sqr(x2v, xv);
    alloc_var(w, x2v, &x2);
    set_lc(w, &w->a, x, &CUZK_FR_ONE, 0, NULL);
    set_lc(w, &w->b, x, &CUZK_FR_ONE, 0, NULL);
    set_lc(w, &w->c, x2, &CUZK_FR_ONE, 0, NULL);
    enforce(w);
    return x2;
}

/* The S-box of a later round: e = (e)^5 + post (post NULL: no constant). */
static void sbox(walk *w, elt *e, const cuzk_fr *post)
{
    ensure_allocated(w, e);
    cuzk_fr l2v = CUZK_FR_ZERO, l4v = CUZK_FR_ZERO, rv = CUZK_FR_ZERO, npost;
    cuzk_var l2 = square(w, e->var, &e->val, &l2v);
    cuzk_var l4 = square(w, l2, &l2v, &l4v);
    if (w->vals) {
        cuzk_fr_mul(&rv, &l4v, &e->val);
        if (post)
            cuzk_fr_add(&rv, &rv, post);
    }
    cuzk_var r;
    alloc_var(w, &rv, &r);
    set_lc(w, &w->a, e->var, &CUZK_FR_ONE, 0, NULL);
    set_lc(w, &w->b, l4, &CUZK_FR_ONE, 0, NULL);
    if (post) {
        cuzk_fr_neg(&npost, post);
        set_lc(w, &w->c, r, &CUZK_FR_ONE, CUZK_VAR_ONE, &npost);
    } else {
        set_lc(w, &w->c, r, &CUZK_FR_ONE, 0, NULL);
    }
    enforce(w);
    e->var = r;
    e->val = rv;
}

/* The S-box of round 0 with the round key folded in: e = (e + pre)^5 + post. */
static void sbox_pre(walk *w, elt *e, const cuzk_fr *pre, const cuzk_fr *post)
{
    ensure_allocated(w, e);
    cuzk_fr sv = CUZK_FR_ZERO, l2v = CUZK_FR_ZERO, l4v = CUZK_FR_ZERO, rv = CUZK_FR_ZERO, npost;
    if (w->vals) {
        cuzk_fr_add(&sv, &e->val, pre);
        cuzk_fr_sqr(&l2v, &sv);
    }
    cuzk_var l2;
    alloc_var(w, &l2v, &l2);
    set_lc(w, &w->a, e->var, &CUZK_FR_ONE, CUZK_VAR_ONE, pre);
    set_lc(w, &w->b, e->var, &CUZK_FR_ONE, CUZK_VAR_ONE, pre);
    set_lc(w, &w->c, l2, &CUZK_FR_ONE, 0, NULL);
    enforce(w);
    cuzk_var l4 = square(w, l2, &l2v, &l4v);
    if (w->vals) {
        cuzk_fr_mul(&rv, &l4v, &sv);
        cuzk_fr_add(&rv, &rv, post);
    }
    cuzk_var r;
    alloc_var(w, &rv, &r);
    set_lc(w, &w->a, e->var, &CUZK_FR_ONE, CUZK_VAR_ONE, pre);
    set_lc(w, &w->b, l4, &CUZK_FR_ONE, 0, NULL);
    cuzk_fr_neg(&npost, post);
    set_lc(w, &w->c, r, &CUZK_FR_ONE, CUZK_VAR_ONE, &npost);
    enforce(w);
    e->var = r;
    e->val = rv;
}

/* dst (a number) += s·e. */
static void add_scaled(walk *w, elt *dst, const elt *e, const cuzk_fr *s)
{
    if (w->vals) {
        cuzk_fr p;
        cuzk_fr_mul(&p, &e->val, s);
        cuzk_fr_add(&dst->val, &dst->val, &p);
    }
    if (w->lcs) {
        if (e->alloc)
            fail(w, cuzk_lc_add(&dst->lc, e->var, s));
        else
            fail(w, cuzk_lc_add_lc(&dst->lc, &e->lc, s));
    }
}

static void start_number(walk *w, elt *e)
{
    e->alloc = false;
    e->val = CUZK_FR_ZERO;
    if (w->lcs)
        cuzk_lc_clear(&e->lc);
}

/* new[j] = Σ_i el[i]·m[i][j]. */
static void dense(walk *w, const cuzk_fr *m)
{
    const unsigned t = w->tb->width;
    for (unsigned j = 0; j < t; j++) {
        start_number(w, &w->nx[j]);
        for (unsigned i = 0; i < t; i++)
            add_scaled(w, &w->nx[j], &w->el[i], &m[i * t + j]);
    }
    elt *tmp = w->el;
    w->el = w->nx;
    w->nx = tmp;
}

/* The partial round's sparse factor: new[0] = Σ w_hat[i]·el[i], new[j] = el[j] + v_rest[j-1]·el[0]. */
static void sparse(walk *w, unsigned which)
{
    const unsigned t = w->tb->width;
    const cuzk_fr *wh = &w->tb->w_hat[(size_t)which * t], *vr = &w->tb->v_rest[(size_t)which * (t - 1)];
    elt *n0 = &w->nx[0];
    start_number(w, n0);
    for (unsigned i = 0; i < t; i++)
        add_scaled(w, n0, &w->el[i], &wh[i]);
    /* elements 1.. are numbers here: the pre-sparse product made them so and partial rounds only
     * put element 0 through an S-box */
    for (unsigned j = 1; j < t; j++)
        add_scaled(w, &w->el[j], &w->el[0], &vr[j - 1]);
    /* swap element 0 with the new one (keeping both lc buffers) */
    elt tmp = w->el[0];
    w->el[0] = *n0;
    *n0 = tmp;
}

static void linear_layer(walk *w)
{
    const unsigned hf = w->tb->rf / 2, r = w->round;
    if (r == hf - 1)
        dense(w, w->tb->pre_sparse);
    else if (r >= hf && r < hf + w->tb->rp)
        sparse(w, r - hf);
    else
        dense(w, w->tb->mds);
    w->round++;
}

static void first_round(walk *w)
{
    const unsigned t = w->tb->width;
    const cuzk_fr *pre = w->k, *post = w->k + t;
    w->k += 2 * t;
    /* element 0 is the constant tag: its S-box is plain arithmetic */
    cuzk_fr x, x2, x4, x5;
    cuzk_fr_add(&x, &w->tb->tag, &pre[0]);
    cuzk_fr_sqr(&x2, &x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(&x5, &x4, &x);
    cuzk_fr_add(&x5, &x5, &post[0]);
    elt *e0 = &w->el[0];
    start_number(w, e0);
    e0->val = x5;
    if (w->lcs)
        fail(w, cuzk_lc_add(&e0->lc, CUZK_VAR_ONE, &x5));
    for (unsigned i = 1; i < t; i++)
        sbox_pre(w, &w->el[i], &pre[i], &post[i]);
    linear_layer(w);
}

static void full_round(walk *w, bool last)
{
    const unsigned t = w->tb->width;
    const cuzk_fr *post = last ? NULL : w->k;
    if (!last)
        w->k += t;
    for (unsigned i = 0; i < t; i++)
        sbox(w, &w->el[i], post ? &post[i] : NULL);
    linear_layer(w);
}

static void partial_round(walk *w)
{
    sbox(w, &w->el[0], w->k++);
    linear_layer(w);
}

int cuzk_poseidon_circuit(cuzk_csb *cs, const cuzk_poseidon_consts *c, const cuzk_var *in, cuzk_var *out)
{
    if (!cs || !c || !in || !out)
        return CUZK_EINVAL;
    int rc = cuzk_csb_error(cs);
    if (rc != CUZK_OK)
        return rc;
    const cuzk_poseidon_tables *tb = cuzk_poseidon_tables_of(c);
    const unsigned t = tb->width, flags = cuzk_csb_flags(cs);
    walk w;
    memset(&w, 0, sizeof w);
    w.cs = cs;
    w.tb = tb;
    w.vals = (flags & CUZK_CSB_VALUES) != 0;
    w.lcs = (flags & (CUZK_CSB_RECORD | CUZK_CSB_CHECK)) != 0;
    w.k = tb->crc;
    w.el = calloc(2 * (size_t)t, sizeof *w.el);
    if (!w.el)
        return CUZK_ENOMEM;
    w.nx = w.el + t;
    elt *base = w.el; /* both halves are freed through this */

    start_number(&w, &w.el[0]);
    w.el[0].val = tb->tag;
    if (w.lcs)
        fail(&w, cuzk_lc_add(&w.el[0].lc, CUZK_VAR_ONE, &tb->tag));
    for (unsigned i = 1; i < t; i++) {
        w.el[i].alloc = true;
        w.el[i].var = in[i - 1];
        if (w.vals)
            cuzk_csb_value(cs, in[i - 1], &w.el[i].val);
    }
    const unsigned hf = tb->rf / 2;
    first_round(&w);
    for (unsigned r = 1; r < hf; r++)
        full_round(&w, false);
    for (unsigned r = 0; r < tb->rp; r++)
        partial_round(&w);
    for (unsigned r = 1; r < hf; r++)
        full_round(&w, false);
    full_round(&w, true);
    ensure_allocated(&w, &w.el[1]);
    cuzk_var result = w.el[1].var;

    for (unsigned i = 0; i < 2 * t; i++)
        cuzk_lc_free(&base[i].lc);
    cuzk_lc_free(&w.a);
    cuzk_lc_free(&w.b);
    cuzk_lc_free(&w.c);
    free(base);
    if (w.err == CUZK_OK)
        w.err = cuzk_csb_error(cs);
    if (w.err != CUZK_OK)
        return w.err;
    *out = result;
    return CUZK_OK;
}
