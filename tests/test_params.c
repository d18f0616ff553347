/*
 * test_params.c — bellperson .params / .vk files (cuzk/params.h).
 *
 * Every run builds fresh keys from random multiples of the generators, writes
 * them, and checks the bytes against the layout table of prover-internals.md
 * §2.2 (length words where the table puts them, each point equal to its
 * serialize() encoding, the size formula) and against the document's worked
 * example (2136 bytes for ic 2, h 3, l 2, a 3, b 1). Reads must give back
 * equal keys under every flag combination and thread count.
 *
 * Hostile files are made by editing the bytes of a good one: truncation at
 * every offset, a flipped coordinate bit (the message must name the point), the
 * identity and an all-zero encoding in place of a point, on-curve points
 * outside the subgroup from the @noble/curves vectors (accepted unless
 * CHECK_GROUP), oversized and inconsistent length words (exact message),
 * trailing bytes. Every failed read must leave *out zeroed; ASan catches any
 * leak or overread. Writers: refusal of identity points, a missing directory,
 * a rename onto a directory, and no temporary file left behind in any case.
 * All files live in a mkdtemp directory that is removed at the end.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/curve.h"
#include "cuzk/params.h"
#include "cuzk/pool.h"
#include "cuzk/serialize.h"
#include "testutil.h"

static char dir[64];
static char err[512];

/* ---- files ---------------------------------------------------------------- */

static void path_in(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void spit(const char *path, const uint8_t *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        CHECK(0, "cannot create %s", path);
        return;
    }
    CHECK(fwrite(buf, 1, len, f) == len, "short write to %s", path);
    fclose(f);
}

/* Number of directory entries whose name contains needle (NULL: all). */
static bool file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* ---- random keys ---------------------------------------------------------- */

/* n G1 points start + i*step with random start and step (fresh each run). */
static void rand_g1s(cuzk_g1_affine *out, size_t n)
{
    cuzk_g1 g, p, step;
    cuzk_fr k;
    cuzk_g1_from_affine(&g, &CUZK_G1_GENERATOR);
    test_rand_fr(&k);
    cuzk_g1_mul_fr(&p, &g, &k);
    test_rand_fr(&k);
    cuzk_g1_mul_fr(&step, &g, &k);
    cuzk_g1 *jac = malloc(n * sizeof *jac);
    cuzk_fp *scratch = malloc(n * sizeof *scratch);
    for (size_t i = 0; i < n; i++) {
        jac[i] = p;
        cuzk_g1_add(&p, &p, &step);
    }
    cuzk_g1_batch_to_affine(out, jac, n, scratch);
    free(jac);
    free(scratch);
}

static void rand_g2s(cuzk_g2_affine *out, size_t n)
{
    cuzk_g2 g, p, step;
    cuzk_fr k;
    cuzk_g2_from_affine(&g, &CUZK_G2_GENERATOR);
    test_rand_fr(&k);
    cuzk_g2_mul_fr(&p, &g, &k);
    test_rand_fr(&k);
    cuzk_g2_mul_fr(&step, &g, &k);
    cuzk_g2 *jac = malloc(n * sizeof *jac);
    cuzk_fp2 *scratch = malloc(n * sizeof *scratch);
    for (size_t i = 0; i < n; i++) {
        jac[i] = p;
        cuzk_g2_add(&p, &p, &step);
    }
    cuzk_g2_batch_to_affine(out, jac, n, scratch);
    free(jac);
    free(scratch);
}

static void rand_g1(cuzk_g1_affine *out)
{
    rand_g1s(out, 1);
}

static void rand_g2(cuzk_g2_affine *out)
{
    rand_g2s(out, 1);
}

static void make_vk(cuzk_groth16_vk *vk, size_t nic)
{
    memset(vk, 0, sizeof *vk);
    rand_g1(&vk->alpha_g1);
    rand_g1(&vk->beta_g1);
    rand_g2(&vk->beta_g2);
    rand_g2(&vk->gamma_g2);
    rand_g1(&vk->delta_g1);
    rand_g2(&vk->delta_g2);
    vk->n_ic = nic;
    vk->ic = malloc(nic * sizeof *vk->ic);
    rand_g1s(vk->ic, nic);
}

static void make_params(cuzk_groth16_params *p, size_t nic, size_t nh, size_t nl, size_t na, size_t nb)
{
    memset(p, 0, sizeof *p);
    make_vk(&p->vk, nic);
    p->n_h = nh, p->n_l = nl, p->n_a = na, p->n_b = nb;
    p->h = nh ? malloc(nh * sizeof *p->h) : NULL;
    p->l = nl ? malloc(nl * sizeof *p->l) : NULL;
    p->a = na ? malloc(na * sizeof *p->a) : NULL;
    p->b_g1 = nb ? malloc(nb * sizeof *p->b_g1) : NULL;
    p->b_g2 = nb ? malloc(nb * sizeof *p->b_g2) : NULL;
    if (nh)
        rand_g1s(p->h, nh);
    if (nl)
        rand_g1s(p->l, nl);
    if (na)
        rand_g1s(p->a, na);
    if (nb) {
        rand_g1s(p->b_g1, nb);
        rand_g2s(p->b_g2, nb);
    }
}

static bool g1s_eq(const cuzk_g1_affine *a, const cuzk_g1_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_g1_affine_eq(&a[i], &b[i]))
            return false;
    return true;
}

static bool g2s_eq(const cuzk_g2_affine *a, const cuzk_g2_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!cuzk_g2_affine_eq(&a[i], &b[i]))
            return false;
    return true;
}

static bool vk_eq(const cuzk_groth16_vk *a, const cuzk_groth16_vk *b)
{
    return g1s_eq(&a->alpha_g1, &b->alpha_g1, 1) && g1s_eq(&a->beta_g1, &b->beta_g1, 1) &&
           g1s_eq(&a->delta_g1, &b->delta_g1, 1) && g2s_eq(&a->beta_g2, &b->beta_g2, 1) &&
           g2s_eq(&a->gamma_g2, &b->gamma_g2, 1) && g2s_eq(&a->delta_g2, &b->delta_g2, 1) &&
           a->n_ic == b->n_ic && g1s_eq(a->ic, b->ic, a->n_ic);
}

static bool params_eq(const cuzk_groth16_params *a, const cuzk_groth16_params *b)
{
    return vk_eq(&a->vk, &b->vk) && a->n_h == b->n_h && a->n_l == b->n_l && a->n_a == b->n_a &&
           a->n_b == b->n_b && g1s_eq(a->h, b->h, a->n_h) && g1s_eq(a->l, b->l, a->n_l) &&
           g1s_eq(a->a, b->a, a->n_a) && g1s_eq(a->b_g1, b->b_g1, a->n_b) && g2s_eq(a->b_g2, b->b_g2, a->n_b);
}

static bool params_empty(const cuzk_groth16_params *p)
{
    static const cuzk_groth16_params zero;
    return memcmp(p, &zero, sizeof zero) == 0;
}

static bool vk_empty(const cuzk_groth16_vk *v)
{
    static const cuzk_groth16_vk zero;
    return memcmp(v, &zero, sizeof zero) == 0;
}

/* §2.2: 864 + 4·6 + 96·(ic+H+L+Na+Nb) + 192·Nb. */
static size_t formula_size(const cuzk_groth16_params *p)
{
    return 864 + 4 * 6 + 96 * (p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b) + 192 * p->n_b;
}

/* Offsets computed straight from the §2.2 table. */
typedef struct {
    size_t ic, h, l, a, b_g1, b_g2; /* of the length word */
} offsets;

static offsets table_offsets(const cuzk_groth16_params *p)
{
    offsets o;
    o.ic = 864;
    o.h = o.ic + 4 + 96 * p->vk.n_ic;
    o.l = o.h + 4 + 96 * p->n_h;
    o.a = o.l + 4 + 96 * p->n_l;
    o.b_g1 = o.a + 4 + 96 * p->n_a;
    o.b_g2 = o.b_g1 + 4 + 96 * p->n_b;
    return o;
}

static uint32_t get_be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void set_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
}

static bool g1_at(const uint8_t *file, size_t off, const cuzk_g1_affine *pt)
{
    uint8_t e[96];
    cuzk_g1_serialize(e, pt);
    return memcmp(file + off, e, 96) == 0;
}

static bool g2_at(const uint8_t *file, size_t off, const cuzk_g2_affine *pt)
{
    uint8_t e[192];
    cuzk_g2_serialize(e, pt);
    return memcmp(file + off, e, 192) == 0;
}

/* Checks the written bytes of p against the §2.2 table. */
static void check_layout(const uint8_t *f, size_t len, const cuzk_groth16_params *p)
{
    offsets o = table_offsets(p);
    CHECK(len == formula_size(p), "file is %zu bytes, formula says %zu", len, formula_size(p));
    if (len != formula_size(p))
        return;
    CHECK(g1_at(f, 0, &p->vk.alpha_g1) && g1_at(f, 96, &p->vk.beta_g1) && g2_at(f, 192, &p->vk.beta_g2) &&
              g2_at(f, 384, &p->vk.gamma_g2) && g1_at(f, 576, &p->vk.delta_g1) &&
              g2_at(f, 672, &p->vk.delta_g2),
          "vk points not at their table offsets");
    CHECK(get_be32(f + o.ic) == p->vk.n_ic && get_be32(f + o.h) == p->n_h && get_be32(f + o.l) == p->n_l &&
              get_be32(f + o.a) == p->n_a && get_be32(f + o.b_g1) == p->n_b && get_be32(f + o.b_g2) == p->n_b,
          "length words wrong");
    bool ok = true;
    for (size_t i = 0; i < p->vk.n_ic; i++)
        ok = ok && g1_at(f, o.ic + 4 + 96 * i, &p->vk.ic[i]);
    for (size_t i = 0; i < p->n_h; i++)
        ok = ok && g1_at(f, o.h + 4 + 96 * i, &p->h[i]);
    for (size_t i = 0; i < p->n_l; i++)
        ok = ok && g1_at(f, o.l + 4 + 96 * i, &p->l[i]);
    for (size_t i = 0; i < p->n_a; i++)
        ok = ok && g1_at(f, o.a + 4 + 96 * i, &p->a[i]);
    for (size_t i = 0; i < p->n_b; i++)
        ok = ok && g1_at(f, o.b_g1 + 4 + 96 * i, &p->b_g1[i]) && g2_at(f, o.b_g2 + 4 + 192 * i, &p->b_g2[i]);
    CHECK(ok, "vector points not at their table offsets");
}

/* ---- tests ---------------------------------------------------------------- */

static void test_roundtrip(cuzk_pool *pool)
{
    cuzk_groth16_params p, q;
    make_params(&p, 3, 7, 5, 4, 3);
    char path[256];
    path_in(path, sizeof path, "rt.params");
    int rc = cuzk_params_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_OK, "write: %s", err);
    size_t len = 0;
    uint8_t *f = test_read_file(path, &len);
    CHECK(f != NULL, "cannot read back %s", path);
    if (f)
        check_layout(f, len, &p);
    free(f);
    unsigned flagsets[] = {0, CUZK_PARAMS_CHECK_CURVE, CUZK_PARAMS_CHECK_GROUP,
                           CUZK_PARAMS_CHECK_CURVE | CUZK_PARAMS_CHECK_GROUP};
    for (size_t i = 0; i < 4; i++)
        for (int t = 0; t < 2; t++) {
            rc = cuzk_params_read(path, &q, flagsets[i], t ? pool : NULL, err, sizeof err);
            CHECK(rc == CUZK_OK, "read flags %u threads %d: %s", flagsets[i], t ? 2 : 1, err);
            CHECK(params_eq(&p, &q), "read back differs (flags %u)", flagsets[i]);
            cuzk_groth16_params_free(&q);
        }
    /* empty vectors are legal (a circuit with no aux variables has no l) */
    cuzk_groth16_params e;
    make_params(&e, 1, 0, 0, 0, 0);
    rc = cuzk_params_write(path, &e, err, sizeof err);
    CHECK(rc == CUZK_OK, "write empty vectors: %s", err);
    rc = cuzk_params_read(path, &q, CUZK_PARAMS_CHECK_GROUP, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && params_eq(&e, &q), "empty vectors round trip: %s", err);
    f = test_read_file(path, &len);
    CHECK(f && len == 888 + 96, "empty-vector file is %zu bytes, expected 984", len);
    free(f);
    cuzk_groth16_params_free(&q);
    cuzk_groth16_params_free(&e);
    cuzk_groth16_params_free(&p);
    unlink(path);
}

/* prover-internals.md §2.2 worked example: circuit a·b = c, c public. */
static void test_worked_example(void)
{
    cuzk_groth16_params p;
    make_params(&p, 2, 3, 2, 3, 1);
    char path[256];
    path_in(path, sizeof path, "ex.params");
    CHECK(cuzk_params_write(path, &p, err, sizeof err) == CUZK_OK, "write: %s", err);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 2136, "worked example is %lld bytes, expected 2136",
          (long long)st.st_size);
    cuzk_params_summary s;
    int rc = cuzk_params_info(path, &s, err, sizeof err);
    offsets o = table_offsets(&p);
    CHECK(rc == CUZK_OK, "info: %s", err);
    CHECK(s.file_size == 2136 && !s.vk_only && s.n_ic == 2 && s.n_h == 3 && s.n_l == 2 && s.n_a == 3 &&
              s.n_b_g1 == 1 && s.n_b_g2 == 1,
          "info counts wrong");
    CHECK(s.off_ic == o.ic + 4 && s.off_h == o.h + 4 && s.off_l == o.l + 4 && s.off_a == o.a + 4 &&
              s.off_b_g1 == o.b_g1 + 4 && s.off_b_g2 == o.b_g2 + 4,
          "info offsets wrong");
    cuzk_groth16_params_free(&p);
    unlink(path);
}

/* Reads a .vk, checking that a failure leaves the key empty; the key is freed. */
static int vk_read_rc(const char *path, unsigned flags)
{
    cuzk_groth16_vk k;
    err[0] = 0;
    int rc = cuzk_vk_read(path, &k, flags, err, sizeof err);
    if (rc != CUZK_OK)
        CHECK(vk_empty(&k), "failed vk read left *out non-empty (rc %d)", rc);
    cuzk_groth16_vk_free(&k);
    return rc;
}

static void test_vk(void)
{
    cuzk_groth16_params p;
    make_params(&p, 4, 2, 2, 2, 2);
    char vpath[256], ppath[256];
    path_in(vpath, sizeof vpath, "k.vk");
    path_in(ppath, sizeof ppath, "k.params");
    CHECK(cuzk_vk_write(vpath, &p.vk, err, sizeof err) == CUZK_OK, "vk write: %s", err);
    CHECK(cuzk_params_write(ppath, &p, err, sizeof err) == CUZK_OK, "params write: %s", err);
    size_t vlen = 0, plen = 0;
    uint8_t *v = test_read_file(vpath, &vlen), *f = test_read_file(ppath, &plen);
    CHECK(v && vlen == 868 + 96 * 4, ".vk is %zu bytes, expected %d", vlen, 868 + 96 * 4);
    CHECK(v && f && plen > vlen && memcmp(v, f, vlen) == 0, ".vk is not the first part of .params");
    cuzk_groth16_vk k;
    for (unsigned fl = 0; fl <= CUZK_PARAMS_CHECK_GROUP; fl++) {
        int rc = cuzk_vk_read(vpath, &k, fl, err, sizeof err);
        CHECK(rc == CUZK_OK && vk_eq(&k, &p.vk), "vk round trip (flags %u): %s", fl, err);
        cuzk_groth16_vk_free(&k);
    }
    int rc = vk_read_rc(ppath, CUZK_PARAMS_CHECK_GROUP);
    CHECK(rc == CUZK_EINVAL && strstr(err, "trailing bytes after ic"), "vk read of a .params: rc %d, %s", rc,
          err);
    cuzk_groth16_params q;
    rc = cuzk_params_read(vpath, &q, CUZK_PARAMS_CHECK_CURVE, NULL, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, ".vk file") && params_empty(&q), "params read of a .vk: rc %d, %s",
          rc, err);
    cuzk_params_summary s;
    rc = cuzk_params_info(vpath, &s, err, sizeof err);
    CHECK(rc == CUZK_OK && s.vk_only && s.n_ic == 4 && s.n_h == 0 && s.file_size == vlen && s.off_ic == 868,
          "info on a .vk: %s", err);
    /* every truncation of the .vk is an error */
    char tpath[256];
    path_in(tpath, sizeof tpath, "trunc.vk");
    bool all = true;
    for (size_t n = 0; v && n < vlen; n++) {
        spit(tpath, v, n);
        all = all && vk_read_rc(tpath, CUZK_PARAMS_CHECK_GROUP) == CUZK_EINVAL;
    }
    CHECK(all, "a truncated .vk was accepted");
    /* identity in ic, and in a vk point */
    if (v) {
        uint8_t *m = malloc(vlen);
        memcpy(m, v, vlen);
        memset(m + 868 + 96 * 2, 0, 96);
        m[868 + 96 * 2] = 0x40;
        spit(tpath, m, vlen);
        rc = vk_read_rc(tpath, 0);
        CHECK(rc == CUZK_EINVAL && strstr(err, "vk: ic[2] is the point at infinity"),
              "identity in ic: rc %d, %s", rc, err);
        memcpy(m, v, vlen);
        memset(m + 384, 0, 192);
        m[384] = 0x40;
        spit(tpath, m, vlen);
        rc = vk_read_rc(tpath, CUZK_PARAMS_CHECK_GROUP);
        CHECK(rc == CUZK_EINVAL && strstr(err, "gamma_g2 is the point at infinity"),
              "identity gamma_g2: rc %d, %s", rc, err);
        free(m);
    }
    /* the writer refuses an empty ic */
    cuzk_groth16_vk e = p.vk;
    e.n_ic = 0;
    char epath[256];
    path_in(epath, sizeof epath, "empty.vk");
    rc = cuzk_vk_write(epath, &e, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && !file_exists(epath), "vk write with empty ic: rc %d", rc);
    free(v);
    free(f);
    unlink(vpath);
    unlink(ppath);
    unlink(tpath);
    cuzk_groth16_params_free(&p);
}

/* Writes bytes to mut.params and reads them. On success the key goes to *keep,
 * or is freed when keep is NULL; a failed read must leave it empty. */
static int read_bytes(const uint8_t *buf, size_t len, unsigned flags, cuzk_pool *pool,
                      cuzk_groth16_params *keep)
{
    char path[256];
    path_in(path, sizeof path, "mut.params");
    spit(path, buf, len);
    err[0] = 0;
    cuzk_groth16_params q;
    int rc = cuzk_params_read(path, &q, flags, pool, err, sizeof err);
    if (rc != CUZK_OK)
        CHECK(params_empty(&q), "failed read left *out non-empty (rc %d)", rc);
    else if (keep)
        *keep = q;
    else
        cuzk_groth16_params_free(&q);
    return rc;
}

/* Coset key files (cuzk/params.h): a random key in the coset form (8 h points, l over 3 inputs and 5 aux
 * with the identity at input 1) round trips under every flag set and thread count, its bytes are the
 * 16-byte header then the .params layout; the writers refuse the other form each;
 * a bad version, h of 6 points, l shorter than ic, the identity in h and every truncation are refused,
 * and a .params is still read in bellperson's form. */
static void test_coset_file(cuzk_pool *pool)
{
    cuzk_groth16_params p, q;
    make_params(&p, 3, 8, 8, 4, 3);
    p.h_coset = true;
    memset(&p.l[1], 0, sizeof p.l[1]);
    char path[256], ppath[256];
    path_in(path, sizeof path, "k.coset");
    path_in(ppath, sizeof ppath, "k.params");
    int rc = cuzk_params_write(ppath, &p, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "coset key file") && !file_exists(ppath),
          "a coset key written as .params: rc %d (%s)", rc, err);
    rc = cuzk_coset_key_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_OK, "coset key write: %s", err);
    size_t len = 0;
    uint8_t *f = test_read_file(path, &len);
    CHECK(f && len == 16 + formula_size(&p) && !memcmp(f, "cuzk coset key\n\1", 16),
          "coset key file: %zu bytes, header %s", len, f ? "differs" : "unread");
    if (f && len > 16)
        check_layout(f + 16, len - 16, &p);
    unsigned flagsets[] = {0, CUZK_PARAMS_CHECK_CURVE, CUZK_PARAMS_CHECK_GROUP};
    for (size_t i = 0; i < 3; i++)
        for (int t = 0; t < 2; t++) {
            rc = cuzk_params_read(path, &q, flagsets[i], t ? pool : NULL, err, sizeof err);
            CHECK(rc == CUZK_OK && q.h_coset && params_eq(&p, &q), "coset read flags %u threads %d: rc %d %s",
                  flagsets[i], t ? 2 : 1, rc, err);
            cuzk_groth16_params_free(&q);
        }
    cuzk_params_summary sum;
    rc = cuzk_params_info(path, &sum, err, sizeof err);
    CHECK(rc == CUZK_OK && sum.coset && sum.n_h == 8 && sum.n_l == 8 && sum.file_size == len,
          "coset key info: rc %d coset %d h %u", rc, sum.coset, sum.n_h);

    if (f && len > 16) {
        uint8_t *g = malloc(len);
        memcpy(g, f, len);
        g[15] = 2;
        rc = read_bytes(g, len, 0, NULL, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, "version 2"), "coset key version 2: rc %d (%s)", rc, err);
        for (size_t cut = 0; cut < len; cut += 1 + cut / 7) {
            rc = read_bytes(f, cut, CUZK_PARAMS_CHECK_CURVE, pool, NULL);
            CHECK(rc != CUZK_OK, "coset key cut to %zu of %zu bytes: read", cut, len);
        }
        offsets o = table_offsets(&p);
        memcpy(g, f, len); /* the identity in h */
        memset(g + 16 + o.h + 4 + 96, 0, 96);
        g[16 + o.h + 4 + 96] = 0x40;
        rc = read_bytes(g, len, CUZK_PARAMS_CHECK_CURVE, NULL, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, "h[1]") && strstr(err, "infinity"),
              "identity in h: rc %d (%s)", rc, err);
        free(g);
    }
    free(f);
    /* shapes the coset form cannot have */
    p.n_h = 6;
    rc = cuzk_coset_key_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "2^k h points"), "coset key with 6 h points written: rc %d (%s)",
          rc, err);
    p.n_h = 8, p.n_l = 2;
    rc = cuzk_coset_key_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_EINVAL, "coset key with l shorter than ic written: rc %d (%s)", rc, err);
    p.n_l = 8;
    /* a file of the shape, made by hand: the layout's own checks */
    {
        cuzk_groth16_params b;
        make_params(&b, 3, 6, 8, 4, 3); /* bellperson's form, 6 h points */
        rc = cuzk_params_write(ppath, &b, err, sizeof err);
        CHECK(rc == CUZK_OK, "write: %s", err);
        size_t blen = 0;
        uint8_t *bf = test_read_file(ppath, &blen), *g = malloc(blen + 16);
        memcpy(g, "cuzk coset key\n\1", 16);
        memcpy(g + 16, bf, blen);
        rc = read_bytes(g, blen + 16, 0, NULL, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, "not a power of two"),
              "coset key with 6 h points read: rc %d (%s)", rc, err);
        rc = cuzk_params_read(ppath, &q, 0, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK && !q.h_coset && params_eq(&b, &q),
              "the .params still reads in bellperson's form: %s", err);
        cuzk_groth16_params_free(&q);
        b.h_coset = false;
        rc = cuzk_coset_key_write(path, &b, err, sizeof err);
        CHECK(rc == CUZK_EINVAL && strstr(err, "bellperson's form"),
              "a bellperson key as a coset file: rc %d (%s)", rc, err);
        free(bf), free(g);
        cuzk_groth16_params_free(&b);
    }
    cuzk_groth16_params_free(&p);
    unlink(path);
    unlink(ppath);
}

static void test_truncation(cuzk_pool *pool)
{
    cuzk_groth16_params p, q;
    make_params(&p, 2, 3, 2, 3, 1);
    char path[256];
    path_in(path, sizeof path, "t.params");
    CHECK(cuzk_params_write(path, &p, err, sizeof err) == CUZK_OK, "write: %s", err);
    size_t len = 0;
    uint8_t *f = test_read_file(path, &len);
    long bad = -1;
    cuzk_params_summary s;
    for (size_t n = 0; f && n < len; n++) {
        uint8_t *cut = malloc(n ? n : 1);
        memcpy(cut, f, n);
        int rc = read_bytes(cut, n, CUZK_PARAMS_CHECK_CURVE, n % 2 ? pool : NULL, &q);
        char ipath[256];
        path_in(ipath, sizeof ipath, "mut.params");
        int irc = cuzk_params_info(ipath, &s, err, sizeof err);
        /* cutting exactly after ic leaves a valid .vk, which info reports as such */
        bool info_ok = n == 868 + 96 * 2 ? irc == CUZK_OK && s.vk_only : irc == CUZK_EINVAL;
        if ((rc != CUZK_EINVAL || !info_ok) && bad < 0)
            bad = (long)n;
        free(cut);
        if (rc == CUZK_OK)
            cuzk_groth16_params_free(&q);
    }
    CHECK(bad < 0, "truncation to %ld bytes not rejected as it should be", bad);
    free(f);
    cuzk_groth16_params_free(&p);
    unlink(path);
}

/* Bytes of one good file plus where each vector starts. */
typedef struct {
    cuzk_groth16_params p;
    uint8_t *f;
    size_t len;
    offsets o;
} fixture;

static void fixture_make(fixture *x, size_t nic, size_t nh, size_t nl, size_t na, size_t nb)
{
    make_params(&x->p, nic, nh, nl, na, nb);
    char path[256];
    path_in(path, sizeof path, "fx.params");
    CHECK(cuzk_params_write(path, &x->p, err, sizeof err) == CUZK_OK, "write: %s", err);
    x->f = test_read_file(path, &x->len);
    x->o = table_offsets(&x->p);
    unlink(path);
}

static void fixture_free(fixture *x)
{
    cuzk_groth16_params_free(&x->p);
    free(x->f);
}

static uint8_t *copy_of(const fixture *x)
{
    uint8_t *m = malloc(x->len + 256);
    memcpy(m, x->f, x->len);
    return m;
}

static void test_bit_flips(cuzk_pool *pool)
{
    fixture x;
    fixture_make(&x, 3, 7, 40, 4, 3);
    cuzk_groth16_params q;
    char label[96];
    /* flipping the lowest bit of y keeps it canonical (y = p - 1 aside) and moves it off the curve */
    for (int r = 0; r < 4; r++) {
        size_t k = test_rand64() % x.p.n_l;
        uint8_t *m = copy_of(&x);
        m[x.o.l + 4 + 96 * k + 95] ^= 1;
        snprintf(label, sizeof label, "params: l[%zu] is not on the curve", k);
        int rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_CURVE, r % 2 ? pool : NULL, NULL);
        CHECK(rc == CUZK_ENOTONCURVE && strstr(err, label), "flip in l[%zu]: rc %d, %s", k, rc, err);
        rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_GROUP, pool, NULL);
        CHECK(rc == CUZK_ENOTONCURVE && strstr(err, label), "flip in l[%zu] with group check: rc %d", k, rc);
        /* without CHECK_CURVE only the encoding is checked: the file loads, l[k] differs */
        rc = read_bytes(m, x.len, 0, pool, &q);
        CHECK(rc == CUZK_OK, "flip in l[%zu] without checks: rc %d, %s", k, rc, err);
        if (rc == CUZK_OK) {
            CHECK(!cuzk_g1_affine_eq(&q.l[k], &x.p.l[k]) && g1s_eq(q.h, x.p.h, x.p.n_h),
                  "unchecked read did not return the edited point");
            cuzk_groth16_params_free(&q);
        }
        free(m);
    }
    /* random bit anywhere in a coordinate except the three flag bits: off the curve or >= p */
    for (int r = 0; r < 24; r++) {
        int which = (int)(test_rand64() % 3);
        size_t k, off, width;
        const char *name;
        if (which == 0)
            k = test_rand64() % x.p.n_h, off = x.o.h + 4 + 96 * k, width = 96, name = "h";
        else if (which == 1)
            k = test_rand64() % x.p.n_b, off = x.o.b_g2 + 4 + 192 * k, width = 192, name = "b_g2";
        else
            k = 0, off = 192, width = 192, name = "beta_g2";
        size_t bit = 3 + test_rand64() % (8 * width - 3); /* bit 0..2 of byte 0 are the flags */
        uint8_t *m = copy_of(&x);
        m[off + bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
        if (which == 2)
            snprintf(label, sizeof label, "params: beta_g2 ");
        else
            snprintf(label, sizeof label, "params: %s[%zu] ", name, k);
        int rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_CURVE, pool, NULL);
        CHECK((rc == CUZK_ENOTONCURVE || rc == CUZK_ENONCANONICAL) && strstr(err, label),
              "flip bit %zu of %s: rc %d, %s", bit, label, rc, err);
        free(m);
    }
    /* flag bits on an uncompressed point: compression, sign, infinity with coordinates */
    static const uint8_t bits[] = {0x80, 0x20, 0x40, 0xa0};
    for (size_t b = 0; b < sizeof bits; b++)
        for (unsigned fl = 0; fl <= CUZK_PARAMS_CHECK_CURVE; fl++) {
            uint8_t *m = copy_of(&x);
            m[x.o.a + 4 + 96] |= bits[b];
            int rc = read_bytes(m, x.len, fl, NULL, NULL);
            CHECK(rc == CUZK_EFLAGS && strstr(err, "params: a[1] is not a valid encoding"),
                  "flag bits 0x%02x (flags %u): rc %d, %s", bits[b], fl, rc, err);
            free(m);
        }
    fixture_free(&x);
}

static void test_identity(cuzk_pool *pool)
{
    fixture x;
    fixture_make(&x, 3, 7, 5, 4, 3);
    struct {
        size_t off, width;
        const char *label;
    } cases[] = {
        {0, 96, "params: alpha_g1 is the point at infinity"},
        {672, 192, "params: delta_g2 is the point at infinity"},
        {x.o.ic + 4, 96, "params: ic[0] is the point at infinity"},
        {x.o.h + 4 + 96 * 6, 96, "params: h[6] is the point at infinity"},
        {x.o.l + 4 + 96 * 2, 96, "params: l[2] is the point at infinity"},
        {x.o.a + 4 + 96 * 3, 96, "params: a[3] is the point at infinity"},
        {x.o.b_g1 + 4 + 96 * 1, 96, "params: b_g1[1] is the point at infinity"},
        {x.o.b_g2 + 4 + 192 * 2, 192, "params: b_g2[2] is the point at infinity"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t *m = copy_of(&x);
        memset(m + cases[c].off, 0, cases[c].width);
        m[cases[c].off] = 0x40;
        for (unsigned fl = 0; fl <= CUZK_PARAMS_CHECK_GROUP; fl += CUZK_PARAMS_CHECK_CURVE) {
            int rc = read_bytes(m, x.len, fl, pool, NULL);
            CHECK(rc == CUZK_EINVAL && strstr(err, cases[c].label), "%s (flags %u): rc %d, %s",
                  cases[c].label, fl, rc, err);
        }
        /* all-zero bytes (no infinity flag) is (0, 0): not a point */
        m[cases[c].off] = 0;
        for (unsigned fl = 0; fl <= CUZK_PARAMS_CHECK_GROUP; fl += CUZK_PARAMS_CHECK_CURVE) {
            int rc = read_bytes(m, x.len, fl, pool, NULL);
            CHECK(rc == CUZK_ENOTONCURVE && strstr(err, "is not on the curve"),
                  "all-zero at %zu (flags %u): rc %d", cases[c].off, fl, rc);
        }
        free(m);
    }
    /* the writer refuses identity points and leaves nothing behind */
    char path[256];
    path_in(path, sizeof path, "id.params");
    int before = test_dir_count(dir, NULL);
    memset(&x.p.l[4], 0, sizeof x.p.l[4]);
    int rc = cuzk_params_write(path, &x.p, err, sizeof err);
    CHECK(rc == CUZK_EINVAL && strstr(err, "l[4] is the point at infinity") && !file_exists(path),
          "write with identity in l: rc %d, %s", rc, err);
    CHECK(test_dir_count(dir, NULL) == before, "failed write left a file behind");
    fixture_free(&x);
}

/* Reads the first `notsub` encoding of a vector file. */
static bool first_notsub(const char *file, uint8_t *out, size_t n)
{
    vec_file v;
    if (!vec_open(&v, file))
        return false;
    bool found = false;
    while (!found && vec_next(&v))
        if (!strcmp(v.tok[0], "notsub") && v.ntok == 2)
            found = hex_decode(out, n, v.tok[1]);
    vec_close(&v);
    return found;
}

static void test_subgroup(cuzk_pool *pool)
{
    uint8_t g1[96], g2[192];
    CHECK(first_notsub("g1.txt", g1, 96), "no notsub line in g1.txt");
    CHECK(first_notsub("g2.txt", g2, 192), "no notsub line in g2.txt");
    fixture x;
    fixture_make(&x, 3, 7, 5, 4, 3);
    cuzk_groth16_params q;
    struct {
        size_t off;
        bool is_g2;
        const char *label;
    } cases[] = {
        {x.o.a + 4 + 96 * 2, false, "params: a[2] is not in the r-order subgroup"},
        {x.o.b_g2 + 4 + 192 * 1, true, "params: b_g2[1] is not in the r-order subgroup"},
        {96, false, "params: beta_g1 is not in the r-order subgroup"},
        {x.o.ic + 4 + 96 * 2, false, "params: ic[2] is not in the r-order subgroup"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint8_t *m = copy_of(&x);
        memcpy(m + cases[c].off, cases[c].is_g2 ? g2 : g1, cases[c].is_g2 ? 192 : 96);
        int rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_CURVE, pool, &q);
        CHECK(rc == CUZK_OK, "non-subgroup point rejected without CHECK_GROUP: %s", err);
        if (rc == CUZK_OK) {
            uint8_t back[192];
            if (cases[c].is_g2)
                cuzk_g2_serialize(back, &q.b_g2[1]);
            else
                cuzk_g1_serialize(back, c == 0 ? &q.a[2] : c == 2 ? &q.vk.beta_g1 : &q.vk.ic[2]);
            CHECK(memcmp(back, cases[c].is_g2 ? g2 : g1, cases[c].is_g2 ? 192 : 96) == 0,
                  "non-subgroup point did not decode to itself");
            cuzk_groth16_params_free(&q);
        }
        rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_GROUP, pool, NULL);
        CHECK(rc == CUZK_ENOTINGROUP && strstr(err, cases[c].label), "%s: rc %d, %s", cases[c].label, rc,
              err);
        rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_GROUP | CUZK_PARAMS_CHECK_CURVE, NULL, NULL);
        CHECK(rc == CUZK_ENOTINGROUP, "%s (both flags): rc %d", cases[c].label, rc);
        free(m);
    }
    /* the .vk reader: accepted with curve checks, rejected with the group check */
    uint8_t *m = copy_of(&x);
    memcpy(m + x.o.ic + 4, g1, 96);
    char vpath[256];
    path_in(vpath, sizeof vpath, "ns.vk");
    spit(vpath, m, x.o.h);
    int rc = vk_read_rc(vpath, CUZK_PARAMS_CHECK_CURVE);
    CHECK(rc == CUZK_OK, "vk with non-subgroup ic[0], curve check only: %s", err);
    rc = vk_read_rc(vpath, CUZK_PARAMS_CHECK_GROUP);
    CHECK(rc == CUZK_ENOTINGROUP && strstr(err, "vk: ic[0] is not in the r-order subgroup"),
          "vk with non-subgroup ic[0]: rc %d, %s", rc, err);
    unlink(vpath);
    free(m);
    fixture_free(&x);
}

static void test_lengths(cuzk_pool *pool)
{
    fixture x;
    fixture_make(&x, 3, 7, 5, 4, 3);
    cuzk_groth16_params q;
    char want[256];
    /* the smallest count that does not fit, then ever larger ones up to the u32 maximum */
    uint32_t big[] = {(uint32_t)((x.len - x.o.h - 4) / 96 + 1), 100, 0x00ffffff, 0x7fffffff, 0xffffffff};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) {
        uint8_t *m = copy_of(&x);
        set_be32(m + x.o.h, big[i]);
        size_t at = x.o.h + 4;
        snprintf(want, sizeof want,
                 "params: h has %u points (%llu bytes) but only %zu bytes remain at offset %zu", big[i],
                 96ull * big[i], x.len - at, at);
        int rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_CURVE, pool, NULL);
        CHECK(rc == CUZK_EINVAL && !strcmp(err, want), "h length %u: rc %d, got \"%s\", want \"%s\"", big[i],
              rc, err, want);
        cuzk_params_summary s;
        char ipath[256];
        path_in(ipath, sizeof ipath, "mut.params");
        char ierr[512];
        rc = cuzk_params_info(ipath, &s, ierr, sizeof ierr);
        CHECK(rc == CUZK_EINVAL && !strcmp(ierr, want), "info with h length %u: %s", big[i], ierr);
        /* the same in the last vector and in ic */
        memcpy(m, x.f, x.len);
        set_be32(m + x.o.b_g2, big[i]);
        rc = read_bytes(m, x.len, 0, pool, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, "params: b_g2 has"), "b_g2 length %u: rc %d, %s", big[i], rc,
              err);
        memcpy(m, x.f, x.len);
        set_be32(m + x.o.ic, big[i] + 0x100);
        rc = read_bytes(m, x.len, 0, pool, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, "params: ic has"), "ic length: rc %d, %s", rc, err);
        free(m);
    }
    /* a shorter count makes the rest of the file misparse: it must fail, whatever the message */
    uint8_t *m = copy_of(&x);
    set_be32(m + x.o.l, (uint32_t)x.p.n_l - 1);
    int rc = read_bytes(m, x.len, CUZK_PARAMS_CHECK_CURVE, pool, &q);
    CHECK(rc != CUZK_OK, "shortened l count accepted");
    if (rc == CUZK_OK)
        cuzk_groth16_params_free(&q);
    /* b_g2 with one point fewer than b_g1, file cut to match */
    memcpy(m, x.f, x.len);
    set_be32(m + x.o.b_g2, (uint32_t)x.p.n_b - 1);
    rc = read_bytes(m, x.len - 192, 0, pool, NULL);
    CHECK(rc == CUZK_EINVAL && strstr(err, "b_g1 has 3 points but b_g2 has 2"), "b count mismatch: rc %d, %s",
          rc, err);
    /* ic = 0 */
    uint8_t *z = malloc(x.len);
    memcpy(z, x.f, 868);
    set_be32(z + 864, 0);
    size_t zl = 868;
    memcpy(z + zl, x.f + x.o.h, x.len - x.o.h);
    zl += x.len - x.o.h;
    rc = read_bytes(z, zl, 0, pool, NULL);
    CHECK(rc == CUZK_EINVAL && strstr(err, "ic is empty"), "ic = 0: rc %d, %s", rc, err);
    free(z);
    /* trailing garbage */
    for (size_t extra = 1; extra <= 200; extra += 99) {
        memcpy(m, x.f, x.len);
        test_rand_bytes(m + x.len, extra);
        snprintf(want, sizeof want, "params: %zu trailing bytes after b_g2", extra);
        rc = read_bytes(m, x.len + extra, CUZK_PARAMS_CHECK_GROUP, pool, NULL);
        CHECK(rc == CUZK_EINVAL && strstr(err, want), "%zu trailing bytes: rc %d, %s", extra, rc, err);
    }
    free(m);
    fixture_free(&x);
}

static void test_writes(void)
{
    cuzk_groth16_params p, q;
    make_params(&p, 2, 3, 2, 3, 1);
    char path[256], sub[256];
    /* missing directory */
    path_in(path, sizeof path, "no/such/dir/x.params");
    int before = test_dir_count(dir, NULL);
    int rc = cuzk_params_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "cannot create"), "write into a missing dir: rc %d, %s", rc, err);
    path_in(path, sizeof path, "no/such/dir/x.vk");
    rc = cuzk_vk_write(path, &p.vk, err, sizeof err);
    CHECK(rc == CUZK_EIO, "vk write into a missing dir: rc %d", rc);
    CHECK(test_dir_count(dir, NULL) == before, "failed writes left files behind");
    /* success leaves exactly the destination, no temporary */
    path_in(path, sizeof path, "w.params");
    rc = cuzk_params_write(path, &p, err, sizeof err);
    CHECK(rc == CUZK_OK && test_dir_count(dir, ".tmp.") == 0 && test_dir_count(dir, NULL) == before + 1,
          "successful write: rc %d, %d temp files", rc, test_dir_count(dir, ".tmp."));
    /* overwriting: a refused write leaves the old file intact, a good one replaces it */
    size_t len0 = 0, len1 = 0;
    uint8_t *old = test_read_file(path, &len0);
    cuzk_groth16_params r;
    make_params(&r, 2, 3, 2, 3, 1);
    cuzk_g2_affine keep = r.b_g2[0];
    memset(&r.b_g2[0], 0, sizeof r.b_g2[0]);
    rc = cuzk_params_write(path, &r, err, sizeof err);
    uint8_t *now = test_read_file(path, &len1);
    CHECK(rc == CUZK_EINVAL && old && now && len0 == len1 && !memcmp(old, now, len0),
          "refused overwrite changed the file");
    free(now);
    r.b_g2[0] = keep;
    rc = cuzk_params_write(path, &r, err, sizeof err);
    CHECK(rc == CUZK_OK, "overwrite: %s", err);
    rc = cuzk_params_read(path, &q, CUZK_PARAMS_CHECK_GROUP, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && params_eq(&q, &r) && !params_eq(&q, &p), "overwrite did not replace the key: %s",
          err);
    cuzk_groth16_params_free(&q);
    free(old);
    /* into an outfile the caller opened: a refused key writes nothing, a good one commits and reads back */
    path_in(path, sizeof path, "to.params");
    cuzk_outfile of;
    rc = cuzk_outfile_open(&of, path, 0, NULL, err, sizeof err);
    memset(&r.b_g2[0], 0, sizeof r.b_g2[0]);
    CHECK(rc == CUZK_OK && cuzk_params_write_to(&of, &r, err, sizeof err) == CUZK_EINVAL,
          "write_to with a bad point: EINVAL");
    r.b_g2[0] = keep;
    cuzk_outfile_abort(&of);
    CHECK(test_dir_count(dir, "to.params") == 0, "write_to refused: nothing left");
    rc = cuzk_outfile_open(&of, path, 0, NULL, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_params_write_to(&of, &r, err, sizeof err);
    if (rc == CUZK_OK)
        rc = cuzk_outfile_commit(&of, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "write_to + commit: %s", err);
    rc = cuzk_params_read(path, &q, CUZK_PARAMS_CHECK_GROUP, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK && params_eq(&q, &r), "write_to: read back: %s", err);
    cuzk_groth16_params_free(&q);
    unlink(path);
    CHECK(cuzk_vk_write_to(&of, &r.vk, err, sizeof err) == CUZK_EINVAL,
          "vk write_to a closed outfile: EINVAL");
    /* a directory at the destination is refused before anything is written (the rename failure itself
     * is test_outfile's) */
    path_in(sub, sizeof sub, "isdir.params");
    CHECK(mkdir(sub, 0755) == 0, "mkdir %s", sub);
    rc = cuzk_params_write(sub, &p, err, sizeof err);
    CHECK(rc == CUZK_EIO && strstr(err, "params write: ") == err && strstr(err, "is a directory") &&
              test_dir_count(dir, ".tmp.") == 0,
          "write onto a directory: rc %d, %s", rc, err);
    rmdir(sub);
    /* reading a missing file or a directory */
    path_in(path, sizeof path, "missing.params");
    rc = cuzk_params_read(path, &q, 0, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && params_empty(&q), "missing file: rc %d", rc);
    rc = cuzk_params_read(dir, &q, 0, NULL, err, sizeof err);
    CHECK(rc == CUZK_EIO && params_empty(&q), "directory: rc %d", rc);
    cuzk_groth16_params_free(&r);
    cuzk_groth16_params_free(&p);
    path_in(path, sizeof path, "w.params");
    unlink(path);
}

typedef struct {
    int calls;
    uint64_t last, total;
    bool monotone, first_zero;
} progress_log;

static void on_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_log *l = ctx;
    if (l->calls == 0)
        l->first_zero = done == 0;
    else if (done < l->last || total != l->total)
        l->monotone = false;
    l->calls++;
    l->last = done;
    l->total = total;
}

/* Vectors spanning several 2048-point units, read on 1 and 2 threads. */
static void test_threads(cuzk_pool *pool)
{
    cuzk_groth16_params p, q1, q2;
    make_params(&p, 5, 9000, 4500, 3000, 2500);
    char path[256];
    path_in(path, sizeof path, "mt.params");
    CHECK(cuzk_params_write(path, &p, err, sizeof err) == CUZK_OK, "write: %s", err);
    int rc1 = cuzk_params_read(path, &q1, CUZK_PARAMS_CHECK_CURVE, NULL, err, sizeof err);
    CHECK(rc1 == CUZK_OK, "1 thread: %s", err);
    progress_log log = {0, 0, 0, true, false};
    cuzk_params_read_opts o = {CUZK_PARAMS_CHECK_CURVE, pool, on_progress, &log};
    int rc2 = cuzk_params_read_ex(path, &q2, &o, err, sizeof err);
    CHECK(rc2 == CUZK_OK, "2 threads: %s", err);
    CHECK(params_eq(&q1, &p) && params_eq(&q2, &p), "threaded read differs");
    struct stat st;
    stat(path, &st);
    CHECK(log.calls >= 2 && log.calls <= 257 && log.first_zero && log.monotone &&
              log.last == (uint64_t)st.st_size && log.total == (uint64_t)st.st_size,
          "progress: %d calls, last %llu of %llu", log.calls, (unsigned long long)log.last,
          (unsigned long long)log.total);
    cuzk_groth16_params_free(&q1);
    cuzk_groth16_params_free(&q2);
    /* two bad points in different units: both thread counts report the first in file order */
    size_t len = 0;
    uint8_t *f = test_read_file(path, &len);
    offsets of = table_offsets(&p);
    size_t late = 8000 + test_rand64() % 1000, early = 100 + test_rand64() % 1000;
    if (f) {
        f[of.h + 4 + 96 * late + 95] ^= 1;
        f[of.h + 4 + 96 * early + 95] ^= 1;
        f[of.b_g2 + 4 + 192 * 7 + 191] ^= 1;
    }
    char want[96];
    snprintf(want, sizeof want, "params: h[%zu] is not on the curve", early);
    for (int t = 0; t < 2 && f; t++) {
        int rc = read_bytes(f, len, CUZK_PARAMS_CHECK_CURVE, t ? pool : NULL, NULL);
        CHECK(rc == CUZK_ENOTONCURVE && strstr(err, want), "%d threads: rc %d, %s (want %s)", t + 1, rc, err,
              want);
    }
    free(f);
    cuzk_groth16_params_free(&p);
    unlink(path);
}

int main(void)
{
    test_rng_init("test_params");
    snprintf(dir, sizeof dir, "/tmp/cuzk-params-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    cuzk_pool *pool = cuzk_pool_new(2);
    CHECK(pool != NULL, "pool");
    test_roundtrip(pool);
    test_coset_file(pool);
    test_worked_example();
    test_vk();
    test_truncation(pool);
    test_bit_flips(pool);
    test_identity(pool);
    test_subgroup(pool);
    test_lengths(pool);
    test_writes();
    test_threads(pool);
    cuzk_pool_free(pool);
    test_dir_clear(dir);
    CHECK(rmdir(dir) == 0, "temp dir %s not empty at the end", dir);
    return test_finish("test_params");
}
