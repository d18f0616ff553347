/*
 * cuzk/zkey_setup.h — a circuit-specific Groth16 setup that writes a snarkjs
 * .zkey (BLS12-381) directly, without a powers-of-tau ceremony.
 *
 * NOT A TRUSTED CEREMONY. The toxic waste (tau, alpha, beta, gamma, delta) is
 * drawn from getrandom() in this process, or taken from the caller, and values
 * derived from it pass through ordinary heap memory that is not wiped. Anyone
 * who knows it can forge proofs. The keys are for tests and benchmarks;
 * production keys come from a multi-party ceremony.
 *
 * The file is the one snarkjs 0.7.x would hold after `groth16 setup` and
 * contributions that ended with the same toxic waste (docs/design/
 * 010-zkey-setup.md): same header, same coefficient section (entry for entry,
 * in the order `groth16 setup` writes it), same point sections. With the
 * circuit's rows followed by the nPublic + 1 input rows "A[nConstraints + s][s]
 * = 1", n = nConstraints + nPublic + 1 rows, m = domainSize (the smallest power
 * of two >= n, at least 2) and ω snarkjs's m-th root of unity (from 5), each
 * signal i has u_i = A_i(tau), v_i = B_i(tau), w_i = C_i(tau). Then
 *   alpha1, beta1, beta2, gamma2, delta1, delta2 = [alpha]1 ... [delta]2
 *   IC_i = [(beta u_i + alpha v_i + w_i) / gamma]1     i <= nPublic
 *   A_i  = [u_i]1, B1_i = [v_i]1, B2_i = [v_i]2        every signal
 *   C_i  = [(beta u_i + alpha v_i + w_i) / delta]1     i > nPublic
 *   H_i  = [L_{2i+1}(tau) / delta]1                    i < m
 * where L_k is the k-th Lagrange polynomial of the domain of size 2m: snarkjs's
 * prover evaluates A·B − C at the odd powers of ω_2m, and A·B − C vanishes at
 * the even ones, so Σ H_i (A·B − C)(ω_2m^(2i+1)) = [(A·B − C)(tau) / delta]1.
 * A polynomial that is zero at tau gives the identity (all-zero bytes), as in
 * snarkjs. Section 10 holds an all-zero circuit hash and no contributions.
 *
 * The circuit is a cuzk_cs as cuzk_cs_from_snarkjs makes it: variable 0 is
 * the constant 1, variables 1 .. n_inputs - 1 the public signals (nPublic =
 * n_inputs - 1), the rest private.
 *
 * Threading: every function takes a cuzk_pool (NULL = the calling thread);
 * the bytes written do not depend on the pool size.
 */
#ifndef CUZK_ZKEY_SETUP_H
#define CUZK_ZKEY_SETUP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/common.h"
#include "cuzk/cs.h"
#include "cuzk/pool.h"
#include "cuzk/setup.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives the next len bytes of the file; returns 0 on success, anything else aborts the setup. */
typedef int (*cuzk_zkey_sink)(void *ctx, const void *buf, size_t len);

/* log2 of snarkjs's domainSize for cs: the smallest k >= 1 with 2^k >= n_constraints + n_inputs;
 * CUZK_ERANGE above CUZK_NTT_MAX_LG (the prover's limit). */
int cuzk_zkey_domain_lg(unsigned *lg, const cuzk_cs *cs, char *err, size_t errlen);

/* Size in bytes of the .zkey cuzk_zkey_setup writes for cs (0 if cs is too large for the format). */
uint64_t cuzk_zkey_size(const cuzk_cs *cs);

/* Streams the .zkey for cs, in file order, to sink (which sees exactly cuzk_zkey_size(cs) bytes on
 * success). tw = NULL draws fresh toxic waste with getrandom(); a given tw must have all five values
 * non-zero and tau outside the domain of size 2m. Everything is checked before the first byte goes
 * out; after that only the sink (CUZK_EIO, "the output failed") or memory (CUZK_ENOMEM) can fail.
 * Not a trusted ceremony. */
int cuzk_zkey_setup(const cuzk_cs *cs, const cuzk_groth16_toxic *tw, cuzk_zkey_sink sink, void *ctx,
                    cuzk_pool *pool, char *err, size_t errlen);

/* cuzk_zkey_setup into the file at path, atomically: written to "<path>.tmp.<pid>" (created with O_EXCL
 * before any work), fsynced and renamed over path on success; on failure the temporary file is removed
 * and an existing file at path is left as it was. */
int cuzk_zkey_setup_write(const char *path, const cuzk_cs *cs, const cuzk_groth16_toxic *tw, cuzk_pool *pool,
                          char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
