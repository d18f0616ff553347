/*
 * test_poseidon.c — Poseidon constants and native hash (cuzk/poseidon.h).
 *
 * Oracles, all independent of src/circuit/poseidon.c:
 * - scripts/poseidon-ref.py, a second implementation in Python (big
 *   integers, textbook permutation, its own Grain LFSR and round-number
 *   search), run once through popen with every query: every Grain constant
 *   of widths 3, 5, 9 and 12, round numbers, and the hash of random inputs
 *   with random domain tags.
 * - neptune's published numbers, copied from the neptune repository
 *   (argumentcomputer/neptune):
 *   src/poseidon.rs (commit 02a734a5) test hash_values_aux, Strength::Standard:
 *   the MerkleTree hashes of the preimage [0, 1, ..., arity-1] for arities 2,
 *   4, 8, 11, 16, 24, 36, and the ConstantLength(4) hashes of [0, 1, 2, 3];
 *   src/round_numbers.rs test_round_numbers_against_known_values: (width, rp)
 *   pairs, rf = 8 throughout;
 *   parameters/round_constants-1-1-255-9-8-57-73EDA…001.txt: the first, second
 *   and last of the 585 Grain constants for width 9.
 * - Algebra: M[i][j]·(i + j + t) = 1, M·M^-1 = I.
 * - The textbook walk (cuzk_poseidon_hash_textbook) against the optimized one
 *   (cuzk_poseidon_hash) on random inputs and tags: two different round
 *   structures over different constant tables agree only if the compressed
 *   constants and the sparse factors are right.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk/poseidon.h"
#include "testutil.h"

#define REF_SCRIPT CUZK_VECTOR_DIR "/../../scripts/poseidon-ref.py"

/* ---- helpers ------------------------------------------------------------------------ */

static void fr_hex(char out[65], const cuzk_fr *a)
{
    uint8_t be[32];
    cuzk_fr_to_be32(be, a);
    hex_encode(out, be, 32);
}

/* A field element from four little-endian u64 limbs (neptune's scalar_from_u64s). */
static cuzk_fr fr_limbs(uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3)
{
    uint64_t x[4] = {l0, l1, l2, l3};
    cuzk_fr r;
    if (!cuzk_fr_from_canonical(&r, x))
        r = CUZK_FR_ZERO;
    return r;
}

/* The reference script runs once, with every query of this test separated by "--" (it prints "end"
 * after each answer): ref_add registers a query, ref_run runs them all, ref_get returns the answer
 * lines of one (borrowed) or -1 when the script could not answer. */
enum { MAX_QUERIES = 16 };
static struct {
    char *cmd;
    char **lines;
    int n;
} Q[MAX_QUERIES];
static int NQ;
static bool REF_OK;

static void ref_add(const char *cmd)
{
    if (NQ < MAX_QUERIES)
        Q[NQ++].cmd = strdup(cmd);
}

static void ref_run(void)
{
    size_t len = strlen(REF_SCRIPT) + 32;
    for (int i = 0; i < NQ; i++)
        len += strlen(Q[i].cmd) + 4;
    char *cmd = malloc(len);
    if (!cmd)
        return;
    int off = snprintf(cmd, len, "python3 '%s'", REF_SCRIPT);
    for (int i = 0; i < NQ; i++)
        off += snprintf(cmd + off, len - (size_t)off, "%s %s", i ? " --" : "", Q[i].cmd);
    FILE *p = popen(cmd, "r");
    free(cmd);
    if (!p)
        return;
    int q = 0, cap = 0;
    char buf[512];
    while (fgets(buf, sizeof buf, p)) {
        buf[strcspn(buf, "\r\n")] = 0;
        if (q >= NQ)
            continue;
        if (strcmp(buf, "end") == 0) {
            q++;
            cap = 0;
            continue;
        }
        if (Q[q].n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(Q[q].lines, (size_t)cap * sizeof *grown);
            if (!grown)
                break;
            Q[q].lines = grown;
        }
        Q[q].lines[Q[q].n++] = strdup(buf);
    }
    REF_OK = pclose(p) == 0 && q == NQ;
}

static int ref_get(const char *cmd, char ***lines)
{
    for (int i = 0; REF_OK && i < NQ; i++)
        if (strcmp(Q[i].cmd, cmd) == 0) {
            *lines = Q[i].lines;
            return Q[i].n;
        }
    return -1;
}

static void ref_free(void)
{
    for (int i = 0; i < NQ; i++) {
        for (int k = 0; k < Q[i].n; k++)
            free(Q[i].lines[k]);
        free(Q[i].lines);
        free(Q[i].cmd);
    }
    NQ = 0;
}

/* ---- round numbers ------------------------------------------------------------------ */

static void test_round_numbers(void)
{
    /* neptune src/round_numbers.rs, test_round_numbers_against_known_values */
    static const unsigned cases[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {6, 56},  {7, 56},  {8, 57},
                                        {9, 57},  {10, 57}, {11, 57}, {12, 57}, {13, 57}, {14, 57}, {15, 57},
                                        {16, 59}, {17, 59}, {25, 59}, {37, 60}, {65, 61}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        unsigned rf = 0, rp = 0;
        int rc = cuzk_poseidon_round_numbers(cases[i][0], &rf, &rp);
        CHECK(rc == CUZK_OK && rf == 8 && rp == cases[i][1], "width %u: (%u, %u), neptune (8, %u)",
              cases[i][0], rf, rp, cases[i][1]);
    }
    /* the brief's table through the constants themselves */
    static const unsigned ar[][3] = {{2, 8, 55},  {4, 8, 56},  {8, 8, 57}, {11, 8, 57},
                                     {16, 8, 59}, {24, 8, 59}, {36, 8, 60}};
    for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++) {
        const cuzk_poseidon_tables *tb = cuzk_poseidon_tables_of(cuzk_poseidon_get(ar[i][0]));
        CHECK(tb && tb->arity == ar[i][0] && tb->width == ar[i][0] + 1 && tb->rf == ar[i][1] &&
                  tb->rp == ar[i][2],
              "arity %u round numbers", ar[i][0]);
    }
    /* against the Python search for a few widths */
    static const unsigned widths[] = {3, 12, 40}; /* as registered in main */
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        char args[64], **lines = NULL;
        snprintf(args, sizeof args, "rounds %u", widths[i]);
        int n = ref_get(args, &lines);
        unsigned rf = 0, rp = 0, prf = 0, prp = 0;
        cuzk_poseidon_round_numbers(widths[i], &rf, &rp);
        CHECK(n == 1 && sscanf(lines[0], "%u %u", &prf, &prp) == 2 && prf == rf && prp == rp,
              "width %u: C (%u, %u), python (%u, %u)", widths[i], rf, rp, prf, prp);
    }
    unsigned a, b;
    CHECK(cuzk_poseidon_round_numbers(1, &a, &b) == CUZK_EINVAL, "width 1 accepted");
    CHECK(cuzk_poseidon_round_numbers(4096, &a, &b) == CUZK_EINVAL, "width 4096 accepted");
    CHECK(cuzk_poseidon_round_numbers(3, NULL, &b) == CUZK_EINVAL, "NULL rf accepted");
}

/* ---- Grain constants ---------------------------------------------------------------- */

static void check_grain_vs_python(unsigned width, unsigned rf, unsigned rp, const cuzk_fr *mine,
                                  const char *what)
{
    size_t n = (size_t)(rf + rp) * width;
    char args[64], **lines = NULL;
    snprintf(args, sizeof args, "grain %u %u %u", width, rf, rp);
    int got = ref_get(args, &lines);
    CHECK(got == (int)n, "%s: python gave %d constants, want %zu", what, got, n);
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; got == (int)n && i < n; i++) {
        char hex[65];
        fr_hex(hex, &mine[i]);
        if (strcmp(hex, lines[i]) != 0 && bad++ == 0)
            first_bad = i;
    }
    CHECK(got == (int)n && bad == 0, "%s: %zu of %zu constants differ (first at %zu)", what, bad, n,
          first_bad);
}

static void test_grain(void)
{
    /* width 9 (arity 8), RF 8, RP 57: all 585 values from cuzk_poseidon_grain and from the tables */
    enum { N9 = 65 * 9 };
    cuzk_fr *g = malloc(N9 * sizeof *g);
    CHECK(cuzk_poseidon_grain(g, N9, 9, 8, 57) == CUZK_OK, "grain 9 8 57 failed");
    /* neptune parameters/round_constants-1-1-255-9-8-57-…txt: entries 0, 1 and 584 */
    static const char *const pub[3] = {"6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9",
                                       "0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39",
                                       "3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c"};
    const size_t at[3] = {0, 1, N9 - 1};
    for (int i = 0; i < 3; i++) {
        char hex[65];
        fr_hex(hex, &g[at[i]]);
        CHECK(strcmp(hex, pub[i]) == 0, "grain t=9 constant %zu: %s, published %s", at[i], hex, pub[i]);
    }
    check_grain_vs_python(9, 8, 57, g, "grain t=9");
    const cuzk_poseidon_tables *tb = cuzk_poseidon_tables_of(cuzk_poseidon_get(8));
    CHECK(tb && memcmp(tb->rc, g, N9 * sizeof *g) == 0, "arity 8 tables hold other round constants");
    free(g);
    /* the round constants of arities 2, 4, 11 (widths 3, 5, 12), straight from the tables */
    static const unsigned arities[] = {2, 4, 11};
    for (size_t i = 0; i < 3; i++) {
        const cuzk_poseidon_tables *t = cuzk_poseidon_tables_of(cuzk_poseidon_get(arities[i]));
        char what[32];
        snprintf(what, sizeof what, "grain arity %u", arities[i]);
        if (t)
            check_grain_vs_python(t->width, t->rf, t->rp, t->rc, what);
        CHECK(t != NULL, "no constants for arity %u", arities[i]);
    }
    cuzk_fr one;
    CHECK(cuzk_poseidon_grain(&one, 1, 4096, 8, 57) == CUZK_EINVAL, "width 4096 accepted");
    CHECK(cuzk_poseidon_grain(&one, 1, 9, 1024, 57) == CUZK_EINVAL, "rf 1024 accepted");
    CHECK(cuzk_poseidon_grain(&one, 1, 9, 8, 1024) == CUZK_EINVAL, "rp 1024 accepted");
    CHECK(cuzk_poseidon_grain(NULL, 1, 9, 8, 57) == CUZK_EINVAL, "NULL output accepted");
    CHECK(cuzk_poseidon_grain(NULL, 0, 9, 8, 57) == CUZK_OK, "zero constants refused");
}

/* ---- MDS -------------------------------------------------------------------------------- */

static void test_mds(void)
{
    static const unsigned arities[] = {2, 4, 8, 11, 16, 24, 36};
    for (size_t a = 0; a < sizeof arities / sizeof arities[0]; a++) {
        const cuzk_poseidon_tables *tb = cuzk_poseidon_tables_of(cuzk_poseidon_get(arities[a]));
        if (!tb) {
            CHECK(0, "no constants for arity %u", arities[a]);
            continue;
        }
        const unsigned t = tb->width;
        size_t bad_entry = 0, bad_inv = 0, bad_sym = 0;
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++) {
                cuzk_fr d, p;
                cuzk_fr_from_u64(&d, i + j + t);
                cuzk_fr_mul(&p, &tb->mds[i * t + j], &d);
                bad_entry += !cuzk_fr_is_one(&p);
                bad_sym += !cuzk_fr_eq(&tb->mds[i * t + j], &tb->mds[j * t + i]);
                cuzk_fr acc = CUZK_FR_ZERO;
                for (unsigned k = 0; k < t; k++) {
                    cuzk_fr_mul(&p, &tb->mds[i * t + k], &tb->mds_inv[k * t + j]);
                    cuzk_fr_add(&acc, &acc, &p);
                }
                bad_inv += i == j ? !cuzk_fr_is_one(&acc) : !cuzk_fr_is_zero(&acc);
            }
        CHECK(bad_entry == 0 && bad_sym == 0 && bad_inv == 0,
              "arity %u MDS: %zu wrong entries, %zu asymmetric, %zu wrong in M·M^-1", arities[a], bad_entry,
              bad_sym, bad_inv);
    }
}

/* ---- hash ------------------------------------------------------------------------------- */

static void test_vectors(void)
{
    /* neptune src/poseidon.rs hash_values_aux, Strength::Standard, MerkleTree: preimage [0, .., a-1] */
    static const struct {
        unsigned arity;
        uint64_t l[4];
    } merkle[] = {
        {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
        {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
        {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
        {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
        {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a}},
        {24, {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15}},
        {36, {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f}},
    };
    /* the same test, HashType::ConstantLength(4) (tag 4·2^64), preimage [0, 1, 2, 3] then zeros;
     * neptune checks the plain hash against its sponge for arities >= 4 */
    static const struct {
        unsigned arity;
        uint64_t l[4];
    } constlen[] = {
        {4, {0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29}},
        {8, {0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792}},
        {11, {0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca}},
        {16, {0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504}},
        {24, {0xc540772c5968a299, 0xe2e556352af20f97, 0x15ed0a6b8faba5aa, 0x327bdee6fa2b22b6}},
        {36, {0x7d89cddb70217dcd, 0x02ae71d3d04f0b32, 0xfe52151f29c50f99, 0x626bdae6cad79307}},
    };
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY];
    for (size_t i = 0; i < sizeof merkle / sizeof merkle[0]; i++) {
        unsigned a = merkle[i].arity;
        for (unsigned k = 0; k < a; k++)
            cuzk_fr_from_u64(&in[k], k);
        cuzk_fr want = fr_limbs(merkle[i].l[0], merkle[i].l[1], merkle[i].l[2], merkle[i].l[3]);
        cuzk_fr h1, h2;
        const cuzk_poseidon_consts *c = cuzk_poseidon_get(a);
        if (!c) {
            CHECK(0, "no constants for arity %u", a);
            continue;
        }
        cuzk_poseidon_hash(c, in, &h1);
        cuzk_poseidon_hash_textbook(c, in, &h2);
        char hx[65];
        fr_hex(hx, &h1);
        CHECK(cuzk_fr_eq(&h1, &want), "arity %u MerkleTree vector: optimized gives %s", a, hx);
        fr_hex(hx, &h2);
        CHECK(cuzk_fr_eq(&h2, &want), "arity %u MerkleTree vector: textbook gives %s", a, hx);
    }
    for (size_t i = 0; i < sizeof constlen / sizeof constlen[0]; i++) {
        unsigned a = constlen[i].arity;
        for (unsigned k = 0; k < a; k++)
            cuzk_fr_from_u64(&in[k], k < 4 ? k : 0);
        cuzk_fr tag = fr_limbs(0, 4, 0, 0);
        cuzk_fr want = fr_limbs(constlen[i].l[0], constlen[i].l[1], constlen[i].l[2], constlen[i].l[3]);
        const cuzk_poseidon_consts *c = cuzk_poseidon_get_tag(a, &tag);
        if (!c) {
            CHECK(0, "no constants for arity %u, tag 4·2^64", a);
            continue;
        }
        cuzk_fr h1, h2;
        cuzk_poseidon_hash(c, in, &h1);
        cuzk_poseidon_hash_textbook(c, in, &h2);
        CHECK(cuzk_fr_eq(&h1, &want) && cuzk_fr_eq(&h2, &want), "arity %u ConstantLength(4) vector", a);
        cuzk_poseidon_free(c);
    }
}

/* The optimized walk against the textbook one, random inputs, MerkleTree and random tags. */
static void test_optimized_vs_textbook(void)
{
    static const unsigned arities[] = {2, 3, 4, 5, 8, 11, 16, 24, 36};
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY];
    for (size_t a = 0; a < sizeof arities / sizeof arities[0]; a++) {
        unsigned ar = arities[a];
        cuzk_fr tag;
        test_rand_fr(&tag);
        const cuzk_poseidon_consts *cs[2] = {cuzk_poseidon_get(ar), cuzk_poseidon_get_tag(ar, &tag)};
        int bad = 0;
        for (int which = 0; which < 2; which++) {
            if (!cs[which]) {
                CHECK(0, "no constants for arity %u (%s)", ar, which ? "random tag" : "MerkleTree");
                continue;
            }
            for (int rep = 0; rep < 8; rep++) {
                for (unsigned k = 0; k < ar; k++)
                    test_rand_fr(&in[k]);
                cuzk_fr h1, h2;
                cuzk_poseidon_hash(cs[which], in, &h1);
                cuzk_poseidon_hash_textbook(cs[which], in, &h2);
                bad += !cuzk_fr_eq(&h1, &h2);
            }
        }
        CHECK(bad == 0, "arity %u: optimized and textbook differ on %d of 16 random inputs", ar, bad);
        /* in-place: out may be one of the inputs */
        if (cs[0]) {
            for (unsigned k = 0; k < ar; k++)
                test_rand_fr(&in[k]);
            cuzk_fr h;
            cuzk_poseidon_hash_textbook(cs[0], in, &h);
            cuzk_poseidon_hash(cs[0], in, &in[0]);
            CHECK(cuzk_fr_eq(&h, &in[0]), "arity %u: hash into its own input differs", ar);
        }
        cuzk_poseidon_free(cs[1]);
    }
    /* SnapDeals' tag 2^40 at arity 2 */
    cuzk_fr t40 = fr_limbs(1ull << 40, 0, 0, 0), h1, h2;
    const cuzk_poseidon_consts *c = cuzk_poseidon_get_tag(2, &t40);
    CHECK(c && cuzk_fr_eq(&cuzk_poseidon_tables_of(c)->tag, &t40), "tag 2^40 not kept");
    if (c) {
        test_rand_fr(&in[0]);
        test_rand_fr(&in[1]);
        cuzk_poseidon_hash(c, in, &h1);
        cuzk_poseidon_hash_textbook(c, in, &h2);
        CHECK(cuzk_fr_eq(&h1, &h2), "tag 2^40: optimized and textbook differ");
        cuzk_fr hm;
        cuzk_poseidon_hash(cuzk_poseidon_get(2), in, &hm);
        CHECK(!cuzk_fr_eq(&h1, &hm), "tag 2^40 hashes like the MerkleTree tag");
    }
    cuzk_poseidon_free(c);
}

/* Random inputs and tags against the Python implementation: drawn (and the queries registered)
 * before the script runs, checked afterwards. */
static const unsigned PY_ARITIES[] = {2, 4, 8, 11};
enum { NPY = sizeof PY_ARITIES / sizeof PY_ARITIES[0] };
static cuzk_fr PY_TAG[NPY], PY_IN[NPY][CUZK_POSEIDON_MAX_ARITY];
static char PY_CMD[NPY][1024];

static void prepare_vs_python(void)
{
    for (size_t a = 0; a < NPY; a++) {
        char hex[65];
        test_rand_fr(&PY_TAG[a]);
        fr_hex(hex, &PY_TAG[a]);
        int off = snprintf(PY_CMD[a], sizeof PY_CMD[a], "hash %u %s", PY_ARITIES[a], hex);
        for (unsigned k = 0; k < PY_ARITIES[a]; k++) {
            test_rand_fr(&PY_IN[a][k]);
            fr_hex(hex, &PY_IN[a][k]);
            off += snprintf(PY_CMD[a] + off, sizeof PY_CMD[a] - (size_t)off, " %s", hex);
        }
        ref_add(PY_CMD[a]);
    }
}

static void test_vs_python(void)
{
    for (size_t a = 0; a < NPY; a++) {
        unsigned ar = PY_ARITIES[a];
        const cuzk_poseidon_consts *c = cuzk_poseidon_get_tag(ar, &PY_TAG[a]);
        if (!c) {
            CHECK(0, "no constants for arity %u", ar);
            continue;
        }
        cuzk_fr h;
        char hex[65], **lines = NULL;
        cuzk_poseidon_hash(c, PY_IN[a], &h);
        fr_hex(hex, &h);
        int n = ref_get(PY_CMD[a], &lines);
        CHECK(n == 1 && strcmp(lines[0], hex) == 0, "arity %u random tag: C %s, python %s", ar, hex,
              n == 1 ? lines[0] : "(no output)");
        cuzk_poseidon_free(c);
    }
}

/* ---- API edges ---------------------------------------------------------------------- */

static void *get_in_thread(void *arg)
{
    return (void *)cuzk_poseidon_get(*(unsigned *)arg);
}

static void test_api(void)
{
    CHECK(cuzk_poseidon_get(0) == NULL, "arity 0 accepted");
    CHECK(cuzk_poseidon_get(1) == NULL, "arity 1 accepted");
    CHECK(cuzk_poseidon_get(CUZK_POSEIDON_MAX_ARITY + 1) == NULL, "arity 37 accepted");
    CHECK(cuzk_poseidon_get_tag(2, NULL) == NULL, "NULL tag accepted");
    CHECK(cuzk_poseidon_get_tag(1, &CUZK_FR_ONE) == NULL, "arity 1 with a tag accepted");
    CHECK(cuzk_poseidon_tables_of(NULL) == NULL, "tables of NULL");
    cuzk_poseidon_free(NULL);
    const cuzk_poseidon_consts *s = cuzk_poseidon_get(2);
    cuzk_poseidon_free(s); /* shared: ignored */
    CHECK(cuzk_poseidon_get(2) == s && s != NULL, "shared constants changed after free");
    cuzk_fr tag;
    cuzk_fr_from_u64(&tag, 3);
    CHECK(cuzk_fr_eq(&cuzk_poseidon_tables_of(s)->tag, &tag), "arity 2 MerkleTree tag is not 3");
    cuzk_fr_from_u64(&tag, 2047);
    CHECK(cuzk_fr_eq(&cuzk_poseidon_tables_of(cuzk_poseidon_get(11))->tag, &tag),
          "arity 11 MerkleTree tag is not 2047");
    /* many threads racing for constants nobody asked for yet: one set */
    enum { NT = 6 };
    pthread_t th[NT];
    unsigned arity = 7;
    void *got[NT];
    for (int i = 0; i < NT; i++)
        pthread_create(&th[i], NULL, get_in_thread, &arity);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], &got[i]);
    int same = 1;
    for (int i = 0; i < NT; i++)
        same &= got[i] == got[0] && got[i] != NULL;
    CHECK(same && got[0] == (void *)cuzk_poseidon_get(7), "threads got different arity-7 constants");
}

/* Every query of the Python script, registered before it runs once. */
static void register_queries(void)
{
    ref_add("rounds 3");
    ref_add("rounds 12");
    ref_add("rounds 40");
    ref_add("grain 9 8 57");
    static const unsigned arities[] = {2, 4, 11};
    for (size_t i = 0; i < 3; i++) {
        const cuzk_poseidon_tables *t = cuzk_poseidon_tables_of(cuzk_poseidon_get(arities[i]));
        char q[64];
        if (t) {
            snprintf(q, sizeof q, "grain %u %u %u", t->width, t->rf, t->rp);
            ref_add(q);
        }
    }
    prepare_vs_python();
}

int main(void)
{
    test_rng_init("test_poseidon");
    register_queries();
    ref_run();
    CHECK(REF_OK, "%s did not answer (python3 needed)", REF_SCRIPT);
    test_round_numbers();
    test_grain();
    test_mds();
    test_vectors();
    test_optimized_vs_textbook();
    test_vs_python();
    test_api();
    ref_free();
    return test_finish("test_poseidon");
}
