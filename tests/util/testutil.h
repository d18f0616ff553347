/*
 * testutil.h — the small harness every cuzk test uses.
 *
 * - CHECK(cond, fmt, ...) records a failure with file:line and a message and
 *   carries on, so one run reports every broken case; test_finish() prints
 *   "N passed, N failed" and returns the exit status.
 * - Randomness: each run draws a fresh seed from getrandom() and prints it;
 *   CUZK_TEST_SEED=<hex> replays a run exactly.
 * - Vector files (tests/vectors/NAME.txt, see its README): vec_open() and
 *   vec_next() walk the lines, splitting them into tokens; hex helpers decode
 *   field elements and points.
 */
#ifndef CUZK_TESTUTIL_H
#define CUZK_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/cs.h"
#include "cuzk/field.h"
#include "cuzk/groth16.h"

extern long test_passed, test_failed;

void test_fail_at(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond)                                                                                  \
            test_passed++;                                                                         \
        else                                                                                       \
            test_fail_at(__FILE__, __LINE__, __VA_ARGS__);                                         \
    } while (0)

/* Prints the summary line and returns the process exit status. */
int test_finish(const char *name);

/* Seeded xoshiro256** stream; test_rng_init() seeds from CUZK_TEST_SEED or getrandom(). */
void test_rng_init(const char *name);
uint64_t test_rand64(void);
void test_rand_bytes(void *buf, size_t n);
void test_rand_fp(cuzk_fp *r);
void test_rand_fr(cuzk_fr *r);
void test_rand_fp2(cuzk_fp2 *r);

/* Hex: returns false on bad characters or wrong length. */
bool hex_decode(uint8_t *out, size_t n, const char *hex);
void hex_encode(char *out, const uint8_t *in, size_t n); /* out holds 2n+1 */
bool hex_fp(cuzk_fp *r, const char *hex);                 /* 96 hex, canonical BE */
bool hex_fr(cuzk_fr *r, const char *hex);                 /* 64 hex, canonical BE */
bool hex_fp2(cuzk_fp2 *r, const char *c0, const char *c1);
/* Decodes a big-endian hex integer of any length into little-endian limbs. */
bool hex_limbs(uint64_t *limbs, size_t nlimbs, const char *hex);

/* Whole-file reads for tests: the bytes plus a NUL after them (not counted in
 * *len); NULL if the file cannot be read. The caller frees. */
void *test_read_file(const char *path, size_t *len);
/* Scratch directories: the entries of dir (not . and ..) whose name contains part (NULL: every entry),
 * -1 if dir cannot be read; and removing every entry (files, empty directories), leaving dir itself. */
int test_dir_count(const char *dir, const char *part);
void test_dir_clear(const char *dir);
/* tests/fixtures/<circuit>/<file>; a missing file is a test failure. */
#define TEST_FIXTURE_DIR CUZK_VECTOR_DIR "/../fixtures"
void *test_read_fixture(const char *circuit, const char *file, size_t *len);

/* Vector files. */
#define VEC_MAX_TOKENS 160
typedef struct {
    FILE *f;
    char *line;
    size_t cap;
    int lineno;
    char path[512];
    int ntok;
    char *tok[VEC_MAX_TOKENS];
} vec_file;

/* Opens tests/vectors/<name>; a missing file is a test failure, not a skip. */
bool vec_open(vec_file *v, const char *name);
/* Next non-comment line; tok[0] is the op. Returns false at end of file. */
bool vec_next(vec_file *v);
void vec_close(vec_file *v);

/* The first circuit row of sys that z does not satisfy (A·z · B·z != C·z), or -1: a naive loop over the
 * terms, independent of cuzk_cs_check, for tests to compare against. */
int64_t test_naive_first_failure(const cuzk_cs *sys, const cuzk_fr *z);

/* A deep copy of cs in the plain form (one Fr per term, read through cuzk_csr_coef, so either form of cs
 * works); free with cuzk_cs_free. Written here so that a conversion under test has an untouched twin. */
void test_cs_plain_copy(cuzk_cs *out, const cuzk_cs *cs);

/* Groth16 round trip of a finished circuit through our setup, prover and verifier: the proof must verify
 * with the public inputs z[1 .. n_inputs) and fail with input `tamper` (0-based among them) plus one.
 * Failures are CHECKs naming `what`. Fills *pk (caller frees with cuzk_groth16_params_free; zeroed when
 * the setup failed). */
void test_groth16_roundtrip(cuzk_groth16_params *pk, const cuzk_cs *sys, const cuzk_fr *z, size_t tamper,
                            const char *what);

/* Runs a shell command and returns its whole stdout, NUL-terminated (caller frees), or NULL when it could
 * not run or exited non-zero (then said on stderr). For tests that ask python3 for an independent answer. */
char *test_run_capture(const char *cmd);

#endif
