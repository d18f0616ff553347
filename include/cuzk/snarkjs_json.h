/*
 * cuzk/snarkjs_json.h — the snarkjs JSON files of a Groth16 proof over
 * BLS12-381: verification_key.json, proof.json and public.json.
 *
 * Formats (snarkjs 0.7.x; reference/ecosystem.md §1.9). Field elements are
 * canonical decimal strings; a point is written projectively with z = 1, or
 * z = 0 for the point at infinity, which snarkjs writes as ["0", "1", "0"]
 * (G2: [["0","0"], ["1","0"], ["0","0"]]). Fp2 values are [c0, c1], real part
 * first.
 *   G1  [x, y, z]
 *   G2  [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]
 *   verification_key.json  {"protocol": "groth16", "curve": "bls12381",
 *       "nPublic": n, "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2,
 *       "vk_delta_2": G2, "vk_alphabeta_12": ..., "IC": [G1 x (n + 1)]}
 *   proof.json   {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16",
 *       "curve": "bls12381"}
 *   public.json  ["x1", ..., "xn"]  (outputs first, then public inputs)
 *
 * Readers are strict: the JSON itself (cuzk/json.h), every field element
 * canonical and below its modulus, z exactly 1 or 0 (a z = 0 point is the
 * identity whatever its x and y, as in snarkjs), points on the curve and in
 * the r-order subgroup, protocol "groth16", curve "bls12381" (compared as
 * snarkjs does: case and punctuation ignored, so "BLS12-381" passes), nPublic
 * equal to the IC length minus one. Members the formats do not define are
 * ignored; vk_alphabeta_12 (a cached e(alpha, beta)) is ignored too. The
 * identity is accepted wherever it appears, as snarkjs accepts it.
 * verification_key.json has no beta_g1 or delta_g1: the vk returned sets them
 * to the identity (verification does not use them).
 *
 * Writers produce the bytes snarkjs's command line writes (bfj, one space of
 * indent, no final newline), so `snarkjs groth16 verify` reads them.
 *
 * Errors: CUZK_EIO (file), CUZK_EINVAL (malformed JSON or structure), CUZK_ERANGE
 * (a JSON limit, another protocol or curve), CUZK_ENONCANONICAL (a value >= its
 * modulus), CUZK_ENOTONCURVE / CUZK_ENOTINGROUP (a bad point), CUZK_ENOMEM; err
 * names the file and the member: "proof.json: pi_b: not on the curve".
 */
#ifndef CUZK_SNARKJS_JSON_H
#define CUZK_SNARKJS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/groth16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads verification_key.json text (len bytes) into *out (zeroed first; free with cuzk_groth16_vk_free). */
int cuzk_snarkjs_vk_parse(const char *text, size_t len, cuzk_groth16_vk *out, char *err, size_t errlen);
/* As cuzk_snarkjs_vk_parse, from the file at path. */
int cuzk_snarkjs_vk_read(const char *path, cuzk_groth16_vk *out, char *err, size_t errlen);

/* Reads proof.json text into *out. */
int cuzk_snarkjs_proof_parse(const char *text, size_t len, cuzk_groth16_proof *out, char *err, size_t errlen);
/* As cuzk_snarkjs_proof_parse, from the file at path. */
int cuzk_snarkjs_proof_read(const char *path, cuzk_groth16_proof *out, char *err, size_t errlen);
/* Formats proof (affine points on the curve) as snarkjs's proof.json; *out is NUL-terminated, free() it. */
int cuzk_snarkjs_proof_format(const cuzk_groth16_proof *proof, char **out, size_t *len, char *err,
                              size_t errlen);
/* Writes cuzk_snarkjs_proof_format's text to path atomically (cuzk/outfile.h). */
int cuzk_snarkjs_proof_write(const char *path, const cuzk_groth16_proof *proof, char *err, size_t errlen);

/* Reads public.json text into a new array *out of *n values (free() it; NULL when *n is 0). */
int cuzk_snarkjs_public_parse(const char *text, size_t len, cuzk_fr **out, size_t *n, char *err,
                              size_t errlen);
/* As cuzk_snarkjs_public_parse, from the file at path. */
int cuzk_snarkjs_public_read(const char *path, cuzk_fr **out, size_t *n, char *err, size_t errlen);
/* Formats n public values as snarkjs's public.json; *out is NUL-terminated, free() it. */
int cuzk_snarkjs_public_format(const cuzk_fr *in, size_t n, char **out, size_t *len, char *err,
                               size_t errlen);
/* Writes cuzk_snarkjs_public_format's text to path atomically (cuzk/outfile.h). */
int cuzk_snarkjs_public_write(const char *path, const cuzk_fr *in, size_t n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
