/*
 * test_setup.c — the circuit-specific Groth16 setup of cuzk/setup.h.
 *
 * Oracles, independent of src/groth16/setup.c:
 * - Naive QAP evaluation: the Lagrange polynomials at tau as the products
 *   L_j(tau) = prod_{k != j} (tau - w^k) / (w^j - w^k) over the domain, the
 *   matrices expanded densely here (repeated columns summed, the input rows
 *   z_i · 0 = 0 appended to A), so u_i = sum_j A[j][i] L_j(tau). Every point
 *   of a tiny key must equal [scalar]G computed by the generic scalar
 *   multiplication of cuzk/curve.h, and the root of unity must equal blstrs'
 *   ROOT_OF_UNITY raised to 2^(32 - k) (prover-internals.md §3.2).
 * - Densities and query counts from this file's own per-row merge of the
 *   CSR terms (§1.2, §2.2), for circuits with aux variables missing from A
 *   or B, zero coefficients, repeated and cancelling terms; bellperson's
 *   worked example a·b = c gives the 2136-byte .params file.
 * - The QAP identity: for a satisfying witness, A(X)B(X) - C(X) computed here
 *   by naive interpolation and multiplication is divisible by X^m - 1, and
 *   with the quotient h, sum z u · sum z v - sum z w = h(tau)(tau^m - 1) on
 *   the setup's u, v, w; a broken witness leaves a remainder.
 * - Proofs: a prover written here (MSMs over the key's points with the
 *   quotient above, random r and s) and cuzk_groth16_prove both make proofs
 *   that cuzk_groth16_verify accepts under the key's vk, and rejects with a
 *   changed public input.
 * - Fixed-base multiplication against cuzk_g1_mul_fr / cuzk_g2_mul_fr for
 *   every window size, for 0, 1, -1 and for scalars crafted so that the
 *   partial sum meets the last table point (the doubling branch).
 * Bad toxic waste, malformed constraint systems and unconstrained variables
 * are refused; a two-thread setup equals a single-thread one byte for byte;
 * keys survive a .params/.vk round trip.
 *
 * Timing mode: CUZK_SETUP_BENCH=<lg>[:<threads>] times a setup (and a proof)
 * of a random circuit with 2^lg rows including the input rows, then exits.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/params.h"
#include "cuzk/prove.h"
#include "cuzk/porep_synth.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
#include "testutil.h"

/* ---- small helpers ---------------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time of the whole process (all threads): on a shared machine, wall time also counts the waits. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static bool msg_has(const char *err, const char *needle)
{
    bool ok = strstr(err, needle) != NULL;
    if (!ok)
        printf("  message was: %s\n", err);
    return ok;
}

static void rand_nonzero_fr(cuzk_fr *r)
{
    do
        test_rand_fr(r);
    while (cuzk_fr_is_zero(r));
}

static void fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e)
{
    cuzk_fr_pow(r, a, &e, 1);
}

static void g1_gen_mul(cuzk_g1_affine *out, const cuzk_fr *k)
{
    cuzk_g1 t;
    cuzk_g1_from_affine(&t, &CUZK_G1_GENERATOR);
    cuzk_g1_mul_fr(&t, &t, k);
    cuzk_g1_to_affine(out, &t);
}

static void g2_gen_mul(cuzk_g2_affine *out, const cuzk_fr *k)
{
    cuzk_g2 t;
    cuzk_g2_from_affine(&t, &CUZK_G2_GENERATOR);
    cuzk_g2_mul_fr(&t, &t, k);
    cuzk_g2_to_affine(out, &t);
}

/* ---- circuits ------------------------------------------------------------------------------ */

typedef struct {
    size_t nin, naux, nc; /* nc >= naux, so every aux variable owns a row */
    unsigned no_a;        /* aux i with i % no_a == no_a - 1 never appears in A (0: none) */
    unsigned no_b;        /* likewise for B */
    bool b_inputs;        /* inputs may appear in B */
    bool tricky;          /* zero coefficients, repeated columns, cancelling pairs */
} shape;

typedef struct {
    cuzk_cs cs;
    cuzk_fr *z; /* satisfying witness, z[0] = 1 */
} circuit;

#define MAX_TERMS 8

static void csr_alloc(cuzk_csr *m, size_t rows)
{
    m->row = calloc(rows + 1, sizeof *m->row);
    m->col = malloc((rows * MAX_TERMS + 1) * sizeof *m->col);
    m->val = malloc((rows * MAX_TERMS + 1) * sizeof *m->val);
    m->nnz = 0;
}

static void csr_push(cuzk_csr *m, size_t var, const cuzk_fr *coef)
{
    m->col[m->nnz] = (uint32_t)var;
    m->val[m->nnz] = *coef;
    m->nnz++;
}

static void circuit_free(circuit *c)
{
    cuzk_csr *m[3] = {&c->cs.a, &c->cs.b, &c->cs.c};
    for (int i = 0; i < 3; i++) {
        free(m[i]->row);
        free(m[i]->col);
        free(m[i]->val);
    }
    free(c->z);
    memset(c, 0, sizeof *c);
}

/* A random variable allowed in matrix mat (0 = A, 1 = B) under shape s. */
static size_t pick_var(const shape *s, int mat)
{
    bool inputs_ok = mat == 0 || s->b_inputs;
    unsigned skip = mat == 0 ? s->no_a : s->no_b;
    for (;;) {
        if (s->naux == 0 || (inputs_ok && test_rand64() % 8 == 0)) {
            if (inputs_ok)
                return test_rand64() % s->nin;
            continue;
        }
        size_t i = test_rand64() % s->naux;
        if (skip && i % skip == skip - 1)
            continue;
        return s->nin + i;
    }
}

/* Appends 1..3 random terms (tricky: zero coefficients, repeats, cancelling pairs) to m and returns
 * their value on z. */
static void random_lc(cuzk_csr *m, const shape *s, int mat, const cuzk_fr *z, cuzk_fr *value)
{
    size_t nt = 1 + test_rand64() % 3;
    cuzk_fr acc = CUZK_FR_ZERO, c, t;
    for (size_t k = 0; k < nt; k++) {
        size_t v = pick_var(s, mat);
        unsigned kind = s->tricky ? (unsigned)(test_rand64() % 8) : 7;
        test_rand_fr(&c);
        if (kind == 0)
            c = CUZK_FR_ZERO;
        csr_push(m, v, &c);
        cuzk_fr_mul(&t, &c, &z[v]);
        cuzk_fr_add(&acc, &acc, &t);
        if (kind == 1 || kind == 2) {
            if (kind == 1)
                cuzk_fr_neg(&c, &c);
            else
                test_rand_fr(&c);
            csr_push(m, v, &c);
            cuzk_fr_mul(&t, &c, &z[v]);
            cuzk_fr_add(&acc, &acc, &t);
        }
    }
    *value = acc;
}

/* A random satisfiable circuit of the given shape in which every aux variable has a non-zero merged
 * coefficient somewhere (its own row's C term). */
static void circuit_random(circuit *c, const shape *s)
{
    size_t nv = s->nin + s->naux;
    memset(c, 0, sizeof *c);
    c->cs.n_inputs = s->nin;
    c->cs.n_aux = s->naux;
    c->cs.n_constraints = s->nc;
    c->z = malloc(nv * sizeof *c->z);
    c->z[0] = CUZK_FR_ONE;
    for (size_t i = 1; i < nv; i++)
        rand_nonzero_fr(&c->z[i]);
    cuzk_fr *zinv = malloc(nv * sizeof *zinv), *scr = malloc(nv * sizeof *scr);
    cuzk_fr_batch_inv(zinv, c->z, nv, scr);
    csr_alloc(&c->cs.a, s->nc);
    csr_alloc(&c->cs.b, s->nc);
    csr_alloc(&c->cs.c, s->nc);
    for (size_t j = 0; j < s->nc; j++) {
        cuzk_fr av, bv, p, cv = CUZK_FR_ZERO, f, t;
        random_lc(&c->cs.a, s, 0, c->z, &av);
        random_lc(&c->cs.b, s, 1, c->z, &bv);
        cuzk_fr_mul(&p, &av, &bv);
        size_t extra = test_rand64() % 3;
        size_t own = s->naux ? s->nin + j % s->naux : 0;
        cuzk_fr own_sum = CUZK_FR_ZERO; /* the own variable's total coefficient in this C row */
        for (size_t k = 0; k < extra; k++) {
            size_t v = test_rand64() % nv;
            test_rand_fr(&f);
            csr_push(&c->cs.c, v, &f);
            cuzk_fr_mul(&t, &f, &c->z[v]);
            cuzk_fr_add(&cv, &cv, &t);
            if (v == own)
                cuzk_fr_add(&own_sum, &own_sum, &f);
        }
        cuzk_fr_sub(&f, &p, &cv);
        cuzk_fr_mul(&f, &f, &zinv[own]);
        csr_push(&c->cs.c, own, &f);
        cuzk_fr_add(&own_sum, &own_sum, &f);
        /* An extra term on the own variable can cancel its fix-up (e.g. A·B = 0 in
         * a tricky row); keep it constrained with + own - z_own · ONE. */
        if (cuzk_fr_is_zero(&own_sum) && own) {
            csr_push(&c->cs.c, own, &CUZK_FR_ONE);
            cuzk_fr_neg(&t, &c->z[own]);
            csr_push(&c->cs.c, 0, &t);
        }
        c->cs.a.row[j + 1] = c->cs.a.nnz;
        c->cs.b.row[j + 1] = c->cs.b.nnz;
        c->cs.c.row[j + 1] = c->cs.c.nnz;
    }
    free(zinv);
    free(scr);
}

/* bellperson's worked example: a · b = c with c public (inputs ONE, c; aux a, b). */
static void circuit_mul(circuit *c)
{
    memset(c, 0, sizeof *c);
    c->cs.n_inputs = 2;
    c->cs.n_aux = 2;
    c->cs.n_constraints = 1;
    c->z = malloc(4 * sizeof *c->z);
    c->z[0] = CUZK_FR_ONE;
    rand_nonzero_fr(&c->z[2]);
    rand_nonzero_fr(&c->z[3]);
    cuzk_fr_mul(&c->z[1], &c->z[2], &c->z[3]);
    csr_alloc(&c->cs.a, 1);
    csr_alloc(&c->cs.b, 1);
    csr_alloc(&c->cs.c, 1);
    csr_push(&c->cs.a, 2, &CUZK_FR_ONE);
    csr_push(&c->cs.b, 3, &CUZK_FR_ONE);
    csr_push(&c->cs.c, 1, &CUZK_FR_ONE);
    c->cs.a.row[1] = c->cs.b.row[1] = c->cs.c.row[1] = 1;
}

/* Per-variable density of one matrix by merging each row's terms here: dense[i] = variable i has a
 * non-zero summed coefficient in some row. */
static void test_density(bool *dense, const cuzk_csr *m, size_t rows, size_t nv)
{
    memset(dense, 0, nv * sizeof *dense);
    for (size_t j = 0; j < rows; j++)
        for (uint64_t k = m->row[j]; k < m->row[j + 1]; k++) {
            cuzk_fr sum = CUZK_FR_ZERO;
            for (uint64_t q = m->row[j]; q < m->row[j + 1]; q++)
                if (m->col[q] == m->col[k])
                    cuzk_fr_add(&sum, &sum, cuzk_csr_coef(m, q));
            if (!cuzk_fr_is_zero(&sum))
                dense[m->col[k]] = true;
        }
}

/* The counts of §2.2 from this file's densities. */
static void expected_counts(const cuzk_cs *cs, size_t *n_a, size_t *n_b, bool *in_a, bool *in_b)
{
    size_t nv = cs->n_inputs + cs->n_aux;
    test_density(in_a, &cs->a, cs->n_constraints, nv);
    test_density(in_b, &cs->b, cs->n_constraints, nv);
    *n_a = *n_b = 0;
    for (size_t i = 0; i < nv; i++) {
        if (i < cs->n_inputs)
            in_a[i] = true; /* the input rows */
        *n_a += in_a[i];
        *n_b += in_b[i];
    }
}

/* ---- the naive QAP ------------------------------------------------------------------------- */

/* blstrs' ROOT_OF_UNITY (canonical, big-endian hex), §3.2. */
static const char ROOT_HEX[] = "16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b";

static size_t domain_of(const cuzk_cs *cs, unsigned *lg)
{
    size_t n = cs->n_constraints + cs->n_inputs, m = 1;
    *lg = 0;
    while (m < n) {
        m <<= 1;
        (*lg)++;
    }
    return m;
}

/* ω_lg = ROOT^(2^(32 - lg)) computed here by squarings. */
static void omega_of(cuzk_fr *w, unsigned lg)
{
    hex_fr(w, ROOT_HEX);
    for (unsigned i = lg; i < 32; i++)
        cuzk_fr_sqr(w, w);
}

/* L_j(tau) for j < n as products over the m domain points. */
static void naive_lagrange(cuzk_fr *L, size_t n, const cuzk_fr *tau, unsigned lg)
{
    size_t m = (size_t)1 << lg;
    cuzk_fr w, *pts = malloc(m * sizeof *pts);
    omega_of(&w, lg);
    pts[0] = CUZK_FR_ONE;
    for (size_t k = 1; k < m; k++)
        cuzk_fr_mul(&pts[k], &pts[k - 1], &w);
    for (size_t j = 0; j < n; j++) {
        cuzk_fr num = CUZK_FR_ONE, den = CUZK_FR_ONE, t;
        for (size_t k = 0; k < m; k++) {
            if (k == j)
                continue;
            cuzk_fr_sub(&t, tau, &pts[k]);
            cuzk_fr_mul(&num, &num, &t);
            cuzk_fr_sub(&t, &pts[j], &pts[k]);
            cuzk_fr_mul(&den, &den, &t);
        }
        cuzk_fr_inv(&den, &den);
        cuzk_fr_mul(&L[j], &num, &den);
    }
    free(pts);
}

/* u, v, w from the dense expansion of the matrices with the input rows appended. */
static void naive_qap(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_fr *tau)
{
    unsigned lg;
    domain_of(cs, &lg);
    size_t nv = cs->n_inputs + cs->n_aux, n = cs->n_constraints + cs->n_inputs;
    cuzk_fr *L = malloc(n * sizeof *L), *dense = calloc(n * nv, sizeof *dense), t;
    naive_lagrange(L, n, tau, lg);
    const cuzk_csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_fr *outs[3] = {u, v, w};
    for (int mi = 0; mi < 3; mi++) {
        memset(dense, 0, n * nv * sizeof *dense);
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t k = mats[mi]->row[j]; k < mats[mi]->row[j + 1]; k++)
                cuzk_fr_add(&dense[j * nv + mats[mi]->col[k]], &dense[j * nv + mats[mi]->col[k]],
                            &mats[mi]->val[k]);
        if (mi == 0)
            for (size_t i = 0; i < cs->n_inputs; i++)
                dense[(cs->n_constraints + i) * nv + i] = CUZK_FR_ONE;
        for (size_t i = 0; i < nv; i++) {
            outs[mi][i] = CUZK_FR_ZERO;
            for (size_t j = 0; j < n; j++) {
                cuzk_fr_mul(&t, &dense[j * nv + i], &L[j]);
                cuzk_fr_add(&outs[mi][i], &outs[mi][i], &t);
            }
        }
    }
    free(L);
    free(dense);
}

/* Row values <M_j, z> for the n = nc + nin rows (input rows: a = z_i, b = c = 0), zero-padded to m. */
static void row_values(cuzk_fr *a, cuzk_fr *b, cuzk_fr *c, const cuzk_cs *cs, const cuzk_fr *z, size_t m)
{
    const cuzk_csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_fr *outs[3] = {a, b, c}, t;
    for (int mi = 0; mi < 3; mi++) {
        memset(outs[mi], 0, m * sizeof(cuzk_fr));
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t k = mats[mi]->row[j]; k < mats[mi]->row[j + 1]; k++) {
                cuzk_fr_mul(&t, &mats[mi]->val[k], &z[mats[mi]->col[k]]);
                cuzk_fr_add(&outs[mi][j], &outs[mi][j], &t);
            }
    }
    for (size_t i = 0; i < cs->n_inputs; i++)
        a[cs->n_constraints + i] = z[i];
}

/* Quotient h (m - 1 coefficients) of A(X)B(X) - C(X) by X^m - 1, all by naive O(m^2) arithmetic;
 * returns whether the division is exact. */
static bool naive_quotient(cuzk_fr *h, const cuzk_cs *cs, const cuzk_fr *z)
{
    unsigned lg;
    size_t m = domain_of(cs, &lg);
    cuzk_fr *ev = malloc(3 * m * sizeof *ev), *co = calloc(3 * m, sizeof *co);
    cuzk_fr *winv = malloc(m * sizeof *winv), *P = calloc(2 * m, sizeof *P), w, minv, t;
    row_values(ev, ev + m, ev + 2 * m, cs, z, m);
    omega_of(&w, lg);
    cuzk_fr_inv(&w, &w);
    winv[0] = CUZK_FR_ONE;
    for (size_t k = 1; k < m; k++)
        cuzk_fr_mul(&winv[k], &winv[k - 1], &w);
    cuzk_fr_from_u64(&minv, m);
    cuzk_fr_inv(&minv, &minv);
    for (int p = 0; p < 3; p++)
        for (size_t i = 0; i < m; i++) {
            for (size_t j = 0; j < m; j++) {
                cuzk_fr_mul(&t, &ev[p * m + j], &winv[(i * j) % m]);
                cuzk_fr_add(&co[p * m + i], &co[p * m + i], &t);
            }
            cuzk_fr_mul(&co[p * m + i], &co[p * m + i], &minv);
        }
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < m; j++) {
            cuzk_fr_mul(&t, &co[i], &co[m + j]);
            cuzk_fr_add(&P[i + j], &P[i + j], &t);
        }
        cuzk_fr_sub(&P[i], &P[i], &co[2 * m + i]);
    }
    bool exact = true;
    for (size_t i = 0; i < m; i++) {
        cuzk_fr_add(&t, &P[i], &P[i + m]);
        exact = exact && cuzk_fr_is_zero(&t);
        if (i + 1 < m)
            h[i] = P[i + m];
    }
    free(ev);
    free(co);
    free(winv);
    free(P);
    return exact;
}

static void random_toxic(cuzk_groth16_toxic *tw)
{
    rand_nonzero_fr(&tw->tau);
    rand_nonzero_fr(&tw->alpha);
    rand_nonzero_fr(&tw->beta);
    rand_nonzero_fr(&tw->gamma);
    rand_nonzero_fr(&tw->delta);
}

/* ---- tests: points against the naive scalars ----------------------------------------------- */

static void check_key_naive(const char *what, const circuit *c, const cuzk_groth16_toxic *tw,
                            const cuzk_groth16_params *pk)
{
    const cuzk_cs *cs = &c->cs;
    size_t nin = cs->n_inputs, nv = nin + cs->n_aux, n_a, n_b;
    unsigned lg;
    size_t m = domain_of(cs, &lg);
    cuzk_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    bool *in_a = malloc(nv), *in_b = malloc(nv);
    naive_qap(u, v, w, cs, &tw->tau);
    expected_counts(cs, &n_a, &n_b, in_a, in_b);
    CHECK(pk->vk.n_ic == nin && pk->n_l == cs->n_aux && pk->n_h == m - 1 && pk->n_a == n_a && pk->n_b == n_b,
          "%s: counts ic %zu l %zu h %zu a %zu b %zu, want %zu %zu %zu %zu %zu", what, pk->vk.n_ic, pk->n_l,
          pk->n_h, pk->n_a, pk->n_b, nin, cs->n_aux, m - 1, n_a, n_b);

    cuzk_g1_affine e1;
    cuzk_g2_affine e2;
    g1_gen_mul(&e1, &tw->alpha);
    CHECK(cuzk_g1_affine_eq(&e1, &pk->vk.alpha_g1), "%s: alpha_g1", what);
    g1_gen_mul(&e1, &tw->beta);
    CHECK(cuzk_g1_affine_eq(&e1, &pk->vk.beta_g1), "%s: beta_g1", what);
    g1_gen_mul(&e1, &tw->delta);
    CHECK(cuzk_g1_affine_eq(&e1, &pk->vk.delta_g1), "%s: delta_g1", what);
    g2_gen_mul(&e2, &tw->beta);
    CHECK(cuzk_g2_affine_eq(&e2, &pk->vk.beta_g2), "%s: beta_g2", what);
    g2_gen_mul(&e2, &tw->gamma);
    CHECK(cuzk_g2_affine_eq(&e2, &pk->vk.gamma_g2), "%s: gamma_g2", what);
    g2_gen_mul(&e2, &tw->delta);
    CHECK(cuzk_g2_affine_eq(&e2, &pk->vk.delta_g2), "%s: delta_g2", what);
    if (pk->vk.n_ic != nin || pk->n_l != cs->n_aux || pk->n_h != m - 1 || pk->n_a != n_a || pk->n_b != n_b)
        goto out;

    cuzk_fr gi, di, t, s;
    cuzk_fr_inv(&gi, &tw->gamma);
    cuzk_fr_inv(&di, &tw->delta);
    size_t bad_ext = 0, bad_a = 0, bad_b1 = 0, bad_b2 = 0, bad_h = 0, ka = 0, kb = 0;
    for (size_t i = 0; i < nv; i++) {
        cuzk_fr_mul(&s, &tw->beta, &u[i]);
        cuzk_fr_mul(&t, &tw->alpha, &v[i]);
        cuzk_fr_add(&s, &s, &t);
        cuzk_fr_add(&s, &s, &w[i]);
        cuzk_fr_mul(&s, &s, i < nin ? &gi : &di);
        g1_gen_mul(&e1, &s);
        bad_ext += !cuzk_g1_affine_eq(&e1, i < nin ? &pk->vk.ic[i] : &pk->l[i - nin]);
        if (in_a[i]) {
            g1_gen_mul(&e1, &u[i]);
            bad_a += !cuzk_g1_affine_eq(&e1, &pk->a[ka++]);
        }
        if (in_b[i]) {
            g1_gen_mul(&e1, &v[i]);
            bad_b1 += !cuzk_g1_affine_eq(&e1, &pk->b_g1[kb]);
            g2_gen_mul(&e2, &v[i]);
            bad_b2 += !cuzk_g2_affine_eq(&e2, &pk->b_g2[kb++]);
        }
    }
    cuzk_fr zt, p = CUZK_FR_ONE;
    fr_pow_u64(&zt, &tw->tau, m);
    cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
    cuzk_fr_mul(&zt, &zt, &di);
    for (size_t i = 0; i + 1 < m; i++) {
        cuzk_fr_mul(&s, &p, &zt);
        g1_gen_mul(&e1, &s);
        bad_h += !cuzk_g1_affine_eq(&e1, &pk->h[i]);
        cuzk_fr_mul(&p, &p, &tw->tau);
    }
    CHECK(bad_ext == 0, "%s: %zu ic/l points differ from the naive scalars", what, bad_ext);
    CHECK(bad_a == 0, "%s: %zu a points differ", what, bad_a);
    CHECK(bad_b1 == 0 && bad_b2 == 0, "%s: %zu b_g1 and %zu b_g2 points differ", what, bad_b1, bad_b2);
    CHECK(bad_h == 0, "%s: %zu h points differ", what, bad_h);

    cuzk_fr *su = malloc(nv * sizeof *su), *sv = malloc(nv * sizeof *sv), *sw = malloc(nv * sizeof *sw);
    char err[256] = "";
    int rc = cuzk_groth16_qap_eval(su, sv, sw, cs, &tw->tau, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: qap_eval: %s", what, err);
    size_t bad_qap = 0;
    for (size_t i = 0; rc == CUZK_OK && i < nv; i++)
        bad_qap += !cuzk_fr_eq(&su[i], &u[i]) || !cuzk_fr_eq(&sv[i], &v[i]) || !cuzk_fr_eq(&sw[i], &w[i]);
    CHECK(bad_qap == 0, "%s: %zu variables' u, v, w differ from the naive Lagrange products", what, bad_qap);
    free(su);
    free(sv);
    free(sw);
out:
    free(u);
    free(v);
    free(w);
    free(in_a);
    free(in_b);
}

static void test_root_of_unity(void)
{
    for (unsigned lg = 0; lg <= 32; lg++) {
        cuzk_fr mine, lib, t;
        omega_of(&mine, lg);
        CHECK(cuzk_ntt_root_of_unity(&lib, lg, CUZK_NTT_BELLPERSON) == CUZK_OK && cuzk_fr_eq(&mine, &lib),
              "omega_%u differs from ROOT^(2^(32-%u))", lg, lg);
        t = mine;
        for (unsigned i = 0; i < lg; i++)
            cuzk_fr_sqr(&t, &t);
        bool one = cuzk_fr_is_one(&t);
        if (lg > 0) {
            t = mine;
            for (unsigned i = 0; i + 1 < lg; i++)
                cuzk_fr_sqr(&t, &t);
            one = one && !cuzk_fr_is_one(&t);
        }
        CHECK(one, "omega_%u is not a primitive 2^%u-th root of unity", lg, lg);
    }
}

static void test_tiny_known(cuzk_pool *pool)
{
    const shape shapes[] = {
        {2, 3, 3, 0, 0, false, false}, {1, 4, 4, 2, 0, true, true},  {3, 2, 4, 0, 2, true, true},
        {2, 5, 6, 3, 3, false, true},  {1, 0, 3, 0, 0, true, false}, {4, 4, 4, 2, 2, true, true},
        {1, 1, 1, 0, 0, false, false}, {2, 6, 14, 0, 0, true, true},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        circuit c;
        circuit_random(&c, &shapes[k]);
        cuzk_groth16_toxic tw;
        random_toxic(&tw);
        cuzk_groth16_params pk;
        char err[256] = "", what[64];
        snprintf(what, sizeof what, "tiny shape %zu", k);
        int rc = cuzk_groth16_setup(&pk, &c.cs, &tw, k % 2 ? pool : NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: setup: %s", what, err);
        if (rc == CUZK_OK)
            check_key_naive(what, &c, &tw, &pk);
        cuzk_groth16_params_free(&pk);
        circuit_free(&c);
    }
}

/* tau = a primitive 2m-th root of unity: tau^m = -1, outside the domain, and every point still matches. */
static void test_tau_edge(void)
{
    shape s = {2, 3, 5, 0, 0, true, true};
    circuit c;
    circuit_random(&c, &s);
    unsigned lg;
    domain_of(&c.cs, &lg);
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    omega_of(&tw.tau, lg + 1);
    cuzk_groth16_params pk;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&pk, &c.cs, &tw, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "tau = omega_2m: setup refused: %s", err);
    if (rc == CUZK_OK)
        check_key_naive("tau = omega_2m", &c, &tw, &pk);
    cuzk_groth16_params_free(&pk);
    /* the coset form divides by tau - 7 omega^j: tau on the coset (here 7 omega^3) is refused by name, and
     * leaves the key empty; bellperson's form takes the same tau */
    cuzk_fr seven, w3;
    cuzk_fr_from_u64(&seven, 7);
    omega_of(&w3, lg);
    fr_pow_u64(&w3, &w3, 3);
    cuzk_fr_mul(&tw.tau, &seven, &w3);
    cuzk_groth16_setup_opts so = {.h_coset = true};
    err[0] = 0;
    rc = cuzk_groth16_setup_ex(&pk, &c.cs, &tw, &so, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "coset") && !pk.h && !pk.l && pk.n_h == 0,
          "tau on the coset, coset form: rc %d \"%s\"", rc, err);
    cuzk_groth16_params_free(&pk);
    rc = cuzk_groth16_setup(&pk, &c.cs, &tw, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "tau on the coset, bellperson's form: %s", err);
    cuzk_groth16_params_free(&pk);
    circuit_free(&c);
}

/* ---- tests: counts and files ---------------------------------------------------------------- */

static void tmp_path(char *out, size_t n, const char *ext)
{
    snprintf(out, n, "/tmp/cuzk_test_setup_%ld_%llx%s", (long)getpid(), (unsigned long long)test_rand64(),
             ext);
}

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static bool params_equal(const cuzk_groth16_params *x, const cuzk_groth16_params *y)
{
    const cuzk_groth16_vk *a = &x->vk, *b = &y->vk;
    if (!cuzk_g1_affine_eq(&a->alpha_g1, &b->alpha_g1) || !cuzk_g1_affine_eq(&a->beta_g1, &b->beta_g1) ||
        !cuzk_g1_affine_eq(&a->delta_g1, &b->delta_g1) || !cuzk_g2_affine_eq(&a->beta_g2, &b->beta_g2) ||
        !cuzk_g2_affine_eq(&a->gamma_g2, &b->gamma_g2) || !cuzk_g2_affine_eq(&a->delta_g2, &b->delta_g2))
        return false;
    if (a->n_ic != b->n_ic || x->n_h != y->n_h || x->n_l != y->n_l || x->n_a != y->n_a || x->n_b != y->n_b)
        return false;
    return (!a->n_ic || !memcmp(a->ic, b->ic, a->n_ic * sizeof *a->ic)) &&
           (!x->n_h || !memcmp(x->h, y->h, x->n_h * sizeof *x->h)) &&
           (!x->n_l || !memcmp(x->l, y->l, x->n_l * sizeof *x->l)) &&
           (!x->n_a || !memcmp(x->a, y->a, x->n_a * sizeof *x->a)) &&
           (!x->n_b || !memcmp(x->b_g1, y->b_g1, x->n_b * sizeof *x->b_g1)) &&
           (!x->n_b || !memcmp(x->b_g2, y->b_g2, x->n_b * sizeof *x->b_g2));
}

/* Writes pk as .params and .vk, checks the sizes against §2.2/§2.3 and reads both back. */
static void roundtrip(const char *what, const cuzk_groth16_params *pk, long want_size)
{
    char path[128], vpath[128], err[256] = "";
    tmp_path(path, sizeof path, ".params");
    tmp_path(vpath, sizeof vpath, ".vk");
    long formula =
        864 + 4 * 6 + 96 * (long)(pk->vk.n_ic + pk->n_h + pk->n_l + pk->n_a + pk->n_b) + 192 * (long)pk->n_b;
    int rc = cuzk_params_write(path, pk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: params_write: %s", what, err);
    long size = file_size(path);
    CHECK(size == formula && (want_size < 0 || size == want_size), "%s: .params is %ld bytes, want %ld (%ld)",
          what, size, formula, want_size);
    cuzk_groth16_params back;
    rc = cuzk_params_read(path, &back, CUZK_PARAMS_CHECK_GROUP, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: params_read (subgroup checks): %s", what, err);
    CHECK(rc != CUZK_OK || params_equal(pk, &back), "%s: .params round trip changed the key", what);
    cuzk_groth16_params_free(&back);

    rc = cuzk_vk_write(vpath, &pk->vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: vk_write: %s", what, err);
    CHECK(file_size(vpath) == 868 + 96 * (long)pk->vk.n_ic, "%s: .vk is %ld bytes", what, file_size(vpath));
    cuzk_groth16_vk vk;
    rc = cuzk_vk_read(vpath, &vk, CUZK_PARAMS_CHECK_GROUP, err, sizeof err);
    CHECK(rc == CUZK_OK && vk.n_ic == pk->vk.n_ic && !memcmp(vk.ic, pk->vk.ic, vk.n_ic * sizeof *vk.ic) &&
              cuzk_g2_affine_eq(&vk.delta_g2, &pk->vk.delta_g2),
          "%s: .vk round trip: %s", what, err);
    cuzk_groth16_vk_free(&vk);
    unlink(path);
    unlink(vpath);
}

static void test_worked_example(void)
{
    circuit c;
    circuit_mul(&c);
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    cuzk_groth16_params pk;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&pk, &c.cs, &tw, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "a*b=c: setup: %s", err);
    if (rc == CUZK_OK) {
        CHECK(pk.vk.n_ic == 2 && pk.n_h == 3 && pk.n_l == 2 && pk.n_a == 3 && pk.n_b == 1,
              "a*b=c: counts ic %zu h %zu l %zu a %zu b %zu, want 2 3 2 3 1", pk.vk.n_ic, pk.n_h, pk.n_l,
              pk.n_a, pk.n_b);
        check_key_naive("a*b=c", &c, &tw, &pk);
        roundtrip("a*b=c", &pk, 2136);
    }
    cuzk_groth16_params_free(&pk);
    circuit_free(&c);
}

/* Counts for shapes too big for the naive points, plus the file round trip. */
static void test_counts(cuzk_pool *pool)
{
    const shape shapes[] = {
        {3, 40, 60, 3, 0, false, true}, {2, 50, 50, 0, 4, true, true},   {5, 64, 123, 2, 2, true, true},
        {1, 31, 33, 5, 7, true, false}, {9, 20, 23, 0, 0, false, false},
    };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const shape *s = &shapes[k];
        circuit c;
        circuit_random(&c, s);
        size_t nv = s->nin + s->naux, n_a, n_b;
        bool *in_a = malloc(nv), *in_b = malloc(nv);
        expected_counts(&c.cs, &n_a, &n_b, in_a, in_b);
        size_t excluded_a = 0, excluded_b = 0;
        for (size_t i = s->nin; i < nv; i++) {
            excluded_a += !in_a[i];
            excluded_b += !in_b[i];
        }
        unsigned lg;
        size_t m = domain_of(&c.cs, &lg);
        cuzk_groth16_params pk;
        char err[256] = "", what[64];
        snprintf(what, sizeof what, "counts shape %zu", k);
        int rc = cuzk_groth16_setup(&pk, &c.cs, NULL, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: setup: %s", what, err);
        if (rc == CUZK_OK) {
            CHECK(pk.vk.n_ic == s->nin && pk.n_l == s->naux && pk.n_h == m - 1 && pk.n_a == n_a &&
                      pk.n_b == n_b,
                  "%s: ic %zu l %zu h %zu a %zu b %zu, want %zu %zu %zu %zu %zu", what, pk.vk.n_ic, pk.n_l,
                  pk.n_h, pk.n_a, pk.n_b, s->nin, s->naux, m - 1, n_a, n_b);
            CHECK(!s->no_a || excluded_a > 0, "%s: the shape should leave aux variables out of A", what);
            CHECK(!s->no_b || excluded_b > 0, "%s: the shape should leave aux variables out of B", what);
            roundtrip(what, &pk, -1);
        }
        cuzk_groth16_params_free(&pk);
        free(in_a);
        free(in_b);
        circuit_free(&c);
    }

    /* No circuit rows, one input: m = 1, no h points, no B query. */
    circuit c = {0};
    c.cs.n_inputs = 1;
    cuzk_groth16_params pk;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&pk, &c.cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && pk.vk.n_ic == 1 && pk.n_h == 0 && pk.n_a == 1 && pk.n_b == 0 && pk.n_l == 0,
          "empty circuit: rc %d (%s) ic %zu h %zu a %zu b %zu", rc, err, pk.vk.n_ic, pk.n_h, pk.n_a, pk.n_b);
    cuzk_groth16_params_free(&pk);

    /* Domain boundaries: n = 2^k exactly and 2^k + 1. */
    const size_t rows[][2] = {{1, 1}, {1, 2}, {2, 2}, {6, 2}, {7, 2}, {14, 2}, {15, 2}};
    const unsigned want_lg[] = {1, 2, 2, 3, 4, 4, 5};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        cuzk_cs cs = {.n_inputs = rows[k][1], .n_constraints = rows[k][0]};
        unsigned lg = 99;
        CHECK(cuzk_groth16_domain_lg(&lg, &cs, NULL, 0) == CUZK_OK && lg == want_lg[k],
              "domain of %zu + %zu rows: lg %u, want %u", rows[k][0], rows[k][1], lg, want_lg[k]);
    }
}

/* Adds one to the last variable (from the top, ONE excluded) whose change breaks a row, and returns its
 * index; 0 when no single change does. A variable can be free: the row A = a·x_3, B = b·x_6,
 * C = (a b z_3)·x_6 holds for every x_6, so a changed value need not break the rows that use it. */
static size_t break_witness(cuzk_fr *z, const cuzk_cs *cs)
{
    for (size_t v = cs->n_inputs + cs->n_aux; v-- > 1;) {
        cuzk_fr_add(&z[v], &z[v], &CUZK_FR_ONE);
        if (test_naive_first_failure(cs, z) >= 0)
            return v;
        cuzk_fr_sub(&z[v], &z[v], &CUZK_FR_ONE);
    }
    return 0;
}

/* ---- tests: the QAP identity and proofs ------------------------------------------------------ */

static void test_qap_identity(void)
{
    const shape shapes[] = {
        {2, 5, 9, 0, 0, true, true}, {3, 20, 40, 3, 3, true, true}, {1, 7, 7, 0, 0, false, false}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        circuit c;
        circuit_random(&c, &shapes[k]);
        const cuzk_cs *cs = &c.cs;
        size_t nv = cs->n_inputs + cs->n_aux;
        unsigned lg;
        size_t m = domain_of(cs, &lg);
        cuzk_fr tau, *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
        cuzk_fr *h = malloc(m * sizeof *h);
        rand_nonzero_fr(&tau);
        char err[256] = "";
        int rc = cuzk_groth16_qap_eval(u, v, w, cs, &tau, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "qap %zu: %s", k, err);
        for (int broken = 0; broken < 2 && rc == CUZK_OK; broken++) {
            if (broken) {
                size_t v = break_witness(c.z, cs);
                CHECK(v != 0, "qap %zu: no single variable + 1 breaks a row of this circuit", k);
                if (v == 0)
                    break;
            }
            bool exact = naive_quotient(h, cs, c.z);
            cuzk_fr A = CUZK_FR_ZERO, B = CUZK_FR_ZERO, C = CUZK_FR_ZERO, t, ht = CUZK_FR_ZERO, zt;
            for (size_t i = 0; i < nv; i++) {
                cuzk_fr_mul(&t, &c.z[i], &u[i]);
                cuzk_fr_add(&A, &A, &t);
                cuzk_fr_mul(&t, &c.z[i], &v[i]);
                cuzk_fr_add(&B, &B, &t);
                cuzk_fr_mul(&t, &c.z[i], &w[i]);
                cuzk_fr_add(&C, &C, &t);
            }
            for (size_t i = m - 1; i-- > 0;) { /* Horner */
                cuzk_fr_mul(&ht, &ht, &tau);
                cuzk_fr_add(&ht, &ht, &h[i]);
            }
            fr_pow_u64(&zt, &tau, m);
            cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
            cuzk_fr_mul(&A, &A, &B);
            cuzk_fr_sub(&A, &A, &C);
            cuzk_fr_mul(&ht, &ht, &zt);
            if (!broken) {
                CHECK(exact, "qap %zu: A B - C is not divisible by Z for a satisfying witness", k);
                CHECK(cuzk_fr_eq(&A, &ht), "qap %zu: A(tau) B(tau) - C(tau) != h(tau) Z(tau)", k);
            } else {
                CHECK(!exact && !cuzk_fr_eq(&A, &ht),
                      "qap %zu: a broken witness still satisfies the identity", k);
            }
        }
        free(u);
        free(v);
        free(w);
        free(h);
        circuit_free(&c);
    }
}

static void g1_acc(cuzk_g1 *acc, const cuzk_g1_affine *p, const cuzk_fr *k)
{
    cuzk_g1 t;
    cuzk_g1_from_affine(&t, p);
    if (k)
        cuzk_g1_mul_fr(&t, &t, k);
    cuzk_g1_add(acc, acc, &t);
}

/* A proof made here from the key's points: A = alpha + sum z a + r delta, B = beta + sum z b + s delta,
 * C = sum aux z l + sum h_i H_i + s A + r B1 - r s delta. */
static void own_prove(cuzk_groth16_proof *pf, const cuzk_groth16_params *pk, const circuit *c,
                      const cuzk_fr *h)
{
    const cuzk_cs *cs = &c->cs;
    size_t nin = cs->n_inputs, nv = nin + cs->n_aux, n_a, n_b;
    bool *in_a = malloc(nv), *in_b = malloc(nv);
    expected_counts(cs, &n_a, &n_b, in_a, in_b);
    cuzk_fr *sa = malloc(nv * sizeof *sa), *sb = malloc(nv * sizeof *sb), r, s, rs;
    size_t ka = 0, kb = 0;
    for (size_t i = 0; i < nv; i++) {
        if (in_a[i])
            sa[ka++] = c->z[i];
        if (in_b[i])
            sb[kb++] = c->z[i];
    }
    test_rand_fr(&r);
    test_rand_fr(&s);
    cuzk_fr_mul(&rs, &r, &s);
    cuzk_fr_neg(&rs, &rs);
    cuzk_g1 A, B1, C, t;
    cuzk_g2 B2, t2;
    cuzk_g1_msm(&A, pk->a, sa, ka, NULL);
    g1_acc(&A, &pk->vk.alpha_g1, NULL);
    g1_acc(&A, &pk->vk.delta_g1, &r);
    cuzk_g1_msm(&B1, pk->b_g1, sb, kb, NULL);
    g1_acc(&B1, &pk->vk.beta_g1, NULL);
    g1_acc(&B1, &pk->vk.delta_g1, &s);
    cuzk_g2_msm(&B2, pk->b_g2, sb, kb, NULL);
    cuzk_g2_from_affine(&t2, &pk->vk.beta_g2);
    cuzk_g2_add(&B2, &B2, &t2);
    cuzk_g2_from_affine(&t2, &pk->vk.delta_g2);
    cuzk_g2_mul_fr(&t2, &t2, &s);
    cuzk_g2_add(&B2, &B2, &t2);
    cuzk_g1_msm(&C, pk->l, c->z + nin, cs->n_aux, NULL);
    cuzk_g1_msm(&t, pk->h, h, pk->n_h, NULL);
    cuzk_g1_add(&C, &C, &t);
    cuzk_g1_mul_fr(&t, &A, &s);
    cuzk_g1_add(&C, &C, &t);
    cuzk_g1_mul_fr(&t, &B1, &r);
    cuzk_g1_add(&C, &C, &t);
    g1_acc(&C, &pk->vk.delta_g1, &rs);
    cuzk_g1_to_affine(&pf->a, &A);
    cuzk_g2_to_affine(&pf->b, &B2);
    cuzk_g1_to_affine(&pf->c, &C);
    free(in_a);
    free(in_b);
    free(sa);
    free(sb);
}

/* CUZK_OK if proof verifies for the circuit's public inputs; with tamper, input 1 (or the proof's A)
 * is changed first. */
static int verify_for(const cuzk_groth16_params *pk, const circuit *c, const cuzk_groth16_proof *pf,
                      bool tamper)
{
    cuzk_groth16_pvk pvk;
    char err[256] = "";
    if (cuzk_groth16_prepare(&pvk, &pk->vk, err, sizeof err) != CUZK_OK) {
        printf("  prepare: %s\n", err);
        return CUZK_EINVAL;
    }
    size_t npub = c->cs.n_inputs - 1;
    cuzk_fr *x = malloc((npub ? npub : 1) * sizeof *x);
    memcpy(x, c->z + 1, npub * sizeof *x);
    cuzk_groth16_proof p = *pf;
    if (tamper && npub)
        cuzk_fr_add(&x[0], &x[0], &CUZK_FR_ONE);
    else if (tamper)
        p.a = pk->vk.alpha_g1;
    int rc = cuzk_groth16_verify(&pvk, x, npub, &p, err, sizeof err);
    free(x);
    return rc;
}

static void test_own_prover(void)
{
    const shape shapes[] = {{2, 6, 9, 0, 0, true, true},
                            {3, 30, 45, 3, 4, true, true},
                            {1, 12, 12, 0, 0, false, true},
                            {4, 70, 120, 2, 0, true, true}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        circuit c;
        circuit_random(&c, &shapes[k]);
        cuzk_groth16_params pk;
        char err[256] = "";
        int rc = cuzk_groth16_setup(&pk, &c.cs, NULL, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "own prover %zu: setup: %s", k, err);
        if (rc == CUZK_OK) {
            cuzk_fr *h = malloc(pk.n_h ? pk.n_h * sizeof *h : sizeof *h);
            CHECK(naive_quotient(h, &c.cs, c.z), "own prover %zu: witness does not satisfy", k);
            cuzk_groth16_proof pf;
            own_prove(&pf, &pk, &c, h);
            CHECK(verify_for(&pk, &c, &pf, false) == CUZK_OK, "own prover %zu: honest proof rejected", k);
            CHECK(verify_for(&pk, &c, &pf, true) == CUZK_EVERIFY, "own prover %zu: tampered proof accepted",
                  k);
            free(h);
        }
        cuzk_groth16_params_free(&pk);
        circuit_free(&c);
    }
}

/* setup -> cuzk_groth16_prove -> verify. */
static void test_with_prover(cuzk_pool *pool)
{
    const shape shapes[] = {{2, 40, 60, 0, 0, true, true},  {3, 100, 200, 4, 3, true, true},
                            {1, 50, 50, 2, 2, false, true}, {6, 300, 505, 0, 5, true, true},
                            {1, 0, 5, 0, 0, true, false},   {2, 1000, 1500, 3, 0, true, false}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        circuit c;
        circuit_random(&c, &shapes[k]);
        cuzk_groth16_params pk;
        char err[256] = "";
        int rc = cuzk_groth16_setup(&pk, &c.cs, NULL, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "prover %zu: setup: %s", k, err);
        if (rc == CUZK_OK) {
            cuzk_groth16_proof pf;
            rc = cuzk_groth16_prove(&pf, &pk, &c.cs, c.z, NULL, NULL, pool, err, sizeof err);
            CHECK(rc == CUZK_OK, "prover %zu: prove: %s", k, err);
            if (rc == CUZK_OK) {
                CHECK(verify_for(&pk, &c, &pf, false) == CUZK_OK, "prover %zu: proof rejected", k);
                CHECK(verify_for(&pk, &c, &pf, true) == CUZK_EVERIFY, "prover %zu: tampered proof accepted",
                      k);
            }
        }
        cuzk_groth16_params_free(&pk);
        circuit_free(&c);
    }

    /* cuzk_cs_random's circuits: every key that the setup accepts must prove and verify; a refusal must
     * name an aux variable that really has no non-zero merged coefficient anywhere. */
    size_t proved = 0;
    for (int k = 0; k < 6; k++) {
        cuzk_cs cs;
        size_t nin = 1 + test_rand64() % 4, naux = 50 + test_rand64() % 200, nc = naux + test_rand64() % 100;
        cuzk_fr *z = malloc((nin + naux) * sizeof *z);
        cuzk_cs_shape sh = k % 2 ? CUZK_CS_RANDOM_BITS : CUZK_CS_RANDOM_UNIFORM;
        CHECK(cuzk_cs_random(&cs, z, nin, naux, nc, test_rand64(), sh) == CUZK_OK, "cs_random failed");
        cuzk_groth16_params pk;
        char err[256] = "";
        int rc = cuzk_groth16_setup(&pk, &cs, NULL, pool, err, sizeof err);
        if (rc == CUZK_OK) {
            cuzk_groth16_proof pf;
            rc = cuzk_groth16_prove(&pf, &pk, &cs, z, NULL, NULL, pool, err, sizeof err);
            CHECK(rc == CUZK_OK, "cs_random %d: prove: %s", k, err);
            circuit c = {cs, z};
            CHECK(rc != CUZK_OK || verify_for(&pk, &c, &pf, false) == CUZK_OK, "cs_random %d: proof rejected",
                  k);
            proved += rc == CUZK_OK;
        } else {
            size_t nv = nin + naux, var = 0;
            bool *d[3];
            const cuzk_csr *mats[3] = {&cs.a, &cs.b, &cs.c};
            const char *p = strstr(err, "(variable ");
            CHECK(rc == CUZK_EINVAL && p && sscanf(p, "(variable %zu", &var) == 1 && var >= nin && var < nv,
                  "cs_random %d: setup: %s", k, err);
            bool used = false;
            for (int i = 0; i < 3; i++) {
                d[i] = malloc(nv);
                test_density(d[i], mats[i], cs.n_constraints, nv);
                used = used || (var < nv && d[i][var]);
                free(d[i]);
            }
            CHECK(!used, "cs_random %d: setup calls variable %zu unconstrained but it is used", k, var);
        }
        cuzk_groth16_params_free(&pk);
        cuzk_cs_free(&cs);
        free(z);
    }
    printf("cuzk_cs_random: %zu of 6 circuits set up and proved, the others have an unconstrained aux "
           "variable\n",
           proved);
    CHECK(proved > 0, "no cuzk_cs_random circuit could be set up");
}

/* ---- tests: threads, errors ------------------------------------------------------------------ */

static void test_threads(cuzk_pool *pool)
{
    shape s = {3, 1500, 2000, 3, 5, true, true};
    circuit c;
    circuit_random(&c, &s);
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    cuzk_groth16_params one, two;
    char err[256] = "";
    int rc1 = cuzk_groth16_setup(&one, &c.cs, &tw, NULL, err, sizeof err);
    CHECK(rc1 == CUZK_OK, "threads: single-thread setup: %s", err);
    int rc2 = cuzk_groth16_setup(&two, &c.cs, &tw, pool, err, sizeof err);
    CHECK(rc2 == CUZK_OK, "threads: pooled setup: %s", err);
    CHECK(rc1 || rc2 || params_equal(&one, &two), "threads: %d-thread key differs from the single-thread key",
          cuzk_pool_size(pool));
    cuzk_groth16_params_free(&one);
    cuzk_groth16_params_free(&two);
    circuit_free(&c);
}

/* ---- a circuit large enough for every parallel split of the setup's scalar work ----------------- */

/* The scalars the setup hands to its fixed-base multiplications, captured in call order (ic, l, a, b_g1,
 * h in G1; b_g2 in G2) instead of multiplied: the setup's scalar side at a size whose points would take
 * minutes on the CPU. */
enum { CAP_G1 = 5 };
static struct {
    cuzk_fr *g1[CAP_G1], *g2;
    size_t n1[CAP_G1], n2;
    int calls1, calls2;
} cap;

static int cap_g1(const void *ctx, cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err, size_t errlen)
{
    (void)ctx, (void)pool;
    if (cap.calls1 >= CAP_G1 || !(cap.g1[cap.calls1] = malloc(n * sizeof *k)))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "capture: G1 call %d", cap.calls1);
    memcpy(cap.g1[cap.calls1], k, n * sizeof *k);
    cap.n1[cap.calls1++] = n;
    memset(out, 0, n * sizeof *out);
    return CUZK_OK;
}

static int cap_g2(const void *ctx, cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err, size_t errlen)
{
    (void)ctx, (void)pool;
    if (cap.calls2 || !(cap.g2 = malloc(n * sizeof *k)))
        return cuzk_fail(err, errlen, CUZK_EINVAL, "capture: G2 call %d", cap.calls2);
    memcpy(cap.g2, k, n * sizeof *k);
    cap.n2 = n, cap.calls2++;
    memset(out, 0, n * sizeof *out);
    return CUZK_OK;
}

static void cap_free(void)
{
    for (int i = 0; i < CAP_G1; i++)
        free(cap.g1[i]);
    free(cap.g2);
    memset(&cap, 0, sizeof cap);
}

/* u, v, w by a plain sparse pass over the matrices (every term multiplied), with L_j(tau) = (tau^m - 1)/m · ω^j/(tau - ω^j)
 * from one inversion each (the setup batches them). */
static void sparse_qap(cuzk_fr *u, cuzk_fr *v, cuzk_fr *w, const cuzk_cs *cs, const cuzk_fr *tau)
{
    unsigned lg;
    size_t m = domain_of(cs, &lg), nv = cs->n_inputs + cs->n_aux, n = cs->n_constraints + cs->n_inputs;
    cuzk_fr om, wj = CUZK_FR_ONE, scale, t, *L = malloc(n * sizeof *L);
    omega_of(&om, lg);
    fr_pow_u64(&scale, tau, m);
    cuzk_fr_sub(&scale, &scale, &CUZK_FR_ONE);
    cuzk_fr_from_u64(&t, m);
    cuzk_fr_inv(&t, &t);
    cuzk_fr_mul(&scale, &scale, &t);
    for (size_t j = 0; j < n; j++) {
        cuzk_fr_sub(&t, tau, &wj);
        cuzk_fr_inv(&t, &t);
        cuzk_fr_mul(&L[j], &wj, &t);
        cuzk_fr_mul(&L[j], &L[j], &scale);
        cuzk_fr_mul(&wj, &wj, &om);
    }
    const cuzk_csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_fr *outs[3] = {u, v, w};
    for (int mi = 0; mi < 3; mi++) {
        for (size_t i = 0; i < nv; i++)
            outs[mi][i] = CUZK_FR_ZERO;
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t k = mats[mi]->row[j]; k < mats[mi]->row[j + 1]; k++) {
                cuzk_fr_mul(&t, cuzk_csr_coef(mats[mi], k), &L[j]);
                cuzk_fr_add(&outs[mi][mats[mi]->col[k]], &outs[mi][mats[mi]->col[k]], &t);
            }
    }
    for (size_t i = 0; i < cs->n_inputs; i++)
        cuzk_fr_add(&u[i], &u[i], &L[cs->n_constraints + i]);
    free(L);
}

static size_t fr_diff(const cuzk_fr *x, const cuzk_fr *y, size_t n)
{
    size_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += !cuzk_fr_eq(&x[i], &y[i]);
    return d;
}

/* The PoRep-shaped circuit at 2^-9 scale (≈ 254 K rows and variables, compact matrices whose coefficients
 * are mostly ±1): the QAP's column ranges (3 a matrix on 4 threads), the density's row blocks and the query
 * scalars' variable blocks all split it, and each result must equal this file's plain computation of it;
 * then unconstrained variables past the last, across a block boundary, must be reported by the lowest. */
static void test_parallel_scalars(void)
{
    const char *what = "parallel scalars";
    cuzk_porep_shape shape;
    cuzk_cs cs;
    char err[256] = "";
    CHECK(cuzk_porep_shape_scale(&shape, 9, test_rand64() | 1) == CUZK_OK &&
              cuzk_porep_synth_cs(&cs, &shape, NULL, err, sizeof err) == CUZK_OK,
          "%s: circuit: %s", what, err);
    size_t nin = cs.n_inputs, naux = cs.n_aux, nv = nin + naux;
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    cuzk_fr *u = malloc(nv * sizeof *u), *v = malloc(nv * sizeof *v), *w = malloc(nv * sizeof *w);
    sparse_qap(u, v, w, &cs, &tw.tau);
    bool *in_a = malloc(nv), *in_b = malloc(nv);
    size_t n_a, n_b;
    expected_counts(&cs, &n_a, &n_b, in_a, in_b);
    CHECK(cs.a.coef && cs.b.coef && cs.c.coef && nv > 3 * 65536, "%s: %zu variables, compact matrices", what,
          nv);
    cuzk_pool *pool = cuzk_pool_new(4);

    cuzk_fr *su = malloc(nv * sizeof *su), *sv = malloc(nv * sizeof *sv), *sw = malloc(nv * sizeof *sw);
    for (int pass = 0; pass < 2; pass++) {
        cuzk_pool *p = pass ? pool : NULL;
        int rc = cuzk_groth16_qap_eval(su, sv, sw, &cs, &tw.tau, p, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: qap_eval: %s", what, err);
        size_t du = fr_diff(su, u, nv), dv = fr_diff(sv, v, nv), dw = fr_diff(sw, w, nv);
        CHECK(rc || (du == 0 && dv == 0 && dw == 0), "%s: %d threads: %zu u, %zu v, %zu w of %zu differ", what,
              p ? cuzk_pool_size(p) : 1, du, dv, dw, nv);
    }
    uint64_t *bits[2][3];
    size_t words[3] = {naux / 64 + 1, nin / 64 + 1, naux / 64 + 1};
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < 3; i++)
            bits[pass][i] = calloc(words[i], 8);
        CHECK(cuzk_cs_density_pool(&cs, bits[pass][0], bits[pass][1], bits[pass][2], pass ? pool : NULL) ==
                  CUZK_OK,
              "%s: density", what);
    }
    size_t bad_density = 0;
    for (size_t i = 0; i < nv; i++) {
        bool a = i < nin || (bits[1][0][(i - nin) / 64] >> ((i - nin) % 64) & 1);
        bool b = i < nin ? bits[1][1][i / 64] >> (i % 64) & 1 : bits[1][2][(i - nin) / 64] >> ((i - nin) % 64) & 1;
        bad_density += a != in_a[i] || b != in_b[i];
    }
    for (int i = 0; i < 3; i++)
        bad_density += memcmp(bits[0][i], bits[1][i], words[i] * 8) != 0;
    CHECK(bad_density == 0, "%s: %zu density bits differ from the plain merge (or between 1 and 4 threads)",
          what, bad_density);
    size_t pop[3], plain[3] = {0, 0, 0};
    for (size_t i = 0; i < nv; i++) {
        plain[0] += i >= nin && in_a[i];
        plain[i < nin ? 1 : 2] += in_b[i];
    }
    CHECK(cuzk_cs_density_pops(&cs, pop, pool) == CUZK_OK && pop[0] == plain[0] && pop[1] == plain[1] &&
              pop[2] == plain[2],
          "%s: density popcounts %zu/%zu/%zu, the plain merge's %zu/%zu/%zu", what, pop[0], pop[1], pop[2],
          plain[0], plain[1], plain[2]);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 3; i++)
            free(bits[pass][i]);

    /* the query scalars, from the setup itself (points not made: captured) */
    static const cuzk_setup_accel CAP = {"capture", NULL, cap_g1, cap_g2};
    cuzk_groth16_params pk;
    int rc = cuzk_groth16_setup_accel(&pk, &cs, &tw, &CAP, pool, err, sizeof err);
    CHECK(rc == CUZK_OK && cap.calls1 == CAP_G1 && cap.calls2 == 1, "%s: setup: %s (%d + %d calls)", what, err,
          cap.calls1, cap.calls2);
    if (rc == CUZK_OK && cap.calls1 == CAP_G1 && cap.calls2 == 1) {
        unsigned lg;
        size_t m = domain_of(&cs, &lg), bad_l = 0, bad_a = 0, bad_b = 0, bad_h = 0, ka = 0, kb = 0;
        CHECK(cap.n1[0] == nin && cap.n1[1] == naux && cap.n1[2] == n_a && cap.n1[3] == n_b &&
                  cap.n1[4] == m - 1 && cap.n2 == n_b,
              "%s: segment sizes %zu %zu %zu %zu %zu %zu", what, cap.n1[0], cap.n1[1], cap.n1[2], cap.n1[3],
              cap.n1[4], cap.n2);
        cuzk_fr gi, di, s, t;
        cuzk_fr_inv(&gi, &tw.gamma);
        cuzk_fr_inv(&di, &tw.delta);
        for (size_t i = 0; i < nv && cap.n1[2] == n_a && cap.n1[3] == n_b && cap.n2 == n_b; i++) {
            cuzk_fr_mul(&s, &tw.beta, &u[i]);
            cuzk_fr_mul(&t, &tw.alpha, &v[i]);
            cuzk_fr_add(&s, &s, &t);
            cuzk_fr_add(&s, &s, &w[i]);
            cuzk_fr_mul(&s, &s, i < nin ? &gi : &di);
            bad_l += !cuzk_fr_eq(&s, i < nin ? &cap.g1[0][i] : &cap.g1[1][i - nin]);
            if (in_a[i])
                bad_a += !cuzk_fr_eq(&u[i], &cap.g1[2][ka++]);
            if (in_b[i]) {
                bad_b += !cuzk_fr_eq(&v[i], &cap.g1[3][kb]) || !cuzk_fr_eq(&v[i], &cap.g2[kb]);
                kb++;
            }
        }
        cuzk_fr zt, p = CUZK_FR_ONE;
        fr_pow_u64(&zt, &tw.tau, m);
        cuzk_fr_sub(&zt, &zt, &CUZK_FR_ONE);
        cuzk_fr_mul(&zt, &zt, &di);
        for (size_t i = 0; i + 1 < m && cap.n1[4] == m - 1; i++) {
            cuzk_fr_mul(&s, &p, &zt);
            bad_h += !cuzk_fr_eq(&s, &cap.g1[4][i]);
            cuzk_fr_mul(&p, &p, &tw.tau);
        }
        CHECK(bad_l == 0 && bad_a == 0 && bad_b == 0 && bad_h == 0,
              "%s: %zu ic/l, %zu a, %zu b, %zu h scalars differ from the plain ones", what, bad_l, bad_a, bad_b,
              bad_h);
        cuzk_groth16_params_free(&pk);
    }
    cap_free();

    /* unconstrained variables from nv into the next block of 65,536: the error names the first, nv, whichever
     * block finishes first */
    size_t extra = 65536 - nv % 65536 + 1;
    cs.n_aux += extra;
    char want[96];
    snprintf(want, sizeof want, "aux variable %zu (variable %zu) is unconstrained", naux, nv);
    for (int k = 0; k < 3; k++) {
        rc = cuzk_groth16_setup_accel(&pk, &cs, &tw, &CAP, pool, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, want) && cap.calls1 == 0, "%s: unconstrained: rc %d \"%s\"", what,
              rc, err);
        cap_free();
    }
    cs.n_aux -= extra;
    cuzk_pool_free(pool);
    cuzk_cs_free(&cs);
    free(u), free(v), free(w), free(su), free(sv), free(sw), free(in_a), free(in_b);
}

static bool params_empty(const cuzk_groth16_params *pk)
{
    return !pk->vk.ic && !pk->h && !pk->l && !pk->a && !pk->b_g1 && !pk->b_g2 && !pk->n_h && !pk->vk.n_ic;
}

static void expect_setup_error(const char *what, const cuzk_cs *cs, const cuzk_groth16_toxic *tw, int code,
                               const char *needle)
{
    cuzk_groth16_params pk;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&pk, cs, tw, NULL, err, sizeof err);
    CHECK(rc == code && msg_has(err, needle), "%s: rc %d, want %d", what, rc, code);
    CHECK(params_empty(&pk), "%s: output not left empty", what);
    cuzk_groth16_params_free(&pk);
}

static void test_errors(void)
{
    shape s = {2, 6, 10, 0, 0, true, true};
    circuit c;
    circuit_random(&c, &s);
    unsigned lg;
    size_t m = domain_of(&c.cs, &lg);
    cuzk_groth16_toxic good, tw;
    random_toxic(&good);

    static const char *const names[5] = {"tau", "alpha", "beta", "gamma", "delta"};
    for (int i = 0; i < 5; i++) {
        tw = good;
        cuzk_fr *f[5] = {&tw.tau, &tw.alpha, &tw.beta, &tw.gamma, &tw.delta};
        *f[i] = CUZK_FR_ZERO;
        char what[64], needle[64];
        snprintf(what, sizeof what, "zero %s", names[i]);
        snprintf(needle, sizeof needle, "%s is zero", names[i]);
        expect_setup_error(what, &c.cs, &tw, CUZK_EINVAL, needle);
    }
    cuzk_fr w;
    omega_of(&w, lg);
    for (int k = 0; k < 4; k++) { /* tau = 1, omega, -1 (omega^(m/2)), a random domain point */
        size_t j = k == 0 ? 0 : k == 1 ? 1 : k == 2 ? m / 2 : test_rand64() % m;
        tw = good;
        fr_pow_u64(&tw.tau, &w, j);
        char what[64];
        snprintf(what, sizeof what, "tau = omega^%zu", j);
        expect_setup_error(what, &c.cs, &tw, CUZK_EINVAL, "evaluation domain");
        cuzk_fr u[32], v[32], ww[32];
        char err[256] = "";
        CHECK(cuzk_groth16_qap_eval(u, v, ww, &c.cs, &tw.tau, NULL, err, sizeof err) == CUZK_EINVAL,
              "qap_eval accepts %s", what);
    }

    /* Malformed constraint systems. */
    cuzk_cs bad = c.cs;
    bad.n_inputs = 0;
    bad.n_aux += 2;
    expect_setup_error("no inputs", &bad, &good, CUZK_EINVAL, "no inputs");
    bad = c.cs;
    uint32_t saved = bad.b.col[3];
    bad.b.col[3] = (uint32_t)(bad.n_inputs + bad.n_aux);
    expect_setup_error("column out of range", &bad, &good, CUZK_EINVAL, "names variable");
    bad.b.col[3] = saved;
    uint64_t r2 = bad.c.row[2];
    bad.c.row[2] = bad.c.row[3] + 1;
    expect_setup_error("decreasing rows", &bad, &good, CUZK_EINVAL, "decrease");
    bad.c.row[2] = r2;
    bad.a.nnz--;
    expect_setup_error("nnz mismatch", &bad, &good, CUZK_EINVAL, "nnz");
    bad.a.nnz++;
    expect_setup_error("no cs", NULL, &good, CUZK_EINVAL, "no constraint system");
    circuit_free(&c);

    /* An aux variable that no row uses, and one whose only terms cancel within their row. */
    shape s2 = {2, 4, 6, 0, 0, false, false};
    circuit_random(&c, &s2);
    c.cs.n_aux++;
    expect_setup_error("unused aux", &c.cs, &good, CUZK_EINVAL,
                       "aux variable 4 (variable 6) is unconstrained");
    c.cs.n_aux--;
    circuit_free(&c);
    circuit_mul(&c);
    c.cs.n_aux = 3; /* variable 4: + x - x in row 0 of B */
    c.cs.b.nnz = 0;
    cuzk_fr one_neg;
    cuzk_fr_neg(&one_neg, &CUZK_FR_ONE);
    csr_push(&c.cs.b, 3, &CUZK_FR_ONE);
    csr_push(&c.cs.b, 4, &CUZK_FR_ONE);
    csr_push(&c.cs.b, 4, &one_neg);
    c.cs.b.row[1] = 3;
    expect_setup_error("cancelling aux", &c.cs, &good, CUZK_EINVAL, "(variable 4) is unconstrained");
    circuit_free(&c);

    char err[256] = "";
    CHECK(cuzk_g1_fixed_base_mul(NULL, NULL, 0, 17, NULL, err, sizeof err) == CUZK_EINVAL &&
              msg_has(err, "window 17"),
          "fixed-base accepts window 17");
    CHECK(cuzk_g2_fixed_base_mul(NULL, NULL, 0, 1, NULL, err, sizeof err) == CUZK_EINVAL,
          "fixed-base accepts window 1");
    cuzk_groth16_toxic rnd;
    CHECK(cuzk_groth16_toxic_random(&rnd, 8, err, sizeof err) == CUZK_OK && !cuzk_fr_is_zero(&rnd.delta),
          "toxic_random: %s", err);
    cuzk_fr t8;
    fr_pow_u64(&t8, &rnd.tau, 8);
    CHECK(!cuzk_fr_is_one(&t8), "toxic_random: tau in the domain");
}

/* ---- tests: fixed-base multiplication --------------------------------------------------------- */

/* A scalar whose top signed digit d (window c) satisfies k = 2 d 2^(c (ndig - 1)) mod r, so the partial
 * sum before the last window equals the last table point: the doubling branch. */
static bool crafted_scalar(cuzk_fr *out, unsigned c)
{
    size_t ndig = cuzk_msm_ndigits(c), top = c * (ndig - 1);
    int32_t dig[256];
    cuzk_fr two_pow, two, d_fr;
    cuzk_fr_from_u64(&two, 2);
    fr_pow_u64(&two_pow, &two, top + 1);
    for (uint32_t d = 1; d <= (1u << (c - 1)); d++) {
        cuzk_fr_from_u64(&d_fr, d);
        cuzk_fr_mul(out, &d_fr, &two_pow);
        uint64_t k[4];
        cuzk_fr_to_canonical(k, out);
        if (cuzk_msm_recode(dig, k, c) == ndig && dig[ndig - 1] == (int32_t)d)
            return true;
    }
    return false;
}

static void test_fixed_base(cuzk_pool *pool)
{
    enum { N1 = 300, N2 = 40 };
    cuzk_fr *k = malloc(N1 * sizeof *k);
    cuzk_g1_affine *o1 = malloc(N1 * sizeof *o1), e1;
    cuzk_g2_affine *o2 = malloc(N2 * sizeof *o2), e2;
    char err[256] = "";
    const unsigned c1[] = {2, 3, 5, 7, 11, 13, 16, 0}, c2[] = {2, 4, 9, 0};
    for (size_t t = 0; t < sizeof c1 / sizeof c1[0]; t++) {
        for (size_t i = 0; i < N1; i++)
            test_rand_fr(&k[i]);
        k[0] = CUZK_FR_ZERO;
        k[1] = CUZK_FR_ONE;
        cuzk_fr_neg(&k[2], &CUZK_FR_ONE);
        int rc = cuzk_g1_fixed_base_mul(o1, k, N1, c1[t], t % 2 ? pool : NULL, err, sizeof err);
        size_t bad = 0;
        for (size_t i = 0; rc == CUZK_OK && i < N1; i++) {
            g1_gen_mul(&e1, &k[i]);
            bad += !cuzk_g1_affine_eq(&e1, &o1[i]);
        }
        CHECK(rc == CUZK_OK && bad == 0, "G1 fixed base, window %u: rc %d, %zu wrong points (%s)", c1[t], rc,
              bad, err);
        CHECK(cuzk_g1_affine_is_identity(&o1[0]), "G1 fixed base: [0]G is not the identity");
    }
    for (size_t t = 0; t < sizeof c2 / sizeof c2[0]; t++) {
        for (size_t i = 0; i < N2; i++)
            test_rand_fr(&k[i]);
        k[0] = CUZK_FR_ZERO;
        k[1] = CUZK_FR_ONE;
        cuzk_fr_neg(&k[2], &CUZK_FR_ONE);
        int rc = cuzk_g2_fixed_base_mul(o2, k, N2, c2[t], t % 2 ? pool : NULL, err, sizeof err);
        size_t bad = 0;
        for (size_t i = 0; rc == CUZK_OK && i < N2; i++) {
            g2_gen_mul(&e2, &k[i]);
            bad += !cuzk_g2_affine_eq(&e2, &o2[i]);
        }
        CHECK(rc == CUZK_OK && bad == 0, "G2 fixed base, window %u: rc %d, %zu wrong points", c2[t], rc, bad);
    }

    /* The doubling branch, for every window size that admits such a scalar. */
    size_t crafted = 0;
    for (unsigned c = 2; c <= 16; c++) {
        cuzk_fr s;
        if (!crafted_scalar(&s, c))
            continue;
        crafted++;
        k[0] = s;
        test_rand_fr(&k[1]);
        g1_gen_mul(&e1, &s);
        CHECK(cuzk_g1_fixed_base_mul(o1, k, 2, c, NULL, err, sizeof err) == CUZK_OK &&
                  cuzk_g1_affine_eq(&e1, &o1[0]),
              "G1 fixed base, window %u: crafted doubling scalar", c);
        if (c <= 10) {
            g2_gen_mul(&e2, &s);
            CHECK(cuzk_g2_fixed_base_mul(o2, k, 2, c, NULL, err, sizeof err) == CUZK_OK &&
                      cuzk_g2_affine_eq(&e2, &o2[0]),
                  "G2 fixed base, window %u: crafted doubling scalar", c);
        }
    }
    CHECK(crafted >= 3, "only %zu window sizes admit a crafted doubling scalar", crafted);
    CHECK(cuzk_g1_fixed_base_mul(NULL, NULL, 0, 0, pool, err, sizeof err) == CUZK_OK,
          "G1 fixed base of nothing");
    free(k);
    free(o1);
    free(o2);
}

/* ---- timing mode ------------------------------------------------------------------------------ */

static int nop_g1(const void *ctx, cuzk_g1_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err, size_t errlen)
{
    (void)ctx, (void)out, (void)k, (void)n, (void)pool, (void)err, (void)errlen;
    return CUZK_OK;
}

static int nop_g2(const void *ctx, cuzk_g2_affine *out, const cuzk_fr *k, size_t n, cuzk_pool *pool, char *err, size_t errlen)
{
    (void)ctx, (void)out, (void)k, (void)n, (void)pool, (void)err, (void)errlen;
    return CUZK_OK;
}

/* CUZK_SETUP_BENCH=porep:K[:THREADS]: the setup's scalar side (everything but the fixed-base points, which
 * an accelerator does not make here) on the PoRep-shaped circuit at 2^-K scale, best of three. */
static int bench_porep_scalars(unsigned k, int threads)
{
    cuzk_porep_shape shape;
    cuzk_cs cs;
    char err[256] = "";
    cuzk_pool *pool = cuzk_pool_new(threads);
    if (cuzk_porep_shape_scale(&shape, k, 1) || cuzk_porep_synth_cs(&cs, &shape, pool, err, sizeof err)) {
        fprintf(stderr, "bench: PoRep shape 2^-%u: %s\n", k, err);
        cuzk_pool_free(pool);
        return 1;
    }
    static const cuzk_setup_accel NOP = {"none", NULL, nop_g1, nop_g2};
    cuzk_groth16_toxic tw;
    random_toxic(&tw);
    double best = 1e30;
    int rc = CUZK_OK;
    for (int r = 0; r < 3 && rc == CUZK_OK; r++) {
        cuzk_groth16_params pk;
        double t0 = now_s();
        rc = cuzk_groth16_setup_accel(&pk, &cs, &tw, &NOP, pool, err, sizeof err);
        double t = now_s() - t0;
        best = t < best ? t : best;
        if (rc == CUZK_OK)
            cuzk_groth16_params_free(&pk);
    }
    printf("bench: PoRep-shaped 2^-%u (%zu rows, %zu aux), %d threads: setup without its points %.3f s "
           "(best of 3)%s%s\n",
           k, cs.n_constraints + cs.n_inputs, cs.n_aux, cuzk_pool_size(pool), best, rc ? ": " : "", rc ? err : "");
    cuzk_cs_free(&cs);
    cuzk_pool_free(pool);
    return rc ? 1 : 0;
}

static int bench(const char *spec)
{
    if (!strncmp(spec, "porep:", 6)) {
        const char *colon = strchr(spec + 6, ':');
        return bench_porep_scalars((unsigned)atoi(spec + 6), colon ? atoi(colon + 1) : 0);
    }
    unsigned lg = (unsigned)atoi(spec);
    const char *colon = strchr(spec, ':');
    int threads = colon ? atoi(colon + 1) : 0;
    cuzk_pool *pool = cuzk_pool_new(threads);
    size_t rows = (size_t)1 << lg;
    shape s = {2, rows - 2, rows - 2, 0, 0, false, false};
    printf("bench: 2^%u rows (%zu constraints, %zu aux, 2 inputs), %d threads\n", lg, s.nc, s.naux,
           cuzk_pool_size(pool));
    double t0 = now_s();
    circuit c;
    circuit_random(&c, &s);
    double t1 = now_s(), cpu1 = cpu_s();
    cuzk_groth16_params pk;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&pk, &c.cs, NULL, pool, err, sizeof err);
    double t2 = now_s();
    printf(
        "bench: circuit %.2f s, setup %.2f s wall, %.2f s cpu (rc %d %s): ic %zu h %zu l %zu a %zu b %zu\n",
        t1 - t0, t2 - t1, cpu_s() - cpu1, rc, err, pk.vk.n_ic, pk.n_h, pk.n_l, pk.n_a, pk.n_b);
    if (rc == CUZK_OK && !getenv("CUZK_SETUP_BENCH_NOPROVE")) {
        cuzk_groth16_proof pf;
        rc = cuzk_groth16_prove(&pf, &pk, &c.cs, c.z, NULL, NULL, pool, err, sizeof err);
        double t3 = now_s();
        printf("bench: prove (incl. its own verification) %.2f s (rc %d %s)\n", t3 - t2, rc, err);
        if (rc == CUZK_OK)
            printf("bench: verify %s\n", verify_for(&pk, &c, &pf, false) == CUZK_OK ? "ok" : "FAILED");
    }
    cuzk_groth16_params_free(&pk);
    circuit_free(&c);
    cuzk_pool_free(pool);
    return rc ? 1 : 0;
}

int main(void)
{
    test_rng_init("test_setup");
    const char *b = getenv("CUZK_SETUP_BENCH");
    if (b)
        return bench(b);
    cuzk_pool *pool = cuzk_pool_new(2);
    double t0 = now_s();
    test_root_of_unity();
    test_tiny_known(pool);
    test_tau_edge();
    test_worked_example();
    test_counts(pool);
    printf("naive keys and counts: %.2f s\n", now_s() - t0);
    test_qap_identity();
    test_own_prover();
    printf("qap and own prover: %.2f s\n", now_s() - t0);
    test_with_prover(pool);
    printf("with the prover: %.2f s\n", now_s() - t0);
    test_threads(pool);
    test_parallel_scalars();
    printf("parallel scalars: %.2f s\n", now_s() - t0);
    test_errors();
    test_fixed_base(pool);
    printf("all: %.2f s\n", now_s() - t0);
    cuzk_pool_free(pool);
    return test_finish("test_setup");
}
