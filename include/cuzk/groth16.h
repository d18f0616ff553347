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

#include <stdbool.h>
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
 * only the density-selected variables.
 *
 * The coset form (h_coset; docs/design/021, made by cuzk_groth16_setup_ex, held
 * in memory only: bellperson's files cannot store it) proves the same proofs
 * with two transforms fewer. With g the coset shift (7), k = 1/(g^m - 1),
 * Z = X^m - 1, l_j the Lagrange basis of the coset {g w^j} and w_i = C_i(tau):
 *   h_j = [l_j(tau) Z(tau) k / delta]1                          j = 0 .. m - 1
 *   l_i = [-w_i Z(tau) k / delta]1                              every input
 *   l_i = [(beta u_i + alpha v_i + w_i (1 - Z(tau) k)) / delta]1  every aux
 * so the H sum takes A(g w^j) B(g w^j) as its m scalars, and the C share of the
 * quotient rides in l, which covers every variable (n_l = inputs + aux; the
 * inputs' points may be the identity) and takes all of z as its scalars. */
typedef struct {
    cuzk_groth16_vk vk;
    size_t n_h, n_l, n_a, n_b;
    cuzk_g1_affine *h, *l, *a, *b_g1; /* owned */
    cuzk_g2_affine *b_g2;             /* owned */
    bool h_coset;                     /* the coset form above; false: bellperson's */
} cuzk_groth16_params;

/* The key's evaluation domain m: n_h + 1 (bellperson's layout) or n_h (the coset form). */
static inline size_t cuzk_groth16_domain_size(const cuzk_groth16_params *pk)
{
    return pk->h_coset ? pk->n_h : pk->n_h + 1;
}

/* Where the L scalars start in z, for a circuit of n_inputs inputs: after the inputs (bellperson's layout:
 * l is one point an aux variable), or at z[0] (the coset form: l covers every variable). So the key's n_l
 * is n_inputs + n_aux minus this. */
static inline size_t cuzk_groth16_l_first(const cuzk_groth16_params *pk, size_t n_inputs)
{
    return pk->h_coset ? 0 : n_inputs;
}

void cuzk_groth16_vk_free(cuzk_groth16_vk *vk);
void cuzk_groth16_params_free(cuzk_groth16_params *pk);

#ifdef __cplusplus
}
#endif
#endif
