/*
 * csb.c — the constraint-system builder of cuzk/csb.h, its linear
 * combinations, and the R1CS and witness digests.
 *
 * Linear combinations. A term array sorted by a key that puts inputs before
 * aux variables: flipping bit 31 of the variable (inputs have it set) gives
 * input i the key i and aux j the key 2^31 + j, so one unsigned comparison
 * orders them. Adding one term is a binary search plus an insert or merge;
 * adding a whole lc merges backwards inside the destination (grown once to
 * n + m terms), then squeezes out the coefficients that cancelled. Gadgets
 * that append hundreds of terms use csb_lc_push + csb_lc_normalize
 * (csb_internal.h): one sort at the end instead of an insert per term.
 *
 * The builder. Variables live in two index spaces as in bellpepper; input 0
 * (ONE) exists from creation. With VALUES each space has a growing array of
 * values. With RECORD each matrix keeps CSR rows whose terms name variables
 * in the builder's own encoding (bit 31 = input), because the number of
 * inputs is only known at the end; cuzk_csb_finish rewrites them into the
 * prover's unified index (aux j -> n_inputs + j) and compacts the
 * coefficients. Without RECORD, enforce only counts the row (and with CHECK
 * evaluates it), so a witness-only run builds no matrices.
 *
 * Errors are sticky: the first one is kept in the builder and every later
 * mutating call returns it without doing anything, so gadget code can run to
 * its end and look once.
 *
 * Digests follow bellpepper-core's TestConstraintSystem::hash byte layout
 * (porep-circuit.md §9.3), computed from a finished cuzk_cs, so any cuzk_cs
 * (also one read from a file) can be fingerprinted: each row's terms are
 * sorted by unified index (which is inputs-before-aux order), merged and
 * cleared of zeros before hashing.
 */
#include "cuzk/csb.h"

#include <stdlib.h>
#include <string.h>

#include "circuit/csb_internal.h"
#include "cuzk/blake2s.h"

#define MAX_INDEX 0x7fffffffu /* variables per space (31-bit index) */

static inline uint32_t key_of(cuzk_var v)
{
    return v ^ CUZK_VAR_INPUT;
}

/* ---- linear combinations -------------------------------------------------------------------------- */

void cuzk_lc_init(cuzk_lc *lc)
{
    memset(lc, 0, sizeof *lc);
}

void cuzk_lc_free(cuzk_lc *lc)
{
    if (!lc)
        return;
    free(lc->t);
    memset(lc, 0, sizeof *lc);
}

void cuzk_lc_clear(cuzk_lc *lc)
{
    lc->n = 0;
}

static int lc_reserve(cuzk_lc *lc, uint64_t need)
{
    if (need <= lc->cap)
        return CUZK_OK;
    if (need > UINT32_MAX / 2)
        return CUZK_ENOMEM;
    uint32_t cap = lc->cap ? lc->cap : 8;
    while (cap < need)
        cap *= 2;
    cuzk_lc_term *t = realloc(lc->t, (size_t)cap * sizeof *t);
    if (!t)
        return CUZK_ENOMEM;
    lc->t = t;
    lc->cap = cap;
    return CUZK_OK;
}

/* First position whose key is >= k. */
static uint32_t lc_lower(const cuzk_lc *lc, uint32_t k)
{
    uint32_t lo = 0, hi = lc->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (key_of(lc->t[mid].var) < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int cuzk_lc_add(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coef)
{
    if (cuzk_fr_is_zero(coef))
        return CUZK_OK;
    uint32_t k = key_of(v), pos;
    if (lc->n > 0 && key_of(lc->t[lc->n - 1].var) < k)
        pos = lc->n; /* the common case: increasing variables */
    else
        pos = lc_lower(lc, k);
    if (pos < lc->n && lc->t[pos].var == v) {
        cuzk_fr_add(&lc->t[pos].coef, &lc->t[pos].coef, coef);
        if (cuzk_fr_is_zero(&lc->t[pos].coef)) {
            memmove(&lc->t[pos], &lc->t[pos + 1], (size_t)(lc->n - pos - 1) * sizeof *lc->t);
            lc->n--;
        }
        return CUZK_OK;
    }
    if (lc_reserve(lc, (uint64_t)lc->n + 1) != CUZK_OK)
        return CUZK_ENOMEM;
    memmove(&lc->t[pos + 1], &lc->t[pos], (size_t)(lc->n - pos) * sizeof *lc->t);
    lc->t[pos].var = v;
    lc->t[pos].coef = *coef;
    lc->n++;
    return CUZK_OK;
}

static void fr_from_i64(cuzk_fr *r, int64_t x)
{
    if (x == 1 || x == -1) { /* most coefficients: no Montgomery conversion */
        *r = CUZK_FR_ONE;
        if (x < 0)
            cuzk_fr_neg(r, r);
    } else if (x >= 0) {
        cuzk_fr_from_u64(r, (uint64_t)x);
    } else {
        cuzk_fr_from_u64(r, (uint64_t)0 - (uint64_t)x);
        cuzk_fr_neg(r, r);
    }
}

int cuzk_lc_add_u64(cuzk_lc *lc, cuzk_var v, int64_t small_coef)
{
    cuzk_fr c;
    fr_from_i64(&c, small_coef);
    return cuzk_lc_add(lc, v, &c);
}

int cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *o, const cuzk_fr *scale)
{
    if (scale && cuzk_fr_is_zero(scale))
        return CUZK_OK;
    if (o == lc) { /* lc = (1 + scale) lc */
        cuzk_fr f;
        cuzk_fr_add(&f, scale ? scale : &CUZK_FR_ONE, &CUZK_FR_ONE);
        if (cuzk_fr_is_zero(&f)) {
            lc->n = 0;
            return CUZK_OK;
        }
        for (uint32_t i = 0; i < lc->n; i++)
            cuzk_fr_mul(&lc->t[i].coef, &lc->t[i].coef, &f);
        return CUZK_OK;
    }
    if (o->n == 0)
        return CUZK_OK;
    uint32_t n = lc->n, m = o->n;
    if (lc_reserve(lc, (uint64_t)n + m) != CUZK_OK)
        return CUZK_ENOMEM;
    cuzk_lc_term *t = lc->t;
    int64_t i = (int64_t)n - 1, j = (int64_t)m - 1, k = (int64_t)n + m - 1;
    while (j >= 0) {
        uint32_t kj = key_of(o->t[j].var);
        if (i >= 0 && key_of(t[i].var) > kj) {
            t[k--] = t[i--];
            continue;
        }
        cuzk_fr s = o->t[j].coef;
        if (scale)
            cuzk_fr_mul(&s, &s, scale);
        if (i >= 0 && key_of(t[i].var) == kj) {
            cuzk_fr_add(&s, &s, &t[i].coef);
            i--;
        }
        t[k].var = o->t[j].var;
        t[k].coef = s;
        k--;
        j--;
    }
    /* result = t[0 .. i] ++ t[k+1 .. n+m-1]; drop the zeros while closing the gap */
    uint32_t w = (uint32_t)(i + 1);
    for (int64_t r = k + 1; r < (int64_t)n + m; r++)
        if (!cuzk_fr_is_zero(&t[r].coef))
            t[w++] = t[r];
    lc->n = w;
    return CUZK_OK;
}

int cuzk_lc_copy(cuzk_lc *dst, const cuzk_lc *src)
{
    if (dst == src)
        return CUZK_OK;
    if (lc_reserve(dst, src->n) != CUZK_OK)
        return CUZK_ENOMEM;
    if (src->n)
        memcpy(dst->t, src->t, (size_t)src->n * sizeof *src->t);
    dst->n = src->n;
    return CUZK_OK;
}

int csb_lc_push(cuzk_lc *lc, cuzk_var v, const cuzk_fr *coef)
{
    if (cuzk_fr_is_zero(coef))
        return CUZK_OK;
    if (lc_reserve(lc, (uint64_t)lc->n + 1) != CUZK_OK)
        return CUZK_ENOMEM;
    lc->t[lc->n].var = v;
    lc->t[lc->n].coef = *coef;
    lc->n++;
    return CUZK_OK;
}

static int term_cmp(const void *x, const void *y)
{
    uint32_t a = key_of(((const cuzk_lc_term *)x)->var), b = key_of(((const cuzk_lc_term *)y)->var);
    return (a > b) - (a < b);
}

void csb_lc_normalize(cuzk_lc *lc)
{
    if (lc->n == 0)
        return;
    bool sorted = true;
    for (uint32_t i = 1; i < lc->n && sorted; i++)
        sorted = key_of(lc->t[i - 1].var) < key_of(lc->t[i].var);
    if (!sorted)
        qsort(lc->t, lc->n, sizeof *lc->t, term_cmp);
    uint32_t w = 0;
    for (uint32_t r = 0; r < lc->n;) {
        cuzk_lc_term acc = lc->t[r++];
        while (r < lc->n && lc->t[r].var == acc.var)
            cuzk_fr_add(&acc.coef, &acc.coef, &lc->t[r++].coef);
        if (!cuzk_fr_is_zero(&acc.coef))
            lc->t[w++] = acc;
    }
    lc->n = w;
}

void csb_fr_pow2(cuzk_fr *r, unsigned k)
{
    uint64_t x[4] = {0, 0, 0, 0};
    x[(k / 64) & 3] = (uint64_t)1 << (k % 64);
    if (!cuzk_fr_from_canonical(r, x)) { /* 2^255 exceeds r: reduce */
        uint8_t le[32] = {0};
        le[(k / 8) & 31] = (uint8_t)(1u << (k % 8));
        cuzk_fr_from_le32_reduce(r, le);
    }
}

/* ---- the builder ------------------------------------------------------------------------------------ */

typedef struct {
    uint64_t *row; /* n_cons + 1 offsets */
    size_t row_cap;
    cuzk_var *var;
    cuzk_fr *coef;
    uint64_t nnz;
    size_t cap;
} rec_matrix;

struct cuzk_csb {
    unsigned flags;
    int err;
    bool handed; /* the matrices went to cuzk_csb_finish */
    uint64_t n_in, n_aux, n_cons;
    cuzk_fr *vin, *vaux;
    size_t cap_in, cap_aux;
    int64_t first_fail;
    rec_matrix m[3];
};

static int set_err(cuzk_csb *cs, int rc)
{
    if (cs->err == CUZK_OK)
        cs->err = rc;
    return cs->err;
}

cuzk_csb *cuzk_csb_new(unsigned flags)
{
    if ((flags & ~7u) || ((flags & CUZK_CSB_CHECK) && !(flags & CUZK_CSB_VALUES)))
        return NULL;
    cuzk_csb *cs = calloc(1, sizeof *cs);
    if (!cs)
        return NULL;
    cs->flags = flags;
    cs->n_in = 1;
    cs->first_fail = -1;
    if (flags & CUZK_CSB_VALUES) {
        cs->cap_in = 16;
        cs->vin = malloc(cs->cap_in * sizeof *cs->vin);
        if (!cs->vin) {
            free(cs);
            return NULL;
        }
        cs->vin[0] = CUZK_FR_ONE;
    }
    if (flags & CUZK_CSB_RECORD) {
        for (int i = 0; i < 3; i++) {
            cs->m[i].row_cap = 1024;
            cs->m[i].row = malloc(cs->m[i].row_cap * sizeof *cs->m[i].row);
            if (!cs->m[i].row) {
                cuzk_csb_free(cs);
                return NULL;
            }
            cs->m[i].row[0] = 0;
        }
    }
    return cs;
}

static void rec_free(rec_matrix *m)
{
    free(m->row);
    free(m->var);
    free(m->coef);
    memset(m, 0, sizeof *m);
}

void cuzk_csb_free(cuzk_csb *cs)
{
    if (!cs)
        return;
    free(cs->vin);
    free(cs->vaux);
    for (int i = 0; i < 3; i++)
        rec_free(&cs->m[i]);
    free(cs);
}

unsigned cuzk_csb_flags(const cuzk_csb *cs)
{
    return cs ? cs->flags : 0;
}

static int grow_values(cuzk_fr **v, size_t *cap, uint64_t need)
{
    if (need <= *cap)
        return CUZK_OK;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    cuzk_fr *p = realloc(*v, c * sizeof *p);
    if (!p)
        return CUZK_ENOMEM;
    *v = p;
    *cap = c;
    return CUZK_OK;
}

static int alloc_in(cuzk_csb *cs, const cuzk_fr *value, cuzk_var *out, bool input)
{
    cuzk_var dummy;
    if (!out)
        out = &dummy;
    *out = CUZK_VAR_ONE;
    if (!cs)
        return CUZK_EINVAL;
    if (cs->err)
        return cs->err;
    uint64_t *n = input ? &cs->n_in : &cs->n_aux;
    if (*n > MAX_INDEX)
        return set_err(cs, CUZK_ERANGE);
    if (cs->flags & CUZK_CSB_VALUES) {
        cuzk_fr **v = input ? &cs->vin : &cs->vaux;
        size_t *cap = input ? &cs->cap_in : &cs->cap_aux;
        if (grow_values(v, cap, *n + 1) != CUZK_OK)
            return set_err(cs, CUZK_ENOMEM);
        (*v)[*n] = value ? *value : CUZK_FR_ZERO;
    }
    *out = input ? cuzk_var_input((uint32_t)*n) : cuzk_var_aux((uint32_t)*n);
    (*n)++;
    return CUZK_OK;
}

int cuzk_csb_alloc(cuzk_csb *cs, const cuzk_fr *value, cuzk_var *out)
{
    return alloc_in(cs, value, out, false);
}

int cuzk_csb_alloc_input(cuzk_csb *cs, const cuzk_fr *value, cuzk_var *out)
{
    return alloc_in(cs, value, out, true);
}

static bool var_ok(const cuzk_csb *cs, cuzk_var v)
{
    return cuzk_var_is_input(v) ? cuzk_var_index(v) < cs->n_in : cuzk_var_index(v) < cs->n_aux;
}

static bool lc_ok(const cuzk_csb *cs, const cuzk_lc *lc)
{
    if (!lc)
        return true;
    if (lc->n > 0 && !lc->t)
        return false;
    for (uint32_t i = 0; i < lc->n; i++)
        if (!var_ok(cs, lc->t[i].var))
            return false;
    return true;
}

static int rec_row(rec_matrix *m, uint64_t row, const cuzk_lc *lc)
{
    uint32_t n = lc ? lc->n : 0;
    if (row + 2 > m->row_cap) {
        size_t c = m->row_cap * 2;
        uint64_t *r = realloc(m->row, c * sizeof *r);
        if (!r)
            return CUZK_ENOMEM;
        m->row = r;
        m->row_cap = c;
    }
    if (m->nnz + n > m->cap) {
        size_t c = m->cap ? m->cap : 4096;
        while (c < m->nnz + n)
            c *= 2;
        cuzk_var *v = realloc(m->var, c * sizeof *v);
        if (!v)
            return CUZK_ENOMEM;
        m->var = v;
        cuzk_fr *f = realloc(m->coef, c * sizeof *f);
        if (!f)
            return CUZK_ENOMEM;
        m->coef = f;
        m->cap = c;
    }
    for (uint32_t i = 0; i < n; i++) {
        m->var[m->nnz + i] = lc->t[i].var;
        m->coef[m->nnz + i] = lc->t[i].coef;
    }
    m->nnz += n;
    m->row[row + 1] = m->nnz;
    return CUZK_OK;
}

int cuzk_csb_enforce(cuzk_csb *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c)
{
    if (!cs)
        return CUZK_EINVAL;
    if (cs->err)
        return cs->err;
    if (cs->handed)
        return set_err(cs, CUZK_EINVAL);
    if (!lc_ok(cs, a) || !lc_ok(cs, b) || !lc_ok(cs, c))
        return set_err(cs, CUZK_EINVAL);
    if (cs->flags & CUZK_CSB_RECORD) {
        uint64_t nnz[3];
        for (int i = 0; i < 3; i++)
            nnz[i] = cs->m[i].nnz;
        const cuzk_lc *l[3] = {a, b, c};
        for (int i = 0; i < 3; i++)
            if (rec_row(&cs->m[i], cs->n_cons, l[i]) != CUZK_OK) {
                for (int j = 0; j < 3; j++) /* leave the matrices as they were */
                    cs->m[j].nnz = nnz[j];
                return set_err(cs, CUZK_ENOMEM);
            }
    }
    if ((cs->flags & CUZK_CSB_CHECK) && cs->first_fail < 0) {
        cuzk_fr va, vb, vc;
        cuzk_csb_lc_value(cs, a, &va);
        cuzk_csb_lc_value(cs, b, &vb);
        cuzk_csb_lc_value(cs, c, &vc);
        cuzk_fr_mul(&va, &va, &vb);
        if (!cuzk_fr_eq(&va, &vc))
            cs->first_fail = (int64_t)cs->n_cons;
    }
    cs->n_cons++;
    return CUZK_OK;
}

void cuzk_csb_value(const cuzk_csb *cs, cuzk_var v, cuzk_fr *out)
{
    if (!cs || !(cs->flags & CUZK_CSB_VALUES) || !var_ok(cs, v)) {
        *out = CUZK_FR_ZERO;
        return;
    }
    *out = cuzk_var_is_input(v) ? cs->vin[cuzk_var_index(v)] : cs->vaux[cuzk_var_index(v)];
}

void cuzk_csb_lc_value(const cuzk_csb *cs, const cuzk_lc *lc, cuzk_fr *out)
{
    cuzk_fr acc = CUZK_FR_ZERO, x;
    if (cs && (cs->flags & CUZK_CSB_VALUES) && lc)
        for (uint32_t i = 0; i < lc->n; i++) {
            cuzk_csb_value(cs, lc->t[i].var, &x);
            cuzk_fr_mul(&x, &x, &lc->t[i].coef);
            cuzk_fr_add(&acc, &acc, &x);
        }
    *out = acc;
}

uint64_t cuzk_csb_n_inputs(const cuzk_csb *cs)
{
    return cs ? cs->n_in : 0;
}
uint64_t cuzk_csb_n_aux(const cuzk_csb *cs)
{
    return cs ? cs->n_aux : 0;
}
uint64_t cuzk_csb_n_constraints(const cuzk_csb *cs)
{
    return cs ? cs->n_cons : 0;
}
int64_t cuzk_csb_first_failure(const cuzk_csb *cs)
{
    return cs ? cs->first_fail : -1;
}
int cuzk_csb_error(const cuzk_csb *cs)
{
    return cs ? cs->err : CUZK_EINVAL;
}

int cuzk_csb_note(cuzk_csb *cs, int rc)
{
    if (!cs)
        return CUZK_EINVAL;
    if (rc != CUZK_OK)
        set_err(cs, rc);
    return cs->err;
}

int cuzk_csb_set_value(cuzk_csb *cs, cuzk_var v, const cuzk_fr *value)
{
    if (!cs || !value || !(cs->flags & CUZK_CSB_VALUES) || !var_ok(cs, v))
        return CUZK_EINVAL;
    if (cuzk_var_is_input(v))
        cs->vin[cuzk_var_index(v)] = *value;
    else
        cs->vaux[cuzk_var_index(v)] = *value;
    return CUZK_OK;
}

/* Moves one recorded matrix into CSR form with unified column indices. */
static int hand_matrix(cuzk_csr *out, rec_matrix *m, uint64_t n_rows, uint64_t n_in)
{
    memset(out, 0, sizeof *out);
    uint32_t *col = malloc((m->nnz ? m->nnz : 1) * sizeof *col);
    if (!col)
        return CUZK_ENOMEM;
    for (uint64_t k = 0; k < m->nnz; k++) {
        cuzk_var v = m->var[k];
        col[k] = cuzk_var_is_input(v) ? cuzk_var_index(v) : (uint32_t)(n_in + cuzk_var_index(v));
    }
    out->row = m->row;
    out->col = col;
    out->val = m->coef;
    if (!out->val) /* no term at all: cs.h wants a valid (empty) plain array */
        out->val = malloc(sizeof *out->val);
    out->nnz = m->nnz;
    (void)n_rows;
    free(m->var);
    memset(m, 0, sizeof *m);
    return out->val ? CUZK_OK : CUZK_ENOMEM;
}

int cuzk_csb_finish(cuzk_csb *cs, cuzk_cs *out, cuzk_fr **z)
{
    if (!cs)
        return CUZK_EINVAL;
    if (z)
        *z = NULL;
    if (out)
        memset(out, 0, sizeof *out);
    if (cs->err)
        return cs->err;
    if (out && (!(cs->flags & CUZK_CSB_RECORD) || cs->handed))
        return CUZK_EINVAL;
    if (z && !(cs->flags & CUZK_CSB_VALUES))
        return CUZK_EINVAL;
    if (cs->n_in + cs->n_aux > UINT32_MAX)
        return CUZK_ERANGE;
    cuzk_fr *zz = NULL;
    if (z) {
        zz = malloc((cs->n_in + cs->n_aux) * sizeof *zz);
        if (!zz)
            return CUZK_ENOMEM;
        memcpy(zz, cs->vin, cs->n_in * sizeof *zz);
        if (cs->n_aux)
            memcpy(zz + cs->n_in, cs->vaux, cs->n_aux * sizeof *zz);
    }
    if (out) {
        out->n_inputs = cs->n_in;
        out->n_aux = cs->n_aux;
        out->n_constraints = cs->n_cons;
        cuzk_csr *mats[3] = {&out->a, &out->b, &out->c};
        int rc = CUZK_OK;
        for (int i = 0; i < 3 && rc == CUZK_OK; i++)
            rc = hand_matrix(mats[i], &cs->m[i], cs->n_cons, cs->n_in);
        cs->handed = true;
        if (rc == CUZK_OK)
            rc = cuzk_cs_compact(out);
        if (rc != CUZK_OK) {
            cuzk_cs_free(out);
            free(zz);
            return rc;
        }
    }
    if (z)
        *z = zz;
    return CUZK_OK;
}

/* ---- digests ------------------------------------------------------------------------------------------ */

static void put_be64(cuzk_blake2s *h, uint64_t x)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(x >> (56 - 8 * i));
    cuzk_blake2s_update(h, b, 8);
}

typedef struct {
    uint32_t col;
    cuzk_fr coef;
} col_term;

static int col_cmp(const void *x, const void *y)
{
    uint32_t a = ((const col_term *)x)->col, b = ((const col_term *)y)->col;
    return (a > b) - (a < b);
}

int cuzk_cs_digest(const cuzk_cs *cs, uint8_t out[32])
{
    cuzk_blake2s h;
    cuzk_blake2s_init(&h, 32);
    put_be64(&h, cs->n_inputs);
    put_be64(&h, cs->n_aux);
    put_be64(&h, cs->n_constraints);
    const cuzk_csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    col_term *buf = NULL;
    size_t cap = 0;
    for (size_t r = 0; r < cs->n_constraints; r++)
        for (int i = 0; i < 3; i++) {
            const cuzk_csr *m = mats[i];
            uint64_t lo = m->row[r], n = m->row[r + 1] - lo;
            if (n > cap) {
                col_term *p = realloc(buf, n * sizeof *p);
                if (!p) {
                    free(buf);
                    return CUZK_ENOMEM;
                }
                buf = p;
                cap = n;
            }
            for (uint64_t k = 0; k < n; k++) {
                buf[k].col = m->col[lo + k];
                buf[k].coef = *cuzk_csr_coef(m, lo + k);
            }
            if (n > 1)
                qsort(buf, n, sizeof *buf, col_cmp);
            uint64_t w = 0;
            for (uint64_t k = 0; k < n;) {
                col_term acc = buf[k++];
                while (k < n && buf[k].col == acc.col)
                    cuzk_fr_add(&acc.coef, &acc.coef, &buf[k++].coef);
                if (!cuzk_fr_is_zero(&acc.coef))
                    buf[w++] = acc;
            }
            put_be64(&h, w);
            for (uint64_t k = 0; k < w; k++) {
                uint8_t term[1 + 8 + 32];
                bool input = buf[k].col < cs->n_inputs;
                uint64_t idx = input ? buf[k].col : buf[k].col - cs->n_inputs;
                term[0] = input ? 'I' : 'A';
                for (int b = 0; b < 8; b++)
                    term[1 + b] = (uint8_t)(idx >> (56 - 8 * b));
                cuzk_fr_to_be32(term + 9, &buf[k].coef);
                cuzk_blake2s_update(&h, term, sizeof term);
            }
        }
    free(buf);
    cuzk_blake2s_final(&h, out);
    return CUZK_OK;
}

void cuzk_witness_digest(size_t n_inputs, size_t n_aux, const cuzk_fr *z, uint8_t out[32])
{
    cuzk_blake2s h;
    cuzk_blake2s_init(&h, 32);
    for (size_t i = 0; i < n_inputs + n_aux; i++) {
        uint8_t b[32];
        cuzk_fr_to_le32(b, &z[i]);
        cuzk_blake2s_update(&h, b, 32);
    }
    cuzk_blake2s_final(&h, out);
}
