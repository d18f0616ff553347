/*
 * fuzz_snarkjs.c — libFuzzer target for the .r1cs, .wtns and .zkey readers.
 *
 * Every input goes to all three readers (each rejects the others' magic in a
 * few instructions, so the fuzzer learns all three formats from one corpus:
 * seed it with tests/fixtures/bits/). The bytes are copied into an exact-size
 * heap buffer so AddressSanitizer sees any read past the end. Whatever opens
 * is exercised further: a zkey has every point decoded and every coefficient
 * converted, an r1cs is checked against a witness of ones and its unused
 * wires are counted when it is small enough to allocate one. Properties
 * checked besides memory safety: a failure always comes with a message,
 * success always with an object, the unused-wire counts agree with themselves.
 *
 * Build (clang): cc -fsanitize=fuzzer,address,undefined -Iinclude -Isrc
 *   tests/fuzz/fuzz_snarkjs.c src/(all library sources) -lpthread -lm
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/snarkjs.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

static void run_r1cs(const uint8_t *d, size_t n)
{
    char err[256] = "";
    cuzk_snarkjs_r1cs *r = NULL;
    int rc = cuzk_snarkjs_r1cs_from_buffer(d, n, &r, err, sizeof err);
    require((rc == CUZK_OK) == (r != NULL) && (rc == CUZK_OK || err[0]));
    if (r && r->n_wires <= (1u << 16)) {
        cuzk_fr *w = malloc((size_t)r->n_wires * sizeof *w + sizeof *w);
        for (uint32_t i = 0; i < r->n_wires; i++)
            w[i] = CUZK_FR_ONE;
        int64_t bad = cuzk_snarkjs_r1cs_check(r, w, r->n_wires);
        require(bad >= -1 && bad < (int64_t)r->n_constraints);
        free(w);
        /* the unused wires: counts that add up below n_wires, the first one among them */
        uint64_t pub = 0, prv = 0;
        uint32_t first = 0;
        require(cuzk_snarkjs_r1cs_unused(r, &pub, &prv, &first) == CUZK_OK);
        require(pub + prv < r->n_wires && (first == 0) == (pub + prv == 0) && first < r->n_wires);
        require(pub <= (uint64_t)r->n_pub_out + r->n_pub_in);
    }
    cuzk_snarkjs_r1cs_free(r);
}

static void run_wtns(const uint8_t *d, size_t n)
{
    char err[256] = "";
    cuzk_snarkjs_wtns *w = NULL;
    int rc = cuzk_snarkjs_wtns_from_buffer(d, n, &w, err, sizeof err);
    require((rc == CUZK_OK) == (w != NULL) && (rc == CUZK_OK || err[0]));
    cuzk_snarkjs_wtns_free(w);
}

static void run_zkey(const uint8_t *d, size_t n)
{
    char err[256] = "";
    cuzk_snarkjs_zkey *z = NULL;
    int rc = cuzk_snarkjs_zkey_from_buffer(d, n, &z, err, sizeof err);
    require((rc == CUZK_OK) == (z != NULL) && (rc == CUZK_OK || err[0]));
    if (z) {
        rc = cuzk_snarkjs_zkey_check_points(z, 0, err, sizeof err);
        require(rc == CUZK_OK || err[0]);
        cuzk_snarkjs_coef c;
        for (size_t k = 0; k < z->n_coefs; k++)
            require(cuzk_snarkjs_zkey_coef(z, k, &c) == CUZK_OK && c.matrix <= 1 && c.signal < z->n_vars);
    }
    cuzk_snarkjs_zkey_free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    run_r1cs(copy, size);
    run_wtns(copy, size);
    run_zkey(copy, size);
    free(copy);
    return 0;
}
