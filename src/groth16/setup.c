/*
 * setup.c — circuit-specific Groth16 setup (cuzk/setup.h). NOT A TRUSTED
 * CEREMONY: the toxic waste lives in this process; the keys are for tests and
 * benchmarks.
 *
 * The work splits into scalars and points. Scalars: the input rows are
 * appended to A, so the QAP has n = n_constraints + n_inputs rows over the
 * domain of size m = 2^k >= n. Row j's Lagrange basis polynomial at tau is
 *   L_j(tau) = (tau^m - 1)/m · ω^j / (tau - ω^j),
 * so all n of them cost one batch inversion (one field inversion per block of
 * rows, blocks in parallel). A variable's polynomial is the sum of its column
 * entries times the L_j of their rows, so one pass over each CSR matrix yields
 * u = A(tau), v = B(tau), w = C(tau) for every variable. The passes run as
 * tasks of (matrix, range of columns): each reads its whole matrix and adds
 * only its own columns' terms, so no two tasks write the same value and field
 * sums are exact, so the result does not depend on the thread count; a
 * coefficient of ±1 (most of them, in compact matrices) is an addition or a
 * subtraction instead of a product. The query scalars follow from u, v, w and
 * the toxic waste in O(variables + m), in parallel blocks of variables.
 *
 * Points: every query point is [k]G for one of the two fixed generators, so
 * the setup is a batch of fixed-base multiplications. Scalars are recoded into
 * signed c-bit digits (cuzk_msm_recode, digits in [-2^(c-1), 2^(c-1)]); a table
 * holds (d · 2^(c j))G for d = 1 .. 2^(c-1) and every window j, built once per
 * group (window j in parallel blocks: d·B_j by repeated mixed additions, then
 * one batch conversion to affine). A point then costs one table addition per
 * non-zero digit and no doubling. The additions are affine and batched: a task
 * keeps a chunk of points in affine form (in the output array itself) and
 * processes one window at a time across the chunk, so the chunk's slopes share
 * one inversion (Montgomery's trick). An affine addition then costs about 6
 * multiplications against 11 for a Jacobian mixed addition, and the results
 * need no final conversion. Coincident x coordinates are handled exactly (a
 * doubling, or the identity for opposite points), so the method is complete.
 *
 * The window c minimises ndigits(c) · (points + 3 · 2^(c-1)), the second term
 * being the table, whose entries cost about three batched additions each,
 * subject to one window of the table (the entries a pass over a chunk reads at
 * random) fitting a 1 MiB L2 cache. With larger rows the additions wait for
 * cache misses: c = 16 was slower than c = 14 for 2^20 G1 points in every run
 * here (by 5-50% on the loaded machine). So 10^6-point vectors use c = 14 in
 * G1 (19 windows of 8192 points, 14 MiB) and c = 13 in G2 (20 windows of 4096
 * points, 15 MiB).
 *
 * Which variables enter the A and B queries is decided by the prover's own
 * density bitmaps (cuzk_cs_density: a variable's merged coefficient is
 * non-zero in some row), so key and prover always line up. bellperson's
 * generator instead drops the points that are the identity; the two rules
 * agree unless tau is a root of a non-zero column polynomial, which a random
 * tau hits with probability about m / r. Such a key, and one with an aux
 * variable whose l point is the identity (unconstrained, which bellperson
 * also refuses), is an error, because .params files cannot hold the identity.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/setup.h"
#include "groth16/setup_internal.h"

#define SETUP_MAX_LG 31      /* bellperson's domain limit: 2^k with k < 32 */
#define SETUP_ROW_BLOCK 4096 /* rows per Lagrange task (one inversion each) */
#define SETUP_H_BLOCK 8192   /* powers of tau per task */
#define SETUP_COL_MIN 65536  /* columns per QAP column task at least */
#define SETUP_VAR_BLOCK 65536 /* variables per query-scalar task */
#define FB_CHUNK 512         /* points per fixed-base task (one inversion per window) */
#define FB_BUILD_BLOCK 1024  /* table entries per build task */
#define FB_MIN_C 2
#define FB_MAX_C 16
#define FB_TABLE_COST 3         /* cost of one table entry in batched additions */
#define FB_ROW_BYTES (1u << 20) /* one window of the table stays in a core's L2 cache */
#define FB_DOUBLE 0x80000000u   /* op flag: the addition is a doubling */
#define FB_MAX_SEG 6
#define FB_PREFETCH 8 /* points ahead whose table entry is prefetched */

/* ---- helpers -------------------------------------------------------------- */

static void *alloc_n(size_t n, size_t size, bool *fail)
{
    if (n == 0)
        return NULL;
    if (n > SIZE_MAX / size) {
        *fail = true;
        return NULL;
    }
    void *p = malloc(n * size);
    if (!p)
        *fail = true;
    return p;
}

/* True iff tau^m = 1, i.e. tau is a point of the evaluation domain. */
static bool in_domain(const cuzk_fr *tau, size_t m)
{
    cuzk_fr t;
    uint64_t e = m;
    cuzk_fr_pow(&t, tau, &e, 1);
    return cuzk_fr_is_one(&t);
}

static bool bit_get(const uint64_t *bits, size_t i)
{
    return (bits[i / 64] >> (i % 64)) & 1;
}

/* ---- constraint system ---------------------------------------------------- */

static int check_csr(const cuzk_csr *M, const char *name, size_t nrows, size_t nvars, char *err,
                     size_t errlen)
{
    if (!M->row) {
        if (nrows == 0 && M->nnz == 0)
            return CUZK_OK;
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: matrix %s has no row offsets", name);
    }
    if (M->row[0] != 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: matrix %s: row 0 starts at %llu, not 0", name,
                         (unsigned long long)M->row[0]);
    for (size_t j = 0; j < nrows; j++)
        if (M->row[j + 1] < M->row[j])
            return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: matrix %s: row offsets decrease at row %zu",
                             name, j);
    if (M->row[nrows] != M->nnz)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: matrix %s: rows end at %llu but nnz is %llu", name,
                         (unsigned long long)M->row[nrows], (unsigned long long)M->nnz);
    if (M->nnz && (!M->col || !cuzk_csr_coefs_ok(M)))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "setup: matrix %s has %llu terms but no columns or no valid coefficients", name,
                         (unsigned long long)M->nnz);
    for (uint64_t k = 0; k < M->nnz; k++)
        if (M->col[k] >= nvars)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "setup: matrix %s: term %llu names variable %u but there are %zu", name,
                             (unsigned long long)k, M->col[k], nvars);
    return CUZK_OK;
}

int cuzk_setup_check_cs(const cuzk_cs *cs, char *err, size_t errlen)
{
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: no constraint system");
    if (cs->n_inputs == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: no inputs (variable 0 must be ONE)");
    if (cs->n_aux > SIZE_MAX / 4 - cs->n_inputs || cs->n_inputs + cs->n_aux > (size_t)UINT32_MAX + 1)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "setup: %zu + %zu variables do not fit 32-bit indices",
                         cs->n_inputs, cs->n_aux);
    size_t nv = cs->n_inputs + cs->n_aux;
    int rc;
    if ((rc = check_csr(&cs->a, "A", cs->n_constraints, nv, err, errlen)) ||
        (rc = check_csr(&cs->b, "B", cs->n_constraints, nv, err, errlen)) ||
        (rc = check_csr(&cs->c, "C", cs->n_constraints, nv, err, errlen)))
        return rc;
    return CUZK_OK;
}

int cuzk_groth16_domain_lg(unsigned *lg, const cuzk_cs *cs, char *err, size_t errlen)
{
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: no constraint system");
    if (cs->n_constraints > SIZE_MAX / 2 - cs->n_inputs)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "setup: too many constraints");
    size_t n = cs->n_constraints + cs->n_inputs;
    unsigned k = 0;
    while (((size_t)1 << k) < n) {
        k++;
        if (k > SETUP_MAX_LG)
            return cuzk_fail(err, errlen, CUZK_ERANGE,
                             "setup: %zu rows need a domain above 2^%u (bellperson's limit)", n,
                             SETUP_MAX_LG);
    }
    *lg = k;
    return CUZK_OK;
}

/* ---- QAP evaluation ------------------------------------------------------- */

typedef struct {
    const cuzk_cs *cs;
    cuzk_fr tau, omega, scale; /* scale = (tau^m - 1) / m */
    size_t nrows;              /* n_constraints + n_inputs */
    cuzk_fr *lag;              /* L_j(tau), j < nrows */
    cuzk_fr *scratch;          /* 2 * SETUP_ROW_BLOCK per worker */
    cuzk_fr *out[3];           /* u, v, w */
    size_t parts;              /* column ranges per matrix */
    uint8_t *kind[3];          /* compact matrices: coefficient index -> COEF_ONE, COEF_MINUS_ONE or 0 */
} qap_ctx;

enum { COEF_ONE = 1, COEF_MINUS_ONE = 2 };

static void lagrange_task(void *arg, size_t task, int worker)
{
    qap_ctx *x = arg;
    size_t lo = task * SETUP_ROW_BLOCK,
           hi = lo + SETUP_ROW_BLOCK < x->nrows ? lo + SETUP_ROW_BLOCK : x->nrows;
    cuzk_fr *den = x->scratch + (size_t)worker * 2 * SETUP_ROW_BLOCK, *scr = den + SETUP_ROW_BLOCK;
    cuzk_fr wj;
    uint64_t e = lo;
    cuzk_fr_pow(&wj, &x->omega, &e, 1);
    for (size_t j = lo; j < hi; j++) {
        x->lag[j] = wj;
        cuzk_fr_sub(&den[j - lo], &x->tau, &wj);
        cuzk_fr_mul(&wj, &wj, &x->omega);
    }
    cuzk_fr_batch_inv(den, den, hi - lo, scr);
    for (size_t j = lo; j < hi; j++) {
        cuzk_fr_mul(&x->lag[j], &x->lag[j], &den[j - lo]);
        cuzk_fr_mul(&x->lag[j], &x->lag[j], &x->scale);
    }
}

/* The kind of each entry of a compact matrix's coefficient table (NULL for a plain matrix, or when out of
 * memory: every term is then multiplied). */
static uint8_t *coef_kinds(const cuzk_csr *M)
{
    if (M->val || !M->coef || !M->n_coef)
        return NULL;
    uint8_t *k = malloc(M->n_coef);
    if (!k)
        return NULL;
    cuzk_fr minus_one;
    cuzk_fr_neg(&minus_one, &CUZK_FR_ONE);
    for (uint32_t i = 0; i < M->n_coef; i++)
        k[i] = cuzk_fr_eq(&M->coef[i], &CUZK_FR_ONE)  ? COEF_ONE
               : cuzk_fr_eq(&M->coef[i], &minus_one) ? COEF_MINUS_ONE
                                                     : 0;
    return k;
}

/* Task t accumulates matrix t / parts (A, B, C) into out[] for the columns of range t % parts. */
static void column_task(void *arg, size_t task, int worker)
{
    qap_ctx *x = arg;
    const cuzk_cs *cs = x->cs;
    size_t mat = task / x->parts, part = task % x->parts, nv = cs->n_inputs + cs->n_aux;
    uint64_t lo = (uint64_t)nv * part / x->parts, span = (uint64_t)nv * (part + 1) / x->parts - lo;
    const cuzk_csr *M = mat == 0 ? &cs->a : mat == 1 ? &cs->b : &cs->c;
    const uint8_t *kind = x->kind[mat];
    cuzk_fr *out = x->out[mat] + lo, t;
    memset(out, 0, span * sizeof *out);
    for (size_t j = 0; j < cs->n_constraints; j++)
        for (uint64_t k = M->row[j]; k < M->row[j + 1]; k++) {
            uint64_t c = (uint64_t)M->col[k] - lo; /* wraps for a column below the range */
            if (c >= span)
                continue;
            int kd = kind ? kind[M->idx8 ? M->idx8[k] : M->idx16[k]] : 0;
            if (kd == COEF_ONE)
                cuzk_fr_add(&out[c], &out[c], &x->lag[j]);
            else if (kd == COEF_MINUS_ONE)
                cuzk_fr_sub(&out[c], &out[c], &x->lag[j]);
            else {
                cuzk_fr_mul(&t, cuzk_csr_coef(M, k), &x->lag[j]);
                cuzk_fr_add(&out[c], &out[c], &t);
            }
        }
    if (mat == 0) /* the input rows z_i · 0 = 0 */
        for (uint64_t i = lo; i < lo + span && i < cs->n_inputs; i++)
            cuzk_fr_add(&out[i - lo], &out[i - lo], &x->lag[cs->n_constraints + i]);
}

/* The work of cuzk_groth16_qap_eval once cs has been checked. */
static int qap_eval(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_fr *tau, unsigned lg,
                    cuzk_pool *pool, char *err, size_t errlen)
{
    qap_ctx x = {.cs = cs, .tau = *tau, .nrows = cs->n_constraints + cs->n_inputs, .out = {u, v, w}};
    size_t m = (size_t)1 << lg;
    int rc = cuzk_ntt_root_of_unity(&x.omega, lg, CUZK_NTT_BELLPERSON);
    if (rc)
        return cuzk_fail(err, errlen, rc, "setup: no root of unity of order 2^%u", lg);
    uint64_t e = m;
    cuzk_fr zt, minv;
    cuzk_fr_pow(&zt, tau, &e, 1);
    cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
    if (cuzk_fr_is_zero(&zt))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: tau lies in the evaluation domain (tau^%zu = 1)",
                         m);
    cuzk_fr_from_u64(&minv, m);
    cuzk_fr_inv(&minv, &minv);
    cuzk_fr_mul(&x.scale, &zt, &minv);

    size_t nthreads = (size_t)cuzk_pool_size(pool);
    bool fail = false;
    x.lag = alloc_n(x.nrows, sizeof *x.lag, &fail);
    x.scratch = alloc_n(nthreads * 2 * SETUP_ROW_BLOCK, sizeof *x.scratch, &fail);
    if (fail) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for %zu Lagrange values", x.nrows);
        goto out;
    }
    cuzk_pool_run(pool, (x.nrows + SETUP_ROW_BLOCK - 1) / SETUP_ROW_BLOCK, lagrange_task, &x);
    /* every thread on every matrix: a range of columns each (the three matrices alone are three tasks) */
    size_t nv = cs->n_inputs + cs->n_aux;
    x.parts = nthreads > 1 ? nthreads : 1;
    if (x.parts > 1 && nv / x.parts < SETUP_COL_MIN)
        x.parts = nv / SETUP_COL_MIN > 1 ? nv / SETUP_COL_MIN : 1;
    x.kind[0] = coef_kinds(&cs->a), x.kind[1] = coef_kinds(&cs->b), x.kind[2] = coef_kinds(&cs->c);
    cuzk_pool_run(pool, 3 * x.parts, column_task, &x);
    for (int i = 0; i < 3; i++)
        free(x.kind[i]);
out:
    free(x.lag);
    free(x.scratch);
    return rc;
}

int cuzk_groth16_qap_eval(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_fr *tau,
                          cuzk_pool *pool, char *err, size_t errlen)
{
    unsigned lg = 0;
    int rc;
    if (!u || !v || !w || !tau)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: missing output array or tau");
    if ((rc = cuzk_setup_check_cs(cs, err, errlen)) || (rc = cuzk_groth16_domain_lg(&lg, cs, err, errlen)))
        return rc;
    return qap_eval(u, v, w, cs, tau, lg, pool, err, errlen);
}

/* ---- fixed-base multiplication ------------------------------------------- */

/* n scalars and where their points go (an array of the group's affine type). */
typedef struct {
    const cuzk_fr *k;
    void *out;
    size_t n;
} fb_seg;

typedef struct {
    unsigned c;
    size_t ndig, nent;  /* windows, entries per window (2^(c-1)) */
    void *table;        /* ndig * nent affine points: (d + 1) 2^(c j) G at j * nent + d */
    void *bases;        /* ndig affine points 2^(c j) G */
    size_t build_tasks; /* per window */
    const fb_seg *seg;
    size_t nseg;
    size_t first[FB_MAX_SEG + 1]; /* first task of each segment */
    unsigned char *scratch;       /* per worker */
    size_t scratch_bytes;
} fb_ctx;

/* The window minimising ndigits(c) · (n + FB_TABLE_COST · 2^(c-1)) among those whose table row (one
 * window, 2^(c-1) points of point_size bytes) fits FB_ROW_BYTES. */
static unsigned fb_window(size_t n, size_t point_size)
{
    unsigned best = FB_MIN_C;
    double best_cost = 0;
    for (unsigned c = FB_MIN_C; c <= FB_MAX_C; c++) {
        if (c > FB_MIN_C && ((size_t)1 << (c - 1)) * point_size > FB_ROW_BYTES)
            break;
        double cost =
            (double)cuzk_msm_ndigits(c) * ((double)n + FB_TABLE_COST * (double)((size_t)1 << (c - 1)));
        if (c == FB_MIN_C || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

static size_t fb_build_block(const fb_ctx *x)
{
    return (x->nent + x->build_tasks - 1) / x->build_tasks;
}

/* Per-worker scratch: chunk digits, identity flags, operation list and two field arrays for the batch
 * inversion; or, while the table is built, a block of Jacobian points and a field array. */
static size_t fb_scratch_bytes(const fb_ctx *x, size_t fe_size, size_t jac_size)
{
    size_t chunk = FB_CHUNK * (x->ndig * sizeof(int32_t) + 1 + sizeof(uint32_t) + 2 * fe_size);
    size_t build = fb_build_block(x) * (jac_size + fe_size);
    size_t s = chunk > build ? chunk : build;
    return (s + 63) & ~(size_t)63;
}

/* Starts loading the table entry of digit d (entries of size bytes) into the cache. */
static inline void fb_prefetch(const void *row, int32_t d, size_t size)
{
    if (!d)
        return;
    const char *p = (const char *)row + (size_t)((d < 0 ? -d : d) - 1) * size;
    for (size_t off = 0; off < size; off += 64)
        __builtin_prefetch(p + off, 0, 3);
}

/*
 * FB_DEFINE(G, F, GEN) writes the group-specific half for group G over field F
 * with generator GEN:
 * table construction, one window step over a chunk, the chunk task and the
 * driver. Expanded once for G1 and once for G2.
 */
#define FB_DEFINE(G, F, GEN)                                                                                 \
    static void G##_fb_build_task(void *arg, size_t task, int worker)                                        \
    {                                                                                                        \
        fb_ctx *x = arg;                                                                                     \
        size_t j = task / x->build_tasks, per = fb_build_block(x);                                           \
        size_t lo = task % x->build_tasks * per, hi = lo + per < x->nent ? lo + per : x->nent;               \
        if (lo >= hi)                                                                                        \
            return;                                                                                          \
        const cuzk_##G##_affine *base = (const cuzk_##G##_affine *)x->bases + j;                             \
        cuzk_##G *jac = (cuzk_##G *)(x->scratch + (size_t)worker * x->scratch_bytes);                        \
        cuzk_##F *fs = (cuzk_##F *)(jac + per);                                                              \
        cuzk_##G b;                                                                                          \
        uint64_t k = lo + 1;                                                                                 \
        cuzk_##G##_from_affine(&b, base);                                                                    \
        cuzk_##G##_mul(&jac[0], &b, &k, 1);                                                                  \
        for (size_t i = 1; i < hi - lo; i++)                                                                 \
            cuzk_##G##_add_affine(&jac[i], &jac[i - 1], base);                                               \
        cuzk_##G##_batch_to_affine((cuzk_##G##_affine *)x->table + j * x->nent + lo, jac, hi - lo, fs);      \
    }                                                                                                        \
                                                                                                             \
    /* acc[i] += digit j of point i times the window's base, for the whole chunk with one inversion. */      \
    static void G##_fb_window(cuzk_##G##_affine *acc, uint8_t *inf, const int32_t *dig, size_t cnt,          \
                              size_t ndig, size_t j, const cuzk_##G##_affine *row, cuzk_##F *den,            \
                              cuzk_##F *scr, uint32_t *op)                                                   \
    {                                                                                                        \
        size_t nop = 0;                                                                                      \
        for (size_t i = 0; i < cnt; i++) {                                                                   \
            if (i + FB_PREFETCH < cnt)                                                                       \
                fb_prefetch(row, dig[(i + FB_PREFETCH) * ndig + j], sizeof *row);                            \
            int32_t d = dig[i * ndig + j];                                                                   \
            if (!d)                                                                                          \
                continue;                                                                                    \
            const cuzk_##G##_affine *q = &row[(d < 0 ? -d : d) - 1];                                         \
            cuzk_##F qy = q->y;                                                                              \
            if (d < 0)                                                                                       \
                cuzk_##F##_neg(&qy, &qy);                                                                    \
            if (inf[i]) {                                                                                    \
                acc[i].x = q->x;                                                                             \
                acc[i].y = qy;                                                                               \
                inf[i] = 0;                                                                                  \
            } else if (!cuzk_##F##_eq(&acc[i].x, &q->x)) {                                                   \
                cuzk_##F##_sub(&den[nop], &q->x, &acc[i].x);                                                 \
                op[nop++] = (uint32_t)i;                                                                     \
            } else if (cuzk_##F##_eq(&acc[i].y, &qy)) {                                                      \
                cuzk_##F##_dbl(&den[nop], &qy);                                                              \
                op[nop++] = (uint32_t)i | FB_DOUBLE;                                                         \
            } else {                                                                                         \
                inf[i] = 1;                                                                                  \
            }                                                                                                \
        }                                                                                                    \
        if (!nop)                                                                                            \
            return;                                                                                          \
        cuzk_##F##_batch_inv(den, den, nop, scr);                                                            \
        for (size_t t = 0; t < nop; t++) {                                                                   \
            size_t i = op[t] & ~FB_DOUBLE;                                                                   \
            int32_t d = dig[i * ndig + j];                                                                   \
            const cuzk_##G##_affine *q = &row[(d < 0 ? -d : d) - 1];                                         \
            cuzk_##F num, lam, x3, s;                                                                        \
            if (op[t] & FB_DOUBLE) {                                                                         \
                cuzk_##F##_sqr(&s, &acc[i].x);                                                               \
                cuzk_##F##_dbl(&num, &s);                                                                    \
                cuzk_##F##_add(&num, &num, &s);                                                              \
            } else if (d < 0) {                                                                              \
                cuzk_##F##_add(&num, &q->y, &acc[i].y);                                                      \
                cuzk_##F##_neg(&num, &num);                                                                  \
            } else {                                                                                         \
                cuzk_##F##_sub(&num, &q->y, &acc[i].y);                                                      \
            }                                                                                                \
            cuzk_##F##_mul(&lam, &num, &den[t]);                                                             \
            cuzk_##F##_sqr(&x3, &lam);                                                                       \
            cuzk_##F##_sub(&x3, &x3, &acc[i].x);                                                             \
            cuzk_##F##_sub(&x3, &x3, &q->x);                                                                 \
            cuzk_##F##_sub(&s, &acc[i].x, &x3);                                                              \
            cuzk_##F##_mul(&s, &s, &lam);                                                                    \
            cuzk_##F##_sub(&acc[i].y, &s, &acc[i].y);                                                        \
            acc[i].x = x3;                                                                                   \
        }                                                                                                    \
    }                                                                                                        \
                                                                                                             \
    static void G##_fb_task(void *arg, size_t task, int worker)                                              \
    {                                                                                                        \
        fb_ctx *x = arg;                                                                                     \
        size_t s = 0;                                                                                        \
        while (task >= x->first[s + 1])                                                                      \
            s++;                                                                                             \
        const fb_seg *sg = &x->seg[s];                                                                       \
        size_t lo = (task - x->first[s]) * FB_CHUNK;                                                         \
        size_t cnt = sg->n - lo < FB_CHUNK ? sg->n - lo : FB_CHUNK;                                          \
        unsigned char *w = x->scratch + (size_t)worker * x->scratch_bytes;                                   \
        cuzk_##F *den = (cuzk_##F *)w, *scr = den + FB_CHUNK;                                                \
        int32_t *dig = (int32_t *)(scr + FB_CHUNK);                                                          \
        uint32_t *op = (uint32_t *)(dig + FB_CHUNK * x->ndig);                                               \
        uint8_t *inf = (uint8_t *)(op + FB_CHUNK);                                                           \
        cuzk_##G##_affine *acc = (cuzk_##G##_affine *)sg->out + lo;                                          \
        for (size_t i = 0; i < cnt; i++) {                                                                   \
            uint64_t k[4];                                                                                   \
            cuzk_fr_to_canonical(k, &sg->k[lo + i]);                                                         \
            cuzk_msm_recode(dig + i * x->ndig, k, x->c);                                                     \
        }                                                                                                    \
        memset(inf, 1, cnt);                                                                                 \
        for (size_t j = 0; j < x->ndig; j++)                                                                 \
            G##_fb_window(acc, inf, dig, cnt, x->ndig, j, (const cuzk_##G##_affine *)x->table + j * x->nent, \
                          den, scr, op);                                                                     \
        for (size_t i = 0; i < cnt; i++)                                                                     \
            if (inf[i])                                                                                      \
                memset(&acc[i], 0, sizeof acc[i]);                                                           \
    }                                                                                                        \
                                                                                                             \
    static int G##_fb_run(const fb_seg *seg, size_t nseg, unsigned c, cuzk_pool *pool, char *err,            \
                          size_t errlen)                                                                     \
    {                                                                                                        \
        if (nseg > FB_MAX_SEG)                                                                               \
            return cuzk_fail(err, errlen, CUZK_EINVAL, "fixed-base: %zu segments", nseg);                    \
        fb_ctx x = {.seg = seg, .nseg = nseg};                                                               \
        size_t total = 0;                                                                                    \
        for (size_t s = 0; s < nseg; s++) {                                                                  \
            total += seg[s].n;                                                                               \
            x.first[s + 1] = x.first[s] + (seg[s].n + FB_CHUNK - 1) / FB_CHUNK;                              \
        }                                                                                                    \
        if (total == 0)                                                                                      \
            return CUZK_OK;                                                                                  \
        x.c = c ? c : fb_window(total, sizeof(cuzk_##G##_affine));                                           \
        x.ndig = cuzk_msm_ndigits(x.c);                                                                      \
        x.nent = (size_t)1 << (x.c - 1);                                                                     \
        x.build_tasks = (x.nent + FB_BUILD_BLOCK - 1) / FB_BUILD_BLOCK;                                      \
        x.scratch_bytes = fb_scratch_bytes(&x, sizeof(cuzk_##F), sizeof(cuzk_##G));                          \
        size_t nthreads = (size_t)cuzk_pool_size(pool);                                                      \
        bool fail = false;                                                                                   \
        x.table = alloc_n(x.ndig * x.nent, sizeof(cuzk_##G##_affine), &fail);                                \
        x.bases = alloc_n(x.ndig, sizeof(cuzk_##G##_affine), &fail);                                         \
        x.scratch = alloc_n(nthreads, x.scratch_bytes, &fail);                                               \
        int rc = CUZK_OK;                                                                                    \
        if (fail) {                                                                                          \
            rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for a %zu-point " #G " table",    \
                           x.ndig * x.nent);                                                                 \
            goto out;                                                                                        \
        }                                                                                                    \
        cuzk_##G b;                                                                                          \
        cuzk_##G##_from_affine(&b, &GEN);                                                                    \
        for (size_t j = 0; j < x.ndig; j++) {                                                                \
            cuzk_##G##_to_affine((cuzk_##G##_affine *)x.bases + j, &b);                                      \
            for (unsigned t = 0; t < x.c; t++)                                                               \
                cuzk_##G##_dbl(&b, &b);                                                                      \
        }                                                                                                    \
        cuzk_pool_run(pool, x.ndig *x.build_tasks, G##_fb_build_task, &x);                                   \
        cuzk_pool_run(pool, x.first[nseg], G##_fb_task, &x);                                                 \
    out:                                                                                                     \
        free(x.table);                                                                                       \
        free(x.bases);                                                                                       \
        free(x.scratch);                                                                                     \
        return rc;                                                                                           \
    }                                                                                                        \
                                                                                                             \
    int cuzk_##G##_fixed_base_mul(cuzk_##G##_affine *out, const cuzk_fr *k, size_t n, unsigned c,            \
                                  cuzk_pool *pool, char *err, size_t errlen)                                 \
    {                                                                                                        \
        if (c && (c < FB_MIN_C || c > FB_MAX_C))                                                             \
            return cuzk_fail(err, errlen, CUZK_EINVAL, "fixed-base: window %u outside %d..%d", c, FB_MIN_C,  \
                             FB_MAX_C);                                                                      \
        if (n && (!out || !k))                                                                               \
            return cuzk_fail(err, errlen, CUZK_EINVAL, "fixed-base: missing scalars or output");             \
        fb_seg seg = {k, out, n};                                                                            \
        return G##_fb_run(&seg, 1, c, pool, err, errlen);                                                    \
    }

FB_DEFINE(g1, fp, CUZK_G1_GENERATOR)
FB_DEFINE(g2, fp2, CUZK_G2_GENERATOR)

/* ---- toxic waste ---------------------------------------------------------- */

static int check_toxic(const cuzk_groth16_toxic *tw, size_t m, char *err, size_t errlen)
{
    const cuzk_fr *v[5] = {&tw->tau, &tw->alpha, &tw->beta, &tw->gamma, &tw->delta};
    static const char *const names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 5; i++)
        if (cuzk_fr_is_zero(v[i]))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: toxic waste %s is zero", names[i]);
    if (in_domain(&tw->tau, m))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: tau lies in the evaluation domain (tau^%zu = 1)",
                         m);
    return CUZK_OK;
}

int cuzk_groth16_toxic_random(cuzk_groth16_toxic *tw, size_t m, char *err, size_t errlen)
{
    if (!tw)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: no toxic waste struct");
    cuzk_fr *v[5] = {&tw->tau, &tw->alpha, &tw->beta, &tw->gamma, &tw->delta};
    for (int i = 0; i < 5; i++)
        do {
            if (cuzk_fr_random(v[i]))
                return cuzk_fail(err, errlen, CUZK_EIO, "setup: getrandom failed");
        } while (cuzk_fr_is_zero(v[i]) || (i == 0 && in_domain(&tw->tau, m)));
    return CUZK_OK;
}

/* ---- setup ---------------------------------------------------------------- */

typedef struct {
    cuzk_fr *hs;
    size_t n;
    cuzk_fr tau, scale; /* scale = (tau^m - 1) / delta; coset form: see h_coset_task */
    cuzk_fr g, omega;   /* coset form: the shift and the m-th root of unity */
    cuzk_fr *scratch;   /* coset form: SETUP_H_BLOCK per worker */
} h_ctx;

static void h_task(void *arg, size_t task, int worker)
{
    h_ctx *x = arg;
    size_t lo = task * SETUP_H_BLOCK, hi = lo + SETUP_H_BLOCK < x->n ? lo + SETUP_H_BLOCK : x->n;
    cuzk_fr p;
    uint64_t e = lo;
    cuzk_fr_pow(&p, &x->tau, &e, 1);
    cuzk_fr_mul(&p, &p, &x->scale);
    for (size_t i = lo; i < hi; i++) {
        x->hs[i] = p;
        cuzk_fr_mul(&p, &p, &x->tau);
    }
}

/* The coset form's h: h_j = x_j / (tau - x_j) · scale for the coset points x_j = g w^j, where
 * scale = (tau^m - g^m)/(m g^m) · Z(tau) k / delta, since l_j(tau) = (tau^m - g^m)/(m g^m) · x_j/(tau - x_j)
 * (the coset's vanishing polynomial is X^m - g^m; its derivative at x_j is m g^m / x_j). One batch
 * inversion a block. */
static void h_coset_task(void *arg, size_t task, int worker)
{
    h_ctx *x = arg;
    size_t lo = task * SETUP_H_BLOCK, hi = lo + SETUP_H_BLOCK < x->n ? lo + SETUP_H_BLOCK : x->n;
    cuzk_fr *xs = x->scratch + (size_t)worker * 2 * SETUP_H_BLOCK, *scr = xs + SETUP_H_BLOCK;
    cuzk_fr *den = x->hs + lo;
    cuzk_fr xj;
    uint64_t e = lo;
    cuzk_fr_pow(&xj, &x->omega, &e, 1);
    cuzk_fr_mul(&xj, &xj, &x->g);
    for (size_t j = 0; j < hi - lo; j++) {
        xs[j] = xj;
        cuzk_fr_sub(&den[j], &x->tau, &xj);
        cuzk_fr_mul(&xj, &xj, &x->omega);
    }
    cuzk_fr_batch_inv(den, den, hi - lo, scr);
    for (size_t j = 0; j < hi - lo; j++) {
        cuzk_fr_mul(&den[j], &den[j], &xs[j]);
        cuzk_fr_mul(&den[j], &den[j], &x->scale);
    }
}

typedef struct {
    cuzk_fr *u, *v, *w;
    size_t nin, nv;
    const uint64_t *a_aux, *b_in, *b_aux;
    cuzk_fr alpha, beta, gamma_inv, delta_inv;
    bool coset;   /* the coset form: fold the C share of the quotient into l, and into hic for the inputs */
    cuzk_fr fold; /* -Z(tau) k, k = 1/(g^m - 1) */
    cuzk_fr *hic; /* the coset form's l scalars of the inputs (nin) */
    _Atomic uint64_t first_bad; /* the lowest variable that fails (query_fails), UINT64_MAX: none */
} query_ctx;

static bool in_a_query(const query_ctx *x, size_t i)
{
    return i < x->nin || bit_get(x->a_aux, i - x->nin);
}

static bool in_b_query(const query_ctx *x, size_t i)
{
    return i < x->nin ? bit_get(x->b_in, i) : bit_get(x->b_aux, i - x->nin);
}

/* Whether variable i fails: its A or B polynomial vanishes at tau while it is in that query, or its ic / l
 * point would be the identity. Else w[i] becomes its ic / l scalar. */
static bool query_fails(query_ctx *x, size_t i)
{
    if ((in_a_query(x, i) && cuzk_fr_is_zero(&x->u[i])) || (in_b_query(x, i) && cuzk_fr_is_zero(&x->v[i])))
        return true;
    cuzk_fr t;
    if (x->coset) { /* w_i Z(tau) k leaves the H sum: -(it)/delta to the inputs' l, into l for the aux */
        cuzk_fr_mul(&t, &x->w[i], &x->fold);
        if (i < x->nin)
            cuzk_fr_mul(&x->hic[i], &t, &x->delta_inv);
        else
            cuzk_fr_add(&x->w[i], &x->w[i], &t);
    }
    cuzk_fr_mul(&t, &x->beta, &x->u[i]);
    cuzk_fr_add(&x->w[i], &x->w[i], &t);
    cuzk_fr_mul(&t, &x->alpha, &x->v[i]);
    cuzk_fr_add(&x->w[i], &x->w[i], &t);
    if (cuzk_fr_is_zero(&x->w[i]))
        return true;
    cuzk_fr_mul(&x->w[i], &x->w[i], i < x->nin ? &x->gamma_inv : &x->delta_inv);
    return false;
}

static void query_task(void *arg, size_t task, int worker)
{
    (void)worker;
    query_ctx *x = arg;
    size_t lo = task * SETUP_VAR_BLOCK, hi = lo + SETUP_VAR_BLOCK < x->nv ? lo + SETUP_VAR_BLOCK : x->nv;
    for (size_t i = lo; i < hi; i++)
        if (query_fails(x, i)) {
            uint64_t seen = atomic_load(&x->first_bad);
            while (i < seen && !atomic_compare_exchange_weak(&x->first_bad, &seen, i))
                ;
            return;
        }
}

/* The query scalars from u, v, w (overwritten), in parallel blocks of variables: w becomes the ic and l
 * scalars (fold given: the coset form's l, its inputs' part into hic), then u and v are compacted to the
 * A and B queries (in place, in order: one pass). Fails, naming the lowest such variable, when a point
 * that must be stored would be the identity. */
static int query_scalars(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                         const uint64_t *a_aux, const uint64_t *b_in, const uint64_t *b_aux,
                         const cuzk_fr *fold, cuzk_fr *hic, size_t *n_a, size_t *n_b, cuzk_pool *pool,
                         char *err, size_t errlen)
{
    query_ctx x = {.u = u,
                   .v = v,
                   .w = w,
                   .nin = cs->n_inputs,
                   .nv = cs->n_inputs + cs->n_aux,
                   .a_aux = a_aux,
                   .b_in = b_in,
                   .b_aux = b_aux,
                   .alpha = tw->alpha,
                   .beta = tw->beta,
                   .coset = fold != NULL,
                   .hic = hic};
    if (fold)
        x.fold = *fold;
    cuzk_fr_inv(&x.gamma_inv, &tw->gamma);
    cuzk_fr_inv(&x.delta_inv, &tw->delta);
    atomic_init(&x.first_bad, UINT64_MAX);
    cuzk_pool_run(pool, (x.nv + SETUP_VAR_BLOCK - 1) / SETUP_VAR_BLOCK, query_task, &x);
    uint64_t bad = atomic_load(&x.first_bad);
    if (bad != UINT64_MAX) {
        size_t i = (size_t)bad;
        /* its block stopped at it, before changing w[i] only if the A and B checks passed */
        bool a_zero = in_a_query(&x, i) && cuzk_fr_is_zero(&u[i]);
        bool b_zero = in_b_query(&x, i) && cuzk_fr_is_zero(&v[i]);
        if (a_zero || b_zero)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "setup: variable %zu is in the %s query but its polynomial vanishes at tau", i,
                             a_zero ? "A" : "B");
        if (i < x.nin)
            return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: input %zu would have an identity ic point", i);
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "setup: aux variable %zu (variable %zu) is unconstrained: its l point would be the "
                         "identity, which .params cannot hold",
                         i - x.nin, i);
    }
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < x.nv; i++) {
        if (in_a_query(&x, i))
            u[ka++] = u[i];
        if (in_b_query(&x, i))
            v[kb++] = v[i];
    }
    *n_a = ka;
    *n_b = kb;
    return CUZK_OK;
}

static void vk_points(cuzk_groth16_vk *vk, const cuzk_groth16_toxic *tw)
{
    cuzk_g1 g1, p1;
    cuzk_g2 g2, p2;
    cuzk_g1_from_affine(&g1, &CUZK_G1_GENERATOR);
    cuzk_g2_from_affine(&g2, &CUZK_G2_GENERATOR);
    cuzk_g1_mul_fr(&p1, &g1, &tw->alpha);
    cuzk_g1_to_affine(&vk->alpha_g1, &p1);
    cuzk_g1_mul_fr(&p1, &g1, &tw->beta);
    cuzk_g1_to_affine(&vk->beta_g1, &p1);
    cuzk_g1_mul_fr(&p1, &g1, &tw->delta);
    cuzk_g1_to_affine(&vk->delta_g1, &p1);
    cuzk_g2_mul_fr(&p2, &g2, &tw->beta);
    cuzk_g2_to_affine(&vk->beta_g2, &p2);
    cuzk_g2_mul_fr(&p2, &g2, &tw->gamma);
    cuzk_g2_to_affine(&vk->gamma_g2, &p2);
    cuzk_g2_mul_fr(&p2, &g2, &tw->delta);
    cuzk_g2_to_affine(&vk->delta_g2, &p2);
}

/* The key's fixed-base multiplications: on the CPU pool, or segment by segment on an accelerator. */
static int fixed_base_all(const fb_seg *g1seg, size_t n1, const fb_seg *g2seg, size_t n2,
                          const cuzk_setup_accel *accel, cuzk_pool *pool, char *err, size_t errlen)
{
    int rc = CUZK_OK;
    if (!accel) {
        rc = g1_fb_run(g1seg, n1, 0, pool, err, errlen);
        return rc ? rc : g2_fb_run(g2seg, n2, 0, pool, err, errlen);
    }
    for (size_t s = 0; s < n1 && rc == CUZK_OK; s++)
        if (g1seg[s].n)
            rc = accel->g1_fixed_base(accel->ctx, g1seg[s].out, g1seg[s].k, g1seg[s].n, pool, err, errlen);
    for (size_t s = 0; s < n2 && rc == CUZK_OK; s++)
        if (g2seg[s].n)
            rc = accel->g2_fixed_base(accel->ctx, g2seg[s].out, g2seg[s].k, g2seg[s].n, pool, err, errlen);
    return rc;
}

int cuzk_groth16_setup(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                       cuzk_pool *pool, char *err, size_t errlen)
{
    return cuzk_groth16_setup_accel(out, cs, tw, NULL, pool, err, errlen);
}

int cuzk_groth16_setup_accel(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                             const cuzk_setup_accel *accel, cuzk_pool *pool, char *err, size_t errlen)
{
    cuzk_groth16_setup_opts o = {.accel = accel};
    return cuzk_groth16_setup_ex(out, cs, tw, &o, pool, err, errlen);
}

/* The H scalars: tau^i Z(tau)/delta (i < m - 1), or in the coset form l_j(tau) Z(tau) k/delta (j < m) and
 * *fold = -Z(tau) k for the query scalars. */
static int h_scalars(cuzk_fr *hs, cuzk_fr *fold, const cuzk_groth16_toxic *tw, unsigned lg, bool coset,
                     cuzk_pool *pool, char *err, size_t errlen)
{
    size_t m = (size_t)1 << lg;
    h_ctx hx = {.hs = hs, .n = coset ? m : m - 1, .tau = tw->tau};
    cuzk_fr zt, delta_inv;
    uint64_t e = m;
    cuzk_fr_pow(&zt, &tw->tau, &e, 1);
    cuzk_fr_sub(&hx.scale, &zt, &CUZK_FR_ONE); /* Z(tau) */
    cuzk_fr_inv(&delta_inv, &tw->delta);
    cuzk_fr_mul(&hx.scale, &hx.scale, &delta_inv);
    if (!coset) {
        cuzk_pool_run(pool, (hx.n + SETUP_H_BLOCK - 1) / SETUP_H_BLOCK, h_task, &hx);
        return CUZK_OK;
    }
    cuzk_ntt_domain d;
    int rc = cuzk_ntt_domain_init(&d, lg, CUZK_NTT_BELLPERSON, err, errlen);
    if (rc)
        return rc;
    cuzk_fr gm, t;
    cuzk_fr_pow(&gm, &d.g, &e, 1);
    cuzk_fr_sub(&t, &zt, &gm); /* tau^m - g^m */
    if (cuzk_fr_is_zero(&t)) {
        cuzk_ntt_domain_release(&d);
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: tau lies on the coset (tau^%zu = 7^%zu)", m, m);
    }
    cuzk_fr_mul(&hx.scale, &hx.scale, &d.z_inv); /* Z(tau) k / delta */
    cuzk_fr_sub(fold, &zt, &CUZK_FR_ONE);
    cuzk_fr_mul(fold, fold, &d.z_inv);
    cuzk_fr_neg(fold, fold); /* -Z(tau) k */
    cuzk_fr mg;
    cuzk_fr_from_u64(&mg, m);
    cuzk_fr_mul(&mg, &mg, &gm);
    cuzk_fr_inv(&mg, &mg);
    cuzk_fr_mul(&t, &t, &mg); /* (tau^m - g^m)/(m g^m) */
    cuzk_fr_mul(&hx.scale, &hx.scale, &t);
    hx.g = d.g, hx.omega = d.omega;
    cuzk_ntt_domain_release(&d);
    bool fail = false;
    hx.scratch = alloc_n((size_t)cuzk_pool_size(pool) * 2 * SETUP_H_BLOCK, sizeof *hx.scratch, &fail);
    if (fail)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for the coset's inversions");
    cuzk_pool_run(pool, (hx.n + SETUP_H_BLOCK - 1) / SETUP_H_BLOCK, h_coset_task, &hx);
    free(hx.scratch);
    return CUZK_OK;
}

int cuzk_groth16_setup_ex(cuzk_groth16_params *out, const cuzk_cs *cs, const cuzk_groth16_toxic *tw,
                          const cuzk_groth16_setup_opts *opts, cuzk_pool *pool, char *err, size_t errlen)
{
    if (!out)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "setup: no output");
    memset(out, 0, sizeof *out);
    static const cuzk_groth16_setup_opts none = {0};
    if (!opts)
        opts = &none;
    const cuzk_setup_accel *accel = opts->accel;
    bool coset = opts->h_coset;
    unsigned lg = 0;
    int rc;
    if ((rc = cuzk_setup_check_cs(cs, err, errlen)) || (rc = cuzk_groth16_domain_lg(&lg, cs, err, errlen)))
        return rc;
    size_t m = (size_t)1 << lg, nin = cs->n_inputs, naux = cs->n_aux, nv = nin + naux, nh = coset ? m : m - 1;

    cuzk_groth16_toxic fresh;
    if (!tw) {
        if ((rc = cuzk_groth16_toxic_random(&fresh, m, err, errlen)))
            return rc;
        tw = &fresh;
    } else if ((rc = check_toxic(tw, m, err, errlen))) {
        return rc;
    }

    bool fail = false;
    cuzk_fr *u = alloc_n(nv, sizeof *u, &fail), *v = alloc_n(nv, sizeof *v, &fail);
    cuzk_fr *w = alloc_n(nv, sizeof *w, &fail), *hs = alloc_n(nh, sizeof *hs, &fail);
    cuzk_fr *hic = coset ? alloc_n(nin, sizeof *hic, &fail) : NULL;
    uint64_t *a_aux = alloc_n(naux / 64 + 1, sizeof *a_aux, &fail);
    uint64_t *b_aux = alloc_n(naux / 64 + 1, sizeof *b_aux, &fail);
    uint64_t *b_in = alloc_n(nin / 64 + 1, sizeof *b_in, &fail);
    if (fail) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for %zu variables", nv);
        goto out;
    }
    cuzk_fr fold;
    if ((rc = h_scalars(hs, &fold, tw, lg, coset, pool, err, errlen)) ||
        (rc = qap_eval(u, v, w, cs, &tw->tau, lg, pool, err, errlen)))
        goto out;
    if (cuzk_cs_density_pool(cs, a_aux, b_in, b_aux, pool)) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for the density scan");
        goto out;
    }
    size_t n_a = 0, n_b = 0;
    if ((rc = query_scalars(u, v, w, cs, tw, a_aux, b_in, b_aux, coset ? &fold : NULL, hic, &n_a, &n_b, pool,
                            err, errlen)))
        goto out;

    out->vk.n_ic = nin;
    out->n_h = nh;
    out->n_l = coset ? nv : naux;
    out->n_a = n_a;
    out->n_b = n_b;
    out->h_coset = coset;
    out->vk.ic = alloc_n(nin, sizeof *out->vk.ic, &fail);
    out->h = alloc_n(nh, sizeof *out->h, &fail);
    out->l = alloc_n(out->n_l, sizeof *out->l, &fail);
    out->a = alloc_n(n_a, sizeof *out->a, &fail);
    out->b_g1 = alloc_n(n_b, sizeof *out->b_g1, &fail);
    out->b_g2 = alloc_n(n_b, sizeof *out->b_g2, &fail);
    if (fail) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "setup: out of memory for the proving key");
        goto out;
    }
    vk_points(&out->vk, tw);
    cuzk_g1_affine *l_aux = out->l ? out->l + (out->n_l - naux) : NULL;
    const fb_seg g1seg[] = {
        {w, out->vk.ic, nin}, {w + nin, l_aux, naux}, {u, out->a, n_a},
        {v, out->b_g1, n_b},  {hs, out->h, nh},       {hic, out->l, coset ? nin : 0},
    };
    const fb_seg g2seg[] = {{v, out->b_g2, n_b}};
    rc = fixed_base_all(g1seg, sizeof g1seg / sizeof g1seg[0], g2seg, 1, accel, pool, err, errlen);
out:
    free(u);
    free(v);
    free(w);
    free(hs);
    free(hic);
    free(a_aux);
    free(b_aux);
    free(b_in);
    if (rc)
        cuzk_groth16_params_free(out);
    return rc;
}
