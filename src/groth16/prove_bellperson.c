/*
 * prove_bellperson.c — the Groth16 prover in bellperson's convention
 * (prover-internals.md §1.2–1.7); the contract is in cuzk/prove.h.
 *
 * Steps, in the order memory allows freeing early:
 *   1. Shape. n = n_constraints + n_inputs rows (the circuit, then one row
 *      z_i · 0 = 0 per input, ONE first), m = 2^ceil(log2 n). The density
 *      bitmaps come from the constraint system; every size of the key is
 *      checked against them before any work (|h| = m - 1, |l| = n_aux,
 *      |a| = n_inputs + popcount(a_aux), |b| = popcount(b_input) +
 *      popcount(b_aux), |ic| = n_inputs), because a mismatch would silently
 *      pair scalars with the wrong points.
 *   2. Evaluations a, b, c on the m rows (cuzk_cs_eval, then a[n_c + i] =
 *      z_i, zero padding). The witness check reads these same vectors, so it
 *      costs one multiplication per row.
 *   3. H. Each vector goes iNTT (natural → bit-reversed) then coset NTT
 *      (bit-reversed → natural, shift 7), so no permutation pass is needed;
 *      then a = (a·b − c)·(7^m − 1)^-1 and an inverse coset NTT gives the
 *      quotient's coefficients, of which the first m − 1 are the H scalars.
 *      The transforms are the same linear maps bellperson applies, so the
 *      coefficients are identical. A key in the coset form (cuzk/groth16.h)
 *      takes a·b on the coset as its m H scalars instead: c is not
 *      transformed, and the quotient's C part comes from l (over all of z).
 *   4. MSMs: H over all m − 1 points, L over all aux, A over inputs ‖
 *      density-selected aux, B (G1 and G2, one split plan) over selected
 *      inputs ‖ selected aux; L, A and B use the split MSM unless disabled.
 *   5. Assembly (§1.6): A = α + A_acc + rδ, B = β + B2_acc + sδ,
 *      C = s·A_acc + r·B1_acc + rs·δ + s·α + r·β₁ + H + L, then affine.
 *   6. Verification against pk->vk with the inputs z[1 .. n_inputs).
 * Steps 3-4 are the "heavy middle" (prove_accel in prove_common.h): the CPU
 * code here (cpu_heavy) by default, or a device backend's (the CUDA one in
 * src/gpu/prove.cu), so both run the same checks, assembly and verification.
 * The A and B scalars are gathered before the heavy middle, so a backend gets
 * everything at once.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "groth16/prove_common.h"

static bool bit(const uint64_t *bits, size_t i)
{
    return (bits[i / 64] >> (i % 64)) & 1;
}

typedef struct {
    cuzk_fr *a, *b, *c;       /* m evaluations each, then the H vector in a */
    cuzk_fr *sa, *sb;         /* compacted A and B scalars */
    uint64_t *da, *dbi, *dba; /* density bitmaps computed here (NULL when the caller's are used) */
    const uint64_t *ua, *ubi, *uba; /* the bitmaps in use: these or the caller's */
} work;

static void work_free(work *w)
{
    free(w->a);
    free(w->b);
    free(w->c);
    free(w->sa);
    free(w->sb);
    free(w->da);
    free(w->dbi);
    free(w->dba);
}

/* Copies of the caller's evaluations, in blocks over the pool. */
#define ABC_COPY_BLOCK ((size_t)1 << 16)
typedef struct {
    cuzk_fr *dst[3];
    const cuzk_fr *src[3];
    size_t n;
} abc_copy;

static void abc_copy_task(void *arg, size_t task, int worker)
{
    (void)worker;
    abc_copy *x = arg;
    size_t blocks = (x->n + ABC_COPY_BLOCK - 1) / ABC_COPY_BLOCK, j = task / blocks;
    size_t lo = (task % blocks) * ABC_COPY_BLOCK, cnt = x->n - lo < ABC_COPY_BLOCK ? x->n - lo : ABC_COPY_BLOCK;
    memcpy(x->dst[j] + lo, x->src[j] + lo, cnt * sizeof(cuzk_fr));
}

/* Step 2: the evaluations a, b, c on the m rows (inputs' rows appended, zero padding), checked. Given
 * (abc, all three), the circuit rows are copied from there instead of evaluated. */
static int eval_abc(work *w, const cuzk_cs *cs, const cuzk_fr *z, const cuzk_fr *const abc[3], size_t m,
                    bool check, cuzk_pool *pool, char *err, size_t errlen)
{
    size_t nc = cs->n_constraints, ni = cs->n_inputs;
    w->a = malloc(m * sizeof(cuzk_fr));
    w->b = malloc(m * sizeof(cuzk_fr));
    w->c = malloc(m * sizeof(cuzk_fr));
    if (!w->a || !w->b || !w->c)
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory for 3 x %zu evaluations", m);
    if (abc[0] && abc[1] && abc[2]) {
        abc_copy x = {{w->a, w->b, w->c}, {abc[0], abc[1], abc[2]}, nc};
        if (nc)
            cuzk_pool_run(pool, 3 * ((nc + ABC_COPY_BLOCK - 1) / ABC_COPY_BLOCK), abc_copy_task, &x);
    } else {
        cuzk_cs_eval(cs, z, w->a, w->b, w->c, pool);
    }
    if (check) {
        int64_t bad = prove_first_unsat(w->a, w->b, w->c, nc, pool);
        if (bad >= 0)
            return cuzk_fail(err, errlen, CUZK_EUNSAT,
                             "prove: the witness does not satisfy constraint %lld (A·z · B·z != C·z)",
                             (long long)bad);
    }
    memcpy(w->a + nc, z, ni * sizeof(cuzk_fr));
    memset(w->a + nc + ni, 0, (m - nc - ni) * sizeof(cuzk_fr));
    memset(w->b + nc, 0, (m - nc) * sizeof(cuzk_fr));
    memset(w->c + nc, 0, (m - nc) * sizeof(cuzk_fr));
    return CUZK_OK;
}

/* Steps 3-4 on the CPU: the H scalars into in->a (m - 1 used), then the five MSMs. */
static int cpu_heavy(void *ctx, const prove_heavy_in *in, prove_heavy_out *o, cuzk_pool *pool, char *err,
                     size_t errlen)
{
    const cuzk_groth16_params *pk = in->pk;
    size_t m = in->m;
    cuzk_ntt_domain d;
    int rc = cuzk_ntt_domain_init(&d, in->lg, CUZK_NTT_BELLPERSON, err, errlen);
    if (rc)
        return rc;
    if (!(rc = prove_to_coset(&d, in->a, pool, err, errlen)) &&
        !(rc = prove_to_coset(&d, in->b, pool, err, errlen))) {
        if (pk->h_coset) { /* the H sum takes A·B on the coset as it is (cuzk/groth16.h) */
            prove_vec_mul(in->a, in->b, m, pool);
        } else if (!(rc = prove_to_coset(&d, in->c, pool, err, errlen))) {
            prove_vec_quotient(in->a, in->b, in->c, &d.z_inv, m, pool);
            rc = cuzk_ntt(&d, in->a, CUZK_NTT_INVERSE, CUZK_NTT_NN, true, pool, err, errlen);
        }
    }
    cuzk_ntt_domain_release(&d);
    if (rc)
        return rc;

    prove_split_plan pl = {0}, pa = {0}, pb = {0};
    const cuzk_fr *ls = in->z_in + cuzk_groth16_l_first(pk, in->ni); /* the L scalars (cuzk/groth16.h) */
    cuzk_g1_set_identity(&o->h);
    if ((pk->n_h && (rc = cuzk_g1_msm(&o->h, pk->h, in->a, pk->n_h, pool))) ||
        (rc = prove_split_plan_build(&pl, ls, pk->n_l, in->split, pool)) ||
        (rc = prove_split_msm_g1(&o->l, &pl, pk->l, ls, pool)) ||
        (rc = prove_split_plan_build(&pa, in->sa, pk->n_a, in->split, pool)) ||
        (rc = prove_split_msm_g1(&o->a, &pa, pk->a, in->sa, pool)) ||
        (rc = prove_split_plan_build(&pb, in->sb, pk->n_b, in->split, pool)) ||
        (rc = prove_split_msm_g1(&o->b1, &pb, pk->b_g1, in->sb, pool)) ||
        (rc = prove_split_msm_g2(&o->b2, &pb, pk->b_g2, in->sb, pool)))
        rc = cuzk_fail(err, errlen, rc, "prove: MSM failed: %s", cuzk_strerror(rc));
    prove_split_plan_free(&pl);
    prove_split_plan_free(&pa);
    prove_split_plan_free(&pb);
    return rc;
}

/* Step 2 when the caller's evaluations go to the accel as they are: only the witness check. */
static int check_rows(const cuzk_fr *const abc[3], size_t nc, bool check, cuzk_pool *pool, char *err,
                      size_t errlen)
{
    if (!check)
        return CUZK_OK;
    int64_t bad = prove_first_unsat(abc[0], abc[1], abc[2], nc, pool);
    if (bad >= 0)
        return cuzk_fail(err, errlen, CUZK_EUNSAT,
                         "prove: the witness does not satisfy constraint %lld (A·z · B·z != C·z)", (long long)bad);
    return CUZK_OK;
}

/* The scalars of the A and B queries, compacted as the key's vectors are: the inputs first (all in A,
 * the dense ones in B), then the aux by blocks of GATHER_BLOCK variables over the pool, each block writing
 * from its offset (the popcounts of the blocks before it). */
#define GATHER_BLOCK ((size_t)1 << 16) /* a multiple of 64 */
typedef struct {
    const work *w;
    const cuzk_fr *zaux;
    size_t n_aux;
    size_t *off; /* per block: A offset, B offset (2 entries) */
} gather_ctx;

static size_t popcount_range(const uint64_t *bits, size_t lo, size_t hi)
{
    size_t c = 0;
    for (size_t i = lo; i < hi; i += 64) {
        uint64_t wd = bits[i / 64];
        if (hi - i < 64)
            wd &= (UINT64_C(1) << (hi - i)) - 1;
        c += (size_t)__builtin_popcountll(wd);
    }
    return c;
}

static void gather_count_task(void *arg, size_t task, int worker)
{
    (void)worker;
    gather_ctx *x = arg;
    size_t lo = task * GATHER_BLOCK, hi = lo + GATHER_BLOCK < x->n_aux ? lo + GATHER_BLOCK : x->n_aux;
    x->off[2 * task] = popcount_range(x->w->ua, lo, hi);
    x->off[2 * task + 1] = popcount_range(x->w->uba, lo, hi);
}

static void gather_fill_task(void *arg, size_t task, int worker)
{
    (void)worker;
    gather_ctx *x = arg;
    const work *w = x->w;
    size_t lo = task * GATHER_BLOCK, hi = lo + GATHER_BLOCK < x->n_aux ? lo + GATHER_BLOCK : x->n_aux;
    size_t ka = x->off[2 * task], kb = x->off[2 * task + 1];
    for (size_t j = lo; j < hi; j++) {
        if (bit(w->ua, j))
            w->sa[ka++] = x->zaux[j];
        if (bit(w->uba, j))
            w->sb[kb++] = x->zaux[j];
    }
}

static int gather_scalars(work *w, const cuzk_cs *cs, const cuzk_fr *z, size_t n_a, size_t n_b,
                          cuzk_pool *pool, char *err, size_t errlen)
{
    size_t ni = cs->n_inputs, blocks = (cs->n_aux + GATHER_BLOCK - 1) / GATHER_BLOCK;
    w->sa = malloc((n_a ? n_a : 1) * sizeof(cuzk_fr));
    w->sb = malloc((n_b ? n_b : 1) * sizeof(cuzk_fr));
    size_t *off = malloc((2 * blocks + 2) * sizeof *off);
    if (!w->sa || !w->sb || !off) {
        free(off);
        return cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory for the A and B scalars");
    }
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < ni; i++) {
        w->sa[ka++] = z[i];
        if (bit(w->ubi, i))
            w->sb[kb++] = z[i];
    }
    gather_ctx x = {w, z + ni, cs->n_aux, off};
    cuzk_pool_run(pool, blocks, gather_count_task, &x);
    for (size_t t = 0; t < blocks; t++) { /* counts -> offsets */
        size_t ca = off[2 * t], cb = off[2 * t + 1];
        off[2 * t] = ka, off[2 * t + 1] = kb;
        ka += ca, kb += cb;
    }
    if (ka != n_a || kb != n_b) { /* bitmaps that disagree with the counts the shape was checked with */
        free(off);
        return cuzk_fail(err, errlen, CUZK_EINVAL,
                         "prove: the density bitmaps select %zu A and %zu B scalars, the key has %zu and %zu", ka,
                         kb, n_a, n_b);
    }
    cuzk_pool_run(pool, blocks, gather_fill_task, &x);
    free(off);
    return CUZK_OK;
}

int cuzk_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                       const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool, char *err,
                       size_t errlen)
{
    return cuzk_groth16_prove_ex(out, pk, cs, z, r, s, NULL, pool, err, errlen);
}

int cuzk_groth16_prove_ex(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                          const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                          cuzk_pool *pool, char *err, size_t errlen)
{
    return prove_bellperson(out, pk, cs, z, r, s, opts, NULL, pool, err, errlen);
}

int prove_bellperson(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                     const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                     const prove_accel *accel, cuzk_pool *pool, char *err, size_t errlen)
{
    static const prove_accel cpu = {cpu_heavy, NULL, false, false};
    if (!accel)
        accel = &cpu;
    static const cuzk_prove_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    if (!out || !pk || !cs || !z)
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: missing proof, key, circuit or witness");
    if (cs->n_inputs == 0 || !cuzk_fr_is_one(&z[0]))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "prove: z[0] (the variable ONE) must be 1");
    size_t n = cs->n_constraints + cs->n_inputs;
    unsigned lg = 0;
    while (lg <= CUZK_NTT_MAX_LG && ((size_t)1 << lg) < n)
        lg++;
    if (lg > CUZK_NTT_MAX_LG)
        return cuzk_fail(err, errlen, CUZK_ERANGE, "prove: %zu rows need a domain above 2^%d", n,
                         CUZK_NTT_MAX_LG);
    size_t m = (size_t)1 << lg;

    work w = {0};
    int rc;
    cuzk_fr rr, ss, rs;
    if (opts->density[0] && opts->density[1] && opts->density[2]) {
        w.ua = opts->density[0], w.ubi = opts->density[1], w.uba = opts->density[2];
    } else {
        w.da = calloc((cs->n_aux + 63) / 64 + 1, sizeof(uint64_t));
        w.dbi = calloc((cs->n_inputs + 63) / 64 + 1, sizeof(uint64_t));
        w.dba = calloc((cs->n_aux + 63) / 64 + 1, sizeof(uint64_t));
        if (!w.da || !w.dbi || !w.dba || cuzk_cs_density(cs, w.da, w.dbi, w.dba)) {
            rc = cuzk_fail(err, errlen, CUZK_ENOMEM, "prove: out of memory for the density bitmaps");
            goto done;
        }
        w.ua = w.da, w.ubi = w.dbi, w.uba = w.dba;
    }
    /* counted once by the caller with its bitmaps (the engine, per key), or here */
    bool counted = opts->density_counted && w.ua == opts->density[0];
    size_t pop_a = counted ? opts->density_pop[0] : cuzk_cs_density_count(w.ua, cs->n_aux),
           pop_bi = counted ? opts->density_pop[1] : cuzk_cs_density_count(w.ubi, cs->n_inputs),
           pop_ba = counted ? opts->density_pop[2] : cuzk_cs_density_count(w.uba, cs->n_aux);
    /* the caller's evaluations go to the accel as they are (no padded copies) when it takes them */
    bool rows = accel->rows_ok && opts->abc[0] && opts->abc[1] && opts->abc[2];
    bool dev = accel->evals; /* the accel evaluates, checks and gathers */
    bool check = !(opts->flags & CUZK_PROVE_NO_CHECK);
    if ((rc = prove_check_shape(pk, cs, m, pop_a, pop_bi, pop_ba, "prove", err, errlen)) ||
        (rc = prove_scalar(&rr, r, "r", err, errlen)) || (rc = prove_scalar(&ss, s, "s", err, errlen)) ||
        (rc = (dev    ? CUZK_OK
               : rows ? check_rows(opts->abc, cs->n_constraints, check, pool, err, errlen)
                      : eval_abc(&w, cs, z, opts->abc, m, check, pool, err, errlen))) ||
        (rc = dev ? CUZK_OK : gather_scalars(&w, cs, z, pk->n_a, pk->n_b, pool, err, errlen)))
        goto done;

    prove_heavy_in in = {pk,
                         w.a,
                         w.b,
                         w.c,
                         {opts->abc[0], opts->abc[1], opts->abc[2]},
                         cs->n_constraints,
                         z,
                         cs->n_inputs,
                         m,
                         lg,
                         z + cs->n_inputs,
                         cs->n_aux,
                         w.sa,
                         w.sb,
                         !(opts->flags & CUZK_PROVE_NO_SPLIT),
                         check};
    prove_heavy_out acc;
    if ((rc = accel->heavy(accel->ctx, &in, &acc, pool, err, errlen)))
        goto done;
    free(w.a);
    free(w.b);
    free(w.c);
    w.a = w.b = w.c = NULL;
    cuzk_g1 t;
    cuzk_g2 t2;
    /* A = alpha + A_acc + r delta */
    cuzk_g1 pa, pc;
    cuzk_g1_from_affine(&t, &pk->vk.delta_g1);
    cuzk_g1_mul_fr(&t, &t, &rr);
    cuzk_g1_add_affine(&pa, &acc.a, &pk->vk.alpha_g1);
    cuzk_g1_add(&pa, &pa, &t);
    /* B = beta + B2_acc + s delta */
    cuzk_g2 pb;
    cuzk_g2_from_affine(&t2, &pk->vk.delta_g2);
    cuzk_g2_mul_fr(&t2, &t2, &ss);
    cuzk_g2_add_affine(&pb, &acc.b2, &pk->vk.beta_g2);
    cuzk_g2_add(&pb, &pb, &t2);
    /* C = s A_acc + r B1_acc + rs delta + s alpha + r beta + H + L */
    cuzk_fr_mul(&rs, &rr, &ss);
    cuzk_g1_mul_fr(&pc, &acc.a, &ss);
    cuzk_g1_mul_fr(&t, &acc.b1, &rr);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_g1_from_affine(&t, &pk->vk.delta_g1);
    cuzk_g1_mul_fr(&t, &t, &rs);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_g1_from_affine(&t, &pk->vk.alpha_g1);
    cuzk_g1_mul_fr(&t, &t, &ss);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_g1_from_affine(&t, &pk->vk.beta_g1);
    cuzk_g1_mul_fr(&t, &t, &rr);
    cuzk_g1_add(&pc, &pc, &t);
    cuzk_g1_add(&pc, &pc, &acc.h);
    cuzk_g1_add(&pc, &pc, &acc.l);

    cuzk_groth16_proof proof;
    cuzk_g1_to_affine(&proof.a, &pa);
    cuzk_g2_to_affine(&proof.b, &pb);
    cuzk_g1_to_affine(&proof.c, &pc);
    if (!(opts->flags & CUZK_PROVE_NO_VERIFY) &&
        (rc = prove_verify(&pk->vk, opts->pvk, z + 1, cs->n_inputs - 1, &proof, err, errlen)))
        goto done;
    *out = proof;
    rc = CUZK_OK;
done:
    work_free(&w);
    prove_wipe(&rr, sizeof rr);
    prove_wipe(&ss, sizeof ss);
    prove_wipe(&rs, sizeof rs);
    return rc;
}
