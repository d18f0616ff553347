/*
 * cuzk/verify.h — Groth16 verification over BLS12-381 and the 192-byte
 * bellperson proof encoding.
 *
 * One equation serves both conventions (prover-internals.md §6.1):
 *     e(A, B) = e(alpha, beta) · e(IC, gamma) · e(C, delta),
 *     IC = ic[0] + sum_i x_i · ic[i].
 * bellperson checks FE(ML(A, B) · ML(IC, -gamma) · ML(C, -delta)) against a
 * cached e(alpha, beta); snarkjs checks e(-A, B) e(alpha, beta) e(IC, gamma)
 * e(C, delta) = 1. They are the same test; cuzk does the former: one
 * multi-Miller loop over three pairs and one final exponentiation.
 *
 * Untrusted proofs: cuzk_groth16_verify checks that A and C are in G1 and B
 * in G2 (on the curve and in the r-order subgroup) before pairing, since the
 * pairing is only meaningful on group elements. The identity is a group
 * element and the equation decides about it, as in snarkjs; bellperson's
 * byte reader refuses it, and so does cuzk_groth16_proof_from_bytes, which is
 * the strict entry point for bellperson-encoded proofs.
 *
 * Status codes: CUZK_OK valid, CUZK_EVERIFY the equation fails, CUZK_EINVAL
 * malformed input (wrong number of public inputs, a point off the curve or
 * outside the subgroup, a bad key); err says which.
 */
#ifndef CUZK_VERIFY_H
#define CUZK_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/groth16.h"
#include "cuzk/pairing.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A verifying key prepared for repeated use (about 40 KB; no heap memory). */
typedef struct {
    cuzk_fp12 alpha_beta;       /* e(alpha, beta) */
    cuzk_g2_prepared neg_gamma; /* lines of -gamma */
    cuzk_g2_prepared neg_delta; /* lines of -delta */
    const cuzk_g1_affine *ic;   /* BORROWED from the vk given to cuzk_groth16_prepare */
    size_t n_ic;                /* number of public inputs + 1 */
} cuzk_groth16_pvk;

/* Checks vk (every point in its group, at least one IC point) and prepares it. pvk borrows vk->ic:
 * the vk must outlive the pvk. */
int cuzk_groth16_prepare(cuzk_groth16_pvk *pvk, const cuzk_groth16_vk *vk, char *err, size_t errlen);

/* Verifies proof for the n_inputs public inputs (public.json order, without the leading 1). */
int cuzk_groth16_verify(const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs, size_t n_inputs,
                        const cuzk_groth16_proof *proof, char *err, size_t errlen);

/* Verifies n_proofs proofs at once, proof j with inputs[j * n_inputs .. (j + 1) * n_inputs), by one random
 * linear combination (128-bit weights from getrandom): CUZK_OK when all are valid, CUZK_EVERIFY when at
 * least one is not (except with probability 2^-128; verify one by one to find it), CUZK_EINVAL for no
 * proofs or malformed input, CUZK_ENOMEM, CUZK_EIO if the system has no randomness to give. */
int cuzk_groth16_verify_batch(const cuzk_groth16_pvk *pvk, const cuzk_fr *inputs, size_t n_inputs,
                              const cuzk_groth16_proof *proofs, size_t n_proofs, char *err, size_t errlen);

#define CUZK_GROTH16_PROOF_SIZE 192

/* bellperson Proof::write: compressed A (48) ‖ B (96) ‖ C (48); points must be on the curve. */
void cuzk_groth16_proof_to_bytes(uint8_t out[CUZK_GROTH16_PROOF_SIZE], const cuzk_groth16_proof *proof);

/* bellperson Proof::read: decodes and fully checks each point (flags, canonical, on curve, in subgroup)
 * and rejects the identity; *proof is untouched on failure. */
int cuzk_groth16_proof_from_bytes(cuzk_groth16_proof *proof, const uint8_t in[CUZK_GROTH16_PROOF_SIZE],
                                  char *err, size_t errlen);

/* Decodes a concatenation of proofs (Filecoin writes one per partition): len must be a multiple of 192
 * and at most 192 * max; each proof as cuzk_groth16_proof_from_bytes. *n receives the count. */
int cuzk_groth16_proofs_from_bytes(cuzk_groth16_proof *proofs, size_t max, const uint8_t *in, size_t len,
                                   size_t *n, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
