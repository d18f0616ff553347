/*
 * cuzk/groth16.h — Groth16 keys and proofs over BLS12-381, shared by the
 * bellperson path (.params/.vk files, 192-byte proofs) and the snarkjs path
 * (.zkey, verification_key.json, proof.json).
 *
 * Points are affine, in memory form (Montgomery limbs, identity all-zero).
 * Structs that own arrays come with a *_free; a zero-initialised struct is
 * empty and safe to free.
 */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/curve.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Verifying key: e(A, B) = e(alpha, beta) e(IC, gamma) e(C, delta),
 * IC = ic[0] + sum_i x_i ic[i] over the n_ic - 1 public inputs. */
typedef struct {
    cuzk_g1_affine alpha_g1, beta_g1, delta_g1;
    cuzk_g2_affine beta_g2, gamma_g2, delta_g2;
    size_t n_ic;
    cuzk_g1_affine *ic; /* owned */
} cuzk_groth16_vk;

/* A proof: A and C in G1, B in G2. */
typedef struct {
    cuzk_g1_affine a;
    cuzk_g2_affine b;
    cuzk_g1_affine c;
} cuzk_groth16_proof;

/* Proving key in bellperson's layout (prover-internals.md §2.2): the vk plus
 * the query vectors. h has m - 1 points, l one per aux variable, a/b_g1/b_g2
 * only the density-selected variables. */
typedef struct {
    cuzk_groth16_vk vk;
    size_t n_h, n_l, n_a, n_b;
    cuzk_g1_affine *h, *l, *a, *b_g1; /* owned */
    cuzk_g2_affine *b_g2;             /* owned */
} cuzk_groth16_params;

void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);
void cuzk_groth16_params_free(cuzk_groth16_params *pk);

#ifdef __cplusplus
}
#endif
#endif
