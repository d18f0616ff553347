/*
 * prove_snarkjs.c — the Groth16 prover in snarkjs's convention, reproducing
 * the arithmetic of snarkjs's groth16 prover (src/groth16_prove.js, 0.7.x)
 * over a .zkey; the contract is in cuzk/prove.h.
 *
 * What snarkjs computes, and how it is done here:
 *   1. A_T[c] = sum of coef · w[signal] over the zkey's section-4 entries of
 *      matrix A with constraint c (B_T likewise); this includes the nPublic+1
 *      input rows setup wrote into A. The entries are ordered by constraint,
 *      so the list is cut into ranges at constraint boundaries and each pool
 *      task owns its rows (a file that is not ordered is done in one task).
 *      A coefficient stored as v·R² times a plain witness value gives the
 *      same Montgomery product as Montgomery v times Montgomery w here.
 *   2. C_T = A_T ∘ B_T on every row: the zkey has no C matrix, and for a
 *      satisfying witness this is C·w. A witness that does not satisfy the
 *      circuit therefore gives a proof that fails to verify; the r1cs, when
 *      the caller has it, allows a real check first.
 *   3. Each of A, B, C: inverse NTT over the domain of size n (ω from 5),
 *      coefficient i times ω_2n^i, forward NTT: the values at the odd powers
 *      of ω_2n. This is the coset transform with shift ω_2n of the
 *      CUZK_NTT_SNARKJS domain, done as NR then RN without permutations.
 *   4. H_i = A_i·B_i − C_i on that coset, not divided by Z (Z = −2 there and
 *      the zkey's H points absorb it): the scalars of the H MSM.
 *   5. MSMs over the decoded point sections: A, B1 (G1) and B2 (G2) with
 *      every witness value (one split plan for the three), C with the values
 *      after the public ones, H with H_i.
 *   6. pi_a = A + α₁ + r·δ₁, pi_b = B2 + β₂ + s·δ₂, b1 = B1 + β₁ + s·δ₁,
 *      pi_c = C + H + s·pi_a + r·b1 − rs·δ₁.
 * Point sections are decoded into arrays once per call (coordinates below p
 * and on the curve, in parallel), each just before its MSM and freed after,
 * so at most one section is resident in decoded form at a time. The proof is
 * then verified against the zkey's own verifying key.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/serialize.h"
#include "groth16/prove_common.h"

#define DECODE_BLOCK 2048 /* points per decoding task */
#define COEF_TASKS 64     /* ranges of section 4 handed to the pool */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- point sections ------------------------------------------------------------------- */

typedef struct {
    const cuzk_snarkjs_points *pts;
    void *out;
    bool g2;
    _Atomic size_t first_bad;
} decode_ctx;

static void decode_task(void *arg, size_t task, int worker)
{
    decode_ctx *c = arg;
    size_t lo = task * DECODE_BLOCK, hi = lo + DECODE_BLOCK;
    if (hi > c->pts->count)
        hi = c->pts->count;
    for (size_t i = lo; i < hi; i++) {
        int rc = c->g2 ? cuzk_snarkjs_points_g2(c->pts, i, 0, (cuzk_g2_affine *)c->out + i, NULL, 0)
                       : cuzk_snarkjs_points_g1(c->pts, i, 0, (cuzk_g1_affine *)c->out + i, NULL, 0);
        if (rc) {
            size_t cur = atomic_load_explicit(&c->first_bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak_explicit(
                                  &c->first_bad, &cur, i, memory_order_relaxed, memory_order_relaxed))
                ;
            return;
        }
    }
}

int prove_zkey_decode(void **out, const cuzk_snarkjs_points *pts, bool g2, cuzk_pool *pool, char *err,
                      size_t errlen)
{
    size_t size = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine);
    decode_ctx c = {.pts = pts, .g2 = g2, .out = malloc((pts->count ? pts->count : 1) * size)};
    *out = NULL;
    if (!c.out)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory decoding %zu points of section %u",
                         pts->count, pts->section);
    atomic_init(&c.first_bad, SIZE_MAX);
    cuzk_pool_run(pool, prove_blocks(pts->count, DECODE_BLOCK), decode_task, &c);
    size_t bad = atomic_load(&c.first_bad);
    if (bad != SIZE_MAX) {
        char inner[160] = "";
        cuzk_g2_affine tmp;
        int rc = g2 ? cuzk_snarkjs_points_g2(pts, bad, 0, &tmp, inner, sizeof inner)
                    : cuzk_snarkjs_points_g1(pts, bad, 0, (cuzk_g1_affine *)&tmp, inner, sizeof inner);
        free(c.out);
        return cuzk_fail(err, errlen, rc ? rc : CUZK_EINVAL, "prove: %s", inner);
    }
    *out = c.out;
    return CUZK_OK;
}

int cuzk_snarkjs_zkey_vk(cuzk_groth16_vk *out, const cuzk_snarkjs_zkey *zk, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->alpha_g1 = zk->alpha1;
    out->beta_g1 = zk->beta1;
    out->delta_g1 = zk->delta1;
    out->beta_g2 = zk->beta2;
    out->gamma_g2 = zk->gamma2;
    out->delta_g2 = zk->delta2;
    if (!(out->ic = malloc((zk->ic.count ? zk->ic.count : 1) * sizeof *out->ic)))
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "zkey: out of memory for %zu IC points", zk->ic.count);
    out->n_ic = zk->ic.count;
    for (size_t i = 0; i < zk->ic.count; i++) {
        int rc = cuzk_snarkjs_points_g1(&zk->ic, i, CUZK_DECODE_CHECK_GROUP, &out->ic[i], err, errlen);
        if (rc) {
            cuzk_groth16_vk_free(out);
            return rc;
        }
    }
    return CUZK_OK;
}

/* ---- A and B evaluations from section 4 ---------------------------------------------- */

typedef struct {
    const cuzk_snarkjs_zkey *zk;
    const cuzk_fr *w;
    cuzk_fr *out[2];
    size_t cut[COEF_TASKS + 1];
} coef_ctx;

static void coef_task(void *arg, size_t task, int worker)
{
    coef_ctx *c = arg;
    for (size_t k = c->cut[task]; k < c->cut[task + 1]; k++) {
        cuzk_snarkjs_coef e;
        cuzk_snarkjs_zkey_coef(c->zk, k, &e);
        cuzk_fr t;
        cuzk_fr_mul(&t, &e.value, &c->w[e.signal]);
        cuzk_fr_add(&c->out[e.matrix][e.constraint], &c->out[e.matrix][e.constraint], &t);
    }
}

static uint32_t coef_row(const cuzk_snarkjs_zkey *zk, size_t k)
{
    return le32(zk->coefs + k * CUZK_ZKEY_COEF_SIZE + 4);
}

/* a, b (domain_size each, zeroed here) = the A and B evaluations on w. */
static void eval_ab(cuzk_fr *a, cuzk_fr *b, const cuzk_snarkjs_zkey *zk, const cuzk_fr *w, cuzk_pool *pool)
{
    coef_ctx c = {.zk = zk, .w = w, .out = {a, b}};
    size_t n = zk->n_coefs, tasks = COEF_TASKS;
    memset(a, 0, zk->domain_size * sizeof *a);
    memset(b, 0, zk->domain_size * sizeof *b);
    for (size_t k = 1; k < n; k++)
        if (coef_row(zk, k) < coef_row(zk, k - 1)) {
            tasks = 1;
            break;
        }
    if (n < 4 * COEF_TASKS)
        tasks = 1;
    /* Cut at constraint boundaries so that no two tasks write one row. */
    c.cut[0] = 0;
    for (size_t t = 1; t < tasks; t++) {
        size_t k = n * t / tasks;
        if (k < c.cut[t - 1])
            k = c.cut[t - 1];
        while (k > 0 && k < n && coef_row(zk, k) == coef_row(zk, k - 1))
            k++;
        c.cut[t] = k;
    }
    c.cut[tasks] = n;
    cuzk_pool_run(pool, tasks, coef_task, &c);
}

/* ---- the prover ----------------------------------------------------------------------- */

int cuzk_groth16_prove_zkey(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk,
                            const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool,
                            char *err, size_t errlen)
{
    return cuzk_groth16_prove_zkey_ex(out, public_out, zk, w, n_w, r, s, NULL, pool, err, errlen);
}

static int check_witness(const cuzk_snarkjs_zkey *zk, const cuzk_fr *w, size_t n_w, const cuzk_cs *cs,
                         cuzk_pool *pool, char *err, size_t errlen)
{
    if (n_w != zk->n_vars)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: the witness has %zu values, the zkey %u variables",
                         n_w, zk->n_vars);
    if (!cuzk_fr_is_one(&w[0]))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: w[0] (the constant wire) must be 1");
    if (!cs)
        return CUZK_OK;
    if (cs->n_inputs != (size_t)zk->n_public + 1 || cs->n_inputs + cs->n_aux != zk->n_vars)
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "prove: the circuit has %zu inputs and %zu aux, the zkey %u public and %u variables",
                         cs->n_inputs, cs->n_aux, zk->n_public, zk->n_vars);
    int64_t bad = cuzk_cs_check(cs, w, pool);
    if (bad >= 0)
        return cuzk_fail(err, errlen, CUZK_EUNSAT,
                         "prove: the witness does not satisfy constraint %lld (A·w · B·w != C·w)",
                         (long long)bad);
    return CUZK_OK;
}

/* H scalars (in->n values, written over in->a) from the evaluations: C = A∘B, the odd-coset transform of
 * all three, A·B − C there. */
static int cpu_h(const prove_zkey_in *in, cuzk_pool *pool, char *err, size_t errlen)
{
    size_t n = in->n;
    cuzk_fr *c = malloc(n * sizeof *c);
    if (!c)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory for 3 x %zu evaluations", n);
    memcpy(c, in->a, n * sizeof *c);
    prove_vec_mul(c, in->b, n, pool);
    cuzk_ntt_domain d;
    int rc = cuzk_ntt_domain_init(&d, in->lg, CUZK_NTT_SNARKJS, err, errlen);
    if (!rc && !(rc = prove_to_coset(&d, in->a, pool, err, errlen)) &&
        !(rc = prove_to_coset(&d, in->b, pool, err, errlen)) &&
        !(rc = prove_to_coset(&d, c, pool, err, errlen)))
        prove_vec_quotient(in->a, in->b, c, NULL, n, pool);
    cuzk_ntt_domain_release(&d);
    free(c);
    return rc;
}

/* Bases that are the identity (variables absent from a query: in a circom chain, almost every B point)
 * add nothing. When they are at least an eighth of a section, the section's MSM runs over the others
 * only: the bases are compacted in place and their scalars copied into *ks (caller frees), and *n
 * becomes the number kept. Returns false (nothing changed) otherwise, or when out of memory. */
static bool drop_identity(void *bases, bool g2, const cuzk_fr *scalars, size_t *n, cuzk_fr **ks)
{
    size_t size = g2 ? sizeof(cuzk_g2_affine) : sizeof(cuzk_g1_affine), n_id = 0;
    unsigned char *b = bases;
    for (size_t i = 0; i < *n; i++)
        n_id += g2 ? cuzk_g2_affine_is_identity((const cuzk_g2_affine *)(b + i * size))
                   : cuzk_g1_affine_is_identity((const cuzk_g1_affine *)(b + i * size));
    if (n_id < *n / 8 || !(*ks = malloc((*n - n_id + 1) * sizeof(cuzk_fr))))
        return false;
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        bool id = g2 ? cuzk_g2_affine_is_identity((const cuzk_g2_affine *)(b + i * size))
                     : cuzk_g1_affine_is_identity((const cuzk_g1_affine *)(b + i * size));
        if (id)
            continue;
        if (k != i)
            memcpy(b + k * size, b + i * size, size);
        (*ks)[k++] = scalars[i];
    }
    *n = k;
    return true;
}

/* out = sum scalars[i] P_i over the section pts (G1, or G2 when g2), decoded here. plan (built from the
 * same scalars) selects the split MSM; NULL = one plain MSM. */
static int msm_section(void *out, const cuzk_snarkjs_points *pts, bool g2, const cuzk_fr *scalars,
                       const prove_split_plan *plan, cuzk_pool *pool, char *err, size_t errlen)
{
    if (plan && plan->n != pts->count)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: section %u has %zu points for %zu scalars",
                         pts->section, pts->count, plan->n);
    void *bases;
    int rc = prove_zkey_decode(&bases, pts, g2, pool, err, errlen);
    if (rc)
        return rc;
    size_t n = pts->count;
    cuzk_fr *ks = NULL;
    prove_split_plan compact = {0};
    if (drop_identity(bases, g2, scalars, &n, &ks)) {
        scalars = ks;
        if (plan) {
            rc = prove_split_plan_build(&compact, ks, n, plan->split, pool);
            plan = &compact;
        }
    }
    if (rc)
        ;
    else if (plan)
        rc = g2 ? prove_split_msm_g2(out, plan, bases, scalars, pool)
                : prove_split_msm_g1(out, plan, bases, scalars, pool);
    else
        rc = g2 ? cuzk_g2_msm(out, bases, scalars, n, pool) : cuzk_g1_msm(out, bases, scalars, n, pool);
    prove_split_plan_free(&compact);
    free(ks);
    free(bases);
    if (rc)
        return cuzk_fail(err, errlen, rc, "prove: MSM over section %u failed: %s", pts->section,
                         cuzk_strerror(rc));
    return CUZK_OK;
}

/* Steps 2-5 on the CPU: H, then the MSMs (each section decoded just before its MSM). */
static int cpu_zkey_heavy(void *ctx, const prove_zkey_in *in, prove_zkey_out *o, cuzk_pool *pool, char *err,
                          size_t errlen)
{
    (void)ctx;
    const cuzk_snarkjs_zkey *zk = in->zk;
    const cuzk_fr *w = in->w;
    size_t n_priv = zk->n_vars - zk->n_public - 1;
    const cuzk_fr *w_priv = w + zk->n_public + 1;
    prove_split_plan plan_w = {0}, plan_c = {0};
    int rc;
    if ((rc = cpu_h(in, pool, err, errlen)) ||
        (rc = msm_section(&o->h, &zk->h, false, in->a, NULL, pool, err, errlen)))
        return rc;
    if ((rc = prove_split_plan_build(&plan_w, w, zk->n_vars, in->split, pool)) ||
        (rc = prove_split_plan_build(&plan_c, w_priv, n_priv, in->split, pool))) {
        rc = cuzk_fail(err, errlen, rc, "prove: out of memory planning the MSMs");
    } else {
        (void)((rc = msm_section(&o->a, &zk->a, false, w, &plan_w, pool, err, errlen)) ||
               (rc = msm_section(&o->b1, &zk->b1, false, w, &plan_w, pool, err, errlen)) ||
               (rc = msm_section(&o->b2, &zk->b2, true, w, &plan_w, pool, err, errlen)) ||
               (rc = msm_section(&o->c, &zk->c, false, w_priv, &plan_c, pool, err, errlen)));
    }
    prove_split_plan_free(&plan_w);
    prove_split_plan_free(&plan_c);
    return rc;
}

int cuzk_groth16_prove_zkey_ex(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk,
                               const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                               const cuzk_prove_opts *opts, cuzk_pool *pool, char *err, size_t errlen)
{
    return prove_snarkjs(out, public_out, zk, w, n_w, r, s, opts, NULL, pool, err, errlen);
}

int prove_snarkjs(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk, const cuzk_fr *w,
                  size_t n_w, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                  const prove_zkey_accel *accel, cuzk_pool *pool, char *err, size_t errlen)
{
    static const prove_zkey_accel cpu = {cpu_zkey_heavy, NULL};
    if (!accel)
        accel = &cpu;
    static const cuzk_prove_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    if (!out || !zk || !w)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: missing proof, zkey or witness");
    int rc;
    if ((rc = check_witness(zk, w, n_w, (opts->flags & CUZK_PROVE_NO_CHECK) ? NULL : opts->cs, pool, err,
                            errlen)))
        return rc;
    cuzk_fr rr, ss, rs;
    size_t n = zk->domain_size;
    unsigned lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "prove: domainSize 2^%u is above 2^%d", lg,
                         CUZK_NTT_MAX_LG);
    prove_zkey_in in = {zk, malloc(n * sizeof(cuzk_fr)),         malloc(n * sizeof(cuzk_fr)), n, lg,
                        w,  !(opts->flags & CUZK_PROVE_NO_SPLIT)};
    prove_zkey_out acc;
    cuzk_g1 pa, pb1, pc, hh, t;
    cuzk_g2 pb, t2;
    if (!in.a || !in.b) {
        rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory for 3 x %zu evaluations", n);
        goto done;
    }
    if ((rc = prove_scalar(&rr, r, "r", err, errlen)) || (rc = prove_scalar(&ss, s, "s", err, errlen)))
        goto done;
    eval_ab(in.a, in.b, zk, w, pool);
    if ((rc = accel->heavy(accel->ctx, &in, &acc, pool, err, errlen)))
        goto done;
    free(in.a);
    free(in.b);
    in.a = in.b = NULL;
    pa = acc.a, pb1 = acc.b1, pb = acc.b2, pc = acc.c, hh = acc.h;

    /* pi_a = A + alpha1 + r delta1 */
    cuzk_g1_add_affine(&pa, &pa, &zk->alpha1);
    cuzk_g1_from_affine(&t, &zk->delta1);
    cuzk_g1_mul_fr(&t, &t, &rr);
    cuzk_g1_add(&pa, &pa, &t);
    /* pi_b = B2 + beta2 + s delta2 */
    cuzk_g2_add_affine(&pb, &pb, &zk->beta2);
    cuzk_g2_from_affine(&t2, &zk->delta2);
    cuzk_g2_mul_fr(&t2, &t2, &ss);
    cuzk_g2_add(&pb, &pb, &t2);
    /* b1 = B1 + beta1 + s delta1 */
    cuzk_g1_add_affine(&pb1, &pb1, &zk->beta1);
    cuzk_g1_from_affine(&t, &zk->delta1);
    cuzk_g1_mul_fr(&t, &t, &ss);
    cuzk_g1_add(&pb1, &pb1, &t);
    /* pi_c = C + H + s pi_a + r b1 - rs delta1 */
    cuzk_g1_add(&pc, &pc, &hh);
    cuzk_g1_mul_fr(&t, &pa, &ss);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_g1_mul_fr(&t, &pb1, &rr);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_fr_mul(&rs, &rr, &ss);
    cuzk_fr_neg(&rs, &rs);
    cuzk_g1_from_affine(&t, &zk->delta1);
    cuzk_g1_mul_fr(&t, &t, &rs);
    cuzk_g1_add(&pc, &pc, &t);

    cuzk_groth16_proof proof;
    cuzk_g1_to_affine(&proof.a, &pa);
    cuzk_g2_to_affine(&proof.b, &pb);
    cuzk_g1_to_affine(&proof.c, &pc);
    if (!(opts->flags & CUZK_PROVE_NO_VERIFY)) {
        cuzk_groth16_vk vk = {0};
        if (!opts->pvk && (rc = cuzk_snarkjs_zkey_vk(&vk, zk, err, errlen)))
            goto done;
        rc = prove_verify(&vk, opts->pvk, w + 1, zk->n_public, &proof, err, errlen);
        cuzk_groth16_vk_free(&vk);
        if (rc)
            goto done;
    }
    *out = proof;
    if (public_out)
        memcpy(public_out, w + 1, zk->n_public * sizeof *public_out);
    rc = CUZK_OK;
done:
    free(in.a);
    free(in.b);
    prove_wipe(&rr, sizeof rr);
    prove_wipe(&ss, sizeof ss);
    prove_wipe(&rs, sizeof rs);
    return rc;
}
