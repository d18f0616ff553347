/*
 * test_csb.c — the constraint-system builder of cuzk/csb.h, BLAKE2s and the
 * R1CS / witness digests.
 *
 * Oracles:
 * - BLAKE2s: RFC 7693's "abc" vector (Appendix B) and python3's
 *   hashlib.blake2s on random inputs of random lengths, also fed in random
 *   pieces to the streaming interface.
 * - Linear combinations: a dense coefficient array over a small set of
 *   variables, updated by plain field arithmetic beside every random
 *   operation; the lc must equal it and keep its invariants (strictly sorted
 *   inputs-before-aux, no zero coefficient).
 * - The builder: a random circuit of cuzk_cs_random (repeated columns and
 *   cancelling terms included) replayed through the builder must give the
 *   same merged system (equal digests, since the digest merges and sorts
 *   each row) and the same witness; CHECK must name the row that a naive loop
 *   finds first; cuzk_cs_check on the finished system agrees.
 * - Digests: tests/cs_digest.py, an independent python3 implementation of
 *   the byte layout, run over a text dump of the system and its witness
 *   (terms dumped as stored: unsorted, repeated, in the compact or plain
 *   form). Changing one coefficient changes the digest; permuting a row's
 *   terms does not.
 * - Groth16: the "pack" gadget circuit (three public inputs) through our
 *   setup, prover and verifier; a tampered public input must fail.
 * Misuse: NULL builders and lcs, unknown variables, finish in the wrong mode
 * or twice, enforce after an error or after finish: error codes, no crash,
 * no leak (the ASan build runs this too).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/blake2s.h"
#include "cuzk/catalog.h"
#include "cuzk/cs.h"
#include "cuzk/csb.h"
#include "cuzk/gadgets.h"
#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"
#include "testutil.h"

#define PY_DIGEST CUZK_VECTOR_DIR "/../cs_digest.py"

static void hex32(char out[65], const uint8_t d[32])
{
    hex_encode(out, d, 32);
}

/* ---- BLAKE2s --------------------------------------------------------------------------------------- */

static void test_blake2s(void)
{
    uint8_t d[32], ref[32];
    char hex[65];
    cuzk_blake2s_256(d, "abc", 3);
    hex_decode(ref, 32, "508c5e8c327c14e2e1a72ba34eeb452f37458b209ed63a294d999b4c86675982");
    CHECK(!memcmp(d, ref, 32), "BLAKE2s-256(\"abc\") differs from RFC 7693");

    /* random inputs against python3's hashlib, whole and in random pieces */
    enum { N = 40 };
    char path[] = "/tmp/cuzk_b2s_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    uint8_t *msg[N], mine[N][32];
    size_t len[N];
    for (int i = 0; i < N; i++) {
        len[i] = i < 3 ? (size_t)i * 64 : (size_t)(test_rand64() % 300);
        msg[i] = malloc(len[i] + 1);
        test_rand_bytes(msg[i], len[i]);
        char *h = malloc(2 * len[i] + 1);
        hex_encode(h, msg[i], len[i]);
        fprintf(f, "%s\n", len[i] ? h : "-");
        free(h);
        cuzk_blake2s s;
        cuzk_blake2s_init(&s, 32);
        size_t at = 0;
        while (at < len[i]) {
            size_t k = test_rand64() % 70;
            if (k > len[i] - at)
                k = len[i] - at;
            cuzk_blake2s_update(&s, msg[i] + at, k);
            at += k;
        }
        cuzk_blake2s_final(&s, mine[i]);
        cuzk_blake2s_256(d, msg[i], len[i]);
        CHECK(!memcmp(d, mine[i], 32), "BLAKE2s streaming differs from one call, %zu bytes", len[i]);
    }
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib,sys\n"
             "for l in open(sys.argv[1]).read().split():\n"
             "  print(hashlib.blake2s(b\"\" if l==\"-\" else bytes.fromhex(l)).hexdigest())' %s",
             path);
    char *out = test_run_capture(cmd);
    CHECK(out != NULL, "python3 hashlib.blake2s did not run");
    char *line = out ? strtok(out, "\n") : NULL;
    for (int i = 0; i < N && out; i++) {
        hex32(hex, mine[i]);
        CHECK(line && !strcmp(line, hex), "BLAKE2s of %zu random bytes: %s, python says %s", len[i], hex,
              line ? line : "(nothing)");
        line = strtok(NULL, "\n");
    }
    free(out);
    for (int i = 0; i < N; i++)
        free(msg[i]);
    unlink(path);
}

/* ---- linear combinations ----------------------------------------------------------------------------- */

enum { NV_IN = 4, NV_AUX = 6, NV = NV_IN + NV_AUX };

static cuzk_var small_var(int i)
{
    return i < NV_IN ? cuzk_var_input(i) : cuzk_var_aux(i - NV_IN);
}

static void rand_small_coef(cuzk_fr *c)
{
    switch (test_rand64() % 4) {
    case 0: cuzk_fr_from_u64(c, test_rand64() % 3); break; /* zeros and ones */
    case 1:
        cuzk_fr_from_u64(c, 1);
        cuzk_fr_neg(c, c);
        break;
    default: test_rand_fr(c);
    }
}

static bool lc_matches(const cuzk_lc *lc, const cuzk_fr dense[NV])
{
    uint32_t k = 0;
    for (int i = 0; i < NV; i++) {
        if (cuzk_fr_is_zero(&dense[i]))
            continue;
        if (k >= lc->n || lc->t[k].var != small_var(i) || !cuzk_fr_eq(&lc->t[k].coef, &dense[i]))
            return false;
        k++;
    }
    return k == lc->n;
}

static void test_lc(void)
{
    for (int trial = 0; trial < 300; trial++) {
        cuzk_lc a, b;
        cuzk_fr da[NV], db[NV];
        cuzk_lc_init(&a);
        memset(&b, 0, sizeof b); /* a zeroed struct is an empty lc */
        for (int i = 0; i < NV; i++)
            da[i] = db[i] = CUZK_FR_ZERO;
        bool ok = true;
        for (int step = 0; step < 30 && ok; step++) {
            int op = (int)(test_rand64() % 7);
            int v = (int)(test_rand64() % NV);
            cuzk_fr c, t;
            rand_small_coef(&c);
            if (op <= 1) {
                ok = cuzk_lc_add(&a, small_var(v), &c) == CUZK_OK;
                cuzk_fr_add(&da[v], &da[v], &c);
            } else if (op == 2) {
                int64_t s = (int64_t)(test_rand64() % 7) - 3;
                ok = cuzk_lc_add_u64(&b, small_var(v), s) == CUZK_OK;
                cuzk_fr_from_u64(&t, (uint64_t)(s < 0 ? -s : s));
                if (s < 0)
                    cuzk_fr_neg(&t, &t);
                cuzk_fr_add(&db[v], &db[v], &t);
            } else if (op == 3) { /* a += c b, sometimes the exact negation (everything shared cancels) */
                if (test_rand64() % 3 == 0) {
                    c = CUZK_FR_ONE;
                    cuzk_fr_neg(&c, &c);
                }
                ok = cuzk_lc_add_lc(&a, &b, &c) == CUZK_OK;
                for (int i = 0; i < NV; i++) {
                    cuzk_fr_mul(&t, &db[i], &c);
                    cuzk_fr_add(&da[i], &da[i], &t);
                }
            } else if (op == 4) { /* aliasing: a += c a, or a += a */
                bool unit = test_rand64() & 1;
                ok = cuzk_lc_add_lc(&a, &a, unit ? NULL : &c) == CUZK_OK;
                for (int i = 0; i < NV; i++) {
                    cuzk_fr_mul(&t, &da[i], unit ? &CUZK_FR_ONE : &c);
                    cuzk_fr_add(&da[i], &da[i], &t);
                }
            } else if (op == 5) {
                ok = cuzk_lc_copy(&b, &a) == CUZK_OK;
                memcpy(db, da, sizeof da);
            } else {
                ok = cuzk_lc_add_lc(&b, &a, NULL) == CUZK_OK;
                for (int i = 0; i < NV; i++)
                    cuzk_fr_add(&db[i], &db[i], &da[i]);
            }
            ok = ok && lc_matches(&a, da) && lc_matches(&b, db);
        }
        CHECK(ok, "lc trial %d: differs from the dense model or lost its invariants", trial);
        cuzk_lc_clear(&a);
        CHECK(a.n == 0, "lc_clear");
        cuzk_lc_free(&a);
        cuzk_lc_free(&b);
        cuzk_lc_free(NULL);
    }
}

/* ---- the builder ------------------------------------------------------------------------------------- */

static void test_misuse(void)
{
    cuzk_var v;
    cuzk_fr x;
    CHECK(cuzk_csb_new(CUZK_CSB_CHECK) == NULL, "CHECK without VALUES refused");
    CHECK(cuzk_csb_new(64) == NULL, "unknown flags refused");
    CHECK(cuzk_csb_alloc(NULL, NULL, &v) == CUZK_EINVAL && v == CUZK_VAR_ONE, "alloc on NULL");
    CHECK(cuzk_csb_enforce(NULL, NULL, NULL, NULL) == CUZK_EINVAL, "enforce on NULL");
    CHECK(cuzk_csb_error(NULL) == CUZK_EINVAL && cuzk_csb_n_aux(NULL) == 0 && cuzk_csb_flags(NULL) == 0,
          "queries on NULL");
    CHECK(cuzk_csb_finish(NULL, NULL, NULL) == CUZK_EINVAL, "finish on NULL");
    cuzk_csb_value(NULL, CUZK_VAR_ONE, &x);
    CHECK(cuzk_fr_is_zero(&x), "value on NULL is 0");
    cuzk_csb_free(NULL);

    /* an unknown variable makes the error sticky; later calls do nothing */
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    cuzk_csb_alloc(cs, &CUZK_FR_ONE, &v);
    cuzk_lc a = {0};
    cuzk_lc_add_u64(&a, cuzk_var_aux(5), 1);
    CHECK(cuzk_csb_enforce(cs, &a, NULL, NULL) == CUZK_EINVAL, "enforce with an unknown aux");
    cuzk_lc_clear(&a);
    cuzk_lc_add_u64(&a, cuzk_var_input(1), 1);
    CHECK(cuzk_csb_error(cs) == CUZK_EINVAL, "sticky error kept");
    CHECK(cuzk_csb_alloc(cs, NULL, &v) == CUZK_EINVAL && v == CUZK_VAR_ONE, "alloc after an error");
    CHECK(cuzk_csb_n_aux(cs) == 1 && cuzk_csb_n_constraints(cs) == 0, "nothing happened after the error");
    cuzk_cs out;
    cuzk_fr *z = (cuzk_fr *)&out;
    CHECK(cuzk_csb_finish(cs, &out, &z) == CUZK_EINVAL && z == NULL, "finish reports the error");
    cuzk_csb_free(cs);

    cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    CHECK(cuzk_csb_enforce(cs, &a, NULL, NULL) == CUZK_EINVAL, "enforce with an unknown input");
    cuzk_csb_free(cs);

    /* wrong modes for finish; finish twice; enforce after finish */
    cs = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_csb_alloc(cs, NULL, &v);
    CHECK(cuzk_csb_finish(cs, NULL, &z) == CUZK_EINVAL, "z from a RECORD-only builder refused");
    CHECK(cuzk_csb_set_value(cs, v, &CUZK_FR_ONE) == CUZK_EINVAL, "set_value without VALUES refused");
    CHECK(cuzk_csb_finish(cs, &out, NULL) == CUZK_OK && out.n_aux == 1 && out.n_constraints == 0,
          "finish of an empty system");
    cuzk_cs_free(&out);
    CHECK(cuzk_csb_finish(cs, &out, NULL) == CUZK_EINVAL, "second finish refused");
    CHECK(cuzk_csb_enforce(cs, NULL, NULL, NULL) == CUZK_EINVAL, "enforce after finish refused");
    cuzk_csb_free(cs);
    cs = cuzk_csb_new(CUZK_CSB_VALUES);
    CHECK(cuzk_csb_finish(cs, &out, NULL) == CUZK_EINVAL, "structure from a VALUES-only builder refused");
    CHECK(cuzk_csb_finish(cs, NULL, &z) == CUZK_OK && z && cuzk_fr_is_one(&z[0]),
          "z of a VALUES-only builder");
    free(z);
    CHECK(cuzk_csb_first_failure(cs) == -1, "no CHECK: first_failure -1");
    cuzk_csb_free(cs);
    cuzk_lc_free(&a);
}

/* Replays cs (unified index) through a builder with flags, allocating variables in index order with z. */
static cuzk_csb *replay(const cuzk_cs *sys, const cuzk_fr *z, unsigned flags)
{
    cuzk_csb *cs = cuzk_csb_new(flags);
    cuzk_var v;
    for (size_t i = 1; i < sys->n_inputs; i++)
        cuzk_csb_alloc_input(cs, &z[i], &v);
    for (size_t i = 0; i < sys->n_aux; i++)
        cuzk_csb_alloc(cs, &z[sys->n_inputs + i], &v);
    const cuzk_csr *m[3] = {&sys->a, &sys->b, &sys->c};
    cuzk_lc lc[3] = {{0}, {0}, {0}};
    for (size_t r = 0; r < sys->n_constraints; r++) {
        for (int k = 0; k < 3; k++) {
            cuzk_lc_clear(&lc[k]);
            for (uint64_t t = m[k]->row[r]; t < m[k]->row[r + 1]; t++) {
                uint32_t c = m[k]->col[t];
                cuzk_var var =
                    c < sys->n_inputs ? cuzk_var_input(c) : cuzk_var_aux(c - (uint32_t)sys->n_inputs);
                cuzk_lc_add(&lc[k], var, cuzk_csr_coef(m[k], t));
            }
        }
        cuzk_csb_enforce(cs, &lc[0], &lc[1], &lc[2]);
    }
    for (int k = 0; k < 3; k++)
        cuzk_lc_free(&lc[k]);
    return cs;
}

static void test_replay(void)
{
    for (int trial = 0; trial < 6; trial++) {
        size_t n_in = 1 + test_rand64() % 4, n_aux = 20 + test_rand64() % 60,
               n_cons = 10 + test_rand64() % 40;
        cuzk_cs sys;
        cuzk_fr *z = malloc((n_in + n_aux) * sizeof *z);
        int rc = cuzk_cs_random(&sys, z, n_in, n_aux, n_cons, test_rand64(),
                                trial & 1 ? CUZK_CS_RANDOM_BITS : CUZK_CS_RANDOM_UNIFORM);
        CHECK(rc == CUZK_OK, "cuzk_cs_random");
        cuzk_csb *cs = replay(&sys, z, CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        CHECK(cuzk_csb_error(cs) == CUZK_OK, "replay: %d", cuzk_csb_error(cs));
        CHECK(cuzk_csb_first_failure(cs) == -1, "replay of a satisfied system: CHECK found row %lld",
              (long long)cuzk_csb_first_failure(cs));
        cuzk_cs out;
        cuzk_fr *z2 = NULL;
        rc = cuzk_csb_finish(cs, &out, &z2);
        CHECK(rc == CUZK_OK && out.n_inputs == n_in && out.n_aux == n_aux && out.n_constraints == n_cons,
              "finish: sizes");
        CHECK(z2 && !memcmp(z, z2, (n_in + n_aux) * sizeof *z), "finish: z = inputs ‖ aux");
        CHECK(cuzk_csr_coefs_ok(&out.a) && cuzk_csr_coefs_ok(&out.b) && cuzk_csr_coefs_ok(&out.c),
              "finish: coefficient forms valid");
        uint8_t d1[32], d2[32];
        cuzk_cs_digest(&sys, d1);
        cuzk_cs_digest(&out, d2);
        CHECK(!memcmp(d1, d2, 32), "trial %d: the builder's system differs from the replayed one", trial);
        CHECK(cuzk_cs_check(&out, z2, NULL) == -1, "finished system satisfied");
        cuzk_csb_free(cs);

        /* a wrong value for one aux variable that some row sees (a random system may leave a variable in no
         * row, or in rows the change keeps satisfied: the first from a random start whose change the naive
         * loop catches): CHECK, cuzk_cs_check and the naive loop name the same row */
        size_t start = test_rand64() % n_aux, bad = n_in;
        int64_t want = -1;
        cuzk_fr one;
        cuzk_fr_from_u64(&one, 1);
        for (size_t k = 0; k < n_aux && want < 0; k++) {
            bad = n_in + (start + k) % n_aux;
            cuzk_fr keep = z[bad];
            cuzk_fr_add(&z[bad], &z[bad], &one);
            want = test_naive_first_failure(&sys, z);
            if (want < 0)
                z[bad] = keep;
        }
        cs = replay(&sys, z, CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        CHECK(want >= 0, "no changed aux value breaks a row");
        CHECK(cuzk_csb_first_failure(cs) == want, "CHECK names row %lld, the naive loop %lld",
              (long long)cuzk_csb_first_failure(cs), (long long)want);
        z2[bad] = z[bad];
        CHECK(cuzk_cs_check(&out, z2, NULL) == want, "cuzk_cs_check names the same row");
        cuzk_csb_free(cs);
        cuzk_cs_free(&out);
        free(z2);
        cuzk_cs_free(&sys);
        free(z);
    }
}

/* ---- digests vs python -----------------------------------------------------------------------------------
 */

static bool dump_cs(const char *path, const cuzk_cs *sys, const cuzk_fr *z)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fprintf(f, "cs %zu %zu %zu\n", sys->n_inputs, sys->n_aux, sys->n_constraints);
    const cuzk_csr *m[3] = {&sys->a, &sys->b, &sys->c};
    char hex[65];
    uint8_t be[32];
    for (size_t r = 0; r < sys->n_constraints; r++)
        for (int k = 0; k < 3; k++) {
            fprintf(f, "%llu", (unsigned long long)(m[k]->row[r + 1] - m[k]->row[r]));
            for (uint64_t t = m[k]->row[r]; t < m[k]->row[r + 1]; t++) {
                cuzk_fr_to_be32(be, cuzk_csr_coef(m[k], t));
                hex_encode(hex, be, 32);
                fprintf(f, " %u:%s", m[k]->col[t], hex);
            }
            fputc('\n', f);
        }
    fprintf(f, "z\n");
    for (size_t i = 0; i < sys->n_inputs + sys->n_aux; i++) {
        cuzk_fr_to_be32(be, &z[i]);
        hex_encode(hex, be, 32);
        fprintf(f, "%s\n", hex);
    }
    return fclose(f) == 0;
}

static void check_against_python(const char *what, const cuzk_cs *sys, const cuzk_fr *z)
{
    char path[] = "/tmp/cuzk_csdump_XXXXXX", cmd[512], mine[65], wmine[65];
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    close(fd);
    CHECK(dump_cs(path, sys, z), "%s: dump", what);
    snprintf(cmd, sizeof cmd, "python3 %s %s", PY_DIGEST, path);
    char *out = test_run_capture(cmd);
    CHECK(out != NULL, "%s: %s did not run", what, PY_DIGEST);
    uint8_t d[32], w[32];
    CHECK(cuzk_cs_digest(sys, d) == CUZK_OK, "%s: digest", what);
    cuzk_witness_digest(sys->n_inputs, sys->n_aux, z, w);
    hex32(mine, d);
    hex32(wmine, w);
    if (out) {
        char *l1 = strtok(out, "\n"), *l2 = strtok(NULL, "\n");
        CHECK(l1 && !strcmp(l1, mine), "%s: R1CS digest %s, python %s", what, mine, l1 ? l1 : "-");
        CHECK(l2 && !strcmp(l2, wmine), "%s: witness digest %s, python %s", what, wmine, l2 ? l2 : "-");
    }
    free(out);
    unlink(path);
}

static void test_digest(void)
{
    /* a random system in the plain form, with repeated columns and cancelling pairs */
    cuzk_cs sys;
    size_t n_in = 3, n_aux = 40, n_cons = 30;
    cuzk_fr *z = malloc((n_in + n_aux) * sizeof *z);
    cuzk_cs_random(&sys, z, n_in, n_aux, n_cons, test_rand64(), CUZK_CS_RANDOM_UNIFORM);
    check_against_python("random system", &sys, z);

    uint8_t d0[32], d1[32];
    cuzk_cs_digest(&sys, d0);
    /* permuting a row's terms leaves the digest alone */
    for (size_t r = 0; r < n_cons; r++) {
        uint64_t lo = sys.a.row[r], hi = sys.a.row[r + 1];
        if (hi - lo >= 2) {
            uint32_t c = sys.a.col[lo];
            cuzk_fr v = sys.a.val[lo];
            sys.a.col[lo] = sys.a.col[hi - 1];
            sys.a.val[lo] = sys.a.val[hi - 1];
            sys.a.col[hi - 1] = c;
            sys.a.val[hi - 1] = v;
            break;
        }
    }
    cuzk_cs_digest(&sys, d1);
    CHECK(!memcmp(d0, d1, 32), "a permuted row changed the digest");
    /* one coefficient changed: the digest changes */
    uint64_t k = test_rand64() % sys.c.nnz;
    cuzk_fr_add(&sys.c.val[k], &sys.c.val[k], &CUZK_FR_ONE);
    cuzk_cs_digest(&sys, d1);
    CHECK(memcmp(d0, d1, 32) != 0, "a changed coefficient left the digest unchanged");
    cuzk_fr_sub(&sys.c.val[k], &sys.c.val[k], &CUZK_FR_ONE);
    sys.n_aux--; /* the counts are hashed too */
    cuzk_cs_digest(&sys, d1);
    sys.n_aux++;
    CHECK(memcmp(d0, d1, 32) != 0, "a changed aux count left the digest unchanged");
    cuzk_fr_add(&z[n_in], &z[n_in], &CUZK_FR_ONE);
    uint8_t w0[32], w1[32];
    cuzk_witness_digest(n_in, n_aux, z, w1);
    cuzk_fr_sub(&z[n_in], &z[n_in], &CUZK_FR_ONE);
    cuzk_witness_digest(n_in, n_aux, z, w0);
    CHECK(memcmp(w0, w1, 32) != 0, "a changed witness value left the witness digest unchanged");
    cuzk_cs_free(&sys);
    free(z);

    /* a gadget circuit from the builder (compact form, inputs interleaved with aux) */
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
    cuzk_catalog_build("pack", test_rand64(), cs, NULL, NULL, 0);
    cuzk_fr *zz = NULL;
    CHECK(cuzk_csb_finish(cs, &sys, &zz) == CUZK_OK, "pack: finish");
    CHECK(sys.a.val == NULL, "pack: compacted");
    check_against_python("pack circuit", &sys, zz);
    cuzk_cs_free(&sys);
    free(zz);
    cuzk_csb_free(cs);
}

/* ---- Groth16 on a gadget circuit
 * --------------------------------------------------------------------------- */

static void test_groth16(void)
{
    char err[256] = "";
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK);
    int rc = cuzk_catalog_build("pack", test_rand64(), cs, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && cuzk_csb_first_failure(cs) == -1, "pack: build %s", err);
    cuzk_cs sys;
    cuzk_fr *z = NULL;
    rc = cuzk_csb_finish(cs, &sys, &z);
    cuzk_csb_free(cs);
    CHECK(rc == CUZK_OK && sys.n_inputs == 4, "pack: finish with 3 public inputs");
    if (rc != CUZK_OK)
        return;
    cuzk_groth16_params pk;
    test_groth16_roundtrip(&pk, &sys, z, 1, "pack circuit");
    cuzk_groth16_proof proof;
    /* a witness that breaks a row is refused by the prover */
    cuzk_fr_add(&z[sys.n_inputs + 3], &z[sys.n_inputs + 3], &CUZK_FR_ONE);
    if (pk.vk.ic) {
        rc = cuzk_groth16_prove(&proof, &pk, &sys, z, NULL, NULL, NULL, NULL, 0);
        CHECK(rc == CUZK_EUNSAT, "a bad witness is refused (%d)", rc);
    }
    cuzk_groth16_params_free(&pk);
    cuzk_cs_free(&sys);
    free(z);
}

int main(void)
{
    test_rng_init("test_csb");
    test_blake2s();
    test_lc();
    test_misuse();
    test_replay();
    test_digest();
    test_groth16();
    return test_finish("test_csb");
}
