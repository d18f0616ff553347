/*
 * test_poseidon_circuit.c — neptune's legacy Poseidon gadget
 * (cuzk_poseidon_circuit) on the constraint-system builder.
 *
 * Oracles:
 * - Constraint counts published by neptune (src/circuit.rs test_poseidon_hash,
 *   Strength::Standard): 311 / 377 / 505 / 761 / 1009 / 1385 for arity
 *   2 / 4 / 8 / 16 / 24 / 36, and 598 for arity 11 (rust-fil-proofs
 *   storage-proofs-porep stacked/circuit/hash.rs); aux = constraints.
 * - Closed forms derived from the gadget's structure (docs/design/016 works
 *   them out), with t = arity + 1, hf = rf/2:
 *     rows  = 3·(t·rf + rp - 1) + (t·rf + rp - arity)
 *     nnz B = rows + arity        (round 0's (l + k)·(l + k) has two B terms)
 *     nnz C = rows + arity + (rf - 2)·t + rp      (r - k' rows)
 *     nnz A = 5·arity + 3·(t·(rf - 1) + rp) + 2·(hf - 1)·t² + rp·t
 *             + rp·(rp - 1)/2 + t·(t + rp) + t    (the "ensure" rows' lcs grow
 *             by one variable per partial round)
 *     dense aux in A = in B = arity + rows - (t·rf + rp - 1) - 1, dense input
 *             in B = 1 (ONE).
 *   They assume no coefficient happens to cancel (probability ~2^-240).
 * - The native hash (cuzk_poseidon_hash, itself checked against neptune's
 *   vectors in test_poseidon) for the output value on fresh random inputs.
 * - The builder's CHECK mode and cuzk_cs_check (src/groth16/cs.c) for
 *   satisfaction; for a perturbed aux value, the first failing row must be
 *   the first row that mentions the variable, found here by scanning the
 *   matrices.
 * - Row order, from the gadget's description (porep-circuit.md §3.6): every
 *   row allocates one aux variable right before it and names it in C, so row
 *   j's C is 1·aux(arity + j), plus a constant term for the rows that add a
 *   round key; and the sequence of row kinds is, per round: "QSP" per
 *   preimage element in round 0 ((l+k)², square, (l+k)·l4), "ESSM" per
 *   S-box later (ensure, square, square, multiply with key), "ESSL" in the
 *   last round (no key), and a final "E" for the output.
 * - The whole witness, in allocation order: recomputed here by a plain walk
 *   over the tables of cuzk_poseidon_tables_of (the tables themselves are
 *   tested in test_poseidon), pushing each intermediate value where neptune
 *   allocates it: l2, l4, r per S-box in round 0; the ensured state element,
 *   l2, l4, r per later S-box; the output.
 * - The same gadget under the three builder modes must give identical
 *   matrices (RECORD vs RECORD|VALUES|CHECK) and identical witnesses
 *   (VALUES only vs RECORD|VALUES|CHECK).
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/csb.h"
#include "cuzk/poseidon.h"
#include "testutil.h"

typedef struct {
    unsigned arity;
    uint64_t published; /* constraints = aux */
} arity_case;

static const arity_case CASES[] = {{2, 311},  {4, 377},   {8, 505},  {11, 598},
                                   {16, 761}, {24, 1009}, {36, 1385}};
enum { NCASES = sizeof CASES / sizeof CASES[0] };

typedef struct {
    uint64_t rows, nnz_a, nnz_b, nnz_c, dense_aux;
} shape;

static shape expected_shape(const cuzk_poseidon_tables *tb)
{
    const uint64_t a = tb->arity, t = tb->width, rf = tb->rf, rp = tb->rp, hf = rf / 2;
    shape s;
    s.rows = 3 * (t * rf + rp - 1) + (t * rf + rp - a);
    s.nnz_b = s.rows + a;
    s.nnz_c = s.rows + a + (rf - 2) * t + rp;
    s.nnz_a = 5 * a + 3 * (t * (rf - 1) + rp) + 2 * (hf - 1) * t * t + rp * t + rp * (rp - 1) / 2 +
              t * (t + rp) + t;
    s.dense_aux = a + s.rows - (t * rf + rp - 1) - 1;
    return s;
}

static uint64_t popcount_words(const uint64_t *w, size_t n_bits)
{
    uint64_t c = 0;
    for (size_t i = 0; i < (n_bits + 63) / 64; i++)
        c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

/* Builds the gadget over `arity` fresh aux inputs with the given values (NULL: no values). */
static cuzk_csb *build(unsigned flags, const cuzk_poseidon_consts *c, unsigned arity, const cuzk_fr *vals,
                       cuzk_var *out, int *rc)
{
    cuzk_csb *cs = cuzk_csb_new(flags);
    cuzk_var in[CUZK_POSEIDON_MAX_ARITY];
    for (unsigned i = 0; i < arity; i++)
        cuzk_csb_alloc(cs, vals ? &vals[i] : NULL, &in[i]);
    *rc = cuzk_poseidon_circuit(cs, c, in, out);
    return cs;
}

/* x^5 with x^2 and x^4 pushed to out[*n], out[*n + 1]; returns x^5. */
static cuzk_fr push_quintic(cuzk_fr *out, size_t *n, const cuzk_fr *x)
{
    cuzk_fr x2, x4, x5;
    cuzk_fr_sqr(&x2, x);
    cuzk_fr_sqr(&x4, &x2);
    cuzk_fr_mul(&x5, &x4, x);
    out[(*n)++] = x2;
    out[(*n)++] = x4;
    return x5;
}

static void mix(cuzk_fr *st, const cuzk_fr *m, unsigned t)
{
    cuzk_fr nx[CUZK_POSEIDON_MAX_ARITY + 1], p;
    for (unsigned j = 0; j < t; j++) {
        nx[j] = CUZK_FR_ZERO;
        for (unsigned i = 0; i < t; i++) {
            cuzk_fr_mul(&p, &st[i], &m[i * t + j]);
            cuzk_fr_add(&nx[j], &nx[j], &p);
        }
    }
    memcpy(st, nx, t * sizeof *st);
}

/* The gadget's aux values after the preimage, in allocation order; returns how many. */
static size_t expected_witness(const cuzk_poseidon_tables *tb, const cuzk_fr *in, cuzk_fr *out)
{
    const unsigned t = tb->width, hf = tb->rf / 2, rp = tb->rp;
    const cuzk_fr *k = tb->crc;
    cuzk_fr st[CUZK_POSEIDON_MAX_ARITY + 1], x;
    size_t n = 0;
    st[0] = tb->tag;
    memcpy(&st[1], in, tb->arity * sizeof *st);
    for (unsigned i = 0; i < t; i++) { /* round 0, keys k[0..t) before and k[t..2t) after */
        cuzk_fr_add(&x, &st[i], &k[i]);
        size_t keep = n;
        st[i] = push_quintic(out, &n, &x);
        cuzk_fr_add(&st[i], &st[i], &k[t + i]);
        if (i == 0)
            n = keep; /* the tag's S-box is a constant: nothing allocated */
        else
            out[n++] = st[i];
    }
    k += 2 * t;
    mix(st, hf == 1 ? tb->pre_sparse : tb->mds, t);
    for (unsigned r = 1; r < tb->rf + rp; r++) {
        bool partial = r >= hf && r < hf + rp, last = r == tb->rf + rp - 1;
        for (unsigned i = 0; i < (partial ? 1u : t); i++) {
            out[n++] = st[i]; /* ensure */
            st[i] = push_quintic(out, &n, &st[i]);
            if (!last)
                cuzk_fr_add(&st[i], &st[i], &k[i]);
            out[n++] = st[i];
        }
        if (!last)
            k += partial ? 1 : t;
        if (partial) {
            const cuzk_fr *wh = &tb->w_hat[(size_t)(r - hf) * t],
                          *vr = &tb->v_rest[(size_t)(r - hf) * (t - 1)];
            cuzk_fr n0 = CUZK_FR_ZERO, p;
            for (unsigned i = 0; i < t; i++) {
                cuzk_fr_mul(&p, &st[i], &wh[i]);
                cuzk_fr_add(&n0, &n0, &p);
            }
            for (unsigned j = 1; j < t; j++) {
                cuzk_fr_mul(&p, &st[0], &vr[j - 1]);
                cuzk_fr_add(&st[j], &st[j], &p);
            }
            st[0] = n0;
        } else {
            mix(st, r == hf - 1 ? tb->pre_sparse : tb->mds, t);
        }
    }
    out[n++] = st[1];
    return n;
}

static bool csr_equal(const cuzk_csr *x, const cuzk_csr *y, size_t rows)
{
    if (x->nnz != y->nnz)
        return false;
    for (size_t i = 0; i <= rows; i++)
        if (x->row[i] != y->row[i])
            return false;
    for (uint64_t k = 0; k < x->nnz; k++)
        if (x->col[k] != y->col[k] || !cuzk_fr_eq(cuzk_csr_coef(x, k), cuzk_csr_coef(y, k)))
            return false;
    return true;
}

static bool row_is(const cuzk_csr *m, size_t j, uint32_t col, bool one_coef)
{
    return m->row[j + 1] - m->row[j] == 1 && m->col[m->row[j]] == col &&
           (!one_coef || cuzk_fr_is_one(cuzk_csr_coef(m, m->row[j])));
}

static bool rows_equal(const cuzk_csr *x, const cuzk_csr *y, size_t j)
{
    if (x->row[j + 1] - x->row[j] != y->row[j + 1] - y->row[j])
        return false;
    for (uint64_t k = 0; k < x->row[j + 1] - x->row[j]; k++)
        if (x->col[x->row[j] + k] != y->col[y->row[j] + k] ||
            !cuzk_fr_eq(cuzk_csr_coef(x, x->row[j] + k), cuzk_csr_coef(y, y->row[j] + k)))
            return false;
    return true;
}

/* One letter per row (see the top of the file); '?' for a row of no expected kind. */
static char row_kind(const cuzk_cs *cs, size_t j)
{
    const cuzk_csr *a = &cs->a, *b = &cs->b, *c = &cs->c;
    const uint64_t na = a->row[j + 1] - a->row[j], nc = c->row[j + 1] - c->row[j];
    if (row_is(b, j, 0, true))
        return 'E';
    bool b_aux = b->row[j + 1] - b->row[j] == 1 && b->col[b->row[j]] >= cs->n_inputs;
    if (na == 2 && a->col[a->row[j]] == 0 && rows_equal(a, b, j) && nc == 1)
        return 'Q';
    if (na == 1 && b_aux && rows_equal(a, b, j) && nc == 1)
        return 'S';
    if (na == 2 && a->col[a->row[j]] == 0 && b_aux && nc == 2)
        return 'P';
    if (na == 1 && b_aux && !rows_equal(a, b, j))
        return nc == 2 ? 'M' : nc == 1 ? 'L' : '?';
    return '?';
}

static void check_row_order(const cuzk_cs *cs, const cuzk_poseidon_tables *tb)
{
    const unsigned t = tb->width, hf = tb->rf / 2;
    size_t n = cs->n_constraints, k = 0, bad_c = 0;
    char *want = malloc(n + 2), *got = malloc(n + 1);
    for (unsigned i = 0; i < tb->arity && k + 3 <= n; i++, k += 3)
        memcpy(want + k, "QSP", 3);
    unsigned sboxes = t * (hf - 1) + tb->rp + t * (hf - 1);
    for (unsigned i = 0; i < sboxes && k + 4 <= n; i++, k += 4)
        memcpy(want + k, "ESSM", 4);
    for (unsigned i = 0; i < t && k + 4 <= n; i++, k += 4)
        memcpy(want + k, "ESSL", 4);
    want[k++] = 'E';
    want[k] = 0;
    for (size_t j = 0; j < n; j++) {
        got[j] = row_kind(cs, j);
        /* C names the row's own new variable with coefficient 1; anything else there is ONE */
        const cuzk_csr *c = &cs->c;
        uint64_t e = c->row[j + 1] - 1; /* aux sorts after ONE */
        bool ok = c->row[j + 1] > c->row[j] && c->col[e] == cs->n_inputs + tb->arity + j &&
                  cuzk_fr_is_one(cuzk_csr_coef(c, e));
        for (uint64_t q = c->row[j]; q < e; q++)
            ok &= c->col[q] == 0;
        bad_c += !ok;
    }
    got[n] = 0;
    size_t first = 0;
    while (first < n && want[first] == got[first])
        first++;
    CHECK(k == n && strcmp(want, got) == 0, "arity %u: row kinds differ first at row %zu (%c, want %c)",
          tb->arity, first, first < n ? got[first] : '-', first < k ? want[first] : '-');
    CHECK(bad_c == 0, "arity %u: %zu rows whose C is not their own new variable", tb->arity, bad_c);
    free(want);
    free(got);
}

/* The first row of any matrix that has column col, or -1. */
static int64_t first_row_with(const cuzk_cs *cs, uint32_t col)
{
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (size_t j = 0; j < cs->n_constraints; j++)
        for (int k = 0; k < 3; k++)
            for (uint64_t e = m[k]->row[j]; e < m[k]->row[j + 1]; e++)
                if (m[k]->col[e] == col)
                    return (int64_t)j;
    return -1;
}

static void test_arity(const arity_case *ac)
{
    const unsigned ar = ac->arity;
    const cuzk_poseidon_consts *c = cuzk_poseidon_get(ar);
    if (!c) {
        CHECK(0, "no constants for arity %u", ar);
        return;
    }
    const cuzk_poseidon_tables *tb = cuzk_poseidon_tables_of(c);
    const shape want = expected_shape(tb);
    CHECK(want.rows == ac->published, "arity %u: closed form gives %llu rows, published %llu", ar,
          (unsigned long long)want.rows, (unsigned long long)ac->published);

    cuzk_fr vals[CUZK_POSEIDON_MAX_ARITY], h;
    for (unsigned i = 0; i < ar; i++)
        test_rand_fr(&vals[i]);
    cuzk_poseidon_hash(c, vals, &h);

    /* full mode: structure, values, check */
    int rc;
    cuzk_var out = 0;
    cuzk_csb *cs = build(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK, c, ar, vals, &out, &rc);
    CHECK(rc == CUZK_OK, "arity %u: gadget failed (%d)", ar, rc);
    const uint64_t rows = cuzk_csb_n_constraints(cs), aux = cuzk_csb_n_aux(cs) - ar;
    CHECK(rows == ac->published && aux == ac->published && cuzk_csb_n_inputs(cs) == 1,
          "arity %u: %llu rows, %llu aux, %llu inputs; want %llu, %llu, 1", ar, (unsigned long long)rows,
          (unsigned long long)aux, (unsigned long long)cuzk_csb_n_inputs(cs),
          (unsigned long long)ac->published, (unsigned long long)ac->published);
    cuzk_fr ov;
    cuzk_csb_value(cs, out, &ov);
    CHECK(cuzk_fr_eq(&ov, &h), "arity %u: circuit output differs from the native hash", ar);
    CHECK(!cuzk_var_is_input(out) && cuzk_var_index(out) == cuzk_csb_n_aux(cs) - 1,
          "arity %u: the output is not the last aux variable", ar);
    CHECK(cuzk_csb_first_failure(cs) == -1, "arity %u: CHECK mode says row %lld fails", ar,
          (long long)cuzk_csb_first_failure(cs));

    cuzk_cs sys;
    memset(&sys, 0, sizeof sys);
    cuzk_fr *z = NULL;
    rc = cuzk_csb_finish(cs, &sys, &z);
    CHECK(rc == CUZK_OK && z, "arity %u: finish failed (%d)", ar, rc);
    if (rc != CUZK_OK || !z) {
        cuzk_csb_free(cs);
        free(z);
        cuzk_cs_free(&sys);
        return;
    }
    CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "arity %u: cuzk_cs_check fails on the witness", ar);
    CHECK(sys.a.nnz == want.nnz_a && sys.b.nnz == want.nnz_b && sys.c.nnz == want.nnz_c,
          "arity %u: nnz A/B/C %llu/%llu/%llu, derived %llu/%llu/%llu", ar, (unsigned long long)sys.a.nnz,
          (unsigned long long)sys.b.nnz, (unsigned long long)sys.c.nnz, (unsigned long long)want.nnz_a,
          (unsigned long long)want.nnz_b, (unsigned long long)want.nnz_c);
    check_row_order(&sys, tb);
    cuzk_fr *ew = malloc((sys.n_aux + 8) * sizeof *ew);
    size_t nw = expected_witness(tb, vals, ew), wbad = 0, wfirst = 0;
    for (size_t i = 0; nw == rows && i < nw; i++)
        if (!cuzk_fr_eq(&ew[i], &z[sys.n_inputs + ar + i]) && wbad++ == 0)
            wfirst = i;
    CHECK(nw == rows && wbad == 0, "arity %u: %zu of %zu intermediate values differ (first aux %zu)", ar,
          wbad, nw, wfirst + ar);
    free(ew);
    size_t words_aux = (sys.n_aux + 63) / 64, words_in = (sys.n_inputs + 63) / 64;
    uint64_t *da = calloc(words_aux, 8), *db = calloc(words_aux, 8), *di = calloc(words_in, 8);
    CHECK(cuzk_cs_density(&sys, da, di, db) == CUZK_OK, "arity %u: density failed", ar);
    uint64_t n_da = popcount_words(da, sys.n_aux), n_db = popcount_words(db, sys.n_aux),
             n_di = popcount_words(di, sys.n_inputs);
    CHECK(n_da == want.dense_aux && n_db == want.dense_aux && n_di == 1,
          "arity %u: densities A-aux %llu B-aux %llu B-input %llu, derived %llu %llu 1", ar,
          (unsigned long long)n_da, (unsigned long long)n_db, (unsigned long long)n_di,
          (unsigned long long)want.dense_aux, (unsigned long long)want.dense_aux);
    uint8_t dig[32], wdig[32];
    char dh[65], wh[65];
    CHECK(cuzk_cs_digest(&sys, dig) == CUZK_OK, "arity %u: digest failed", ar);
    cuzk_witness_digest(sys.n_inputs, sys.n_aux, z, wdig);
    hex_encode(dh, dig, 32);
    hex_encode(wh, wdig, 32);
    printf("poseidon arity %2u: inputs %zu aux %zu (preimage %u) constraints %zu nnz A %llu B %llu "
           "C %llu dense A-aux %llu B-aux %llu B-input %llu\n  r1cs digest %s\n",
           ar, sys.n_inputs, sys.n_aux, ar, sys.n_constraints, (unsigned long long)sys.a.nnz,
           (unsigned long long)sys.b.nnz, (unsigned long long)sys.c.nnz, (unsigned long long)n_da,
           (unsigned long long)n_db, (unsigned long long)n_di, dh);
    free(da);
    free(db);
    free(di);

    /* perturbations: every tenth aux variable (and the output) plus a few random ones */
    size_t n_vars = sys.n_inputs + sys.n_aux, missed = 0, wrong_row = 0, tried = 0;
    for (size_t v = sys.n_inputs; v < n_vars; v++) {
        if (!((v - sys.n_inputs) % 10 == 0 || v == n_vars - 1 || test_rand64() % 50 == 0))
            continue;
        tried++;
        cuzk_fr keep = z[v], d;
        test_rand_fr(&d);
        if (cuzk_fr_is_zero(&d))
            d = CUZK_FR_ONE;
        cuzk_fr_add(&z[v], &z[v], &d);
        int64_t bad = cuzk_cs_check(&sys, z, NULL);
        missed += bad < 0;
        wrong_row += bad >= 0 && bad != first_row_with(&sys, (uint32_t)v);
        z[v] = keep;
    }
    CHECK(missed == 0 && wrong_row == 0,
          "arity %u: of %zu perturbed aux values %zu passed the check, %zu failed at an unexpected row", ar,
          tried, missed, wrong_row);
    CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "arity %u: restored witness fails", ar);

    /* structure only: the same matrices */
    cuzk_var out2 = 0;
    cuzk_csb *cs2 = build(CUZK_CSB_RECORD, c, ar, NULL, &out2, &rc);
    cuzk_cs sys2;
    memset(&sys2, 0, sizeof sys2);
    int rc2 = cuzk_csb_finish(cs2, &sys2, NULL);
    CHECK(rc == CUZK_OK && rc2 == CUZK_OK && out2 == out && sys2.n_aux == sys.n_aux &&
              sys2.n_constraints == sys.n_constraints && csr_equal(&sys.a, &sys2.a, sys.n_constraints) &&
              csr_equal(&sys.b, &sys2.b, sys.n_constraints) && csr_equal(&sys.c, &sys2.c, sys.n_constraints),
          "arity %u: RECORD-only matrices differ from RECORD|VALUES|CHECK", ar);
    cuzk_cs_free(&sys2);
    cuzk_csb_free(cs2);

    /* witness only: the same values */
    cuzk_var out3 = 0;
    cuzk_csb *cs3 = build(CUZK_CSB_VALUES, c, ar, vals, &out3, &rc);
    cuzk_fr *z3 = NULL;
    rc2 = cuzk_csb_finish(cs3, NULL, &z3);
    CHECK(rc == CUZK_OK && rc2 == CUZK_OK && z3 && out3 == out &&
              cuzk_csb_n_constraints(cs3) == sys.n_constraints && cuzk_csb_n_aux(cs3) == sys.n_aux &&
              memcmp(z3, z, n_vars * sizeof *z) == 0,
          "arity %u: VALUES-only witness differs from RECORD|VALUES|CHECK", ar);
    free(z3);
    cuzk_csb_free(cs3);

    free(z);
    cuzk_cs_free(&sys);
    cuzk_csb_free(cs);
}

/* More random inputs: output equals the native hash, CHECK stays clean. */
static void test_random_values(void)
{
    static const unsigned arities[] = {2, 4, 8, 11};
    for (size_t a = 0; a < 4; a++) {
        const cuzk_poseidon_consts *c = cuzk_poseidon_get(arities[a]);
        int bad = 0;
        for (int rep = 0; rep < 5; rep++) {
            cuzk_fr vals[CUZK_POSEIDON_MAX_ARITY], h, ov;
            for (unsigned i = 0; i < arities[a]; i++)
                test_rand_fr(&vals[i]);
            if (rep == 0) /* a degenerate preimage too */
                memset(vals, 0, sizeof vals);
            int rc;
            cuzk_var out;
            cuzk_csb *cs = build(CUZK_CSB_VALUES | CUZK_CSB_CHECK, c, arities[a], vals, &out, &rc);
            cuzk_poseidon_hash(c, vals, &h);
            cuzk_csb_value(cs, out, &ov);
            bad += rc != CUZK_OK || !cuzk_fr_eq(&h, &ov) || cuzk_csb_first_failure(cs) != -1;
            cuzk_csb_free(cs);
        }
        CHECK(bad == 0, "arity %u: %d of 5 random preimages wrong or unsatisfied", arities[a], bad);
    }
}

/* Two chained hashes (a 2-level path) and SnapDeals' custom tag in one builder. */
static void test_composition(void)
{
    const cuzk_poseidon_consts *c2 = cuzk_poseidon_get(2), *c8 = cuzk_poseidon_get(8);
    cuzk_fr t40;
    uint64_t l[4] = {1ull << 40, 0, 0, 0};
    cuzk_fr_from_canonical(&t40, l);
    const cuzk_poseidon_consts *ct = cuzk_poseidon_get_tag(2, &t40);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    cuzk_fr v[8], h8, h2, ht;
    cuzk_var in[8], o8, o2, ot;
    for (int i = 0; i < 8; i++) {
        test_rand_fr(&v[i]);
        cuzk_csb_alloc_input(cs, &v[i], &in[i]); /* public inputs work too */
    }
    int rc = cuzk_poseidon_circuit(cs, c8, in, &o8);
    cuzk_var pair[2] = {o8, in[0]};
    rc |= cuzk_poseidon_circuit(cs, c2, pair, &o2);
    cuzk_var pair2[2] = {o2, o8};
    rc |= ct ? cuzk_poseidon_circuit(cs, ct, pair2, &ot) : CUZK_ENOMEM;
    cuzk_poseidon_hash(c8, v, &h8);
    cuzk_fr p[2] = {h8, v[0]};
    cuzk_poseidon_hash(c2, p, &h2);
    cuzk_fr p2[2] = {h2, h8};
    if (ct)
        cuzk_poseidon_hash(ct, p2, &ht);
    cuzk_fr g8, g2, gt;
    cuzk_csb_value(cs, o8, &g8);
    cuzk_csb_value(cs, o2, &g2);
    cuzk_csb_value(cs, ot, &gt);
    CHECK(rc == CUZK_OK && cuzk_fr_eq(&g8, &h8) && cuzk_fr_eq(&g2, &h2) && ct && cuzk_fr_eq(&gt, &ht),
          "chained hashes: wrong values");
    CHECK(cuzk_csb_n_constraints(cs) == 505 + 311 + 311 && cuzk_csb_n_aux(cs) == 505 + 311 + 311 &&
              cuzk_csb_n_inputs(cs) == 9,
          "chained hashes: %llu rows, %llu aux", (unsigned long long)cuzk_csb_n_constraints(cs),
          (unsigned long long)cuzk_csb_n_aux(cs));
    CHECK(cuzk_csb_first_failure(cs) == -1, "chained hashes: CHECK fails at %lld",
          (long long)cuzk_csb_first_failure(cs));
    cuzk_cs sys;
    memset(&sys, 0, sizeof sys);
    cuzk_fr *z = NULL;
    CHECK(cuzk_csb_finish(cs, &sys, &z) == CUZK_OK && cuzk_cs_check(&sys, z, NULL) == -1,
          "chained hashes: recorded system not satisfied");
    free(z);
    cuzk_cs_free(&sys);
    cuzk_csb_free(cs);
    cuzk_poseidon_free(ct);
}

static void test_errors(void)
{
    const cuzk_poseidon_consts *c = cuzk_poseidon_get(2);
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    cuzk_var in[2], out = 12345;
    cuzk_csb_alloc(cs, &CUZK_FR_ONE, &in[0]);
    cuzk_csb_alloc(cs, &CUZK_FR_ONE, &in[1]);
    CHECK(cuzk_poseidon_circuit(NULL, c, in, &out) == CUZK_EINVAL, "NULL builder accepted");
    CHECK(cuzk_poseidon_circuit(cs, NULL, in, &out) == CUZK_EINVAL, "NULL constants accepted");
    CHECK(cuzk_poseidon_circuit(cs, c, NULL, &out) == CUZK_EINVAL, "NULL inputs accepted");
    CHECK(cuzk_poseidon_circuit(cs, c, in, NULL) == CUZK_EINVAL, "NULL output accepted");
    CHECK(cuzk_csb_n_constraints(cs) == 0 && cuzk_csb_n_aux(cs) == 2, "rejected calls added rows");
    /* a variable the builder never allocated: the builder's error comes back, out untouched */
    cuzk_var bogus[2] = {in[0], cuzk_var_aux(999)};
    int rc = cuzk_poseidon_circuit(cs, c, bogus, &out);
    CHECK(rc == CUZK_EINVAL && out == 12345, "unknown input variable: rc %d, out %u", rc, out);
    CHECK(cuzk_csb_error(cs) == CUZK_EINVAL, "builder error not kept");
    rc = cuzk_poseidon_circuit(cs, c, in, &out); /* sticky error: refused at once */
    CHECK(rc == CUZK_EINVAL && out == 12345, "call on a failed builder: rc %d", rc);
    cuzk_csb_free(cs);
}

/* Digests for the preimage [0, 1, ..., arity-1], printed for comparison with a bellpepper run
 * (TestConstraintSystem::hash and the witness digest of porep-circuit.md §9.3); asserted only to be
 * reproducible here. */
static void print_fixed_digests(void)
{
    static const unsigned arities[] = {2, 4, 8, 11};
    for (size_t a = 0; a < 4; a++) {
        cuzk_fr vals[CUZK_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < arities[a]; i++)
            cuzk_fr_from_u64(&vals[i], i);
        uint8_t d[2][32];
        for (int rep = 0; rep < 2; rep++) {
            int rc;
            cuzk_var out;
            cuzk_csb *cs = build(CUZK_CSB_RECORD | CUZK_CSB_VALUES, cuzk_poseidon_get(arities[a]), arities[a],
                                 vals, &out, &rc);
            cuzk_cs sys;
            memset(&sys, 0, sizeof sys);
            cuzk_fr *z = NULL;
            rc |= cuzk_csb_finish(cs, &sys, &z);
            memset(d[rep], 0, 32);
            if (rc == CUZK_OK && z)
                cuzk_witness_digest(sys.n_inputs, sys.n_aux, z, d[rep]);
            CHECK(rc == CUZK_OK && z, "arity %u fixed preimage: gadget failed", arities[a]);
            free(z);
            cuzk_cs_free(&sys);
            cuzk_csb_free(cs);
        }
        char hex[65];
        hex_encode(hex, d[0], 32);
        CHECK(memcmp(d[0], d[1], 32) == 0, "arity %u: witness digest not reproducible", arities[a]);
        printf("poseidon arity %2u preimage [0..%u]: witness digest %s\n", arities[a], arities[a] - 1, hex);
    }
}

int main(void)
{
    test_rng_init("test_poseidon_circuit");
    for (size_t i = 0; i < NCASES; i++)
        test_arity(&CASES[i]);
    test_random_values();
    test_composition();
    test_errors();
    print_fixed_digests();
    return test_finish("test_poseidon_circuit");
}
