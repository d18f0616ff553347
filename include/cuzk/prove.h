/*
 * cuzk/prove.h — the CPU Groth16 prover, in bellperson's and in snarkjs's
 * convention (prover-internals.md §1, ecosystem.md §1.6–1.7,
 * docs/design/007-cpu-prover.md).
 *
 * bellperson (cuzk_groth16_prove): a constraint system (cuzk/cs.h), its
 * witness z = inputs ‖ aux with z[0] = 1, and a proving key in bellperson's
 * layout (cuzk/groth16.h). The prover appends one row z_i · 0 = 0 per input,
 * works on the domain m = 2^ceil(log2(n_constraints + n_inputs)) with ω from
 * 7 and the coset shift 7, computes the quotient's m - 1 coefficients, runs
 * the five MSMs (H, L, A, B in G1 and G2, with bellperson's density
 * selection) and assembles A, B, C with r and s. For the same key, witness,
 * r and s the proof equals bellperson's bit for bit.
 *
 * snarkjs (cuzk_groth16_prove_zkey): a .zkey (cuzk/snarkjs.h) and a witness
 * w in circom's wire order (w[0] = 1, then the public signals). The prover
 * evaluates A and B from the zkey's coefficient section, sets C = A ∘ B row
 * by row, evaluates the three polynomials on the odd coset of the 2n domain
 * with ω from 5, takes H = A·B - C there, and assembles pi_a, pi_b, pi_c
 * exactly as snarkjs's groth16 prover does; with the same r and s the proof
 * equals snarkjs's.
 *
 * Safety (both paths, by default): the witness is checked against the
 * constraints before any MSM (CUZK_EUNSAT, the message names the first bad
 * row), and the finished proof is verified against the key's own verifying
 * key (CUZK_EVERIFY). A zkey holds no C matrix, so its witness check needs
 * the circuit (cuzk_prove_opts.cs); without it only the verification guards.
 *
 * Randomness: r and s come from getrandom() when the caller passes NULL; a
 * caller that passes them (tests, reproducible vectors) owns the secrecy.
 * Scalar multiplications by r and s are variable-time.
 *
 * Threading: every step runs on the given pool (NULL = the calling thread);
 * the proof does not depend on the number of threads. Inputs are borrowed
 * for the duration of the call; *out is written only on success.
 */
#ifndef CUZK_PROVE_H
#define CUZK_PROVE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/curve.h"
#include "cuzk/groth16.h"
#include "cuzk/pool.h"
#include "cuzk/snarkjs.h"
#include "cuzk/verify.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Flags of cuzk_prove_opts; 0 (the default) checks, verifies and splits. */
enum {
    CUZK_PROVE_NO_CHECK = 1u << 0,  /* do not evaluate the constraints before proving */
    CUZK_PROVE_NO_VERIFY = 1u << 1, /* do not verify the proof before returning it */
    CUZK_PROVE_NO_SPLIT = 1u << 2,  /* plain MSMs instead of the split MSM (tests, benchmarks) */
};

/* Options of the *_ex functions; a zeroed struct (or NULL) means the defaults. */
typedef struct {
    unsigned flags;              /* CUZK_PROVE_* */
    const cuzk_groth16_pvk *pvk; /* the key's prepared vk, reused across proofs (NULL: prepared per call) */
    const cuzk_cs *cs;           /* zkey path: the circuit, to check the witness (NULL: no check) */
    /* bellperson path: A·z, B·z, C·z on the circuit's n_constraints rows when the caller has them already
     * (the engine's synthesis does): copied instead of evaluated. All three or none (NULL). */
    const cuzk_fr *abc[3];
    /* bellperson path: cs's density bitmaps a_aux, b_input, b_aux exactly as cuzk_cs_density makes them,
     * when the caller keeps them (the engine, once per key): used instead of a scan of the matrices per
     * proof. All three or none (NULL). */
    const uint64_t *density[3];
    /* With density: the bitmaps' popcounts (over n_aux, n_inputs and n_aux bits), counted once with them,
     * when density_counted is set; otherwise each proof counts them (a scan of the bitmaps). */
    size_t density_pop[3];
    bool density_counted;
} cuzk_prove_opts;

/* bellperson convention: proves cs with witness z (n_inputs + n_aux values, z[0] = 1) under pk; r, s NULL
 * = random. Checks and verifies (see cuzk_groth16_prove_ex). */
int cuzk_groth16_prove(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                       const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool, char *err,
                       size_t errlen);

/* As cuzk_groth16_prove with options. Errors: CUZK_EINVAL (sizes of pk and cs disagree, z[0] != 1, delta
 * is the identity), CUZK_ERANGE (domain above 2^28), CUZK_EUNSAT, CUZK_EVERIFY, CUZK_ENOMEM, CUZK_EIO (no
 * randomness). */
int cuzk_groth16_prove_ex(cuzk_groth16_proof *out, const cuzk_groth16_params *pk, const cuzk_cs *cs,
                          const cuzk_fr *z, const cuzk_fr *r, const cuzk_fr *s, const cuzk_prove_opts *opts,
                          cuzk_pool *pool, char *err, size_t errlen);

/* snarkjs convention: proves with the zkey and the n_w = nVars witness values w (Montgomery, w[0] = 1);
 * public_out (nullable) receives w[1 .. nPublic]. r, s NULL = random. Verifies the proof against the
 * zkey's vk. */
int cuzk_groth16_prove_zkey(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk,
                            const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s, cuzk_pool *pool,
                            char *err, size_t errlen);

/* As cuzk_groth16_prove_zkey with options (opts->cs enables the witness check; opts->pvk must then be the
 * zkey's). Errors as cuzk_groth16_prove_ex, plus the point codes of cuzk/serialize.h for a bad zkey point. */
int cuzk_groth16_prove_zkey_ex(cuzk_groth16_proof *out, cuzk_fr *public_out, const cuzk_snarkjs_zkey *zk,
                               const cuzk_fr *w, size_t n_w, const cuzk_fr *r, const cuzk_fr *s,
                               const cuzk_prove_opts *opts, cuzk_pool *pool, char *err, size_t errlen);

/* The verifying key stored in a zkey (alpha, beta, gamma, delta, IC) into *out (free with
 * cuzk_groth16_vk_free). */
int cuzk_snarkjs_zkey_vk(cuzk_groth16_vk *out, const cuzk_snarkjs_zkey *zk, char *err, size_t errlen);

/* The split MSM of prover-internals.md §1.7: out = sum k_i P_i with scalars 0 skipped, scalars 1 added by
 * cuzk_g1_sum over a bitmap and the others in a compact Pippenger MSM (or one plain MSM when more than
 * half of the scalars are neither 0 nor 1). Equal to cuzk_g1_msm. */
int cuzk_g1_msm_split(cuzk_g1 *out, const cuzk_g1_affine *bases, const cuzk_fr *scalars, size_t n,
                      cuzk_pool *pool);
int cuzk_g2_msm_split(cuzk_g2 *out, const cuzk_g2_affine *bases, const cuzk_fr *scalars, size_t n,
                      cuzk_pool *pool);

#ifdef __cplusplus
}
#endif
#endif
