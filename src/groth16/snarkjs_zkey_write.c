/*
 * snarkjs_zkey_write.c — a Groth16 setup that writes a snarkjs .zkey directly
 * (cuzk/zkey_setup.h). NOT A TRUSTED CEREMONY: the toxic waste lives in this
 * process; the keys are for tests and benchmarks.
 *
 * snarkjs makes a zkey in two steps: `groth16 setup` (src/zkey_new.js) combines
 * the circuit with a prepared powers-of-tau file, whose section 12 holds the
 * Lagrange basis [L_j(tau)]1 of every domain size, and contributions then
 * multiply delta by a secret and divide C and H by it. The result for a final
 * toxic waste (tau, alpha, beta, gamma, delta) is a function of the circuit
 * alone, so it can be computed directly from the five scalars:
 *   - rows: the circuit's constraints, then one row per signal s = 0 ..
 *     nPublic with A[nConstraints + s][s] = 1; domainSize m is the smallest
 *     power of two >= the row count (snarkjs: 2^(log2(n - 1) + 1), so >= 2);
 *   - L_j(tau) = (tau^m - 1)/m · ω^j/(tau - ω^j) for the rows, ω from 5
 *     (CUZK_NTT_SNARKJS, the prover's domain), one batch inversion per block
 *     of rows, blocks on the pool;
 *   - u, v, w = A, B, C evaluated at tau: one pass over each CSR matrix (three
 *     pool tasks, each in row order, so the sums do not depend on threads),
 *     the input rows added to u;
 *   - IC and C scalars (beta u + alpha v + w) / gamma and / delta;
 *   - H: snarkjs's prover multiplies point i of section 9 by (A·B − C) at
 *     ω_2m^(2i+1), the odd powers of the 2m-th root. A·B − C has degree < 2m
 *     and vanishes at the even powers (the rows of the circuit), so its value
 *     at tau is Σ_i L^(2m)_(2i+1)(tau) (A·B − C)(ω_2m^(2i+1)): H_i =
 *     L^(2m)_(2i+1)(tau) / delta, the odd half of the 2m-domain Lagrange basis
 *     (zkey_new.js copies exactly those points from the ptau).
 * Points are [k]G by the fixed-base multiplication of cuzk/setup.h, one call
 * per section, on the pool.
 *
 * The file is streamed to a sink section by section in id order (1 .. 10), so
 * at most one section's points are held in memory (plus u, v, w): the
 * container header with every section size goes out first, then each section
 * as it is computed. Everything that can be refused (the circuit's structure,
 * sizes that do not fit the format, the toxic waste) is checked before the
 * first byte. Encodings are snarkjs's: points affine with Montgomery
 * coordinates (48-byte LE limbs, identity = all zero), coefficients v·R² mod r
 * as plain LE integers (the Montgomery limbs of the element whose canonical
 * value is v's Montgomery limbs). Section 10 has an all-zero 64-byte circuit
 * hash and zero contributions: no ceremony made this key, and snarkjs's
 * prover and `zkey export verificationkey` do not read the section.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/curve.h"
#include "cuzk/ntt.h"
#include "cuzk/outfile.h"
#include "cuzk/serialize.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/zkey_setup.h"

#define ZK_SECTIONS 10
#define ZK_HEADER_SIZE (4 + 48 + 4 + 32 + 12 + 3 * 96 + 3 * 192)
#define ZK_CONTRIB_SIZE (64 + 4)
#define ROW_BLOCK 4096       /* Lagrange values per task (one batch inversion) */
#define SCALAR_BLOCK 16384   /* signals per task when combining IC / C scalars */
#define OUT_BYTES (1u << 20) /* bytes encoded before each call of the sink */

/* ---- sizes and checks ------------------------------------------------------- */

typedef struct {
    uint64_t nin, nv, npub, nc; /* inputs (ONE included), variables, public signals, constraints */
    uint64_t ncoef;             /* entries of section 4 */
    unsigned lg;
    uint64_t m;
    uint64_t size[ZK_SECTIONS + 1]; /* section sizes, by id */
} zk_shape;

static int check_csr(const cuzk_csr *M, char name, const zk_shape *s, char *err, size_t errlen)
{
    if (!M->row) {
        if (s->nc == 0 && M->nnz == 0)
            return CUZK_OK;
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: matrix %c has no row offsets", name);
    }
    if (M->row[0] != 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: matrix %c: row 0 starts at %llu, not 0", name,
                         (unsigned long long)M->row[0]);
    for (uint64_t j = 0; j < s->nc; j++)
        if (M->row[j + 1] < M->row[j])
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "zkey setup: matrix %c: row offsets decrease at row %llu", name,
                             (unsigned long long)j);
    if (M->row[s->nc] != M->nnz)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: matrix %c: rows end at %llu but nnz is %llu",
                         name, (unsigned long long)M->row[s->nc], (unsigned long long)M->nnz);
    if (M->nnz && (!M->col || !cuzk_csr_coefs_ok(M)))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: matrix %c has terms but no columns or values",
                         name);
    for (uint64_t k = 0; k < M->nnz; k++)
        if (M->col[k] >= s->nv)
            return cuzk_fail(err, errlen, CUZK_EINVAL,
                             "zkey setup: matrix %c: term %llu names variable %u but there are %llu", name,
                             (unsigned long long)k, M->col[k], (unsigned long long)s->nv);
    return CUZK_OK;
}

/* Fills the counts and section sizes of cs; checks everything the format and the prover limit. */
static int shape_of(zk_shape *s, const cuzk_cs *cs, bool full, char *err, size_t errlen)
{
    memset(s, 0, sizeof *s);
    if (!cs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: no constraint system");
    if (cs->n_inputs == 0)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zkey setup: no inputs (variable 0 must be the constant 1)");
    if (cs->n_inputs > UINT32_MAX || cs->n_aux > UINT32_MAX || cs->n_inputs + cs->n_aux > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "zkey setup: %zu + %zu variables do not fit nVars (u32)",
                         cs->n_inputs, cs->n_aux);
    if (cs->n_constraints > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "zkey setup: %zu constraints do not fit a u32 row index",
                         cs->n_constraints);
    s->nin = cs->n_inputs;
    s->nv = cs->n_inputs + cs->n_aux;
    s->npub = s->nin - 1;
    s->nc = cs->n_constraints;
    uint64_t rows = s->nc + s->nin;
    unsigned lg = 1;
    while (((uint64_t)1 << lg) < rows)
        lg++;
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "zkey setup: %llu rows (%llu constraints + %llu input rows) need a domain of 2^%u, "
                         "above the prover's 2^%d",
                         (unsigned long long)rows, (unsigned long long)s->nc, (unsigned long long)s->nin, lg,
                         CUZK_NTT_MAX_LG);
    s->lg = lg;
    s->m = (uint64_t)1 << lg;
    int rc;
    if (full &&
        ((rc = check_csr(&cs->a, 'A', s, err, errlen)) || (rc = check_csr(&cs->b, 'B', s, err, errlen)) ||
         (rc = check_csr(&cs->c, 'C', s, err, errlen))))
        return rc;
    s->ncoef = (uint64_t)cs->a.nnz + cs->b.nnz + s->nin;
    if (s->ncoef > UINT32_MAX)
        return cuzk_fail(err, errlen, CUZK_ERANGE,
                         "zkey setup: %llu A and B terms do not fit the coefficient count (u32)",
                         (unsigned long long)s->ncoef);
    s->size[1] = 4;
    s->size[2] = ZK_HEADER_SIZE;
    s->size[3] = (s->npub + 1) * 96;
    s->size[4] = 4 + s->ncoef * CUZK_ZKEY_COEF_SIZE;
    s->size[5] = s->nv * 96;
    s->size[6] = s->nv * 96;
    s->size[7] = s->nv * 192;
    s->size[8] = (s->nv - s->npub - 1) * 96;
    s->size[9] = s->m * 96;
    s->size[10] = ZK_CONTRIB_SIZE;
    return CUZK_OK;
}

static uint64_t total_size(const zk_shape *s)
{
    uint64_t t = 12;
    for (int id = 1; id <= ZK_SECTIONS; id++)
        t += 12 + s->size[id];
    return t;
}

int cuzk_zkey_domain_lg(unsigned *lg, const cuzk_cs *cs, char *err, size_t errlen)
{
    zk_shape s;
    int rc = shape_of(&s, cs, false, err, errlen);
    if (rc == CUZK_OK)
        *lg = s.lg;
    return rc;
}

uint64_t cuzk_zkey_size(const cuzk_cs *cs)
{
    zk_shape s;
    return shape_of(&s, cs, false, NULL, 0) == CUZK_OK ? total_size(&s) : 0;
}

/* Zero values and tau inside the 2m-domain (where a Lagrange denominator would vanish) are refused. */
static int check_toxic(const cuzk_groth16_toxic *tw, uint64_t m2, char *err, size_t errlen)
{
    const cuzk_fr *v[5] = {&tw->tau, &tw->alpha, &tw->beta, &tw->gamma, &tw->delta};
    static const char *const names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 5; i++)
        if (cuzk_fr_is_zero(v[i]))
            return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: toxic waste %s is zero", names[i]);
    cuzk_fr t;
    cuzk_fr_pow(&t, &tw->tau, &m2, 1);
    if (cuzk_fr_is_one(&t))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "zkey setup: tau lies in the domain of size %llu (tau^%llu = 1)",
                         (unsigned long long)m2, (unsigned long long)m2);
    return CUZK_OK;
}

/* ---- output ----------------------------------------------------------------- */

typedef struct {
    cuzk_zkey_sink sink;
    void *ctx;
    uint8_t *buf; /* OUT_BYTES */
    size_t len;
    uint64_t done; /* bytes handed to the sink */
    bool failed;
} zk_out;

static int out_flush(zk_out *o, char *err, size_t errlen)
{
    if (o->len && !o->failed) {
        if (o->sink(o->ctx, o->buf, o->len) != 0)
            o->failed = true;
        else
            o->done += o->len;
    }
    o->len = 0;
    if (o->failed)
        return cuzk_fail(err, errlen, CUZK_EIO, "zkey setup: the output failed after %llu bytes",
                         (unsigned long long)o->done);
    return CUZK_OK;
}

/* Room for n more bytes in the buffer (n <= OUT_BYTES), flushing first if needed. */
static uint8_t *out_room(zk_out *o, size_t n, char *err, size_t errlen, int *rc)
{
    if (o->len + n > OUT_BYTES && (*rc = out_flush(o, err, errlen)))
        return NULL;
    uint8_t *p = o->buf + o->len;
    o->len += n;
    return p;
}

static void le32_put(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void le64_put(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static int put_bytes(zk_out *o, const void *d, size_t n, char *err, size_t errlen)
{
    int rc = CUZK_OK;
    uint8_t *p = out_room(o, n, err, errlen, &rc);
    if (p)
        memcpy(p, d, n);
    return rc;
}

static int put_u32(zk_out *o, uint32_t v, char *err, size_t errlen)
{
    uint8_t b[4];
    le32_put(b, v);
    return put_bytes(o, b, 4, err, errlen);
}

static int put_section_head(zk_out *o, uint32_t id, uint64_t size, char *err, size_t errlen)
{
    uint8_t b[12];
    le32_put(b, id);
    le64_put(b + 4, size);
    return put_bytes(o, b, 12, err, errlen);
}

/* ---- Lagrange values --------------------------------------------------------- */

/* out[t] = scale · x_t / (tau - x_t) with x_t = x0 · step^t, t < n. */
typedef struct {
    cuzk_fr *out;
    size_t n;
    cuzk_fr x0, step, tau, scale;
    cuzk_fr *scratch; /* 2 · ROW_BLOCK per worker */
} lag_ctx;

static void lagrange_task(void *arg, size_t task, int worker)
{
    lag_ctx *x = arg;
    size_t lo = task * ROW_BLOCK, hi = lo + ROW_BLOCK < x->n ? lo + ROW_BLOCK : x->n;
    cuzk_fr *den = x->scratch + (size_t)worker * 2 * ROW_BLOCK, *scr = den + ROW_BLOCK, p;
    uint64_t e = lo;
    cuzk_fr_pow(&p, &x->step, &e, 1);
    cuzk_fr_mul(&p, &p, &x->x0);
    for (size_t t = lo; t < hi; t++) {
        x->out[t] = p;
        cuzk_fr_sub(&den[t - lo], &x->tau, &p);
        cuzk_fr_mul(&p, &p, &x->step);
    }
    cuzk_fr_batch_inv(den, den, hi - lo, scr);
    for (size_t t = lo; t < hi; t++) {
        cuzk_fr_mul(&x->out[t], &x->out[t], &den[t - lo]);
        cuzk_fr_mul(&x->out[t], &x->out[t], &x->scale);
    }
}

/* out[t] (n values) as lag_ctx says, with scale = (tau^N - 1)/N · extra for the domain of size N. */
static int lagrange(cuzk_fr *out, size_t n, const cuzk_fr *x0, const cuzk_fr *step, uint64_t N,
                    const cuzk_fr *tau, const cuzk_fr *extra, cuzk_pool *pool, char *err, size_t errlen)
{
    lag_ctx x = {.out = out, .n = n, .x0 = *x0, .step = *step, .tau = *tau};
    cuzk_fr ninv;
    cuzk_fr_pow(&x.scale, tau, &N, 1);
    cuzk_fr_sub(&x.scale, &x.scale, &CUZK_FR_ONE);
    cuzk_fr_from_u64(&ninv, N);
    cuzk_fr_inv(&ninv, &ninv);
    cuzk_fr_mul(&x.scale, &x.scale, &ninv);
    cuzk_fr_mul(&x.scale, &x.scale, extra);
    size_t nthreads = (size_t)cuzk_pool_size(pool);
    if (!(x.scratch = malloc(nthreads * 2 * ROW_BLOCK * sizeof *x.scratch)))
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "zkey setup: out of memory for Lagrange scratch");
    cuzk_pool_run(pool, (n + ROW_BLOCK - 1) / ROW_BLOCK, lagrange_task, &x);
    free(x.scratch);
    return CUZK_OK;
}

/* ---- QAP values and query scalars --------------------------------------------- */

typedef struct {
    const cuzk_cs *cs;
    const cuzk_fr *lag; /* L_j(tau) for the nc + nin rows */
    cuzk_fr *out[3];    /* u, v, w */
    uint64_t nv;
} col_ctx;

/* Task t sums matrix t (A, B, C) column by column, in row order; A also gets the input rows. */
static void column_task(void *arg, size_t task, int worker)
{
    col_ctx *x = arg;
    const cuzk_cs *cs = x->cs;
    const cuzk_csr *M = task == 0 ? &cs->a : task == 1 ? &cs->b : &cs->c;
    cuzk_fr *out = x->out[task], t;
    memset(out, 0, x->nv * sizeof *out);
    for (size_t j = 0; j < cs->n_constraints; j++)
        for (uint64_t k = M->row[j]; k < M->row[j + 1]; k++) {
            cuzk_fr_mul(&t, cuzk_csr_coef(M, k), &x->lag[j]);
            cuzk_fr_add(&out[M->col[k]], &out[M->col[k]], &t);
        }
    if (task == 0)
        for (size_t s = 0; s < cs->n_inputs; s++)
            cuzk_fr_add(&out[s], &out[s], &x->lag[cs->n_constraints + s]);
}

typedef struct {
    const cuzk_fr *u, *v;
    cuzk_fr *w; /* in: C(tau); out: the IC (i < nin) and C scalars */
    uint64_t nin, nv;
    cuzk_fr alpha, beta, gamma_inv, delta_inv;
} lc_ctx;

static void lc_task(void *arg, size_t task, int worker)
{
    lc_ctx *x = arg;
    uint64_t lo = task * SCALAR_BLOCK, hi = lo + SCALAR_BLOCK < x->nv ? lo + SCALAR_BLOCK : x->nv;
    cuzk_fr t;
    for (uint64_t i = lo; i < hi; i++) {
        cuzk_fr_mul(&t, &x->beta, &x->u[i]);
        cuzk_fr_add(&x->w[i], &x->w[i], &t);
        cuzk_fr_mul(&t, &x->alpha, &x->v[i]);
        cuzk_fr_add(&x->w[i], &x->w[i], &t);
        cuzk_fr_mul(&x->w[i], &x->w[i], i < x->nin ? &x->gamma_inv : &x->delta_inv);
    }
}

/* ---- sections ------------------------------------------------------------------- */

/* Section id: [k_i]G1 (g2 false) or [k_i]G2 for n scalars, computed into pts and streamed out. */
static int put_points(zk_out *o, uint32_t id, const cuzk_fr *k, uint64_t n, bool g2, void *pts,
                      cuzk_pool *pool, char *err, size_t errlen)
{
    size_t stride = g2 ? 192 : 96;
    int rc = put_section_head(o, id, n * stride, err, errlen);
    if (rc)
        return rc;
    if (n == 0)
        return CUZK_OK;
    rc = g2 ? cuzk_g2_fixed_base_mul(pts, k, (size_t)n, 0, pool, err, errlen)
            : cuzk_g1_fixed_base_mul(pts, k, (size_t)n, 0, pool, err, errlen);
    if (rc)
        return rc;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *p = out_room(o, stride, err, errlen, &rc);
        if (!p)
            return rc;
        if (g2)
            cuzk_g2_to_snarkjs(p, (const cuzk_g2_affine *)pts + i, true);
        else
            cuzk_g1_to_snarkjs(p, (const cuzk_g1_affine *)pts + i, true);
    }
    return CUZK_OK;
}

static void g1_gen_mul(uint8_t out[96], const cuzk_fr *k)
{
    cuzk_g1 p;
    cuzk_g1_affine a;
    cuzk_g1_from_affine(&p, &CUZK_G1_GENERATOR);
    cuzk_g1_mul_fr(&p, &p, k);
    cuzk_g1_to_affine(&a, &p);
    cuzk_g1_to_snarkjs(out, &a, true);
}

static void g2_gen_mul(uint8_t out[192], const cuzk_fr *k)
{
    cuzk_g2 p;
    cuzk_g2_affine a;
    cuzk_g2_from_affine(&p, &CUZK_G2_GENERATOR);
    cuzk_g2_mul_fr(&p, &p, k);
    cuzk_g2_to_affine(&a, &p);
    cuzk_g2_to_snarkjs(out, &a, true);
}

/* Section 2: sizes, primes and the six key points, in the order zkey_utils.js writes them. */
static int put_header(zk_out *o, const zk_shape *s, const cuzk_groth16_toxic *tw, char *err, size_t errlen)
{
    uint8_t h[ZK_HEADER_SIZE], *p = h;
    le32_put(p, 48);
    for (int i = 0; i < 6; i++)
        le64_put(p + 4 + 8 * i, CUZK_P[i]);
    p += 52;
    le32_put(p, 32);
    for (int i = 0; i < 4; i++)
        le64_put(p + 4 + 8 * i, CUZK_R[i]);
    p += 36;
    le32_put(p, (uint32_t)s->nv);
    le32_put(p + 4, (uint32_t)s->npub);
    le32_put(p + 8, (uint32_t)s->m);
    p += 12;
    g1_gen_mul(p, &tw->alpha);
    g1_gen_mul(p + 96, &tw->beta);
    g2_gen_mul(p + 192, &tw->beta);
    g2_gen_mul(p + 384, &tw->gamma);
    g1_gen_mul(p + 576, &tw->delta);
    g2_gen_mul(p + 672, &tw->delta);
    int rc;
    if ((rc = put_section_head(o, 2, ZK_HEADER_SIZE, err, errlen)))
        return rc;
    return put_bytes(o, h, ZK_HEADER_SIZE, err, errlen);
}

static int put_coef(zk_out *o, uint32_t matrix, uint32_t row, uint32_t signal, const cuzk_fr *v, char *err,
                    size_t errlen)
{
    int rc = CUZK_OK;
    uint8_t *p = out_room(o, CUZK_ZKEY_COEF_SIZE, err, errlen, &rc);
    if (!p)
        return rc;
    /* v·R² mod r: the element whose canonical value is v's Montgomery limbs (v·R) has limbs v·R². */
    cuzk_fr stored;
    cuzk_fr_from_canonical(&stored, v->l);
    le32_put(p, matrix);
    le32_put(p + 4, row);
    le32_put(p + 8, signal);
    for (int i = 0; i < 4; i++)
        le64_put(p + 12 + 8 * i, stored.l[i]);
    return CUZK_OK;
}

/* Section 4 in zkey_new.js's order: per constraint its A terms then its B terms, then the input rows. */
static int put_coefs(zk_out *o, const zk_shape *s, const cuzk_cs *cs, char *err, size_t errlen)
{
    int rc;
    if ((rc = put_section_head(o, 4, s->size[4], err, errlen)) ||
        (rc = put_u32(o, (uint32_t)s->ncoef, err, errlen)))
        return rc;
    const cuzk_csr *mats[2] = {&cs->a, &cs->b};
    for (uint64_t j = 0; j < s->nc; j++)
        for (uint32_t mat = 0; mat < 2; mat++)
            for (uint64_t k = mats[mat]->row[j]; k < mats[mat]->row[j + 1]; k++)
                if ((rc = put_coef(o, mat, (uint32_t)j, mats[mat]->col[k], cuzk_csr_coef(mats[mat], k), err, errlen)))
                    return rc;
    for (uint64_t i = 0; i < s->nin; i++)
        if ((rc = put_coef(o, 0, (uint32_t)(s->nc + i), (uint32_t)i, &CUZK_FR_ONE, err, errlen)))
            return rc;
    return CUZK_OK;
}

/* ---- the setup ------------------------------------------------------------------ */

static void *alloc_n(uint64_t n, size_t size, bool *fail)
{
    if (n == 0)
        n = 1;
    if (n > SIZE_MAX / size) {
        *fail = true;
        return NULL;
    }
    void *p = malloc((size_t)n * size);
    if (!p)
        *fail = true;
    return p;
}

int cuzk_zkey_setup(const cuzk_cs *cs, const cuzk_groth16_toxic *tw, cuzk_zkey_sink sink, void *ctx,
                    cuzk_pool *pool, char *err, size_t errlen)
{
    zk_shape s;
    int rc;
    if (!sink)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: no output");
    if ((rc = shape_of(&s, cs, true, err, errlen)))
        return rc;
    cuzk_groth16_toxic fresh;
    if (!tw) {
        if ((rc = cuzk_groth16_toxic_random(&fresh, (size_t)(2 * s.m), err, errlen)))
            return rc;
        tw = &fresh;
    } else if ((rc = check_toxic(tw, 2 * s.m, err, errlen))) {
        return rc;
    }

    uint64_t rows = s.nc + s.nin, pts_n = s.nv > s.m ? s.nv : s.m;
    bool fail = false;
    zk_out o = {.sink = sink, .ctx = ctx};
    cuzk_fr *u = alloc_n(s.nv, sizeof *u, &fail), *v = alloc_n(s.nv, sizeof *v, &fail);
    cuzk_fr *w = alloc_n(s.nv, sizeof *w, &fail);
    cuzk_fr *lag = alloc_n(rows > s.m ? rows : s.m, sizeof *lag, &fail); /* rows' L_j, later the H scalars */
    void *pts = alloc_n(pts_n, sizeof(cuzk_g2_affine), &fail);
    o.buf = alloc_n(OUT_BYTES, 1, &fail);
    if (fail) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM,
                       "zkey setup: out of memory for %llu variables and %llu points",
                       (unsigned long long)s.nv, (unsigned long long)pts_n);
        goto out;
    }

    /* Scalars: L_j(tau) over the m-domain, u, v, w, then the IC / C scalars into w. */
    cuzk_fr one = CUZK_FR_ONE, omega, omega2, step2;
    if ((rc = cuzk_ntt_root_of_unity(&omega, s.lg, CUZK_NTT_SNARKJS)) ||
        (rc = cuzk_ntt_root_of_unity(&omega2, s.lg + 1, CUZK_NTT_SNARKJS))) {
        rc = cuzk_fail(err, errlen, rc, "zkey setup: no root of unity of order 2^%u", s.lg + 1);
        goto out;
    }
    if ((rc = lagrange(lag, (size_t)rows, &one, &omega, s.m, &tw->tau, &one, pool, err, errlen)))
        goto out;
    col_ctx cx = {.cs = cs, .lag = lag, .out = {u, v, w}, .nv = s.nv};
    cuzk_pool_run(pool, 3, column_task, &cx);
    lc_ctx lx = {.u = u, .v = v, .w = w, .nin = s.nin, .nv = s.nv, .alpha = tw->alpha, .beta = tw->beta};
    cuzk_fr_inv(&lx.gamma_inv, &tw->gamma);
    cuzk_fr_inv(&lx.delta_inv, &tw->delta);
    cuzk_pool_run(pool, (size_t)((s.nv + SCALAR_BLOCK - 1) / SCALAR_BLOCK), lc_task, &lx);

    /* Container header, then the sections in id order. */
    uint8_t head[12] = {'z', 'k', 'e', 'y'};
    le32_put(head + 4, 1);
    le32_put(head + 8, ZK_SECTIONS);
    if ((rc = put_bytes(&o, head, 12, err, errlen)) || (rc = put_section_head(&o, 1, 4, err, errlen)) ||
        (rc = put_u32(&o, 1, err, errlen)) || (rc = put_header(&o, &s, tw, err, errlen)) ||
        (rc = put_points(&o, 3, w, s.nin, false, pts, pool, err, errlen)) ||
        (rc = put_coefs(&o, &s, cs, err, errlen)) ||
        (rc = put_points(&o, 5, u, s.nv, false, pts, pool, err, errlen)) ||
        (rc = put_points(&o, 6, v, s.nv, false, pts, pool, err, errlen)) ||
        (rc = put_points(&o, 7, v, s.nv, true, pts, pool, err, errlen)) ||
        (rc = put_points(&o, 8, w + s.nin, s.nv - s.nin, false, pts, pool, err, errlen)))
        goto out;
    /* H_i = L^(2m)_(2i+1)(tau) / delta: x_i = ω_2m · (ω_2m²)^i. */
    cuzk_fr_sqr(&step2, &omega2);
    if ((rc = lagrange(lag, (size_t)s.m, &omega2, &step2, 2 * s.m, &tw->tau, &lx.delta_inv, pool, err,
                       errlen)) ||
        (rc = put_points(&o, 9, lag, s.m, false, pts, pool, err, errlen)) ||
        (rc = put_section_head(&o, 10, ZK_CONTRIB_SIZE, err, errlen)))
        goto out;
    uint8_t contrib[ZK_CONTRIB_SIZE] = {0};
    if ((rc = put_bytes(&o, contrib, sizeof contrib, err, errlen)) || (rc = out_flush(&o, err, errlen)))
        goto out;
    if (o.done != total_size(&s))
        rc = cuzk_fail(err, errlen, CUZK_EINVAL, "zkey setup: wrote %llu bytes, expected %llu",
                       (unsigned long long)o.done, (unsigned long long)total_size(&s));
out:
    free(u);
    free(v);
    free(w);
    free(lag);
    free(pts);
    free(o.buf);
    if (tw == &fresh)
        memset(&fresh, 0, sizeof fresh);
    return rc;
}

/* ---- atomic file --------------------------------------------------------------- */

static int file_write(void *ctx, const void *buf, size_t len)
{
    return cuzk_outfile_write(ctx, buf, len) == CUZK_OK ? 0 : -1;
}

int cuzk_zkey_setup_write(const char *path, const cuzk_cs *cs, const cuzk_groth16_toxic *tw, cuzk_pool *pool,
                          char *err, size_t errlen)
{
    cuzk_outfile f;
    int rc = cuzk_outfile_open(&f, path, 0, "zkey setup", err, errlen);
    if (rc != CUZK_OK)
        return rc;
    rc = cuzk_zkey_setup(cs, tw, file_write, &f, pool, err, errlen);
    if (rc == CUZK_OK || (rc == CUZK_EIO && f.errnum)) /* a failed write: commit names it */
        rc = cuzk_outfile_commit(&f, "zkey setup", err, errlen);
    cuzk_outfile_abort(&f);
    return rc;
}
