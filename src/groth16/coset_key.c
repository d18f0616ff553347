/*
 * coset_key.c — a proving key in bellperson's layout (what .params files hold, what a ceremony
 * produced) taken to the coset form of cuzk/groth16.h without the toxic waste (cuzk/setup.h,
 * docs/design/022).
 *
 * The key gives h_t = [tau^t Z(tau) / delta] for t < m - 1 and nothing of degree m - 1. Every
 * point the coset form needs is [p(tau) Z(tau) / delta] for some polynomial p of degree < m, so
 * it is a combination of the h_t and of one point X = [tau^(m-1) Z(tau) / delta] the key lacks.
 * Write E(p) for that combination with X replaced by the identity. For a witness that satisfies
 * the circuit the prover's two sums meet in k(R - c), where R interpolates A·B on the coset and
 * c = sum z_i w_i; R - c = h / k has degree <= m - 2, so its X coefficient is zero and E gives
 * the same point as the true key: converted keys prove the same proofs, byte for byte, while
 * their individual points differ from cuzk_groth16_setup_ex's by multiples of X (the test
 * checks both). With l_j(x) = (1/m) sum_t (x / (g w^j))^t the coset's Lagrange basis and
 * L_r(x) = (1/m) sum_t (x / w^r)^t the domain's:
 *   h'_j = k E(l_j)  = sum_{t < m-1} w^(-jt) · (k/m) g^(-t) h_t   a transform of the scaled h
 *   Q_r  = k E(L_r)  = sum_{t < m-1} w^(-rt) · (k/m) h_t          another one
 *   l'_i = l_i - sum_r C[r][i] Q_r (aux),  -sum_r C[r][i] Q_r (inputs)
 * The transforms are radix-2 decimation in frequency over G1 (each butterfly an addition, a
 * subtraction and, but at twiddle 1, one variable-base multiplication), then a bit reversal;
 * the column sums read C transposed (one pass to count, one to fill), so each variable's sum is
 * one task's and exact. A coefficient of +-1 is a mixed addition, any other a multiplication; a column
 * of more than opts->heavy_terms terms (default 1024: the constant's, say) is summed by the whole pool
 * instead, its +-1 terms as batch-affine sums and the rest as an MSM.
 *
 * An accelerator's transforms (cuzk_coset_accel) are checked on the CPU before they are used: a random
 * combination of the outputs against the same combination carried to the inputs (check_begin, check_end:
 * two MSMs of m points), so a wrong point anywhere fails the conversion instead of the key's proofs. Q's
 * transform runs first; h''s then runs on a thread of its own (with a pool of its own for its host side)
 * while the caller's pool checks Q, takes the inputs' side of h's check and sums C's columns, which need
 * only Q.
 *
 * Cost: m log2 m multiplications by full-size scalars and nnz(C) additions. On
 * the CPU that is seconds at 2^16 and hours at 2^27 (note 022 measures it); the work sits on the
 * pool, in blocks, one step at a time, with progress between steps.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/mont.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/setup.h"
#include "cuzk/timeline.h"
#include "groth16/prove_common.h"
#include "groth16/setup_internal.h"

#define CK_BFLY_BLOCK 64  /* butterflies per transform task */
#define CK_PT_BLOCK 4096  /* points per scaling, reversal or affine task */
#define CK_VAR_BLOCK 1024 /* variables per column-sum task */
#define CK_HEAVY 1024     /* default of opts->heavy_terms: a longer column is summed by the whole pool */
#define CK_HEAVY_CHUNK ((size_t)1 << 20) /* a heavy column's terms gathered at a time (CUZK_COSET_CHUNK) */

typedef struct {
    cuzk_setup_progress_fn fn;
    void *ctx;
    uint64_t done, total;
} ck_progress;

static void progress_add(ck_progress *p, uint64_t units)
{
    p->done += units;
    if (p->fn)
        p->fn(p->ctx, p->done < p->total ? p->done : p->total, p->total);
}

static size_t block_end(size_t lo, size_t block, size_t n)
{
    return lo + block < n ? lo + block : n;
}

/* ---- the transform over G1 --------------------------------------------------------------- */

typedef struct {
    cuzk_g1 *x;
    size_t n;
    const cuzk_g1_affine *src; /* scaling: the n - 1 key points */
    cuzk_fr c, step;           /* scaling: x_t = c step^t src_t, x_(n-1) = identity */
    const cuzk_fr *tw;         /* tw[e] = root^e, e < n / 2 */
    size_t half;               /* the stage's half-size */
    unsigned lg;
    cuzk_g1_affine *out; /* affine conversion */
    cuzk_fp *scratch;    /* affine conversion: CK_PT_BLOCK a worker */
} g1_tf;

static void scale_task(void *arg, size_t task, int worker)
{
    (void)worker;
    g1_tf *x = arg;
    size_t lo = task * CK_PT_BLOCK, hi = block_end(lo, CK_PT_BLOCK, x->n);
    uint64_t e = lo;
    cuzk_fr s;
    cuzk_fr_pow(&s, &x->step, &e, 1);
    cuzk_fr_mul(&s, &s, &x->c);
    for (size_t t = lo; t < hi; t++) {
        if (t == x->n - 1) {
            cuzk_g1_set_identity(&x->x[t]);
            continue;
        }
        cuzk_g1 p;
        cuzk_g1_from_affine(&p, &x->src[t]);
        cuzk_g1_mul_fr(&x->x[t], &p, &s);
        cuzk_fr_mul(&s, &s, &x->step);
    }
}

/* out[i] = base^i for i < n, by blocks (the transform's twiddles, the check's rho^j). */
typedef struct {
    cuzk_fr *out;
    size_t n;
    cuzk_fr base;
} powers_ctx;

static void powers_task(void *arg, size_t task, int worker)
{
    (void)worker;
    powers_ctx *x = arg;
    size_t lo = task * CK_PT_BLOCK, hi = block_end(lo, CK_PT_BLOCK, x->n);
    uint64_t e = lo;
    cuzk_fr w;
    cuzk_fr_pow(&w, &x->base, &e, 1);
    for (size_t i = lo; i < hi; i++) {
        x->out[i] = w;
        cuzk_fr_mul(&w, &w, &x->base);
    }
}

static void powers_fill(cuzk_fr *out, size_t n, const cuzk_fr *base, cuzk_pool *pool)
{
    powers_ctx x = {out, n, *base};
    cuzk_pool_run(pool, (n + CK_PT_BLOCK - 1) / CK_PT_BLOCK, powers_task, &x);
}

/* One decimation-in-frequency stage: (a, b) -> (a + b, (a - b) root^(u n / 2H)) for the pair at offset u
 * of each block of 2H. */
static void stage_task(void *arg, size_t task, int worker)
{
    (void)worker;
    g1_tf *x = arg;
    size_t lo = task * CK_BFLY_BLOCK, hi = block_end(lo, CK_BFLY_BLOCK, x->n / 2);
    size_t H = x->half, stride = x->n / (2 * H);
    for (size_t q = lo; q < hi; q++) {
        size_t u = q % H, i = (q / H) * 2 * H + u, j = i + H;
        cuzk_g1 a = x->x[i], b = x->x[j], nb, d;
        cuzk_g1_add(&x->x[i], &a, &b);
        cuzk_g1_neg(&nb, &b);
        cuzk_g1_add(&d, &a, &nb);
        if (u)
            cuzk_g1_mul_fr(&x->x[j], &d, &x->tw[u * stride]);
        else
            x->x[j] = d;
    }
}

static size_t rev_bits(size_t i, unsigned lg)
{
    size_t r = 0;
    for (unsigned b = 0; b < lg; b++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* Swaps the pairs (i, rev i) with i < rev i: disjoint, so the blocks run in parallel. */
static void reverse_task(void *arg, size_t task, int worker)
{
    (void)worker;
    g1_tf *x = arg;
    size_t lo = task * CK_PT_BLOCK, hi = block_end(lo, CK_PT_BLOCK, x->n);
    for (size_t i = lo; i < hi; i++) {
        size_t r = rev_bits(i, x->lg);
        if (i < r) {
            cuzk_g1 t = x->x[i];
            x->x[i] = x->x[r];
            x->x[r] = t;
        }
    }
}

static void affine_task(void *arg, size_t task, int worker)
{
    g1_tf *x = arg;
    size_t lo = task * CK_PT_BLOCK, hi = block_end(lo, CK_PT_BLOCK, x->n);
    cuzk_g1_batch_to_affine(x->out + lo, x->x + lo, hi - lo, x->scratch + (size_t)worker * CK_PT_BLOCK);
}

/* out_j = sum_{t < n-1} root^(jt) c step^t src_t for j < n (affine), through x (n Jacobian points). */
static void g1_transform(cuzk_g1_affine *out, const cuzk_g1_affine *src, const cuzk_fr *c,
                         const cuzk_fr *step, g1_tf *x, ck_progress *pr, cuzk_pool *pool)
{
    size_t n = x->n, pts = (n + CK_PT_BLOCK - 1) / CK_PT_BLOCK;
    x->src = src, x->c = *c, x->step = *step;
    cuzk_pool_run(pool, pts, scale_task, x);
    progress_add(pr, n - 1);
    for (x->half = n / 2; x->half >= 1; x->half /= 2) {
        cuzk_pool_run(pool, (n / 2 + CK_BFLY_BLOCK - 1) / CK_BFLY_BLOCK, stage_task, x);
        progress_add(pr, n / 2 - n / (2 * x->half));
    }
    cuzk_pool_run(pool, pts, reverse_task, x);
    x->out = out;
    cuzk_pool_run(pool, pts, affine_task, x);
}

/* The multiplications of one transform (the progress units): n - 1 scalings and, over the stages, the
 * (n/2) lg - (n - 1) butterflies whose twiddle is not 1: (n/2) lg in all. */
static uint64_t transform_units(size_t n, unsigned lg)
{
    return (uint64_t)(n / 2) * lg;
}

/* ---- checking an accelerator's transform ---------------------------------------------------- */

typedef struct {
    cuzk_fr *k;
    size_t n;
    cuzk_fr rho, root, c, step, num; /* num = c (rho^n - 1) */
    cuzk_fr *scratch;                /* CK_PT_BLOCK a worker */
} check_ctx;

/* k[t] = c step^t (rho^n - 1) / (rho root^t - 1): the inputs' side of the check */
static void check_task(void *arg, size_t task, int worker)
{
    check_ctx *x = arg;
    size_t lo = task * CK_PT_BLOCK, hi = block_end(lo, CK_PT_BLOCK, x->n);
    uint64_t e = lo;
    cuzk_fr a, b;
    cuzk_fr_pow(&a, &x->root, &e, 1); /* root^t */
    cuzk_fr_pow(&b, &x->step, &e, 1); /* step^t */
    cuzk_fr one = CUZK_FR_ONE, *den = x->k + lo;
    for (size_t t = lo; t < hi; t++) {
        cuzk_fr_mul(&den[t - lo], &x->rho, &a);
        cuzk_fr_sub(&den[t - lo], &den[t - lo], &one);
        cuzk_fr_mul(&a, &a, &x->root);
    }
    cuzk_fr_batch_inv(den, den, hi - lo, x->scratch + (size_t)worker * CK_PT_BLOCK);
    for (size_t t = lo; t < hi; t++) {
        cuzk_fr_mul(&den[t - lo], &den[t - lo], &b);
        cuzk_fr_mul(&den[t - lo], &den[t - lo], &x->num);
        cuzk_fr_mul(&b, &b, &x->step);
    }
}

/* Whether out is the transform of src (g1_transform's contract) for a random combination: with
 * rho random, sum_j rho^j out_j = sum_{t < n-1} c step^t src_t sum_j (rho root^t)^j, and the inner sum is
 * (rho^n - 1)/(rho root^t - 1) (root^n = 1). Two MSMs of n points; any wrong set of outputs passes with
 * probability at most n / r. The inputs' side needs only src, so it can be taken before out exists
 * (check_begin, then check_end with out). */
typedef struct {
    cuzk_fr rho;
    cuzk_g1 rhs; /* the inputs' side */
    size_t n;
    const char *what;
} transform_check;

static int check_begin(transform_check *ck, const cuzk_g1_affine *src, size_t n, const cuzk_fr *c,
                       const cuzk_fr *step, const cuzk_fr *root, const char *what, cuzk_pool *pool, char *err,
                       size_t errlen)
{
    check_ctx x = {.n = n, .root = *root, .c = *c, .step = *step};
    ck->n = n, ck->what = what;
    x.k = malloc(n * sizeof *x.k);
    x.scratch = malloc((size_t)cuzk_pool_size(pool) * CK_PT_BLOCK * sizeof *x.scratch);
    if (!x.k || !x.scratch) {
        free(x.k), free(x.scratch);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "coset key: out of memory for the transform's check");
    }
    cuzk_fr one = CUZK_FR_ONE, t;
    uint64_t e = n;
    int rc = CUZK_OK;
    do { /* rho^n = 1 would make every inner sum n or 0/0: draw again */
        if (cuzk_fr_random(&x.rho)) {
            rc = cuzk_fail(err, errlen, CUZK_EIO, "coset key: getrandom failed");
            goto out;
        }
        cuzk_fr_pow(&t, &x.rho, &e, 1);
    } while (cuzk_fr_is_one(&t) || cuzk_fr_is_zero(&x.rho));
    ck->rho = x.rho;
    cuzk_fr_sub(&x.num, &t, &one);
    cuzk_fr_mul(&x.num, &x.num, &x.c);
    cuzk_pool_run(pool, (n + CK_PT_BLOCK - 1) / CK_PT_BLOCK, check_task, &x);
    if ((rc = cuzk_g1_msm(&ck->rhs, src, x.k, n - 1, pool)))
        rc = cuzk_fail(err, errlen, rc, "coset key: the transform's check: MSM of %zu points failed", n);
out:
    free(x.k);
    free(x.scratch);
    return rc;
}

static int check_end(const transform_check *ck, const cuzk_g1_affine *out, cuzk_pool *pool, char *err,
                     size_t errlen)
{
    size_t n = ck->n;
    cuzk_fr *k = malloc(n * sizeof *k);
    if (!k)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "coset key: out of memory for the transform's check");
    cuzk_g1 lhs;
    powers_fill(k, n, &ck->rho, pool);
    int rc = cuzk_g1_msm(&lhs, out, k, n, pool);
    free(k);
    if (rc)
        return cuzk_fail(err, errlen, rc, "coset key: the transform's check: MSM of %zu points failed", n);
    if (!cuzk_g1_eq(&lhs, &ck->rhs))
        return cuzk_fail(err, errlen, CUZK_EIO,
                         "coset key: the accelerator's transform of %s fails its check (a random "
                         "combination of its %zu points); the key is left as it was",
                         ck->what, n);
    return CUZK_OK;
}

/* ---- the column sums of C ---------------------------------------------------------------- */

typedef struct {
    const cuzk_cs *cs;
    const uint64_t *colptr; /* nv + 1 */
    const uint32_t *rows;   /* C's terms by column: their rows ... */
    const uint64_t *terms;  /* ... and their term indices (for the coefficient) */
    const cuzk_g1_affine *q, *l_old;
    cuzk_g1_affine *l_new;
    cuzk_fr minus_one;
    uint64_t heavy;   /* columns of more terms are heavy_column's */
    cuzk_g1 *jac;     /* CK_VAR_BLOCK a worker */
    cuzk_fp *scratch; /* CK_VAR_BLOCK a worker */
    size_t nv, nin;
} col_ctx;

static void column_task(void *arg, size_t task, int worker)
{
    col_ctx *x = arg;
    size_t lo = task * CK_VAR_BLOCK, hi = block_end(lo, CK_VAR_BLOCK, x->nv);
    cuzk_g1 *jac = x->jac + (size_t)worker * CK_VAR_BLOCK;
    for (size_t i = lo; i < hi; i++) {
        cuzk_g1 s, t, u;
        cuzk_g1_set_identity(&s);
        if (x->colptr[i + 1] - x->colptr[i] > x->heavy) { /* heavy_column's, later: l_old or the identity */
            if (i >= x->nin)
                cuzk_g1_from_affine(&jac[i - lo], &x->l_old[i - x->nin]);
            else
                jac[i - lo] = s;
            continue;
        }
        for (uint64_t k = x->colptr[i]; k < x->colptr[i + 1]; k++) {
            const cuzk_fr *coef = cuzk_csr_coef(&x->cs->c, x->terms[k]);
            const cuzk_g1_affine *p = &x->q[x->rows[k]];
            if (cuzk_fr_is_one(coef)) {
                cuzk_g1_add_affine(&t, &s, p);
            } else if (cuzk_fr_eq(coef, &x->minus_one)) {
                cuzk_g1_affine np;
                cuzk_g1_affine_neg(&np, p);
                cuzk_g1_add_affine(&t, &s, &np);
            } else { /* by c or, negated, by -c: whichever is shorter (a small negative coefficient) */
                uint64_t kp[4], kn[4];
                cuzk_fr nc;
                cuzk_fr_neg(&nc, coef);
                cuzk_fr_to_canonical(kp, coef);
                cuzk_fr_to_canonical(kn, &nc);
                bool neg = mont_lt(kn, kp, 4);
                cuzk_g1_from_affine(&u, p);
                cuzk_g1_mul(&u, &u, neg ? kn : kp, 4);
                if (neg)
                    cuzk_g1_neg(&u, &u);
                cuzk_g1_add(&t, &s, &u);
            }
            s = t;
        }
        cuzk_g1_neg(&t, &s); /* -sum: the inputs' point; the aux add their old l */
        if (i >= x->nin)
            cuzk_g1_add_affine(&jac[i - lo], &t, &x->l_old[i - x->nin]);
        else
            jac[i - lo] = t;
    }
    cuzk_g1_batch_to_affine(x->l_new + lo, jac, hi - lo, x->scratch + (size_t)worker * CK_VAR_BLOCK);
}

/* Scratch of heavy_column: the terms of a chunk split by their coefficient. */
typedef struct {
    cuzk_g1_affine *plus, *minus, *gen; /* chunk each */
    cuzk_fr *k;                         /* the general terms' coefficients */
    size_t chunk;
} heavy_buf;

/* Variable i's column (more than x->heavy terms: one task's share of the column sums would hold the pool
 * up, and each general coefficient would be a multiplication of its own) summed on the whole pool, a chunk
 * at a time: the terms with +1 and -1 as two batch-affine sums, the rest as one MSM. Then l_new[i], which
 * column_task left at l_old[i] (the identity for an input), loses the sum. */
static int heavy_column(col_ctx *x, size_t i, heavy_buf *b, cuzk_pool *pool)
{
    cuzk_g1 s, t;
    cuzk_g1_set_identity(&s);
    for (uint64_t lo = x->colptr[i]; lo < x->colptr[i + 1]; lo += b->chunk) {
        uint64_t hi = lo + b->chunk < x->colptr[i + 1] ? lo + b->chunk : x->colptr[i + 1];
        size_t np = 0, nm = 0, ng = 0;
        for (uint64_t k = lo; k < hi; k++) {
            const cuzk_fr *coef = cuzk_csr_coef(&x->cs->c, x->terms[k]);
            const cuzk_g1_affine *p = &x->q[x->rows[k]];
            if (cuzk_fr_is_one(coef)) {
                b->plus[np++] = *p;
            } else if (cuzk_fr_eq(coef, &x->minus_one)) {
                b->minus[nm++] = *p;
            } else {
                b->gen[ng] = *p;
                b->k[ng++] = *coef;
            }
        }
        int rc;
        if ((rc = cuzk_g1_sum(&t, b->plus, NULL, np, pool)))
            return rc;
        cuzk_g1_add(&s, &s, &t);
        if ((rc = cuzk_g1_sum(&t, b->minus, NULL, nm, pool)))
            return rc;
        cuzk_g1_neg(&t, &t);
        cuzk_g1_add(&s, &s, &t);
        if ((rc = cuzk_g1_msm(&t, b->gen, b->k, ng, pool)))
            return rc;
        cuzk_g1_add(&s, &s, &t);
    }
    cuzk_g1_neg(&s, &s);
    cuzk_g1_add_affine(&t, &s, &x->l_new[i]);
    cuzk_g1_to_affine(&x->l_new[i], &t);
    return CUZK_OK;
}

/* Terms of a heavy column gathered at a time: CK_HEAVY_CHUNK, or fewer with CUZK_COSET_CHUNK=N (tests take
 * long columns through many chunks). */
static size_t heavy_chunk(void)
{
    const char *s = getenv("CUZK_COSET_CHUNK");
    unsigned long long v = s && *s ? strtoull(s, NULL, 10) : 0;
    return v >= 1 && v < CK_HEAVY_CHUNK ? (size_t)v : CK_HEAVY_CHUNK;
}

/* Every column with more than x->heavy terms through heavy_column. */
static int heavy_columns(col_ctx *x, cuzk_pool *pool)
{
    size_t nh = 0, most = 0;
    for (size_t i = 0; i < x->nv; i++) {
        uint64_t n = x->colptr[i + 1] - x->colptr[i];
        if (n > x->heavy)
            nh++, most = n > most ? n : most;
    }
    if (!nh)
        return CUZK_OK;
    size_t chunk = heavy_chunk(), cap = most < chunk ? most : chunk;
    heavy_buf b = {malloc(cap * sizeof *b.plus), malloc(cap * sizeof *b.minus), malloc(cap * sizeof *b.gen),
                   malloc(cap * sizeof *b.k), chunk};
    int rc = b.plus && b.minus && b.gen && b.k ? CUZK_OK : CUZK_ENOMEM;
    for (size_t i = 0; i < x->nv && !rc; i++)
        if (x->colptr[i + 1] - x->colptr[i] > x->heavy)
            rc = heavy_column(x, i, &b, pool);
    free(b.plus), free(b.minus), free(b.gen), free(b.k);
    return rc;
}

/* C's terms of the circuit rows grouped by variable: colptr[i] .. colptr[i + 1] - 1 index rows and terms. */
static int transpose_c(uint64_t **colptr, uint32_t **rows, uint64_t **terms, const cuzk_cs *cs, size_t nv)
{
    const cuzk_csr *c = &cs->c;
    uint64_t nnz = cs->n_constraints ? c->row[cs->n_constraints] : 0;
    *colptr = calloc(nv + 1, sizeof **colptr);
    *rows = nnz ? malloc(nnz * sizeof **rows) : NULL;
    *terms = nnz ? malloc(nnz * sizeof **terms) : NULL;
    if (!*colptr || (nnz && (!*rows || !*terms)))
        return CUZK_ENOMEM;
    uint64_t *cp = *colptr;
    for (uint64_t k = 0; k < nnz; k++)
        cp[c->col[k] + 1]++;
    for (size_t i = 0; i < nv; i++)
        cp[i + 1] += cp[i];
    uint64_t *fill = malloc((nv + 1) * sizeof *fill);
    if (!fill)
        return CUZK_ENOMEM;
    memcpy(fill, cp, (nv + 1) * sizeof *fill);
    for (size_t r = 0; r < cs->n_constraints; r++)
        for (uint64_t k = c->row[r]; k < c->row[r + 1]; k++) {
            uint64_t at = fill[c->col[k]]++;
            (*rows)[at] = (uint32_t)r;
            (*terms)[at] = k;
        }
    free(fill);
    return CUZK_OK;
}

/* C's columns into cx->l_new: every column by one task, then the long ones on the whole pool. */
static int column_sums(col_ctx *cx, cuzk_pool *pool, char *err, size_t errlen)
{
    cuzk_pool_run(pool, (cx->nv + CK_VAR_BLOCK - 1) / CK_VAR_BLOCK, column_task, cx);
    int rc = heavy_columns(cx, pool);
    if (rc)
        return cuzk_fail(err, errlen, rc, "coset key: the sums of C's longest columns failed (%s)",
                         rc == CUZK_ENOMEM ? "out of memory" : "MSM error");
    return CUZK_OK;
}

/* One accelerator transform, run on a thread of its own beside the CPU's work (accel_start) or on the
 * caller's (accel_run). Beside, its host side (scalars, affine conversion) gets a pool of its own as large
 * as the caller's: runs of one pool from two threads take turns, which would leave the device idle while
 * the column sums hold the pool. */
typedef struct {
    const cuzk_coset_accel *accel;
    cuzk_g1_affine *out;
    const cuzk_g1_affine *src;
    size_t n;
    cuzk_fr c, step, root;
    cuzk_pool *pool, *own; /* own: the pool made for the job beside the caller's work */
    int rc;
    char err[256];
    pthread_t th;
    int64_t us; /* how long the transform took */
} accel_job;

static void accel_run(accel_job *j)
{
    int64_t t0 = cuzk_timeline_clock_us();
    j->rc = j->accel->g1_transform(j->accel->ctx, j->out, j->src, j->n, &j->c, &j->step, &j->root, j->pool,
                                   j->err, sizeof j->err);
    j->us = cuzk_timeline_clock_us() - t0;
}

static void *accel_main(void *arg)
{
    accel_run(arg);
    return NULL;
}

static bool env_is_1(const char *name)
{
    const char *s = getenv(name);
    return s && !strcmp(s, "1");
}

/* CUZK_COSET_SERIAL=1: the transforms one after the other, as before the thread (an A/B of the overlap). */
static bool coset_serial(void)
{
    return env_is_1("CUZK_COSET_SERIAL");
}

/* CUZK_COSET_TIMES=1: each step's wall time on stderr (where the conversion's time goes, docs/design/022). */
typedef struct {
    bool on;
    int64_t t;
} step_clock;

static void step_clock_start(step_clock *c)
{
    c->on = env_is_1("CUZK_COSET_TIMES");
    c->t = cuzk_timeline_clock_us();
}

static void step_report(const step_clock *c, const char *what, int64_t us)
{
    if (c->on)
        fprintf(stderr, "coset key: %-34s %9.3f s\n", what, (double)us * 1e-6);
}

static void step_done(step_clock *c, const char *what)
{
    int64_t now = cuzk_timeline_clock_us();
    step_report(c, what, now - c->t);
    c->t = now;
}

/* CUZK_COSET_CHECK_AFTER=1: h's whole check after the join, as before its inputs' side moved beside the
 * transform (an A/B of that move, docs/design/022). */
static bool coset_check_after(void)
{
    return env_is_1("CUZK_COSET_CHECK_AFTER");
}

/* Whether the job (j->pool: the caller's) runs beside the caller (then accel_join it); if not (no thread or
 * pool to be had) the caller runs it after its own work, on its pool. */
static bool accel_start(accel_job *j)
{
    cuzk_pool *caller = j->pool;
    if (cuzk_pool_size(caller) > 1 && !(j->own = cuzk_pool_new(cuzk_pool_size(caller))))
        return false;
    if (j->own)
        j->pool = j->own;
    if (pthread_create(&j->th, NULL, accel_main, j) == 0)
        return true;
    cuzk_pool_free(j->own);
    j->pool = caller, j->own = NULL;
    return false;
}

static void accel_join(accel_job *j)
{
    pthread_join(j->th, NULL);
    cuzk_pool_free(j->own);
    j->own = NULL;
}

/* ---- the conversion ---------------------------------------------------------------------- */

/* The key must be in bellperson's form and fit the circuit in every length (the prover's own check, with
 * the circuit's densities counted here). */
static int check_key(const cuzk_groth16_params *pk, const cuzk_cs *cs, size_t m, cuzk_pool *pool, char *err,
                     size_t errlen)
{
    if (pk->h_coset)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "coset key: the key is already in the coset form");
    size_t pop[3];
    int rc = cuzk_cs_density_pops(cs, pop, pool);
    if (rc)
        return cuzk_fail(err, errlen, rc, "coset key: %s", rc == CUZK_ENOMEM ? "out of memory for the densities"
                                                                           : "the circuit's densities failed");
    return prove_check_shape(pk, cs, m, pop[0], pop[1], pop[2], "coset key", err, errlen);
}

int cuzk_groth16_params_to_coset(cuzk_groth16_params *pk, const cuzk_cs *cs,
                                 const cuzk_groth16_coset_opts *opts, cuzk_pool *pool, char *err,
                                 size_t errlen)
{
    if (!pk)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "coset key: no key");
    unsigned lg = 0;
    int rc;
    if ((rc = cuzk_setup_check_cs(cs, err, errlen)) || (rc = cuzk_groth16_domain_lg(&lg, cs, err, errlen)))
        return rc;
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "coset key: a domain of 2^%u is above the 2^%u supported",
                         lg, CUZK_NTT_MAX_LG);
    size_t m = (size_t)1 << lg, nin = cs->n_inputs, nv = nin + cs->n_aux;
    if ((rc = check_key(pk, cs, m, pool, err, errlen)))
        return rc;

    /* k / m, g^-1 and w^-1 (bellperson's domain and coset shift 7) */
    cuzk_fr k, km, ginv, winv, one = CUZK_FR_ONE, t;
    uint64_t e = m;
    cuzk_fr_from_u64(&ginv, 7);
    cuzk_fr_pow(&k, &ginv, &e, 1);
    cuzk_fr_sub(&k, &k, &one);
    cuzk_fr_inv(&k, &k);
    cuzk_fr_from_u64(&t, m);
    cuzk_fr_inv(&t, &t);
    cuzk_fr_mul(&km, &k, &t);
    cuzk_fr_inv(&ginv, &ginv);
    if ((rc = cuzk_ntt_root_of_unity(&winv, lg, CUZK_NTT_BELLPERSON)))
        return cuzk_fail(err, errlen, rc, "coset key: no root of unity of order 2^%u", lg);
    cuzk_fr_inv(&winv, &winv);

    const cuzk_coset_accel *accel = opts ? opts->accel : NULL;
    int nw = cuzk_pool_size(pool);
    step_clock clk;
    step_clock_start(&clk);
    uint64_t *colptr = NULL, *terms = NULL;
    uint32_t *rows = NULL;
    cuzk_g1_affine *h_new = calloc(m, sizeof *h_new), *q = calloc(m, sizeof *q), *l_new = NULL;
    cuzk_g1 *jac = accel ? NULL : calloc(m, sizeof *jac);
    cuzk_fr *tw = accel ? NULL : calloc(m / 2 > 0 ? m / 2 : 1, sizeof *tw);
    size_t scr_n = (size_t)nw * (CK_PT_BLOCK > CK_VAR_BLOCK ? CK_PT_BLOCK : CK_VAR_BLOCK);
    cuzk_fp *scratch = calloc(scr_n, sizeof *scratch);
    cuzk_g1 *vjac = calloc((size_t)nw * CK_VAR_BLOCK, sizeof *vjac);
    if (nv)
        l_new = calloc(nv, sizeof *l_new);
    if (!h_new || !q || (!accel && (!jac || !tw)) || !scratch || !vjac || (nv && !l_new) ||
        transpose_c(&colptr, &rows, &terms, cs, nv)) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "coset key: out of memory for a domain of %zu points", m);
        goto out;
    }

    step_done(&clk, "buffers and C's transpose");
    uint64_t nnz = cs->n_constraints ? cs->c.row[cs->n_constraints] : 0, units = transform_units(m, lg);
    ck_progress pr = {opts ? opts->progress : NULL, opts ? opts->progress_ctx : NULL, 0, 2 * units + nnz};
    progress_add(&pr, 0);
    col_ctx cx = {.cs = cs,
                  .colptr = colptr,
                  .rows = rows,
                  .terms = terms,
                  .q = q,
                  .l_old = pk->l,
                  .l_new = l_new,
                  .jac = vjac,
                  .scratch = scratch,
                  .nv = nv,
                  .nin = nin,
                  .heavy = opts && opts->heavy_terms ? opts->heavy_terms : CK_HEAVY};
    cuzk_fr_neg(&cx.minus_one, &one);
    if (accel) { /* Q_r first: then h'_j on the accelerator while the CPU checks Q, begins h's check and sums
                  * C's columns */
        if ((rc = accel->g1_transform(accel->ctx, q, pk->h, m, &km, &one, &winv, pool, err, errlen)))
            goto out;
        step_done(&clk, "Q's transform");
        progress_add(&pr, units);
        accel_job hj = {.accel = accel,
                        .out = h_new,
                        .src = pk->h,
                        .n = m,
                        .c = km,
                        .step = ginv,
                        .root = winv,
                        .pool = pool};
        bool beside = !coset_serial() && accel_start(&hj);
        transform_check qc, hc; /* h's inputs' side too, while its transform runs */
        bool h_after = coset_check_after();
        if (!(rc = check_begin(&qc, pk->h, m, &km, &one, &winv, "Q", pool, err, errlen)))
            rc = check_end(&qc, q, pool, err, errlen);
        step_done(&clk, "Q's check");
        if (!rc && !h_after) {
            rc = check_begin(&hc, pk->h, m, &km, &ginv, &winv, "h", pool, err, errlen);
            step_done(&clk, "h's check, inputs' side");
        }
        if (!rc)
            rc = column_sums(&cx, pool, err, errlen);
        step_done(&clk, "C's column sums");
        if (!rc)
            progress_add(&pr, nnz);
        if (beside)
            accel_join(&hj);
        else if (!rc)
            accel_run(&hj);
        step_done(&clk, beside ? "waiting for h's transform" : "h's transform");
        if (beside)
            step_report(&clk, "(h's transform, beside)", hj.us);
        if (!rc && hj.rc)
            rc = cuzk_fail(err, errlen, hj.rc, "%s", hj.err);
        if (!rc && h_after) {
            rc = check_begin(&hc, pk->h, m, &km, &ginv, &winv, "h", pool, err, errlen);
            step_done(&clk, "h's check, inputs' side");
        }
        if (rc || (rc = check_end(&hc, h_new, pool, err, errlen)))
            goto out;
        step_done(&clk, "h's check, outputs' side");
        progress_add(&pr, units);
    } else {
        powers_fill(tw, m / 2, &winv, pool);
        g1_tf x = {.x = jac, .n = m, .tw = tw, .lg = lg, .scratch = scratch};
        g1_transform(h_new, pk->h, &km, &ginv, &x, &pr, pool);
        g1_transform(q, pk->h, &km, &one, &x, &pr, pool);
        step_done(&clk, "h's and Q's transforms (CPU)");
        rc = column_sums(&cx, pool, err, errlen);
        step_done(&clk, "C's column sums");
        if (rc)
            goto out;
        progress_add(&pr, nnz);
    }

    free(pk->h);
    free(pk->l);
    pk->h = h_new, pk->n_h = m;
    pk->l = l_new, pk->n_l = nv;
    pk->h_coset = true;
    h_new = l_new = NULL;
    rc = CUZK_OK;
out:
    free(h_new);
    free(l_new);
    free(q);
    free(jac);
    free(tw);
    free(scratch);
    free(vjac);
    free(colptr);
    free(rows);
    free(terms);
    return rc;
}
