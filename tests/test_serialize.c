/*
 * test_serialize.c — point encodings (cuzk/serialize.h).
 *
 * Oracles: the generator encodings of prover-internals.md §2.1 / §3.3, the
 * @noble/curves vectors (every enc/add/dbl/neg/mul point decodes and
 * re-encodes to the same bytes; notsub, offcurve vectors are rejected with
 * the right status), and fresh random points each run (round trips in every
 * form, sign bit against a byte-level comparison with (p-1)/2, snarkjs layout
 * against the zcash bytes). Every decoding failure mode has its own input,
 * built by editing a good encoding, and must return exactly its status code.
 * The shared G1/G2 code is serialize_tests.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/curve.h"
#include "cuzk/serialize.h"
#include "testutil.h"

/* (p - 1) / 2 as 48 big-endian bytes. */
static void half_p_be(uint8_t out[48])
{
    uint64_t h[6];
    for (int i = 0; i < 6; i++)
        h[i] = (CUZK_P[i] >> 1) | (i < 5 ? CUZK_P[i + 1] << 63 : 0);
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 8; j++)
            out[(5 - i) * 8 + j] = (uint8_t)(h[i] >> (56 - 8 * j));
}

/* canonical(a) > (p - 1) / 2, by comparing big-endian bytes. */
static bool fp_larger_half(const cuzk_fp *a)
{
    uint8_t x[48], h[48];
    cuzk_fp_to_be48(x, a);
    half_p_be(h);
    return memcmp(x, h, 48) > 0;
}

static bool g1_sign(const cuzk_g1_affine *a)
{
    return fp_larger_half(&a->y);
}

static bool g2_sign(const cuzk_g2_affine *a)
{
    return cuzk_fp_is_zero(&a->y.c1) ? fp_larger_half(&a->y.c0) : fp_larger_half(&a->y.c1);
}

static void g1_set_b(cuzk_fp *b)
{
    cuzk_fp_from_u64(b, 4);
}

static void g2_set_b(cuzk_fp2 *b)
{
    cuzk_fp_from_u64(&b->c0, 4);
    cuzk_fp_from_u64(&b->c1, 4);
}

static void g1_x_bytes(uint8_t *out, const cuzk_fp *x)
{
    cuzk_fp_to_be48(out, x);
}

static void g2_x_bytes(uint8_t *out, const cuzk_fp2 *x)
{
    cuzk_fp_to_be48(out, &x->c1);
    cuzk_fp_to_be48(out + 48, &x->c0);
}

#define T_G g1
#define T_F cuzk_fp
#define T_FE(op) cuzk_fp_##op
#define T_P cuzk_g1
#define T_AFF cuzk_g1_affine
#define T_GEN CUZK_G1_GENERATOR
#define T_VEC "g1.txt"
#define T_UN 96
#define T_CN 48
#define T_RAND_FE test_rand_fp
#define T_SET_B g1_set_b
#define T_X_BYTES g1_x_bytes
#define T_SIGN g1_sign
#define T_ITER 64
#include "serialize_tests.h"

#define T_G g2
#define T_F cuzk_fp2
#define T_FE(op) cuzk_fp2_##op
#define T_P cuzk_g2
#define T_AFF cuzk_g2_affine
#define T_GEN CUZK_G2_GENERATOR
#define T_VEC "g2.txt"
#define T_UN 192
#define T_CN 96
#define T_RAND_FE test_rand_fp2
#define T_SET_B g2_set_b
#define T_X_BYTES g2_x_bytes
#define T_SIGN g2_sign
#define T_ITER 32
#include "serialize_tests.h"

/* prover-internals.md §2.1 (compressed generators) and §3.3 (G1 generator coordinates). */
static const char G1_GEN_C[] =
    "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00"
    "adb22c6bb";
static const char G1_GEN_X[] =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00"
    "adb22c6bb";
static const char G1_GEN_Y[] =
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232"
    "946c5e7e1";
static const char G2_GEN_C[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d0"
    "55d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805"
    "bbefd48056c8c121bdb8";

static void test_generators(void)
{
    uint8_t c1[48], c2[96], u1[96], want[96];
    char hex[2 * 96 + 1];
    cuzk_g1_affine p;
    cuzk_g2_affine q;

    cuzk_g1_compress(c1, &CUZK_G1_GENERATOR);
    hex_encode(hex, c1, 48);
    CHECK(!strcmp(hex, G1_GEN_C), "G1 generator compresses to %s", hex);
    CHECK(hex_decode(want, 48, G1_GEN_X) && hex_decode(want + 48, 48, G1_GEN_Y), "hex");
    cuzk_g1_serialize(u1, &CUZK_G1_GENERATOR);
    CHECK(!memcmp(u1, want, 96), "G1 generator uncompressed = x || y");
    CHECK(cuzk_g1_uncompress(&p, c1, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK &&
              cuzk_g1_affine_eq(&p, &CUZK_G1_GENERATOR),
          "G1 generator decodes");

    cuzk_g2_compress(c2, &CUZK_G2_GENERATOR);
    hex_encode(hex, c2, 96);
    CHECK(!strcmp(hex, G2_GEN_C), "G2 generator compresses to %s", hex);
    CHECK(cuzk_g2_uncompress(&q, c2, CUZK_DECODE_CHECK_GROUP, NULL, 0) == CUZK_OK &&
              cuzk_g2_affine_eq(&q, &CUZK_G2_GENERATOR),
          "G2 generator decodes");
}

int main(void)
{
    test_rng_init("test_serialize");
    test_generators();
    g1_run_all();
    g2_run_all();
    return test_finish("test_serialize");
}
