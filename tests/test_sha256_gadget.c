/*
 * test_sha256_gadget.c — native SHA-256 and the SHA-256 gadget.
 *
 * Oracles:
 * - native SHA-256: the FIPS 180-2 example vectors ("abc", the 448-bit
 *   two-block message, one million 'a'), the empty message, and python3's
 *   hashlib.sha256 on random messages (fed to the streaming interface in
 *   random pieces);
 * - the gadget's digest bits equal native SHA-256 on fresh random messages
 *   of many byte lengths (padding inside one block, spilling into a second,
 *   several blocks), with every message bit allocated, or a random mix of
 *   allocated and constant bits; the witness satisfies every recorded row
 *   (the builder's CHECK and cuzk_cs_check on the finished system);
 * - constraint counts asserted by bellperson's tests: 25,840 rows for one
 *   block of 512 allocated bits from the IV, 44,874 for a 512-bit message,
 *   0 for the empty message (whose digest must still be right); the
 *   Filecoin block counts of porep-circuit.md §6.3 (25,363 / 26,184 /
 *   25,593 / 19,034, 26,192 on a variable state) and the SHA-256 Merkle
 *   node (45,379), whose value must equal the native hash of the two
 *   numbers' LE bytes with the top two bits cleared;
 * - the witness-only builder (VALUES without RECORD) yields exactly the
 *   witness of the recording builder;
 * - a flipped witness bit is caught: the row CHECK names equals the first
 *   failing row of a naive loop over the recorded system.
 * `test_sha256_gadget bench` prints the witness time per block in the
 * builder's modes (docs/design/015-circuit-builder.md).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cuzk/catalog.h"
#include "cuzk/csb.h"
#include "cuzk/gadgets.h"
#include "cuzk/sha256.h"
#include "testutil.h"

static void digest_hex(char out[65], const uint8_t d[32])
{
    hex_encode(out, d, 32);
}

static void test_native(void)
{
    static const struct {
        const char *msg, *hex;
    } V[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    uint8_t d[32];
    char hex[65];
    for (size_t i = 0; i < sizeof V / sizeof V[0]; i++) {
        cuzk_sha256(d, V[i].msg, strlen(V[i].msg));
        digest_hex(hex, d);
        CHECK(!strcmp(hex, V[i].hex), "SHA-256(\"%s\") = %s", V[i].msg, hex);
    }
    cuzk_sha256_ctx s;
    cuzk_sha256_init(&s);
    char a[1000];
    memset(a, 'a', sizeof a);
    for (int i = 0; i < 1000; i++)
        cuzk_sha256_update(&s, a, sizeof a);
    cuzk_sha256_final(&s, d);
    digest_hex(hex, d);
    CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
          "SHA-256 of a million 'a' = %s", hex);

    enum { N = 30 };
    char path[] = "/tmp/cuzk_sha_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0)
        return;
    FILE *f = fdopen(fd, "w");
    char mine[N][65];
    for (int i = 0; i < N; i++) {
        size_t len = (size_t)(test_rand64() % 200);
        uint8_t *m = malloc(len + 1);
        test_rand_bytes(m, len);
        char *h = malloc(2 * len + 1);
        hex_encode(h, m, len);
        fprintf(f, "%s\n", len ? h : "-");
        cuzk_sha256_init(&s);
        for (size_t at = 0; at < len;) {
            size_t k = test_rand64() % 80;
            if (k > len - at)
                k = len - at;
            cuzk_sha256_update(&s, m + at, k);
            at += k;
        }
        cuzk_sha256_final(&s, d);
        digest_hex(mine[i], d);
        free(h);
        free(m);
    }
    fclose(f);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "python3 -c 'import hashlib,sys\n"
             "for l in open(sys.argv[1]).read().split():\n"
             "  print(hashlib.sha256(b\"\" if l==\"-\" else bytes.fromhex(l)).hexdigest())' %s",
             path);
    char *out = test_run_capture(cmd);
    CHECK(out != NULL, "python3 hashlib.sha256 did not run");
    char *line = out ? strtok(out, "\n") : NULL;
    for (int i = 0; i < N && out; i++) {
        CHECK(line && !strcmp(line, mine[i]), "SHA-256 of random bytes: %s, python %s", mine[i],
              line ? line : "-");
        line = strtok(NULL, "\n");
    }
    free(out);
    unlink(path);
}

/* Builds SHA-256 of msg (len bytes) in a builder with flags; constant bits where mask (if given) says so.
 * Returns the builder; *ok says whether the digest bits equal the native digest. */
static cuzk_csb *hash_in_builder(unsigned flags, const uint8_t *msg, size_t len, const uint8_t *mask,
                                 bool *ok, uint64_t *rows)
{
    cuzk_csb *cs = cuzk_csb_new(flags);
    cuzk_bool *bits = malloc((8 * len + 1) * sizeof *bits), out[256];
    for (size_t i = 0; i < 8 * len; i++) {
        bool b = (msg[i / 8] >> (7 - i % 8)) & 1;
        if (mask && (mask[i / 8] >> (i % 8)) & 1)
            bits[i] = cuzk_bool_const(b);
        else
            cuzk_bit_alloc(cs, b, &bits[i]);
    }
    uint64_t r0 = cuzk_csb_n_constraints(cs);
    int rc = cuzk_sha256_gadget(cs, bits, 8 * len, out);
    if (rows)
        *rows = cuzk_csb_n_constraints(cs) - r0;
    uint8_t d[32];
    cuzk_sha256(d, msg, len);
    *ok = rc == CUZK_OK;
    for (int i = 0; i < 256; i++)
        *ok = *ok && out[i].val == ((d[i / 8] >> (7 - i % 8)) & 1);
    if (flags & CUZK_CSB_VALUES) /* the digest bits' values in the builder agree with the Booleans */
        for (int i = 0; i < 256; i++)
            if (out[i].kind != CUZK_BOOL_CONST) {
                cuzk_fr v;
                cuzk_csb_value(cs, out[i].var, &v);
                bool bv = out[i].kind == CUZK_BOOL_IS ? cuzk_fr_is_one(&v) : cuzk_fr_is_zero(&v);
                *ok = *ok && bv == out[i].val;
            }
    free(bits);
    return cs;
}

static void test_gadget_digests(void)
{
    static const size_t LENS[] = {0, 1, 3, 31, 55, 56, 63, 64, 65, 100, 119, 120, 128, 200};
    for (size_t i = 0; i < sizeof LENS / sizeof LENS[0]; i++) {
        size_t len = LENS[i];
        uint8_t *m = malloc(len + 1), *mask = malloc(len + 1);
        test_rand_bytes(m, len);
        test_rand_bytes(mask, len);
        bool ok;
        uint64_t rows;
        /* all allocated, witness only */
        cuzk_csb *cs = hash_in_builder(CUZK_CSB_VALUES, m, len, NULL, &ok, NULL);
        CHECK(ok && cuzk_csb_error(cs) == CUZK_OK, "witness-only gadget digest of %zu random bytes", len);
        cuzk_fr *zv = NULL;
        cuzk_csb_finish(cs, NULL, &zv);
        uint64_t nv = cuzk_csb_n_inputs(cs) + cuzk_csb_n_aux(cs), rows_v = cuzk_csb_n_constraints(cs);
        cuzk_csb_free(cs);
        /* all allocated, recorded and checked */
        cs = hash_in_builder(CUZK_CSB_RECORD | CUZK_CSB_VALUES | CUZK_CSB_CHECK, m, len, NULL, &ok, &rows);
        CHECK(ok, "recorded gadget digest of %zu random bytes", len);
        CHECK(cuzk_csb_first_failure(cs) == -1, "%zu bytes: CHECK finds row %lld failing", len,
              (long long)cuzk_csb_first_failure(cs));
        CHECK(rows_v == cuzk_csb_n_constraints(cs), "%zu bytes: both modes count the same rows", len);
        cuzk_cs sys;
        cuzk_fr *z = NULL;
        CHECK(cuzk_csb_finish(cs, &sys, &z) == CUZK_OK, "finish");
        CHECK(z && zv && nv == sys.n_inputs + sys.n_aux && !memcmp(z, zv, nv * sizeof *z),
              "%zu bytes: the witness-only witness equals the recorded one", len);
        CHECK(cuzk_cs_check(&sys, z, NULL) == -1, "%zu bytes: cuzk_cs_check satisfied", len);
        if (len == 64)
            CHECK(rows == 44874, "512-bit message: %llu rows, expected 44,874", (unsigned long long)rows);
        if (len == 0)
            CHECK(rows == 0 && cuzk_csb_n_aux(cs) == 0, "empty message: %llu rows, expected 0",
                  (unsigned long long)rows);
        cuzk_cs_free(&sys);
        free(z);
        free(zv);
        cuzk_csb_free(cs);
        /* a random mix of constant and allocated bits */
        cs = hash_in_builder(CUZK_CSB_VALUES | CUZK_CSB_CHECK, m, len, mask, &ok, NULL);
        CHECK(ok && cuzk_csb_first_failure(cs) == -1, "%zu bytes with constant bits: digest and rows", len);
        cuzk_csb_free(cs);
        /* all constant: no row at all, right digest */
        memset(mask, 0xff, len);
        cs = hash_in_builder(CUZK_CSB_RECORD | CUZK_CSB_VALUES, m, len, mask, &ok, &rows);
        CHECK(ok && rows == 0 && cuzk_csb_n_aux(cs) == 0, "%zu constant bytes: %llu rows, digest %s", len,
              (unsigned long long)rows, ok ? "right" : "wrong");
        cuzk_csb_free(cs);
        free(m);
        free(mask);
    }
    cuzk_bool out[256];
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD);
    CHECK(cuzk_sha256_gadget(cs, NULL, 0, out) == CUZK_OK, "empty message without values");
    cuzk_bool b[3] = {cuzk_bool_const(0), cuzk_bool_const(1), cuzk_bool_const(0)};
    CHECK(cuzk_sha256_gadget(cs, b, 3, out) == CUZK_EINVAL, "3 bits refused (not a multiple of 8)");
    cuzk_csb_free(cs);
}

static void test_counts(void)
{
    static const struct {
        const char *name;
        uint64_t rows;
    } C[] = {
        {"sha256-block", 25840},       {"sha256-2block", 44874},       {"sha256-blank", 0},
        {"sha256-state-block", 26192}, {"sha256-label-block0", 25363}, {"sha256-label-parents", 26184},
        {"sha256-label-last", 25593},  {"sha256-pad-block", 19034},    {"sha256-node", 45379},
    };
    for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        uint64_t setup = 0;
        char err[256] = "";
        int rc = cuzk_catalog_build(C[i].name, test_rand64(), cs, &setup, err, sizeof err);
        uint64_t rows = cuzk_csb_n_constraints(cs) - setup;
        CHECK(rc == CUZK_OK && rows == C[i].rows, "%s: %llu gadget rows, expected %llu (%s)", C[i].name,
              (unsigned long long)rows, (unsigned long long)C[i].rows, err);
        CHECK(cuzk_csb_first_failure(cs) == -1, "%s: witness satisfies every row", C[i].name);
        cuzk_csb_free(cs);
    }
    /* 512 allocated bits + the compression from the IV: 512 + 25,840 rows in all */
    cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_RECORD);
    cuzk_catalog_build("sha256-block", 1, cs, NULL, NULL, 0);
    CHECK(cuzk_csb_n_constraints(cs) == 512 + 25840, "sha256-block: %llu rows in all",
          (unsigned long long)cuzk_csb_n_constraints(cs));
    cuzk_csb_free(cs);
}

static void test_node_value(void)
{
    for (int t = 0; t < 4; t++) {
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        cuzk_num leaves[2], out;
        uint8_t msg[64], d[32];
        for (int k = 0; k < 2; k++) {
            cuzk_fr v;
            test_rand_fr(&v);
            cuzk_num_alloc(cs, &v, &leaves[k]);
            cuzk_fr_to_le32(msg + 32 * k, &v);
        }
        cuzk_sha256_node_gadget(cs, leaves, 2, &out);
        cuzk_sha256(d, msg, 64);
        d[31] &= 0x3f;
        cuzk_fr want, got;
        cuzk_fr_from_le32(&want, d);
        cuzk_csb_value(cs, out.var, &got);
        CHECK(cuzk_fr_eq(&want, &out.val) && cuzk_fr_eq(&want, &got),
              "SHA-256 node = native SHA-256 of the LE bytes, top two bits cleared");
        CHECK(cuzk_csb_first_failure(cs) == -1 && cuzk_csb_n_constraints(cs) == 45379,
              "node rows %llu satisfied", (unsigned long long)cuzk_csb_n_constraints(cs));
        cuzk_csb_free(cs);
    }
}

/* Flips one message bit's value in the builder after its own row, before the compression uses it. */
static void test_flipped(void)
{
    for (int t = 0; t < 5; t++) {
        uint64_t seed = test_rand64();
        size_t victim = test_rand64() % 512;
        /* the honest system and witness */
        cuzk_csb *rec = cuzk_csb_new(CUZK_CSB_RECORD | CUZK_CSB_VALUES);
        cuzk_catalog_build("sha256-block", seed, rec, NULL, NULL, 0);
        cuzk_cs sys;
        cuzk_fr *z = NULL;
        cuzk_csb_finish(rec, &sys, &z);
        cuzk_csb_free(rec);
        /* the same circuit in CHECK mode, one input bit flipped just before the gadget */
        cuzk_csb *cs = cuzk_csb_new(CUZK_CSB_VALUES | CUZK_CSB_CHECK);
        uint64_t state = seed;
        cuzk_bool in[512];
        for (int i = 0; i < 512; i++) { /* the catalog's splitmix64 stream, one bit per draw */
            uint64_t x = (state += 0x9e3779b97f4a7c15ull);
            x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
            x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
            cuzk_bit_alloc(cs, (x ^ (x >> 31)) & 1, &in[i]);
        }
        cuzk_fr flipped;
        cuzk_fr_sub(&flipped, &CUZK_FR_ONE, &z[1 + victim]); /* 1 - b */
        cuzk_csb_set_value(cs, in[victim].var, &flipped);
        cuzk_u32 st[8];
        cuzk_sha256_gadget_iv(st);
        cuzk_sha256_compression_gadget(cs, in, st, st);
        /* the naive loop over the recorded rows with the same value flipped */
        z[1 + victim] = flipped;
        int64_t want = test_naive_first_failure(&sys, z);
        CHECK(want >= 512, "a flipped message bit breaks a gadget row (naive loop: %lld)", (long long)want);
        CHECK(cuzk_csb_first_failure(cs) == want, "CHECK names row %lld, the naive loop %lld",
              (long long)cuzk_csb_first_failure(cs), (long long)want);
        CHECK(cuzk_cs_check(&sys, z, NULL) == want, "cuzk_cs_check names row %lld too", (long long)want);
        /* and one flipped bit of an internal aux value (all SHA-256 aux are bits) */
        cuzk_fr_sub(&z[1 + victim], &CUZK_FR_ONE, &z[1 + victim]);
        size_t k = 1 + 512 + test_rand64() % (sys.n_aux - 512);
        cuzk_fr_sub(&z[k], &CUZK_FR_ONE, &z[k]);
        int64_t r = cuzk_cs_check(&sys, z, NULL);
        CHECK(r >= 512, "a flipped internal bit (variable %zu) is caught, row %lld", k, (long long)r);
        cuzk_csb_free(cs);
        cuzk_cs_free(&sys);
        free(z);
    }
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Witness time per compression (512 allocated bits from the IV) in the builder's modes. */
static void bench(void)
{
    static const struct {
        const char *name;
        unsigned flags;
        int reps;
    } M[] = {
        {"VALUES (witness only)", CUZK_CSB_VALUES, 50},
        {"VALUES + CHECK", CUZK_CSB_VALUES | CUZK_CSB_CHECK, 40},
        {"RECORD (structure only)", CUZK_CSB_RECORD, 40},
        {"RECORD + VALUES", CUZK_CSB_RECORD | CUZK_CSB_VALUES, 40},
    };
    uint8_t native[64] = {1};
    uint32_t st[8];
    double t0 = now_us();
    for (int i = 0; i < 100000; i++) {
        memcpy(st, CUZK_SHA256_IV, sizeof st);
        native[0] = (uint8_t)i;
        cuzk_sha256_compress(st, native);
    }
    printf("native compression: %.3f us/block\n", (now_us() - t0) / 100000);
    for (size_t m = 0; m < sizeof M / sizeof M[0]; m++) {
        double best = 1e30;
        for (int rep = 0; rep < M[m].reps; rep++) { /* a fresh builder per block: no growth of old arrays */
            cuzk_csb *cs = cuzk_csb_new(M[m].flags);
            cuzk_bool in[512];
            for (int i = 0; i < 512; i++)
                cuzk_bit_alloc(cs, (i * 7 + rep) % 3 == 0, &in[i]);
            cuzk_u32 iv[8];
            cuzk_sha256_gadget_iv(iv);
            double s = now_us();
            cuzk_sha256_compression_gadget(cs, in, iv, iv);
            double per = now_us() - s;
            if (per < best)
                best = per;
            cuzk_csb_free(cs);
        }
        printf("%-26s %9.1f us/block  (%.2f M rows/s, best of %d)\n", M[m].name, best, 25840 / best,
               M[m].reps);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "bench")) {
        bench();
        return 0;
    }
    test_rng_init("test_sha256_gadget");
    test_native();
    test_gadget_digests();
    test_counts();
    test_node_value();
    test_flipped();
    return test_finish("test_sha256_gadget");
}
