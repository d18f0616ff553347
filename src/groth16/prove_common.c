/*
 * prove_common.c — what both Groth16 provers share: the split MSM, r and s,
 * the pointwise vector steps of the H computation, and the final check that
 * the proof verifies.
 *
 * Split MSM (prover-internals.md §1.7). Witness vectors of real circuits are
 * mostly 0 and 1. One parallel pass classifies the scalars in blocks of
 * SPLIT_BLOCK (a multiple of 64, so each task owns whole bitmap words): ones
 * set a bit, the others are counted per block. If at most half of the scalars
 * are "significant" (neither 0 nor 1, supraseal's rule), a second pass writes
 * their indices and canonical values at the prefix-summed offsets of their
 * blocks, so the tail list is in ascending order whatever the thread count.
 * The MSM is then cuzk_g1_sum over the bitmap (batch-affine additions, no
 * scalars) plus a Pippenger MSM over the gathered tail bases. Otherwise the
 * split would not pay and one plain MSM runs over the whole vector. A plan
 * depends only on the scalars, so the B query builds one plan for its G1
 * and G2 halves (and the snarkjs prover one for A, B1 and B2).
 *
 * r and s: cuzk_fr_random() (uniform, no modular bias) unless the caller
 * fixes them.
 */
#include "groth16/prove_common.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "cuzk/msm.h"

#define SPLIT_BLOCK (64 * 256) /* scalars per classification task */
#define VEC_BLOCK 4096         /* elements per pointwise task */
#define GATHER_BLOCK 4096      /* tail bases per gather task */

/* ---- split plan ----------------------------------------------------------------------- */

typedef struct {
    prove_split_plan *p;
    const cuzk_fr *scalars;
    size_t *counts; /* per block: significant scalars, then their first output offset */
} plan_ctx;

static void plan_count_task(void *arg, size_t task, int worker)
{
    plan_ctx *c = arg;
    size_t lo = task * SPLIT_BLOCK, hi = lo + SPLIT_BLOCK, cnt = 0;
    if (hi > c->p->n)
        hi = c->p->n;
    for (size_t i = lo; i < hi; i++) {
        const cuzk_fr *k = &c->scalars[i];
        if (cuzk_fr_is_zero(k))
            continue;
        if (cuzk_fr_is_one(k))
            c->p->ones[i / 64] |= 1ull << (i % 64);
        else
            cnt++;
    }
    c->counts[task] = cnt;
}

static void plan_fill_task(void *arg, size_t task, int worker)
{
    plan_ctx *c = arg;
    size_t lo = task * SPLIT_BLOCK, hi = lo + SPLIT_BLOCK, at = c->counts[task];
    if (hi > c->p->n)
        hi = c->p->n;
    for (size_t i = lo; i < hi; i++) {
        const cuzk_fr *k = &c->scalars[i];
        if (cuzk_fr_is_zero(k) || cuzk_fr_is_one(k))
            continue;
        c->p->tail_idx[at] = i;
        cuzk_fr_to_canonical(c->p->tail_k[at], k);
        at++;
    }
}

void prove_split_plan_free(prove_split_plan *p)
{
    if (!p)
        return;
    free(p->ones);
    free(p->tail_idx);
    free(p->tail_k);
    memset(p, 0, sizeof *p);
}

int prove_split_plan_build(prove_split_plan *p, const cuzk_fr *scalars, size_t n, bool allow_split,
                           cuzk_pool *pool)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    if (!allow_split || n == 0)
        return CUZK_OK;
    size_t nblocks = prove_blocks(n, SPLIT_BLOCK);
    plan_ctx c = {.p = p, .scalars = scalars, .counts = malloc(nblocks * sizeof(size_t))};
    p->ones = calloc(prove_blocks(n, 64), sizeof *p->ones);
    if (!c.counts || !p->ones)
        goto nomem;
    cuzk_pool_run(pool, nblocks, plan_count_task, &c);
    size_t total = 0;
    for (size_t b = 0; b < nblocks; b++) {
        size_t cnt = c.counts[b];
        c.counts[b] = total;
        total += cnt;
    }
    if (2 * total > n) {
        free(c.counts);
        free(p->ones);
        p->ones = NULL;
        return CUZK_OK;
    }
    p->split = true;
    p->n_tail = total;
    p->tail_idx = malloc((total ? total : 1) * sizeof *p->tail_idx);
    p->tail_k = malloc((total ? total : 1) * sizeof *p->tail_k);
    if (!p->tail_idx || !p->tail_k)
        goto nomem;
    if (total)
        cuzk_pool_run(pool, nblocks, plan_fill_task, &c);
    for (size_t w = 0; w < prove_blocks(n, 64); w++)
        p->n_ones += (size_t)__builtin_popcountll(p->ones[w]);
    free(c.counts);
    return CUZK_OK;
nomem:
    free(c.counts);
    prove_split_plan_free(p);
    return CUZK_ENOMEM;
}

/* The split MSM for one group: G is g1 or g2. */
#define DEFINE_SPLIT_MSM(G)                                                                                  \
    typedef struct {                                                                                         \
        const prove_split_plan *p;                                                                           \
        const cuzk_##G##_affine *bases;                                                                      \
        cuzk_##G##_affine *out;                                                                              \
    } G##_gather_ctx;                                                                                        \
                                                                                                             \
    static void G##_gather_task(void *arg, size_t task, int worker)                                          \
    {                                                                                                        \
        G##_gather_ctx *c = arg;                                                                             \
        size_t lo = task * GATHER_BLOCK, hi = lo + GATHER_BLOCK;                                             \
        if (hi > c->p->n_tail)                                                                               \
            hi = c->p->n_tail;                                                                               \
        for (size_t t = lo; t < hi; t++)                                                                     \
            c->out[t] = c->bases[c->p->tail_idx[t]];                                                         \
    }                                                                                                        \
                                                                                                             \
    int prove_split_msm_##G(cuzk_##G *out, const prove_split_plan *p, const cuzk_##G##_affine *bases,        \
                            const cuzk_fr *scalars, cuzk_pool *pool)                                         \
    {                                                                                                        \
        if (!p->split) {                                                                                     \
            if (p->n == 0) {                                                                                 \
                cuzk_##G##_set_identity(out);                                                                \
                return CUZK_OK;                                                                              \
            }                                                                                                \
            return cuzk_##G##_msm(out, bases, scalars, p->n, pool);                                          \
        }                                                                                                    \
        cuzk_##G ones, tail;                                                                                 \
        cuzk_##G##_set_identity(&ones);                                                                      \
        cuzk_##G##_set_identity(&tail);                                                                      \
        int rc;                                                                                              \
        if (p->n_ones && (rc = cuzk_##G##_sum(&ones, bases, p->ones, p->n, pool)))                           \
            return rc;                                                                                       \
        if (p->n_tail) {                                                                                     \
            G##_gather_ctx c = {.p = p, .bases = bases, .out = malloc(p->n_tail * sizeof *c.out)};           \
            if (!c.out)                                                                                      \
                return CUZK_ENOMEM;                                                                          \
            cuzk_pool_run(pool, prove_blocks(p->n_tail, GATHER_BLOCK), G##_gather_task, &c);                 \
            rc = cuzk_##G##_msm_u64(&tail, c.out, (const uint64_t(*)[4])p->tail_k, p->n_tail, pool);         \
            free(c.out);                                                                                     \
            if (rc)                                                                                          \
                return rc;                                                                                   \
        }                                                                                                    \
        cuzk_##G##_add(out, &ones, &tail);                                                                   \
        return CUZK_OK;                                                                                      \
    }                                                                                                        \
                                                                                                             \
    int cuzk_##G##_msm_split(cuzk_##G *out, const cuzk_##G##_affine *bases, const cuzk_fr *scalars,          \
                             size_t n, cuzk_pool *pool)                                                      \
    {                                                                                                        \
        prove_split_plan p;                                                                                  \
        int rc = prove_split_plan_build(&p, scalars, n, true, pool);                                         \
        if (rc)                                                                                              \
            return rc;                                                                                       \
        rc = prove_split_msm_##G(out, &p, bases, scalars, pool);                                             \
        prove_split_plan_free(&p);                                                                           \
        return rc;                                                                                           \
    }

DEFINE_SPLIT_MSM(g1)
DEFINE_SPLIT_MSM(g2)

/* ---- r and s -------------------------------------------------------------------------- */

void prove_wipe(void *p, size_t n)
{
    volatile unsigned char *b = p;
    while (n--)
        *b++ = 0;
}

int prove_scalar(cuzk_fr *out, const cuzk_fr *given, const char *name, char *err, size_t errlen)
{
    if (given) {
        *out = *given;
        return CUZK_OK;
    }
    if (cuzk_fr_random(out) != CUZK_OK)
        return cuzk_fail(err, errlen, CUZK_EIO, "prove: getrandom failed drawing %s: %s", name, strerror(errno));
    return CUZK_OK;
}

/* ---- pointwise steps ------------------------------------------------------------------ */

typedef struct {
    cuzk_fr *a;
    const cuzk_fr *b, *c, *k;
    size_t n;
    _Atomic int64_t first_bad;
} vec_ctx;

static void vec_mul_task(void *arg, size_t task, int worker)
{
    vec_ctx *v = arg;
    size_t lo = task * VEC_BLOCK, hi = lo + VEC_BLOCK;
    if (hi > v->n)
        hi = v->n;
    for (size_t i = lo; i < hi; i++)
        cuzk_fr_mul(&v->a[i], &v->a[i], &v->b[i]);
}

void prove_vec_mul(cuzk_fr *a, const cuzk_fr *b, size_t n, cuzk_pool *pool)
{
    vec_ctx v = {.a = a, .b = b, .n = n};
    cuzk_pool_run(pool, prove_blocks(n, VEC_BLOCK), vec_mul_task, &v);
}

static void vec_quotient_task(void *arg, size_t task, int worker)
{
    vec_ctx *v = arg;
    size_t lo = task * VEC_BLOCK, hi = lo + VEC_BLOCK;
    if (hi > v->n)
        hi = v->n;
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &v->a[i], &v->b[i]);
        cuzk_fr_sub(&t, &t, &v->c[i]);
        if (v->k)
            cuzk_fr_mul(&t, &t, v->k);
        v->a[i] = t;
    }
}

void prove_vec_quotient(cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, const cuzk_fr *k, size_t n,
                        cuzk_pool *pool)
{
    vec_ctx v = {.a = a, .b = b, .c = c, .k = k, .n = n};
    cuzk_pool_run(pool, prove_blocks(n, VEC_BLOCK), vec_quotient_task, &v);
}

static void unsat_task(void *arg, size_t task, int worker)
{
    vec_ctx *v = arg;
    size_t lo = task * VEC_BLOCK, hi = lo + VEC_BLOCK;
    if (hi > v->n)
        hi = v->n;
    if ((int64_t)lo >= atomic_load_explicit(&v->first_bad, memory_order_relaxed))
        return;
    for (size_t i = lo; i < hi; i++) {
        cuzk_fr t;
        cuzk_fr_mul(&t, &v->a[i], &v->b[i]);
        if (cuzk_fr_eq(&t, &v->c[i]))
            continue;
        int64_t cur = atomic_load_explicit(&v->first_bad, memory_order_relaxed);
        while ((int64_t)i < cur &&
               !atomic_compare_exchange_weak_explicit(&v->first_bad, &cur, (int64_t)i, memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
        return;
    }
}

int64_t prove_first_unsat(const cuzk_fr *a, const cuzk_fr *b, const cuzk_fr *c, size_t n, cuzk_pool *pool)
{
    vec_ctx v = {.a = (cuzk_fr *)a, .b = b, .c = c, .n = n};
    atomic_init(&v.first_bad, INT64_MAX);
    cuzk_pool_run(pool, prove_blocks(n, VEC_BLOCK), unsat_task, &v);
    int64_t bad = atomic_load(&v.first_bad);
    return bad == INT64_MAX ? -1 : bad;
}

int prove_to_coset(const cuzk_ntt_domain *d, cuzk_fr *x, cuzk_pool *pool, char *err, size_t errlen)
{
    int rc = cuzk_ntt(d, x, CUZK_NTT_INVERSE, CUZK_NTT_NR, false, pool, err, errlen);
    if (!rc)
        rc = cuzk_ntt(d, x, CUZK_NTT_FORWARD, CUZK_NTT_RN, true, pool, err, errlen);
    return rc;
}

/* ---- verification --------------------------------------------------------------------- */

int prove_verify(const cuzk_groth16_vk *vk, const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs,
                 size_t n_inputs, const cuzk_groth16_proof *proof, char *err, size_t errlen)
{
    cuzk_groth16_pvk *own = NULL;
    int rc;
    if (!pvk) {
        if (!(own = malloc(sizeof *own)))
            return cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory preparing the verifying key");
        if ((rc = cuzk_groth16_prepare(own, vk, err, errlen))) {
            free(own);
            return rc;
        }
        pvk = own;
    }
    char inner[160] = "";
    rc = cuzk_groth16_verify(pvk, inputs, n_inputs, proof, inner, sizeof inner);
    free(own);
    if (rc == CUZK_EVERIFY)
        return cuzk_fail(err, errlen, CUZK_EVERIFY,
                         "prove: the proof does not verify against the key (wrong key for this circuit?)");
    if (rc)
        return cuzk_fail(err, errlen, rc, "prove: verifying the proof: %s", inner);
    return CUZK_OK;
}

int prove_check_shape(const cuzk_groth16_params *pk, const cuzk_cs *cs, size_t m, size_t pop_a, size_t pop_bi,
                      size_t pop_ba, const char *what, char *err, size_t errlen)
{
    if (pk->n_h != (pk->h_coset ? m : m - 1))
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "%s: the key has %zu h points, the circuit needs %s = %zu (m = %zu for %zu "
                         "constraints + %zu inputs)",
                         what, pk->n_h, pk->h_coset ? "m (coset form)" : "m - 1", pk->h_coset ? m : m - 1, m,
                         cs->n_constraints, cs->n_inputs);
    size_t want_l = cs->n_inputs + cs->n_aux - cuzk_groth16_l_first(pk, cs->n_inputs);
    if (pk->n_l != want_l)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: the key has %zu l points, the circuit has %zu %s",
                         what, pk->n_l, want_l,
                         pk->h_coset ? "variables (coset form: inputs and aux)" : "aux variables");
    if (pk->n_a != cs->n_inputs + pop_a)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "%s: the key has %zu a points, the circuit needs %zu inputs + %zu aux in A = %zu",
                         what, pk->n_a, cs->n_inputs, pop_a, cs->n_inputs + pop_a);
    if (pk->n_b != pop_bi + pop_ba)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "%s: the key has %zu b points, the circuit needs %zu inputs + %zu aux in B = %zu",
                         what, pk->n_b, pop_bi, pop_ba, pop_bi + pop_ba);
    if (pk->vk.n_ic != cs->n_inputs)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: the key has %zu ic points, the circuit %zu inputs",
                         what, pk->vk.n_ic, cs->n_inputs);
    if ((pk->n_h && !pk->h) || (pk->n_l && !pk->l) || (pk->n_a && !pk->a) ||
        (pk->n_b && (!pk->b_g1 || !pk->b_g2)) || !pk->vk.ic)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: the key is missing a query vector", what);
    if (cuzk_g1_affine_is_identity(&pk->vk.delta_g1) || cuzk_g2_affine_is_identity(&pk->vk.delta_g2))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "%s: the key's delta is the identity", what);
    return CUZK_OK;
}
