/*
 * fuzz_points.c — libFuzzer target for the point decoders of cuzk/serialize.h
 * and the 192-byte proof readers of cuzk/verify.h.
 *
 * The input is offered whole to the length-dispatching decoders
 * (cuzk_g1_decode, cuzk_g2_decode) and to cuzk_groth16_proofs_from_bytes,
 * and its leading bytes to every fixed-size reader, each under all four
 * combinations of CUZK_DECODE_CHECK_GROUP and CUZK_DECODE_REJECT_IDENTITY
 * (and both Montgomery settings for the snarkjs form). Every fixed-size
 * reader gets an exact-size heap copy so AddressSanitizer sees a read past
 * the end. Properties checked besides memory safety:
 *   - every encoding accepted is canonical: encoding the decoded point again
 *     gives back the same bytes;
 *   - a failure leaves the output untouched and comes with a message;
 *   - the flags only narrow: a point accepted with a flag is accepted without
 *     it, as the same point; REJECT_IDENTITY never lets the identity through.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/serialize.h"
#include "cuzk/verify.h"

static void require(int cond)
{
    if (!cond)
        abort();
}

static uint8_t *dup_bytes(const uint8_t *d, size_t n)
{
    uint8_t *p = malloc(n ? n : 1);
    if (p)
        memcpy(p, d, n);
    return p;
}

/* Checks the status/err/output contract of one decode and the flag ordering against base (flags 0). */
static void check_g1(int rc, const char *err, const cuzk_g1_affine *p, const cuzk_g1_affine *sentinel,
                     unsigned flags, int base_rc, const cuzk_g1_affine *base)
{
    if (rc != CUZK_OK) {
        require(err[0] != 0 && memcmp(p, sentinel, sizeof *p) == 0);
        return;
    }
    require(base_rc == CUZK_OK && cuzk_g1_affine_eq(p, base));
    if (flags & CUZK_DECODE_REJECT_IDENTITY)
        require(!cuzk_g1_affine_is_identity(p));
}

static void check_g2(int rc, const char *err, const cuzk_g2_affine *p, const cuzk_g2_affine *sentinel,
                     unsigned flags, int base_rc, const cuzk_g2_affine *base)
{
    if (rc != CUZK_OK) {
        require(err[0] != 0 && memcmp(p, sentinel, sizeof *p) == 0);
        return;
    }
    require(base_rc == CUZK_OK && cuzk_g2_affine_eq(p, base));
    if (flags & CUZK_DECODE_REJECT_IDENTITY)
        require(!cuzk_g2_affine_is_identity(p));
}

typedef int (*g1_reader)(cuzk_g1_affine *, const uint8_t *, unsigned, char *, size_t);
typedef int (*g2_reader)(cuzk_g2_affine *, const uint8_t *, unsigned, char *, size_t);
typedef void (*g1_writer)(uint8_t *, const cuzk_g1_affine *);
typedef void (*g2_writer)(uint8_t *, const cuzk_g2_affine *);

static int g1_snarkjs_std(cuzk_g1_affine *o, const uint8_t *in, unsigned f, char *e, size_t el)
{
    return cuzk_g1_from_snarkjs(o, in, false, f, e, el);
}
static int g1_snarkjs_mont(cuzk_g1_affine *o, const uint8_t *in, unsigned f, char *e, size_t el)
{
    return cuzk_g1_from_snarkjs(o, in, true, f, e, el);
}
static void g1_to_snarkjs_std(uint8_t *out, const cuzk_g1_affine *a)
{
    cuzk_g1_to_snarkjs(out, a, false);
}
static void g1_to_snarkjs_mont(uint8_t *out, const cuzk_g1_affine *a)
{
    cuzk_g1_to_snarkjs(out, a, true);
}
static int g2_snarkjs_std(cuzk_g2_affine *o, const uint8_t *in, unsigned f, char *e, size_t el)
{
    return cuzk_g2_from_snarkjs(o, in, false, f, e, el);
}
static int g2_snarkjs_mont(cuzk_g2_affine *o, const uint8_t *in, unsigned f, char *e, size_t el)
{
    return cuzk_g2_from_snarkjs(o, in, true, f, e, el);
}
static void g2_to_snarkjs_std(uint8_t *out, const cuzk_g2_affine *a)
{
    cuzk_g2_to_snarkjs(out, a, false);
}
static void g2_to_snarkjs_mont(uint8_t *out, const cuzk_g2_affine *a)
{
    cuzk_g2_to_snarkjs(out, a, true);
}

/* One fixed-size G1 reader under every flag combination, with the round trip through its writer. */
static void run_g1(g1_reader rd, g1_writer wr, size_t width, const uint8_t *d, size_t n)
{
    if (n < width)
        return;
    uint8_t *in = dup_bytes(d, width);
    if (!in)
        return;
    cuzk_g1_affine base, sentinel;
    memset(&sentinel, 0xa5, sizeof sentinel);
    int base_rc = CUZK_OK;
    for (unsigned flags = 0; flags < 4; flags++) {
        char err[256] = "";
        cuzk_g1_affine p = sentinel;
        int rc = rd(&p, in, flags, err, sizeof err);
        if (flags == 0) {
            base_rc = rc;
            base = p;
        }
        check_g1(rc, err, &p, &sentinel, flags, base_rc, &base);
        if (rc == CUZK_OK) {
            uint8_t again[CUZK_G1_UNCOMPRESSED_SIZE];
            wr(again, &p);
            require(memcmp(again, in, width) == 0);
        }
    }
    free(in);
}

static void run_g2(g2_reader rd, g2_writer wr, size_t width, const uint8_t *d, size_t n)
{
    if (n < width)
        return;
    uint8_t *in = dup_bytes(d, width);
    if (!in)
        return;
    cuzk_g2_affine base, sentinel;
    memset(&sentinel, 0xa5, sizeof sentinel);
    int base_rc = CUZK_OK;
    for (unsigned flags = 0; flags < 4; flags++) {
        char err[256] = "";
        cuzk_g2_affine p = sentinel;
        int rc = rd(&p, in, flags, err, sizeof err);
        if (flags == 0) {
            base_rc = rc;
            base = p;
        }
        check_g2(rc, err, &p, &sentinel, flags, base_rc, &base);
        if (rc == CUZK_OK) {
            uint8_t again[CUZK_G2_UNCOMPRESSED_SIZE];
            wr(again, &p);
            require(memcmp(again, in, width) == 0);
        }
    }
    free(in);
}

/* The length-dispatching decoders on the whole input: they must agree with the fixed-size readers. */
static void run_decode(const uint8_t *d, size_t n)
{
    for (unsigned flags = 0; flags < 4; flags++) {
        char err[256] = "";
        cuzk_g1_affine p1, q1;
        int rc = cuzk_g1_decode(&p1, d, n, flags, err, sizeof err);
        require(rc == CUZK_OK || err[0]);
        if (rc == CUZK_OK) {
            require(n == CUZK_G1_COMPRESSED_SIZE || n == CUZK_G1_UNCOMPRESSED_SIZE);
            int rc2 = n == CUZK_G1_COMPRESSED_SIZE ? cuzk_g1_uncompress(&q1, d, flags, NULL, 0)
                                                   : cuzk_g1_deserialize(&q1, d, flags, NULL, 0);
            require(rc2 == CUZK_OK && cuzk_g1_affine_eq(&p1, &q1));
        }
        err[0] = 0;
        cuzk_g2_affine p2, q2;
        rc = cuzk_g2_decode(&p2, d, n, flags, err, sizeof err);
        require(rc == CUZK_OK || err[0]);
        if (rc == CUZK_OK) {
            require(n == CUZK_G2_COMPRESSED_SIZE || n == CUZK_G2_UNCOMPRESSED_SIZE);
            int rc2 = n == CUZK_G2_COMPRESSED_SIZE ? cuzk_g2_uncompress(&q2, d, flags, NULL, 0)
                                                   : cuzk_g2_deserialize(&q2, d, flags, NULL, 0);
            require(rc2 == CUZK_OK && cuzk_g2_affine_eq(&p2, &q2));
        }
    }
}

/* Proof readers: one proof from the leading 192 bytes, and the whole input as a batch. */
static void run_proofs(const uint8_t *d, size_t n)
{
    char err[256] = "";
    if (n >= CUZK_GROTH16_PROOF_SIZE) {
        uint8_t *in = dup_bytes(d, CUZK_GROTH16_PROOF_SIZE);
        if (in) {
            cuzk_groth16_proof pr;
            int rc = cuzk_groth16_proof_from_bytes(&pr, in, err, sizeof err);
            require(rc == CUZK_OK || err[0]);
            if (rc == CUZK_OK) {
                uint8_t again[CUZK_GROTH16_PROOF_SIZE];
                cuzk_groth16_proof_to_bytes(again, &pr);
                require(memcmp(again, in, sizeof again) == 0);
            }
            free(in);
        }
    }
    size_t max = n / CUZK_GROTH16_PROOF_SIZE;
    if (max > 8)
        return;
    size_t cap = max ? max : 1;
    cuzk_groth16_proof *prs = malloc(cap * sizeof *prs);
    if (!prs)
        return;
    for (size_t m = max ? max - 1 : 0; m <= max; m++) {
        size_t cnt = (size_t)-1;
        err[0] = 0;
        int rc = cuzk_groth16_proofs_from_bytes(prs, m, d, n, &cnt, err, sizeof err);
        require(rc == CUZK_OK || err[0]);
        if (rc != CUZK_OK)
            continue;
        require(n % CUZK_GROTH16_PROOF_SIZE == 0 && cnt == n / CUZK_GROTH16_PROOF_SIZE && cnt <= m);
        for (size_t j = 0; j < cnt; j++) {
            uint8_t again[CUZK_GROTH16_PROOF_SIZE];
            cuzk_groth16_proof_to_bytes(again, &prs[j]);
            require(memcmp(again, d + j * CUZK_GROTH16_PROOF_SIZE, sizeof again) == 0);
        }
    }
    free(prs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *copy = dup_bytes(data, size);
    if (!copy)
        return 0;
    run_decode(copy, size);
    run_g1(cuzk_g1_deserialize, cuzk_g1_serialize, CUZK_G1_UNCOMPRESSED_SIZE, copy, size);
    run_g1(cuzk_g1_uncompress, cuzk_g1_compress, CUZK_G1_COMPRESSED_SIZE, copy, size);
    run_g1(g1_snarkjs_std, g1_to_snarkjs_std, CUZK_G1_SNARKJS_SIZE, copy, size);
    run_g1(g1_snarkjs_mont, g1_to_snarkjs_mont, CUZK_G1_SNARKJS_SIZE, copy, size);
    run_g2(cuzk_g2_deserialize, cuzk_g2_serialize, CUZK_G2_UNCOMPRESSED_SIZE, copy, size);
    run_g2(cuzk_g2_uncompress, cuzk_g2_compress, CUZK_G2_COMPRESSED_SIZE, copy, size);
    run_g2(g2_snarkjs_std, g2_to_snarkjs_std, CUZK_G2_SNARKJS_SIZE, copy, size);
    run_g2(g2_snarkjs_mont, g2_to_snarkjs_mont, CUZK_G2_SNARKJS_SIZE, copy, size);
    run_proofs(copy, size);
    free(copy);
    return 0;
}
