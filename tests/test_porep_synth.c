/*
 * test_porep_synth.c — the synthetic PoRep-shaped circuit of cuzk/porep_synth.h.
 *
 * Oracles, independent of src/groth16/porep_synth.c:
 * - Satisfaction: cuzk_cs_check (tested against a dense evaluation in
 *   test_cs) and, on the smaller circuits, a plain row-by-row evaluation
 *   written here.
 * - A corrupted witness value must be caught at the first row that mentions
 *   the variable (found here by scanning the matrices), and that row must be
 *   the first one whose plain evaluation fails.
 * - The profile targets are cuzk's PCE extraction numbers for a real 32 GiB
 *   partition (reference/cuzk-spec.md §5), written out here; the measured
 *   profile is counted here from the matrices and the witness (every row's
 *   columns are distinct, so a variable is dense when one of its terms has a
 *   non-zero coefficient) and must agree with cuzk_porep_profile_measure.
 * - Determinism: FNV-1a hashes of every array (rows, columns, indices,
 *   coefficient tables, witness) across seeds, partitions and thread counts.
 * - End to end: cuzk_groth16_setup, prove and verify on a small instance,
 *   two partitions under one key.
 *
 * `test_porep_synth bench K THREADS` builds the 2^-K scale circuit and one
 * witness, prints timings, memory, the profile (used for the design note 011) and how the witness MSMs'
 * ones fall in groups of k entries (note 020).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuzk/porep_synth.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
#include "testutil.h"

#define TOL 0.02 /* relative tolerance of every profile ratio */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the whole process (all threads): on a shared machine the honest cost. */
static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- hashing ------------------------------------------------------------------------------ */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_cs(const cuzk_cs *cs)
{
    uint64_t h = 0xcbf29ce484222325ull;
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++) {
        h = fnv(h, m[i]->row, (cs->n_constraints + 1) * sizeof *m[i]->row);
        h = fnv(h, m[i]->col, m[i]->nnz * sizeof *m[i]->col);
        h = fnv(h, m[i]->idx8, m[i]->nnz);
        h = fnv(h, m[i]->coef, m[i]->n_coef * sizeof *m[i]->coef);
    }
    return h;
}

static uint64_t hash_z(const cuzk_fr *z, size_t n)
{
    return fnv(0xcbf29ce484222325ull, z, n * sizeof *z);
}

/* ---- the plain oracle --------------------------------------------------------------------- */

static void plain_dot(cuzk_fr *out, const cuzk_csr *m, size_t j, const cuzk_fr *z)
{
    cuzk_fr acc = CUZK_FR_ZERO, t;
    for (uint64_t k = m->row[j]; k < m->row[j + 1]; k++) {
        cuzk_fr_mul(&t, cuzk_csr_coef(m, k), &z[m->col[k]]);
        cuzk_fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static int64_t plain_first_unsat(const cuzk_cs *cs, const cuzk_fr *z)
{
    for (size_t j = 0; j < cs->n_constraints; j++) {
        cuzk_fr a, b, c;
        plain_dot(&a, &cs->a, j, z);
        plain_dot(&b, &cs->b, j, z);
        plain_dot(&c, &cs->c, j, z);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            return (int64_t)j;
    }
    return -1;
}

/* First row whose A, B or C mentions variable v, -1 if none. */
static int64_t first_mention(const cuzk_cs *cs, uint32_t v)
{
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (size_t j = 0; j < cs->n_constraints; j++)
        for (int i = 0; i < 3; i++)
            for (uint64_t k = m[i]->row[j]; k < m[i]->row[j + 1]; k++)
                if (m[i]->col[k] == v)
                    return (int64_t)j;
    return -1;
}

/* ---- building ----------------------------------------------------------------------------- */

static bool build(cuzk_cs *cs, cuzk_fr **z, const cuzk_porep_shape *sh, uint32_t part, cuzk_pool *pool)
{
    char err[256] = "";
    int rc = cuzk_porep_synth_cs(cs, sh, pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "synth_cs %llu rows: %s", (unsigned long long)sh->rows, err);
    if (rc)
        return false;
    *z = malloc((sh->inputs + sh->aux) * sizeof **z);
    rc = cuzk_porep_synth_witness(*z, sh, part, pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "synth_witness %llu rows: %s", (unsigned long long)sh->rows, err);
    if (rc) {
        cuzk_cs_free(cs);
        free(*z);
        return false;
    }
    return true;
}

/* ---- shapes and arguments ----------------------------------------------------------------- */

static void test_shapes(void)
{
    cuzk_porep_shape s;
    CHECK(cuzk_porep_shape_scale(&s, 0, 7) == CUZK_OK && s.rows == 130278869ull && s.inputs == 328 &&
              s.aux == 130169893ull && s.seed == 7,
          "full scale: %llu rows, %llu inputs, %llu aux", (unsigned long long)s.rows,
          (unsigned long long)s.inputs, (unsigned long long)s.aux);
    CHECK(cuzk_porep_synth_check(&s, NULL, 0) == CUZK_OK, "full scale rejected");
    for (unsigned k = 1; k <= CUZK_POREP_MAX_SCALE; k++) {
        CHECK(cuzk_porep_shape_scale(&s, k, 1) == CUZK_OK, "scale %u", k);
        double want = 130278869.0 / (double)(1u << k);
        CHECK(s.rows >= want - 1 && s.rows <= want + 1, "scale %u: %llu rows", k, (unsigned long long)s.rows);
        uint64_t nc = s.rows - s.inputs;
        double d = 108648.0 / (double)(1u << k);
        CHECK((double)(nc - s.aux) >= d - 1 && (double)(nc - s.aux) <= d + 1 && s.inputs >= 2,
              "scale %u: %llu aux, %llu inputs", k, (unsigned long long)s.aux, (unsigned long long)s.inputs);
        char err[200] = "";
        CHECK(cuzk_porep_synth_check(&s, err, sizeof err) == CUZK_OK, "scale %u rejected: %s", k, err);
    }
    CHECK(cuzk_porep_shape_scale(&s, CUZK_POREP_MAX_SCALE + 1, 1) == CUZK_EINVAL, "scale 17 accepted");
    CHECK(cuzk_porep_shape_scale(NULL, 3, 1) == CUZK_EINVAL, "NULL shape accepted");

    /* Bad shapes are refused with a message, and the builders leave nothing behind. */
    static const struct {
        uint64_t rows, inputs, aux;
        int rc;
        const char *msg;
    } bad[] = {
        {5000, 0, 4000, CUZK_EINVAL, "no inputs"},
        {1000, 2, 990, CUZK_ERANGE, "fewer than 1024"},
        {5000, 2, 4999, CUZK_ERANGE, "aux for 4998"},
        {5000, 2, 4000, CUZK_ERANGE, "aux for 4998"},
        {20000, 10, 19990, CUZK_ERANGE, "public inputs"},
        {5000000000ull, 2, 4999999990ull, CUZK_ERANGE, "32-bit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_porep_shape b = {bad[i].rows, bad[i].inputs, bad[i].aux, 1};
        char err[200] = "";
        int rc = cuzk_porep_synth_check(&b, err, sizeof err);
        CHECK(rc == bad[i].rc && strstr(err, bad[i].msg), "bad shape %zu: rc %d \"%s\"", i, rc, err);
        cuzk_cs cs;
        memset(&cs, 0x5a, sizeof cs);
        rc = cuzk_porep_synth_cs(&cs, &b, NULL, err, sizeof err);
        CHECK(rc == bad[i].rc && cs.a.row == NULL && cs.n_constraints == 0, "bad shape %zu: synth_cs rc %d",
              i, rc);
        cuzk_fr z[4];
        CHECK(cuzk_porep_synth_witness(z, &b, 0, NULL, err, sizeof err) == bad[i].rc,
              "bad shape %zu: witness accepted", i);
    }
    char err[200] = "";
    cuzk_porep_shape_scale(&s, 16, 1);
    CHECK(cuzk_porep_synth_witness(NULL, &s, 0, NULL, err, sizeof err) == CUZK_EINVAL,
          "NULL witness accepted");
    CHECK(cuzk_porep_synth_cs(NULL, &s, NULL, err, sizeof err) == CUZK_EINVAL, "NULL cs accepted");
    CHECK(cuzk_porep_synth_check(NULL, err, sizeof err) == CUZK_EINVAL, "NULL shape checked");
}

/* ---- satisfaction and corruption ---------------------------------------------------------- */

static void test_satisfied(cuzk_pool *pool)
{
    static const unsigned scales[] = {16, 14, 12};
    static const uint32_t parts[] = {0, 1, 9};
    for (size_t si = 0; si < sizeof scales / sizeof scales[0]; si++) {
        cuzk_porep_shape sh;
        cuzk_porep_shape_scale(&sh, scales[si], test_rand64());
        cuzk_cs cs;
        cuzk_fr *z;
        if (!build(&cs, &z, &sh, parts[0], pool))
            continue;
        CHECK(cs.n_inputs == sh.inputs && cs.n_aux == sh.aux && cs.n_constraints == sh.rows - sh.inputs,
              "scale %u: sizes", scales[si]);
        CHECK(cs.a.idx8 && cs.b.idx8 && cs.c.idx8 && !cs.a.val && cuzk_csr_coefs_ok(&cs.a) &&
                  cuzk_csr_coefs_ok(&cs.b) && cuzk_csr_coefs_ok(&cs.c),
              "scale %u: not in the one-byte compact form", scales[si]);
        /* Every row's columns are distinct (terms are merged, as bellperson's PCE counts them). */
        size_t dup_rows = 0;
        const cuzk_csr *m[3] = {&cs.a, &cs.b, &cs.c};
        uint32_t *seen = calloc(cs.n_inputs + cs.n_aux, sizeof *seen);
        for (int i = 0; i < 3; i++)
            for (size_t j = 0; j < cs.n_constraints; j++) {
                bool dup = false;
                uint32_t stamp = (uint32_t)(j * 3 + (size_t)i + 1);
                for (uint64_t k = m[i]->row[j]; k < m[i]->row[j + 1]; k++) {
                    dup = dup || seen[m[i]->col[k]] == stamp;
                    seen[m[i]->col[k]] = stamp;
                }
                dup_rows += dup;
            }
        free(seen);
        CHECK(dup_rows == 0, "scale %u: %zu rows repeat a column", scales[si], dup_rows);
        for (size_t pi = 0; pi < sizeof parts / sizeof parts[0]; pi++) {
            if (pi > 0) {
                char err[256] = "";
                CHECK(cuzk_porep_synth_witness(z, &sh, parts[pi], pool, err, sizeof err) == CUZK_OK,
                      "witness: %s", err);
            }
            CHECK(cuzk_fr_is_one(&z[0]), "scale %u: z[0] != 1", scales[si]);
            CHECK(cuzk_cs_check(&cs, z, pool) == -1, "scale %u partition %u: not satisfied", scales[si],
                  parts[pi]);
            if (scales[si] >= 14)
                CHECK(plain_first_unsat(&cs, z) == -1, "scale %u partition %u: plain evaluation fails",
                      scales[si], parts[pi]);
        }
        /* Break one value at a time: caught at the first row that mentions it. */
        size_t nv = cs.n_inputs + cs.n_aux;
        for (int t = 0; t < (scales[si] >= 14 ? 6 : 2); t++) {
            uint32_t v = t == 0 ? (uint32_t)(1 + test_rand64() % (cs.n_inputs - 1))
                                : (uint32_t)(cs.n_inputs + test_rand64() % cs.n_aux);
            if (t == 1)
                v = (uint32_t)(nv - 1); /* the last variable (tail rows) */
            cuzk_fr keep = z[v], delta;
            test_rand_fr(&delta);
            cuzk_fr_add(&z[v], &z[v], &delta);
            int64_t want = first_mention(&cs, v), got = cuzk_cs_check(&cs, z, pool);
            CHECK(want >= 0 && got == want, "scale %u: z[%u] broken: check %lld, first mention %lld",
                  scales[si], v, (long long)got, (long long)want);
            if (scales[si] >= 14)
                CHECK(plain_first_unsat(&cs, z) == want, "scale %u: z[%u] broken: plain evaluation disagrees",
                      scales[si], v);
            z[v] = keep;
        }
        CHECK(cuzk_cs_check(&cs, z, pool) == -1, "restored witness fails");
        cuzk_cs_free(&cs);
        free(z);
    }
}

/* ---- profile ------------------------------------------------------------------------------ */

typedef struct {
    uint64_t rows, nnz[3], a_aux, b_in, b_aux, bits;
} counted;

/* Counted here, without cs.c: rows have distinct columns (test_satisfied), so a variable is dense when
 * one of its terms is non-zero. */
static void count_profile(counted *o, const cuzk_cs *cs, const cuzk_fr *z)
{
    memset(o, 0, sizeof *o);
    size_t nv = cs->n_inputs + cs->n_aux;
    uint8_t *da = calloc(nv, 1), *db = calloc(nv, 1);
    o->rows = cs->n_constraints + cs->n_inputs;
    const cuzk_csr *m[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++)
        for (size_t j = 0; j < cs->n_constraints; j++)
            for (uint64_t k = m[i]->row[j]; k < m[i]->row[j + 1]; k++) {
                o->nnz[i]++;
                if (i < 2 && !cuzk_fr_is_zero(cuzk_csr_coef(m[i], k)))
                    (i == 0 ? da : db)[m[i]->col[k]] = 1;
            }
    o->nnz[0] += cs->n_inputs; /* the input rows z_i · 0 = 0 */
    for (size_t v = 0; v < nv; v++) {
        if (v < cs->n_inputs) {
            o->b_in += db[v];
            continue;
        }
        o->a_aux += da[v];
        o->b_aux += db[v];
        o->bits += cuzk_fr_is_zero(&z[v]) || cuzk_fr_is_one(&z[v]);
    }
    free(da);
    free(db);
}

static bool within(double got, double want)
{
    return got >= want * (1 - TOL) && got <= want * (1 + TOL);
}

static void print_profile(const char *what, const cuzk_porep_profile *p)
{
    printf("%s: %llu rows, %llu inputs, %llu aux; A/B/C per row %.4f / %.5f / %.4f; a_aux %.4f%%, b_aux "
           "%.4f%%, b_input %llu; aux in {0,1} %.3f%%\n",
           what, (unsigned long long)p->rows, (unsigned long long)p->inputs, (unsigned long long)p->aux,
           p->a_per_row, p->b_per_row, p->c_per_row, 100 * p->a_aux_density, 100 * p->b_aux_density,
           (unsigned long long)p->b_input_dense, 100 * p->bits_fraction);
}

static void check_profile(const cuzk_cs *cs, const cuzk_fr *z, const char *what)
{
    cuzk_porep_profile got, want;
    cuzk_porep_profile_target(&want);
    CHECK(cuzk_porep_profile_measure(&got, cs, z) == CUZK_OK, "%s: measure failed", what);
    print_profile(what, &got);
    counted c;
    count_profile(&c, cs, z);
    CHECK(c.rows == got.rows && c.nnz[0] == got.nnz_a && c.nnz[1] == got.nnz_b && c.nnz[2] == got.nnz_c &&
              c.a_aux == got.a_aux_dense && c.b_aux == got.b_aux_dense && c.b_in == got.b_input_dense &&
              c.bits == got.aux_bits,
          "%s: cuzk_porep_profile_measure disagrees with the count here", what);
    double rows = (double)c.rows, aux = (double)cs->n_aux;
    double a = (double)c.nnz[0] / rows, b = (double)c.nnz[1] / rows, cc = (double)c.nnz[2] / rows;
    double t_a = 309405051.0 / 130278869.0, t_b = 130327340.0 / 130278869.0, t_c = 282656500.0 / 130278869.0;
    CHECK(within(a, t_a), "%s: A %.4f per row, target %.4f", what, a, t_a);
    CHECK(within(b, t_b), "%s: B %.5f per row, target %.5f", what, b, t_b);
    CHECK(within(cc, t_c), "%s: C %.4f per row, target %.4f", what, cc, t_c);
    CHECK(within((double)c.a_aux / aux, 129753292.0 / 130169893.0), "%s: a_aux density %.4f", what,
          (double)c.a_aux / aux);
    CHECK(within((double)c.b_aux / aux, 33112281.0 / 130169893.0), "%s: b_aux density %.4f", what,
          (double)c.b_aux / aux);
    CHECK(c.b_in == 1, "%s: %llu inputs dense in B, want ONE only", what, (unsigned long long)c.b_in);
    CHECK(within((double)c.bits / aux, 0.99), "%s: %.4f of aux in {0,1}", what, (double)c.bits / aux);
}

static void test_profile(cuzk_pool *pool)
{
    /* 2^13 is the first scale of at least 2^14 rows... and one below it, down to 15,903 rows. */
    static const unsigned scales[] = {13, 12, 10};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        cuzk_porep_shape sh;
        cuzk_porep_shape_scale(&sh, scales[i], test_rand64());
        cuzk_cs cs;
        cuzk_fr *z;
        if (!build(&cs, &z, &sh, (uint32_t)(test_rand64() % 10), pool))
            continue;
        char what[64];
        snprintf(what, sizeof what, "profile 2^-%u", scales[i]);
        check_profile(&cs, z, what);
        cuzk_cs_free(&cs);
        free(z);
    }
}

/* ---- determinism -------------------------------------------------------------------------- */

static void test_determinism(cuzk_pool **pools, int npools)
{
    cuzk_porep_shape sh;
    cuzk_porep_shape_scale(&sh, 13, test_rand64());
    size_t nv = sh.inputs + sh.aux;
    uint64_t hc[3], hz[3];
    for (int p = 0; p < npools; p++) {
        cuzk_cs cs;
        cuzk_fr *z;
        if (!build(&cs, &z, &sh, 3, pools[p]))
            return;
        hc[p] = hash_cs(&cs);
        hz[p] = hash_z(z, nv);
        cuzk_cs_free(&cs);
        free(z);
    }
    for (int p = 1; p < npools; p++)
        CHECK(hc[p] == hc[0] && hz[p] == hz[0], "%d threads give other bytes", cuzk_pool_size(pools[p]));

    /* Same seed again: same bytes. Another partition: same matrices, another witness. Another seed: other
     * matrices. */
    cuzk_cs cs;
    cuzk_fr *z;
    if (!build(&cs, &z, &sh, 3, pools[npools - 1]))
        return;
    CHECK(hash_cs(&cs) == hc[0] && hash_z(z, nv) == hz[0], "same seed, other bytes");
    uint64_t hcol = fnv(0xcbf29ce484222325ull, cs.a.col, cs.a.nnz * sizeof *cs.a.col);
    cuzk_porep_synth_witness(z, &sh, 4, pools[0], NULL, 0);
    uint64_t hz4 = hash_z(z, nv);
    CHECK(hz4 != hz[0], "partitions 3 and 4 have the same witness");
    CHECK(cuzk_cs_check(&cs, z, pools[0]) == -1, "partition 4 not satisfied");
    /* Public inputs differ between partitions (they are packed from the partition's bits). */
    cuzk_fr *z3 = malloc(nv * sizeof *z3);
    cuzk_porep_synth_witness(z3, &sh, 3, NULL, NULL, 0);
    CHECK(hash_z(z3, nv) == hz[0], "partition 3 witness with a NULL pool differs");
    CHECK(memcmp(&z3[1], &z[1], (sh.inputs - 1) * sizeof *z) != 0, "partitions 3 and 4 share public inputs");
    free(z3);
    cuzk_cs_free(&cs);
    sh.seed ^= 1;
    cuzk_cs other;
    char err[256] = "";
    CHECK(cuzk_porep_synth_cs(&other, &sh, pools[1], err, sizeof err) == CUZK_OK, "seed ^ 1: %s", err);
    CHECK(hash_cs(&other) != hc[0], "seed ^ 1 gives the same matrices");
    /* The wiring itself differs, not only the constants. */
    CHECK(fnv(0xcbf29ce484222325ull, other.a.col, other.a.nnz * sizeof *other.a.col) != hcol,
          "seed ^ 1 gives the same columns");
    cuzk_cs_free(&other);
    free(z);
}

/* ---- compact vs plain, and the Groth16 round trip ----------------------------------------- */

static void test_compact_plain(cuzk_pool *pool)
{
    cuzk_porep_shape sh;
    cuzk_porep_shape_scale(&sh, 14, test_rand64());
    cuzk_cs cs, pl;
    cuzk_fr *z;
    if (!build(&cs, &z, &sh, 0, pool))
        return;
    test_cs_plain_copy(&pl, &cs);
    size_t n = cs.n_constraints;
    cuzk_fr *v[6];
    for (int i = 0; i < 6; i++)
        v[i] = malloc(n * sizeof(cuzk_fr));
    cuzk_cs_eval(&cs, z, v[0], v[1], v[2], pool);
    cuzk_cs_eval(&pl, z, v[3], v[4], v[5], NULL);
    for (int i = 0; i < 3; i++)
        CHECK(memcmp(v[i], v[3 + i], n * sizeof(cuzk_fr)) == 0, "synth: compact and plain eval of %c differ",
              "ABC"[i]);
    for (int i = 0; i < 6; i++)
        free(v[i]);
    size_t wa = (cs.n_aux + 63) / 64;
    uint64_t *d1 = calloc(2 * wa + 1, 8), *d2 = calloc(2 * wa + 1, 8);
    cuzk_cs_density(&cs, d1, NULL, d1 + wa);
    cuzk_cs_density(&pl, d2, NULL, d2 + wa);
    CHECK(memcmp(d1, d2, 2 * wa * 8) == 0, "synth: compact and plain densities differ");
    free(d1);
    free(d2);
    size_t nnz = cs.a.nnz + cs.b.nnz + cs.c.nnz, bc = cuzk_cs_bytes(&cs), bp = cuzk_cs_bytes(&pl);
    printf("synth 2^-14: %zu terms, compact %zu bytes (%.2f per term), plain %zu bytes (%.2f per term)\n",
           nnz, bc, (double)bc / (double)nnz, bp, (double)bp / (double)nnz);
    CHECK(bc < bp / 4, "compact form not much smaller: %zu vs %zu", bc, bp);
    /* Compacting the plain copy gives back the same one-byte form. */
    CHECK(cuzk_cs_compact(&pl) == CUZK_OK && pl.a.idx8 && pl.b.idx8 && pl.c.idx8 && !pl.a.val,
          "re-compacting the plain copy");
    CHECK(pl.a.n_coef <= cs.a.n_coef && pl.c.n_coef <= cs.c.n_coef && cuzk_cs_check(&pl, z, pool) == -1,
          "re-compacted copy");
    cuzk_cs_free(&pl);
    cuzk_cs_free(&cs);
    free(z);
}

static void test_groth16(cuzk_pool *pool)
{
    cuzk_porep_shape sh;
    cuzk_porep_shape_scale(&sh, 16, test_rand64());
    sh.rows += 2; /* three inputs: ONE and two public */
    sh.inputs = 3;
    cuzk_cs cs;
    cuzk_fr *z;
    if (!build(&cs, &z, &sh, 0, pool))
        return;
    size_t nv = cs.n_inputs + cs.n_aux;
    cuzk_fr *z2 = malloc(nv * sizeof *z2);
    cuzk_porep_synth_witness(z2, &sh, 1, pool, NULL, 0);
    char err[256] = "";
    cuzk_groth16_params pk;
    int rc = cuzk_groth16_setup(&pk, &cs, NULL, pool, err, sizeof err);
    CHECK(rc == CUZK_OK, "setup: %s", err);
    if (rc == CUZK_OK) {
        cuzk_groth16_pvk pvk;
        CHECK(cuzk_groth16_prepare(&pvk, &pk.vk, err, sizeof err) == CUZK_OK, "prepare: %s", err);
        cuzk_groth16_proof p1, p2;
        rc = cuzk_groth16_prove(&p1, &pk, &cs, z, NULL, NULL, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "prove partition 0: %s", err);
        rc |= cuzk_groth16_prove(&p2, &pk, &cs, z2, NULL, NULL, pool, err, sizeof err);
        CHECK(rc == CUZK_OK, "prove partition 1: %s", err);
        if (rc == CUZK_OK) {
            CHECK(cuzk_groth16_verify(&pvk, z + 1, 2, &p1, err, sizeof err) == CUZK_OK, "verify 0: %s", err);
            CHECK(cuzk_groth16_verify(&pvk, z2 + 1, 2, &p2, err, sizeof err) == CUZK_OK, "verify 1: %s", err);
            CHECK(cuzk_groth16_verify(&pvk, z + 1, 2, &p2, NULL, 0) == CUZK_EVERIFY,
                  "partition 1's proof verifies with partition 0's inputs");
        }
        /* A broken witness is refused before proving. */
        z[nv - 7] = z[1];
        cuzk_fr_add(&z[nv - 7], &z[nv - 7], &CUZK_FR_ONE);
        CHECK(cuzk_groth16_prove(&p1, &pk, &cs, z, NULL, NULL, pool, err, sizeof err) == CUZK_EUNSAT,
              "broken witness proved");
    }
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&cs);
    free(z);
    free(z2);
}

/* The ones of a witness MSM's scalars in groups of k consecutive entries (docs/design/020, thirty-sixth
 * session): a ones' sum from per-group tables of subset sums adds once for each group holding a one. For
 * the scalars of L (every aux value), A and B (the aux values their density bitmaps select), prints the
 * share of ones, zeros and other values, and for k = 1..4 the additions per entry counted on this witness
 * against what independent ones at the same share would give. */
static void print_groups(const cuzk_cs *cs, const cuzk_fr *z)
{
    size_t na = cs->n_aux, words = (na + 63) / 64;
    uint64_t *a_aux = calloc(words ? words : 1, 8), *b_aux = calloc(words ? words : 1, 8);
    uint64_t *b_in = calloc((cs->n_inputs + 63) / 64 + 1, 8);
    if (!a_aux || !b_aux || !b_in || cuzk_cs_density(cs, a_aux, b_in, b_aux) != CUZK_OK) {
        printf("groups: out of memory\n");
        goto out;
    }
    const cuzk_fr *aux = z + cs->n_inputs;
    const uint64_t *sel[3] = {NULL, a_aux, b_aux};
    const char *name[3] = {"L (every aux)", "A (a_aux)", "B (b_aux)"};
    for (int q = 0; q < 3; q++) {
        uint64_t n = 0, ones = 0, zeros = 0, groups[5] = {0}; /* groups[k]: groups of k with a one */
        unsigned fill[5] = {0}, mask[5] = {0};
        for (size_t i = 0; i < na; i++) {
            if (sel[q] && !(sel[q][i / 64] >> (i % 64) & 1))
                continue;
            bool one = cuzk_fr_is_one(&aux[i]);
            n++;
            ones += one;
            zeros += cuzk_fr_is_zero(&aux[i]);
            for (unsigned k = 1; k <= 4; k++) {
                mask[k] |= one;
                if (++fill[k] == k) {
                    groups[k] += mask[k] != 0;
                    fill[k] = mask[k] = 0;
                }
            }
        }
        for (unsigned k = 1; k <= 4; k++)
            groups[k] += mask[k] != 0;
        double p1 = n ? (double)ones / (double)n : 0;
        printf("groups %s: %llu entries, ones %.2f %%, zeros %.2f %%, other %.2f %%\n", name[q],
               (unsigned long long)n, 100 * p1, n ? 100.0 * (double)zeros / (double)n : 0,
               n ? 100.0 * (double)(n - ones - zeros) / (double)n : 0);
        for (unsigned k = 1; k <= 4; k++) {
            double got = n ? (double)groups[k] / (double)n : 0, indep = (1 - pow(1 - p1, k)) / k;
            printf("  k = %u: %.4f additions an entry (%.1f %% of k = 1's), independent ones: %.4f\n", k, got,
                   ones ? 100.0 * (double)groups[k] / (double)ones : 0, indep);
        }
    }
out:
    free(a_aux);
    free(b_aux);
    free(b_in);
}

/* ---- bench -------------------------------------------------------------------------------- */

static int bench(unsigned k, int threads)
{
    cuzk_pool *pool = cuzk_pool_new(threads);
    cuzk_porep_shape sh;
    cuzk_porep_shape_scale(&sh, k, 1);
    cuzk_cs cs;
    char err[256] = "";
    double c0 = cpu(), t0 = now();
    int rc = cuzk_porep_synth_cs(&cs, &sh, pool, err, sizeof err);
    double t1 = now(), c1 = cpu();
    if (rc) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    size_t nv = sh.inputs + sh.aux;
    cuzk_fr *z = malloc(nv * sizeof *z);
    double c2 = cpu(), t2 = now();
    rc = cuzk_porep_synth_witness(z, &sh, 0, pool, err, sizeof err);
    double t3 = now(), c3 = cpu();
    int64_t bad = cuzk_cs_check(&cs, z, pool);
    double t4 = now();
    cuzk_porep_profile p;
    cuzk_porep_profile_measure(&p, &cs, z);
    size_t nnz = cs.a.nnz + cs.b.nnz + cs.c.nnz, bytes = cuzk_cs_bytes(&cs);
    printf("2^-%u, %d threads: %llu rows; circuit %.3f s (%.1f M rows/s), witness %.3f s (%.1f M rows/s), "
           "check %.3f s (%s)\n",
           k, cuzk_pool_size(pool), (unsigned long long)sh.rows, t1 - t0, (double)sh.rows / (t1 - t0) / 1e6,
           t3 - t2, (double)sh.rows / (t3 - t2) / 1e6, t4 - t3, bad == -1 ? "satisfied" : "NOT SATISFIED");
    printf("cpu time: circuit %.3f s (%.2f M rows per cpu-second), witness %.3f s (%.2f M rows per "
           "cpu-second)\n",
           c1 - c0, (double)sh.rows / (c1 - c0) / 1e6, c3 - c2, (double)sh.rows / (c3 - c2) / 1e6);
    printf("matrices %zu bytes for %zu terms: %.3f bytes per term (%.3f without row offsets); witness %zu "
           "bytes\n",
           bytes, nnz, (double)bytes / (double)nnz,
           (double)(bytes - 3 * (cs.n_constraints + 1) * 8) / (double)nnz, nv * sizeof(cuzk_fr));
    print_profile("profile", &p);
    print_groups(&cs, z);
    cuzk_cs_free(&cs);
    free(z);
    cuzk_pool_free(pool);
    return rc || bad != -1;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "bench") == 0)
        return bench((unsigned)atoi(argv[2]), atoi(argv[3]));
    test_rng_init("test_porep_synth");
    cuzk_pool *p2 = cuzk_pool_new(2), *p3 = cuzk_pool_new(3);
    cuzk_pool *pools[] = {NULL, p2, p3};
    test_shapes();
    test_satisfied(p2);
    test_profile(p2);
    test_determinism(pools, 3);
    test_compact_plain(p2);
    test_groth16(p2);
    cuzk_pool_free(p2);
    cuzk_pool_free(p3);
    return test_finish("test_porep_synth");
}
