/*
 * test_cs.c — the constraint system of cuzk/cs.h.
 *
 * Oracles, all independent of src/groth16/cs.c:
 * - A dense evaluation written here: each matrix is expanded into a dense
 *   rows x variables array (repeated columns summed), and <M_j, z> is the
 *   plain double loop. It gives the expected row values, the density bitmaps
 *   (variable dense iff some dense entry is non-zero) and the first failing
 *   row of a corrupted witness.
 * - For the circom fixtures, the r1cs reader's own witness check
 *   (cuzk_snarkjs_r1cs_check, separate code) and the committed witnesses,
 *   which snarkjs checked with `snarkjs wtns check` when they were made.
 * - For the compact coefficient form: the plain form of the same matrices
 *   (a copy made here); every coefficient read through the accessor, every
 *   evaluation, check, density bitmap and QAP evaluation (setup.c) must be
 *   identical between the two.
 * Every random case draws a fresh seed (printed; CUZK_TEST_SEED replays).
 * Multi-threaded results must equal single-threaded ones exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/cs.h"
#include "cuzk/setup.h"
#include "cuzk/snarkjs.h"
#include "testutil.h"

#define FIXTURES CUZK_VECTOR_DIR "/../fixtures"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };

/* ---- the dense oracle --------------------------------------------------------------- */

typedef struct {
    size_t rows, vars;
    cuzk_fr *m[3]; /* rows x vars each */
} dense;

static void dense_from_csr(cuzk_fr *out, const uint64_t *row, const uint32_t *col, const cuzk_fr *val,
                           size_t rows, size_t vars)
{
    memset(out, 0, rows * vars * sizeof *out);
    for (size_t j = 0; j < rows; j++)
        for (uint64_t k = row[j]; k < row[j + 1]; k++)
            cuzk_fr_add(&out[j * vars + col[k]], &out[j * vars + col[k]], &val[k]);
}

static void dense_init(dense *d, const cuzk_cs *cs)
{
    d->rows = cs->n_constraints;
    d->vars = cs->n_inputs + cs->n_aux;
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++) {
        d->m[i] = malloc((d->rows * d->vars > 0 ? d->rows * d->vars : 1) * sizeof(cuzk_fr));
        dense_from_csr(d->m[i], m[i]->row, m[i]->col, m[i]->val, d->rows, d->vars); /* plain form here */
    }
}

static void dense_free(dense *d)
{
    for (int i = 0; i < 3; i++)
        free(d->m[i]);
}

static void dense_row(cuzk_fr *out, const dense *d, int mat, size_t j, const cuzk_fr *z)
{
    cuzk_fr acc = CUZK_FR_ZERO, t;
    for (size_t i = 0; i < d->vars; i++) {
        cuzk_fr_mul(&t, &d->m[mat][j * d->vars + i], &z[i]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static int64_t dense_first_unsat(const dense *d, const cuzk_fr *z)
{
    for (size_t j = 0; j < d->rows; j++) {
        cuzk_fr a, b, c;
        dense_row(&a, d, 0, j, z);
        dense_row(&b, d, 1, j, z);
        dense_row(&c, d, 2, j, z);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            return (int64_t)j;
    }
    return -1;
}

static bool dense_var_used(const dense *d, int mat, size_t v)
{
    for (size_t j = 0; j < d->rows; j++)
        if (!cuzk_fr_is_zero(&d->m[mat][j * d->vars + v]))
            return true;
    return false;
}

static bool bit_of(const uint64_t *b, size_t i)
{
    return (b[i / 64] >> (i % 64)) & 1;
}

/* ---- checks shared by random and fixture circuits ---------------------------------- */

static void check_eval(const cuzk_cs *cs, const dense *d, const cuzk_fr *z, cuzk_pool **pools, int npools,
                       const char *what)
{
    size_t n = cs->n_constraints;
    cuzk_fr *v[3], *ref[3];
    for (int i = 0; i < 3; i++) {
        v[i] = malloc((n ? n : 1) * sizeof(cuzk_fr));
        ref[i] = malloc((n ? n : 1) * sizeof(cuzk_fr));
    }
    if (d)
        for (int i = 0; i < 3; i++)
            for (size_t j = 0; j < n; j++)
                dense_row(&ref[i][j], d, i, j, z);
    else
        cuzk_cs_eval(cs, z, ref[0], ref[1], ref[2], NULL);
    for (int p = 0; p < npools; p++) {
        for (int i = 0; i < 3; i++)
            memset(v[i], 0xa5, (n ? n : 1) * sizeof(cuzk_fr));
        cuzk_cs_eval(cs, z, v[0], v[1], v[2], pools[p]);
        for (int i = 0; i < 3; i++)
            CHECK(memcmp(v[i], ref[i], n * sizeof(cuzk_fr)) == 0, "%s: eval of %c with %d threads differs",
                  what, "ABC"[i], cuzk_pool_size(pools[p]));
    }
    /* NULL outputs are skipped, the others still written. */
    memset(v[1], 0xa5, (n ? n : 1) * sizeof(cuzk_fr));
    cuzk_cs_eval(cs, z, NULL, v[1], NULL, pools[npools - 1]);
    CHECK(memcmp(v[1], ref[1], n * sizeof(cuzk_fr)) == 0, "%s: eval of B alone differs", what);
    for (int i = 0; i < 3; i++) {
        free(v[i]);
        free(ref[i]);
    }
}

static void check_density(const cuzk_cs *cs, const dense *d, const char *what)
{
    size_t wi = (cs->n_inputs + 63) / 64, wa = (cs->n_aux + 63) / 64;
    uint64_t *a_aux = malloc((wa + 1) * 8), *b_in = malloc((wi + 1) * 8), *b_aux = malloc((wa + 1) * 8);
    memset(a_aux, 0xff, (wa + 1) * 8);
    memset(b_in, 0xff, (wi + 1) * 8);
    memset(b_aux, 0xff, (wa + 1) * 8);
    CHECK(cuzk_cs_density(cs, a_aux, b_in, b_aux) == CUZK_OK, "%s: density failed", what);
    size_t bad = 0;
    for (size_t i = 0; i < cs->n_inputs; i++) {
        bool want = dense_var_used(d, 1, i);
        bad += bit_of(b_in, i) != want;
    }
    for (size_t j = 0; j < cs->n_aux; j++) {
        bool wa_ = dense_var_used(d, 0, cs->n_inputs + j), wb = dense_var_used(d, 1, cs->n_inputs + j);
        bad += (bit_of(a_aux, j) != wa_) + (bit_of(b_aux, j) != wb);
    }
    CHECK(bad == 0, "%s: %zu density bits differ from the dense scan", what, bad);
    /* Bits past the end are zero, words past the end untouched. */
    for (size_t i = cs->n_inputs; i < wi * 64; i++)
        CHECK(!bit_of(b_in, i), "%s: b_input bit %zu past the end is set", what, i);
    for (size_t j = cs->n_aux; j < wa * 64; j++)
        CHECK(!bit_of(a_aux, j) && !bit_of(b_aux, j), "%s: aux bit %zu past the end is set", what, j);
    CHECK(a_aux[wa] == ~0ull && b_in[wi] == ~0ull && b_aux[wa] == ~0ull, "%s: density wrote past the end",
          what);
    /* NULL bitmaps are skipped. */
    memset(b_aux, 0, (wa + 1) * 8);
    uint64_t *b_aux2 = calloc(wa + 1, 8);
    CHECK(cuzk_cs_density(cs, NULL, NULL, b_aux2) == CUZK_OK, "%s: density (b_aux only) failed", what);
    cuzk_cs_density(cs, NULL, NULL, b_aux);
    CHECK(memcmp(b_aux, b_aux2, wa * 8) == 0, "%s: b_aux alone differs", what);
    free(b_aux2);
    free(a_aux);
    free(b_in);
    free(b_aux);
}

/* ---- the compact form ---------------------------------------------------------------- */

/* Number of distinct values among the terms of m (quadratic: small matrices only). */
static uint32_t distinct_coefs(const cuzk_csr *m)
{
    uint32_t n = 0;
    for (uint64_t k = 0; k < m->nnz; k++) {
        bool seen = false;
        for (uint64_t q = 0; q < k && !seen; q++)
            seen = cuzk_fr_eq(&m->val[q], &m->val[k]);
        n += !seen;
    }
    return n;
}

/* Compacts a copy of cs and compares everything the library computes from a cs between the two forms. */
static void check_compact(const cuzk_cs *cs, const cuzk_fr *z, cuzk_pool **pools, int npools,
                          const char *what)
{
    cuzk_cs cc;
    test_cs_plain_copy(&cc, cs);
    CHECK(cuzk_cs_compact(&cc) == CUZK_OK, "%s: compact failed", what);
    const cuzk_csr *pm[3] = {&cs->a, &cs->b, &cs->c}, *cm[3] = {&cc.a, &cc.b, &cc.c};
    for (int i = 0; i < 3; i++) {
        uint32_t nd = cs->n_constraints * 8 < 20000 ? distinct_coefs(pm[i]) : 0;
        bool form =
            cm[i]->val == NULL && cuzk_csr_coefs_ok(cm[i]) &&
            (nd == 0 || (cm[i]->n_coef == nd && (nd <= 256 ? cm[i]->idx8 != NULL : cm[i]->idx16 != NULL)));
        const cuzk_csr *c = cm[i];
        CHECK(form, "%s: %c compact form: %u entries (%u distinct), idx8 %d idx16 %d", what, "ABC"[i],
              c -> n_coef, nd, c -> idx8 != NULL, c -> idx16 != NULL);
        bool same = cm[i]->nnz == pm[i]->nnz && memcmp(cm[i]->col, pm[i]->col, pm[i]->nnz * 4) == 0 &&
                    memcmp(cm[i]->row, pm[i]->row, (cs->n_constraints + 1) * 8) == 0;
        for (uint64_t k = 0; k < pm[i]->nnz && same; k++)
            same = cuzk_fr_eq(cuzk_csr_coef(cm[i], k), &pm[i]->val[k]) &&
                   cuzk_csr_coef(pm[i], k) == &pm[i]->val[k];
        CHECK(same, "%s: %c: a compact coefficient differs from the plain one", what, "ABC"[i]);
    }
    size_t want_c = 0, want_p = 0;
    for (int i = 0; i < 3; i++) {
        size_t fixed = (cs->n_constraints + 1) * 8 + pm[i]->nnz * 4;
        want_p += fixed + pm[i]->nnz * 32;
        want_c += fixed + cm[i]->n_coef * 32 + cm[i]->nnz * (cm[i]->idx8 ? 1 : cm[i]->idx16 ? 2 : 32);
    }
    CHECK(cuzk_cs_bytes(&cc) == want_c && cuzk_cs_bytes(cs) == want_p, "%s: bytes %zu / %zu, want %zu / %zu",
          what, cuzk_cs_bytes(&cc), cuzk_cs_bytes(cs), want_c, want_p);
    /* Evaluation, check and density: identical bytes. */
    size_t n = cs->n_constraints ? cs->n_constraints : 1;
    cuzk_fr *v[6];
    for (int i = 0; i < 6; i++)
        v[i] = malloc(n * sizeof(cuzk_fr));
    cuzk_cs_eval(cs, z, v[0], v[1], v[2], NULL);
    for (int p = 0; p < npools; p++) {
        cuzk_cs_eval(&cc, z, v[3], v[4], v[5], pools[p]);
        for (int i = 0; i < 3; i++)
            CHECK(memcmp(v[i], v[3 + i], cs->n_constraints * sizeof(cuzk_fr)) == 0,
                  "%s: compact eval of %c differs (%d threads)", what, "ABC"[i], cuzk_pool_size(pools[p]));
        CHECK(cuzk_cs_check(&cc, z, pools[p]) == cuzk_cs_check(cs, z, pools[p]), "%s: compact check differs",
              what);
    }
    for (int i = 0; i < 6; i++)
        free(v[i]);
    size_t wi = (cs->n_inputs + 63) / 64 + 1, wa = (cs->n_aux + 63) / 64 + 1;
    uint64_t *d1 = calloc(wi + 2 * wa, 8), *d2 = calloc(wi + 2 * wa, 8);
    cuzk_cs_density(cs, d1, d1 + wa, d1 + wa + wi);
    cuzk_cs_density(&cc, d2, d2 + wa, d2 + wa + wi);
    CHECK(memcmp(d1, d2, (wi + 2 * wa) * 8) == 0, "%s: compact density differs", what);
    free(d1);
    free(d2);
    /* The QAP evaluation of setup.c reads coefficients through the accessor too. */
    size_t nv = cs->n_inputs + cs->n_aux;
    cuzk_fr *q1 = malloc(3 * nv * sizeof *q1), *q2 = malloc(3 * nv * sizeof *q2), tau;
    test_rand_fr(&tau);
    int r1 = cuzk_groth16_qap_eval(q1, q1 + nv, q1 + 2 * nv, cs, &tau, pools[npools - 1], NULL, 0);
    int r2 = cuzk_groth16_qap_eval(q2, q2 + nv, q2 + 2 * nv, &cc, &tau, NULL, NULL, 0);
    CHECK(r1 == CUZK_OK && r2 == CUZK_OK && memcmp(q1, q2, 3 * nv * sizeof *q1) == 0,
          "%s: QAP evaluation differs between the forms (%d, %d)", what, r1, r2);
    free(q1);
    free(q2);
    /* Compacting again is a no-op. */
    cuzk_fr *keep = cc.a.coef;
    CHECK(cuzk_cs_compact(&cc) == CUZK_OK && cc.a.coef == keep, "%s: second compact changed A", what);
    cuzk_cs_free(&cc);
}

/* Index widths, the 65536 limit, and the validity rule of cuzk_csr_coefs_ok. */
static void test_compact_edges(void)
{
    /* One row of n terms over variable 1 with n chosen distinct values (i + 1), each once. */
    static const uint32_t sizes[] = {1, 256, 257, 65536, 65537};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        uint32_t n = sizes[t];
        cuzk_csr m = {0};
        m.nnz = 2 * (uint64_t)n; /* every value twice */
        m.row = malloc(2 * sizeof *m.row);
        m.col = malloc(m.nnz * sizeof *m.col);
        m.val = malloc(m.nnz * sizeof *m.val);
        m.row[0] = 0;
        m.row[1] = m.nnz;
        for (uint64_t k = 0; k < m.nnz; k++) {
            m.col[k] = 1;
            cuzk_fr_from_u64(&m.val[k], 1 + (k % n) * 0x9e3779b97f4a7c15ull % 0xfffffffffffull);
        }
        cuzk_fr *orig = malloc(m.nnz * sizeof *orig);
        memcpy(orig, m.val, m.nnz * sizeof *orig);
        int rc = cuzk_csr_compact(&m);
        if (n > 65536) {
            CHECK(rc == CUZK_ERANGE && m.val && !m.coef && !m.idx8 && !m.idx16 && cuzk_csr_coefs_ok(&m),
                  "%u values: rc %d, want ERANGE and the plain form kept", n, rc);
            cuzk_cs cs = {.n_inputs = 2, .n_aux = 0, .n_constraints = 1, .a = m};
            CHECK(cuzk_cs_compact(&cs) == CUZK_OK && cs.a.val != NULL, "%u values: cs_compact", n);
            m = cs.a;
        } else {
            CHECK(rc == CUZK_OK && !m.val && m.n_coef == n &&
                      (n <= 256 ? m.idx8 && !m.idx16 : m.idx16 && !m.idx8),
                  "%u values: rc %d, %u entries, idx8 %d", n, rc, m.n_coef, m.idx8 != NULL);
            bool same = true;
            for (uint64_t k = 0; k < m.nnz && same; k++)
                same = cuzk_fr_eq(cuzk_csr_coef(&m, k), &orig[k]);
            CHECK(same, "%u values: coefficients changed", n);
            CHECK(cuzk_csr_coefs_ok(&m), "%u values: valid form refused", n);
            /* An index past the table is refused. */
            if (m.idx8 && n < 256) {
                m.idx8[m.nnz - 1] = (uint8_t)n;
                CHECK(!cuzk_csr_coefs_ok(&m), "%u values: idx8 past the table accepted", n);
                m.idx8[m.nnz - 1] = 0;
            } else if (m.idx16) {
                uint16_t keep = m.idx16[3];
                m.idx16[3] = (uint16_t)(n < 65536 ? n : 0);
                CHECK(!cuzk_csr_coefs_ok(&m) || n == 65536, "%u values: idx16 past the table accepted", n);
                m.idx16[3] = keep;
            }
        }
        free(orig);
        free(m.row);
        free(m.col);
        free(m.val);
        free(m.coef);
        free(m.idx8);
        free(m.idx16);
    }
    /* Mixed or missing forms are refused, and setup names the matrix. */
    cuzk_fr c1 = CUZK_FR_ONE;
    uint64_t row[2] = {0, 1};
    uint32_t col[1] = {0};
    uint8_t i8[1] = {0};
    uint16_t i16[1] = {0};
    cuzk_csr both = {.row = row, .col = col, .val = &c1, .nnz = 1, .coef = &c1, .n_coef = 1, .idx8 = i8};
    cuzk_csr two_idx = {.row = row, .col = col, .nnz = 1, .coef = &c1, .n_coef = 1, .idx8 = i8, .idx16 = i16};
    cuzk_csr none = {.row = row, .col = col, .nnz = 1};
    cuzk_csr big8 = {.row = row, .col = col, .nnz = 1, .coef = &c1, .n_coef = 257, .idx8 = i8};
    CHECK(!cuzk_csr_coefs_ok(&both) && !cuzk_csr_coefs_ok(&two_idx) && !cuzk_csr_coefs_ok(&none) &&
              !cuzk_csr_coefs_ok(&big8),
          "a malformed coefficient form is accepted");
    cuzk_cs bad = {.n_inputs = 1, .n_aux = 0, .n_constraints = 1};
    cuzk_csr empty = {.row = (uint64_t[]){0, 0}};
    bad.a = none;
    bad.b = empty;
    bad.c = empty;
    cuzk_fr tau, u[1], v[1], w[1];
    test_rand_fr(&tau);
    char err[200] = "";
    CHECK(cuzk_groth16_qap_eval(u, v, w, &bad, &tau, NULL, err, sizeof err) == CUZK_EINVAL &&
              strstr(err, "matrix A") && strstr(err, "valid coefficients"),
          "setup accepts a matrix without coefficients: %s", err);
}

/* ---- random circuits ---------------------------------------------------------------- */

/* Every aux variable j has a non-zero merged C coefficient in row j mod n_constraints (the rule of
 * cuzk_cs_random's header), so no aux variable is unconstrained, also with more aux than rows. */
static void check_owned(const cuzk_cs *cs, const dense *d, const char *what)
{
    size_t bad = 0, first = 0;
    for (size_t j = 0; j < cs->n_aux; j++) {
        size_t row = j % cs->n_constraints, var = cs->n_inputs + j;
        if (cuzk_fr_is_zero(&d->m[2][row * d->vars + var]) && bad++ == 0)
            first = j;
    }
    CHECK(bad == 0, "%s: %zu aux variables without a C coefficient in their row (first: aux %zu)", what, bad,
          first);
}

static void test_random(cuzk_pool **pools, int npools)
{
    static const size_t shapes[][3] = {
        /* inputs, aux, constraints */
        {1, 0, 1},    {1, 1, 1},    {2, 3, 2},     {3, 5, 17},   {1, 40, 30},
        {5, 20, 100}, {4, 130, 70}, {2, 300, 200}, {3, 500, 40}, {1, 7, 1},
    };
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        for (int shape = 0; shape < 2; shape++) {
            size_t ni = shapes[t][0], na = shapes[t][1], nc = shapes[t][2];
            char what[96];
            snprintf(what, sizeof what, "random %zu/%zu/%zu %s", ni, na, nc, shape ? "bits" : "uniform");
            cuzk_cs cs;
            cuzk_fr *z = malloc((ni + na) * sizeof *z);
            uint64_t seed = test_rand64();
            CHECK(cuzk_cs_random(&cs, z, ni, na, nc, seed, (cuzk_cs_shape)shape) == CUZK_OK,
                  "%s: random failed", what);
            CHECK(cs.n_inputs == ni && cs.n_aux == na && cs.n_constraints == nc, "%s: wrong shape", what);
            CHECK(cuzk_fr_is_one(&z[0]), "%s: z[0] is not 1", what);
            dense d;
            dense_init(&d, &cs);
            CHECK(dense_first_unsat(&d, z) == -1, "%s: the witness does not satisfy the circuit (dense)",
                  what);
            for (int p = 0; p < npools; p++)
                CHECK(cuzk_cs_check(&cs, z, pools[p]) == -1, "%s: check != -1 with %d threads", what,
                      cuzk_pool_size(pools[p]));
            check_eval(&cs, &d, z, pools, npools, what);
            check_density(&cs, &d, what);
            check_owned(&cs, &d, what);
            check_compact(&cs, z, pools, npools, what);

            /* Corrupt one variable: the first failing row matches the dense oracle. */
            for (int k = 0; k < 4 && ni + na > 1; k++) {
                size_t v = 1 + test_rand64() % (ni + na - 1);
                cuzk_fr keep = z[v], one;
                cuzk_fr_from_u64(&one, 1 + test_rand64() % 5);
                cuzk_fr_add(&z[v], &z[v], &one);
                int64_t want = dense_first_unsat(&d, z);
                for (int p = 0; p < npools; p++)
                    CHECK(cuzk_cs_check(&cs, z, pools[p]) == want,
                          "%s: corrupt z[%zu]: check %lld, dense %lld", what, v,
                          (long long)cuzk_cs_check(&cs, z, pools[p]), (long long)want);
                z[v] = keep;
            }

            /* Same seed, same circuit and witness; another seed, another circuit. */
            cuzk_cs cs2, cs3;
            cuzk_fr *z2 = malloc((ni + na) * sizeof *z2);
            cuzk_cs_random(&cs2, z2, ni, na, nc, seed, (cuzk_cs_shape)shape);
            bool same = memcmp(z, z2, (ni + na) * sizeof *z) == 0 && cs2.a.nnz == cs.a.nnz &&
                        cs2.c.nnz == cs.c.nnz && memcmp(cs.a.col, cs2.a.col, cs.a.nnz * 4) == 0 &&
                        memcmp(cs.c.val, cs2.c.val, cs.c.nnz * sizeof(cuzk_fr)) == 0 &&
                        memcmp(cs.b.row, cs2.b.row, (nc + 1) * 8) == 0;
            CHECK(same, "%s: same seed gives another circuit", what);
            /* A tiny circuit (e.g. one row over inputs only, 0/1 values) has too few
             * choices for two seeds to be told apart reliably. */
            cuzk_cs_random(&cs3, z2, ni, na, nc, seed + 1, (cuzk_cs_shape)shape);
            if (na >= 2 && nc >= 2)
                CHECK(cs3.c.nnz != cs.c.nnz || memcmp(cs.c.val, cs3.c.val, cs.c.nnz * sizeof(cuzk_fr)) != 0 ||
                          memcmp(z, z2, (ni + na) * sizeof *z) != 0,
                      "%s: seed + 1 gives the same circuit", what);
            cuzk_cs_free(&cs2);
            cuzk_cs_free(&cs3);
            free(z2);
            dense_free(&d);
            cuzk_cs_free(&cs);
            free(z);
        }
    }
}

/* The bits shape is what benchmarks rely on: mostly 0/1 aux values. */
static void test_random_bits_shape(void)
{
    size_t ni = 3, na = 4000;
    cuzk_cs cs;
    cuzk_fr *z = malloc((ni + na) * sizeof *z);
    CHECK(cuzk_cs_random(&cs, z, ni, na, 3000, test_rand64(), CUZK_CS_RANDOM_BITS) == CUZK_OK,
          "bits: failed");
    size_t small = 0;
    for (size_t j = 0; j < na; j++)
        small += cuzk_fr_is_zero(&z[ni + j]) || cuzk_fr_is_one(&z[ni + j]);
    CHECK(small > na * 8 / 10 && small < na, "bits: %zu of %zu aux values are 0 or 1", small, na);
    CHECK(cuzk_cs_check(&cs, z, NULL) == -1, "bits: not satisfied");
    cuzk_cs_free(&cs);
    free(z);
    CHECK(cuzk_cs_random(&cs, NULL, 0, 1, 1, 1, CUZK_CS_RANDOM_UNIFORM) == CUZK_EINVAL, "random: 0 inputs");
    cuzk_fr z1[3];
    CHECK(cuzk_cs_random(&cs, z1, 1, 2, 0, 1, CUZK_CS_RANDOM_BITS) == CUZK_EINVAL,
          "random: aux variables without any row accepted");
}

static void push_term(cuzk_csr *m, uint32_t col, const cuzk_fr *val)
{
    m->col[m->nnz] = col;
    m->val[m->nnz++] = *val;
}

/* More rows than one evaluation block, and rows long enough for the sorting density path. */
static void test_large_and_long_rows(cuzk_pool **pools, int npools)
{
    size_t ni = 2, na = 9000, nc = 7000;
    cuzk_cs cs;
    cuzk_fr *z = malloc((ni + na) * sizeof *z);
    cuzk_cs_random(&cs, z, ni, na, nc, test_rand64(), CUZK_CS_RANDOM_UNIFORM);
    for (int p = 0; p < npools; p++)
        CHECK(cuzk_cs_check(&cs, z, pools[p]) == -1, "large: check with %d threads",
              cuzk_pool_size(pools[p]));
    check_eval(&cs, NULL, z, pools, npools, "large");
    check_compact(&cs, z, pools, npools, "large");
    /* Corrupt a variable used late: rows fail in several blocks, the first one wins. */
    size_t v = ni + na - 1 - test_rand64() % 100;
    cuzk_fr_add(&z[v], &z[v], &CUZK_FR_ONE);
    int64_t first = -1;
    for (size_t j = 0; j < nc && first < 0; j++) {
        cuzk_fr a = CUZK_FR_ZERO, b = CUZK_FR_ZERO, c = CUZK_FR_ZERO, t;
        const cuzk_csr *m[3] = {&cs.a, &cs.b, &cs.c};
        cuzk_fr *out[3] = {&a, &b, &c};
        for (int i = 0; i < 3; i++)
            for (uint64_t k = m[i]->row[j]; k < m[i]->row[j + 1]; k++) {
                cuzk_fr_mul(&t, &m[i]->val[k], &z[m[i]->col[k]]);
                cuzk_fr_add(out[i], out[i], &t);
            }
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            first = (int64_t)j;
    }
    for (int p = 0; p < npools; p++)
        CHECK(cuzk_cs_check(&cs, z, pools[p]) == first, "large: corrupt check %lld, want %lld (%d threads)",
              (long long)cuzk_cs_check(&cs, z, pools[p]), (long long)first, cuzk_pool_size(pools[p]));
    cuzk_cs_free(&cs);
    free(z);

    /* Hand-made rows of several lengths (both sides of the in-place / sorting threshold) in which each
     * variable is used by one row only, as a plain term, a term split in two that adds up to a non-zero
     * value, a lone zero coefficient or two or three terms that cancel; terms are shuffled. */
    static const size_t lens[] = {1, 5, 20, 31, 32, 33, 100};
    enum { NROWS = sizeof lens / sizeof lens[0] };
    size_t vars = 4;
    for (size_t j = 0; j < NROWS; j++)
        vars += lens[j];
    cuzk_cs h = {.n_inputs = 4, .n_aux = vars - 4, .n_constraints = NROWS};
    cuzk_csr *ms[3] = {&h.a, &h.b, &h.c};
    for (int i = 0; i < 3; i++) {
        ms[i]->row = calloc(NROWS + 1, 8);
        ms[i]->col = malloc(3 * vars * 4);
        ms[i]->val = malloc(3 * vars * sizeof(cuzk_fr));
        uint32_t next = (uint32_t)(test_rand64() % 4); /* some rows start among the inputs */
        for (size_t j = 0; j < NROWS; j++, next = (uint32_t)(next + lens[j - 1])) {
            uint64_t lo = ms[i]->nnz;
            for (size_t t = 0; t < lens[j]; t++) {
                uint32_t v = (next + (uint32_t)t) % (uint32_t)vars;
                cuzk_fr x, y;
                test_rand_fr(&x);
                switch (test_rand64() % 4) {
                case 0: /* plain */ push_term(ms[i], v, &x); break;
                case 1: /* split, non-zero sum */
                    test_rand_fr(&y);
                    push_term(ms[i], v, &x);
                    push_term(ms[i], v, &y);
                    break;
                case 2: /* zero */ push_term(ms[i], v, &CUZK_FR_ZERO); break;
                default: /* cancelling x + y - (x + y) */
                    test_rand_fr(&y);
                    push_term(ms[i], v, &x);
                    push_term(ms[i], v, &y);
                    cuzk_fr_add(&x, &x, &y);
                    cuzk_fr_neg(&x, &x);
                    push_term(ms[i], v, &x);
                }
            }
            /* Shuffle the row (Fisher-Yates), except sometimes keep it sorted-by-construction. */
            uint64_t n = ms[i]->nnz - lo;
            if (test_rand64() % 4)
                for (uint64_t t = n; t > 1; t--) {
                    uint64_t u = test_rand64() % t;
                    uint32_t c = ms[i]->col[lo + t - 1];
                    cuzk_fr x = ms[i]->val[lo + t - 1];
                    ms[i]->col[lo + t - 1] = ms[i]->col[lo + u];
                    ms[i]->val[lo + t - 1] = ms[i]->val[lo + u];
                    ms[i]->col[lo + u] = c;
                    ms[i]->val[lo + u] = x;
                }
            ms[i]->row[j + 1] = ms[i]->nnz;
        }
    }
    dense d;
    dense_init(&d, &h);
    check_density(&h, &d, "hand-made rows");
    cuzk_fr *zh = malloc(vars * sizeof *zh);
    zh[0] = CUZK_FR_ONE;
    for (size_t v = 1; v < vars; v++)
        test_rand_fr(&zh[v]);
    check_compact(&h, zh, pools, npools, "hand-made rows");
    free(zh);
    size_t dense_vars = 0;
    for (size_t v = 0; v < vars; v++)
        dense_vars += dense_var_used(&d, 0, v);
    CHECK(dense_vars > vars / 4 && dense_vars < vars * 3 / 4, "hand-made rows: %zu of %zu dense in A",
          dense_vars, vars);
    dense_free(&d);
    cuzk_cs_free(&h);
}

/* ---- circom fixtures ---------------------------------------------------------------- */

static void test_fixture(const char *name, cuzk_pool **pools, int npools)
{
    char path[512], err[256] = "";
    cuzk_snarkjs_r1cs *r1cs = NULL;
    cuzk_snarkjs_wtns *wtns = NULL;
    snprintf(path, sizeof path, "%s/%s/circuit.r1cs", FIXTURES, name);
    int rc = cuzk_snarkjs_r1cs_open(path, &r1cs, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: r1cs: %s", name, err);
    snprintf(path, sizeof path, "%s/%s/witness.wtns", FIXTURES, name);
    rc |= cuzk_snarkjs_wtns_open(path, &wtns, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: wtns: %s", name, err);
    if (rc) {
        cuzk_snarkjs_r1cs_free(r1cs);
        cuzk_snarkjs_wtns_free(wtns);
        return;
    }
    cuzk_cs cs;
    CHECK(cuzk_cs_from_snarkjs(&cs, r1cs, err, sizeof err) == CUZK_OK, "%s: from_snarkjs: %s", name, err);
    CHECK(cs.n_inputs == 1 + (size_t)r1cs->n_pub_out + r1cs->n_pub_in, "%s: n_inputs %zu", name, cs.n_inputs);
    CHECK(cs.n_inputs + cs.n_aux == r1cs->n_wires && cs.n_constraints == r1cs->n_constraints,
          "%s: sizes %zu + %zu, %zu rows", name, cs.n_inputs, cs.n_aux, cs.n_constraints);
    CHECK(wtns->n == r1cs->n_wires, "%s: witness has %u values", name, wtns->n);
    /* The copy owns its arrays. */
    CHECK(cs.a.col != r1cs->a.col && cs.c.val != r1cs->c.val, "%s: the matrices are shared", name);

    cuzk_fr *z = malloc(wtns->n * sizeof *z);
    memcpy(z, wtns->values, wtns->n * sizeof *z);
    for (int p = 0; p < npools; p++)
        CHECK(cuzk_cs_check(&cs, z, pools[p]) == -1, "%s: committed witness rejected (%d threads)", name,
              cuzk_pool_size(pools[p]));
    dense d;
    dense_init(&d, &cs);
    check_eval(&cs, &d, z, pools, npools, name);
    check_density(&cs, &d, name);
    check_compact(&cs, z, pools, npools, name);

    /* Corrupted witnesses: the row agrees with the dense oracle and the r1cs reader's check. */
    int tried = 0;
    for (int k = 0; k < 12; k++) {
        size_t v = 1 + test_rand64() % (cs.n_inputs + cs.n_aux - 1);
        cuzk_fr keep = z[v], delta;
        test_rand_fr(&delta);
        cuzk_fr_add(&z[v], &z[v], &delta);
        int64_t want = dense_first_unsat(&d, z);
        int64_t other = cuzk_snarkjs_r1cs_check(r1cs, z, wtns->n);
        CHECK(want == other, "%s: oracles disagree on z[%zu]: dense %lld, r1cs %lld", name, v,
              (long long)want, (long long)other);
        for (int p = 0; p < npools; p++) {
            int64_t got = cuzk_cs_check(&cs, z, pools[p]);
            CHECK(got == want, "%s: corrupt z[%zu]: check %lld, want %lld", name, v, (long long)got,
                  (long long)want);
        }
        tried += want >= 0;
        z[v] = keep;
    }
    CHECK(tried > 0, "%s: no corruption broke a constraint", name);

    dense_free(&d);
    free(z);
    cuzk_cs_free(&cs);
    cuzk_cs_free(&cs); /* freeing twice is fine after the zeroing */
    CHECK(cuzk_cs_from_snarkjs(&cs, NULL, err, sizeof err) == CUZK_EINVAL, "%s: NULL r1cs accepted", name);
    cuzk_snarkjs_r1cs_free(r1cs);
    cuzk_snarkjs_wtns_free(wtns);
}

int main(void)
{
    test_rng_init("test_cs");
    cuzk_pool *p2 = cuzk_pool_new(2), *p3 = cuzk_pool_new(3);
    cuzk_pool *pools[] = {NULL, p2, p3};
    int npools = 3;
    for (int i = 0; i < NCIRCUITS; i++)
        test_fixture(CIRCUITS[i], pools, npools);
    test_random(pools, npools);
    test_random_bits_shape();
    test_large_and_long_rows(pools, npools);
    test_compact_edges();
    cuzk_pool_free(p2);
    cuzk_pool_free(p3);
    return test_finish("test_cs");
}
