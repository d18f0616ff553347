/*
 * cs.c — the in-memory constraint system of cuzk/cs.h: conversion from a
 * circom .r1cs, the compact coefficient form, row evaluation, the witness
 * check, bellperson's density bitmaps and a generator of random satisfiable
 * circuits.
 *
 * Storage. A matrix keeps its coefficients either plain (one Fr per term) or
 * compact (a table of the distinct values plus a u8 or u16 index per term).
 * Every loop here reads a coefficient through cuzk_csr_coef, so there is one
 * code path for both; the branch on the form is the same for every term of a
 * matrix and predicts perfectly. Compacting a plain matrix hashes each value
 * into an open-addressing table of 2^17 slots (at most 65536 distinct values,
 * so the load stays at or below one half).
 *
 * Evaluation. The prover needs a_j = <A_j, z>, b_j, c_j for every row (the
 * values bellperson's synthesis accumulates). Rows are independent, so the
 * pool hands out blocks of EVAL_ROWS rows; each value is a plain dot product
 * over the CSR terms, with the coefficients 1 and -1 (most of a real circuit)
 * turned into an addition or a subtraction instead of a multiplication. The
 * arithmetic per row is the same whatever the split, so results do not
 * depend on the thread count. The check runs the same blocks and keeps the
 * smallest failing row in an atomic, skipping blocks that start after it.
 *
 * Density. bellperson marks a variable dense in A or B when its coefficient in
 * some row is non-zero after the row's terms have been merged (its linear
 * combinations keep one coefficient per variable). A CSR row may repeat a
 * column, so a row whose columns are not strictly increasing is merged first:
 * short rows by a quadratic scan in place, long ones by sorting a copy.
 *
 * Random circuits. The witness is drawn first; each row then gets random
 * sparse A and B combinations (with occasional zero coefficients, repeated
 * columns and cancelling pairs, so the density rules are exercised), their
 * product p = <A,z><B,z> is formed, and C gets a few random terms plus one
 * fix-up term on a variable whose value is non-zero, with the coefficient
 * that makes <C,z> = p. The fix-up variable is the row's "own" aux variable
 * when its value allows, else ONE. Inverses of the witness come from one
 * batch inversion. Row j owns aux j, j + n_constraints, j + 2 n_constraints,
 * ... so every aux variable has a row even when there are more aux variables
 * than rows; an owned variable whose merged C coefficient in its row is zero
 * (its value is zero, so the fix-up went to ONE, or an extra term cancelled
 * the fix-up) gets the pair + v - z_v · ONE, which adds nothing to <C,z>.
 * Every aux variable is therefore constrained, which setup requires.
 */
#include "cuzk/cs.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define EVAL_ROWS 2048       /* rows per pool task */
#define DENSITY_SHORT_ROW 32 /* rows up to this length are merged in place */
#define DENSITY_MIN_ROWS 16384 /* rows of one density task at least */
#define RANDOM_MAX_TERMS 8   /* terms per row and matrix in cuzk_cs_random */

/* ---- conversion and ownership ------------------------------------------------------- */

static void csr_free(cuzk_csr *m)
{
    free(m->row);
    free(m->col);
    free(m->val);
    free(m->coef);
    free(m->idx8);
    free(m->idx16);
    memset(m, 0, sizeof *m);
}

void cuzk_cs_free(cuzk_cs *cs)
{
    if (!cs)
        return;
    csr_free(&cs->a);
    csr_free(&cs->b);
    csr_free(&cs->c);
    memset(cs, 0, sizeof *cs);
}

static int csr_copy(cuzk_csr *out, const cuzk_snarkjs_matrix *m, size_t rows)
{
    out->nnz = m->nnz;
    out->row = malloc((rows + 1) * sizeof *out->row);
    out->col = malloc((m->nnz ? m->nnz : 1) * sizeof *out->col);
    out->val = malloc((m->nnz ? m->nnz : 1) * sizeof *out->val);
    if (!out->row || !out->col || !out->val)
        return CUZK_ENOMEM;
    memcpy(out->row, m->row, (rows + 1) * sizeof *out->row);
    if (m->nnz) {
        memcpy(out->col, m->col, m->nnz * sizeof *out->col);
        memcpy(out->val, m->val, m->nnz * sizeof *out->val);
    }
    return CUZK_OK;
}

int cuzk_cs_from_snarkjs(cuzk_cs *out, const cuzk_snarkjs_r1cs *r1cs, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!r1cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "cs: no r1cs given");
    uint64_t n_inputs = 1 + (uint64_t)r1cs->n_pub_out + r1cs->n_pub_in;
    if (n_inputs > r1cs->n_wires)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "cs: r1cs has %u wires but 1 + %u outputs + %u inputs",
                         r1cs->n_wires, r1cs->n_pub_out, r1cs->n_pub_in);
    const cuzk_snarkjs_matrix *src[3] = {&r1cs->a, &r1cs->b, &r1cs->c};
    for (int i = 0; i < 3; i++)
        if (src[i]->row[r1cs->n_constraints] != src[i]->nnz)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "cs: r1cs matrix %c has inconsistent row offsets",
                             "ABC"[i]);
    out->n_inputs = (size_t)n_inputs;
    out->n_aux = r1cs->n_wires - (size_t)n_inputs;
    out->n_constraints = r1cs->n_constraints;
    cuzk_csr *dst[3] = {&out->a, &out->b, &out->c};
    for (int i = 0; i < 3; i++) {
        if (csr_copy(dst[i], src[i], out->n_constraints)) {
            cuzk_cs_free(out);
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "cs: out of memory copying %llu terms",
                             (unsigned long long)src[i]->nnz);
        }
    }
    return CUZK_OK;
}

/* ---- the compact form ------------------------------------------------------------------ */

#define COMPACT_MAX 65536u
#define COMPACT_SLOTS (2 * COMPACT_MAX) /* power of two, load <= 1/2 */

bool cuzk_csr_coefs_ok(const cuzk_csr *m)
{
    if (m->val)
        return !m->coef && !m->idx8 && !m->idx16;
    if (m->nnz == 0)
        return true;
    if (!m->coef || m->n_coef == 0 || !m->idx8 == !m->idx16)
        return false;
    if (m->n_coef > (m->idx8 ? 256u : COMPACT_MAX))
        return false;
    for (uint64_t k = 0; k < m->nnz; k++)
        if ((m->idx8 ? m->idx8[k] : m->idx16[k]) >= m->n_coef)
            return false;
    return true;
}

static uint32_t fr_hash(const cuzk_fr *v)
{
    uint64_t h = v->l[0] ^ (v->l[1] * 0x9e3779b97f4a7c15ull) ^ (v->l[2] * 0xc2b2ae3d27d4eb4full) ^
                 (v->l[3] * 0x165667b19e3779f9ull);
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (uint32_t)h & (COMPACT_SLOTS - 1);
}

int cuzk_csr_compact(cuzk_csr *m)
{
    if (!m->val)
        return CUZK_OK;
    uint32_t *slot = calloc(COMPACT_SLOTS, sizeof *slot); /* table index + 1, 0 = empty */
    cuzk_fr *table = malloc(COMPACT_MAX * sizeof *table);
    uint16_t *idx = malloc((m->nnz ? m->nnz : 1) * sizeof *idx);
    int rc = CUZK_ENOMEM;
    uint32_t n = 0;
    if (!slot || !table || !idx)
        goto done;
    rc = CUZK_OK;
    for (uint64_t k = 0; k < m->nnz && rc == CUZK_OK; k++) {
        const cuzk_fr *v = &m->val[k];
        uint32_t h = fr_hash(v);
        while (slot[h] && !cuzk_fr_eq(&table[slot[h] - 1], v))
            h = (h + 1) & (COMPACT_SLOTS - 1);
        if (!slot[h]) {
            if (n == COMPACT_MAX) {
                rc = CUZK_ERANGE;
                break;
            }
            table[n] = *v;
            slot[h] = ++n;
        }
        idx[k] = (uint16_t)(slot[h] - 1);
    }
    if (rc)
        goto done;
    cuzk_fr *coef = malloc((n ? n : 1) * sizeof *coef);
    uint8_t *idx8 = NULL;
    if (!coef || (n <= 256 && !(idx8 = malloc(m->nnz ? m->nnz : 1)))) {
        free(coef);
        rc = CUZK_ENOMEM;
        goto done;
    }
    memcpy(coef, table, n * sizeof *coef);
    if (idx8) {
        for (uint64_t k = 0; k < m->nnz; k++)
            idx8[k] = (uint8_t)idx[k];
        m->idx8 = idx8;
    } else {
        m->idx16 = idx;
        idx = NULL;
    }
    free(m->val);
    m->val = NULL;
    m->coef = coef;
    m->n_coef = n;
done:
    free(slot);
    free(table);
    free(idx);
    return rc;
}

int cuzk_cs_compact(cuzk_cs *cs)
{
    cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++) {
        int rc = cuzk_csr_compact(m[i]);
        if (rc == CUZK_ENOMEM)
            return rc;
    }
    return CUZK_OK;
}

static size_t csr_bytes(const cuzk_csr *m, size_t rows)
{
    size_t b = (m->row ? (rows + 1) * sizeof *m->row : 0) + (size_t)m->nnz * sizeof *m->col;
    if (m->val)
        return b + (size_t)m->nnz * sizeof *m->val;
    b += (size_t)m->n_coef * sizeof *m->coef;
    return b + (size_t)m->nnz * (m->idx8 ? 1 : m->idx16 ? 2 : 0);
}

size_t cuzk_cs_bytes(const cuzk_cs *cs)
{
    return csr_bytes(&cs->a, cs->n_constraints) + csr_bytes(&cs->b, cs->n_constraints) +
           csr_bytes(&cs->c, cs->n_constraints);
}

/* ---- evaluation ----------------------------------------------------------------------- */

static cuzk_fr fr_minus_one(void)
{
    cuzk_fr m;
    cuzk_fr_neg(&m, &CUZK_FR_ONE);
    return m;
}

/* out = <row j of m, z>. */
static void row_dot(cuzk_fr *out, const cuzk_csr *m, size_t j, const cuzk_fr *z, const cuzk_fr *minus_one)
{
    cuzk_fr acc = CUZK_FR_ZERO, t;
    for (uint64_t k = m->row[j]; k < m->row[j + 1]; k++) {
        const cuzk_fr *v = cuzk_csr_coef(m, k), *x = &z[m->col[k]];
        if (cuzk_fr_is_one(v)) {
            cuzk_fr_add(&acc, &acc, x);
        } else if (cuzk_fr_eq(v, minus_one)) {
            cuzk_fr_sub(&acc, &acc, x);
        } else {
            cuzk_fr_mul(&t, v, x);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

typedef struct {
    const cuzk_cs *cs;
    const cuzk_fr *z;
    cuzk_fr *a, *b, *c;
    cuzk_fr minus_one;
    _Atomic int64_t first_bad; /* check: smallest failing row so far, INT64_MAX if none */
} eval_ctx;

static void eval_task(void *arg, size_t task, int worker)
{
    eval_ctx *e = arg;
    size_t lo = task * EVAL_ROWS, hi = lo + EVAL_ROWS;
    if (hi > e->cs->n_constraints)
        hi = e->cs->n_constraints;
    for (size_t j = lo; j < hi; j++) {
        if (e->a)
            row_dot(&e->a[j], &e->cs->a, j, e->z, &e->minus_one);
        if (e->b)
            row_dot(&e->b[j], &e->cs->b, j, e->z, &e->minus_one);
        if (e->c)
            row_dot(&e->c[j], &e->cs->c, j, e->z, &e->minus_one);
    }
}

static size_t eval_tasks(const cuzk_cs *cs)
{
    return (cs->n_constraints + EVAL_ROWS - 1) / EVAL_ROWS;
}

void cuzk_cs_eval(const cuzk_cs *cs, const cuzk_fr *z, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, cuzk_pool *pool)
{
    eval_ctx e = {.cs = cs, .z = z, .a = a, .b = b, .c = c, .minus_one = fr_minus_one()};
    cuzk_pool_run(pool, eval_tasks(cs), eval_task, &e);
}

static void check_task(void *arg, size_t task, int worker)
{
    eval_ctx *e = arg;
    size_t lo = task * EVAL_ROWS, hi = lo + EVAL_ROWS;
    if (hi > e->cs->n_constraints)
        hi = e->cs->n_constraints;
    for (size_t j = lo; j < hi; j++) {
        if ((int64_t)j >= atomic_load_explicit(&e->first_bad, memory_order_relaxed))
            return;
        cuzk_fr a, b, c;
        row_dot(&a, &e->cs->a, j, e->z, &e->minus_one);
        row_dot(&b, &e->cs->b, j, e->z, &e->minus_one);
        row_dot(&c, &e->cs->c, j, e->z, &e->minus_one);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c)) {
            int64_t cur = atomic_load_explicit(&e->first_bad, memory_order_relaxed);
            while ((int64_t)j < cur &&
                   !atomic_compare_exchange_weak_explicit(&e->first_bad, &cur, (int64_t)j,
                                                          memory_order_relaxed, memory_order_relaxed))
                ;
            return;
        }
    }
}

int64_t cuzk_cs_check(const cuzk_cs *cs, const cuzk_fr *z, cuzk_pool *pool)
{
    eval_ctx e = {.cs = cs, .z = z, .minus_one = fr_minus_one()};
    atomic_init(&e.first_bad, INT64_MAX);
    cuzk_pool_run(pool, eval_tasks(cs), check_task, &e);
    int64_t bad = atomic_load(&e.first_bad);
    return bad == INT64_MAX ? -1 : bad;
}

/* ---- density -------------------------------------------------------------------------- */

typedef struct {
    uint32_t col;
    cuzk_fr val;
} term;

static int term_cmp(const void *x, const void *y)
{
    uint32_t a = ((const term *)x)->col, b = ((const term *)y)->col;
    return (a > b) - (a < b);
}

/* Sets bit i of a bitmap; atomically when several tasks mark the same bitmaps at once. */
static inline void set_bit(uint64_t *bits, size_t i, bool shared)
{
    if (shared)
        __atomic_fetch_or(&bits[i / 64], 1ull << (i % 64), __ATOMIC_RELAXED);
    else
        bits[i / 64] |= 1ull << (i % 64);
}

/* Marks variable v with bitmaps split at n_inputs (inp may be NULL: inputs untracked). */
static void mark(uint32_t v, size_t n_inputs, uint64_t *inp, uint64_t *aux, bool shared)
{
    if (v < n_inputs) {
        if (inp)
            set_bit(inp, v, shared);
    } else if (aux) {
        set_bit(aux, v - n_inputs, shared);
    }
}

/* Marks the variables of rows [j0, j1) of m whose merged coefficient is non-zero. */
static void density_scan(const cuzk_csr *m, size_t j0, size_t j1, size_t n_inputs, uint64_t *inp,
                         uint64_t *aux, term *scratch, bool shared)
{
    for (size_t j = j0; j < j1; j++) {
        uint64_t lo = m->row[j], hi = m->row[j + 1];
        bool increasing = true;
        for (uint64_t k = lo + 1; k < hi && increasing; k++)
            increasing = m->col[k] > m->col[k - 1];
        if (increasing) {
            for (uint64_t k = lo; k < hi; k++)
                if (!cuzk_fr_is_zero(cuzk_csr_coef(m, k)))
                    mark(m->col[k], n_inputs, inp, aux, shared);
        } else if (hi - lo <= DENSITY_SHORT_ROW) {
            /* The first occurrence of each column sums all of its terms. */
            for (uint64_t k = lo; k < hi; k++) {
                bool first = true;
                for (uint64_t q = lo; q < k && first; q++)
                    first = m->col[q] != m->col[k];
                if (!first)
                    continue;
                cuzk_fr sum = *cuzk_csr_coef(m, k);
                for (uint64_t q = k + 1; q < hi; q++)
                    if (m->col[q] == m->col[k])
                        cuzk_fr_add(&sum, &sum, cuzk_csr_coef(m, q));
                if (!cuzk_fr_is_zero(&sum))
                    mark(m->col[k], n_inputs, inp, aux, shared);
            }
        } else {
            size_t n = (size_t)(hi - lo);
            for (size_t t = 0; t < n; t++) {
                scratch[t].col = m->col[lo + t];
                scratch[t].val = *cuzk_csr_coef(m, lo + t);
            }
            qsort(scratch, n, sizeof *scratch, term_cmp);
            for (size_t t = 0; t < n;) {
                cuzk_fr sum = scratch[t].val;
                size_t u = t + 1;
                for (; u < n && scratch[u].col == scratch[t].col; u++)
                    cuzk_fr_add(&sum, &sum, &scratch[u].val);
                if (!cuzk_fr_is_zero(&sum))
                    mark(scratch[t].col, n_inputs, inp, aux, shared);
                t = u;
            }
        }
    }
}

static uint64_t longest_row(const cuzk_csr *m, size_t rows)
{
    uint64_t best = 0;
    for (size_t j = 0; j < rows; j++)
        if (m->row[j + 1] - m->row[j] > best)
            best = m->row[j + 1] - m->row[j];
    return best;
}

size_t cuzk_cs_density_count(const uint64_t *bits, size_t n)
{
    size_t c = 0;
    for (size_t w = 0; w < n / 64; w++)
        c += (size_t)__builtin_popcountll(bits[w]);
    if (n % 64)
        c += (size_t)__builtin_popcountll(bits[n / 64] & ((UINT64_C(1) << (n % 64)) - 1));
    return c;
}

int cuzk_cs_density_pops(const cuzk_cs *cs, size_t pop[3], cuzk_pool *pool)
{
    size_t wa = (cs->n_aux + 63) / 64 + 1, wi = (cs->n_inputs + 63) / 64 + 1;
    uint64_t *aa = calloc(wa, 8), *bi = calloc(wi, 8), *ba = calloc(wa, 8);
    int rc = aa && bi && ba ? cuzk_cs_density_pool(cs, aa, bi, ba, pool) : CUZK_ENOMEM;
    if (rc == CUZK_OK) {
        pop[0] = cuzk_cs_density_count(aa, cs->n_aux);
        pop[1] = cuzk_cs_density_count(bi, cs->n_inputs);
        pop[2] = cuzk_cs_density_count(ba, cs->n_aux);
    }
    free(aa);
    free(bi);
    free(ba);
    return rc;
}

typedef struct {
    const cuzk_cs *cs;
    uint64_t *a_aux, *b_input, *b_aux;
    size_t blocks; /* row blocks per matrix */
    uint64_t longest[2];
    bool shared;
    atomic_bool oom;
} density_ctx;

/* Task t scans one block of rows of A (t < blocks) or of B; a row longer than DENSITY_SHORT_ROW with its
 * columns out of order is merged in scratch of the task's own. */
static void density_task(void *arg, size_t task, int worker)
{
    (void)worker;
    density_ctx *x = arg;
    const cuzk_cs *cs = x->cs;
    int mat = task < x->blocks ? 0 : 1;
    size_t b = task - (size_t)mat * x->blocks, rows = cs->n_constraints;
    size_t j0 = rows * b / x->blocks, j1 = rows * (b + 1) / x->blocks;
    if (mat == 0 ? !x->a_aux : !x->b_input && !x->b_aux)
        return;
    term *scratch = NULL;
    if (x->longest[mat] > DENSITY_SHORT_ROW && !(scratch = malloc(x->longest[mat] * sizeof *scratch))) {
        atomic_store(&x->oom, true);
        return;
    }
    if (mat == 0)
        density_scan(&cs->a, j0, j1, cs->n_inputs, NULL, x->a_aux, scratch, x->shared);
    else
        density_scan(&cs->b, j0, j1, cs->n_inputs, x->b_input, x->b_aux, scratch, x->shared);
    free(scratch);
}

int cuzk_cs_density_pool(const cuzk_cs *cs, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux, cuzk_pool *pool)
{
    size_t wi = (cs->n_inputs + 63) / 64, wa = (cs->n_aux + 63) / 64;
    if (a_aux)
        memset(a_aux, 0, wa * sizeof *a_aux);
    if (b_input)
        memset(b_input, 0, wi * sizeof *b_input);
    if (b_aux)
        memset(b_aux, 0, wa * sizeof *b_aux);
    int threads = pool ? cuzk_pool_size(pool) : 1;
    density_ctx x = {.cs = cs, .a_aux = a_aux, .b_input = b_input, .b_aux = b_aux};
    /* a few blocks a thread (rows differ in length), none below DENSITY_MIN_ROWS rows */
    size_t blocks = threads > 1 ? (size_t)threads * 4 : 1;
    if (blocks > 1 && cs->n_constraints / blocks < DENSITY_MIN_ROWS)
        blocks = cs->n_constraints / DENSITY_MIN_ROWS > 1 ? cs->n_constraints / DENSITY_MIN_ROWS : 1;
    x.blocks = blocks;
    x.shared = blocks > 1;
    x.longest[0] = longest_row(&cs->a, cs->n_constraints);
    x.longest[1] = longest_row(&cs->b, cs->n_constraints);
    atomic_init(&x.oom, false);
    if (blocks > 1)
        cuzk_pool_run(pool, 2 * blocks, density_task, &x);
    else
        for (size_t t = 0; t < 2; t++)
            density_task(&x, t, 0);
    return atomic_load(&x.oom) ? CUZK_ENOMEM : CUZK_OK;
}

int cuzk_cs_density(const cuzk_cs *cs, uint64_t *a_aux, uint64_t *b_input, uint64_t *b_aux)
{
    return cuzk_cs_density_pool(cs, a_aux, b_input, b_aux, NULL);
}

/* ---- random circuits ------------------------------------------------------------------ */

typedef struct {
    uint64_t s[4];
} rng;

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** */
static uint64_t rng_next(rng *g)
{
    uint64_t *s = g->s, res = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}

static size_t rng_below(rng *g, size_t n)
{
    return (size_t)(rng_next(g) % n);
}

static void rng_fr(rng *g, cuzk_fr *out)
{
    uint64_t x[4];
    do {
        for (int i = 0; i < 4; i++)
            x[i] = rng_next(g);
        x[3] &= ~(1ull << 63);
    } while (!cuzk_fr_from_canonical(out, x));
}

/* A coefficient for an A or B term in the given shape. */
static void rand_coef(rng *g, cuzk_cs_shape shape, cuzk_fr *out)
{
    if (shape == CUZK_CS_RANDOM_UNIFORM) {
        rng_fr(g, out);
        return;
    }
    uint64_t r = rng_next(g);
    switch (r % 8) {
    case 0: cuzk_fr_from_u64(out, 1ull << ((r >> 8) % 32)); break;
    case 1: rng_fr(g, out); break;
    default: *out = CUZK_FR_ONE;
    }
    if ((r >> 3) & 1)
        cuzk_fr_neg(out, out);
}

/* A witness value for variable v in the given shape. */
static void rand_value(rng *g, cuzk_cs_shape shape, size_t v, size_t n_inputs, cuzk_fr *out)
{
    if (v == 0) {
        *out = CUZK_FR_ONE;
        return;
    }
    if (shape == CUZK_CS_RANDOM_UNIFORM) {
        rng_fr(g, out);
        return;
    }
    uint64_t r = rng_next(g);
    if (v < n_inputs)
        cuzk_fr_from_u64(out, r >> 32);
    else if (r % 20 < 9)
        *out = CUZK_FR_ZERO;
    else if (r % 20 < 18)
        *out = CUZK_FR_ONE;
    else
        rng_fr(g, out);
}

typedef struct {
    cuzk_csr m;
    uint64_t cap;
} csr_builder;

static int builder_init(csr_builder *b, size_t rows, uint64_t extra)
{
    b->cap = (uint64_t)rows * RANDOM_MAX_TERMS + extra;
    b->m.row = calloc(rows + 1, sizeof *b->m.row);
    b->m.col = malloc((b->cap ? b->cap : 1) * sizeof *b->m.col);
    b->m.val = malloc((b->cap ? b->cap : 1) * sizeof *b->m.val);
    return b->m.row && b->m.col && b->m.val ? CUZK_OK : CUZK_ENOMEM;
}

static void builder_push(csr_builder *b, uint32_t col, const cuzk_fr *val)
{
    b->m.col[b->m.nnz] = col;
    b->m.val[b->m.nnz] = *val;
    b->m.nnz++;
}

/* Random variable: an input one time in eight (or always when there is no aux), else an aux. */
static uint32_t rand_var(rng *g, size_t n_inputs, size_t n_aux)
{
    if (n_aux == 0 || rng_below(g, 8) == 0)
        return (uint32_t)rng_below(g, n_inputs);
    return (uint32_t)(n_inputs + rng_below(g, n_aux));
}

/* Appends a random combination of 1..3 terms (sometimes a zero coefficient, a repeated column or a
 * cancelling pair) to row j of b and returns its value on z. */
static void rand_combination(rng *g, csr_builder *b, cuzk_cs_shape shape, const cuzk_fr *z, size_t n_inputs,
                             size_t n_aux, cuzk_fr *value)
{
    size_t nt = 1 + rng_below(g, 3);
    cuzk_fr acc = CUZK_FR_ZERO, c, t;
    for (size_t i = 0; i < nt; i++) {
        uint32_t v = rand_var(g, n_inputs, n_aux);
        size_t kind = rng_below(g, 16);
        rand_coef(g, shape, &c);
        if (kind == 0)
            c = CUZK_FR_ZERO;
        builder_push(b, v, &c);
        cuzk_fr_mul(&t, &c, &z[v]);
        cuzk_fr_add(&acc, &acc, &t);
        if (kind == 1 || kind == 2) {
            /* The same column again: cancelling (kind 1) or adding up (kind 2). */
            if (kind == 1)
                cuzk_fr_neg(&c, &c);
            else
                rand_coef(g, shape, &c);
            builder_push(b, v, &c);
            cuzk_fr_mul(&t, &c, &z[v]);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *value = acc;
}

int cuzk_cs_random(cuzk_cs *cs, cuzk_fr *z, size_t n_inputs, size_t n_aux, size_t n_constraints,
                   uint64_t seed, cuzk_cs_shape shape)
{
    memset(cs, 0, sizeof *cs);
    if (n_inputs == 0 || n_inputs + n_aux > UINT32_MAX || (n_aux > 0 && n_constraints == 0))
        return CUZK_EINVAL;
    size_t nv = n_inputs + n_aux;
    rng g;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        g.s[i] = splitmix(&x);

    for (size_t v = 0; v < nv; v++)
        rand_value(&g, shape, v, n_inputs, &z[v]);
    cuzk_fr *zinv = malloc(nv * sizeof *zinv), *scratch = malloc(nv * sizeof *scratch);
    csr_builder ba = {0}, bb = {0}, bc = {0};
    int rc = CUZK_ENOMEM;
    /* C rows: at most 2 extra + 1 fix-up + 2 for the own variable, plus 2 per further owned variable. */
    uint64_t more_owned = n_aux > n_constraints ? n_aux - n_constraints : 0;
    if (!zinv || !scratch || builder_init(&ba, n_constraints, 0) || builder_init(&bb, n_constraints, 0) ||
        builder_init(&bc, n_constraints, 2 * more_owned))
        goto done;
    cuzk_fr_batch_inv(zinv, z, nv, scratch);

    for (size_t j = 0; j < n_constraints; j++) {
        cuzk_fr av, bv, p, cv = CUZK_FR_ZERO, c, t;
        rand_combination(&g, &ba, shape, z, n_inputs, n_aux, &av);
        if (rng_below(&g, 8) == 0) {
            builder_push(&bb, 0, &CUZK_FR_ONE); /* a linear row: A * ONE = C */
            bv = CUZK_FR_ONE;
        } else {
            rand_combination(&g, &bb, shape, z, n_inputs, n_aux, &bv);
        }
        cuzk_fr_mul(&p, &av, &bv);
        size_t extra = rng_below(&g, 3);
        for (size_t i = 0; i < extra; i++) {
            uint32_t v = rand_var(&g, n_inputs, n_aux);
            rand_coef(&g, shape, &c);
            builder_push(&bc, v, &c);
            cuzk_fr_mul(&t, &c, &z[v]);
            cuzk_fr_add(&cv, &cv, &t);
        }
        uint32_t fix = 0;
        if (n_aux && !cuzk_fr_is_zero(&z[n_inputs + j % n_aux]))
            fix = (uint32_t)(n_inputs + j % n_aux);
        cuzk_fr_sub(&c, &p, &cv);
        cuzk_fr_mul(&c, &c, &zinv[fix]);
        builder_push(&bc, fix, &c);
        /* Each owned aux variable keeps a non-zero merged C coefficient in this row. */
        uint64_t row_lo = bc.m.row[j];
        for (size_t v = n_inputs + j; v < nv; v += n_constraints) {
            cuzk_fr total = CUZK_FR_ZERO;
            for (uint64_t k = row_lo; k < bc.m.nnz; k++)
                if (bc.m.col[k] == v)
                    cuzk_fr_add(&total, &total, &bc.m.val[k]);
            if (!cuzk_fr_is_zero(&total))
                continue;
            builder_push(&bc, (uint32_t)v, &CUZK_FR_ONE);
            if (!cuzk_fr_is_zero(&z[v])) {
                cuzk_fr_neg(&t, &z[v]);
                builder_push(&bc, 0, &t);
            }
        }
        ba.m.row[j + 1] = ba.m.nnz;
        bb.m.row[j + 1] = bb.m.nnz;
        bc.m.row[j + 1] = bc.m.nnz;
    }
    cs->n_inputs = n_inputs;
    cs->n_aux = n_aux;
    cs->n_constraints = n_constraints;
    cs->a = ba.m;
    cs->b = bb.m;
    cs->c = bc.m;
    rc = CUZK_OK;
done:
    if (rc) {
        csr_free(&ba.m);
        csr_free(&bb.m);
        csr_free(&bc.m);
    }
    free(zinv);
    free(scratch);
    return rc;
}
