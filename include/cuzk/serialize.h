/*
 * cuzk/serialize.h — byte encodings of G1 and G2 points.
 *
 * 1. zcash / IETF / blst / bellperson encoding (prover-internals.md §2.1).
 *    Field elements are canonical (not Montgomery), big-endian, 48 bytes per
 *    Fp. The three top bits of byte 0 are flags:
 *      0x80  compressed form (only x is stored)
 *      0x40  point at infinity: every other bit of the encoding is zero
 *      0x20  (compressed only) y is the lexicographically larger root
 *    G1 uncompressed  96 B: x ‖ y                          (infinity 0x40, 95 x 0)
 *    G1 compressed    48 B: x | 0x80 | sign                (infinity 0xc0, 47 x 0)
 *    G2 uncompressed 192 B: x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0      (imaginary part first)
 *    G2 compressed    96 B: x.c1 ‖ x.c0 | 0x80 | sign
 *    "Larger" for Fp: y > (p-1)/2; for Fp2: y.c1 > (p-1)/2 if y.c1 != 0, else
 *    y.c0 > (p-1)/2. The encoders always produce canonical bytes.
 *    bellperson .params/.vk files use the uncompressed forms and proofs the
 *    compressed ones; both reject the identity (CUZK_DECODE_REJECT_IDENTITY).
 *
 * 2. snarkjs encoding (.zkey sections, .json after parsing): uncompressed,
 *    no flag bits, every Fp 48 bytes LITTLE-endian; G1 = x ‖ y (96 B),
 *    G2 = x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1 (192 B, real part first); the identity is
 *    all zero bytes. In a .zkey each Fp is in Montgomery form x·2^384 mod p
 *    (pass montgomery = true), elsewhere canonical (montgomery = false).
 *
 * Decoders are strict: they never accept a non-canonical coordinate, a point
 * off the curve or inconsistent flags, and report which with a distinct
 * status code (cuzk/common.h) and a message in err (optional, may be NULL):
 *   CUZK_EFLAGS         compression bit wrong for the length, sign bit on an
 *                       uncompressed encoding, infinity bit with any other
 *                       bit set
 *   CUZK_ENONCANONICAL  a coordinate >= p
 *   CUZK_ENOTONCURVE    coordinates do not satisfy the curve equation
 *   CUZK_ENOSQRT        compressed x with x^3 + b not a square
 *   CUZK_ENOTINGROUP    on the curve, not in the r-order subgroup
 *                       (only with CUZK_DECODE_CHECK_GROUP)
 *   CUZK_EINVAL         identity with CUZK_DECODE_REJECT_IDENTITY; a length
 *                       that is neither form (cuzk_g*_decode)
 * On failure *out is left unchanged. Decoded points are in affine Montgomery
 * form with the identity as all-zero coordinates (cuzk/curve.h).
 */
#ifndef CUZK_SERIALIZE_H
#define CUZK_SERIALIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/curve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decoder flags (bitwise or). */
enum {
    CUZK_DECODE_CHECK_GROUP = 1u << 0,     /* also require r-order subgroup membership */
    CUZK_DECODE_REJECT_IDENTITY = 1u << 1, /* the point at infinity is an error (CUZK_EINVAL) */
};

#define CUZK_G1_UNCOMPRESSED_SIZE 96
#define CUZK_G1_COMPRESSED_SIZE 48
#define CUZK_G2_UNCOMPRESSED_SIZE 192
#define CUZK_G2_COMPRESSED_SIZE 96
#define CUZK_G1_SNARKJS_SIZE 96
#define CUZK_G2_SNARKJS_SIZE 192

/* ---- zcash encoding: writers (a must be on the curve or the identity) ---- */

/* 96-byte uncompressed G1 encoding. */
void cuzk_g1_serialize(uint8_t out[96], const cuzk_g1_affine *a);
/* 48-byte compressed G1 encoding. */
void cuzk_g1_compress(uint8_t out[48], const cuzk_g1_affine *a);
/* 192-byte uncompressed G2 encoding (c1 before c0). */
void cuzk_g2_serialize(uint8_t out[192], const cuzk_g2_affine *a);
/* 96-byte compressed G2 encoding (c1 before c0). */
void cuzk_g2_compress(uint8_t out[96], const cuzk_g2_affine *a);

/* ---- zcash encoding: strict readers ------------------------------------- */

/* Decodes a 96-byte uncompressed G1 point; flags = CUZK_DECODE_*. */
int cuzk_g1_deserialize(cuzk_g1_affine *out, const uint8_t in[96], unsigned flags, char *err, size_t errlen);
/* Decodes a 48-byte compressed G1 point (one square root). */
int cuzk_g1_uncompress(cuzk_g1_affine *out, const uint8_t in[48], unsigned flags, char *err, size_t errlen);
/* Decodes a 192-byte uncompressed G2 point. */
int cuzk_g2_deserialize(cuzk_g2_affine *out, const uint8_t in[192], unsigned flags, char *err, size_t errlen);
/* Decodes a 96-byte compressed G2 point (one Fp2 square root). */
int cuzk_g2_uncompress(cuzk_g2_affine *out, const uint8_t in[96], unsigned flags, char *err, size_t errlen);
/* Decodes len bytes as either G1 form: 48 needs the compression bit, 96 needs it clear. */
int cuzk_g1_decode(cuzk_g1_affine *out, const uint8_t *in, size_t len, unsigned flags, char *err,
                   size_t errlen);
/* Decodes len bytes as either G2 form: 96 needs the compression bit, 192 needs it clear. */
int cuzk_g2_decode(cuzk_g2_affine *out, const uint8_t *in, size_t len, unsigned flags, char *err,
                   size_t errlen);

/* ---- snarkjs encoding --------------------------------------------------- */

/* 96-byte snarkjs G1 (x ‖ y, LE); Montgomery coordinates when montgomery is true. */
void cuzk_g1_to_snarkjs(uint8_t out[96], const cuzk_g1_affine *a, bool montgomery);
/* Strict snarkjs G1 reader: coordinates < p, on the curve, flags as above; all-zero = identity. */
int cuzk_g1_from_snarkjs(cuzk_g1_affine *out, const uint8_t in[96], bool montgomery, unsigned flags,
                         char *err, size_t errlen);
/* 192-byte snarkjs G2 (x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1, LE). */
void cuzk_g2_to_snarkjs(uint8_t out[192], const cuzk_g2_affine *a, bool montgomery);
/* Strict snarkjs G2 reader, as cuzk_g1_from_snarkjs. */
int cuzk_g2_from_snarkjs(cuzk_g2_affine *out, const uint8_t in[192], bool montgomery, unsigned flags,
                         char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
