/*
 * test_snarkjs_files.c — the .r1cs / .wtns / .zkey readers against the circom
 * + snarkjs fixtures in tests/fixtures/<circuit>/ (scripts/fixtures/gen.sh).
 *
 * Ground truth is what snarkjs itself read from the same files at generation
 * time (expected.txt, written by scripts/fixtures/expected.mjs from snarkjs's
 * exportJson functions), plus verification_key.json and public.json. Nothing
 * expected is typed in here. Every expected.txt line must be understood: an
 * unknown op fails, so a regenerated file cannot be skipped silently.
 *
 * Per fixture: all header values, every constraint (terms compared as sets,
 * since snarkjs's export orders them by wire), every witness value, sampled
 * points of every zkey section, every coefficient entry; the zkey's
 * coefficients against the r1cs (A and B terms plus the input rows snarkjs
 * appends); vk points against verification_key.json; public.json against the
 * witness; the witness satisfies the r1cs, and a witness with one value
 * changed fails at the constraint the test's own evaluator (over snarkjs's
 * LC data, not the library's CSR) says must fail first.
 *
 * Hostile input, on the smallest fixture: truncation at every 7th offset,
 * random truncations of the larger ones, random bit flips in the magic,
 * version, section table and header sections (asserting rejection where any
 * change must be rejected), targeted corruptions with their messages, section
 * reordering (must still read, identically) and a missing path. ASan builds
 * turn any out-of-bounds read into a failure, so every buffer handed to the
 * readers is an exact-size heap copy.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/snarkjs.h"
#include "testutil.h"

#define FIXTURES CUZK_VECTOR_DIR "/../fixtures"

static const char *const CIRCUITS[] = {"bits", "mixer", "mulchain"};
enum { NCIRCUITS = sizeof CIRCUITS / sizeof CIRCUITS[0] };

/* ---- files and numbers ------------------------------------------------------ */

static uint8_t *dup_bytes(const uint8_t *d, size_t n)
{
    uint8_t *c = malloc(n ? n : 1);
    memcpy(c, d, n);
    return c;
}

/* Decimal string -> little-endian limbs; false on a non-digit or overflow. */
static bool dec_limbs(uint64_t *l, size_t n, const char *s)
{
    memset(l, 0, n * sizeof *l);
    if (!*s)
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned __int128 carry = (unsigned)(*s - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 t = (unsigned __int128)l[i] * 10 + carry;
            l[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry)
            return false;
    }
    return true;
}

static bool dec_fr(cuzk_fr *r, const char *s)
{
    uint64_t l[4];
    return dec_limbs(l, 4, s) && cuzk_fr_from_canonical(r, l);
}

static bool dec_fp(cuzk_fp *r, const char *s)
{
    uint64_t l[6];
    return dec_limbs(l, 6, s) && cuzk_fp_from_canonical(r, l);
}

static bool dec_u64(uint64_t *v, const char *s)
{
    return dec_limbs(v, 1, s);
}

static bool dec_g1(cuzk_g1_affine *p, char **t)
{
    if (!strcmp(t[0], "inf")) {
        memset(p, 0, sizeof *p);
        return true;
    }
    return dec_fp(&p->x, t[0]) && dec_fp(&p->y, t[1]);
}

static bool dec_g2(cuzk_g2_affine *p, char **t)
{
    if (!strcmp(t[0], "inf")) {
        memset(p, 0, sizeof *p);
        return true;
    }
    return dec_fp(&p->x.c0, t[0]) && dec_fp(&p->x.c1, t[1]) && dec_fp(&p->y.c0, t[2]) &&
           dec_fp(&p->y.c1, t[3]);
}

static bool limbs_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
    return !memcmp(a, b, n * sizeof *a);
}

/* ---- a minimal JSON scan: the decimal strings after a key -------------------- */

/* Copies the first `want` quoted all-digit strings after `"key"` (from the
 * start when key is NULL) into out, skipping other strings; after a key the
 * very first string must be a number. Returns how many were found. */
static size_t json_numbers(const char *json, const char *key, char out[][128], size_t want)
{
    const char *p = json;
    if (key) {
        char k[64];
        snprintf(k, sizeof k, "\"%s\"", key);
        p = strstr(json, k);
        if (!p)
            return 0;
        p += strlen(k);
    }
    size_t n = 0;
    while (n < want && (p = strchr(p, '"'))) {
        const char *e = strchr(p + 1, '"');
        if (!e)
            break;
        size_t len = (size_t)(e - p - 1);
        bool digits = len > 0 && len < 128 && strspn(p + 1, "0123456789") == len;
        if (!digits && n == 0 && key)
            return 0; /* the next string after the key must already be a number */
        if (digits) {
            memcpy(out[n], p + 1, len);
            out[n][len] = 0;
            n++;
        }
        p = e + 1;
    }
    return n;
}

static long json_int(const char *json, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "\"%s\"", key);
    const char *p = strstr(json, k);
    return p ? strtol(strchr(p, ':') + 1, NULL, 10) : -1;
}

/* ---- the test's own view of the constraints (from snarkjs's export) ---------- */

typedef struct {
    uint32_t n;
    uint32_t *wire;
    cuzk_fr *coef;
} lc;

static void lc_dot(cuzk_fr *acc, const lc *l, const cuzk_fr *w)
{
    cuzk_fr t;
    *acc = CUZK_FR_ZERO;
    for (uint32_t k = 0; k < l->n; k++) {
        cuzk_fr_mul(&t, &l->coef[k], &w[l->wire[k]]);
        cuzk_fr_add(acc, acc, &t);
    }
}

/* Index of the first constraint the witness violates, -1 if none. */
static int64_t lc_first_failure(const lc *lcs, uint32_t ncons, const cuzk_fr *w)
{
    for (uint32_t i = 0; i < ncons; i++) {
        cuzk_fr a, b, c;
        lc_dot(&a, &lcs[3 * i], w);
        lc_dot(&b, &lcs[3 * i + 1], w);
        lc_dot(&c, &lcs[3 * i + 2], w);
        cuzk_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &c))
            return i;
    }
    return -1;
}

/* ---- one fixture against expected.txt ---------------------------------------- */

typedef struct {
    const char *name;
    cuzk_snarkjs_r1cs *r1cs;
    cuzk_snarkjs_wtns *wtns;
    cuzk_snarkjs_zkey *zkey;
    lc *lcs; /* 3 per constraint, A B C */
} fx;

typedef struct {
    uint32_t wire;
    cuzk_fr v;
} term;

static int term_cmp(const void *a, const void *b)
{
    const term *x = a, *y = b;
    return x->wire < y->wire ? -1 : x->wire > y->wire;
}

static void check_lc_line(fx *f, vec_file *v)
{
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    uint64_t ci, m, n;
    if (!dec_u64(&ci, v->tok[1]) || !dec_u64(&m, v->tok[2]) || !dec_u64(&n, v->tok[3]) || m > 2 ||
        ci >= r->n_constraints || v->ntok != 4 + 2 * (int)n) {
        CHECK(false, "%s:%d: malformed r1cs.lc line", v->path, v->lineno);
        return;
    }
    lc *e = &f->lcs[3 * ci + m];
    e->n = (uint32_t)n;
    e->wire = malloc((n ? n : 1) * sizeof *e->wire);
    e->coef = malloc((n ? n : 1) * sizeof *e->coef);
    for (uint64_t k = 0; k < n; k++) {
        uint64_t wv;
        bool ok = dec_u64(&wv, v->tok[4 + 2 * k]) && dec_fr(&e->coef[k], v->tok[5 + 2 * k]);
        CHECK(ok, "%s:%d: bad term %llu", v->path, v->lineno, (unsigned long long)k);
        e->wire[k] = (uint32_t)wv;
    }
    const cuzk_snarkjs_matrix *mx = m == 0 ? &r->a : m == 1 ? &r->b : &r->c;
    uint64_t lo = mx->row[ci], hi = mx->row[ci + 1];
    CHECK(hi - lo == n, "%s: constraint %llu matrix %llu: %llu terms, snarkjs read %llu", f->name,
          (unsigned long long)ci, (unsigned long long)m, (unsigned long long)(hi - lo),
          (unsigned long long)n);
    if (hi - lo != n)
        return;
    term *t = malloc((n ? n : 1) * sizeof *t);
    for (uint64_t k = 0; k < n; k++)
        t[k] = (term){mx->col[lo + k], mx->val[lo + k]};
    qsort(t, n, sizeof *t, term_cmp);
    for (uint64_t k = 0; k < n; k++)
        CHECK(t[k].wire == e->wire[k] && cuzk_fr_eq(&t[k].v, &e->coef[k]),
              "%s: constraint %llu matrix %llu term %llu differs from snarkjs", f->name,
              (unsigned long long)ci, (unsigned long long)m, (unsigned long long)k);
    free(t);
}

static const cuzk_snarkjs_points *section_by_name(const cuzk_snarkjs_zkey *z, const char *s)
{
    return !strcmp(s, "ic")   ? &z->ic
           : !strcmp(s, "a")  ? &z->a
           : !strcmp(s, "b1") ? &z->b1
           : !strcmp(s, "b2") ? &z->b2
           : !strcmp(s, "c")  ? &z->c
           : !strcmp(s, "h")  ? &z->h
                              : NULL;
}

static void check_expected(fx *f)
{
    char path[256];
    snprintf(path, sizeof path, "../fixtures/%s/expected.txt", f->name);
    vec_file v;
    if (!vec_open(&v, path))
        return;
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    const cuzk_snarkjs_wtns *w = f->wtns;
    const cuzk_snarkjs_zkey *z = f->zkey;
    long n_lc = 0, n_val = 0, n_coef = 0, n_point = 0, n_head = 0;
    char err[256];
    while (vec_next(&v)) {
        const char *op = v.tok[0];
        uint64_t u[8];
        uint64_t limbs[6];
        if (!strcmp(op, "r1cs.header") && v.ntok == 9) {
            n_head++;
            bool ok = dec_u64(&u[0], v.tok[1]) && dec_limbs(limbs, 4, v.tok[2]);
            for (int i = 0; i < 6; i++)
                ok = ok && dec_u64(&u[1 + i], v.tok[3 + i]);
            CHECK(ok && u[0] == 32 && limbs_eq(limbs, CUZK_R, 4), "%s: r1cs n8/prime", f->name);
            CHECK(ok && u[1] == r->n_wires && u[2] == r->n_pub_out && u[3] == r->n_pub_in &&
                      u[4] == r->n_prv_in && u[5] == r->n_labels && u[6] == r->n_constraints,
                  "%s: r1cs header (%u %u %u %u %llu %u) differs from snarkjs", f->name, r->n_wires,
                  r->n_pub_out, r->n_pub_in, r->n_prv_in, (unsigned long long)r->n_labels, r->n_constraints);
            if (ok && u[6] == r->n_constraints && !f->lcs)
                f->lcs = calloc(3 * (size_t)r->n_constraints + 1, sizeof *f->lcs);
        } else if (!strcmp(op, "r1cs.lc") && v.ntok >= 4 && f->lcs) {
            n_lc++;
            check_lc_line(f, &v);
        } else if (!strcmp(op, "wtns.header") && v.ntok == 4) {
            n_head++;
            bool ok = dec_u64(&u[0], v.tok[1]) && dec_limbs(limbs, 4, v.tok[2]) && dec_u64(&u[1], v.tok[3]);
            CHECK(ok && u[0] == 32 && limbs_eq(limbs, CUZK_R, 4) && u[1] == w->n, "%s: wtns header (n %u)",
                  f->name, w->n);
        } else if (!strcmp(op, "wtns.value") && v.ntok == 3) {
            n_val++;
            cuzk_fr e;
            bool ok = dec_u64(&u[0], v.tok[1]) && dec_fr(&e, v.tok[2]) && u[0] < w->n;
            CHECK(ok && cuzk_fr_eq(&e, &w->values[u[0]]), "%s: witness value %s", f->name, v.tok[1]);
        } else if (!strcmp(op, "zkey.header") && v.ntok == 8) {
            n_head++;
            uint64_t rl[4];
            bool ok = dec_u64(&u[0], v.tok[1]) && dec_limbs(limbs, 6, v.tok[2]) && dec_u64(&u[1], v.tok[3]) &&
                      dec_limbs(rl, 4, v.tok[4]) && dec_u64(&u[2], v.tok[5]) && dec_u64(&u[3], v.tok[6]) &&
                      dec_u64(&u[4], v.tok[7]);
            CHECK(ok && u[0] == z->n8q && limbs_eq(limbs, z->q, 6) && limbs_eq(z->q, CUZK_P, 6) &&
                      u[1] == z->n8r && limbs_eq(rl, z->r, 4) && limbs_eq(z->r, CUZK_R, 4),
                  "%s: zkey field sizes/primes", f->name);
            CHECK(ok && u[2] == z->n_vars && u[3] == z->n_public && u[4] == z->domain_size,
                  "%s: zkey nVars %u nPublic %u domainSize %u differ from snarkjs", f->name, z->n_vars,
                  z->n_public, z->domain_size);
        } else if (!strcmp(op, "zkey.g1") && v.ntok == 4) {
            cuzk_g1_affine e;
            const cuzk_g1_affine *got = !strcmp(v.tok[1], "alpha1")   ? &z->alpha1
                                        : !strcmp(v.tok[1], "beta1")  ? &z->beta1
                                        : !strcmp(v.tok[1], "delta1") ? &z->delta1
                                                                      : NULL;
            CHECK(got && dec_g1(&e, v.tok + 2) && cuzk_g1_affine_eq(&e, got), "%s: zkey %s", f->name,
                  v.tok[1]);
        } else if (!strcmp(op, "zkey.g2") && v.ntok == 6) {
            cuzk_g2_affine e;
            const cuzk_g2_affine *got = !strcmp(v.tok[1], "beta2")    ? &z->beta2
                                        : !strcmp(v.tok[1], "gamma2") ? &z->gamma2
                                        : !strcmp(v.tok[1], "delta2") ? &z->delta2
                                                                      : NULL;
            CHECK(got && dec_g2(&e, v.tok + 2) && cuzk_g2_affine_eq(&e, got), "%s: zkey %s", f->name,
                  v.tok[1]);
        } else if (!strcmp(op, "zkey.count") && v.ntok == 3) {
            const cuzk_snarkjs_points *pts = section_by_name(z, v.tok[1]);
            uint64_t got = !strcmp(v.tok[1], "coefs") ? z->n_coefs : pts ? pts->count : UINT64_MAX;
            CHECK(dec_u64(&u[0], v.tok[2]) && u[0] == got, "%s: zkey %s count %llu", f->name, v.tok[1],
                  (unsigned long long)got);
        } else if (!strcmp(op, "zkey.point") && v.ntok >= 4) {
            n_point++;
            const cuzk_snarkjs_points *pts = section_by_name(z, v.tok[1]);
            bool g2 = pts && pts->stride == 192;
            if (!pts || !dec_u64(&u[0], v.tok[2]) || v.ntok != (!strcmp(v.tok[3], "inf") ? 4 : g2 ? 7 : 5)) {
                CHECK(false, "%s:%d: malformed zkey.point", v.path, v.lineno);
                continue;
            }
            int rc;
            bool eq;
            if (g2) {
                cuzk_g2_affine e, got;
                rc = cuzk_snarkjs_points_g2(pts, u[0], CUZK_DECODE_CHECK_GROUP, &got, err, sizeof err);
                eq = rc == CUZK_OK && dec_g2(&e, v.tok + 3) && cuzk_g2_affine_eq(&e, &got);
            } else {
                cuzk_g1_affine e, got;
                rc = cuzk_snarkjs_points_g1(pts, u[0], CUZK_DECODE_CHECK_GROUP, &got, err, sizeof err);
                eq = rc == CUZK_OK && dec_g1(&e, v.tok + 3) && cuzk_g1_affine_eq(&e, &got);
            }
            CHECK(eq, "%s: zkey %s point %s differs from snarkjs (rc %d %s)", f->name, v.tok[1], v.tok[2], rc,
                  rc ? err : "");
        } else if (!strcmp(op, "zkey.coef") && v.ntok == 6) {
            n_coef++;
            cuzk_snarkjs_coef c;
            cuzk_fr e;
            bool ok = dec_u64(&u[0], v.tok[1]) && dec_u64(&u[1], v.tok[2]) && dec_u64(&u[2], v.tok[3]) &&
                      dec_u64(&u[3], v.tok[4]) && dec_fr(&e, v.tok[5]) &&
                      cuzk_snarkjs_zkey_coef(z, u[0], &c) == CUZK_OK;
            CHECK(ok && c.matrix == u[1] && c.constraint == u[2] && c.signal == u[3] &&
                      cuzk_fr_eq(&c.value, &e),
                  "%s: zkey coefficient %s differs from snarkjs", f->name, v.tok[1]);
        } else {
            CHECK(false, "%s:%d: unknown or malformed line '%s'", v.path, v.lineno, op);
        }
    }
    vec_close(&v);
    CHECK(n_head == 3, "%s: expected.txt has %ld header lines, want 3", f->name, n_head);
    CHECK(n_lc == 3L * r->n_constraints, "%s: %ld LC lines for %u constraints", f->name, n_lc,
          r->n_constraints);
    CHECK(n_val == (long)w->n, "%s: %ld witness lines for %u values", f->name, n_val, w->n);
    CHECK(n_coef == (long)z->n_coefs, "%s: %ld coefficient lines for %u entries", f->name, n_coef,
          z->n_coefs);
    CHECK(n_point >= 20, "%s: only %ld sampled points", f->name, n_point);
}

/* ---- cross-checks between the three files ------------------------------------ */

typedef struct {
    uint32_t m, c, s;
    uint64_t v[4];
} centry;

static int centry_cmp(const void *a, const void *b)
{
    const centry *x = a, *y = b;
    if (x->m != y->m)
        return x->m < y->m ? -1 : 1;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return memcmp(x->v, y->v, sizeof x->v);
}

/* snarkjs's section 4 = every A and B term of the r1cs plus A[nCons + s][s] = 1 for s <= nPublic. */
static void check_coefs_vs_r1cs(const fx *f)
{
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    const cuzk_snarkjs_zkey *z = f->zkey;
    uint64_t n = r->a.nnz + r->b.nnz + z->n_public + 1;
    CHECK(n == z->n_coefs, "%s: r1cs gives %llu A/B entries, zkey has %u", f->name, (unsigned long long)n,
          z->n_coefs);
    if (n != z->n_coefs)
        return;
    centry *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    size_t k = 0;
    const cuzk_snarkjs_matrix *mx[2] = {&r->a, &r->b};
    for (uint32_t m = 0; m < 2; m++)
        for (uint32_t i = 0; i < r->n_constraints; i++)
            for (uint64_t j = mx[m]->row[i]; j < mx[m]->row[i + 1]; j++, k++) {
                x[k] = (centry){m, i, mx[m]->col[j], {0}};
                memcpy(x[k].v, mx[m]->val[j].l, sizeof x[k].v);
            }
    for (uint32_t s = 0; s <= z->n_public; s++, k++) {
        x[k] = (centry){0, r->n_constraints + s, s, {0}};
        memcpy(x[k].v, CUZK_FR_ONE.l, sizeof x[k].v);
    }
    for (size_t i = 0; i < n; i++) {
        cuzk_snarkjs_coef c;
        cuzk_snarkjs_zkey_coef(z, i, &c);
        y[i] = (centry){c.matrix, c.constraint, c.signal, {0}};
        memcpy(y[i].v, c.value.l, sizeof y[i].v);
    }
    qsort(x, n, sizeof *x, centry_cmp);
    qsort(y, n, sizeof *y, centry_cmp);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += centry_cmp(&x[i], &y[i]) != 0;
    CHECK(bad == 0, "%s: %zu zkey coefficients do not match the r1cs A/B terms", f->name, bad);
    free(x);
    free(y);
}

static void check_shapes(const fx *f)
{
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    const cuzk_snarkjs_zkey *z = f->zkey;
    uint64_t rows = (uint64_t)r->n_constraints + z->n_public + 1, d = 1;
    while (d < rows)
        d <<= 1;
    CHECK(z->n_vars == r->n_wires && z->n_public == r->n_pub_out + r->n_pub_in && z->domain_size == d,
          "%s: zkey shape (nVars %u nPublic %u domain %u) vs r1cs (%u wires, %u+%u public, %u constraints)",
          f->name, z->n_vars, z->n_public, z->domain_size, r->n_wires, r->n_pub_out, r->n_pub_in,
          r->n_constraints);
    CHECK(f->wtns->n == r->n_wires, "%s: witness has %u values for %u wires", f->name, f->wtns->n,
          r->n_wires);
    CHECK(z->ic.count == z->n_public + 1 && z->a.count == z->n_vars && z->b1.count == z->n_vars &&
              z->b2.count == z->n_vars && z->c.count == z->n_vars - z->n_public - 1 &&
              z->h.count == z->domain_size,
          "%s: zkey section counts", f->name);
    CHECK(z->a.stride == 96 && z->b2.stride == 192 && z->a.data == z->image + z->a.offset &&
              z->coefs == z->image + z->coefs_offset,
          "%s: zkey point views", f->name);
}

static void check_witness(const fx *f)
{
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    const cuzk_snarkjs_wtns *w = f->wtns;
    CHECK(cuzk_fr_is_one(&w->values[0]), "%s: witness[0] is not 1", f->name);
    int64_t got = cuzk_snarkjs_r1cs_check(r, w->values, w->n);
    CHECK(got == -1, "%s: the snarkjs witness fails constraint %lld", f->name, (long long)got);
    CHECK(lc_first_failure(f->lcs, r->n_constraints, w->values) == -1, "%s: own evaluator rejects witness",
          f->name);
    CHECK(cuzk_snarkjs_r1cs_check(r, w->values, r->n_wires - 1) == CUZK_SNARKJS_WITNESS_SHORT,
          "%s: short witness not reported", f->name);

    cuzk_fr *m = malloc(w->n * sizeof *m);
    int broke = 0;
    for (int trial = 0; trial < 12; trial++) {
        /* Wire 0 (the constant), the last wire and random ones in between. */
        uint32_t j = trial == 0 ? 0 : trial == 1 ? w->n - 1 : (uint32_t)(test_rand64() % w->n);
        memcpy(m, w->values, w->n * sizeof *m);
        cuzk_fr_add(&m[j], &m[j], &CUZK_FR_ONE);
        int64_t want = lc_first_failure(f->lcs, r->n_constraints, m);
        int64_t have = cuzk_snarkjs_r1cs_check(r, m, w->n);
        CHECK(have == want, "%s: witness[%u]+1: check says %lld, independent evaluation %lld", f->name, j,
              (long long)have, (long long)want);
        broke += want >= 0;
    }
    CHECK(broke > 0, "%s: no mutation broke a constraint (the test would be vacuous)", f->name);
    free(m);
}

static void check_json(const fx *f)
{
    size_t len;
    char(*s)[128] = malloc(64 * 128);
    const cuzk_snarkjs_zkey *z = f->zkey;
    char *vk = (char *)test_read_fixture(f->name, "verification_key.json", &len);
    if (vk) {
        CHECK(json_int(vk, "nPublic") == (long)z->n_public, "%s: vk nPublic", f->name);
        CHECK(strstr(vk, "\"groth16\"") && strstr(vk, "\"bls12381\""), "%s: vk protocol/curve", f->name);
        cuzk_g1_affine g1;
        cuzk_g2_affine g2;
        CHECK(json_numbers(vk, "vk_alpha_1", s, 2) == 2 && dec_g1(&g1, (char *[]){s[0], s[1]}) &&
                  cuzk_g1_affine_eq(&g1, &z->alpha1),
              "%s: vk_alpha_1 differs from the zkey", f->name);
        static const char *const g2keys[3] = {"vk_beta_2", "vk_gamma_2", "vk_delta_2"};
        const cuzk_g2_affine *g2z[3] = {&z->beta2, &z->gamma2, &z->delta2};
        for (int i = 0; i < 3; i++)
            CHECK(json_numbers(vk, g2keys[i], s, 4) == 4 && dec_g2(&g2, (char *[]){s[0], s[1], s[2], s[3]}) &&
                      cuzk_g2_affine_eq(&g2, g2z[i]),
                  "%s: %s differs from the zkey", f->name, g2keys[i]);
        size_t nic = z->n_public + 1;
        CHECK(nic <= 21 && json_numbers(vk, "IC", s, 3 * nic) == 3 * nic, "%s: vk IC count", f->name);
        for (size_t i = 0; i < nic && nic <= 21; i++) {
            cuzk_g1_affine got;
            CHECK(dec_g1(&g1, (char *[]){s[3 * i], s[3 * i + 1]}) && !strcmp(s[3 * i + 2], "1") &&
                      cuzk_snarkjs_points_g1(&z->ic, i, 0, &got, NULL, 0) == CUZK_OK &&
                      cuzk_g1_affine_eq(&g1, &got),
                  "%s: vk IC[%zu] differs from zkey section 3", f->name, i);
        }
        free(vk);
    }
    char *pub = (char *)test_read_fixture(f->name, "public.json", &len);
    if (pub) {
        size_t n = json_numbers(pub, NULL, s, 64);
        CHECK(n == z->n_public, "%s: public.json has %zu values, nPublic %u", f->name, n, z->n_public);
        for (size_t i = 0; i < n && i + 1 < f->wtns->n; i++) {
            cuzk_fr e;
            CHECK(dec_fr(&e, s[i]) && cuzk_fr_eq(&e, &f->wtns->values[1 + i]),
                  "%s: public[%zu] != witness[%zu]", f->name, i, i + 1);
        }
        free(pub);
    }
    char *proof = (char *)test_read_fixture(f->name, "proof.json", &len);
    if (proof) {
        cuzk_g1_affine a, c;
        cuzk_g2_affine b;
        bool ok = json_numbers(proof, "pi_a", s, 2) == 2 && dec_g1(&a, (char *[]){s[0], s[1]}) &&
                  json_numbers(proof, "pi_c", s + 2, 2) == 2 && dec_g1(&c, (char *[]){s[2], s[3]}) &&
                  json_numbers(proof, "pi_b", s + 4, 4) == 4 &&
                  dec_g2(&b, (char *[]){s[4], s[5], s[6], s[7]});
        CHECK(ok && cuzk_g1_affine_on_curve(&a) && cuzk_g1_affine_in_group(&a) &&
                  cuzk_g1_affine_on_curve(&c) && cuzk_g2_affine_on_curve(&b) && cuzk_g2_affine_in_group(&b),
              "%s: proof.json points are not valid group elements", f->name);
        free(proof);
    }
    free(s);
}

/* Unused wires by the test's own scan of snarkjs's LC data: a wire is used when some term names it with
 * a non-zero coefficient. Compared with cuzk_snarkjs_r1cs_unused (a bitmap over the library's CSR). */
static void check_unused(const fx *f)
{
    const cuzk_snarkjs_r1cs *r = f->r1cs;
    uint64_t pub = 0, prv = 0, want_pub = 0, want_prv = 0;
    uint32_t first = 0, want_first = 0;
    for (uint32_t wire = 1; wire < r->n_wires; wire++) {
        bool used = false;
        for (size_t i = 0; !used && i < 3 * (size_t)r->n_constraints; i++)
            for (uint32_t k = 0; !used && k < f->lcs[i].n; k++)
                used = f->lcs[i].wire[k] == wire && !cuzk_fr_is_zero(&f->lcs[i].coef[k]);
        if (used)
            continue;
        if (!want_first)
            want_first = wire;
        if (wire <= r->n_pub_out + r->n_pub_in)
            want_pub++;
        else
            want_prv++;
    }
    CHECK(
        cuzk_snarkjs_r1cs_unused(r, &pub, &prv, &first) == CUZK_OK && pub == want_pub && prv == want_prv &&
            first == want_first,
        "%s: unused wires %llu public + %llu private (first %u), snarkjs's constraints say %llu + %llu (%u)",
        f->name, (unsigned long long)pub, (unsigned long long)prv, first, (unsigned long long)want_pub,
        (unsigned long long)want_prv, want_first);
}

static void test_fixture(const char *name, bool group_check)
{
    fx f = {.name = name};
    char path[512], err[256];
    int rc;
    snprintf(path, sizeof path, "%s/%s/circuit.r1cs", FIXTURES, name);
    rc = cuzk_snarkjs_r1cs_open(path, &f.r1cs, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: r1cs open: %s", name, err);
    snprintf(path, sizeof path, "%s/%s/witness.wtns", FIXTURES, name);
    rc = cuzk_snarkjs_wtns_open(path, &f.wtns, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: wtns open: %s", name, err);
    snprintf(path, sizeof path, "%s/%s/circuit.zkey", FIXTURES, name);
    rc = cuzk_snarkjs_zkey_open(path, &f.zkey, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: zkey open: %s", name, err);
    if (f.r1cs && f.wtns && f.zkey) {
        check_expected(&f);
        check_shapes(&f);
        check_coefs_vs_r1cs(&f);
        if (f.lcs && f.wtns->n == f.r1cs->n_wires)
            check_witness(&f);
        if (f.lcs)
            check_unused(&f);
        check_json(&f);
        rc = cuzk_snarkjs_zkey_check_points(f.zkey, group_check ? CUZK_DECODE_CHECK_GROUP : 0, err,
                                            sizeof err);
        CHECK(rc == CUZK_OK, "%s: zkey points: %s", name, err);
        cuzk_snarkjs_coef c;
        CHECK(cuzk_snarkjs_zkey_coef(f.zkey, f.zkey->n_coefs, &c) == CUZK_ERANGE, "%s: coef past the end",
              name);
        cuzk_g1_affine p1;
        CHECK(cuzk_snarkjs_points_g1(&f.zkey->h, f.zkey->h.count, 0, &p1, err, sizeof err) == CUZK_ERANGE &&
                  cuzk_snarkjs_points_g1(&f.zkey->b2, 0, 0, &p1, err, sizeof err) == CUZK_EINVAL,
              "%s: point accessor range/kind checks", name);
    }
    if (f.lcs) {
        for (size_t i = 0; f.r1cs && i < 3 * (size_t)f.r1cs->n_constraints; i++) {
            free(f.lcs[i].wire);
            free(f.lcs[i].coef);
        }
        free(f.lcs);
    }
    printf("  %s: %u constraints, %u wires, %u coefficients, domain %u\n", name,
           f.r1cs ? f.r1cs->n_constraints : 0, f.r1cs ? f.r1cs->n_wires : 0, f.zkey ? f.zkey->n_coefs : 0,
           f.zkey ? f.zkey->domain_size : 0);
    cuzk_snarkjs_r1cs_free(f.r1cs);
    cuzk_snarkjs_wtns_free(f.wtns);
    cuzk_snarkjs_zkey_free(f.zkey);
}

/* ---- hostile input ------------------------------------------------------------ */

enum { K_R1CS, K_WTNS, K_ZKEY };
static const char *const KIND[3] = {"r1cs", "wtns", "zkey"};
static const char *const FILE_OF[3] = {"circuit.r1cs", "witness.wtns", "circuit.zkey"};

/* Opens an exact-size heap copy of d with the reader for kind (and, for a
 * zkey that opens, decodes every point and coefficient). Returns the status;
 * err receives the message. */
static int try_open(int kind, const uint8_t *d, size_t n, char *err, size_t errlen)
{
    uint8_t *c = dup_bytes(d, n);
    int rc;
    err[0] = 0;
    if (kind == K_R1CS) {
        cuzk_snarkjs_r1cs *r;
        rc = cuzk_snarkjs_r1cs_from_buffer(c, n, &r, err, errlen);
        CHECK((rc == CUZK_OK) == (r != NULL), "r1cs: object/status mismatch");
        cuzk_snarkjs_r1cs_free(r);
    } else if (kind == K_WTNS) {
        cuzk_snarkjs_wtns *w;
        rc = cuzk_snarkjs_wtns_from_buffer(c, n, &w, err, errlen);
        CHECK((rc == CUZK_OK) == (w != NULL), "wtns: object/status mismatch");
        cuzk_snarkjs_wtns_free(w);
    } else {
        cuzk_snarkjs_zkey *z;
        rc = cuzk_snarkjs_zkey_from_buffer(c, n, &z, err, errlen);
        CHECK((rc == CUZK_OK) == (z != NULL), "zkey: object/status mismatch");
        if (z) {
            char e2[256];
            cuzk_snarkjs_zkey_check_points(z, 0, e2, sizeof e2);
            cuzk_snarkjs_coef co;
            for (size_t k = 0; k < z->n_coefs; k++)
                cuzk_snarkjs_zkey_coef(z, k, &co);
        }
        cuzk_snarkjs_zkey_free(z);
    }
    CHECK(rc <= 0, "%s: positive status %d", KIND[kind], rc);
    CHECK(rc == CUZK_OK || strlen(err) > 0, "%s: failure %d without a message", KIND[kind], rc);
    free(c);
    return rc;
}

/* The section table of a well-formed fixture (the test trusts its own files). */
typedef struct {
    uint32_t id;
    size_t hdr; /* offset of the entry header */
    size_t off; /* offset of the content */
    uint64_t size;
} tsec;

static size_t sections_of(const uint8_t *d, size_t len, tsec *s, size_t max)
{
    size_t n = d[8] | d[9] << 8 | d[10] << 16 | (size_t)d[11] << 24, pos = 12;
    for (size_t i = 0; i < n && i < max && pos + 12 <= len; i++) {
        s[i].hdr = pos;
        memcpy(&s[i].id, d + pos, 4);
        memcpy(&s[i].size, d + pos + 4, 8);
        s[i].off = pos + 12;
        pos += 12 + s[i].size;
    }
    return n;
}

static const tsec *find_sec(const tsec *s, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (s[i].id == id)
            return &s[i];
    return NULL;
}

/* Rebuilds a container from the original's sections in the order given by
 * idx[0..n) (indices into s; an index may repeat), with section `cut_id`
 * shortened by `cut` bytes. */
static uint8_t *rebuild(const uint8_t *d, const tsec *s, const size_t *idx, size_t n, uint32_t cut_id,
                        size_t cut, size_t *outlen)
{
    size_t len = 12;
    for (size_t i = 0; i < n; i++)
        len += 12 + s[idx[i]].size - (s[idx[i]].id == cut_id ? cut : 0);
    uint8_t *o = malloc(len), *p = o + 12;
    memcpy(o, d, 8);
    uint32_t n32 = (uint32_t)n;
    memcpy(o + 8, &n32, 4);
    for (size_t i = 0; i < n; i++) {
        const tsec *t = &s[idx[i]];
        uint64_t size = t->size - (t->id == cut_id ? cut : 0);
        memcpy(p, &t->id, 4);
        memcpy(p + 4, &size, 8);
        memcpy(p + 12, d + t->off, size);
        p += 12 + size;
    }
    *outlen = len;
    return o;
}

static void test_truncations(int kind, const uint8_t *d, size_t len, bool every7, int nrandom)
{
    char err[256];
    int bad = 0, tried = 0;
    for (size_t cut = 0; every7 && cut < len; cut += 7, tried++)
        bad += try_open(kind, d, cut, err, sizeof err) == CUZK_OK;
    if (every7) {
        tried++;
        bad += try_open(kind, d, len - 1, err, sizeof err) == CUZK_OK;
    }
    for (int i = 0; i < nrandom; i++, tried++)
        bad += try_open(kind, d, (size_t)(test_rand64() % len), err, sizeof err) == CUZK_OK;
    CHECK(bad == 0, "%s: %d of %d truncated files were accepted", KIND[kind], bad, tried);
}

/* Flips random bits inside [lo, hi); when must_fail, each flip must be rejected. */
static void flip_span(int kind, const uint8_t *d, size_t len, size_t lo, size_t hi, bool must_fail, int count,
                      const char *what)
{
    char err[256];
    uint8_t *m = dup_bytes(d, len);
    for (int i = 0; i < count && hi > lo; i++) {
        size_t at = lo + (size_t)(test_rand64() % (hi - lo));
        uint8_t bit = (uint8_t)(1u << (test_rand64() % 8));
        m[at] ^= bit;
        int rc = try_open(kind, m, len, err, sizeof err);
        m[at] ^= bit;
        if (must_fail)
            CHECK(rc != CUZK_OK, "%s: bit flip at byte %zu (%s) was accepted", KIND[kind], at, what);
    }
    free(m);
}

static void test_bit_flips(int kind, const uint8_t *d, size_t len)
{
    tsec s[16];
    size_t n = sections_of(d, len, s, 16);
    flip_span(kind, d, len, 0, 12, true, 60, "magic/version/nSections");
    for (size_t i = 0; i < n; i++) {
        /* An optional section may be renamed to an unknown id and still be fine. */
        bool optional = (kind == K_R1CS && s[i].id == 3) || (kind == K_ZKEY && s[i].id == 10);
        flip_span(kind, d, len, s[i].hdr, s[i].hdr + 4, !optional, 16, "section id");
        flip_span(kind, d, len, s[i].hdr + 4, s[i].hdr + 12, true, 24, "section size");
    }
    const tsec *h1 = find_sec(s, n, 1), *h2 = find_sec(s, n, 2);
    if (kind == K_R1CS && h1) {
        flip_span(kind, d, len, h1->off, h1->off + 40, true, 60, "n8/prime/nWires");
        flip_span(kind, d, len, h1->off + 60, h1->off + 64, true, 20, "nConstraints");
        flip_span(kind, d, len, h1->off + 40, h1->off + 60, false, 40, "io counts/nLabels");
    } else if (kind == K_WTNS && h1) {
        flip_span(kind, d, len, h1->off, h1->off + h1->size, true, 80, "wtns header");
    } else if (kind == K_ZKEY && h1 && h2) {
        flip_span(kind, d, len, h1->off, h1->off + h1->size, true, 20, "protocol");
        flip_span(kind, d, len, h2->off, h2->off + h2->size, true, 150, "Groth16 header");
    }
    /* Anywhere: only "no crash, no leak, status and message consistent". */
    flip_span(kind, d, len, 0, len, false, 150, "anywhere");
}

static bool msg_has(const char *err, const char *needle)
{
    if (strstr(err, needle))
        return true;
    printf("    message \"%s\" lacks \"%s\"\n", err, needle);
    return false;
}

static void test_targeted(int kind, const uint8_t *d, size_t len)
{
    char err[256];
    const char *k = KIND[kind];
    tsec s[16];
    size_t n = sections_of(d, len, s, 16);
    uint8_t *m = dup_bytes(d, len);
    int rc;

    /* Wrong magic: another kind's. */
    memcpy(m, KIND[(kind + 1) % 3], 4);
    rc = try_open(kind, m, len, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "bad magic"), "%s: wrong magic: %d %s", k, rc, err);
    memcpy(m, d, len);

    /* Unsupported version. */
    m[4] = 9;
    rc = try_open(kind, m, len, err, sizeof err);
    CHECK(rc == CUZK_ERANGE && msg_has(err, "version 9"), "%s: version 9: %d %s", k, rc, err);
    memcpy(m, d, len);

    /* Wrong prime: BN254's r in the r1cs/wtns header, a changed q in the zkey. */
    const tsec *h = find_sec(s, n, kind == K_ZKEY ? 2 : 1);
    static const uint8_t bn254_r[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
                                        0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                        0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
    if (h && kind != K_ZKEY) {
        memcpy(m + h->off + 4, bn254_r, 32);
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ERANGE && msg_has(err, "BN254"), "%s: BN254 prime: %d %s", k, rc, err);
        memcpy(m, d, len);
        m[h->off] = 48; /* n8 */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ERANGE && msg_has(err, "expected 32"), "%s: n8 48: %d %s", k, rc, err);
        memcpy(m, d, len);
    } else if (h) {
        m[h->off + 4] ^= 2;
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ERANGE && msg_has(err, "not BLS12-381's p"), "zkey: wrong q: %d %s", rc, err);
        memcpy(m, d, len);
        m[h->off + 4 + 48 + 4] ^= 2;
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ERANGE && msg_has(err, "not BLS12-381's r"), "zkey: wrong r: %d %s", rc, err);
        memcpy(m, d, len);
    }

    /* Section sizes pointing past the end. */
    static const uint64_t huge[] = {UINT64_MAX, 1ull << 63, 1ull << 32};
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 4; j++) {
            uint64_t v = j < 3 ? huge[j] : (uint64_t)len;
            memcpy(m + s[i].hdr + 4, &v, 8);
            rc = try_open(kind, m, len, err, sizeof err);
            CHECK(rc == CUZK_EINVAL && msg_has(err, "remain in the file"), "%s: section %u size %llu: %d %s",
                  k, s[i].id, (unsigned long long)v, rc, err);
            memcpy(m, d, len);
        }

    /* One trailing byte. */
    uint8_t *t = malloc(len + 1);
    memcpy(t, d, len);
    t[len] = 0;
    rc = try_open(kind, t, len + 1, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "after the last"), "%s: trailing byte: %d %s", k, rc, err);
    free(t);

    /* Reordered (reversed) sections must read the same. */
    size_t idx[17], rl;
    for (size_t i = 0; i < n; i++)
        idx[i] = n - 1 - i;
    uint8_t *rev = rebuild(d, s, idx, n, 0, 0, &rl);
    CHECK(try_open(kind, rev, rl, err, sizeof err) == CUZK_OK, "%s: reversed sections rejected: %s", k, err);
    if (kind == K_R1CS) {
        cuzk_snarkjs_r1cs *a, *b;
        if (cuzk_snarkjs_r1cs_from_buffer(d, len, &a, NULL, 0) == CUZK_OK &&
            cuzk_snarkjs_r1cs_from_buffer(rev, rl, &b, NULL, 0) == CUZK_OK) {
            CHECK(a->a.nnz == b->a.nnz && !memcmp(a->a.val, b->a.val, a->a.nnz * sizeof(cuzk_fr)) &&
                      !memcmp(a->c.col, b->c.col, a->c.nnz * 4) && a->n_wires == b->n_wires,
                  "r1cs: reversed sections read differently");
            cuzk_snarkjs_r1cs_free(a);
            cuzk_snarkjs_r1cs_free(b);
        }
    } else if (kind == K_ZKEY) {
        cuzk_snarkjs_zkey *a, *b;
        if (cuzk_snarkjs_zkey_from_buffer(d, len, &a, NULL, 0) == CUZK_OK &&
            cuzk_snarkjs_zkey_from_buffer(rev, rl, &b, NULL, 0) == CUZK_OK) {
            CHECK(cuzk_g2_affine_eq(&a->delta2, &b->delta2) && a->n_coefs == b->n_coefs &&
                      !memcmp(a->h.data, b->h.data, a->h.count * 96) &&
                      !memcmp(a->b2.data, b->b2.data, a->b2.count * 192) &&
                      !memcmp(a->coefs, b->coefs, (size_t)a->n_coefs * CUZK_ZKEY_COEF_SIZE) &&
                      a->h.offset != b->h.offset,
                  "zkey: reversed sections read differently");
            cuzk_snarkjs_zkey_free(a);
            cuzk_snarkjs_zkey_free(b);
        }
    }
    free(rev);

    /* A duplicated section. */
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    idx[n] = 0;
    uint8_t *dup = rebuild(d, s, idx, n + 1, 0, 0, &rl);
    rc = try_open(kind, dup, rl, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "appears twice"), "%s: duplicate section: %d %s", k, rc, err);
    free(dup);

    /* A missing required section (the last required one of each kind). */
    uint32_t gone = kind == K_R1CS ? 2 : kind == K_WTNS ? 2 : 9;
    size_t m2 = 0;
    for (size_t i = 0; i < n; i++)
        if (s[i].id != gone)
            idx[m2++] = i;
    uint8_t *miss = rebuild(d, s, idx, m2, 0, 0, &rl);
    char want[160];
    snprintf(want, sizeof want, "section %u (", gone);
    rc = try_open(kind, miss, rl, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, want) && msg_has(err, "missing"), "%s: missing section: %d %s", k,
          rc, err);
    free(miss);

    /* A section shorter by one element: the message names the arithmetic. */
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    uint32_t cut_id = kind == K_ZKEY ? 5 : 2;
    size_t cut = kind == K_ZKEY ? 96 : kind == K_WTNS ? 32 : 1;
    uint8_t *sh = rebuild(d, s, idx, n, cut_id, cut, &rl);
    rc = try_open(kind, sh, rl, err, sizeof err);
    if (kind == K_ZKEY) {
        const tsec *a = find_sec(s, n, 5);
        uint64_t nv = a->size / 96;
        snprintf(want, sizeof want, "zkey: section 5 (A points) has %llu bytes, expected 96*%llu=%llu",
                 (unsigned long long)(a->size - 96), (unsigned long long)nv, (unsigned long long)a->size);
        CHECK(rc == CUZK_EINVAL && !strcmp(err, want), "zkey: short A section: got \"%s\", want \"%s\"", err,
              want);
    } else {
        CHECK(rc == CUZK_EINVAL, "%s: short section 2: %d %s", k, rc, err);
    }
    free(sh);

    /* Kind-specific value checks. */
    if (kind == K_ZKEY) {
        const tsec *p1 = find_sec(s, n, 1), *c4 = find_sec(s, n, 4);
        m[p1->off] = 2;
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ERANGE && msg_has(err, "PLONK") && msg_has(err, "Groth16"), "zkey: plonk: %d %s", rc,
              err);
        memcpy(m, d, len);
        uint8_t *e0 = m + c4->off + 4;
        e0[8] = 0xff, e0[9] = 0xff; /* signal of entry 0 */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "coefficient 0: signal"), "zkey: bad signal: %d %s", rc, err);
        memcpy(m, d, len);
        e0[0] = 2; /* matrix C is never stored */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "matrix 2"), "zkey: bad matrix: %d %s", rc, err);
        memcpy(m, d, len);
        memset(e0 + 12, 0xff, 32);
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ENONCANONICAL && msg_has(err, "not below r"), "zkey: coef >= r: %d %s", rc, err);
        memcpy(m, d, len);
        const tsec *hs = find_sec(s, n, 2);
        m[hs->off + 100] ^= 1; /* alpha1.x */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc < 0 && msg_has(err, "alpha1"), "zkey: bad alpha1: %d %s", rc, err);
        memcpy(m, d, len);
        memset(m + hs->off + 100, 0, 96); /* alpha1 = identity */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "alpha1"), "zkey: identity alpha1: %d %s", rc, err);
        memcpy(m, d, len);
        /* A point section byte flipped: open succeeds, the point check reports it. */
        const tsec *hp = find_sec(s, n, 9);
        m[hp->off + 96 * 3 + 10] ^= 0x10;
        cuzk_snarkjs_zkey *z;
        rc = cuzk_snarkjs_zkey_from_buffer(m, len, &z, err, sizeof err);
        CHECK(rc == CUZK_OK, "zkey: open with a bad H point: %s", err);
        if (z) {
            rc = cuzk_snarkjs_zkey_check_points(z, 0, err, sizeof err);
            CHECK(rc < 0 && msg_has(err, "section 9 (H points) point 3"), "zkey: bad H point: %d %s", rc,
                  err);
            cuzk_snarkjs_zkey_free(z);
        }
        memcpy(m, d, len);
    } else if (kind == K_R1CS) {
        const tsec *c2 = find_sec(s, n, 2);
        /* Constraint 0's A: u32 nTerms, then u32 wire, coefficient. */
        uint8_t *t0 = m + c2->off + 4;
        memset(t0, 0xff, 4);
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "wire 4294967295 out of range"), "r1cs: bad wire: %d %s", rc,
              err);
        memcpy(m, d, len);
        memset(t0 + 4, 0xff, 32);
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ENONCANONICAL && msg_has(err, "not below r"), "r1cs: coef >= r: %d %s", rc, err);
        memcpy(m, d, len);
        memset(m + c2->off, 0xff, 4); /* nTerms of constraint 0's A */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "4294967295 terms"), "r1cs: huge nTerms: %d %s", rc, err);
        memcpy(m, d, len);
        const tsec *h1 = find_sec(s, n, 1);
        memset(m + h1->off + 60, 0xff, 4); /* nConstraints */
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "4294967295 constraints"), "r1cs: huge nConstraints: %d %s",
              rc, err);
        memcpy(m, d, len);
        /* Custom gates (sections 4/5) are PLONK-only. */
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
        uint8_t *cg = rebuild(d, s, idx, n, 0, 0, &rl);
        memcpy(cg + s[n - 1].hdr, &(uint32_t){4}, 4);
        rc = try_open(kind, cg, rl, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && msg_has(err, "custom gates"), "r1cs: custom gates: %d %s", rc, err);
        free(cg);
    } else {
        const tsec *v2 = find_sec(s, n, 2);
        memset(m + v2->off + 32 * 2, 0xff, 32);
        rc = try_open(kind, m, len, err, sizeof err);
        CHECK(rc == CUZK_ENONCANONICAL && msg_has(err, "value 2 is not below r"), "wtns: value >= r: %d %s",
              rc, err);
        memcpy(m, d, len);
    }
    free(m);
}

static void test_paths(void)
{
    char err[256];
    cuzk_snarkjs_r1cs *r = (void *)1;
    cuzk_snarkjs_wtns *w = (void *)1;
    cuzk_snarkjs_zkey *z = (void *)1;
    int rc = cuzk_snarkjs_r1cs_open(FIXTURES "/no-such-file.r1cs", &r, err, sizeof err);
    CHECK(rc == CUZK_EIO && r == NULL && msg_has(err, "no-such-file.r1cs"), "missing r1cs: %d %s", rc, err);
    rc = cuzk_snarkjs_wtns_open(FIXTURES "/no-such-file.wtns", &w, err, sizeof err);
    CHECK(rc == CUZK_EIO && w == NULL, "missing wtns: %d %s", rc, err);
    rc = cuzk_snarkjs_zkey_open(FIXTURES, &z, err, sizeof err);
    CHECK(rc == CUZK_EIO && z == NULL && msg_has(err, "not a regular file"), "directory as zkey: %d %s", rc,
          err);
    rc = cuzk_snarkjs_zkey_open(FIXTURES "/bits/circuit.r1cs", &z, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && msg_has(err, "bad magic \"r1cs\""), "r1cs opened as zkey: %d %s", rc, err);
    rc = cuzk_snarkjs_r1cs_open(FIXTURES "/bits/input.json", &r, err, sizeof err);
    CHECK(rc == CUZK_EINVAL, "json opened as r1cs: %d %s", rc, err);
    cuzk_snarkjs_r1cs_free(NULL);
    cuzk_snarkjs_wtns_free(NULL);
    cuzk_snarkjs_zkey_free(NULL);
}

/* ---- unused wires on random constraint systems ---------------------------------- */

static void put32(uint8_t **p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        *(*p)++ = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t **p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p, (uint32_t)(v >> 32));
}

/* Random .r1cs files (no label section) of up to 200 wires and 40 constraints of 0-3 terms, an eighth of
 * the coefficients zero, built here byte by byte; the expected unused wires come from the list of terms
 * written, wire by wire. Across the rounds both kinds occur: wires never named, and wires named only
 * with a zero coefficient. */
static void test_unused_random(int rounds)
{
    enum { MAXT = 40 * 3 * 3 };
    for (int round = 0; round < rounds; round++) {
        uint32_t n_wires = 2 + (uint32_t)(test_rand64() % 199);
        uint32_t n_out = (uint32_t)(test_rand64() % 3) % n_wires, rest = n_wires - 1 - n_out;
        uint32_t n_in = rest ? (uint32_t)(test_rand64() % (rest < 4 ? rest + 1 : 4)) : 0;
        uint32_t n_prv = rest - n_in ? (uint32_t)(test_rand64() % (rest - n_in + 1)) : 0;
        uint32_t n_cons = (uint32_t)(test_rand64() % 41);
        uint32_t tw[MAXT], nt[40 * 3];
        uint64_t tc[MAXT];
        size_t nterms = 0;
        for (uint32_t i = 0; i < 3 * n_cons; i++) {
            nt[i] = (uint32_t)(test_rand64() % 4);
            for (uint32_t k = 0; k < nt[i]; k++, nterms++) {
                tw[nterms] = (uint32_t)(test_rand64() % n_wires);
                tc[nterms] = test_rand64() % 8 ? 1 + test_rand64() % 1000 : 0;
            }
        }
        size_t s2 = 12 * (size_t)n_cons + 36 * nterms, len = 12 + 12 + 64 + 12 + s2;
        uint8_t *buf = calloc(1, len), *p = buf;
        memcpy(p, "r1cs", 4);
        p += 4;
        put32(&p, 1);
        put32(&p, 2);
        put32(&p, 1);
        put64(&p, 64);
        put32(&p, 32);
        for (int i = 0; i < 4; i++)
            put64(&p, CUZK_R[i]);
        put32(&p, n_wires);
        put32(&p, n_out);
        put32(&p, n_in);
        put32(&p, n_prv);
        put64(&p, n_wires);
        put32(&p, n_cons);
        put32(&p, 2);
        put64(&p, s2);
        size_t t = 0;
        for (uint32_t i = 0; i < 3 * n_cons; i++) {
            put32(&p, nt[i]);
            for (uint32_t k = 0; k < nt[i]; k++, t++) {
                put32(&p, tw[t]);
                put64(&p, tc[t]);
                p += 24;
            }
        }
        CHECK((size_t)(p - buf) == len, "unused round %d: built %zu of %zu bytes", round, (size_t)(p - buf),
              len);

        uint64_t want_pub = 0, want_prv = 0;
        uint32_t want_first = 0;
        for (uint32_t wire = 1; wire < n_wires; wire++) {
            bool used = false;
            for (size_t k = 0; k < nterms && !used; k++)
                used = tw[k] == wire && tc[k] != 0;
            if (used)
                continue;
            if (!want_first)
                want_first = wire;
            if (wire <= n_out + n_in)
                want_pub++;
            else
                want_prv++;
        }
        cuzk_snarkjs_r1cs *r = NULL;
        char err[256] = "";
        int rc = cuzk_snarkjs_r1cs_from_buffer(buf, len, &r, err, sizeof err);
        CHECK(rc == CUZK_OK, "unused round %d: r1cs rejected: %s", round, err);
        if (rc == CUZK_OK) {
            uint64_t pub = 0, prv = 0;
            uint32_t first = 0;
            CHECK(cuzk_snarkjs_r1cs_unused(r, &pub, &prv, &first) == CUZK_OK && pub == want_pub &&
                      prv == want_prv && first == want_first,
                  "unused round %d (%u wires, %u constraints): %llu + %llu first %u, expected %llu + %llu "
                  "first %u",
                  round, n_wires, n_cons, (unsigned long long)pub, (unsigned long long)prv, first,
                  (unsigned long long)want_pub, (unsigned long long)want_prv, want_first);
        }
        cuzk_snarkjs_r1cs_free(r);
        free(buf);
    }
}

int main(void)
{
    test_rng_init("test_snarkjs_files");
    for (size_t i = 0; i < NCIRCUITS; i++)
        test_fixture(CIRCUITS[i], i == 0);
    test_paths();
    test_unused_random(300);
    for (size_t c = 0; c < NCIRCUITS; c++) {
        for (int kind = 0; kind < 3; kind++) {
            size_t len;
            uint8_t *d = test_read_fixture(CIRCUITS[c], FILE_OF[kind], &len);
            if (!d)
                continue;
            bool smallest = c == 0;
            test_truncations(kind, d, len, smallest, smallest ? 50 : 25);
            if (smallest) {
                test_bit_flips(kind, d, len);
                test_targeted(kind, d, len);
            }
            free(d);
        }
    }
    return test_finish("test_snarkjs_files");
}
