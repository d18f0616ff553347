/*
 * testutil.c — assertion counters, the seeded random stream, hex decoding and
 * the vector-file reader described in testutil.h.
 */
#include "testutil.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cuzk/prove.h"
#include "cuzk/setup.h"
#include "cuzk/verify.h"

long test_passed, test_failed;

void test_fail_at(const char *file, int line, const char *fmt, ...)
{
    test_failed++;
    fprintf(stderr, "FAIL %s:%d: ", file, line);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (test_failed > 50) {
        fprintf(stderr, "too many failures, stopping\n");
        printf("%ld passed, %ld failed\n", test_passed, test_failed);
        exit(1);
    }
}

int test_finish(const char *name)
{
    printf("%s: %ld passed, %ld failed\n", name, test_passed, test_failed);
    return test_failed ? 1 : 0;
}

static uint64_t rng_s[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t test_rand64(void)
{
    uint64_t r = rotl(rng_s[1] * 5, 7) * 9, t = rng_s[1] << 17;
    rng_s[2] ^= rng_s[0];
    rng_s[3] ^= rng_s[1];
    rng_s[1] ^= rng_s[2];
    rng_s[0] ^= rng_s[3];
    rng_s[2] ^= t;
    rng_s[3] = rotl(rng_s[3], 45);
    return r;
}

void test_rng_init(const char *name)
{
    uint64_t seed = 0;
    const char *env = getenv("CUZK_TEST_SEED");
    if (env && *env)
        seed = strtoull(env, NULL, 16);
    else if (getrandom(&seed, sizeof seed, 0) != sizeof seed)
        seed = 0x5eed;
    printf("%s: seed %016llx (replay with CUZK_TEST_SEED=%llx)\n", name, (unsigned long long)seed,
           (unsigned long long)seed);
    for (int i = 0; i < 4; i++) { /* splitmix64 expansion */
        seed += 0x9e3779b97f4a7c15ull;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        rng_s[i] = z ^ (z >> 31);
    }
}

void test_rand_bytes(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        uint64_t v = test_rand64();
        size_t k = n < 8 ? n : 8;
        memcpy(p, &v, k);
        p += k;
        n -= k;
    }
}

void test_rand_fp(cuzk_fp *r)
{
    uint64_t x[6];
    do {
        for (int i = 0; i < 6; i++)
            x[i] = test_rand64();
        x[5] &= (1ull << 61) - 1;
    } while (!cuzk_fp_from_canonical(r, x));
}

void test_rand_fr(cuzk_fr *r)
{
    uint64_t x[4];
    do {
        for (int i = 0; i < 4; i++)
            x[i] = test_rand64();
        x[3] &= (1ull << 63) - 1;
    } while (!cuzk_fr_from_canonical(r, x));
}

void test_rand_fp2(cuzk_fp2 *r)
{
    test_rand_fp(&r->c0);
    test_rand_fp(&r->c1);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool hex_decode(uint8_t *out, size_t n, const char *hex)
{
    if (strlen(hex) != 2 * n)
        return false;
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

void hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char d[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[in[i] >> 4];
        out[2 * i + 1] = d[in[i] & 15];
    }
    out[2 * n] = 0;
}

bool hex_fp(cuzk_fp *r, const char *hex)
{
    uint8_t b[48];
    return hex_decode(b, 48, hex) && cuzk_fp_from_be48(r, b);
}

bool hex_fr(cuzk_fr *r, const char *hex)
{
    uint8_t b[32];
    return hex_decode(b, 32, hex) && cuzk_fr_from_be32(r, b);
}

bool hex_fp2(cuzk_fp2 *r, const char *c0, const char *c1)
{
    return hex_fp(&r->c0, c0) && hex_fp(&r->c1, c1);
}

bool hex_limbs(uint64_t *limbs, size_t nlimbs, const char *hex)
{
    size_t len = strlen(hex);
    memset(limbs, 0, nlimbs * sizeof *limbs);
    for (size_t i = 0; i < len; i++) {
        int v = hexval(hex[len - 1 - i]);
        if (v < 0)
            return false;
        if (i / 16 >= nlimbs) {
            if (v)
                return false;
            continue;
        }
        limbs[i / 16] |= (uint64_t)v << (4 * (i % 16));
    }
    return true;
}

void *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    if (buf) {
        buf[n] = 0;
        *len = (size_t)n;
    }
    return buf;
}

void *test_read_fixture(const char *circuit, const char *file, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s/%s", TEST_FIXTURE_DIR, circuit, file);
    void *d = test_read_file(path, len);
    if (!d)
        test_fail_at(__FILE__, __LINE__, "cannot read %s", path);
    return d;
}

bool vec_open(vec_file *v, const char *name)
{
    memset(v, 0, sizeof *v);
    snprintf(v->path, sizeof v->path, "%s/%s", CUZK_VECTOR_DIR, name);
    v->f = fopen(v->path, "r");
    if (!v->f) {
        test_fail_at(__FILE__, __LINE__, "cannot open vector file %s", v->path);
        return false;
    }
    return true;
}

bool vec_next(vec_file *v)
{
    for (;;) {
        ssize_t n = getline(&v->line, &v->cap, v->f);
        if (n < 0)
            return false;
        v->lineno++;
        char *p = v->line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '#' || *p == '\n' || *p == 0)
            continue;
        v->ntok = 0;
        for (char *save = NULL, *t = strtok_r(p, " \t\r\n", &save); t && v->ntok < VEC_MAX_TOKENS;
             t = strtok_r(NULL, " \t\r\n", &save))
            v->tok[v->ntok++] = t;
        return true;
    }
}

void vec_close(vec_file *v)
{
    if (v->f)
        fclose(v->f);
    free(v->line);
    memset(v, 0, sizeof *v);
}

int64_t test_naive_first_failure(const cuzk_cs *sys, const cuzk_fr *z)
{
    const cuzk_csr *m[3] = {&sys->a, &sys->b, &sys->c};
    for (size_t r = 0; r < sys->n_constraints; r++) {
        cuzk_fr v[3], t;
        for (int k = 0; k < 3; k++) {
            v[k] = CUZK_FR_ZERO;
            for (uint64_t i = m[k]->row[r]; i < m[k]->row[r + 1]; i++) {
                cuzk_fr_mul(&t, cuzk_csr_coef(m[k], i), &z[m[k]->col[i]]);
                cuzk_fr_add(&v[k], &v[k], &t);
            }
        }
        cuzk_fr_mul(&t, &v[0], &v[1]);
        if (!cuzk_fr_eq(&t, &v[2]))
            return (int64_t)r;
    }
    return -1;
}

void test_cs_plain_copy(cuzk_cs *out, const cuzk_cs *cs)
{
    *out = *cs;
    const cuzk_csr *src[3] = {&cs->a, &cs->b, &cs->c};
    cuzk_csr *dst[3] = {&out->a, &out->b, &out->c};
    for (int i = 0; i < 3; i++) {
        memset(dst[i], 0, sizeof *dst[i]);
        dst[i]->nnz = src[i]->nnz;
        dst[i]->row = malloc((cs->n_constraints + 1) * sizeof *dst[i]->row);
        dst[i]->col = malloc((src[i]->nnz + 1) * sizeof *dst[i]->col);
        dst[i]->val = malloc((src[i]->nnz + 1) * sizeof *dst[i]->val);
        memcpy(dst[i]->row, src[i]->row, (cs->n_constraints + 1) * sizeof *dst[i]->row);
        memcpy(dst[i]->col, src[i]->col, src[i]->nnz * sizeof *dst[i]->col);
        for (uint64_t k = 0; k < src[i]->nnz; k++)
            dst[i]->val[k] = *cuzk_csr_coef(src[i], k);
    }
}

void test_groth16_roundtrip(cuzk_groth16_params *pk, const cuzk_cs *sys, const cuzk_fr *z, size_t tamper,
                            const char *what)
{
    char err[256] = "";
    size_t n_pub = sys->n_inputs - 1;
    memset(pk, 0, sizeof *pk);
    int rc = cuzk_groth16_setup(pk, sys, NULL, NULL, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: setup: %s", what, err);
    cuzk_groth16_proof proof;
    if (rc == CUZK_OK) {
        rc = cuzk_groth16_prove(&proof, pk, sys, z, NULL, NULL, NULL, err, sizeof err);
        CHECK(rc == CUZK_OK, "%s: prove: %s", what, err);
    }
    if (rc != CUZK_OK)
        return;
    cuzk_groth16_pvk pvk;
    rc = cuzk_groth16_prepare(&pvk, &pk->vk, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: prepare: %s", what, err);
    rc = cuzk_groth16_verify(&pvk, z + 1, n_pub, &proof, err, sizeof err);
    CHECK(rc == CUZK_OK, "%s: the proof verifies: %s", what, err);
    if (tamper >= n_pub)
        return;
    cuzk_fr *bad = malloc(n_pub * sizeof *bad);
    memcpy(bad, z + 1, n_pub * sizeof *bad);
    cuzk_fr_add(&bad[tamper], &bad[tamper], &CUZK_FR_ONE);
    rc = cuzk_groth16_verify(&pvk, bad, n_pub, &proof, NULL, 0);
    CHECK(rc == CUZK_EVERIFY, "%s: public input %zu plus one fails (%d)", what, tamper, rc);
    free(bad);
}

char *test_run_capture(const char *cmd)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 4096, n = 0, k;
    char *buf = malloc(cap);
    while (buf && (k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += k;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown)
                free(buf);
            buf = grown;
        }
    }
    int st = pclose(p);
    if (!buf)
        return NULL;
    buf[n] = 0;
    if (st != 0) {
        fprintf(stderr, "command failed (status %d): %s\n", st, cmd);
        free(buf);
        return NULL;
    }
    return buf;
}

int test_dir_count(const char *dir, const char *part)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && (!part || strstr(e->d_name, part)))
            n++;
    closedir(d);
    return n;
}

void test_dir_clear(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (unlink(path) != 0)
                rmdir(path);
        }
    closedir(d);
}
