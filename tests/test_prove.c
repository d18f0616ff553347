/*
 * test_prove.c — the CPU Groth16 provers of cuzk/prove.h.
 *
 * Oracles:
 * - snarkjs itself: tests/fixtures/<c>/proof_r0s0.json is the proof snarkjs
 *   0.7.6's prover made from the committed circuit.zkey and witness.wtns with
 *   r = s = 0 (scripts/fixtures/prove_zero.mjs). Ours must equal it in every
 *   coordinate. With random r, s our proofs must verify against the fixture's
 *   verification_key.json and public.json (read by the JSON reader) and
 *   differ from the r = s = 0 proof.
 * - The toxic waste. For random satisfiable circuits (cuzk_cs_random) this
 *   file builds the keys itself from random tau, alpha, beta, gamma, delta:
 *   bellperson's parameters (Lagrange basis of the 2^k domain with bellperson's
 *   omega, input rows appended, h = tau^i Z(tau) / delta, l and ic =
 *   (beta A_i + alpha B_i + C_i) / delta or gamma, identity points dropped
 *   from the A and B queries as bellperson's generator does) and, from the
 *   same circuit, a snarkjs .zkey image (omega from 5, H points the odd-coset
 *   Lagrange basis times Z(tau) / (-2 delta)). Knowing the exponents, the
 *   expected proof is computed directly in Fr:
 *       A = alpha + sum z_i A_i(tau) + r delta,   B = beta + sum z_i B_i(tau) + s delta,
 *       C = (sum_aux z_i (beta A_i + alpha B_i + C_i)(tau) + A(tau) B(tau) - C(tau)) / delta
 *           + s A + r B - r s delta,
 *   and multiplied onto the generators. The prover's proof must equal it
 *   bit for bit (the proof of a given key, witness, r and s is unique), and
 *   verify with the pairing check. Where the library's own setup
 *   (cuzk/setup.h) accepts the circuit, its key from the same toxic waste
 *   must equal the one built here.
 * Also: tampered public inputs fail; a bad witness is refused naming the
 * first bad row (found here by a naive loop); wrong key sizes are refused;
 * the verification inside the prover catches a corrupted key; the split MSM
 * equals the plain MSM; proofs are deterministic for fixed r, s and identical
 * on 1, 2 and 3 threads; r, s drawn internally verify and differ.
 *
 * `test_prove bench LG THREADS` times both provers on a random circuit of
 * 2^LG rows instead of testing (docs/design/007-cpu-prover.md).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/cs.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/params.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "cuzk/snarkjs_json.h"
#include "cuzk/verify.h"
#include "testutil.h"

#define FIXTURES CUZK_VECTOR_DIR "/../fixtures"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };

static cuzk_pool *POOLS[3]; /* NULL, 2 and 3 threads */
enum { NPOOLS = 3 };

/* ---- fixed-base multiplication (the trusted setup makes thousands of points) -------- */

#define FB_WINDOWS 32

#define DEFINE_FIXED_BASE(G, F)                                                                              \
    typedef struct {                                                                                         \
        cuzk_##G##_affine t[FB_WINDOWS][256];                                                                \
    } fb_##G;                                                                                                \
                                                                                                             \
    static fb_##G *fb_##G##_new(const cuzk_##G##_affine *base)                                               \
    {                                                                                                        \
        fb_##G *fb = malloc(sizeof *fb);                                                                     \
        cuzk_##G tmp[255], b;                                                                                \
        F scratch[255];                                                                                      \
        cuzk_##G##_from_affine(&b, base);                                                                    \
        for (int k = 0; k < FB_WINDOWS; k++) {                                                               \
            tmp[0] = b;                                                                                      \
            for (int d = 1; d < 255; d++)                                                                    \
                cuzk_##G##_add(&tmp[d], &tmp[d - 1], &b);                                                    \
            memset(&fb->t[k][0], 0, sizeof fb->t[k][0]);                                                     \
            cuzk_##G##_batch_to_affine(&fb->t[k][1], tmp, 255, scratch);                                     \
            for (int i = 0; i < 8; i++)                                                                      \
                cuzk_##G##_dbl(&b, &b);                                                                      \
        }                                                                                                    \
        return fb;                                                                                           \
    }                                                                                                        \
                                                                                                             \
    static void fb_##G##_mul(cuzk_##G *out, const fb_##G *fb, const cuzk_fr *k)                              \
    {                                                                                                        \
        uint8_t e[32];                                                                                       \
        cuzk_fr_to_le32(e, k);                                                                               \
        cuzk_##G##_set_identity(out);                                                                        \
        for (int i = 0; i < FB_WINDOWS; i++)                                                                 \
            if (e[i])                                                                                        \
                cuzk_##G##_add_affine(out, out, &fb->t[i][e[i]]);                                            \
    }                                                                                                        \
                                                                                                             \
    static void fb_##G##_mul_affine(cuzk_##G##_affine *out, const fb_##G *fb, const cuzk_fr *k)              \
    {                                                                                                        \
        cuzk_##G p;                                                                                          \
        fb_##G##_mul(&p, fb, k);                                                                             \
        cuzk_##G##_to_affine(out, &p);                                                                       \
    }

DEFINE_FIXED_BASE(g1, cuzk_fp)
DEFINE_FIXED_BASE(g2, cuzk_fp2)

static fb_g1 *FB1;
static fb_g2 *FB2;

/* ---- the QAP at tau ------------------------------------------------------------------- */

typedef struct {
    cuzk_fr tau, alpha, beta, gamma, delta;
} toxic;

/* A_i(tau), B_i(tau), C_i(tau) for every variable, over the domain of the circuit rows plus one input row
 * per input (A coefficient 1 on that input): bellperson's and snarkjs's rows coincide. */
typedef struct {
    size_t m, nv;
    unsigned lg;
    cuzk_fr *u, *v, *w;
    cuzk_fr zt;    /* Z(tau) = tau^m - 1 */
    cuzk_fr omega; /* the domain's root */
} qap;

static void qap_eval(qap *q, const cuzk_cs *cs, const cuzk_fr *tau, cuzk_ntt_convention conv)
{
    size_t rows = cs->n_constraints + cs->n_inputs;
    q->lg = 0;
    while (((size_t)1 << q->lg) < rows)
        q->lg++;
    q->m = (size_t)1 << q->lg;
    q->nv = cs->n_inputs + cs->n_aux;
    cuzk_ntt_root_of_unity(&q->omega, q->lg, conv);
    uint64_t e = q->m;
    cuzk_fr_pow(&q->zt, tau, &e, 1);
    cuzk_fr_sub(&q->zt, &q->zt, &CUZK_FR_ONE);
    /* L_j(tau) = omega^j Z(tau) / (m (tau - omega^j)) */
    cuzk_fr *den = malloc(q->m * sizeof *den), *lag = malloc(q->m * sizeof *lag),
            *scr = malloc(q->m * sizeof *scr), *wj = malloc(q->m * sizeof *wj), mm;
    cuzk_fr_from_u64(&mm, q->m);
    cuzk_fr x = CUZK_FR_ONE;
    for (size_t j = 0; j < q->m; j++) {
        wj[j] = x;
        cuzk_fr_sub(&den[j], tau, &x);
        cuzk_fr_mul(&den[j], &den[j], &mm);
        cuzk_fr_mul(&x, &x, &q->omega);
    }
    cuzk_fr_batch_inv(lag, den, q->m, scr);
    for (size_t j = 0; j < q->m; j++) {
        cuzk_fr_mul(&lag[j], &lag[j], &wj[j]);
        cuzk_fr_mul(&lag[j], &lag[j], &q->zt);
    }
    q->u = calloc(q->nv, sizeof(cuzk_fr));
    q->v = calloc(q->nv, sizeof(cuzk_fr));
    q->w = calloc(q->nv, sizeof(cuzk_fr));
    const cuzk_csr *mats[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_fr *outs[3] = {q->u, q->v, q->w};
    for (int i = 0; i < 3; i++)
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t k = mats[i]->row[j]; k < mats[i]->row[j + 1]; k++) {
                cuzk_fr t;
                cuzk_fr_mul(&t, &mats[i]->val[k], &lag[j]);
                cuzk_fr_add(&outs[i][mats[i]->col[k]], &outs[i][mats[i]->col[k]], &t);
            }
    for (size_t i = 0; i < cs->n_inputs; i++)
        cuzk_fr_add(&q->u[i], &q->u[i], &lag[cs->n_constraints + i]);
    free(den);
    free(lag);
    free(scr);
    free(wj);
}

static void qap_free(qap *q)
{
    free(q->u);
    free(q->v);
    free(q->w);
}

/* (beta u_i + alpha v_i + w_i) / d */
static void lc_over(cuzk_fr *out, const qap *q, const toxic *t, size_t i, const cuzk_fr *d_inv)
{
    cuzk_fr x, y;
    cuzk_fr_mul(&x, &t->beta, &q->u[i]);
    cuzk_fr_mul(&y, &t->alpha, &q->v[i]);
    cuzk_fr_add(&x, &x, &y);
    cuzk_fr_add(&x, &x, &q->w[i]);
    cuzk_fr_mul(out, &x, d_inv);
}

static void rand_toxic(toxic *t)
{
    test_rand_fr(&t->tau);
    test_rand_fr(&t->alpha);
    test_rand_fr(&t->beta);
    test_rand_fr(&t->gamma);
    test_rand_fr(&t->delta);
}

/* The proof's three exponents for witness z (the L sum over the variables from first_private on). */
static void expected_exponents(cuzk_fr *ea, cuzk_fr *eb, cuzk_fr *ec, const qap *q, const toxic *t,
                               const cuzk_fr *z, size_t first_private, const cuzk_fr *r, const cuzk_fr *s)
{
    cuzk_fr at = CUZK_FR_ZERO, bt = CUZK_FR_ZERO, ct = CUZK_FR_ZERO, lsum = CUZK_FR_ZERO, x, dinv;
    cuzk_fr_inv(&dinv, &t->delta);
    for (size_t i = 0; i < q->nv; i++) {
        cuzk_fr_mul(&x, &z[i], &q->u[i]);
        cuzk_fr_add(&at, &at, &x);
        cuzk_fr_mul(&x, &z[i], &q->v[i]);
        cuzk_fr_add(&bt, &bt, &x);
        cuzk_fr_mul(&x, &z[i], &q->w[i]);
        cuzk_fr_add(&ct, &ct, &x);
        if (i >= first_private) {
            cuzk_fr one = CUZK_FR_ONE;
            lc_over(&x, q, t, i, &one);
            cuzk_fr_mul(&x, &x, &z[i]);
            cuzk_fr_add(&lsum, &lsum, &x);
        }
    }
    /* A = alpha + A(tau) + r delta, B = beta + B(tau) + s delta */
    cuzk_fr_mul(&x, r, &t->delta);
    cuzk_fr_add(ea, &t->alpha, &at);
    cuzk_fr_add(ea, ea, &x);
    cuzk_fr_mul(&x, s, &t->delta);
    cuzk_fr_add(eb, &t->beta, &bt);
    cuzk_fr_add(eb, eb, &x);
    /* C = (lsum + A(tau) B(tau) - C(tau)) / delta + s A + r B - r s delta */
    cuzk_fr_mul(&x, &at, &bt);
    cuzk_fr_sub(&x, &x, &ct);
    cuzk_fr_add(&x, &x, &lsum);
    cuzk_fr_mul(ec, &x, &dinv);
    cuzk_fr_mul(&x, s, ea);
    cuzk_fr_add(ec, ec, &x);
    cuzk_fr_mul(&x, r, eb);
    cuzk_fr_add(ec, ec, &x);
    cuzk_fr_mul(&x, r, s);
    cuzk_fr_mul(&x, &x, &t->delta);
    cuzk_fr_sub(ec, ec, &x);
}

static void expected_proof(cuzk_groth16_proof *p, const qap *q, const toxic *t, const cuzk_fr *z,
                           size_t first_private, const cuzk_fr *r, const cuzk_fr *s)
{
    cuzk_fr ea, eb, ec;
    expected_exponents(&ea, &eb, &ec, q, t, z, first_private, r, s);
    fb_g1_mul_affine(&p->a, FB1, &ea);
    fb_g2_mul_affine(&p->b, FB2, &eb);
    fb_g1_mul_affine(&p->c, FB1, &ec);
}

/* ---- bellperson parameters from the toxic waste --------------------------------------- */

static void setup_bellperson(cuzk_groth16_params *pk, const qap *q, const cuzk_cs *cs, const toxic *t)
{
    memset(pk, 0, sizeof *pk);
    cuzk_fr ginv, dinv, x;
    cuzk_fr_inv(&ginv, &t->gamma);
    cuzk_fr_inv(&dinv, &t->delta);
    cuzk_groth16_vk *vk = &pk->vk;
    fb_g1_mul_affine(&vk->alpha_g1, FB1, &t->alpha);
    fb_g1_mul_affine(&vk->beta_g1, FB1, &t->beta);
    fb_g1_mul_affine(&vk->delta_g1, FB1, &t->delta);
    fb_g2_mul_affine(&vk->beta_g2, FB2, &t->beta);
    fb_g2_mul_affine(&vk->gamma_g2, FB2, &t->gamma);
    fb_g2_mul_affine(&vk->delta_g2, FB2, &t->delta);
    vk->n_ic = cs->n_inputs;
    vk->ic = malloc(vk->n_ic * sizeof *vk->ic);
    for (size_t i = 0; i < cs->n_inputs; i++) {
        lc_over(&x, q, t, i, &ginv);
        fb_g1_mul_affine(&vk->ic[i], FB1, &x);
    }
    pk->n_h = q->m - 1;
    pk->h = malloc((pk->n_h ? pk->n_h : 1) * sizeof *pk->h);
    cuzk_fr p;
    cuzk_fr_mul(&p, &q->zt, &dinv);
    for (size_t i = 0; i < pk->n_h; i++) {
        fb_g1_mul_affine(&pk->h[i], FB1, &p);
        cuzk_fr_mul(&p, &p, &t->tau);
    }
    pk->n_l = cs->n_aux;
    pk->l = malloc((pk->n_l ? pk->n_l : 1) * sizeof *pk->l);
    for (size_t j = 0; j < cs->n_aux; j++) {
        lc_over(&x, q, t, cs->n_inputs + j, &dinv);
        fb_g1_mul_affine(&pk->l[j], FB1, &x);
    }
    pk->a = malloc(q->nv * sizeof *pk->a);
    pk->b_g1 = malloc(q->nv * sizeof *pk->b_g1);
    pk->b_g2 = malloc(q->nv * sizeof *pk->b_g2);
    for (size_t i = 0; i < q->nv; i++) {
        if (!cuzk_fr_is_zero(&q->u[i]))
            fb_g1_mul_affine(&pk->a[pk->n_a++], FB1, &q->u[i]);
        if (!cuzk_fr_is_zero(&q->v[i])) {
            fb_g1_mul_affine(&pk->b_g1[pk->n_b], FB1, &q->v[i]);
            fb_g2_mul_affine(&pk->b_g2[pk->n_b++], FB2, &q->v[i]);
        }
    }
}

/* ---- a snarkjs .zkey image from the toxic waste --------------------------------------- */

typedef struct {
    uint8_t *p;
    size_t len, cap;
} buf;

static void put(buf *b, const void *d, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, d, n);
    b->len += n;
}

static void put32(buf *b, uint32_t v)
{
    uint8_t e[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, e, 4);
}

static void put_limbs(buf *b, const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t e[8];
        for (int k = 0; k < 8; k++)
            e[k] = (uint8_t)(l[i] >> (8 * k));
        put(b, e, 8);
    }
}

/* Points as the zkey stores them: Montgomery limbs, little-endian, identity all zero. */
static void put_g1(buf *b, const cuzk_g1_affine *p)
{
    put_limbs(b, p->x.l, 6);
    put_limbs(b, p->y.l, 6);
}

static void put_g2(buf *b, const cuzk_g2_affine *p)
{
    put_limbs(b, p->x.c0.l, 6);
    put_limbs(b, p->x.c1.l, 6);
    put_limbs(b, p->y.c0.l, 6);
    put_limbs(b, p->y.c1.l, 6);
}

static void put_section(buf *b, uint32_t id, const buf *s)
{
    put32(b, id);
    uint64_t n = s->len;
    put32(b, (uint32_t)n);
    put32(b, (uint32_t)(n >> 32));
    put(b, s->p, s->len);
}

static void put_coef(buf *b, uint32_t mat, uint32_t row, uint32_t sig, const cuzk_fr *v)
{
    put32(b, mat);
    put32(b, row);
    put32(b, sig);
    cuzk_fr stored; /* v·R² mod r: the Montgomery form of v's Montgomery limbs */
    cuzk_fr_from_canonical(&stored, v->l);
    put_limbs(b, stored.l, 4);
}

/* The .zkey bytes for cs under the toxic waste (q must use CUZK_NTT_SNARKJS); free the result. */
static uint8_t *setup_zkey(size_t *len, const qap *q, const cuzk_cs *cs, const toxic *t)
{
    buf s = {0}, out = {0};
    cuzk_fr ginv, dinv, x;
    cuzk_fr_inv(&ginv, &t->gamma);
    cuzk_fr_inv(&dinv, &t->delta);
    cuzk_g1_affine p1;
    cuzk_g2_affine p2;
    uint32_t n_pub = (uint32_t)cs->n_inputs - 1, nv = (uint32_t)q->nv;
    put(&out, "zkey", 4);
    put32(&out, 1);
    put32(&out, 9);

    put32(&s, 1);
    put_section(&out, 1, &s);

    s.len = 0;
    put32(&s, 48);
    put_limbs(&s, CUZK_P, 6);
    put32(&s, 32);
    put_limbs(&s, CUZK_R, 4);
    put32(&s, nv);
    put32(&s, n_pub);
    put32(&s, (uint32_t)q->m);
    const cuzk_fr *g1s[2] = {&t->alpha, &t->beta};
    for (int i = 0; i < 2; i++) {
        fb_g1_mul_affine(&p1, FB1, g1s[i]);
        put_g1(&s, &p1);
    }
    const cuzk_fr *g2s[2] = {&t->beta, &t->gamma};
    for (int i = 0; i < 2; i++) {
        fb_g2_mul_affine(&p2, FB2, g2s[i]);
        put_g2(&s, &p2);
    }
    fb_g1_mul_affine(&p1, FB1, &t->delta);
    put_g1(&s, &p1);
    fb_g2_mul_affine(&p2, FB2, &t->delta);
    put_g2(&s, &p2);
    put_section(&out, 2, &s);

    s.len = 0;
    for (size_t i = 0; i <= n_pub; i++) {
        lc_over(&x, q, t, i, &ginv);
        fb_g1_mul_affine(&p1, FB1, &x);
        put_g1(&s, &p1);
    }
    put_section(&out, 3, &s);

    s.len = 0;
    uint32_t ncoef = 0;
    put32(&s, 0);
    for (size_t j = 0; j < cs->n_constraints; j++) {
        const cuzk_csr *m[2] = {&cs->a, &cs->b};
        for (uint32_t mat = 0; mat < 2; mat++)
            for (uint64_t k = m[mat]->row[j]; k < m[mat]->row[j + 1]; k++, ncoef++)
                put_coef(&s, mat, (uint32_t)j, m[mat]->col[k], &m[mat]->val[k]);
    }
    for (uint32_t i = 0; i <= n_pub; i++, ncoef++)
        put_coef(&s, 0, (uint32_t)cs->n_constraints + i, i, &CUZK_FR_ONE);
    for (int k = 0; k < 4; k++)
        s.p[k] = (uint8_t)(ncoef >> (8 * k));
    put_section(&out, 4, &s);

    const cuzk_fr *per_var[2] = {q->u, q->v};
    for (int sec = 0; sec < 2; sec++) {
        s.len = 0;
        for (size_t i = 0; i < nv; i++) {
            fb_g1_mul_affine(&p1, FB1, &per_var[sec][i]);
            put_g1(&s, &p1);
        }
        put_section(&out, 5 + sec, &s);
    }
    s.len = 0;
    for (size_t i = 0; i < nv; i++) {
        fb_g2_mul_affine(&p2, FB2, &q->v[i]);
        put_g2(&s, &p2);
    }
    put_section(&out, 7, &s);

    s.len = 0;
    for (size_t i = n_pub + 1; i < nv; i++) {
        lc_over(&x, q, t, i, &dinv);
        fb_g1_mul_affine(&p1, FB1, &x);
        put_g1(&s, &p1);
    }
    put_section(&out, 8, &s);

    /* H_i = L'_i(tau) Z(tau) / (-2 delta), L'_i the Lagrange basis on x_i = g omega^i, g = omega_2m:
     * L'_i(tau) = (tau^m - g^m) / (m x_i^(m-1) (tau - x_i)) with g^m = -1 and x_i^(m-1) = -1 / x_i. */
    s.len = 0;
    cuzk_fr g, xi, num, k, m2, den;
    cuzk_ntt_root_of_unity(&g, q->lg + 1, CUZK_NTT_SNARKJS);
    cuzk_fr_add(&num, &q->zt, &CUZK_FR_ONE);
    cuzk_fr_add(&num, &num, &CUZK_FR_ONE); /* tau^m + 1 */
    cuzk_fr_mul(&k, &num, &q->zt);
    cuzk_fr_mul(&k, &k, &dinv);
    cuzk_fr_from_u64(&m2, 2 * q->m); /* -(m) (-2) */
    xi = g;
    for (size_t i = 0; i < q->m; i++) {
        /* denominator m x_i^(m-1) (tau - x_i) (-2) = 2 m (tau - x_i) / x_i */
        cuzk_fr_sub(&den, &t->tau, &xi);
        cuzk_fr_mul(&den, &den, &m2);
        cuzk_fr_inv(&den, &den);
        cuzk_fr_mul(&den, &den, &xi);
        cuzk_fr_mul(&x, &k, &den);
        fb_g1_mul_affine(&p1, FB1, &x);
        put_g1(&s, &p1);
        cuzk_fr_mul(&xi, &xi, &q->omega);
    }
    put_section(&out, 9, &s);
    free(s.p);
    *len = out.len;
    return out.p;
}

/* ---- helpers -------------------------------------------------------------------------- */

static bool same_bytes(const void *x, const void *y, size_t n)
{
    return n == 0 || memcmp(x, y, n) == 0;
}

static bool proof_eq(const cuzk_groth16_proof *x, const cuzk_groth16_proof *y)
{
    return cuzk_g1_affine_eq(&x->a, &y->a) && cuzk_g2_affine_eq(&x->b, &y->b) &&
           cuzk_g1_affine_eq(&x->c, &y->c);
}

static bool proof_bytes_eq(const cuzk_groth16_proof *x, const cuzk_groth16_proof *y)
{
    uint8_t bx[CUZK_GROTH16_PROOF_SIZE], by[CUZK_GROTH16_PROOF_SIZE];
    cuzk_groth16_proof_to_bytes(bx, x);
    cuzk_groth16_proof_to_bytes(by, y);
    return memcmp(bx, by, sizeof bx) == 0;
}

static int verify_with(const cuzk_groth16_vk *vk, const cuzk_fr *inputs, size_t n,
                       const cuzk_groth16_proof *p)
{
    cuzk_groth16_pvk *pvk = malloc(sizeof *pvk);
    int rc = cuzk_groth16_prepare(pvk, vk, NULL, 0);
    if (!rc)
        rc = cuzk_groth16_verify(pvk, inputs, n, p, NULL, 0);
    free(pvk);
    return rc;
}

/* First row of cs that z does not satisfy, by the plain loop; -1 if none. */
static int64_t naive_first_unsat(const cuzk_cs *cs, const cuzk_fr *z)
{
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (size_t j = 0; j < cs->n_constraints; j++) {
        cuzk_fr v[3], t;
        for (int i = 0; i < 3; i++) {
            v[i] = CUZK_FR_ZERO;
            for (uint64_t k = m[i]->row[j]; k < m[i]->row[j + 1]; k++) {
                cuzk_fr_mul(&t, &m[i]->val[k], &z[m[i]->col[k]]);
                cuzk_fr_add(&v[i], &v[i], &t);
            }
        }
        cuzk_fr_mul(&t, &v[0], &v[1]);
        if (!cuzk_fr_eq(&t, &v[2]))
            return (int64_t)j;
    }
    return -1;
}

/* Corrupts one variable of z (index >= first) so that some row fails; returns that row, -1 if none. */
static int64_t corrupt(const cuzk_cs *cs, cuzk_fr *z, size_t first, size_t *which, cuzk_fr *keep)
{
    size_t nv = cs->n_inputs + cs->n_aux;
    for (int tries = 0; tries < 50 && nv > first; tries++) {
        size_t v = first + test_rand64() % (nv - first);
        cuzk_fr d;
        test_rand_fr(&d);
        *keep = z[v];
        cuzk_fr_add(&z[v], &z[v], &d);
        int64_t row = naive_first_unsat(cs, z);
        if (row >= 0) {
            *which = v;
            return row;
        }
        z[v] = *keep;
    }
    return -1;
}

/* ---- split MSM -------------------------------------------------------------------------- */

static void fill_scalars(cuzk_fr *k, size_t n, int pct_zero, int pct_one)
{
    for (size_t i = 0; i < n; i++) {
        int r = (int)(test_rand64() % 100);
        if (r < pct_zero)
            k[i] = CUZK_FR_ZERO;
        else if (r < pct_zero + pct_one)
            k[i] = CUZK_FR_ONE;
        else
            test_rand_fr(&k[i]);
    }
}

static void test_split_msm(void)
{
    static const struct {
        size_t n;
        int zero, one;
    } cases[] = {
        {0, 0, 0},     {1, 0, 100},    {1, 0, 0},       {1, 100, 0},    {63, 45, 45},
        {64, 50, 50},  {65, 40, 40},   {200, 0, 100},   {200, 100, 0},  {300, 30, 30},
        {500, 10, 20}, {1000, 60, 39}, {32845, 45, 45}, {20000, 90, 5},
    };
    size_t maxn = 32845;
    cuzk_g1_affine *b1 = malloc(maxn * sizeof *b1);
    cuzk_g2_affine *b2 = malloc(4000 * sizeof *b2);
    cuzk_fr *k = malloc(maxn * sizeof *k);
    /* Bases: a walk P_i = P_(i-1) + Q_(i mod 8), with a few identities sprinkled in. */
    {
        cuzk_g1 q[8], acc, *jac = malloc(maxn * sizeof *jac);
        cuzk_fp *scr = malloc(maxn * sizeof *scr);
        for (int i = 0; i < 8; i++) {
            cuzk_fr e;
            test_rand_fr(&e);
            fb_g1_mul(&q[i], FB1, &e);
        }
        acc = q[0];
        for (size_t i = 0; i < maxn; i++) {
            cuzk_g1_add(&acc, &acc, &q[i % 8]);
            jac[i] = acc;
        }
        cuzk_g1_batch_to_affine(b1, jac, maxn, scr);
        for (int i = 0; i < 5; i++)
            memset(&b1[test_rand64() % maxn], 0, sizeof *b1);
        free(jac);
        free(scr);
        for (size_t i = 0; i < 4000; i++) {
            cuzk_fr e;
            cuzk_fr_from_u64(&e, 1000003 * (i + 1) + test_rand64() % 1000);
            fb_g2_mul_affine(&b2[i], FB2, &e);
        }
        memset(&b2[test_rand64() % 4000], 0, sizeof *b2);
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t n = cases[c].n;
        fill_scalars(k, n, cases[c].zero, cases[c].one);
        cuzk_g1 want, got;
        cuzk_g1_set_identity(&want);
        if (n)
            cuzk_g1_msm(&want, b1, k, n, NULL);
        for (int p = 0; p < NPOOLS; p++) {
            int rc = cuzk_g1_msm_split(&got, b1, k, n, POOLS[p]);
            CHECK(rc == CUZK_OK && cuzk_g1_eq(&got, &want), "split G1 n=%zu (%d%% 0, %d%% 1), %d threads", n,
                  cases[c].zero, cases[c].one, cuzk_pool_size(POOLS[p]));
        }
        if (n <= 4000) {
            cuzk_g2 want2, got2;
            cuzk_g2_set_identity(&want2);
            if (n)
                cuzk_g2_msm(&want2, b2, k, n, NULL);
            for (int p = 0; p < NPOOLS; p++) {
                int rc = cuzk_g2_msm_split(&got2, b2, k, n, POOLS[p]);
                CHECK(rc == CUZK_OK && cuzk_g2_eq(&got2, &want2),
                      "split G2 n=%zu (%d%% 0, %d%% 1), %d threads", n, cases[c].zero, cases[c].one,
                      cuzk_pool_size(POOLS[p]));
            }
        }
    }
    /* A changed scalar changes the split result the way it changes the plain one. */
    fill_scalars(k, 1000, 45, 45);
    cuzk_g1 x, y, z;
    cuzk_g1_msm_split(&x, b1, k, 1000, NULL);
    k[500] = CUZK_FR_ONE;
    k[501] = CUZK_FR_ZERO;
    cuzk_fr_from_u64(&k[502], 7);
    cuzk_g1_msm_split(&y, b1, k, 1000, NULL);
    cuzk_g1_msm(&z, b1, k, 1000, NULL);
    CHECK(cuzk_g1_eq(&y, &z), "split after a change equals plain");
    free(b1);
    free(b2);
    free(k);
}

/* ---- bellperson path (and the same circuit through a zkey) on random circuits ----------- */

/* The library's setup, given the same toxic waste, must make the same key where it makes one (it refuses
 * circuits with unconstrained aux variables, which bellperson's files cannot hold). */
static void check_library_setup(const cuzk_groth16_params *pk, const cuzk_cs *cs, const toxic *t,
                                const char *what)
{
    cuzk_groth16_toxic tw = {t->tau, t->alpha, t->beta, t->gamma, t->delta};
    cuzk_groth16_params lib;
    char err[256] = "";
    int rc = cuzk_groth16_setup(&lib, cs, &tw, POOLS[1], err, sizeof err);
    if (rc == CUZK_OK) {
        bool same = lib.n_h == pk->n_h && lib.n_l == pk->n_l && lib.n_a == pk->n_a && lib.n_b == pk->n_b &&
                    lib.vk.n_ic == pk->vk.n_ic && same_bytes(lib.h, pk->h, pk->n_h * sizeof *pk->h) &&
                    same_bytes(lib.l, pk->l, pk->n_l * sizeof *pk->l) &&
                    same_bytes(lib.a, pk->a, pk->n_a * sizeof *pk->a) &&
                    same_bytes(lib.b_g1, pk->b_g1, pk->n_b * sizeof *pk->b_g1) &&
                    same_bytes(lib.b_g2, pk->b_g2, pk->n_b * sizeof *pk->b_g2) &&
                    same_bytes(lib.vk.ic, pk->vk.ic, pk->vk.n_ic * sizeof *pk->vk.ic) &&
                    cuzk_g1_affine_eq(&lib.vk.alpha_g1, &pk->vk.alpha_g1) &&
                    cuzk_g2_affine_eq(&lib.vk.delta_g2, &pk->vk.delta_g2);
        CHECK(same, "%s: cuzk_groth16_setup made another key from the same toxic waste", what);
    } else {
        CHECK(rc == CUZK_EINVAL, "%s: cuzk_groth16_setup: %s", what, err);
    }
    cuzk_groth16_params_free(&lib);
}

/* The coset form of the key (cuzk/groth16.h) made here from the toxic waste, with the coset's Lagrange
 * values by their product formula l_j(tau) = prod_{k != j} (tau - x_k)/(x_j - x_k), x_k = 7 w^k. */
static void setup_coset(cuzk_groth16_params *pk, const qap *q, const cuzk_cs *cs, const toxic *t)
{
    setup_bellperson(pk, q, cs, t);
    size_t m = q->m;
    cuzk_fr dinv, k, x, y, seven, gm;
    cuzk_fr_inv(&dinv, &t->delta);
    cuzk_fr_from_u64(&seven, 7);
    uint64_t e = m;
    cuzk_fr_pow(&gm, &seven, &e, 1);
    cuzk_fr_sub(&k, &gm, &CUZK_FR_ONE);
    cuzk_fr_inv(&k, &k);
    cuzk_fr zk; /* Z(tau) k */
    cuzk_fr_mul(&zk, &q->zt, &k);
    cuzk_fr *xs = malloc(m * sizeof *xs);
    xs[0] = seven;
    for (size_t j = 1; j < m; j++)
        cuzk_fr_mul(&xs[j], &xs[j - 1], &q->omega);
    free(pk->h);
    pk->n_h = m;
    pk->h = malloc(m * sizeof *pk->h);
    for (size_t j = 0; j < m; j++) {
        cuzk_fr num = CUZK_FR_ONE, den = CUZK_FR_ONE;
        for (size_t i = 0; i < m; i++) {
            if (i == j)
                continue;
            cuzk_fr_sub(&x, &t->tau, &xs[i]);
            cuzk_fr_mul(&num, &num, &x);
            cuzk_fr_sub(&x, &xs[j], &xs[i]);
            cuzk_fr_mul(&den, &den, &x);
        }
        cuzk_fr_inv(&den, &den);
        cuzk_fr_mul(&x, &num, &den);
        cuzk_fr_mul(&x, &x, &zk);
        cuzk_fr_mul(&x, &x, &dinv);
        fb_g1_mul_affine(&pk->h[j], FB1, &x);
    }
    free(xs);
    free(pk->l);
    pk->n_l = q->nv;
    pk->l = malloc(q->nv * sizeof *pk->l);
    for (size_t i = 0; i < cs->n_inputs; i++) { /* l of the inputs: -w Z k / delta */
        cuzk_fr_mul(&x, &q->w[i], &zk);
        cuzk_fr_mul(&x, &x, &dinv);
        cuzk_fr_neg(&x, &x);
        fb_g1_mul_affine(&pk->l[i], FB1, &x);
    }
    for (size_t j = 0; j < cs->n_aux; j++) { /* l of the aux: (beta u + alpha v + w (1 - Z k)) / delta */
        size_t i = cs->n_inputs + j;
        cuzk_fr_mul(&x, &t->beta, &q->u[i]);
        cuzk_fr_mul(&y, &t->alpha, &q->v[i]);
        cuzk_fr_add(&x, &x, &y);
        cuzk_fr_sub(&y, &CUZK_FR_ONE, &zk);
        cuzk_fr_mul(&y, &y, &q->w[i]);
        cuzk_fr_add(&x, &x, &y);
        cuzk_fr_mul(&x, &x, &dinv);
        fb_g1_mul_affine(&pk->l[i], FB1, &x);
    }
    pk->h_coset = true;
}

/* Progress of a conversion as seen by its callback: calls, the first and last done, whether done ever fell
 * or passed total. */
typedef struct {
    int calls;
    uint64_t first, last, total;
    bool bad;
} seen_progress;

static void note_progress(void *ctx, uint64_t done, uint64_t total)
{
    seen_progress *p = ctx;
    if (p->calls++ == 0)
        p->first = done, p->total = total;
    p->bad |= done < p->last || done > total || total != p->total;
    p->last = done;
}

/* Whether p + [x]G = want. */
static bool shifted_eq(const cuzk_g1_affine *p, const cuzk_fr *x, const cuzk_g1_affine *want)
{
    cuzk_g1 s;
    cuzk_g1_affine d, got;
    fb_g1_mul_affine(&d, FB1, x);
    cuzk_g1_from_affine(&s, p);
    cuzk_g1_add_affine(&s, &s, &d);
    cuzk_g1_to_affine(&got, &s);
    return cuzk_g1_affine_eq(&got, want);
}

/* An accelerator whose transform fails (the conversion must pass its error on and leave the key alone). */
static int failing_transform(const void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                             const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool,
                             char *err, size_t errlen)
{
    (void)ctx, (void)src, (void)c, (void)step, (void)root, (void)pool;
    memset(out, 0x5a, n * sizeof *out);
    return cuzk_fail(err, errlen, CUZK_EIO, "transform: no device here");
}

/* *dst = *pk sharing vk, a and b, with h and l copies of its own (a conversion replaces those two). */
static void own_h_l(cuzk_groth16_params *dst, const cuzk_groth16_params *pk)
{
    *dst = *pk;
    dst->h = malloc((pk->n_h + 1) * sizeof *dst->h);
    dst->l = malloc((pk->n_l + 1) * sizeof *dst->l);
    memcpy(dst->h, pk->h, pk->n_h * sizeof *dst->h);
    memcpy(dst->l, pk->l, pk->n_l * sizeof *dst->l);
}

/* The conversion's orders on an accelerator, drawn at random: the default (h' beside the CPU's work, h's
 * check begun beside it), the transforms one after the other (CUZK_COSET_SERIAL), or h's whole check after
 * the join (CUZK_COSET_CHECK_AFTER). */
static void coset_order_pick(void)
{
    uint64_t k = test_rand64() % 3;
    if (k == 1)
        setenv("CUZK_COSET_SERIAL", "1", 1);
    else if (k == 2)
        setenv("CUZK_COSET_CHECK_AFTER", "1", 1);
}

static void coset_order_clear(void)
{
    unsetenv("CUZK_COSET_SERIAL");
    unsetenv("CUZK_COSET_CHECK_AFTER");
}

/* What a test accelerator gets wrong, in one of the conversion's two transforms: the key's h' (step g^-1,
 * run beside the CPU's column sums) or the fold's Q (step 1, run first). */
typedef struct {
    bool on_q; /* the fault is in Q's transform, else in h''s */
    bool fail; /* the transform reports an error, else one output point is moved off (a faulty device) */
} accel_fault;

/* An accelerator that computes the transform by its definition, out_j = sum_{t < n-1} root^(jt) c step^t
 * src_t (n^2 multiplications: small keys only); ctx: NULL, or the accel_fault it commits. */
static int naive_transform(const void *ctx, cuzk_g1_affine *out, const cuzk_g1_affine *src, size_t n,
                           const cuzk_fr *c, const cuzk_fr *step, const cuzk_fr *root, cuzk_pool *pool,
                           char *err, size_t errlen)
{
    (void)pool;
    const accel_fault *f = ctx;
    bool faulty = f && f->on_q == cuzk_fr_is_one(step);
    if (faulty && f->fail)
        return cuzk_fail(err, errlen, CUZK_EIO, "transform: no device here (%s)", f->on_q ? "Q" : "h");
    cuzk_fr rj = CUZK_FR_ONE; /* root^j */
    for (size_t j = 0; j < n; j++) {
        cuzk_g1 acc, p;
        cuzk_g1_set_identity(&acc);
        cuzk_fr k = *c, w; /* c step^t root^(jt) */
        cuzk_fr_mul(&w, step, &rj);
        for (size_t t = 0; t + 1 < n; t++) {
            cuzk_g1_from_affine(&p, &src[t]);
            cuzk_g1_mul_fr(&p, &p, &k);
            cuzk_g1_add(&acc, &acc, &p);
            cuzk_fr_mul(&k, &k, &w);
        }
        cuzk_g1_to_affine(&out[j], &acc);
        cuzk_fr_mul(&rj, &rj, root);
    }
    if (faulty && n > 1)
        out[n / 2 + 1] = out[n / 2 - 1];
    return CUZK_OK;
}

/* bellperson's key (pk, made here) taken to the coset form by cuzk_groth16_params_to_coset, which never sees
 * the toxic waste. Its points must be the test's coset key (mine, by the product formula) less the multiples
 * of X = [tau^(m-1) Z(tau) / delta] that the conversion cannot know (docs/design/022):
 *   converted h_j = mine h_j - (k/m) (7 w^j)^-(m-1) X,   converted l_i = mine l_i + k c_i X,
 * with c_i = (1/m) sum_r C[r][i] w^r the X^(m-1) coefficient of C_i; and its proofs the textbook proof's
 * bytes. Keys of the wrong form or sizes are refused and left as they were. */
static void check_converted(const cuzk_groth16_params *pk, const cuzk_groth16_params *mine, const cuzk_cs *cs,
                            cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const qap *q, const toxic *t,
                            const cuzk_groth16_proof *proof, const char *what)
{
    size_t m = q->m, nv = q->nv;
    cuzk_groth16_params conv;
    own_h_l(&conv, pk);
    seen_progress sp = {0};
    /* C's columns summed by one task each (the default at these sizes) or, all or some of them, by the
     * whole pool (heavy_terms 1 or 3): the same key either way, checked against the oracle below */
    static const size_t heavy[] = {0, 1, 3};
    size_t hv = heavy[test_rand64() % 3];
    cuzk_groth16_coset_opts co = {NULL, note_progress, &sp, hv};
    char err[256] = "";
    if (test_rand64() % 2) /* the long columns' terms gathered 5 at a time */
        setenv("CUZK_COSET_CHUNK", "5", 1);
    int rc = cuzk_groth16_params_to_coset(&conv, cs, &co, POOLS[test_rand64() % NPOOLS], err, sizeof err);
    unsetenv("CUZK_COSET_CHUNK");
    CHECK(rc == CUZK_OK && conv.h_coset && conv.n_h == m && conv.n_l == nv, "%s: conversion: rc %d (%s)",
          what, rc, err);
    CHECK(sp.calls >= 2 && sp.first == 0 && sp.last == sp.total && sp.total > 0 && !sp.bad,
          "%s: conversion progress: %d calls, first %llu, last %llu of %llu%s", what, sp.calls,
          (unsigned long long)sp.first, (unsigned long long)sp.last, (unsigned long long)sp.total,
          sp.bad ? ", out of order" : "");
    if (rc != CUZK_OK) {
        free(conv.h), free(conv.l);
        return;
    }

    cuzk_fr dinv, k, km, x, seven, sj, xe;
    cuzk_fr_inv(&dinv, &t->delta);
    cuzk_fr_from_u64(&seven, 7);
    uint64_t e = m;
    cuzk_fr_pow(&k, &seven, &e, 1);
    cuzk_fr_sub(&k, &k, &CUZK_FR_ONE);
    cuzk_fr_inv(&k, &k);
    cuzk_fr_from_u64(&km, m);
    cuzk_fr_inv(&km, &km);
    cuzk_fr_mul(&km, &km, &k);
    e = m - 1;
    cuzk_fr_pow(&xe, &t->tau, &e, 1); /* X's exponent: tau^(m-1) Z(tau) / delta */
    cuzk_fr_mul(&xe, &xe, &q->zt);
    cuzk_fr_mul(&xe, &xe, &dinv);
    size_t bad_h = 0, bad_l = 0;
    sj = seven;
    for (size_t j = 0; j < m; j++) { /* converted h_j + (k/m) s_j^-(m-1) X = mine h_j */
        cuzk_fr_inv(&x, &sj);
        cuzk_fr_pow(&x, &x, &e, 1);
        cuzk_fr_mul(&x, &x, &km);
        cuzk_fr_mul(&x, &x, &xe);
        bad_h += !shifted_eq(&conv.h[j], &x, &mine->h[j]);
        cuzk_fr_mul(&sj, &sj, &q->omega);
    }
    cuzk_fr *ci = calloc(nv, sizeof *ci), wr = CUZK_FR_ONE;
    for (size_t row = 0; row < cs->n_constraints; row++) {
        for (uint64_t kk = cs->c.row[row]; kk < cs->c.row[row + 1]; kk++) {
            cuzk_fr_mul(&x, cuzk_csr_coef(&cs->c, kk), &wr);
            cuzk_fr_add(&ci[cs->c.col[kk]], &ci[cs->c.col[kk]], &x);
        }
        cuzk_fr_mul(&wr, &wr, &q->omega);
    }
    for (size_t i = 0; i < nv; i++) { /* converted l_i - k c_i X = mine l_i, c_i with its 1/m in km */
        cuzk_fr_mul(&x, &ci[i], &km);
        cuzk_fr_mul(&x, &x, &xe);
        cuzk_fr_neg(&x, &x);
        bad_l += !shifted_eq(&conv.l[i], &x, &mine->l[i]);
    }
    free(ci);
    CHECK(bad_h == 0 && bad_l == 0,
          "%s: converted key (heavy_terms %zu): %zu of %zu h and %zu of %zu l points off", what, hv, bad_h, m,
          bad_l, nv);

    cuzk_groth16_proof other;
    rc = cuzk_groth16_prove(&other, &conv, cs, z, r, s, POOLS[test_rand64() % NPOOLS], err, sizeof err);
    CHECK(rc == CUZK_OK && proof_bytes_eq(&other, proof), "%s: converted key: rc %d, bytes %s (%s)", what, rc,
          rc ? "-" : "differ", err);

    /* an accelerator computing the transforms by their definition gives the same key; one that moves a point
     * fails the conversion's check (keys up to 2^6: the accelerator is quadratic) */
    if (m <= 64) {
        cuzk_groth16_params viaacc;
        own_h_l(&viaacc, pk);
        cuzk_coset_accel naive = {"naive", NULL, naive_transform};
        cuzk_groth16_coset_opts no = {&naive, NULL, NULL, 0};
        coset_order_pick();
        rc = cuzk_groth16_params_to_coset(&viaacc, cs, &no, POOLS[test_rand64() % NPOOLS], err, sizeof err);
        coset_order_clear();
        CHECK(rc == CUZK_OK && same_bytes(viaacc.h, conv.h, m * sizeof *conv.h) &&
                  same_bytes(viaacc.l, conv.l, nv * sizeof *conv.l),
              "%s: conversion through the accelerator hook: rc %d (%s)", what, rc, err);
        free(viaacc.h), free(viaacc.l);
        /* a point off or an error in either transform (h' runs on a thread of its own beside the column
         * sums, with a pool of its own, when the conversion's pool has threads) */
        for (int fk = 0; fk < 4 && m > 2; fk++) {
            accel_fault f = {fk & 1, fk >> 1};
            own_h_l(&viaacc, pk);
            cuzk_g1_affine *keep_h = viaacc.h, *keep_l = viaacc.l;
            naive.ctx = &f;
            cuzk_pool *pool = POOLS[test_rand64() % NPOOLS];
            coset_order_pick();
            rc = cuzk_groth16_params_to_coset(&viaacc, cs, &no, pool, err, sizeof err);
            coset_order_clear();
            const char *want = f.fail ? (f.on_q ? "no device here (Q)" : "no device here (h)")
                                      : (f.on_q ? "Q fails its check" : "h fails its check");
            CHECK(rc == CUZK_EIO && strstr(err, want) && viaacc.h == keep_h && viaacc.l == keep_l &&
                      viaacc.n_h == m - 1 && !viaacc.h_coset,
                  "%s: an accelerator %s in %s (%d threads): rc %d (%s)", what,
                  f.fail ? "failing" : "one point off", f.on_q ? "Q" : "h'", cuzk_pool_size(pool), rc, err);
            free(viaacc.h), free(viaacc.l);
        }
    }

    /* refusals, and an accelerator that fails, leave the key as it was */
    cuzk_g1_affine *keep_h = conv.h;
    rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "already") && conv.h == keep_h && conv.n_h == m,
          "%s: converting a coset key: rc %d (%s)", what, rc, err);
    free(conv.h), free(conv.l);
    conv = *pk;
    conv.n_h--;
    rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "h points") && conv.h == pk->h && !conv.h_coset,
          "%s: converting with m - 2 h points: rc %d (%s)", what, rc, err);
    conv = *pk;
    conv.n_l++;
    rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "l points") && conv.l == pk->l,
          "%s: converting with %zu l points: rc %d (%s)", what, conv.n_l, rc, err);
    conv = *pk;
    conv.vk.n_ic++;
    rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "ic points"), "%s: converting with one ic point more: rc %d (%s)",
          what, rc, err);
    if (pk->n_a) { /* a and b lengths too: the prover's own check (a key cut short by one point) */
        conv = *pk;
        conv.n_a--;
        rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, "coset key: the key has") && strstr(err, "a points") &&
                  conv.h == pk->h && !conv.h_coset,
              "%s: converting with one a point fewer: rc %d (%s)", what, rc, err);
    }
    conv = *pk;
    conv.n_b++;
    rc = cuzk_groth16_params_to_coset(&conv, cs, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "b points") && conv.h == pk->h && !conv.h_coset,
          "%s: converting with one b point more: rc %d (%s)", what, rc, err);
    conv = *pk;
    cuzk_coset_accel broken = {"broken", NULL, failing_transform};
    cuzk_groth16_coset_opts bo = {&broken, NULL, NULL, 0};
    rc = cuzk_groth16_params_to_coset(&conv, cs, &bo, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "no device here") && conv.h == pk->h && conv.l == pk->l &&
              !conv.h_coset,
          "%s: a failing accelerator: rc %d (%s)", what, rc, err);
    conv = *pk;
    CHECK(cuzk_groth16_params_to_coset(&conv, NULL, NULL, NULL, err, sizeof err) == CUZK_EINVAL &&
              cuzk_groth16_params_to_coset(NULL, cs, NULL, NULL, err, sizeof err) == CUZK_EINVAL,
          "%s: converting without a circuit or a key", what);
}

/* The coset form: the library's setup makes the key built above from the same toxic waste, and proves
 * with it the textbook proof (the same bytes as with bellperson's layout); a corrupted h or input l point,
 * a bad witness without the check, the other form's h length and writing it as .params are refused. */
static void check_coset_path(const cuzk_groth16_params *pk, const cuzk_cs *cs, cuzk_fr *z, const cuzk_fr *r,
                             const cuzk_fr *s, const qap *q, const toxic *t, const cuzk_groth16_proof *proof,
                             const char *what)
{
    size_t ni = cs->n_inputs;
    cuzk_groth16_params mine, lib;
    setup_coset(&mine, q, cs, t);
    cuzk_groth16_toxic tw = {t->tau, t->alpha, t->beta, t->gamma, t->delta};
    cuzk_groth16_setup_opts so = {.h_coset = true};
    char err[256] = "";
    int rc = cuzk_groth16_setup_ex(&lib, cs, &tw, &so, POOLS[2], err, sizeof err);
    if (rc == CUZK_OK) {
        bool same = lib.h_coset && lib.n_h == mine.n_h && lib.n_l == mine.n_l && lib.n_a == mine.n_a &&
                    lib.n_b == mine.n_b && same_bytes(lib.h, mine.h, mine.n_h * sizeof *mine.h) &&
                    same_bytes(lib.l, mine.l, mine.n_l * sizeof *mine.l) &&
                    same_bytes(lib.a, mine.a, mine.n_a * sizeof *mine.a) &&
                    same_bytes(lib.vk.ic, mine.vk.ic, ni * sizeof *mine.vk.ic);
        CHECK(same, "%s: coset form: cuzk_groth16_setup_ex made another key than the test's", what);
        rc = cuzk_params_write("/nonexistent-dir/never.params", &lib, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, "coset form"), "%s: coset key written as .params: rc %d (%s)",
              what, rc, err);
    } else {
        CHECK(rc == CUZK_EINVAL, "%s: coset setup: %s", what, err);
    }
    cuzk_groth16_params_free(&lib);
    check_converted(pk, &mine, cs, z, r, s, q, t, proof, what);

    cuzk_groth16_proof other;
    for (int p = 0; p < NPOOLS; p++) {
        rc = cuzk_groth16_prove(&other, &mine, cs, z, r, s, POOLS[p], err, sizeof err);
        CHECK(rc == CUZK_OK && proof_bytes_eq(&other, proof),
              "%s: coset form, %d threads: rc %d, bytes %s (%s)", what, cuzk_pool_size(POOLS[p]), rc,
              rc ? "-" : "differ", err);
    }
    CHECK(verify_with(&mine.vk, z + 1, ni - 1, &other) == CUZK_OK, "%s: coset form proof does not verify",
          what);

    /* each of the form's own points is used: corrupted, the proof fails the prover's verification */
    cuzk_g1_affine *pts[2] = {&mine.h[test_rand64() % mine.n_h], &mine.l[0]};
    for (int i = 0; i < 2; i++) {
        cuzk_g1_affine keep_pt = *pts[i];
        *pts[i] = mine.vk.alpha_g1;
        rc = cuzk_groth16_prove(&other, &mine, cs, z, r, s, NULL, err, sizeof err);
        /* an h point whose scalar A·B is 0 there changes nothing; l[0]'s scalar is z[0] = 1 */
        CHECK(rc == CUZK_EVERIFY || (i == 0 && rc == CUZK_OK && proof_bytes_eq(&other, proof)),
              "%s: coset form with a corrupted %s point: rc %d", what, i ? "input l" : "h", rc);
        *pts[i] = keep_pt;
    }
    size_t v;
    cuzk_fr keep;
    int64_t row = corrupt(cs, z, 1, &v, &keep);
    if (row >= 0) {
        cuzk_prove_opts o = {.flags = CUZK_PROVE_NO_CHECK};
        rc = cuzk_groth16_prove_ex(&other, &mine, cs, z, r, s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: coset form, unchecked bad witness: rc %d (%s)", what, rc, err);
        z[v] = keep;
    }
    mine.n_h--;
    rc = cuzk_groth16_prove(&other, &mine, cs, z, r, s, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "coset form"), "%s: coset key with m - 1 h points: rc %d (%s)",
          what, rc, err);
    mine.n_h++;
    cuzk_groth16_params_free(&mine);
}

/* The snarkjs convention on the same circuit, with a zkey made here from fresh toxic waste. */
static void check_zkey_path(const cuzk_cs *cs, cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s,
                            const char *what)
{
    size_t ni = cs->n_inputs, nv = ni + cs->n_aux;
    toxic t;
    rand_toxic(&t);
    qap q;
    qap_eval(&q, cs, &t.tau, CUZK_NTT_SNARKJS);
    size_t zlen;
    uint8_t *img = setup_zkey(&zlen, &q, cs, &t);
    cuzk_snarkjs_zkey *zk = NULL;
    char err[256] = "";
    int rc = cuzk_snarkjs_zkey_from_buffer(img, zlen, &zk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: test zkey rejected: %s", what, err);
    if (!rc) {
        cuzk_prove_opts o = {.cs = cs};
        cuzk_fr *pub = malloc(ni * sizeof *pub);
        cuzk_groth16_proof proof, want, other;
        rc = cuzk_groth16_prove_zkey_ex(&proof, pub, zk, z, nv, r, s, &o, POOLS[2], err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: zkey prove: %s", what, err);
        expected_proof(&want, &q, &t, z, ni, r, s);
        CHECK(proof_eq(&proof, &want), "%s: zkey proof differs from the one computed from the toxic waste",
              what);
        CHECK(ni == 1 || memcmp(pub, z + 1, (ni - 1) * sizeof *pub) == 0, "%s: public_out", what);
        size_t v;
        cuzk_fr keep;
        int64_t row = corrupt(cs, z, 1, &v, &keep);
        if (row >= 0) {
            char want_msg[64];
            snprintf(want_msg, sizeof want_msg, "constraint %lld ", (long long)row);
            rc = cuzk_groth16_prove_zkey_ex(&other, NULL, zk, z, nv, r, s, &o, NULL, err, sizeof err);
            CHECK(rc == CUZK_EUNSAT && strstr(err, want_msg), "%s: zkey bad z[%zu]: rc %d \"%s\" want %lld",
                  what, v, rc, err, (long long)row);
            rc = cuzk_groth16_prove_zkey(&other, NULL, zk, z, nv, r, s, NULL, err, sizeof err);
            CHECK(rc == CUZK_EVERIFY, "%s: zkey bad witness without the circuit: rc %d", what, rc);
            z[v] = keep;
        }
        free(pub);
    }
    cuzk_snarkjs_zkey_free(zk);
    free(img);
    qap_free(&q);
}

static void test_bellperson(size_t nc, size_t ni, size_t na, cuzk_cs_shape shape)
{
    char what[96];
    snprintf(what, sizeof what, "bellperson %zu rows, %zu inputs, %zu aux, %s", nc, ni, na,
             shape ? "bits" : "uniform");
    cuzk_cs cs;
    cuzk_fr *z = malloc((ni + na) * sizeof *z);
    if (cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), shape) != CUZK_OK) {
        CHECK(0, "%s: random circuit failed", what);
        free(z);
        return;
    }
    toxic t;
    rand_toxic(&t);
    qap q;
    qap_eval(&q, &cs, &t.tau, CUZK_NTT_BELLPERSON);
    cuzk_groth16_params pk;
    setup_bellperson(&pk, &q, &cs, &t);
    check_library_setup(&pk, &cs, &t, what);

    cuzk_fr r, s;
    test_rand_fr(&r);
    test_rand_fr(&s);
    char err[256] = "";
    cuzk_groth16_proof proof, want, other;
    int rc = cuzk_groth16_prove(&proof, &pk, &cs, z, &r, &s, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prove: %s (%d)", what, err, rc);
    expected_proof(&want, &q, &t, z, ni, &r, &s);
    CHECK(proof_eq(&proof, &want), "%s: proof differs from the one computed from the toxic waste", what);
    CHECK(verify_with(&pk.vk, z + 1, ni - 1, &proof) == CUZK_OK, "%s: proof does not verify", what);

    /* r = s = 0 exercises H, L, A, B without blinding. */
    cuzk_fr zero = CUZK_FR_ZERO;
    rc = cuzk_groth16_prove(&other, &pk, &cs, z, &zero, &zero, POOLS[1], err, sizeof err);
    expected_proof(&want, &q, &t, z, ni, &zero, &zero);
    CHECK(rc == CUZK_OK && proof_eq(&other, &want), "%s: r = s = 0 proof differs: %s", what, err);

    /* Deterministic, thread-count independent, split = plain. */
    for (int p = 0; p < NPOOLS; p++) {
        for (unsigned flags = 0; flags <= CUZK_PROVE_NO_SPLIT; flags += CUZK_PROVE_NO_SPLIT) {
            cuzk_prove_opts o = {.flags = flags};
            rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[p], err, sizeof err);
            CHECK(rc == CUZK_OK && proof_bytes_eq(&other, &proof),
                  "%s: %d threads, flags %u: bytes differ (%s)", what, cuzk_pool_size(POOLS[p]), flags, err);
        }
    }

    /* Tampered public inputs fail. */
    if (ni > 1) {
        cuzk_fr *x = malloc((ni - 1) * sizeof *x);
        memcpy(x, z + 1, (ni - 1) * sizeof *x);
        size_t i = test_rand64() % (ni - 1);
        cuzk_fr_add(&x[i], &x[i], &CUZK_FR_ONE);
        CHECK(verify_with(&pk.vk, x, ni - 1, &proof) == CUZK_EVERIFY, "%s: tampered input %zu verifies", what,
              i);
        free(x);
    }

    /* Random r, s from the system: valid and different each time. */
    rc = cuzk_groth16_prove(&other, &pk, &cs, z, NULL, NULL, POOLS[2], err, sizeof err);
    cuzk_groth16_proof third;
    rc |= cuzk_groth16_prove(&third, &pk, &cs, z, NULL, NULL, POOLS[2], err, sizeof err);
    CHECK(rc == CUZK_OK && !proof_eq(&other, &third) && !proof_eq(&other, &proof), "%s: random r, s: %s",
          what, err);
    CHECK(verify_with(&pk.vk, z + 1, ni - 1, &other) == CUZK_OK, "%s: random r, s proof fails", what);

    /* A bad witness is refused with its first bad row; without the check the proof fails to verify. */
    size_t v;
    cuzk_fr keep;
    int64_t row = corrupt(&cs, z, 1, &v, &keep);
    if (row >= 0) {
        char want_msg[64];
        snprintf(want_msg, sizeof want_msg, "constraint %lld ", (long long)row);
        err[0] = 0;
        rc = cuzk_groth16_prove(&other, &pk, &cs, z, &r, &s, POOLS[1], err, sizeof err);
        CHECK(rc == CUZK_EUNSAT && strstr(err, want_msg), "%s: bad z[%zu]: rc %d, \"%s\", want row %lld",
              what, v, rc, err, (long long)row);
        cuzk_prove_opts o = {.flags = CUZK_PROVE_NO_CHECK};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: unchecked bad witness: rc %d (%s)", what, rc, err);
        z[v] = keep;
    }

    /* The prover's own verification catches a corrupted key (the A point of ONE, whose scalar is always 1);
     * with verification off the bad proof comes back. */
    {
        cuzk_g1_affine a0 = pk.a[0];
        pk.a[0] = pk.vk.alpha_g1;
        rc = cuzk_groth16_prove(&other, &pk, &cs, z, &r, &s, NULL, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: corrupted a[0] not caught: rc %d", what, rc);
        cuzk_prove_opts o = {.flags = CUZK_PROVE_NO_VERIFY};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK && verify_with(&pk.vk, z + 1, ni - 1, &other) == CUZK_EVERIFY,
              "%s: NO_VERIFY with corrupted a[0]: rc %d", what, rc);
        pk.a[0] = a0;
    }

    /* A prepared key passed in is used. */
    {
        cuzk_groth16_pvk *pvk = malloc(sizeof *pvk);
        cuzk_groth16_prepare(pvk, &pk.vk, NULL, 0);
        cuzk_prove_opts o = {.pvk = pvk};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK && proof_eq(&other, &proof), "%s: with a prepared key: %s", what, err);
        free(pvk);
    }

    /* Density bitmaps handed in (the engine scans them once per key), with their counts or without: the
     * same proof. A bitmap that disagrees with the counts handed in with it is refused, not overrun. */
    {
        size_t wa = (cs.n_aux + 63) / 64 + 1, wi = (cs.n_inputs + 63) / 64 + 1;
        uint64_t *da = calloc(wa, 8), *dbi = calloc(wi, 8), *dba = calloc(wa, 8);
        CHECK(cuzk_cs_density(&cs, da, dbi, dba) == CUZK_OK, "%s: density", what);
        cuzk_prove_opts o = {.density = {da, dbi, dba}};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
        CHECK(rc == CUZK_OK && proof_eq(&other, &proof), "%s: with the density bitmaps: %s", what, err);
        o.density_counted = true;
        o.density_pop[0] = cuzk_cs_density_count(da, cs.n_aux);
        o.density_pop[1] = cuzk_cs_density_count(dbi, cs.n_inputs);
        o.density_pop[2] = cuzk_cs_density_count(dba, cs.n_aux);
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
        CHECK(rc == CUZK_OK && proof_eq(&other, &proof), "%s: with the bitmaps and their counts: %s", what, err);
        size_t j = cs.n_aux;
        for (size_t i = 0; i < cs.n_aux && j == cs.n_aux; i++)
            if (!((da[i / 64] >> (i % 64)) & 1))
                j = i; /* an aux variable outside A */
        if (j < cs.n_aux) {
            da[j / 64] |= UINT64_C(1) << (j % 64);
            err[0] = 0;
            rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
            CHECK(rc == CUZK_EINVAL && strstr(err, "density bitmaps"),
                  "%s: a bitmap with one more bit than its count: rc %d (%s)", what, rc, err);
            o.density_counted = false;
            rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
            CHECK(rc == CUZK_EINVAL, "%s: a bitmap with one more bit, counted here: rc %d", what, rc);
        }
        free(da);
        free(dbi);
        free(dba);
    }

    /* Evaluations handed in (the engine's synthesis computes them): the same proof; a wrong evaluation is
     * caught by the witness check at its row (the check applies to what was handed in), and without the
     * check by the verification. */
    if (cs.n_constraints > 0) {
        size_t nc = cs.n_constraints;
        cuzk_fr *ev = malloc(3 * nc * sizeof *ev);
        cuzk_cs_eval(&cs, z, ev, ev + nc, ev + 2 * nc, NULL);
        cuzk_prove_opts o = {.abc = {ev, ev + nc, ev + 2 * nc}};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
        CHECK(rc == CUZK_OK && proof_eq(&other, &proof), "%s: with a, b, c handed in: rc %d %s", what, rc, err);
        size_t row = (size_t)(test_rand64() % nc);
        cuzk_fr_add(&ev[2 * nc + row], &ev[2 * nc + row], &CUZK_FR_ONE);
        char want_msg[64];
        snprintf(want_msg, sizeof want_msg, "constraint %zu ", row);
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_EUNSAT && strstr(err, want_msg), "%s: bad c[%zu] handed in: rc %d \"%s\"", what, row,
              rc, err);
        o.flags = CUZK_PROVE_NO_CHECK;
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
        CHECK(rc == CUZK_EVERIFY, "%s: unchecked bad c handed in: rc %d (%s)", what, rc, err);
        free(ev);
    }

    /* Density bitmaps handed in (the engine scans them once per key): the same proof; a bitmap that
     * disagrees with the key's sizes is refused before any work. */
    {
        size_t wa = (cs.n_aux + 63) / 64 + 1, wi = (cs.n_inputs + 63) / 64 + 1;
        uint64_t *da = calloc(wa, 8), *dbi = calloc(wi, 8), *dba = calloc(wa, 8);
        CHECK(cuzk_cs_density(&cs, da, dbi, dba) == CUZK_OK, "%s: density", what);
        cuzk_prove_opts o = {.density = {da, dbi, dba}};
        rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, POOLS[1], err, sizeof err);
        CHECK(rc == CUZK_OK && proof_eq(&other, &proof), "%s: with densities handed in: rc %d %s", what, rc, err);
        if (cs.n_aux > 0) {
            size_t j = (size_t)(test_rand64() % cs.n_aux);
            da[j / 64] ^= UINT64_C(1) << (j % 64);
            rc = cuzk_groth16_prove_ex(&other, &pk, &cs, z, &r, &s, &o, NULL, err, sizeof err);
            CHECK(rc == CUZK_EINVAL, "%s: a wrong A density bit handed in: rc %d (%s)", what, rc, err);
        }
        free(da), free(dbi), free(dba);
    }

    /* Wrong sizes are refused with a message naming the vector. */
    {
        struct {
            size_t *field;
            const char *word;
        } sz[] = {{&pk.n_h, "h points"},
                  {&pk.n_l, "l points"},
                  {&pk.n_a, "a points"},
                  {&pk.n_b, "b points"},
                  {&pk.vk.n_ic, "ic points"}};
        for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
            size_t keep_n = *sz[i].field;
            *sz[i].field = keep_n + 1;
            err[0] = 0;
            rc = cuzk_groth16_prove(&other, &pk, &cs, z, &r, &s, NULL, err, sizeof err);
            CHECK(rc == CUZK_EINVAL && strstr(err, sz[i].word), "%s: %s + 1: rc %d \"%s\"", what, sz[i].word,
                  rc, err);
            *sz[i].field = keep_n;
        }
        cuzk_fr keep0 = z[0];
        cuzk_fr_add(&z[0], &z[0], &CUZK_FR_ONE);
        CHECK(cuzk_groth16_prove(&other, &pk, &cs, z, &r, &s, NULL, NULL, 0) == CUZK_EINVAL, "%s: z[0] != 1",
              what);
        z[0] = keep0;
    }

    check_coset_path(&pk, &cs, z, &r, &s, &q, &t, &proof, what);
    cuzk_groth16_params_free(&pk);
    qap_free(&q);
    check_zkey_path(&cs, z, &r, &s, what);
    cuzk_cs_free(&cs);
    free(z);
}

/* ---- snarkjs fixtures ----------------------------------------------------------------- */

static void fixture_path(char *out, size_t n, const char *circuit, const char *file)
{
    snprintf(out, n, "%s/%s/%s", FIXTURES, circuit, file);
}

/* A bad witness: refused with the r1cs (row from the r1cs reader's check), caught by verification without. */
static void check_fixture_bad_witness(const char *name, const cuzk_snarkjs_zkey *zk,
                                      const cuzk_snarkjs_r1cs *r1cs, cuzk_fr *w, size_t n, const cuzk_fr *r,
                                      const cuzk_fr *s, const cuzk_groth16_proof *good)
{
    char err[256] = "";
    cuzk_cs cs;
    cuzk_groth16_proof other;
    CHECK(cuzk_cs_from_snarkjs(&cs, r1cs, err, sizeof err) == CUZK_OK, "%s: cs: %s", name, err);
    cuzk_prove_opts o = {.cs = &cs};
    int rc = cuzk_groth16_prove_zkey_ex(&other, NULL, zk, w, n, r, s, &o, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && proof_eq(&other, good), "%s: with the circuit: %s", name, err);
    for (int k = 0; k < 3; k++) {
        size_t v = zk->n_public + 1 + test_rand64() % (n - zk->n_public - 1);
        cuzk_fr keep = w[v], d;
        test_rand_fr(&d);
        cuzk_fr_add(&w[v], &w[v], &d);
        int64_t row = cuzk_snarkjs_r1cs_check(r1cs, w, n);
        if (row >= 0) {
            char want[64];
            snprintf(want, sizeof want, "constraint %lld ", (long long)row);
            rc = cuzk_groth16_prove_zkey_ex(&other, NULL, zk, w, n, r, s, &o, POOLS[1], err, sizeof err);
            CHECK(rc == CUZK_EUNSAT && strstr(err, want), "%s: bad w[%zu]: rc %d \"%s\", want row %lld", name,
                  v, rc, err, (long long)row);
            rc = cuzk_groth16_prove_zkey(&other, NULL, zk, w, n, r, s, NULL, err, sizeof err);
            CHECK(rc == CUZK_EVERIFY, "%s: bad w[%zu] without the circuit: rc %d (%s)", name, v, rc, err);
        }
        w[v] = keep;
    }
    cuzk_cs_free(&cs);
}

static void test_fixture(const char *name)
{
    char path[512], err[256] = "";
    cuzk_snarkjs_zkey *zk = NULL;
    cuzk_snarkjs_wtns *wtns = NULL;
    cuzk_snarkjs_r1cs *r1cs = NULL;
    cuzk_groth16_vk vk = {0};
    cuzk_groth16_proof zero_proof;
    cuzk_fr *pub = NULL;
    size_t npub = 0;
    int rc;
    fixture_path(path, sizeof path, name, "circuit.zkey");
    rc = cuzk_snarkjs_zkey_open(path, &zk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: zkey: %s", name, err);
    fixture_path(path, sizeof path, name, "witness.wtns");
    rc |= cuzk_snarkjs_wtns_open(path, &wtns, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: wtns: %s", name, err);
    fixture_path(path, sizeof path, name, "circuit.r1cs");
    rc |= cuzk_snarkjs_r1cs_open(path, &r1cs, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: r1cs: %s", name, err);
    fixture_path(path, sizeof path, name, "verification_key.json");
    rc |= cuzk_snarkjs_vk_read(path, &vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: vk: %s", name, err);
    fixture_path(path, sizeof path, name, "proof_r0s0.json");
    rc |= cuzk_snarkjs_proof_read(path, &zero_proof, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: proof_r0s0.json: %s", name, err);
    fixture_path(path, sizeof path, name, "public.json");
    rc |= cuzk_snarkjs_public_read(path, &pub, &npub, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: public.json: %s", name, err);
    if (rc)
        goto done;
    CHECK(npub == zk->n_public, "%s: %zu public values, zkey says %u", name, npub, zk->n_public);

    cuzk_fr *w = wtns->values, zero = CUZK_FR_ZERO, r, s;
    size_t n = wtns->n;
    cuzk_fr *out_pub = calloc(npub + 1, sizeof *out_pub);
    cuzk_groth16_proof proof, other;

    /* r = s = 0: snarkjs's own proof, coordinate for coordinate, on any thread count, split or not. */
    for (int p = 0; p < NPOOLS; p++) {
        for (unsigned flags = 0; flags <= CUZK_PROVE_NO_SPLIT; flags += CUZK_PROVE_NO_SPLIT) {
            cuzk_prove_opts o = {.flags = flags};
            memset(&proof, 0, sizeof proof);
            rc = cuzk_groth16_prove_zkey_ex(&proof, out_pub, zk, w, n, &zero, &zero, &o, POOLS[p], err,
                                            sizeof err);
            CHECK(rc == CUZK_OK, "%s: prove (r = s = 0): %s", name, err);
            CHECK(cuzk_g1_affine_eq(&proof.a, &zero_proof.a),
                  "%s: pi_a differs from snarkjs (%d threads, flags %u)", name, cuzk_pool_size(POOLS[p]),
                  flags);
            CHECK(cuzk_g2_affine_eq(&proof.b, &zero_proof.b),
                  "%s: pi_b differs from snarkjs (%d threads, flags %u)", name, cuzk_pool_size(POOLS[p]),
                  flags);
            CHECK(cuzk_g1_affine_eq(&proof.c, &zero_proof.c),
                  "%s: pi_c differs from snarkjs (%d threads, flags %u)", name, cuzk_pool_size(POOLS[p]),
                  flags);
        }
    }
    CHECK(memcmp(out_pub, pub, npub * sizeof *pub) == 0, "%s: public_out differs from public.json", name);
    CHECK(verify_with(&vk, pub, npub, &proof) == CUZK_OK, "%s: r = s = 0 proof fails with the JSON vk", name);

    /* Random r, s: verifies with verification_key.json, differs from the unblinded proof, deterministic. */
    test_rand_fr(&r);
    test_rand_fr(&s);
    rc = cuzk_groth16_prove_zkey(&proof, NULL, zk, w, n, &r, &s, POOLS[1], err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prove: %s", name, err);
    CHECK(verify_with(&vk, pub, npub, &proof) == CUZK_OK, "%s: proof fails with verification_key.json", name);
    CHECK(!cuzk_g1_affine_eq(&proof.a, &zero_proof.a) && !cuzk_g2_affine_eq(&proof.b, &zero_proof.b) &&
              !cuzk_g1_affine_eq(&proof.c, &zero_proof.c),
          "%s: blinded proof shares a point with the unblinded one", name);
    rc = cuzk_groth16_prove_zkey(&other, NULL, zk, w, n, &r, &s, POOLS[2], err, sizeof err);
    CHECK(rc == CUZK_OK && proof_bytes_eq(&proof, &other), "%s: same r, s gave other bytes", name);
    rc = cuzk_groth16_prove_zkey(&other, NULL, zk, w, n, NULL, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && !proof_eq(&proof, &other) && verify_with(&vk, pub, npub, &other) == CUZK_OK,
          "%s: system r, s: %s", name, err);

    /* Tampered public input. */
    cuzk_fr *bad = malloc((npub ? npub : 1) * sizeof *bad);
    for (size_t i = 0; i < npub; i++) {
        memcpy(bad, pub, npub * sizeof *bad);
        cuzk_fr_add(&bad[i], &bad[i], &CUZK_FR_ONE);
        CHECK(verify_with(&vk, bad, npub, &proof) == CUZK_EVERIFY, "%s: input %zu + 1 verifies", name, i);
    }
    free(bad);

    check_fixture_bad_witness(name, zk, r1cs, w, n, &r, &s, &proof);

    /* Argument errors. */
    CHECK(cuzk_groth16_prove_zkey(&other, NULL, zk, w, n - 1, &r, &s, NULL, err, sizeof err) == CUZK_EINVAL,
          "%s: short witness accepted", name);
    cuzk_fr keep0 = w[0];
    w[0] = zero;
    CHECK(cuzk_groth16_prove_zkey(&other, NULL, zk, w, n, &r, &s, NULL, err, sizeof err) == CUZK_EINVAL,
          "%s: w[0] = 0 accepted", name);
    w[0] = keep0;

    /* The vk inside the zkey equals verification_key.json. */
    cuzk_groth16_vk zvk;
    rc = cuzk_snarkjs_zkey_vk(&zvk, zk, err, sizeof err);
    CHECK(rc == CUZK_OK && zvk.n_ic == vk.n_ic && cuzk_g1_affine_eq(&zvk.alpha_g1, &vk.alpha_g1) &&
              cuzk_g2_affine_eq(&zvk.delta_g2, &vk.delta_g2) &&
              memcmp(zvk.ic, vk.ic, vk.n_ic * sizeof *vk.ic) == 0,
          "%s: zkey vk differs from verification_key.json", name);
    cuzk_groth16_vk_free(&zvk);
    free(out_pub);
done:
    free(pub);
    cuzk_groth16_vk_free(&vk);
    cuzk_snarkjs_r1cs_free(r1cs);
    cuzk_snarkjs_wtns_free(wtns);
    cuzk_snarkjs_zkey_free(zk);
}

/* ---- benchmark mode --------------------------------------------------------------------- */

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Times both provers on a Groth16-shaped random circuit of 2^lg rows (inputs included). */
static int bench(unsigned lg, int threads)
{
    size_t ni = 2, nc = ((size_t)1 << lg) - ni, na = nc + nc / 4;
    cuzk_pool *pool = threads > 1 ? cuzk_pool_new(threads) : NULL;
    cuzk_cs cs;
    cuzk_fr *z = malloc((ni + na) * sizeof *z);
    double t0 = clock_s(CLOCK_MONOTONIC);
    cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_BITS);
    toxic t;
    rand_toxic(&t);
    qap q;
    qap_eval(&q, &cs, &t.tau, CUZK_NTT_BELLPERSON);
    cuzk_groth16_params pk;
    setup_bellperson(&pk, &q, &cs, &t);
    qap_free(&q);
    qap_eval(&q, &cs, &t.tau, CUZK_NTT_SNARKJS);
    size_t zlen;
    uint8_t *img = setup_zkey(&zlen, &q, &cs, &t);
    cuzk_snarkjs_zkey *zk = NULL;
    char err[256] = "";
    if (cuzk_snarkjs_zkey_from_buffer(img, zlen, &zk, err, sizeof err)) {
        fprintf(stderr, "bench: zkey: %s\n", err);
        return 1;
    }
    printf("bench: 2^%u rows (%zu constraints, %zu inputs, %zu aux), %d thread(s); setup %.1f s\n", lg, nc,
           ni, na, threads, clock_s(CLOCK_MONOTONIC) - t0);
    enum { REPS = 5 };
    const char *names[4] = {"bellperson", "bellperson (no verify)", "snarkjs", "snarkjs (no verify)"};
    for (int k = 0; k < 4; k++) {
        double wall[REPS], cpu[REPS];
        cuzk_prove_opts o = {.flags = (k & 1) ? CUZK_PROVE_NO_VERIFY : 0};
        for (int rep = 0; rep < REPS; rep++) {
            cuzk_groth16_proof proof;
            double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            int rc = k < 2 ? cuzk_groth16_prove_ex(&proof, &pk, &cs, z, NULL, NULL, &o, pool, err, sizeof err)
                           : cuzk_groth16_prove_zkey_ex(&proof, NULL, zk, z, ni + na, NULL, NULL, &o, pool,
                                                        err, sizeof err);
            wall[rep] = clock_s(CLOCK_MONOTONIC) - w0;
            cpu[rep] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
            if (rc) {
                fprintf(stderr, "bench: %s: %s\n", names[k], err);
                return 1;
            }
        }
        qsort(wall, REPS, sizeof wall[0], cmp_double);
        qsort(cpu, REPS, sizeof cpu[0], cmp_double);
        printf("bench: %-24s wall min %8.1f ms  median %8.1f ms   cpu min %8.1f ms\n", names[k],
               wall[0] * 1e3, wall[REPS / 2] * 1e3, cpu[0] * 1e3);
        if (k == 1 && !pk.h_coset) { /* the key taken to the coset form (docs/design/022), then its proofs */
            double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            if (cuzk_groth16_params_to_coset(&pk, &cs, NULL, pool, err, sizeof err)) {
                fprintf(stderr, "bench: conversion: %s\n", err);
                return 1;
            }
            printf("bench: %-24s wall %8.1f ms   cpu %8.1f ms\n", "coset conversion",
                   (clock_s(CLOCK_MONOTONIC) - w0) * 1e3, (clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1e3);
            names[0] = "bellperson, coset key", names[1] = "coset key (no verify)";
            k = -1;
        }
    }
    cuzk_snarkjs_zkey_free(zk);
    free(img);
    qap_free(&q);
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    free(z);
    cuzk_pool_free(pool);
    return 0;
}

int main(int argc, char **argv)
{
    test_rng_init("test_prove");
    FB1 = fb_g1_new(&CUZK_G1_GENERATOR);
    FB2 = fb_g2_new(&CUZK_G2_GENERATOR);
    if (argc == 4 && strcmp(argv[1], "bench") == 0) {
        int rc = bench((unsigned)atoi(argv[2]), atoi(argv[3]));
        free(FB1);
        free(FB2);
        return rc;
    }
    POOLS[0] = NULL;
    POOLS[1] = cuzk_pool_new(2);
    POOLS[2] = cuzk_pool_new(3);

    for (int i = 0; i < NCIRCUITS; i++)
        test_fixture(CIRCUITS[i]);
    test_split_msm();
    static const size_t sizes[] = {1, 2, 3, 17, 100, 1000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t nc = sizes[i], ni = 1 + test_rand64() % 5, na = nc + test_rand64() % 4;
        test_bellperson(nc, ni, na, (cuzk_cs_shape)(i & 1));
    }
    test_bellperson(5, 1, 0, CUZK_CS_RANDOM_UNIFORM); /* inputs only */
    test_bellperson(60, 3, 200, CUZK_CS_RANDOM_BITS); /* more aux than rows: many absent from A and B */

    cuzk_pool_free(POOLS[1]);
    cuzk_pool_free(POOLS[2]);
    free(FB1);
    free(FB2);
    return test_finish("test_prove");
}
